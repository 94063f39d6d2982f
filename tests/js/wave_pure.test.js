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

test("packResult/unpackResult round-trip every example result, transferring the columns", () => {
  for (const [file, knobs] of [["sm90_gemm_pingpong.json", {}], ["fa3_fwd.json", {}], ["fa4_fwd_sm90.json", {}],
                               ["sm90_gemm_pingpong.json", { kTiles: 1, stages: 1 }], ["sm90_gemm_cooperative.json", { outputTiles: 7 }]]) {
    const r = K.simulate(EX(file), knobs);
    const want = plain(r);
    const before = r.columns.start.byteLength;
    const p = W.packResult(r);
    assert.ok(p.transfer.length > 0, "columns are transferable buffers");
    assert.strictEqual(new Set(p.transfer).size, p.transfer.length, "each buffer listed once");
    // Crossing as a Worker message does: a structured clone that moves the buffers.
    const transfer = p.transfer;
    delete p.transfer;
    const moved = structuredClone(p, { transfer });
    assert.strictEqual(r.columns.start.byteLength, 0, "the Worker's columns were moved, not copied");
    assert.ok(moved.columns.start.byteLength === before);
    const u = W.unpackResult(moved, K);
    assert.ok(!Object.prototype.propertyIsEnumerable.call(u, "columns"), "columns stay non-enumerable");
    assert.deepStrictEqual(plain(u), want, file);
  }
  // packResult never reads result.blocks (that would build every object in the Worker).
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  Object.defineProperty(r, "blocks", { get() { throw new Error("blocks read"); }, enumerable: true, configurable: true });
  const p = W.packResult(r);
  assert.strictEqual(p.columns, r.columns);
  // Deferred barrier events: a run that skipped them (the page's background runs) crosses
  // without them; a second run's events follow in a second message and complete the result.
  const r2 = K.simulate(EX("sm90_gemm_pingpong.json"), {}, { events: false });
  assert.strictEqual(r2.barrierEventsSkipped, true);
  assert.strictEqual(r2.barrierEventColumns.n, 0, "no event recorded");
  const full2 = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  assert.strictEqual(full2.barrierEventsSkipped, false);
  const want2 = plain(full2);
  const p2 = W.packResult(r2);
  assert.strictEqual(p2.eventsDeferred, true);
  assert.strictEqual(W.packResult(full2).eventsDeferred, false);
  const u2 = W.unpackResult(p2, K);
  assert.strictEqual(u2.eventsPending, true);
  assert.deepStrictEqual(u2.barrierEvents, []);
  const ev = W.packEvents(full2);
  delete ev.transfer;
  u2.supplyEvents(structuredClone(ev));
  assert.strictEqual(u2.eventsPending, false);
  assert.strictEqual(u2.barrierEventsSkipped, false);
  assert.deepStrictEqual(plain(u2), want2);
  // With the simulator's typed event columns, packEvents builds no event object.
  const r3 = K.simulate(EX("fa3_fwd.json"), {});
  const want3 = K.simulate(EX("fa3_fwd.json"), {}).barrierEvents;
  assert.ok(want3.length > 0);
  const u3 = W.unpackResult(W.packResult(K.simulate(EX("fa3_fwd.json"), {}, { events: false })), K);
  Object.defineProperty(r3, "barrierEvents", { get() { throw new Error("barrierEvents read"); }, enumerable: true, configurable: true });
  const ev3 = W.packEvents(r3);
  delete ev3.transfer;
  u3.supplyEvents(structuredClone(ev3));
  assert.deepStrictEqual(u3.barrierEvents, want3);
  // A result without columns (an error) passes through unchanged.
  assert.deepStrictEqual(W.unpackResult(W.packResult({ error: "x" })), { error: "x" });
});

