// Differential check of the role-program interpreter (sim/interpret.js) against the GEMM model's
// hand-written program (schedule.js runGemm), on a structure the C++ front end parsed from a real
// CUTLASS mainloop and kernel layer. Run by tests/test_programs.py:
//   node tests/js/interpret_diff.js STRUCTURE.json SCHEDULE SEED COUNT [KNOBS_JSON]
// prints one JSON line {runs, mismatches: [{knobs, first difference}], stopped: [...]}.
// SCHEDULE `blackwell`: against the hand-written Blackwell model (runBlackwell) instead, on an SM100
// structure, with the lane mapping of BLACKWELL below (docs/programs.md "Equivalence with the
// Blackwell model").
// SCHEDULE `attention`: FA3's own programs against runAttention (attentionRow / attentionHandRow
// below); KNOBS_JSON `{"intraWGOverlap": false}` compares the non-overlap path (the program runs
// with flags.IntraWGOverlap 0), `true` the overlap one, absent a random mix (docs/programs.md
// "FlashAttention-3 forward").
"use strict";
const path = require("path");
const fs = require("fs");
const S = require(path.join(__dirname, "..", "..", "schedule.js"));
const I = require(path.join(__dirname, "..", "..", "sim", "interpret.js"));

/** A block as the comparison sees it: lane label, kind, times, tile, k, stage. */
function rows(columns, rename) {
  return S.blocksOf(columns).map(function (b) {
    var lane = rename(String(b.lane));
    // An order-barrier wait belongs to no stage: runGemm draws it with the tile's first k-tile
    // and stage, the interpreter with none (docs/programs.md "Differences").
    var orderWait = b.kind === "wait" && (b.reason === "order" || b.reason === "epilogue-order");
    return [lane, b.kind, b.start, b.end, b.tile, orderWait ? "" : b.k, orderWait ? "" : b.stage, b.reason || ""].join(" ");
  }).sort();
}

/** The interpreter's lane ids as the GEMM model names them. */
function rename(id) {
  // A warpgroup-index kernel's roles (the cp.async kernel layers): Producer.WG0, Consumer.WG1, Consumer.WG2.
  var wg = /^role:Consumer\.WG(\d+)$/.exec(id);
  if (wg) return "consumer" + (Number(wg[1]) - 1);
  return id.replace(/^role:Producer\.\w+$/, "producer").replace(/^role:Consumer(\d)$/, "consumer$1").replace(/^role:Consumer$/, "consumer0")
    .replace(/^MainloopPipeline\.stage(\d+)$/, "stage$1");
}

/** The interpreter's SM100 lane ids as runBlackwell names them; null: a lane the comparison leaves out. */
function renameBlackwell(id) {
  if (/^AccumulatorPipeline\.stage\d+$/.test(id)) return null;   // the TMEM lanes: drawn by the hand model only
  return id.replace(/^role:MainloopLoad$/, "producer").replace(/^role:MMA$/, "mma").replace(/^role:Epilogue$/, "epilogue")
    .replace(/^MainloopPipeline\.stage(\d+)$/, "stage$1");
}

/** Blackwell rows: lane, kind, times, tile, k, stage, reason; the hand model's acc lanes are left out. */
function blackwellRows(blocks, rename) {
  return blocks.map(function (b) {
    var lane = rename(String(b.lane));
    if (lane === null || /^acc\d+$/.test(lane)) return null;
    return [lane, b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason || ""].join(" ");
  }).filter(function (x) { return x !== null; }).sort();
}

