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
// The frozen v1 simulator (per-model recurrences), kept as the reference of the differential tests.
const V1 = require("./schedule_v1.js");

/** Knobs for hand-worked cases: everything explicit so default changes cannot move them. */
function knobs(overrides) {
  return Object.assign({
    stages: 4, outputTiles: 4, kTiles: 5, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3,
    consumerWGs: 2, schedule: "pingpong", kPipeMmas: 1
  }, overrides);
}

/** The documented tie-break order of wait reasons (spelled out, so the test does not follow the code). */
const WAIT_PRIORITY = ["order", "epilogue-order", "tma", "tensor-core"];

/** The fields of a block that a hand-worked expectation spells out. */
function row(b) {
  return [b.lane, b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason, b.after];
}

// ------------------------------------------------------------------------------------------------
// Hand-worked cases under the CUTLASS 4.2 rules (K_PIPE_MMAS = 1: k-tile k is released after
// WGMMA k+1 is issued and warpgroup_wait<1> sees WGMMA k complete).

test("hand case from issue 9: S=2 O=1 K=6 L=4 W=1 E=0 one WG gives 27 (v1 gave 19)", () => {
  const kn = knobs({ stages: 2, outputTiles: 1, kTiles: 6, tmaLatency: 4, wgmmaLatency: 1, epilogueLatency: 0, consumerWGs: 1 });
  const r = KS.simulate(null, kn);
  assert.equal(r.error, null);
  assert.equal(r.deadlock, null);
  assert.equal(r.total, 27);
  // Issue g+2 waits for the release of g, which happens once WGMMA g+1 is issued (its data landed).
  const rows = (kind) => r.blocks.filter((b) => b.kind === kind).map((b) => [b.start, b.end]);
  assert.deepEqual(rows("issue"), [[0, 1], [1, 2], [6, 7], [11, 12], [16, 17], [21, 22]]);
  assert.deepEqual(rows("wgmma"), [[5, 6], [6, 7], [11, 12], [16, 17], [21, 22], [26, 27]]);
  // FULL spans landing -> release: k-tile 0 lands at 5 and is released at 6, k-tile 1 at 6 -> 11.
  assert.deepEqual(r.blocks.filter((b) => b.kind === "full").map((b) => [b.lane, b.start, b.end, b.k]),
    [["stage0", 5, 6, 0], ["stage0", 11, 16, 2], ["stage0", 21, 26, 4], ["stage1", 6, 11, 1], ["stage1", 16, 21, 3], ["stage1", 26, 27, 5]]);
  assert.deepEqual(r.verdict.waits.consumer0, { order: 0, "epilogue-order": 0, tma: 5 + 4 * 4, "tensor-core": 0, total: 21 });
  const v1 = V1.simulate(null, Object.assign({}, kn, { kPipeMmas: undefined, releaseLag: 0 }));
  assert.equal(v1.total, 19, "the v1 rule the issue reports");
});

test("hand case: pingpong S=2 O=2 K=2 L=1 W=2 E=3", () => {
  const r = KS.simulate(null, knobs({ stages: 2, outputTiles: 2, kTiles: 2, tmaLatency: 1, wgmmaLatency: 2,
    epilogueLatency: 3, consumerWGs: 2, schedule: "pingpong" }));
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 1, 2, 0, 1, 1, null, [0]],
    // Stage 0 is released at 4: WGMMA 1 issued at 3, warpgroup_wait<1> returns when WGMMA 0 ends.
    ["producer", "issue", 4, 5, 1, 0, 0, null, [13]],
    // Stage 1 is released by mma_tail (warpgroup_wait<0>) at 6.
    ["producer", "issue", 6, 7, 1, 1, 1, null, [14]],
    ["stage0", "filling", 1, 2, 0, 0, 0, null, [0]],
    ["stage0", "full", 2, 4, 0, 0, 0, null, [4]],
    ["stage0", "filling", 5, 6, 1, 0, 0, null, [2]],
    ["stage0", "full", 6, 8, 1, 0, 0, null, [6]],
    ["stage1", "filling", 2, 3, 0, 1, 1, null, [1]],
    ["stage1", "full", 3, 6, 0, 1, 1, null, [8]],
    ["stage1", "filling", 7, 8, 1, 1, 1, null, [3]],
    ["stage1", "full", 8, 10, 1, 1, 1, null, [10]],
    ["consumer0", "wait", 0, 2, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 2, 4, 0, 0, 0, null, [4]],
    ["consumer0", "wgmma", 4, 6, 0, 1, 1, null, [13]],
    ["consumer0", "epilogue", 6, 9, 0, null, null, null, [14]],
    // WG0 arrives on the order barrier when mma() returns (4, before mma_tail): WG1 then waits for
    // its first k-tile, which lands at 6.
    ["consumer1", "wait", 0, 4, 1, 0, 0, "order", []],
    ["consumer1", "wait", 4, 6, 1, 0, 0, "tma", [16]],
    ["consumer1", "wgmma", 6, 8, 1, 0, 0, null, [6, 14]],
    ["consumer1", "wgmma", 8, 10, 1, 1, 1, null, [10, 18]],
    ["consumer1", "epilogue", 10, 13, 1, null, null, null, [19]]
  ]);
  assert.equal(r.total, 13);
  assert.equal(r.verdict.tensorCoreBusySteps, 8);
});

