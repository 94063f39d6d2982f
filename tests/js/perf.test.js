// Tests of sim/perf.js: each formula pinned on an example worked by hand in the comments (never a
// wall-clock time), the presets it reads, and the predict command line. node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");
const childProcess = require("node:child_process");

const ROOT = path.join(__dirname, "..", "..");
const PERF_PATH = path.join(ROOT, "sim", "perf.js");
const KP = require(PERF_PATH);
const TABLE = JSON.parse(fs.readFileSync(path.join(ROOT, "sim", "gpus.json"), "utf8"));

/** Within a relative 1e-9 (float sums of exact hand values). */
function near(actual, expected, what) {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), (what || "") + ": " + actual + " != " + expected);
}

/**
 * A hand-made resolved GPU with round numbers: 132 SMs at 1000 MHz, 4096 BF16 FLOP/clk/SM,
 * 16 B/clk/SM of HBM, 64 B/clk/SM of L2, 128 B/clk/SM of shared memory, 16 ex2 and 128 FMA per clk.
 */
function handGpu(over) {
  return Object.assign({
    name: "hand", arch: "sm90", sms: 132, clockMHz: 1000,
    tensorFlopPerClockPerSm: { bf16: 4096, fp16: 4096, fp8: 8192, tf32: 2048, fp4: null },
    derivedRates: [], fp32FmaPerClockPerSm: 128, mufuEx2PerClockPerSm: 16, smemBytesPerClockPerSm: 128,
    hbmBytesPerClockPerSm: 16, l2BytesPerClockPerSm: 64, l2SizeBytes: 50e6, smemPerCtaBytes: 232448,
    tmemPerSmBytes: null, latencyCycles: { unloaded: 500, loaded: 1500 }, ummaIssueIntervalCycles: null
  }, over || {});
}

const H100 = KP.gpuFrom(TABLE, "h100-sxm");