test("column helpers agree with the v1 block objects (lane index, dependents, chains, lane edges)", () => {
  for (const [file, knobs] of [["sm90_gemm_pingpong.json", {}], ["fa3_fwd.json", {}], ["sm90_gemm_cooperative.json", { outputTiles: 5, kTiles: 7 }]]) {
    const r = K.simulate(EX(file), knobs), c = r.columns, blocks = r.blocks;
    c.lanes.forEach((lane, li) => {
      const index = W.laneIndexOf(c, li);
      const ids = blocks.filter((b) => b.lane === lane).sort((a, b) => a.start - b.start || a.end - b.end).map((b) => b.id);
      assert.deepStrictEqual(Array.from({ length: index.n }, (_, i) => index.lo + i), ids, `${file} ${lane} ids`);
      // Lane edges: the next / previous start or end, as a scan over the blocks finds it.
      const edges = ids.flatMap((id) => [[blocks[id].start, id], [blocks[id].end, id]]);
      for (const t of [-1, 0, 3, 17.5, r.total / 2, r.total, r.total + 1]) {
        for (const dir of [1, -1]) {
          let best = null;
          for (const [e, id] of edges) if ((dir > 0 ? e > t : e < t) && (best === null || (dir > 0 ? e < best[0] : e > best[0]))) best = [e, id];
          const got = W.laneEdge(index, t, dir);
          assert.deepStrictEqual(got === null ? null : [got.t, index.lo + got.i], best, `${file} ${lane} t=${t} dir=${dir}`);
        }
      }
    });
    // Chains: what following a block highlights, against a scan over the block objects.
    for (const b of blocks.filter((x, i) => i % 7 === 0 && x.tile !== null)) {
      for (const k of [b.k, null]) {
        // The view description says which kinds a k-tile (chain "k") and an output tile (tile) follow.
        const kinds = r.view.kinds, onK = (x) => !!kinds[x.kind] && kinds[x.kind].chain === "k";
        const onTile = (x) => !!kinds[x.kind] && kinds[x.kind].tile === true;
        const want = blocks.filter((x) => x.tile === b.tile && (k === null ?
          (onTile(x) || (x.operand === "Q" && onK(x))) : (x.k === k && onK(x)))).map((x) => x.id);
        if (k !== null && onK(b)) assert.ok(want.includes(b.id), `${file} chain of ${b.id} holds it`);
        assert.deepStrictEqual(W.chainIds(c, b.tile, k, r.view), want, `${file} chain of tile ${b.tile} k ${k}`);
      }
    }
    assert.deepStrictEqual(W.chainIds(c, null, null, r.view), []);
    const dep = W.dependentsOfColumns(c);
    const want = new Map();
    for (const b of blocks) for (const a of b.after) (want.get(a) || want.set(a, []).get(a)).push(b.id);
    for (const b of blocks) assert.deepStrictEqual(Array.from(dep.list.subarray(dep.at[b.id], dep.at[b.id + 1])), want.get(b.id) || []);
  }
});

test("fillMaskIn ORs the fill bits of any id range, as a scan does", () => {
  const r = K.simulate(EX("sm90_gemm_cooperative.json"), { outputTiles: 40, kTiles: 60 }), c = r.columns;
  const kindFills = c.kinds.map((_, i) => (i % 3 === 0 ? [i % 7, (i + 1) % 7] : [i % 7]));
  const s = W.buildFillSummary(c, kindFills);
  let seed = 7;
  const rnd = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let trial = 0; trial < 400; trial++) {
    const a = rnd(c.n), b = Math.min(c.n, a + [1, 5, 31, 300, 5000, 40000][trial % 6] + rnd(50));
    let want = 0;
    for (let id = a; id < b; id++) {
      const f = kindFills[c.kind[id]];
      want |= 1 << (f.length === 1 ? f[0] : f[(c.tile[id] === -2147483648 ? 0 : c.tile[id]) % f.length]);
    }
    assert.strictEqual(W.fillMaskIn(s, a, b), want, `${a}..${b}`);
  }
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
