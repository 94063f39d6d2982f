// Tests of the Blackwell (SM100) model of schedule.js: node --test tests/js/
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { mulberry32, randInt } = require("./prng.js");

const ROOT = path.join(__dirname, "..", "..");
const KS = require(path.join(ROOT, "schedule.js"));

/**
 * The CUTLASS 4.2 pair sm100_mma_warpspecialized.hpp + --kernel-layer sm100_gemm_tma_warpspecialized.hpp
 * as parse_cutlass.py (schema_version 2) writes it: parsed facts only.
 */
const PAIR = JSON.parse(fs.readFileSync(path.join(ROOT, "tests", "fixtures", "sm100_gemm_pair.parsed.json"), "utf8"));

/**
 * The same pair plus kernel-layer ops at their CUTLASS 4.2 lines (the CLC, throttle, accumulator
 * commit and load-order ops of sm100_gemm_tma_warpspecialized.hpp), written by hand in the op shape
 * of CONTRACT.md, to check that each role's blocks cite its own kernel-layer line.
 */
function pairWithKernelOps() {
  const st = JSON.parse(JSON.stringify(PAIR));
  const op = (kind, line, object, receiver) => ({ op: kind, line, end_line: line, object, pipeline: null, receiver, text: "" });
  st.kernel_layer.ops = [
    op("producer_acquire", 632, "clc_throttle_pipeline", "clc_throttle_pipeline"),
    op("producer_commit", 633, "clc_throttle_pipeline", "clc_throttle_pipeline"),
    op("order_arrive", 649, null, "load_order_barrier"),
    op("fetch_next_work", 664, "clc_pipeline", "scheduler.fetch_next_work"),
    op("consumer_wait", 692, "clc_throttle_pipeline", "clc_throttle_pipeline"),
    op("consumer_release", 693, "clc_throttle_pipeline", "clc_throttle_pipeline"),
    op("clc_query", 697, "clc_pipeline", "scheduler.advance_to_next_work"),
    op("fetch_next_work", 701, "clc_pipeline", "scheduler.fetch_next_work"),
    op("fetch_next_work", 741, "clc_pipeline", "scheduler.fetch_next_work"),
    op("producer_commit", 770, "accumulator_pipeline", "accumulator_pipeline"),
    op("fetch_next_work", 819, "clc_pipeline", "scheduler.fetch_next_work"),
    op("order_wait", 832, null, "load_order_barrier"),
    op("fetch_next_work", 877, "clc_pipeline", "scheduler.fetch_next_work")
  ];
  return st;
}

/** Knobs with everything explicit, so default changes cannot move hand-worked cases. */
function knobs(overrides) {
  return Object.assign({
    model: "blackwell", stages: 4, accStages: 2, outputTiles: 4, kTiles: 4, tmaLatency: 4, ummaLatency: 2,
    tmemLoadLatency: 3, storeLatency: 3, clcLatency: 2, ctaPair: false, loadC: false
  }, overrides);
}

/** Blocks of one lane as [kind, start, end] (waits with their reason). */
function laneRows(r, lane) {
  return (r.laneBlocks[lane] || []).map((id) => {
    const b = r.blocks[id];
    return [b.kind === "wait" ? "wait:" + b.reason : b.kind, b.start, b.end];
  });
}

/** Blocks of a kind (optionally on lanes matching a prefix). */
function blocksOf(r, kind, lanePrefix) {
  return r.blocks.filter((b) => b.kind === kind && (lanePrefix === undefined || b.lane.startsWith(lanePrefix)));
}

/** Lanes whose id matches a regular expression. */
function lanesLike(r, re) {
  return r.lanes.map((l) => l.id).filter((id) => re.test(id));
}

// ------------------------------------------------------------------------------------------------
// Model selection

test("SM100 structures pick the blackwell model; SM90 ones do not", () => {
  assert.equal(KS.defaultModel(PAIR), "blackwell");
  // An arch, an UMMA or an MMA warp role alone is no kernel the model runs: no model, never a guess.
  assert.equal(KS.defaultModel({ arch: "sm100" }), null);
  assert.equal(KS.defaultModel({ functions: [{ role: "both", ops: [{ op: "mma", unit: "umma", line: 3 }] }] }), null);
  assert.equal(KS.defaultModel({ kernel_layer: { warp_roles: [{ name: "MMA", warps: [0], line: 236 }] } }), null);
  assert.equal(KS.defaultModel({ arch: "sm90" }), null);
  assert.equal(KS.defaultModel(null), "gemm");
  const r = KS.simulate(PAIR, {});
  assert.equal(r.model, "blackwell");
  assert.equal(r.error, null);
  assert.ok(KS.MODEL_NAMES.includes("blackwell"));
});

// ------------------------------------------------------------------------------------------------
// Hand-worked cases