test("hand case: pingpong, WG1's first WGMMA queues behind WG0's last on the tensor core", () => {
  // Ample stages, L = 0, W = 2: WG0's WGMMAs run 1-3, 3-5, 5-7; it arrives on the order barrier
  // when warpgroup_wait<1> sees WGMMA 1 complete (5); WG1's data landed at 4, it issues at 5 and
  // its WGMMA starts when WG0's last ends at 7.
  const r = KS.simulate(null, knobs({ stages: 8, outputTiles: 2, kTiles: 3, tmaLatency: 0, wgmmaLatency: 2,
    epilogueLatency: 1, consumerWGs: 2, schedule: "pingpong" }));
  const wg1 = r.blocks.filter((b) => b.lane === "consumer1").map((b) => [b.kind, b.start, b.end, b.reason]);
  assert.deepEqual(wg1.slice(0, 3), [["wait", 0, 5, "order"], ["wait", 5, 7, "tensor-core"], ["wgmma", 7, 9, null]]);
  assert.equal(r.total, 1 + 12 + 1);
});

test("hand case: K_PIPE_MMAS = 2 releases k-tile k after WGMMA k+2 is issued", () => {
  const base = { stages: 3, outputTiles: 1, kTiles: 6, tmaLatency: 4, wgmmaLatency: 1, epilogueLatency: 0, consumerWGs: 1 };
  const r2 = KS.simulate(null, knobs(Object.assign({ kPipeMmas: 2 }, base)));
  const r1 = KS.simulate(null, knobs(Object.assign({ kPipeMmas: 1 }, base)));
  const issues = (r) => r.blocks.filter((b) => b.kind === "issue").map((b) => b.start);
  // K_PIPE_MMAS = 1: issue g+3 at the release of g = landing of g+1 (+0): 0 1 2 6 7 8 ...
  assert.deepEqual(issues(r1), [0, 1, 2, 6, 7, 11]);
  // K_PIPE_MMAS = 2: the release of g waits for the landing of g+2: issue 3 at 7, 4 at 12, 5 at 13.
  assert.deepEqual(issues(r2), [0, 1, 2, 7, 12, 17]);
  assert.equal(r2.total, 23);
  assert.equal(r1.total, 17);
});

test("L = 0, K_PIPE_MMAS = 0: the v1 release rule (release when the WGMMA ends)", () => {
  const r = KS.simulate(null, knobs({ stages: 1, outputTiles: 1, kTiles: 2, tmaLatency: 0, wgmmaLatency: 3,
    epilogueLatency: 0, consumerWGs: 1, kPipeMmas: 0 }));
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, []],
    ["producer", "issue", 4, 5, 0, 1, 0, null, [5]],
    ["stage0", "full", 1, 4, 0, 0, 0, null, [0]],
    ["stage0", "full", 5, 8, 0, 1, 0, null, [1]],
    ["consumer0", "wait", 0, 1, 0, 0, 0, "tma", []],
    ["consumer0", "wgmma", 1, 4, 0, 0, 0, null, [0]],
    ["consumer0", "wait", 4, 5, 0, 1, 0, "tma", [5]],
    ["consumer0", "wgmma", 5, 8, 0, 1, 0, null, [1]]
  ]);
});

// ------------------------------------------------------------------------------------------------
// Closed forms and steady states.

