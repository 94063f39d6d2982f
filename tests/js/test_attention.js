// Tests of the attention model of schedule.js: node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { mulberry32, randInt } = require("./prng.js");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));

/** Attention knobs for hand-worked cases: everything explicit so default changes cannot move them. */
function knobs(overrides) {
  return Object.assign({
    model: "attention", stages: 2, outputTiles: 1, kvBlocks: 2, tmaLatency: 1, gemm0Latency: 1,
    softmaxLatency: 1, gemm1Latency: 1, epilogueLatency: 1, consumerWGs: 1,
    intraWGOverlap: false, interWGPingpong: false, transposeV: false
  }, overrides);
}

/** The documented tie-break order of attention wait reasons (spelled out, not read from the code). */
const ATTENTION_WAIT_PRIORITY = ["barrier", "q", "k", "v", "epilogue", "tensor-core"];

/** The fields of a block that a hand-worked expectation spells out. */
function row(b) {
  return [b.lane, b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason, b.operand];
}

/** Read a committed JSON file of the repository. */
function readJson(rel) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, rel), "utf8"));
}

/** An op of a hand-written structure. */
function op(kind, line, receiver, pipeline, operand) {
  return { op: kind, line, end_line: line, receiver, pipeline: pipeline || null, buffer: null,
    operand: operand || null, text: kind + "@" + line };
}

/** A small FA3-like structure (own test data): K, V and Vt pipelines, a load warp doing the transpose. */
function fa3Like() {
  const pipe = (alias, line) => ({ alias, class: "PipelineTmaAsync", stages: "kStages", line, end_line: line, text: "", used: true });
  return {
    schema_version: 1,
    source: { path: "toy_fa3.hpp", lines: 200 },
    kind: "mainloop",
    pipelines: [pipe("MainloopPipelineK", 10), pipe("MainloopPipelineV", 11), pipe("MainloopPipelineVt", 12)],
    buffers: [{ name: "smem_k", operand: "K" }, { name: "smem_v", operand: "V" }, { name: "smem_vt", operand: "Vt" },
      { name: "smem_q", operand: "Q" }],
    functions: [
      { name: "load", role: "both", line: 30, end_line: 80, ops: [
        op("producer_acquire", 40, "pipeline_k", "MainloopPipelineK"),
        op("tma_load", 41, "params.tma_load_K", "MainloopPipelineK", "K"),
        op("producer_commit", 42, "pipeline_k", "MainloopPipelineK"),
        op("producer_acquire", 45, "pipeline_v_load", "MainloopPipelineV"),
        op("tma_load", 46, "params.tma_load_V", "MainloopPipelineV", "V"),
        op("consumer_wait", 50, "pipeline_vt", "MainloopPipelineVt"),
        op("producer_acquire", 51, "pipeline_v", "MainloopPipelineV"),
        op("producer_commit", 53, "pipeline_v", "MainloopPipelineV"),
        op("consumer_release", 54, "pipeline_vt", "MainloopPipelineVt"),
        op("tma_load", 60, "params.tma_load_Q", null, "Q")
      ] },
      { name: "mma", role: "consumer", line: 100, end_line: 160, ops: [
        op("consumer_wait", 110, "pipeline_k", "MainloopPipelineK"),
        op("order_wait", 111, "warp_scheduler_barrier_sync"),
        op("mma", 112, "tiled_mma_qk", "MainloopPipelineK"),
        op("consumer_release", 114, "pipeline_k", "MainloopPipelineK"),
        op("softmax", 115, "softmax.online_softmax"),
        op("consumer_wait", 120, "pipeline_v", "MainloopPipelineV"),
        op("mma", 121, "tiled_mma_pv", "MainloopPipelineV"),
        op("order_arrive", 122, "warp_scheduler_barrier_arrive"),
        op("consumer_release", 124, "pipeline_v", "MainloopPipelineV")
      ] }
    ],
    kernel_layer: {
      source: { path: "toy_kernel.h", lines: 90 },
      calls: [
        { call: "mma", receiver: "mainloop", line: 40, end_line: 41, text: "mainloop.mma(" },
        { call: "store", receiver: "epilogue", line: 50, end_line: 51, text: "epilogue.store(" }
      ]
    },
    warnings: []
  };
}

/** A GEMM-like structure: one MainloopPipeline, buffers A and B, one tiled_mma. */
function gemmLike() {
  return {
    source: { path: "gemm.hpp" },
    pipelines: [{ alias: "MainloopPipeline", line: 5 }],
    buffers: [{ name: "smem_A", operand: "A" }, { name: "smem_B", operand: "B" }],
    functions: [{ name: "mma", role: "consumer", line: 1, ops: [op("mma", 3, "tiled_mma", "MainloopPipeline")] }]
  };
}