test("hand case: S=2 O=2 K=2 L=1 U=2 T=1 St=1 CLC=0, one accumulator stage: 13 steps", () => {
  const r = KS.simulate(PAIR, knobs({ stages: 2, outputTiles: 2, kTiles: 2, tmaLatency: 1, ummaLatency: 2,
    tmemLoadLatency: 1, storeLatency: 1, clcLatency: 0, accStages: 1 }));
  assert.equal(r.error, null);
  assert.equal(r.deadlock, null);
  assert.equal(r.total, 13);
  // TMA 0 lands at 2; UMMAs back to back; tile 1 waits for the epilogue's release of acc 0 at 7.
  assert.deepEqual(laneRows(r, "mma"), [["wait:tma", 0, 2], ["umma", 2, 4], ["umma", 4, 6], ["wait:acc", 6, 7],
    ["umma", 7, 9], ["umma", 9, 11]]);
  // Issue g+2 waits for the commit of k-tile g (its UMMA's end): 0, 1, then 4 and 6.
  assert.deepEqual(laneRows(r, "producer"), [["issue", 0, 1], ["issue", 1, 2], ["issue", 4, 5], ["issue", 6, 7]]);
  // FULL from landing to the end of the k-tile's UMMA (tcgen05.commit).
  assert.deepEqual(laneRows(r, "stage0"), [["filling", 1, 2], ["full", 2, 4], ["filling", 5, 6], ["full", 6, 9]]);
  assert.deepEqual(laneRows(r, "stage1"), [["filling", 2, 3], ["full", 3, 6], ["filling", 7, 8], ["full", 8, 11]]);
  // accumulating -> drained by the TMEM load -> free; the next tile accumulates from the release on.
  assert.deepEqual(laneRows(r, "acc0"), [["acc", 2, 6], ["drain", 6, 7], ["acc", 7, 11], ["drain", 11, 12]]);
  assert.deepEqual(laneRows(r, "epilogue"), [["wait:mma", 0, 6], ["tmem_load", 6, 7], ["store", 7, 8],
    ["wait:mma", 8, 11], ["tmem_load", 11, 12], ["store", 12, 13]]);
  // The Sched warp waits for the load warp to start tile 1 (throttle) before its second query.
  assert.deepEqual(laneRows(r, "sched"), [["wait:throttle", 0, 2]]);
  const v = r.verdict;
  assert.equal(v.tensorCoreBusySteps, 8);
  assert.equal(v.accWaitSteps, 1);
  assert.equal(v.accWaitTiles, 1);
  assert.deepEqual(v.epilogues.map((e) => [e.tile, e.start, e.end, e.hidden]), [[0, 6, 8, 1], [1, 11, 13, 0]]);
  assert.equal(v.epilogueSteps, 4);
  assert.equal(v.hiddenEpilogueSteps, 1);
  assert.equal(v.exposedEpilogueSteps, 3);
  assert.deepEqual(v.accStagesComparison, { accStages: 2, total: 12 });
  assert.match(v.insight, /^1 accumulator stage: the tensor core idles 1 step waiting for epilogues/);
});

test("hand case at the defaults: 2 accumulator stages give 43 steps, 1 stage 52 (docs/models/blackwell.md)", () => {
  const two = KS.simulate(PAIR, knobs({}));
  assert.equal(two.total, 43); // 1 + L + O*K*U + T + St = 1 + 4 + 32 + 3 + 3
  assert.equal(two.verdict.accWaitSteps, 0);
  assert.deepEqual(blocksOf(two, "umma").map((b) => b.start), Array.from({ length: 16 }, (_, i) => 5 + 2 * i));
  assert.deepEqual(two.verdict.epilogues.map((e) => e.hidden), [6, 6, 6, 0]);
  assert.match(two.verdict.insight, /^2 accumulator stages: the MMA of tile t\+1 overlaps the epilogue of tile t; the tensor core never waits for an epilogue; with 1 stage: 52 steps$/);
  const one = KS.simulate(PAIR, knobs({ accStages: 1 }));
  assert.equal(one.total, 52); // + T = 3 idle steps at each of the 3 tile boundaries
  assert.equal(one.verdict.accWaitSteps, 9);
  assert.deepEqual(laneRows(one, "mma").filter((row) => row[0] === "wait:acc"), [["wait:acc", 13, 16], ["wait:acc", 24, 27], ["wait:acc", 35, 38]]);
  assert.deepEqual(one.verdict.epilogues.map((e) => e.hidden), [3, 3, 3, 0]);
  assert.match(one.verdict.insight, /^1 accumulator stage: the tensor core idles 9 steps waiting for epilogues to free TMEM \(at 3 of 3 tile boundaries\); with 2 stages: 43 steps$/);
  assert.match(one.verdict.summary, /^blackwell \(1-SM, 1 accumulator stage\): 52 steps; tensor core busy 61.5%/);
});

// ------------------------------------------------------------------------------------------------
// Closed forms and the accumulator-stage rule

/** Random knobs in the compute-bound regime of the closed form (docs/models/blackwell.md). */
function computeBound(rand, extra) {
  for (;;) {
    const kn = knobs(Object.assign({
      stages: randInt(rand, 1, 10), accStages: randInt(rand, 2, 4), outputTiles: randInt(rand, 1, 8),
      kTiles: randInt(rand, 1, 8), tmaLatency: randInt(rand, 0, 8), ummaLatency: randInt(rand, 1, 5),
      tmemLoadLatency: randInt(rand, 0, 6), storeLatency: randInt(rand, 0, 6), clcLatency: randInt(rand, 0, 6),
      ctaPair: rand() < 0.3
    }, extra));
    const KU = kn.kTiles * kn.ummaLatency;
    if ((kn.stages - 1) * kn.ummaLatency >= 1 + kn.tmaLatency && kn.tmemLoadLatency + kn.storeLatency <= KU &&
      kn.clcLatency <= 1 + kn.tmaLatency && kn.clcLatency <= KU) return kn;
  }
}