/** True when a tma wait starts after step 0 and ends while no WGMMA runs (README: "late" TMA wait). */
function lateTmaWaits(r) {
  const mmas = r.blocks.filter((b) => b.kind === "wgmma");
  return r.blocks.some((b) => b.kind === "wait" && b.reason === "tma" && b.start > 0 &&
    !mmas.some((m) => m.start < b.end && m.end >= b.end));
}

test("defaults: pingpong 48 < cooperative 57", () => {
  const ping = KS.simulate(null, {});
  const coop = KS.simulate(null, { schedule: "cooperative" });
  assert.deepEqual(ping.knobs, KS.DEFAULT_KNOBS);
  assert.equal(ping.total, 1 + 4 + 4 * 5 * 2 + 3);
  assert.equal(coop.total, 1 + 4 + 4 * (5 * 2 + 3));
  assert.ok(ping.total < coop.total);
  assert.deepEqual(ping.messages, []);
});

test("closed forms in the compute-bound regime (ample stages, E <= K*W), K_PIPE_MMAS 0..2", () => {
  const sets = [
    { outputTiles: 1, kTiles: 1, tmaLatency: 0, wgmmaLatency: 1, epilogueLatency: 0 },
    { outputTiles: 4, kTiles: 5, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3 },
    { outputTiles: 7, kTiles: 3, tmaLatency: 10, wgmmaLatency: 3, epilogueLatency: 9 },
    { outputTiles: 8, kTiles: 16, tmaLatency: 30, wgmmaLatency: 4, epilogueLatency: 20 },
    { outputTiles: 5, kTiles: 2, tmaLatency: 1, wgmmaLatency: 1, epilogueLatency: 2 },
    { outputTiles: 3, kTiles: 9, tmaLatency: 50, wgmmaLatency: 7, epilogueLatency: 0 }
  ];
  for (const set of sets) {
    for (const kPipeMmas of [0, 1, 2]) {
      const { outputTiles: O, kTiles: K, tmaLatency: L, wgmmaLatency: W, epilogueLatency: E } = set;
      const ample = Math.min(64, 3 + kPipeMmas + L + W);
      const base = Object.assign({ stages: ample, kPipeMmas }, set);
      const tag = JSON.stringify(base);
      const ping = KS.simulate(null, Object.assign({ consumerWGs: 2, schedule: "pingpong" }, base));
      const coop = KS.simulate(null, Object.assign({ consumerWGs: 2, schedule: "cooperative" }, base));
      const one = KS.simulate(null, Object.assign({ consumerWGs: 1, schedule: "pingpong" }, base));
      assert.equal(ping.total, 1 + L + O * K * W + E, "pingpong " + tag);
      assert.equal(coop.total, 1 + L + O * (K * W + E), "cooperative " + tag);
      assert.equal(one.total, 1 + L + O * (K * W + E), "one WG " + tag);
      for (const r of [ping, coop, one]) {
        assert.ok(!lateTmaWaits(r), tag);
        assert.ok(r.verdict.minStagesToHideTma !== null && r.verdict.minStagesToHideTma <= ample, tag);
      }
    }
  }
});

test("steady state, one WG, E = 0: max(W, 1, (1 + L) / (S - 1)) per k-tile (TMA-bound: (1+L)/(S-1))", () => {
  const sets = [
    { stages: 2, tmaLatency: 4, wgmmaLatency: 1 },
    { stages: 3, tmaLatency: 8, wgmmaLatency: 2 },
    { stages: 4, tmaLatency: 20, wgmmaLatency: 3 },
    { stages: 5, tmaLatency: 30, wgmmaLatency: 1 },
    { stages: 2, tmaLatency: 0, wgmmaLatency: 1 },
    { stages: 3, tmaLatency: 3, wgmmaLatency: 2 },
    { stages: 8, tmaLatency: 6, wgmmaLatency: 5 }
  ];
  for (const set of sets) {
    const r = KS.simulate(null, Object.assign({ outputTiles: 1, kTiles: 3000, epilogueLatency: 0, consumerWGs: 1 }, set));
    const mmas = r.blocks.filter((b) => b.kind === "wgmma");
    const perTile = (mmas[mmas.length - 1].start - mmas[0].start) / (mmas.length - 1);
    const { stages: S, tmaLatency: L, wgmmaLatency: W } = set;
    const expected = Math.max(W, 1, (1 + L) / (S - 1));
    assert.ok(Math.abs(perTile - expected) <= 0.01 * expected, `${JSON.stringify(set)}: ${perTile} vs ${expected}`);
  }
});