/** An 88_hopper_fmha-like structure: one MainloopPipeline shared by K and V, plus MainloopPipelineQ. */
function sharedKV() {
  const P = "MainloopPipeline";
  return {
    source: { path: "fmha.hpp" },
    pipelines: [{ alias: P, line: 5 }, { alias: "MainloopPipelineQ", line: 6 },
      { alias: "MainloopPipelineReducer", line: 7, template_parameter: true }],
    buffers: [{ name: "smem_q", operand: "Q" }, { name: "smem_k", operand: "K" }, { name: "smem_v", operand: "V" }],
    functions: [
      { name: "load", role: "producer", line: 10, ops: [op("tma_load", 12, "load_q.step", "MainloopPipelineQ", "Q"),
        op("tma_load", 13, "load_k.step", P, "K"), op("tma_load", 14, "load_v.step", P, "V")] },
      { name: "compute", role: "consumer", line: 20, ops: [
        op("consumer_wait", 21, "pipeline_q", "MainloopPipelineQ"),
        op("consumer_wait", 22, "pipeline", P), op("mma", 23, "tiled_mma_qk", P),
        op("softmax", 24, "softmax.step"),
        op("consumer_wait", 25, "pipeline", P), op("mma", 26, "tiled_mma_pv", P),
        op("consumer_release", 27, "pipeline", P)] }
    ]
  };
}

// ------------------------------------------------------------------------------------------------
// Hand-worked cases on the engine (FA3's mma() and load(); README "Attention model").

/** GEMM blocks of a result in tensor-core order: [lane, kind, tile, k]. */
function tensorOrder(r) {
  return r.blocks.filter((b) => b.kind === "gemm0" || b.kind === "gemm1")
    .sort((a, b) => a.start - b.start || a.id - b.id).map((b) => [b.lane, b.kind, b.tile, b.k]);
}

test("hand case: no overlap, C=1 S=2 O=1 J=2 L=1 all latencies 1", () => {
  const r = KS.simulate(null, knobs({}));
  assert.equal(r.error, null);
  assert.equal(r.deadlock, null);
  assert.deepEqual(r.blocks.filter((b) => b.lane.startsWith("consumer")).map(row), [
    ["consumer0", "wait", 0, 3, 0, null, 0, "q", null],
    ["consumer0", "gemm0", 3, 4, 0, 0, 0, null, null],
    // softmax(0) 4-5 on the sub-lane; V(0) landed at 4; GEMM1(0) after softmax.
    ["consumer0", "gemm1", 5, 6, 0, 0, 0, null, null],
    ["consumer0", "gemm0", 6, 7, 0, 1, 1, null, null],
    ["consumer0", "gemm1", 8, 9, 0, 1, 1, null, null],
    ["consumer0", "epilogue", 9, 10, 0, null, null, null, null],
    ["consumer0_softmax", "softmax", 4, 5, 0, 0, null, null, null],
    ["consumer0_softmax", "softmax", 7, 8, 0, 1, null, null, null]
  ]);
  assert.equal(r.total, 10);
  // Load warp: K(0), Q (after QueryEmpty: mma_init's arrival + its own), V(0), K(1), V(1).
  assert.deepEqual(r.blocks.filter((b) => b.kind === "issue").map((b) => [b.operand, b.k, b.start]),
    [["K", 0, 0], ["Q", null, 1], ["V", 0, 2], ["K", 1, 3], ["V", 1, 4]]);
});

test("hand case: intra-WG overlap, same knobs: softmax(1) overlaps GEMM1(0); V(0) released after softmax(1)", () => {
  const r = KS.simulate(null, knobs({ intraWGOverlap: true }));
  assert.deepEqual(r.blocks.filter((b) => b.lane.startsWith("consumer")).map((b) => [b.kind, b.start, b.end, b.k]), [
    ["wait", 0, 3, null], ["gemm0", 3, 4, 0], ["gemm0", 5, 6, 1], ["gemm1", 6, 7, 0], ["gemm1", 7, 8, 1], ["epilogue", 8, 9, null],
    ["softmax", 4, 5, 0], ["softmax", 6, 7, 1]
  ]);
  assert.equal(r.total, 9);
  // V stage 0 is FULL from its landing (5) until warpgroup_wait<0> after softmax(1) releases it (7).
  assert.deepEqual(r.blocks.filter((b) => b.lane === "v_stage0").map((b) => [b.kind, b.start, b.end]), [["filling", 4, 5], ["full", 5, 7]]);
  // Load warp with overlap: K(0), Q, K(1), V(0), V(1).
  assert.deepEqual(r.blocks.filter((b) => b.kind === "issue").map((b) => [b.operand, b.k]),
    [["K", 0], ["Q", null], ["K", 1], ["V", 0], ["V", 1]]);
});

