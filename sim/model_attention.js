/*
 * sim/model_attention.js: the attention model (docs/models/attention.md): FlashAttention-3's
 * forward mainloop (and CUTLASS 88_hopper_fmha's shared K/V ring) on the engine. Its knobs,
 * FA3's build rules (tile_size_fwd_sm90, Transpose_V, the scheduler barrier), the source
 * references, the verdict, the view description, and register(), which adds it to schedule.js's
 * MODELS. The run itself (the role programs) is sim/attention_roles.js.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/attention_roles.js as a classic script, which makes KernelModelAttention a global; Node gets
 * the same object through module.exports.
 */
var KernelModelAttention = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/model_attention.js: common.js is not loaded (the page runs it before this file)");
  })();
  /** sim/fit.js: the page's global, or require()d next to this file. */
  var FIT = (function () {
    if (typeof KernelFit !== "undefined") return KernelFit;
    if (typeof require === "function" && typeof module !== "undefined") return require("./fit.js");
    throw new Error("sim/model_attention.js: fit.js is not loaded (the page runs it before this file)");
  })();
  /** sim/attention_roles.js: the page's global, or require()d next to this file. */
  var AR = (function () {
    if (typeof KernelAttentionRoles !== "undefined") return KernelAttentionRoles;
    if (typeof require === "function" && typeof module !== "undefined") return require("./attention_roles.js");
    throw new Error("sim/model_attention.js: attention_roles.js is not loaded (the page runs it before this file)");
  })();
  var PRODUCER_ROLES = C.PRODUCER_ROLES, CONSUMER_ROLES = C.CONSUMER_ROLES, LOAD_OPS = C.LOAD_OPS,
    showValue = C.showValue, normalizeNumber = C.normalizeNumber, knobObject = C.knobObject,
    reportUnknownKnobs = C.reportUnknownKnobs, normalizeFlag = C.normalizeFlag, widget = C.widget,
    isObject = C.isObject, lineOrNull = C.lineOrNull, makeRef = C.makeRef, opsOf = C.opsOf,
    pickFunction = C.pickFunction, sortRefs = C.sortRefs, functionInfo = C.functionInfo, kindSet = C.kindSet,
    sourceRefs = C.sourceRefs, refsOf = C.refsOf, unionRefs = C.unionRefs, layerWarpgroups = C.layerWarpgroups;
  var attentionShape = FIT.attentionShape, mmaClass = FIT.mmaClass, declaredPipelines = FIT.declaredPipelines,
    attentionCovers = FIT.attentionCovers, attentionPipes = FIT.attentionPipes, pipeText = FIT.pipeText;
  var attentionLanes = AR.attentionLanes, estimateAttentionBlocks = AR.estimateAttentionBlocks,
    runAttention = AR.runAttention;

  /** Numeric knobs of the attention model: [min, max] ranges and slider labels, in display order. */
  var ATTENTION_KNOB_RANGES = {
    stages: { min: 1, max: 64, label: "stages (S)", doc: "stages of each K / V (/ Vt) pipeline" },
    outputTiles: { min: 1, max: 4096, label: "output tiles (O)", doc: "output tiles (Q blocks) processed by this CTA" },
    kvBlocks: { min: 1, max: 4096, label: "KV blocks per tile (J)", doc: "mainloop iterations (K/V blocks) per output tile" },
    tmaLatency: { min: 0, max: 10000, label: "TMA latency (L)", doc: "steps from TMA issue to stage full" },
    gemm0Latency: { min: 1, max: 10000, label: "GEMM0 latency (G0)", doc: "tensor-core steps of one WG's S = Q K^T" },
    softmaxLatency: { min: 1, max: 10000, label: "softmax latency (X)", doc: "steps of one WG's online softmax" },
    gemm1Latency: { min: 1, max: 10000, label: "GEMM1 latency (G1)", doc: "tensor-core steps of one WG's O += P V" },
    epilogueLatency: { min: 0, max: 10000, label: "epilogue latency (E)", doc: "steps of one tile's epilogue" },
    consumerWGs: { min: 1, max: 3, label: "consumer WGs (C)", doc: "math warpgroups, each on its rows of every tile" }
  };

  /** On/off knobs of the attention model (refinements; off = the plain model). */
  var ATTENTION_KNOB_FLAGS = {
    intraWGOverlap: { label: "intra-WG overlap", doc: "issue GEMM0(j) before GEMM1(j-1): softmax(j) overlaps GEMM1(j-1)" },
    interWGPingpong: { label: "inter-WG pingpong", doc: "named barriers rotate the WGs' GEMM phases (WG1 -> WG2 (-> WG3) -> WG1; C >= 2)" },
    transposeV: { label: "Transpose_V", doc: "V arrives as Vt and the load warp transposes it into V (FP8); default: the structure has a Vt pipeline" }
  };

  /** Defaults of the attention model. */
  var ATTENTION_DEFAULT_KNOBS = {
    model: "attention",
    stages: 2,
    outputTiles: 2,
    kvBlocks: 4,
    tmaLatency: 4,
    gemm0Latency: 2,
    softmaxLatency: 2,
    gemm1Latency: 2,
    epilogueLatency: 3,
    consumerWGs: 2,
    intraWGOverlap: false,
    interWGPingpong: false,
    transposeV: false
  };

  /** Wait reasons of the attention model, in tie-break priority order. */
  var ATTENTION_WAIT_REASONS = ["barrier", "q", "k", "v", "epilogue", "tensor-core"];

  /** Block kinds of the attention model, in legend order. */
  var ATTENTION_BLOCK_KINDS = ["issue", "transpose", "filling", "full", "gemm0", "softmax", "gemm1", "epilogue", "wait"];

  // ---------------------------------------------------------------------------------------------
  // FlashAttention-3 as it is built (docs/models/attention.md "FA3 as built"): on FA3's own
  // mainloop the compile-time inputs (dtype, head dimension, MMA warpgroups, IntraWGOverlap) are
  // the knobs, and Transpose_V and the scheduler barrier are derived as FA3 derives them.

  /** Element types of FA3's forward kernel: element size in bytes (tile_size_fwd_sm90's element_size). */
  var FA3_DTYPES = { bf16: 2, fp16: 2, fp8: 1 };

  /**
   * hopper/tile_size.h tile_size_fwd_sm90 for headdim_v = headdim, not causal, not local, no
   * paged KV, no softcap: per element size, rows [largest head dimension, kBlockM, kBlockN,
   * MmaPV_is_RS, IntraWGOverlap] in the function's order (element_size 2: the `headdim <= 64`,
   * `<= 96`, `<= 128`, `<= 192` and last branches; element_size 1 likewise).
   */
  var FA3_TILE_SM90 = {
    2: [[64, 192, 192, false, true], [96, 192, 144, false, true], [128, 128, 176, true, true],
      [192, 128, 112, true, true], [256, 128, 80, true, true]],
    1: [[64, 192, 160, true, true], [96, 192, 128, true, true], [128, 128, 224, true, true],
      [192, 128, 160, true, true], [256, 128, 128, true, true]]
  };

  /** The expressions of FA3's flags the derivation implements, whitespace-normalized (mainloop_fwd_sm90_tma_gmma_ws.hpp). */
  var FA3_FLAG_TEXTS = {
    Transpose_V: "Is_FP8 && !V_colmajor",
    UseSchedulerBarrier: "(IntraWGOverlap ? (NumMmaWarpGroups >= 2) && (!Is_FP8 ? kHeadDim <= 128 : kHeadDim >= 128) : NumMmaWarpGroups == 2) && !LargeHeadDimV"
  };

  /**
   * FA3's build facts in a structure: {Transpose_V: {line, text}, UseSchedulerBarrier: {...}} when
   * its constants hold both flags with exactly the expressions the derivation implements; null
   * otherwise (another kernel, or an FA3 revision whose rule changed: the knobs stay free).
   */
  function fa3Build(structure) {
    var consts = isObject(structure) && Array.isArray(structure.constants) ? structure.constants.filter(isObject) : [];
    var out = {};
    for (var name in FA3_FLAG_TEXTS) {
      var c = consts.filter(function (x) { return x.name === name; })[0];
      if (!c || String(c.value).replace(/\s+/g, " ").trim() !== FA3_FLAG_TEXTS[name]) return null;
      out[name] = { line: lineOrNull(c.line), text: FA3_FLAG_TEXTS[name] };
    }
    return out;
  }

  /** tile_size_fwd_sm90's row for a dtype and head dimension: {kBlockM, kBlockN, rs, intra}. */
  function fa3Tile(dtype, headDim) {
    var rows = FA3_TILE_SM90[FA3_DTYPES[dtype]];
    for (var i = 0; i < rows.length - 1 && headDim > rows[i][0]; i++) { /* first row whose bound holds */ }
    var r = rows[i];
    return { kBlockM: r[1], kBlockN: r[2], rs: r[3], intra: r[4] };
  }

  /**
   * FA3's derived flags for validated knobs: transposeV = Transpose_V (Is_FP8 && !V_colmajor; V is
   * row-major here) and interWGPingpong = UseSchedulerBarrier (LargeHeadDimV is false: headdim_v
   * = headdim <= 256).
   */
  function fa3Derived(knobs) {
    var fp8 = knobs.dtype === "fp8", C = knobs.consumerWGs, d = knobs.headDim;
    var sched = knobs.intraWGOverlap ? C >= 2 && (!fp8 ? d <= 128 : d >= 128) : C === 2;
    return { transposeV: fp8, interWGPingpong: sched };
  }

  /** Normalize FA3's compile-time inputs and derive its flags (normalizeAttentionKnobs on FA3's mainloop). */
  function normalizeFa3Knobs(raw, knobs, src, messages) {
    var build = src.fa3;
    var d = raw.dtype, text = typeof d === "string" ? d.trim().toLowerCase() : null;
    if (d === undefined || d === null) knobs.dtype = FA3_DEFAULT_BUILD.dtype;
    else if (text !== null && Object.prototype.hasOwnProperty.call(FA3_DTYPES, text)) knobs.dtype = text;
    else {
      messages.push("dtype: " + showValue(d) + " is not one of " + Object.keys(FA3_DTYPES).join(", ") + "; using the default " + FA3_DEFAULT_BUILD.dtype);
      knobs.dtype = FA3_DEFAULT_BUILD.dtype;
    }
    knobs.headDim = normalizeNumber("headDim", raw.headDim, FA3_HEADDIM_RANGE, FA3_DEFAULT_BUILD.headDim, messages);
    var tile = fa3Tile(knobs.dtype, knobs.headDim);
    // MMA warpgroups = kBlockM / 64 (AtomLayoutQK, NumMmaWarpGroups) unless the kernel layer says
    // a literal count; IntraWGOverlap from the tile rule.
    if ((raw.consumerWGs === undefined || raw.consumerWGs === null) && !src.consumerWGs) knobs.consumerWGs = tile.kBlockM / 64;
    if (raw.intraWGOverlap === undefined || raw.intraWGOverlap === null) knobs.intraWGOverlap = tile.intra;
    var derived = fa3Derived(knobs);
    for (var name in derived) {
      var given = raw[name];
      if (given !== undefined && given !== null && normalizeFlag(name, given, derived[name], []) !== derived[name]) {
        var flag = name === "transposeV" ? "Transpose_V" : "UseSchedulerBarrier";
        messages.push(name + ": FA3 derives it (" + flag + " = " + build[flag].text + ", line " + build[flag].line +
          "): " + (derived[name] ? "on" : "off") + " for these knobs; the given " + showValue(given) + " is ignored");
      }
      knobs[name] = derived[name];
    }
  }

  /** The common FA3 build (the default page): BF16, head dimension 128 (tile 128 x 176, 2 MMA WGs). */
  var FA3_DEFAULT_BUILD = { dtype: "bf16", headDim: 128 };
  /** Head dimensions FA3's forward kernel takes (tile_size_fwd_sm90's last branch covers up to 256). */
  var FA3_HEADDIM_RANGE = { min: 8, max: 256, label: "head dimension (d)", doc: "kHeadDim: picks the tile (tile_size.h), MMA WGs and IntraWGOverlap" };

  /**
   * Validate a knob set for the attention model: returns {knobs, messages}; never throws. On
   * FA3's own mainloop (sourceKnobs.fa3) dtype and headDim are knobs too, the WG count and
   * IntraWGOverlap default to FA3's tile rule and Transpose_V / the scheduler barrier are derived.
   */
  function normalizeAttentionKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "attention" };
    var name;
    var src = sourceKnobs || {};
    for (name in ATTENTION_KNOB_RANGES) {
      var r = ATTENTION_KNOB_RANGES[name];
      var fallback = src[name] ? Math.min(r.max, Math.max(r.min, src[name].value)) : ATTENTION_DEFAULT_KNOBS[name];
      knobs[name] = normalizeNumber(name, raw[name], r, fallback, messages);
    }
    for (name in ATTENTION_KNOB_FLAGS) {
      knobs[name] = normalizeFlag(name, raw[name], src[name] ? !!src[name].value : ATTENTION_DEFAULT_KNOBS[name], messages);
    }
    if (src.fa3) normalizeFa3Knobs(raw, knobs, src, messages);
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /** Ops of a list whose kind is in kinds and that pass pred. */
  function pick(ops, kinds, pred) {
    var set = kindSet(kinds);
    return ops.filter(function (op) { return set[op.op] === true && (!pred || pred(op)); });
  }

  /** Predicate: the op acts on pipeline `pipe` (never, for a null pipe). */
  function onPipe(pipe) { return function (op) { return pipe !== null && op.pipeline === pipe; }; }

  /** Predicate: the op acts on FA3's standalone barrier_Q. */
  function onQBarrier(op) { return op.barrier === "barrier_Q"; }

  /** Consumer waits of the attention model's pipelines: their kinds. */
  var WAIT_KINDS = ["consumer_try_wait", "consumer_wait"];

  /**
   * The consumer's mma ops of each GEMM, and its waits of each GEMM: on its pipeline; with a
   * shared K/V pipeline, the waits whose next mma (in line order) is of that GEMM.
   * {mmas: {gemm0, gemm1}, waits: {gemm0, gemm1}}.
   */
  function gemmOps(cOps, shape, kPipe, vPipe) {
    var mmas = { gemm0: [], gemm1: [] };
    cOps.forEach(function (op) {
      var cls = op.op === "mma" ? mmaClass(op, kPipe, vPipe) : null;
      if (cls) mmas[cls].push(op);
    });
    var waits = { gemm0: [], gemm1: [] };
    if (shape.kv === "shared") {
      var byLine = cOps.slice().sort(function (a, b) { return (a.line || 0) - (b.line || 0); });
      byLine.forEach(function (op, i) {
        if (WAIT_KINDS.indexOf(op.op) < 0 || op.pipeline !== kPipe) return;
        for (var n = i + 1; n < byLine.length; n++) {
          if (byLine[n].op !== "mma") continue;
          var cls = mmaClass(byLine[n], null, null);
          if (cls) waits[cls].push(op);
          break;
        }
      });
    } else {
      waits.gemm0 = pick(cOps, WAIT_KINDS, onPipe(kPipe));
      waits.gemm1 = pick(cOps, WAIT_KINDS, onPipe(vPipe));
    }
    return { mmas: mmas, waits: waits };
  }

  /** Producer acquire/load/commit ops of one operand: loads by operand, acquire/commit by pipeline. */
  function issueOps(pOps, shape, operand, pipe, exclude) {
    return pOps.filter(function (op) {
      if (exclude.indexOf(op) >= 0) return false;
      if (LOAD_OPS[op.op]) return op.operand === operand;
      if (op.op === "producer_acquire" || op.op === "producer_commit") return pipe !== null && op.pipeline === pipe && shape.kv !== "shared";
      return false;
    });
  }

  /** Transpose (FA3 copy_Vt_to_V): the Vt consumer_wait/release and the V acquire/commit between them. */
  function transposeOps(pOps, shape, vPipe) {
    if (!shape.vt) return [];
    var vtOps = pick(pOps, ["consumer_wait", "consumer_release"], onPipe(shape.vtPipe));
    var lo = Infinity, hi = -Infinity;
    vtOps.forEach(function (op) {
      if (typeof op.line === "number") { lo = Math.min(lo, op.line); hi = Math.max(hi, op.line); }
    });
    return vtOps.concat(pick(pOps, ["producer_acquire", "producer_commit"], function (op) {
      return op.pipeline === vPipe && op.line > lo && op.line < hi;
    }));
  }

  /** The kernel layer's epilogue store calls (epilogue.store / collective_epilogue.store) as refs. */
  function epilogueRefs(st) {
    var kernel = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var kernelPath = kernel && isObject(kernel.source) && typeof kernel.source.path === "string" ? kernel.source.path : null;
    var calls = kernel && Array.isArray(kernel.calls) ? kernel.calls.filter(isObject) : [];
    return sortRefs(calls.filter(function (call) {
      return call.call === "store" && (call.receiver === "epilogue" || call.receiver === "collective_epilogue");
    }).map(function (call) { return makeRef(kernelPath, call.line, call.end_line, call.call, call.text); }));
  }

  /**
   * Source references of the attention model, computed once per simulate() call and shared by
   * reference: {gemm0, softmax, gemm1, releaseK, releaseV, issueK, issueV, issueQ, fillK, fillV,
   * fillQ, fullK, fullV, fullQ, transpose, fullVt, epilogue, barrier, waitK, waitV, waitQ, producer,
   * consumer, shape}. See docs/models/attention.md for the rules.
   */
  function attentionRefs(structure) {
    var st = isObject(structure) ? structure : {};
    var shape = attentionShape(st);
    var path = isObject(st.source) && typeof st.source.path === "string" ? st.source.path : null;
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    var pOps = opsOf(producer), cOps = opsOf(consumer);
    var kPipe = shape.kv === "shared" ? shape.kvPipe : shape.kPipe;
    var vPipe = shape.kv === "shared" ? shape.kvPipe : shape.vPipe;
    var g = gemmOps(cOps, shape, kPipe, vPipe), mmas = g.mmas, waits = g.waits;
    var releaseK = refsOf(pick(cOps, ["consumer_release"], onPipe(kPipe)), path);
    var releaseV = shape.kv === "shared" ? releaseK : refsOf(pick(cOps, ["consumer_release"], onPipe(vPipe)), path);
    var fullK = refsOf(waits.gemm0, path);
    var fullV = refsOf(waits.gemm1, path);
    var waitK = refsOf(waits.gemm0.filter(function (op) { return op.op === "consumer_wait"; }), path);
    var waitV = refsOf(waits.gemm1.filter(function (op) { return op.op === "consumer_wait"; }), path);
    // Q waits: on a Q pipeline (88_hopper_fmha), else on a standalone barrier_Q (FA3's
    // barrier_Q.wait(work_idx % 2), parsed as barrier_wait).
    var fullQ = refsOf(pick(cOps, WAIT_KINDS, onPipe(shape.qPipe)), path);
    if (fullQ.length === 0) fullQ = refsOf(pick(cOps, ["barrier_wait"], onQBarrier), path);
    var transpose = transposeOps(pOps, shape, vPipe);
    var barrier = refsOf(pick(cOps, ["order_wait", "order_arrive"]), path);
    if (barrier.length === 0) barrier = sourceRefs(st).order;
    var gemm0 = refsOf(waits.gemm0.concat(mmas.gemm0), path);
    var gemm1 = refsOf(waits.gemm1.concat(mmas.gemm1), path);
    return {
      gemm0: unionRefs([gemm0, releaseK]),
      softmax: refsOf(pick(cOps, ["softmax"]), path),
      gemm1: unionRefs([gemm1, releaseV]),
      releaseK: releaseK,
      releaseV: releaseV,
      issueK: refsOf(issueOps(pOps, shape, "K", kPipe, transpose), path),
      issueV: refsOf(issueOps(pOps, shape, "V", vPipe, transpose), path),
      issueQ: unionRefs([refsOf(issueOps(pOps, shape, "Q", shape.qPipe, transpose), path),
        refsOf(pick(pOps, ["barrier_arrive"], onQBarrier), path)]),
      fillK: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "K"; }), path),
      fillV: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "V"; }), path),
      fillQ: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "Q"; }), path),
      fullK: fullK,
      fullV: fullV,
      fullQ: fullQ,
      transpose: refsOf(transpose, path),
      fullVt: refsOf(pick(pOps, ["consumer_wait"], onPipe(shape.vtPipe)), path),
      epilogue: epilogueRefs(st),
      barrier: barrier,
      waitK: waitK,
      waitV: waitV,
      waitQ: fullQ,
      queryEmpty: refsOf(pOps.concat(cOps).filter(function (op) {
        return (op.op === "named_barrier_sync" || op.op === "named_barrier_arrive") &&
          /QueryEmpty/.test(String(op.barrier_id || "") + " " + String(op.text || ""));
      }), path),
      barrierO: refsOf(pick(pOps, ["barrier_wait"], function (op) { return op.barrier === "barrier_O"; }), path),
      producer: functionInfo(producer),
      consumer: functionInfo(consumer),
      shape: shape
    };
  }

  /** Zeroed per-reason wait totals of one attention consumer lane. */
  function newAttentionWaits() {
    var w = {};
    ATTENTION_WAIT_REASONS.forEach(function (r) { w[r] = 0; });
    w.total = 0;
    return w;
  }

  /** One-line human summary of an attention verdict. */
  function attentionSummary(knobs, verdict) {
    var C = knobs.consumerWGs;
    var mode = [knobs.intraWGOverlap ? "intra-WG overlap" : "no intra-WG overlap",
      C === 2 ? (knobs.interWGPingpong ? "inter-WG pingpong" : "2 WGs, no scheduler barrier") : "1 consumer WG"].concat(knobs.transposeV ? ["Transpose_V"] : []).join(", ");
    var util = Math.round(verdict.tensorCoreUtilization * 1000) / 10;
    var parts = ["attention (" + mode + "): " + verdict.total + " steps", "tensor cores busy " + util + "%",
      "softmax exposed " + verdict.exposedSoftmaxSteps + " of " + verdict.softmaxSteps + " steps"];
    Object.keys(verdict.waits).forEach(function (lane) {
      var w = verdict.waits[lane];
      var items = ATTENTION_WAIT_REASONS.filter(function (r) { return w[r] > 0; }).map(function (r) { return r + " " + w[r]; });
      parts.push(lane + " waits " + (items.length ? items.join(", ") : "none"));
    });
    return parts.join("; ");
  }

  /**
   * Structure-dependent knob notes, applied by simulate() after validation. (With one ring shared
   * by K and V and one stage, intraWGOverlap deadlocks: K[j+1] and V[j] must be in flight
   * together. That is a result now, not a clamp.)
   */
  function adjustAttentionKnobs(knobs, refs, messages) {
    if (knobs.transposeV && refs.shape.kv === "shared") {
      messages.push("transposeV: the shared K/V pipeline has no Vt pipeline; ignored");
    }
  }

  /** FA3's compile-time choices the structure shows: transposeV when a Vt pipeline is declared; the kernel layer's integer num_mma_warpgroups. */
  function attentionSourceKnobs(structure) {
    var st = isObject(structure) ? structure : {};
    var out = {};
    var wgs = isObject(st.kernel_layer) ? layerWarpgroups(st.kernel_layer) : null;
    if (wgs !== null) out.consumerWGs = wgs;
    var build = fa3Build(st);
    if (build !== null) {
      // FA3 derives Transpose_V from the dtype (a Vt pipeline is declared in every build).
      out.fa3 = build;
      return out;
    }
    var pipes = declaredPipelines(st);
    for (var i = 0; i < pipes.length; i++) {
      var alias = pipes[i].alias;
      if (alias.length > 2 && alias.slice(-2) === "Vt") { out.transposeV = { value: true, line: lineOrNull(pipes[i].line) }; break; }
    }
    return out;
  }

  /** The attention model's simulate: validated knobs and precomputed refs in, result fields out. */
  function simulateAttention(knobs, refs) {
    var run = runAttention(knobs, refs);
    var waits = {};
    run.roles.forEach(function (role, i) {
      if (i === 0) return;
      var w = newAttentionWaits();
      for (var reason in role.waits) { w[reason] = role.waits[reason]; w.total += role.waits[reason]; }
      waits[role.name] = w;
    });
    var steps = run.steps;
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? steps.busy / run.total : 0,
      tensorCoreBusySteps: steps.busy,
      exposedSoftmaxSteps: steps.exposed,
      softmaxSteps: steps.softmax,
      summary: ""
    };
    verdict.summary = run.deadlock !== null ? run.deadlock.message : attentionSummary(knobs, verdict);
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict,
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted };
  }

  /** The attention model's view description. */
  function attentionView() {
    return {
      unit: "KV block",
      copy: "TMA",
      kinds: {
        issue: { name: "TMA issue", doc: "load warp: acquire + TMA of K, V, Vt or Q (1 step)", chain: "k", rank: 0 },
        transpose: { name: "TRANSPOSE", doc: "load warp copies Vt[j] into V[j] (copy_Vt_to_V)", chain: "k", rank: 3 },
        filling: { name: "FILLING", doc: "TMA in flight: the data lands L steps after the issue", chain: "k", rank: 1 },
        full: { name: "FULL", doc: "the stage holds its block, from the landing to its release", chain: "k", rank: 2 },
        gemm0: { name: "GEMM0", doc: "S = Q K^T on the tensor cores", chain: "k", tile: true, rank: 4 },
        softmax: { name: "SOFTMAX", doc: "online softmax of S into P (CUDA cores)", chain: "k", tile: true, rank: 5 },
        gemm1: { name: "GEMM1", doc: "O += P V on the tensor cores", chain: "k", tile: true, rank: 6 },
        epilogue: { name: "EPILOGUE", doc: "the tile's epilogue (epilogue.store; starts with a named-barrier sync)", tile: true, rank: 7 },
        wait: { name: "WAIT", doc: "the WG is blocked" }
      },
      legend: [
        { kind: "issue", fills: ["issue"], text: ["issue ", ["K o.j"], " (load warp TMA issue of K, V, Vt or Q)"] },
        { kind: "transpose", fills: ["transpose"], text: [["T o.j"], " (transpose Vt \u2192 V)"], lanePrefix: "vt_stage" },
        { kind: "filling", fills: ["filling"], text: [["FILLING K o.j"], " (TMA in flight)"] },
        { kind: "full", fills: ["full"], text: [["FULL K o.j"], " (landed until released)"] },
        { kind: "gemm0", fills: ["gemm0"], text: [["G0 o.j"], " GEMM0 S = Q K^T"] },
        { kind: "softmax", fills: ["softmax"], text: [["SM o.j"], " softmax (thin row under its WG)"] },
        { kind: "gemm1", fills: ["gemm1"], text: [["G1 o.j"], " GEMM1 O += P V"] },
        { kind: "epilogue", fills: ["epilogue"], text: [["EPI o"], " (epilogue)"] },
        { kind: "wait", fills: ["wait"], text: [["WAIT reason"], " (hatched bubble)"] }
      ],
      note: ["", ["o.j"], " = output tile o, KV block j; K / V / Vt / Q name the operand; time in abstract steps"],
      waitReasons: [
        { reason: "barrier", doc: "the warp scheduler barrier (the other consumer WG has the tensor cores)" },
        { reason: "q", doc: "Q is not loaded yet (barrier_Q)" },
        { reason: "k", doc: "K[j] is not FULL yet (TMA still landing)" },
        { reason: "v", doc: "V[j] is not FULL yet (TMA or transpose still landing)" },
        { reason: "epilogue", doc: "the epilogue's named-barrier sync waits for the other WGs" },
        { reason: "tensor-core", doc: "the GEMM is issued but queued behind another one on the tensor core" }
      ],
      verdict: [
        { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
        { label: "Softmax exposed", format: "template", template: "{exposedSoftmaxSteps} of {softmaxSteps} steps (no GEMM running)" }
      ],
      subLaneGroups: ["softmax"]
    };
  }

  /**
   * What the attention model assumes of a structure: outside FA3's own mainloop the program is
   * still FA3's forward protocol (the parse gives pipelines, Transpose_V and lines, not the order).
   */
  function attentionAssumptions(st, kernel) {
    var out = [];
    var path = isObject(st.source) && typeof st.source.path === "string" ? st.source.path : "";
    if (!/mainloop_fwd_sm90_tma_gmma_ws\.hpp$/.test(path)) {
      out.push("the attention program is FlashAttention-3's forward protocol (hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp " +
        "with flash_fwd_kernel_sm90.h): this kernel's pipelines, Transpose_V and source lines come from the parse, " +
        "its own order of operations is not re-read");
    }
    if (!kernel) out.push("no kernel layer was parsed: the tile loop and the number of consumer WGs are the knobs'");
    return out;
  }

  /** What the attention model leaves out of a kernel it fits: shown on the page, fit.notModelled. */
  var ATTENTION_NOT_MODELLED = [
    "the epilogue (O from registers to smem, its TMA store) is one latency E per output tile",
    "the Q load is one copy per tile before the first KV block; masking and the causal tile count are not read",
    "every output tile has the same KV block count, and the tile scheduler's own work takes no time"
  ];

  /** ATTENTION_NOT_MODELLED plus the collective pipelines outside the modelled roles (with the function using each); inv: fitModel's inventory. */
  function attentionNotModelled(st, inv) {
    var known = attentionPipes(st), own = Array.isArray(st.functions) ? st.functions : [];
    var out = ATTENTION_NOT_MODELLED.slice();
    inv.order.forEach(function (id) {
      var p = inv.pipes[id];
      if (known.indexOf(id) >= 0) return;
      var fns = [];
      p.uses.forEach(function (u) { if (own.indexOf(u.fn) >= 0 && fns.indexOf(u.fn.name) < 0) fns.push(u.fn.name); });
      if (fns.length) {
        out.push("pipeline " + pipeText(p) + " and " + fns.map(function (f) { return f + "()"; }).join(", ") +
          ": a separate compile-time path the producer and consumer the model runs do not take; the schedule is the build without it");
      }
    });
    return out;
  }

  /**
   * The attention model's knob specs for a structure: on FA3's mainloop dtype and headDim join
   * them, the WG count and IntraWGOverlap default to FA3's tile rule, and transposeV /
   * interWGPingpong are `derived` (read-only: {rule, line}); elsewhere dtype and headDim are left
   * out (they would change nothing). Without a structure, every knob (the knob table's test).
   */
  function attentionSpecs(specs, structure, src) {
    if (structure === undefined) return specs.concat(fa3Specs());
    if (!src.fa3) return specs;
    var base = normalizeAttentionKnobs({}, src).knobs;
    specs.forEach(function (spec) {
      spec["default"] = base[spec.name];
      if (spec.name === "transposeV" || spec.name === "interWGPingpong") {
        var flag = spec.name === "transposeV" ? "Transpose_V" : "UseSchedulerBarrier";
        spec.derived = { rule: flag + " = " + src.fa3[flag].text, line: src.fa3[flag].line };
      }
    });
    return specs.concat(fa3Specs());
  }

  /** The specs of FA3's compile-time inputs dtype (choice) and headDim (range). */
  function fa3Specs() {
    var r = FA3_HEADDIM_RANGE;
    return [widget({ name: "headDim", type: "range", label: r.label, doc: r.doc, min: r.min, max: r.max, "default": FA3_DEFAULT_BUILD.headDim }),
      widget({ name: "dtype", type: "choice", label: "dtype", doc: "Element: bf16 / fp16 (element size 2) or fp8 (1; Is_FP8)",
        choices: Object.keys(FA3_DTYPES), "default": FA3_DEFAULT_BUILD.dtype })];
  }

  /** Register the attention model in schedule.js's MODELS. */
  function register(models) {
    models.attention = {
      defaults: ATTENTION_DEFAULT_KNOBS,
      ranges: ATTENTION_KNOB_RANGES,
      choices: {},
      normalize: normalizeAttentionKnobs,
      sourceKnobs: attentionSourceKnobs,
      estimateBlocks: estimateAttentionBlocks,
      lanes: attentionLanes,
      simulate: simulateAttention,
      refs: attentionRefs,
      view: attentionView,
      adjust: adjustAttentionKnobs,
      flags: ATTENTION_KNOB_FLAGS,
      waitReasons: ATTENTION_WAIT_REASONS,
      blockKinds: ATTENTION_BLOCK_KINDS,
      emptyVerdict: { exposedSoftmaxSteps: 0, softmaxSteps: 0 },
      sizeKnobs: "outputTiles (O) or kvBlocks (J)",
      covers: attentionCovers,
      adaptSpecs: attentionSpecs,
      fitReason: "K and V pipelines (or 88's shared K/V ring) with both GEMMs",
      assumptions: function (st) { return attentionAssumptions(st, isObject(st.kernel_layer) ? st.kernel_layer : null); },
      notModelled: attentionNotModelled
    };
  }

  return {
    register: register,
    attentionRefs: attentionRefs,
    fa3Tile: fa3Tile,
    ATTENTION_DEFAULT_KNOBS: ATTENTION_DEFAULT_KNOBS,
    ATTENTION_KNOB_RANGES: ATTENTION_KNOB_RANGES,
    ATTENTION_KNOB_FLAGS: ATTENTION_KNOB_FLAGS,
    ATTENTION_BLOCK_KINDS: ATTENTION_BLOCK_KINDS,
    ATTENTION_WAIT_REASONS: ATTENTION_WAIT_REASONS
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelModelAttention;