test("minStagesToHideTma is the smallest S without a tma wait after step 0", () => {
  const base = { outputTiles: 3, kTiles: 6, tmaLatency: 9, wgmmaLatency: 2, epilogueLatency: 1, consumerWGs: 1 };
  const r = KS.simulate(null, base);
  const best = r.verdict.minStagesToHideTma;
  // Steady state needs (1 + L) / (S - 1) <= W: S >= 1 + (1 + L) / W = 6.
  assert.equal(best, 6);
  const lateTma = (S) => {
    const x = KS.simulate(null, Object.assign({}, base, { stages: S }));
    return x.deadlock !== null || lateTmaWaits(x);
  };
  assert.equal(lateTma(best), false);
  for (let S = 1; S < best; S++) assert.equal(lateTma(S), true, "S=" + S);
  const hopeless = KS.simulate(null, { tmaLatency: 10000, wgmmaLatency: 1, consumerWGs: 1, outputTiles: 1, kTiles: 200 });
  assert.equal(hopeless.verdict.minStagesToHideTma, null);
  assert.match(hopeless.verdict.summary, /not hidden/);
});

// ------------------------------------------------------------------------------------------------
// Differential tests against v1 (tests/js/schedule_v1.js) where the rules agree.

/** Non-wait blocks of a result as sortable strings (kinds in `kinds`). */
function blockKeys(r, kinds) {
  return r.blocks.filter((b) => kinds.includes(b.kind)).map((b) => [b.lane, b.kind, b.start, b.end, b.tile, b.k, b.stage].join(",")).sort();
}

test("differential: K_PIPE_MMAS = 0 reproduces v1 (releaseLag 0) for every issue, filling, WGMMA and epilogue", () => {
  const rand = mulberry32(7);
  for (let run = 0; run < 250; run++) {
    const kn = { stages: randInt(rand, 1, 6), outputTiles: randInt(rand, 1, 6), kTiles: randInt(rand, 1, 6),
      tmaLatency: randInt(rand, 0, 8), wgmmaLatency: randInt(rand, 1, 4), epilogueLatency: randInt(rand, 0, 12),
      consumerWGs: randInt(rand, 1, 2), schedule: rand() < 0.5 ? "pingpong" : "cooperative" };
    const a = V1.simulate(null, Object.assign({ releaseLag: 0 }, kn));
    const b = KS.simulate(null, Object.assign({ kPipeMmas: 0 }, kn));
    const kinds = ["issue", "filling", "wgmma", "epilogue"];
    assert.deepEqual(blockKeys(b, kinds), blockKeys(a, kinds), JSON.stringify(kn));
    assert.equal(b.total, a.total, JSON.stringify(kn));
  }
});

test("differential: compute-bound (ample stages, E <= K*W) the default K_PIPE_MMAS = 1 matches v1", () => {
  const rand = mulberry32(11);
  let compared = 0;
  for (let run = 0; run < 250; run++) {
    const kn = { outputTiles: randInt(rand, 1, 6), kTiles: randInt(rand, 1, 6), tmaLatency: randInt(rand, 0, 8),
      wgmmaLatency: randInt(rand, 1, 4), epilogueLatency: randInt(rand, 0, 12), consumerWGs: randInt(rand, 1, 2),
      schedule: rand() < 0.5 ? "pingpong" : "cooperative" };
    if (kn.epilogueLatency > kn.kTiles * kn.wgmmaLatency) continue;
    kn.stages = Math.min(64, 3 + kn.tmaLatency + kn.wgmmaLatency);
    compared++;
    const a = V1.simulate(null, Object.assign({ releaseLag: 0 }, kn));
    const b = KS.simulate(null, kn);
    const kinds = ["issue", "filling", "wgmma", "epilogue"];
    assert.deepEqual(blockKeys(b, kinds), blockKeys(a, kinds), JSON.stringify(kn));
    assert.equal(b.total, a.total, JSON.stringify(kn));
  }
  assert.ok(compared > 100);
});

// ------------------------------------------------------------------------------------------------
// Deadlocks are results.

