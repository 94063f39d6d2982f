// Tests of schedule.js (the logical-schedule simulator): node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { mulberry32, randInt } = require("./prng.js");
const vm = require("node:vm");

const SCHEDULE_PATH = path.join(__dirname, "..", "..", "schedule.js");
const KS = require(SCHEDULE_PATH);

/** Knobs for hand-worked cases: everything explicit so default changes cannot move them. */
function knobs(overrides) {
  return Object.assign({
    stages: 4, outputTiles: 4, kTiles: 5, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3,
    consumerWGs: 2, schedule: "pingpong", releaseLag: 0
  }, overrides);
}

/** The documented tie-break order of wait reasons (spelled out, so the test does not follow the code). */
const WAIT_PRIORITY = ["order", "epilogue-order", "epilogue", "tma"];

/** The fields of a block that a hand-worked expectation spells out. */
function row(b) {
  return [b.lane, b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason, b.after];
}

// ------------------------------------------------------------------------------------------------
// Hand-worked cases: every block written out.

test("hand case: S=2 O=1 K=3 L=2 W=1 E=0 C=1", () => {
  const r = KS.simulate(null, knobs({ stages: 2, outputTiles: 1, kTiles: 3, tmaLatency: 2, wgmmaLatency: 1,
    epilogueLatency: 0, consumerWGs: 1 }));
  assert.equal(r.error, null);
  assert.deepEqual(r.lanes.map((l) => l.id), ["producer", "stage0", "stage1", "consumer0"]);
  assert.deepEqual(r.blocks.map(row), [
    // g=0 issued at 0; g=1 at 1; g=2 reuses stage 0, so waits for its release at 4 (WGMMA 0 end).
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 1, 2, 0, 1, 1, null, [0]],
    ["producer", "issue", 4, 5, 0, 2, 0, null, [7]],
    ["stage0", "filling", 1, 3, 0, 0, 0, null, [0]],
    ["stage0", "filling", 5, 7, 0, 2, 0, null, [2]],
    ["stage1", "filling", 2, 4, 0, 1, 1, null, [1]],
    // No FULL blocks: every fill ends exactly when its WGMMA can start.
    ["consumer0", "wait", 0, 3, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 3, 4, 0, 0, 0, null, [3]],
    ["consumer0", "wgmma", 4, 5, 0, 1, 1, null, [5, 7]],
    ["consumer0", "wait", 5, 7, 0, 2, 0, "tma", [8]],
    ["consumer0", "wgmma", 7, 8, 0, 2, 0, null, [4]]
  ]);
  assert.equal(r.total, 8);
  assert.deepEqual(r.verdict.waits, { consumer0: { tma: 5, order: 0, "epilogue-order": 0, epilogue: 0, total: 5 } });
  assert.equal(r.verdict.tensorCoreUtilization, 3 / 8);
  assert.deepEqual(r.laneBlocks, { producer: [0, 1, 2], stage0: [3, 4], stage1: [5], consumer0: [6, 7, 8, 9, 10] });
});

test("hand case: pingpong S=2 O=2 K=2 L=1 W=2 E=3", () => {
  const r = KS.simulate(null, knobs({ stages: 2, outputTiles: 2, kTiles: 2, tmaLatency: 1, wgmmaLatency: 2,
    epilogueLatency: 3, consumerWGs: 2, schedule: "pingpong" }));
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 1, 2, 0, 1, 1, null, [0]],
    ["producer", "issue", 4, 5, 1, 0, 0, null, [10]],
    ["producer", "issue", 6, 7, 1, 1, 1, null, [11]],
    ["stage0", "filling", 1, 2, 0, 0, 0, null, [0]],
    ["stage0", "filling", 5, 6, 1, 0, 0, null, [2]],
    ["stage1", "filling", 2, 3, 0, 1, 1, null, [1]],
    ["stage1", "full", 3, 4, 0, 1, 1, null, [6]],
    ["stage1", "filling", 7, 8, 1, 1, 1, null, [3]],
    ["consumer0", "wait", 0, 2, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 2, 4, 0, 0, 0, null, [4]],
    ["consumer0", "wgmma", 4, 6, 0, 1, 1, null, [10]],
    ["consumer0", "epilogue", 6, 9, 0, null, null, null, [11]],
    // Tile 1 goes to WG1; its fill and the math order barrier both end at 6: order wins the tie.
    ["consumer1", "wait", 0, 6, 1, 0, 0, "order", []],
    ["consumer1", "wgmma", 6, 8, 1, 0, 0, null, [5, 11]],
    ["consumer1", "wgmma", 8, 10, 1, 1, 1, null, [8, 14]],
    ["consumer1", "epilogue", 10, 13, 1, null, null, null, [15]]
  ]);
  assert.equal(r.total, 13);
  assert.equal(r.verdict.waits.consumer1.order, 6);
  assert.equal(r.verdict.tensorCoreBusySteps, 8);
});