test("FA3 point: without overlap the scheduler-barrier phases are {GEMM0(0)}, {GEMM1(j-1), GEMM0(j)}, ..., {GEMM1(J-1)}", () => {
  const r = KS.simulate(null, knobs({ consumerWGs: 2, interWGPingpong: true, kvBlocks: 3, stages: 4 }));
  assert.deepEqual(tensorOrder(r), [
    ["consumer0", "gemm0", 0, 0], ["consumer1", "gemm0", 0, 0],
    ["consumer0", "gemm1", 0, 0], ["consumer0", "gemm0", 0, 1], ["consumer1", "gemm1", 0, 0], ["consumer1", "gemm0", 0, 1],
    ["consumer0", "gemm1", 0, 1], ["consumer0", "gemm0", 0, 2], ["consumer1", "gemm1", 0, 1], ["consumer1", "gemm0", 0, 2],
    ["consumer0", "gemm1", 0, 2], ["consumer1", "gemm1", 0, 2]
  ]);
  assert.equal(r.barriers.filter((b) => b.kind === "named" && /WarpScheduler/.test(b.name)).length, 2);
});

test("FA3 point: with overlap GEMM0(0) and the last GEMM1 are outside the barrier; a phase is {GEMM0(j), GEMM1(j-1)}", () => {
  const kn = knobs({ consumerWGs: 2, interWGPingpong: true, intraWGOverlap: true, kvBlocks: 3, stages: 4 });
  const r = KS.simulate(null, kn);
  const order = tensorOrder(r);
  // Both GEMM0(0) come first (no barrier before the loop), then alternating phases.
  assert.deepEqual(order.slice(0, 2).map((x) => x[1] + x[3]), ["gemm00", "gemm00"]);
  const phases = order.slice(2, 10);
  assert.deepEqual(phases, [
    ["consumer0", "gemm0", 0, 1], ["consumer0", "gemm1", 0, 0], ["consumer1", "gemm0", 0, 1], ["consumer1", "gemm1", 0, 0],
    ["consumer0", "gemm0", 0, 2], ["consumer0", "gemm1", 0, 1], ["consumer1", "gemm0", 0, 2], ["consumer1", "gemm1", 0, 1]
  ]);
  assert.deepEqual(order.slice(10).map((x) => x[1] + x[3]).sort(), ["gemm12", "gemm12"]);
  // The last GEMM1 of WG1 is not held back by WG0's phase: both final GEMM1s are issued without a
  // barrier wait after the loop (no barrier wait block after the last GEMM0).
  for (const lane of ["consumer0", "consumer1"]) {
    const own = r.blocks.filter((b) => b.lane === lane);
    const lastG0 = own.filter((b) => b.kind === "gemm0").pop();
    assert.ok(!own.some((b) => b.kind === "wait" && b.reason === "barrier" && b.start >= lastG0.end), lane);
  }
});

test("FA3 point: with overlap V(j-1) is released only after softmax(j) (warpgroup_wait<0>)", () => {
  const r = KS.simulate(null, knobs({ intraWGOverlap: true, kvBlocks: 4, stages: 4, softmaxLatency: 5 }));
  for (let j = 1; j < 4; j++) {
    const vFull = r.blocks.find((b) => b.lane.startsWith("v_stage") && b.kind === "full" && b.k === j - 1);
    const sm = r.blocks.find((b) => b.kind === "softmax" && b.k === j);
    const g1 = r.blocks.find((b) => b.kind === "gemm1" && b.k === j - 1);
    assert.equal(vFull.end, Math.max(sm.end, g1.end), "V(" + (j - 1) + ")");
    assert.ok(sm.start < g1.end, "softmax(j) overlaps GEMM1(j-1)");
  }
});

test("FA3 point: QueryEmpty after the last GEMM1 without overlap, before the final GEMM1 with it", () => {
  // The Q stage is FULL from its landing until QueryEmpty completes (all WGs arrived and the load
  // warp synced for the next tile's Q). Ample stages: the load warp is there early.
  const base = { consumerWGs: 1, outputTiles: 2, kvBlocks: 3, stages: 8, tmaLatency: 1, gemm1Latency: 4 };
  const plain = KS.simulate(null, knobs(base));
  const qFull = (r) => r.blocks.find((b) => b.lane === "q_stage0" && b.kind === "full" && b.tile === 0);
  const lastG1 = (r) => r.blocks.filter((b) => b.kind === "gemm1" && b.tile === 0).pop();
  assert.equal(qFull(plain).end, lastG1(plain).end);
  const intra = KS.simulate(null, knobs(Object.assign({ intraWGOverlap: true }, base)));
  assert.ok(qFull(intra).end <= lastG1(intra).start, JSON.stringify([qFull(intra), lastG1(intra)]));
  assert.equal(intra.barriers.find((b) => b.name === "QueryEmpty").expected, 2);
});