test("deadlock: K_PIPE_MMAS >= stages names the waiting roles and barriers", () => {
  const r = KS.simulate(null, knobs({ stages: 2, kPipeMmas: 2, consumerWGs: 1 }));
  assert.equal(r.error, null);
  assert.ok(r.deadlock);
  assert.match(r.messages.join("\n"), /static_assert/);
  const waiting = r.deadlock.waiting.map((w) => [w.lane, w.barrier, w.phase]);
  assert.deepEqual(waiting, [["producer", "MainloopPipeline.empty[0]", 0], ["consumer0", "MainloopPipeline.full[0]", 1]]);
  assert.match(r.deadlock.message, /^deadlock: no role can progress after step \d+/);
  assert.equal(r.verdict.summary, r.deadlock.message);
  assert.equal(r.verdict.minStagesToHideTma, null);
  // The blocks drawn before the deadlock are still there, and they end by deadlock.step.
  assert.ok(r.blocks.length > 0 && r.blocks.every((b) => b.end <= Math.max(r.deadlock.step, r.total)));
});

test("deadlock: a mainloop without the loop's consumer_release deadlocks on the empty barrier at producer_acquire", () => {
  const st = exampleStructure();
  const mma = st.functions.find((f) => f.name === "mma");
  mma.ops = mma.ops.filter((op) => op.op !== "consumer_release");
  const r = KS.simulate(st, { consumerWGs: 1, stages: 4, kTiles: 5, outputTiles: 2 });
  assert.ok(r.deadlock, "deadlock expected");
  const producer = r.deadlock.waiting.find((w) => w.lane === "producer");
  assert.match(producer.barrier, /empty\[0\]/);
  assert.equal(producer.line, 374);
  assert.match(r.messages.join("\n"), /no consumer_release after the last mma of mma\(\)/);
  // With the release present the same knobs run to the end.
  assert.equal(KS.simulate(exampleStructure(), { consumerWGs: 1, stages: 4, kTiles: 5, outputTiles: 2 }).deadlock, null);
});

test("K_PIPE_MMAS from the structure: constants (v2) or a literal warpgroup_wait<N>; knob overrides", () => {
  const st = exampleStructure();
  st.constants = [{ name: "K_PIPE_MMAS", value: 2, line: 264 }];
  let r = KS.simulate(st, { stages: 4 });
  assert.equal(r.knobs.kPipeMmas, 2);
  assert.deepEqual(r.messages, []);
  assert.equal(KS.knobsFor("gemm", st).find((k) => k.name === "kPipeMmas").source.line, 264);
  r = KS.simulate(st, { stages: 4, kPipeMmas: 1 });
  assert.equal(r.knobs.kPipeMmas, 1);
  const st2 = exampleStructure();
  st2.functions.find((f) => f.name === "mma").ops.push({ op: "warpgroup_wait", line: 548, count: "3", text: "warpgroup_wait<3>();" });
  assert.equal(KS.simulate(st2, { stages: 8 }).knobs.kPipeMmas, 3);
  // Without either, CUTLASS 4.2's value with a message (a parsed structure), silently for no structure.
  r = KS.simulate(exampleStructure(), {});
  assert.equal(r.knobs.kPipeMmas, 1);
  assert.match(r.messages.join("\n"), /K_PIPE_MMAS is not in the parsed structure/);
  assert.deepEqual(KS.simulate(null, {}).messages, []);
});

// ------------------------------------------------------------------------------------------------
// Randomized invariants.

