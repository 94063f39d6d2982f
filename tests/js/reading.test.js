// Pure parts of the waveform page's reading tools (assets/waveform.js, issue 23): statistics over
// a range (against a brute force over block objects and against the simulator's own verdict),
// the search query parser and matcher, match cycling, the pin= hash value and verdict deltas.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const W = require(path.join(__dirname, "..", "..", "assets", "waveform.js"));
const K = require(path.join(__dirname, "..", "..", "schedule.js"));
const { mulberry32 } = require("./prng.js");
const EX = (name) => require(path.join(__dirname, "..", "..", "examples", name));

const RUNS = [["sm90_gemm_pingpong.json", {}], ["sm90_gemm_cooperative.json", {}], ["fa3_fwd.json", {}],
              ["fa4_fwd_sm90.json", {}], ["sm100_gemm.json", {}], ["sm100_gemm.json", { ctaPair: true, loadC: true }]];

/** rangeStats by brute force over block objects: per-step coverage, no binary search. */
function bruteStats(r, t0, t1) {
  const lo = Math.min(t0, t1), hi = Math.max(t0, t1), lanes = {};
  let tensorSteps = 0;
  for (const id of r.columns.lanes) lanes[id] = { busy: 0, wait: 0, waits: {}, counts: {}, blocks: 0 };
  const tensorAt = new Set();
  for (const b of r.blocks) {
    const row = lanes[b.lane];
    const inside = b.end > b.start ? b.start < hi && b.end > lo : b.start >= lo && b.start < hi;
    if (!inside) continue;
    row.blocks++;
    row.counts[b.kind] = (row.counts[b.kind] || 0) + 1;
  }
  // Unit steps (every block starts and ends on whole steps): covered or not.
  for (const id of r.columns.lanes) {
    const blocks = r.blocks.filter((b) => b.lane === id);
    for (let t = Math.ceil(lo); t < hi; t++) {
      const work = blocks.some((b) => b.kind !== "wait" && b.start <= t && t < b.end);
      if (work) lanes[id].busy++;
      for (const b of blocks) {
        if (b.kind === "wait" && b.start <= t && t < b.end) {
          lanes[id].wait++;
          lanes[id].waits[b.reason] = (lanes[id].waits[b.reason] || 0) + 1;
        }
        if (W.TENSOR_CORE_KINDS.includes(b.kind) && b.start <= t && t < b.end) tensorAt.add(t);
      }
    }
  }
  tensorSteps = tensorAt.size;
  return { lanes, tensorSteps };
}

test("rangeStats over the whole run gives the verdict's tensor-core steps and each lane's waits", () => {
  for (const [file, knobs] of RUNS) {
    const r = K.simulate(EX(file), knobs);
    const st = W.rangeStats(r.columns, 0, r.total);
    assert.strictEqual(st.tensorBusy, r.verdict.tensorCoreBusySteps, file);
    assert.strictEqual(st.span, r.total);
    for (const row of st.lanes) {
      const w = r.verdict.waits[row.lane];
      if (!w) { assert.strictEqual(row.wait, 0, `${file} ${row.lane} has waits the verdict does not list`); continue; }
      assert.strictEqual(row.wait, w.total, `${file} ${row.lane}`);
      for (const reason of Object.keys(w)) if (reason !== "total") assert.strictEqual(row.waits[reason] || 0, w[reason], `${file} ${row.lane} ${reason}`);
    }
    const blocks = st.lanes.reduce((n, row) => n + row.blocks, 0);
    assert.strictEqual(blocks, r.columns.n, `${file}: every block counted once`);
  }
});

test("rangeStats agrees with a brute force over block objects on random ranges (either marker first)", () => {
  const rand = mulberry32(23);
  for (const [file, knobs] of RUNS) {
    const r = K.simulate(EX(file), knobs);
    for (let trial = 0; trial < 12; trial++) {
      const a = Math.floor(rand() * (r.total + 4)), b = Math.floor(rand() * (r.total + 4));
      if (a === b) continue;
      const st = W.rangeStats(r.columns, a, b);
      const want = bruteStats(r, a, b);
      assert.strictEqual(st.t0, Math.min(a, b));
      assert.strictEqual(st.tensorBusy, want.tensorSteps, `${file} ${a}-${b} tensor`);
      for (const row of st.lanes) {
        const w = want.lanes[row.lane];
        assert.deepStrictEqual({ busy: row.busy, wait: row.wait, waits: row.waits, counts: row.counts, blocks: row.blocks },
          { busy: w.busy, wait: w.wait, waits: w.waits, counts: w.counts, blocks: w.blocks }, `${file} ${a}-${b} ${row.lane}`);
      }
    }
  }
});