test("FA3 point: the load warp's order per tile, barrier_O before V, Transpose_V", () => {
  const seq = (r, tile) => r.blocks.filter((b) => b.lane === "producer" && b.tile === tile)
    .map((b) => (b.kind === "transpose" ? "T" : b.operand) + (b.k === null ? "" : b.k));
  assert.deepEqual(seq(KS.simulate(null, knobs({ kvBlocks: 3, stages: 4 })), 0), ["K0", "Q", "V0", "K1", "V1", "K2", "V2"]);
  assert.deepEqual(seq(KS.simulate(null, knobs({ kvBlocks: 3, stages: 4, intraWGOverlap: true })), 0),
    ["K0", "Q", "K1", "V0", "K2", "V1", "V2"]);
  assert.deepEqual(seq(KS.simulate(null, knobs({ kvBlocks: 3, stages: 4, transposeV: true })), 0),
    ["Vt0", "K0", "Q", "Vt1", "K1", "T0", "Vt2", "K2", "T1", "T2"]);
  // barrier_O: tile 1's first write of smem_v (V(0), or the first transpose) waits for tile 0's
  // epilogue (its O store); K(0) of tile 1 does not.
  for (const extra of [{}, { intraWGOverlap: true }, { transposeV: true }]) {
    const r = KS.simulate(null, knobs(Object.assign({ outputTiles: 2, kvBlocks: 2, stages: 4, epilogueLatency: 30 }, extra)));
    const epi0 = r.blocks.filter((b) => b.kind === "epilogue" && b.tile === 0).pop();
    const firstV = r.blocks.find((b) => b.lane === "producer" && b.tile === 1 && (b.kind === "transpose" || b.operand === "V"));
    const k0 = r.blocks.find((b) => b.lane === "producer" && b.tile === 1 && b.operand === "K");
    assert.ok(firstV.start >= epi0.end, JSON.stringify(extra));
    assert.ok(k0.start < epi0.end, JSON.stringify(extra));
  }
});

test("FA3 point: the epilogue starts with a named-barrier sync, so the WGs enter it together", () => {
  const r = KS.simulate(null, knobs({ consumerWGs: 2, kvBlocks: 3, outputTiles: 2, stages: 4, epilogueLatency: 3 }));
  for (const tile of [0, 1]) {
    const epis = r.blocks.filter((b) => b.kind === "epilogue" && b.tile === tile);
    assert.equal(epis.length, 2);
    assert.equal(epis[0].start, epis[1].start);
  }
  assert.ok(r.blocks.some((b) => b.kind === "wait" && b.reason === "epilogue"));
});

test("without the scheduler barrier the WGs' GEMMs interleave on the in-order tensor core", () => {
  const r = KS.simulate(null, knobs({ consumerWGs: 2, kvBlocks: 2, stages: 4 }));
  const g = r.blocks.filter((b) => b.kind === "gemm0" || b.kind === "gemm1").sort((a, b) => a.start - b.start);
  for (let i = 1; i < g.length; i++) assert.ok(g[i].start >= g[i - 1].end, "one GEMM at a time");
  assert.ok(r.blocks.some((b) => b.kind === "wait" && b.reason === "tensor-core"));
});

test("deadlock: a shared K/V ring of one stage cannot hold K(j+1) and V(j) with intra-WG overlap", () => {
  const r = KS.simulate(sharedKV(), { stages: 1, intraWGOverlap: true, consumerWGs: 1 });
  assert.equal(r.error, null);
  assert.ok(r.deadlock);
  assert.ok(r.deadlock.waiting.some((w) => w.lane === "producer" && /empty\[0\]/.test(w.barrier)));
  assert.equal(KS.simulate(sharedKV(), { stages: 2, intraWGOverlap: true, consumerWGs: 1 }).deadlock, null);
});

// ------------------------------------------------------------------------------------------------
// Randomized invariants.

/** Invariants of one attention result. */
function checkInvariants(r, kn, msg) {
  assert.equal(r.error, null, msg);
  assert.equal(r.deadlock, null, msg);
  const blocks = r.blocks;
  const laneIds = r.lanes.map((l) => l.id);
  assert.ok(blocks.length <= KS.estimateBlockCount(kn), msg + " estimate");
  blocks.forEach((b, i) => {
    assert.equal(b.id, i, msg);
    assert.ok(KS.ATTENTION_BLOCK_KINDS.includes(b.kind), msg);
    assert.ok(b.start < b.end && Number.isInteger(b.start), msg);
    for (const a of b.after) assert.ok(blocks[a].end <= b.start, msg);
    if (b.kind === "wait") assert.ok(KS.ATTENTION_WAIT_REASONS.includes(b.reason), msg);
  });
  for (const lane of laneIds) {
    const ids = r.laneBlocks[lane];
    for (let i = 1; i < ids.length; i++) assert.ok(blocks[ids[i]].start >= blocks[ids[i - 1]].end, msg + " overlap on " + lane);
  }
  // One GEMM at a time on the tensor core.
  const g = blocks.filter((b) => b.kind === "gemm0" || b.kind === "gemm1").sort((a, b) => a.start - b.start);
  for (let i = 1; i < g.length; i++) assert.ok(g[i].start >= g[i - 1].end, msg + " tensor core");
  const C = kn.consumerWGs, O = kn.outputTiles, J = kn.kvBlocks;
  assert.equal(g.length, 2 * C * O * J, msg);
  // Each GEMM after its operand landed (the FULL or filling block of that item ends before it).
  const landed = (operand, tile, k) => {
    const xs = blocks.filter((b) => b.operand === operand && b.tile === tile && b.k === k &&
      (b.kind === "filling" || b.kind === "issue" || b.kind === "transpose"));
    return Math.max(...xs.map((b) => b.end));
  };
  for (const b of g) {
    if (b.kind === "gemm0") assert.ok(b.start >= landed("K", b.tile, b.k), msg + " K landed");
    else if (!kn.transposeV) assert.ok(b.start >= landed("V", b.tile, b.k), msg + " V landed");
  }
  // Epilogue of tile t after every GEMM1 of tile t of its WG.
  for (const e of blocks.filter((b) => b.kind === "epilogue")) {
    const wgLane = e.lane;
    for (const b of g) if (b.lane === wgLane && b.tile === e.tile) assert.ok(e.start >= b.end, msg);
  }
  for (let c = 0; c < C; c++) {
    const expected = {};
    for (const reason of ATTENTION_WAIT_PRIORITY) expected[reason] = 0;
    expected.total = 0;
    for (const b of blocks) if (b.lane === "consumer" + c && b.kind === "wait") { expected[b.reason] += b.end - b.start; expected.total += b.end - b.start; }
    assert.deepEqual(r.verdict.waits["consumer" + c], expected, msg);
  }
  assert.equal(r.total, Math.max(0, ...blocks.map((b) => b.end)), msg);
}