/** Check the engine's invariants on one GEMM result; msg tags failures. */
function checkInvariants(r, kn, msg) {
  const { stages: S, outputTiles: O, kTiles: K, tmaLatency: L, wgmmaLatency: W, epilogueLatency: E } = kn;
  const C = kn.consumerWGs;
  const pingpong = C === 2 && kn.schedule === "pingpong";
  const coop = C === 2 && kn.schedule === "cooperative";
  const N = O * K;
  const blocks = r.blocks;
  assert.equal(r.error, null, msg);
  const laneIds = r.lanes.map((l) => l.id);
  assert.ok(blocks.length <= KS.estimateBlockCount(kn), msg + " estimate is an upper bound");
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
    for (const a of b.after) assert.ok(blocks[a].end <= b.start, msg + " after ends before start");
  });
  for (const lane of laneIds) {
    const ids = r.laneBlocks[lane];
    for (let i = 1; i < ids.length; i++) assert.ok(blocks[ids[i]].start >= blocks[ids[i - 1]].end, msg + " no overlap on " + lane);
  }
  assert.equal(r.total, Math.max(0, ...blocks.map((b) => b.end)), msg);
  if (r.deadlock) return;
  const g = (b) => b.tile * K + b.k;
  const issues = blocks.filter((b) => b.kind === "issue");
  assert.equal(issues.length, N, msg);
  const land = issues.map((b) => b.end + L);
  // Never two tiles in a stage; a stage is refilled only after its release (the end of its FULL).
  for (let s = 0; s < S; s++) {
    const own = blocks.filter((b) => b.lane === "stage" + s);
    let lastG = -1, lastEnd = 0;
    for (const b of own) {
      assert.equal(g(b) % S, s, msg);
      assert.ok(b.start >= lastEnd, msg);
      if (b.kind === "filling") { assert.ok(g(b) > lastG, msg); assert.equal(b.start, issues[g(b)].end, msg); }
      lastG = g(b);
      lastEnd = b.end;
    }
  }
  // The release of k-tile x (end of its FULL, or its landing) precedes the issue of x + S.
  const releaseOf = new Array(N).fill(null);
  for (const b of blocks) if (b.kind === "full") releaseOf[g(b)] = b.end;
  for (let x = 0; x < N; x++) if (releaseOf[x] === null) releaseOf[x] = land[x];
  for (let x = S; x < N; x++) assert.ok(issues[x].start >= releaseOf[x - S], msg + " refill after release");
  // The tensor core runs one WGMMA at a time (a cooperative job is drawn on both lanes).
  const mmas = blocks.filter((b) => b.kind === "wgmma");
  const jobs = new Map();
  for (const b of mmas) {
    const key = b.tile + ":" + b.k;
    if (jobs.has(key)) {
      assert.ok(coop, msg);
      assert.deepEqual([jobs.get(key).start, jobs.get(key).end], [b.start, b.end], msg);
    } else jobs.set(key, b);
  }
  const sorted = [...jobs.values()].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i].start >= sorted[i - 1].end, msg + " one WGMMA at a time");
  assert.equal(jobs.size, N, msg);
  // No WG runs past a barrier it has not passed: each WGMMA after its data landed; K_PIPE_MMAS:
  // the release of x is not before WGMMA x ends nor before WGMMA x + P (same tile) is issued.
  const P = Math.min(kn.kPipeMmas, K);
  for (const b of sorted) {
    assert.ok(b.start >= land[g(b)], msg + " WGMMA after its landing");
    assert.equal(b.end - b.start, W, msg);
    assert.ok(releaseOf[g(b)] >= b.end, msg + " release after the WGMMA completes");
    if (b.k + P < K) assert.ok(releaseOf[g(b)] >= land[g(b) + P], msg + " release after WGMMA k+P's wait");
    const wg = coop ? null : pingpong ? b.tile % 2 : 0;
    if (wg !== null) assert.equal(b.lane, "consumer" + wg, msg);
  }
  // Pingpong: a tile's first WGMMA starts after the other WG's previous tile's WGMMAs; epilogues alternate.
  if (pingpong) {
    for (let o = 1; o < O; o++) assert.ok(jobs.get(o + ":0").start >= jobs.get((o - 1) + ":" + (K - 1)).end, msg);
    const epis = blocks.filter((b) => b.kind === "epilogue").sort((a, b) => a.tile - b.tile);
    for (let i = 1; i < epis.length; i++) assert.ok(epis[i].start >= epis[i - 1].end, msg + " epilogue order");
  }
  if (coop) {
    const strip = (b) => [b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason];
    assert.deepEqual(blocks.filter((b) => b.lane === "consumer1").map(strip), blocks.filter((b) => b.lane === "consumer0").map(strip), msg);
  }
  for (let c = 0; c < C; c++) {
    const own = blocks.filter((b) => b.lane === "consumer" + c);
    for (const b of own.filter((x) => x.kind === "epilogue")) assert.equal(b.end - b.start, E, msg);
    const expected = { order: 0, "epilogue-order": 0, tma: 0, "tensor-core": 0, total: 0 };
    for (const b of own) if (b.kind === "wait") { expected[b.reason] += b.end - b.start; expected.total += b.end - b.start; }
    assert.deepEqual(r.verdict.waits["consumer" + c], expected, msg);
  }
  const busy = new Set();
  for (const b of mmas) for (let t = b.start; t < b.end; t++) busy.add(t);
  assert.equal(r.verdict.tensorCoreBusySteps, busy.size, msg);
  assert.equal(r.verdict.tensorCoreUtilization, busy.size / r.total, msg);
  checkBarrierEvents(r, msg);
}