test("hand case: cooperative S=2 O=2 K=2 L=1 W=2 E=3 (identical WG lanes)", () => {
  const r = KS.simulate(null, knobs({ stages: 2, outputTiles: 2, kTiles: 2, tmaLatency: 1, wgmmaLatency: 2,
    epilogueLatency: 3, consumerWGs: 2, schedule: "cooperative" }));
  const consumer0 = r.blocks.filter((b) => b.lane === "consumer0").map((b) => row(b).slice(1, 8));
  assert.deepEqual(consumer0, [
    ["wait", 0, 2, 0, 0, 0, "tma"],
    ["wgmma", 2, 4, 0, 0, 0, null],
    ["wgmma", 4, 6, 0, 1, 1, null],
    ["epilogue", 6, 9, 0, null, null, null],
    // Tile 1 waits for the WGs' own epilogue, which is the previous lane block: no wait block.
    ["wgmma", 9, 11, 1, 0, 0, null],
    ["wgmma", 11, 13, 1, 1, 1, null],
    ["epilogue", 13, 16, 1, null, null, null]
  ]);
  const consumer1 = r.blocks.filter((b) => b.lane === "consumer1").map((b) => row(b).slice(1, 8));
  assert.deepEqual(consumer1, consumer0);
  const stages = r.blocks.filter((b) => b.lane.startsWith("stage")).map((b) => row(b).slice(0, 4));
  assert.deepEqual(stages, [
    ["stage0", "filling", 1, 2], ["stage0", "filling", 5, 6], ["stage0", "full", 6, 9],
    ["stage1", "filling", 2, 3], ["stage1", "full", 3, 4], ["stage1", "filling", 7, 8], ["stage1", "full", 8, 11]
  ]);
  assert.equal(r.total, 16);
});

test("hand case: pingpong with E > K*W, the order barrier alternates epilogues", () => {
  const r = KS.simulate(null, knobs({ stages: 4, outputTiles: 3, kTiles: 1, tmaLatency: 0, wgmmaLatency: 1,
    epilogueLatency: 4, consumerWGs: 2, schedule: "pingpong" }));
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 1, 2, 1, 0, 1, null, [0]],
    ["producer", "issue", 2, 3, 2, 0, 2, null, [1]],
    ["stage2", "full", 3, 6, 2, 0, 2, null, [2]],
    ["consumer0", "wait", 0, 1, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 1, 2, 0, 0, 0, null, [0]],
    ["consumer0", "epilogue", 2, 6, 0, null, null, null, [5]],
    ["consumer0", "wgmma", 6, 7, 2, 0, 2, null, [6]],
    ["consumer0", "wait", 7, 10, 2, null, null, "epilogue-order", [7]],
    ["consumer0", "epilogue", 10, 14, 2, null, null, null, [13]],
    ["consumer1", "wait", 0, 2, 1, 0, 1, "order", []],
    ["consumer1", "wgmma", 2, 3, 1, 0, 1, null, [1, 5]],
    ["consumer1", "wait", 3, 6, 1, null, null, "epilogue-order", [11]],
    ["consumer1", "epilogue", 6, 10, 1, null, null, null, [6]]
  ]);
  assert.equal(r.total, 14);
});

test("L = 0: no filling blocks, FULL and WGMMA depend on the issue", () => {
  const r = KS.simulate(null, knobs({ stages: 1, outputTiles: 1, kTiles: 2, tmaLatency: 0, wgmmaLatency: 3,
    epilogueLatency: 0, consumerWGs: 1 }));
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 4, 5, 0, 1, 0, null, [3]],
    ["consumer0", "wait", 0, 1, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 1, 4, 0, 0, 0, null, [0]],
    ["consumer0", "wait", 4, 5, 0, 1, 0, "tma", [3]],
    ["consumer0", "wgmma", 5, 8, 0, 1, 0, null, [1]]
  ]);
});

// ------------------------------------------------------------------------------------------------
// Closed forms.

test("defaults: pingpong 48 < cooperative 57", () => {
  const ping = KS.simulate(null, {});
  const coop = KS.simulate(null, { schedule: "cooperative" });
  assert.deepEqual(ping.knobs, KS.DEFAULT_KNOBS);
  assert.equal(ping.total, 1 + 4 + 4 * 5 * 2 + 3);
  assert.equal(coop.total, 1 + 4 + 4 * (5 * 2 + 3));
  assert.ok(ping.total < coop.total);
  assert.deepEqual(ping.messages, []);
});