test("closed form: with A >= 2 and T + St <= K*U (TMA and CLC hidden), total = 1 + L + O*K*U + T + St", () => {
  const rand = mulberry32(1301);
  for (let i = 0; i < 300; i++) {
    const kn = computeBound(rand, {});
    const r = KS.simulate(PAIR, kn);
    const expected = 1 + kn.tmaLatency + kn.outputTiles * kn.kTiles * kn.ummaLatency + kn.tmemLoadLatency + kn.storeLatency;
    assert.equal(r.total, expected, JSON.stringify(kn));
    assert.equal(r.verdict.accWaitSteps, 0, JSON.stringify(kn));
    // Every epilogue but the last is fully hidden behind the next tile's UMMAs.
    r.verdict.epilogues.slice(0, -1).forEach((e) => assert.equal(e.hidden, e.end - e.start, JSON.stringify(kn)));
  }
});

test("with one accumulator stage every epilogue is exposed: the tensor core idles >= T at every tile boundary", () => {
  const rand = mulberry32(1302);
  for (let i = 0; i < 300; i++) {
    const kn = computeBound(rand, { accStages: 1 });
    kn.tmemLoadLatency = Math.max(1, kn.tmemLoadLatency);
    const r = KS.simulate(PAIR, kn);
    const ummas = blocksOf(r, "umma");
    for (let o = 1; o < kn.outputTiles; o++) {
      const last = ummas.find((b) => b.tile === o - 1 && b.k === kn.kTiles - 1);
      const first = ummas.find((b) => b.tile === o && b.k === 0);
      assert.ok(first.start - last.end >= kn.tmemLoadLatency, JSON.stringify(kn) + " boundary " + o);
    }
    r.verdict.epilogues.forEach((e) => assert.ok(e.end - e.start - e.hidden >= kn.tmemLoadLatency, JSON.stringify(kn)));
    assert.equal(r.verdict.accWaitTiles, kn.outputTiles - 1);
    // The comparison run with two stages is never slower.
    if (r.verdict.accStagesComparison) assert.ok(r.verdict.accStagesComparison.total <= r.total);
  }
});

// ------------------------------------------------------------------------------------------------
// Invariants over random knobs (including TMA-bound, CLC-bound, 2-SM and C loads)

/** Check the structural and protocol invariants of one Blackwell result. */
function checkInvariants(r, kn) {
  const msg = JSON.stringify(kn);
  assert.equal(r.error, null, msg);
  assert.equal(r.deadlock, null, msg);
  // Blocks: positive length, per lane sorted and disjoint, `after` ends at or before the start.
  r.blocks.forEach((b, id) => {
    assert.equal(b.id, id);
    assert.ok(b.start < b.end, msg);
    b.after.forEach((a) => assert.ok(r.blocks[a].end <= b.start, msg + " after"));
  });
  Object.keys(r.laneBlocks).forEach((lane) => {
    const ids = r.laneBlocks[lane];
    for (let i = 1; i < ids.length; i++) assert.ok(r.blocks[ids[i - 1]].end <= r.blocks[ids[i]].start, msg + " lane " + lane);
  });
  // One UMMA at a time on the tensor core, in (tile, k) order.
  const ummas = blocksOf(r, "umma");
  assert.equal(ummas.length, kn.outputTiles * kn.kTiles);
  for (let i = 1; i < ummas.length; i++) {
    assert.ok(ummas[i - 1].end <= ummas[i].start, msg);
    assert.ok(ummas[i - 1].tile * kn.kTiles + ummas[i - 1].k < ummas[i].tile * kn.kTiles + ummas[i].k, msg);
  }
  assert.equal(r.verdict.tensorCoreBusySteps, ummas.length * kn.ummaLatency);
  const ummaOf = new Map(ummas.map((b) => [b.tile * kn.kTiles + b.k, b]));
  // A smem stage is freed exactly when its k-tile's UMMAs complete (tcgen05.commit): its FULL
  // block ends there, and the next load into that stage is issued no earlier.
  for (const prefix of kn.ctaPair ? ["", "peer_"] : [""]) {
    for (let s = 0; s < kn.stages; s++) {
      const lane = r.laneBlocks[prefix + "stage" + s].map((id) => r.blocks[id]);
      lane.filter((b) => b.kind === "full").forEach((b) => {
        assert.equal(b.end, ummaOf.get(b.tile * kn.kTiles + b.k).end, msg + " full " + prefix + s);
      });
      const fills = lane.filter((b) => b.kind === "filling");
      fills.forEach((f) => {
        const g = f.tile * kn.kTiles + f.k;
        assert.ok(ummaOf.get(g).start >= f.end, msg + " UMMA before its data landed");
        if (g >= kn.stages) assert.ok(f.start - 1 >= ummaOf.get(g - kn.stages).end, msg + " refilled before release");
      });
    }
    const issues = blocksOf(r, "issue", prefix + "producer");
    assert.equal(issues.length, kn.outputTiles * kn.kTiles);
  }
  // Accumulator stages: the MMA writes stage a for tile o only after every epilogue released it
  // for tile o - A (end of its TMEM load), and the epilogue reads it only once its UMMAs are done.
  const accs = blocksOf(r, "acc", "acc");
  const loads = r.blocks.filter((b) => b.kind === "tmem_load");
  const drains = blocksOf(r, "drain");
  const ctas = kn.ctaPair ? 2 : 1;
  assert.equal(loads.length, kn.tmemLoadLatency > 0 ? ctas * kn.outputTiles : 0);
  for (let o = 0; o < kn.outputTiles; o++) {
    const acc = accs.find((b) => b.tile === o);
    assert.equal(acc.stage, o % kn.accStages);
    assert.equal(acc.lane, "acc" + (o % kn.accStages));
    assert.equal(acc.start, ummaOf.get(o * kn.kTiles).start);
    assert.equal(acc.end, ummaOf.get(o * kn.kTiles + kn.kTiles - 1).end);
    loads.filter((b) => b.tile === o).forEach((b) => assert.ok(b.start >= acc.end, msg + " TMEM read before FULL"));
    if (o >= kn.accStages) {
      loads.filter((b) => b.tile === o - kn.accStages).forEach((b) => assert.ok(acc.start >= b.end, msg + " acc overwritten while read"));
    }
  }
  drains.forEach((d) => {
    const epilogueLane = d.lane.startsWith("peer_") ? "peer_epilogue" : "epilogue";
    const match = loads.find((b) => b.lane === epilogueLane && b.tile === d.tile);
    assert.deepEqual([d.start, d.end], [match.start, match.end]);
  });
  // The verdict's epilogue bookkeeping agrees with the blocks.
  r.verdict.epilogues.forEach((e) => {
    assert.ok(e.hidden >= 0 && e.hidden <= e.end - e.start);
    let busy = 0;
    ummas.forEach((u) => { busy += Math.max(0, Math.min(e.end, u.end) - Math.max(e.start, u.start)); });
    assert.equal(e.hidden, busy, msg + " hidden steps");
  });
  assert.equal(r.total, Math.max(...r.blocks.map((b) => b.end)));
}