function blackwell(st, r, count, fixed, out) {
  // The hand model's static-scheduler variant: the program runs with IsSchedDynamicPersistent off.
  var hand = JSON.parse(JSON.stringify(st));
  hand.kernel_layer.clc = false;
  for (var i = 0; i < count; i++) {
    var knobs = Object.assign({
      stages: 1 + r(8), accStages: 1 + r(4), outputTiles: 1 + r(6), kTiles: 1 + r(9), tmaLatency: r(12),
      ummaLatency: 1 + r(6), tmemLoadLatency: r(6), storeLatency: r(6)
    }, fixed);
    var ir = I.run(st, knobs, S.engine, {});
    var g = S.simulate(hand, Object.assign({ model: "blackwell", epiSubtiles: 1, ctaPair: false, loadC: false }, knobs));
    out.runs++;
    if (ir.error) { out.mismatches.push({ knobs: knobs, error: ir.error }); continue; }
    if (ir.stopped.length) out.stopped.push({ knobs: knobs, stopped: ir.stopped });
    var a = blackwellRows(S.blocksOf(ir.columns), renameBlackwell), b = blackwellRows(g.blocks, function (x) { return x; });
    compare(out, knobs, a, b, ir, g);
  }
}

/**
 * The interpreter's FA3 lanes and blocks as the attention model (runAttention) draws them
 * (docs/programs.md "FlashAttention-3 forward", "Differences"); null: a block the comparison leaves out.
 */
function attentionRow(b) {
  var lane = String(b.lane), kind = b.kind, reason = b.reason || "";
  var wg = /^role:Consumer\.WG(\d+)$/.exec(lane);
  if (/^role:Producer\./.test(lane)) lane = kind === "filling" ? "q_stage0" : "producer";   // Q lands on barrier_Q: no stage lane
  else if (wg) {
    lane = "consumer" + (Number(wg[1]) - 1);
    // online_softmax (exp; max_get_scale, rescale_o, finalize are math blocks, 0 steps here): the softmax sub-lane
    if (kind === "exp" || kind === "math") { lane += "_softmax"; kind = "softmax"; }
  } else {
    var m = /^MainloopPipeline(K|V|Vt)\.stage(\d+)$/.exec(lane);
    if (m) lane = m[1].toLowerCase() + "_stage" + m[2];
  }
  if (kind === "wgmma") kind = "gemm";
  if (kind === "wait") {
    reason = reason === "barrier_Q" ? "q" : /^FwdNamedBarriers::WarpSchedulerWG1/.test(reason) ? "barrier" :
      reason === "EpilogueBarrier" ? "epilogue" : reason;
  }
  if (kind === "softmax" && b.end === b.start) return null;
  // The epilogue's tile (and its EpilogueBarrier wait's) is left out: the kernel calls
  // get_next_work before the epilogue (kernel 436) and the program's label can be the next tile.
  var epi = kind === "epilogue" || reason === "epilogue";
  return [lane, kind, b.start, b.end, epi ? "" : b.tile, reason].join(" ");
}

/** runAttention's blocks in the comparison's terms: GEMM0 / GEMM1 are `gemm`, K / V waits `tma`. */
function attentionHandRow(b) {
  var kind = b.kind === "gemm0" || b.kind === "gemm1" ? "gemm" : b.kind;
  var reason = b.reason === "k" || b.reason === "v" ? "tma" : b.reason || "";
  // Q's FULL block (landing to the QueryEmpty release): the program's Q lands on barrier_Q, a
  // barrier with no stage lane, and draws only its FILLING.
  if (b.lane === "q_stage0" && b.kind === "full") return null;
  var epi = kind === "epilogue" || reason === "epilogue";
  return [b.lane, kind, b.start, b.end, epi ? "" : b.tile, reason].join(" ");
}

function attention(st, r, count, fixed, out) {
  for (var i = 0; i < count; i++) {
    var W = 1 + r(6);
    var knobs = Object.assign({
      stages: 1 + r(6), outputTiles: 1 + r(4), kvBlocks: 1 + r(6), tmaLatency: r(12), softmaxLatency: 1 + r(8),
      epilogueLatency: r(6), consumerWGs: 2 + r(2), intraWGOverlap: r(4) !== 0
    }, fixed);
    var ir = I.run(st, { stages: knobs.stages, outputTiles: knobs.outputTiles, kvBlocks: knobs.kvBlocks, tmaLatency: knobs.tmaLatency,
      wgmmaLatency: W, softmaxLatency: knobs.softmaxLatency, mathLatency: 0, epilogueLatency: knobs.epilogueLatency,
      consumerWGs: knobs.consumerWGs, flags: { IntraWGOverlap: knobs.intraWGOverlap ? 1 : 0 } }, S.engine, {});
    var g = S.simulate(st, Object.assign({ model: "attention", gemm0Latency: W, gemm1Latency: W }, knobs));
    knobs.wgmmaLatency = W;
    out.runs++;
    if (ir.error) { out.mismatches.push({ knobs: knobs, error: ir.error }); continue; }
    if (ir.stopped.length) out.stopped.push({ knobs: knobs, stopped: ir.stopped });
    var a = S.blocksOf(ir.columns).map(attentionRow).filter(function (x) { return x !== null; }).sort();
    var b = g.blocks.map(attentionHandRow).filter(function (x) { return x !== null; }).sort();
    compare(out, knobs, a, b, ir, g);
  }
}