test("closed forms with ample stages and E <= K*W", () => {
  const sets = [
    { outputTiles: 1, kTiles: 1, tmaLatency: 0, wgmmaLatency: 1, epilogueLatency: 0 },
    { outputTiles: 4, kTiles: 5, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3 },
    { outputTiles: 7, kTiles: 3, tmaLatency: 10, wgmmaLatency: 3, epilogueLatency: 9 },
    { outputTiles: 8, kTiles: 16, tmaLatency: 30, wgmmaLatency: 4, epilogueLatency: 20 },
    { outputTiles: 5, kTiles: 2, tmaLatency: 1, wgmmaLatency: 1, epilogueLatency: 2 },
    { outputTiles: 3, kTiles: 9, tmaLatency: 50, wgmmaLatency: 7, epilogueLatency: 0 }
  ];
  for (const set of sets) {
    const { outputTiles: O, kTiles: K, tmaLatency: L, wgmmaLatency: W, epilogueLatency: E } = set;
    assert.ok(E <= K * W);
    const ample = Math.min(64, 2 + L + W);
    const base = Object.assign({ stages: ample, releaseLag: 0 }, set);
    const ping = KS.simulate(null, Object.assign({ consumerWGs: 2, schedule: "pingpong" }, base));
    const coop = KS.simulate(null, Object.assign({ consumerWGs: 2, schedule: "cooperative" }, base));
    const one = KS.simulate(null, Object.assign({ consumerWGs: 1, schedule: "pingpong" }, base));
    assert.equal(ping.total, 1 + L + O * K * W + E, "pingpong " + JSON.stringify(set));
    assert.equal(coop.total, 1 + L + O * (K * W + E), "cooperative " + JSON.stringify(set));
    assert.equal(one.total, 1 + L + O * (K * W + E), "one WG " + JSON.stringify(set));
    // Ample stages hide the TMA latency: only the initial fill is exposed.
    for (const r of [ping, coop, one]) {
      assert.ok(!r.blocks.some((b) => b.reason === "tma" && b.start > 0), JSON.stringify(set));
      assert.ok(r.verdict.minStagesToHideTma !== null && r.verdict.minStagesToHideTma <= ample);
    }
  }
});

test("steady state with one consumer WG and E = 0: max(W, 1, (1 + L + W) / S) per k-tile", () => {
  const sets = [
    { stages: 2, tmaLatency: 2, wgmmaLatency: 1 },
    { stages: 3, tmaLatency: 4, wgmmaLatency: 2 },
    { stages: 4, tmaLatency: 4, wgmmaLatency: 2 },
    { stages: 5, tmaLatency: 20, wgmmaLatency: 3 },
    { stages: 7, tmaLatency: 9, wgmmaLatency: 1 },
    { stages: 1, tmaLatency: 0, wgmmaLatency: 1 },
    { stages: 8, tmaLatency: 0, wgmmaLatency: 5 }
  ];
  for (const set of sets) {
    const r = KS.simulate(null, Object.assign({ outputTiles: 1, kTiles: 3000, epilogueLatency: 0, consumerWGs: 1 }, set));
    const mmas = r.blocks.filter((b) => b.kind === "wgmma");
    const perTile = (mmas[mmas.length - 1].start - mmas[0].start) / (mmas.length - 1);
    const { stages: S, tmaLatency: L, wgmmaLatency: W } = set;
    const expected = Math.max(W, 1, (1 + L + W) / S);
    assert.ok(Math.abs(perTile - expected) <= 0.01 * expected, `${JSON.stringify(set)}: ${perTile} vs ${expected}`);
  }
});

test("minStagesToHideTma is the smallest S without a tma wait after step 0", () => {
  const base = { outputTiles: 3, kTiles: 6, tmaLatency: 9, wgmmaLatency: 2, epilogueLatency: 1, consumerWGs: 1 };
  const r = KS.simulate(null, base);
  const best = r.verdict.minStagesToHideTma;
  assert.equal(best, 6); // steady state needs S >= (1 + L + W) / W = 6
  const lateTma = (S) => KS.simulate(null, Object.assign({}, base, { stages: S })).blocks
    .some((b) => b.kind === "wait" && b.reason === "tma" && b.start > 0);
  assert.equal(lateTma(best), false);
  for (let S = 1; S < best; S++) assert.equal(lateTma(S), true, "S=" + S);
  const hopeless = KS.simulate(null, { tmaLatency: 10000, wgmmaLatency: 1, consumerWGs: 1, outputTiles: 1, kTiles: 200 });
  assert.equal(hopeless.verdict.minStagesToHideTma, null);
  assert.match(hopeless.verdict.summary, /not hidden/);
});

// ------------------------------------------------------------------------------------------------
// Randomized invariants.

