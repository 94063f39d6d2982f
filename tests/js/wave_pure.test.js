// Pure helpers of the waveform page (assets/waveform.js) under Node: the Worker's result packing,
// the barrier replay behind the barrier panel, utilization text and the code-path choice.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const W = require(path.join(__dirname, "..", "..", "assets", "waveform.js"));
const K = require(path.join(__dirname, "..", "..", "schedule.js"));
const EX = (name) => require(path.join(__dirname, "..", "..", "examples", name));

/** A result as plain JSON data (getters read, undefined dropped), for deep comparison. */
const plain = (r) => JSON.parse(JSON.stringify(r));

test("packResult/unpackResult round-trip every example result", () => {
  for (const [file, knobs] of [["sm90_gemm_pingpong.json", {}], ["fa3_fwd.json", {}], ["fa4_fwd_sm90.json", {}],
                               ["sm90_gemm_pingpong.json", { kTiles: 1, stages: 1 }], ["sm90_gemm_cooperative.json", { outputTiles: 7 }]]) {
    const r = K.simulate(EX(file), knobs);
    const p = W.packResult(r);
    assert.ok(p.transfer.length > 0, "columns are transferable buffers");
    delete p.transfer;
    assert.deepStrictEqual(plain(W.unpackResult(p)), plain(r), file);
  }
  // Shared source-line lists stay shared (interned once).
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  const p = W.packResult(r);
  assert.ok(p.lists.length < r.blocks.length / 2);
  // A result without blocks (an error) passes through unchanged.
  assert.deepStrictEqual(W.unpackResult(W.packResult({ error: "x" })), { error: "x" });
});

test("barrierStateAt replays phases, arrivals and waiters from barrierEvents", () => {
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  const steps = [...new Set(r.barrierEvents.map((e) => e.t))];
  for (const t of [0, steps[3], steps[Math.floor(steps.length / 2)], r.total]) {
    const states = W.barrierStateAt(r, t);
    const phase = {};
    for (const b of r.barriers) phase[b.id] = 0;
    const waiting = {};
    for (const e of r.barrierEvents) {
      if (e.t > t) break;
      phase[e.barrier] = e.phase;
      const key = e.barrier + "/" + e.lane;
      if (e.type === "wait_begin") waiting[key] = e.phase;
      if (e.type === "wait_end") delete waiting[key];
    }
    for (const s of states) {
      assert.strictEqual(s.phase, phase[s.barrier.id], `phase of ${s.barrier.name} at ${t}`);
      assert.ok(s.arrivals <= s.expected, `arrivals of ${s.barrier.name} at ${t}`);
      for (const w of s.waiters) assert.strictEqual(waiting[s.barrier.id + "/" + w.lane], w.parity);
    }
  }
  assert.strictEqual(W.barrierEventStep(r, -1, 1), r.barrierEvents[0].t);
  assert.strictEqual(W.barrierEventStep(r, r.barrierEvents[0].t, -1), null);
});

test("percentText never rounds a non-total to 100% or a non-zero to 0%", () => {
  assert.strictEqual(W.percentText(0.9996), "99.9%");
  assert.strictEqual(W.percentText(0.99949), "99.9%");
  assert.strictEqual(W.percentText(1), "100%");
  assert.strictEqual(W.percentText(0.0004), "<0.1%");
  assert.strictEqual(W.percentText(0), "0%");
  assert.strictEqual(W.percentText(0.123456), "12.3%");
  assert.strictEqual(W.percentText(NaN), "n/a");
});

test("codePathLines keeps the wait + MMA of the k-tile's iteration and the shared release", () => {
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  const lines = (b) => W.codePathLines(b, 1).lines.map((l) => l.line);
  const wg = (k) => r.blocks.find((b) => b.kind === "wgmma" && b.k === k);
  assert.deepStrictEqual([...new Set(lines(wg(0)))], [487, 496, 551]);
  assert.deepStrictEqual([...new Set(lines(wg(3)))], [533, 543, 551]);
  assert.strictEqual(W.codePathLines(wg(1), 3).path, "prologue loop");
  // Other kinds keep every line (no guess).
  const other = r.blocks.find((b) => b.kind === "issue");
  assert.deepStrictEqual(W.codePathLines(other, 1).lines, other.lines);
});