/** Random attention knobs from a PRNG. */
function randomKnobs(rand) {
  return {
    model: "attention",
    stages: randInt(rand, 1, 5),
    outputTiles: randInt(rand, 1, 4),
    kvBlocks: randInt(rand, 1, 6),
    tmaLatency: randInt(rand, 0, 8),
    gemm0Latency: randInt(rand, 1, 4),
    softmaxLatency: randInt(rand, 1, 6),
    gemm1Latency: randInt(rand, 1, 4),
    epilogueLatency: randInt(rand, 0, 6),
    consumerWGs: randInt(rand, 1, 2),
    intraWGOverlap: rand() < 0.5,
    interWGPingpong: rand() < 0.5,
    transposeV: rand() < 0.3
  };
}

test("randomized invariants (seeded): separate K/V, Transpose_V, and the real FA3 structure", () => {
  const rand = mulberry32(99);
  const fa3 = readJson("examples/fa3_fwd.json");
  for (let run = 0; run < 250; run++) {
    const kn = randomKnobs(rand);
    const structure = run % 3 === 0 ? fa3 : run % 3 === 1 ? fa3Like() : null;
    // On FA3's own structure Transpose_V and the scheduler barrier are derived (bf16: off / by
    // UseSchedulerBarrier), whatever the knobs ask: the run's own knobs decide.
    const r = KS.simulate(structure, kn);
    if (structure === fa3) Object.assign(kn, { transposeV: r.knobs.transposeV, interWGPingpong: r.knobs.interWGPingpong });
    if (kn.transposeV && kn.stages === 1 && kn.kvBlocks >= 2) {
      // Vt(j) is loaded before the transpose of Vt(j-1) frees its stage: one Vt stage deadlocks.
      assert.ok(r.deadlock && r.deadlock.waiting.some((w) => /Vt\.empty/.test(w.barrier)), JSON.stringify(kn));
      continue;
    }
    checkInvariants(r, kn, "run " + run + " " + JSON.stringify(kn));
  }
});

test("randomized invariants (seeded): 88-style shared K/V pipeline (S >= 2)", () => {
  const rand = mulberry32(5);
  for (let run = 0; run < 120; run++) {
    const kn = Object.assign(randomKnobs(rand), { transposeV: false });
    kn.stages = Math.max(2, kn.stages);
    const r = KS.simulate(sharedKV(), kn);
    checkInvariants(r, kn, "run " + run + " " + JSON.stringify(kn));
  }
});

test("determinism: two calls deep-equal", () => {
  const kn = { model: "attention", outputTiles: 5, kvBlocks: 7, intraWGOverlap: true, interWGPingpong: true };
  const a = KS.simulate(fa3Like(), kn);
  const b = KS.simulate(fa3Like(), kn);
  assert.deepEqual(a, b);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
});

// ------------------------------------------------------------------------------------------------
// The insight: intra-WG overlap + inter-WG pingpong keep the tensor core busier and finish sooner.

/** Both refinements off and on at the same knobs. */
function offOn(kn, structure) {
  const off = KS.simulate(structure || null, Object.assign({}, kn, { intraWGOverlap: false, interWGPingpong: false }));
  const on = KS.simulate(structure || null, Object.assign({}, kn, { intraWGOverlap: true, interWGPingpong: true }));
  return { off, on };
}