/** Check every structural invariant of one simulate() result; msg tags failures. */
function checkInvariants(r, kn, msg) {
  const { stages: S, outputTiles: O, kTiles: K, tmaLatency: L, wgmmaLatency: W, epilogueLatency: E } = kn;
  const C = kn.consumerWGs, lag = kn.releaseLag;
  const pingpong = C === 2 && kn.schedule === "pingpong";
  const coop = C === 2 && kn.schedule === "cooperative";
  const N = O * K;
  const blocks = r.blocks;
  assert.equal(r.error, null, msg);
  const laneIds = r.lanes.map((l) => l.id);
  const expectedLanes = ["producer"];
  for (let s = 0; s < S; s++) expectedLanes.push("stage" + s);
  for (let c = 0; c < C; c++) expectedLanes.push("consumer" + c);
  assert.deepEqual(laneIds, expectedLanes, msg);
  assert.ok(blocks.length <= KS.estimateBlockCount(kn), msg + " estimate is an upper bound");

  // Ids, kinds, integer extents, per-lane order, laneBlocks.
  let lastLane = -1;
  blocks.forEach((b, i) => {
    assert.equal(b.id, i, msg);
    assert.ok(KS.BLOCK_KINDS.includes(b.kind), msg);
    assert.ok(Number.isInteger(b.start) && Number.isInteger(b.end) && b.start >= 0 && b.start < b.end, msg);
    const li = laneIds.indexOf(b.lane);
    assert.ok(li >= lastLane, msg + " blocks sorted by lane");
    lastLane = li;
    assert.equal(b.reason === null, b.kind !== "wait", msg);
    if (b.kind === "wait") assert.ok(KS.WAIT_REASONS.includes(b.reason), msg);
  });
  for (const lane of laneIds) {
    const ids = r.laneBlocks[lane];
    assert.deepEqual(ids, blocks.filter((b) => b.lane === lane).map((b) => b.id), msg);
    for (let i = 1; i < ids.length; i++) {
      assert.ok(blocks[ids[i]].start >= blocks[ids[i - 1]].end, msg + " no overlap on " + lane);
    }
  }
  assert.equal(r.total, Math.max(0, ...blocks.map((b) => b.end)), msg);

  // Dependencies: ids exist, end before start, and something binds every issue/wgmma/epilogue.
  for (const b of blocks) {
    for (const a of b.after) {
      assert.ok(Number.isInteger(a) && a >= 0 && a < blocks.length, msg);
      assert.ok(blocks[a].end <= b.start, msg + " after ends before start");
    }
    if (b.start > 0 && b.kind !== "wait") {
      assert.ok(b.after.some((a) => blocks[a].end === b.start), msg + " binding dependency of " + JSON.stringify(b));
    }
  }

  // Per k-tile bookkeeping: one issue each, WGMMAs on the right WG(s).
  const g = (b) => b.tile * K + b.k;
  const issues = blocks.filter((b) => b.kind === "issue");
  assert.equal(issues.length, N, msg);
  issues.forEach((b, i) => assert.equal(g(b), i, msg));
  const fillEnd = issues.map((b) => b.end + L);
  const mmaByLane = {};
  for (const b of blocks.filter((x) => x.kind === "wgmma")) {
    (mmaByLane[b.lane] = mmaByLane[b.lane] || []).push(b);
    assert.ok(b.start >= fillEnd[g(b)], msg + " WGMMA starts after its fill");
    assert.equal(b.end - b.start, W, msg);
    assert.equal(b.stage, g(b) % S, msg);
    const wg = coop ? null : pingpong ? b.tile % 2 : 0;
    if (wg !== null) assert.equal(b.lane, "consumer" + wg, msg);
  }
  const firstMma = new Array(N); // WGMMA of each k-tile on its first WG
  for (const b of mmaByLane.consumer0 || []) firstMma[g(b)] = b;
  for (const b of mmaByLane.consumer1 || []) if (!firstMma[g(b)]) firstMma[g(b)] = b;
  assert.ok(firstMma.every(Boolean) && firstMma.length === N, msg);

  // A stage is refilled only at or after its release (WGMMA k + lag of the same tile, clamped).
  for (let x = S; x < N; x++) {
    const prev = x - S;
    const o = Math.floor(prev / K), k = prev % K;
    const releaser = firstMma[o * K + Math.min(k + lag, K - 1)];
    assert.ok(issues[x].start >= releaser.end, msg + " refill after release");
    if (lag === 0) assert.ok(issues[x].start >= firstMma[prev].end, msg);
  }

  // A stage never holds two tiles: its filling/full blocks belong to g = s mod S, in order.
  for (let s = 0; s < S; s++) {
    const own = blocks.filter((b) => b.lane === "stage" + s);
    let lastG = -1;
    for (const b of own) {
      assert.ok(b.kind === "filling" || b.kind === "full", msg);
      assert.equal(g(b) % S, s, msg);
      assert.ok(g(b) >= lastG, msg);
      if (b.kind === "filling") {
        assert.ok(g(b) > lastG, msg);
        assert.equal(b.start, issues[g(b)].end, msg);
        assert.equal(b.end, fillEnd[g(b)], msg);
      } else {
        assert.equal(b.start, fillEnd[g(b)], msg);
        assert.equal(b.end, firstMma[g(b)].start, msg);
      }
      lastG = g(b);
    }
  }

  // Consumer lanes: from 0 to the last block, gaps are all covered by wait blocks.
  for (let c = 0; c < C; c++) {
    const own = blocks.filter((b) => b.lane === "consumer" + c);
    let t = 0;
    for (const b of own) {
      assert.equal(b.start, t, msg + " consumer lane is gap-free");
      t = b.end;
    }
    for (let i = 1; i < own.length; i++) assert.ok(!(own[i].kind === "wait" && own[i - 1].kind === "wait"), msg);
    const epis = own.filter((b) => b.kind === "epilogue");
    for (const b of epis) assert.equal(b.end - b.start, E, msg);
    if (E === 0) assert.equal(epis.length, 0, msg);
  }

  // The model's equations, re-derived from the blocks: every issue/WGMMA/epilogue start is the
  // max of its constraints, and a wait's reason is the highest-priority constraint that bound.
  for (let x = 0; x < N; x++) {
    const prev = x - S;
    const freed = prev >= 0 ? firstMma[Math.floor(prev / K) * K + Math.min(prev % K + lag, K - 1)].end : 0;
    assert.equal(issues[x].start, Math.max(x > 0 ? issues[x - 1].end : 0, freed), msg + " issue equation");
  }
  for (let c = 0; c < C; c++) {
    const own = blocks.filter((b) => b.lane === "consumer" + c);
    let prevMmaEnd = 0, ownEpiEnd = 0;
    own.forEach((b, i) => {
      const cands = []; // [time, reason]
      if (b.kind === "wgmma") {
        cands.push([fillEnd[g(b)], "tma"]);
        if (b.k > 0) cands.push([prevMmaEnd, null]);
        else cands.push([ownEpiEnd, "epilogue"]);
        if (pingpong && b.k === 0 && b.tile > 0) cands.push([firstMma[b.tile * K - 1].end, "order"]);
        prevMmaEnd = b.end;
        if (b.k === K - 1 && E === 0) ownEpiEnd = b.end;
      } else if (b.kind === "epilogue") {
        cands.push([prevMmaEnd, null]);
        if (pingpong && b.tile > 0) {
          const before = blocks.find((x) => x.kind === "epilogue" && x.tile === b.tile - 1);
          cands.push([before.end, "epilogue-order"]);
        }
        ownEpiEnd = b.end;
      } else {
        return;
      }
      const start = Math.max(...cands.map((cand) => cand[0]));
      assert.equal(b.start, start, msg + " equation of " + JSON.stringify(b));
      if (i > 0 && own[i - 1].kind === "wait") {
        const bound = cands.filter((cand) => cand[0] === start).map((cand) => cand[1]);
        const expected = WAIT_PRIORITY.find((reason) => bound.includes(reason));
        assert.equal(own[i - 1].reason, expected, msg + " reason before " + JSON.stringify(b));
      }
    });
  }

  // Pingpong WGMMAs never overlap; cooperative lanes are identical.
  if (pingpong && mmaByLane.consumer1) {
    for (const a of mmaByLane.consumer0) {
      for (const b of mmaByLane.consumer1) assert.ok(a.end <= b.start || b.end <= a.start, msg + " pingpong overlap");
    }
  }
  if (coop) {
    const strip = (b) => [b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason, b.lines];
    assert.deepEqual(blocks.filter((b) => b.lane === "consumer1").map(strip),
      blocks.filter((b) => b.lane === "consumer0").map(strip), msg);
  }

  // Verdict: wait totals and tensor-core utilization recomputed from the blocks.
  for (let c = 0; c < C; c++) {
    const lane = "consumer" + c;
    const expected = { tma: 0, order: 0, "epilogue-order": 0, epilogue: 0, total: 0 };
    for (const b of blocks) {
      if (b.lane === lane && b.kind === "wait") {
        expected[b.reason] += b.end - b.start;
        expected.total += b.end - b.start;
      }
    }
    assert.deepEqual(r.verdict.waits[lane], expected, msg);
  }
  assert.equal(Object.keys(r.verdict.waits).length, C, msg);
  const busy = new Set();
  for (const b of blocks) if (b.kind === "wgmma") for (let t = b.start; t < b.end; t++) busy.add(t);
  assert.equal(r.verdict.tensorCoreBusySteps, busy.size, msg);
  assert.equal(r.verdict.tensorCoreUtilization, busy.size / r.total, msg);
  assert.equal(r.verdict.total, r.total, msg);
  assert.equal(typeof r.verdict.summary, "string", msg);
}

