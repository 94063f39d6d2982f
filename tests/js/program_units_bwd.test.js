// The program model in cycles for attention backward kernels (docs/performance.md "The attention
// backward"): a run stepping over the m-blocks of Q (qBlocks) is charged per m-block by the GEMMs,
// copies, math and reduce-add blocks its own run draws, per tile by its store blocks. Worked by hand on FA4's SM90 backward
// (flash_attn/cute/flash_bwd_sm90.py of the installed flash-attn-4, parsed at run time by the
// project's Python front end: never a stored copy) with the presets of sim/gpus.json (H100 SXM:
// 4096 BF16 FLOP/clk/SM, HBM 3350 GB/s / 132 SMs / 1830 MHz = 13.868 B/clk/SM, 128 B/clk smem,
// 128 FP32 FMA per clk, 700-cycle unloaded latency); and the census's failure where a run reads
// none of the step knobs.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const MP = require(path.join(ROOT, "sim", "model_program.js"));
const load = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));

// The installed flash_bwd_sm90.py parsed by parse_cutlass (as tests/test_programs_fa4_bwd.py does).
const { parseInstalled } = require("./installed_flash_attn.js");
const parseBackward = () => parseInstalled("flash_bwd_sm90.py");

let parsed = null;
/** The parse, once; skip the test (fail under CI, as tests/test_parser_dsl.py fa4_dir) when it cannot be made. */
function backward(t) {
  if (parsed === null) parsed = parseBackward();
  if (parsed.missing) {
    if (process.env.CI) assert.fail(parsed.missing);
    t.skip(parsed.missing);
    return null;
  }
  return parsed.structure;
}