test("invariants over random knobs (TMA-bound, CLC-bound, 2-SM, C loads)", () => {
  const rand = mulberry32(1303);
  for (let i = 0; i < 250; i++) {
    const kn = knobs({
      stages: randInt(rand, 1, 6), accStages: randInt(rand, 1, 4), outputTiles: randInt(rand, 1, 7),
      kTiles: randInt(rand, 1, 6), tmaLatency: randInt(rand, 0, 12), ummaLatency: randInt(rand, 1, 4),
      tmemLoadLatency: randInt(rand, 0, 9), storeLatency: randInt(rand, 0, 9), clcLatency: randInt(rand, 0, 12),
      ctaPair: rand() < 0.4, loadC: rand() < 0.4
    });
    const r = KS.simulate(rand() < 0.5 ? PAIR : pairWithKernelOps(), kn);
    checkInvariants(r, kn);
  }
});

test("barrier events: each smem stage's empty barrier completes at its k-tile's UMMA end", () => {
  const kn = knobs({ stages: 3, outputTiles: 3, kTiles: 5, tmaLatency: 6 });
  const r = KS.simulate(PAIR, kn);
  const ummas = blocksOf(r, "umma");
  const empties = r.barriers.filter((b) => b.kind === "empty" && b.name.startsWith("MainloopPipeline"));
  assert.equal(empties.length, 3);
  const completes = r.barrierEvents.filter((e) => e.type === "complete" && empties.some((b) => b.id === e.barrier));
  assert.deepEqual(completes.map((e) => e.t).sort((a, b) => a - b), ummas.map((u) => u.end));
  // The accumulator ring: acc_full completes at each tile's last UMMA end, acc_empty at the TMEM load end.
  const accFull = r.barriers.filter((b) => b.kind === "acc_full").map((b) => b.id);
  const fullTimes = r.barrierEvents.filter((e) => e.type === "complete" && accFull.includes(e.barrier)).map((e) => e.t);
  assert.deepEqual(fullTimes.sort((a, b) => a - b), [0, 1, 2].map((o) => ummas[o * 5 + 4].end));
  assert.deepEqual(r.barriers.filter((b) => b.kind === "acc_empty").map((b) => b.expected), [1, 1]);
});

// ------------------------------------------------------------------------------------------------
// 2-SM (CTA pair) mode