/** barrierEvents: time order, and replaying arrivals reproduces every phase bit and completion. */
function checkBarrierEvents(r, msg) {
  const ev = r.barrierEvents;
  const byId = new Map(r.barriers.map((b) => [b.id, b]));
  for (let i = 1; i < ev.length; i++) assert.ok(ev[i].t >= ev[i - 1].t, msg + " events in time order");
  const completed = new Map();
  for (const e of ev) {
    assert.ok(byId.has(e.barrier), msg);
    assert.ok(["arrive", "complete", "wait_begin", "wait_end"].includes(e.type), msg);
    if (e.type === "complete") completed.set(e.barrier, (completed.get(e.barrier) || 0) + 1);
  }
  // Every barrier completes once per `expected` arrivals.
  const arrivals = new Map();
  for (const e of ev) if (e.type === "arrive") arrivals.set(e.barrier, (arrivals.get(e.barrier) || 0) + 1);
  for (const [id, n] of arrivals) assert.equal(completed.get(id) || 0, Math.floor(n / byId.get(id).expected), msg);
}

test("randomized invariants (seeded)", () => {
  const rand = mulberry32(20240611);
  for (let run = 0; run < 300; run++) {
    const S = randInt(rand, 1, 6);
    const kn = {
      stages: S, outputTiles: randInt(rand, 1, 6), kTiles: randInt(rand, 1, 6), tmaLatency: randInt(rand, 0, 8),
      wgmmaLatency: randInt(rand, 1, 4), epilogueLatency: randInt(rand, 0, 12), consumerWGs: randInt(rand, 1, 2),
      schedule: rand() < 0.5 ? "pingpong" : "cooperative", kPipeMmas: randInt(rand, 0, Math.max(0, S - 1)), model: "gemm"
    };
    const r = KS.simulate(null, kn);
    assert.deepEqual(r.messages, [], JSON.stringify(kn));
    assert.deepEqual(r.knobs, kn);
    assert.equal(r.deadlock, null, JSON.stringify(kn));
    checkInvariants(r, kn, "run " + run + " " + JSON.stringify(kn));
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
    epilogueLatency: Infinity, consumerWGs: "2", schedule: "Cooperative ", kPipeMmas: 2.6
  });
  assert.equal(k.stages, KS.DEFAULT_KNOBS.stages);
  assert.equal(k.outputTiles, KS.DEFAULT_KNOBS.outputTiles);
  assert.equal(k.kTiles, 1);
  assert.equal(k.tmaLatency, 10000);
  assert.equal(k.wgmmaLatency, 1);
  assert.equal(k.epilogueLatency, 10000);
  assert.equal(k.consumerWGs, 2);
  assert.equal(k.schedule, "cooperative");
  assert.equal(k.kPipeMmas, 3);
  const text = messages.join("\n");
  for (const name of ["stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "kPipeMmas"]) {
    assert.match(text, new RegExp("^" + name + ": ", "m"));
  }
  assert.doesNotMatch(text, /consumerWGs|schedule/);
  assert.deepEqual(KS.normalizeKnobs({ stages: -0.4 }).knobs.stages, 1);
  assert.ok(Object.is(KS.normalizeKnobs({ tmaLatency: -0.4 }).knobs.tmaLatency, 0));
});