function runCli(args) {
  const r = childProcess.spawnSync(process.execPath, [PERF_PATH].concat(args), { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("the H100 SXM preset's BF16 rate: 989.4 TFLOPS / (132 SMs x 1830 MHz) = 4095.9, stored as 4096", () => {
  assert.ok(Math.abs(989.4e12 / (132 * 1830e6) - 4095.9) < 0.05, "derivation to 0.1");
  assert.equal(H100.tensorFlopPerClockPerSm.bf16, 4096);
  assert.equal(H100.sms, 132);
  assert.equal(H100.clockMHz, 1830);
  // 4096 x 132 x 1830e6 = 989.43e12
  near(KP.peakTflops(H100, "bf16"), 989.42976);
});

test("mmaCycles: one 128x128x64 BF16 k-tile on H100 is 2*128*128*64/4096 = 512 cycles", () => {
  assert.equal(KP.mmaCycles({ m: 128, n: 128, k: 64, dtype: "bf16" }, H100), 512);
  // Two warpgroups sharing the tensor core: each MMA takes 2 x 512.
  assert.equal(KP.mmaCycles({ m: 128, n: 128, k: 64, dtype: "bf16" }, H100, { sharers: 2 }), 1024);
  // FP8 at twice the rate: 2*128*128*128/8192 = 512.
  assert.equal(KP.mmaCycles({ m: 128, n: 128, k: 128, dtype: "fp8" }, H100), 512);
  // B200 at 8192 BF16 FLOP/clk/SM: 2*256*128*64/8192 = 512.
  assert.equal(KP.mmaCycles({ m: 256, n: 128, k: 64, dtype: "bf16" }, KP.gpuFrom(TABLE, "b200")), 512);
  assert.throws(() => KP.mmaCycles({ m: 128, n: 128, k: 64, dtype: "fp4" }, H100), /no fp4 tensor rate/);
});

test("resolveGpu: bandwidths per clock per SM; H100 HBM = 3350e9 / 132 / 1830e6 = 13.868 B/clk/SM", () => {
  near(H100.hbmBytesPerClockPerSm, 3350e9 / 132 / 1830e6);
  assert.ok(Math.abs(H100.hbmBytesPerClockPerSm - 13.868) < 1e-3);
  assert.equal(H100.l2BytesPerClockPerSm, null, "no sourced L2 bandwidth");
  assert.equal(H100.smemPerCtaBytes, 227 * 1024);
  // A locked clock halves every per-clock bandwidth when the clock doubles.
  const fast = KP.gpuFrom(TABLE, "h100-sxm", { clockMHz: 3660 });
  near(fast.hbmBytesPerClockPerSm * 2, H100.hbmBytesPerClockPerSm);
  assert.equal(KP.gpuFrom(TABLE, "b200").tmemPerSmBytes, 128 * 512 * 4);
});

test("resolveGpu: the H20 has no clock; with one, rates come from the datasheet and MMA time does not depend on it", () => {
  assert.throws(() => KP.gpuFrom(TABLE, "h20"), /no published tensor clock/);
  const a = KP.gpuFrom(TABLE, "h20", { clockMHz: 1850 });
  // 148e12 / (78 x 1850e6) = 1025.6 FLOP/clk/SM, a quarter of H100's 4096.
  near(a.tensorFlopPerClockPerSm.bf16, 148e12 / (78 * 1850e6));
  assert.ok(a.derivedRates.indexOf("bf16") >= 0);
  const b = KP.gpuFrom(TABLE, "h20", { clockMHz: 1980 });
  const shape = { tile: { m: 128, n: 128, k: 64 }, problem: { m: 4096, n: 4096, k: 4096 }, dtype: "bf16" };
  // MMA cycles scale with the clock, their microseconds do not (the datasheet fixes FLOP/s) ...
  const pa = KP.predictGemm(shape, a), pb = KP.predictGemm(shape, b);
  near(pa.kTileCycles.mma / 1850, pb.kTileCycles.mma / 1980, "MMA us independent of the assumed clock");
  assert.notEqual(pa.kTileCycles.mma, pb.kTileCycles.mma);
  // ... while per-clock figures (shared memory, MUFU) make the epilogue's microseconds move.
  assert.notEqual(pa.epilogueCycles / 1850, pb.epilogueCycles / 1980);
});

test("tmaCycles: latency + HBM share for misses + L2 share for hits", () => {
  const g = handGpu();
  // 32768 B, no reuse: 32768 / 16 = 2048 transfer, + 500 unloaded latency.
  let t = KP.tmaCycles({ bytes: 32768 }, g);
  assert.equal(t.transfer, 2048);
  assert.equal(t.cycles, 2548);
  // Reuse 0.75: 8192 B from HBM (512) + 24576 B from L2 at 64 B/clk (384) = 896; loaded latency 1500.
  t = KP.tmaCycles({ bytes: 32768 }, g, { reuse: 0.75, loaded: true });
  assert.equal(t.transfer, 896);
  assert.equal(t.cycles, 2396);
  // An explicit latency wins over the preset's.
  assert.equal(KP.tmaCycles({ bytes: 32768 }, g, { reuse: 0.75, latencyCycles: 100 }).cycles, 996);
  // Without an L2 figure the hits cost nothing (flagged), and without a latency none is added (flagged).
  t = KP.tmaCycles({ bytes: 32768 }, handGpu({ l2BytesPerClockPerSm: null, latencyCycles: { unloaded: null, loaded: null } }), { reuse: 0.75 });
  assert.equal(t.cycles, 512);
  assert.equal(t.l2Known, false);
  assert.equal(t.latencyKnown, false);
  assert.throws(() => KP.tmaCycles({ bytes: 1 }, g, { reuse: 1.5 }), /reuse must be in \[0, 1\]/);
});

test("gemmWaveReuse: 4096^2 output in 128x128 tiles on 132 SMs touches 5 rows and 32 columns: 1 - 37/264", () => {
  near(KP.gemmWaveReuse({ m: 4096, n: 4096, k: 4096 }, { m: 128, n: 128, k: 64 }, 132), 1 - 37 / 264);
  // One CTA alone reuses nothing: 1 - (1 + 1) / 2 = 0.
  assert.equal(KP.gemmWaveReuse({ m: 128, n: 128, k: 64 }, { m: 128, n: 128, k: 64 }, 132), 0);
});

test("softmaxCycles: a 128x128 block is 16384 exp2 / 16 = 1024 cycles; 2 FP32 ops x 16384 / 128 = 256", () => {
  const s = KP.softmaxCycles({ rows: 128, cols: 128 }, handGpu());
  assert.equal(s.exp, 1024);
  assert.equal(s.fma, 256);
  assert.equal(s.cycles, 1024);
  // With a MUFU 8x faster the FMA pipe binds: max(128, 256).
  assert.equal(KP.softmaxCycles({ rows: 128, cols: 128 }, handGpu({ mufuEx2PerClockPerSm: 128 })).cycles, 256);
});

test("epilogueCycles: a 128x128 BF16 tile is 32768 B: smem 32768/128 = 256 plus TMA store 32768/16 = 2048", () => {
  const e = KP.epilogueCycles({ m: 128, n: 128, outDtype: "bf16" }, handGpu());
  assert.equal(e.smemStore, 256);
  assert.equal(e.tmaStore, 2048);
  assert.equal(e.cycles, 2304);
  assert.equal(e.tmemReadKnown, true);
  assert.equal(KP.epilogueCycles({ m: 128, n: 128 }, handGpu({ arch: "sm100" })).tmemReadKnown, false);
});

test("epilogueCycles of a reduce-add: a 32x128 FP32 dQ chunk is 16384 B: smem 16384/128 = 128 plus L2 16384/64 = 256; no L2 figure: HBM 16384/16 = 1024", () => {
  const r = KP.epilogueCycles({ m: 32, n: 128, outDtype: "fp32" }, handGpu(), { reduceAdd: true });
  assert.deepEqual([r.outBytes, r.smemStore, r.tmaStore, r.cycles, r.l2Known, r.reduceAdd], [16384, 128, 256, 384, true, true]);
  // FP32 is a reduce-add's default dtype (the dQ accumulator's); a plain store's is BF16 and goes to HBM.
  assert.equal(KP.epilogueCycles({ m: 32, n: 128 }, handGpu(), { reduceAdd: true }).cycles, 384);
  assert.equal(KP.epilogueCycles({ m: 32, n: 128 }, handGpu()).cycles, 8192 / 128 + 8192 / 16);
  const h = KP.epilogueCycles({ m: 32, n: 128, outDtype: "fp32" }, handGpu({ l2BytesPerClockPerSm: null }), { reduceAdd: true });
  assert.deepEqual([h.tmaStore, h.cycles, h.l2Known], [1024, 1152, false]);
  // With an L2 figure a reduce-add needs no HBM bandwidth; without either it has none to use.
  assert.equal(KP.epilogueCycles({ m: 32, n: 128 }, handGpu({ hbmBytesPerClockPerSm: null }), { reduceAdd: true }).cycles, 384);
  assert.throws(() => KP.epilogueCycles({ m: 32, n: 128 }, handGpu({ l2BytesPerClockPerSm: null, hbmBytesPerClockPerSm: null }), { reduceAdd: true }), /has no HBM bandwidth/);
});

test("programLatencies: a reduce-add over L2 has its own knob beside the stores over HBM; an exp pass drawn as math costs an exp block", () => {
  const step = { name: "m-block", load: { bytes: 1024, what: "x" }, mma: null, exp: null,
    // 8 rows of exp pass + 8 rows of one FP32 op per element, 128 columns: max(1024/16, 1024 x 2/128) + 1024/128 = 64 + 8.
    math: { rows: 8, cols: 128, expRows: 8, what: "m" },
    epilogue: { m: 1, n: 1, what: "e" },
    // 128 x 128 BF16 = 32768 B: 32768/128 + 32768/16 = 256 + 2048 = 2304.
    store: { m: 128, n: 128, outDtype: "bf16", what: "dK or dV" },
    // 32 x 128 FP32 = 16384 B: 16384/128 + 16384/64 (L2) = 128 + 256 = 384.
    reduce: { m: 32, n: 128, outDtype: "fp32", reduceAdd: true, what: "dQ" } };
  const out = KP.programLatencies({ step: step, dtype: "bf16", reuse: 0, memLatency: 0, reads: { mathLatency: true, storeLatency: true, reduceLatency: true } }, handGpu());
  assert.deepEqual(out.knobs, { mathLatency: 72, storeLatency: 2304, reduceLatency: 384 });
  assert.equal(out.derivation.reduceLatency, "epilogueCycles of 32 x 128, a reduce-add (dQ): 16384 B / 128 B/clk smem + 16384 B / 64 B/clk/SM L2");
  assert.equal(out.derivation.storeLatency, "epilogueCycles of 128 x 128 (dK or dV): 32768 B / 128 B/clk smem + 32768 B / 16 B/clk/SM HBM");
  // A run that reads reduceLatency where the step knows no reduce-add work is not priced.
  assert.throws(() => KP.programLatencies({ step: Object.assign({}, step, { reduce: null }), dtype: "bf16", reuse: 0, reads: { reduceLatency: true } }, handGpu()),
    /the program's run reads reduceLatency but no such work is known per m-block: it is not priced/);
  assert.equal(out.derivation.mathLatency, "softmaxCycles: max(8 x 128 / 16 ex2/clk, 8 x 128 x 2 / 128 FMA/clk) + registerLoopCycles: 8 x 128 / 128 FP32 op/clk (m)");
  // Without expRows a math block is registerLoopCycles alone, as before.
  step.math = { rows: 8, cols: 128, what: "m" };
  assert.equal(KP.programLatencies({ step: step, dtype: "bf16", reuse: 0, reads: { mathLatency: true } }, handGpu()).knobs.mathLatency, 8);
  const noL2 = KP.programLatencies({ step: step, dtype: "bf16", reuse: 0, reads: { reduceLatency: true } }, handGpu({ l2BytesPerClockPerSm: null }));
  assert.equal(noL2.knobs.reduceLatency, 1152);
  assert.match(noL2.derivation.reduceLatency, /16384 B \/ 16 B\/clk\/SM HBM \(no L2 bandwidth in the preset: the HBM share stands in\)/);
});

test("problemTime: waves over the SMs, the last one partial", () => {
  // 264 tiles on 132 SMs: exactly 2 waves of 1000 cycles.
  let t = KP.problemTime({ tileCycles: 1000, tiles: 264, sms: 132, clockMHz: 1000 });
  assert.equal(t.waves, 2);
  assert.equal(t.cycles, 2000);
  assert.equal(t.lastWaveTiles, 132);
  // One tile more costs a whole third wave: 3000 cycles = 3 us at 1000 MHz.
  t = KP.problemTime({ tileCycles: 1000, tiles: 265, sms: 132, clockMHz: 1000, flops: 6e6, peakTflops: 4 });
  assert.equal(t.waves, 3);
  assert.equal(t.cycles, 3000);
  assert.equal(t.us, 3);
  assert.equal(t.lastWaveTiles, 1);
  near(t.waveEfficiency, 265 / 396);
  // 6e6 FLOP in 3 us = 2e12 FLOP/s = 2 TFLOPS, half of a 4 TFLOPS peak.
  near(t.tflops, 2);
  near(t.peakFraction, 0.5);
});

test("predictGemm on the hand GPU: TMA-bound without reuse, and stages against a known latency", () => {
  const g = handGpu();
  const c = { tile: { m: 128, n: 128, k: 64 }, problem: { m: 4096, n: 4096, k: 4096 }, dtype: "bf16", reuse: 0, stages: 2 };
  const p = KP.predictGemm(c, g);
  // Per k-tile: MMA 512, TMA (128+128)*64*2 = 32768 B / 16 = 2048. 64 k-tiles x 2048 + epilogue 2304.
  assert.equal(p.kTileCycles.mma, 512);
  assert.equal(p.kTileCycles.tmaTransfer, 2048);
  assert.equal(p.tileCycles, 64 * 2048 + 2304);
  // 1024 tiles over 132 SMs: 8 waves.
  assert.equal(p.tiles, 1024);
  assert.equal(p.waves, 8);
  assert.equal(p.time.cycles, 8 * (64 * 2048 + 2304));
  assert.equal(p.bottleneck, "tma-bandwidth");
  // Stages needed: ceil((500 + 2048) / 2048) = 2; with 1 stage the latency is exposed.
  assert.equal(p.stagesNeeded, 2);
  assert.equal(KP.predictGemm(Object.assign({}, c, { stages: 1 }), g).bottleneck, "tma-latency");
  // 4 stages of 32768 B = 131072 B fit in 232448 B; 8 stages of 65536 B (128x256 tile) do not.
  assert.equal(KP.predictGemm(Object.assign({}, c, { stages: 4 }), g).stageRingFits, true);
  assert.equal(KP.predictGemm(Object.assign({}, c, { tile: { m: 128, n: 256, k: 64 }, stages: 8 }), g).stageRingFits, false);
});

test("predictGemm on H100 SXM, 4096^3 BF16, 128x128x64: tensor-core bound at the default reuse", () => {
  const p = KP.predictGemm({ tile: { m: 128, n: 128, k: 64 }, problem: { m: 4096, n: 4096, k: 4096 }, dtype: "bf16", stages: 4 }, H100);
  const hbm = 3350e9 / 132 / 1830e6;
  // HBM bytes per k-tile: 32768 x 37/264 = 4592.48; / 13.868 = 331.2 < 512.
  near(p.kTileCycles.tmaTransfer, 32768 * (37 / 264) / hbm);
  assert.equal(p.bottleneck, "tensor-core");
  // Tile: 64 x 512 + 32768/128 + 32768/13.868; 8 waves; 2*4096^3 FLOP over 8 x tile / 1830 MHz.
  const tile = 64 * 512 + 256 + 32768 / hbm;
  near(p.tileCycles, tile);
  const us = 8 * tile / 1830;
  near(p.time.us, us);
  near(p.tflops, 2 * Math.pow(4096, 3) / (us * 1e-6) / 1e12);
  near(p.peakFraction, p.tflops / 989.42976);
  // The preset's unloaded latency (700 cycles, a global load missing L2) is added to the load:
  // stages needed = ceil((700 + 331.2) / 512) = 3, so 4 stages keep it tensor-core bound.
  assert.equal(p.kTileCycles.tmaLatency, 700);
  assert.equal(p.stagesNeeded, 3);
});

test("predictAttention: per KV block MMA 4*128*128*128/4096 = 2048 on H100, softmax 1024, overlapped vs serial", () => {
  const a = KP.predictAttention({ blockM: 128, blockN: 128, headdim: 128, batch: 1, heads: 16, seqlen: 16384, dtype: "bf16" }, H100);
  assert.equal(a.kvBlockCycles.mma, 2048);
  assert.equal(a.kvBlockCycles.softmax, 1024);
  assert.equal(a.kvBlocks, 128);
  // 16 heads x 128 row blocks = 2048 tiles over 132 SMs: 16 waves.
  assert.equal(a.tiles, 2048);
  assert.equal(a.overlapped.kvBlockCycles, 2048);
  assert.equal(a.serial.kvBlockCycles, 3072);
  assert.equal(a.bottleneck, "tensor-core");
  assert.ok(a.serial.tflops < a.overlapped.tflops);
  const causal = KP.predictAttention({ blockM: 128, blockN: 128, headdim: 128, batch: 1, heads: 16, seqlen: 16384, dtype: "bf16", causal: true }, H100);
  assert.equal(causal.kvBlocks, 64);
});

test("CLI predict prints the JSON of predictGemm", () => {
  const r = runCli(["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--dtype", "bf16", "--stages", "4", "--problem", "4096x4096x4096"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.kTileCycles.mma, 512);
  assert.equal(out.bottleneck, "tensor-core");
  assert.deepEqual(Object.keys(out.time).sort(), ["cycles", "us"]);
  for (const key of ["tileCycles", "tflops", "peakFraction", "epilogueCycles"]) assert.equal(typeof out[key], "number", key);
});

test("CLI --clock-mhz and --gpu-file", () => {
  let r = runCli(["predict", "--gpu", "h100-sxm", "--clock-mhz", "1500", "--tile", "128x128x64", "--problem", "4096x4096x4096"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).clockMHz, 1500);
  // A user file with one GPU whose BF16 rate is 1024: one 128x128x64 k-tile is 2048 cycles.
  const mine = JSON.parse(JSON.stringify(TABLE));
  mine.gpus = { mine: mine.gpus["h100-sxm"] };
  mine.gpus.mine.tensorFlopPerClockPerSm.bf16.value = 1024;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "perf-"));
  const file = path.join(dir, "my.json");
  fs.writeFileSync(file, JSON.stringify(mine));
  r = runCli(["predict", "--gpu-file", file, "--gpu", "mine", "--tile", "128x128x64", "--problem", "4096x4096x4096"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).kTileCycles.mma, 2048);
  r = runCli(["predict", "--gpu-file", file, "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "1x1x1"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown GPU "h100-sxm" \(one of mine\)/);
});

test("CLI bad input: one line on stderr, exit 2, no traceback", () => {
  const cases = [
    [],
    ["simulate"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128", "--problem", "4096x4096x4096"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--dtype", "int3"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--dtype", "fp4"],
    ["predict", "--gpu", "h20", "--tile", "128x128x64", "--problem", "4096x4096x4096"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--stages", "0"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--reuse", "2"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--clock-mhz"],
    ["predict", "--gpu", "h100-sxm", "--tile", "128x128x64", "--problem", "4096x4096x4096", "--bogus", "1"],
    ["predict", "--gpu", "h100-sxm", "--gpu-file", "/nonexistent/gpus.json", "--tile", "128x128x64", "--problem", "1x1x1"]
  ];
  for (const args of cases) {
    const r = runCli(args);
    assert.equal(r.code, 2, args.join(" ") + " -> " + r.stdout);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.trim().split("\n").length, 1, args.join(" ") + ": " + r.stderr);
    assert.doesNotMatch(r.stderr, /at .*\.js:\d+/);
  }
});

test("perf.js is page-inlinable: ASCII only, no module syntax but the module.exports footer", () => {
  const text = fs.readFileSync(PERF_PATH, "utf8");
  assert.ok(/^[\x00-\x7f]*$/.test(text), "ASCII only");
  assert.doesNotMatch(text, /^\s*(import|export)\s/m);
  assert.match(text, /if \(typeof module !== "undefined" && module\.exports\)/);
});