test("2-SM mode draws the peer CTA's lanes; the leader's UMMA waits for both CTAs' TMA and both epilogues", () => {
  const kn = knobs({ ctaPair: true, outputTiles: 3, tmaLatency: 3 });
  const r = KS.simulate(PAIR, kn);
  const ids = r.lanes.map((l) => l.id);
  assert.deepEqual(ids, ["sched", "producer", "stage0", "stage1", "stage2", "stage3", "mma", "acc0", "acc1", "epilogue",
    "peer_producer", "peer_stage0", "peer_stage1", "peer_stage2", "peer_stage3", "peer_acc0", "peer_acc1", "peer_epilogue"]);
  assert.deepEqual(r.lanes.filter((l) => l.cta === 1).map((l) => l.id), ids.slice(10));
  assert.ok(!ids.includes("peer_mma"), "only the leader CTA issues UMMAs");
  assert.equal(blocksOf(r, "issue", "peer_producer").length, 12);
  assert.equal(blocksOf(r, "tmem_load", "peer_epilogue").length, 3);
  assert.equal(blocksOf(r, "acc", "peer_acc").length, 3);
  // Both CTAs' loads complete the leader's full barrier (expected 2); the releases are multicast.
  const full = r.barriers.filter((b) => b.kind === "full" && b.name.startsWith("MainloopPipeline"));
  assert.ok(full.every((b) => b.expected === 2));
  assert.ok(r.barriers.filter((b) => b.kind === "acc_empty").every((b) => b.expected === 2));
  // The peer's stages are freed by the leader's commit too (same UMMA end).
  const peerFull = blocksOf(r, "full", "peer_stage");
  const ummas = blocksOf(r, "umma");
  peerFull.forEach((b) => assert.equal(b.end, ummas.find((u) => u.tile === b.tile && u.k === b.k).end));
  // A slow peer epilogue holds the leader's accumulator stage: tile o + A waits for it.
  const a1 = KS.simulate(PAIR, knobs({ ctaPair: true, accStages: 1, outputTiles: 2 }));
  const peerLoad0 = a1.blocks.find((b) => b.lane === "peer_epilogue" && b.kind === "tmem_load" && b.tile === 0);
  const acc1 = a1.blocks.find((b) => b.lane === "acc0" && b.kind === "acc" && b.tile === 1);
  assert.ok(acc1.start >= peerLoad0.end);
  checkInvariants(r, kn);
});

test("C loads: the EpilogueLoad warp waits once on the load-order barrier, after the mainloop's first min(S, K) loads", () => {
  const kn = knobs({ loadC: true, stages: 3, kTiles: 5, clcLatency: 0 });
  const r = KS.simulate(pairWithKernelOps(), kn);
  assert.ok(r.lanes.some((l) => l.id === "epi_load") && r.lanes.some((l) => l.id === "c_stage1"));
  const cIssues = blocksOf(r, "issue", "epi_load");
  assert.equal(cIssues.length, 4);
  const mainIssues = blocksOf(r, "issue", "producer");
  assert.ok(cIssues[0].start >= mainIssues[2].end, "C waits for the first min(S, K) = 3 mainloop loads");
  assert.ok(cIssues[0].start < mainIssues[3].end || mainIssues[3].start >= cIssues[0].start - 1);
  const order = r.blocks.filter((b) => b.lane === "epi_load" && b.kind === "wait" && b.reason === "order");
  assert.equal(order.length, 1);
  assert.deepEqual(order[0].lines.map((l) => l.line), [832]);
  // The epilogue reads C before the accumulator (E 839 before E 866).
  const loads = blocksOf(r, "tmem_load");
  const cFull = r.blocks.filter((b) => b.lane.startsWith("c_stage") && b.kind === "filling");
  loads.forEach((b) => assert.ok(b.start >= cFull.find((f) => f.tile === b.tile).end));
});

// ------------------------------------------------------------------------------------------------
// Knobs, messages, block cap

test("knobs: ranges, flags, source defaults and messages", () => {
  const specs = KS.knobsFor("blackwell");
  assert.deepEqual(specs.map((s) => s.name), ["stages", "accStages", "outputTiles", "kTiles", "tmaLatency", "ummaLatency",
    "tmemLoadLatency", "storeLatency", "clcLatency", "epiSubtiles", "ctaPair", "loadC"]);
  const acc = specs.find((s) => s.name === "accStages");
  assert.deepEqual([acc.min, acc.max, acc.default], [1, 4, 2]);
  assert.equal(specs.find((s) => s.name === "ctaPair").type, "flag");
  const n = KS.normalizeKnobs({ model: "blackwell", accStages: 9, stages: "3", ctaPair: "on", loadC: "maybe", kPipeMmas: 1 });
  assert.equal(n.knobs.accStages, 4);
  assert.equal(n.knobs.stages, 3);
  assert.equal(n.knobs.ctaPair, true);
  assert.equal(n.knobs.loadC, false);
  assert.ok(n.messages.some((m) => /^accStages: 9 is above the maximum; clamped to 4$/.test(m)));
  assert.ok(n.messages.some((m) => /^loadC: "maybe" is not on\/off/.test(m)));
  assert.ok(n.messages.some((m) => /unknown knob "kPipeMmas" ignored/.test(m)));
  // A literal accumulator stage count in the kernel layer is the default, with its line.
  const st = JSON.parse(JSON.stringify(PAIR));
  st.kernel_layer.accumulator_stages = 4;
  st.kernel_layer.accumulator_stages_line = 169;
  st.kernel_layer.cta_pair = true;
  const src = KS.knobsFor("blackwell", st);
  assert.deepEqual(src.find((s) => s.name === "accStages").source, { value: 4, line: 169 });
  assert.equal(src.find((s) => s.name === "accStages").default, 4);
  assert.equal(src.find((s) => s.name === "ctaPair").default, true);
  const r = KS.simulate(st, {});
  assert.equal(r.knobs.accStages, 4);
  assert.equal(r.knobs.ctaPair, true);
  assert.ok(!r.messages.some((m) => m.startsWith("accStages:")));
  // Not a literal (the real kernel layer): the fallback is said, with the source text and line.
  const real = KS.simulate(PAIR, {});
  assert.ok(real.messages.includes("accStages: AccumulatorPipelineStageCount is not a literal in the parsed structure " +
    "(DispatchPolicy::Schedule::AccumulatorPipelineStageCount, line 119); using 2, the builder's min(4, 128*512 / " +
    "(tile M * tile N)) for a 128x256 tile (sm100_umma_builder.inl:259-263)"));
  assert.ok(!KS.simulate(PAIR, { accStages: 2 }).messages.some((m) => m.startsWith("accStages:")));
});

