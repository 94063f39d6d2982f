// Tests of simulate() in cycles (knobs.gpu; docs/performance.md "The schedule in cycles"): worked
// examples of the latency knobs, the problem -> tiles rule, that without gpu nothing changes, the
// bottleneck moving with the stages, and `node schedule.js predict`. node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");
const childProcess = require("node:child_process");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const KP = require(path.join(ROOT, "sim", "perf.js"));
const load = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));
const GEMM = load("sm90_gemm_pingpong.json");
const FA3 = load("fa3_fwd.json");
const SM100 = load("sm100_gemm.json");

/** simulate() without its lazy block arrays: the enumerable fields, as JSON. */
function plain(r) { return JSON.parse(JSON.stringify(r)); }

test("one 128x128x64 BF16 k-tile on H100 SXM is a 512-cycle WGMMA (2 x 128 x 128 x 64 / 4096)", () => {
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", tile: "128x128x64", dtype: "bf16" });
  assert.equal(r.error, null);
  assert.equal(r.knobs.wgmmaLatency, 512);
  assert.equal(r.units.sources.wgmmaLatency, "gpu");
  assert.equal(r.units.step, "cycle");
  assert.equal(r.units.clockMHz, 1830);
  assert.match(r.units.derivation.wgmmaLatency, /2 x 128 x 128 x 64 \/ 4096 bf16/);
  // Epilogue: 32768 B / 128 B/clk + 32768 B / (3350e9 / 132 / 1830e6 B/clk) = 256 + 2363.3 -> 2619.
  assert.equal(r.knobs.epilogueLatency, 2619);
  // No problem: no L2 reuse, so the TMA is the preset's 700-cycle unloaded latency plus the whole
  // 32768 B at 13.87 B/clk (2363.3 cycles) = 3063.
  assert.equal(r.knobs.tmaLatency, 3063);
  assert.match(r.units.derivation.tmaLatency, /^tmaCycles: 700 latency \+ /);
  // FP8 doubles the rate: 256 cycles.
  assert.equal(KS.simulate(GEMM, { gpu: "h100-sxm", dtype: "fp8" }).knobs.wgmmaLatency, 256);
});

test("a knob the user sets wins over the formula, and sources say which came from where", () => {
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", wgmmaLatency: 700, problem: "4096x4096x4096", kTiles: 3 });
  assert.equal(r.knobs.wgmmaLatency, 700);
  assert.equal(r.units.sources.wgmmaLatency, "knob");
  assert.equal(r.units.sources.tmaLatency, "gpu");
  assert.equal(r.knobs.kTiles, 3);
  assert.equal(r.units.sources.kTiles, "knob");
  assert.equal(r.units.sources.outputTiles, "problem");
});

test("the problem sets the CTA's tiles: ceil(tiles / SMs) output tiles, K / tileK k-tiles", () => {
  // 4096^2 in 128x128 tiles: 1024 tiles over 132 SMs -> 8 per CTA (7.76), 8 waves, the last with 100.
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.equal(r.knobs.outputTiles, 8);
  assert.equal(r.knobs.kTiles, 64);
  assert.deepEqual([r.units.inputs.tiles, r.units.inputs.ctas, r.units.inputs.waves, r.units.inputs.lastWaveTiles], [1024, 132, 8, 100]);
  // 4096 x 8192 in 128x256 tiles: 32 x 32 = 1024 tiles; K 8192 / 64 = 128 k-tiles.
  const r2 = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x8192x8192", tile: "128x256x64" });
  assert.equal(r2.knobs.kTiles, 128);
  assert.equal(r2.knobs.outputTiles, Math.ceil(32 * 32 / 132));
  // Clusters of 8 CTAs on 132 SMs: 16 whole clusters, 128 CTAs.
  assert.equal(KP.ctaTiles(1024, KP.gpuFrom(require(path.join(ROOT, "sim", "gpus.json")), "h100-sxm"), 8).ctas, 128);
  // Attention: batch 1 x 16 heads x 16384 rows in FA3's 128-row blocks: 2048 tiles -> 16 per CTA;
  // 16384 / 176 (kBlockN of the BF16 hdim-128 tile) = 93.1 -> 94 KV blocks.
  const a = KS.simulate(FA3, { gpu: "h100-sxm", batch: 1, heads: 16, seqlen: 16384 });
  assert.equal(a.error, null);
  assert.equal(a.units.inputs.tile, "128x176");
  assert.equal(a.knobs.outputTiles, 16);
  assert.equal(a.knobs.kvBlocks, 94);
  // GEMM0 of one WG's 64 rows: 2 x 64 x 176 x 128 / 4096 = 704 cycles.
  assert.equal(a.knobs.gemm0Latency, 704);
  // Causal halves the KV blocks (ceil(94 / 2)).
  assert.equal(KS.simulate(FA3, { gpu: "h100-sxm", batch: 1, heads: 16, seqlen: 16384, causal: true }).knobs.kvBlocks, 47);
  // Blackwell on B200: 2 x 256 x 128 x 64 / 8192 = 512 cycles of UMMA.
  const b = KS.simulate(SM100, { gpu: "b200", tile: "256x128x64", problem: "8192x8192x8192" });
  assert.equal(b.knobs.ummaLatency, 512);
  assert.equal(b.knobs.kTiles, 128);
  assert.equal(b.knobs.outputTiles, Math.ceil(32 * 64 / 148));
});

