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
    intraWGOverlap: false, interWGPingpong: false
  }, overrides);
}

/** The documented tie-break order of attention wait reasons (spelled out, not read from the code). */
const ATTENTION_WAIT_PRIORITY = ["barrier", "q", "k", "v"];

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
// Hand-worked cases: every block written out.

test("hand case: plain, C=1 S=2 O=1 J=2 L=1 G0=X=G1=E=1", () => {
  const r = KS.simulate(null, knobs({}));
  assert.equal(r.error, null);
  assert.equal(r.model, "attention");
  assert.deepEqual(r.lanes.map((l) => l.id), ["producer", "q_stage0", "k_stage0", "k_stage1", "v_stage0", "v_stage1",
    "consumer0", "consumer0_softmax"]);
  assert.deepEqual(r.blocks.map(row), [
    // Load warp: K[0], Q, V[0], K[1], V[1], one step each (every stage still free).
    ["producer", "issue", 0, 1, 0, 0, 0, null, "K"],
    ["producer", "issue", 1, 2, 0, null, 0, null, "Q"],
    ["producer", "issue", 2, 3, 0, 0, 0, null, "V"],
    ["producer", "issue", 3, 4, 0, 1, 1, null, "K"],
    ["producer", "issue", 4, 5, 0, 1, 1, null, "V"],
    ["q_stage0", "filling", 2, 3, 0, null, 0, null, "Q"],
    ["k_stage0", "filling", 1, 2, 0, 0, 0, null, "K"],
    ["k_stage0", "full", 2, 3, 0, 0, 0, null, "K"],
    ["k_stage1", "filling", 4, 5, 0, 1, 1, null, "K"],
    ["k_stage1", "full", 5, 6, 0, 1, 1, null, "K"],
    ["v_stage0", "filling", 3, 4, 0, 0, 0, null, "V"],
    ["v_stage0", "full", 4, 5, 0, 0, 0, null, "V"],
    ["v_stage1", "filling", 5, 6, 0, 1, 1, null, "V"],
    ["v_stage1", "full", 6, 8, 0, 1, 1, null, "V"],
    // Q is full last (at 3): the first GEMM0 waits for it.
    ["consumer0", "wait", 0, 3, 0, 0, 0, "q", null],
    ["consumer0", "gemm0", 3, 4, 0, 0, 0, null, null],
    ["consumer0", "gemm1", 5, 6, 0, 0, 0, null, null],
    ["consumer0", "gemm0", 6, 7, 0, 1, 1, null, null],
    ["consumer0", "gemm1", 8, 9, 0, 1, 1, null, null],
    ["consumer0", "epilogue", 9, 10, 0, null, null, null, null],
    ["consumer0_softmax", "softmax", 4, 5, 0, 0, null, null, null],
    ["consumer0_softmax", "softmax", 7, 8, 0, 1, null, null, null]
  ]);
  assert.equal(r.total, 10);
  assert.deepEqual(r.verdict.waits, { consumer0: { barrier: 0, q: 3, k: 0, v: 0, total: 3 } });
  assert.equal(r.verdict.tensorCoreBusySteps, 4);
  assert.equal(r.verdict.tensorCoreUtilization, 4 / 10);
  assert.equal(r.verdict.softmaxSteps, 2);
  assert.equal(r.verdict.exposedSoftmaxSteps, 2);
  assert.match(r.verdict.summary, /^attention \(no intra-WG overlap, 1 consumer WG\): 10 steps/);
});

