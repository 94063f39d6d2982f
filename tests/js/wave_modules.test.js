// The waveform page's pure modules (assets/wave_*.js, docs/waveform.md "Module layout"), each
// required on its own as the page's one packed script defines them: the URL hash at a knob's
// exact limits, culling at the window's edges, the barrier replay after N completions, the
// code-path lines, and that assets/waveform.js hands tests the very functions of the modules.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const fs = require("node:fs");

const ASSETS = path.join(__dirname, "..", "..", "assets");
const mod = (name) => require(path.join(ASSETS, name));
const C = mod("wave_const.js");
const I = mod("wave_index.js");
const V = mod("wave_view.js");
const R = mod("wave_result.js");
const W = mod("waveform.js");
const K = require(path.join(__dirname, "..", "..", "schedule.js"));
const PINGPONG = require(path.join(__dirname, "..", "..", "examples", "sm90_gemm_pingpong.json"));

const PURE_FILES = ["wave_const.js", "wave_kinds.js", "wave_index.js", "wave_view.js", "wave_result.js", "wave_stats.js"];

test("each pure module requires only earlier pure modules and touches no DOM", () => {
  PURE_FILES.forEach((file, i) => {
    const text = fs.readFileSync(path.join(ASSETS, file), "utf8");
    const required = [...text.matchAll(/require\("\.\/([\w.]+)"\)/g)].map((m) => m[1]);
    required.forEach((r) => assert.ok(PURE_FILES.indexOf(r) >= 0 && PURE_FILES.indexOf(r) < i, `${file} requires ${r}`));
    assert.doesNotMatch(text, /\bdocument\b|addEventListener|getContext|requestAnimationFrame/, `${file} touches the DOM`);
  });
});

test("waveform.js exports the modules' own functions (one copy of each rule)", () => {
  assert.strictEqual(W.parseHash, V.parseHash);
  assert.strictEqual(W.formatHash, V.formatHash);
  assert.strictEqual(W.TimeScale, V.TimeScale);
  assert.strictEqual(W.visibleRange, I.visibleRange);
  assert.strictEqual(W.laneIndexOf, I.laneIndexOf);
  assert.strictEqual(W.barrierStateAt, R.barrierStateAt);
  assert.strictEqual(W.codePathLines, R.codePathLines);
  assert.strictEqual(W.constants.RULER_HEIGHT_PX, C.RULER_HEIGHT_PX);
});

const HASH_KEYS = [["model", "model"], ["stages", "stages"], ["sched", "schedule"], ["overlap", "intraWGOverlap"]];
const RANGES = (name) => ({model: {options: ["gemm"]}, stages: {min: 1, max: 12}, schedule: {options: ["pingpong", "cooperative"]},
  intraWGOverlap: {flag: true}})[name] || null;

test("parseHash: a knob exactly at its limits is kept silently, one past them is clamped with a message", () => {
  for (const v of [1, 12]) {
    const h = V.parseHash("#stages=" + v, HASH_KEYS, RANGES, "gemm");
    assert.strictEqual(h.knobs.stages, v);
    assert.deepStrictEqual(h.messages, []);
  }
  const over = V.parseHash("#stages=13", HASH_KEYS, RANGES, "gemm");
  assert.strictEqual(over.knobs.stages, 12);
  assert.match(over.messages[0], /outside 1\.\.12; clamped to 12/);
  const under = V.parseHash("#stages=0", HASH_KEYS, RANGES, "gemm");
  assert.strictEqual(under.knobs.stages, 1);
  // View numbers: exactly MAX_HASH_NUMBER is accepted, beyond it refused.
  assert.strictEqual(V.parseHash("#cursor=" + C.MAX_HASH_NUMBER, HASH_KEYS, RANGES, "gemm").cursor, C.MAX_HASH_NUMBER);
  const far = V.parseHash("#cursor=" + (C.MAX_HASH_NUMBER + 1), HASH_KEYS, RANGES, "gemm");
  assert.strictEqual(far.cursor, null);
  assert.strictEqual(far.messages.length, 1);
  // A hash exactly MAX_HASH_LENGTH long is read; one character more is refused whole.
  const pad = (n) => "#stages=5&" + "x".repeat(n - "stages=5&".length);
  assert.strictEqual(V.parseHash(pad(C.MAX_HASH_LENGTH), HASH_KEYS, RANGES, "gemm").knobs.stages, 5);
  assert.deepStrictEqual(V.parseHash(pad(C.MAX_HASH_LENGTH + 1), HASH_KEYS, RANGES, "gemm").knobs, {});
});

test("formatHash and parseHash round-trip knobs (on/off flags too) and the view", () => {
  const s = {knobs: {model: "gemm", stages: 7, schedule: "cooperative", intraWGOverlap: false},
             view: {t0Step: 1.25, t1Step: 90}, fitted: false, cursor: 3, markerA: null, markerB: null};
  const text = V.formatHash(s, HASH_KEYS);
  assert.match(text, /overlap=off/);
  const back = V.parseHash("#" + text, HASH_KEYS, RANGES, "gemm");
  assert.deepStrictEqual(back.knobs, {stages: 7, schedule: "cooperative", intraWGOverlap: false});
  assert.strictEqual(back.model, "gemm");
  assert.deepStrictEqual(back.view, {t0Step: 1.25, t1Step: 90});
  assert.strictEqual(back.cursor, 3);
  assert.deepStrictEqual(back.messages, []);
});