test("time, TFLOPs and peak share follow from the simulated cycles", () => {
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.ok(r.time.cycles >= r.total);
  assert.equal(r.time.us, r.time.cycles / 1830);
  assert.ok(Math.abs(r.tflops - 2 * 4096 ** 3 / (r.time.us * 1e-6) / 1e12) < 1e-9);
  assert.ok(Math.abs(r.peakFraction - r.tflops / KP.peakTflops(KP.gpuFrom(require(path.join(ROOT, "sim", "gpus.json")), "h100-sxm"), "bf16")) < 1e-12);
  // 8 tiles x 64 k-tiles x 512 cycles = 262,144 busy tensor-core cycles; the run cannot be shorter.
  assert.equal(r.verdict.tensorCoreBusySteps, 262144);
  assert.ok(r.total > 262144 && r.total < 262144 * 1.05, String(r.total));
  assert.equal(r.bottleneck, "tensor-core");
});

// (tests/js/golden.test.js pins every field of 600 step-mode runs; this checks the new fields stay out.)
test("without gpu every result is as before: the unit knobs are unknown knobs, no time fields", () => {
  for (const [st, knobs] of [[GEMM, { stages: 3 }], [FA3, {}], [SM100, { kTiles: 7 }]]) {
    const r = plain(KS.simulate(st, knobs));
    assert.ok(!("time" in r) && !("units" in r) && !("tflops" in r) && !("bottleneck" in r));
  }
  const r = KS.simulate(GEMM, { problem: "4096x4096x4096" });
  assert.ok(r.messages.includes('unknown knob "problem" ignored'));
  assert.equal(r.knobs.outputTiles, KS.DEFAULT_KNOBS.outputTiles);
});

test("more stages move a long-latency load from TMA-latency bound to tensor-core bound", () => {
  // memLatency 1500 + 331 transfer cycles = 1831 per load against 512-cycle WGMMAs: the stage ring
  // hides it once S x 512 covers the load and the release lag (here from 5 stages).
  const sweep = [2, 3, 4, 5, 6, 8].map((stages) => KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096", memLatency: 1500, stages }));
  assert.equal(sweep[0].knobs.tmaLatency, 1831);
  assert.deepEqual(sweep.map((r) => r.bottleneck), ["tma-latency", "tma-latency", "tma-latency", "tensor-core", "tensor-core", "tensor-core"]);
  for (let i = 1; i < sweep.length; i++) assert.ok(sweep[i].tflops >= sweep[i - 1].tflops);
  assert.equal(sweep[0].verdict.minStagesToHideTma, 5);
  assert.match(sweep[0].units.bottleneckWhy, /tma-latency/);
});

test("an HBM-bound load is TMA-bandwidth bound: the floor of the CTA's bytes over its HBM share", () => {
  // No problem: L2 reuse 0, 2363 transfer cycles per 512-cycle k-tile.
  const r = KS.simulate(GEMM, { gpu: "h100-sxm", stages: 8 });
  assert.equal(r.bottleneck, "tma-bandwidth");
  assert.ok(Math.abs(r.units.hbmFloorCycles - 4 * 5 * 32768 / (3350e9 / 132 / 1830e6)) < 1e-6);
  assert.equal(r.time.cycles, r.units.hbmFloorCycles);
});

test("bad unit knobs give an error result naming them; simulate never throws", () => {
  assert.match(KS.simulate(GEMM, { gpu: "nope" }).error, /^units: unknown GPU "nope"/);
  assert.match(KS.simulate(GEMM, { gpu: "h100-sxm", tile: "128x128" }).error, /^units: tile expects MxNxK/);
  assert.match(KS.simulate(GEMM, { gpu: "h20" }).error, /units: .*clock/);
  assert.equal(KS.simulate(GEMM, { gpu: "h20", clockMHz: 1800 }).error, null);
  assert.match(KS.simulate(FA3, { gpu: "h100-sxm", heads: 4 }).error, /needs seqlen/);
});

function cli(args) {
  const r = childProcess.spawnSync(process.execPath, [path.join(ROOT, "schedule.js"), "predict"].concat(args), { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("node schedule.js predict prints the prediction; --sweep one line per value; bad input exits 2", () => {
  const structure = path.join(ROOT, "examples", "sm90_gemm_pingpong.json");
  const r = cli(["--structure", structure, "--knob", "gpu=h100-sxm", "--knob", "problem=4096x4096x4096"]);
  assert.equal(r.code, 0, r.stderr);
  const p = JSON.parse(r.stdout);
  const direct = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096" });
  assert.deepEqual([p.time, p.tflops, p.bottleneck, p.knobs], [direct.time, direct.tflops, direct.bottleneck, plain(direct.knobs)]);
  const s = cli(["--structure", structure, "--knob", "gpu=h100-sxm", "--knob", "memLatency=1500", "--knob", "problem=4096x4096x4096", "--sweep", "stages=2..5"]);
  assert.equal(s.code, 0, s.stderr);
  const rows = s.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((x) => x.sweep.value), [2, 3, 4, 5]);
  assert.deepEqual(rows.map((x) => x.bottleneck), ["tma-latency", "tma-latency", "tma-latency", "tensor-core"]);
  for (const bad of [[], ["--structure", structure], ["--structure", structure, "--knob", "gpu=zz"], ["--structure", "/nonexistent.json", "--knob", "gpu=h100-sxm"],
    ["--structure", structure, "--knob", "gpu=h100-sxm", "--sweep", "stages=8..2"], ["--bogus"]]) {
    const e = cli(bad);
    assert.equal(e.code, 2, bad.join(" "));
    assert.equal(e.stdout, "");
    assert.equal(e.stderr.trim().split("\n").length, 1, e.stderr);
  }
});