test("hand case: intraWGOverlap, same knobs: softmax(1) overlaps GEMM1(0)", () => {
  const r = KS.simulate(null, knobs({ intraWGOverlap: true }));
  assert.deepEqual(r.blocks.map(row), [
    // FA3's order with the overlap: K[0], Q, K[1], V[0], V[1] (K one block ahead of V).
    ["producer", "issue", 0, 1, 0, 0, 0, null, "K"],
    ["producer", "issue", 1, 2, 0, null, 0, null, "Q"],
    ["producer", "issue", 2, 3, 0, 1, 1, null, "K"],
    ["producer", "issue", 3, 4, 0, 0, 0, null, "V"],
    ["producer", "issue", 4, 5, 0, 1, 1, null, "V"],
    ["q_stage0", "filling", 2, 3, 0, null, 0, null, "Q"],
    ["k_stage0", "filling", 1, 2, 0, 0, 0, null, "K"],
    ["k_stage0", "full", 2, 3, 0, 0, 0, null, "K"],
    ["k_stage1", "filling", 3, 4, 0, 1, 1, null, "K"],
    ["k_stage1", "full", 4, 5, 0, 1, 1, null, "K"],
    ["v_stage0", "filling", 4, 5, 0, 0, 0, null, "V"],
    ["v_stage0", "full", 5, 6, 0, 0, 0, null, "V"],
    ["v_stage1", "filling", 5, 6, 0, 1, 1, null, "V"],
    ["v_stage1", "full", 6, 7, 0, 1, 1, null, "V"],
    ["consumer0", "wait", 0, 3, 0, 0, 0, "q", null],
    ["consumer0", "gemm0", 3, 4, 0, 0, 0, null, null],
    ["consumer0", "gemm0", 5, 6, 0, 1, 1, null, null],
    ["consumer0", "gemm1", 6, 7, 0, 0, 0, null, null],
    ["consumer0", "gemm1", 7, 8, 0, 1, 1, null, null],
    ["consumer0", "epilogue", 8, 9, 0, null, null, null, null],
    ["consumer0_softmax", "softmax", 4, 5, 0, 0, null, null, null],
    ["consumer0_softmax", "softmax", 6, 7, 0, 1, null, null, null]
  ]);
  assert.equal(r.total, 9);
  assert.equal(r.verdict.tensorCoreBusySteps, 4);
  assert.equal(r.verdict.exposedSoftmaxSteps, 1); // softmax(0) at step 4; softmax(1) hides under GEMM1(0)
  // GEMM1(0) and softmax(1) start together and depend on the same blocks.
  const g1 = r.blocks.find((b) => b.kind === "gemm1" && b.k === 0);
  const sm = r.blocks.find((b) => b.kind === "softmax" && b.k === 1);
  assert.deepEqual(sm.after, g1.after);
});

test("hand case: interWGPingpong, C=2 S=2 O=1 J=1 L=0 G0=2 X=1 G1=1 E=0", () => {
  const r = KS.simulate(null, knobs({ consumerWGs: 2, interWGPingpong: true, kvBlocks: 1, tmaLatency: 0,
    gemm0Latency: 2, epilogueLatency: 0 }));
  assert.deepEqual(r.lanes.map((l) => l.id).slice(-4), ["consumer0", "consumer0_softmax", "consumer1", "consumer1_softmax"]);
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, "K"],
    ["producer", "issue", 1, 2, 0, null, 0, null, "Q"],
    ["producer", "issue", 2, 3, 0, 0, 0, null, "V"],
    // L = 0: no filling blocks; a stage is FULL from its issue's end until its first use.
    ["k_stage0", "full", 1, 2, 0, 0, 0, null, "K"],
    ["v_stage0", "full", 3, 6, 0, 0, 0, null, "V"],
    ["consumer0", "wait", 0, 2, 0, 0, 0, "q", null],
    ["consumer0", "gemm0", 2, 4, 0, 0, 0, null, null],
    // WG0's GEMM1 phase waits for WG1's GEMM0 phase (the named barrier alternates them).
    ["consumer0", "wait", 5, 6, 0, 0, 0, "barrier", null],
    ["consumer0", "gemm1", 6, 7, 0, 0, 0, null, null],
    ["consumer0_softmax", "softmax", 4, 5, 0, 0, null, null, null],
    ["consumer1", "wait", 0, 4, 0, 0, 0, "barrier", null],
    ["consumer1", "gemm0", 4, 6, 0, 0, 0, null, null],
    ["consumer1", "gemm1", 7, 8, 0, 0, 0, null, null],
    ["consumer1_softmax", "softmax", 6, 7, 0, 0, null, null, null]
  ]);
  assert.equal(r.total, 8);
  assert.equal(r.verdict.tensorCoreBusySteps, 6);
  assert.equal(r.verdict.exposedSoftmaxSteps, 0);
  assert.deepEqual(r.verdict.waits.consumer0, { barrier: 1, q: 2, k: 0, v: 0, total: 3 });
  assert.deepEqual(r.verdict.waits.consumer1, { barrier: 4, q: 0, k: 0, v: 0, total: 4 });
});

