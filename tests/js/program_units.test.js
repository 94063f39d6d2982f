// The program model in cycles (docs/performance.md "The program model in cycles"): each op
// class's latency from the tile's work split over the blocks the program's own run draws, checked
// on numbers worked by hand from the formulas and the presets (sim/gpus.json: H100 SXM 4096
// BF16 FLOP/clk/SM, HBM 3350 GB/s / 132 SMs / 1830 MHz = 13.868 B/clk/SM, 128 B/clk smem, 16 ex2
// and 128 FP32 FMA per clk, 700-cycle unloaded latency; B200 8192, 8000 GB/s / 148 / 1860 MHz =
// 29.061 B/clk/SM, 860 cycles), the bottleneck rule on a hand-made run, and the stopped-role rule.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const KP = require(path.join(ROOT, "sim", "perf.js"));
const KU = require(path.join(ROOT, "sim", "units.js"));
const MP = require(path.join(ROOT, "sim", "model_program.js"));
const load = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));
const gpu = (name) => KP.gpuFrom(require(path.join(ROOT, "sim", "gpus.json")), name);

test("the census counts what one tile of each program draws", () => {
  const census = (name) => MP.programCensus(load(name), KS.simulate(load(name), { model: "program" }).knobs);
  // 77: per KV block S0, S1, O0, O1 on the MMA warp, K and V copies, one exp loop per softmax
  // warpgroup; the epilogue warp stores O0 and O1. No program here reduce-adds (no `reduce` block).
  assert.deepEqual(census("sm100_fmha_fwd.json"), { step: "kvBlocks",
    counts: { mmaJobsPerStep: 4, copiesPerStep: 2, expPerStep: 2, epiloguePerTile: 0, storePerTile: 2, reducePerStep: 0, reducePerTile: 0 } });
  // FA4 sm90: two MMAs per KV block per math warpgroup, one epilogue each.
  assert.deepEqual(census("fa4_fwd_sm90.json").counts, { mmaJobsPerStep: 4, copiesPerStep: 2, expPerStep: 2, epiloguePerTile: 1, storePerTile: 0, reducePerStep: 0, reducePerTile: 0 });
  // Cooperative: the two WGs' halves of a k-tile are one tensor-core job.
  assert.deepEqual(census("sm90_gemm_cooperative.json"), { step: "kTiles",
    counts: { mmaJobsPerStep: 1, copiesPerStep: 1, expPerStep: 0, epiloguePerTile: 1, storePerTile: 0, reducePerStep: 0, reducePerTile: 0 } });
  assert.deepEqual(census("sm100_gemm.json").counts, { mmaJobsPerStep: 1, copiesPerStep: 1, expPerStep: 0, epiloguePerTile: 0, storePerTile: 1, reducePerStep: 0, reducePerTile: 0 });
});

test("registerLoopCycles is one FP32 op per element at the SM's FMA rate", () => {
  assert.equal(KP.registerLoopCycles({ rows: 64, cols: 128 }, gpu("h100-sxm")), 64);
  assert.throws(() => KP.registerLoopCycles({ rows: 64, cols: 128 }, Object.assign({}, gpu("h100-sxm"), { fp32FmaPerClockPerSm: null })), /FP32 FMA rate/);
});

