/*
 * schedule.js: the logical-schedule simulator of kernel_logical_visualizer.
 *
 * Pure and DOM-free: simulate(structure, knobs) turns a parsed kernel structure plus a few knobs
 * into lanes, blocks and a verdict. Same input, same output (no clocks, no randomness), so the
 * page can re-run it on every slider move and Node can unit-test it. Plain ES2017, no modules
 * syntax, ASCII only: the page inlines this file into a classic <script>, which makes
 * KernelSchedule a global; Node gets the same object through module.exports.
 *
 * This file is the entry point: the knob table, the model registry (MODELS) and the API
 * (simulate, normalizeKnobs, knobsFor, fitModel, ...). The models are registered in MODELS and
 * picked by knobs.model: "gemm" (one pipeline feeding one consumer loop), "attention" (K, V and
 * optionally Vt pipelines, GEMM0 -> softmax -> GEMM1 per KV block), "blackwell" (SM100 UMMA) and
 * "program" (the code's own role programs). Without knobs.model, defaultModel(structure) picks
 * one. Each model is a file in sim/ (docs/simulator.md "Layout") that adds itself to MODELS.
 */
var KernelSchedule = (function () {
  "use strict";

  /**
   * The simulator's files (docs/simulator.md "Layout"): the page's globals (it runs them all
   * before this file, in the order they are bound here), or require()d next to this file. The
   * names bound here are the ones the entry points below use.
   */
  function simModule(loaded, rel) {
    if (loaded !== undefined) return loaded;
    if (typeof require === "function" && typeof module !== "undefined") return require(rel);
    throw new Error("schedule.js: " + rel.slice(2) + " is not loaded (the page runs it before this file)");
  }
  var TL = simModule(typeof KernelTimeline === "undefined" ? undefined : KernelTimeline, "./sim/timeline.js");
  var EN = simModule(typeof KernelEngine === "undefined" ? undefined : KernelEngine, "./sim/engine.js");
  var C = simModule(typeof KernelSimCommon === "undefined" ? undefined : KernelSimCommon, "./sim/common.js");
  var FIT = simModule(typeof KernelFit === "undefined" ? undefined : KernelFit, "./sim/fit.js");
  var GM = simModule(typeof KernelModelGemm === "undefined" ? undefined : KernelModelGemm, "./sim/model_gemm.js");
  var AT = simModule(typeof KernelModelAttention === "undefined" ? undefined : KernelModelAttention, "./sim/model_attention.js");
  var BW = simModule(typeof KernelModelBlackwell === "undefined" ? undefined : KernelModelBlackwell, "./sim/model_blackwell.js");
  var PR = simModule(typeof KernelModelProgram === "undefined" ? undefined : KernelModelProgram, "./sim/model_program.js");
  var UN = simModule(typeof KernelUnits === "undefined" ? undefined : KernelUnits, "./sim/units.js");
  var MAX_BLOCKS = TL.MAX_BLOCKS, Timeline = TL.Timeline, emptyColumns = TL.emptyColumns,
    blockAt = TL.blockAt, blocksOf = TL.blocksOf, attachColumns = TL.attachColumns, lazyProperty = TL.lazyProperty;
  var ENGINE_PRIMITIVES = C.ENGINE_PRIMITIVES, EVENT_BLOCK_LIMIT = C.EVENT_BLOCK_LIMIT,
    setEventsWanted = C.setEventsWanted, showValue = C.showValue, toNumber = C.toNumber, widget = C.widget,
    isObject = C.isObject, sourceRefs = C.sourceRefs;
  var GEMM_DEFAULT_KNOBS = GM.GEMM_DEFAULT_KNOBS, GEMM_KNOB_RANGES = GM.GEMM_KNOB_RANGES,
    GEMM_KNOB_CHOICES = GM.GEMM_KNOB_CHOICES, BLOCK_KINDS = GM.BLOCK_KINDS,
    WAIT_REASON_PRIORITY = GM.WAIT_REASON_PRIORITY;
  var attentionRefs = AT.attentionRefs, fa3Tile = AT.fa3Tile, ATTENTION_DEFAULT_KNOBS = AT.ATTENTION_DEFAULT_KNOBS,
    ATTENTION_KNOB_RANGES = AT.ATTENTION_KNOB_RANGES, ATTENTION_KNOB_FLAGS = AT.ATTENTION_KNOB_FLAGS,
    ATTENTION_BLOCK_KINDS = AT.ATTENTION_BLOCK_KINDS, ATTENTION_WAIT_REASONS = AT.ATTENTION_WAIT_REASONS;
  var perfModule = UN.perfModule, unitInt = UN.unitInt, unitDims = UN.unitDims, unitGpu = UN.unitGpu,
    unitsFail = UN.unitsFail, UNITS = UN.UNITS, criticalPath = UN.criticalPath,
    criticalPathText = UN.criticalPathText;

  // ---------------------------------------------------------------------------------------------
  // Knobs

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
      {"name": "qBlocks", "flag": "--q-blocks"},
      {"name": "tmaLatency", "flag": "--tma"},
      {"name": "wgmmaLatency", "flag": "--wgmma"},
      {"name": "gemm0Latency", "flag": "--gemm0"},
      {"name": "softmaxLatency", "flag": "--softmax"},
      {"name": "mathLatency", "flag": "--math"},
      {"name": "kBlocks", "flag": "--k-blocks"},
      {"name": "scaleKBlocks", "flag": "--scale-k-blocks"},
      {"name": "tileDQK", "flag": "--tile-dqk"},
      {"name": "sfVecSize", "flag": "--sf-vec-size"},
      {"name": "utccpReuse", "flag": "--utccp-reuse"},
      {"name": "schedStages", "flag": "--sched-stages"},
      {"name": "elementBits", "flag": "--element-bits"},
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
      {"name": "reduceLatency", "flag": "--reduce"},
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

  // ---------------------------------------------------------------------------------------------
  // Model registry

  /**
   * Registered models, in KNOB_TABLE.models order: per model its knob tables and validation,
   * source knobs and refs, block estimate, lanes, simulate, view description, coverage rule and
   * fit texts (docs/simulator.md "Adding a model"). Each model file's register() adds its entry.
   */
  var MODELS = {};
  GM.register(MODELS, KNOB_TABLE);
  AT.register(MODELS);
  BW.register(MODELS);
  PR.register(MODELS);

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


  /**
   * The model a page starts in and simulate() runs without knobs.model: fitModel(structure).model,
   * null when no model fits (the page then shows the no-model page and offers no model).
   */
  function defaultModel(structure) {
    return fitModel(structure).model;
  }

  /**
   * Whether a model takes compile-time flags by name (knobs.flags: the program model, whose run
   * reads the source's own flags and lists them in its verdict); the page offers them then.
   */
  function modelTakesFlags(name) {
    return typeof name === "string" && Object.prototype.hasOwnProperty.call(MODELS, name) && MODELS[name].compileFlags === true;
  }

  /**
   * The model a page starts in and `node schedule.js predict` runs without a model knob: the
   * default fit's (defaultModel), else, where no hand-written model fits, the first model that
   * runs the code's own programs (offeredModels(structure, true): the program model), else null.
   */
  function pageModel(structure) {
    var fit = defaultModel(structure), alongside = fit === null ? offeredModels(structure, true) : [];
    return fit !== null ? fit : alongside.length ? alongside[0] : null;
  }

  /**
   * The fit a page starts in (sim/fit.js defaultFit over MODELS; docs/fit.md "Default model"): the
   * hand-written model that fits, or the program model where that one diverges from the code and
   * the code's own programs run complete (then `handFit` is the hand-written fit).
   */
  function fitModel(structure) {
    return FIT.defaultFit(structure, MODELS, function (name) { return incompleteAtDefaults(structure, name); });
  }

  /**
   * incompleteAtDefaults' answers, {model: why, or null} per structure: by object (a WeakMap),
   * else by its JSON text (a Map of at most COMPLETE_TEXT_ENTRIES): the page's simulation Worker
   * receives a structured clone of the same structure with every run, and the text (about 80 kB
   * for an SM90 GEMM with its programs, under 2 ms to write) is far cheaper than the run.
   */
  var completeByObject = typeof WeakMap === "function" ? new WeakMap() : null;
  var completeByText = typeof Map === "function" ? new Map() : null;
  var COMPLETE_TEXT_ENTRIES = 4;

  /** The cache entry of a structure (a fresh object when nothing can cache it). */
  function completeEntry(structure) {
    if (!isObject(structure)) return {};
    if (completeByObject && completeByObject.has(structure)) return completeByObject.get(structure);
    var entry = {};
    if (completeByText) {
      var text = JSON.stringify(structure);
      if (completeByText.has(text)) entry = completeByText.get(text);
      else {
        if (completeByText.size >= COMPLETE_TEXT_ENTRIES) completeByText["delete"](completeByText.keys().next().value);
        completeByText.set(text, entry);
      }
    }
    if (completeByObject) completeByObject.set(structure, entry);
    return entry;
  }

  /**
   * Why a model's run at its default knobs (normalizeKnobs with none given: the source's settings)
   * is not complete, or null when it is: an unknown model or block cap, a run with no blocks (the
   * program could not run), a role stopped, a deadlock. The rule's (b), sim/fit.js defaultFit.
   * Cached (completeEntry): the pages and the CLI never change a parsed structure.
   */
  function incompleteAtDefaults(structure, name) {
    var entry = completeEntry(structure);
    if (!Object.prototype.hasOwnProperty.call(entry, name)) entry[name] = runIncomplete(structure, name);
    return entry[name];
  }

  /** incompleteAtDefaults' run, uncached: no barrier events, the model's own simulate (never simulateSteps, which fits). */
  function runIncomplete(structure, name) {
    var norm = normalizeKnobs({ model: name }, structure);
    if (norm.error) return norm.error;
    var model = MODELS[name];
    var estimate = model.estimateBlocks(norm.knobs);
    if (estimate > MAX_BLOCKS) return "up to " + estimate + " blocks at the default knobs (limit " + MAX_BLOCKS + ")";
    var refs = model.refs(structure);
    if (model.adjust) model.adjust(norm.knobs, refs, [], {});
    var saved = setEventsWanted(false), r;
    try {
      r = model.simulate(norm.knobs, refs, structure);
    } finally {
      setEventsWanted(saved);
    }
    var v = isObject(r.verdict) ? r.verdict : {};
    if (typeof r.error === "string" && r.error) return r.error;
    if (!(r.total > 0)) return "the run has no blocks" + (v.summary ? ": " + v.summary : "");
    if (Array.isArray(v.stopped) && v.stopped.length) {
      return "a role stopped: " + v.stopped.map(function (x) { return x.role + " at line " + x.line; }).join(", ");
    }
    if (r.deadlock !== null && r.deadlock !== undefined) return "it deadlocks: " + r.deadlock.message;
    return null;
  }

  /** A knob spec's source: {value, line} plus path when the fact is from another file (the kernel layer). */
  function sourceOf(fact) {
    var out = { value: fact.value, line: fact.line };
    if (typeof fact.path === "string") out.path = fact.path;
    return out;
  }

  /**
   * Ordered knob specs of a model, for building controls from data: each is {name, type, label,
   * doc, default} plus min/max (type "range"), choices (type "choice") or nothing more (type
   * "flag", a boolean). Ranges come first in display order, then choices, then flags. [] for an
   * unknown model. With a structure, a knob whose value the source fixes (K_PIPE_MMAS, FA3's
   * compile-time flags) has that value as its default and `source: {value, line}`.
   */
  function knobsFor(name, structure) {
    if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(MODELS, name)) return [];
    var model = MODELS[name];
    var src = structure === undefined ? {} : sourceKnobsOf(model, structure);
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
    return model.normalize(knobs, sourceKnobsOf(model, structure));
  }

  /**
   * A model's knobs the source fixes (its sourceKnobs), plus the stage count the parse read as a
   * literal (`structure.stages`: `StageCount<4>` in a translation unit given with --params-from,
   * docs/json.md "Kernel parameters") for a model with a `stages` knob whose own rule gives none.
   */
  function sourceKnobsOf(model, structure) {
    var src = model.sourceKnobs(structure);
    var st = isObject(structure) && isObject(structure.stages) ? structure.stages : null;
    if (st && typeof st.value === "number" && model.ranges.stages && !src.stages) {
      src = Object.assign({}, src);
      src.stages = { value: st.value, line: typeof st.line === "number" ? st.line : null };
      if (typeof st.file === "string") src.stages.path = st.file;
    }
    return src;
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
    try {
      return simulateModel(structure, knobs, options);
    } catch (e) {
      // A failure of the simulator itself is said as such, never thrown at the page or the CLI.
      setEventsWanted(true);
      return failure(isObject(knobs) ? knobs : {}, [], [], "internal error (a bug of the simulator, not of the kernel): " +
        (e && e.name ? e.name + ": " : "") + (e && e.message ? e.message : String(e)), sourceRefs(structure), {});
    }
  }

  /** simulateSteps' run of the fitted or chosen model (it may throw on a simulator bug; simulateSteps catches). */
  function simulateModel(structure, knobs, options) {
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
    setEventsWanted(!skip);
    try {
      result = model.simulate(norm.knobs, refs, structure);
    } finally {
      setEventsWanted(true);
    }
    var columns = result.columns;
    delete result.columns;
    attachColumns(result, columns);
    if (result.deadlock === undefined) result.deadlock = null;
    // A deadlock after a role stopped (the program model) is no setting's doing: no knob search.
    result.deadlockKnobs = result.deadlock !== null && !result.deadlock.afterStopped && estimate <= EVENT_BLOCK_LIMIT ?
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
    // A model that runs beside the fit (the program model) is no mismatch where it covers the
    // structure; the hand-written model the default was chosen over fits, but says why it is not the default.
    var hand = isObject(fit.handFit) && fit.handFit.model === norm.knobs.model ? fit.handFit : null;
    if (explicit && fit.model !== norm.knobs.model && !(model.alongside && model.covers(structure) === null)) {
      norm.messages.push("model " + norm.knobs.model + " was asked for" + (hand !== null ? "; the default is the " + fit.model +
        " model, because this one does not follow the code here: " + FIT.divergenceText(hand) : (fit.model === null ?
        ", but no schedule model fits this structure: " : ", but the structure fits the " + fit.model + " model: ") + fit.reason));
    }
    whatIfCheck(model, norm.knobs, structure, result, estimate, norm.messages);
    result.model = norm.knobs.model;
    result.knobs = norm.knobs;
    result.messages = norm.messages;
    result.error = null;
    result.functions = { producer: refs.producer, consumer: refs.consumer };
    // The model that ran describes itself: the default's fit (with why it is the default), the
    // hand-written fit the default was chosen over, or a model run beside the fit with its own
    // reason, assumptions and omissions (the page's verdict lists them).
    result.fit = fit.model === norm.knobs.model ? fit : hand !== null ? hand :
      model.alongside && model.covers(structure) === null ? ownFit(norm.knobs.model, structure) : fit;
    result.view = model.view(norm.knobs, refs, result);
    return result;
  }

  /**
   * What-if knobs (docs/fit.md "What-if knobs"): a hand-written model's knob that stands for a
   * constant the source spells (model.whatIfKnobs: the GEMM model's kPipeMmas, the collective's
   * `K_PIPE_MMAS`), set away from the source's own value, edits the code, and the model draws its
   * own protocol there. Where the program model covers the structure and the run is small (at most
   * WHAT_IF_CHECK_BLOCKS), the code's own program runs at the same knobs (one run, no events, no
   * search), if every other knob that stands for a source fact has the source's value; when the
   * program deadlocks or a role stops where the model's run does not, a message says so
   * with the program's own words, and result.whatIf holds {knobs, source, deadlock, stopped}.
   */
  var WHAT_IF_CHECK_BLOCKS = 20000;
  function whatIfCheck(model, knobs, structure, result, estimate, messages) {
    var prog = MODELS.program;
    if (!model.whatIfKnobs || model.alongside || !prog || estimate > WHAT_IF_CHECK_BLOCKS || prog.covers(structure) !== null) return;
    var src = sourceKnobsOf(model, structure);
    var moved = model.whatIfKnobs.filter(function (k) {
      return isObject(src[k]) && typeof src[k].value === "number" && typeof knobs[k] === "number" && knobs[k] !== src[k].value;
    });
    // Another knob away from a source fact (a `schedule` or `consumerWGs` the code does not have)
    // runs a kernel the code is not: no comparison.
    var apart = Object.keys(src).some(function (k) {
      return model.whatIfKnobs.indexOf(k) < 0 && isObject(src[k]) && knobs[k] !== undefined && knobs[k] !== src[k].value;
    });
    if (!moved.length || apart) return;
    var pk = normalizeKnobs(Object.assign({}, knobs, { model: "program" }), structure);
    if (pk.error) return;
    var code = prog.runCode(pk.knobs, structure);
    if (code.error || (code.deadlock === null || result.deadlock !== null) && !code.stopped.length) return;
    var what = moved.map(function (k) { return k + " " + knobs[k] + " (the source's own: " + src[k].value + (src[k].line ? ", line " + src[k].line : "") + ")"; }).join(", ");
    result.whatIf = { knobs: moved, source: moved.map(function (k) { return { value: src[k].value, line: src[k].line }; }),
      deadlock: code.deadlock, stopped: code.stopped };
    // A stop is what the program model does not model, not the code's doing: the check is then undecided.
    messages.push("what-if " + what + ": " + (code.stopped.length ? "not checked against the code: its program stops there, not modelled (" +
      code.stopped.map(function (x) { return x.role + " at line " + x.line + ": " + x.reason; }).join("; ") + ")" :
      "the code's own program at these settings deadlocks (" + code.deadlock.replace(/^deadlock: /, "") + ")") +
      "; the " + knobs.model + " model draws its own protocol there, not necessarily the code's (--model program runs the code)");
  }

  /** The fit of a model run beside the fit (the program model) that covers the structure: its own reason, assumptions and omissions. */
  function ownFit(name, structure) {
    var model = MODELS[name], left = FIT.notModelledOf(model.notModelled(structure));
    return { model: name, reason: model.fitReason, assumptions: model.assumptions(structure), notModelled: left.notModelled,
      divergences: left.divergences };
  }

  // ---------------------------------------------------------------------------------------------
  // Units: cycles, microseconds and TFLOPs (issue 21 part 4; docs/performance.md "The schedule in
  // cycles"). With knobs.gpu the latency knobs come from sim/perf.js's formulas (unless given),
  // one step is one cycle, and a problem size sets the CTA's tiles; without it nothing changes.

  /** Names of the unit knobs (KNOB_TABLE.units), dtype and headDim included (FA3 owns those). */
  var UNIT_KNOBS = KNOB_TABLE.units.map(function (k) { return k.name; }).concat(["dtype", "headDim"]);

  /** A run in steps whose units cannot be derived (a census that deadlocks): no time or throughput, and why. */
  function stepsWithoutUnits(structure, knobs, options, why) {
    var plain = simulateSteps(structure, knobs, options);
    plain.units = null; plain.time = null; plain.tflops = null; plain.peakFraction = null; plain.bottleneck = null; plain.criticalPath = null;
    if (plain.error === null) plain.messages.push("units: no time or throughput: " + why);
    return plain;
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
      // An entry decided by the structure's own run (the program model: sim/units.js programEntry).
      if (u.adapt) u = u.adapt(P, structure, base);
      // Knob > the source's literal fact > FA3's rule > default (perf.js unitParams).
      var fa3 = base.dtype !== undefined && base.headDim !== undefined, ft = fa3 ? fa3Tile(base.dtype, base.headDim) : null;
      var up = P.unitParams(structure, knobs, { tileDims: u.tileDims, defaultTile: u.defaultTile,
        ruleTile: ft ? { text: ft.kBlockM + "x" + ft.kBlockN, source: "FA3 tile_size_fwd_sm90 (dtype, headDim)" } : null,
        modelDtype: base.dtype !== undefined ? { value: base.dtype, source: "knob (FA3 build)" } : null });
      p.dtype = up.dtype;
      p.outDtype = up.outDtype;
      sources.outDtype = up.sources.outDtype;
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
      if (e.stepsOnly) return stepsWithoutUnits(structure, strip, options, e.message);
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
      inputs: { tile: td.join("x"), dtype: p.dtype, outDtype: p.outDtype, headdim: name === "attention" || u.headdim ? p.headdim : null, cluster: p.cluster,
        problem: prob ? prob.text : null, tiles: prob ? prob.tiles : null, ctas: ct ? ct.ctas : null, waves: ct ? ct.waves : null,
        lastWaveTiles: ct ? ct.lastWaveTiles : null, l2Reuse: p.reuse, memLatency: p.memLatency === undefined ? null : p.memLatency },
      hbmFloorCycles: null, bottleneckWhy: null, peakTflops: P.peakTflops(gpu, p.dtype), unpriced: u.unpriced || []
    };
    result.time = null; result.tflops = null; result.peakFraction = null; result.bottleneck = null; result.criticalPath = null;
    // A run that is not the whole kernel (the program model: a role stopped) claims no time.
    var incomplete = result.error === null && result.model === name && u.incomplete ? u.incomplete(v) : null;
    if (incomplete !== null) {
      result.units.incomplete = incomplete;
      result.messages.push("units: " + incomplete);
      return result;
    }
    if (result.error !== null || result.deadlock !== null || result.model !== name) return result;
    var cta = ctaTileCount(result, k), waves = cta.oneTile && ct ? ct.waves : 1;
    var floorCta = u.loads(k, result) * lat.loadTransfer, floor = waves * floorCta;
    var cycles = waves * Math.max(result.total, floorCta);
    var us = cycles / gpu.clockMHz;
    // Without a problem: the CTA's schedule on every persistent CTA (SMs in whole clusters).
    var ctas = ct ? ct.ctas : P.ctaTiles(1, gpu, cl[0] * cl[1]).ctas;
    var flops = prob ? prob.flops : ctas * cta.tiles * u.tileFlops(p, k);
    var bn = P.classifyBottleneck({ total: result.total, busy: v.tensorCoreBusySteps, floor: floorCta,
      candidates: u.candidates(v, k, Math.max(0, result.total - v.tensorCoreBusySteps), result) });
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
   * The tiles one CTA of the run draws and whether the grid holds one CTA per tile: a program run
   * says both (its verdict's tilesPerCta and rule, TILES_PER_CTA in sim/interpret/expr.js: a
   * single-tile scheduler, FA4's single-tile classes or 88's individual scheduler, or no tile loop
   * at all, as the SM90 basic kernel layer); a hand-written model's CTA is persistent, outputTiles.
   * One tile per CTA: the problem's waves (perf.js ctaTiles) run that CTA's schedule one after
   * another (simulateUnits).
   */
  function ctaTileCount(result, k) {
    var v = result.verdict || {};
    if (result.model !== "program" || typeof v.tilesPerCta !== "number") return { tiles: k.outputTiles, oneTile: false };
    return { tiles: v.tilesPerCta, oneTile: v.tilesPerCtaRule !== "outputTiles" };
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
    var model = MODELS[name], src = sourceKnobsOf(model, structure);
    var base = model.normalize({}, src).knobs;
    // Knobs a user sets (not the ones the source derives from them), each reset on its own.
    var free = knobsFor(name, structure).filter(function (spec) { return !spec.derived; }).map(function (spec) { return spec.name; });
    var differing = free.filter(function (k) { return knobs[k] !== base[k]; }).sort();
    var saved = setEventsWanted(false);
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
      setEventsWanted(saved);
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
    pageModel: pageModel,
    modelTakesFlags: modelTakesFlags,
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