function compare(out, knobs, a, b, ir, g) {
  var diff = null;
  for (var j = 0; j < Math.max(a.length, b.length); j++) if (a[j] !== b[j]) { diff = { interpreted: a[j] || null, model: b[j] || null, index: j }; break; }
  var deadA = ir.deadlock !== null, deadB = g.deadlock !== null;
  if (diff || ir.total !== g.total || deadA !== deadB) {
    out.mismatches.push({ knobs: knobs, diff: diff, totals: [ir.total, g.total], deadlocks: [deadA, deadB], blocks: [a.length, b.length] });
  }
}

function rng(seed) {
  var x = seed >>> 0 || 1;
  return function (n) { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x % n; };
}

function main(argv) {
  var st = JSON.parse(fs.readFileSync(argv[0], "utf8"));
  var schedule = argv[1], seed = Number(argv[2]), count = Number(argv[3]);
  var fixed = argv[4] ? JSON.parse(argv[4]) : {};
  var r = rng(seed), out = { runs: 0, mismatches: [], stopped: [] };
  if (schedule === "attention") {
    attention(st, r, count, fixed, out);
    process.stdout.write(JSON.stringify(out) + "\n");
    return;
  }
  if (schedule === "blackwell") {
    blackwell(st, r, count, fixed, out);
    process.stdout.write(JSON.stringify(out) + "\n");
    return;
  }
  for (var i = 0; i < count; i++) {
    var knobs = Object.assign({
      stages: 1 + r(8), outputTiles: 1 + r(6), kTiles: 1 + r(9), tmaLatency: r(12), wgmmaLatency: 1 + r(6),
      epilogueLatency: r(6), kPipeMmas: 1 + r(3)
    }, fixed);
    // The interpreter reads the consumer warpgroup count of a warpgroup-index kernel from the
    // consumerWGs knob (NumMmaWarpGroups); the hand model's count is the same.
    var ir = I.run(st, Object.assign({ consumerWGs: schedule === "basic" ? 1 : 2 }, knobs), S.engine, {});
    var g = S.simulate(st, Object.assign({ model: "gemm", consumerWGs: schedule === "basic" ? 1 : 2, schedule: schedule === "basic" ? "pingpong" : schedule }, knobs));
    out.runs++;
    if (ir.error) { out.mismatches.push({ knobs: knobs, error: ir.error }); continue; }
    if (ir.stopped.length) out.stopped.push({ knobs: knobs, stopped: ir.stopped });
    var a = rows(ir.columns, rename), b = g.blocks.map(function (x) {
      var orderWait = x.kind === "wait" && (x.reason === "order" || x.reason === "epilogue-order");
      return [x.lane, x.kind, x.start, x.end, x.tile, orderWait ? "" : x.k, orderWait ? "" : x.stage, x.reason || ""].join(" ");
    }).sort();
    var diff = null;
    for (var j = 0; j < Math.max(a.length, b.length); j++) if (a[j] !== b[j]) { diff = { interpreted: a[j] || null, model: b[j] || null, index: j }; break; }
    var deadA = ir.deadlock !== null, deadB = g.deadlock !== null;
    if (diff || ir.total !== g.total || deadA !== deadB) {
      out.mismatches.push({ knobs: knobs, diff: diff, totals: [ir.total, g.total], deadlocks: [deadA, deadB], blocks: [a.length, b.length] });
    }
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main(process.argv.slice(2));