test("hand case: C=2 without pingpong runs the WGs in lockstep at twice the GEMM latency", () => {
  const r = KS.simulate(null, knobs({ consumerWGs: 2, kvBlocks: 1, tmaLatency: 0, gemm0Latency: 2, epilogueLatency: 0 }));
  const lane = (id) => r.blocks.filter((b) => b.lane === id).map((b) => row(b).slice(1));
  assert.deepEqual(lane("consumer0"), [
    ["wait", 0, 2, 0, 0, 0, "q", null],
    ["gemm0", 2, 6, 0, 0, 0, null, null],
    ["gemm1", 7, 9, 0, 0, 0, null, null]
  ]);
  assert.deepEqual(lane("consumer0_softmax"), [["softmax", 6, 7, 0, 0, null, null, null]]);
  assert.deepEqual(lane("consumer1"), lane("consumer0"));
  assert.deepEqual(lane("consumer1_softmax"), lane("consumer0_softmax"));
  assert.equal(r.total, 9);
  assert.equal(r.verdict.tensorCoreBusySteps, 6);
  assert.equal(r.verdict.exposedSoftmaxSteps, 1);
});

test("hand case: Vt pipeline, the load warp transposes Vt -> V", () => {
  const r = KS.simulate(fa3Like(), knobs({ stages: 1, kvBlocks: 1, epilogueLatency: 0 }));
  assert.deepEqual(r.lanes.map((l) => l.id), ["producer", "q_stage0", "k_stage0", "v_stage0", "vt_stage0",
    "consumer0", "consumer0_softmax"]);
  assert.deepEqual(r.blocks.map(row), [
    ["producer", "issue", 0, 1, 0, 0, 0, null, "K"],
    ["producer", "issue", 1, 2, 0, null, 0, null, "Q"],
    ["producer", "issue", 2, 3, 0, 0, 0, null, "Vt"],
    // The transpose waits for the Vt fill (3..4), then V[0] is full when it ends.
    ["producer", "transpose", 4, 5, 0, 0, 0, null, "V"],
    ["q_stage0", "filling", 2, 3, 0, null, 0, null, "Q"],
    ["k_stage0", "filling", 1, 2, 0, 0, 0, null, "K"],
    ["k_stage0", "full", 2, 3, 0, 0, 0, null, "K"],
    ["vt_stage0", "filling", 3, 4, 0, 0, 0, null, "Vt"],
    ["consumer0", "wait", 0, 3, 0, 0, 0, "q", null],
    ["consumer0", "gemm0", 3, 4, 0, 0, 0, null, null],
    ["consumer0", "gemm1", 5, 6, 0, 0, 0, null, null],
    ["consumer0_softmax", "softmax", 4, 5, 0, 0, null, null, null]
  ]);
  const transpose = r.blocks.find((b) => b.kind === "transpose");
  assert.deepEqual(transpose.after, [r.blocks.findIndex((b) => b.lane === "vt_stage0")]);
});

test("load warp order per tile (FA3's): K one block ahead of V with intraWGOverlap", () => {
  const order = (structure, intra) => KS.simulate(structure, knobs({ stages: 4, kvBlocks: 3, intraWGOverlap: intra }))
    .blocks.filter((b) => b.lane === "producer").map((b) => (b.kind === "transpose" ? "T" : b.operand) + (b.k === null ? "" : b.k));
  assert.deepEqual(order(null, false), ["K0", "Q", "V0", "K1", "V1", "K2", "V2"]);
  assert.deepEqual(order(null, true), ["K0", "Q", "K1", "V0", "K2", "V1", "V2"]);
  assert.deepEqual(order(fa3Like(), false), ["K0", "Q", "Vt0", "T0", "K1", "Vt1", "T1", "K2", "Vt2", "T2"]);
  assert.deepEqual(order(fa3Like(), true), ["K0", "Q", "Vt0", "K1", "T0", "Vt1", "K2", "T1", "Vt2", "T2"]);
});