test("knob validation: bad schedule, unknown knobs, K_PIPE_MMAS >= stages, non-object knobs", () => {
  let n = KS.normalizeKnobs({ schedule: "zigzag", foo: 1 });
  assert.equal(n.knobs.schedule, "pingpong");
  assert.equal(n.messages.length, 2);
  // Not clamped: the engine shows the deadlock CUTLASS's static_assert prevents.
  n = KS.normalizeKnobs({ stages: 2, kPipeMmas: 5 });
  assert.equal(n.knobs.kPipeMmas, 5);
  assert.match(n.messages.join(), /kPipeMmas: 5 >= stages \(2\)/);
  // The v1 knob is gone: reported as unknown.
  assert.match(KS.normalizeKnobs({ releaseLag: 1 }).messages.join(), /unknown knob "releaseLag"/);
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
    return n * (2 + (kn.tmaLatency > 0 ? 1 : 0)) + copies * 2 * (n + kn.outputTiles + (kn.epilogueLatency > 0 ? kn.outputTiles : 0));
  };
  for (const over of [{}, { tmaLatency: 0 }, { epilogueLatency: 0 }, { schedule: "cooperative" },
    { schedule: "cooperative", consumerWGs: 1 }, { outputTiles: 7, kTiles: 9 }]) {
    const kn = knobs(over);
    assert.equal(KS.estimateBlockCount(kn), formula(kn), JSON.stringify(over));
  }
  // O = 1000, K = 400: 5 * 400000 + 2 * 2000 = 2,004,000 blocks, just above the cap.
  const r = KS.simulate(null, knobs({ outputTiles: 1000, kTiles: 400 }));
  assert.equal(r.error, "too many blocks: up to 2004000 (limit 2000000); reduce outputTiles (O) or kTiles (K)");
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
  // No structure at all: the CUTLASS 4.2 program is assumed. An (empty) structure: no model fits.
  for (const structure of [null, undefined, "text", [1, 2]]) {
    const r = KS.simulate(structure, {});
    assert.equal(r.error, null);
    assert.equal(r.total, 48);
    assert.ok(r.blocks.every((b) => Array.isArray(b.lines) && b.lines.length === 0));
    assert.deepEqual(r.functions, { producer: null, consumer: null });
    assert.equal(r.fit.model, "gemm");
  }
  for (const structure of [{}, { functions: null, kernel_layer: 5 }]) {
    const r = KS.simulate(structure, {});
    assert.equal(r.model, null);
    assert.deepEqual([r.error, r.total, r.blocks.length, r.view], [null, 0, 0, null]);
    assert.match(r.fit.reason, /no pipeline operation/);
    assert.equal(KS.simulate(structure, { model: "gemm" }).total, 48, "an explicit model still runs");
  }
});

// ------------------------------------------------------------------------------------------------
// Packaging: the file must work as an inlined classic <script> and stay ASCII.

// The simulator's files in the order the page runs them (render_waveform.py's packing list).
const SIM_PATHS = ["timeline.js", "barrier.js", "engine.js", "common.js", "fit.js", "model_gemm.js", "attention_roles.js",
  "model_attention.js", "blackwell_roles.js", "model_blackwell.js", "program_knobs.js", "model_program.js", "units.js"]
  .map((f) => path.join(__dirname, "..", "..", "sim", f))
  .concat([SCHEDULE_PATH]);

test("loads as classic scripts defining the KernelTimeline, KernelEngine and KernelSchedule globals", () => {
  const context = vm.createContext({});
  for (const p of SIM_PATHS) vm.runInContext(fs.readFileSync(p, "utf8"), context);
  assert.equal(typeof context.KernelTimeline.Timeline, "function");
  assert.equal(typeof context.KernelEngine.Engine, "function");
  assert.equal(typeof context.KernelSchedule.simulate, "function");
  assert.equal(context.KernelSchedule.simulate(null, {}).total, 48);
  // schedule.js without the files it imports says which one is missing (no require in a page).
  assert.throws(() => vm.runInContext(fs.readFileSync(SCHEDULE_PATH, "utf8"), vm.createContext({})),
    /schedule\.js: sim\/timeline\.js is not loaded/);
});

test("the simulator's sources (schedule.js and the sim/ files it binds) are ASCII only", () => {
  for (const p of SIM_PATHS) {
    const bytes = fs.readFileSync(p);
    const bad = bytes.findIndex((byte) => byte > 0x7e || (byte < 0x20 && byte !== 0x0a));
    assert.equal(bad, -1, path.basename(p) + ": non-ASCII or control byte at offset " + bad);
  }
});

test("minStagesToHideTma is not searched above 10,000 k-tiles, and the summary says so", () => {
  const r = KS.simulate(null, { outputTiles: 101, kTiles: 100 });
  assert.equal(r.verdict.minStagesToHideTma, null);
  assert.match(r.verdict.summary, /minimum stages not searched above 10000 k-tiles$/);
  assert.notEqual(KS.simulate(null, { outputTiles: 100, kTiles: 100 }).verdict.minStagesToHideTma, null);
});