test("honest assumptions: no kernel layer, no CLC, nothing parsed", () => {
  const noKernel = JSON.parse(JSON.stringify(PAIR));
  delete noKernel.kernel_layer;
  const a = KS.simulate(noKernel, {});
  assert.equal(a.model, "blackwell");
  assert.ok(a.fit.assumptions.some((m) => m.startsWith("no kernel layer parsed: the roles of CUTLASS 4.2's sm100_gemm_tma_warpspecialized.hpp are assumed")));
  const noClc = JSON.parse(JSON.stringify(PAIR));
  noClc.kernel_layer.clc = false;
  const b = KS.simulate(noClc, knobs({}));
  assert.ok(!b.lanes.some((l) => l.id === "sched"));
  assert.ok(b.fit.assumptions.includes("kernel layer without a CLC scheduler: tiles are assigned statically (no sched lane)"));
  assert.equal(b.total, 43);
  // Nothing parsed: no model, no blocks (the old page assumed CUTLASS's mainloop here).
  const c = KS.simulate({ arch: "sm100" }, {});
  assert.equal(c.error, null);
  assert.equal(c.model, null);
  assert.equal(c.blocks.length, 0);
  assert.match(c.fit.reason, /no pipeline operation/);
});

test("deadlock: without the MMA warp's consumer_release (C 705) no stage is freed; the load warp waits at producer_acquire (C 607)", () => {
  const st = JSON.parse(JSON.stringify(PAIR));
  const mma = st.functions.find((f) => f.name === "mma");
  mma.ops = mma.ops.filter((op) => !(op.op === "consumer_release" && op.line === 705));
  const r = KS.simulate(st, knobs({ stages: 2, outputTiles: 2, kTiles: 3 }));
  assert.ok(r.deadlock !== null);
  assert.deepEqual(r.deadlock.waiting.find((w) => w.lane === "producer"), { lane: "producer", barrier: "MainloopPipeline.empty[0]", phase: 0, line: 607 });
  assert.ok(r.messages.includes("no consumer_release of the mainloop pipeline in mma(): no smem stage is ever freed (the load warp waits forever)"));
  assert.match(r.verdict.summary, /^deadlock: no role can progress after step \d+: /);
  // Both k-tiles that fit were loaded and computed before the stall.
  assert.equal(blocksOf(r, "umma").length, 2);
});

test("block cap: a million-tile request is refused before simulating", () => {
  const r = KS.simulate(PAIR, { outputTiles: 4096, kTiles: 4096 });
  assert.equal(r.blocks.length, 0);
  assert.match(r.error, /^too many blocks: up to \d+ \(limit 2000000\); reduce outputTiles \(O\) or kTiles \(K\)$/);
  assert.equal(r.verdict.hiddenEpilogueSteps, 0);
  assert.ok(r.lanes.some((l) => l.id === "mma"));
  // The estimate bounds the real count.
  const rand = mulberry32(1304);
  for (let i = 0; i < 60; i++) {
    const kn = knobs({ stages: randInt(rand, 1, 5), accStages: randInt(rand, 1, 4), outputTiles: randInt(rand, 1, 6),
      kTiles: randInt(rand, 1, 6), tmaLatency: randInt(rand, 0, 9), clcLatency: randInt(rand, 0, 9),
      tmemLoadLatency: randInt(rand, 0, 9), ctaPair: rand() < 0.5, loadC: rand() < 0.5 });
    assert.ok(KS.simulate(PAIR, kn).blocks.length <= KS.estimateBlockCount(kn), JSON.stringify(kn));
  }
});

// ------------------------------------------------------------------------------------------------
// Source lines

/** Every "path:line" a structure records (ops of functions, kernel-layer calls and ops). */
function recordedLines(st) {
  const set = new Set();
  const ml = st.source.path, kl = st.kernel_layer.source.path;
  st.functions.forEach((fn) => fn.ops.forEach((op) => set.add(ml + ":" + op.line)));
  (st.kernel_layer.calls || []).forEach((c) => set.add(kl + ":" + c.line));
  (st.kernel_layer.ops || []).forEach((c) => set.add(kl + ":" + c.line));
  return set;
}