test("randomized invariants (seeded)", () => {
  const rand = mulberry32(20240611);
  const RUNS = 400;
  for (let run = 0; run < RUNS; run++) {
    const S = randInt(rand, 1, 6);
    const kn = {
      stages: S,
      outputTiles: randInt(rand, 1, 6),
      kTiles: randInt(rand, 1, 6),
      tmaLatency: randInt(rand, 0, 8),
      wgmmaLatency: randInt(rand, 1, 4),
      epilogueLatency: randInt(rand, 0, 12),
      consumerWGs: randInt(rand, 1, 2),
      schedule: rand() < 0.5 ? "pingpong" : "cooperative",
      releaseLag: rand() < 0.75 ? 0 : randInt(rand, 0, S - 1),
      model: "gemm"
    };
    const r = KS.simulate(null, kn);
    assert.deepEqual(r.messages, [], JSON.stringify(kn));
    assert.deepEqual(r.knobs, kn);
    checkInvariants(r, kn, "run " + run + " " + JSON.stringify(kn));
    if (run % 20 === 0) {
      // minStagesToHideTma: that S has no late tma wait; every smaller allowed S has one.
      const best = r.verdict.minStagesToHideTma;
      const late = (s) => KS.simulate(null, Object.assign({}, kn, { stages: s })).blocks
        .some((b) => b.reason === "tma" && b.start > 0);
      if (best !== null) assert.equal(late(best), false);
      for (let s = Math.max(1, kn.releaseLag + 1); s < (best === null ? 10 : best); s++) assert.equal(late(s), true);
    }
  }
});