test("rangeStats reads only the blocks near the range: a poisoned block object path is never taken", () => {
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), { outputTiles: 64, kTiles: 64 });
  Object.defineProperty(r, "blocks", { get() { throw new Error("blocks read"); } });
  const st = W.rangeStats(r.columns, 100, 140);
  assert.strictEqual(st.span, 40);
  assert.ok(st.tensorBusy > 0 && st.tensorBusy <= 40);
});

/** The vocabulary the page gives parseQuery for a result (kind names from its view). */
function vocab(r) {
  const c = r.columns;
  return {
    kinds: c.kinds.map((k) => ({ kind: k, name: r.view.kinds[k] ? r.view.kinds[k].name : k.toUpperCase() })),
    reasons: c.reasons.filter((x) => x !== null), operands: c.operands.slice(),
    lanes: r.lanes.map((l) => ({ id: l.id, label: l.label || l.id })), unit: r.view.unit
  };
}

test("parseQuery reads kinds, o.k, wait reasons, operands, lanes and phrases; says which word means nothing", () => {
  const g = K.simulate(EX("sm90_gemm_pingpong.json"), {}), v = vocab(g);
  let q = W.parseQuery("WGMMA 1.2", v);
  assert.deepStrictEqual([q.kinds, q.tiles, q.error], [["wgmma"], [{ tile: 1, k: 2 }], null]);
  q = W.parseQuery("next WAIT tma", v);
  assert.deepStrictEqual([q.kinds, q.reasons, q.error], [["wait"], ["tma"], null]);
  q = W.parseQuery("TMA issue 3", v);   // the kind's two-word name, not the wait reason tma
  assert.deepStrictEqual([q.kinds, q.reasons, q.tiles], [["issue"], null, [{ tile: 3, k: null }]]);
  q = W.parseQuery("epi consumer1", v);
  assert.deepStrictEqual([q.kinds, q.lanes], [["epilogue"], ["consumer1"]]);
  q = W.parseQuery("wgmma bogus", v);
  assert.match(q.error, /bogus/);
  assert.ok(W.parseQuery("   ", v).empty);
  const a = K.simulate(EX("fa3_fwd.json"), {}), va = vocab(a);
  q = W.parseQuery("gemm 0.3", va);   // a prefix names both GEMMs
  assert.deepStrictEqual(q.kinds.sort(), ["gemm0", "gemm1"]);
  q = W.parseQuery("wait epilogue", va);   // with "wait", the reason epilogue, not the kind
  assert.deepStrictEqual([q.kinds, q.reasons], [["wait"], ["epilogue"]]);
  q = W.parseQuery("epilogue", va);
  assert.deepStrictEqual([q.kinds, q.reasons], [["epilogue"], null]);
  q = W.parseQuery("K 0.1", va);   // an operand as written
  assert.deepStrictEqual([q.operands, q.reasons], [["K"], null]);
  q = W.parseQuery("wait k", va);
  assert.deepStrictEqual(q.reasons, ["k"]);
});

test("searchBlocks matches what a filter over block objects matches, in time order", () => {
  const cases = [["sm90_gemm_pingpong.json", "wgmma 1.2", (b) => b.kind === "wgmma" && b.tile === 1 && b.k === 2],
                 ["sm90_gemm_pingpong.json", "wait tma", (b) => b.kind === "wait" && b.reason === "tma"],
                 ["sm90_gemm_pingpong.json", "2", (b) => b.tile === 2],
                 ["sm90_gemm_pingpong.json", "full filling stage0", (b) => (b.kind === "full" || b.kind === "filling") && b.lane === "stage0"],
                 ["fa3_fwd.json", "V 1", (b) => b.operand === "V" && b.tile === 1],
                 ["fa3_fwd.json", "gemm 0.2", (b) => (b.kind === "gemm0" || b.kind === "gemm1") && b.tile === 0 && b.k === 2]];
  for (const [file, text, pred] of cases) {
    const r = K.simulate(EX(file), {});
    const found = W.searchBlocks(r.columns, W.parseQuery(text, vocab(r)));
    const want = r.blocks.filter(pred).map((b) => b.id).sort((x, y) => r.blocks[x].start - r.blocks[y].start || r.columns.lane[x] - r.columns.lane[y] || x - y);
    assert.ok(want.length > 0, `${file} ${text}: the case finds something`);
    assert.deepStrictEqual(Array.from(found.ids), want, `${file} ${text}`);
    const perLane = found.perLane.reduce((n, l) => n + l.length, 0);
    assert.strictEqual(perLane, want.length);
  }
  // An unknown word matches nothing (and says so in the query).
  const r = K.simulate(EX("sm90_gemm_pingpong.json"), {});
  assert.strictEqual(W.searchBlocks(r.columns, W.parseQuery("zzz", vocab(r))).ids.length, 0);
});