// ------------------------------------------------------------------------------------------------
// Randomized invariants.

/** Check every structural invariant of one attention result; msg tags failures. */
function checkAttention(r, kn, msg) {
  const { stages: S, outputTiles: O, kvBlocks: J, consumerWGs: C } = kn;
  const pingpong = C === 2 && kn.interWGPingpong;
  const share = pingpong ? 1 : C;
  const blocks = r.blocks;
  assert.equal(r.error, null, msg);
  const laneIds = r.lanes.map((l) => l.id);
  const vt = laneIds.includes("vt_stage0");
  const shared = laneIds.includes("kv_stage0");
  assert.ok(blocks.length <= KS.estimateBlockCount(kn), msg + " estimate is an upper bound");

  // Ids, kinds, extents, lane order and laneBlocks; no overlap on any lane.
  let lastLane = -1;
  blocks.forEach((b, i) => {
    assert.equal(b.id, i, msg);
    assert.ok(KS.ATTENTION_BLOCK_KINDS.includes(b.kind), msg + " kind " + b.kind);
    assert.ok(Number.isInteger(b.start) && Number.isInteger(b.end) && b.start >= 0 && b.start < b.end, msg);
    const li = laneIds.indexOf(b.lane);
    assert.ok(li >= lastLane, msg + " blocks sorted by lane");
    lastLane = li;
    assert.equal(b.reason === null, b.kind !== "wait", msg);
    if (b.kind === "wait") assert.ok(KS.ATTENTION_WAIT_REASONS.includes(b.reason), msg);
    for (const a of b.after) assert.ok(blocks[a].end <= b.start, msg + " after ends before start");
    if (b.start > 0 && b.kind !== "wait") {
      assert.ok(b.after.some((a) => blocks[a].end === b.start), msg + " binding dependency of " + JSON.stringify(b));
    }
  });
  for (const lane of laneIds) {
    const ids = r.laneBlocks[lane];
    assert.deepEqual(ids, blocks.filter((b) => b.lane === lane).map((b) => b.id), msg);
    for (let i = 1; i < ids.length; i++) assert.ok(blocks[ids[i]].start >= blocks[ids[i - 1]].end, msg + " overlap on " + lane);
  }
  assert.equal(r.total, Math.max(...blocks.map((b) => b.end)), msg);

  // Per WG: GEMM latencies, GEMM0(j) -> softmax(j) -> GEMM1(j), and the WG never idles without a wait.
  const gemm = {}; // "c:kind:o:j" -> block
  for (let c = 0; c < C; c++) {
    const own = blocks.filter((b) => b.lane === "consumer" + c || b.lane === "consumer" + c + "_softmax");
    const get = (kind, o, j) => own.find((b) => b.kind === kind && b.tile === o && b.k === j);
    for (let o = 0; o < O; o++) {
      for (let j = 0; j < J; j++) {
        const g0 = get("gemm0", o, j), sm = get("softmax", o, j), g1 = get("gemm1", o, j);
        assert.ok(g0 && sm && g1, msg + " blocks of " + [c, o, j]);
        assert.equal(g0.end - g0.start, kn.gemm0Latency * share, msg);
        assert.equal(g1.end - g1.start, kn.gemm1Latency * share, msg);
        assert.equal(sm.end - sm.start, kn.softmaxLatency, msg);
        assert.ok(sm.start >= g0.end, msg + " softmax(j) starts after GEMM0(j) ends");
        assert.ok(g1.start >= sm.end, msg + " GEMM1(j) starts after softmax(j) ends");
        gemm[[c, "gemm0", o, j].join(":")] = g0;
        gemm[[c, "gemm1", o, j].join(":")] = g1;
      }
    }
    // Coverage: from 0 to the WG's last end, every step is in some block of its two lanes; the
    // uncovered gaps are exactly the wait blocks.
    const sorted = own.slice().sort((a, b) => a.start - b.start || a.end - b.end);
    let t = 0;
    for (const b of sorted) {
      assert.ok(b.start <= t, msg + " idle gap without a wait on WG" + c + " at " + t);
      if (b.kind === "wait") assert.equal(b.start, t, msg + " wait starts where the WG went idle");
      t = Math.max(t, b.end);
    }
    const waits = { barrier: 0, q: 0, k: 0, v: 0, total: 0 };
    for (const b of own) if (b.kind === "wait") { waits[b.reason] += b.end - b.start; waits.total += b.end - b.start; }
    assert.deepEqual(r.verdict.waits["consumer" + c], waits, msg);
    if (!pingpong) assert.equal(waits.barrier, 0, msg);
  }

  // Stage reuse: an issue into a stage comes after every WG released the stage's previous item
  // (K after GEMM0, V after GEMM1 of that block; with Vt, V is written by the transpose).
  const lastEnd = (kind, o, j) => Math.max(...Array.from({ length: C }, (_, c) => gemm[[c, kind, o, j].join(":")].end));
  const producer = blocks.filter((b) => b.lane === "producer");
  if (!shared) {
    const kIssues = producer.filter((b) => b.operand === "K");
    const vWrites = producer.filter((b) => b.operand === "V");
    assert.equal(kIssues.length, O * J, msg);
    assert.equal(vWrites.length, O * J, msg);
    for (let n = S; n < O * J; n++) {
      const prev = n - S, o = Math.floor(prev / J), j = prev % J;
      assert.ok(kIssues[n].start >= lastEnd("gemm0", o, j), msg + " K refilled after its release");
      assert.ok(vWrites[n].start >= lastEnd("gemm1", o, j), msg + " V refilled after its release");
    }
    for (let n = 0; n < O * J; n++) {
      const o = Math.floor(n / J), j = n % J;
      for (let c = 0; c < C; c++) {
        assert.ok(gemm[[c, "gemm0", o, j].join(":")].start >= kIssues[n].end + (kn.tmaLatency), msg + " GEMM0 after K fill");
        assert.ok(gemm[[c, "gemm1", o, j].join(":")].start >= vWrites[n].end, msg + " GEMM1 after V write");
      }
    }
    if (vt) assert.equal(vWrites.filter((b) => b.kind === "transpose").length, O * J, msg);
  }
  // The load warp's equation, re-derived from the blocks: each producer block starts at the max of
  // the previous producer block's end and the release of its stage's previous item (R = the last
  // WG's release: K after GEMM0, V after GEMM1, Q after the tile's last GEMM0, Vt after its
  // transpose); a transpose also waits for its Vt fill.
  const L = kn.tmaLatency, stagesUsed = r.knobs.stages;
  const ringOf = (b) => b.operand === "Q" ? "Q" : shared ? "KV" : b.operand;
  const released = (b) => b.operand === "Q" ? lastEnd("gemm0", b.tile, J - 1)
    : b.operand === "K" ? lastEnd("gemm0", b.tile, b.k)
      : b.operand === "V" ? lastEnd("gemm1", b.tile, b.k)
        : producer.find((t) => t.kind === "transpose" && t.tile === b.tile && t.k === b.k).end;
  const items = { Q: [], K: [], V: [], Vt: [], KV: [] };
  producer.forEach((b, i) => {
    const ring = items[ringOf(b)];
    const size = b.operand === "Q" ? 1 : stagesUsed;
    const cands = [i > 0 ? producer[i - 1].end : 0, ring.length >= size ? released(ring[ring.length - size]) : 0];
    if (b.kind === "transpose") {
      cands.push(producer.find((x) => x.operand === "Vt" && x.tile === b.tile && x.k === b.k).end + L);
    }
    assert.equal(b.start, Math.max(...cands), msg + " producer equation of " + JSON.stringify(row(b)));
    ring.push(b);
  });

  // Consumer starts and wait reasons, re-derived: a GEMM phase starts at the max of the WG's free
  // time, its inputs' fill ends and (pingpong) the barrier; a wait's reason is the first of
  // barrier, q, k, v whose time equals that start. Phases: each GEMM (plain), or per tile
  // {GEMM0(0)}, {GEMM0(j), GEMM1(j-1)}..., {GEMM1(J-1)} (intraWGOverlap).
  const fillEnd = (operand, o, j) => { // V with Vt: the transpose writes it
    const b = producer.find((x) => x.operand === operand && x.tile === o && (operand === "Q" || x.k === j));
    return b.kind === "transpose" ? b.end : b.end + L;
  };
  const phases = [];
  for (let c = 0; c < C; c++) {
    const list = blocks.filter((b) => b.lane === "consumer" + c && (b.kind === "gemm0" || b.kind === "gemm1"));
    const ph = [];
    for (const b of list) {
      const opens = !kn.intraWGOverlap || b.kind === "gemm0" || b.k === J - 1;
      if (opens) ph.push([b]); else ph[ph.length - 1].push(b);
    }
    phases.push(ph);
  }
  for (let c = 0; c < C; c++) {
    const own = blocks.filter((b) => b.lane === "consumer" + c);
    phases[c].forEach((ph, p) => ph.forEach((b, pos) => {
      const cands = [[fillEnd(b.kind === "gemm0" ? "K" : "V", b.tile, b.k), b.kind === "gemm0" ? "k" : "v"]];
      if (b.kind === "gemm0" && b.k === 0) cands.push([fillEnd("Q", b.tile, null), "q"]);
      if (pingpong && pos === 0 && (c === 1 || p > 0)) {
        const other = phases[1 - c][c === 1 ? p : p - 1];
        cands.push([other[other.length - 1].end, "barrier"]);
      }
      const i = own.indexOf(b);
      const wait = i > 0 && own[i - 1].kind === "wait" ? own[i - 1] : null;
      const free = wait ? wait.start : b.start;
      assert.equal(b.start, Math.max(free, ...cands.map((x) => x[0])), msg + " start of " + JSON.stringify(row(b)));
      if (wait) {
        const bound = cands.filter((x) => x[0] === b.start).map((x) => x[1]);
        assert.equal(wait.reason, ATTENTION_WAIT_PRIORITY.find((reason) => bound.includes(reason)),
          msg + " reason before " + JSON.stringify(row(b)));
      }
    }));
  }

  // Stage lanes: filling then full, never two items at once (lane non-overlap checked above).
  for (const b of blocks) {
    if (b.lane.includes("_stage")) assert.ok(b.kind === "filling" || b.kind === "full", msg);
    if (b.lane === "producer") assert.ok(b.kind === "issue" || b.kind === "transpose", msg);
  }

  // Pingpong: the two WGs' GEMM blocks never overlap. Lockstep: identical WG lanes.
  const gemmsOf = (c) => blocks.filter((b) => b.lane === "consumer" + c && (b.kind === "gemm0" || b.kind === "gemm1"));
  if (pingpong) {
    for (const a of gemmsOf(0)) for (const b of gemmsOf(1)) assert.ok(a.end <= b.start || b.end <= a.start, msg + " pingpong overlap");
  } else if (C === 2) {
    const strip = (b) => [b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason];
    for (const suffix of ["", "_softmax"]) {
      assert.deepEqual(blocks.filter((b) => b.lane === "consumer1" + suffix).map(strip),
        blocks.filter((b) => b.lane === "consumer0" + suffix).map(strip), msg);
    }
  }

  // Verdict recomputed step by step.
  const busy = new Set(), soft = new Set();
  for (const b of blocks) {
    for (let t = b.start; t < b.end; t++) {
      if (b.kind === "gemm0" || b.kind === "gemm1") busy.add(t);
      if (b.kind === "softmax") soft.add(t);
    }
  }
  const exposed = [...soft].filter((t) => !busy.has(t)).length;
  assert.equal(r.verdict.tensorCoreBusySteps, busy.size, msg);
  assert.equal(r.verdict.tensorCoreUtilization, busy.size / r.total, msg);
  assert.equal(r.verdict.softmaxSteps, soft.size, msg);
  assert.equal(r.verdict.exposedSoftmaxSteps, exposed, msg);
  assert.equal(Object.keys(r.verdict.waits).length, C, msg);
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
    interWGPingpong: rand() < 0.5
  };
}