test("insight at the defaults: both overlaps on beat both off", () => {
  const { off, on } = offOn({ model: "attention" });
  assert.ok(on.total < off.total, on.total + " < " + off.total);
  assert.ok(on.verdict.tensorCoreUtilization > off.verdict.tensorCoreUtilization);
  assert.ok(on.verdict.exposedSoftmaxSteps < off.verdict.exposedSoftmaxSteps);
  assert.ok(on.verdict.exposedSoftmaxSteps <= 1);
  // The real FA3 structure draws the same schedule (plus its Vt transposes).
  const fa3 = offOn({}, readJson("examples/fa3_fwd.json"));
  assert.equal(fa3.on.model, "attention");
  assert.ok(fa3.on.total < fa3.off.total);
});

test("insight over randomized knobs (ample stages): both overlaps on never lose", () => {
  const rand = mulberry32(4242);
  let strict = 0;
  for (let checked = 0; checked < 300; checked++) {
    const kn = Object.assign(randomKnobs(rand), { consumerWGs: 2, transposeV: false });
    kn.stages = 4 + kn.tmaLatency;
    const { off, on } = offOn(kn);
    const msg = JSON.stringify(kn);
    assert.ok(on.total <= off.total, msg + ": total " + on.total + " vs " + off.total);
    if (on.total < off.total) strict++;
  }
  assert.ok(strict > 150, "strictly better in " + strict);
});

// ------------------------------------------------------------------------------------------------
// Model selection, knobs, block cap.

test("defaultModel: GEMM-like -> gemm; K/V(/Vt) pipelines or 88's shared K/V -> attention", () => {
  assert.equal(KS.defaultModel(null), "gemm");
  // No pipeline op: no model fits, and none is offered (the page shows the no-model page).
  assert.equal(KS.defaultModel({}), null);
  // An mma with no pipeline protocol: no model (defaultModel is the fit's model, never a shape guess).
  assert.equal(KS.defaultModel(gemmLike()), null);
  assert.equal(KS.defaultModel(fa3Like()), "attention");
  assert.equal(KS.defaultModel(sharedKV()), "attention");
  // Declarations alone run nothing: no op, no model (a page that drew FA3 here would be a guess).
  assert.equal(KS.defaultModel({ pipelines: [{ alias: "MainloopPipelineK" }, { alias: "MainloopPipelineV" }] }), null);
  assert.equal(KS.defaultModel({ buffers: [{ operand: "K" }, { operand: "V" }] }), null);
  assert.equal(KS.defaultModel(readJson("examples/fa3_fwd.json")), "attention");
  assert.equal(KS.defaultModel(readJson("examples/sm90_gemm_pingpong.json")), "gemm");
  assert.equal(KS.defaultModel(readJson("tests/fixtures/fa3_style_mainloop.parsed.json")), "attention");

  // A structure with an mma but no pipeline protocol fits no model: no schedule unless asked for.
  const none = KS.simulate(gemmLike(), {});
  assert.equal(none.model, null);
  assert.equal(none.error, null);
  assert.deepEqual(none.blocks, []);
  assert.match(none.verdict.summary, /^No schedule model fits this kernel: no pipeline operation/);
  const gemm = KS.simulate(gemmLike(), { model: "gemm" });
  assert.equal(gemm.model, "gemm");
  assert.equal(gemm.total, 48);
  assert.match(gemm.messages.join("\n"), /model gemm was asked for, but no schedule model fits/);
  const att = KS.simulate(fa3Like(), {});
  assert.equal(att.model, "attention");
  assert.deepEqual(att.knobs, Object.assign({}, KS.ATTENTION_DEFAULT_KNOBS, { transposeV: true }), "a Vt pipeline: Transpose_V");
  const ids = att.lanes.map((l) => l.id);
  assert.ok(ids.includes("vt_stage0") && ids.includes("vt_stage1") && ids.includes("consumer1_softmax"));
  const shared = KS.simulate(sharedKV(), {});
  assert.deepEqual(shared.lanes.map((l) => l.id), ["producer", "q_stage0", "kv_stage0", "kv_stage1",
    "consumer0", "consumer0_softmax", "consumer1", "consumer1_softmax"]);
  // An explicit model wins over the structure.
  assert.equal(KS.simulate(fa3Like(), { model: "gemm" }).model, "gemm");
  assert.equal(KS.simulate(gemmLike(), { model: "attention" }).model, "attention");
  assert.equal(KS.normalizeKnobs({}, fa3Like()).knobs.model, "attention");
  assert.equal(KS.normalizeKnobs({}).knobs.model, "gemm");
});