test("stepMatch cycles both ways and starts from the cursor", () => {
  const start = Float64Array.from([0, 5, 5, 9, 20]);
  const ids = Int32Array.from([0, 1, 2, 3, 4]);
  assert.strictEqual(W.stepMatch(ids, start, -1, 6, 1), 3);    // first starting at or after 6
  assert.strictEqual(W.stepMatch(ids, start, -1, 6, -1), 2);   // last starting before 6
  assert.strictEqual(W.stepMatch(ids, start, -1, 21, 1), 0);   // past the end: wraps
  assert.strictEqual(W.stepMatch(ids, start, -1, 0, -1), 4);
  assert.strictEqual(W.stepMatch(ids, start, 4, 0, 1), 0);
  assert.strictEqual(W.stepMatch(ids, start, 0, 0, -1), 4);
  assert.strictEqual(W.stepMatch(new Int32Array(0), start, -1, 0, 1), -1);
});

test("formatPin / parsePin round-trip a knob set compactly; bad parts become messages", () => {
  const st = EX("sm90_gemm_pingpong.json");
  const hashKeys = K.KNOB_TABLE.knobs.map((k) => [k.flag.slice(2), k.name]);
  const ranges = (name, model) => {
    if (name === "model") return { options: K.MODEL_NAMES.slice() };
    const spec = K.knobsFor(model, st).find((s) => s.name === name);
    if (!spec) return null;
    if (spec.type === "flag") return { flag: true };
    if (spec.type === "choice") return { options: spec.choices.slice() };
    return { min: spec.min, max: spec.max };
  };
  const defaults = { model: "gemm" };
  K.knobsFor("gemm", st).forEach((s) => { defaults[s.name] = s.default; });
  const knobs = Object.assign({}, defaults, { stages: 6, schedule: "cooperative" });
  const text = W.formatPin(knobs, defaults, hashKeys);
  assert.strictEqual(text, "model:gemm,stages:6,schedule:cooperative");
  assert.ok(!/[&=#%]/.test(text), "no character the hash would have to escape");
  const back = W.parsePin(text, hashKeys, ranges, "gemm");
  assert.deepStrictEqual([back.model, back.knobs, back.messages], ["gemm", { stages: 6, schedule: "cooperative" }, []]);
  const bad = W.parsePin("model:gemm,stages:abc,t0:4,kv-blocks:3,stages:999", hashKeys, ranges, "gemm");
  assert.strictEqual(bad.knobs.stages, ranges("stages", "gemm").max, "clamped");
  assert.strictEqual(bad.messages.length, 4, bad.messages.join("\n"));
  assert.ok(bad.messages.every((m) => m.startsWith("URL hash pin:")));
  // The page's hash carries it: parseHash hands pin= over, formatHash writes it last.
  const h = W.parseHash("#stages=4&pin=" + text, hashKeys, ranges, "gemm");
  assert.deepStrictEqual([h.pin, h.messages], [text, []]);
  assert.match(W.formatHash({ knobs: { model: "gemm" }, pinText: text }, hashKeys), /&pin=model:gemm,stages:6,schedule:cooperative$/);
});

test("verdictDelta: total and bubbles per lane and reason, lanes of either side", () => {
  const a = K.simulate(EX("sm90_gemm_pingpong.json"), { stages: 4 }).verdict;
  const b = K.simulate(EX("sm90_gemm_pingpong.json"), { stages: 2 }).verdict;
  const d = W.verdictDelta(a, b, ["order", "epilogue-order", "tma", "tensor-core"]);
  assert.deepStrictEqual(d.total, [a.total, b.total]);
  for (const ln of d.lanes) {
    assert.strictEqual(ln.pinned, a.waits[ln.lane].total);
    assert.strictEqual(ln.live, b.waits[ln.lane].total);
    for (const [reason, p, l] of ln.reasons) assert.deepStrictEqual([p, l], [a.waits[ln.lane][reason], b.waits[ln.lane][reason]]);
  }
  const one = W.verdictDelta({ total: 5, waits: { x: { total: 2, tma: 2 } } }, { total: 3, waits: { y: { total: 1, q: 1 } } }, []);
  assert.deepStrictEqual(one.lanes.map((l) => [l.lane, l.pinned, l.live]), [["x", 2, 0], ["y", 0, 1]]);
});

test("sourceHref: file:// and vscode:// links, escaped; nothing for none or no path", () => {
  assert.strictEqual(W.sourceHref("file", "/a b/c#d.hpp", 7), "file:///a%20b/c%23d.hpp");
  assert.strictEqual(W.sourceHref("vscode", "/x/y.hpp", 12), "vscode://file/x/y.hpp:12");
  assert.strictEqual(W.sourceHref("vscode", "C:\\src\\k.h", 3), "vscode://file/C:/src/k.h:3");
  assert.strictEqual(W.sourceHref("none", "/x", 1), null);
  assert.strictEqual(W.sourceHref("file", "", 1), null);
  assert.strictEqual(W.sourceHref("javascript", "/x", 1), null);
});
