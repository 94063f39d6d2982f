/*
 * schedule.js: the logical-schedule simulator of kernel_logical_visualizer.
 *
 * Pure and DOM-free: simulate(structure, knobs) turns a parsed kernel structure plus a few knobs
 * into lanes, blocks and a verdict. Same input, same output (no clocks, no randomness), so the
 * page can re-run it on every slider move and Node can unit-test it. Plain ES2017, no modules
 * syntax, ASCII only: the page inlines this file into a classic <script>, which makes
 * KernelSchedule a global; Node gets the same object through module.exports.
 *
 * Models are registered in MODELS and picked by knobs.model ("gemm" is the only one so far), so a
 * second model (e.g. attention) can be added beside the GEMM one without touching the shared parts:
 * knob normalization, the Timeline builder and the source-reference extraction.
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

  /** Validate a knob set for the GEMM model: returns {knobs, messages}; never throws. */
  function normalizeGemmKnobs(input) {
    var messages = [];
    var raw = input;
    if (raw === undefined || raw === null) raw = {};
    if (typeof raw !== "object" || Array.isArray(raw)) {
      messages.push("knobs: expected an object, got " + showValue(input) + "; using the defaults");
      raw = {};
    }
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
    var known = Object.keys(knobs);
    Object.keys(raw).sort().forEach(function (key) {
      if (known.indexOf(key) < 0) messages.push("unknown knob " + showValue(key) + " ignored");
    });
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
      // Knobs that multiply the block count, named in the block-cap error.
      sizeKnobs: "outputTiles (O) or kTiles (K)"
    }
  };

  // ---------------------------------------------------------------------------------------------
  // Entry points

  /** Name of the requested model ("gemm" when absent). */
  function modelName(knobs) {
    return isObject(knobs) && knobs.model !== undefined && knobs.model !== null ? knobs.model : "gemm";
  }

  /** Validate knobs for their model: {knobs, messages} plus `error` for an unknown model. */
  function normalizeKnobs(knobs) {
    var name = modelName(knobs);
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
  function estimateBlockCount(knobs) {
    var norm = normalizeKnobs(knobs);
    return norm.error ? 0 : MODELS[norm.knobs.model].estimateBlocks(norm.knobs);
  }

  /** Result with no blocks and an error message (unknown model, block cap). */
  function failure(knobs, messages, lanes, error, refs) {
    return {
      model: knobs.model,
      total: 0,
      lanes: lanes,
      blocks: [],
      laneBlocks: {},
      verdict: {
        total: 0,
        waits: {},
        tensorCoreUtilization: 0,
        tensorCoreBusySteps: 0,
        minStagesToHideTma: null,
        summary: error
      },
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
    var norm = normalizeKnobs(knobs);
    var refs = sourceRefs(structure);
    if (norm.error) return failure(norm.knobs, norm.messages, [], norm.error, refs);
    var model = MODELS[norm.knobs.model];
    var estimate = model.estimateBlocks(norm.knobs);
    if (estimate > MAX_BLOCKS) {
      return failure(norm.knobs, norm.messages, model.lanes(norm.knobs),
        "too many blocks: up to " + estimate + " (limit " + MAX_BLOCKS + "); reduce " + model.sizeKnobs, refs);
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
    MODELS: MODELS
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelSchedule;
