/*
 * sim/units.js: what simulate() needs in cycles (docs/performance.md "The schedule in cycles"):
 * sim/perf.js and the GPU presets, the unit knobs' parsing, per model the unit parameters (UNITS:
 * the tile, the latencies from perf.js, a problem's tiles, FLOPs, the bottleneck candidates), and
 * the critical path of a run. schedule.js's simulateUnits puts them together.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after the
 * model files as a classic script, which makes KernelUnits a global; Node gets the same object
 * through module.exports.
 */
var KernelUnits = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/units.js: common.js is not loaded (the page runs it before this file)");
  })();
  var toNumber = C.toNumber, showValue = C.showValue, normalizeFlag = C.normalizeFlag, isObject = C.isObject;

  /** sim/perf.js (the formulas' one home): the page's global, or require()d next to this file. */
  function perfModule() {
    if (typeof KernelPerf !== "undefined") return KernelPerf;
    if (typeof require === "function" && typeof module !== "undefined") return require("./perf.js");
    return null;
  }

  /** sim/model_program.js (the program census): the page's global, or require()d next to this file. */
  function programModule() {
    if (typeof KernelModelProgram !== "undefined") return KernelModelProgram;
    if (typeof require === "function" && typeof module !== "undefined") return require("./model_program.js");
    return null;
  }

  /** The GPU presets: the page's global KernelGpuTable (its embedded sim/gpus.json), else sim/gpus.json in Node. */
  function gpuTable() {
    if (typeof KernelGpuTable !== "undefined") return KernelGpuTable;
    if (typeof require === "function" && typeof module !== "undefined") return require("./gpus.json");
    return null;
  }

  /** One error type for bad unit knobs: its message becomes the result's error (one line). */
  function unitsFail(message) { var e = new Error(message); e.unitsError = true; throw e; }

  /** A positive integer unit knob (numbers or numeric strings), or fallback when absent. */
  function unitInt(raw, name, fallback) {
    var v = raw[name];
    if (v === undefined || v === null || v === "") return fallback;
    var n = toNumber(v);
    if (!(n >= 1) || Math.round(n) !== n) unitsFail(name + " expects a positive integer, got " + showValue(v));
    return n;
  }

  /** "AxB[xC]" of positive integers as an array of `dims` numbers. */
  function unitDims(text, name, dims) {
    var parts = String(text).trim().toLowerCase().split("x");
    var ok = parts.length === dims && parts.every(function (p) { return /^[1-9][0-9]*$/.test(p); });
    if (!ok) unitsFail(name + " expects " + ["M", "N", "K"].slice(0, dims).join("x") + " of positive integers, got " + showValue(text));
    return parts.map(Number);
  }

  /** The resolved GPU of knobs.gpu: a preset name, a gpus.json preset object, or a resolved GPU. */
  function unitGpu(P, gpu, clockMHz) {
    var opts = { clockMHz: clockMHz };
    if (typeof gpu === "string") {
      var table = gpuTable();
      if (table === null) unitsFail("gpu " + showValue(gpu) + ": no GPU table here; pass the preset object");
      return P.gpuFrom(table, gpu.trim().toLowerCase(), opts);
    }
    if (isObject(gpu) && typeof gpu.sms === "number") return gpu;
    if (isObject(gpu)) return P.resolveGpu(gpu, opts);
    return unitsFail("gpu expects a preset name or a GPU object, got " + showValue(gpu));
  }

  /**
   * An attention backward's pointwise passes over its m x n scores per m-block: P = exp(S - LSE)
   * and dS = P (dP - dPsum) (FA4 flash_bwd_sm90.py 1546-1552 and 1566-1569; FlashAttention-2's
   * backward algorithm).
   */
  var BACKWARD_POINTWISE_PASSES = 2;

  /**
   * Per model: the unit parameters (tile, latencies from perf.js, problem -> tiles, FLOPs) and the
   * candidates of classifyBottleneck from its verdict. p = the parameters so far, k = the model's
   * knobs as validated without the units (FA3's dtype and headDim, WGs, schedule, subtiles).
   */
  var UNITS = {
    gemm: {
      tileDims: 3, defaultTile: "128x128x64",
      latencies: function (P, gpu, p) { return P.gemmLatencies({ tile: p.tile, dtype: p.dtype, outDtype: p.outDtype, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
      problem: gemmProblem,
      loads: function (k) { return k.outputTiles * k.kTiles; },
      tileFlops: function (p, k) { return 2 * p.tile.m * p.tile.n * p.tile.k * k.kTiles; },
      candidates: function (v, k, idle) {
        // Cooperative WGs wait for the same stage together (their mean is the idle time); pingpong
        // WGs take turns in the mainloop (their TMA waits are disjoint: the sum).
        var lanes = Object.keys(v.waits), tma = 0;
        lanes.forEach(function (l) { tma += v.waits[l].tma || 0; });
        if (k.consumerWGs === 2 && k.schedule === "cooperative" && lanes.length) tma /= lanes.length;
        tma = Math.min(tma, idle);
        return [{ name: "tma-latency", cycles: tma, how: "consumer TMA waits" + (v.minStagesToHideTma ? "; hidden from " + v.minStagesToHideTma + " stages" : "") },
          { name: "epilogue", cycles: idle - tma, how: "the rest of the idle time: epilogues and their order waits" }];
      }
    },
    blackwell: {
      tileDims: 3, defaultTile: "128x128x64",
      latencies: function (P, gpu, p, k) { return P.blackwellLatencies({ tile: p.tile, dtype: p.dtype, outDtype: p.outDtype, subtiles: k.epiSubtiles, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
      problem: gemmProblem,
      loads: function (k) { return k.outputTiles * k.kTiles; },
      tileFlops: function (p, k) { return 2 * p.tile.m * p.tile.n * p.tile.k * k.kTiles; },
      candidates: function (v, k, idle) {
        var w = v.waits.mma || {};
        return [{ name: "tma-latency", cycles: Math.min(idle, w.tma || 0), how: "the MMA warp's TMA waits" },
          { name: "epilogue", cycles: Math.min(idle, w.acc || 0), how: "the MMA warp's waits for a free TMEM accumulator stage" }];
      }
    },
    attention: {
      tileDims: 2, defaultTile: "128x128",
      latencies: function (P, gpu, p, k) {
        return P.attentionLatencies({ blockM: p.tile.m, blockN: p.tile.n, headdim: p.headdim, C: k.consumerWGs, dtype: p.dtype,
          reuse: p.reuse, memLatency: p.memLatency }, gpu);
      },
      problem: function (P, gpu, p, raw) {
        var a = attentionSizes(raw);
        if (a === null) return null;
        var kv = Math.ceil(a.seqlen / p.tile.n);
        return { text: a.text, tiles: a.batch * a.heads * Math.ceil(a.seqlen / p.tile.m),
          knobs: { outputTiles: null, kvBlocks: a.causal ? Math.ceil(kv / 2) : kv },
          reuse: P.attentionKvReuse(a.seqlen, p.tile.m, gpu.sms),
          flops: 4 * a.batch * a.heads * a.seqlen * a.seqlen * p.headdim * (a.causal ? 0.5 : 1) };
      },
      loads: function (k) { return 2 * k.outputTiles * k.kvBlocks; },
      tileFlops: function (p, k) { return 4 * p.tile.m * p.tile.n * p.headdim * k.kvBlocks; },
      candidates: function (v, k, idle) {
        // The WGs work on the same KV block: a K / V / Q wait all of them share is the minimum.
        var lanes = Object.keys(v.waits), tma = lanes.length ? Infinity : 0;
        lanes.forEach(function (l) { var w = v.waits[l]; tma = Math.min(tma, (w.q || 0) + (w.k || 0) + (w.v || 0)); });
        var sm = Math.min(idle, v.exposedSoftmaxSteps || 0);
        tma = Math.min(tma, idle - sm);
        return [{ name: "softmax", cycles: sm, how: "exposed softmax (not overlapped by a GEMM)" },
          { name: "tma-latency", cycles: tma, how: "the consumer WGs' common Q / K / V waits" },
          { name: "epilogue", cycles: idle - sm - tma, how: "the rest of the idle time" }];
      }
    },
    program: {
      // Which entry applies comes from the program's own run (programEntry), never from a family name.
      adapt: programEntry
    }
  };

  /** An attention problem's sizes from the batch / heads / seqlen / causal knobs, or null when none is given. */
  function attentionSizes(raw) {
    if (raw.seqlen === undefined && raw.batch === undefined && raw.heads === undefined) return null;
    var seqlen = unitInt(raw, "seqlen", null);
    if (seqlen === null) unitsFail("an attention problem needs seqlen");
    var batch = unitInt(raw, "batch", 1), heads = unitInt(raw, "heads", 1), causal = normalizeFlag("causal", raw.causal, false, []);
    return { seqlen: seqlen, batch: batch, heads: heads, causal: causal, text: batch + " x " + heads + " heads x " + seqlen + (causal ? " causal" : "") };
  }

  /**
   * The attention-backward problem of a run with `gemms` GEMMs per m-block (docs/performance.md
   * "The attention backward"): one CTA tile per n-block of K / V (tile n rows) of each batch and
   * head, stepping over the m-blocks of Q / dO (tile m rows, causal: half of them, as the forward's
   * KV blocks); each GEMM is 2 s^2 d per head (S = Q K^T, dP = dO V^T, dV, dK, dQ: all five give
   * 10 s^2 d, 2.5 x the forward's 4 s^2 d); the wave's L2 reuse of Q / dO is the forward's rule
   * with the CTAs of one head being its n-blocks.
   */
  function backwardProblem(gemms) {
    return function (P, gpu, p, raw) {
      var a = attentionSizes(raw);
      if (a === null) return null;
      var q = Math.ceil(a.seqlen / p.tile.m);
      return { text: a.text + " backward", tiles: a.batch * a.heads * Math.ceil(a.seqlen / p.tile.n),
        knobs: { outputTiles: null, qBlocks: a.causal ? Math.ceil(q / 2) : q },
        reuse: P.attentionKvReuse(a.seqlen, p.tile.n, gpu.sms),
        flops: gemms * 2 * a.batch * a.heads * a.seqlen * a.seqlen * p.headdim * (a.causal ? 0.5 : 1) };
    };
  }

  /**
   * A GEMM's reduce-add block: the m x n FP32 D (a reduce-add accumulates in FP32) over the reduce
   * blocks of one role per tile, priced as a store over the HBM share: whether D stays in L2 is
   * not known, and the read of D the add makes is not charged.
   */
  function gemmReduce(P, t, blocks) {
    var o = tileOutput(P, t.m, t.n, blocks, "reduce-add", t.m + " x " + t.n + " FP32 D");
    o.outDtype = "fp32";
    o.what += "; an add into D, over HBM as a store (D's residency in L2 is not known, the read of D not charged)";
    return o;
  }

  /** One output block of `rows` x cols of the tile's output over `blocks` blocks of one role per tile. */
  function tileOutput(P, rows, cols, blocks, kind, whole) {
    var b = Math.max(1, blocks);
    return { m: rows / b, n: cols, what: "the tile's " + whole + " / " + P.num(b) + " " + kind + " blocks of one role per tile" };
  }

  /**
   * The step of each program shape as programLatencies (sim/perf.js) splits it (p: the unit
   * parameters, n: the census counts). GEMM: one k-tile, the A + B k-tile's (m + n) k elements,
   * 2mnk FLOPs, output m x n; its reduce-adds (DeepGEMM's SM90_TMA_REDUCE_ADD into D) the m x n
   * FP32 D over the reduce blocks of one role per tile, over the HBM share as a store. Attention
   * forward: one KV block, the K and V tiles' 2 n d elements, 4 m n d FLOPs (S = Q K^T and O += P
   * V), m / exp blocks rows of scores per exp or math block, output m x d, no reduce-add known.
   */
  var PROGRAM_STEPS = {
    gemm: function (P, p, n) {
      var t = p.tile, copies = Math.max(1, n.copiesPerStep), jobs = n.mmaJobsPerStep;
      return { name: "k-tile", load: { bytes: (t.m + t.n) * t.k * P.dtypeBytes(p.dtype) / copies, what: "A + B k-tile / " + P.num(copies) + " copies per k-tile" },
        mma: jobs > 0 ? { m: t.m / jobs, n: t.n, k: t.k, what: "2 x " + t.m + " x " + t.n + " x " + t.k + " FLOPs per k-tile / " + P.num(jobs) + " MMA jobs" } : null,
        exp: null, math: { rows: t.m, cols: t.n, what: "one op per element of one exp block's rows x " + t.n + "; the loop's own shape is not parsed" },
        epilogue: tileOutput(P, t.m, t.n, n.epiloguePerTile, "epilogue", t.m + " x " + t.n + " output"),
        store: tileOutput(P, t.m, t.n, n.storePerTile, "store", t.m + " x " + t.n + " output"),
        reduce: gemmReduce(P, t, n.reducePerTile) };
    },
    attention: function (P, p, n) {
      var t = p.tile, d = p.headdim, copies = Math.max(1, n.copiesPerStep), jobs = n.mmaJobsPerStep, exp = n.expPerStep;
      var rows = t.m / (exp > 0 ? exp : 1), out = t.m + " x " + d + " output";
      return { name: "KV block", load: { bytes: 2 * t.n * d * P.dtypeBytes(p.dtype) / copies, what: "K and V tiles / " + P.num(copies) + " copies per KV block" },
        mma: jobs > 0 ? { m: 2 * t.m / jobs, n: t.n, k: d, what: "4 x " + t.m + " x " + t.n + " x " + d + " FLOPs per KV block / " + P.num(jobs) + " MMA jobs" } : null,
        exp: exp > 0 ? { rows: rows, cols: t.n, what: t.m + " score rows / " + P.num(exp) + " exp blocks per step" } : null,
        math: { rows: rows, cols: t.n, what: "one op per element of one exp block's rows x " + t.n + "; the loop's own shape is not parsed" },
        epilogue: tileOutput(P, t.m, d, n.epiloguePerTile, "epilogue", out), store: tileOutput(P, t.m, d, n.storePerTile, "store", out), reduce: null };
    },
    backward: backwardStep
  };

  /**
   * Attention backward (docs/performance.md "The attention backward"): one m-block of Q / dO
   * (tile m rows) against the CTA's n-block of K / V (tile n rows). Loads: Q and dO (m x d each)
   * with their LSE and dPsum rows (m FP32 each), over the step's copies. MMA: the run's GEMMs per
   * m-block, each 2 m n d (the backward's five are m x n x d, m x n x d, n x d x m, n x d x m and
   * m x d x n: the same product), over its MMA jobs. The pointwise work, P = exp(S - LSE) and dS =
   * P (dP - dPsum) over the m x n scores (BACKWARD_POINTWISE_PASSES): the exp pass over the exp
   * blocks when the run draws any, else over the math blocks at what exp blocks would cost
   * (expRows: softmaxCycles), the rest over the math blocks at one FP32 op per element. The
   * reduce-add blocks drawn per step (`reduce`: sim/interpret/ops.js OPAQUE_LATENCY) are the dQ
   * accumulation, a bulk reduce-add into L2 (reduceAdd) of the m-block's m x d FP32 dQ over them
   * (null without any per step: no other reduce-add is known). Store and epilogue blocks are the
   * tile's dK and dV (2 x n x d in the dtype) over the blocks of one role per tile; a store block
   * drawn per m-block is none of those, and stops the units (what it stores is not known).
   */
  function backwardStep(P, p, n) {
    var t = p.tile, d = p.headdim, copies = Math.max(1, n.copiesPerStep), jobs = n.mmaJobsPerStep, exp = n.expPerStep, g = n.gemmsPerStep;
    var bytes = 2 * t.m * d * P.dtypeBytes(p.dtype) + 2 * t.m * P.dtypeBytes("fp32");
    var math = Math.max(1, n.mathPerStep), dkv = "2 x " + t.n + " x " + d + " dK and dV", rest = BACKWARD_POINTWISE_PASSES - 1;
    if (n.storePerStep > 0) unitsFail("program: the run draws store blocks per m-block (qBlocks) that are no reduce-add: what they store is not known");
    var dq = n.reducePerStep > 0 ? { m: t.m / n.reducePerStep, n: d, outDtype: "fp32", reduceAdd: true,
      what: "the m-block's " + t.m + " x " + d + " FP32 dQ / " + P.num(n.reducePerStep) + " reduce-add blocks per step" } : null;
    var mathWhat = exp > 0 ? "one op per element: " + rest + " pointwise pass (dS) over the " + t.m + " x " + t.n + " scores / " + P.num(math) + " math blocks per step" :
      "P = exp(S - LSE) drawn as math: " + t.m + " / " + P.num(math) + " rows at an exp block's cost, and one op per element of " + rest +
      " more pointwise pass (dS) over the " + t.m + " x " + t.n + " scores / " + P.num(math) + " math blocks per step";
    return { name: "m-block", load: { bytes: bytes / copies, what: "Q and dO tiles with their LSE and dPsum rows / " + P.num(copies) + " copies per m-block" },
      mma: jobs > 0 ? { m: g * t.m / jobs, n: t.n, k: d, what: P.num(g) + " GEMMs x 2 x " + t.m + " x " + t.n + " x " + d + " FLOPs per m-block / " + P.num(jobs) + " MMA jobs" } : null,
      exp: exp > 0 ? { rows: t.m / exp, cols: t.n, what: t.m + " score rows of P = exp(S - LSE) / " + P.num(exp) + " exp blocks per step" } : null,
      math: { rows: rest * t.m / math, cols: t.n, expRows: exp > 0 ? 0 : t.m / math, what: mathWhat + "; the loops' own shapes are not parsed" },
      epilogue: tileOutput(P, 2 * t.n, d, n.epiloguePerTile, "epilogue", dkv), store: tileOutput(P, 2 * t.n, d, n.storePerTile, "store", dkv), reduce: dq };
  }

  /**
   * The program model's unit parameters for one structure (docs/performance.md "The program model
   * in cycles"): the census of its own run (model_program.js programCensus) says what one CTA tile
   * draws. A run stepping over the m-blocks of Q (qBlocks) is an attention backward (tile MxN, head
   * dimension, the backward's batch / heads / seqlen problem, 2 m n d FLOPs per GEMM the run draws
   * per m-block); else a run with exp blocks per step softmaxes a block of scores per KV block, so
   * it is attention-shaped (tile MxN, head dimension, batch / heads / seqlen problem, 4 m n d
   * FLOPs per KV block); else GEMM-shaped (tile MxNxK, an MxNxK problem, 2mnk FLOPs per k-tile).
   * base = the program knobs as validated without the units.
   */
  function programEntry(P, structure, base) {
    var MP = programModule();
    if (MP === null || typeof MP.programCensus !== "function") unitsFail("program: sim/model_program.js is not loaded");
    var census = MP.programCensus(structure, base);
    if (census.error && census.deadlock) {
      // The code's own protocol deadlocks at these settings (77 with one KV stage): the run is drawn in steps, without time.
      var e = new Error("program: " + census.error); e.unitsError = true; e.stepsOnly = true; throw e;
    }
    if (census.error) unitsFail("program: " + census.error);
    var reads = MP.programReads(structure, base.flags) || {}, counts = census.counts, bwd = census.step === "qBlocks", att = bwd || counts.expPerStep > 0;
    if (att && census.step === "kTiles") unitsFail("program: the run draws exp blocks per k-tile, not per KV block: no attention problem fits it");
    if (bwd && !(counts.gemmsPerStep > 0)) unitsFail("program: the run draws no GEMM per m-block (qBlocks): no attention-backward problem fits it");
    var kind = bwd ? "backward" : att ? "attention" : "gemm", shape = att ? UNITS.attention : UNITS.gemm;
    return {
      tileDims: att ? 2 : 3, defaultTile: att ? "128x128" : "128x128x64", headdim: att,
      latencies: function (P2, gpu, p) {
        return P2.programLatencies({ step: PROGRAM_STEPS[kind](P2, p, counts), dtype: p.dtype, reuse: p.reuse, memLatency: p.memLatency, reads: reads }, gpu);
      },
      problem: bwd ? backwardProblem(counts.gemmsPerStep) : shape.problem,
      // The HBM floor's loads: the copies the run drew (each of the per-copy bytes).
      loads: function (k, result) { return result && result.columns ? kindCount(result.columns, "filling") : 0; },
      tileFlops: bwd ? function (p, k) { return counts.gemmsPerStep * 2 * p.tile.m * p.tile.n * p.headdim * k.qBlocks; } : shape.tileFlops,
      candidates: programCandidates,
      incomplete: programIncomplete,
      // Work the kernel must do that the run draws no block for: not priced, said (units.unpriced).
      unpriced: bwd && !(counts.epiloguePerTile > 0) && !(counts.storePerTile > 0) ?
        ["the tile's dK and dV (2 x n x d): the run draws no epilogue or store block for them, so their write-out is not priced"] : [],
      census: census
    };
  }

  /** The blocks of one kind in a run's columns. */
  function kindCount(columns, kind) {
    var code = columns.kinds.indexOf(kind), n = 0;
    for (var i = 0; i < columns.n; i++) if (columns.kind[i] === code) n++;
    return n;
  }

  /**
   * The program model's bottleneck candidates, one per ring the MMA-issuing roles wait on (the
   * verdict's "What the MMA-issuing roles wait for", model_program.js mmaWaits): the cycles in
   * which the tensor core is idle (no MMA block runs) while at least one MMA-issuing role (a lane
   * with a `wgmma` or `umma` block) waits on that ring. A wait while another role's MMA runs
   * (pingpong's order barrier, a wait for the tensor core) costs no tensor-core time and so is no
   * candidate. The copy ring's `tma` is named `tma-latency` as in the other models; the others by
   * their ring. The rings' shares may overlap (two roles waiting on two rings at once).
   */
  function programCandidates(v, k, idle, result) {
    var c = result && result.columns;
    if (!c || !(c.n > 0)) return [];
    var mmaCodes = {}, issuers = {}, busy = [], waits = {}, i;
    c.kinds.forEach(function (kind, code) { if (kind === "wgmma" || kind === "umma") mmaCodes[code] = true; });
    for (i = 0; i < c.n; i++) if (mmaCodes[c.kind[i]]) { issuers[c.lane[i]] = true; busy.push([c.start[i], c.end[i]]); }
    var waitCode = c.kinds.indexOf("wait");
    for (i = 0; i < c.n; i++) {
      var reason = c.reasons[c.reason[i]];
      if (c.kind[i] !== waitCode || !issuers[c.lane[i]] || typeof reason !== "string" || reason === "tensor-core") continue;
      (waits[reason] = waits[reason] || []).push([c.start[i], c.end[i]]);
    }
    busy = mergeSpans(busy);
    return Object.keys(waits).sort().map(function (reason) {
      var spans = mergeSpans(waits[reason]);
      // The load ring's candidate says from how many stages the load is hidden (model_program.js
      // minStagesToHideLoad), as the GEMM model's does.
      var hidden = reason === "tma" && typeof v.minStagesToHideTma === "number" ? "; hidden from " + v.minStagesToHideTma + " stages" : "";
      return { name: reason === "tma" ? "tma-latency" : reason, cycles: Math.min(idle, spansLength(spans) - overlapLength(spans, busy)),
        how: "tensor core idle while an MMA-issuing role waits on `" + reason + "`" + hidden };
    });
  }

  /** Sorted, disjoint [start, end) spans covering the same time as `spans`. */
  function mergeSpans(spans) {
    var sorted = spans.filter(function (sp) { return sp[1] > sp[0]; }).sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; }), out = [];
    sorted.forEach(function (sp) {
      var last = out[out.length - 1];
      if (last && sp[0] <= last[1]) last[1] = Math.max(last[1], sp[1]);
      else out.push([sp[0], sp[1]]);
    });
    return out;
  }

  function spansLength(spans) { var t = 0; spans.forEach(function (sp) { t += sp[1] - sp[0]; }); return t; }

  /** The time two merged span lists share (a two-pointer sweep). */
  function overlapLength(a, b) {
    var i = 0, j = 0, t = 0;
    while (i < a.length && j < b.length) {
      t += Math.max(0, Math.min(a[i][1], b[j][1]) - Math.max(a[i][0], b[j][0]));
      if (a[i][1] < b[j][1]) i++; else j++;
    }
    return t;
  }

  /** Why a program run gives no time or throughput (a role stopped: the run is not the whole kernel), or null. */
  function programIncomplete(v) {
    if (!v.stopped || !v.stopped.length) return null;
    return "no time or throughput: " + v.stopped.map(function (x) { return x.role + " stopped at line " + x.line + " (" + x.reason + ")"; }).join("; ") +
      ", not modelled, so the run is not the whole kernel";
  }

  /** A GEMM problem "MxNxK": its tiles, the CTA's k-tiles, the wave's L2 reuse and FLOPs. */
  function gemmProblem(P, gpu, p, raw) {
    if (raw.problem === undefined || raw.problem === null || raw.problem === "") return null;
    var d = unitDims(raw.problem, "problem", 3), pr = { m: d[0], n: d[1], k: d[2] };
    var tiles = Math.ceil(pr.m / p.tile.m) * Math.ceil(pr.n / p.tile.n);
    return { text: d.join("x"), tiles: tiles, knobs: { outputTiles: null, kTiles: Math.ceil(pr.k / p.tile.k) },
      reuse: P.gemmWaveReuse(pr, p.tile, gpu.sms), flops: 2 * pr.m * pr.n * pr.k };
  }

  /**
   * The chain of blocks that sets a run's total (docs/performance.md "The critical path"): from the
   * block ending last (ties: the lowest id), step to the `after` predecessor ending last (ties: the
   * lowest id) until a block has none. Returns null for a run without blocks, else {blocks (ids in
   * time order), cycles (the last end), byKind ({kind: cycles on the path}), gapCycles (time on the
   * path covered by no block of it), shares ({kind: fraction of cycles}, "gap" included when > 0),
   * top (the kind with the largest share; ties: the first in name order)}.
   */
  function criticalPath(columns) {
    if (!columns || !(columns.n > 0)) return null;
    var end = columns.end, start = columns.start, at = columns.afterAt, list = columns.afterList;
    var cur = 0, id, j;
    for (id = 1; id < columns.n; id++) if (end[id] > end[cur]) cur = id;
    var path = [], seen = {}, byKind = {}, gap = 0;
    while (cur >= 0 && !seen[cur]) {
      seen[cur] = true;
      path.push(cur);
      var kind = columns.kinds[columns.kind[cur]];
      byKind[kind] = (byKind[kind] || 0) + (end[cur] - start[cur]);
      var pred = -1;
      for (j = at[cur]; j < at[cur + 1]; j++) {
        var q = list[j];
        if (pred < 0 || end[q] > end[pred] || (end[q] === end[pred] && q < pred)) pred = q;
      }
      gap += Math.max(0, start[cur] - (pred >= 0 ? end[pred] : 0));
      cur = pred;
    }
    path.reverse();
    var total = end[path[path.length - 1]];
    var shares = {}, names = Object.keys(byKind).sort(), top = null;
    names.forEach(function (kd) {
      shares[kd] = total > 0 ? byKind[kd] / total : 0;
      if (top === null || shares[kd] > shares[top]) top = kd;
    });
    if (gap > 0) shares.gap = gap / total;
    return { blocks: path, cycles: total, byKind: byKind, gapCycles: gap, shares: shares, top: top };
  }

  /** One line naming a critical path: "critical path: N blocks, filling 72%, epilogue 20%, ...". */
  function criticalPathText(cp) {
    var parts = Object.keys(cp.shares).sort(function (a, b) { return cp.shares[b] - cp.shares[a] || (a < b ? -1 : 1); });
    return "critical path: " + cp.blocks.length + " blocks, " + parts.map(function (kd) { return kd + " " + Math.round(cp.shares[kd] * 100) + "%"; }).join(", ");
  }

  return {
    perfModule: perfModule,
    unitsFail: unitsFail,
    unitInt: unitInt,
    unitDims: unitDims,
    unitGpu: unitGpu,
    UNITS: UNITS,
    programCandidates: programCandidates,
    criticalPath: criticalPath,
    criticalPathText: criticalPathText
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelUnits;