test("attention knob validation: clamps, rounds, flags, unknown knobs", () => {
  const { knobs: k, messages } = KS.normalizeKnobs({
    model: "attention", stages: 0, outputTiles: "3", kvBlocks: 1e9, tmaLatency: -2, gemm0Latency: 2.5,
    softmaxLatency: "x", gemm1Latency: 0, epilogueLatency: null, consumerWGs: 4,
    intraWGOverlap: "on", interWGPingpong: "maybe", kTiles: 4
  });
  assert.deepEqual(k, {
    model: "attention", stages: 1, outputTiles: 3, kvBlocks: 4096, tmaLatency: 0, gemm0Latency: 3,
    softmaxLatency: KS.ATTENTION_DEFAULT_KNOBS.softmaxLatency, gemm1Latency: 1,
    epilogueLatency: KS.ATTENTION_DEFAULT_KNOBS.epilogueLatency, consumerWGs: 3,
    intraWGOverlap: true, interWGPingpong: false, transposeV: false
  });
  const text = messages.join("\n");
  for (const name of ["stages", "kvBlocks", "tmaLatency", "gemm0Latency", "softmaxLatency", "gemm1Latency",
    "consumerWGs", "interWGPingpong"]) {
    assert.match(text, new RegExp("^" + name + ": ", "m"), name);
  }
  assert.match(text, /unknown knob "kTiles" ignored/);
  assert.doesNotMatch(text, /^(outputTiles|intraWGOverlap|epilogueLatency):/m);
  for (const [value, expected] of [[true, true], [false, false], [1, true], [0, false], ["true", true], ["OFF", false], ["yes", true]]) {
    assert.equal(KS.normalizeKnobs({ model: "attention", intraWGOverlap: value }).knobs.intraWGOverlap, expected, String(value));
  }
  assert.deepEqual(KS.normalizeKnobs({ model: "attention" }), { knobs: KS.ATTENTION_DEFAULT_KNOBS, messages: [] });
});

test("knobsFor lists each model's knob specs in display order", () => {
  // Without a structure every knob, FA3's compile-time inputs (headDim, dtype) included.
  const att = KS.knobsFor("attention");
  assert.deepEqual(att.map((s) => s.name), ["stages", "outputTiles", "kvBlocks", "tmaLatency", "gemm0Latency",
    "softmaxLatency", "gemm1Latency", "epilogueLatency", "consumerWGs", "intraWGOverlap", "interWGPingpong", "transposeV",
    "headDim", "dtype"]);
  assert.deepEqual(att.find((s) => s.name === "dtype").choices, ["bf16", "fp16", "fp8"]);
  for (const spec of att.filter((s) => s.name !== "headDim" && s.name !== "dtype")) {
    assert.equal(spec.default, KS.ATTENTION_DEFAULT_KNOBS[spec.name]);
    assert.equal(typeof spec.label, "string");
    if (spec.type === "range") assert.ok(spec.min <= spec.default && spec.default <= spec.max, spec.name);
    else assert.equal(spec.type, "flag");
  }
  const gemm = KS.knobsFor("gemm");
  assert.deepEqual(gemm.map((s) => s.name), Object.keys(KS.KNOB_RANGES).concat(["schedule"]));
  assert.deepEqual(gemm[gemm.length - 1].choices, ["pingpong", "cooperative"]);
  assert.deepEqual(KS.knobsFor("nope"), []);
  assert.deepEqual(KS.MODEL_NAMES, ["gemm", "attention", "blackwell", "program"]);
  assert.deepEqual(KS.knobsFor("program").map((s) => s.name), ["stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "kPipeMmas",
    "accStages", "ummaLatency", "tmemLoadLatency", "storeLatency", "kvBlocks", "qBlocks", "softmaxLatency", "mathLatency", "reduceLatency", "kBlocks", "scaleKBlocks", "tileDQK", "sfVecSize", "utccpReuse", "clcLatency", "schedStages", "elementBits", "consumerWGs"]);
  assert.deepEqual(KS.ATTENTION_WAIT_REASONS, ATTENTION_WAIT_PRIORITY);
});

test("attention block cap: over the limit returns an error and no blocks, quickly", () => {
  const kn = { model: "attention", outputTiles: 4096, kvBlocks: 4096 };
  const t0 = process.hrtime.bigint();
  const r = KS.simulate(fa3Like(), kn);
  assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 200);
  assert.deepEqual(r.blocks, []);
  assert.match(r.error, /too many blocks/);
  assert.match(r.error, /kvBlocks \(J\)/);
  assert.ok(r.lanes.some((l) => l.id === "vt_stage0"));
  assert.ok(KS.estimateBlockCount(kn) > KS.MAX_BLOCKS);
  // The empty verdict has the attention verdict's fields (no GEMM-only minStagesToHideTma).
  assert.deepEqual(Object.keys(r.verdict), Object.keys(KS.simulate(fa3Like(), {}).verdict));
  assert.equal(r.verdict.summary, r.error);
});

// ------------------------------------------------------------------------------------------------
// Source references.

const lineNumbers = (refs) => refs.map((ref) => ref.line);