test("pingpong GEMM program on H100 SXM at 4096^3: the GEMM model's formulas, hand-checked", () => {
  const r = KS.simulate(load("sm90_gemm_pingpong.json"), { model: "program", gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.equal(r.error, null);
  // wgmma: 2 x 128 x 128 x 64 / 4096 = 512; tma: 700 + 32768 B x 37/264 / 13.868 = 1031.1;
  // epilogue: 32768 / 128 + 32768 / 13.868 = 2618.8.
  assert.deepEqual([r.knobs.wgmmaLatency, r.knobs.tmaLatency, r.knobs.epilogueLatency], [512, 1031, 2619]);
  assert.deepEqual(Object.keys(r.units.derivation).sort(), ["epilogueLatency", "tmaLatency", "wgmmaLatency"]);
  // 1024 tiles on 132 CTAs: 8 tiles of 64 k-tiles; one 512-cycle job per k-tile.
  assert.equal(r.knobs.outputTiles, 8);
  assert.equal(r.knobs.kTiles, 64);
  assert.equal(r.verdict.tensorCoreBusySteps, 8 * 64 * 512);
  assert.equal(r.units.inputs.headdim, null);
  assert.equal(r.time.cycles, Math.max(r.total, r.units.hbmFloorCycles));
  assert.equal(r.units.flops, 2 * 4096 ** 3);
  assert.ok(Math.abs(r.tflops - 2 * 4096 ** 3 / (r.time.cycles / 1830 * 1e-6) / 1e12) < 1e-6);
  assert.ok(Math.abs(r.peakFraction - r.tflops / 989.42976) < 1e-9);
  assert.equal(r.bottleneck, "tensor-core");
  // One rule in one place: the same inputs give the hand-written GEMM model's latencies.
  const hand = KS.simulate(load("sm90_gemm_pingpong.json"), { gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.deepEqual([hand.knobs.wgmmaLatency, hand.knobs.tmaLatency, hand.knobs.epilogueLatency], [512, 1031, 2619]);
});

test("77 Blackwell attention program on B200: UMMA, exp, math, store and TMEM latencies by hand", () => {
  const r = KS.simulate(load("sm100_fmha_fwd.json"), { model: "program", gpu: "b200", batch: 1, heads: 16, seqlen: 2048 });
  assert.equal(r.error, null);
  assert.equal(r.units.inputs.tile, "128x128");
  assert.equal(r.units.inputs.headdim, 128);
  // 16 heads x 16 row blocks = 256 tiles on 148 CTAs: 2 each; 2048 / 128 = 16 KV blocks.
  assert.deepEqual([r.knobs.outputTiles, r.knobs.kvBlocks], [2, 16]);
  const want = {
    ummaLatency: 256,      // 4 x 128 x 128 x 128 FLOPs per KV block / 4 jobs / 8192
    softmaxLatency: 512,   // max(64 x 128 / 16 ex2, 64 x 128 x 2 / 128 FMA): 128 rows / 2 exp blocks
    mathLatency: 64,       // 64 x 128 / 128 FP32 ops
    storeLatency: 692,     // 64 x 128 x 2 B = 16384 B: 16384 / 128 + 16384 / 29.061 = 691.8
    tmemLoadLatency: 0,    // no sourced TMEM bandwidth
    tmaLatency: 930        // 860 + 32768 B x (1 - 15/16) / 29.061 = 930.5
  };
  for (const k of Object.keys(want)) assert.equal(r.knobs[k], want[k], k);
  // Only the knobs the run reads: no WGMMA or SM90 epilogue latency.
  assert.deepEqual(Object.keys(r.units.derivation).sort(), Object.keys(want).sort());
  assert.equal(r.units.flops, 4 * 16 * 2048 * 2048 * 128);
  assert.ok(Math.abs(r.tflops - r.units.flops / (r.time.cycles / 1860 * 1e-6) / 1e12) < 1e-6);
  assert.ok(r.peakFraction > 0 && r.peakFraction <= 1);
  // The bottleneck is the tensor core or a ring the MMA warp waits on.
  const rings = Object.keys(r.verdict.mmaWaits.MMA).map((x) => (x === "tma" ? "tma-latency" : x));
  assert.ok(r.bottleneck === "tensor-core" || rings.includes(r.bottleneck), r.bottleneck);
});

test("FA4 sm90 program on H100 SXM: per-warpgroup MMAs, softmax and epilogue by hand", () => {
  const r = KS.simulate(load("fa4_fwd_sm90.json"), { model: "program", gpu: "h100-sxm", heads: 16, seqlen: 2048 });
  assert.equal(r.error, null);
  // The tile is the DSL's literal tile_m, tile_n (128x128).
  assert.equal(r.units.inputs.tile, "128x128");
  assert.deepEqual([r.knobs.wgmmaLatency, r.knobs.softmaxLatency, r.knobs.mathLatency, r.knobs.epilogueLatency, r.knobs.tmaLatency],
    [512, 512, 64, 2619, 848]);
  assert.ok(!("ummaLatency" in r.units.derivation));
});

test("the bottleneck candidates: tensor-core idle time while an MMA-issuing role waits on a ring", () => {
  const kinds = ["wait", "wgmma", "issue"], reasons = [null, "tma", "tensor-core", "ring_B"];
  // lane 0 issues MMAs at [0,10) and [20,30); it waits on tma [10,20) and [25,40), on the tensor
  // core [30,35), on ring_B [12,14); lane 1 (no MMA) waits on ring_B [40,60).
  const blocks = [[0, 1, 0, 0, 10], [0, 1, 0, 20, 30], [0, 0, 1, 10, 20], [0, 0, 1, 25, 40], [0, 0, 2, 30, 35], [0, 0, 3, 12, 14], [1, 0, 3, 40, 60]];
  const columns = { n: blocks.length, kinds: kinds, reasons: reasons,
    lane: blocks.map((b) => b[0]), kind: blocks.map((b) => b[1]), reason: blocks.map((b) => b[2]),
    start: blocks.map((b) => b[3]), end: blocks.map((b) => b[4]) };
  const c = KU.programCandidates({}, {}, 40, { columns: columns });
  // tma: [10,20) + [30,40) idle = 20; ring_B: [12,14) = 2 (lane 1 issues no MMA); no tensor-core candidate.
  assert.deepEqual(c.map((x) => [x.name, x.cycles]), [["ring_B", 2], ["tma-latency", 20]]);
  assert.deepEqual(KU.programCandidates({}, {}, 5, { columns: columns }).map((x) => x.cycles), [2, 5]);
});

/** A copy of an example whose mma_tail holds a runtime branch with a step: the role stops there. */
function stoppedAt(name, where) {
  const st = load(name);
  const f = st.programs.functions.find((fn) => fn.name === "mma_tail");
  const node = { node: "if", constexpr: false, cond: ["call", "not_a_modelled_choice", []], line: 9999, else: [],
    then: [{ node: "op", op: "consumer_release", object: "pipeline", state: "smem_pipe_release", line: 9999 }] };
  if (where === "start") f.body.unshift(node); else f.body.push(node);
  return st;
}

test("a run with a stopped role claims no time or throughput, and says why", () => {
  // Both cooperative consumers stop after their last release: the run ends without a deadlock.
  const r = KS.simulate(stoppedAt("sm90_gemm_cooperative.json", "end"), { model: "program", gpu: "h100-sxm", outputTiles: 1, kTiles: 4 });
  assert.equal(r.error, null);
  assert.equal(r.deadlock, null);
  assert.equal(r.verdict.stopped.length, 2);
  assert.deepEqual([r.time, r.tflops, r.peakFraction, r.bottleneck], [null, null, null, null]);
  assert.equal(r.knobs.wgmmaLatency, 512);
  assert.match(r.units.incomplete, /^no time or throughput: Consumer0 stopped at line 9999/);
  assert.ok(r.messages.some((m) => m.startsWith("units: no time or throughput")));
  // The same at the source's settings: a complete run gives a time.
  assert.ok(KS.simulate(load("sm90_gemm_cooperative.json"), { model: "program", gpu: "h100-sxm", outputTiles: 1, kTiles: 4 }).time.cycles > 0);
  // A stop the others wait for (a deadlock after it) is said the same way.
  const d = KS.simulate(stoppedAt("sm90_gemm_pingpong.json", "start"), { model: "program", gpu: "h100-sxm", problem: "1024x1024x1024" });
  assert.notEqual(d.deadlock, null);
  assert.equal(d.time, null);
  assert.match(d.units.incomplete, /Consumer0 stopped at line 9999/);
});

test("without gpu the program model is unchanged (steps)", () => {
  const r = KS.simulate(load("sm100_fmha_fwd.json"), { model: "program" });
  assert.equal(r.units, undefined);
  assert.equal(r.knobs.ummaLatency, 2);
});

test("settings at which the code itself deadlocks are drawn in steps, without time, and say why", () => {
  // 77 with one KV stage: the MMA warp holds V_{i-1} (for O1 += P1 V_{i-1}) while it waits for
  // K_i, which needs the only stage: the code's own protocol deadlocks, so no latency can be split.
  const st = load("sm100_fmha_fwd.json");
  const r = KS.simulate(st, { model: "program", gpu: "b200", tile: "256x128", stages: 1, batch: 1, heads: 1, seqlen: 1024 });
  assert.equal(r.error, null);
  assert.ok(r.deadlock !== null && /PipelineKV/.test(r.deadlock.message), r.deadlock && r.deadlock.message);
  assert.equal(r.time, null);
  assert.equal(r.tflops, null);
  assert.ok(r.messages.some((m) => /^units: no time or throughput: program: the census run failed: it deadlocks at kvBlocks 2/.test(m)), r.messages.join("\n"));
  // Two stages: time and throughput again.
  const ok = KS.simulate(st, { model: "program", gpu: "b200", tile: "256x128", stages: 2, batch: 1, heads: 1, seqlen: 1024 });
  assert.ok(ok.time && ok.time.cycles > 0 && ok.tflops > 0);
});