test("every block's lines are lines the parser recorded; UMMA, TMA and stage blocks cite the SM100 mainloop", () => {
  for (const st of [PAIR, pairWithKernelOps()]) {
    const r = KS.simulate(st, knobs({ ctaPair: true, loadC: true }));
    const recorded = recordedLines(st);
    r.blocks.forEach((b) => b.lines.forEach((ref) => assert.ok(recorded.has(ref.path + ":" + ref.line), b.kind + " " + ref.path + ":" + ref.line)));
  }
  const r = KS.simulate(PAIR, knobs({}));
  const ml = "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp";
  const linesOf = (kind, lane) => r.blocks.find((b) => b.kind === kind && (!lane || b.lane === lane)).lines.map((l) => l.path + ":" + l.line);
  assert.deepEqual(linesOf("umma"), [ml + ":699", ml + ":705"]);
  assert.deepEqual(linesOf("issue"), [ml + ":607", ml + ":617", ml + ":618"]);
  assert.deepEqual(linesOf("filling"), [ml + ":617", ml + ":618"]);
  assert.deepEqual(linesOf("full", "stage0"), [ml + ":681", ml + ":705"]);
  assert.deepEqual(linesOf("acc"), [ml + ":675", ml + ":699"]);
  const tmaWait = r.blocks.find((b) => b.kind === "wait" && b.reason === "tma");
  assert.deepEqual(tmaWait.lines.map((l) => l.line), [681]);
  // Without epilogue ops in the structure the TMEM load and store cite the kernel layer's store call.
  assert.deepEqual(linesOf("tmem_load"), ["include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp:911"]);
  // The PAIR records no CLC op: the CLC block says so by citing nothing.
  assert.deepEqual(linesOf("clc"), []);
  assert.deepEqual(r.functions.producer.name, "load");
  assert.deepEqual(r.functions.consumer.name, "mma");
});

test("kernel-layer calls (scheduler.fetch_next_work, advance_to_next_work, accumulator_pipeline.producer_commit) are cited too", () => {
  const st = JSON.parse(JSON.stringify(PAIR));
  const call = (name, line, receiver) => ({ call: name, receiver, line, end_line: line, text: receiver + "." + name + "(...)" });
  st.kernel_layer.calls = st.kernel_layer.calls.concat([call("fetch_next_work", 664, "scheduler"),
    call("advance_to_next_work", 697, "scheduler"), call("fetch_next_work", 701, "scheduler"), call("fetch_next_work", 741, "scheduler"),
    call("producer_commit", 770, "accumulator_pipeline"), call("fetch_next_work", 877, "scheduler")]);
  const r = KS.simulate(st, knobs({ clcLatency: 9 }));
  assert.deepEqual(r.blocks.find((b) => b.kind === "clc").lines.map((l) => l.line), [697]);
  assert.deepEqual(r.blocks.find((b) => b.lane === "mma" && b.reason === "clc").lines.map((l) => l.line), [741]);
  assert.deepEqual(r.blocks.find((b) => b.lane === "epilogue" && b.reason === "clc").lines.map((l) => l.line), [877]);
  assert.deepEqual(r.blocks.find((b) => b.kind === "acc").lines.map((l) => l.line), [675, 699, 770]);
  // A slow epilogue leaves an accumulator FULL (committed, not yet read): it cites the commit.
  const slow = KS.simulate(st, knobs({ storeLatency: 12 }));
  assert.deepEqual(slow.blocks.find((b) => b.kind === "full" && b.lane.startsWith("acc")).lines.map((l) => l.line), [770]);
});

test("kernel-layer ops: each role's CLC wait cites its own fetch_next_work; the accumulator cites umma_arrive", () => {
  const st = pairWithKernelOps();
  const r = KS.simulate(st, knobs({ clcLatency: 9, loadC: true }));
  const firstWait = (lane, reason) => r.blocks.find((b) => b.lane === lane && b.kind === "wait" && b.reason === reason);
  assert.deepEqual(firstWait("mma", "clc").lines.map((l) => l.line), [741]);
  assert.deepEqual(firstWait("epilogue", "clc").lines.map((l) => l.line), [877]);
  assert.deepEqual(firstWait("epi_load", "clc").lines.map((l) => l.line), [819]);
  // The throttle wait shows when the query is fast and the load warp has not started the next tile.
  const fast = KS.simulate(st, knobs({ clcLatency: 1 }));
  assert.deepEqual(fast.blocks.find((b) => b.lane === "sched" && b.reason === "throttle").lines.map((l) => l.line), [692]);
  assert.deepEqual(r.blocks.find((b) => b.kind === "clc").lines.map((l) => l.line), [692, 693, 697]);
  assert.deepEqual(r.blocks.find((b) => b.kind === "acc").lines.map((l) => l.line), [675, 699, 770]);
  const clcFull = r.barriers.find((b) => b.kind === "clc_full");
  assert.deepEqual(clcFull.lines, { wait: [664, 701, 741, 819, 877], arrive: [697] });
  // sched + load warp + MMA warp + epilogue + C load warp release each CLC response.
  assert.equal(r.barriers.find((b) => b.kind === "clc_empty").expected, 5);
});

// ------------------------------------------------------------------------------------------------
// docs/models/blackwell.md: the documented knob table, figures and CUTLASS 4.2 source citations

/** The Blackwell model's page, docs/models/blackwell.md. */
function blackwellPage() {
  const page = path.join(ROOT, "docs", "models", "blackwell.md");
  assert.ok(fs.existsSync(page), "docs/models/blackwell.md exists");
  const text = fs.readFileSync(page, "utf8");
  assert.ok(text.startsWith("# Blackwell model"), "the page is the Blackwell model's");
  return text;
}

