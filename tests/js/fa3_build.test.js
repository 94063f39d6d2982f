// FlashAttention-3 as it is built: FA3's compile-time inputs are the knobs and Transpose_V / the
// scheduler barrier are derived as FA3 derives them (docs/models/attention.md "FA3 as built").
// node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));
const fa3 = () => JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "fa3_fwd.json"), "utf8"));

test("the FA3 example starts as the common build: BF16, head dimension 128, 2 MMA WGs, both refinements on", () => {
  const r = KS.simulate(fa3(), {});
  assert.equal(r.model, "attention");
  const k = r.knobs;
  assert.deepEqual([k.dtype, k.headDim, k.consumerWGs, k.intraWGOverlap, k.transposeV, k.interWGPingpong],
    ["bf16", 128, 2, true, false, true]);
  assert.equal(r.deadlock, null);
  // Transpose_V is off although MainloopPipelineVt is declared in every build: no Vt lanes.
  assert.ok(!r.lanes.some((l) => /^vt_stage/.test(l.id)));
});

test("tile_size.h and UseSchedulerBarrier: WGs, IntraWGOverlap, Transpose_V and the scheduler barrier per build", () => {
  // [dtype, headDim] -> [WGs (kBlockM / 64), IntraWGOverlap, Transpose_V, UseSchedulerBarrier]
  const cases = [
    [["bf16", 64], [3, true, false, true]],     // 192 x 192; intra: WGs >= 2 && 64 <= 128
    [["bf16", 96], [3, true, false, true]],     // 192 x 144
    [["bf16", 128], [2, true, false, true]],    // 128 x 176
    [["fp16", 192], [2, true, false, false]],   // 128 x 112; 16-bit needs kHeadDim <= 128
    [["bf16", 256], [2, true, false, false]],   // 128 x 80
    [["fp8", 64], [3, true, true, false]],      // 192 x 160; FP8 needs kHeadDim >= 128
    [["fp8", 128], [2, true, true, true]],      // 128 x 224
    [["fp8", 256], [2, true, true, true]]       // 128 x 128
  ];
  for (const [[dtype, headDim], want] of cases) {
    const k = KS.simulate(fa3(), { dtype, headDim }).knobs;
    assert.deepEqual([k.consumerWGs, k.intraWGOverlap, k.transposeV, k.interWGPingpong], want, dtype + " " + headDim);
  }
  // Without IntraWGOverlap the barrier is on for exactly two WGs.
  const off = (consumerWGs) => KS.simulate(fa3(), { intraWGOverlap: false, consumerWGs }).knobs.interWGPingpong;
  assert.deepEqual([off(1), off(2), off(3)], [false, true, false]);
});

test("derived flags are not free knobs: a contradicting value is ignored, with the rule and its line", () => {
  const st = fa3();
  const line = st.constants.find((c) => c.name === "UseSchedulerBarrier").line;
  const r = KS.simulate(st, { interWGPingpong: false, transposeV: true });
  assert.equal(r.knobs.interWGPingpong, true);
  assert.equal(r.knobs.transposeV, false);
  assert.ok(r.messages.some((m) => m.startsWith("interWGPingpong: FA3 derives it (UseSchedulerBarrier = ") && m.includes("line " + line)), r.messages.join("\n"));
  assert.ok(r.messages.some((m) => /^transposeV: FA3 derives it \(Transpose_V = Is_FP8 && !V_colmajor, line \d+\)/.test(m)));
  // The page's knob specs: derived ones are read-only with their rule; dtype and headDim are knobs.
  const specs = KS.knobsFor("attention", st);
  const derived = specs.filter((s) => s.derived).map((s) => [s.name, s.derived.line]);
  assert.deepEqual(derived.map((d) => d[0]).sort(), ["interWGPingpong", "transposeV"]);
  assert.ok(specs.some((s) => s.name === "dtype") && specs.some((s) => s.name === "headDim"));
});

test("a revision whose rule differs keeps the knobs free, and other attention kernels get no FA3 knobs", () => {
  const st = fa3();
  st.constants.find((c) => c.name === "UseSchedulerBarrier").value = "NumMmaWarpGroups == 2";
  const r = KS.simulate(st, { interWGPingpong: false });
  assert.equal(r.knobs.interWGPingpong, false);
  assert.equal(r.knobs.dtype, undefined);
  assert.ok(!KS.knobsFor("attention", st).some((s) => s.name === "dtype" || s.derived));
  const fa4 = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "fa4_fwd_sm90.json"), "utf8"));
  assert.ok(!KS.knobsFor("attention", fa4).some((s) => s.name === "dtype" || s.name === "headDim"));
  assert.match(KS.simulate(fa4, { dtype: "fp8" }).messages.join("\n"), /unknown knob "dtype" ignored/);
});

test("three MMA WGs rotate the scheduler barrier WG1 -> WG2 -> WG3 -> WG1 (warp_scheduler_barrier_arrive)", () => {
  const r = KS.simulate(fa3(), { headDim: 64, kvBlocks: 3, outputTiles: 1 });
  assert.equal(r.knobs.consumerWGs, 3);
  assert.equal(r.deadlock, null);
  const names = r.barriers.map((b) => b.name);
  const sched = ["WarpSchedulerWG1", "WarpSchedulerWG2", "WarpSchedulerWG3"].map((n) => names.indexOf(n));
  assert.ok(sched.every((i) => i >= 0));
  // Who arrives on each WG's barrier: the WG itself (its sync) and the WG before it in the
  // rotation (its arrive); with two WGs each barrier would hear from both.
  const arrivers = sched.map((id) => [...new Set(r.barrierEvents.filter((e) => e.barrier === id && e.type === "arrive").map((e) => e.lane))].sort());
  assert.deepEqual(arrivers, [["consumer0", "consumer2"], ["consumer0", "consumer1"], ["consumer1", "consumer2"]]);
  // Each WG's lanes are drawn.
  for (const c of [0, 1, 2]) assert.ok(r.lanes.some((l) => l.id === "consumer" + c + "_softmax"));
});

test("FA3 with one stage deadlocks only with Transpose_V (FP8), and the verdict says dtype makes it so", () => {
  assert.equal(KS.simulate(fa3(), { stages: 1 }).deadlock, null);
  const r = KS.simulate(fa3(), { stages: 1, dtype: "fp8" });
  assert.ok(r.deadlock !== null);
  assert.deepEqual(r.deadlockKnobs, [{ knob: "dtype", value: "fp8", fine: "bf16" }, { knob: "stages", value: 1, fine: 2 }]);
  // BF16 with one stage runs and FP8 with two stages runs: each of the two alone lets it finish.
  const gemm = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "sm90_gemm_cooperative.json"), "utf8"));
  assert.deepEqual(KS.simulate(gemm, { kPipeMmas: 4 }).deadlockKnobs, [{ knob: "kPipeMmas", value: 4, fine: 1 }]);
  assert.equal(KS.simulate(gemm, {}).deadlockKnobs, null);
});