test("a run that reads none of kTiles, kvBlocks or qBlocks is a units error that says so", () => {
  // The pingpong program with its k-tile count a literal (`auto k_tile_count = size<3>(gA_mkl);`,
  // kernel layer 546, made `4`): it runs 4 k-tiles whatever kTiles is, so no step count is known.
  const st = load("sm90_gemm_pingpong.json");
  const let546 = st.kernel_layer.program.body.find((n) => n.node === "let" && n.line === 546);
  assert.deepEqual(let546.names, ["k_tile_count"]);
  let546.expr = ["n", 4];
  const reads = MP.programReads(st);
  assert.ok(!reads.kTiles && !reads.kvBlocks && !reads.qBlocks, JSON.stringify(reads));
  assert.equal(KS.simulate(st, { model: "program" }).error, null);   // it runs in steps
  const r = KS.simulate(st, { model: "program", gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.equal(r.error, "units: program: the run reads none of kTiles, kvBlocks or qBlocks: its work per tile is not known");
  assert.deepEqual([r.time, r.tflops, r.units], [null, null, null]);
});

test("FA4 SM90 backward: the census counts one m-block's five GEMMs per warpgroup", (t) => {
  const st = backward(t);
  if (st === null) return;
  const census = MP.programCensus(st, KS.simulate(st, { model: "program" }).knobs);
  // Per m-block: S, dP, dV, dQ, dK (mma_one_m_block 1525, 1532, 1592, 1604, 1609) on each of the
  // two MMA warpgroups: 5 sites, 10 jobs; Q + LSE and dO + dPsum copies; two register-loop nests
  // (P = exp(S - LSE) 1546-1551, dS 1566-1569) of two blocks each per warpgroup; the dQ warp's two
  // reduce-adds (1903, one per warpgroup chunk: `reduce` blocks). Per tile (at 2 steps) the dQ
  // warp's 4 reduce-adds; WG1's dK / dV stores (1714, 1722) are the 2 store blocks, none per step.
  assert.deepEqual(census, { step: "qBlocks", counts: { mmaJobsPerStep: 10, copiesPerStep: 2, expPerStep: 0, epiloguePerTile: 0, storePerTile: 2,
    reducePerStep: 2, reducePerTile: 4, gemmsPerStep: 5, mathPerStep: 8, storePerStep: 0 } });
});

test("FA4 SM90 backward on H100 SXM, 1 x 16 heads x 2048, d 128: worked by hand", (t) => {
  const st = backward(t);
  if (st === null) return;
  const r = KS.simulate(st, { model: "program", gpu: "h100-sxm", batch: 1, heads: 16, seqlen: 2048 });
  assert.equal(r.error, null);
  // The tile is the constructor's tile_m = 64, tile_n = 128 (flash_bwd_sm90.py 58-59).
  assert.deepEqual([r.units.inputs.tile, r.units.inputs.headdim, r.units.inputs.problem], ["64x128", 128, "1 x 16 heads x 2048 backward"]);
  // WG1's dK / dV stores are drawn (2 store blocks per tile), so nothing is left unpriced
  // (units.unpriced: CUTLASS 77's backward, which draws none, says so: tests/test_programs_77_bwd.py).
  assert.deepEqual(r.units.unpriced, []);
  // CTA tiles: 2048 / 128 = 16 n-blocks x 16 heads = 256 on 132 CTAs: 2 each (the last wave 124);
  // 2048 / 64 = 32 m-blocks per tile. L2 reuse of Q / dO: 1 - 1 / min(16, 132) = 15/16.
  assert.deepEqual([r.units.inputs.tiles, r.knobs.outputTiles, r.units.inputs.waves, r.units.inputs.lastWaveTiles, r.knobs.qBlocks], [256, 2, 2, 124, 32]);
  assert.equal(r.units.inputs.l2Reuse, 15 / 16);
  const want = {
    wgmmaLatency: 256,   // 5 GEMMs x 2 x 64 x 128 x 128 FLOPs per m-block / 10 jobs = 1,048,576 / 4096
    tmaLatency: 775,     // (2 x 64 x 128 x 2 B + 2 x 64 x 4 B) / 2 copies = 16640 B: 700 + 16640 / 16 / 13.868 = 775.0
    // The P = exp(S - LSE) nest is drawn as math (the front end does not read the subscript
    // assignments' exp2): 64 / 8 = 8 rows of it per block at an exp block's cost, max(8 x 128 / 16
    // ex2, 8 x 128 x 2 / 128 FMA) = 64, plus the dS pass's 8 x 128 / 128 = 8 FP32 ops: 72.
    mathLatency: 72,
    // The dQ reduce-add: 64 x 128 x 4 B FP32 / 2 reduce-adds = 16384 B: 16384 / 128 smem + 16384 /
    // 13.868 (the HBM share: the preset has no L2 bandwidth) = 1309.4.
    reduceLatency: 1309,
    // WG1's dK and dV stores: 2 x 128 x 128 BF16 / 2 store blocks = 32768 B: 32768 / 128 + 32768 / 13.868 = 2618.9.
    storeLatency: 2619
  };
  for (const k of Object.keys(want)) assert.equal(r.knobs[k], want[k], k);
  // Only the knobs the run reads: no softmax or epilogue latency (no exp or epilogue block).
  assert.deepEqual(Object.keys(r.units.derivation).sort(), Object.keys(want).sort());
  assert.match(r.units.derivation.wgmmaLatency, /5 GEMMs x 2 x 64 x 128 x 128 FLOPs per m-block \/ 10 MMA jobs/);
  assert.match(r.units.derivation.mathLatency, /^softmaxCycles: max\(8 x 128 \/ 16 ex2\/clk, 8 x 128 x 2 \/ 128 FMA\/clk\) \+ registerLoopCycles: 8 x 128 \/ 128 FP32 op\/clk \(P = exp\(S - LSE\) drawn as math/);
  assert.equal(r.units.derivation.reduceLatency, "epilogueCycles of 32 x 128, a reduce-add (the m-block's 64 x 128 FP32 dQ / 2 reduce-add blocks per step): " +
    "16384 B / 128 B/clk smem + 16384 B / 13.9 B/clk/SM HBM (no L2 bandwidth in the preset: the HBM share stands in)");
  assert.equal(r.units.derivation.storeLatency, "epilogueCycles of 128 x 128 (the tile's 2 x 128 x 128 dK and dV / 2 store blocks of one role per tile): " +
    "32768 B / 128 B/clk smem + 32768 B / 13.9 B/clk/SM HBM");
  // FLOPs: 5 GEMMs x 2 x 2048^2 x 128 per head x 16 heads = 10 s^2 d x 16 = 85,899,345,920.
  assert.equal(r.units.flops, 10 * 2048 * 2048 * 128 * 16);
  // One tile per CTA: `__call__`'s SingleTileScheduler (flash_bwd_sm90.py 519-524; docs/programs.md
  // DSL_SCHEDULER_CLASSES), so the run reads no outputTiles and the 2 waves run one after another.
  // The tensor core of one CTA: 1 tile x 32 m-blocks x 10 jobs x 256 cycles.
  assert.equal(r.verdict.tensorCoreBusySteps, 32 * 10 * 256);
  // HBM floor: 2 waves x (32 x 2 + 1) copies (K's own copy on the first block, 963) x 16640 / 16 / 13.868.
  assert.ok(Math.abs(r.units.hbmFloorCycles - 130 * 16640 / 16 / (3350e9 / 132 / 1830e6)) < 1e-6);
  assert.equal(r.time.cycles, 2 * Math.max(r.total, r.units.hbmFloorCycles / 2));
  assert.ok(r.total >= r.verdict.tensorCoreBusySteps);
  assert.ok(Math.abs(r.tflops - r.units.flops / (r.time.cycles / 1830 * 1e-6) / 1e12) < 1e-6);
  assert.ok(r.tflops <= 989.42976 && Math.abs(r.peakFraction - r.tflops / 989.42976) < 1e-12);
  // WG1's dK / dV stores at their own 2619 each (not a dQ chunk's 1309) lengthen the tile's tail:
  // the tensor core idles 11.5%, the largest share the MMA warpgroups' waits on `PdS`.
  assert.equal(r.bottleneck, "PdS");
});

test("FA4 SM90 backward on H200: the dQ reduce-add over the preset's L2 share", (t) => {
  const st = backward(t);
  if (st === null) return;
  const r = KS.simulate(st, { model: "program", gpu: "h200", batch: 1, heads: 16, seqlen: 2048 });
  assert.equal(r.error, null);
  // H200: 132 SMs at 1830 MHz, L2 9765.2 GB/s = 40.426 B/clk/SM, HBM 4800 GB/s = 19.871 B/clk/SM.
  // dQ: 16384 / 128 + 16384 / 40.426 = 128 + 405.3 = 533.3; a dK or dV store block over HBM:
  // 32768 / 128 + 32768 / 19.871 = 256 + 1649.0 = 1905.0.
  assert.deepEqual([r.knobs.reduceLatency, r.knobs.storeLatency, r.knobs.mathLatency], [533, 1905, 72]);
  assert.match(r.units.derivation.reduceLatency, /, a reduce-add .*: 16384 B \/ 128 B\/clk smem \+ 16384 B \/ 40\.4 B\/clk\/SM L2$/);
  assert.match(r.units.derivation.storeLatency, /: 32768 B \/ 128 B\/clk smem \+ 32768 B \/ 19\.9 B\/clk\/SM HBM$/);
  // The load's L2 term is in its text as in its cycles (no fixed latency in the preset): 16640 x
  // (1 - 15/16) / 19.871 + 16640 x 15/16 / 40.426 = 52.3 + 385.9 = 438.2.
  assert.equal(r.knobs.tmaLatency, 438);
  assert.equal(r.units.derivation.tmaLatency, "tmaCycles: 16640 B (Q and dO tiles with their LSE and dPsum rows / 2 copies per m-block) x (1 - reuse 0.938) / " +
    "19.9 B/clk/SM HBM + 16640 B x reuse 0.938 / 40.4 B/clk/SM L2 (no fixed latency: none in the preset; give memLatency)");
});

test("FA4 SM90 backward: a causal problem runs half the m-blocks for half the FLOPs", (t) => {
  const st = backward(t);
  if (st === null) return;
  const r = KS.simulate(st, { model: "program", gpu: "h100-sxm", batch: 2, heads: 4, seqlen: 1024, causal: true });
  assert.equal(r.error, null);
  // 1024 / 128 = 8 n-blocks x 8 = 64 tiles, 1 per CTA; ceil(1024 / 64 / 2) = 8 m-blocks.
  assert.deepEqual([r.units.inputs.tiles, r.knobs.outputTiles, r.knobs.qBlocks], [64, 1, 8]);
  assert.equal(r.units.flops, 5 * 2 * 1024 * 1024 * 128 * 8 * 0.5);
  // Without a problem: the given qBlocks, FLOPs from the tile (5 x 2 x 64 x 128 x 128 per m-block) on every CTA.
  const bare = KS.simulate(st, { model: "program", gpu: "h100-sxm", qBlocks: 4, outputTiles: 1 });
  assert.equal(bare.error, null);
  assert.equal(bare.units.flops, 132 * 4 * 5 * 2 * 64 * 128 * 128);
});

test("FA4 SM90 backward: the dQ warp's reduce-adds are `reduce` blocks of reduceLatency, not stores", (t) => {
  const st = backward(t);
  if (st === null) return;
  // sim/interpret/dsl.js DSL_BULK_REDUCE: cpasync_reduce_bulk_add_f32 (1903) on the dQ warp
  // (producer warp 1); WG1's dK / dV TMA stores (1714, 1722) stay `store` blocks.
  const run = (k) => KS.simulate(st, Object.assign({ model: "program", qBlocks: 3, outputTiles: 1, storeLatency: 4, reduceLatency: 7 }, k));
  const blocks = (r, kind) => r.blocks.filter((b) => b.kind === kind);
  const base = run({});
  assert.equal(base.error, null);
  const red = blocks(base, "reduce");
  assert.deepEqual([...new Set(red.map((b) => b.lane))], ["role:producer.warp1"]);
  const lines = (b) => b.lines.map((l) => l.line);
  assert.deepEqual(red.map(lines), Array(2 * 3).fill([1903]));
  assert.ok(red.every((b) => b.end - b.start === 7));
  assert.deepEqual(blocks(base, "store").map((b) => [b.lane, lines(b), b.end - b.start]), [["role:consumer.WG1", [1714], 4], ["role:consumer.WG1", [1722], 4]]);
  // The page names the kind: REDUCE-ADD in the view's kinds and legend.
  assert.equal(base.view.kinds.reduce.name, "REDUCE-ADD");
  assert.ok(base.view.legend.some((l) => l.kind === "reduce"));
  // storeLatency times the dK / dV stores only: the reduce-adds do not move with it ...
  const slow = run({ storeLatency: 40 });
  assert.deepEqual(blocks(slow, "reduce").map((b) => [b.start, b.end]), red.map((b) => [b.start, b.end]));
  assert.ok(blocks(slow, "store").every((b) => b.end - b.start === 40));
  // ... and reduceLatency moves them.
  assert.ok(blocks(run({ reduceLatency: 30 }), "reduce").every((b) => b.end - b.start === 30));
});