/** Result columns of one lane holding blocks [start, end) (what laneIndexOf reads). */
function oneLane(blocks) {
  return {laneStart: Int32Array.from([0, blocks.length]), start: Float64Array.from(blocks.map((b) => b[0])),
          end: Float64Array.from(blocks.map((b) => b[1]))};
}

test("visibleRange at the window's edges: a block ending at t0 or starting at t1 is culled, one step inside is kept", () => {
  const index = I.laneIndexOf(oneLane([[0, 10], [10, 20], [20, 30], [30, 40]]), 0);
  assert.deepStrictEqual(I.visibleRange(index, 10, 30), [1, 3], "[0,10) ends at t0 and [30,40) starts at t1");
  assert.deepStrictEqual(I.visibleRange(index, 9.5, 30.5), [0, 4]);
  assert.deepStrictEqual(I.visibleRange(index, 40, 50), [4, 4], "after the last block: empty");
  assert.deepStrictEqual(I.visibleRange(index, -5, 0), [0, 0], "before the first block: empty");
  // Overlapping lane: a long block that started early still reaches into the window (running max of ends).
  const over = I.laneIndexOf(oneLane([[0, 100], [5, 6], [7, 8], [50, 60]]), 0);
  const [lo, hi] = I.visibleRange(over, 20, 30);
  assert.ok(lo === 0 && hi === 3, `the 0..100 block stays visible: ${lo}..${hi}`);
});

test("visibleRange never drops a visible block of a real run (every lane, random windows)", () => {
  const r = K.simulate(PINGPONG, {});
  const c = r.columns;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let li = 0; li < c.lanes.length; li++) {
    const index = I.laneIndexOf(c, li);
    for (let trial = 0; trial < 40; trial++) {
      const t0 = Math.floor(rand() * r.total), t1 = t0 + Math.floor(rand() * 20);
      const [lo, hi] = I.visibleRange(index, t0, t1);
      for (let i = 0; i < index.n; i++) {
        const visible = index.ends[i] > t0 && index.starts[i] < t1;
        if (visible) assert.ok(i >= lo && i < hi, `lane ${li} block ${i} dropped for [${t0}, ${t1})`);
      }
    }
  }
});

test("barrierStateAt: after N completions of a barrier its count is N and its phase the last completion's", () => {
  const result = {barriers: [{id: "full0", expected: 2}], barrierEvents: [
    {t: 1, barrier: "full0", type: "arrive"},
    {t: 2, barrier: "full0", type: "wait_begin", lane: "c0", phase: 0},
    {t: 3, barrier: "full0", type: "arrive"},
    {t: 3, barrier: "full0", type: "complete", phase: 1},
    {t: 4, barrier: "full0", type: "wait_end", lane: "c0"},
    {t: 5, barrier: "full0", type: "arrive"},
    {t: 6, barrier: "full0", type: "arrive"},
    {t: 6, barrier: "full0", type: "complete", phase: 0},
  ]};
  const at = (t) => R.barrierStateAt(result, t)[0];
  assert.deepStrictEqual([at(2.5).arrivals, at(2.5).completions, at(2.5).phase, at(2.5).waiters.length], [1, 0, 0, 1]);
  assert.deepStrictEqual([at(3).arrivals, at(3).completions, at(3).phase], [0, 1, 1], "an event at t is applied at t");
  assert.strictEqual(at(4).waiters.length, 0);
  assert.deepStrictEqual([at(6).completions, at(6).phase, at(6).events], [2, 0, 8]);
  // A real run: at each completion's step, the barrier has completed as often as its events say.
  const r = K.simulate(PINGPONG, {});
  const seen = {};
  r.barrierEvents.forEach((e) => {
    if (e.type !== "complete") return;
    seen[e.barrier] = (seen[e.barrier] || 0) + 1;
  });
  const last = R.barrierStateAt(r, r.total);
  last.forEach((s) => assert.strictEqual(s.completions, seen[s.barrier.id] || 0, s.barrier.id));
  assert.ok(last.some((s) => s.completions > 1), "the example completes some barrier more than once");
});

test("TimeScale maps steps to pixels and back, and a zero-length span never divides by 0", () => {
  const s = new V.TimeScale(10, 20, 100, 300);
  assert.strictEqual(s.xPx(15), 200);
  assert.strictEqual(s.tStep(300), 20);
  assert.strictEqual(s.widthPx(5), 100);
  const z = new V.TimeScale(5, 5, 0, 100);
  assert.ok(Number.isFinite(z.xPx(6)) && Number.isFinite(z.tStep(50)));
});
