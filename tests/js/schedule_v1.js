/* FROZEN v1 REFERENCE (schedule.js at commit 2802e86): the differential tests in test_schedule.js compare
 * the engine with it where the rules agree. Do not edit; delete once the engine is trusted.
 *
 *
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

  /** Hard cap on the (estimated) number of blocks, so no knob setting can freeze a browser tab. */
  var MAX_BLOCKS = 2000000;

  /** Stage counts tried by verdict.minStagesToHideTma (the stages knob range). */
  var MIN_STAGES_SEARCH_MAX = 64;

  /** Priority of wait reasons when several constraints bind at the same step: tma only if alone. */
  var WAIT_REASON_PRIORITY = ["order", "epilogue-order", "epilogue", "tma"];

  /** Block kinds, in the order the page's legend lists them. */
  var BLOCK_KINDS = ["issue", "filling", "full", "wgmma", "epilogue", "wait"];

  /** Shared empty dependency list (frozen: blocks share it, nobody may push into it). */
  var EMPTY = Object.freeze([]);

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
    releaseLag: { min: 0, max: 63, label: "release lag (k-tiles)", doc: "K_PIPE_MMAS: release trails WGMMA; < S" }
  };

  /** Defaults of the GEMM model (model v1: releaseLag 0). */
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
    releaseLag: 0
  };

  /** Enumerated knobs of the GEMM model (not sliders): allowed values, the first is not the default. */
  var GEMM_KNOB_CHOICES = {
    schedule: ["pingpong", "cooperative"]
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

  /** Validate a knob set for the GEMM model: returns {knobs, messages}; never throws. */
  function normalizeGemmKnobs(input) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "gemm" };
    var name;
    for (name in GEMM_KNOB_RANGES) {
      knobs[name] = normalizeNumber(name, raw[name], GEMM_KNOB_RANGES[name], GEMM_DEFAULT_KNOBS[name], messages);
    }
    for (name in GEMM_KNOB_CHOICES) {
      var value = raw[name];
      var fallback = GEMM_DEFAULT_KNOBS[name];
      var text = typeof value === "string" ? value.trim().toLowerCase() : null;
      if (value === undefined || value === null) knobs[name] = fallback;
      else if (text !== null && GEMM_KNOB_CHOICES[name].indexOf(text) >= 0) knobs[name] = text;
      else {
        messages.push(name + ": " + showValue(value) + " is not one of " +
          GEMM_KNOB_CHOICES[name].join(", ") + "; using the default " + fallback);
        knobs[name] = fallback;
      }
    }
    // A stage must be released before it is refilled, and a lag of S or more k-tiles would make the
    // release of a stage wait for a WGMMA whose load needs that same stage: a deadlock.
    if (knobs.releaseLag > knobs.stages - 1) {
      messages.push("releaseLag: " + knobs.releaseLag + " must be below stages (" + knobs.stages +
        "); clamped to " + (knobs.stages - 1));
      knobs.releaseLag = knobs.stages - 1;
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
  // Timeline builder (shared by all models)

  /**
   * Collects blocks per lane; finalize() numbers them in lane order and turns `after` block
   * objects into ids. Models append blocks to a lane in start order, so no sort is needed.
   */
  function Timeline(lanes) {
    this.lanes = lanes;
    this.perLane = lanes.map(function () { return []; });
    this.total = 0;
  }

  /** Append a block to lane index laneIndex; `after` holds block objects until finalize(). */
  Timeline.prototype.add = function (laneIndex, kind, start, end, tile, k, stage, reason, lines, after) {
    var block = {
      id: -1,
      lane: this.lanes[laneIndex].id,
      kind: kind,
      start: start,
      end: end,
      tile: tile,
      k: k,
      stage: stage,
      reason: reason,
      lines: lines,
      after: after
    };
    this.perLane[laneIndex].push(block);
    if (end > this.total) this.total = end;
    return block;
  };

  /** Flatten to {blocks, laneBlocks}: ids = array index, lanes in display order, then by start. */
  Timeline.prototype.finalize = function () {
    var count = 0;
    for (var n = 0; n < this.perLane.length; n++) count += this.perLane[n].length;
    var blocks = new Array(count); // presized: growing by push re-copies a million slots
    var next = 0;
    var laneBlocks = {};
    for (var li = 0; li < this.perLane.length; li++) {
      var list = this.perLane[li];
      var sorted = true;
      for (var i = 1; i < list.length; i++) {
        if (list[i].start < list[i - 1].start) { sorted = false; break; }
      }
      // Defensive: a model that appends out of order still yields per-lane start order.
      if (!sorted) list = list.slice().sort(function (a, b) { return a.start - b.start; });
      var ids = new Array(list.length);
      for (var j = 0; j < list.length; j++) {
        list[j].id = next;
        ids[j] = next;
        blocks[next++] = list[j];
      }
      this.perLane[li] = null; // let the per-lane lists go as soon as they are copied
      laneBlocks[this.lanes[li].id] = ids;
    }
    for (var b = 0; b < blocks.length; b++) {
      var after = blocks[b].after;
      // typeof check: an after array reached twice is converted only once.
      for (var a = 0; a < after.length; a++) {
        if (typeof after[a] === "object") after[a] = after[a].id;
      }
    }
    return { blocks: blocks, laneBlocks: laneBlocks };
  };

  // ---------------------------------------------------------------------------------------------
  // GEMM model

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
    // tile, and at most one wait before each of those.
    return n * (2 + (knobs.tmaLatency > 0 ? 1 : 0)) + copies * 2 * (n + epilogues);
  }

  /**
   * Scratch list for building `after` arrays: pushing into a fresh [] over-allocates its backing
   * store (16 slots), which at a million blocks is most of the garbage; exactArray() copies it
   * into an array of exactly the right length.
   */
  var scratch = [];

  /** Push every block of refs into scratch unless already there (tiny lists: linear scan). */
  function pushRefs(refs) {
    for (var i = 0; i < refs.length; i++) {
      if (refs[i] !== null && scratch.indexOf(refs[i]) < 0) scratch.push(refs[i]);
    }
  }

  /** The scratch list as a new exact-length array (the shared EMPTY when empty); clears scratch. */
  function exactArray() {
    var out = scratch.length === 0 ? EMPTY : scratch.slice();
    scratch.length = 0;
    return out;
  }

  /**
   * Run the GEMM model v1 on validated knobs.
   *
   * With build false no block is allocated: the run only answers whether a `tma` wait starts
   * after step 0 (and stops at the first one), which is what minStagesToHideTma needs per S.
   */
  function runGemm(knobs, refs, build) {
    var S = knobs.stages, O = knobs.outputTiles, K = knobs.kTiles;
    var L = knobs.tmaLatency, W = knobs.wgmmaLatency, E = knobs.epilogueLatency;
    var lag = knobs.releaseLag;
    var pingpong = knobs.consumerWGs === 2 && knobs.schedule === "pingpong";
    var cooperative = knobs.consumerWGs === 2 && knobs.schedule === "cooperative";
    var N = O * K;
    var lanes = gemmLanes(knobs);
    var PRODUCER = 0, FIRST_STAGE = 1, FIRST_CONSUMER = 1 + S;
    var tl = build ? new Timeline(lanes) : null;

    var release = new Float64Array(N); // R[g]: step at which stage s(g) is released by tile g
    var releaseBlk = build ? new Array(N) : null; // the WGMMA whose end is R[g]
    var issueEnd = 0, issueBlk = null; // previous issue
    var laneEnd = [0, 0], laneLast = [null, null]; // per consumer WG: end and last block of its lane
    var mmaEnd = [0, 0], mmaBlk = [null, null]; // per WG: previous WGMMA (within the current tile)
    var epiEnd = [0, 0], epiRefs = [EMPTY, EMPTY]; // per WG: its previous tile's epilogue end
    var orderEnd = 0, orderBlk = null; // pingpong: end of tile o-1's last WGMMA (math order barrier)
    var epiOrderEnd = 0, epiOrderRefs = EMPTY; // pingpong: end of tile o-1's epilogue
    var waits = [newWaitTotals(), newWaitTotals()];
    var busy = 0, busyEnd = 0; // union of WGMMA intervals (they arrive sorted by start)
    var lateTma = false; // some `tma` wait starts after step 0
    var WG0 = [0], WG1 = [1], BOTH = [0, 1];

    /** Close the idle gap of WG c's lane before a block starting at start; false = stop early. */
    function gapBefore(c, start, reason, tile, k, stage) {
      var from = laneEnd[c];
      if (start <= from) return true;
      if (!build) return !(reason === "tma" && from > 0);
      var lines = reason === "tma" ? refs.wait : reason === "epilogue" ? refs.epilogue
        : reason === "order" ? refs.orderMma : refs.orderEpilogue;
      if (reason === "tma" && from > 0) lateTma = true;
      var after = laneLast[c] === null ? EMPTY : [laneLast[c]];
      tl.add(FIRST_CONSUMER + c, "wait", from, start, tile, k, stage, reason, lines, after);
      waits[c][reason] += start - from;
      waits[c].total += start - from;
      return true;
    }

    for (var o = 0; o < O; o++) {
      var wgs = cooperative ? BOTH : pingpong && o % 2 === 1 ? WG1 : WG0;
      for (var k = 0; k < K; k++) {
        var g = o * K + k;
        var s = g % S;

        // Producer: acquire + TMA issue take one step, once the previous issue is done and the
        // stage's previous tile (g - S) has been released.
        var freed = g >= S ? release[g - S] : 0;
        var issueStart = issueEnd > freed ? issueEnd : freed;
        var issue = null;
        if (build) {
          if (issueBlk !== null && issueEnd === issueStart) scratch.push(issueBlk);
          if (g >= S && freed === issueStart) scratch.push(releaseBlk[g - S]);
          issue = tl.add(PRODUCER, "issue", issueStart, issueStart + 1, o, k, s, null, refs.issue, exactArray());
        }
        issueEnd = issueStart + 1;
        issueBlk = issue;
        var fillEnd = issueEnd + L;
        var fillBlk = issue; // with L = 0 the stage is full when the issue ends
        if (build && L > 0) {
          fillBlk = tl.add(FIRST_STAGE + s, "filling", issueEnd, fillEnd, o, k, s, null, refs.filling, [issue]);
        }

        // Consumers: WGMMA k of tile o on every WG that computes tile o.
        var firstStart = 0, firstMma = null;
        for (var wi = 0; wi < wgs.length; wi++) {
          var c = wgs[wi];
          var start = fillEnd;
          var prevEnd = k > 0 ? mmaEnd[c] : epiEnd[c];
          if (prevEnd > start) start = prevEnd;
          var ordered = pingpong && k === 0 && o > 0;
          if (ordered && orderEnd > start) start = orderEnd;
          var reason = ordered && orderEnd === start ? "order"
            : k === 0 && epiEnd[c] === start && o > 0 ? "epilogue" : "tma";
          if (!gapBefore(c, start, reason, o, k, s)) return { lateTmaWait: true };
          var mma = null;
          if (build) {
            if (fillEnd === start) scratch.push(fillBlk);
            if (k > 0 && mmaEnd[c] === start) scratch.push(mmaBlk[c]);
            if (k === 0 && epiEnd[c] === start) pushRefs(epiRefs[c]);
            if (ordered && orderEnd === start && scratch.indexOf(orderBlk) < 0) scratch.push(orderBlk);
            mma = tl.add(FIRST_CONSUMER + c, "wgmma", start, start + W, o, k, s, null, refs.wgmma, exactArray());
            laneLast[c] = mma;
          }
          mmaEnd[c] = start + W;
          mmaBlk[c] = mma;
          laneEnd[c] = start + W;
          if (wi === 0) { firstStart = start; firstMma = mma; }
        }
        // The stage sits FULL from the end of its fill until its WGMMA starts.
        if (build && firstStart > fillEnd) {
          tl.add(FIRST_STAGE + s, "full", fillEnd, firstStart, o, k, s, null, refs.full, [fillBlk]);
        }
        var unionFrom = firstStart > busyEnd ? firstStart : busyEnd;
        if (firstStart + W > unionFrom) busy += firstStart + W - unionFrom;
        if (firstStart + W > busyEnd) busyEnd = firstStart + W;

        // consumer_release: with releaseLag = 0 tile g is released when its WGMMA ends; with lag
        // it waits for WGMMA k + lag of the same output tile (the tail releases the rest).
        // So WGMMA k releases the k-tiles kr with min(kr + lag, K - 1) === k.
        var releaseEnd = firstStart + W;
        var krLast = k === K - 1 ? K - 1 : k - lag;
        for (var kr = Math.max(0, k - lag); kr <= krLast; kr++) {
          release[o * K + kr] = releaseEnd;
          if (build) releaseBlk[o * K + kr] = firstMma;
        }
      }

      // Epilogue of tile o on each of its WGs, after its last WGMMA; in pingpong the order barrier
      // also alternates epilogues, so it waits for tile o-1's epilogue too.
      var tileEnd = 0, tileEndRefs = EMPTY;
      for (var we = 0; we < wgs.length; we++) {
        var cw = wgs[we];
        var epiStart = mmaEnd[cw];
        var epiOrdered = pingpong && o > 0;
        if (epiOrdered && epiOrderEnd > epiStart) epiStart = epiOrderEnd;
        var epiAfter = null;
        if (build) {
          if (mmaEnd[cw] === epiStart) scratch.push(mmaBlk[cw]);
          if (epiOrdered && epiOrderEnd === epiStart) pushRefs(epiOrderRefs);
          epiAfter = exactArray();
        }
        if (E > 0) {
          if (!gapBefore(cw, epiStart, "epilogue-order", o, null, null)) return { lateTmaWait: true };
          var epi = null;
          if (build) {
            epi = tl.add(FIRST_CONSUMER + cw, "epilogue", epiStart, epiStart + E, o, null, null, null, refs.epilogue, epiAfter);
            laneLast[cw] = epi;
          }
          laneEnd[cw] = epiStart + E;
          epiEnd[cw] = epiStart + E;
          epiRefs[cw] = build ? [epi] : EMPTY;
        } else {
          // No block: the "epilogue end" is its start, bound by whatever bound that start.
          epiEnd[cw] = epiStart;
          epiRefs[cw] = build ? epiAfter : EMPTY;
        }
        if (we === 0) { tileEnd = epiEnd[cw]; tileEndRefs = epiRefs[cw]; }
      }
      if (pingpong) {
        orderEnd = mmaEnd[wgs[0]];
        orderBlk = mmaBlk[wgs[0]];
        epiOrderEnd = tileEnd;
        epiOrderRefs = tileEndRefs;
      }
    }
    if (!build) return { lateTmaWait: false };
    var flat = tl.finalize();
    return {
      total: tl.total,
      lanes: lanes,
      blocks: flat.blocks,
      laneBlocks: flat.laneBlocks,
      waits: waits,
      busy: busy,
      lateTmaWait: lateTma
    };
  }

  /** Zeroed per-reason wait totals of one consumer lane. */
  function newWaitTotals() {
    return { tma: 0, order: 0, "epilogue-order": 0, epilogue: 0, total: 0 };
  }

  /** Smallest S in 1..64 whose run has no `tma` wait starting after step 0, else null. */
  function minStagesToHideTma(knobs, currentHasLateTma) {
    for (var S = 1; S <= MIN_STAGES_SEARCH_MAX; S++) {
      var late;
      if (S === knobs.stages) late = currentHasLateTma;
      else if (knobs.releaseLag > S - 1) continue; // that lag is not allowed with S stages
      else {
        var variant = {};
        for (var key in knobs) variant[key] = knobs[key];
        variant.stages = S;
        late = runGemm(variant, null, false).lateTmaWait;
      }
      if (!late) return S;
    }
    return null;
  }

  /** One-line human summary of a GEMM verdict. */
  function gemmSummary(knobs, verdict) {
    var C = knobs.consumerWGs;
    var head = (C === 2 ? knobs.schedule + ", 2 consumer WGs" : "1 consumer WG") + ": " + verdict.total + " steps";
    var util = Math.round(verdict.tensorCoreUtilization * 1000) / 10;
    var parts = [head, "tensor cores busy " + util + "%"];
    var reasons = WAIT_REASON_PRIORITY.slice().reverse();
    var lanesText = Object.keys(verdict.waits).map(function (lane) {
      var w = verdict.waits[lane];
      var items = reasons.filter(function (r) { return w[r] > 0; }).map(function (r) { return r + " " + w[r]; });
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
  function simulateGemm(knobs, refs) {
    var run = runGemm(knobs, refs, true);
    var waits = {};
    for (var c = 0; c < knobs.consumerWGs; c++) waits["consumer" + c] = run.waits[c];
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0,
      tensorCoreBusySteps: run.busy,
      minStagesToHideTma: minStagesToHideTma(knobs, run.lateTmaWait),
      summary: ""
    };
    verdict.summary = gemmSummary(knobs, verdict);
    return { total: run.total, lanes: run.lanes, blocks: run.blocks, laneBlocks: run.laneBlocks, verdict: verdict };
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
    consumerWGs: { min: 1, max: 2, label: "consumer WGs (C)", doc: "math warpgroups, each on its rows of every tile" }
  };

  /** On/off knobs of the attention model (refinements; off = the plain model). */
  var ATTENTION_KNOB_FLAGS = {
    intraWGOverlap: { label: "intra-WG overlap", doc: "issue GEMM0(j) before GEMM1(j-1): softmax(j) overlaps GEMM1(j-1)" },
    interWGPingpong: { label: "inter-WG pingpong", doc: "named barrier alternates the WGs' GEMM phases (C = 2)" }
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
    interWGPingpong: false
  };

  /** Steps the load warp spends on one Vt -> V transpose (FA3 Transpose_V); not a knob. */
  var TRANSPOSE_STEPS = 1;

  /** Wait reasons of the attention model, in tie-break priority order. */
  var ATTENTION_WAIT_REASONS = ["barrier", "q", "k", "v"];

  /** Block kinds of the attention model, in legend order. */
  var ATTENTION_BLOCK_KINDS = ["issue", "transpose", "filling", "full", "gemm0", "softmax", "gemm1", "epilogue", "wait"];

  /** Accepted spellings of a boolean knob (checkbox values, query strings). */
  var FLAG_WORDS = { "true": true, "1": true, on: true, yes: true, "false": false, "0": false, off: false, no: false };

  /** Validate one on/off knob: default if missing, else a boolean from FLAG_WORDS, else default + message. */
  function normalizeFlag(name, value, fallback, messages) {
    if (value === undefined || value === null) return fallback;
    if (value === true || value === false) return value;
    var key = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim().toLowerCase() : null;
    if (key !== null && Object.prototype.hasOwnProperty.call(FLAG_WORDS, key)) return FLAG_WORDS[key];
    messages.push(name + ": " + showValue(value) + " is not on/off; using the default " + fallback);
    return fallback;
  }

  /** Validate a knob set for the attention model: returns {knobs, messages}; never throws. */
  function normalizeAttentionKnobs(input) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "attention" };
    var name;
    for (name in ATTENTION_KNOB_RANGES) {
      knobs[name] = normalizeNumber(name, raw[name], ATTENTION_KNOB_RANGES[name], ATTENTION_DEFAULT_KNOBS[name], messages);
    }
    for (name in ATTENTION_KNOB_FLAGS) {
      knobs[name] = normalizeFlag(name, raw[name], ATTENTION_DEFAULT_KNOBS[name], messages);
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /** Pipelines of a structure that are real declarations (not template parameters), as an array. */
  function declaredPipelines(st) {
    return (Array.isArray(st.pipelines) ? st.pipelines : []).filter(function (p) {
      return isObject(p) && typeof p.alias === "string" && !p.template_parameter;
    });
  }

  /** Alias of the first declared pipeline whose alias ends with suffix (case-sensitive), or null. */
  function pipelineEndingWith(pipes, suffix) {
    for (var i = 0; i < pipes.length; i++) {
      var alias = pipes[i].alias;
      if (alias.length > suffix.length && alias.slice(-suffix.length) === suffix) return alias;
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
   * The model simulate() uses when knobs.model is absent: "attention" when the structure has separate
   * K and V pipelines (aliases ending in K and V) or, failing that, buffers of operands K and V plus
   * mma ops on both a qk and a pv tiled MMA (88_hopper_fmha's shared K/V pipeline); else "gemm".
   */
  function defaultModel(structure) {
    return attentionShape(structure).attention ? "attention" : "gemm";
  }

  /** Refs of the given ops (already filtered), sorted and frozen. */
  function refsOf(ops, path) {
    return sortRefs(ops.map(function (op) { return makeRef(path, op.line, op.end_line, op.op, op.text); }));
  }

  /** Frozen union of ref lists (one ref per path, line and op), sorted by line. */
  function unionRefs(lists) {
    var seen = {};
    var out = [];
    lists.forEach(function (list) {
      list.forEach(function (ref) {
        var key = ref.path + ":" + ref.line + ":" + ref.op;
        if (!seen[key]) { seen[key] = true; out.push(ref); }
      });
    });
    return sortRefs(out);
  }

  /**
   * Source references of the attention model, computed once per simulate() call and shared by
   * reference: {gemm0, softmax, gemm1, releaseK, releaseV, issueK, issueV, issueQ, fillK, fillV,
   * fillQ, fullK, fullV, fullQ, transpose, fullVt, epilogue, barrier, waitK, waitV, waitQ, producer,
   * consumer, shape}. See the README's "Attention model" for the rules.
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
      producer: functionInfo(producer),
      consumer: functionInfo(consumer),
      shape: shape
    };
  }

  /**
   * Lanes of the attention model in display order: producer, q_stage0, then k_stage*, v_stage*
   * (and vt_stage* when the structure has a Vt pipeline) or, with 88's shared K/V pipeline,
   * kv_stage*; then per consumer WG c: consumer{c} (its GEMMs, waits and epilogue) and
   * consumer{c}_softmax (its softmax).
   */
  function attentionLanes(knobs, refs) {
    var shape = refs && refs.shape ? refs.shape : attentionShape(null);
    var lanes = [{ id: "producer", label: "producer (load warp)", group: "producer" },
      { id: "q_stage0", label: "Q", group: "stage" }];
    var rings = shape.kv === "shared" ? [["kv", "K/V"]] : [["k", "K"], ["v", "V"]].concat(shape.vt ? [["vt", "Vt"]] : []);
    rings.forEach(function (ring) {
      for (var s = 0; s < knobs.stages; s++) lanes.push({ id: ring[0] + "_stage" + s, label: ring[1] + " stage " + s, group: "stage" });
    });
    for (var c = 0; c < knobs.consumerWGs; c++) {
      lanes.push({ id: "consumer" + c, label: "consumer WG" + c, group: "consumer" });
      lanes.push({ id: "consumer" + c + "_softmax", label: "WG" + c + " softmax", group: "softmax" });
    }
    return lanes;
  }

  /** Upper bound on the attention block count (assumes a Vt pipeline), known before simulating. */
  function estimateAttentionBlocks(knobs) {
    var O = knobs.outputTiles, J = knobs.kvBlocks, C = knobs.consumerWGs;
    // Per tile: 3J + 1 producer blocks (K, Vt, transpose, Q), 2 per stage item (filling + full)
    // over 3J + 1 items, and per WG 2J GEMMs + J softmax + 1 epilogue + at most 2J + 1 waits.
    return O * ((3 * J + 1) + 2 * (3 * J + 1) + C * (5 * J + 2));
  }

  /**
   * A ring of S stages (one pipeline). Items are numbered in issue order; item n uses stage n mod S
   * and may be issued once item n - S has been released by every consumer (need of them).
   */
  function Ring(S, firstLane, count, need) {
    this.S = S;
    this.firstLane = firstLane;
    this.need = need;
    this.next = 0;
    this.fillEnd = new Float64Array(count);
    this.fillBlk = new Array(count);
    this.used = new Uint8Array(count);
    this.relCount = new Uint8Array(count);
    this.relTime = new Float64Array(count);
    this.relBlk = new Array(count);
  }

  /** True when item n may be issued (its stage's previous item is released). */
  Ring.prototype.free = function (n) {
    return n < this.S || this.relCount[n - this.S] >= this.need;
  };

  /** Step at which item n's stage is free (0 for the first S items). */
  Ring.prototype.freeAt = function (n) {
    return n < this.S ? 0 : this.relTime[n - this.S];
  };

  /** One consumer's release of item n at time t by block blk. */
  Ring.prototype.release = function (n, t, blk) {
    if (this.relCount[n] === 0 || t > this.relTime[n]) { this.relTime[n] = t; this.relBlk[n] = blk; }
    this.relCount[n]++;
  };

  /**
   * Producer actions of one output tile, in the load warp's order (FA3's): K[0], Q, then
   * plain: V[0], K[1], V[1], ...; intraWGOverlap: K[1], V[0], K[2], V[1], ..., V[J-1] (K runs one
   * block ahead of V, because GEMM0(j+1) is issued before GEMM1(j)). With a Vt pipeline, V[j] is
   * a TMA into Vt[j] followed by the transpose T[j] (in intra mode after the next K issue).
   */
  function producerActions(J, intra, vt) {
    var acts = [["K", 0], ["Q", 0]];
    for (var j = 0; j < J; j++) {
      if (intra) {
        if (vt) {
          acts.push(["Vt", j]);
          if (j + 1 < J) acts.push(["K", j + 1]);
          acts.push(["T", j]);
        } else {
          if (j + 1 < J) acts.push(["K", j + 1]);
          acts.push(["V", j]);
        }
      } else {
        if (j > 0) acts.push(["K", j]);
        if (vt) { acts.push(["Vt", j]); acts.push(["T", j]); } else acts.push(["V", j]);
      }
    }
    return acts;
  }

  /** Zeroed per-reason wait totals of one attention consumer lane. */
  function newAttentionWaits() {
    return { barrier: 0, q: 0, k: 0, v: 0, total: 0 };
  }

  /**
   * Run the attention model on validated knobs. The load warp and each consumer WG are sequential
   * programs; the loop advances whichever can take its next step (every dependency already
   * computed), so no ordering of the whole schedule has to be worked out in advance.
   */
  function runAttention(knobs, refs) {
    var S = knobs.stages, O = knobs.outputTiles, J = knobs.kvBlocks, C = knobs.consumerWGs;
    var L = knobs.tmaLatency, X = knobs.softmaxLatency, E = knobs.epilogueLatency;
    var intra = knobs.intraWGOverlap;
    var pingpong = C === 2 && knobs.interWGPingpong;
    // Without the barrier the WGs run in lockstep and the tensor core interleaves their GEMMs:
    // each takes C times its own latency.
    var share = pingpong ? 1 : C;
    var G0 = knobs.gemm0Latency * share, G1 = knobs.gemm1Latency * share;
    var shape = refs.shape;
    var vt = shape.vt && shape.kv === "separate";
    var shared = shape.kv === "shared";
    var lanes = attentionLanes(knobs, refs);
    var laneIndex = {};
    lanes.forEach(function (lane, i) { laneIndex[lane.id] = i; });
    var tl = new Timeline(lanes);
    var N = O * J;

    var qRing = new Ring(1, laneIndex.q_stage0, O, C);
    var kRing, vRing, vtRing = null;
    if (shared) {
      kRing = vRing = new Ring(S, laneIndex.kv_stage0, 2 * N, C);
    } else {
      kRing = new Ring(S, laneIndex.k_stage0, N, C);
      vRing = new Ring(S, laneIndex.v_stage0, N, C);
      if (vt) vtRing = new Ring(S, laneIndex.vt_stage0, N, 1);
    }
    var kItem = new Int32Array(N).fill(-1), vItem = new Int32Array(N).fill(-1), vtItem = vt ? new Int32Array(N).fill(-1) : null;

    var acts = producerActions(J, intra, vt);
    var prodTile = 0, prodPos = 0, prodEnd = 0, prodBlk = null;

    /** Add a block with its operand (attention blocks name the pipeline operand, or null). */
    function add(laneIdx, kind, start, end, tile, j, stage, reason, lines, after, operand) {
      var blk = tl.add(laneIdx, kind, start, end, tile, j, stage, reason, lines, after);
      blk.operand = operand;
      return blk;
    }

    /** Binding dependencies: the blocks of cands ([time, block]) that end exactly at start. */
    function binding(cands, start) {
      for (var i = 0; i < cands.length; i++) {
        var blk = cands[i][1];
        if (blk && cands[i][0] === start && scratch.indexOf(blk) < 0) scratch.push(blk);
      }
      return exactArray();
    }

    /** Issue item (ring, o, j) from the producer lane: acquire + TMA, then the stage fills for L. */
    function issue(ring, o, j, lines, fillLines, operand) {
      var n = ring.next;
      if (!ring.free(n)) return -1;
      var freed = ring.freeAt(n);
      var start = prodEnd > freed ? prodEnd : freed;
      var after = binding([[prodEnd, prodBlk], [freed, n >= ring.S ? ring.relBlk[n - ring.S] : null]], start);
      var stage = n % ring.S;
      var blk = add(0, "issue", start, start + 1, o, j, stage, null, lines, after, operand);
      prodEnd = start + 1;
      prodBlk = blk;
      ring.fillEnd[n] = prodEnd + L;
      ring.fillBlk[n] = L > 0 ? add(ring.firstLane + stage, "filling", prodEnd, prodEnd + L, o, blk.k, stage, null, fillLines, [blk], blk.operand) : blk;
      ring.next++;
      return n;
    }

    /** Run the producer's next action if its dependencies are known; false when it must wait. */
    function stepProducer() {
      if (prodTile >= O) return false;
      var act = acts[prodPos], o = prodTile, j = act[1], g = o * J + j, n;
      if (act[0] === "K") {
        n = issue(kRing, o, j, refs.issueK, refs.fillK, "K");
        if (n < 0) return false;
        kItem[g] = n;
      } else if (act[0] === "Q") {
        if (issue(qRing, o, null, refs.issueQ, refs.fillQ, "Q") < 0) return false;
      } else if (act[0] === "V") {
        n = issue(vRing, o, j, refs.issueV, refs.fillV, "V");
        if (n < 0) return false;
        vItem[g] = n;
      } else if (act[0] === "Vt") {
        n = issue(vtRing, o, j, refs.issueV, refs.fillV, "Vt");
        if (n < 0) return false;
        vtItem[g] = n;
      } else { // "T": transpose Vt[j] -> V[j] on the load warp
        n = vRing.next;
        if (!vRing.free(n)) return false;
        var src = vtItem[g];
        var freed = vRing.freeAt(n);
        var start = Math.max(prodEnd, vtRing.fillEnd[src], freed);
        var after = binding([[prodEnd, prodBlk], [vtRing.fillEnd[src], vtRing.fillBlk[src]],
          [freed, n >= S ? vRing.relBlk[n - S] : null]], start);
        var tblk = add(0, "transpose", start, start + TRANSPOSE_STEPS, o, j, n % S, null, refs.transpose, after, "V");
        // The Vt stage sits full until the transpose reads it, and is released when it ends.
        useItem(vtRing, src, start, o, j, refs.fullVt);
        vtRing.release(src, start + TRANSPOSE_STEPS, tblk);
        prodEnd = start + TRANSPOSE_STEPS;
        prodBlk = tblk;
        vRing.fillEnd[n] = prodEnd;
        vRing.fillBlk[n] = tblk;
        vRing.next++;
        vItem[g] = n;
      }
      prodPos++;
      if (prodPos === acts.length) { prodPos = 0; prodTile++; }
      return true;
    }

    /** First use of item n of a ring at step t: the stage shows FULL from its fill end until t. */
    function useItem(ring, n, t, o, j, lines) {
      if (ring.used[n]) return;
      ring.used[n] = 1;
      if (t > ring.fillEnd[n]) {
        var fb = ring.fillBlk[n];
        add(ring.firstLane + n % ring.S, "full", ring.fillEnd[n], t, o, j, n % ring.S, null, lines, [fb], fb.operand);
      }
    }

    // Consumer WG state.
    var wg = [];
    for (var c = 0; c < C; c++) {
      wg.push({ c: c, o: 0, pos: 0, free: 0, last: null, lane: laneIndex["consumer" + c],
        smLane: laneIndex["consumer" + c + "_softmax"], phases: 0, phaseEnd: 0, phaseBlk: null, waits: newAttentionWaits() });
    }
    var opsPerTile = intra ? 2 * J + 2 : 3 * J + 1;

    /** Barrier gate of WG w's next GEMM phase: [time, block] or null when not yet known. */
    function gate(w) {
      if (!pingpong) return [0, null];
      var other = wg[1 - w.c];
      if (w.c === 1) return other.phases >= w.phases + 1 ? [other.phaseEnd, other.phaseBlk] : null;
      if (w.phases === 0) return [0, null];
      return other.phases >= w.phases ? [other.phaseEnd, other.phaseBlk] : null;
    }

    /** Start a block of WG w at the max of cands ([time, block, reason]); emits the wait before it. */
    function startAt(w, cands, o, j, stage) {
      var start = w.free;
      for (var i = 0; i < cands.length; i++) if (cands[i][0] > start) start = cands[i][0];
      if (start > w.free) {
        var reason = null;
        for (var r = 0; r < ATTENTION_WAIT_REASONS.length && reason === null; r++) {
          for (var q = 0; q < cands.length; q++) {
            if (cands[q][2] === ATTENTION_WAIT_REASONS[r] && cands[q][0] === start) { reason = cands[q][2]; break; }
          }
        }
        var lines = reason === "k" ? refs.waitK : reason === "v" ? refs.waitV : reason === "q" ? refs.waitQ : refs.barrier;
        add(w.lane, "wait", w.free, start, o, j, stage, reason, lines, w.last === null ? EMPTY : [w.last], null);
        w.waits[reason] += start - w.free;
        w.waits.total += start - w.free;
      }
      if (w.last !== null && w.free === start) scratch.push(w.last);
      return { start: start, after: binding(cands, start) };
    }

    /** Close a GEMM phase of WG w (pingpong bookkeeping). */
    function endPhase(w, blk) {
      w.phases++;
      w.phaseEnd = blk.end;
      w.phaseBlk = blk;
    }

    /** GEMM0(j) of WG w: needs K[j] full, Q full (j = 0) and the barrier. */
    function gemm0(w, o, j) {
      var g = o * J + j, n = kItem[g];
      if (n < 0) return false;
      if (j === 0 && qRing.next <= o) return false;
      var gt = gate(w);
      if (gt === null) return false;
      var cands = [[kRing.fillEnd[n], kRing.fillBlk[n], "k"], [gt[0], gt[1], "barrier"]];
      if (j === 0) cands.push([qRing.fillEnd[o], qRing.fillBlk[o], "q"]);
      var st = startAt(w, cands, o, j, n % S);
      useItem(kRing, n, st.start, o, j, refs.fullK);
      if (j === 0) useItem(qRing, o, st.start, o, null, refs.fullQ);
      var blk = add(w.lane, "gemm0", st.start, st.start + G0, o, j, n % S, null, refs.gemm0, st.after, null);
      kRing.release(n, blk.end, blk);
      if (j === J - 1) qRing.release(o, blk.end, blk);
      w.free = blk.end;
      w.last = blk;
      if (!intra || j === 0) endPhase(w, blk);
      return true;
    }

    /** Softmax(j) of WG w right after its GEMM0(j) (plain, or intra j = 0). */
    function softmax(w, o, j) {
      var blk = add(w.smLane, "softmax", w.free, w.free + X, o, j, null, null, refs.softmax, [w.last], null);
      w.free = blk.end;
      w.last = blk;
      return true;
    }

    /** GEMM1(j) of WG w as its own phase (plain, or the last block in intra mode). */
    function gemm1(w, o, j) {
      var g = o * J + j, n = vItem[g];
      if (n < 0) return false;
      var gt = gate(w);
      if (gt === null) return false;
      var cands = [[vRing.fillEnd[n], vRing.fillBlk[n], "v"], [gt[0], gt[1], "barrier"]];
      var st = startAt(w, cands, o, j, n % S);
      useItem(vRing, n, st.start, o, j, refs.fullV);
      var blk = add(w.lane, "gemm1", st.start, st.start + G1, o, j, n % S, null, refs.gemm1, st.after, null);
      vRing.release(n, blk.end, blk);
      w.free = blk.end;
      w.last = blk;
      endPhase(w, blk);
      return true;
    }

    /** intraWGOverlap, j >= 1: GEMM1(j-1) on the tensor core and softmax(j) start together. */
    function pair(w, o, j) {
      var g = o * J + j - 1, n = vItem[g];
      if (n < 0) return false;
      var st = startAt(w, [[vRing.fillEnd[n], vRing.fillBlk[n], "v"]], o, j - 1, n % S);
      useItem(vRing, n, st.start, o, j - 1, refs.fullV);
      var g1 = add(w.lane, "gemm1", st.start, st.start + G1, o, j - 1, n % S, null, refs.gemm1, st.after, null);
      var sm = add(w.smLane, "softmax", st.start, st.start + X, o, j, null, null, refs.softmax, st.after.slice(), null);
      vRing.release(n, g1.end, g1);
      endPhase(w, g1);
      w.free = Math.max(g1.end, sm.end);
      w.last = g1.end >= sm.end ? g1 : sm;
      return true;
    }

    /** Epilogue of tile o on WG w after its last block (none when E = 0). */
    function epilogue(w, o) {
      if (E > 0) {
        var blk = add(w.lane, "epilogue", w.free, w.free + E, o, null, null, null, refs.epilogue, w.last === null ? EMPTY : [w.last], null);
        w.free = blk.end;
        w.last = blk;
      }
      return true;
    }

    /** Run WG w's next step if its dependencies are known; false when it must wait. */
    function stepConsumer(w) {
      if (w.o >= O) return false;
      var o = w.o, p = w.pos, done;
      if (p === opsPerTile - 1) done = epilogue(w, o);
      else if (!intra) {
        var j = Math.floor(p / 3), phase = p % 3;
        done = phase === 0 ? gemm0(w, o, j) : phase === 1 ? softmax(w, o, j) : gemm1(w, o, j);
      } else if (p === 0) done = gemm0(w, o, 0);
      else if (p === 1) done = softmax(w, o, 0);
      else if (p === 2 * J) done = gemm1(w, o, J - 1);
      else done = p % 2 === 0 ? gemm0(w, o, p / 2) : pair(w, o, (p - 1) / 2);
      if (!done) return false;
      w.pos++;
      if (w.pos === opsPerTile) { w.pos = 0; w.o++; }
      return true;
    }

    for (;;) {
      var progressed = false;
      while (stepProducer()) progressed = true;
      for (var wi = 0; wi < C; wi++) while (stepConsumer(wg[wi])) progressed = true;
      if (prodTile >= O && wg.every(function (w) { return w.o >= O; })) break;
      if (!progressed) throw new Error("attention model deadlock (a bug): " + JSON.stringify(knobs));
    }
    var flat = tl.finalize();
    return { total: tl.total, lanes: lanes, blocks: flat.blocks, laneBlocks: flat.laneBlocks, waits: wg.map(function (w) { return w.waits; }) };
  }

  /**
   * Tensor-core and softmax accounting over the blocks: {busy, exposed, softmax} = steps in which
   * any WG is in a GEMM, steps in which some WG is in softmax and none in a GEMM, and steps in
   * which some WG is in softmax (a sweep over the sorted block edges).
   */
  function tensorCoreSteps(blocks) {
    var count = 0;
    for (var n = 0; n < blocks.length; n++) {
      if (blocks[n].kind === "gemm0" || blocks[n].kind === "gemm1" || blocks[n].kind === "softmax") count++;
    }
    var sorted = new Float64Array(2 * count), next = 0;
    for (var i = 0; i < blocks.length; i++) {
      var b = blocks[i];
      var code = b.kind === "gemm0" || b.kind === "gemm1" ? 0 : b.kind === "softmax" ? 1 : -1;
      if (code < 0) continue;
      // Encoded as t * 4 + code: ends (0 gemm, 1 softmax) sort before starts (2, 3) at equal t.
      sorted[next++] = b.end * 4 + code;
      sorted[next++] = b.start * 4 + 2 + code;
    }
    sorted.sort();
    var gemms = 0, softmaxes = 0, busy = 0, exposed = 0, soft = 0, prev = 0;
    for (var e = 0; e < sorted.length; e++) {
      var t = Math.floor(sorted[e] / 4), kind = sorted[e] - t * 4;
      var span = t - prev;
      if (span > 0) {
        if (gemms > 0) busy += span;
        if (softmaxes > 0) { soft += span; if (gemms === 0) exposed += span; }
      }
      prev = t;
      if (kind === 0) gemms--; else if (kind === 1) softmaxes--; else if (kind === 2) gemms++; else softmaxes++;
    }
    return { busy: busy, exposed: exposed, softmax: soft };
  }

  /** One-line human summary of an attention verdict. */
  function attentionSummary(knobs, verdict) {
    var C = knobs.consumerWGs;
    var mode = [knobs.intraWGOverlap ? "intra-WG overlap" : "no intra-WG overlap",
      C === 2 ? (knobs.interWGPingpong ? "inter-WG pingpong" : "2 WGs in lockstep") : "1 consumer WG"].join(", ");
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
   * Structure-dependent knob limits, applied by simulate() after validation: with one ring shared
   * by K and V (88_hopper_fmha), intraWGOverlap keeps K[j+1] and V[j] in flight together, which
   * one stage cannot hold (the load warp and the WGs would wait on each other forever).
   */
  function adjustAttentionKnobs(knobs, refs, messages) {
    if (refs.shape.kv === "shared" && knobs.intraWGOverlap && knobs.stages < 2) {
      messages.push("stages: " + knobs.stages + " cannot hold K[j+1] and V[j] in the shared K/V pipeline " +
        "with intraWGOverlap; using 2");
      knobs.stages = 2;
    }
  }

  /** The attention model's simulate: validated knobs and precomputed refs in, result fields out. */
  function simulateAttention(knobs, refs) {
    var run = runAttention(knobs, refs);
    var waits = {};
    for (var c = 0; c < knobs.consumerWGs; c++) waits["consumer" + c] = run.waits[c];
    var steps = tensorCoreSteps(run.blocks);
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? steps.busy / run.total : 0,
      tensorCoreBusySteps: steps.busy,
      exposedSoftmaxSteps: steps.exposed,
      softmaxSteps: steps.softmax,
      summary: ""
    };
    verdict.summary = attentionSummary(knobs, verdict);
    return { total: run.total, lanes: run.lanes, blocks: run.blocks, laneBlocks: run.laneBlocks, verdict: verdict };
  }

  // ---------------------------------------------------------------------------------------------
  // Model registry

  /** Registered models: knob tables, block estimate and simulate. Add a model here. */
  var MODELS = {
    gemm: {
      defaults: GEMM_DEFAULT_KNOBS,
      ranges: GEMM_KNOB_RANGES,
      choices: GEMM_KNOB_CHOICES,
      normalize: normalizeGemmKnobs,
      estimateBlocks: estimateGemmBlocks,
      lanes: gemmLanes,
      simulate: simulateGemm,
      refs: sourceRefs,
      flags: {},
      waitReasons: WAIT_REASON_PRIORITY,
      blockKinds: BLOCK_KINDS,
      // Model-specific verdict fields of a result with no blocks (block cap).
      emptyVerdict: { minStagesToHideTma: null },
      // Knobs that multiply the block count, named in the block-cap error.
      sizeKnobs: "outputTiles (O) or kTiles (K)"
    },
    attention: {
      defaults: ATTENTION_DEFAULT_KNOBS,
      ranges: ATTENTION_KNOB_RANGES,
      choices: {},
      normalize: normalizeAttentionKnobs,
      estimateBlocks: estimateAttentionBlocks,
      lanes: attentionLanes,
      simulate: simulateAttention,
      refs: attentionRefs,
      adjust: adjustAttentionKnobs,
      flags: ATTENTION_KNOB_FLAGS,
      waitReasons: ATTENTION_WAIT_REASONS,
      blockKinds: ATTENTION_BLOCK_KINDS,
      emptyVerdict: { exposedSoftmaxSteps: 0, softmaxSteps: 0 },
      sizeKnobs: "outputTiles (O) or kvBlocks (J)"
    }
  };

  /**
   * Ordered knob specs of a model, for building controls from data: each is {name, type, label,
   * doc, default} plus min/max (type "range"), choices (type "choice") or nothing more (type
   * "flag", a boolean). Ranges come first in display order, then choices, then flags. [] for an
   * unknown model.
   */
  function knobsFor(name) {
    if (typeof name !== "string" || !Object.prototype.hasOwnProperty.call(MODELS, name)) return [];
    var model = MODELS[name];
    var specs = [];
    Object.keys(model.ranges).forEach(function (key) {
      var r = model.ranges[key];
      specs.push({ name: key, type: "range", label: r.label, doc: r.doc, min: r.min, max: r.max, "default": model.defaults[key] });
    });
    Object.keys(model.choices).forEach(function (key) {
      specs.push({ name: key, type: "choice", label: key, doc: "", choices: model.choices[key].slice(), "default": model.defaults[key] });
    });
    Object.keys(model.flags).forEach(function (key) {
      var f = model.flags[key];
      specs.push({ name: key, type: "flag", label: f.label, doc: f.doc, "default": model.defaults[key] });
    });
    return specs;
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
    return MODELS[name].normalize(knobs);
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
    return {
      model: knobs.model,
      total: 0,
      lanes: lanes,
      blocks: [],
      laneBlocks: {},
      verdict: verdict,
      knobs: knobs,
      messages: messages,
      error: error,
      functions: refs ? { producer: refs.producer, consumer: refs.consumer } : { producer: null, consumer: null }
    };
  }

  /**
   * Simulate the logical schedule: {model, total, lanes, blocks, laneBlocks, verdict, knobs,
   * messages, error, functions}. Never throws on bad input; error is null on success.
   */
  function simulate(structure, knobs) {
    var norm = normalizeKnobs(knobs, structure);
    if (norm.error) return failure(norm.knobs, norm.messages, [], norm.error, sourceRefs(structure), {});
    var model = MODELS[norm.knobs.model];
    var refs = model.refs(structure);
    if (model.adjust) model.adjust(norm.knobs, refs, norm.messages);
    var estimate = model.estimateBlocks(norm.knobs);
    if (estimate > MAX_BLOCKS) {
      return failure(norm.knobs, norm.messages, model.lanes(norm.knobs, refs),
        "too many blocks: up to " + estimate + " (limit " + MAX_BLOCKS + "); reduce " + model.sizeKnobs, refs,
        model.emptyVerdict);
    }
    var result = model.simulate(norm.knobs, refs);
    result.model = norm.knobs.model;
    result.knobs = norm.knobs;
    result.messages = norm.messages;
    result.error = null;
    result.functions = { producer: refs.producer, consumer: refs.consumer };
    return result;
  }

  return {
    simulate: simulate,
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
    defaultModel: defaultModel,
    knobsFor: knobsFor,
    attentionRefs: attentionRefs,
    ATTENTION_DEFAULT_KNOBS: ATTENTION_DEFAULT_KNOBS,
    ATTENTION_KNOB_RANGES: ATTENTION_KNOB_RANGES,
    ATTENTION_KNOB_FLAGS: ATTENTION_KNOB_FLAGS,
    ATTENTION_BLOCK_KINDS: ATTENTION_BLOCK_KINDS,
    ATTENTION_WAIT_REASONS: ATTENTION_WAIT_REASONS.slice()
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelSchedule;
