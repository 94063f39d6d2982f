/*
 * sim/model_blackwell.js: the Blackwell model (model "blackwell", docs/models/blackwell.md): the
 * SM100 tcgen05/UMMA warp-specialized GEMM of CUTLASS 4.2 (gemm/kernel/sm100_gemm_tma_warpspecialized.hpp,
 * gemm/collective/sm100_mma_warpspecialized.hpp, pipeline/sm100_pipeline.hpp,
 * epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp) as role programs on the engine:
 * its knobs, source references, the verdict, the view description, and register(), which adds
 * it to schedule.js's MODELS; the run itself (the role programs) is sim/blackwell_roles.js. Each
 * rule's source lines are on its page.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/blackwell_roles.js as a classic script, which makes KernelModelBlackwell a global; Node gets
 * the same object through module.exports.
 */
var KernelModelBlackwell = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/model_blackwell.js: common.js is not loaded (the page runs it before this file)");
  })();
  /** sim/fit.js: the page's global, or require()d next to this file. */
  var FIT = (function () {
    if (typeof KernelFit !== "undefined") return KernelFit;
    if (typeof require === "function" && typeof module !== "undefined") return require("./fit.js");
    throw new Error("sim/model_blackwell.js: fit.js is not loaded (the page runs it before this file)");
  })();
  /** sim/blackwell_roles.js: the page's global, or require()d next to this file. */
  var BR = (function () {
    if (typeof KernelBlackwellRoles !== "undefined") return KernelBlackwellRoles;
    if (typeof require === "function" && typeof module !== "undefined") return require("./blackwell_roles.js");
    throw new Error("sim/model_blackwell.js: blackwell_roles.js is not loaded (the page runs it before this file)");
  })();
  var EMPTY = C.EMPTY, PRODUCER_ROLES = C.PRODUCER_ROLES, CONSUMER_ROLES = C.CONSUMER_ROLES,
    LOAD_OPS = C.LOAD_OPS, normalizeNumber = C.normalizeNumber, knobObject = C.knobObject,
    reportUnknownKnobs = C.reportUnknownKnobs, normalizeFlag = C.normalizeFlag, KNOB_WIDGETS = C.KNOB_WIDGETS,
    isObject = C.isObject, lineOrNull = C.lineOrNull, makeRef = C.makeRef, pickFunction = C.pickFunction,
    sortRefs = C.sortRefs, functionInfo = C.functionInfo, allOps = C.allOps, sourceConstant = C.sourceConstant,
    RE_CLC_CLASS = C.RE_CLC_CLASS, classText = C.classText, pipeIdentity = C.pipeIdentity,
    pipeObjects = C.pipeObjects;
  var blackwellCovers = FIT.blackwellCovers;
  var BW_C_STAGES = BR.BW_C_STAGES, blackwellLanes = BR.blackwellLanes,
    estimateBlackwellBlocks = BR.estimateBlackwellBlocks, runBlackwell = BR.runBlackwell;

  /** Numeric knobs of the Blackwell model, in display order. `flag` is the CLI flag / URL-hash key. */
  var BW_KNOB_RANGES = {
    stages: { min: 1, max: 64, label: "stages (S)", doc: "shared-memory stages of the mainloop PipelineTmaUmmaAsync" },
    accStages: { min: 1, max: 4, label: "accumulator stages (A)", doc: "TMEM accumulator stages of PipelineUmmaAsync (AccumulatorPipelineStageCount; the builder caps it at 4)" },
    outputTiles: { min: 1, max: 4096, label: "output tiles (O)", doc: "output tiles processed by this CTA (or CTA pair)" },
    kTiles: { min: 1, max: 4096, label: "k-tiles per tile (K)", doc: "mainloop iterations per output tile" },
    tmaLatency: { min: 0, max: 10000, label: "TMA latency (L)", doc: "steps from TMA issue to stage full" },
    ummaLatency: { min: 1, max: 10000, label: "UMMA latency (U)", doc: "tensor-core steps of one k-tile's UMMAs" },
    tmemLoadLatency: { min: 0, max: 10000, label: "TMEM load latency (T)", doc: "steps the epilogue warps read one epilogue subtile of the accumulator from TMEM (the stage is released after the last subtile's)" },
    storeLatency: { min: 0, max: 10000, label: "store latency (St)", doc: "steps of the rest of one epilogue subtile after its TMEM load (convert, smem, TMA store)" },
    clcLatency: { min: 0, max: 10000, label: "CLC latency", doc: "steps from the Sched warp's try_cancel to the CLC response" },
    epiSubtiles: { min: 1, max: 64, label: "epilogue subtiles (Es)", doc: "epilogue subtiles per output tile (CTA tile / epilogue tile, EPI_M x EPI_N: not parsed, CUTLASS's builder picks the epilogue tile): C is loaded, and TMEM loaded and stored, per subtile" }
  };

  /** On/off knobs of the Blackwell model. */
  var BW_KNOB_FLAGS = {
    ctaPair: { label: "2-SM (CTA pair)", doc: "2-SM UMMA: the leader CTA issues the MMAs for both CTAs; both CTAs load and run epilogues" },
    loadC: { label: "load C", doc: "the epilogue reads a source C (EpilogueLoad warp, C stages)" }
  };

  /** Defaults of the Blackwell model (accStages 2: the builder's rule for a 128x256 tile). */
  var BW_DEFAULT_KNOBS = {
    model: "blackwell",
    stages: 4,
    accStages: 2,
    outputTiles: 4,
    kTiles: 4,
    tmaLatency: 4,
    ummaLatency: 2,
    tmemLoadLatency: 3,
    storeLatency: 3,
    clcLatency: 2,
    ctaPair: false,
    loadC: false,
    epiSubtiles: 1
  };

  /** What the Blackwell model leaves out of a kernel it fits: shown on the page, fit.notModelled. */
  var BW_NOT_MODELLED = [
    "the epilogue tile is not parsed: the subtiles per output tile are the knob Es (default 1); C goes through " + BW_C_STAGES +
      " stages (StagesC is the epilogue builder's, not parsed), and the store pipeline's StagesD wait is not modelled",
    "every output tile has the same k-tile count"
  ];

  /**
   * BW_NOT_MODELLED plus what this structure's UMMAs carry that the model does not draw: block
   * scales (SFA / SFB, copied smem -> TMEM with tcgen05.cp before the UMMA) or sparse metadata (E).
   */
  function blackwellNotModelled(st) {
    var out = BW_NOT_MODELLED.slice();
    var texts = allOps(st).filter(function (op) { return op.op === "mma"; }).map(function (op) { return String(op.receiver || "") + " " + String(op.text || ""); }).join(" ");
    if (/\btCtSF/.test(texts)) {
      out.push("the block scales (SFA / SFB) ride the mainloop ring and are copied smem -> TMEM (tcgen05.cp) before each UMMA: that copy takes no time here");
    }
    if (/\btCtE\b/.test(texts)) {
      out.push("the sparse metadata (E) rides the mainloop ring and is copied to TMEM before the UMMAs: that copy takes no time here");
    }
    return out;
  }

  /** Accumulator stages used when neither a knob nor a literal in the source gives them. */
  var BW_ACC_STAGES_FALLBACK = 2;

  /** k-tiles (O * K) up to which the verdict re-runs with 1 <-> 2 accumulator stages for comparison. */
  var BW_COMPARE_TILES = 50000;

  /** Block kinds of the Blackwell model, in legend order. */
  var BW_BLOCK_KINDS = ["clc", "issue", "filling", "full", "umma", "acc", "drain", "tmem_load", "store", "wait"];

  /** Wait reasons of the Blackwell model (docs/models/blackwell.md, wait reasons). */
  var BW_WAIT_REASONS = ["tma", "acc", "mma", "clc", "throttle", "c", "order"];

  /** Widget facts of the Blackwell-only knobs (short labels, slider ends) in the shared KNOB_WIDGETS. */
  KNOB_WIDGETS.accStages = { short: "Acc stages", sliderMax: 4 };
  KNOB_WIDGETS.ummaLatency = { short: "UMMA", sliderMax: 64 };
  KNOB_WIDGETS.tmemLoadLatency = { short: "TMEM load", sliderMax: 64 };
  KNOB_WIDGETS.storeLatency = { short: "Store", sliderMax: 64 };
  KNOB_WIDGETS.clcLatency = { short: "CLC", sliderMax: 64 };
  KNOB_WIDGETS.ctaPair = { short: "2-SM pair" };
  KNOB_WIDGETS.loadC = { short: "Load C" };

  /** The Blackwell model's view description (the shape of gemmView / attentionView). */
  function blackwellView() {
    return {
      unit: "k-tile",
      copy: "TMA",
      kinds: {
        // chain / tile / rank: what following a k-tile (its loads, stage and UMMAs) or a whole
        // output tile (its UMMAs, accumulator stage and epilogue) highlights, and in what order.
        clc: { name: "CLC", doc: "Sched warp: try_cancel (clusterlaunchcontrol) in flight until the response (next work tile) lands" },
        issue: { name: "TMA issue", doc: "load warp: producer_acquire + the TMA copies of A and B (or of C on epi_load), 1 step", chain: "k", rank: 0 },
        filling: { name: "FILLING", doc: "TMA in flight: the data lands L steps after the issue", chain: "k", rank: 1 },
        full: { name: "FULL", doc: "a smem stage from the landing to its release (the commit of its k-tile's UMMAs); " +
          "an accumulator stage from its umma_arrive until the epilogue reads it", chain: "k", rank: 2 },
        umma: { name: "UMMA", doc: "the k-tile's tcgen05 MMAs on the tensor core, issued by the MMA warp's elected thread", chain: "k", tile: true, rank: 4 },
        acc: { name: "ACCUMULATING", doc: "the TMEM accumulator stage written by the tile's UMMAs", tile: true, rank: 5 },
        drain: { name: "DRAIN", doc: "the epilogue warps read the accumulator stage (TMEM -> registers); it is free at the end", tile: true, rank: 6 },
        tmem_load: { name: "TMEM LOAD", doc: "epilogue: TMEM -> registers; acc_pipeline.consumer_release at its end", tile: true, rank: 7 },
        store: { name: "STORE", doc: "epilogue after the release: convert, registers -> smem, TMA store of D", tile: true, rank: 8 },
        wait: { name: "WAIT", doc: "the warp is blocked" }
      },
      legend: [
        { kind: "clc", fills: ["issue"], text: [["CLC o"], " (Sched warp: CLC query for the tile after o)"] },
        { kind: "issue", fills: ["issue"], text: ["issue ", ["o.k"], " (load warp TMA issue)"] },
        { kind: "filling", fills: ["filling"], text: [["FILLING"], " (TMA in flight)"] },
        { kind: "full", fills: ["full"], text: [["FULL"], " (landed until released)"] },
        { kind: "umma", fills: ["mma-a", "mma-b"], text: ["UMMA ", ["o.k"], " (tensor core; alternates by output tile)"] },
        { kind: "acc", fills: ["mma-a", "mma-b"], text: [["ACC o"], " (TMEM accumulator stage being written)"] },
        { kind: "drain", fills: ["transpose"], text: [["DRAIN o"], " (epilogue reads the accumulator)"] },
        { kind: "tmem_load", fills: ["transpose"], text: [["LD o"], " (TMEM load; the stage is released at its end)"] },
        { kind: "store", fills: ["epilogue"], text: [["ST o"], " (rest of the epilogue: smem, TMA store)"] },
        { kind: "wait", fills: ["wait"], text: [["WAIT reason"], " (hatched bubble)"] }
      ],
      note: ["", ["o.k"], " = output tile o, k-tile k; acc lanes are TMEM accumulator stages; time in abstract steps"],
      waitReasons: [
        { reason: "tma", doc: "the smem stage's full barrier: its TMA data has not landed" },
        { reason: "acc", doc: "no free TMEM accumulator stage: an epilogue has not released it (accumulator_pipeline.producer_acquire)" },
        { reason: "mma", doc: "the accumulator is not FULL yet: the tile's UMMAs still run (acc_pipeline.consumer_wait)" },
        { reason: "clc", doc: "fetch_next_work: the CLC response has not landed (or, for the Sched warp, a response stage is still in use)" },
        { reason: "throttle", doc: "the CLC throttle: the load warp has not started the next tile yet" },
        { reason: "c", doc: "the C tile is not loaded yet (epilogue load pipeline)" },
        { reason: "order", doc: "load order barrier: the mainloop's first loads go before C" }
      ],
      verdict: [
        { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
        { label: "Epilogues hidden", format: "template", template: "{hiddenEpilogueSteps} of {epilogueSteps} epilogue steps overlap UMMAs" },
        { label: "Insight", format: "template", template: "{insight}" }
      ],
      subLaneGroups: []
    };
  }

  /** Integer value of a literal (number or digit string), else null. */
  function bwLiteral(value) {
    if (typeof value === "number" && isFinite(value)) return Math.round(value);
    if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value.trim());
    return null;
  }

  /**
   * Every op of a structure as {path, fn, op, who, line, end_line, text, unit, operand, kernel}:
   * the mainloop functions' ops, and the kernel layer's calls (op = the call name), ops and
   * functions' ops. `who` is the op's pipeline object (else its pipeline alias, else its receiver).
   */
  function bwItems(st) {
    var items = [];
    var path = isObject(st.source) && typeof st.source.path === "string" ? st.source.path : null;
    var objects = pipeObjects(st), dsl = st.language === "cute-dsl";
    function add(list, p, fn, kernel, isCall) {
      (Array.isArray(list) ? list : []).filter(isObject).forEach(function (op) {
        var kind = isCall ? op.call : op.op;
        if (typeof kind !== "string") return;
        var who = [op.object, op.pipeline, op.receiver].filter(function (x) { return typeof x === "string"; })[0] || "";
        // pipe: the pipeline by what the code binds (pipeIdentity: load()'s mainloop_ab_pipeline
        // and mma()'s mainloop_pipeline are one MainloopABPipeline); who: the name, for the
        // kernel layer's objects found by name (accumulator, throttle, load order, C load).
        var pipe = isCall ? null : pipeIdentity(op, objects, dsl);
        items.push({ path: p, fn: fn, op: kind, who: who.toLowerCase(), pipe: pipe, line: lineOrNull(op.line), end_line: op.end_line,
          text: op.text, unit: op.unit, operand: op.operand, receiver: typeof op.receiver === "string" ? op.receiver : "", kernel: kernel });
      });
    }
    (Array.isArray(st.functions) ? st.functions : []).filter(isObject).forEach(function (fn) { add(fn.ops, path, fn, false, false); });
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    if (kl) {
      var kp = isObject(kl.source) && typeof kl.source.path === "string" ? kl.source.path : null;
      add(kl.calls, kp, null, true, true);
      add(kl.ops, kp, null, true, false);
      (Array.isArray(kl.functions) ? kl.functions : []).filter(isObject).forEach(function (fn) { add(fn.ops, kp, fn, true, false); });
    }
    return items;
  }

  /** Refs of items, sorted and frozen (one ref per path:line: a kernel-layer call and op on one line are one). */
  function bwRefs(items) {
    var seen = {};
    return sortRefs(items.filter(function (it) {
      var key = it.path + ":" + it.line;
      if (seen[key]) return false;
      seen[key] = true;
      return true;
    }).map(function (it) { return makeRef(it.path, it.line, it.end_line, it.op, it.text); }));
  }

  /**
   * Source references of the Blackwell model, computed once per simulate() call (docs/models/blackwell.md, source references), plus `shape` {clc, kernel, roles, accSource} and the chosen
   * producer / consumer functions.
   */
  function blackwellRefs(structure) {
    var st = isObject(structure) ? structure : {};
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    var items = bwItems(st);
    var pick = function (pred) { return bwRefs(items.filter(pred)); };
    var inFn = function (fn) { return function (it) { return fn !== null && it.fn === fn; }; };
    var inLoad = inFn(producer), inMma = inFn(consumer);
    // The mainloop pipeline: the pipeline the producer's loads arrive on (by pipeIdentity, the
    // same whatever each function calls it), else one named "mainloop".
    var mainPipe = null;
    items.forEach(function (it) { if (mainPipe === null && inLoad(it) && LOAD_OPS[it.op] && it.pipe) mainPipe = it.pipe; });
    var isMain = function (it) { return mainPipe !== null ? it.pipe === mainPipe : it.who.indexOf("mainloop") >= 0; };
    var isAcc = function (it) { return it.who.indexOf("acc") >= 0; };
    var isThrottle = function (it) { return it.who.indexOf("throttle") >= 0; };
    var isOrder = function (it) { return it.who.indexOf("load_order") >= 0; };
    var isUmma = function (it) { return it.op === "mma"; };
    var accCommit = function (it) { return isAcc(it) && !inMma(it) && (it.op === "producer_commit" || it.op === "umma_arrive"); };
    var epiAcc = function (it) { return isAcc(it) && !inMma(it) && !accCommit(it) && (it.op === "consumer_wait" || it.op === "consumer_release"); };
    var epiStoreCall = function (it) { return it.kernel && it.receiver === "collective_epilogue" && it.op === "store"; };
    var epiLoadCall = function (it) { return it.kernel && it.receiver === "collective_epilogue" && it.op === "load"; };
    var fetches = items.filter(function (it) { return it.op === "fetch_next_work"; });
    /** The fetch_next_work ops of one role, found by an anchor line in the kernel layer. */
    function fetchNear(anchorPred, after) {
      var anchors = items.filter(anchorPred).map(function (it) { return it.line; }).filter(function (l) { return l !== null; });
      if (anchors.length === 0) return EMPTY;
      var best = null;
      fetches.forEach(function (f) {
        if (f.line === null) return;
        if (after) {
          var a = Math.max.apply(null, anchors);
          if (f.line > a && (best === null || f.line < best.line)) best = f;
        } else {
          var b = Math.min.apply(null, anchors);
          if (f.line < b && (best === null || f.line > best.line)) best = f;
        }
      });
      return best === null ? EMPTY : bwRefs([best]);
    }
    var tmemOps = items.filter(function (it) { return it.op === "tmem_load" || epiAcc(it); });
    var storeOps = items.filter(function (it) { return it.op === "tma_store" || it.op === "tma_store_arrive" || it.op === "tma_store_wait"; });
    var cLoads = items.filter(function (it) { return LOAD_OPS[it.op] && !inLoad(it) && (it.operand === "C" || /tma_load_c|load_c/.test(it.receiver)); });
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var roles = kl && Array.isArray(kl.warp_roles) ? kl.warp_roles.filter(isObject) : [];
    return {
      issue: pick(function (it) { return inLoad(it) && (LOAD_OPS[it.op] || (isMain(it) && (it.op === "producer_acquire" || it.op === "producer_commit"))); }),
      filling: pick(function (it) { return inLoad(it) && LOAD_OPS[it.op]; }),
      acquire: pick(function (it) { return inLoad(it) && isMain(it) && it.op === "producer_acquire"; }),
      full: pick(function (it) { return inMma(it) && isMain(it) && (it.op === "consumer_wait" || it.op === "consumer_release"); }),
      tmaWait: pick(function (it) { return inMma(it) && isMain(it) && it.op === "consumer_wait"; }),
      release: pick(function (it) { return inMma(it) && isMain(it) && it.op === "consumer_release"; }),
      umma: pick(function (it) { return inMma(it) && (isUmma(it) || (isMain(it) && it.op === "consumer_release")); }),
      accWait: pick(function (it) { return inMma(it) && isAcc(it) && it.op === "producer_acquire"; }),
      acc: pick(function (it) { return (inMma(it) && ((isAcc(it) && it.op === "producer_acquire") || isUmma(it))) || accCommit(it); }),
      accCommit: pick(accCommit),
      accFull: pick(function (it) { return accCommit(it) || (epiAcc(it) && it.op === "consumer_wait"); }),
      epiAccWait: pick(function (it) { return epiAcc(it) && it.op === "consumer_wait"; }),
      tmemLoad: tmemOps.length > 0 ? bwRefs(tmemOps) : pick(epiStoreCall),
      accRelease: pick(function (it) { return epiAcc(it) && it.op === "consumer_release"; }),
      store: storeOps.length > 0 ? bwRefs(storeOps) : pick(epiStoreCall),
      clc: pick(function (it) { return (it.op === "clc_query" || it.op === "advance_to_next_work") || (isThrottle(it) && (it.op === "consumer_wait" || it.op === "consumer_release")); }),
      clcQuery: pick(function (it) { return (it.op === "clc_query" || it.op === "advance_to_next_work"); }),
      throttleWait: pick(function (it) { return isThrottle(it) && it.op === "consumer_wait"; }),
      throttle: pick(function (it) { return isThrottle(it) && (it.op === "producer_acquire" || it.op === "producer_commit"); }),
      fetchProducer: fetchNear(function (it) { return (isThrottle(it) && it.op === "producer_commit") || (it.kernel && it.receiver === "collective_mainloop" && it.op === "load"); }, true),
      fetchSched: fetchNear(function (it) { return (it.op === "clc_query" || it.op === "advance_to_next_work"); }, true),
      fetchMma: fetchNear(function (it) { return it.kernel && it.receiver === "collective_mainloop" && it.op === "mma"; }, false),
      fetchEpiLoad: fetchNear(function (it) { return epiLoadCall(it) || (isOrder(it) && (it.op === "order_wait" || it.op === "wait")); }, false),
      fetchEpilogue: fetchNear(epiStoreCall, false),
      orderArrive: pick(function (it) { return isOrder(it) && (it.op === "order_arrive" || it.op === "arrive"); }),
      orderWait: pick(function (it) { return isOrder(it) && (it.op === "order_wait" || it.op === "wait"); }),
      epiLoad: cLoads.length > 0 ? bwRefs(cLoads) : pick(epiLoadCall),
      cWait: pick(function (it) { return !inMma(it) && it.who.indexOf("load_pipeline") >= 0 && it.who.indexOf("mainloop") < 0 && it.op === "consumer_wait"; }),
      shape: {
        // The parsed mainloop is read (not assumed) when its load function loads and an UMMA was
        // parsed; then a missing consumer_release after the UMMAs means no stage is ever freed.
        release: !(producer !== null && items.some(function (it) { return inLoad(it) && LOAD_OPS[it.op]; }) &&
          items.some(function (it) { return inMma(it) && it.op === "mma" && it.unit === "umma"; })) ||
          items.some(function (it) { return inMma(it) && isMain(it) && it.op === "consumer_release"; }),
        kernel: kl !== null,
        clc: hasClc(st, kl),
        roles: roles,
        accSource: blackwellSourceKnobs(st).accStages || null,
        accText: kl && typeof kl.accumulator_stages === "string" ? kl.accumulator_stages : null,
        accLine: kl ? lineOrNull(kl.accumulator_stages_line) : null
      },
      producer: functionInfo(producer),
      consumer: functionInfo(consumer)
    };
  }

  /**
   * Whether the kernel has a CLC scheduler (a sched lane): the C++ kernel layer's clc flag, or a
   * pipeline of a CLC class (PipelineClcFetchAsync) in the structure (a CuTe DSL kernel). With no
   * kernel layer at all, CUTLASS 4.2's SM100 kernel layer (CLC scheduler) is assumed, and said.
   */
  function hasClc(st, kl) {
    if (kl === null) return true;
    if (kl.clc === true) return true;
    return (Array.isArray(st.pipelines) ? st.pipelines : []).filter(isObject).some(function (p) {
      return RE_CLC_CLASS.test(classText(p["class"]));
    });
  }

  /** Values of the Blackwell knobs that the source fixes: accStages (literal), ctaPair. */
  function blackwellSourceKnobs(structure) {
    var st = isObject(structure) ? structure : {};
    var out = {};
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var acc = kl ? bwLiteral(kl.accumulator_stages) : null;
    if (acc !== null) out.accStages = { value: acc, line: lineOrNull(kl.accumulator_stages_line) };
    else {
      var c = sourceConstant(st, "AccumulatorPipelineStageCount");
      if (c !== null) out.accStages = c;
    }
    if (kl && typeof kl.cta_pair === "boolean") out.ctaPair = { value: kl.cta_pair, line: lineOrNull(kl.cta_pair_line) };
    return out;
  }

  /** Validate a knob set for the Blackwell model: {knobs, messages}; never throws. */
  function normalizeBlackwellKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "blackwell" };
    var src = sourceKnobs || {};
    var name;
    for (name in BW_KNOB_RANGES) {
      var r = BW_KNOB_RANGES[name];
      var fallback = src[name] ? Math.min(r.max, Math.max(r.min, src[name].value)) : BW_DEFAULT_KNOBS[name];
      knobs[name] = normalizeNumber(name, raw[name], r, fallback, messages);
    }
    for (name in BW_KNOB_FLAGS) {
      var f = src[name] ? !!src[name].value : BW_DEFAULT_KNOBS[name];
      knobs[name] = normalizeFlag(name, raw[name], f, messages);
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /** What the Blackwell model assumes for a structure (fitModel's assumptions; docs/models/blackwell.md). */
  function blackwellAssumptions(st) {
    // (A structure without loads or MMAs never fits: blackwellCovers refuses it.)
    var out = [];
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    if (kl === null) {
      out.push("no kernel layer parsed: the roles of CUTLASS 4.2's sm100_gemm_tma_warpspecialized.hpp are assumed " +
        "(MMA, Sched/CLC, MainloopLoad, EpilogueLoad, Epilogue warps)");
    } else if (!hasClc(st, kl)) {
      out.push("kernel layer without a CLC scheduler: tiles are assigned statically (no sched lane)");
    }
    return out;
  }

  /** Say where the accumulator stage count comes from when neither the knob nor the source gives it. */
  function adjustBlackwellKnobs(knobs, refs, messages, raw) {
    var given = isObject(raw) && raw.accStages !== undefined && raw.accStages !== null;
    var sh = refs.shape;
    if (!given && sh.accSource === null) {
      messages.push("accStages: AccumulatorPipelineStageCount is not a literal in the parsed structure" +
        (sh.accText ? " (" + sh.accText + (sh.accLine !== null ? ", line " + sh.accLine : "") + ")" : "") +
        "; using " + BW_ACC_STAGES_FALLBACK + ", the builder's min(4, 128*512 / (tile M * tile N)) for a 128x256 tile " +
        "(sm100_umma_builder.inl:259-263)");
    }
    if (!sh.release) {
      messages.push("no consumer_release of the mainloop pipeline in " + (refs.consumer ? refs.consumer.name : "the MMA function") +
        "(): no smem stage is ever freed (the load warp waits forever)");
    }
  }

  /** Steps of [s, e) covered by the sorted disjoint runs busyS/busyE, from run index *from on. */
  function bwOverlap(busyS, busyE, s, e, cursor) {
    var i = cursor.i;
    while (i < busyS.length && busyE[i] <= s) i++;
    cursor.i = i;
    var sum = 0;
    for (var j = i; j < busyS.length && busyS[j] < e; j++) {
      sum += Math.min(e, busyE[j]) - Math.max(s, busyS[j]);
    }
    return sum;
  }

  /** One-line insight on the accumulator stages (docs/models/blackwell.md, verdict). */
  function bwInsight(knobs, v) {
    var A = knobs.accStages;
    var other = v.accStagesComparison;
    var cmp = other ? "; with " + other.accStages + " stage" + (other.accStages === 1 ? "" : "s") + ": " + other.total + " steps" : "";
    if (v.accWaitSteps > 0) {
      return A + " accumulator stage" + (A === 1 ? "" : "s") + ": the tensor core idles " + v.accWaitSteps +
        (v.accWaitSteps === 1 ? " step" : " steps") + " waiting for epilogues to free TMEM (at " + v.accWaitTiles + " of " +
        (knobs.outputTiles - 1) + " tile boundaries)" + cmp;
    }
    return A + " accumulator stage" + (A === 1 ? "" : "s") + ": the MMA of tile t+1 overlaps the epilogue of tile t; " +
      "the tensor core never waits for an epilogue" + cmp;
  }

  /** The Blackwell model's simulate: validated knobs and refs in, result fields out. */
  function simulateBlackwell(knobs, refs) {
    var run = runBlackwell(knobs, refs, true);
    var waits = {};
    var accWaitSteps = 0;
    run.roles.forEach(function (role) {
      if (!role.drawWaits) return;
      var w = {};
      BW_WAIT_REASONS.forEach(function (reason) { w[reason] = 0; });
      w.total = 0;
      for (var reason in role.waits) { w[reason] = role.waits[reason]; w.total += role.waits[reason]; }
      waits[run.lanes[role.lane].id] = w;
    });
    if (waits.mma) accWaitSteps = waits.mma.acc;
    // Tiles whose MMA waited for a free accumulator stage (a tensor-core bubble at that boundary).
    var accWaitTiles = 0;
    var cols = run.columns, mmaLane = cols.lanes.indexOf("mma");
    var waitCode = cols.kinds.indexOf("wait"), accCode = cols.reasons.indexOf("acc");
    if (mmaLane >= 0) {
      for (var id = cols.laneStart[mmaLane]; id < cols.laneStart[mmaLane + 1]; id++) {
        if (cols.kind[id] === waitCode && cols.reason[id] === accCode) accWaitTiles++;
      }
    }
    // How much of each (leader) epilogue the tensor core overlaps.
    var epilogues = [];
    var epiSteps = 0, hidden = 0;
    var cursor = { i: 0 };
    if (run.deadlock === null) {
      for (var o = 0; o < knobs.outputTiles; o++) {
        var s = run.epiStart[0][o], e = run.epiEnd[0][o];
        var h = bwOverlap(run.busyS, run.busyE, s, e, cursor);
        epilogues.push({ tile: o, start: s, end: e, hidden: h });
        epiSteps += e - s;
        hidden += h;
      }
    }
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0,
      tensorCoreBusySteps: run.busy,
      epilogueSteps: epiSteps,
      hiddenEpilogueSteps: hidden,
      exposedEpilogueSteps: epiSteps - hidden,
      epilogues: epilogues,
      accWaitSteps: accWaitSteps,
      accWaitTiles: accWaitTiles,
      accStagesComparison: null,
      insight: "",
      summary: ""
    };
    if (run.deadlock === null && knobs.outputTiles * knobs.kTiles <= BW_COMPARE_TILES) {
      var variant = {};
      for (var key in knobs) variant[key] = knobs[key];
      variant.accStages = knobs.accStages === 1 ? 2 : 1;
      var probe = runBlackwell(variant, refs, false);
      if (probe.deadlock === null) verdict.accStagesComparison = { accStages: variant.accStages, total: probe.total };
    }
    verdict.insight = bwInsight(knobs, verdict);
    var util = Math.round(verdict.tensorCoreUtilization * 1000) / 10;
    verdict.summary = run.deadlock !== null ? run.deadlock.message :
      "blackwell (" + (knobs.ctaPair ? "2-SM pair" : "1-SM") + ", " + knobs.accStages + " accumulator stage" +
      (knobs.accStages === 1 ? "" : "s") + "): " + run.total + " steps; tensor core busy " + util + "%; epilogues hidden " +
      hidden + " of " + epiSteps + " steps; " + verdict.insight;
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict,
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted };
  }

  /** Register the Blackwell model in schedule.js's MODELS. */
  function register(models) {
    models.blackwell = {
      defaults: BW_DEFAULT_KNOBS,
      ranges: BW_KNOB_RANGES,
      choices: {},
      normalize: normalizeBlackwellKnobs,
      sourceKnobs: blackwellSourceKnobs,
      adjust: adjustBlackwellKnobs,
      estimateBlocks: estimateBlackwellBlocks,
      lanes: blackwellLanes,
      simulate: simulateBlackwell,
      refs: blackwellRefs,
      flags: BW_KNOB_FLAGS,
      waitReasons: BW_WAIT_REASONS,
      blockKinds: BW_BLOCK_KINDS,
      view: blackwellView,
      emptyVerdict: { epilogueSteps: 0, hiddenEpilogueSteps: 0, exposedEpilogueSteps: 0, epilogues: [], accWaitSteps: 0,
        accWaitTiles: 0, accStagesComparison: null, insight: "" },
      sizeKnobs: "outputTiles (O) or kTiles (K)",
      covers: blackwellCovers,
      fitReason: "an SM100 (Blackwell) GEMM: one load warp filling one mainloop ring, one MMA warp issuing one tiled MMA into TMEM accumulator stages, epilogue warps draining them",
      assumptions: blackwellAssumptions,
      notModelled: blackwellNotModelled
    };
  }

  return {
    register: register,
    BW_KNOB_RANGES: BW_KNOB_RANGES,
    BW_DEFAULT_KNOBS: BW_DEFAULT_KNOBS,
    blackwellView: blackwellView
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelModelBlackwell;