test("determinism: two calls deep-equal", () => {
  const structure = exampleStructure();
  for (const sched of ["pingpong", "cooperative"]) {
    const a = KS.simulate(structure, { schedule: sched, outputTiles: 9, kTiles: 7, stages: 3 });
    const b = KS.simulate(structure, { schedule: sched, outputTiles: 9, kTiles: 7, stages: 3 });
    assert.deepEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  }
});

// ------------------------------------------------------------------------------------------------
// Knob validation and the block cap.

test("knob validation clamps, rounds and reports", () => {
  const { knobs: k, messages } = KS.normalizeKnobs({
    stages: NaN, outputTiles: "abc", kTiles: -5, tmaLatency: 1e12, wgmmaLatency: 0.4,
    epilogueLatency: Infinity, consumerWGs: "2", schedule: "Cooperative ", releaseLag: 2.6
  });
  assert.equal(k.stages, KS.DEFAULT_KNOBS.stages);
  assert.equal(k.outputTiles, KS.DEFAULT_KNOBS.outputTiles);
  assert.equal(k.kTiles, 1);
  assert.equal(k.tmaLatency, 10000);
  assert.equal(k.wgmmaLatency, 1);
  assert.equal(k.epilogueLatency, 10000);
  assert.equal(k.consumerWGs, 2);
  assert.equal(k.schedule, "cooperative");
  assert.equal(k.releaseLag, 3);
  const text = messages.join("\n");
  for (const name of ["stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "releaseLag"]) {
    assert.match(text, new RegExp("^" + name + ": ", "m"));
  }
  assert.doesNotMatch(text, /consumerWGs|schedule/);
  assert.deepEqual(KS.normalizeKnobs({ stages: -0.4 }).knobs.stages, 1);
  assert.ok(Object.is(KS.normalizeKnobs({ tmaLatency: -0.4 }).knobs.tmaLatency, 0));
});

test("knob validation: bad schedule, unknown knobs, lag >= stages, non-object knobs", () => {
  let n = KS.normalizeKnobs({ schedule: "zigzag", foo: 1 });
  assert.equal(n.knobs.schedule, "pingpong");
  assert.equal(n.messages.length, 2);
  n = KS.normalizeKnobs({ stages: 2, releaseLag: 5 });
  assert.equal(n.knobs.releaseLag, 1);
  assert.match(n.messages.join(), /releaseLag/);
  n = KS.normalizeKnobs("nope");
  assert.deepEqual(n.knobs, KS.DEFAULT_KNOBS);
  assert.equal(n.messages.length, 1);
  assert.deepEqual(KS.normalizeKnobs(null), { knobs: KS.DEFAULT_KNOBS, messages: [] });
  const r = KS.simulate(null, { stages: "many" });
  assert.equal(r.error, null);
  assert.equal(r.knobs.stages, 4);
  assert.equal(r.messages.length, 1);
});

test("every range has min <= default <= max", () => {
  for (const [name, range] of Object.entries(KS.KNOB_RANGES)) {
    assert.ok(range.min <= KS.DEFAULT_KNOBS[name] && KS.DEFAULT_KNOBS[name] <= range.max, name);
    assert.equal(typeof range.label, "string");
  }
  assert.ok(KS.KNOB_CHOICES.schedule.includes(KS.DEFAULT_KNOBS.schedule));
  assert.ok(KS.MAX_BLOCKS >= 1000000);
});

test("block cap: over the limit returns an error and no blocks, quickly", () => {
  const t0 = process.hrtime.bigint();
  const r = KS.simulate(null, { outputTiles: 4096, kTiles: 4096 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.deepEqual(r.blocks, []);
  assert.equal(r.total, 0);
  assert.match(r.error, /outputTiles/);
  assert.match(r.error, /kTiles/);
  assert.ok(ms < 200, "took " + ms + " ms");
  assert.ok(KS.estimateBlockCount({ outputTiles: 4096, kTiles: 4096 }) > KS.MAX_BLOCKS);
  assert.equal(typeof r.verdict.summary, "string");
});

test("block cap: the documented estimate, and an error just above the limit", () => {
  const formula = (kn) => {
    const n = kn.outputTiles * kn.kTiles;
    const copies = kn.consumerWGs === 2 && kn.schedule === "cooperative" ? 2 : 1;
    return n * (2 + (kn.tmaLatency > 0 ? 1 : 0)) + copies * 2 * (n + (kn.epilogueLatency > 0 ? kn.outputTiles : 0));
  };
  for (const over of [{}, { tmaLatency: 0 }, { epilogueLatency: 0 }, { schedule: "cooperative" },
    { schedule: "cooperative", consumerWGs: 1 }, { outputTiles: 7, kTiles: 9 }]) {
    const kn = knobs(over);
    assert.equal(KS.estimateBlockCount(kn), formula(kn), JSON.stringify(over));
  }
  // O = 1000, K = 400: 5 * 400000 + 2 * 1000 = 2,002,000 blocks, just above the cap.
  const r = KS.simulate(null, knobs({ outputTiles: 1000, kTiles: 400 }));
  assert.equal(r.error, "too many blocks: up to 2002000 (limit 2000000); reduce outputTiles (O) or kTiles (K)");
  assert.equal(r.verdict.summary, r.error);
  assert.equal(KS.MAX_BLOCKS, 2000000);
  assert.deepEqual(Object.keys(r.verdict), Object.keys(KS.simulate(null, {}).verdict));
});

test("wait reasons are exported in their tie-break order", () => {
  assert.deepEqual(KS.WAIT_REASONS, WAIT_PRIORITY);
});

test("unknown model is an error", () => {
  const r = KS.simulate(null, { model: "attention-v9" });
  assert.match(r.error, /unknown model/);
  assert.deepEqual(r.blocks, []);
  assert.ok(KS.normalizeKnobs({ model: 3 }).error);
});

// ------------------------------------------------------------------------------------------------
// Source references.

/** A trimmed copy of the parser contract's example (mainloop + pingpong kernel layer). */
function exampleStructure() {
  const op = (kind, line, receiver, text) => ({ op: kind, line, end_line: line, receiver, pipeline: "MainloopPipeline",
    buffer: null, operand: null, text: text || kind + "(...);" });
  return {
    schema_version: 1,
    source: { path: "mainloop.hpp", lines: 584 },
    kind: "mainloop",
    arch: "sm90",
    pipelines: [],
    buffers: [],
    functions: [
      { name: "helper", role: "other", line: 200, end_line: 210, ops: [] },
      { name: "load", role: "producer", line: 310, end_line: 392, ops: [
        op("producer_acquire", 374, "pipeline"),
        op("producer_get_barrier", 381, "pipeline"),
        op("tma_load", 385, "mainloop_params.tma_load_b"),
        op("tma_load", 384, "mainloop_params.tma_load_a")
      ] },
      { name: "load_tail", role: "producer", line: 396, end_line: 409, ops: [op("producer_tail", 407, "pipeline")] },
      { name: "mma", role: "consumer", line: 417, end_line: 559, ops: [
        op("consumer_try_wait", 486, "pipeline"),
        op("consumer_wait", 487, "pipeline"),
        op("mma", 496, "tiled_mma"),
        op("consumer_wait", 533, "pipeline"),
        op("mma", 543, "tiled_mma"),
        op("consumer_release", 551, "pipeline")
      ] },
      { name: "mma_tail", role: "consumer", line: 563, end_line: 577, ops: [op("consumer_release", 574, "pipeline")] }
    ],
    kernel_layer: {
      source: { path: "kernel.hpp", lines: 950 },
      schedule: "pingpong",
      calls: [
        { call: "load", receiver: "collective_mainloop", line: 643, end_line: 652, text: "collective_mainloop.load(" },
        { call: "arrive", receiver: "load_order_barrier", line: 659, end_line: 659, text: "load_order_barrier.arrive();" },
        { call: "wait", receiver: "math_wg_order_barrier", line: 847, end_line: 847, text: "math_wg_order_barrier.wait();" },
        { call: "mma", receiver: "collective_mainloop", line: 849, end_line: 858, text: "collective_mainloop.mma(" },
        { call: "arrive", receiver: "math_wg_order_barrier", line: 860, end_line: 860, text: "math_wg_order_barrier.arrive();" },
        { call: "wait", receiver: "math_wg_order_barrier", line: 882, end_line: 882, text: "math_wg_order_barrier.wait();" },
        { call: "store", receiver: "collective_epilogue", line: 886, end_line: 900, text: "collective_epilogue.store(" },
        { call: "arrive", receiver: "math_wg_order_barrier", line: 919, end_line: 919, text: "math_wg_order_barrier.arrive();" }
      ]
    },
    warnings: []
  };
}

const lineNumbers = (refs) => refs.map((ref) => ref.line);

test("sourceRefs picks the producer/consumer functions and their ops", () => {
  const refs = KS.sourceRefs(exampleStructure());
  assert.deepEqual(refs.producer, { name: "load", line: 310, end_line: 392 });
  assert.deepEqual(refs.consumer, { name: "mma", line: 417, end_line: 559 });
  assert.deepEqual(lineNumbers(refs.issue), [374, 384, 385]);
  assert.deepEqual(lineNumbers(refs.filling), [384, 385]);
  assert.deepEqual(lineNumbers(refs.full), [486, 487, 533]);
  assert.deepEqual(lineNumbers(refs.wait), [487, 533]);
  assert.deepEqual(lineNumbers(refs.wgmma), [487, 496, 533, 543, 551]);
  assert.deepEqual(lineNumbers(refs.release), [551]);
  assert.deepEqual(lineNumbers(refs.epilogue), [886]);
  // The load-warp order barrier (659) is not the math order barrier.
  assert.deepEqual(lineNumbers(refs.order), [847, 860, 882, 919]);
  assert.deepEqual(lineNumbers(refs.orderMma), [847, 860]);
  assert.deepEqual(lineNumbers(refs.orderEpilogue), [882, 919]);
  assert.deepEqual(refs.issue[0], { path: "mainloop.hpp", line: 374, end_line: 374, op: "producer_acquire",
    text: "producer_acquire(...);" });
  assert.deepEqual(refs.epilogue[0], { path: "kernel.hpp", line: 886, end_line: 900, op: "store",
    text: "collective_epilogue.store(" });
});

test("blocks carry shared source refs by kind", () => {
  const r = KS.simulate(exampleStructure(), { stages: 2, tmaLatency: 9, outputTiles: 3, kTiles: 1, epilogueLatency: 6 });
  assert.deepEqual(r.functions.producer, { name: "load", line: 310, end_line: 392 });
  const byKind = {};
  for (const b of r.blocks) {
    const key = b.kind === "wait" ? "wait:" + b.reason : b.kind;
    if (byKind[key]) assert.equal(b.lines, byKind[key], "refs shared by reference: " + key);
    else byKind[key] = b.lines;
  }
  assert.deepEqual(lineNumbers(byKind.issue), [374, 384, 385]);
  assert.deepEqual(lineNumbers(byKind.filling), [384, 385]);
  assert.deepEqual(lineNumbers(byKind.full), [486, 487, 533]);
  assert.deepEqual(lineNumbers(byKind.wgmma), [487, 496, 533, 543, 551]);
  assert.deepEqual(lineNumbers(byKind.epilogue), [886]);
  assert.deepEqual(lineNumbers(byKind["wait:tma"]), [487, 533]);
  assert.deepEqual(lineNumbers(byKind["wait:order"]), [847, 860]);
  assert.deepEqual(lineNumbers(byKind["wait:epilogue-order"]), [882, 919]);
  assert.ok(Object.isFrozen(byKind.issue));
});

test("fallbacks: producer without loads, 'both' roles, missing or partial structures", () => {
  const refs = KS.sourceRefs({ source: { path: "x.hpp" }, functions: [
    { name: "p", role: "producer", line: 1, ops: [{ op: "producer_acquire", line: 3 }] },
    { name: "c", role: "both", line: 10, ops: "junk" },
    { name: "c2", role: "both", line: 20, ops: [{ op: "mma", line: 22 }, { op: "consumer_wait", line: 21, end_line: "?" }] }
  ] });
  assert.equal(refs.producer.name, "p");
  assert.equal(refs.consumer.name, "c2");
  assert.deepEqual(refs.issue, [{ path: "x.hpp", line: 3, end_line: 3, op: "producer_acquire", text: "" }]);
  assert.deepEqual(lineNumbers(refs.wgmma), [21, 22]);
  assert.deepEqual(refs.epilogue, []);
  const other = KS.sourceRefs({ kernel_layer: { calls: [
    { call: "arrive", receiver: "load_order_barrier", line: 5 }, { call: "wait", receiver: "odd_order_barrier", line: 9 }] } });
  assert.deepEqual(lineNumbers(other.order), [5, 9], "no math barrier: every order barrier counts");
  assert.deepEqual(lineNumbers(other.orderMma), [5, 9]);
  for (const structure of [null, undefined, {}, { functions: null, kernel_layer: 5 }, "text", [1, 2]]) {
    const r = KS.simulate(structure, {});
    assert.equal(r.error, null);
    assert.equal(r.total, 48);
    assert.ok(r.blocks.every((b) => Array.isArray(b.lines) && b.lines.length === 0));
    assert.deepEqual(r.functions, { producer: null, consumer: null });
  }
});

// ------------------------------------------------------------------------------------------------
// Packaging: the file must work as an inlined classic <script> and stay ASCII.

test("loads as a classic script defining the KernelSchedule global", () => {
  const source = fs.readFileSync(SCHEDULE_PATH, "utf8");
  const context = vm.createContext({});
  vm.runInContext(source, context);
  assert.equal(typeof context.KernelSchedule.simulate, "function");
  assert.equal(context.KernelSchedule.simulate(null, {}).total, 48);
});

test("schedule.js source is ASCII only", () => {
  const bytes = fs.readFileSync(SCHEDULE_PATH);
  const bad = bytes.findIndex((byte) => byte > 0x7e || (byte < 0x20 && byte !== 0x0a));
  assert.equal(bad, -1, "non-ASCII or control byte at offset " + bad);
});
