// Pure parts of the waveform page's navigation at scale (assets/waveform.js, issue 23 part 5):
// lane groups (groupRows) on every model's lanes, the groups= hash key, the overview strip's
// per-column summary (against a brute force over block objects), and the reason a null
// "min stages to hide TMA" gives (schedule.js's result.notes, outside the golden-digested verdict).
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const W = require(path.join(__dirname, "..", "..", "assets", "waveform.js"));
const K = require(path.join(__dirname, "..", "..", "schedule.js"));
const EX = (name) => require(path.join(__dirname, "..", "..", "examples", name));

/** The page's sub-lane rule: a lane of a group the view lists in subLaneGroups. */
const subOf = (r) => (lane) => !!(r.view && r.view.subLaneGroups && r.view.subLaneGroups.indexOf(lane.group) >= 0);

test("groupRows: consecutive lanes of one group fold; sub-lanes stay with their lane; a peer CTA is one group", () => {
  const gemm = K.simulate(EX("sm90_gemm_pingpong.json"), { stages: 4 });
  const open = W.groupRows(gemm.lanes, subOf(gemm), new Set());
  assert.deepStrictEqual(open.rows.map((r) => r.lane.id), gemm.lanes.map((l) => l.id), "nothing folded: the lanes as they are");
  assert.deepStrictEqual(open.keys, ["stage", "consumer"], "one-lane groups (the producer) have nothing to fold");
  assert.deepStrictEqual(open.rows.map((r) => r.head), [null, "stage", null, null, null, "consumer", null]);
  const folded = W.groupRows(gemm.lanes, subOf(gemm), ["stage"]);
  assert.deepStrictEqual(folded.rows.map((r) => r.lane.id), ["producer", "group:stage", "consumer0", "consumer1"]);
  const row = folded.rows[1];
  assert.deepStrictEqual(row.members.map((l) => l.id), ["stage0", "stage1", "stage2", "stage3"]);
  assert.strictEqual(row.lane.label, "stages (4 lanes)");
  assert.ok(row.collapsed && row.lane.groupRow);

  // Attention: each WG's softmax sub-row belongs to the consumer group, so folding it folds both.
  const fa3 = K.simulate(EX("fa3_fwd.json"), {});
  const fa = W.groupRows(fa3.lanes, subOf(fa3), ["consumer"]);
  const cons = fa.rows.find((r) => r.lane.id === "group:consumer");
  assert.ok(cons, fa.rows.map((r) => r.lane.id).join(" "));
  assert.ok(cons.members.some((l) => l.id === "consumer0_softmax"));
  assert.strictEqual(cons.lane.label, "consumer WGs (" + cons.members.filter((l) => !subOf(fa3)(l)).length + " lanes)");

  // Blackwell's 2-SM pair: every lane of CTA 1 is one group, folded in one row.
  const bw = K.simulate(EX("sm100_gemm.json"), { ctaPair: true });
  const peer = bw.lanes.filter((l) => l.cta === 1).map((l) => l.id);
  assert.ok(peer.length >= 3);
  const b = W.groupRows(bw.lanes, subOf(bw), ["cta1"]);
  const prow = b.rows.find((r) => r.lane.id === "group:cta1");
  assert.deepStrictEqual(prow.members.map((l) => l.id), peer);
  assert.ok(prow.lane.label.startsWith("peer CTA 1"));
  assert.ok(W.groupRows(bw.lanes, subOf(bw), []).keys.includes("acc") || bw.knobs.accStages < 2);
  // Every row of every fold is exactly the shown lanes once, in order.
  for (const key of b.keys) {
    const rows = W.groupRows(bw.lanes, subOf(bw), [key]).rows;
    const flat = [].concat(...rows.map((r) => (r.members ? r.members : [r.lane]).map((l) => l.id)));
    assert.deepStrictEqual(flat, bw.lanes.map((l) => l.id), key);
  }
});