test("attention blocks carry shared source refs from an FA3-like structure", () => {
  const r = KS.simulate(fa3Like(), { stages: 2, outputTiles: 2, kvBlocks: 2, tmaLatency: 6, consumerWGs: 2,
    interWGPingpong: true, epilogueLatency: 2 });
  assert.deepEqual(r.functions, { producer: { name: "load", line: 30, end_line: 80 }, consumer: { name: "mma", line: 100, end_line: 160 } });
  const byKey = {};
  for (const b of r.blocks) {
    // A tensor-core wait cites the queued GEMM's lines (GEMM0's or GEMM1's).
    const key = b.kind === "wait" ? "wait:" + b.reason + (b.reason === "tensor-core" ? ":" + b.lines[0].line : "") : b.kind === "issue" || b.kind === "filling" || b.kind === "full" ? b.kind + ":" + b.operand : b.kind;
    if (byKey[key]) assert.equal(b.lines, byKey[key], "refs shared by reference: " + key);
    else byKey[key] = b.lines;
  }
  assert.deepEqual(lineNumbers(byKey.gemm0), [110, 112, 114]);
  assert.deepEqual(lineNumbers(byKey.softmax), [115]);
  assert.deepEqual(lineNumbers(byKey.gemm1), [120, 121, 124]);
  assert.deepEqual(lineNumbers(byKey["issue:K"]), [40, 41, 42]);
  assert.deepEqual(lineNumbers(byKey["issue:Vt"]), [45, 46]);
  assert.deepEqual(lineNumbers(byKey["issue:Q"]), [60]);
  assert.deepEqual(lineNumbers(byKey["filling:K"]), [41]);
  assert.deepEqual(lineNumbers(byKey["full:K"]), [110]);
  assert.deepEqual(lineNumbers(byKey.transpose), [50, 51, 53, 54]);
  assert.deepEqual(lineNumbers(byKey.epilogue), [50]);
  assert.equal(byKey.epilogue[0].path, "toy_kernel.h");
  assert.deepEqual(lineNumbers(KS.attentionRefs(fa3Like()).barrier), [111, 122]);
  if (byKey["wait:barrier"]) assert.deepEqual(lineNumbers(byKey["wait:barrier"]), [111, 122]);
  if (byKey["wait:k"]) assert.deepEqual(lineNumbers(byKey["wait:k"]), [110]);
  if (byKey["wait:v"]) assert.deepEqual(lineNumbers(byKey["wait:v"]), [120]);
  assert.deepEqual(byKey.gemm0[1], { path: "toy_fa3.hpp", line: 112, end_line: 112, op: "mma", text: "mma@112" });
  assert.ok(Object.isFrozen(byKey.gemm0) && Object.isFrozen(byKey.gemm0[0]));
  const refs = KS.attentionRefs(fa3Like());
  assert.deepEqual(lineNumbers(refs.releaseK), [114]);
  assert.deepEqual(lineNumbers(refs.releaseV), [124]);
});

test("attention refs of the committed FA3 forward mainloop and the FA3-style fixture", () => {
  const refs = KS.attentionRefs(readJson("examples/fa3_fwd.json"));
  assert.equal(refs.shape.vt, true);
  assert.deepEqual(refs.producer, { name: "load", line: 591, end_line: 891 });
  assert.deepEqual(refs.consumer, { name: "mma", line: 955, end_line: 1352 });
  assert.ok(lineNumbers(refs.gemm0).includes(1141) && lineNumbers(refs.gemm0).includes(1177));
  assert.ok(lineNumbers(refs.gemm1).includes(1182) && lineNumbers(refs.gemm1).includes(1297));
  assert.deepEqual(lineNumbers(refs.transpose), [781, 782, 786, 790]);
  // Q: the TMA copy plus barrier_Q's arrive_and_expect_tx (819) and, from the non-TMA branch that
  // is read too, barrier_Q.arrive() (836); the consumer waits on barrier_Q.wait(work_idx % 2).
  assert.deepEqual(lineNumbers(refs.issueQ), [819, 820, 836]);
  assert.deepEqual(lineNumbers(refs.fullQ), [1096, 1111, 1118, 1125]);
  assert.deepEqual(refs.waitQ, refs.fullQ);
  assert.deepEqual(lineNumbers(refs.epilogue), [444]);
  assert.deepEqual(lineNumbers(refs.barrier).slice(0, 2), [1176, 1183]);
  assert.deepEqual(lineNumbers(refs.releaseK), [1143, 1185, 1269, 1278]);

  const fixture = readJson("tests/fixtures/fa3_style_mainloop.parsed.json");
  const f = KS.attentionRefs(fixture);
  // schema v2: an op inside a lambda keeps its own line (84, 85); the call site is op.via.line
  assert.deepEqual(lineNumbers(f.gemm0), [84, 85, 89, 92]);
  assert.deepEqual(lineNumbers(f.softmax), [93]);
  assert.deepEqual(lineNumbers(f.gemm1), [84, 85, 95, 97]);
  assert.deepEqual(lineNumbers(f.transpose), [52, 53, 55, 56]);
  assert.deepEqual(lineNumbers(f.issueQ), [58]);
  const r = KS.simulate(fixture, { kvBlocks: 3 });
  assert.equal(r.model, "attention");
  assert.ok(r.blocks.every((b) => b.lines.every((ref) => ref.path === "tests/fixtures/fa3_style_mainloop.hpp")));
});