test("the docs' Blackwell knob table matches knobsFor(\"blackwell\")", () => {
  const text = blackwellPage();
  const lines = text.split("\n");
  const header = lines.indexOf("| knob | symbol | range | default | meaning |");
  assert.ok(header >= 0, "the knob table");
  const rows = [];
  for (let i = header + 2; i < lines.length && lines[i].startsWith("|"); i++) rows.push(lines[i].split("|").map((c) => c.trim()));
  const specs = KS.knobsFor("blackwell");
  assert.deepEqual(rows.map((r) => r[1].replace(/`/g, "")), specs.map((s) => s.name));
  rows.forEach((r, i) => {
    const spec = specs[i];
    if (spec.type === "range") assert.equal(r[3], spec.min + ".." + spec.max, spec.name);
    else assert.equal(r[3], "on/off", spec.name);
    assert.equal(r[4], String(spec.type === "flag" ? (spec.default ? "on" : "off") : spec.default), spec.name);
  });
  assert.ok(text.includes("**43**") && text.includes("**52**"), "the page quotes the default totals the hand case checks");
});

/** The CUTLASS 4.2 include tree of the venv's nvidia-cutlass, or null. */
function cutlassInclude() {
  const lib = path.join(ROOT, ".venv", "lib");
  if (!fs.existsSync(lib)) return null;
  for (const py of fs.readdirSync(lib)) {
    const dir = path.join(lib, py, "site-packages", "cutlass_library", "source", "include", "cutlass");
    if (fs.existsSync(dir)) return dir;
  }
  return null;
}

test("the docs' Blackwell source citations name lines that hold the quoted code in CUTLASS 4.2", (t) => {
  const inc = cutlassInclude();
  if (inc === null) { t.skip("nvidia-cutlass 4.2 is not installed in .venv"); return; }
  const files = {
    K: "gemm/kernel/sm100_gemm_tma_warpspecialized.hpp",
    C: "gemm/collective/sm100_mma_warpspecialized.hpp",
    P: "pipeline/sm100_pipeline.hpp",
    E: "epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp",
    S: "gemm/kernel/sm100_tile_scheduler.hpp",
    B: "gemm/collective/builders/sm100_umma_builder.inl"
  };
  const cache = {};
  const linesOf = (f) => cache[f] || (cache[f] = fs.readFileSync(path.join(inc, files[f]), "utf8").split("\n"));
  // Citations are written `X n` or `X n-m` followed by the quoted code: `X 770: accumulator_pipeline.producer_commit`.
  const cites = [...blackwellPage().matchAll(/`([KCPESB]) (\d+)(?:-(\d+))?: ([^`]+)`/g)];
  assert.ok(cites.length >= 20, "the page cites the rules' lines (" + cites.length + ")");
  cites.forEach((m) => {
    const [, f, a, b, code] = m;
    const from = Number(a), to = b ? Number(b) : from;
    const span = linesOf(f).slice(from - 1, to).join(" ").replace(/\s+/g, " ");
    assert.ok(span.includes(code.trim()), `${f} ${from}-${to} should contain ${code}: ${span.slice(0, 200)}`);
  });
});

test("epilogue subtiles: C loaded, TMEM loaded and stored per subtile; the accumulator released after the last TMEM load", () => {
  // sm100_epilogue_tma_warpspecialized.hpp load() 516-541, store() 819-888 (issue 18: C was one load per tile).
  const r = KS.simulate(PAIR, knobs({ stages: 2, outputTiles: 2, kTiles: 2, loadC: true, epiSubtiles: 3, tmemLoadLatency: 1, storeLatency: 2 }));
  assert.equal(r.error, null);
  assert.equal(r.deadlock, null);
  // Per tile and CTA: 3 TMEM loads, 3 stores, 3 C loads.
  assert.equal(blocksOf(r, "tmem_load", "epilogue").length, 6);
  assert.equal(blocksOf(r, "store", "epilogue").length, 6);
  assert.equal(blocksOf(r, "issue", "epi_load").length, 6);
  // The loads and stores alternate: TL0 ST0 TL1 ST1 TL2 ST2 per tile.
  const epi = laneRows(r, "epilogue").filter((row) => row[0] === "tmem_load" || row[0] === "store").slice(0, 6).map((row) => row[0]);
  assert.deepEqual(epi, ["tmem_load", "store", "tmem_load", "store", "tmem_load", "store"]);
  // The accumulator stage is released (empty arrive) at the end of the tile's last TMEM load.
  const accEmpty = r.barriers.find((b) => b.name === "AccumulatorPipeline.empty[0]").id;
  const release = r.barrierEvents.find((e) => e.barrier === accEmpty && e.type === "arrive" && e.lane === "epilogue");
  const lastLoad = blocksOf(r, "tmem_load", "epilogue").filter((b) => b.tile === 0).pop();
  assert.equal(release.t, lastLoad.end);
  // One subtile is the tile-level epilogue of before.
  assert.deepEqual(KS.simulate(PAIR, knobs({ loadC: true })).total, KS.simulate(PAIR, knobs({ loadC: true, epiSubtiles: 1 })).total);
  // With two C stages and a C load slower than a subtile, the epilogue waits for C between subtiles.
  const slow = KS.simulate(PAIR, knobs({ outputTiles: 1, kTiles: 1, loadC: true, epiSubtiles: 4, tmaLatency: 9, tmemLoadLatency: 1, storeLatency: 1 }));
  const cWaits = blocksOf(slow, "wait", "epilogue").filter((b) => b.reason === "c");
  assert.ok(cWaits.length >= 2, JSON.stringify(laneRows(slow, "epilogue")));
});
