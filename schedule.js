/*
 * schedule.js: the logical-schedule simulator of kernel_logical_visualizer.
 *
 * Pure and DOM-free: simulate(structure, knobs) turns a parsed kernel structure plus a few knobs
 * into lanes, blocks and a verdict. Same input, same output (no clocks, no randomness), so the
 * page can re-run it on every slider move and Node can unit-test it. Plain ES2017, no modules
 * syntax, ASCII only: the page inlines this file into a classic <script>, which makes
 * KernelSchedule a global; Node gets the same object through module.exports.
 *
 * Models are registered in MODELS and picked by knobs.model: "gemm" (one pipeline feeding one
 * consumer loop) and "attention" (K, V and optionally Vt pipelines, GEMM0 -> softmax -> GEMM1 per
 * KV block). Without knobs.model, defaultModel(structure) picks one. The models share knob
 * validation, the Timeline builder and the source-reference helpers.
 */
var KernelSchedule = (function () {
  "use strict";

  /**
   * The timeline builder (sim/timeline.js) and the engine (sim/engine.js): the page's globals (it
   * runs both before this file), or require()d next to this file. The names bound here are the
   * ones the models below use; MAX_BLOCKS and EMPTY are shared with those files and live there.
   */
  function simModule(loaded, rel) {
    if (loaded !== undefined) return loaded;
    if (typeof require === "function" && typeof module !== "undefined") return require(rel);
    throw new Error("schedule.js: " + rel.slice(2) + " is not loaded (the page runs it before this file)");
  }
  var TL = simModule(typeof KernelTimeline === "undefined" ? undefined : KernelTimeline, "./sim/timeline.js");
  var EN = simModule(typeof KernelEngine === "undefined" ? undefined : KernelEngine, "./sim/engine.js");
  var MAX_BLOCKS = TL.MAX_BLOCKS, EMPTY = TL.EMPTY, Timeline = TL.Timeline, emptyColumns = TL.emptyColumns,
    blockAt = TL.blockAt, blocksOf = TL.blocksOf, attachColumns = TL.attachColumns, lazyProperty = TL.lazyProperty;
  var Engine = EN.Engine, Ring = EN.Ring, OrderBarrier = EN.OrderBarrier, PipeState = EN.PipeState;

  /** Stage counts tried by verdict.minStagesToHideTma (the stages knob range). */
  var MIN_STAGES_SEARCH_MAX = 64;

  /**
   * Barrier events are recorded only up to this block estimate: above it, result.barrierEvents is
   * [] and result.barrierEventsOmitted is true (a million-block run would spend most of its time
   * recording and sorting some four million events).
   */
  var EVENT_BLOCK_LIMIT = 200000;

  /** False while simulate() runs with options.events === false (the models' engines skip events). */
  var eventsWanted = true;

  /** Whether a model's engine records barrier events for a run of about `estimate` blocks. */
  function recordEvents(estimate) {
    return eventsWanted && estimate <= EVENT_BLOCK_LIMIT;
  }

  /** k-tiles (O * K) above which minStagesToHideTma is not searched (each probe is a run). */
  var MIN_STAGES_SEARCH_TILES = 10000;

  /**
   * Wait reasons of the GEMM model: order (math order barrier before mma()), epilogue-order (before
   * the epilogue), tma (full barrier), tensor-core (a WGMMA issued but queued behind another WG's).
   */
  var WAIT_REASON_PRIORITY = ["order", "epilogue-order", "tma", "tensor-core"];

  /** Block kinds, in the order the page's legend lists them. */
  var BLOCK_KINDS = ["issue", "filling", "full", "wgmma", "epilogue", "wait"];

  /** Roles that may run the mainloop producer / consumer code. */
  var PRODUCER_ROLES = { producer: true, both: true };
  var CONSUMER_ROLES = { consumer: true, both: true };

  /** Op kinds that issue an asynchronous copy into a stage. */
  var LOAD_OPS = { tma_load: true, cp_async: true };

  // ---------------------------------------------------------------------------------------------
  // Knobs

  /** Numeric knobs of the GEMM model: [min, max] ranges, defaults and slider labels, in display order. */
  var GEMM_KNOB_RANGES = {
    stages: { min: 1, max: 64, label: "stages (S)", doc: "shared-memory pipeline stages" },
    outputTiles: { min: 1, max: 4096, label: "output tiles (O)", doc: "output tiles processed by this CTA" },
    kTiles: { min: 1, max: 4096, label: "k-tiles per tile (K)", doc: "mainloop iterations per output tile" },
    tmaLatency: { min: 0, max: 10000, label: "TMA latency (L)", doc: "steps from TMA issue to stage full" },
    wgmmaLatency: { min: 1, max: 10000, label: "WGMMA latency (W)", doc: "steps of one k-tile's WGMMA" },
    epilogueLatency: { min: 0, max: 10000, label: "epilogue latency (E)", doc: "steps of one tile's epilogue" },
    consumerWGs: { min: 1, max: 2, label: "consumer WGs (C)", doc: "math warpgroups" },
    kPipeMmas: { min: 0, max: 63, label: "K_PIPE_MMAS", doc: "WGMMAs left in flight by warpgroup_wait<K_PIPE_MMAS> before a k-tile is released (source value by default; >= stages deadlocks)" }
  };

  /** Defaults of the GEMM model (kPipeMmas: CUTLASS 4.2's K_PIPE_MMAS = 1 when the source does not say). */
  var GEMM_DEFAULT_KNOBS = {
    model: "gemm",
    stages: 4,
    outputTiles: 4,
    kTiles: 5,
    tmaLatency: 4,
    wgmmaLatency: 2,
    epilogueLatency: 3,
    consumerWGs: 2,
    schedule: "pingpong",
    kPipeMmas: 1
  };

  /**
   * The knob table: every knob's CLI flag (and page hash key: the flag without "--") and the words
   * of word-valued knobs. One source for schedule.js, the page, and render_waveform.py / viz.py,
   * which read the JSON between the two markers (keep it strict JSON: double quotes, no comments).
   * "onOff": the knob is a boolean spelled on/off on the CLI and in the hash. "units": the knobs
   * of simulate()'s cycles mode (a GPU, the tile, the problem; docs/performance.md), no model's
   * own: "text" ones take words or shapes, "switch" ones are a bare flag on the CLI.
   */
  var KNOB_TABLE = /*KNOB_TABLE_JSON_BEGIN*/{
    "models": ["gemm", "attention", "blackwell", "program"],
    "flagWords": {"on": true, "off": false},
    "knobs": [
      {"name": "model", "flag": "--model", "choices": ["gemm", "attention", "blackwell", "program"]},
      {"name": "stages", "flag": "--stages"},
      {"name": "outputTiles", "flag": "--tiles"},
      {"name": "kTiles", "flag": "--k-tiles"},
      {"name": "kvBlocks", "flag": "--kv-blocks"},
      {"name": "tmaLatency", "flag": "--tma"},
      {"name": "wgmmaLatency", "flag": "--wgmma"},
      {"name": "gemm0Latency", "flag": "--gemm0"},
      {"name": "softmaxLatency", "flag": "--softmax"},
      {"name": "gemm1Latency", "flag": "--gemm1"},
      {"name": "epilogueLatency", "flag": "--epilogue"},
      {"name": "consumerWGs", "flag": "--consumers"},
      {"name": "schedule", "flag": "--schedule", "choices": ["pingpong", "cooperative"]},
      {"name": "kPipeMmas", "flag": "--k-pipe-mmas"},
      {"name": "intraWGOverlap", "flag": "--intra-overlap", "onOff": true},
      {"name": "interWGPingpong", "flag": "--inter-pingpong", "onOff": true},
      {"name": "transposeV", "flag": "--transpose-v", "onOff": true},
      {"name": "accStages", "flag": "--acc-stages"},
      {"name": "ummaLatency", "flag": "--umma"},
      {"name": "tmemLoadLatency", "flag": "--tmem-load"},
      {"name": "storeLatency", "flag": "--store"},
      {"name": "clcLatency", "flag": "--clc"},
      {"name": "ctaPair", "flag": "--cta-pair", "onOff": true},
      {"name": "loadC", "flag": "--load-c", "onOff": true},
      {"name": "dtype", "flag": "--dtype", "choices": ["bf16", "fp16", "fp8"]},
      {"name": "headDim", "flag": "--headdim"},
      {"name": "epiSubtiles", "flag": "--epi-subtiles"}
    ],
    "units": [
      {"name": "gpu", "flag": "--gpu", "text": true},
      {"name": "tile", "flag": "--tile", "text": true},
      {"name": "cluster", "flag": "--cluster", "text": true},
      {"name": "problem", "flag": "--problem", "text": true},
      {"name": "batch", "flag": "--batch"},
      {"name": "heads", "flag": "--heads"},
      {"name": "seqlen", "flag": "--seqlen"},
      {"name": "causal", "flag": "--causal", "onOff": true, "switch": true},
      {"name": "clockMHz", "flag": "--clock-mhz"},
      {"name": "memLatency", "flag": "--mem-latency"}
    ]
  }/*KNOB_TABLE_JSON_END*/;

  /** The words of a word-valued knob in KNOB_TABLE. */
  function tableChoices(name) {
    for (var i = 0; i < KNOB_TABLE.knobs.length; i++) if (KNOB_TABLE.knobs[i].name === name) return KNOB_TABLE.knobs[i].choices.slice();
    return [];
  }

  /** Enumerated knobs of the GEMM model (not sliders): allowed values from KNOB_TABLE. */
  var GEMM_KNOB_CHOICES = {
    schedule: tableChoices("schedule")
  };

  /** Short printable form of a rejected knob value (bounded length: messages end up in the page). */
  function showValue(value) {
    var text;
    if (typeof value === "string") text = JSON.stringify(value);
    else if (typeof value === "number" || typeof value === "boolean") text = String(value);
    else if (Array.isArray(value)) text = "an array";
    else text = "a " + typeof value;
    return text.length > 40 ? text.slice(0, 37) + "..." : text;
  }

  /** Number from a knob value: numbers as is, numeric strings (slider .value) parsed, else NaN. */
  function toNumber(value) {
    if (typeof value === "number") return value;
    if (typeof value === "string" && value.trim() !== "") return Number(value.trim());
    return NaN;
  }

  /** Validate one numeric knob: default if missing/non-numeric, clamp to range, round to an integer. */
  function normalizeNumber(name, value, range, fallback, messages) {
    if (value === undefined || value === null) return fallback;
    var num = toNumber(value);
    if (num !== num) {
      messages.push(name + ": " + showValue(value) + " is not a number; using the default " + fallback);
      return fallback;
    }
    if (isFinite(num) && Math.round(num) !== num) {
      messages.push(name + ": " + showValue(value) + " rounded to " + Math.round(num));
      num = Math.round(num);
    }
    if (num < range.min) {
      messages.push(name + ": " + showValue(value) + " is below the minimum; clamped to " + range.min);
      num = range.min;
    } else if (num > range.max) {
      messages.push(name + ": " + showValue(value) + " is above the maximum; clamped to " + range.max);
      num = range.max;
    }
    return num + 0; // + 0 turns -0 (from rounding -0.4) into 0, so outputs deep-equal
  }

  /** The knob object to read: the input when it is a plain object, else {} with a message. */
  function knobObject(input, messages) {
    if (input === undefined || input === null) return {};
    if (typeof input !== "object" || Array.isArray(input)) {
      messages.push("knobs: expected an object, got " + showValue(input) + "; using the defaults");
      return {};
    }
    return input;
  }

  /** Add an "unknown knob" message for every key of raw that the validated knobs lack. */
  function reportUnknownKnobs(raw, knobs, messages) {
    Object.keys(raw).sort().forEach(function (key) {
      if (!Object.prototype.hasOwnProperty.call(knobs, key)) messages.push("unknown knob " + showValue(key) + " ignored");
    });
  }

  /**
   * Validate a knob set for the GEMM model: returns {knobs, messages}; never throws. sourceKnobs
   * ({name: {value, line}}) are the source's literal values, used as defaults.
   */
  function normalizeGemmKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "gemm" };
    var src = sourceKnobs || {};
    var name;
    for (name in GEMM_KNOB_RANGES) {
      var fallback0 = src[name] ? src[name].value : GEMM_DEFAULT_KNOBS[name];
      fallback0 = Math.min(GEMM_KNOB_RANGES[name].max, Math.max(GEMM_KNOB_RANGES[name].min, fallback0));
      knobs[name] = normalizeNumber(name, raw[name], GEMM_KNOB_RANGES[name], fallback0, messages);
    }
    for (name in GEMM_KNOB_CHOICES) {
      var value = raw[name];
      var fallback = src[name] ? src[name].value : GEMM_DEFAULT_KNOBS[name];
      var text = typeof value === "string" ? value.trim().toLowerCase() : null;
      if (value === undefined || value === null) knobs[name] = fallback;
      else if (text !== null && GEMM_KNOB_CHOICES[name].indexOf(text) >= 0) knobs[name] = text;
      else {
        messages.push(name + ": " + showValue(value) + " is not one of " +
          GEMM_KNOB_CHOICES[name].join(", ") + "; using the default " + fallback);
        knobs[name] = fallback;
      }
    }
    // K_PIPE_MMAS >= stages is not clamped: CUTLASS static_asserts it (K_PIPE_MMAS < K_PIPE_MAX) and
    // the engine shows why: the release of a stage waits for a WGMMA whose data needs that stage.
    if (knobs.kPipeMmas >= knobs.stages) {
      messages.push("kPipeMmas: " + knobs.kPipeMmas + " >= stages (" + knobs.stages +
        "): CUTLASS rejects this at compile time (static_assert K_PIPE_MMAS < K_PIPE_MAX); the schedule deadlocks");
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  // ---------------------------------------------------------------------------------------------
  // Source references

  /** True for a non-null, non-array object. */
  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  /** Integer line number or null (the structure may be partial or hand-written). */
  function lineOrNull(value) {
    return typeof value === "number" && isFinite(value) ? Math.round(value) : null;
  }

  /** One source reference {path, line, end_line, op, text}. */
  function makeRef(path, line, endLine, op, text) {
    var start = lineOrNull(line);
    var end = lineOrNull(endLine);
    return {
      path: path,
      line: start,
      end_line: end === null ? start : end,
      op: typeof op === "string" ? op : null,
      text: typeof text === "string" ? text : ""
    };
  }

  /** The ops array of a function, or [] when absent or malformed. */
  function opsOf(fn) {
    return fn && Array.isArray(fn.ops) ? fn.ops.filter(isObject) : [];
  }

  /** First function with an allowed role that has one of the wanted ops; else first with the role. */
  function pickFunction(functions, roles, wanted) {
    var fallback = null;
    for (var i = 0; i < functions.length; i++) {
      var fn = functions[i];
      if (!roles[fn.role]) continue;
      if (fallback === null) fallback = fn;
      if (opsOf(fn).some(function (op) { return wanted[op.op] === true; })) return fn;
    }
    return fallback;
  }

  /** Refs of the ops of fn whose kind is in kinds, sorted by line (stable). */
  function refsOfOps(fn, path, kinds) {
    var refs = opsOf(fn).filter(function (op) { return kinds[op.op] === true; }).map(function (op) {
      return makeRef(path, op.line, op.end_line, op.op, op.text);
    });
    return sortRefs(refs);
  }

  /** Sort refs by line, unknown lines last, keeping source order on ties; freeze for sharing. */
  function sortRefs(refs) {
    // One ref per path, line and op: an op the parser expanded at several call sites (a lambda,
    // a helper) is one source line to cite.
    var seen = {};
    refs = refs.filter(function (ref) {
      var key = ref.path + ":" + ref.line + ":" + ref.op;
      if (seen[key] === true) return false;
      seen[key] = true;
      return true;
    });
    var keyed = refs.map(function (ref, index) { return { ref: ref, index: index }; });
    keyed.sort(function (a, b) {
      var la = a.ref.line === null ? Infinity : a.ref.line;
      var lb = b.ref.line === null ? Infinity : b.ref.line;
      return la !== lb ? (la < lb ? -1 : 1) : a.index - b.index;
    });
    return Object.freeze(keyed.map(function (item) { return Object.freeze(item.ref); }));
  }

  /**
   * The order-barrier refs that bracket the first target call: the last one before it and the
   * first one after it (its wait and arrive). All of them when there is no target or no bracket.
   */
  function bracketing(order, targets) {
    if (targets.length === 0 || targets[0].line === null) return order;
    var target = targets[0];
    var before = null, after = null;
    for (var i = 0; i < order.length; i++) {
      if (order[i].line === null) continue;
      if (order[i].line < target.line) before = order[i];
      else if (after === null && order[i].line > target.end_line) after = order[i];
    }
    var picked = [before, after].filter(function (ref) { return ref !== null; });
    return picked.length === 0 ? order : Object.freeze(picked);
  }

  /** {name, line, end_line} of a chosen function, or null. */
  function functionInfo(fn) {
    if (!fn) return null;
    return { name: typeof fn.name === "string" ? fn.name : null, line: lineOrNull(fn.line), end_line: lineOrNull(fn.end_line) };
  }

  /** Set of op kinds from a list of names. */
  function kindSet(names) {
    var set = {};
    names.forEach(function (name) { set[name] = true; });
    return set;
  }

  /**
   * Source references per block kind, computed once per simulate() call and shared by reference.
   *
   * Returns {issue, filling, full, wait, wgmma, release, epilogue, order, orderMma, orderEpilogue,
   * producer, consumer}: frozen arrays of {path, line, end_line, op, text}, plus the chosen
   * producer and consumer functions as {name, line, end_line} (or null). orderMma and
   * orderEpilogue are the order-barrier calls around the kernel layer's mma and store calls.
   */
  function sourceRefs(structure) {
    var st = isObject(structure) ? structure : {};
    var path = isObject(st.source) && typeof st.source.path === "string" ? st.source.path : null;
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    var kernel = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var kernelPath = kernel && isObject(kernel.source) && typeof kernel.source.path === "string" ? kernel.source.path : null;
    var calls = kernel && Array.isArray(kernel.calls) ? kernel.calls.filter(isObject) : [];
    /** Kernel-layer calls matching a predicate, as refs whose op is the call name. */
    function callRefs(predicate) {
      return sortRefs(calls.filter(predicate).map(function (call) {
        return makeRef(kernelPath, call.line, call.end_line, call.call, call.text);
      }));
    }
    /** True for a call on an order barrier. */
    function isOrderCall(call) {
      return typeof call.receiver === "string" && call.receiver.indexOf("order_barrier") >= 0;
    }
    // Kernel layers also have a load-warp order barrier (load_order_barrier) unrelated to the
    // math order; when a "math" barrier exists, only its calls explain consumer order waits.
    var hasMath = calls.some(function (call) { return isOrderCall(call) && call.receiver.indexOf("math") >= 0; });
    var order = callRefs(function (call) { return isOrderCall(call) && (!hasMath || call.receiver.indexOf("math") >= 0); });
    var epilogue = callRefs(function (call) { return call.receiver === "collective_epilogue" && call.call === "store"; });
    var mmaCalls = callRefs(function (call) { return call.receiver === "collective_mainloop" && call.call === "mma"; });
    return {
      issue: refsOfOps(producer, path, kindSet(["producer_acquire", "tma_load", "cp_async", "producer_commit"])),
      filling: refsOfOps(producer, path, LOAD_OPS),
      full: refsOfOps(consumer, path, kindSet(["consumer_try_wait", "consumer_wait"])),
      wait: refsOfOps(consumer, path, kindSet(["consumer_wait"])),
      wgmma: refsOfOps(consumer, path, kindSet(["consumer_wait", "mma", "consumer_release"])),
      release: refsOfOps(consumer, path, kindSet(["consumer_release"])),
      epilogue: epilogue,
      order: order,
      orderMma: bracketing(order, mmaCalls),
      orderEpilogue: bracketing(order, epilogue),
      producer: functionInfo(producer),
      consumer: functionInfo(consumer)
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The timeline builder (sim/timeline.js) and the engine (sim/engine.js) are imported at the top.

  // ---------------------------------------------------------------------------------------------
  // GEMM model (SM90 TMA warp-specialized pingpong / cooperative, CUTLASS 4.2) on the engine

  /** Lanes of the GEMM model in display order: producer, stage0..stage{S-1}, consumer0[, consumer1]. */
  function gemmLanes(knobs) {
    var lanes = [{ id: "producer", label: "producer (load WG)", group: "producer" }];
    for (var s = 0; s < knobs.stages; s++) lanes.push({ id: "stage" + s, label: "stage " + s, group: "stage" });
    for (var c = 0; c < knobs.consumerWGs; c++) lanes.push({ id: "consumer" + c, label: "consumer WG" + c, group: "consumer" });
    return lanes;
  }

  /** Upper bound on the GEMM block count, known before simulating (the block cap uses it). */
  function estimateGemmBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    var copies = knobs.consumerWGs === 2 && knobs.schedule === "cooperative" ? 2 : 1;
    var epilogues = knobs.epilogueLatency > 0 ? knobs.outputTiles : 0;
    // issue + filling + full per k-tile; per consumer copy a WGMMA per k-tile, an epilogue per
    // tile, and at most one wait before each of those plus one before each epilogue order wait.
    return n * (2 + (knobs.tmaLatency > 0 ? 1 : 0)) + copies * 2 * (n + knobs.outputTiles + epilogues);
  }

  /** The first literal constant `name` of a structure: {value, line} or null (CONTRACT `constants`). */
  function sourceConstant(structure, name) {
    var st = isObject(structure) ? structure : {};
    var list = Array.isArray(st.constants) ? st.constants : [];
    for (var i = 0; i < list.length; i++) {
      var c = list[i];
      if (!isObject(c) || c.name !== name) continue;
      var v = typeof c.value === "number" ? c.value : typeof c.value === "string" && /^\s*\d+\s*$/.test(c.value) ? Number(c.value) : NaN;
      if (isFinite(v)) return { value: v, line: lineOrNull(c.line) };
    }
    return null;
  }

  /**
   * The consumer's role program from the parsed mainloop (docs/models/gemm.md): which steps exist.
   * Without a recognised mainloop (a producer function with a load and a consumer function with a
   * consumer_wait and an mma) the CUTLASS 4.2 program is assumed whole (`assumed: true`).
   * {acquire, wait, loopRelease, tailRelease, kPipe: {value, line} | null, lines: {...}}.
   */
  function gemmProgram(structure) {
    var st = isObject(structure) ? structure : {};
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var prog = { acquire: true, wait: true, loopRelease: true, tailRelease: true, tailAssumed: false, kPipe: null, assumed: true,
      lines: { acquire: null, wait: null, waitOrderMma: null, waitOrderEpi: null } };
    var kp = sourceConstant(st, "K_PIPE_MMAS");
    if (kp !== null) prog.kPipe = kp;
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    var pOps = opsOf(producer), cOps = opsOf(consumer);
    // Only a recognised mainloop (a producer that loads, a consumer that waits and issues MMAs)
    // is read; anything less keeps the assumed CUTLASS 4.2 program (the page says so).
    var loads = pOps.some(function (op) { return LOAD_OPS[op.op] === true; });
    var waitsAny = cOps.some(function (op) { return op.op === "consumer_wait"; });
    if (!loads || !waitsAny) return prog;
    prog.assumed = false;
    var acq = pOps.filter(function (op) { return op.op === "producer_acquire"; });
    prog.acquire = acq.length > 0;
    if (prog.acquire) prog.lines.acquire = lineOrNull(acq[0].line);
    var waits = cOps.filter(function (op) { return op.op === "consumer_wait"; });
    prog.wait = waits.length > 0;
    if (prog.wait) prog.lines.wait = lineOrNull(waits[waits.length - 1].line);
    // The loop's release: a consumer_release after the consumer function's last mma (by line).
    var lastMma = -Infinity;
    cOps.forEach(function (op) { if (op.op === "mma" && typeof op.line === "number" && op.line > lastMma) lastMma = op.line; });
    prog.loopRelease = cOps.some(function (op) { return op.op === "consumer_release" && typeof op.line === "number" && op.line > lastMma; });
    // The tail's release: a consumer_release in another consumer function (mma_tail).
    prog.tailRelease = functions.some(function (fn) {
      return fn !== consumer && CONSUMER_ROLES[fn.role] && opsOf(fn).some(function (op) { return op.op === "consumer_release"; });
    });
    // A loop release without a separate tail (a CuTe DSL kernel, a partial parse): the tile's last
    // k-tiles are assumed released after the loop, and the page says so.
    prog.tailAssumed = !prog.tailRelease && prog.loopRelease;
    if (prog.tailAssumed) prog.tailRelease = true;
    // K_PIPE_MMAS from a literal warpgroup_wait<N> in the consumer loop when no constant was recorded.
    if (prog.kPipe === null) {
      var ww = cOps.filter(function (op) { return op.op === "warpgroup_wait" && typeof op.line === "number" && op.line > lastMma; });
      ww.forEach(function (op) {
        var n = typeof op.count === "number" ? op.count : typeof op.count === "string" && /^\s*\d+\s*$/.test(op.count) ? Number(op.count) : NaN;
        if (prog.kPipe === null && isFinite(n)) prog.kPipe = { value: n, line: lineOrNull(op.line) };
      });
    }
    return prog;
  }

  /**
   * Values of the GEMM knobs that the source fixes, {name: {value, line}}: kPipeMmas when literal;
   * from the kernel layer (docs/fit.md "Starting knobs"), a pingpong or cooperative schedule tag
   * gives that schedule and 2 consumer WGs, any other tag (basic, unknown) 1 WG, and an integer
   * num_mma_warpgroups the WG count. The page, `node schedule.js export` and the CLI all start here.
   */
  function gemmSourceKnobs(structure) {
    var prog = gemmProgram(structure);
    var out = {};
    if (prog.kPipe !== null) out.kPipeMmas = prog.kPipe;
    var kl = isObject(structure) && isObject(structure.kernel_layer) ? structure.kernel_layer : null;
    if (kl !== null) {
      var line = lineOrNull(kl.schedule_line), path = layerPath(kl);
      if (GEMM_KNOB_CHOICES.schedule.indexOf(kl.schedule) >= 0) {
        out.schedule = { value: kl.schedule, line: line, path: path };
        out.consumerWGs = { value: 2, line: line, path: path };
      } else {
        out.consumerWGs = { value: 1, line: line, path: path };
      }
      var wgs = layerWarpgroups(kl);
      if (wgs !== null) out.consumerWGs = wgs;
    }
    return out;
  }

  /** The kernel layer's integer num_mma_warpgroups as {value, line, path}, else null (expressions, booleans). */
  function layerWarpgroups(kl) {
    var n = kl.num_mma_warpgroups;
    return typeof n === "number" && isFinite(n) && Math.floor(n) === n ?
      { value: n, line: lineOrNull(kl.num_mma_warpgroups_line), path: layerPath(kl) } : null;
  }

  /** The kernel layer's source path, or null. */
  function layerPath(kl) {
    return isObject(kl.source) && typeof kl.source.path === "string" ? kl.source.path : null;
  }

  /** The kernel-layer line of an order-barrier ref list's first entry (wait), or null. */
  function firstLine(refs) {
    return refs && refs.length > 0 ? refs[0].line : null;
  }

  /**
   * Run the GEMM model on the engine. With build false no block is allocated and the run stops at
   * the first late TMA wait ({deadlock, stopped}); with build true, probe(lateTma) is told
   * whether one occurred.
   */
  function runGemm(knobs, refs, prog, build, probe) {
    var S = knobs.stages, O = knobs.outputTiles, K = knobs.kTiles;
    var L = knobs.tmaLatency, W = knobs.wgmmaLatency, Ep = knobs.epilogueLatency, KP = knobs.kPipeMmas;
    var C = knobs.consumerWGs;
    var pingpong = C === 2 && knobs.schedule === "pingpong";
    var cooperative = C === 2 && knobs.schedule === "cooperative";
    var lanes = gemmLanes(knobs);
    var FIRST_STAGE = 1, FIRST_CONSUMER = 1 + S;
    var estimate = estimateGemmBlocks(knobs);
    var eng = new Engine(lanes, { build: build, events: build && recordEvents(estimate), capacity: build ? estimate : 0 });
    var releaseLines = linesOf(refs.release);
    var ring = new Ring(eng, "MainloopPipeline", S, FIRST_STAGE, 1, cooperative ? 2 : 1,
      { full: { wait: linesOf(refs.wait), arrive: linesOf(refs.filling) },
        empty: { wait: linesOf(refs.issue.filter(function (r) { return r.op === "producer_acquire"; })),
          arrive: releaseLines } }, refs.full);
    var tc = eng.queue("tensor core");
    // A TMA wait is "late" when it starts after step 0 and ends while the tensor core is idle
    // (a wait that ends while another WGMMA still runs costs nothing); a probe run stops there.
    eng.watchLate("tma", tc, !build);
    var order = pingpong ? new OrderBarrier(eng, "math_wg_order_barrier", 2, 2,
      { wait: linesOf(refs.order.filter(function (r) { return r.op === "wait"; })),
        arrive: linesOf(refs.order.filter(function (r) { return r.op === "arrive"; })) }) : null;
    var orderMmaLine = firstLine(refs.orderMma), orderEpiLine = firstLine(refs.orderEpilogue);

    // Role programs as step functions (Engine.role): each call returns the role's next command.
    /** The producer: per k-tile g, producer_acquire of its stage, then the TMA. */
    eng.role("producer", 0, function () {
      var g = 0, acquired = false, total = O * K, acquireLine = prog.lines.acquire;
      return function () {
        if (g >= total) return null;
        var s = g % S, o = (g / K) | 0, k = g - o * K;
        if (!acquired && prog.acquire) {
          acquired = true;
          return eng.wait(ring.empty[s], ((g / S | 0) & 1) ^ 1, null, EMPTY, o, k, s, acquireLine);
        }
        acquired = false;
        g++;
        return eng.copy(ring.full[s], L, refs.issue, refs.filling, o, k, s, FIRST_STAGE + s, ring);
      };
    }, { drawWaits: false });

    // Steps of a GEMM consumer WG's tile, in source order (docs/models/gemm.md): the kernel
    // layer's order wait, mma()'s k-loop (wait, WGMMA, warpgroup_wait<K_PIPE_MMAS> and the lagged
    // release once k >= K_PIPE_MMAS), the order arrive, mma_tail (warpgroup_wait<0>, release of
    // the last min(K_PIPE_MMAS, K) k-tiles), the epilogue between its order wait and arrive.
    var TILE = 0, K_WAIT = 1, K_MMA = 2, K_LAG_WAIT = 3, K_RELEASE = 4, ORDER_ARRIVE_MMA = 5, TAIL_WAIT = 6,
      TAIL_RELEASE = 7, ORDER_WAIT_EPI = 8, EPILOGUE = 9, ORDER_ARRIVE_EPI = 10;
    /** Consumer WG w: the kernel layer's tile loop around the mainloop's mma() and mma_tail(). */
    function consumer(w) {
      return function () {
        var P = Math.min(KP, K), tileStep = pingpong ? 2 : 1, parts = cooperative ? 2 : 1;
        var o = pingpong ? w : 0, k = 0, kt = 0, g = 0, step = TILE;
        return function () {
          for (;;) {
            switch (step) {
              case TILE:
                if (o >= O) return null;
                k = 0;
                step = K_WAIT;
                if (pingpong) return order.wait(w, "order", refs.orderMma, o, 0, (o * K) % S, orderMmaLine);
                break;
              case K_WAIT:
                if (k >= K) { step = ORDER_ARRIVE_MMA; break; }
                g = o * K + k;
                step = K_MMA;
                if (prog.wait) return eng.wait(ring.full[g % S], (g / S | 0) & 1, "tma", refs.wait, o, k, g % S, prog.lines.wait);
                break;
              case K_MMA:
                step = K_LAG_WAIT;
                return eng.mma(tc, W, "wgmma", refs.wgmma, o, k, g % S, parts, cooperative ? g : null);
              case K_LAG_WAIT:
                if (k < P) { k++; step = K_WAIT; break; }
                step = K_RELEASE;
                return eng.mmaWait(KP, null, EMPTY);
              case K_RELEASE:
                k++;
                step = K_WAIT;
                if (prog.loopRelease) return eng.arriveCmd(ring.empty[(g - P) % S]);
                break;
              case ORDER_ARRIVE_MMA:
                step = TAIL_WAIT;
                if (pingpong) return order.arrive(w);
                break;
              case TAIL_WAIT:
                kt = K - P;
                step = TAIL_RELEASE;
                return eng.mmaWait(0, null, EMPTY);
              case TAIL_RELEASE:
                if (prog.tailRelease && kt < K) return eng.arriveCmd(ring.empty[(o * K + kt++) % S]);
                step = ORDER_WAIT_EPI;
                break;
              case ORDER_WAIT_EPI:
                step = EPILOGUE;
                if (pingpong) return order.wait(w, "epilogue-order", refs.orderEpilogue, o, null, null, orderEpiLine);
                break;
              case EPILOGUE:
                step = ORDER_ARRIVE_EPI;
                return eng.work(Ep, "epilogue", refs.epilogue, o, null, null);
              default:
                // ORDER_ARRIVE_EPI: the next tile of this WG follows
                step = TILE;
                o += tileStep;
                if (pingpong) return order.arrive(w);
            }
          }
        };
      };
    }
    for (var c = 0; c < C; c++) eng.role("consumer" + c, FIRST_CONSUMER + c, consumer(c));
    var deadlock = eng.run();
    if (!build) return { deadlock: deadlock, stopped: eng.stopped };
    if (probe) probe(eng.late);
    return {
      total: eng.tl.total,
      lanes: lanes,
      columns: eng.tl.finalize(),
      roles: eng.roles,
      busy: tc.busy,
      deadlock: deadlock,
      barriers: eng.barrierList(),
      barrierEvents: eng.sortedEvents(),
      barrierEventsOmitted: eng.events === null
    };
  }

  /**
   * Smallest S in 1..64 whose run has no late TMA wait (one starting after step 0 and ending while
   * the tensor core is idle) and no deadlock, else null.
   */
  function minStagesToHideTma(knobs, refs, prog, currentLate) {
    for (var S = 1; S <= MIN_STAGES_SEARCH_MAX; S++) {
      var late;
      if (S === knobs.stages) late = currentLate;
      else {
        var variant = {};
        for (var key in knobs) variant[key] = knobs[key];
        variant.stages = S;
        var run = runGemm(variant, refs, prog, false, true);
        late = run.stopped || run.deadlock !== null;
      }
      if (!late) return S;
    }
    return null;
  }

  /** Zeroed per-reason wait totals of one GEMM consumer lane. */
  function newWaitTotals() {
    var w = {};
    WAIT_REASON_PRIORITY.forEach(function (r) { w[r] = 0; });
    w.total = 0;
    return w;
  }

  /** One-line human summary of a GEMM verdict. */
  function gemmSummary(knobs, verdict) {
    var C = knobs.consumerWGs;
    var head = (C === 2 ? knobs.schedule + ", 2 consumer WGs" : "1 consumer WG") + ": " + verdict.total + " steps";
    var util = Math.round(verdict.tensorCoreUtilization * 1000) / 10;
    var parts = [head, "tensor cores busy " + util + "%"];
    var lanesText = Object.keys(verdict.waits).map(function (lane) {
      var w = verdict.waits[lane];
      var items = WAIT_REASON_PRIORITY.filter(function (r) { return w[r] > 0; }).map(function (r) { return r + " " + w[r]; });
      return lane + " waits " + (items.length ? items.join(", ") : "none");
    });
    parts = parts.concat(lanesText);
    if (verdict.minStagesToHideTma === null) {
      parts.push("TMA latency not hidden even with " + MIN_STAGES_SEARCH_MAX + " stages");
    } else {
      parts.push("TMA hidden from " + verdict.minStagesToHideTma + " stages (have " + knobs.stages + ")");
    }
    return parts.join("; ");
  }

  /** The GEMM model's simulate: validated knobs and precomputed refs in, result fields out. */
  function simulateGemm(knobs, refs, structure) {
    var prog = refs.program;
    var late = false;
    var run = runGemm(knobs, refs, prog, true, function (flag) { late = flag; });
    var waits = {};
    run.roles.forEach(function (role, i) {
      if (i === 0) return;
      var w = newWaitTotals();
      for (var reason in role.waits) { w[reason] = role.waits[reason]; w.total += role.waits[reason]; }
      waits[role.name] = w;
    });
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0,
      tensorCoreBusySteps: run.busy,
      minStagesToHideTma: run.deadlock !== null ? null :
        knobs.outputTiles * knobs.kTiles <= MIN_STAGES_SEARCH_TILES ? minStagesToHideTma(knobs, refs, prog, late) : null,
      summary: ""
    };
    verdict.summary = run.deadlock !== null ? run.deadlock.message : gemmSummary(knobs, verdict);
    if (run.deadlock === null && knobs.outputTiles * knobs.kTiles > MIN_STAGES_SEARCH_TILES) {
      verdict.summary = verdict.summary.replace(/; TMA (latency not hidden|hidden from)[^;]*$/, "; minimum stages not searched above " +
        MIN_STAGES_SEARCH_TILES + " k-tiles");
    }
    // Why a verdict figure is null, for the page ("n/a: why"). Outside `verdict`, so the golden
    // digests (tests/js/golden.test.js reads the verdict) are unchanged. The three cases are the
    // three nulls of minStagesToHideTma above: a deadlock, a run too large to search, no S in
    // 1..MIN_STAGES_SEARCH_MAX without a late TMA wait.
    var notes = {};
    if (verdict.minStagesToHideTma === null) {
      notes.minStagesToHideTma = run.deadlock !== null ? "the run deadlocks" :
        knobs.outputTiles * knobs.kTiles > MIN_STAGES_SEARCH_TILES ? "not searched above " + MIN_STAGES_SEARCH_TILES +
          " k-tiles (output tiles x k-tiles = " + knobs.outputTiles * knobs.kTiles + "; each stage count tried is a run)" :
        "the TMA latency stays exposed even with " + MIN_STAGES_SEARCH_MAX + " stages";
    }
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict, notes: notes,
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted };
  }

  // ---------------------------------------------------------------------------------------------
  // Attention model (FlashAttention-3 / CUTLASS 88_hopper_fmha forward)

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

  /** Steps the load warp spends on one Vt -> V transpose (FA3 Transpose_V); not a knob. */
  var TRANSPOSE_STEPS = 1;

  /** Wait reasons of the attention model, in tie-break priority order. */
  var ATTENTION_WAIT_REASONS = ["barrier", "q", "k", "v", "epilogue", "tensor-core"];

  /** Block kinds of the attention model, in legend order. */
  var ATTENTION_BLOCK_KINDS = ["issue", "transpose", "filling", "full", "gemm0", "softmax", "gemm1", "epilogue", "wait"];

  /** Accepted spellings of a boolean knob (checkbox values, query strings). */
  var FLAG_WORDS = { "true": true, "1": true, on: true, yes: true, "false": false, "0": false, off: false, no: false };
  // (KNOB_TABLE.flagWords, on/off, are the CLI's and hash's spellings; all of them are accepted here.)

  /** Validate one on/off knob: default if missing, else a boolean from FLAG_WORDS, else default + message. */
  function normalizeFlag(name, value, fallback, messages) {
    if (value === undefined || value === null) return fallback;
    if (value === true || value === false) return value;
    var key = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim().toLowerCase() : null;
    if (key !== null && Object.prototype.hasOwnProperty.call(FLAG_WORDS, key)) return FLAG_WORDS[key];
    messages.push(name + ": " + showValue(value) + " is not on/off; using the default " + fallback);
    return fallback;
  }

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

  /** Pipelines of a structure that are real declarations (not template parameters), as an array. */
  function declaredPipelines(st) {
    return (Array.isArray(st.pipelines) ? st.pipelines : []).filter(function (p) {
      return isObject(p) && typeof p.alias === "string" && !p.template_parameter;
    });
  }

  /**
   * Alias of the first declared pipeline whose alias ends with suffix, or null: a type alias ends
   * with it as written (MainloopPipelineK, case-sensitive); an object name ends with "_" and the
   * suffix in lower case (pipeline_k, pipeline_vt: the CuTe DSL's pipelines are objects).
   */
  function pipelineEndingWith(pipes, suffix) {
    var lower = "_" + suffix.toLowerCase();
    for (var i = 0; i < pipes.length; i++) {
      var alias = pipes[i].alias;
      if (alias.length > suffix.length && alias.slice(-suffix.length) === suffix) return alias;
      if (alias.length > lower.length && alias.slice(-lower.length) === lower) return alias;
    }
    return null;
  }

  /** Every op of every function of a structure (for shape detection). */
  function allOps(st) {
    var out = [];
    (Array.isArray(st.functions) ? st.functions : []).filter(isObject).forEach(function (fn) {
      out = out.concat(opsOf(fn));
    });
    return out;
  }

  /** Which GEMM an mma op is: "gemm0" (receiver has qk or qv: the scores), "gemm1" (pv), else by pipeline. */
  function mmaClass(op, kPipe, vPipe) {
    var receiver = typeof op.receiver === "string" ? op.receiver.toLowerCase() : "";
    if (receiver.indexOf("qk") >= 0 || receiver.indexOf("qv") >= 0) return "gemm0";
    if (receiver.indexOf("pv") >= 0) return "gemm1";
    if (kPipe !== null && op.pipeline === kPipe) return "gemm0";
    if (vPipe !== null && op.pipeline === vPipe) return "gemm1";
    return null;
  }

  /**
   * Attention shape of a structure: {attention, kv: "separate" | "shared", vt, kPipe, vPipe, vtPipe,
   * qPipe, kvPipe}. Separate: pipeline aliases ending in K and V (FA3's MainloopPipelineK / V).
   * Shared: no such pair, but buffers of operands K and V and mma ops of both GEMMs (qk and pv):
   * CUTLASS 88_hopper_fmha, whose one MainloopPipeline carries K and V alternately.
   */
  function attentionShape(structure) {
    var st = isObject(structure) ? structure : {};
    var pipes = declaredPipelines(st);
    var kPipe = pipelineEndingWith(pipes, "K");
    var vPipe = pipelineEndingWith(pipes, "V");
    var vtPipe = pipelineEndingWith(pipes, "Vt");
    var qPipe = pipelineEndingWith(pipes, "Q");
    var separate = kPipe !== null && vPipe !== null;
    var shape = { attention: separate, kv: "separate", vt: separate && vtPipe !== null,
      kPipe: kPipe, vPipe: vPipe, vtPipe: vtPipe, qPipe: qPipe, kvPipe: null };
    if (separate) return shape;
    var operands = {};
    (Array.isArray(st.buffers) ? st.buffers : []).filter(isObject).forEach(function (b) { operands[b.operand] = true; });
    var ops = allOps(st);
    var classes = {};
    ops.forEach(function (op) { if (op.op === "mma") classes[mmaClass(op, null, null)] = true; });
    if (operands.K && operands.V && classes.gemm0 && classes.gemm1) {
      shape.attention = true;
      shape.kv = "shared";
      // The shared pipeline: the one the K loads go through.
      ops.forEach(function (op) {
        if (shape.kvPipe === null && LOAD_OPS[op.op] && op.operand === "K" && typeof op.pipeline === "string") shape.kvPipe = op.pipeline;
      });
    }
    return shape;
  }

  /**
   * The model a page starts in and simulate() runs without knobs.model: fitModel(structure).model,
   * null when no model fits (the page then shows the no-model page and offers no model).
   */
  function defaultModel(structure) {
    return fitModel(structure).model;
  }

  /** Refs of the given ops (already filtered), sorted and frozen. */
  function refsOf(ops, path) {
    return sortRefs(ops.map(function (op) { return makeRef(path, op.line, op.end_line, op.op, op.text); }));
  }

  /** Frozen union of ref lists (one ref per path, line and op: sortRefs), sorted by line. */
  function unionRefs(lists) {
    return sortRefs([].concat.apply([], lists));
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
    /** Ops of a list whose kind is in kinds and that pass pred. */
    function pick(ops, kinds, pred) {
      var set = kindSet(kinds);
      return ops.filter(function (op) { return set[op.op] === true && (!pred || pred(op)); });
    }
    function onPipe(pipe) { return function (op) { return pipe !== null && op.pipeline === pipe; }; }
    var mmas = { gemm0: [], gemm1: [] };
    cOps.forEach(function (op) {
      var cls = op.op === "mma" ? mmaClass(op, kPipe, vPipe) : null;
      if (cls) mmas[cls].push(op);
    });
    // Waits of each GEMM: on its pipeline; with a shared K/V pipeline, the waits whose next mma
    // (in line order) is of that GEMM.
    var waitKinds = ["consumer_try_wait", "consumer_wait"];
    var waits = { gemm0: [], gemm1: [] };
    if (shape.kv === "shared") {
      var byLine = cOps.slice().sort(function (a, b) { return (a.line || 0) - (b.line || 0); });
      byLine.forEach(function (op, i) {
        if (waitKinds.indexOf(op.op) < 0 || op.pipeline !== kPipe) return;
        for (var n = i + 1; n < byLine.length; n++) {
          if (byLine[n].op !== "mma") continue;
          var cls = mmaClass(byLine[n], null, null);
          if (cls) waits[cls].push(op);
          break;
        }
      });
    } else {
      waits.gemm0 = pick(cOps, waitKinds, onPipe(kPipe));
      waits.gemm1 = pick(cOps, waitKinds, onPipe(vPipe));
    }
    var releaseK = refsOf(pick(cOps, ["consumer_release"], onPipe(kPipe)), path);
    var releaseV = shape.kv === "shared" ? releaseK : refsOf(pick(cOps, ["consumer_release"], onPipe(vPipe)), path);
    var fullK = refsOf(waits.gemm0, path);
    var fullV = refsOf(waits.gemm1, path);
    var waitK = refsOf(waits.gemm0.filter(function (op) { return op.op === "consumer_wait"; }), path);
    var waitV = refsOf(waits.gemm1.filter(function (op) { return op.op === "consumer_wait"; }), path);
    // Q waits: on a Q pipeline (88_hopper_fmha), else on a standalone barrier_Q (FA3's
    // barrier_Q.wait(work_idx % 2), parsed as barrier_wait).
    function onQBarrier(op) { return op.barrier === "barrier_Q"; }
    var fullQ = refsOf(pick(cOps, waitKinds, onPipe(shape.qPipe)), path);
    if (fullQ.length === 0) fullQ = refsOf(pick(cOps, ["barrier_wait"], onQBarrier), path);
    /** Producer acquire/load/commit ops of one operand: loads by operand, acquire/commit by pipeline. */
    function issueOps(operand, pipe, exclude) {
      return pOps.filter(function (op) {
        if (exclude.indexOf(op) >= 0) return false;
        if (LOAD_OPS[op.op]) return op.operand === operand;
        if (op.op === "producer_acquire" || op.op === "producer_commit") return pipe !== null && op.pipeline === pipe && shape.kv !== "shared";
        return false;
      });
    }
    // Transpose (FA3 copy_Vt_to_V): the Vt consumer_wait/release and the V acquire/commit between them.
    var transposeOps = [];
    if (shape.vt) {
      var vtOps = pick(pOps, ["consumer_wait", "consumer_release"], onPipe(shape.vtPipe));
      var lo = Infinity, hi = -Infinity;
      vtOps.forEach(function (op) {
        if (typeof op.line === "number") { lo = Math.min(lo, op.line); hi = Math.max(hi, op.line); }
      });
      transposeOps = vtOps.concat(pick(pOps, ["producer_acquire", "producer_commit"], function (op) {
        return op.pipeline === vPipe && op.line > lo && op.line < hi;
      }));
    }
    var kernel = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var kernelPath = kernel && isObject(kernel.source) && typeof kernel.source.path === "string" ? kernel.source.path : null;
    var calls = kernel && Array.isArray(kernel.calls) ? kernel.calls.filter(isObject) : [];
    var epilogue = sortRefs(calls.filter(function (call) {
      return call.call === "store" && (call.receiver === "epilogue" || call.receiver === "collective_epilogue");
    }).map(function (call) { return makeRef(kernelPath, call.line, call.end_line, call.call, call.text); }));
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
      issueK: refsOf(issueOps("K", kPipe, transposeOps), path),
      issueV: refsOf(issueOps("V", vPipe, transposeOps), path),
      issueQ: unionRefs([refsOf(issueOps("Q", shape.qPipe, transposeOps), path),
        refsOf(pick(pOps, ["barrier_arrive"], onQBarrier), path)]),
      fillK: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "K"; }), path),
      fillV: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "V"; }), path),
      fillQ: refsOf(pick(pOps, ["tma_load", "cp_async"], function (op) { return op.operand === "Q"; }), path),
      fullK: fullK,
      fullV: fullV,
      fullQ: fullQ,
      transpose: refsOf(transposeOps, path),
      fullVt: refsOf(pick(pOps, ["consumer_wait"], onPipe(shape.vtPipe)), path),
      epilogue: epilogue,
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

  /**
   * Lanes of the attention model in display order: producer, q_stage0, then k_stage*, v_stage*
   * (and vt_stage* with Transpose_V) or, with 88's shared K/V pipeline, kv_stage*; then per
   * consumer WG c: consumer{c} (its GEMMs, waits and epilogue) and consumer{c}_softmax.
   */
  function attentionLanes(knobs, refs) {
    var shape = refs && refs.shape ? refs.shape : attentionShape(null);
    var lanes = [{ id: "producer", label: "producer (load warp)", group: "producer" },
      { id: "q_stage0", label: "Q", group: "stage" }];
    var rings = shape.kv === "shared" ? [["kv", "K/V"]] : [["k", "K"], ["v", "V"]].concat(knobs.transposeV ? [["vt", "Vt"]] : []);
    rings.forEach(function (ring) {
      for (var s = 0; s < knobs.stages; s++) lanes.push({ id: ring[0] + "_stage" + s, label: ring[1] + " stage " + s, group: "stage" });
    });
    for (var c = 0; c < knobs.consumerWGs; c++) {
      lanes.push({ id: "consumer" + c, label: "consumer WG" + c, group: "consumer" });
      lanes.push({ id: "consumer" + c + "_softmax", label: "WG" + c + " softmax", group: "softmax" });
    }
    return lanes;
  }

  /** Upper bound on the attention block count, known before simulating. */
  function estimateAttentionBlocks(knobs) {
    var O = knobs.outputTiles, J = knobs.kvBlocks, C = knobs.consumerWGs;
    // Per tile: 3J + 1 producer blocks (K, Vt/V, transpose, Q), 2 per stage item (filling + full)
    // over 3J + 1 items, and per WG 2J GEMMs + J softmax + 1 epilogue + at most 2J + 3 waits and
    // J + 1 tensor-core waits.
    return O * ((3 * J + 1) + 2 * (3 * J + 1) + C * (6 * J + 5));
  }

  /**
   * The load warp's actions for one tile, in FA3's order (mainloop_fwd_sm90_tma_gmma_ws.hpp load()
   * 800-890): [kind, j] with kind K, V, Vt (TMA into the Vt ring), T (transpose Vt -> V), Q, O
   * (barrier_O.wait: the previous tile's epilogue stored O, whose smem aliases V).
   */
  function producerActions(J, intra, vt) {
    var acts = [];
    if (vt) acts.push(["Vt", 0]);
    acts.push(["K", 0]);
    acts.push(["Q", 0]);
    acts.push(["O", 0]);
    if (!vt && !intra) acts.push(["V", 0]);
    for (var j = 1; j < J; j++) {
      if (vt) acts.push(["Vt", j]);
      acts.push(["K", j]);
      if (!vt) acts.push(intra ? ["V", j - 1] : ["V", j]);
      if (vt) acts.push(["T", j - 1]);
    }
    if (!vt && intra) acts.push(["V", J - 1]);
    if (vt) acts.push(["T", J - 1]);
    return acts;
  }

  /** Zeroed per-reason wait totals of one attention consumer lane. */
  function newAttentionWaits() {
    var w = {};
    ATTENTION_WAIT_REASONS.forEach(function (r) { w[r] = 0; });
    w.total = 0;
    return w;
  }

  /** Lines of a list of refs. */
  function linesOf(refs) {
    return refs.map(function (r) { return r.line; });
  }

  /**
   * Run the attention model (FlashAttention-3 forward, hopper/) on the engine. Roles: the load
   * warp and each consumer WG, programs as in docs/models/attention.md (every rule with its FA3
   * lines).
   */
  function runAttention(knobs, refs) {
    var S = knobs.stages, O = knobs.outputTiles, J = knobs.kvBlocks, C = knobs.consumerWGs;
    var L = knobs.tmaLatency, X = knobs.softmaxLatency, E = knobs.epilogueLatency;
    var G0 = knobs.gemm0Latency, G1 = knobs.gemm1Latency;
    var intra = knobs.intraWGOverlap;
    // UseSchedulerBarrier needs 2 or 3 MMA WGs
    var sched = C >= 2 && knobs.interWGPingpong;
    var shape = refs.shape;
    var shared = shape.kv === "shared";
    var vt = knobs.transposeV && !shared;
    var lanes = attentionLanes(knobs, refs);
    var laneIndex = {};
    lanes.forEach(function (lane, i) { laneIndex[lane.id] = i; });
    var estimate = estimateAttentionBlocks(knobs);
    var eng = new Engine(lanes, { events: recordEvents(estimate), operand: true, capacity: estimate });
    var tc = eng.queue("tensor core");

    var ringLines = function (fill, wait, acquire, release) {
      return { full: { wait: linesOf(wait), arrive: linesOf(fill) }, empty: { wait: linesOf(acquire), arrive: linesOf(release) } };
    };
    var kRing, vRing, vtRing = null;
    var acquireOf = function (list) { return list.filter(function (r) { return r.op === "producer_acquire"; }); };
    if (shared) {
      kRing = vRing = new Ring(eng, "MainloopPipeline", S, laneIndex.kv_stage0, 1, C,
        ringLines(refs.fillK.concat(refs.fillV), refs.waitK.concat(refs.waitV), acquireOf(refs.issueK), refs.releaseK), refs.fullK);
    } else {
      kRing = new Ring(eng, "MainloopPipelineK", S, laneIndex.k_stage0, 1, C,
        ringLines(refs.fillK, refs.waitK, acquireOf(refs.issueK), refs.releaseK), refs.fullK);
      vRing = new Ring(eng, "MainloopPipelineV", S, laneIndex.v_stage0, 1, C,
        ringLines(vt ? refs.transpose : refs.fillV, refs.waitV, acquireOf(refs.issueV), refs.releaseV), refs.fullV);
      if (vt) vtRing = new Ring(eng, "MainloopPipelineVt", S, laneIndex.vt_stage0, 1, 1,
        ringLines(refs.fillV, refs.fullVt, acquireOf(refs.issueV), refs.transpose), refs.fullVt);
    }
    // Q: barrier_Q (a transaction barrier, completed by the landing) and QueryEmpty, the named
    // barrier the load warp syncs on before loading Q and every MMA WG arrives on (mma_init, then
    // after each tile's loop): a ring of one stage whose empty barrier expects C + 1 arrivals.
    var qRing = new Ring(eng, "barrier_Q", 1, laneIndex.q_stage0, 1, C + 1,
      ringLines(refs.fillQ, refs.waitQ, refs.queryEmpty, refs.queryEmpty), refs.fullQ);
    qRing.full[0].name = "barrier_Q";
    qRing.empty[0].name = "QueryEmpty";
    qRing.empty[0].kind = "named";
    // barrier_O: one arrival per tile after the epilogue's O store (epilogue_fwd.hpp 327); the load
    // warp waits on it (parity (work_idx + 1) % 2) before writing V, whose smem O aliases.
    var barrierO = eng.barrier("barrier_O", "full", null, 1, { wait: linesOf(refs.barrierO), arrive: [] });
    // FA3's warp scheduler barriers (named_barrier.hpp WarpSchedulerWG1/2): one per WG, two WGs'
    // arrivals each; a WG syncs on its own and arrives on the other's.
    var schedBars = [];
    if (sched) {
      for (var c0 = 0; c0 < C; c0++) {
        schedBars.push(eng.barrier("WarpSchedulerWG" + (c0 + 1), "named", null, 2,
          { wait: linesOf(refs.barrier.filter(function (r) { return r.op === "order_wait"; })),
            arrive: linesOf(refs.barrier.filter(function (r) { return r.op === "order_arrive"; })) }));
      }
    }
    // EpilogueBarrier: the epilogue starts with a named-barrier sync of all MMA threads.
    var epiBar = eng.barrier("EpilogueBarrier", "named", null, C, { wait: linesOf(refs.epilogue), arrive: linesOf(refs.epilogue) });

    // Ring item numbering: separate rings number K, V and Vt items t * J + j; a shared K/V ring
    // numbers them in the load warp's issue order.
    var acts = producerActions(J, intra, vt);
    var itemOf = { K: new Int32Array(J), V: new Int32Array(J) };
    var perTile = 2 * J;
    if (shared) {
      var n = 0;
      acts.forEach(function (a) { if (a[0] === "K" || a[0] === "V") itemOf[a[0]][a[1]] = n++; });
    } else {
      for (var jj = 0; jj < J; jj++) { itemOf.K[jj] = jj; itemOf.V[jj] = jj; }
      perTile = J;
    }
    var itemK = itemOf.K, itemV = itemOf.V;

    // Role programs as scripts: the steps of one output tile in source order, (op, j) pairs built
    // once, replayed per tile t by a step function (Engine.role) that builds each step's command.
    /** A growing script of (op, j) steps. */
    function script() {
      var sc = { ops: [], js: [] };
      sc.step = function (op, j) { sc.ops.push(op); sc.js.push(j === undefined ? 0 : j); };
      return sc;
    }
    /** A step function replaying `sc` for t = 0 .. O - 1 through command(op, t, j), after `prologue` (ops, once). */
    function replay(sc, prologue, command) {
      var ops = sc.ops, js = sc.js, n = ops.length, t = 0, pc = 0, pro = 0;
      return function () {
        if (pro < prologue.length) return command(prologue[pro++], 0, 0);
        if (pc === n) { pc = 0; t++; }
        if (t >= O || n === 0) return null;
        var op = ops[pc], j = js[pc];
        pc++;
        return command(op, t, j);
      };
    }

    // The load warp's steps: per K / V / Vt item producer_acquire then its TMA; Q after syncing on
    // QueryEmpty; barrier_O's wait; with Transpose_V, copy_Vt_to_V (781-791): wait Vt, acquire V,
    // transpose, commit V, release Vt.
    var P_ACQUIRE = 0, P_COPY = 1, P_SYNC_Q = 2, P_COPY_Q = 3, P_WAIT_O = 4, P_T_WAIT_VT = 5, P_T_ACQUIRE_V = 6,
      P_TRANSPOSE = 7, P_T_COMMIT_V = 8, P_T_RELEASE_VT = 9;
    // item operand of P_ACQUIRE / P_COPY steps: j * 3 + (0 K, 1 V, 2 Vt)
    var OPERANDS = ["K", "V", "Vt"];
    var producerScript = script();
    acts.forEach(function (a) {
      var kind = a[0], j = a[1];
      if (kind === "K" || kind === "V" || kind === "Vt") {
        var code = j * 3 + OPERANDS.indexOf(kind);
        producerScript.step(P_ACQUIRE, code);
        producerScript.step(P_COPY, code);
      } else if (kind === "Q") {
        producerScript.step(P_SYNC_Q);
        producerScript.step(P_COPY_Q);
      } else if (kind === "O") {
        producerScript.step(P_WAIT_O);
      } else {
        [P_T_WAIT_VT, P_T_ACQUIRE_V, P_TRANSPOSE, P_T_COMMIT_V, P_T_RELEASE_VT].forEach(function (op) { producerScript.step(op, j); });
      }
    });
    var barrierOLine = firstLine(refs.barrierO);
    eng.role("producer", 0, function () {
      return replay(producerScript, [], function (op, t, j) {
        var n, st, kind, ring;
        switch (op) {
          case P_ACQUIRE:
          case P_COPY:
            kind = OPERANDS[j % 3];
            j = (j / 3) | 0;
            // Acquire the item's stage (producer_acquire), then the TMA (1 step; lands L later).
            ring = kind === "K" ? kRing : kind === "V" ? vRing : vtRing;
            n = kind === "Vt" ? t * J + j : t * perTile + (kind === "K" ? itemK[j] : itemV[j]);
            st = n % S;
            if (op === P_ACQUIRE) return eng.wait(ring.empty[st], ((n / S | 0) & 1) ^ 1, null, EMPTY, t, j, st, null);
            return eng.copy(ring.full[st], L, kind === "K" ? refs.issueK : refs.issueV, kind === "K" ? refs.fillK : refs.fillV,
              t, j, st, ring.firstLane + st, ring, kind);
          case P_SYNC_Q:
            return eng.sync(qRing.empty[0], null, EMPTY, t, null, 0, null);
          case P_COPY_Q:
            return eng.copy(qRing.full[0], L, refs.issueQ, refs.fillQ, t, null, 0, qRing.firstLane, qRing, "Q");
          case P_WAIT_O:
            return eng.wait(barrierO, (t + 1) & 1, null, EMPTY, t, null, null, barrierOLine);
        }
        n = t * J + j;
        st = n % S;
        switch (op) {
          case P_T_WAIT_VT:
            return eng.wait(vtRing.full[st], (n / S | 0) & 1, null, EMPTY, t, j, st, null);
          case P_T_ACQUIRE_V:
            return eng.wait(vRing.empty[st], ((n / S | 0) & 1) ^ 1, null, EMPTY, t, j, st, null);
          case P_TRANSPOSE:
            return eng.work(TRANSPOSE_STEPS, "transpose", refs.transpose, t, j, st);
          case P_T_COMMIT_V: {
            var tblk = eng.laneLast[0];
            // it writes the V stage
            if (tblk >= 0) eng.tl.setOperand(tblk, "V");
            vRing.landed(st, eng.roles[0].now, tblk, t, j);
            return eng.arriveCmd(vRing.full[st]);
          }
          default:
            // P_T_RELEASE_VT
            return eng.arriveCmd(vtRing.empty[st]);
        }
      });
    }, { drawWaits: false });

    // A consumer WG's steps (mma(), 1138-1346, then the epilogue).
    var C_WAIT_Q = 0, C_WAIT_K = 1, C_WAIT_V = 2, C_GEMM0 = 3, C_GEMM1 = 4, C_MMA_WAIT0 = 5, C_MMA_WAIT1 = 6,
      C_RELEASE_K = 7, C_RELEASE_V = 8, C_SOFTMAX = 9, C_SYNC_SCHED = 10, C_ARRIVE_SCHED = 11, C_QUERY_EMPTY = 12,
      C_EPILOGUE_SYNC = 13, C_EPILOGUE = 14, C_ARRIVE_O = 15, C_ARRIVE_OWN_SCHED = 16;
    /** Consumer WG c's script of one tile. */
    function consumerScript(c) {
      var sc = script(), step = sc.step;
      step(C_WAIT_Q);
      if (intra) {
        // GEMM0(0) and softmax(0) before the loop, outside the scheduler barrier (1138-1163).
        step(C_WAIT_K, 0);
        step(C_GEMM0, 0);
        step(C_MMA_WAIT0);
        step(C_RELEASE_K, 0);
        step(C_SOFTMAX, 0);
        // fwd_step (1171-1210): phase {GEMM0(j), GEMM1(j-1)}
        for (var j = 1; j < J; j++) {
          step(C_WAIT_K, j);
          if (sched) step(C_SYNC_SCHED, j);
          step(C_GEMM0, j);
          step(C_WAIT_V, j - 1);
          step(C_GEMM1, j - 1);
          if (sched) step(C_ARRIVE_SCHED);
          step(C_MMA_WAIT1);
          step(C_RELEASE_K, j);
          step(C_SOFTMAX, j);
          // V(j-1) is released only after softmax(j) (1196-1199)
          step(C_MMA_WAIT0);
          step(C_RELEASE_V, j - 1);
        }
        // QueryEmpty before the final GEMM1 (1237)
        step(C_QUERY_EMPTY);
        step(C_WAIT_V, J - 1);
        // outside the scheduler barrier (1240)
        step(C_GEMM1, J - 1);
        step(C_MMA_WAIT0);
        step(C_RELEASE_V, J - 1);
      } else {
        // before the loop (1256)
        if (sched) step(C_SYNC_SCHED, 0);
        // fwd_step (1258-1306): phases {GEMM1(j-1), GEMM0(j)}
        for (var k = 0; k < J; k++) {
          step(C_WAIT_K, k);
          step(C_GEMM0, k);
          // right after GEMM0 is issued (1267)
          if (sched) step(C_ARRIVE_SCHED);
          step(C_MMA_WAIT0);
          step(C_RELEASE_K, k);
          step(C_SOFTMAX, k);
          step(C_WAIT_V, k);
          // before each GEMM1 (1295)
          if (sched) step(C_SYNC_SCHED, k);
          step(C_GEMM1, k);
          step(C_MMA_WAIT0);
          step(C_RELEASE_V, k);
        }
        // after the loop (1336)
        if (sched) step(C_ARRIVE_SCHED);
        // QueryEmpty after the last GEMM1 (1338)
        step(C_QUERY_EMPTY);
      }
      // Epilogue (epilogue_fwd.hpp store): all MMA WGs sync first (249), then write O; the last
      // WG's TMA store completion arrives on barrier_O (327).
      step(C_EPILOGUE_SYNC);
      step(C_EPILOGUE);
      if (c === C - 1) step(C_ARRIVE_O);
      return sc;
    }
    var waitKLine = firstLine(refs.waitK), waitVLine = firstLine(refs.waitV), waitQLine = firstLine(refs.waitQ);
    var epilogueLine = firstLine(refs.epilogue);
    /** Consumer WG c's program: mma_init, then its script per tile. */
    function consumer(c) {
      var sm = laneIndex["consumer" + c + "_softmax"];
      // mma_init (933-951): QueryEmpty's first arrival; WG0 gives its own scheduler barrier the
      // first signal.
      var prologue = sched && c === 0 ? [C_QUERY_EMPTY, C_ARRIVE_OWN_SCHED] : [C_QUERY_EMPTY];
      var sc = consumerScript(c);
      return function () {
        return replay(sc, prologue, function (op, t, j) {
          var n;
          switch (op) {
            case C_WAIT_Q:
              return eng.wait(qRing.full[0], t & 1, "q", refs.waitQ, t, null, 0, waitQLine);
            case C_WAIT_K:
              n = t * perTile + itemK[j];
              return eng.wait(kRing.full[n % S], (n / S | 0) & 1, "k", refs.waitK, t, j, n % S, waitKLine);
            case C_WAIT_V:
              n = t * perTile + itemV[j];
              return eng.wait(vRing.full[n % S], (n / S | 0) & 1, "v", refs.waitV, t, j, n % S, waitVLine);
            case C_GEMM0:
              return eng.mma(tc, G0, "gemm0", refs.gemm0, t, j, (t * perTile + itemK[j]) % S);
            case C_GEMM1:
              return eng.mma(tc, G1, "gemm1", refs.gemm1, t, j, (t * perTile + itemV[j]) % S);
            case C_MMA_WAIT0:
              return eng.mmaWait(0);
            case C_MMA_WAIT1:
              return eng.mmaWait(1);
            case C_RELEASE_K:
              return eng.arriveCmd(kRing.empty[(t * perTile + itemK[j]) % S]);
            case C_RELEASE_V:
              return eng.arriveCmd(vRing.empty[(t * perTile + itemV[j]) % S]);
            case C_SOFTMAX:
              return eng.work(X, "softmax", refs.softmax, t, j, null, sm);
            case C_SYNC_SCHED:
              return eng.sync(schedBars[c], "barrier", refs.barrier, t, j, null, null);
            case C_ARRIVE_SCHED:
              // warp_scheduler_barrier_arrive (926-928): the next WG, WG1 -> WG2 (-> WG3) -> WG1
              return eng.arriveCmd(schedBars[(c + 1) % C]);
            case C_ARRIVE_OWN_SCHED:
              return eng.arriveCmd(schedBars[c]);
            case C_QUERY_EMPTY:
              return eng.arriveCmd(qRing.empty[0]);
            case C_EPILOGUE_SYNC:
              return eng.sync(epiBar, "epilogue", refs.epilogue, t, null, null, epilogueLine);
            case C_EPILOGUE:
              return eng.work(E, "epilogue", refs.epilogue, t, null, null);
            default:
              // C_ARRIVE_O
              return eng.arriveCmd(barrierO);
          }
        });
      };
    }
    for (var c = 0; c < C; c++) eng.role("consumer" + c, laneIndex["consumer" + c], consumer(c));
    var deadlock = eng.run();
    // Attention blocks name their operand (K, V, Vt, Q) on producer and stage lanes; null elsewhere
    // (the engine's operand option).
    var columns = eng.tl.finalize();
    return { total: eng.tl.total, lanes: lanes, columns: columns, roles: eng.roles, steps: tensorCoreSteps(columns),
      deadlock: deadlock, barriers: eng.barrierList(), barrierEvents: eng.sortedEvents(), barrierEventsOmitted: eng.events === null };
  }

  /**
   * Tensor-core and softmax accounting over the blocks: {busy, exposed, softmax} = steps in which
   * any WG is in a GEMM, steps in which some WG is in softmax and none in a GEMM, and steps in
   * which some WG is in softmax: |G|, |S| - |S and G| and |S| for the unions G and S of the GEMM
   * and softmax blocks of result columns c.
   */
  function tensorCoreSteps(c) {
    var gemm = [c.kinds.indexOf("gemm0"), c.kinds.indexOf("gemm1")], softmax = [c.kinds.indexOf("softmax")];
    var G = unionOfKinds(c, gemm), S = unionOfKinds(c, softmax);
    var soft = spanTotal(S);
    return { busy: spanTotal(G), exposed: soft - overlapTotal(S, G), softmax: soft };
  }

  /**
   * The union of the blocks of kind codes `codes` (over every lane) as sorted disjoint spans
   * {start: [], end: []}: each lane's matching blocks are already in start order (ids of a lane
   * are sorted by start), so the lanes that have any are merged, taking the smallest next start
   * each time.
   */
  function unionOfKinds(c, codes) {
    var want = new Uint8Array(c.kinds.length), runs = [], li, i;
    codes.forEach(function (code) { if (code >= 0) want[code] = 1; });
    var kind = c.kind, start = c.start, end = c.end;
    for (li = 0; li < c.lanes.length; li++) {
      var lo = c.laneStart[li], hi = c.laneStart[li + 1], count = 0;
      for (i = lo; i < hi; i++) count += want[kind[i]];
      if (count === 0) continue;
      var ids = new Int32Array(count), m = 0;
      for (i = lo; i < hi; i++) if (want[kind[i]] === 1) ids[m++] = i;
      runs.push({ ids: ids, at: 0 });
    }
    var out = { start: [], end: [] }, s0 = 0, e0 = 0, open = false;
    for (;;) {
      var best = null, bestStart = 0;
      for (i = 0; i < runs.length; i++) {
        var run = runs[i];
        if (run.at < run.ids.length && (best === null || start[run.ids[run.at]] < bestStart)) {
          best = run;
          bestStart = start[run.ids[run.at]];
        }
      }
      if (best === null) break;
      var id = best.ids[best.at++], st = start[id], en = end[id];
      if (open && st <= e0) { if (en > e0) e0 = en; continue; }
      if (open) { out.start.push(s0); out.end.push(e0); }
      s0 = st; e0 = en; open = true;
    }
    if (open) { out.start.push(s0); out.end.push(e0); }
    return out;
  }

  /** Total length of sorted disjoint spans. */
  function spanTotal(u) {
    var sum = 0;
    for (var i = 0; i < u.start.length; i++) sum += u.end[i] - u.start[i];
    return sum;
  }

  /** Total length of the intersection of two lists of sorted disjoint spans. */
  function overlapTotal(a, b) {
    var i = 0, j = 0, sum = 0;
    while (i < a.start.length && j < b.start.length) {
      var lo = Math.max(a.start[i], b.start[j]), hi = Math.min(a.end[i], b.end[j]);
      if (hi > lo) sum += hi - lo;
      if (a.end[i] < b.end[j]) i++; else j++;
    }
    return sum;
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

  // ---------------------------------------------------------------------------------------------
  // View descriptions: what a page needs to draw a model without knowing its name (issue 9, 5).

  /** The kind of copy a GEMM structure's producer issues: "cp.async" when it only has cp_async loads. */
  function copyKind(structure) {
    var ops = allOps(isObject(structure) ? structure : {});
    var tma = ops.some(function (op) { return op.op === "tma_load"; });
    var cp = ops.some(function (op) { return op.op === "cp_async"; });
    return cp && !tma ? "cp.async" : "TMA";
  }

  /** Widget facts of the knobs (short labels, comfortable slider ends); ranges stay in the model. */
  var KNOB_WIDGETS = {
    stages: { short: "Stages", sliderMax: 16 }, outputTiles: { short: "Output tiles", sliderMax: 128 },
    kTiles: { short: "k-tiles / tile", sliderMax: 256 }, kvBlocks: { short: "KV blocks / tile", sliderMax: 256 },
    tmaLatency: { short: "TMA fill", sliderMax: 64 }, wgmmaLatency: { short: "WGMMA", sliderMax: 64 },
    gemm0Latency: { short: "GEMM0", sliderMax: 64 }, softmaxLatency: { short: "Softmax", sliderMax: 64 },
    gemm1Latency: { short: "GEMM1", sliderMax: 64 }, epilogueLatency: { short: "Epilogue", sliderMax: 64 },
    consumerWGs: { short: "Consumer WGs" }, schedule: { short: "Schedule" }, kPipeMmas: { short: "K_PIPE_MMAS", sliderMax: 8 },
    intraWGOverlap: { short: "Intra-WG overlap" }, interWGPingpong: { short: "Inter-WG pingpong" },
    transposeV: { short: "Transpose_V" }, headDim: { short: "Head dim" }, dtype: { short: "dtype" },
    epiSubtiles: { short: "Epi subtiles", sliderMax: 16 }
  };

  /** The GEMM model's view description for a run (copy: "TMA" or "cp.async"). */
  function gemmView(knobs, refs) {
    var copy = refs && refs.copy ? refs.copy : "TMA";
    return {
      unit: "k-tile",
      copy: copy,
      kinds: {
        issue: { name: copy + " issue", doc: "producer_acquire + the " + copy + " copies of one k-tile (1 step)", chain: "k", rank: 0 },
        filling: { name: "FILLING", doc: copy + " in flight: the data lands L steps after the issue", chain: "k", rank: 1 },
        full: { name: "FULL", doc: "the stage holds its k-tile, from the landing to its release (consumer_release)", chain: "k", rank: 2 },
        wgmma: { name: "WGMMA", doc: "the k-tile's WGMMAs on the tensor core (in-order queue shared by the consumer WGs)", chain: "k", tile: true, rank: 4 },
        epilogue: { name: "EPILOGUE", doc: "the tile's epilogue (collective_epilogue.store)", tile: true, rank: 7 },
        wait: { name: "WAIT", doc: "the WG is blocked" }
      },
      legend: [
        { kind: "issue", fills: ["issue"], text: ["issue ", ["o.k"], " (producer " + copy + " issue)"] },
        { kind: "filling", fills: ["filling"], text: [["FILLING"], " (" + copy + " in flight)"] },
        { kind: "full", fills: ["full"], text: [["FULL"], " (landed until released)"] },
        { kind: "wgmma", fills: ["mma-a", "mma-b"], text: ["WGMMA ", ["o.k"], " (alternates by output tile)"] },
        { kind: "epilogue", fills: ["epilogue"], text: [["EPI o"], " (epilogue)"] },
        { kind: "wait", fills: ["wait"], text: [["WAIT reason"], " (hatched bubble)"] }
      ],
      note: ["", ["o.k"], " = output tile o, k-tile k; time in abstract steps"],
      waitReasons: [
        { reason: "order", doc: "math warpgroup order barrier before mma() (the other consumer WG has the tensor cores)" },
        { reason: "epilogue-order", doc: "epilogue order barrier (the other consumer WG stores first)" },
        { reason: "tma", doc: "the stage's full barrier: its " + copy + " data has not landed" },
        { reason: "tensor-core", doc: "the WGMMA is issued but queued behind another one on the tensor core" }
      ],
      verdict: [
        { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
        { label: "Min stages to hide " + copy, field: "minStagesToHideTma", format: "stages", knob: "stages" }
      ],
      subLaneGroups: []
    };
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

  // ---------------------------------------------------------------------------------------------
  // Model choice: a model only when the structure fits it (docs/fit.md).

  /** Op kinds that show a pipeline protocol (a file without any of them has nothing to schedule). */
  var PIPELINE_OPS = kindSet(["producer_acquire", "producer_commit", "consumer_wait", "consumer_try_wait",
    "consumer_release", "tma_load", "cp_async", "barrier_wait", "barrier_arrive", "order_wait", "order_arrive",
    "producer_acquire_bytes", "producer_arrive", "consumer_release_from_umma", "umma_arrive", "named_barrier_sync",
    "named_barrier_arrive"]);

  /**
   * True for an SM100 (Blackwell) structure: its arch, else a WarpCategory role named MMA or UMMA /
   * TMEM ops. An arch named below sm100 (sm90) is never Blackwell, whatever its ops; other warp
   * roles do not decide it (a CuTe DSL Hopper kernel has warp-index role branches too).
   */
  function isBlackwell(st) {
    var arch = typeof st.arch === "string" ? st.arch.toLowerCase() : "";
    if (/^sm_?1[01]\d/.test(arch)) return true;
    if (/^sm_?\d{2}$/.test(arch) || /^sm_?12\d/.test(arch)) return false;
    // CUTLASS SM100's `enum class WarpCategory` has a single MMA warp; SM90 kernels have none.
    if (isObject(st.kernel_layer) && Array.isArray(st.kernel_layer.warp_roles) &&
        st.kernel_layer.warp_roles.some(function (r) { return isObject(r) && /^mma$/i.test(String(r.name)); })) return true;
    return allOps(st).some(function (op) {
      return op.op === "umma_arrive" || op.op === "consumer_release_from_umma" || op.op === "tmem_load" ||
        (op.op === "mma" && (op.unit === "umma" || /tcgen05|\bumma/i.test(String(op.text || ""))));
    });
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

  // ---------------------------------------------------------------------------------------------
  // Fit: a model runs only when it executes every pipeline, role and MMA path the source has
  // (docs/fit.md). fitModel picks the candidate model by architecture and shape, then asks the
  // candidate's coverage rule (MODELS[name].covers) whether anything in the source is left out.

  /** Op kinds that act on a pipeline's barriers: a use of the pipeline they name. */
  var PIPE_USE_OPS = kindSet(["producer_acquire", "producer_try_acquire", "producer_commit", "producer_commit_local",
    "producer_get_barrier", "producer_tail", "producer_acquire_bytes", "producer_arrive", "umma_arrive", "tma_load",
    "cp_async", "consumer_wait", "consumer_try_wait", "consumer_release", "consumer_release_from_umma"]);

  /** Pipeline uses on the producer side of a pipeline (filling or committing a stage). */
  var PRODUCER_USE_OPS = kindSet(["producer_acquire", "producer_try_acquire", "producer_commit", "producer_commit_local",
    "producer_get_barrier", "producer_acquire_bytes", "producer_arrive", "umma_arrive"]);

  /** Pipeline uses on the consumer side (waiting for a stage, releasing it). */
  var CONSUMER_WAIT_OPS = kindSet(["consumer_wait", "consumer_try_wait"]);

  /** Pipeline classes of a CLC scheduler's response ring (CUTLASS sm100_pipeline.hpp, the CuTe DSL). */
  var RE_CLC_CLASS = /Clc|CLC/;
  /** Kernel-layer pipelines the Blackwell model runs besides the mainloop and accumulator: by name. */
  var RE_BW_KERNEL_PIPE = /clc|throttle|load_order|store/i;

  /** Warp roles of a C++ SM100 kernel layer's WarpCategory that the Blackwell model runs. */
  var BW_ROLE_NAMES = kindSet(["MMA", "Sched", "MainloopLoad", "EpilogueLoad", "Epilogue", "Unused", "Spare"]);

  /** The class of a declared pipeline alias as text ("PipelineTmaUmmaAsync", or "A | B"), or "". */
  function classText(cls) {
    if (typeof cls === "string") return cls;
    return Array.isArray(cls) ? cls.filter(function (c) { return typeof c === "string"; }).join(" | ") : "";
  }

  /**
   * The pipeline an op acts on, by what the code binds (docs/fit.md "Pipeline identity"). C++: a
   * function's parameter or tuple element (load()'s mainloop_ab_pipeline, mma()'s
   * `auto [mainloop_pipeline, ...] = pipelines`) is its type alias, the same in every function
   * whatever each calls it; an instance (a local or member object) is its alias too unless the
   * structure has several instances of that alias (77's pipeline_s0 / pipeline_s1), then the object.
   * CuTe DSL: every created object is its own pipeline. null for ops on no pipeline.
   */
  function pipeIdentity(op, objects, dsl) {
    var name = typeof op.object === "string" && op.object !== "" ? op.object : null;
    var alias = typeof op.pipeline === "string" && op.pipeline !== "" ? op.pipeline : null;
    if (dsl) return name !== null ? name : alias;
    var o = name !== null && Object.prototype.hasOwnProperty.call(objects.byName, name) ? objects.byName[name] : null;
    if (o !== null) return (o.kind === "local" || o.kind === "member") && objects.instances[o.alias] > 1 ? name : o.alias;
    return alias !== null ? alias : name;
  }

  /** A structure's pipeline objects for pipeIdentity: {byName: name -> object, instances: alias -> count of locals / members}. */
  function pipeObjects(st) {
    var objects = { byName: {}, instances: {} };
    (Array.isArray(st.pipeline_objects) ? st.pipeline_objects : []).filter(isObject).forEach(function (o) {
      if (typeof o.name !== "string" || typeof o.alias !== "string") return;
      objects.byName[o.name] = o;
      if (o.kind === "local" || o.kind === "member") objects.instances[o.alias] = (objects.instances[o.alias] || 0) + 1;
    });
    return objects;
  }

  /** The tiled MMA an mma op issues on, without call suffixes: tiled_mma.with(...) -> tiled_mma, gemm_Si[0] -> gemm_Si. */
  function mmaPath(op) {
    var r = typeof op.receiver === "string" ? op.receiver.trim() : "";
    var m = /^[A-Za-z_][\w:]*/.exec(r);
    return m ? m[0] : "mma";
  }

  /** "name() at line N" of a function, for reasons. */
  function fnAt(fn) {
    return (fn.name || "?") + "()" + (typeof fn.line === "number" ? " at line " + fn.line : "");
  }

  /** " (line N)" of an op or declaration, or "". */
  function atLine(x) {
    return x && typeof x.line === "number" ? " (line " + x.line + ")" : "";
  }

  /**
   * What a structure has, for the coverage rules: functions with ops (the collective's, then the
   * kernel layer's), the pipelines their ops use (by pipeIdentity, in first-use order, each with
   * its class, declaration line and uses {fn, op}), the functions that issue MMAs and the
   * distinct tiled MMAs (paths) they issue on.
   */
  function fitInventory(st) {
    var objects = pipeObjects(st), decl = {}, dsl = st.language === "cute-dsl";
    (Array.isArray(st.pipelines) ? st.pipelines : []).filter(isObject).forEach(function (p) {
      if (typeof p.alias === "string" && !decl[p.alias]) decl[p.alias] = p;
    });
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var fns = (Array.isArray(st.functions) ? st.functions : []).filter(isObject)
      .concat(kl && Array.isArray(kl.functions) ? kl.functions.filter(isObject) : [])
      .filter(function (fn) { return opsOf(fn).length > 0; });
    var pipes = {}, order = [], mmaFns = [], paths = [];
    fns.forEach(function (fn) {
      var issues = false;
      opsOf(fn).forEach(function (op) {
        if (op.op === "mma") {
          issues = true;
          if (paths.indexOf(mmaPath(op)) < 0) paths.push(mmaPath(op));
        }
        if (PIPE_USE_OPS[op.op] !== true) return;
        var id = pipeIdentity(op, objects, dsl);
        if (id === null) return;
        if (!pipes[id]) {
          var d = decl[id] || null;
          pipes[id] = { id: id, cls: d ? classText(d["class"]) : "", line: d ? lineOrNull(d.line) : null, uses: [] };
          order.push(id);
        }
        pipes[id].uses.push({ fn: fn, op: op });
      });
      if (issues) mmaFns.push(fn);
    });
    return { objects: objects, pipes: pipes, order: order, fns: fns, mmaFns: mmaFns, paths: paths, kl: kl };
  }

  /** Uses of pipeline id in fn whose op kind is in kinds (all kinds when kinds is null). */
  function usesIn(inv, id, fn, kinds) {
    return inv.pipes[id].uses.filter(function (u) { return (fn === null || u.fn === fn) && (kinds === null || kinds[u.op.op] === true); });
  }

  /** "X (PipelineTmaUmmaAsync, line 201)" of a pipeline, for reasons. */
  function pipeText(p) {
    var bits = [p.cls, p.line !== null ? "line " + p.line : ""].filter(function (b) { return b; });
    return p.id + (bits.length ? " (" + bits.join(", ") + ")" : "");
  }

  /** A first use of pipeline p as "f() line N", for reasons. */
  function firstUse(p) {
    var u = p.uses[0];
    return u.fn.name + "()" + atLine(u.op);
  }

  /** True for a load of the C operand (the epilogue's source tile), not a mainloop operand. */
  function isCLoad(op) {
    return op.operand === "C" || /tma_load_c\b|load_c\b/i.test(typeof op.receiver === "string" ? op.receiver : "");
  }

  /**
   * Coverage of the Blackwell model (one load warp filling one mainloop ring, one MMA warp issuing
   * one tiled MMA into a TMEM accumulator ring, epilogue warps draining it; the kernel layer's CLC,
   * throttle, load-order and C-load pipelines): null when the source has nothing else, else the
   * reason. Rules in docs/fit.md "Blackwell".
   */
  function blackwellCovers(st, inv) {
    if (inv.paths.length > 1) {
      return "it issues MMAs on " + inv.paths.length + " tiled MMAs (" + inv.paths.join(", ") + "): chained GEMMs " +
        "(attention's S = Q K^T then O += P V, a backward pass, latent attention) are not modelled on SM100 yet; " +
        "the Blackwell model runs one GEMM";
    }
    if (inv.mmaFns.length > 1) {
      return "MMAs are issued from " + inv.mmaFns.length + " functions (" + inv.mmaFns.map(fnAt).join(", ") +
        "): the Blackwell model has one MMA warp";
    }
    var mmaFn = inv.mmaFns[0];
    var ownLoad = opsOf(mmaFn).filter(function (op) { return LOAD_OPS[op.op] === true; })[0];
    if (ownLoad) {
      return "the same function " + fnAt(mmaFn) + " loads" + atLine(ownLoad) + " and issues the MMAs: one warp does both " +
        "(not warp-specialized, or role branches inside one kernel the parser does not split yet); the Blackwell " +
        "model needs a load warp and an MMA warp";
    }
    var main = inv.order.filter(function (id) {
      return usesIn(inv, id, null, LOAD_OPS).some(function (u) { return !isCLoad(u.op); });
    });
    if (main.length === 0) return "no load into a pipeline stage was parsed (no TMA or cp.async copy on a pipeline): the mainloop ring is not in this file";
    if (main.length > 1) {
      return "its loads fill " + main.length + " pipelines (" + main.map(function (id) { return pipeText(inv.pipes[id]); }).join("; ") +
        "): the Blackwell model runs one mainloop ring (a scale-factor, transform or second operand ring is not modelled yet)";
    }
    var M = main[0];
    if (usesIn(inv, M, mmaFn, CONSUMER_WAIT_OPS).length === 0) {
      return "the MMA function " + fnAt(mmaFn) + " never waits on the mainloop pipeline " + pipeText(inv.pipes[M]);
    }
    var acc = inv.order.filter(function (id) { return id !== M && usesIn(inv, id, mmaFn, PRODUCER_USE_OPS).length > 0; });
    if (acc.length > 1) {
      return "the MMA function " + fnAt(mmaFn) + " fills " + acc.length + " pipelines (" + acc.join(", ") +
        "): the Blackwell model runs one accumulator ring";
    }
    for (var i = 0; i < inv.order.length; i++) {
      var id = inv.order[i], p = inv.pipes[id];
      if (id === M || id === acc[0]) continue;
      var kernelSide = RE_CLC_CLASS.test(p.cls) || RE_BW_KERNEL_PIPE.test(id) ||
        p.uses.every(function (u) { return LOAD_OPS[u.op.op] !== true || isCLoad(u.op); }) && /epi|load_pipeline|c_pipe/i.test(id);
      if (!kernelSide || usesIn(inv, id, mmaFn, null).length > 0) {
        return "pipeline " + pipeText(p) + ", used by " + firstUse(p) + ", is not one the Blackwell model runs " +
          "(it runs the mainloop ring " + M + (acc.length ? ", the accumulator " + acc[0] : "") +
          " and the kernel layer's CLC, throttle, load-order and C-load pipelines)";
      }
    }
    // C++ WarpCategory roles have fixed names; a CuTe DSL kernel's roles are its branches, covered by the function rules above.
    var roles = inv.kl && Array.isArray(inv.kl.warp_roles) ? inv.kl.warp_roles.filter(isObject) : [];
    var cpp = st.language === "cpp";
    for (var r = 0; cpp && r < roles.length; r++) {
      if (BW_ROLE_NAMES[roles[r].name] !== true) {
        return "warp role " + roles[r].name + atLine(roles[r]) + " of the kernel layer is not one the Blackwell model runs " +
          "(MMA, Sched, MainloopLoad, EpilogueLoad, Epilogue)";
      }
    }
    return null;
  }

  /**
   * The warp-specialized roles of an SM90 structure: the producer function that loads (TMA or
   * cp.async), the consumer function that issues MMAs; null with the reason when either is missing
   * or one function does both.
   */
  function sm90Roles(st, inv) {
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    if (!opsOf(producer).some(function (op) { return LOAD_OPS[op.op] === true; })) {
      return { reason: "no producer function loads into a pipeline stage (no TMA or cp.async copy found)" };
    }
    if (!opsOf(consumer).some(function (op) { return op.op === "mma"; })) {
      return { reason: "no consumer-role function issues an MMA (MMAs were parsed in " + inv.mmaFns.map(fnAt).join(", ") +
        ", which no consumer role calls as parsed)" };
    }
    if (producer === consumer) {
      return { reason: "the same function " + (producer.name || "?") + "() loads and computes (not warp-specialized): " +
        "the models need a producer role and consumer roles" };
    }
    return { producer: producer, consumer: consumer, reason: null };
  }

  /** Pipelines used by collective functions (not the kernel layer's), in first-use order. */
  function collectivePipes(st, inv) {
    var own = Array.isArray(st.functions) ? st.functions : [];
    return inv.order.filter(function (id) { return inv.pipes[id].uses.some(function (u) { return own.indexOf(u.fn) >= 0; }); });
  }

  /**
   * Coverage of the SM90 GEMM model (a producer filling one mainloop ring, consumer warpgroups
   * issuing one tiled MMA in CUTLASS's SS order: wait, MMAs, warpgroup_wait<K_PIPE_MMAS>,
   * release): null or the reason. Rules in docs/fit.md "GEMM".
   */
  function gemmCovers(st, inv) {
    var roles = sm90Roles(st, inv);
    if (roles.reason !== null) return roles.reason;
    if (inv.paths.length > 1) {
      return "it issues MMAs on " + inv.paths.length + " tiled MMAs (" + inv.paths.join(", ") + "): the GEMM model runs one";
    }
    var pipes = collectivePipes(st, inv);
    if (pipes.length > 1) {
      return "the collective uses " + pipes.length + " pipelines (" + pipes.map(function (id) { return pipeText(inv.pipes[id]); }).join("; ") +
        "): neither the one-pipeline GEMM mainloop nor the attention shape";
    }
    var cOps = opsOf(roles.consumer);
    if (!cOps.some(function (op) { return op.op === "consumer_wait"; })) return "the MMA consumer never waits on a pipeline stage";
    var lastMma = -Infinity;
    cOps.forEach(function (op) { if (op.op === "mma" && typeof op.line === "number" && op.line > lastMma) lastMma = op.line; });
    var releases = cOps.filter(function (op) { return op.op === "consumer_release" && typeof op.line === "number"; });
    if (releases.length > 0 && !releases.some(function (op) { return op.line > lastMma; })) {
      return roles.consumer.name + "() releases its stages" + atLine(releases[0]) + " before its last MMA (line " + lastMma + "), " +
        "inside the k-block loop (the register-sourced RS mainloop's order): the GEMM model runs the SS order " +
        "(wait, the k-tile's MMAs, warpgroup_wait<K_PIPE_MMAS>, release)";
    }
    return null;
  }

  /**
   * Coverage of the attention model (FA3 / 88's forward: K and V rings, or one shared K/V ring,
   * optionally Vt and Q): null, or the reason when the roles are missing or the producer or
   * consumer function uses another pipeline. Pipelines only other functions use (FA3's AppendKV
   * path, load_kv_new / store_kv_new) are separate compile-time paths: attentionNotModelled names them.
   */
  function attentionCovers(st, inv) {
    var roles = sm90Roles(st, inv);
    if (roles.reason !== null) return roles.reason;
    var known = attentionPipes(st);
    for (var i = 0; i < inv.order.length; i++) {
      var p = inv.pipes[inv.order[i]];
      if (known.indexOf(p.id) < 0 && p.uses.some(function (u) { return u.fn === roles.producer || u.fn === roles.consumer; })) {
        return "pipeline " + pipeText(p) + ", used by " + firstUse(p) + ", is not one the attention model runs (" + known.join(", ") + ")";
      }
    }
    return null;
  }

  /** The pipelines the attention model runs for a structure: K, V, Vt, Q and the shared K/V ring it has. */
  function attentionPipes(st) {
    var shape = attentionShape(st);
    return [shape.kPipe, shape.vPipe, shape.vtPipe, shape.qPipe, shape.kvPipe].filter(function (x) { return x !== null; });
  }

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

  /** The no-model fit: {model: null, reason, assumptions: [], notModelled: []}. */
  function noFit(reason) {
    return { model: null, reason: reason, assumptions: [], notModelled: [] };
  }

  /** Why a structure has no MMA at all: an epilogue collective, or MMAs the parser did not see. */
  function noMmaReason(st, ops) {
    if (ops.some(function (op) { return op.op === "tma_store" || op.op === "tma_store_arrive"; })) {
      return "an epilogue collective (TMA stores, no MMA): its schedule is part of a kernel's mainloop/epilogue interplay; no model draws it alone";
    }
    return "no MMA was parsed in this file (no cute::gemm / tcgen05 / wgmma call the parser recognises; MMAs issued from " +
      "helper functions in other files are not followed): every model needs the MMA consumer's ops";
  }

  /**
   * Which model fits a structure: {model: name | null, reason, assumptions: [text], notModelled:
   * [text]}. Candidate by architecture and shape (SM120 none, SM100 blackwell, the attention shape
   * attention, else gemm), then the candidate's coverage rule; anything it leaves out gives the
   * no-model fit with the reason (docs/fit.md).
   */
  function fitModel(structure) {
    if (!isObject(structure)) {
      return { model: "gemm", reason: "no parsed structure: the CUTLASS 4.2 SM90 GEMM program is assumed",
        assumptions: ["no parsed structure: the CUTLASS 4.2 SM90 GEMM mainloop and kernel layers are assumed"], notModelled: [] };
    }
    var st = structure;
    var ops = allOps(st);
    if (st.kind === "kernel_layer") {
      return noFit("only a kernel layer was parsed (no collective's pipeline ops): parse it together with its collective mainloop");
    }
    if (st.kind === "epilogue") return noFit(noMmaReason(st, [{ op: "tma_store" }]));
    if (/^sm_?12\d/.test(typeof st.arch === "string" ? st.arch.toLowerCase() : "")) {
      return noFit("an " + st.arch + " structure (GeForce Blackwell: TMA loads with warp-level MMAs, no TMEM or UMMA): no model " +
        "describes it yet; the SM90 and SM100 models would draw tensor-core work it does not do");
    }
    if (!ops.some(function (op) { return PIPELINE_OPS[op.op] === true; })) {
      return noFit("no pipeline operation (acquire, commit, wait, release, TMA or cp.async load) was found in this file");
    }
    if (!ops.some(function (op) { return op.op === "mma"; })) return noFit(noMmaReason(st, ops));
    var inv = fitInventory(st);
    var name = isBlackwell(st) ? "blackwell" : attentionShape(st).attention ? "attention" : "gemm";
    var model = MODELS[name];
    var reason = model.covers(st, inv);
    if (reason !== null) return noFit(reason);
    return { model: name, reason: model.fitReason, assumptions: model.assumptions(st), notModelled: model.notModelled(st, inv) };
  }

  /** What the GEMM model assumes of a structure that fits it (fitModel's assumptions). */
  function gemmAssumptions(st) {
    var out = [];
    if (!isObject(st.kernel_layer)) {
      out.push("no kernel layer was parsed: the tile loop, the number of consumer WGs and the schedule (pingpong or cooperative) are the knobs' (as in CUTLASS 4.2's sm90_gemm_tma_warpspecialized_pingpong/_cooperative.hpp)");
    }
    if (copyKind(st) === "cp.async") {
      out.push("the loads are cp.async (PipelineAsync), not TMA: the copy latency knob stands for cp.async");
    }
    return out;
  }

  /** What each model leaves out of a kernel it fits: shown on the page, fit.notModelled. */
  var GEMM_NOT_MODELLED = [
    "the epilogue (its C loads, smem and D stores, and the kernel layer's epilogue pipelines) is one latency E per output tile",
    "every output tile has the same k-tile count, and the tile scheduler's own work takes no time"
  ];
  var ATTENTION_NOT_MODELLED = [
    "the epilogue (O from registers to smem, its TMA store) is one latency E per output tile",
    "the Q load is one copy per tile before the first KV block; masking and the causal tile count are not read",
    "every output tile has the same KV block count, and the tile scheduler's own work takes no time"
  ];

  // ---------------------------------------------------------------------------------------------
  // Model registry

  /** Registered models: knob tables, block estimate and simulate. Add a model here. */
  /** Source refs of the GEMM model: sourceRefs plus the role program read from the structure. */
  function gemmRefs(structure) {
    var refs = sourceRefs(structure);
    refs.program = gemmProgram(structure);
    refs.copy = copyKind(structure);
    return refs;
  }

  /** Say where K_PIPE_MMAS came from when the knob was not set and the structure did not give it. */
  function adjustGemmKnobs(knobs, refs, messages, raw) {
    var given = isObject(raw) && raw.kPipeMmas !== undefined && raw.kPipeMmas !== null;
    if (!given && refs.program.kPipe === null && !refs.program.assumed) {
      messages.push("kPipeMmas: K_PIPE_MMAS is not in the parsed structure; using CUTLASS 4.2's value 1 " +
        "(sm90_mma_tma_gmma_ss_warpspecialized.hpp:264)");
    }
    if (!refs.program.loopRelease) messages.push("no consumer_release after the last mma of " +
      (refs.consumer ? refs.consumer.name : "the consumer") + "(): the mainloop releases no stage (only the tail does)");
    if (!refs.program.acquire) messages.push("no producer_acquire in the producer: loads do not wait for a free stage");
    if (refs.program.tailAssumed) messages.push("no release after the mainloop (mma_tail) was found: the last kPipeMmas " +
      "k-tiles of each tile are assumed released after the loop's warpgroup_wait<0>");
  }

  // ---------------------------------------------------------------------------------------------
  // The program model: the code's own role programs (schema 3), run by sim/interpret.js
  // (docs/programs.md). Not chosen by fitModel yet: asked for with knobs.model = "program".

  /** The engine's primitives sim/interpret.js builds a run from (also exported as `engine`). */
  var ENGINE_PRIMITIVES = { Engine: Engine, Ring: Ring, OrderBarrier: OrderBarrier, PipeState: PipeState };

  /** sim/interpret.js: the page's global, or require()d next to this file. */
  function interpretModule() {
    if (typeof KernelInterpret !== "undefined") return KernelInterpret;
    if (typeof require === "function" && typeof module !== "undefined") return require("./sim/interpret.js");
    return null;
  }

  /** The program model's numeric knobs: the GEMM model's, less what the code decides (WGs, schedule). */
  var PROGRAM_KNOB_RANGES = {};
  ["stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "kPipeMmas"].forEach(function (k) {
    PROGRAM_KNOB_RANGES[k] = GEMM_KNOB_RANGES[k];
  });
  var PROGRAM_DEFAULT_KNOBS = { model: "program" };
  Object.keys(PROGRAM_KNOB_RANGES).forEach(function (k) { PROGRAM_DEFAULT_KNOBS[k] = GEMM_DEFAULT_KNOBS[k]; });

  function normalizeProgramKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "program" };
    var src = sourceKnobs || {};
    for (var name in PROGRAM_KNOB_RANGES) {
      var r = PROGRAM_KNOB_RANGES[name];
      var fallback = Math.min(r.max, Math.max(r.min, src[name] ? src[name].value : PROGRAM_DEFAULT_KNOBS[name]));
      knobs[name] = normalizeNumber(name, raw[name], r, fallback, messages);
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /**
   * The models a page offers for a structure: every model, except one that runs beside the fit
   * (`alongside`: the program model) where it does not cover the structure; with alongsideOnly,
   * only those (what a page offers for a kernel no hand-written model fits).
   */
  function offeredModels(structure, alongsideOnly) {
    return Object.keys(MODELS).filter(function (name) {
      var m = MODELS[name];
      return m.alongside ? m.covers(structure) === null : !alongsideOnly;
    });
  }

  /** Why the program model cannot run a structure, or null (it needs the kernel layer's program). */
  function programCovers(st) {
    var I = interpretModule();
    if (I === null) return "sim/interpret.js is not loaded";
    if (!isObject(st) || !isObject(st.programs) || !Array.isArray(st.programs.functions)) {
      return "the structure has no role programs (schema 3: parse it again)";
    }
    if (!isObject(st.kernel_layer) || !isObject(st.kernel_layer.program)) {
      return "no kernel layer's program was parsed: the roles are not known (parse the collective with --kernel-layer)";
    }
    var vars = st.kernel_layer.role_vars;
    if (!Array.isArray(vars) || !vars.length) {
      return "the kernel layer's role branches test no role variable the interpreter reads (an enum of warpgroup or warp roles)";
    }
    if (vars.some(function (v) { return !isObject(v) || typeof v["enum"] !== "string"; })) {
      return "the role variables are warp indices (a CuTe DSL kernel): the interpreter reads enum roles only so far";
    }
    return null;
  }

  function estimateProgramBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    // per k-tile: issue, filling, full and, per consumer role (two at most in the SM90 kernels), a
    // wait and an MMA; per tile and role an epilogue and two order waits (an upper bound).
    return n * 3 + 2 * (2 * n + 3 * knobs.outputTiles) + 64;
  }

  function simulateProgram(knobs, refs, structure) {
    var I = interpretModule();
    var estimate = estimateProgramBlocks(knobs);
    var run = I.run(structure, knobs, ENGINE_PRIMITIVES, { events: recordEvents(estimate), capacity: estimate });
    if (run.error) {
      var empty = new Timeline([], false, 0).finalize();
      return { total: 0, lanes: [], columns: empty, deadlock: null, barriers: [], barrierEvents: [],
        verdict: { total: 0, waits: {}, tensorCoreUtilization: 0, tensorCoreBusySteps: 0, hazards: [], stopped: [],
          summary: "the program could not run: " + run.error }, notes: {} };
    }
    var verdict = {
      total: run.total, waits: run.waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0, tensorCoreBusySteps: run.busy,
      hazards: run.hazards, stopped: run.stopped, roles: run.roles.map(function (r) { return r.name; }),
      flags: run.flags, summary: "",
      hazardText: run.hazards.length ? run.hazards.length + (run.hazards.length >= 20 ? "+" : "") + " (first: " + run.hazards[0].message + ")" : "none",
      stoppedText: run.stopped.length ? run.stopped.map(function (x) { return x.role + " at line " + x.line + ": " + x.reason; }).join("; ") : "none",
      flagsText: Object.keys(run.flags).length ? Object.keys(run.flags).sort().map(function (f) { return f + " " + (run.flags[f] ? "on" : "off"); }).join(", ") : "none"
    };
    verdict.summary = programSummary(run, verdict);
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict, notes: {},
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted === true };
  }

  /** The program verdict's one line: a deadlock, roles that stopped, hazards, else the figures. */
  function programSummary(run, v) {
    if (run.deadlock !== null) return run.deadlock.message;
    var parts = [];
    if (run.stopped.length) {
      parts.push("not modelled: " + run.stopped.map(function (s) { return s.role + " stopped at line " + s.line + " (" + s.reason + ")"; }).join("; "));
    }
    if (run.hazards.length) parts.push(run.hazards.length + (run.hazards.length >= 20 ? "+" : "") + " hazard(s): " + run.hazards[0].message);
    parts.push("total " + run.total + " steps; tensor core busy " + Math.round(100 * v.tensorCoreUtilization) + "%");
    return parts.join("; ");
  }

  /**
   * The program model's view: the kinds, legend and wait reasons of the blocks its op classes
   * draw (the SM90 GEMM model's for WGMMA programs, the Blackwell model's for UMMA programs, less
   * the kinds only the hand-written Blackwell program draws: CLC, ACC, DRAIN).
   */
  function programView(knobs, refs) {
    var umma = refs && refs.units && refs.units.umma && !refs.units.wgmma;
    var view = umma ? blackwellView() : gemmView(knobs, refs);
    if (umma) {
      ["clc", "acc", "drain"].forEach(function (k) { delete view.kinds[k]; });
      view.legend = view.legend.filter(function (item) { return view.kinds[item.kind]; });
      view.waitReasons = view.waitReasons.filter(function (w) { return ["tma", "acc", "mma"].indexOf(w.reason) >= 0; });
    }
    view.verdict = [
      { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
      { label: "Hazards (a stage refilled while its MMA reads it)", format: "template", template: "{hazardText}" },
      { label: "Roles not modelled past a step", format: "template", template: "{stoppedText}" },
      { label: "Compile-time flags", format: "template", template: "{flagsText}" }
    ];
    view.note = ["", ["o.k"], " = output tile o, k-tile k; the lanes are the roles of the kernel layer's own program; time in abstract steps"];
    return view;
  }

  /** The run-time choices the interpreter makes (sim/interpret.js RUNTIME_CHOICES, SCHEDULER_STATIC). */
  var PROGRAM_ASSUMPTIONS = [
    "cute::elect_one_sync() is taken: the elected thread's program is the role's",
    "the static persistent tile scheduler: each role's tiles follow advance_to_next_work / fetch_next_work; output tiles (O) is where is_valid() ends",
    "a runtime branch the program cannot evaluate is skipped when it holds no step, else the role stops there (named in the verdict)"
  ];
  var PROGRAM_NOT_MODELLED = [
    "the epilogue collective's own program: collective_epilogue.store is one epilogue block of E steps; its C load (is_producer_load_needed) is taken as not needed",
    "the dynamic persistent scheduler and other compile-time flags the source leaves to its instantiation: off unless knobs.flags says on (listed in the verdict's flags)",
    "pipelines of files not parsed here (the epilogue's, the tile scheduler's): their states and ops are not followed",
    "a lambda's own loops and branches (its ops run at its call site in order)"
  ];

  var MODELS = {
    gemm: {
      defaults: GEMM_DEFAULT_KNOBS,
      ranges: GEMM_KNOB_RANGES,
      choices: GEMM_KNOB_CHOICES,
      normalize: normalizeGemmKnobs,
      sourceKnobs: gemmSourceKnobs,
      adjust: adjustGemmKnobs,
      estimateBlocks: estimateGemmBlocks,
      lanes: gemmLanes,
      simulate: simulateGemm,
      refs: gemmRefs,
      view: gemmView,
      flags: {},
      waitReasons: WAIT_REASON_PRIORITY,
      blockKinds: BLOCK_KINDS,
      // Model-specific verdict fields of a result with no blocks (block cap).
      emptyVerdict: { minStagesToHideTma: null },
      // Knobs that multiply the block count, named in the block-cap error.
      sizeKnobs: "outputTiles (O) or kTiles (K)",
      covers: gemmCovers,
      adaptSpecs: gemmSpecs,
      fitReason: "one pipeline: a loading producer and a waiting MMA consumer",
      assumptions: gemmAssumptions,
      notModelled: function () { return GEMM_NOT_MODELLED.slice(); }
    },
    attention: {
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
    }
  };

  /**
   * Ordered knob specs of a model, for building controls from data: each is {name, type, label,
   * doc, default} plus min/max (type "range"), choices (type "choice") or nothing more (type
   * "flag", a boolean). Ranges come first in display order, then choices, then flags. [] for an
   * unknown model. With a structure, a knob whose value the source fixes (K_PIPE_MMAS, FA3's
   * compile-time flags) has that value as its default and `source: {value, line}`.
   */
  /** Add the widget facts (short label, slider end) of KNOB_WIDGETS to a knob spec. */
  function widget(spec) {
    var w = KNOB_WIDGETS[spec.name] || {};
    spec.short = w.short || spec.label;
    if (spec.type === "range") spec.sliderMax = Math.min(spec.max, w.sliderMax || spec.max);
    return spec;
  }

  /** A knob spec's source: {value, line} plus path when the fact is from another file (the kernel layer). */
  function sourceOf(fact) {
    var out = { value: fact.value, line: fact.line };
    if (typeof fact.path === "string") out.path = fact.path;
    return out;
  }

  function knobsFor(name, structure) {
    if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(MODELS, name)) return [];
    var model = MODELS[name];
    var src = structure === undefined ? {} : model.sourceKnobs(structure);
    var specs = [];
    Object.keys(model.ranges).forEach(function (key) {
      var r = model.ranges[key];
      var spec = { name: key, type: "range", label: r.label, doc: r.doc, min: r.min, max: r.max, "default": model.defaults[key] };
      widget(spec);
      if (src[key]) {
        spec["default"] = Math.min(r.max, Math.max(r.min, src[key].value));
        spec.source = sourceOf(src[key]);
      }
      specs.push(spec);
    });
    Object.keys(model.choices).forEach(function (key) {
      var spec = widget({ name: key, type: "choice", label: key, doc: "", choices: model.choices[key].slice(), "default": model.defaults[key] });
      if (src[key]) { spec["default"] = src[key].value; spec.source = sourceOf(src[key]); }
      specs.push(spec);
    });
    Object.keys(model.flags).forEach(function (key) {
      var f = model.flags[key];
      var spec = widget({ name: key, type: "flag", label: f.label, doc: f.doc, "default": model.defaults[key] });
      if (src[key]) { spec["default"] = !!src[key].value; spec.source = sourceOf(src[key]); }
      specs.push(spec);
    });
    return model.adaptSpecs ? model.adaptSpecs(specs, structure, src) : specs;
  }

  /** The GEMM model's knob specs for a structure: a cp.async mainloop's copy latency says cp.async, not TMA. */
  function gemmSpecs(specs, structure) {
    if (structure === undefined || copyKind(structure) !== "cp.async") return specs;
    specs.forEach(function (spec) {
      if (spec.name !== "tmaLatency") return;
      spec.label = "cp.async latency (L)";
      spec.short = "cp.async fill";
      spec.doc = "steps from the cp.async copies' issue to the stage full (producer_commit's arrive)";
    });
    return specs;
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

  // =============================================================================================
  // Blackwell model (model: "blackwell"): the SM100 tcgen05/UMMA warp-specialized GEMM of CUTLASS
  // 4.2 (gemm/kernel/sm100_gemm_tma_warpspecialized.hpp, gemm/collective/sm100_mma_warpspecialized.hpp,
  // pipeline/sm100_pipeline.hpp, epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp) as role
  // programs on the engine: docs/models/blackwell.md states each rule with its source lines.
  // This section is self-contained; it registers itself in MODELS at its end.

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

  /** CLC response and throttle stages: the builder's SchedulerPipelineStageCount (sm100_umma_builder.inl:272). */
  var BW_CLC_STAGES = 2;

  /** C stages of the epilogue load pipeline (StagesC; not parsed: the epilogue builder picks it per tile). */
  var BW_C_STAGES = 2;

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

  /** Lines of refs (nulls dropped), for barrier descriptions. */
  function bwLines(refs) {
    return refs.map(function (r) { return r.line; }).filter(function (l) { return l !== null; });
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

  /** Warp numbers of a parsed WarpCategory role as text ("warp 0", "warps 4+"), or "". */
  function bwWarps(roles, name) {
    for (var i = 0; i < roles.length; i++) {
      if (roles[i].name !== name) continue;
      var w = roles[i].warps;
      if (Array.isArray(w)) return w.length === 1 ? "warp " + w[0] : "warps " + w.join(", ");
      if (typeof w === "string") return "warps " + w;
    }
    return "";
  }

  /** Lanes of the Blackwell model in display order (docs/models/blackwell.md, lanes). */
  function blackwellLanes(knobs, refs) {
    var sh = refs && refs.shape ? refs.shape : { clc: true, roles: [] };
    var roles = sh.roles || [];
    var lanes = [];
    function tag(name, fallback) {
      var w = bwWarps(roles, name);
      return w ? " (" + fallback + ", " + w + ")" : " (" + fallback + ")";
    }
    function cta(prefix, c) {
      var p = c === 0 ? "" : "peer ";
      lanes.push({ id: prefix + "producer", label: p + "producer" + tag("MainloopLoad", "TMA load warp"), group: "producer", cta: c });
      for (var s = 0; s < knobs.stages; s++) lanes.push({ id: prefix + "stage" + s, label: p + "stage " + s, group: "stage", cta: c });
      if (c === 0) lanes.push({ id: "mma", label: "MMA" + tag("MMA", "issues UMMAs; tensor core"), group: "mma", cta: 0 });
      for (var a = 0; a < knobs.accStages; a++) lanes.push({ id: prefix + "acc" + a, label: p + "TMEM acc " + a, group: "acc", cta: c });
      lanes.push({ id: prefix + "epilogue", label: p + "epilogue" + tag("Epilogue", "epilogue warps"), group: "epilogue", cta: c });
      if (knobs.loadC) {
        lanes.push({ id: prefix + "epi_load", label: p + "epi_load" + tag("EpilogueLoad", "C load warp"), group: "epi_load", cta: c });
        for (var sc = 0; sc < BW_C_STAGES; sc++) lanes.push({ id: prefix + "c_stage" + sc, label: p + "C stage " + sc, group: "stage", cta: c });
      }
    }
    if (sh.clc) lanes.push({ id: "sched", label: "sched" + tag("Sched", "CLC warp"), group: "sched", cta: 0 });
    cta("", 0);
    if (knobs.ctaPair) cta("peer_", 1);
    return lanes;
  }

  /** Upper bound on the Blackwell block count (docs/models/blackwell.md, block cap). */
  function estimateBlackwellBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    var ctas = knobs.ctaPair ? 2 : 1;
    // per k-tile: issue, filling, full, UMMA and a wait before it; the peer's issue, filling, full.
    // per tile: MMA waits (clc, acc); per CTA acc/full/drain + tmem_load, store and 3 waits;
    // sched: clc + 3 waits; per CTA with C: issue, filling, full and 2 waits.
    // Each further epilogue subtile: a TMEM load, a store, a drain and 2 waits per CTA, and with C
    // an issue, filling, full and 2 waits more.
    var sub = knobs.epiSubtiles - 1;
    return n * (5 + 3 * (ctas - 1)) + knobs.outputTiles * (2 + 8 * ctas + 4 + (knobs.loadC ? 5 * ctas : 0) +
      sub * ctas * (5 + (knobs.loadC ? 5 : 0)));
  }

  /** Barrier line lists {wait, arrive} from two ref lists. */
  function bwBarLines(wait, arrive) {
    return { wait: bwLines(wait), arrive: bwLines(arrive) };
  }

  /** First line of a ref list, or null. */
  function bwLine(refs) {
    return refs.length > 0 ? refs[0].line : null;
  }

  /**
   * Run the Blackwell model's role programs on the engine. With build false nothing is drawn
   * (the comparison run of the verdict). Returns the raw run.
   */
  function runBlackwell(knobs, refs, build) {
    var S = knobs.stages, A = knobs.accStages, O = knobs.outputTiles, K = knobs.kTiles;
    var L = knobs.tmaLatency, U = knobs.ummaLatency, T = knobs.tmemLoadLatency, ST = knobs.storeLatency;
    var CL = knobs.clcLatency, pair = knobs.ctaPair, loadC = knobs.loadC, clc = refs.shape.clc;
    var CS = BW_CLC_STAGES, SC = BW_C_STAGES, ES = knobs.epiSubtiles;
    var ctas = pair ? 2 : 1;
    var lanes = blackwellLanes(knobs, refs);
    var li = {};
    lanes.forEach(function (lane, i) { li[lane.id] = i; });
    var estimate = estimateBlackwellBlocks(knobs);
    var eng = new Engine(lanes, { build: build, events: build && recordEvents(estimate), capacity: build ? estimate : 0 });
    var prefix = ["", "peer_"];
    var name = ["", "peer "];

    // Mainloop PipelineTmaUmmaAsync per CTA. In 2-SM mode both CTAs' TMAs complete the leader's
    // full barrier (expected 2 here) and the leader's commit is multicast to both empty barriers.
    var mainLines = { full: bwBarLines(refs.tmaWait, refs.filling), empty: bwBarLines(refs.acquire, refs.release) };
    var rings = [];
    for (var c0 = 0; c0 < ctas; c0++) {
      rings.push(new Ring(eng, name[c0] + "MainloopPipeline", S, li[prefix[c0] + "stage0"], c0 === 0 ? ctas : 1, 1, mainLines, refs.full));
    }
    // Accumulator PipelineUmmaAsync: full per CTA (umma_arrive, multicast in 2-SM mode), empty on
    // the leader only, expected one arrival per CTA's epilogue (consumer_arv_count, K 529).
    var accFull = [], accEmpty = [];
    for (var c1 = 0; c1 < ctas; c1++) {
      var row = [];
      for (var a0 = 0; a0 < A; a0++) {
        row.push(eng.barrier(name[c1] + "AccumulatorPipeline.full[" + a0 + "]", "acc_full", a0, 1, bwBarLines(refs.epiAccWait, refs.accCommit)));
      }
      accFull.push(row);
    }
    for (var a1 = 0; a1 < A; a1++) {
      accEmpty.push(eng.barrier("AccumulatorPipeline.empty[" + a1 + "]", "acc_empty", a1, ctas, bwBarLines(refs.accWait, refs.accRelease)));
    }
    // CLC response pipeline (PipelineCLCFetchAsync) and its throttle (PipelineAsync).
    var clcFull = [], clcEmpty = [], thrFull = [], thrEmpty = [];
    var consumers = 1 + ctas + 1 + ctas + (loadC ? ctas : 0); // sched, load warps, MMA, epilogues, C loads
    if (clc) {
      var fetchLines = bwLines(refs.fetchProducer.concat(refs.fetchSched, refs.fetchMma, refs.fetchEpiLoad, refs.fetchEpilogue));
      for (var i0 = 0; i0 < CS; i0++) {
        clcFull.push(eng.barrier("CLCPipeline.full[" + i0 + "]", "clc_full", i0, 1, { wait: fetchLines, arrive: bwLines(refs.clcQuery) }));
        clcEmpty.push(eng.barrier("CLCPipeline.empty[" + i0 + "]", "clc_empty", i0, consumers, { wait: bwLines(refs.clcQuery), arrive: fetchLines }));
        thrFull.push(eng.barrier("CLCThrottlePipeline.full[" + i0 + "]", "throttle_full", i0, 1, bwBarLines(refs.throttleWait, refs.throttle)));
        thrEmpty.push(eng.barrier("CLCThrottlePipeline.empty[" + i0 + "]", "throttle_empty", i0, 1, bwBarLines(refs.throttle, refs.throttleWait)));
      }
    }
    // Epilogue C loads: PipelineTransactionAsync<StagesC> per CTA and the LoadOrderBarrier.
    var cRings = [], orders = [];
    if (loadC) {
      for (var c2 = 0; c2 < ctas; c2++) {
        cRings.push(new Ring(eng, name[c2] + "EpiLoadPipeline", SC, li[prefix[c2] + "c_stage0"], 1, 1,
          { full: bwBarLines(refs.cWait, refs.epiLoad), empty: { wait: [], arrive: bwLines(refs.cWait) } }, refs.cWait));
        orders.push(new OrderBarrier(eng, name[c2] + "load_order_barrier", 1, 2, bwBarLines(refs.orderWait, refs.orderArrive)));
      }
    }
    var tc = eng.queue("tensor core");
    // Tensor-core busy runs (merged job intervals) and per-tile epilogue intervals, for the verdict.
    var busyS = [], busyE = [];
    var epiStart = [], epiEnd = [];
    for (var c3 = 0; c3 < ctas; c3++) { epiStart.push(new Float64Array(O)); epiEnd.push(new Float64Array(O)); }
    var fetchRefs = { producer: refs.fetchProducer, sched: refs.fetchSched, mma: refs.fetchMma, epi_load: refs.fetchEpiLoad, epilogue: refs.fetchEpilogue };

    /** fetch_next_work: consumer_wait on the CLC response of tile o, consumer_release at once. */
    function* fetchNextWork(o, who) {
      if (!clc) return;
      var st = o % CS;
      yield eng.wait(clcFull[st], ((o / CS) | 0) & 1, "clc", fetchRefs[who], o, null, null, bwLine(fetchRefs[who]));
      yield eng.arriveCmd(clcEmpty[st]);
    }

    if (clc) {
      // Sched warp (first CTA of the cluster): throttle wait/release, producer_acquire of the
      // response stage, try_cancel (the response lands clcLatency later), then its own fetch.
      eng.role("sched", li.sched, function* () {
        for (var o = 0; o < O; o++) {
          var st = o % CS, ph = ((o / CS) | 0) & 1;
          yield eng.wait(thrFull[st], ph, "throttle", refs.throttleWait, o, null, null, bwLine(refs.throttleWait));
          yield eng.arriveCmd(thrEmpty[st]);
          yield eng.wait(clcEmpty[st], ph ^ 1, "clc", refs.clcQuery, o, null, null, bwLine(refs.clcQuery));
          yield eng.work(CL, "clc", refs.clc, o, null, st);
          yield eng.arriveCmd(clcFull[st]);
          yield* fetchNextWork(o, "sched");
        }
      });
    }

    /** Mainloop load warp of CTA c: throttle (first CTA), acquire + TMA per k-tile, load-order arrive, fetch. */
    function producer(c) {
      return function* () {
        var ring = rings[c], first = li[prefix[c] + "stage0"];
        var acqLine = bwLine(refs.acquire);
        for (var o = 0; o < O; o++) {
          if (clc && c === 0) {
            var st = o % CS;
            yield eng.wait(thrEmpty[st], (((o / CS) | 0) & 1) ^ 1, null, EMPTY, o, null, null, bwLine(refs.throttle));
            yield eng.arriveCmd(thrFull[st]);
          }
          for (var k = 0; k < K; k++) {
            var g = o * K + k, s = g % S;
            yield eng.wait(ring.empty[s], (((g / S) | 0) & 1) ^ 1, null, EMPTY, o, k, s, acqLine);
            yield eng.copy(rings[0].full[s], L, refs.issue, refs.filling, o, k, s, first + s, ring);
            if (loadC && o === 0 && k === Math.min(S, K) - 1) yield orders[c].arrive(0);
          }
          yield* fetchNextWork(o, "producer");
        }
      };
    }

    /** The MMA warp (leader CTA): fetch, acquire an accumulator stage, per k-tile wait/UMMA/commit, umma_arrive. */
    eng.role("mma", li.mma, function* (r) {
      var tmaWaitLine = bwLine(refs.tmaWait);
      for (var o = 0; o < O; o++) {
        yield* fetchNextWork(o, "mma");
        var a = o % A;
        yield eng.wait(accEmpty[a], (((o / A) | 0) & 1) ^ 1, "acc", refs.accWait, o, 0, a, bwLine(refs.accWait));
        var first = null, job = null;
        for (var k = 0; k < K; k++) {
          var g = o * K + k, s = g % S;
          yield eng.wait(rings[0].full[s], ((g / S) | 0) & 1, "tma", refs.tmaWait, o, k, s, tmaWaitLine);
          yield eng.mma(tc, U, "umma", refs.umma, o, k, s);
          job = r.lastJob;
          // The MMA warp never waits on its own jobs (commits track r.lastJob), so the engine's
          // outstanding-job list would only grow: drop it (a million-block run keeps no job objects).
          if (r.jobs.length >= 64) { r.jobs.length = 0; r.jobHead = 0; }
          if (first === null) first = job;
          var n = busyE.length;
          if (n > 0 && busyE[n - 1] === job.start) busyE[n - 1] = job.end;
          else { busyS.push(job.start); busyE.push(job.end); }
          // consumer_release = tcgen05.commit: the stage frees when this k-tile's UMMAs complete.
          if (refs.shape.release) for (var c = 0; c < ctas; c++) yield eng.commit(rings[c].empty[s]);
        }
        // accumulator_pipeline.producer_commit = umma_arrive (multicast to the peer in 2-SM mode).
        for (var c4 = 0; c4 < ctas; c4++) {
          yield eng.commit(accFull[c4][a]);
          eng.draw(li[prefix[c4] + "acc" + a], "acc", first.start, job.end, o, null, a, null, refs.acc,
            build && first.blk >= 0 ? eng.tl.afterOf(first.blk) : EMPTY); // what bound the first UMMA bound the stage
        }
      }
    });

    /** Epilogue warps of CTA c: fetch, (C wait + release), accumulator wait, TMEM load, release, store. */
    function epilogue(c) {
      return function* (r) {
        for (var o = 0; o < O; o++) {
          yield* fetchNextWork(o, "epilogue");
          var a = o % A, bar = accFull[c][a], accLane = li[prefix[c] + "acc" + a];
          // The subtile loop (sm100_epilogue_tma_warpspecialized.hpp store(), 819-888): per subtile
          // the C stage's wait and release, on the first the accumulator's wait, the TMEM load, on
          // the last the accumulator's release, then convert / smem / TMA store.
          for (var e = 0; e < ES; e++) {
            if (loadC) {
              var ci = o * ES + e, sc = ci % SC;
              yield eng.wait(cRings[c].full[sc], ((ci / SC) | 0) & 1, "c", refs.cWait, o, null, sc, bwLine(refs.cWait));
              yield eng.arriveCmd(cRings[c].empty[sc]);
            }
            if (e === 0) {
              yield eng.wait(bar, ((o / A) | 0) & 1, "mma", refs.epiAccWait, o, null, a, bwLine(refs.epiAccWait));
              var t = r.now;
              if (t > bar.time) eng.draw(accLane, "full", bar.time, t, o, null, a, null, refs.accFull, build && bar.blk >= 0 ? [bar.blk] : EMPTY);
              epiStart[c][o] = t;
            }
            var t1 = r.now;
            yield eng.work(T, "tmem_load", refs.tmemLoad, o, null, a);
            if (T > 0) eng.draw(accLane, "drain", t1, t1 + T, o, null, a, null, refs.tmemLoad, build ? eng.tl.afterOf(eng.laneLast[r.lane]) : EMPTY);
            if (e === ES - 1) yield eng.arriveCmd(accEmpty[a]);
            yield eng.work(ST, "store", refs.store, o, null, null);
          }
          epiEnd[c][o] = r.now;
        }
      };
    }

    /** EpilogueLoad warp of CTA c (with C): fetch, load-order wait once, acquire + TMA of C. */
    function epiLoad(c) {
      return function* () {
        var first = li[prefix[c] + "c_stage0"];
        for (var o = 0; o < O; o++) {
          yield* fetchNextWork(o, "epi_load");
          if (o === 0) yield orders[c].wait(1, "order", refs.orderWait, o, null, null, bwLine(refs.orderWait));
          // load() (516-541): per epilogue subtile, acquire a C stage and its TMA.
          for (var e = 0; e < ES; e++) {
            var ci = o * ES + e, sc = ci % SC;
            yield eng.wait(cRings[c].empty[sc], (((ci / SC) | 0) & 1) ^ 1, null, EMPTY, o, null, sc, null);
            yield eng.copy(cRings[c].full[sc], L, refs.epiLoad, refs.epiLoad, o, null, sc, first + sc, cRings[c]);
          }
        }
      };
    }

    for (var c5 = 0; c5 < ctas; c5++) {
      eng.role(prefix[c5] + "producer", li[prefix[c5] + "producer"], producer(c5), { drawWaits: false });
      eng.role(prefix[c5] + "epilogue", li[prefix[c5] + "epilogue"], epilogue(c5));
      if (loadC) eng.role(prefix[c5] + "epi_load", li[prefix[c5] + "epi_load"], epiLoad(c5));
    }
    var deadlock = eng.run();
    return {
      total: eng.tl.total,
      lanes: lanes,
      columns: build ? eng.tl.finalize() : null,
      roles: eng.roles,
      busy: tc.busy,
      busyS: busyS,
      busyE: busyE,
      epiStart: epiStart,
      epiEnd: epiEnd,
      deadlock: deadlock,
      barriers: build ? eng.barrierList() : [],
      barrierEvents: build ? eng.sortedEvents() : [],
      barrierEventsOmitted: build && eng.events === null
    };
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

  MODELS.blackwell = {
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

  /** The program model (docs/programs.md): registered last, as KNOB_TABLE.models lists it. */
  // The SM100 programs' knobs (the Blackwell model's: accumulator stages, UMMA, TMEM load, store).
  ["accStages", "ummaLatency", "tmemLoadLatency", "storeLatency"].forEach(function (k) {
    PROGRAM_KNOB_RANGES[k] = BW_KNOB_RANGES[k];
    PROGRAM_DEFAULT_KNOBS[k] = BW_DEFAULT_KNOBS[k];
  });

  /** Which MMA unit each program knob times (a structure shows only its units' knobs). */
  var PROGRAM_KNOB_UNITS = {
    wgmmaLatency: "wgmma", kPipeMmas: "wgmma", epilogueLatency: "wgmma",
    ummaLatency: "umma", accStages: "umma", tmemLoadLatency: "umma", storeLatency: "umma"
  };

  /** The program model's knob specs for a structure: those of the MMA units its ops issue. */
  /** The MMA units a structure's ops issue: {wgmma?, umma?}. */
  function programUnits(structure) {
    var units = {};
    (isObject(structure) && Array.isArray(structure.functions) ? structure.functions : []).forEach(function (fn) {
      (isObject(fn) && Array.isArray(fn.ops) ? fn.ops : []).forEach(function (op) {
        if (isObject(op) && op.op === "mma") units[op.unit === "umma" ? "umma" : "wgmma"] = true;
      });
    });
    return units;
  }

  function programSpecs(specs, structure) {
    var units = programUnits(structure);
    if (!Object.keys(units).length) return specs;
    return specs.filter(function (spec) { return !PROGRAM_KNOB_UNITS[spec.name] || units[PROGRAM_KNOB_UNITS[spec.name]]; });
  }

  MODELS.program = {
    defaults: PROGRAM_DEFAULT_KNOBS,
    ranges: PROGRAM_KNOB_RANGES,
    choices: {},
    normalize: normalizeProgramKnobs,
    sourceKnobs: function (st) { var g = gemmSourceKnobs(st); return g.kPipeMmas ? { kPipeMmas: g.kPipeMmas } : {}; },
    estimateBlocks: estimateProgramBlocks,
    lanes: function () { return []; },
    simulate: simulateProgram,
    refs: function (st) { return { producer: null, consumer: null, copy: "TMA", units: programUnits(st) }; },
    view: programView,
    flags: {},
    waitReasons: WAIT_REASON_PRIORITY,
    blockKinds: BLOCK_KINDS,
    emptyVerdict: { hazards: [], stopped: [] },
    sizeKnobs: "outputTiles (O) or kTiles (K)",
    covers: programCovers,
    adaptSpecs: programSpecs,
    fitReason: "the kernel layer's own role programs, run by sim/interpret.js",
    alongside: true,
    assumptions: function () { return PROGRAM_ASSUMPTIONS.slice(); },
    notModelled: function () { return PROGRAM_NOT_MODELLED.slice(); }
  };

  // ============================================================================ end of Blackwell

  // ---------------------------------------------------------------------------------------------
  // Entry points

  /** Name of the requested model; when absent, defaultModel(structure) ("gemm" without one). */
  function modelName(knobs, structure) {
    return isObject(knobs) && knobs.model !== undefined && knobs.model !== null ? knobs.model : defaultModel(structure);
  }

  /**
   * Validate knobs for their model: {knobs, messages} plus `error` for an unknown model. The
   * optional structure only picks the model when knobs.model is absent (see defaultModel).
   */
  function normalizeKnobs(knobs, structure) {
    var name = modelName(knobs, structure);
    if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(MODELS, name)) {
      return {
        knobs: { model: name },
        messages: [],
        error: "unknown model " + showValue(name) + "; known models: " + Object.keys(MODELS).join(", ")
      };
    }
    var model = MODELS[name];
    return model.normalize(knobs, model.sourceKnobs(structure));
  }

  /** Upper bound on the block count simulate() would produce for these knobs (validated first). */
  function estimateBlockCount(knobs, structure) {
    var norm = normalizeKnobs(knobs, structure);
    return norm.error ? 0 : MODELS[norm.knobs.model].estimateBlocks(norm.knobs);
  }

  /**
   * Result with no blocks and an error message (unknown model, block cap). The verdict has the
   * common fields plus the model's own (extra, from MODELS[...].emptyVerdict), zeroed.
   */
  function failure(knobs, messages, lanes, error, refs, extra) {
    var verdict = { total: 0, waits: {}, tensorCoreUtilization: 0, tensorCoreBusySteps: 0 };
    for (var key in extra) verdict[key] = extra[key];
    verdict.summary = error;
    return withEmptyColumns({
      model: knobs.model,
      total: 0,
      lanes: lanes,
      blocks: [],
      laneBlocks: {},
      verdict: verdict,
      knobs: knobs,
      messages: messages,
      error: error,
      deadlock: null,
      barriers: [],
      barrierEvents: [],
      barrierEventsOmitted: false,
      barrierEventsSkipped: false,
      view: null,
      fit: null,
      functions: refs ? { producer: refs.producer, consumer: refs.consumer } : { producer: null, consumer: null }
    });
  }

  /** result (no blocks) with empty columns for its lanes (attachColumns: blocks and laneBlocks stay []/{}). */
  function withEmptyColumns(result) {
    return attachColumns(result, emptyColumns(result.lanes.map(function (lane) { return lane.id; })));
  }

  /**
   * Simulate the logical schedule: {model, total, lanes, blocks, laneBlocks, verdict, knobs,
   * messages, error, functions}. Never throws on bad input; error is null on success.
   * options.events === false: record no barrier events (barrierEventsSkipped is true when the run
   * would have had some); the page's background runs, which fetch them with a second run.
   */
  function simulateSteps(structure, knobs, options) {
    var fit = fitModel(structure);
    var explicit = isObject(knobs) && knobs.model !== undefined && knobs.model !== null;
    if (!explicit && fit.model === null) return noModel(structure, fit);
    var norm = normalizeKnobs(knobs, structure);
    if (norm.error) return failure(norm.knobs, norm.messages, [], norm.error, sourceRefs(structure), {});
    var model = MODELS[norm.knobs.model];
    var refs = model.refs(structure);
    if (model.adjust) model.adjust(norm.knobs, refs, norm.messages, knobs);
    var estimate = model.estimateBlocks(norm.knobs);
    if (estimate > MAX_BLOCKS) {
      return failure(norm.knobs, norm.messages, model.lanes(norm.knobs, refs),
        "too many blocks: up to " + estimate + " (limit " + MAX_BLOCKS + "); reduce " + model.sizeKnobs, refs,
        model.emptyVerdict);
    }
    var skip = isObject(options) && options.events === false;
    var result;
    eventsWanted = !skip;
    try {
      result = model.simulate(norm.knobs, refs, structure);
    } finally {
      eventsWanted = true;
    }
    var columns = result.columns;
    delete result.columns;
    attachColumns(result, columns);
    if (result.deadlock === undefined) result.deadlock = null;
    result.deadlockKnobs = result.deadlock !== null && estimate <= EVENT_BLOCK_LIMIT ?
      deadlockKnobs(norm.knobs.model, norm.knobs, refs, structure) : null;
    if (result.barriers === undefined) result.barriers = [];
    if (result.barrierEvents === undefined) result.barrierEvents = [];
    if (typeof result.barrierEvents === "function") {
      var eventColumns = result.barrierEvents.columns;
      lazyProperty(result, "barrierEvents", result.barrierEvents);
      if (eventColumns) {
        Object.defineProperty(result, "barrierEventColumns", { enumerable: false, configurable: true, get: eventColumns });
      }
    }
    // Skipped on request: omitted only when the size would have left them out anyway.
    result.barrierEventsSkipped = skip && estimate <= EVENT_BLOCK_LIMIT;
    result.barrierEventsOmitted = skip ? estimate > EVENT_BLOCK_LIMIT : result.barrierEventsOmitted === true;
    if (result.barrierEventsOmitted) {
      norm.messages.push("barrier events omitted: more than " + EVENT_BLOCK_LIMIT + " blocks");
    }
    // A model that runs beside the fit (the program model) is no mismatch where it covers the structure.
    if (explicit && fit.model !== norm.knobs.model && !(model.alongside && model.covers(structure) === null)) {
      norm.messages.push("model " + norm.knobs.model + " was asked for, but " + (fit.model === null ?
        "no schedule model fits this structure: " : "the structure fits the " + fit.model + " model: ") + fit.reason);
    }
    result.model = norm.knobs.model;
    result.knobs = norm.knobs;
    result.messages = norm.messages;
    result.error = null;
    result.functions = { producer: refs.producer, consumer: refs.consumer };
    // The model that ran describes itself: a model run beside the fit gives its own reason,
    // assumptions and omissions (the page's verdict lists them).
    result.fit = model.alongside && model.covers(structure) === null ?
      { model: norm.knobs.model, reason: model.fitReason, assumptions: model.assumptions(structure), notModelled: model.notModelled(structure) } : fit;
    result.view = model.view(norm.knobs, refs);
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Units: cycles, microseconds and TFLOPs (issue 21 part 4; docs/performance.md "The schedule in
  // cycles"). With knobs.gpu the latency knobs come from sim/perf.js's formulas (unless given),
  // one step is one cycle, and a problem size sets the CTA's tiles; without it nothing changes.

  /** sim/perf.js (the formulas' one home): the page's global, or require()d next to this file. */
  function perfModule() {
    if (typeof KernelPerf !== "undefined") return KernelPerf;
    if (typeof require === "function" && typeof module !== "undefined") return require("./sim/perf.js");
    return null;
  }

  /** The GPU presets: the page's global KernelGpuTable (its embedded sim/gpus.json), else sim/gpus.json in Node. */
  function gpuTable() {
    if (typeof KernelGpuTable !== "undefined") return KernelGpuTable;
    if (typeof require === "function" && typeof module !== "undefined") return require("./sim/gpus.json");
    return null;
  }

  /** Names of the unit knobs (KNOB_TABLE.units), dtype and headDim included (FA3 owns those). */
  var UNIT_KNOBS = KNOB_TABLE.units.map(function (k) { return k.name; }).concat(["dtype", "headDim"]);

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
   * Per model: the unit parameters (tile, latencies from perf.js, problem -> tiles, FLOPs) and the
   * candidates of classifyBottleneck from its verdict. p = the parameters so far, k = the model's
   * knobs as validated without the units (FA3's dtype and headDim, WGs, schedule, subtiles).
   */
  var UNITS = {
    gemm: {
      tileDims: 3, defaultTile: "128x128x64",
      latencies: function (P, gpu, p) { return P.gemmLatencies({ tile: p.tile, dtype: p.dtype, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
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
      latencies: function (P, gpu, p, k) { return P.blackwellLatencies({ tile: p.tile, dtype: p.dtype, subtiles: k.epiSubtiles, reuse: p.reuse, memLatency: p.memLatency }, gpu); },
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
        if (raw.seqlen === undefined && raw.batch === undefined && raw.heads === undefined) return null;
        var seqlen = unitInt(raw, "seqlen", null);
        if (seqlen === null) unitsFail("an attention problem needs seqlen");
        var batch = unitInt(raw, "batch", 1), heads = unitInt(raw, "heads", 1);
        var causal = normalizeFlag("causal", raw.causal, false, []);
        var tiles = batch * heads * Math.ceil(seqlen / p.tile.m);
        var kv = Math.ceil(seqlen / p.tile.n);
        return { text: batch + " x " + heads + " heads x " + seqlen + (causal ? " causal" : ""), tiles: tiles,
          knobs: { outputTiles: null, kvBlocks: causal ? Math.ceil(kv / 2) : kv },
          reuse: P.attentionKvReuse(seqlen, p.tile.m, gpu.sms),
          flops: 4 * batch * heads * seqlen * seqlen * p.headdim * (causal ? 0.5 : 1) };
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
    }
  };

  /** A GEMM problem "MxNxK": its tiles, the CTA's k-tiles, the wave's L2 reuse and FLOPs. */
  function gemmProblem(P, gpu, p, raw) {
    if (raw.problem === undefined || raw.problem === null || raw.problem === "") return null;
    var d = unitDims(raw.problem, "problem", 3), pr = { m: d[0], n: d[1], k: d[2] };
    var tiles = Math.ceil(pr.m / p.tile.m) * Math.ceil(pr.n / p.tile.n);
    return { text: d.join("x"), tiles: tiles, knobs: { outputTiles: null, kTiles: Math.ceil(pr.k / p.tile.k) },
      reuse: P.gemmWaveReuse(pr, p.tile, gpu.sms), flops: 2 * pr.m * pr.n * pr.k };
  }

  /**
   * simulate() with knobs.gpu: work out the unit parameters, fill the latency and size knobs the
   * user left unset, run the model in cycles (simulateSteps) and add time, TFLOPs, peak share,
   * bottleneck and units. A bad unit knob gives a failure result whose error names it.
   */
  function simulateUnits(structure, knobs, options) {
    var P = perfModule();
    var name = modelName(knobs, structure);
    var strip = {}, key;
    for (key in knobs) if (key !== "gpu" && UNIT_KNOBS.indexOf(key) < 0) strip[key] = knobs[key];
    if (P === null || typeof name !== "string" || !Object.prototype.hasOwnProperty.call(UNITS, name)) {
      var plain = simulateSteps(structure, strip, options);
      if (P === null && plain.error === null) plain.messages.push("gpu: sim/perf.js is not loaded; steps, not cycles");
      return plain;
    }
    var u = UNITS[name];
    var base = normalizeKnobs(strip, structure).knobs;
    // dtype and headDim are the attention model's own knobs on FA3's mainloop; elsewhere unit knobs.
    var modelKnobs = {};
    for (key in knobs) if (key !== "gpu" && (UNIT_KNOBS.indexOf(key) < 0 || Object.prototype.hasOwnProperty.call(base, key))) modelKnobs[key] = knobs[key];
    var sources = {}, p = {}, gpu, lat, prob, ct;
    try {
      var clock = knobs.clockMHz === undefined || knobs.clockMHz === null || knobs.clockMHz === "" ? undefined : toNumber(knobs.clockMHz);
      gpu = unitGpu(P, knobs.gpu, clock);
      // Knob > the source's literal fact > FA3's rule > default (perf.js unitParams).
      var fa3 = base.dtype !== undefined && base.headDim !== undefined, ft = fa3 ? fa3Tile(base.dtype, base.headDim) : null;
      var up = P.unitParams(structure, knobs, { tileDims: u.tileDims, defaultTile: u.defaultTile,
        ruleTile: ft ? { text: ft.kBlockM + "x" + ft.kBlockN, source: "FA3 tile_size_fwd_sm90 (dtype, headDim)" } : null,
        modelDtype: base.dtype !== undefined ? { value: base.dtype, source: "knob (FA3 build)" } : null });
      p.dtype = up.dtype;
      P.tensorRate(gpu, p.dtype);
      sources.tile = up.sources.tile; sources.dtype = up.sources.dtype; sources.cluster = up.sources.cluster;
      var td = unitDims(up.tile, "tile", u.tileDims);
      p.tile = { m: td[0], n: td[1], k: td[2] };
      p.headdim = base.headDim !== undefined ? base.headDim : unitInt(knobs, "headDim", 128);
      var cl = unitDims(up.cluster, "cluster", 2);
      p.cluster = cl[0] + "x" + cl[1];
      p.memLatency = knobs.memLatency === undefined || knobs.memLatency === null || knobs.memLatency === "" ? undefined : toNumber(knobs.memLatency);
      if (p.memLatency !== undefined && !(p.memLatency >= 0)) unitsFail("memLatency expects a number of cycles >= 0, got " + showValue(knobs.memLatency));
      p.reuse = 0;
      prob = u.problem(P, gpu, p, knobs);
      if (prob !== null) {
        p.reuse = prob.reuse;
        ct = P.ctaTiles(prob.tiles, gpu, cl[0] * cl[1]);
        prob.knobs.outputTiles = ct.tilesPerCta;
        for (key in prob.knobs) {
          if (knobs[key] === undefined || knobs[key] === null) { modelKnobs[key] = prob.knobs[key]; sources[key] = "problem"; } else sources[key] = "knob";
        }
      }
      lat = u.latencies(P, gpu, p, base);
    } catch (e) {
      if (!(e && (e.unitsError || e.name === "PerfError"))) throw e;
      var norm = normalizeKnobs(strip, structure);
      var bad = failure(norm.knobs, norm.messages, [], "units: " + e.message, sourceRefs(structure), {});
      bad.units = null; bad.time = null; bad.tflops = null; bad.peakFraction = null; bad.bottleneck = null; bad.criticalPath = null;
      return bad;
    }
    for (key in lat.knobs) {
      if (knobs[key] === undefined || knobs[key] === null) { modelKnobs[key] = lat.knobs[key]; sources[key] = "gpu"; } else sources[key] = "knob";
    }
    var result = simulateSteps(structure, modelKnobs, options);
    var k = result.knobs, v = result.verdict;
    result.units = {
      step: "cycle", clockMHz: gpu.clockMHz, gpu: gpu.name, sources: sources, derivation: lat.derivation,
      inputs: { tile: td.join("x"), dtype: p.dtype, headdim: name === "attention" ? p.headdim : null, cluster: p.cluster,
        problem: prob ? prob.text : null, tiles: prob ? prob.tiles : null, ctas: ct ? ct.ctas : null, waves: ct ? ct.waves : null,
        lastWaveTiles: ct ? ct.lastWaveTiles : null, l2Reuse: p.reuse, memLatency: p.memLatency === undefined ? null : p.memLatency },
      hbmFloorCycles: null, bottleneckWhy: null, peakTflops: P.peakTflops(gpu, p.dtype)
    };
    result.time = null; result.tflops = null; result.peakFraction = null; result.bottleneck = null; result.criticalPath = null;
    if (result.error !== null || result.deadlock !== null || result.model !== name) return result;
    var floor = u.loads(k) * lat.loadTransfer;
    var cycles = Math.max(result.total, floor);
    var us = cycles / gpu.clockMHz;
    // Without a problem: the CTA's schedule on every persistent CTA (SMs in whole clusters).
    var ctas = ct ? ct.ctas : P.ctaTiles(1, gpu, cl[0] * cl[1]).ctas;
    var flops = prob ? prob.flops : ctas * k.outputTiles * u.tileFlops(p, k);
    var bn = P.classifyBottleneck({ total: result.total, busy: v.tensorCoreBusySteps, floor: floor,
      candidates: u.candidates(v, k, Math.max(0, result.total - v.tensorCoreBusySteps)) });
    result.time = { cycles: cycles, us: us };
    result.tflops = flops / (us * 1e-6) / 1e12;
    result.peakFraction = result.tflops / result.units.peakTflops;
    result.bottleneck = bn.name;
    result.units.hbmFloorCycles = floor;
    result.units.flops = flops;
    result.units.bottleneckWhy = bn.why;
    result.criticalPath = criticalPath(result.columns);
    if (result.criticalPath !== null) result.units.bottleneckWhy += "; " + criticalPathText(result.criticalPath);
    return result;
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

  /**
   * Simulate the logical schedule (simulateSteps); with knobs.gpu in cycles, with time, TFLOPs,
   * peakFraction, bottleneck and units (simulateUnits). Never throws on bad input.
   */
  function simulate(structure, knobs, options) {
    if (isObject(knobs) && knobs.gpu !== undefined && knobs.gpu !== null && knobs.gpu !== "") return simulateUnits(structure, knobs, options);
    return simulateSteps(structure, knobs, options);
  }

  /**
   * Which knobs make a deadlocked run deadlock (docs/fit.md "Deadlock verdicts"): each knob that
   * differs from the source's own settings (the model's defaults with its sourceKnobs) and whose
   * reset alone lets the run finish, as {knob, value, fine}; every differing knob when no single
   * reset does; [] when the source's own settings deadlock too (the code's protocol deadlocks).
   */
  function deadlockKnobs(name, knobs, refs, structure) {
    var model = MODELS[name], src = model.sourceKnobs(structure);
    var base = model.normalize({}, src).knobs;
    // Knobs a user sets (not the ones the source derives from them), each reset on its own.
    var free = knobsFor(name, structure).filter(function (spec) { return !spec.derived; }).map(function (spec) { return spec.name; });
    var differing = free.filter(function (k) { return knobs[k] !== base[k]; }).sort();
    var saved = eventsWanted;
    eventsWanted = false;
    try {
      if (differing.length === 0 || deadlocks(base)) return [];
      var single = differing.filter(function (k) {
        var trial = {};
        free.forEach(function (key) { trial[key] = knobs[key]; });
        trial[k] = base[k];
        return !deadlocks(model.normalize(trial, src).knobs);
      });
      return (single.length ? single : differing).map(function (k) { return { knob: k, value: knobs[k], fine: base[k] }; });
    } finally {
      eventsWanted = saved;
    }
    /** True when the model deadlocks at these knobs. */
    function deadlocks(k) { return model.simulate(k, refs, structure).deadlock !== null; }
  }

  /**
   * The result for a structure no model fits (and no model asked for): no lanes, no blocks, no
   * verdict figures; fit.reason says why. error stays null: this is an answer, not a failure.
   */
  function noModel(structure, fit) {
    var refs = sourceRefs(structure);
    return withEmptyColumns({
      model: null, total: 0, lanes: [], blocks: [], laneBlocks: {},
      verdict: { total: 0, waits: {}, tensorCoreUtilization: 0, tensorCoreBusySteps: 0,
        summary: "No schedule model fits this kernel: " + fit.reason },
      knobs: { model: null }, messages: [], error: null, deadlock: null, barriers: [], barrierEvents: [],
      barrierEventsOmitted: false, barrierEventsSkipped: false, view: null, fit: fit,
      functions: { producer: refs.producer, consumer: refs.consumer }
    });
  }

  return {
    simulate: simulate,
    engine: ENGINE_PRIMITIVES,
    criticalPath: criticalPath,
    blockAt: blockAt,
    blocksOf: blocksOf,
    emptyColumns: emptyColumns,
    Timeline: Timeline,
    attachColumns: attachColumns,
    normalizeKnobs: normalizeKnobs,
    sourceRefs: sourceRefs,
    estimateBlockCount: estimateBlockCount,
    DEFAULT_KNOBS: GEMM_DEFAULT_KNOBS,
    KNOB_RANGES: GEMM_KNOB_RANGES,
    KNOB_CHOICES: GEMM_KNOB_CHOICES,
    MAX_BLOCKS: MAX_BLOCKS,
    BLOCK_KINDS: BLOCK_KINDS,
    WAIT_REASONS: WAIT_REASON_PRIORITY.slice(),
    MODELS: MODELS,
    MODEL_NAMES: Object.keys(MODELS),
    offeredModels: offeredModels,
    defaultModel: defaultModel,
    fitModel: fitModel,
    knobsFor: knobsFor,
    KNOB_TABLE: KNOB_TABLE,
    attentionRefs: attentionRefs,
    ATTENTION_DEFAULT_KNOBS: ATTENTION_DEFAULT_KNOBS,
    ATTENTION_KNOB_RANGES: ATTENTION_KNOB_RANGES,
    ATTENTION_KNOB_FLAGS: ATTENTION_KNOB_FLAGS,
    ATTENTION_BLOCK_KINDS: ATTENTION_BLOCK_KINDS,
    ATTENTION_WAIT_REASONS: ATTENTION_WAIT_REASONS.slice()
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelSchedule;

// `node schedule.js export --format chrome|vcd --structure parsed.json [--knob name=value ...]`:
// delegated to trace_export.js's main (the exporters live there; this file stays the simulator).
// `node schedule.js predict --structure parsed.json --knob gpu=h100-sxm [--gpu-file F] [--knob ...]
// [--sweep name=a..b ...] [--jobs N]`: the prediction of simulate() in cycles (docs/performance.md),
// as JSON; repeated --sweep flags make a grid, run on every core. Delegated to sim/sweep.js (Node
// only, never inlined into a page). Bad input: one line on stderr, exit 2.

if (typeof module !== "undefined" && typeof require !== "undefined" && require.main === module) {
  var exportArgs = process.argv.slice(2);
  if (exportArgs[0] === "export") {
    process.exitCode = require(require("path").join(__dirname, "trace_export.js")).cli(exportArgs.slice(1));
  } else if (exportArgs[0] === "predict") {
    require(require("path").join(__dirname, "sim", "sweep.js")).cli(exportArgs.slice(1)).then(function (code) { process.exitCode = code; });
  } else {
    process.stderr.write("usage: node schedule.js export --format chrome|vcd --structure parsed.json [--knob name=value ...] > out" +
      " | node schedule.js predict --structure parsed.json --knob gpu=NAME [--knob ...]\n");
    process.exitCode = 2;
  }
}