test("groups= in the URL hash: parsed sorted and deduplicated, bad names refused, written sorted", () => {
  const hashKeys = [["model", "model"], ["stages", "stages"]];
  const ranges = (name) => (name === "model" ? { options: ["gemm"] } : { min: 1, max: 16 });
  const p = W.parseHash("#stages=4&groups=stage,consumer,stage", hashKeys, ranges, "gemm");
  assert.deepStrictEqual([p.groups, p.messages], [["consumer", "stage"], []]);
  assert.strictEqual(W.parseHash("#stages=4", hashKeys, ranges, "gemm").groups, null, "no key: null (the page unfolds all)");
  assert.deepStrictEqual(W.parseHash("#groups=", hashKeys, ranges, "gemm").groups, []);
  const bad = W.parseHash("#groups=stage,%3Cx%3E", hashKeys, ranges, "gemm");
  assert.deepStrictEqual(bad.groups, ["stage"]);
  assert.strictEqual(bad.messages.length, 1);
  assert.match(bad.messages[0], /lane group <x>/);
  const h = W.formatHash({ knobs: { model: "gemm", stages: 4 }, collapsedGroups: new Set(["stage", "cta1"]) }, hashKeys);
  assert.strictEqual(h, "model=gemm&stages=4&groups=cta1,stage");
  assert.deepStrictEqual(W.parseHash("#" + h, hashKeys, ranges, "gemm").groups, ["cta1", "stage"], "round trip");
  assert.strictEqual(W.formatHash({ knobs: { model: "gemm" }, collapsedGroups: new Set() }, hashKeys), "model=gemm");
});

/**
 * overviewSummary by brute force over block objects: the tensor core's busy unit steps as a set
 * (every block starts and ends on whole steps), waits summed per block, then each column's overlap.
 */
function bruteOverview(r, bins) {
  const per = r.total / bins, busy = new Array(bins).fill(0), wait = new Array(bins).fill(0);
  const waitLanes = new Set(r.blocks.filter((b) => b.kind === "wait").map((b) => b.lane)).size;
  const tensorAt = new Set();
  const overlap = (into, s, e) => {
    for (let i = 0; i < bins; i++) {
      const o = Math.min(e, (i + 1) * per) - Math.max(s, i * per);
      if (o > 0) into[i] += o;
    }
  };
  for (const b of r.blocks) {
    if (W.TENSOR_CORE_KINDS.includes(b.kind)) for (let t = b.start; t < b.end; t++) tensorAt.add(t);
    else if (b.kind === "wait") overlap(wait, b.start, b.end);
  }
  for (const t of tensorAt) overlap(busy, t, t + 1);
  return { busy: busy.map((x) => Math.min(1, x / per)), wait: wait.map((x) => (waitLanes ? Math.min(1, x / (per * waitLanes)) : 0)) };
}

test("overviewSummary matches a brute force on every example, at several widths", () => {
  for (const [file, knobs] of [["sm90_gemm_pingpong.json", {}], ["sm90_gemm_cooperative.json", { outputTiles: 6 }],
                               ["fa3_fwd.json", {}], ["sm100_gemm.json", { ctaPair: true }]]) {
    const r = K.simulate(EX(file), knobs);
    for (const bins of [1, 7, 64, 1000]) {
      const got = W.overviewSummary(r.columns, r.total, bins, W.TENSOR_CORE_KINDS);
      const want = bruteOverview(r, bins);
      assert.strictEqual(got.bins, bins);
      for (let i = 0; i < bins; i++) {
        assert.ok(Math.abs(got.busy[i] - want.busy[i]) < 1e-4, `${file} busy ${bins}/${i}: ${got.busy[i]} vs ${want.busy[i]}`);
        assert.ok(Math.abs(got.wait[i] - want.wait[i]) < 1e-4, `${file} wait ${bins}/${i}`);
      }
    }
    // One column: the whole run's tensor-core share, which is the verdict's utilization.
    const one = W.overviewSummary(r.columns, r.total, 1, W.TENSOR_CORE_KINDS);
    assert.ok(Math.abs(one.busy[0] - r.verdict.tensorCoreBusySteps / r.total) < 1e-4, file);
  }
});

test("a null min-stages figure says why (result.notes), and the verdict itself is unchanged", () => {
  const st = EX("sm90_gemm_pingpong.json");
  const cases = [[{}, null], [{ stages: 1 }, /deadlocks/], [{ outputTiles: 128, kTiles: 100 }, /not searched above 10000 k-tiles/],
                 [{ tmaLatency: 10000, kTiles: 100, outputTiles: 2 }, /exposed even with 64 stages/]];
  for (const [knobs, why] of cases) {
    const r = K.simulate(st, knobs);
    if (why === null) {
      assert.strictEqual(typeof r.verdict.minStagesToHideTma, "number");
      assert.strictEqual(r.notes.minStagesToHideTma, undefined);
    } else {
      assert.strictEqual(r.verdict.minStagesToHideTma, null, JSON.stringify(knobs));
      assert.match(r.notes.minStagesToHideTma, why);
    }
    assert.ok(!("notes" in r.verdict), "the reason is outside the verdict (golden digests)");
  }
  // The Worker's packing keeps it (the page reads result.notes of a background run too).
  const r = K.simulate(st, { outputTiles: 128, kTiles: 100 });
  assert.match(W.unpackResult(W.packResult(r), K).notes.minStagesToHideTma, /not searched/);
});
