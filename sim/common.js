/*
 * sim/common.js: what the simulator's models share (docs/simulator.md "Layout"): the knob
 * validation helpers, the source-reference helpers (refs of ops and kernel-layer calls, sorted and
 * frozen), pipeline identity (which pipeline an op acts on), the knob widgets, whether barrier
 * events are recorded, and the timeline builder and engine names every model binds.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/engine.js and before the model files and schedule.js as a classic script, which makes
 * KernelSimCommon a global; Node gets the same object through module.exports.
 */
var KernelSimCommon = (function () {
  "use strict";

  /** sim/timeline.js: the page's global, or require()d next to this file. */
  var TL = (function () {
    if (typeof KernelTimeline !== "undefined") return KernelTimeline;
    if (typeof require === "function" && typeof module !== "undefined") return require("./timeline.js");
    throw new Error("sim/common.js: timeline.js is not loaded (the page runs it before this file)");
  })();
  /** sim/engine.js: the page's global, or require()d next to this file. */
  var EN = (function () {
    if (typeof KernelEngine !== "undefined") return KernelEngine;
    if (typeof require === "function" && typeof module !== "undefined") return require("./engine.js");
    throw new Error("sim/common.js: engine.js is not loaded (the page runs it before this file)");
  })();
  var MAX_BLOCKS = TL.MAX_BLOCKS, EMPTY = TL.EMPTY, Timeline = TL.Timeline;
  var Engine = EN.Engine, Ring = EN.Ring, OrderBarrier = EN.OrderBarrier, PipeState = EN.PipeState;

  /** The engine's primitives sim/interpret.js builds a run from (schedule.js exports it as `engine`). */
  var ENGINE_PRIMITIVES = { Engine: Engine, Ring: Ring, OrderBarrier: OrderBarrier, PipeState: PipeState };

  /**
   * Barrier events are recorded only up to this block estimate: above it, result.barrierEvents is
   * [] and result.barrierEventsOmitted is true (a million-block run would spend most of its time
   * recording and sorting some four million events).
   */
  var EVENT_BLOCK_LIMIT = 200000;

  /**
   * False while simulate() runs with options.events === false (the models' engines skip events).
   * The one piece of state here that lives across calls: schedule.js sets it (setEventsWanted).
   */
  var eventsWanted = true;

  /** Whether a model's engine records barrier events for a run of about `estimate` blocks. */
  function recordEvents(estimate) {
    return eventsWanted && estimate <= EVENT_BLOCK_LIMIT;
  }

  /** Set whether the models' engines record barrier events; returns the previous setting. */
  function setEventsWanted(flag) {
    var was = eventsWanted;
    eventsWanted = flag;
    return was;
  }

  /** Roles that may run the mainloop producer / consumer code. */
  var PRODUCER_ROLES = { producer: true, both: true };
  var CONSUMER_ROLES = { consumer: true, both: true };

  /** Op kinds that issue an asynchronous copy into a stage. */
  var LOAD_OPS = { tma_load: true, cp_async: true };

  // ---------------------------------------------------------------------------------------------
  // Knob validation

  /** The words of a word-valued knob in a knob table (schedule.js KNOB_TABLE). */
  function tableChoices(table, name) {
    for (var i = 0; i < table.knobs.length; i++) if (table.knobs[i].name === name) return table.knobs[i].choices.slice();
    return [];
  }

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

  /** At most this many compile-time flags in one knob set, each name at most FLAG_NAME_MAX characters. */
  var FLAGS_MAX = 256, FLAG_NAME_MAX = 200;
  /**
   * Validate the program model's compile-time flags and settings (knobs.flags: the verdict's
   * flags, set by name from the CLI's --flag, the hash's flag.NAME and simulate()): a boolean or
   * an on/off word (FLAG_WORDS) is 1 / 0, an integer (or its digits) is kept (FA4's `q_stage`),
   * anything else is left out with a message. Returns {NAME: value} in name order.
   */
  function normalizeFlagValues(raw, messages) {
    var out = {}, names = Object.keys(raw).sort();
    if (names.length > FLAGS_MAX) { messages.push("flags: more than " + FLAGS_MAX + " given; only the first " + FLAGS_MAX + " (by name) kept"); names = names.slice(0, FLAGS_MAX); }
    names.forEach(function (f) {
      var v = raw[f], key = typeof v === "string" ? v.trim().toLowerCase() : null;
      if (f.length > FLAG_NAME_MAX) messages.push("flags: a name longer than " + FLAG_NAME_MAX + " characters ignored");
      else if (typeof v === "boolean") out[f] = v ? 1 : 0;
      else if (typeof v === "number" && Number.isInteger(v)) out[f] = v;
      else if (key !== null && /^-?\d{1,9}$/.test(key)) out[f] = Number(key);
      else if (key !== null && Object.prototype.hasOwnProperty.call(FLAG_WORDS, key)) out[f] = FLAG_WORDS[key] ? 1 : 0;
      else messages.push("flags: " + showValue(f) + " = " + showValue(v) + " is not on/off or an integer; ignored");
    });
    return out;
  }

  /** Widget facts of the knobs (short labels, comfortable slider ends); ranges stay in the model. */
  var KNOB_WIDGETS = {
    stages: { short: "Stages", sliderMax: 16 }, outputTiles: { short: "Output tiles", sliderMax: 128 },
    kTiles: { short: "k-tiles / tile", sliderMax: 256 }, kvBlocks: { short: "KV blocks / tile", sliderMax: 256 },
    qBlocks: { short: "Q blocks / KV tile", sliderMax: 256 },
    tmaLatency: { short: "TMA fill", sliderMax: 64 }, wgmmaLatency: { short: "WGMMA", sliderMax: 64 },
    gemm0Latency: { short: "GEMM0", sliderMax: 64 }, softmaxLatency: { short: "Softmax", sliderMax: 64 },
    gemm1Latency: { short: "GEMM1", sliderMax: 64 }, epilogueLatency: { short: "Epilogue", sliderMax: 64 },
    consumerWGs: { short: "Consumer WGs" }, schedule: { short: "Schedule" }, kPipeMmas: { short: "K_PIPE_MMAS", sliderMax: 8 },
    intraWGOverlap: { short: "Intra-WG overlap" }, interWGPingpong: { short: "Inter-WG pingpong" },
    transposeV: { short: "Transpose_V" }, headDim: { short: "Head dim" }, dtype: { short: "dtype" },
    epiSubtiles: { short: "Epi subtiles", sliderMax: 16 },
    // The program model's own knobs (sim/model_program.js PROGRAM_KNOB_RANGES).
    mathLatency: { short: "Register loop", sliderMax: 64 }, reduceLatency: { short: "Reduce-add", sliderMax: 64 },
    kBlocks: { short: "k-blocks / k-tile", sliderMax: 16 }, scaleKBlocks: { short: "Scale k-blocks / k-tile", sliderMax: 16 },
    tileDQK: { short: "Tile head dim" },
    sfVecSize: { short: "SF vector size" }, utccpReuse: { short: "E reuse (k-tiles)" }
  };

  /** Add the widget facts (short label, slider end) of KNOB_WIDGETS to a knob spec. */
  function widget(spec) {
    var w = KNOB_WIDGETS[spec.name] || {};
    spec.short = w.short || spec.label;
    if (spec.type === "range") spec.sliderMax = Math.min(spec.max, w.sliderMax || spec.max);
    return spec;
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

  /** Refs of the given ops (already filtered), sorted and frozen. */
  function refsOf(ops, path) {
    return sortRefs(ops.map(function (op) { return makeRef(path, op.line, op.end_line, op.op, op.text); }));
  }

  /** Frozen union of ref lists (one ref per path, line and op: sortRefs), sorted by line. */
  function unionRefs(lists) {
    return sortRefs([].concat.apply([], lists));
  }

  /** Lines of a list of refs. */
  function linesOf(refs) {
    return refs.map(function (r) { return r.line; });
  }

  /** The kernel-layer line of an order-barrier ref list's first entry (wait), or null. */
  function firstLine(refs) {
    return refs && refs.length > 0 ? refs[0].line : null;
  }

  /** Every op of every function of a structure (for shape detection). */
  function allOps(st) {
    var out = [];
    (Array.isArray(st.functions) ? st.functions : []).filter(isObject).forEach(function (fn) {
      out = out.concat(opsOf(fn));
    });
    return out;
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

  // ---------------------------------------------------------------------------------------------
  // Pipeline identity (docs/fit.md "Pipeline identity"): the fit and the Blackwell model's refs

  /** Pipeline classes of a CLC scheduler's response ring (CUTLASS sm100_pipeline.hpp, the CuTe DSL). */
  var RE_CLC_CLASS = /Clc|CLC/;

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

  return {
    MAX_BLOCKS: MAX_BLOCKS,
    EMPTY: EMPTY,
    Timeline: Timeline,
    Engine: Engine,
    Ring: Ring,
    OrderBarrier: OrderBarrier,
    PipeState: PipeState,
    ENGINE_PRIMITIVES: ENGINE_PRIMITIVES,
    EVENT_BLOCK_LIMIT: EVENT_BLOCK_LIMIT,
    recordEvents: recordEvents,
    setEventsWanted: setEventsWanted,
    PRODUCER_ROLES: PRODUCER_ROLES,
    CONSUMER_ROLES: CONSUMER_ROLES,
    LOAD_OPS: LOAD_OPS,
    tableChoices: tableChoices,
    showValue: showValue,
    toNumber: toNumber,
    normalizeNumber: normalizeNumber,
    knobObject: knobObject,
    reportUnknownKnobs: reportUnknownKnobs,
    FLAG_WORDS: FLAG_WORDS,
    normalizeFlag: normalizeFlag,
    normalizeFlagValues: normalizeFlagValues,
    KNOB_WIDGETS: KNOB_WIDGETS,
    widget: widget,
    isObject: isObject,
    lineOrNull: lineOrNull,
    makeRef: makeRef,
    opsOf: opsOf,
    pickFunction: pickFunction,
    refsOfOps: refsOfOps,
    sortRefs: sortRefs,
    bracketing: bracketing,
    functionInfo: functionInfo,
    kindSet: kindSet,
    sourceRefs: sourceRefs,
    refsOf: refsOf,
    unionRefs: unionRefs,
    linesOf: linesOf,
    firstLine: firstLine,
    allOps: allOps,
    sourceConstant: sourceConstant,
    layerWarpgroups: layerWarpgroups,
    layerPath: layerPath,
    RE_CLC_CLASS: RE_CLC_CLASS,
    classText: classText,
    pipeIdentity: pipeIdentity,
    pipeObjects: pipeObjects
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelSimCommon;