test("randomized invariants (seeded): separate K/V, Vt, and real FA3 structures", () => {
  const rand = mulberry32(20250611);
  const structures = [null, fa3Like(), readJson("examples/fa3_fwd.json")];
  for (let run = 0; run < 450; run++) {
    const kn = randomKnobs(rand);
    const structure = structures[run % structures.length];
    const r = KS.simulate(structure, kn);
    assert.deepEqual(r.messages, [], JSON.stringify(kn));
    assert.deepEqual(r.knobs, kn);
    checkAttention(r, kn, "run " + run + " " + JSON.stringify(kn));
  }
});

test("randomized invariants (seeded): 88-style shared K/V pipeline", () => {
  const rand = mulberry32(88);
  for (let run = 0; run < 150; run++) {
    const kn = randomKnobs(rand);
    const r = KS.simulate(sharedKV(), kn);
    const msg = "run " + run + " " + JSON.stringify(kn);
    if (kn.intraWGOverlap && kn.stages === 1) {
      // One shared stage cannot hold K[j+1] and V[j] together: simulate raises S to 2, with a message.
      assert.match(r.messages.join(), /^stages: 1 cannot hold/, msg);
      kn.stages = 2;
    }
    assert.deepEqual(r.knobs, kn, msg);
    assert.ok(r.lanes.some((l) => l.id === "kv_stage0") && !r.lanes.some((l) => l.id === "k_stage0"), msg);
    checkAttention(r, kn, msg);
    // One ring carries K and V alternately in issue order: issue n reuses the stage of issue n - S.
    const issues = r.blocks.filter((b) => b.lane === "producer" && b.operand !== "Q");
    const owner = (b) => r.blocks.filter((x) => x.tile === b.tile && x.k === b.k &&
      x.kind === (b.operand === "K" ? "gemm0" : "gemm1") && x.lane.startsWith("consumer"));
    for (let n = kn.stages; n < issues.length; n++) {
      assert.equal(issues[n].stage, n % kn.stages, msg);
      for (const g of owner(issues[n - kn.stages])) assert.ok(issues[n].start >= g.end, msg + " shared refill after release");
    }
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
  assert.equal(on.verdict.exposedSoftmaxSteps, 0);
  // The real FA3 structure draws the same schedule (plus its Vt transposes).
  const fa3 = offOn({}, readJson("examples/fa3_fwd.json"));
  assert.equal(fa3.on.model, "attention");
  assert.ok(fa3.on.total < fa3.off.total);
});

test("insight over randomized knobs, when S >= 2 and (S-1)(G0+X+G1) >= L+2", () => {
  // Outside that condition the run is load-bound: with intraWGOverlap the load warp issues K[j+1]
  // before V[j], so with one stage (or TMA latency above what the stages cover) V can arrive later
  // and the overlap can lose a few steps (e.g. S=1 O=1 J=2 L=5 G0=3 X=4 G1=2 E=1 C=1: 26 vs 30).
  const rand = mulberry32(4242);
  let strict = 0, checked = 0;
  while (checked < 400) {
    const kn = randomKnobs(rand);
    const { stages: S, tmaLatency: L, gemm0Latency: G0, softmaxLatency: X, gemm1Latency: G1 } = kn;
    if (!(S >= 2 && (S - 1) * (G0 + X + G1) >= L + 2)) continue;
    checked++;
    const { off, on } = offOn(kn);
    const msg = JSON.stringify(kn);
    assert.ok(on.total <= off.total, msg + ": total " + on.total + " vs " + off.total);
    assert.ok(on.verdict.tensorCoreUtilization >= off.verdict.tensorCoreUtilization, msg);
    if (kn.kvBlocks >= 2) {
      assert.ok(on.total < off.total && on.verdict.tensorCoreUtilization > off.verdict.tensorCoreUtilization, msg + " strictly");
      strict++;
    }
  }
  assert.ok(strict > 200);
  const { off, on } = offOn({ model: "attention", stages: 1, outputTiles: 1, kvBlocks: 2, tmaLatency: 5, gemm0Latency: 3,
    softmaxLatency: 4, gemm1Latency: 2, epilogueLatency: 1, consumerWGs: 1 });
  assert.deepEqual([off.total, on.total], [26, 30]);
});

// ------------------------------------------------------------------------------------------------
// Model selection, knobs, block cap.

test("defaultModel: GEMM-like -> gemm; K/V(/Vt) pipelines or 88's shared K/V -> attention", () => {
  assert.equal(KS.defaultModel(null), "gemm");
  assert.equal(KS.defaultModel({}), "gemm");
  assert.equal(KS.defaultModel(gemmLike()), "gemm");
  assert.equal(KS.defaultModel(fa3Like()), "attention");
  assert.equal(KS.defaultModel(sharedKV()), "attention");
  assert.equal(KS.defaultModel({ pipelines: [{ alias: "MainloopPipelineK" }, { alias: "MainloopPipelineV" }] }), "attention");
  // K and V buffers alone are not enough: both GEMMs (qk and pv) must be there too.
  assert.equal(KS.defaultModel({ buffers: [{ operand: "K" }, { operand: "V" }] }), "gemm");
  assert.equal(KS.defaultModel(readJson("examples/fa3_fwd.json")), "attention");
  assert.equal(KS.defaultModel(readJson("examples/sm90_gemm_pingpong.json")), "gemm");
  assert.equal(KS.defaultModel(readJson("tests/fixtures/fa3_style_mainloop.parsed.json")), "attention");

  const gemm = KS.simulate(gemmLike(), {});
  assert.equal(gemm.model, "gemm");
  assert.equal(gemm.total, 48);
  const att = KS.simulate(fa3Like(), {});
  assert.equal(att.model, "attention");
  assert.deepEqual(att.knobs, KS.ATTENTION_DEFAULT_KNOBS);
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
    softmaxLatency: "x", gemm1Latency: 0, epilogueLatency: null, consumerWGs: 3,
    intraWGOverlap: "on", interWGPingpong: "maybe", kTiles: 4
  });
  assert.deepEqual(k, {
    model: "attention", stages: 1, outputTiles: 3, kvBlocks: 4096, tmaLatency: 0, gemm0Latency: 3,
    softmaxLatency: KS.ATTENTION_DEFAULT_KNOBS.softmaxLatency, gemm1Latency: 1,
    epilogueLatency: KS.ATTENTION_DEFAULT_KNOBS.epilogueLatency, consumerWGs: 2,
    intraWGOverlap: true, interWGPingpong: false
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
  const att = KS.knobsFor("attention");
  assert.deepEqual(att.map((s) => s.name), ["stages", "outputTiles", "kvBlocks", "tmaLatency", "gemm0Latency",
    "softmaxLatency", "gemm1Latency", "epilogueLatency", "consumerWGs", "intraWGOverlap", "interWGPingpong"]);
  for (const spec of att) {
    assert.equal(spec.default, KS.ATTENTION_DEFAULT_KNOBS[spec.name]);
    assert.equal(typeof spec.label, "string");
    if (spec.type === "range") assert.ok(spec.min <= spec.default && spec.default <= spec.max, spec.name);
    else assert.equal(spec.type, "flag");
  }
  const gemm = KS.knobsFor("gemm");
  assert.deepEqual(gemm.map((s) => s.name), Object.keys(KS.KNOB_RANGES).concat(["schedule"]));
  assert.deepEqual(gemm[gemm.length - 1].choices, ["pingpong", "cooperative"]);
  assert.deepEqual(KS.knobsFor("nope"), []);
  assert.deepEqual(KS.MODEL_NAMES, ["gemm", "attention"]);
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
  const r = KS.simulate(fa3Like(), { stages: 1, outputTiles: 2, kvBlocks: 2, tmaLatency: 6, consumerWGs: 2,
    interWGPingpong: true, epilogueLatency: 2 });
  assert.deepEqual(r.functions, { producer: { name: "load", line: 30, end_line: 80 }, consumer: { name: "mma", line: 100, end_line: 160 } });
  const byKey = {};
  for (const b of r.blocks) {
    const key = b.kind === "wait" ? "wait:" + b.reason : b.kind === "issue" || b.kind === "filling" || b.kind === "full" ? b.kind + ":" + b.operand : b.kind;
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
  assert.deepEqual(lineNumbers(byKey["wait:barrier"]), [111, 122]);
  assert.deepEqual(lineNumbers(byKey["wait:k"]), [110]);
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
