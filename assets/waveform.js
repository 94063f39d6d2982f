/* Waveform page: draws KernelSchedule.simulate() output (schedule.js) on one canvas, GTKWave style.
 *
 * Sections: (1) named constants, (2) pure helpers without DOM access (time scale, lane index and
 * culling, ticks, labels, k-tile chains, URL hash), exported for tests, (3) the page: state, one
 * requestAnimationFrame-driven frame (re-simulate if knobs changed, then draw), input handling.
 * ASCII only: the page is written with ASCII character references, so non-ASCII text uses \u escapes.
 */
var KVWave = (function () {
  "use strict";

  // ---- (1) Named constants -------------------------------------------------------------------
  var RULER_HEIGHT_PX = 34;          // time ruler at the top of the canvas: badge row above, tick labels below
  var BADGE_ROW_PX = 15;             // cursor and marker badges live in the ruler's top row, never over tick labels
  var ARROW_HEAD_PX = 6;             // dependency arrow heads
  var SNAP_PX = 6;                   // markers snap to a block edge this close to the cursor
  var MIN_UTIL_DECIMALS = 1;         // utilization is shown with one decimal
  var SMALL_WINDOW_HEIGHT_PX = 800;  // below this window height the header facts start folded
  var NO_INT = -2147483648;          // result columns' tile / k / stage value for null
  var KEY_DIM = 1, KEY_SLIVER = 2;   // drawBlocks' key numbers: fill code * 4 + these variant bits
  var WORKER_MIN_BLOCKS = 50000;     // settings estimated at this many blocks or more simulate in a Web Worker
  var BLOCK_CACHE_MAX = 4096;        // block objects the page keeps built (selected, hovered, labelled, linked)
  var EVENTS_DELAY_MS = 50;          // a background result's barrier events are asked for once it has been shown this long
  var PROGRESS_TICK_MS = 200;        // the background simulation's progress line is refreshed this often
  var PROGRESS_SHOW_MS = 250;        // ... and shown only once a run has taken this long (no flicker, no relayout, for quick runs)
  var APPLY_SPLIT_MS = 30;           // a Worker result whose hand-off took longer is drawn at the next frame, not in the same task
  var LANE_HEIGHT_PX = 24;           // one lane (producer, stage s, consumer WG c)
  var BLOCK_INSET_PX = 3;            // vertical gap between a block and its lane's edges
  var SUB_LANE_HEIGHT_PX = 18;       // a sub-row under its lane (attention: WG c's softmax)
  var SUB_BLOCK_INSET_PX = 2;
  var SUB_LANE_INDENT_PX = 10;       // sub-row names are indented under their lane's name
  var GUTTER_MIN_WIDTH_PX = 96;      // lane names at the left; widened to the longest name
  var GUTTER_PAD_PX = 8;             // space left and right of a lane name
  var GROUP_TOGGLE_PX = 12;          // the lane group's disclosure triangle, left of the names (a click there folds the group)
  var TIMELINE_MIN_HEIGHT_PX = 160;  // the lanes' canvas is never capped below this height ...
  var TIMELINE_VIEWPORT_MARGIN_PX = 64; // ... else at the window's height less this (the overview strip and a margin): more lanes scroll inside it
  var SCROLLBAR_PX = 4;              // the lanes' scroll indicator at the canvas's right edge
  var OVERVIEW_HEIGHT_PX = 28;       // the overview strip of the whole run, above the ruler
  var OVERVIEW_DIM_ALPHA = 0.55;     // the strip outside the visible window is veiled this much
  var PLOT_PAD_PX = 6;               // keeps blocks at the view's ends off the gutter and the edge
  var LABEL_MIN_WIDTH_PX = 14;       // narrower blocks get no label at all
  var LABEL_PAD_PX = 2;              // horizontal padding inside a labelled block
  var SEPARATE_MIN_WIDTH_PX = 3;     // blocks at least this wide keep a 1px gap after them
  var MIN_BLOCK_WIDTH_PX = 1;        // sub-pixel blocks are widened to this (and thinned by coverage)
  var TICK_MIN_SPACING_PX = 72;      // ruler ticks at least this far apart
  var ZOOM_STEP = 1.5;               // one +/- press or button click
  var WHEEL_ZOOM_PER_PX = 0.0025;    // ctrl+wheel: zoom factor exp(deltaY * this)
  var WHEEL_LINE_PX = 16;            // deltaMode 1 (lines) -> pixels
  var PAN_FRACTION = 0.1;            // arrow key pan, as a fraction of the visible span
  var PAN_FRACTION_BIG = 0.5;        // shift+arrow
  var MIN_SPAN_STEPS = 2;            // deepest zoom
  var MAX_SPAN_FACTOR = 4;           // widest zoom, relative to the whole schedule
  var MAX_HASH_NUMBER = 1e9;         // larger view/cursor numbers in the hash are refused
  var MAX_HASH_LENGTH = 4000;        // longer hashes are refused as a whole (never hang on them)
  var HASH_WRITE_DELAY_MS = 150;     // debounce history.replaceState while dragging a slider
  var DRAG_THRESHOLD_PX = 3;         // a press that moves less than this is a click
  var HIT_SLOP_PX = 3;               // hovering this close to a thin block still hits it
  var DIM_ALPHA = 0.22;              // blocks outside a followed chain
  var LABEL_FONT_PX = 11;
  var LANE_FONT_PX = 12;
  var VIEW_DECIMALS = 1000;          // view numbers in the hash keep 3 decimals
  // Knob widgets (short labels, slider ends, source lines) come from KernelSchedule.knobsFor.
  // A numeric knob with at most this many values (consumer WGs: 1 or 2) is a select, not a slider.
  var SELECT_MAX_VALUES = 2;
  var EXPORT_FAILED = "Export failed";  // the notice line of a failed download starts with this
  // Wait blocks are hatched: the wait colour crossed by the lines x + y = n * WAIT_HATCH_TILE_PX
  // (CSS px from the canvas origin), WAIT_HATCH_LINE_PX wide. The canvas repeats a tile holding
  // the pieces of x + y = 0, 8, 16 that cross it ([x0, y0, x1, y1], readTheme's pattern); the
  // SVG / PNG export draws the same lines as bands clipped to each block (hatchBands).
  var WAIT_HATCH_TILE_PX = 8, WAIT_HATCH_LINE_PX = 2;
  var WAIT_HATCH_STROKES = [[-2, 2, 2, -2], [0, 8, 8, 0], [6, 10, 10, 6]];
  // SVG / PNG legend: rows as tall as this, swatches this wide (and this far apart), items this far apart.
  var LEGEND_ROW_PX = 18, LEGEND_SWATCH_PX = 16, LEGEND_SWATCH_GAP_PX = 2, LEGEND_ITEM_GAP_PX = 14;
  var RANGE_BAND_ALPHA = 0.08;       // the band between markers A and B (the statistics' range)
  var GHOST_ALPHA = 0.16;            // the pinned run drawn under the live blocks
  var SEARCH_THIN_PX = 2;            // a search match narrower than SEPARATE_MIN_WIDTH_PX: a mark this wide

  // Fill keys in drawing order; each maps to a theme variable (wait is a hatched pattern).
  var FILL_KEYS = ["issue", "transpose", "filling", "full", "mma-a", "mma-b", "gemm0", "softmax", "gemm1", "epilogue", "wait"];
  // Kind names and docs, wait reasons, legend, verdict lines: the result's view description
  // (KernelSchedule's MODELS[...].view); this page never branches on a model's name.
  var currentView = null;
  /** The view's entry for kind (view: the current result's unless given). */
  function viewKind(kind, view) {
    var v = view || currentView;
    return v && v.kinds && v.kinds[kind] ? v.kinds[kind] : null;
  }
  function kindName(kind) { var k = viewKind(kind); return k ? k.name : String(kind).toUpperCase(); }
  function kindDoc(kind) { var k = viewKind(kind); return k ? k.doc : ""; }
  // Following: a kind with chain "k" is on a k-tile's (KV block's) path, "tile" on an output
  // tile's math; rank orders kinds along a chain at equal steps (all from the view).
  function onKChain(kind, view) { var k = viewKind(kind, view); return !!(k && k.chain === "k"); }
  function onTileChain(kind, view) { var k = viewKind(kind, view); return !!(k && (k.tile === true)); }
  function chainRank(kind) { var k = viewKind(kind); return k && typeof k.rank === "number" ? k.rank : 99; }
  function reasonDoc(reason) {
    var list = currentView && currentView.waitReasons ? currentView.waitReasons : [];
    for (var i = 0; i < list.length; i++) if (list[i].reason === reason) return list[i].doc;
    return "";
  }

  // ---- (2) Pure helpers ----------------------------------------------------------------------

  /** One time<->pixel mapper: steps [t0Step, t1Step] onto pixels [x0Px, x1Px]; never divides by 0. */
  function TimeScale(t0Step, t1Step, x0Px, x1Px) {
    var spanSteps = Math.max(t1Step - t0Step, 1e-9);
    var spanPx = Math.max(x1Px - x0Px, 1);
    this.t0Step = t0Step;
    this.t1Step = t0Step + spanSteps;
    this.x0Px = x0Px;
    this.x1Px = x0Px + spanPx;
    this.pxPerStep = spanPx / spanSteps;
  }
  TimeScale.prototype.xPx = function (tStep) { return this.x0Px + (tStep - this.t0Step) * this.pxPerStep; };
  TimeScale.prototype.tStep = function (xPx) { return this.t0Step + (xPx - this.x0Px) / this.pxPerStep; };
  TimeScale.prototype.widthPx = function (durationSteps) { return durationSteps * this.pxPerStep; };

  /**
   * The culling index of lane li of result columns c (schedule.js, docs/simulator.md "Result columns"): the
   * lane's blocks are ids lo .. hi-1, sorted by start, so the index is views into the columns
   * (no copy): starts, ends and maxEnds (ends themselves when they are sorted, as they are for
   * blocks that never overlap; else a running maximum, so a search never drops a visible block).
   * Local index i is block id lo + i.
   */
  function laneIndexOf(c, li) {
    var lo = c.laneStart[li], hi = c.laneStart[li + 1];
    var starts = c.start.subarray(lo, hi), ends = c.end.subarray(lo, hi), maxEnds = ends;
    for (var i = 1; i < ends.length; i++) {
      if (ends[i] < ends[i - 1]) {
        maxEnds = new Float64Array(ends.length);
        var running = -Infinity;
        for (var j = 0; j < ends.length; j++) { running = Math.max(running, ends[j]); maxEnds[j] = running; }
        break;
      }
    }
    return {lo: lo, hi: hi, n: hi - lo, starts: starts, ends: ends, maxEnds: maxEnds};
  }

  /** An empty lane index (a lane the result has no blocks for). */
  function emptyLaneIndex() {
    var z = new Float64Array(0);
    return {lo: 0, hi: 0, n: 0, starts: z, ends: z, maxEnds: z};
  }

  // Level-of-detail summary: fill codes per block and OR-masks of fill bits over aligned groups of
  // LOD_GROUP blocks and LOD_GROUP^2 blocks, so "which fills occur among blocks a..b-1" costs at
  // most about 4 * LOD_GROUP reads however many blocks share a pixel column.
  var LOD_SHIFT = 4, LOD_GROUP = 1 << LOD_SHIFT, LOD_MASK = LOD_GROUP - 1;

  /**
   * Fill codes of every block of columns c and the two OR-mask levels over them, in one pass.
   * kindFills[kindCode]: fill codes of that kind (two or more alternate by output tile, as fillKey).
   */
  function buildFillSummary(c, kindFills) {
    var n = c.n, code = new Uint8Array(n), kind = c.kind, tile = c.tile;
    var l1 = new Uint32Array((n >> LOD_SHIFT) + 1), l2 = new Uint32Array((n >> (2 * LOD_SHIFT)) + 1);
    // single[kc]: the one fill code of a kind, or -1 when its fills alternate by output tile.
    var single = new Int32Array(kindFills.length);
    for (var kc = 0; kc < kindFills.length; kc++) single[kc] = kindFills[kc].length === 1 ? kindFills[kc][0] : -1;
    for (var id = 0; id < n; id++) {
      var f = single[kind[id]];
      if (f < 0) {
        var fills = kindFills[kind[id]], t = tile[id];
        f = fills[(t === NO_INT ? 0 : t) % fills.length];
      }
      code[id] = f;
    }
    // Group masks: one pass per group of LOD_GROUP codes.
    for (var g = 0, base = 0; base < n; g++, base += LOD_GROUP) {
      var m = 0, top = Math.min(n, base + LOD_GROUP);
      for (var i = base; i < top; i++) m |= 1 << code[i];
      l1[g] = m;
    }
    for (var g = 0; g < l1.length; g++) l2[g >> LOD_SHIFT] |= l1[g];
    return {code: code, l1: l1, l2: l2};
  }

  /** OR of the fill bits of blocks a .. b-1 (ids), using the summary's group masks for whole groups. */
  function fillMaskIn(summary, a, b) {
    var code = summary.code, l1 = summary.l1, l2 = summary.l2, mask = 0;
    if (b - a < 2 * LOD_GROUP) {
      for (; a < b; a++) mask |= 1 << code[a];
      return mask;
    }
    while (a & LOD_MASK) mask |= 1 << code[a++];
    while (b & LOD_MASK) mask |= 1 << code[--b];
    var a1 = a >> LOD_SHIFT, b1 = b >> LOD_SHIFT;
    if (b1 - a1 < 2 * LOD_GROUP) {
      for (; a1 < b1; a1++) mask |= l1[a1];
      return mask;
    }
    while (a1 & LOD_MASK) mask |= l1[a1++];
    while (b1 & LOD_MASK) mask |= l1[--b1];
    for (var a2 = a1 >> LOD_SHIFT, b2 = b1 >> LOD_SHIFT; a2 < b2; a2++) mask |= l2[a2];
    return mask;
  }

  /**
   * Dependents of every block of columns c (the reverse of `after`) as a CSR:
   * block id's waiters are list[at[id] .. at[id + 1]). Two passes over afterList.
   */
  function dependentsOfColumns(c) {
    var n = c.n, afterAt = c.afterAt, afterList = c.afterList;
    var at = new Int32Array(n + 1), list = new Int32Array(afterList.length), id, a;
    for (a = 0; a < afterList.length; a++) at[afterList[a] + 1]++;
    for (id = 0; id < n; id++) at[id + 1] += at[id];
    var fill = at.slice(0, n);
    for (id = 0; id < n; id++) {
      for (a = afterAt[id]; a < afterAt[id + 1]; a++) list[fill[afterList[a]]++] = id;
    }
    return {at: at, list: list};
  }

  /**
   * The next (dir 1) or previous (dir -1) block edge on a lane after/before step t: {t, i} with i
   * the local index of the block it belongs to (on a tie, the earlier block), or null. Binary
   * searches over the lane's sorted starts and ends.
   */
  function laneEdge(index, t, dir) {
    var starts = index.starts, ends = index.ends, n = index.n, best = null;
    function offer(edge, i) {
      if (best === null || (dir > 0 ? edge < best.t : edge > best.t) || (edge === best.t && i < best.i)) best = {t: edge, i: i};
    }
    if (dir > 0) {
      var s = upperBound(starts, t, false), e = upperBound(ends, t, false);
      if (s < n) offer(starts[s], s);
      if (e < n) offer(ends[e], e);
    } else {
      var s2 = upperBound(starts, t, true) - 1, e2 = upperBound(ends, t, true) - 1;
      // The earliest block with that same edge (zero-length blocks share edges).
      if (s2 >= 0) offer(starts[s2], upperBound(starts, starts[s2], true));
      if (e2 >= 0) offer(ends[e2], upperBound(ends, ends[e2], true));
    }
    return best;
  }

  /** First index i in sorted array arr with arr[i] > value (or >= when orEqual). */
  function upperBound(arr, value, orEqual) {
    var lo = 0, hi = arr.length;
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (orEqual ? arr[mid] < value : arr[mid] <= value) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /** First index i in lo..hi-1 of sorted arr with arr[i] >= value (hi when none). */
  function lowerBoundIn(arr, value, lo, hi) {
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (arr[mid] < value) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  /** Index range [lo, hi) of a lane's blocks that may touch [t0Step, t1Step); never drops a visible one. */
  function visibleRange(laneIndex, t0Step, t1Step) {
    var lo = upperBound(laneIndex.maxEnds, t0Step, false);   // first block ending after t0
    var hi = upperBound(laneIndex.starts, t1Step, true);     // first block starting at/after t1
    return [lo, Math.max(lo, hi)];
  }

  /** A "nice" tick step (1, 2, 5 x 10^n steps, at least 1) for the given pixels per step. */
  function niceTickStep(pxPerStep) {
    var raw = TICK_MIN_SPACING_PX / Math.max(pxPerStep, 1e-12);
    if (raw <= 1) return 1;
    var pow = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var mults = [1, 2, 5, 10];
    for (var i = 0; i < mults.length; i++) if (mults[i] * pow >= raw) return mults[i] * pow;
    return 10 * pow;
  }

  /** "o.k" for a block with tile and k, "o" with a tile only, "" otherwise. */
  function tileText(b) {
    if (b.tile === null || b.tile === undefined) return "";
    return (b.k === null || b.k === undefined) ? String(b.tile) : b.tile + "." + b.k;
  }

  /** Label candidates for a block, longest first; the drawer uses the first that fits. */
  function labelCandidates(b) {
    var ok = tileText(b);
    if (b.operand && (b.kind === "issue" || b.kind === "filling" || b.kind === "full")) {
      // Attention load blocks name their operand: "K 0.3", "FILLING V 0.3".
      var opOk = b.operand + (ok ? " " + ok : "");
      if (b.kind === "issue") return [opOk, b.operand];
      var word = b.kind === "filling" ? "FILLING" : "FULL";
      return [word + " " + opOk, opOk, b.operand];
    }
    switch (b.kind) {
      case "issue": return ok ? [ok] : ["I"];
      case "filling": return ok ? ["FILLING " + ok, "FILLING", "FILL", "F"] : ["FILLING", "F"];
      case "full": return ok ? ["FULL " + ok, "FULL", "F"] : ["FULL", "F"];
      case "wgmma": return ok ? ["WGMMA " + ok, ok] : ["WGMMA", "M"];
      case "transpose": return ok ? ["T " + ok, "T"] : ["T"];
      case "gemm0": return ok ? ["GEMM0 " + ok, "G0 " + ok, "G0"] : ["GEMM0", "G0"];
      case "softmax": return ok ? ["SOFTMAX " + ok, "SM " + ok, "SM"] : ["SOFTMAX", "SM"];
      case "gemm1": return ok ? ["GEMM1 " + ok, "G1 " + ok, "G1"] : ["GEMM1", "G1"];
      case "epilogue": return ["EPI " + (b.tile === null || b.tile === undefined ? "" : b.tile), "E"];
      case "wait": return b.reason ? ["WAIT " + b.reason, "WAIT", "W"] : ["WAIT", "W"];
      default: return ok ? [kindName(b.kind) + " " + ok, kindName(b.kind)] : [kindName(b.kind)];
    }
  }

  /** Theme fill key of a block: the view's fills for its kind; two fills alternate by output tile. */
  function fillKey(b) {
    var k = currentView && currentView.legend ? currentView.legendByKind[b.kind] : null;
    if (k && k.fills.length > 1) return k.fills[(b.tile || 0) % k.fills.length];
    return k && k.fills.length ? k.fills[0] : b.kind;
  }

  /**
   * Ids of the blocks that following {tile, k} highlights. With k: the k-tile's issue / FILLING /
   * FULL / WGMMA (GEMM), or the KV block's K and V (Vt) loads, GEMM0, softmax and GEMM1 on every WG
   * (attention). With k null: the output tile's math and epilogue, plus its Q load (attention).
   * One pass over result columns c (ascending ids), kinds tested by code against view (default:
   * the current result's).
   */
  function chainIds(c, tile, k, view) {
    var ids = [];
    if (tile === null || tile === undefined || c.n === 0) return ids;
    var wholeTile = k === null || k === undefined;
    var kOn = c.kinds.map(function (kind) { return onKChain(kind, view); });
    var tileOn = c.kinds.map(function (kind) { return onTileChain(kind, view); });
    var q = c.operands.indexOf("Q") + 1;  // operand code of "Q" (0: none)
    var tileCol = c.tile, kind = c.kind, kCol = c.k, operand = c.operand;
    for (var id = 0; id < c.n; id++) {
      if (tileCol[id] !== tile) continue;
      var kc = kind[id];
      if (wholeTile ? (tileOn[kc] || (q > 0 && operand[id] === q && kOn[kc])) : (kCol[id] === k && kOn[kc])) ids.push(id);
    }
    return ids;
  }

  /** Format a number for the hash: integers as is, others with at most 3 decimals. */
  function hashNumber(x) { return String(Math.round(x * VIEW_DECIMALS) / VIEW_DECIMALS); }

  var RE_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
  var RE_FOLLOW = /^(\d{1,9})\.(\d{1,9})$|^e(\d{1,9})$/;
  // Accepted spellings of an on/off knob in the hash (written as on / off).
  var HASH_FLAG_WORDS = {on: true, off: false, "true": true, "false": false, "1": true, "0": false, yes: true, no: false};

  /**
   * Parse "#k=v&..." into the model, knob values, view, cursor, markers and messages for refused or
   * clamped values. hashKeys: [[hashKey, knobName], ...]; the hash's own model key (else
   * currentModel) decides which knobs apply. ranges(knobName, model) -> {min, max}, {options},
   * {flag: true}, or null for a knob the model does not have.
   */
  function parseHash(hash, hashKeys, ranges, currentModel) {
    var out = {model: null, knobs: {}, view: null, cursor: null, markerA: null, markerB: null, follow: null, pin: null, groups: null, messages: []};
    var text = String(hash || "").replace(/^#/, "");
    if (!text) return out;
    if (text.length > MAX_HASH_LENGTH) {
      out.messages.push("URL hash ignored: longer than " + MAX_HASH_LENGTH + " characters.");
      return out;
    }
    var knobOf = {};
    hashKeys.forEach(function (pair) { knobOf[pair[0]] = pair[1]; });
    // Decode every part first: the model key must be known before other knobs are checked.
    var entries = [];
    text.split("&").forEach(function (part) {
      if (!part) return;
      var eq = part.indexOf("=");
      var key = eq < 0 ? part : part.slice(0, eq), raw = eq < 0 ? "" : part.slice(eq + 1);
      try {
        entries.push({key: decodeURIComponent(key), value: decodeURIComponent(raw.replace(/\+/g, " ")).trim()});
      } catch (e) {
        out.messages.push("URL hash: ignored " + part.slice(0, 40) + " (bad % escape).");
      }
    });
    var model = currentModel;
    entries.forEach(function (e) {
      if (knobOf[e.key] !== "model") return;
      var models = ranges("model", currentModel).options;
      if (models.indexOf(e.value) >= 0) { out.model = e.value; model = e.value; }
      else if (models.length === 0) out.messages.push("URL hash: ignored " + e.key + "=" + e.value.slice(0, 40) + " (no schedule model fits this kernel).");
      else out.messages.push("URL hash: ignored " + e.key + "=" + e.value.slice(0, 40) + " (expected one of " + models.join(", ") + ").");
    });
    var view = {};
    entries.forEach(function (e) {
      var key = e.key, value = e.value;
      var shown = key + "=" + value.slice(0, 40);
      if (Object.prototype.hasOwnProperty.call(knobOf, key)) {
        var name = knobOf[key];
        if (name === "model") return;
        var range = ranges(name, model);
        if (!range) { out.messages.push("URL hash: ignored " + shown + " (not a knob of the " + model + " model)."); return; }
        if (range.derived) { out.messages.push("URL hash: ignored " + shown + " (the source derives it from the other knobs)."); return; }
        if (range.text) { out.knobs[name] = value; return; }
        if (range.flag) {
          var word = value.toLowerCase();
          if (!Object.prototype.hasOwnProperty.call(HASH_FLAG_WORDS, word)) {
            out.messages.push("URL hash: ignored " + shown + " (expected on or off).");
          } else out.knobs[name] = HASH_FLAG_WORDS[word];
          return;
        }
        if (range.options) {
          var match = null;
          range.options.forEach(function (opt) { if (String(opt) === value) match = opt; });
          if (match === null) {
            out.messages.push("URL hash: ignored " + shown + " (expected one of " + range.options.join(", ") + ").");
          } else out.knobs[name] = match;
          return;
        }
        if (!RE_NUMBER.test(value)) { out.messages.push("URL hash: ignored " + shown + " (not a number)."); return; }
        var num = Math.round(Number(value));
        if (!isFinite(num)) { out.messages.push("URL hash: ignored " + shown + " (not a finite number)."); return; }
        if (num < range.min || num > range.max) {
          var clamped = Math.min(Math.max(num, range.min), range.max);
          out.messages.push("URL hash: " + shown + " is outside " + range.min + ".." + range.max + "; clamped to " + clamped + ".");
          num = clamped;
        }
        out.knobs[name] = num;
      } else if (key === "t0" || key === "t1" || key === "cursor" || key === "a" || key === "b") {
        var x = Number(value);
        if (!RE_NUMBER.test(value) || !isFinite(x)) { out.messages.push("URL hash: ignored " + shown + " (not a number)."); return; }
        if (Math.abs(x) > MAX_HASH_NUMBER) { out.messages.push("URL hash: ignored " + shown + " (beyond +/-" + MAX_HASH_NUMBER + " steps)."); return; }
        if (key === "t0" || key === "t1") view[key] = x;
        else if (key === "cursor") out.cursor = x;
        else if (key === "a") out.markerA = x;
        else out.markerB = x;
      } else if (key === "pin") {
        // The pinned run's knobs (formatPin), read by parsePin once the live model is known.
        out.pin = value;
      } else if (key === "groups") {
        // Collapsed lane groups (groupRows' keys), comma-separated; an empty value: none.
        out.groups = [];
        value.split(",").forEach(function (g) {
          g = g.trim();
          if (!g) return;
          if (!RE_GROUP_KEY.test(g)) out.messages.push("URL hash: ignored lane group " + g.slice(0, 40) + " (letters, digits, _ and - only).");
          else if (out.groups.indexOf(g) < 0) out.groups.push(g);
        });
        out.groups.sort();
      } else if (key === "follow") {
        var m = RE_FOLLOW.exec(value);
        if (!m) { out.messages.push("URL hash: ignored " + shown + " (expected tile.k or e<tile>)."); return; }
        out.follow = m[3] !== undefined ? {tile: Number(m[3]), k: null, epilogue: true} : {tile: Number(m[1]), k: Number(m[2]), epilogue: false};
      } else {
        out.messages.push("URL hash: ignored unknown key " + key.slice(0, 40) + ".");
      }
    });
    if (view.t0 !== undefined && view.t1 !== undefined) {
      if (view.t1 > view.t0) out.view = {t0Step: view.t0, t1Step: view.t1};
      else out.messages.push("URL hash: ignored t0/t1 (t1 must be greater than t0).");
    } else if (view.t0 !== undefined || view.t1 !== undefined) {
      out.messages.push("URL hash: ignored t0/t1 (both are needed).");
    }
    return out;
  }

  /** One knob value as hash text: on / off for booleans, else the value itself (URI-encoded). */
  function hashValue(v) { return typeof v === "boolean" ? (v ? "on" : "off") : encodeURIComponent(String(v)); }

  /** Serialise knobs and view into "k=v&..." (knobs in hashKeys order, then view, cursor, markers, follow, collapsed groups, pin). */
  function formatHash(s, hashKeys) {
    var parts = [];
    hashKeys.forEach(function (pair) {
      if (s.knobs[pair[1]] !== undefined) parts.push(pair[0] + "=" + hashValue(s.knobs[pair[1]]));
    });
    if (s.view) parts.push("t0=" + hashNumber(s.view.t0Step), "t1=" + hashNumber(s.view.t1Step));
    if (s.cursor !== null && s.cursor !== undefined) parts.push("cursor=" + hashNumber(s.cursor));
    if (s.markerA !== null && s.markerA !== undefined) parts.push("a=" + hashNumber(s.markerA));
    if (s.markerB !== null && s.markerB !== undefined) parts.push("b=" + hashNumber(s.markerB));
    if (s.follow) parts.push("follow=" + (s.follow.epilogue ? "e" + s.follow.tile : s.follow.tile + "." + s.follow.k));
    // Collapsed lane groups, sorted, so one layout has one spelling.
    var groups = s.collapsedGroups ? Array.from(s.collapsedGroups).sort() : [];
    if (groups.length) parts.push("groups=" + groups.join(","));
    if (s.pinText) parts.push("pin=" + s.pinText);
    return parts.join("&");
  }

  /**
   * A fraction as a percentage with one decimal that never rounds a non-total up to 100% nor a
   * non-zero down to 0% (0.9996 -> "99.9%", 0.0004 -> "<0.1%"); "n/a" for anything not a number.
   */
  function percentText(x) {
    if (typeof x !== "number" || !isFinite(x)) return "n/a";
    if (x >= 1) return "100%";
    if (x <= 0) return "0%";
    var scale = Math.pow(10, MIN_UTIL_DECIMALS + 2);
    var v = Math.round(x * scale) / Math.pow(10, MIN_UTIL_DECIMALS);
    if (v >= 100) v = 100 - Math.pow(10, -MIN_UTIL_DECIMALS);
    if (v <= 0) return "<" + Math.pow(10, -MIN_UTIL_DECIMALS) + "%";
    return v.toFixed(MIN_UTIL_DECIMALS) + "%";
  }

  /**
   * Barrier state after every event at or before step t, replayed from result.barrierEvents:
   * [{barrier, phase, arrivals, expected, completions, waiters: [{lane, parity, since}], events}].
   * phase is the barrier's phase bit; arrivals count the arrives since its last phase completion;
   * a waiter blocks on the parity it began waiting with (try_wait.parity returns once that
   * phase has completed, i.e. the bit has flipped). Linear in the number of events.
   */
  function barrierStateAt(result, t) {
    var barriers = result && Array.isArray(result.barriers) ? result.barriers : [];
    var events = result && Array.isArray(result.barrierEvents) ? result.barrierEvents : [];
    var states = barriers.map(function (b) {
      return {barrier: b, phase: 0, arrivals: 0, expected: b.expected, completions: 0, waiters: [], events: 0};
    });
    var byId = {};
    barriers.forEach(function (b, i) { byId[b.id] = states[i]; });
    for (var i = 0; i < events.length; i++) {
      var e = events[i];
      if (e.t > t) break;
      var s = byId[e.barrier];
      if (!s) continue;
      s.events++;
      if (e.type === "arrive") s.arrivals++;
      else if (e.type === "complete") { s.arrivals = 0; s.completions++; }
      else if (e.type === "wait_begin") s.waiters.push({lane: e.lane, parity: e.phase, since: e.t});
      else if (e.type === "wait_end") {
        for (var w = 0; w < s.waiters.length; w++) if (s.waiters[w].lane === e.lane) { s.waiters.splice(w, 1); break; }
      }
      if (typeof e.phase === "number") s.phase = e.phase;
    }
    return states;
  }

  /** Step of the first barrier event after t (dir 1) or before t (dir -1), or null. */
  function barrierEventStep(result, t, dir) {
    var events = result && Array.isArray(result.barrierEvents) ? result.barrierEvents : [];
    if (dir > 0) {
      for (var i = 0; i < events.length; i++) if (events[i].t > t) return events[i].t;
    } else {
      for (var j = events.length - 1; j >= 0; j--) if (events[j].t < t) return events[j].t;
    }
    return null;
  }

  /**
   * The source lines of the code path a block ran. A block whose lines hold several alternative
   * MMA statements (CUTLASS's first k-tile, the K_PIPE_MMAS prologue loop and the steady-state
   * loop) keeps the wait + MMA of the one its k-tile ran, plus the statements shared by all
   * (the release): {lines, path: "first iteration" | "prologue loop" | "steady-state loop" | null}.
   * The choice is the page's reading of CUTLASS's sm90 mainloop (k 0: the first wait + MMA; k below
   * K_PIPE_MMAS: the prologue loop's; later: the steady-state loop's), and the panel says so.
   * kPipeMmas: the K_PIPE_MMAS knob. Any other block keeps all its lines (path null).
   */
  function codePathLines(b, kPipeMmas) {
    var lines = b.lines || [];
    var mmaAt = [];
    lines.forEach(function (l, i) { if (l.op === "mma") mmaAt.push(i); });
    // Only a GEMM WGMMA block is known to run exactly one of its MMA statements per k-tile; any
    // other block (attention's GEMM0/GEMM1 inside several loops) keeps every line it may come from.
    if (b.kind !== "wgmma" || mmaAt.length < 2 || b.k === null || b.k === undefined) return {lines: lines, path: null};
    // Group g: the lines after the previous MMA up to and including MMA g; the lines after the
    // last MMA (the release) are shared.
    var groups = [], from = 0;
    mmaAt.forEach(function (at) { groups.push(lines.slice(from, at + 1)); from = at + 1; });
    var shared = lines.slice(from);
    var last = groups.length - 1, pick, path;
    var prologue = typeof kPipeMmas === "number" ? kPipeMmas : 1;
    if (b.k === 0) { pick = 0; path = "first iteration"; }
    else if (groups.length > 2 && b.k < prologue) { pick = 1; path = "prologue loop"; }
    else { pick = last; path = "steady-state loop"; }
    return {lines: groups[pick].concat(shared), path: path};
  }

  /**
   * A simulate() result in a form that crosses from a Worker cheaply: the block columns' typed
   * arrays (schedule.js result.columns) are transferred, not copied, with their small tables;
   * barrier events become typed columns too (packEvents); the rest of the result goes as is.
   * A run that skipped its barrier events (simulate's options.events false: the page's background
   * runs, a tenth to a fifth faster) crosses without them (eventsDeferred: true); a second run sends
   * them. Never reads result.blocks (that would build every block object in the Worker). Runs
   * inside the Worker (its source and packEvents' are sent there), so it uses nothing else.
   */
  function packResult(r) {
    if (!r || typeof r !== "object" || !r.columns || typeof r.columns.n !== "number") return {plain: r};
    var defer = r.barrierEventsSkipped === true;
    var rest = {};
    Object.keys(r).forEach(function (key) { if (key !== "blocks" && key !== "barrierEvents" && key !== "laneBlocks") rest[key] = r[key]; });
    // Every typed array's buffer once (two views of one buffer must not be listed twice).
    var buffers = new Set(), c = r.columns;
    Object.keys(c).forEach(function (key) { if (ArrayBuffer.isView(c[key])) buffers.add(c[key].buffer); });
    var out = {rest: rest, columns: c, events: null, eventsDeferred: defer, transfer: null};
    if (!defer) {
      out.events = packEvents(r);
      out.events.transfer.forEach(function (buf) { buffers.add(buf); });
      delete out.events.transfer;
    }
    out.transfer = Array.from(buffers);
    return out;
  }

  /** result.barrierEvents as typed columns with interned strings: {strings, t, barrier, type, lane, phase, transfer}. */
  function packEvents(r) {
    var strings = [], stringIds = new Map();
    function str(s) {
      if (s === null || s === undefined) return s === null ? -2 : -1;
      var id = stringIds.get(s);
      if (id === undefined) { id = strings.length; strings.push(s); stringIds.set(s, id); }
      return id;
    }
    function num(x) { return x === null || x === undefined ? NaN : x; }
    var cols = r.barrierEventColumns, i, ev;
    if (cols) {
      // The simulator's typed event columns: copied number for number, no event object built.
      var m0 = cols.n, typeIds = cols.types.map(str), laneIds = cols.lanes.map(str);
      ev = {strings: strings, t: new Float64Array(m0), barrier: new Float64Array(m0), type: new Int32Array(m0), lane: new Int32Array(m0), phase: new Float64Array(m0)};
      for (i = 0; i < m0; i++) {
        ev.t[i] = cols.t[i]; ev.barrier[i] = cols.barrier[i]; ev.type[i] = typeIds[cols.type[i]];
        ev.lane[i] = cols.lane[i] < 0 ? -2 : laneIds[cols.lane[i]]; ev.phase[i] = cols.phase[i];
      }
      ev.transfer = [ev.t.buffer, ev.barrier.buffer, ev.type.buffer, ev.lane.buffer, ev.phase.buffer];
      return ev;
    }
    var events = r.barrierEvents || [], m = events.length;
    ev = {strings: strings, t: new Float64Array(m), barrier: new Float64Array(m), type: new Int32Array(m), lane: new Int32Array(m), phase: new Float64Array(m)};
    for (i = 0; i < m; i++) {
      var e = events[i];
      ev.t[i] = e.t; ev.barrier[i] = e.barrier; ev.type[i] = str(e.type); ev.lane[i] = str(e.lane); ev.phase[i] = num(e.phase);
    }
    ev.transfer = [ev.t.buffer, ev.barrier.buffer, ev.type.buffer, ev.lane.buffer, ev.phase.buffer];
    return ev;
  }

  /** Barrier event objects from packEvents' columns. */
  function unpackEvents(e) {
    var strings = e.strings, m = e.t.length, events = new Array(m);
    function str(i) { return i === -2 ? null : (i < 0 ? undefined : strings[i]); }
    function num(x) { return x !== x ? null : x; }
    for (var j = 0; j < m; j++) events[j] = {t: e.t[j], barrier: e.barrier[j], type: str(e.type[j]), lane: str(e.lane[j]), phase: num(e.phase[j])};
    return events;
  }

  /**
   * The result packResult packed: the columns attached with KernelSchedule.attachColumns (so
   * result.columns is what the page reads, and blocks / laneBlocks stay lazy getters that only
   * an export or a test materialises); barrier events rebuilt on first read. With deferred
   * events, result.eventsPending (non-enumerable) is true and barrierEvents reads [] until
   * supplyEvents(result, packedEvents) gives them. KS: the simulator module (default: the
   * page's window.KernelSchedule).
   */
  function unpackResult(p, KS) {
    if (p.plain !== undefined || !p.columns) return p.plain;
    KS = KS || (typeof window !== "undefined" ? window.KernelSchedule : null);
    var r = {}, packed = p.events, events = null;
    Object.keys(p.rest).forEach(function (key) { r[key] = p.rest[key]; });
    KS.attachColumns(r, p.columns);
    Object.defineProperty(r, "eventsPending", {value: !!p.eventsDeferred, enumerable: false, configurable: true, writable: true});
    Object.defineProperty(r, "supplyEvents", {enumerable: false, configurable: true, value: function (e) {
      packed = e;
      events = null;
      r.eventsPending = false;
      r.barrierEventsSkipped = false;
    }});
    // Barrier events are rebuilt on first read (the barrier panel, an export), as the engine does.
    Object.defineProperty(r, "barrierEvents", {enumerable: true, configurable: true, get: function () {
      if (!packed) return [];
      if (!events) events = unpackEvents(packed);
      return events;
    }});
    return r;
  }

  /**
   * SVG path data of the wait hatching inside the rectangle (x, y, w, h): for each line
   * x + y = n * WAIT_HATCH_TILE_PX that crosses it, the band of WAIT_HATCH_LINE_PX around the line
   * clipped to the rectangle (a convex polygon: the rectangle cut by the band's two half-planes).
   * Exact to the rectangle's edges, as the canvas pattern is; no pattern element is needed.
   */
  function hatchBands(x, y, w, h) {
    if (!(w > 0 && h > 0)) return "";
    var half = WAIT_HATCH_LINE_PX / 2 * Math.SQRT2;  // half the band's width along x + y
    var tile = WAIT_HATCH_TILE_PX, out = [];
    var cut = function (poly, keep) {  // Sutherland-Hodgman against keep(p) >= 0
      var res = [];
      for (var i = 0; i < poly.length; i++) {
        var a = poly[i], b = poly[(i + 1) % poly.length], ka = keep(a), kb = keep(b);
        if (ka >= 0) res.push(a);
        if ((ka >= 0) !== (kb >= 0)) { var t = ka / (ka - kb); res.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]); }
      }
      return res;
    };
    var rect = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    for (var n = Math.ceil((x + y - half) / tile); n * tile <= x + w + y + h + half; n++) {
      var c = n * tile;
      var poly = cut(cut(rect, function (p) { return p[0] + p[1] - (c - half); }), function (p) { return c + half - p[0] - p[1]; });
      if (poly.length < 3) continue;
      out.push("M" + poly.map(function (p) { return p[0].toFixed(1) + " " + p[1].toFixed(1); }).join("L") + "z");
    }
    return out.join("");
  }

  /**
   * Where the SVG / PNG legend puts its items: left to right from x0, a new row whenever the next
   * item would pass x1 (an item wider than a whole row gets a row of its own). widths: each
   * item's width in px. Returns {at: [{x, row}], rows}.
   */
  function legendLayout(widths, x0, x1) {
    var at = [], row = 0, x = x0;
    widths.forEach(function (w) {
      if (x > x0 && x + w > x1) { row++; x = x0; }
      at.push({x: x, row: row});
      x += w + LEGEND_ITEM_GAP_PX;
    });
    return {at: at, rows: widths.length ? row + 1 : 0};
  }

  // ---- Reading a schedule (issue 23): statistics over a range, search, a pinned run ------------
  // Kinds whose blocks occupy the tensor core (GEMM WGMMA, attention GEMM0 / GEMM1, Blackwell
  // UMMA): the verdict's tensorCoreBusySteps counts the steps they cover, and rangeStats counts
  // the same steps inside a range (tests/js/reading.test.js checks the whole run against it).
  var TENSOR_CORE_KINDS = ["wgmma", "gemm0", "gemm1", "umma"];

  /**
   * Statistics of result columns c over steps [t0, t1): per lane, busy steps (covered by a block
   * that is not a wait, overlaps counted once), wait steps by reason and the blocks of each kind
   * that overlap the range (a zero-length block counts when it lies inside); over all lanes, the
   * steps the tensor core is busy (TENSOR_CORE_KINDS, overlaps across lanes counted once).
   * laneIndexes[li]: laneIndexOf(c, li) (made when absent). Binary search per lane, then only
   * the blocks that touch the range are read, from the typed columns (no block objects).
   */
  function rangeStats(c, t0, t1, laneIndexes) {
    var lo = Math.min(t0, t1), hi = Math.max(t0, t1), span = hi - lo;
    var waitCode = c.kinds.indexOf("wait");
    var tensorKind = c.kinds.map(function (kind) { return TENSOR_CORE_KINDS.indexOf(kind) >= 0; });
    var lanes = [], tensorLists = [];
    for (var li = 0; li < c.lanes.length; li++) {
      var index = laneIndexes && laneIndexes[li] ? laneIndexes[li] : laneIndexOf(c, li);
      var range = visibleRange(index, lo, hi), starts = index.starts, ends = index.ends;
      var row = {lane: c.lanes[li], busy: 0, wait: 0, waits: {}, counts: {}, blocks: 0};
      var cover = -Infinity, tcS = [], tcE = [], tcCover = -Infinity;
      // Counted by code in typed arrays (no string keys in the loop), named at the end.
      var kindCount = new Float64Array(c.kinds.length), reasonSteps = new Float64Array(c.reasons.length);
      for (var i = range[0]; i < range[1]; i++) {
        var s = starts[i], e = ends[i];
        var inside = e > s ? (s < hi && e > lo) : (s >= lo && s < hi);
        if (!inside) continue;
        var id = index.lo + i, kc = c.kind[id];
        var a = s > lo ? s : lo, b = e < hi ? e : hi;
        row.blocks++;
        kindCount[kc]++;
        if (kc === waitCode) {
          row.wait += b - a;
          reasonSteps[c.reason[id]] += b - a;
          continue;
        }
        var from = a > cover ? a : cover;
        if (b > from) row.busy += b - from;
        if (b > cover) cover = b;
        if (tensorKind[kc] && b > a) {
          // This lane's tensor-core intervals, merged (sorted by start already).
          if (tcS.length && a <= tcCover) { tcE[tcE.length - 1] = Math.max(tcCover, b); tcCover = tcE[tcE.length - 1]; }
          else { tcS.push(a); tcE.push(b); tcCover = b; }
        }
      }
      for (var k = 0; k < kindCount.length; k++) if (kindCount[k]) row.counts[c.kinds[k]] = kindCount[k];
      for (var w = 0; w < reasonSteps.length; w++) if (reasonSteps[w]) row.waits[c.reasons[w] || "?"] = reasonSteps[w];
      if (tcS.length) tensorLists.push({s: tcS, e: tcE, at: 0});
      lanes.push(row);
    }
    // Union of every lane's tensor-core intervals: a merge by start over the few lanes that have any.
    var tensorBusy = 0, tcEnd = -Infinity;
    for (;;) {
      var best = null;
      for (var j = 0; j < tensorLists.length; j++) {
        var l = tensorLists[j];
        if (l.at < l.s.length && (best === null || l.s[l.at] < best.s[best.at])) best = l;
      }
      if (best === null) break;
      var ss = best.s[best.at], ee = best.e[best.at];
      best.at++;
      if (ee > Math.max(ss, tcEnd)) tensorBusy += ee - Math.max(ss, tcEnd);
      tcEnd = Math.max(tcEnd, ee);
    }
    return {t0: lo, t1: hi, span: span, lanes: lanes, tensorBusy: tensorBusy, tensorUtil: span > 0 ? tensorBusy / span : null};
  }

  // Search words that only read well ("next WAIT tma", "find wgmma 1.2"): ignored.
  var SEARCH_FILLER_WORDS = ["next", "find", "go", "to"];
  // The short names block labels use (labelCandidates) for a kind, as search words.
  var SEARCH_KIND_ALIASES = {epi: "epilogue", g0: "gemm0", g1: "gemm1", sm: "softmax", t: "transpose", i: "issue"};
  var SEARCH_PREFIX_MIN = 3;   // a shorter word must name a kind exactly, not by its start
  var RE_TILE_K = /^(\d{1,9})\.(\d{1,9})$/, RE_TILE = /^(\d{1,9})$/;

  /**
   * Parse a search query against a vocabulary {kinds: [{kind, name}], reasons: [..], operands:
   * [..], lanes: [{id, label}]} (the result's columns and view). Words (any order, case-insensitive
   * except an operand written as it is, "K", "V"): a kind's name, id, label abbreviation (EPI, G0,
   * SOFTMAX) or its first SEARCH_PREFIX_MIN+ letters (gemm: GEMM0 and GEMM1); multi-word names
   * ("TMA issue") as phrases; `o.k` (output tile o, k-tile / KV block k) or `o` (output tile);
   * a wait reason (with "wait" in the query a reason wins over a kind of the same name:
   * attention's `epilogue`); an operand; a lane (a substring of its id or name). Values of one
   * sort are alternatives (gemm0 gemm1), sorts must all hold. Returns {kinds, reasons, operands,
   * lanes, tiles: [{tile, k}], words, error} (null: that sort is not constrained); error names
   * the first word that means nothing.
   */
  function parseQuery(text, vocab) {
    var q = {kinds: null, reasons: null, operands: null, lanes: null, tiles: null, words: [], error: null, empty: true};
    var rest = " " + String(text || "").replace(/\s+/g, " ").trim() + " ";
    function add(field, value) {
      q[field] = q[field] || [];
      if (q[field].indexOf(value) < 0) q[field].push(value);
      q.empty = false;
    }
    var kinds = vocab.kinds || [], reasons = vocab.reasons || [], operands = vocab.operands || [], lanes = vocab.lanes || [];
    // Multi-word kind names first, longest first, so "TMA issue" is not "tma" (a wait reason) + "issue".
    kinds.filter(function (k) { return /\s/.test(k.name); }).sort(function (a, b) { return b.name.length - a.name.length; })
      .forEach(function (k) {
        var low = rest.toLowerCase(), phrase = " " + k.name.toLowerCase() + " ", at = low.indexOf(phrase);
        while (at >= 0) {
          add("kinds", k.kind);
          q.words.push(k.name + ": kind");
          rest = rest.slice(0, at) + " " + rest.slice(at + phrase.length - 1);
          low = rest.toLowerCase();
          at = low.indexOf(phrase);
        }
      });
    var words = rest.trim() ? rest.trim().split(" ") : [];
    var hasWait = words.some(function (w) { return w.toLowerCase() === "wait"; });
    function kindsNamed(low) {
      var exact = kinds.filter(function (k) { return k.kind.toLowerCase() === low || k.name.toLowerCase() === low; });
      if (exact.length) return exact;
      var alias = SEARCH_KIND_ALIASES[low];
      var aliased = kinds.filter(function (k) { return k.kind === alias; });
      if (aliased.length) return aliased;
      if (low.length < SEARCH_PREFIX_MIN) return [];
      return kinds.filter(function (k) { return k.kind.toLowerCase().indexOf(low) === 0 || k.name.toLowerCase().indexOf(low) === 0; });
    }
    for (var i = 0; i < words.length; i++) {
      var w = words[i], low = w.toLowerCase(), m;
      if (SEARCH_FILLER_WORDS.indexOf(low) >= 0) continue;
      if ((m = RE_TILE_K.exec(w))) { add("tiles", {tile: Number(m[1]), k: Number(m[2])}); q.words.push(w + ": tile " + m[1] + ", " + (vocab.unit || "k-tile") + " " + m[2]); continue; }
      if ((m = RE_TILE.exec(w))) { add("tiles", {tile: Number(m[1]), k: null}); q.words.push(w + ": output tile"); continue; }
      if (operands.indexOf(w) >= 0) { add("operands", w); q.words.push(w + ": operand"); continue; }
      var reason = reasons.filter(function (r) { return String(r).toLowerCase() === low; })[0];
      if (reason !== undefined && hasWait) { add("reasons", reason); q.words.push(w + ": wait reason"); continue; }
      var named = kindsNamed(low);
      if (named.length) { named.forEach(function (k) { add("kinds", k.kind); }); q.words.push(w + ": kind " + named.map(function (k) { return k.name; }).join(" or ")); continue; }
      if (reason !== undefined) { add("reasons", reason); q.words.push(w + ": wait reason"); continue; }
      var op = operands.filter(function (o) { return String(o).toLowerCase() === low; })[0];
      if (op !== undefined) { add("operands", op); q.words.push(w + ": operand"); continue; }
      var onLanes = lanes.filter(function (ln) { return ln.id.toLowerCase().indexOf(low) >= 0 || String(ln.label).toLowerCase().replace(/\s+/g, "").indexOf(low) >= 0; });
      if (onLanes.length) { onLanes.forEach(function (ln) { add("lanes", ln.id); }); q.words.push(w + ": lane"); continue; }
      q.error = "\u201c" + w.slice(0, 40) + "\u201d names no kind, wait reason, operand, lane or tile (o.k)";
      return q;
    }
    return q;
  }

  /**
   * Ids of the blocks of columns c that query q (parseQuery) matches, in time order (start, then
   * lane order): one pass over the typed columns, then a merge of the lanes' lists (each is
   * sorted by start already). Returns {ids: Int32Array, perLane: [Int32Array per lane, ascending ids]}.
   */
  function searchBlocks(c, q) {
    var none = {ids: new Int32Array(0), perLane: c.lanes.map(function () { return new Int32Array(0); })};
    if (!q || q.error || q.empty) return none;
    function allowed(list, values, offset) {
      if (!values) return null;
      var ok = new Uint8Array(list.length + offset);
      list.forEach(function (v, i) { if (values.indexOf(v) >= 0) ok[i + offset] = 1; });
      return ok;
    }
    var kindOk = allowed(c.kinds, q.kinds, 0), reasonOk = allowed(c.reasons, q.reasons, 0);
    var operandOk = allowed(c.operands, q.operands, 1), laneOk = allowed(c.lanes, q.lanes, 0);
    var tiles = q.tiles, tileCol = c.tile, kCol = c.k;
    var perLane = [], total = 0;
    for (var li = 0; li < c.lanes.length; li++) {
      var out = [];
      if (!laneOk || laneOk[li]) {
        for (var id = c.laneStart[li]; id < c.laneStart[li + 1]; id++) {
          if (kindOk && !kindOk[c.kind[id]]) continue;
          if (reasonOk && !reasonOk[c.reason[id]]) continue;
          if (operandOk && !operandOk[c.operand[id]]) continue;
          if (tiles) {
            var hit = false;
            for (var t = 0; t < tiles.length && !hit; t++) hit = tileCol[id] === tiles[t].tile && (tiles[t].k === null || kCol[id] === tiles[t].k);
            if (!hit) continue;
          }
          out.push(id);
        }
      }
      perLane.push(Int32Array.from(out));
      total += out.length;
    }
    // Merge by start (ties: lane order), reading each lane's next match only.
    var ids = new Int32Array(total), at = new Int32Array(perLane.length), start = c.start;
    for (var n = 0; n < total; n++) {
      var best = -1;
      for (var l = 0; l < perLane.length; l++) {
        if (at[l] < perLane[l].length && (best < 0 || start[perLane[l][at[l]]] < start[perLane[best][at[best]]])) best = l;
      }
      ids[n] = perLane[best][at[best]++];
    }
    return {ids: ids, perLane: perLane};
  }

  /**
   * The match to go to from match position pos (dir +1: Enter, -1: Shift+Enter), wrapping at
   * either end; with no position yet (a new query), the first match starting at or after step t
   * (dir +1) or the last one starting before it (dir -1). ids: searchBlocks' ids; start: c.start.
   * Returns a position, or -1 when there are no matches.
   */
  function stepMatch(ids, start, pos, t, dir) {
    var n = ids.length;
    if (!n) return -1;
    if (pos >= 0 && pos < n) return (pos + (dir > 0 ? 1 : n - 1)) % n;
    var from = typeof t === "number" && isFinite(t) ? t : 0, lo = 0, hi = n;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (start[ids[mid]] < from) lo = mid + 1; else hi = mid; }
    if (dir > 0) return lo < n ? lo : 0;
    return lo > 0 ? lo - 1 : n - 1;
  }

  /**
   * The pinned run's knobs as the URL hash's pin= value: "model:<m>" then key:value for every
   * knob (hash key, value as in the hash) that differs from defaults (the pinned model's
   * starting knobs), comma-separated: `pin=model:gemm,stages:6`. Derived knobs are never passed in.
   */
  function formatPin(knobs, defaults, hashKeys) {
    var parts = ["model:" + hashValue(knobs.model)];
    hashKeys.forEach(function (pair) {
      var name = pair[1], v = knobs[name];
      if (name === "model" || v === undefined || (defaults && defaults[name] === v)) return;
      parts.push(pair[0] + ":" + hashValue(v));
    });
    return parts.join(",");
  }

  /**
   * Read a pin= value (formatPin) with the hash's own rules (parseHash: refused and clamped
   * values become messages, prefixed "URL hash pin:"): {model, knobs, messages}. Only knob keys
   * are accepted.
   */
  function parsePin(text, hashKeys, ranges, currentModel) {
    var knobKeys = {}, messages = [], pairs = [];
    hashKeys.forEach(function (pair) { knobKeys[pair[0]] = true; });
    String(text || "").split(",").forEach(function (item) {
      if (!item) return;
      var colon = item.indexOf(":"), key = colon < 0 ? item : item.slice(0, colon);
      if (colon < 0 || !knobKeys[key]) { messages.push("URL hash pin: ignored " + item.slice(0, 40) + " (expected knob:value)."); return; }
      pairs.push(encodeURIComponent(key) + "=" + encodeURIComponent(item.slice(colon + 1)));
    });
    var p = parseHash(pairs.join("&"), hashKeys, ranges, currentModel);
    return {model: p.model || currentModel, knobs: p.knobs,
            messages: messages.concat(p.messages.map(function (m) { return String(m).replace(/^URL hash:/, "URL hash pin:"); }))};
  }

  /**
   * Differences between a pinned verdict and the live one: {total: [pinned, live], lanes:
   * [{lane, pinned, live, reasons: [[reason, pinned, live]]}]} over the lanes and reasons of
   * either (a lane missing on one side counts 0 there). order: reasons listed first (the view's).
   */
  function verdictDelta(pinned, live, order) {
    var lanes = Object.keys(pinned.waits || {}).concat(Object.keys(live.waits || {}))
      .filter(function (l, i, all) { return all.indexOf(l) === i; }).sort();
    return {total: [pinned.total, live.total], lanes: lanes.map(function (lane) {
      var a = (pinned.waits || {})[lane] || {}, b = (live.waits || {})[lane] || {};
      var reasons = (order || []).concat(Object.keys(a), Object.keys(b))
        .filter(function (r, i, all) { return r !== "total" && all.indexOf(r) === i && ((a[r] || 0) || (b[r] || 0)); });
      return {lane: lane, pinned: a.total || 0, live: b.total || 0, reasons: reasons.map(function (r) { return [r, a[r] || 0, b[r] || 0]; })};
    })};
  }

  /**
   * The link of a source line (viz.py --source-link): "file" gives file:///ABS (browsers open the
   * file, not a line), "vscode" gives vscode://file/ABS:LINE; any other scheme, or no path: null.
   * absPath: the file's absolute path as viz.py resolved it (backslashes become slashes).
   */
  function sourceHref(scheme, absPath, line) {
    if (!absPath || (scheme !== "file" && scheme !== "vscode")) return null;
    var p = String(absPath).replace(/\\/g, "/");
    if (p.charAt(0) !== "/") p = "/" + p;
    var enc = encodeURI(p).replace(/#/g, "%23").replace(/\?/g, "%3F");
    if (scheme === "file") return "file://" + enc;
    return "vscode://file" + enc + (typeof line === "number" && line > 0 ? ":" + line : "");
  }

  // ---- Navigation at scale (issue 23 part 5): lane groups, the overview strip ------------------

  // Names of the lanes' `group` fields (schedule.js's lanes) on a collapsed group's row; a group
  // this table does not name shows its key. Lanes of a peer CTA (lane.cta > 0: Blackwell's 2-SM
  // pair) form one group whatever their own group, so the whole peer CTA folds away at once.
  var GROUP_NAMES = {producer: "producer", stage: "stages", consumer: "consumer WGs", acc: "TMEM accumulators",
    mma: "MMA", epilogue: "epilogue", epi_load: "C load", sched: "scheduler"};
  var RE_GROUP_KEY = /^[A-Za-z0-9_-]{1,40}$/;

  /** The collapsible group of a lane: "cta<c>" for a peer CTA's lane, else its `group` (else its id). */
  function groupKeyOf(lane) {
    if (lane && typeof lane.cta === "number" && lane.cta > 0) return "cta" + lane.cta;
    return String(lane && (lane.group || lane.id));
  }
  /** Display name of a group key ("stages", "peer CTA 1"). */
  function groupName(key) {
    var m = /^cta(\d+)$/.exec(key);
    if (m) return "peer CTA " + m[1];
    return Object.prototype.hasOwnProperty.call(GROUP_NAMES, key) ? GROUP_NAMES[key] : key;
  }

  /**
   * Rows of the shown lanes with groups folded: consecutive lanes of one group key (a sub-lane,
   * isSub(lane) true, stays with the lane above it) form a group; a group of two rows or more is
   * collapsible (head: its first row carries the toggle). A collapsed group (its key in
   * `collapsed`, a Set or an array) becomes one row: {lane: a row lane {id "group:<key>", label,
   * group, groupRow: true}, members: the group's lanes}. Returns {rows: [{lane, members, head,
   * group (the foldable group's key, else null), collapsed}], keys: the collapsible keys in order}.
   */
  function groupRows(lanes, isSub, collapsed) {
    var isCollapsed = Array.isArray(collapsed) ? function (k) { return collapsed.indexOf(k) >= 0; } :
      function (k) { return !!collapsed && collapsed.has(k); };
    var runs = [], rows = [], keys = [];
    lanes.forEach(function (lane) {
      var last = runs[runs.length - 1];
      var key = isSub(lane) && last ? last.key : groupKeyOf(lane);
      if (last && last.key === key) last.lanes.push(lane); else runs.push({key: key, lanes: [lane]});
    });
    runs.forEach(function (run) {
      var foldable = run.lanes.length >= 2;
      if (foldable && keys.indexOf(run.key) < 0) keys.push(run.key);
      if (foldable && isCollapsed(run.key)) {
        var n = run.lanes.filter(function (l) { return !isSub(l); }).length;
        rows.push({lane: {id: "group:" + run.key, label: groupName(run.key) + " (" + n + " lane" + (n === 1 ? "" : "s") + ")",
          group: run.key, groupRow: true}, members: run.lanes, head: run.key, group: run.key, collapsed: true});
        return;
      }
      run.lanes.forEach(function (lane, i) {
        rows.push({lane: lane, members: null, head: foldable && i === 0 ? run.key : null, group: foldable ? run.key : null, collapsed: false});
      });
    });
    return {rows: rows, keys: keys};
  }

  /**
   * The overview strip's summary of a whole run, built once per result and strip width: the run
   * [0, totalSteps) cut into `bins` equal columns; busy[i] is the share of column i the tensor
   * core is busy (the union of tensorKinds' blocks over all lanes, as rangeStats and the verdict
   * count it: cooperative WGs' WGMMAs overlap), wait[i] the share of the waiting lanes' time spent
   * in wait blocks (wait steps / (column steps x lanes with any wait)). One pass over the typed
   * columns (the tensor lanes merged by start, a k-way merge over their few lanes); an interval
   * adds to the columns it spans (a lane's blocks do not overlap, so all of them together span at
   * most about lanes x bins columns besides one each).
   */
  function overviewSummary(c, totalSteps, bins, tensorKinds) {
    bins = Math.max(1, Math.floor(bins));
    var busy = new Float32Array(bins), wait = new Float32Array(bins);
    var span = Math.max(totalSteps, 1e-9), per = span / bins;
    var role = new Int8Array(c.kinds.length);  // 1 tensor core, 2 wait, 0 neither
    c.kinds.forEach(function (k, i) { role[i] = tensorKinds.indexOf(k) >= 0 ? 1 : (k === "wait" ? 2 : 0); });
    /** Add [s, e) (clipped to the run) to the columns of `out`. */
    function add(out, s, e) {
      e = Math.min(e, span);
      if (!(e > s)) return;
      var i0 = Math.min(bins - 1, Math.floor(s / per)), i1 = Math.min(bins - 1, Math.floor(e / per));
      if (i0 === i1) { out[i0] += e - s; return; }
      out[i0] += (i0 + 1) * per - s;
      for (var b = i0 + 1; b < i1; b++) out[b] += per;
      out[i1] += e - i1 * per;
    }
    var waitLanes = 0, tensorLanes = [];
    for (var li = 0; li < c.lanes.length; li++) {
      var hasWait = false, hasTensor = false;
      for (var j = c.laneStart[li]; j < c.laneStart[li + 1]; j++) {
        var rj = role[c.kind[j]];
        if (rj === 2) { hasWait = true; add(wait, c.start[j], c.end[j]); } else if (rj === 1) hasTensor = true;
      }
      if (hasWait) waitLanes++;
      if (hasTensor) tensorLanes.push({at: c.laneStart[li], end: c.laneStart[li + 1]});
    }
    // Tensor-core blocks of every lane in start order, their union flushed interval by interval.
    var cs = -1, ce = -1, nt = tensorLanes.length, at = new Int32Array(nt), endAt = new Int32Array(nt);
    var kind = c.kind, start = c.start, end = c.end;
    for (var t = 0; t < nt; t++) { at[t] = tensorLanes[t].at; endAt[t] = tensorLanes[t].end; }
    for (;;) {
      var pick = -1;
      for (var u = 0; u < nt; u++) {
        var a = at[u];
        while (a < endAt[u] && role[kind[a]] !== 1) a++;
        at[u] = a;
        if (a < endAt[u] && (pick < 0 || start[a] < start[at[pick]])) pick = u;
      }
      if (pick < 0) break;
      var s0 = start[at[pick]], e0 = end[at[pick]];
      at[pick]++;
      if (s0 > ce) { if (ce > cs) add(busy, cs, ce); cs = s0; ce = e0; } else if (e0 > ce) ce = e0;
    }
    if (ce > cs) add(busy, cs, ce);
    for (var q = 0; q < bins; q++) {
      busy[q] = Math.min(1, busy[q] / per);
      wait[q] = waitLanes ? Math.min(1, wait[q] / (per * waitLanes)) : 0;
    }
    return {bins: bins, busy: busy, wait: wait, waitLanes: waitLanes};
  }

  var pure = {
    legendLayout: legendLayout, hatchBands: hatchBands,
    packResult: packResult, packEvents: packEvents, unpackResult: unpackResult, percentText: percentText, barrierStateAt: barrierStateAt, barrierEventStep: barrierEventStep, codePathLines: codePathLines,
    TimeScale: TimeScale, laneIndexOf: laneIndexOf, visibleRange: visibleRange, niceTickStep: niceTickStep,
    buildFillSummary: buildFillSummary, fillMaskIn: fillMaskIn, dependentsOfColumns: dependentsOfColumns, laneEdge: laneEdge,
    labelCandidates: labelCandidates, fillKey: fillKey, chainIds: chainIds, parseHash: parseHash,
    formatHash: formatHash, tileText: tileText,
    rangeStats: rangeStats, parseQuery: parseQuery, searchBlocks: searchBlocks, stepMatch: stepMatch,
    formatPin: formatPin, parsePin: parsePin, groupKeyOf: groupKeyOf, groupName: groupName, groupRows: groupRows, overviewSummary: overviewSummary, verdictDelta: verdictDelta, sourceHref: sourceHref, TENSOR_CORE_KINDS: TENSOR_CORE_KINDS,
    constants: {RULER_HEIGHT_PX: RULER_HEIGHT_PX, LANE_HEIGHT_PX: LANE_HEIGHT_PX, GUTTER_MIN_WIDTH_PX: GUTTER_MIN_WIDTH_PX,
      LABEL_MIN_WIDTH_PX: LABEL_MIN_WIDTH_PX, BADGE_ROW_PX: BADGE_ROW_PX}
  };

  // ---- (3) The page --------------------------------------------------------------------------

  /** Start the page; any failure is shown in the error box rather than leaving a blank page. */
  function startPage() {
    var errorBox = document.getElementById("error");
    try {
      runPage();
    } catch (e) {
      errorBox.hidden = false;
      errorBox.textContent = "The waveform page failed to start: " + (e && e.message ? e.message : String(e));
      if (window.console) console.warn(e);
    }
  }

  function runPage() {
    var KS = window.KernelSchedule;
    if (!KS || typeof KS.simulate !== "function") throw new Error("the simulator (KernelSchedule) is missing");
    var model = JSON.parse(document.getElementById("model").textContent);
    var parsed = model.parsed;
    var hashKeys = model.hashKeys;
    // GPU presets (sim/gpus.json, embedded as JSON): the GPU select; schedule.js looks a GPU name
    // up in the global KernelGpuTable (docs/performance.md). Unit knobs: KNOB_TABLE.units.
    var gpuTableEl = document.getElementById("gpus");
    var gpuTable = gpuTableEl ? JSON.parse(gpuTableEl.textContent) : {gpus: {}};
    window.KernelGpuTable = gpuTable;
    var UNIT_SPECS = {};
    (KS.KNOB_TABLE.units || []).forEach(function (k) { UNIT_SPECS[k.name] = k; });
    // Knobs a cycles run computed (sources "gpu" / "problem") as {name: value}: not sent back, so
    // they are computed again, unless the user moved them (then they differ and are sent).
    var unitComputed = {};

    var canvas = document.getElementById("wave");
    var box = document.getElementById("wave-box");
    var tooltip = document.getElementById("tooltip");
    var ctx = canvas.getContext("2d");
    var overviewCanvas = document.getElementById("overview");
    var overviewCtx = overviewCanvas ? overviewCanvas.getContext("2d") : null;
    // Small windows (1024x768): the header facts fold away so the timeline's lanes fit without scrolling.
    if (window.innerHeight < SMALL_WINDOW_HEIGHT_PX) document.getElementById("facts-box").open = false;

    var state = {
      knobs: {}, result: null, lanes: [], laneIndex: [], laneRow: {}, columns: KS.emptyColumns(), fills: null,
      blockCache: new Map(), liveBlocks: new WeakSet(),
      rowTop: [], rowHeight: [], rowStripe: [], rowsBottom: RULER_HEIGHT_PX,
      // Navigation at scale: rowTopAbs / contentBottom are the rows before the lanes' vertical
      // scroll (scrollPx); rowTop / rowsBottom after it (what drawing and hit testing read).
      // rulerTopPx: where the ruler is drawn (below 0 of the canvas when the page scrolled it off).
      rowTopAbs: [], contentBottom: RULER_HEIGHT_PX, scrollPx: 0, viewHeightPx: 0, rulerTopPx: 0,
      collapsedGroups: new Set(), groupKeys: [], rowMembers: [], rowHead: [], rowGroup: [], overview: null,
      view: {t0Step: 0, t1Step: 1}, fitted: true, cursor: null, markerA: null, markerB: null,
      follow: null, highlighted: new Set(), highlightedSorted: [], hover: null, hashMessages: [], simMessages: [],
      // selected: the block of the details panel and its arrows; pointer: the last pointer position
      // over the canvas (client coordinates), so keyboard/wheel moves re-aim the cursor and tooltip.
      selected: null, pointer: null, allLanes: [], perLane: {}, hiddenLanes: new Set(), laneOrder: [], laneFilter: "",
      dependents: null, summarised: [],
      scale: null, gutterPx: GUTTER_MIN_WIDTH_PX, frames: 0, lastFrameMs: 0, lastSimMs: 0, lastDrawMs: 0,
      lastWorker: null, resultDrawPending: false, lastResultDrawnAt: 0, lastResultFrameAt: 0
    };

    // -- knobs: specs from the simulator (knobsFor), starting values: model defaults < embedded < hash
    var modelNames = KS.MODEL_NAMES.slice();
    var hashKeyOf = {};
    hashKeys.forEach(function (pair) { hashKeyOf[pair[1]] = pair[0]; });


    /** What the hash and the controls accept for a knob of a model: {min, max}, {options}, {flag}, or null. */
    function rangeOf(name, modelName) {
      if (name === "model") return {options: modelNames.slice()};
      var unit = UNIT_SPECS[name];
      if (unit) return name === "gpu" ? {options: Object.keys(gpuTable.gpus)} : unit.text ? {text: true} : unit.onOff ? {flag: true} : {min: 0, max: MAX_HASH_NUMBER};
      var specs = KS.knobsFor(modelName || state.knobs.model, parsed);
      for (var i = 0; i < specs.length; i++) {
        var spec = specs[i];
        if (spec.name !== name) continue;
        if (spec.derived) return {derived: true};
        if (spec.type === "flag") return {flag: true};
        if (spec.type === "choice") return {options: spec.choices.slice()};
        return {min: spec.min, max: spec.max};
      }
      return null;
    }

    // The page's model: the embedded initial knobs' (from --model), else the structure's fit. A
    // kernel no model fits gets the no-model page and offers no model (docs/fit.md).
    var initial = model.initialKnobs || {};
    var startMessages = [];
    var startFit = KS.fitModel(parsed);
    var noFit = startFit.model === null;
    var pageModel = startFit.model;
    if (noFit) modelNames = [];
    if (initial.model !== undefined) {
      if (modelNames.indexOf(initial.model) >= 0) pageModel = initial.model;
      else if (noFit) startMessages.push("initial model " + String(initial.model).slice(0, 40) + " ignored: no schedule model fits this kernel.");
      else startMessages.push("initial model " + String(initial.model).slice(0, 40) + " ignored; using " + pageModel + ".");
    }

    /** Starting knobs of a model: its defaults, plus the embedded initial knobs on the page's own model. */
    function baseKnobs(modelName) {
      var knobs = {model: modelName};
      KS.knobsFor(modelName, parsed).forEach(function (spec) { knobs[spec.name] = spec["default"]; });
      if (modelName === pageModel) {
        Object.keys(initial).forEach(function (name) {
          if (name !== "model" && rangeOf(name, modelName)) knobs[name] = initial[name];
        });
      }
      return knobs;
    }
    Object.keys(initial).forEach(function (name) {
      if (name !== "model" && !rangeOf(name, pageModel)) {
        startMessages.push("initial knob " + name + " ignored: not a knob of the " + pageModel + " model.");
      }
    });

    var modelSelect = document.getElementById("knob-model");
    (noFit ? ["none"] : modelNames).forEach(function (name) {
      var opt = document.createElement("option");
      opt.value = name;
      opt.textContent = name;
      modelSelect.appendChild(opt);
    });
    if (noFit) {
      modelSelect.disabled = true;
      modelSelect.title = "No schedule model fits this kernel: " + startFit.reason;
    }
    modelSelect.addEventListener("change", function () { setModel(modelSelect.value); });
    // The GPU select (none: abstract steps) and the problem size of the cycles mode.
    var gpuSelect = document.getElementById("knob-gpu"), problemInput = document.getElementById("knob-problem");
    [""].concat(Object.keys(gpuTable.gpus)).forEach(function (name) {
      var opt = document.createElement("option");
      opt.value = name;
      opt.textContent = name || "none (steps)";
      gpuSelect.appendChild(opt);
    });
    gpuSelect.addEventListener("change", function () { setUnit("gpu", gpuSelect.value); });
    problemInput.addEventListener("change", function () { setUnit("problem", problemInput.value.trim()); });
    /** Set (or, empty, remove) a unit knob; without a GPU the computed latencies go back to the defaults. */
    function setUnit(name, value) {
      if (value) state.knobs[name] = value; else delete state.knobs[name];
      if (!state.knobs.gpu) {
        Object.keys(unitComputed).forEach(function (k) { if (state.knobs[k] === unitComputed[k]) delete state.knobs[k]; });
        unitComputed = {};
      }
      state.fitted = true;
      requestSimulate();
    }
    /** The GPU select and problem input show the knobs. */
    function syncUnits() { gpuSelect.value = state.knobs.gpu || ""; problemInput.value = state.knobs.problem || ""; }
    /** Step t as text: with a GPU, cycles and microseconds at its clock. */
    function stepText(t) {
      var u = state.result && state.result.units;
      if (!u || !state.result.time) return String(t);
      var us = t / u.clockMHz;
      return t + " \u00b7 " + (us < 10 ? us.toFixed(2) : us < 100 ? us.toFixed(1) : us.toFixed(0)) + " \u00b5s";
    }

    /** Switch the model: that model's starting knobs, its controls and legend, a fitted view. */
    function setModel(modelName) {
      if (modelNames.indexOf(modelName) < 0) return;
      var units = {};
      Object.keys(state.knobs).forEach(function (k) { if (UNIT_SPECS[k]) units[k] = state.knobs[k]; });
      state.knobs = Object.assign(baseKnobs(modelName), units);
      unitComputed = {};
      state.hashMessages = [];
      state.follow = null;
      state.fitted = true;
      buildControls(modelName);
      requestSimulate();
    }

    var controls = {};
    // Knobs the source derives from the others (FA3's Transpose_V, scheduler barrier): shown, not
    // sent: the simulator derives them again from the knobs that are.
    var derivedNames = {};
    /** state.knobs without the derived knobs: what the page simulates, hashes and exports. */
    function simKnobs() {
      var out = {};
      // With a GPU, a knob at its model default is left out too: the cycles run computes it.
      var defaults = {};
      if (state.knobs.gpu) KS.knobsFor(state.knobs.model, parsed).forEach(function (spec) { defaults[spec.name] = spec["default"]; });
      Object.keys(state.knobs).forEach(function (k) {
        if (derivedNames[k] || (unitComputed[k] !== undefined && unitComputed[k] === state.knobs[k])) return;
        if (k in defaults && defaults[k] === state.knobs[k]) return;
        out[k] = state.knobs[k];
      });
      return out;
    }
    /** Build one labelled control per knob of the model that has a hash key (CLI flag): slider, select or checkbox. */
    function buildControls(modelName) {
      var holder = document.getElementById("knob-controls");
      holder.textContent = "";
      controls = {};
      derivedNames = {};
      modelSelect.value = noFit ? "none" : modelName;
      KS.knobsFor(modelName, parsed).forEach(function (spec) {
        // Every knob has a CLI flag and hash key (KNOB_TABLE); one without would keep its default.
        if (!hashKeyOf[spec.name]) return;
        var name = spec.name, id = "knob-" + name;
        var label = document.createElement("label");
        label.className = "kv-knob";
        label.htmlFor = id;
        var text = document.createElement("span");
        text.textContent = spec.short || spec.label || name;
        var el, out = null, event = "change";
        if (spec.type === "flag") {
          el = document.createElement("input");
          el.type = "checkbox";
        } else if (spec.type === "choice" || spec.max - spec.min + 1 <= SELECT_MAX_VALUES) {
          el = document.createElement("select");
          var values = spec.type === "choice" ? spec.choices : [];
          for (var v = spec.min; spec.type !== "choice" && v <= spec.max; v++) values.push(v);
          values.forEach(function (value) {
            var opt = document.createElement("option");
            opt.value = String(value);
            opt.textContent = String(value);
            el.appendChild(opt);
          });
        } else {
          el = document.createElement("input");
          el.type = "range";
          el.min = String(spec.min);
          el.max = String(Math.min(spec.max, spec.sliderMax || spec.max));
          el.step = "1";
          out = document.createElement("output");
          out.id = "out-" + name;
          out.htmlFor = id;
          event = "input";
        }
        if (spec.derived) {
          // Derived by the source's build rule from other knobs: shown, never set.
          el.disabled = true;
          derivedNames[name] = true;
        }
        el.id = id;
        el.setAttribute("data-knob", name);
        el.title = String(spec.label || name) + (spec.doc ? ": " + spec.doc : "") +
          (spec.source ? " (the source says " + spec.source.value + (spec.source.line !== null ? " at line " + spec.source.line : "") + ")" : "") +
          (spec.derived ? " (derived: " + spec.derived.rule + (spec.derived.line !== null ? ", line " + spec.derived.line : "") + ")" : "");
        if (spec.source) label.setAttribute("data-source-line", String(spec.source.line));
        if (spec.type === "flag") { label.appendChild(el); label.appendChild(text); } else { label.appendChild(text); label.appendChild(el); }
        if (out) label.appendChild(out);
        holder.appendChild(label);
        controls[name] = el;
        el.addEventListener(event, function () {
          state.knobs[name] = spec.type === "flag" ? el.checked : (spec.type === "choice" ? el.value : Number(el.value));
          state.hashMessages = [];
          readout(name);
          requestSimulate();
        });
      });
    }
    document.getElementById("knobs").addEventListener("submit", function (e) { e.preventDefault(); });

    function readout(name) {
      var out = document.getElementById("out-" + name);
      if (out) out.textContent = String(state.knobs[name]);
    }

    function syncControls() {
      modelSelect.value = noFit ? "none" : state.knobs.model;
      Object.keys(controls).forEach(function (name) {
        var el = controls[name], v = state.knobs[name];
        if (el.type === "checkbox") { el.checked = v === true; return; }
        // A value beyond the slider's comfortable range (from the hash or CLI) stretches the slider.
        if (el.type === "range" && typeof v === "number" && v > Number(el.max)) el.max = String(v);
        if (v !== undefined) el.value = String(v);
        readout(name);
      });
    }

    /** The legend: the entries of the result's view (an entry with lanePrefix only when such a lane is drawn). */
    var legendKey = null;
    function renderLegend() {
      var box = document.getElementById("legend");
      var view = currentView;
      var entries = view && view.legend ? view.legend.filter(function (entry) {
        return !entry.lanePrefix || state.lanes.some(function (lane) { return lane.id.indexOf(entry.lanePrefix) === 0; });
      }) : [];
      var key = JSON.stringify([entries, view && view.note]);
      if (legendKey === key) return;  // unchanged: keep the DOM as it is
      legendKey = key;
      box.textContent = "";
      function addText(parent, parts) {
        parts.forEach(function (part) {
          if (Array.isArray(part)) {
            var code = document.createElement("code");
            code.textContent = part[0];
            parent.appendChild(code);
          } else if (part) parent.appendChild(document.createTextNode(part));
        });
      }
      entries.forEach(function (entry) {
        var item = document.createElement("span");
        item.className = "kv-legend-item";
        item.setAttribute("data-kind", entry.kind);
        entry.fills.forEach(function (key) {
          var sw = document.createElement("span");
          sw.className = "kv-swatch kv-sw-" + key;
          item.appendChild(sw);
        });
        addText(item, entry.text);
        box.appendChild(item);
      });
      if (view && view.note) {
        var note = document.createElement("span");
        note.className = "kv-legend-item kv-muted";
        addText(note, view.note);
        box.appendChild(note);
      }
      box.setAttribute("data-model", String(state.result && state.result.model));
    }

    // -- simulation
    /** Simulate now on this thread (small settings, start-up, and when no Worker can be made). */
    function simulateNow() {
      cancelBackground();
      state.resultRunId = 0;
      var t0 = performance.now();
      var result;
      try {
        // A structure no model fits gets the honest no-model result (structure only, no verdict).
        result = noFit ? KS.simulate(parsed, {}) : KS.simulate(parsed, simKnobs());
      } catch (e) {
        result = {error: "simulation failed: " + (e && e.message ? e.message : String(e))};
      }
      applyResult(result, t0);
    }

    // -- large settings: simulated in a Web Worker made from the page's own simulator text (a Blob
    // URL, which works from file://); a newer request terminates the stale run; the last drawing
    // stays interactive meanwhile and a progress line says what is running.
    // That run records no barrier events (simulate's options.events false: a faster answer); the
    // result is drawn as soon as it arrives. Once it has been on screen EVENTS_DELAY_MS with no
    // newer request, a second Worker runs the same settings with events and sends only those (a
    // slider drag never waits behind them; a newer request stops that run). Meanwhile the barrier
    // panel says they are on their way.
    var WORKER_MAIN = "var packResult = " + packResult.toString() + ";\nvar packEvents = " + packEvents.toString() + ";\n" +
      "self.onmessage = function (e) { var d = e.data, r, t0 = performance.now();" +
      " try { r = KernelSchedule.simulate(d.parsed, d.knobs, {events: d.events === true}); }" +
      " catch (err) { r = {error: 'simulation failed: ' + (err && err.message ? err.message : String(err))}; }" +
      " if (d.events === true) { var ev = packEvents(r), t2 = ev.transfer; delete ev.transfer;" +
      " self.postMessage({id: d.id, events: ev}, t2); return; }" +
      " var t1 = performance.now(), p = packResult(r), transfer = p.transfer || []; delete p.transfer;" +
      " p.timing = {simulate: t1 - t0, pack: performance.now() - t1};" +
      " self.postMessage({id: d.id, packed: p}, transfer); };";
    // pendingExport: a trace/VCD export waiting for the result's deferred barrier events.
    var worker = null, workerUrl = null, runId = 0, running = null, progressTimer = 0, pendingExport = null;
    // The barrier-events Worker, the result id it is running for (0: idle), its start timer.
    var eventsWorker = null, eventsRunning = 0, eventsTimer = 0;
    /** A Worker running the page's simulator with WORKER_MAIN, or null when none can be made. */
    function newWorker(onmessage, onerror) {
      var simSource = window.KV_SOURCES && window.KV_SOURCES.schedule;
      if (!simSource || typeof Worker === "undefined" || typeof Blob === "undefined") return null;
      try {
        // The formulas (perf) and the GPU table come first: a cycles run reads both.
        if (!workerUrl) {
          workerUrl = URL.createObjectURL(new Blob([window.KV_SOURCES.perf || "", "\nvar KernelGpuTable = " + JSON.stringify(gpuTable) + ";\n",
            simSource, "\n", WORKER_MAIN], {type: "text/javascript"}));
        }
        var w = new Worker(workerUrl);
        w.onmessage = onmessage;
        w.onerror = function (ev) { ev.preventDefault(); onerror(ev); };
        return w;
      } catch (e) {
        return null;
      }
    }
    function makeWorker() {
      return newWorker(function (ev) {
        if (!running || ev.data.id !== running.id) return;  // a stale run's answer
        var t0 = running.t0, id = running.id;
        running = null;
        showProgress(null);
        var unpackStart = performance.now();
        var result = unpackResult(ev.data.packed);
        state.lastUnpackMs = performance.now() - unpackStart;
        state.lastWorker = ev.data.packed.timing || null;
        state.resultRunId = id;
        applyResult(result, t0);
        // Drawn now, not at the next animation frame: the answer is what the user waits for;
        // after a long hand-off (a million blocks) at the next frame, so an input can come first.
        if (performance.now() - unpackStart < APPLY_SPLIT_MS) flush();
        else requestDraw();
        if (result && result.eventsPending) scheduleEvents(id);
      }, function (ev) {
        running = null;
        showProgress(null);
        worker = null;
        applyResult({error: "background simulation failed: " + (ev.message || "unknown error")}, performance.now());
        requestDraw();
      });
    }
    /** Ask for the barrier events of result `id` once it has been on screen EVENTS_DELAY_MS. */
    function scheduleEvents(id) {
      stopEvents();
      eventsTimer = setTimeout(function () {
        eventsTimer = 0;
        var r = state.result;
        if (running || !r || !r.eventsPending || state.resultRunId !== id) return;
        eventsWorker = eventsWorker || newWorker(takeEvents, function (ev) {
          eventsWorker = null;
          eventsRunning = 0;
          eventsUnavailable("the barrier-events run failed: " + (ev.message || "unknown error"));
        });
        if (!eventsWorker) { eventsUnavailable("no second Web Worker could be started for them"); return; }
        eventsRunning = id;
        eventsWorker.postMessage({id: id, parsed: parsed, knobs: Object.assign({}, r.knobs), events: true});
      }, EVENTS_DELAY_MS);
    }
    /**
     * The result on screen will get no barrier events after all: it says so (the barrier panel:
     * not recorded; a notice: why), and an export waiting for them goes ahead without them.
     */
    function eventsUnavailable(why) {
      var r = state.result;
      if (!r || !r.eventsPending) return;
      r.eventsPending = false;
      r.barrierEventsOmitted = true;
      state.simMessages = state.simMessages.concat(["barrier events not recorded: " + why]);
      renderNotices();
      lastBarrierResult = null;
      requestDraw();
      if (pendingExport) { var format = pendingExport; pendingExport = null; exportAs(format); }
    }
    /** The deferred barrier events of the result on screen (else a stale run's: ignored). */
    function takeEvents(ev) {
      eventsRunning = 0;
      var r = state.result;
      if (!r || !r.eventsPending || state.resultRunId !== ev.data.id) return;
      r.supplyEvents(ev.data.events);
      lastBarrierResult = null;  // the barrier panel re-renders with them
      requestDraw();
      if (pendingExport) { var format = pendingExport; pendingExport = null; exportAs(format); }
    }
    /** Stop a pending or running barrier-events run (its result is about to be replaced). */
    function stopEvents() {
      if (eventsTimer) { clearTimeout(eventsTimer); eventsTimer = 0; }
      if (!eventsRunning) return;
      // Busy inside simulate(): terminating is the only way to free its core for the new run.
      if (eventsWorker) eventsWorker.terminate();
      eventsWorker = null;
      eventsRunning = 0;
    }
    function cancelBackground() {
      stopEvents();
      if (!running) return;
      // The Worker is busy inside simulate(): terminating it is the only way to stop the stale run.
      if (worker) worker.terminate();
      worker = null;
      running = null;
      showProgress(null);
    }
    /** Simulate in the background when the settings are large; false when it must run here. */
    function simulateInBackground() {
      var estimate = 0;
      try { estimate = noFit ? 0 : KS.estimateBlockCount(simKnobs(), parsed); } catch (e) { estimate = 0; }
      if (!(estimate >= WORKER_MIN_BLOCKS) || estimate > KS.MAX_BLOCKS) return false;
      cancelBackground();
      worker = worker || makeWorker();
      if (!worker) return false;
      running = {id: ++runId, t0: performance.now(), estimate: estimate};
      worker.postMessage({id: running.id, parsed: parsed, knobs: simKnobs()});
      showProgress(running);
      renderNotices();  // cleared hash messages go at once; the simulator's come with the result
      return true;
    }
    function showProgress(run) {
      var el = document.getElementById("sim-progress");
      if (progressTimer) { clearInterval(progressTimer); progressTimer = 0; }
      if (!run) { el.hidden = true; el.textContent = ""; state.simulating = false; return; }
      state.simulating = true;
      var tick = function () {
        var elapsed = performance.now() - run.t0;
        if (elapsed < PROGRESS_SHOW_MS) return;
        el.hidden = false;
        el.textContent = "Simulating about " + run.estimate.toLocaleString("en-US") + " blocks in the background (" +
          (elapsed / 1000).toFixed(1) + " s); the drawing below is the previous result.";
      };
      // A slider's quick runs never show it (nor change the toolbar's layout while the Worker runs).
      progressTimer = setInterval(tick, PROGRESS_TICK_MS);
      setTimeout(function () { if (running === run) tick(); }, PROGRESS_SHOW_MS);
    }

    /** Take a simulation result: lanes, indexes, panels, notices, verdict. */
    function applyResult(result, t0) {
      var applyStart = performance.now();
      result = result || {error: "simulation returned nothing"};
      // simulate() validates the knobs (clamping, with messages) and may adjust them for the
      // structure (attention: 2 stages for a shared K/V ring with intra-WG overlap); the controls
      // and the hash show what was simulated.
      if (result.knobs && typeof result.knobs === "object" && result.knobs.model === state.knobs.model) {
        // A cycles run's knobs lack the unit knobs (kept) and hold the computed ones (remembered).
        var units = {};
        Object.keys(state.knobs).forEach(function (k) { if (UNIT_SPECS[k]) units[k] = state.knobs[k]; });
        unitComputed = {};
        var sources = result.units && result.units.sources ? result.units.sources : {};
        Object.keys(sources).forEach(function (k) { if ((sources[k] === "gpu" || sources[k] === "problem") && k in result.knobs) unitComputed[k] = result.knobs[k]; });
        state.knobs = Object.assign({}, result.knobs, units);
      }
      state.result = result;
      // The view description first: row layout (sub-lanes), fills and legend read it.
      currentView = result.view || null;
      if (currentView && currentView.legend) {
        currentView.legendByKind = {};
        currentView.legend.forEach(function (entry) { currentView.legendByKind[entry.kind] = entry; });
      }
      state.allLanes = Array.isArray(result.lanes) ? result.lanes : [];
      // The block columns (result.columns): never result.blocks, which builds an object per block.
      var c = result.columns && typeof result.columns.n === "number" && !result.error ? result.columns : null;
      state.columns = c || KS.emptyColumns();
      state.blockCache = new Map();
      state.liveBlocks = new WeakSet();
      state.perLane = {};
      if (c) c.lanes.forEach(function (id, li) { state.perLane[id] = laneIndexOf(c, li); });
      state.fills = fillSummaryOf(state.columns);
      state.dependents = null;
      if (state.selected) state.selected = state.selected.id < state.columns.n ? blockById(state.selected.id) : null;
      state.hover = null;
      applyLanes();
      renderLaneList();
      renderDetails();
      state.simMessages = Array.isArray(result.messages) ? result.messages : [];
      if (state.fitted) fitView(); else clampView();
      applyPendingView();
      applyFollow();
      syncControls();
      renderLegend();
      renderNotices();
      renderVerdict();
      renderStructure();
      refreshReading();
      state.lastSimMs = performance.now() - t0;
      state.lastApplyMs = performance.now() - applyStart;
      // the next draw() is the first to show this result (lastResultDrawnAt: when it ended)
      state.resultDrawPending = true;
    }

    /**
     * Fill codes and level-of-detail masks of the result's blocks (buildFillSummary): fill names
     * are FILL_KEYS then any other key a kind maps to; kind code -> its fill codes from the view.
     */
    function fillSummaryOf(c) {
      var names = FILL_KEYS.slice(), codeOf = {};
      names.forEach(function (key, i) { codeOf[key] = i; });
      function code(key) {
        if (codeOf[key] === undefined) {
          // 32 fill bits per mask; a view never has that many fills (the last code is reused).
          if (names.length >= 32) return 31;
          codeOf[key] = names.length;
          names.push(key);
        }
        return codeOf[key];
      }
      var kindFills = c.kinds.map(function (kind) {
        var entry = currentView && currentView.legendByKind ? currentView.legendByKind[kind] : null;
        return (entry && entry.fills.length ? entry.fills : [kind]).map(code);
      });
      var summary = buildFillSummary(c, kindFills);
      summary.names = names;
      return summary;
    }

    /**
     * Block `id` of the current result as a v1 object (KernelSchedule.blockAt), built on demand and
     * cached (a bounded cache: only the blocks the page holds or labels); null for no such id.
     */
    function blockById(id) {
      var c = state.columns;
      if (typeof id !== "number" || !(id >= 0 && id < c.n) || Math.floor(id) !== id) return null;
      var b = state.blockCache.get(id);
      if (!b) {
        if (state.blockCache.size >= BLOCK_CACHE_MAX) state.blockCache.clear();
        b = KS.blockAt(c, id);
        state.blockCache.set(id, b);
        state.liveBlocks.add(b);
      }
      return b;
    }
    /** Whether b is a block of the current result (held blocks from an older result are not). */
    function isLive(b) { return !!b && state.liveBlocks.has(b); }
    /** Ids of the blocks block id waited for (its `after`), from the columns. */
    function afterIds(id) {
      var c = state.columns;
      return Array.prototype.slice.call(c.afterList.subarray(c.afterAt[id], c.afterAt[id + 1]));
    }

    /** Row geometry: a softmax lane is a thinner sub-row under its consumer lane and shares its stripe. */
    function layoutRows() {
      var top = RULER_HEIGHT_PX, stripe = -1;
      state.rowTopAbs = [];
      state.rowHeight = [];
      state.rowStripe = [];
      state.lanes.forEach(function (lane) {
        var sub = isSubLane(lane);
        if (!sub) stripe++;
        state.rowTopAbs.push(top);
        state.rowHeight.push(sub ? SUB_LANE_HEIGHT_PX : LANE_HEIGHT_PX);
        state.rowStripe.push(Math.max(stripe, 0));
        top += sub ? SUB_LANE_HEIGHT_PX : LANE_HEIGHT_PX;
      });
      state.contentBottom = top;
      scrollRows();
    }
    /** The rows' canvas positions after the lanes' vertical scroll (clamped to the content). */
    function scrollRows() {
      var room = state.viewHeightPx > 0 ? state.viewHeightPx : state.contentBottom;
      state.scrollPx = Math.max(0, Math.min(state.scrollPx, state.contentBottom - room));
      var dy = state.scrollPx;
      state.rowTop = state.rowTopAbs.map(function (t) { return t - dy; });
      state.rowsBottom = state.contentBottom - dy;
    }
    /** Scroll the lanes by dy CSS px; true when they moved (false at either end, or when all fit). */
    function scrollLanes(dy) {
      var before = state.scrollPx;
      state.scrollPx += dy;
      scrollRows();
      if (state.scrollPx === before) return false;
      refreshPointer();
      requestDraw();
      return true;
    }
    /** Whether more lanes are shown than fit in the canvas (then the plain wheel scrolls them). */
    function lanesOverflow() { return state.viewHeightPx > 0 && state.contentBottom > state.viewHeightPx; }
    /** Scroll the lanes so row `row` is wholly below the ruler and above the canvas's bottom. */
    function scrollRowIntoView(row) {
      if (!(row >= 0) || !lanesOverflow()) return;
      var top = state.rowTopAbs[row], bottom = top + state.rowHeight[row];
      if (top - RULER_HEIGHT_PX < state.scrollPx) state.scrollPx = top - RULER_HEIGHT_PX;
      else if (bottom > state.scrollPx + state.viewHeightPx) state.scrollPx = bottom - state.viewHeightPx;
      scrollRows();
      requestDraw();
    }
    /** Fold or unfold lane group `key` (groupRows); the hash keeps the folded ones as groups=. */
    function toggleGroup(key) {
      if (!key) return;
      if (state.collapsedGroups.has(key)) state.collapsedGroups.delete(key); else state.collapsedGroups.add(key);
      relayout();
    }
    /** The foldable group a lane belongs to (shown, or folded into a group row), else null. */
    function groupOfLane(id) {
      var row = state.laneRow[id];
      if (row !== undefined) return state.rowGroup[row];
      for (var r = 0; r < state.rowMembers.length; r++) {
        var m = state.rowMembers[r];
        if (m && m.some(function (l) { return l.id === id; })) return state.rowHead[r];
      }
      return null;
    }
    /** c: fold / unfold the group of the selected block's lane, else of the lane under the pointer. */
    function toggleGroupKey() {
      var key = null;
      if (isLive(state.selected)) key = groupOfLane(state.selected.lane);
      if (key === null && state.pointer) {
        var row = rowAt(state.pointer.clientY - canvas.getBoundingClientRect().top);
        if (row >= 0) key = state.rowGroup[row];
      }
      toggleGroup(key);
    }
    /** The row at canvas CSS y (below the ruler), or -1. */
    function rowAt(y) {
      if (y < RULER_HEIGHT_PX || y >= state.rowsBottom) return -1;
      if (y >= state.rulerTopPx && y < state.rulerTopPx + RULER_HEIGHT_PX) return -1;
      return upperBound(state.rowTop, y, false) - 1;
    }
    /** Shown lanes: the result's lanes in the user's order, without hidden ones and those the filter rejects. */
    function applyLanes() {
      var order = state.laneOrder, pos = {};
      order.forEach(function (id, i) { pos[id] = i; });
      var filter = state.laneFilter.toLowerCase();
      var lanes = state.allLanes.filter(function (lane) {
        if (state.hiddenLanes.has(lane.id)) return false;
        return !filter || (laneName(lane) + " " + lane.id).toLowerCase().indexOf(filter) >= 0;
      });
      lanes = lanes.map(function (lane, i) { return {lane: lane, i: i}; }).sort(function (a, b) {
        var pa = pos[a.lane.id], pb = pos[b.lane.id];
        if (pa !== undefined && pb !== undefined) return pa - pb;
        return a.i - b.i;
      }).map(function (x) { return x.lane; });
      // Folded groups become one row each (groupRows), drawing their lanes' blocks on it.
      var grouped = groupRows(lanes, isSubLane, state.collapsedGroups);
      lanes = grouped.rows.map(function (row) { return row.lane; });
      state.groupKeys = grouped.keys;
      state.rowMembers = grouped.rows.map(function (row) { return row.members; });
      state.rowHead = grouped.rows.map(function (row) { return row.head; });
      state.rowGroup = grouped.rows.map(function (row) { return row.group; });
      state.rowMemberIndexes = grouped.rows.map(function (row) {
        return row.members ? row.members.map(function (lane) { return state.perLane[lane.id] || emptyLaneIndex(); }) : null;
      });
      state.lanes = lanes;
      state.laneRow = {};
      lanes.forEach(function (lane, i) { state.laneRow[lane.id] = i; });
      state.laneIndex = lanes.map(function (lane) { return state.perLane[lane.id] || emptyLaneIndex(); });
      layoutRows();
    }

    /** The lanes panel: one row per lane with a visibility checkbox and up/down buttons. */
    function renderLaneList() {
      var ul = document.getElementById("lane-list");
      ul.textContent = "";
      var ids = state.lanes.map(function (l) { return l.id; });
      state.allLanes.forEach(function (lane) {
        var li = KVCommon.html("li", null, null, ul);
        var box = KVCommon.html("input", null, null, li);
        box.type = "checkbox";
        box.checked = !state.hiddenLanes.has(lane.id);
        box.id = "lane-show-" + lane.id;
        box.setAttribute("data-lane", lane.id);
        var label = KVCommon.html("label", null, laneName(lane), li);
        label.htmlFor = box.id;
        box.addEventListener("change", function () {
          if (box.checked) state.hiddenLanes.delete(lane.id); else state.hiddenLanes.add(lane.id);
          relayout();
        });
        [["\u2191", -1, "up"], ["\u2193", 1, "down"]].forEach(function (spec) {
          var btn = KVCommon.html("button", null, spec[0], li);
          btn.type = "button";
          btn.title = "Move " + laneName(lane) + " " + spec[2];
          btn.setAttribute("data-move", spec[2]);
          btn.addEventListener("click", function () { moveLane(lane.id, spec[1]); });
        });
      });
      return ids;
    }
    function moveLane(id, delta) {
      var order = state.laneOrder.length ? state.laneOrder.slice() : state.allLanes.map(function (l) { return l.id; });
      var i = order.indexOf(id), j = i + delta;
      if (i < 0 || j < 0 || j >= order.length) return;
      order[i] = order[j];
      order[j] = id;
      state.laneOrder = order;
      relayout();
    }
    function relayout() { applyLanes(); requestDraw(); }
    document.getElementById("lane-filter").addEventListener("input", function (ev) {
      state.laneFilter = String(ev.target.value || "");
      relayout();
    });
    document.getElementById("lane-filter").addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" || ev.key === "Enter") { ev.preventDefault(); canvas.focus({preventScroll: true}); }
    });

    function isSubLane(lane) {
      return !!(currentView && currentView.subLaneGroups && currentView.subLaneGroups.indexOf(lane.group) >= 0);
    }

    function total() { return Math.max(1, (state.result && state.result.total) || 0); }

    // -- view
    function fitView() { state.view = {t0Step: 0, t1Step: total()}; state.fitted = true; }
    function clampView() {
      var span = state.view.t1Step - state.view.t0Step;
      if (!(span > 0) || !isFinite(span)) span = total();
      span = Math.min(Math.max(span, MIN_SPAN_STEPS), total() * MAX_SPAN_FACTOR);
      var t0 = state.view.t0Step;
      if (!isFinite(t0)) t0 = 0;
      // Never before step 0 (there is no negative time); at most half a screen past the end.
      t0 = Math.max(0, Math.min(t0, total() - span / 2));
      state.view = {t0Step: t0, t1Step: t0 + span};
    }
    function setView(t0Step, t1Step) {
      state.pendingView = null;  // the user moved the view: a hash's view no longer applies
      state.view = {t0Step: t0Step, t1Step: t1Step};
      state.fitted = false;
      clampView();
      requestDraw();
    }
    function zoomBy(factor, anchorStep) {
      var v = state.view, span = v.t1Step - v.t0Step;
      var anchor = anchorStep === undefined ? (v.t0Step + v.t1Step) / 2 : anchorStep;
      var newSpan = Math.min(Math.max(span * factor, MIN_SPAN_STEPS), total() * MAX_SPAN_FACTOR);
      var t0 = anchor - (anchor - v.t0Step) * (newSpan / span);
      setView(t0, t0 + newSpan);
    }
    function panBy(steps) { setView(state.view.t0Step + steps, state.view.t1Step + steps); }

    // -- follow a k-tile
    function applyFollow() {
      state.highlighted = new Set();
      state.highlightedSorted = [];
      if (!state.follow || !state.result || state.result.error) { renderChainInfo(); return; }
      var f = state.follow;
      var ids = chainIds(state.columns, f.tile, f.epilogue ? null : f.k);
      ids.forEach(function (id) { state.highlighted.add(id); });
      state.highlightedSorted = ids;  // ascending ids (chainIds walks the ids in order)
      renderChainInfo();
    }
    function follow(b) {
      if (!b || b.tile === null || b.tile === undefined) { clearFollow(); return; }
      var epi = b.kind === "epilogue" || b.k === null || b.k === undefined;
      state.follow = {tile: b.tile, k: epi ? null : b.k, epilogue: epi};
      applyFollow();
      requestDraw();
    }
    function clearFollow() {
      state.follow = null;
      state.highlighted = new Set();
      state.highlightedSorted = [];
      renderChainInfo();
      requestDraw();
    }

    function renderChainInfo() {
      var el = document.getElementById("chain-info");
      var unit = currentView && currentView.unit ? currentView.unit : "k-tile";
      if (!state.follow) { el.textContent = "Click a block to select it and follow its " + unit + "; Escape clears the selection."; return; }
      if (!state.highlighted.size) { el.textContent = "The followed " + unit + " is not in this schedule; Escape clears."; return; }
      var chain = [];
      state.highlighted.forEach(function (id) { chain.push(blockById(id)); });
      chain.sort(function (a, b) { return (a.start - b.start) || (chainRank(a.kind) - chainRank(b.kind)) || (a.id - b.id); });
      var f = state.follow;
      var twoWGs = state.lanes.some(function (lane) { return lane.id === "consumer1"; });
      var parts = chain.map(function (b) {
        var name = b.kind === "issue" ? "issue" : kindName(b.kind);
        if (b.operand && b.kind !== "transpose") name = b.operand + " " + name;
        var wg = /^consumer(\d+)/.exec(b.lane);
        if (wg && twoWGs) name += " WG" + wg[1];
        return name + " " + b.start + "\u2013" + b.end;
      });
      // A stage's FULL block ends at its release (the empty barrier's completion): one per operand.
      var rel = [];
      chain.forEach(function (b) {
        if (b.kind === "full") rel.push((b.operand ? b.operand + " " : "") + "released at " + b.end);
      });
      var release = !f.epilogue && rel.length ? " \u2192 " + rel.join(", ") : "";
      el.textContent = (f.epilogue ? "Following output tile " + f.tile + ": " : "Following " + unit + " " + f.tile + "." + f.k + ": ") +
        parts.join(" \u2192 ") + release + ". Escape clears.";
    }

    // -- notices and verdict (text only, via textContent)
    function renderNotices() {
      var errorBox = document.getElementById("error");
      var list = document.getElementById("messages");
      var err = state.result && state.result.error;
      errorBox.hidden = !err;
      errorBox.textContent = err ? "No schedule drawn: " + err : "";
      var msgs = state.hashMessages.concat(state.simMessages);
      list.textContent = "";
      msgs.forEach(function (m) {
        var li = document.createElement("li");
        li.textContent = String(m);
        list.appendChild(li);
      });
      list.hidden = msgs.length === 0;
    }

    function pct(x) { return percentText(x); }

    function renderVerdict() {
      var el = document.getElementById("verdict");
      el.textContent = "";
      el.removeAttribute("data-state");
      function line(text, cls) {
        var p = document.createElement("p");
        if (cls) p.className = cls;
        p.textContent = text;
        el.appendChild(p);
        return p;
      }
      function list(items, parent) {
        var ul = document.createElement("ul");
        items.forEach(function (text) {
          var li = document.createElement("li");
          li.textContent = text;
          ul.appendChild(li);
        });
        (parent || el).appendChild(ul);
        return ul;
      }
      var r = state.result, v = r && r.verdict;
      if (r && !r.error && r.model === null && r.fit) {
        // Honest page: no model fits; no verdict figures.
        el.setAttribute("data-state", "no-model");
        line("No schedule model fits this kernel", "kv-big");
        line(String(r.fit.reason));
        line("Below: what was parsed (pipelines, roles, operations with their lines).", "kv-muted");
        return;
      }
      if (!r || r.error || !v) {
        line("No verdict" + (r && r.error ? ": " + r.error : "."), "kv-big");
        return;
      }
      if (r.deadlock) {
        el.setAttribute("data-state", "deadlock");
        line("Deadlock after step " + r.deadlock.step + ": no role can progress", "kv-big kv-danger");
        list(r.deadlock.waiting.map(function (w) {
          return w.lane + " waits on " + w.barrier + (w.phase === null ? "" : " (phase " + w.phase + ")") +
            (w.line === null ? "" : " at line " + w.line);
        }));
        if (r.deadlockKnobs && r.deadlockKnobs.length) {
          line("Made so by: " + r.deadlockKnobs.map(function (k) {
            return k.knob + " = " + k.value + " (at " + k.fine + " it runs)";
          }).join("; "), "kv-danger");
        } else if (r.deadlockKnobs) {
          line("At the source's own settings too: the code's protocol deadlocks here.", "kv-danger");
        }
        el.title = r.deadlock.message;
        return;
      }
      var unit = r.units && r.time ? "cycles" : "steps";
      line("Total: " + v.total + " " + unit, "kv-big");
      if (r.units && r.time) {
        var u = r.units, inp = u.inputs;
        line("Time: " + stepText(r.time.cycles).split(" \u00b7 ")[1] + " (" + Math.round(r.time.cycles) + " cycles at " + u.clockMHz + " MHz, " + u.gpu + ")", "kv-big kv-units");
        line("Throughput: " + r.tflops.toFixed(1) + " TFLOPS, " + pct(r.peakFraction) + " of the " + u.peakTflops.toFixed(1) + " TFLOPS " + inp.dtype + " peak" +
          (inp.problem ? " (problem " + inp.problem + ": " + inp.tiles + " tiles on " + inp.ctas + " CTAs, " + inp.waves + " waves)" : " (no problem size: this CTA's tiles on every SM, L2 reuse 0)"));
        line("Bottleneck: " + r.bottleneck + " (" + u.bottleneckWhy + ")", "kv-units-bottleneck");
        list(Object.keys(u.derivation).map(function (k) {
          return k + " = " + r.knobs[k] + " (" + u.sources[k] + (u.sources[k] === "gpu" ? ": " + u.derivation[k] : "") + ")";
        }).concat(["tile " + inp.tile + " (" + u.sources.tile + "), dtype " + inp.dtype + " (" + u.sources.dtype + "), cluster " + inp.cluster]))
          .className = "kv-muted kv-units-derivation";
      }
      var order = currentView && currentView.waitReasons ? currentView.waitReasons.map(function (w) { return w.reason; }) : [];
      var ul = document.createElement("ul");
      Object.keys(v.waits || {}).sort().forEach(function (lane) {
        var w = v.waits[lane] || {};
        var reasons = order.concat(Object.keys(w).filter(function (k) {
          return k !== "total" && order.indexOf(k) < 0;
        }).sort()).filter(function (k) { return w[k] > 0; }).map(function (k) { return k + " " + w[k]; });
        var li = document.createElement("li");
        li.textContent = lane + " bubbles: " + (w.total || 0) + " " + unit + (reasons.length ? " (" + reasons.join(", ") + ")" : "");
        ul.appendChild(li);
      });
      el.appendChild(ul);
      (currentView && currentView.verdict ? currentView.verdict : []).forEach(function (spec) {
        var value = spec.field ? v[spec.field] : undefined, text;
        if (spec.format === "percent") text = pct(value);
        else if (spec.format === "template") {
          text = String(spec.template).replace(/\{(\w+)\}/g, function (_m, name) { return String(v[name]); });
        } else if (spec.format === "stages") {
          var have = spec.knob ? state.knobs[spec.knob] : undefined;
          // A null figure says why when the model gives a reason (result.notes[field], schedule.js).
          var why = r.notes && typeof r.notes[spec.field] === "string" ? r.notes[spec.field] : "";
          text = (value === null || value === undefined ? "n/a" + (why ? ": " + why : "") : String(value)) +
            (typeof value === "number" && typeof have === "number" ? (have >= value ? " (have " + have + ": hidden)" : " (have " + have + ": too few)") : "");
        } else text = String(value);
        line(spec.label + ": " + text);
      });
      var assumptions = r.fit && r.fit.assumptions ? r.fit.assumptions : [];
      if (assumptions.length) {
        line("Assumptions:", "kv-muted");
        list(assumptions).className = "kv-muted";
      }
      var left = r.fit && r.fit.notModelled ? r.fit.notModelled : [];
      if (left.length) {
        // Folded by default (a summary with the count): the verdict stays short above the lanes.
        var fold = document.createElement("details");
        fold.className = "kv-muted kv-not-modelled";
        var summary = document.createElement("summary");
        summary.textContent = "Not modelled (" + left.length + ")";
        fold.appendChild(summary);
        el.appendChild(fold);
        list(left, fold);
      }
      renderCompare(el);
      el.title = v.summary ? String(v.summary) : "";
    }

    /** Structure-only listing (pipelines, roles, ops with lines) for a kernel no model fits. */
    function renderStructure() {
      var box = document.getElementById("structure");
      if (!box) return;
      var r = state.result;
      var show = !!(r && !r.error && r.model === null && r.fit);
      box.hidden = !show;
      document.body.classList.toggle("kv-no-model", show);
      if (!show || box.getAttribute("data-filled") === "1") return;
      box.setAttribute("data-filled", "1");
      box.textContent = "";
      function el(tag, text, parent) {
        var e = document.createElement(tag);
        if (text !== undefined) e.textContent = text;
        (parent || box).appendChild(e);
        return e;
      }
      el("h2", "Parsed structure");
      var pipes = Array.isArray(parsed && parsed.pipelines) ? parsed.pipelines : [];
      el("h3", "Pipelines");
      var pl = el("ul");
      if (!pipes.length) el("li", "none found", pl);
      pipes.forEach(function (p) {
        var cls = Array.isArray(p.class) ? p.class.join(" | ") : p.class;
        el("li", String(p.alias) + (cls ? " = " + cls : "") + (p.stages ? "<" + p.stages + ">" : "") + (p.line ? " (line " + p.line + ")" : ""), pl);
      });
      el("h3", "Roles and operations");
      var fns = Array.isArray(parsed && parsed.functions) ? parsed.functions : [];
      var fl = el("ul");
      if (!fns.length) el("li", "no functions found", fl);
      fns.forEach(function (fn) {
        var li = el("li", String(fn.name) + "() [" + String(fn.role) + "]" + (fn.line ? " line " + fn.line : ""), fl);
        var ops = Array.isArray(fn.ops) ? fn.ops : [];
        if (!ops.length) return;
        var ol = el("ul", undefined, li);
        ops.forEach(function (op) {
          el("li", "line " + op.line + ": " + op.op + ((op.object || op.pipeline) ? " (" + (op.object || op.pipeline) + ")" : "") +
            (op.text ? " \u2014 " + op.text : ""), ol);
        });
      });
      var warnings = Array.isArray(parsed && parsed.warnings) ? parsed.warnings : [];
      if (warnings.length) {
        el("h3", "Parser warnings");
        var wl = el("ul");
        warnings.forEach(function (w) { el("li", String(w), wl); });
      }
    }

    // -- colours from theme.css variables
    var colours = {}, waitPattern = null, uiFont = "sans-serif";
    function readTheme() {
      var cs = getComputedStyle(document.documentElement);
      function v(name, fallback) { var x = cs.getPropertyValue(name).trim(); return x || fallback; }
      FILL_KEYS.forEach(function (k) {
        colours[k] = v("--kind-" + k, "#888");
        colours[k + "-fg"] = v("--kind-" + k + "-fg", "#000");
      });
      ["bg", "fg", "muted", "panel", "border", "grid", "cursor", "marker-a", "marker-b", "highlight", "danger", "kind-wait-hatch"]
        .forEach(function (k) { colours[k] = v("--" + k, "#888"); });
      uiFont = v("--font-ui", "sans-serif");
      var tile = document.createElement("canvas");
      tile.width = tile.height = WAIT_HATCH_TILE_PX;
      var tctx = tile.getContext("2d");
      tctx.fillStyle = colours.wait;
      tctx.fillRect(0, 0, WAIT_HATCH_TILE_PX, WAIT_HATCH_TILE_PX);
      tctx.strokeStyle = colours["kind-wait-hatch"];
      tctx.lineWidth = WAIT_HATCH_LINE_PX;
      tctx.beginPath();
      WAIT_HATCH_STROKES.forEach(function (l) { tctx.moveTo(l[0], l[1]); tctx.lineTo(l[2], l[3]); });
      tctx.stroke();
      waitPattern = ctx.createPattern(tile, "repeat");
      clearTextCaches();
    }

    // -- text measuring, cached per font (all caches dropped when devicePixelRatio or the theme changes)
    var textWidthCaches = new Map(), textWidthCache = new Map(), cachedDpr = 0;
    function textWidth(text) {
      var w = textWidthCache.get(text);
      if (w === undefined) { w = ctx.measureText(text).width; textWidthCache.set(text, w); }
      return w;
    }
    function useFont(font) {
      ctx.font = font;
      textWidthCache = textWidthCaches.get(font);
      if (!textWidthCache) { textWidthCache = new Map(); textWidthCaches.set(font, textWidthCache); }
    }
    function clearTextCaches() { textWidthCaches.clear(); textWidthCache = new Map(); }

    // -- one requestAnimationFrame for everything
    var rafId = 0, needSimulate = false;
    function requestDraw() {
      if (!rafId) rafId = requestAnimationFrame(frame);
      scheduleHashWrite();
    }
    function requestSimulate() { needSimulate = true; requestDraw(); }
    function frame() {
      rafId = 0;
      var t0 = performance.now();
      if (needSimulate) { needSimulate = false; if (!simulateInBackground()) simulateNow(); }
      draw();
      state.frames++;
      state.lastFrameMs = performance.now() - t0;
    }
    function flush() {
      if (rafId) { cancelAnimationFrame(rafId); rafId = 0; }
      frame();
    }

    function laneName(lane) { return String(lane.label || lane.id); }

    function laneTop(row) { return state.rowTop[row]; }
    /** Top and height of the blocks drawn in a row (sub-rows have a smaller inset). */
    function blockY(row) {
      var inset = state.rowHeight[row] === LANE_HEIGHT_PX ? BLOCK_INSET_PX : SUB_BLOCK_INSET_PX;
      return {y: state.rowTop[row] + inset, h: state.rowHeight[row] - 2 * inset};
    }

    // -- drawing
    function draw() {
      var t0 = performance.now();
      var dpr = window.devicePixelRatio || 1;
      var widthCss = Math.max(320, Math.floor(box.clientWidth || 800));
      // More lanes than fit in the window: the canvas stops at the window's height and the lanes
      // scroll inside it (state.scrollPx; the plain wheel, as in Perfetto), under a fixed ruler.
      var contentCss = state.lanes.length ? state.contentBottom : RULER_HEIGHT_PX + LANE_HEIGHT_PX;
      var heightCss = Math.min(contentCss, Math.max(TIMELINE_MIN_HEIGHT_PX, Math.floor((window.innerHeight || 800) - TIMELINE_VIEWPORT_MARGIN_PX)));
      state.viewHeightPx = heightCss;
      scrollRows();
      // Sticky ruler: when the page has scrolled the canvas's top off the window, the ruler is
      // drawn at the window's top edge (redrawn on scroll), over the lanes that passed under it.
      var canvasTop = canvas.getBoundingClientRect().top;
      state.rulerTopPx = Math.max(0, Math.min(Math.ceil(-canvasTop), heightCss - RULER_HEIGHT_PX));  // whole px: a crisp ruler
      if (canvas.width !== Math.round(widthCss * dpr) || canvas.height !== Math.round(heightCss * dpr)) {
        canvas.width = Math.round(widthCss * dpr);
        canvas.height = Math.round(heightCss * dpr);
        canvas.style.height = heightCss + "px";
      }
      if (dpr !== cachedDpr) { cachedDpr = dpr; clearTextCaches(); }
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      useFont(LANE_FONT_PX + "px " + uiFont);
      var gutterPx = GUTTER_MIN_WIDTH_PX;
      for (var li = 0; li < state.lanes.length; li++) {
        gutterPx = Math.max(gutterPx, Math.ceil(textWidth(laneName(state.lanes[li]))) + 2 * GUTTER_PAD_PX + GROUP_TOGGLE_PX +
          (isSubLane(state.lanes[li]) ? SUB_LANE_INDENT_PX : 0));
      }
      state.gutterPx = gutterPx;
      var scale = new TimeScale(state.view.t0Step, state.view.t1Step, gutterPx + PLOT_PAD_PX, widthCss - PLOT_PAD_PX);
      state.scale = scale;
      // The view may have moved under a still pointer (keys, wheel): re-aim cursor and tooltip.
      refreshPointer();

      ctx.fillStyle = colours.bg;
      ctx.fillRect(0, 0, widthCss, heightCss);
      // Lane stripes and group separators.
      for (var row = 0; row < state.lanes.length; row++) {
        if (state.rowStripe[row] % 2 === 1) { ctx.fillStyle = colours.panel; ctx.fillRect(state.gutterPx, laneTop(row), widthCss, state.rowHeight[row]); }
      }
      // Cycles and microseconds make longer labels: ticks twice as far apart.
      var tickStep = niceTickStep(scale.pxPerStep * (state.result && state.result.time ? 0.5 : 1));
      var firstTick = Math.ceil(scale.t0Step / tickStep) * tickStep;
      ctx.fillStyle = colours.grid;
      for (var t = firstTick; t <= scale.t1Step; t += tickStep) {
        ctx.fillRect(Math.round(scale.xPx(t)), RULER_HEIGHT_PX, 1, heightCss - RULER_HEIGHT_PX);
      }

      ctx.save();
      ctx.beginPath();
      ctx.rect(state.gutterPx, RULER_HEIGHT_PX, widthCss - state.gutterPx, heightCss - RULER_HEIGHT_PX);
      ctx.clip();
      if (state.result && state.result.error) {
        useFont("13px " + uiFont);
        ctx.fillStyle = colours.danger;
        ctx.textBaseline = "middle";
        ctx.textAlign = "left";
        ctx.fillText("No schedule drawn: " + state.result.error, state.gutterPx + 8, RULER_HEIGHT_PX + 12);
      } else {
        drawGhost(scale, widthCss);
        drawBlocks(scale, widthCss);
        drawSearchHits(scale, widthCss);
      }
      drawLines(scale, heightCss);
      ctx.restore();

      drawGutter(widthCss, heightCss);
      drawScrollbar(widthCss, heightCss, contentCss);
      ctx.save();
      ctx.translate(0, state.rulerTopPx);
      drawRuler(scale, widthCss, tickStep, firstTick);
      ctx.restore();
      drawOverview(widthCss, dpr);
      updateReadouts();
      state.lastDrawMs = performance.now() - t0;
      if (state.resultDrawPending) {
        // When the new result was drawn, and when the next frame (which shows it) began.
        state.resultDrawPending = false;
        state.lastResultDrawnAt = performance.now();
        requestAnimationFrame(function () { state.lastResultFrameAt = performance.now(); });
      }
    }

    function drawBlocks(scale, widthCss) {
      var anyHighlight = state.highlighted.size > 0, hl = state.highlightedSorted || [];
      // rects[key] is a flat [x, y, w, h, ...] list; "~" marks the dimmed variant of a fill, "^"
      // its 1px slivers. While drawing, keys are numbers (fill code * 4 + variant: KEY_SLIVER,
      // KEY_DIM), so no key string is built per block; rects and blockCount get the names at the end.
      // labels[key] is a flat [block, x0, x1, yMid, dim, ...] list per fill (its text colour).
      var labels = {}, summarised = [];
      var xMin = state.gutterPx, xMax = widthCss, xMaxY = state.viewHeightPx || Infinity;
      var fills = state.fills || (state.fills = fillSummaryOf(state.columns)), codes = fills.code, names = fills.names;
      var nKeys = names.length * 4, lists = new Array(nKeys).fill(null), counts = new Int32Array(nKeys);
      var laneFirst = new Int32Array(nKeys);
      var y = 0, h = 0;
      /** Queue one rectangle under key number ki; slivers coalesce with the previous sliver of that key on this lane. */
      function queue(ki, cx0, cx1, wide) {
        var list = lists[ki] || (lists[ki] = []);
        var n = list.length;
        counts[ki]++;
        if (laneFirst[ki] < 0) laneFirst[ki] = n;
        if (wide) {
          // Wide enough to see: a 1px gap keeps back-to-back blocks of one colour apart.
          list.push(cx0, y, cx1 - cx0 - 1, h);
        } else if (n > laneFirst[ki] && list[n - 4] + list[n - 2] >= cx0 - 0.5) {
          list[n - 2] = Math.max(list[n - 2], cx1 - list[n - 4]);
        } else {
          list.push(cx0, y, cx1 - cx0, h);
        }
      }
      /** One 1px sliver per fill bit of mask in pixel column px ("^" keys, "~" when dimmed). */
      function slivers(mask, px, dim) {
        var cx0 = Math.max(px, xMin), cx1 = Math.min(px + MIN_BLOCK_WIDTH_PX, xMax);
        if (cx1 <= cx0) return;
        for (var f = 0; mask !== 0; f++, mask >>>= 1) {
          if (mask & 1) queue(f * 4 + KEY_SLIVER + (dim ? KEY_DIM : 0), cx0, cx1, false);
        }
      }
      for (var row = 0; row < state.laneIndex.length; row++) {
        var rowBox = blockY(row), thin = 0;
        if (rowBox.y + rowBox.h < RULER_HEIGHT_PX || rowBox.y > xMaxY) continue;  // scrolled out of the canvas
        // A folded group's row draws the blocks of all its lanes (unlabelled: they may overlap).
        var members = state.rowMemberIndexes[row] || [state.laneIndex[row]], folded = !!state.rowMemberIndexes[row];
        for (var mi = 0; mi < members.length; mi++) {
        var index = members[mi], lo = index.lo, starts = index.starts, ends = index.ends;
        var range = visibleRange(index, scale.t0Step, scale.t1Step);
        y = rowBox.y; h = rowBox.h; laneFirst.fill(-1);
        var i = range[0], end = range[1];
        while (i < end) {
          var x0 = scale.xPx(starts[i]), x1 = scale.xPx(ends[i]);
          if (x1 - x0 >= MIN_BLOCK_WIDTH_PX) {
            var id = lo + i;
            i++;
            var cx0 = Math.max(x0, xMin), cx1 = Math.min(x1, xMax);
            if (cx1 <= cx0) continue;
            var dim = anyHighlight && !state.highlighted.has(id);
            var wide = cx1 - cx0 >= SEPARATE_MIN_WIDTH_PX, name = names[codes[id]];
            // Slivers ("^" keys) are painted after wide blocks, the rarest fill last (on top).
            queue(codes[id] * 4 + (wide ? 0 : KEY_SLIVER) + (dim ? KEY_DIM : 0), cx0, cx1, wide);
            if (!folded && cx1 - cx0 >= LABEL_MIN_WIDTH_PX) (labels[name] || (labels[name] = [])).push(blockById(id), cx0, cx1, y + h / 2, dim);
            continue;
          }
          // Level of detail: blocks i .. j-1 start in this pixel column and are narrower than a
          // pixel (only the last of them can reach past it: blocks on a lane never overlap). They
          // are not visited one by one: the fill summary says which fills occur among them, and
          // each gets a 1px sliver in its own colour (whole pixels, so no blend), so a rare kind
          // (one epilogue among many WGMMAs) is never swallowed by a common one.
          var px = Math.floor(x0);
          var j = Math.max(i + 1, lowerBoundIn(starts, scale.tStep(px + 1), i + 1, end));
          if (j - 1 > i && scale.xPx(ends[j - 1]) - scale.xPx(starts[j - 1]) >= MIN_BLOCK_WIDTH_PX) j--;
          thin += j - i;
          var mask = fillMaskIn(fills, lo + i, lo + j), bright = 0;
          if (anyHighlight) {
            // Followed blocks in the column keep their colour; the rest are dimmed.
            var h0 = lowerBoundIn(hl, lo + i, 0, hl.length), h1 = lowerBoundIn(hl, lo + j, h0, hl.length);
            if (h1 > h0) {
              for (var q = h0; q < h1; q++) bright |= 1 << codes[hl[q]];
              mask = 0;
              for (var b = lo + i; b < lo + j; b++) if (!state.highlighted.has(b)) mask |= 1 << codes[b];
            }
            slivers(mask, px, true);
            slivers(bright, px, false);
          } else {
            slivers(mask, px, false);
          }
          i = j;
        }
        }
        if (thin) summarised.push({lane: state.lanes[row].id, label: laneName(state.lanes[row]), blocks: thin});
      }
      // The keys' names: fill, "^" for slivers, "~" when dimmed.
      var rects = {}, blockCount = {};
      for (var ki = 0; ki < nKeys; ki++) {
        if (lists[ki] === null) continue;
        var keyName = ((ki & KEY_SLIVER) ? "^" : "") + names[ki >> 2] + ((ki & KEY_DIM) ? "~" : "");
        rects[keyName] = lists[ki];
        blockCount[keyName] = counts[ki];
      }
      state.lastCounts = blockCount;
      // Fills batched by colour: one fillStyle change and one fill() per key, in paintOrder.
      var order = paintOrder(rects);
      for (var k = 0; k < order.length; k++) {
        var list2 = rects[order[k]], base = order[k].replace(/[\^~]/g, "");
        ctx.globalAlpha = order[k].indexOf("~") >= 0 ? DIM_ALPHA : 1;
        ctx.fillStyle = base === "wait" && waitPattern ? waitPattern : colours[base];
        ctx.beginPath();
        for (var r = 0; r < list2.length; r += 4) ctx.rect(list2[r], list2[r + 1], list2[r + 2], list2[r + 3]);
        ctx.fill();
      }
      ctx.globalAlpha = 1;
      // Labels, grouped by text colour.
      useFont(LABEL_FONT_PX + "px " + uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "center";
      for (var k2 = 0; k2 < FILL_KEYS.length; k2++) {
        var fk = FILL_KEYS[k2], group = labels[fk];
        if (!group) continue;
        ctx.fillStyle = colours[fk + "-fg"];
        for (var j = 0; j < group.length; j += 5) {
          var room = group[j + 2] - group[j + 1] - 2 * LABEL_PAD_PX;
          var cands = labelCandidates(group[j]), text = null;
          for (var c = 0; c < cands.length; c++) if (textWidth(cands[c]) <= room) { text = cands[c]; break; }
          if (text === null) continue;
          ctx.globalAlpha = group[j + 4] ? DIM_ALPHA + 0.2 : 1;
          ctx.fillText(text, (group[j + 1] + group[j + 2]) / 2, group[j + 3]);
        }
      }
      ctx.globalAlpha = 1;
      state.summarised = summarised;
      state.lastRects = rects;
      state.lastLabels = labels;
      drawArrows(scale, widthCss);
      if (isLive(state.hover)) outlineBlock(scale, state.hover, colours.fg, 1.5);
      if (isLive(state.selected)) outlineBlock(scale, state.selected, colours.cursor, 2.5);
    }

    /**
     * Paint order of the rectangle lists: wide blocks in FILL_KEYS order (dimmed first), then the
     * slivers of sub-pixel blocks from the most to the least numerous fill, so in a pixel column
     * shared by many WGMMAs and one epilogue the epilogue's colour is what shows.
     */
    function paintOrder(rects) {
      var order = [];
      ["~", ""].forEach(function (dim) {
        FILL_KEYS.forEach(function (k) { if (rects[k + dim] && rects[k + dim].length) order.push(k + dim); });
      });
      var thin = Object.keys(rects).filter(function (k) { return k.charAt(0) === "^" && rects[k].length; });
      thin.sort(function (a, b) {
        var da = a.indexOf("~") >= 0 ? 0 : 1, db = b.indexOf("~") >= 0 ? 0 : 1;
        var counts = state.lastCounts || {};
        return (da - db) || ((counts[b] || 0) - (counts[a] || 0)) || (a < b ? -1 : 1);
      });
      return order.concat(thin);
    }

    /** Ids of the blocks whose `after` names block id (a typed CSR built once per result, on first use). */
    function dependentsOf(id) {
      if (!state.dependents) state.dependents = dependentsOfColumns(state.columns);
      var d = state.dependents;
      if (!(id >= 0 && id < state.columns.n)) return [];
      return Array.prototype.slice.call(d.list.subarray(d.at[id], d.at[id + 1]));
    }

    /**
     * Dependency edges [fromId, toId] to draw: the selected block's `after` blocks and the blocks
     * that waited for it, plus every `after` edge inside the followed chain.
     */
    function arrowEdges() {
      var edges = [], seen = new Set();
      function add(from, to) {
        var key = from + ">" + to;
        if (seen.has(key)) return;
        seen.add(key);
        edges.push([from, to]);
      }
      state.highlightedSorted.forEach(function (id) {
        afterIds(id).forEach(function (src) { add(src, id); });
      });
      var s = state.selected;
      if (isLive(s)) {
        afterIds(s.id).forEach(function (src) { add(src, s.id); });
        dependentsOf(s.id).forEach(function (dst) { add(s.id, dst); });
      }
      return edges;
    }

    /**
     * Dependency arrows from the end of the block waited for to the start of the waiter, culled
     * (both ends on one side of the view, or a hidden lane: skipped) and batched (one stroke for
     * every shaft, one fill for every head). Read from the columns: no block objects.
     */
    function drawArrows(scale, widthCss) {
      var edges = arrowEdges(), drawn = 0;
      state.arrowCount = 0;
      if (!edges.length) return;
      state.highlightedSorted.forEach(function (id) { outlineId(scale, id, colours.highlight, 2); });
      var x0View = state.gutterPx, x1View = widthCss, c = state.columns;
      var shafts = new Path2D(), heads = new Path2D();
      for (var i = 0; i < edges.length; i++) {
        var fromId = edges[i][0], toId = edges[i][1];
        var from = idBox(scale, fromId), to = idBox(scale, toId);
        if (!from || !to) continue;
        var xa = scale.xPx(c.end[fromId]), ya = from.y + from.h / 2, xb = to.x0, yb = to.y + to.h / 2;
        if ((xa < x0View && xb < x0View) || (xa > x1View && xb > x1View)) continue;
        shafts.moveTo(xa, ya);
        shafts.lineTo(xb, yb);
        var ang = Math.atan2(yb - ya, xb - xa);
        heads.moveTo(xb, yb);
        heads.lineTo(xb - ARROW_HEAD_PX * Math.cos(ang - 0.45), yb - ARROW_HEAD_PX * Math.sin(ang - 0.45));
        heads.lineTo(xb - ARROW_HEAD_PX * Math.cos(ang + 0.45), yb - ARROW_HEAD_PX * Math.sin(ang + 0.45));
        heads.closePath();
        drawn++;
      }
      ctx.strokeStyle = colours.highlight;
      ctx.fillStyle = colours.highlight;
      ctx.lineWidth = 1.25;
      ctx.stroke(shafts);
      ctx.fill(heads);
      state.arrowCount = drawn;
    }

    /** Box of block id on the canvas (from the columns), or null when its lane is not shown. */
    function idBox(scale, id) {
      var c = state.columns;
      if (!(id >= 0 && id < c.n)) return null;
      var row = state.laneRow[c.lanes[c.lane[id]]];
      if (row === undefined) return null;
      var x0 = scale.xPx(c.start[id]), x1 = Math.max(scale.xPx(c.end[id]), x0 + MIN_BLOCK_WIDTH_PX);
      var rowBox = blockY(row);
      return {x0: x0, x1: x1, y: rowBox.y, h: rowBox.h};
    }
    function outlineId(scale, id, colour, width) {
      var bb = idBox(scale, id);
      if (!bb) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.strokeRect(bb.x0 + 0.5, bb.y + 0.5, Math.max(1, bb.x1 - bb.x0 - 1), bb.h - 1);
    }

    function blockBox(scale, b) { return idBox(scale, b.id); }
    function outlineBlock(scale, b, colour, width) { outlineId(scale, b.id, colour, width); }

    function vline(scale, tStep, colour, heightCss, dash) {
      var x = Math.round(scale.xPx(tStep)) + 0.5;
      if (x < state.gutterPx || x > scale.x1Px) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.setLineDash(dash || []);
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, heightCss);
      ctx.stroke();
      ctx.setLineDash([]);
    }

    function drawLines(scale, heightCss) {
      drawRangeBand(scale, heightCss);
      if (state.markerA !== null) vline(scale, state.markerA, colours["marker-a"], heightCss, [5, 3]);
      if (state.markerB !== null) vline(scale, state.markerB, colours["marker-b"], heightCss, [5, 3]);
      if (state.cursor !== null) vline(scale, state.cursor, colours.cursor, heightCss);
    }

    /**
     * The ruler: tick labels in its bottom row (the rightmost one right-aligned so it is never
     * clipped), cursor and marker badges in its top row, laid out so no badge covers another.
     */
    function drawRuler(scale, widthCss, tickStep, firstTick) {
      ctx.fillStyle = colours.panel;
      ctx.fillRect(0, 0, widthCss, RULER_HEIGHT_PX);
      ctx.fillStyle = colours.border;
      ctx.fillRect(0, RULER_HEIGHT_PX - 1, widthCss, 1);
      ctx.fillRect(state.gutterPx - 1, 0, 1, RULER_HEIGHT_PX);
      useFont(LANE_FONT_PX + "px " + uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      ctx.fillStyle = colours.muted;
      ctx.fillText("step", GUTTER_PAD_PX, RULER_HEIGHT_PX / 2);
      useFont(LABEL_FONT_PX + "px " + uiFont);
      ctx.textBaseline = "middle";
      ctx.fillStyle = colours.fg;
      var labelY = BADGE_ROW_PX + (RULER_HEIGHT_PX - BADGE_ROW_PX) / 2 - 1;
      state.rulerLabels = [];
      for (var t = firstTick; t <= scale.t1Step; t += tickStep) {
        var x = Math.round(scale.xPx(t));
        if (x < state.gutterPx) continue;
        ctx.fillRect(x, RULER_HEIGHT_PX - 5, 1, 4);
        var text = stepText(t), w = textWidth(text);
        var left = x + 3 + w <= widthCss ? x + 3 : x - 3 - w;
        if (left < state.gutterPx) continue;
        ctx.textAlign = "left";
        ctx.fillText(text, left, labelY);
        state.rulerLabels.push({text: text, left: left, right: left + w});
      }
      var badges = [];
      if (state.markerA !== null) badges.push([state.markerA, "A " + state.markerA, colours["marker-a"]]);
      if (state.markerB !== null) badges.push([state.markerB, "B " + state.markerB, colours["marker-b"]]);
      if (state.cursor !== null) badges.push([state.cursor, String(state.cursor), colours.cursor]);
      var placed = [];
      state.badges = placed;
      badges.forEach(function (bd) {
        var x = scale.xPx(bd[0]);
        if (x < state.gutterPx || x > widthCss) return;
        var w = textWidth(bd[1]) + 8;
        var left = Math.min(Math.max(x - w / 2, state.gutterPx), widthCss - w);
        // Slide right (else left) past every badge already placed.
        for (var pass = 0; pass < placed.length + 1; pass++) {
          var hit = null;
          placed.forEach(function (p) { if (left < p.right + 2 && p.left < left + w + 2) hit = p; });
          if (!hit) break;
          left = hit.right + 2 + w <= widthCss ? hit.right + 2 : hit.left - 2 - w;
        }
        placed.push({text: bd[1], left: left, right: left + w});
        ctx.fillStyle = bd[2];
        ctx.fillRect(left, 1, w, BADGE_ROW_PX - 1);
        ctx.fillStyle = colours.bg;
        ctx.textAlign = "center";
        ctx.fillText(bd[1], left + w / 2, BADGE_ROW_PX / 2 + 0.5);
      });
      ctx.textAlign = "left";
    }

    function drawGutter(widthCss, heightCss) {
      ctx.fillStyle = colours.panel;
      ctx.fillRect(0, 0, state.gutterPx, heightCss);
      ctx.fillStyle = colours.border;
      ctx.fillRect(state.gutterPx - 1, 0, 1, heightCss);
      useFont(LANE_FONT_PX + "px " + uiFont);
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      var lastGroup = null;
      for (var row = 0; row < state.lanes.length; row++) {
        var lane = state.lanes[row], top = laneTop(row), sub = isSubLane(lane);
        if (top + state.rowHeight[row] <= RULER_HEIGHT_PX || top >= heightCss) { lastGroup = lane.group; continue; }  // scrolled away
        // A foldable group's first row (or its folded row) has a disclosure triangle: a click folds it.
        if (state.rowHead[row]) {
          ctx.fillStyle = colours.muted;
          ctx.fillText(state.rowMembers[row] ? "\u25b8" : "\u25be", GUTTER_PAD_PX / 2, top + state.rowHeight[row] / 2);
        }
        // A sub-row belongs to the lane above it: no separator, a smaller indented muted name.
        if (lastGroup !== null && lane.group !== lastGroup && !sub) {
          ctx.fillStyle = colours.border;
          ctx.fillRect(0, top, widthCss, 1);
        }
        lastGroup = lane.group;
        if (sub) useFont(LABEL_FONT_PX + "px " + uiFont);
        ctx.fillStyle = sub || lane.groupRow ? colours.muted : colours.fg;
        ctx.fillText(laneName(lane), GUTTER_PAD_PX + GROUP_TOGGLE_PX + (sub ? SUB_LANE_INDENT_PX : 0), top + state.rowHeight[row] / 2);
        if (sub) useFont(LANE_FONT_PX + "px " + uiFont);
      }
    }

    /** The lanes' scroll position as a thin bar at the right edge, when they overflow. */
    function drawScrollbar(widthCss, heightCss, contentCss) {
      if (!(contentCss > heightCss)) return;
      var top = state.rulerTopPx + RULER_HEIGHT_PX, room = heightCss - RULER_HEIGHT_PX, lanesH = contentCss - RULER_HEIGHT_PX;
      var thumbH = Math.max(12, room * room / lanesH), thumbY = RULER_HEIGHT_PX + (room - thumbH) * state.scrollPx / (contentCss - heightCss);
      ctx.globalAlpha = 0.5;
      ctx.fillStyle = colours.muted;
      ctx.fillRect(widthCss - SCROLLBAR_PX - 1, Math.max(top, thumbY), SCROLLBAR_PX, thumbH);
      ctx.globalAlpha = 1;
    }

    /**
     * The overview strip (its own canvas above the timeline): the whole run at one pixel per
     * column of overviewSummary (built once per result and width, never per block per frame),
     * tensor-core busy share rising in the top half, wait share hanging in the bottom half, and
     * the visible window outlined with the rest veiled. Its x axis is the timeline's plot area.
     */
    function drawOverview(widthCss, dpr) {
      var ov = overviewCanvas, octx = overviewCtx;
      if (!ov || !octx) return;
      if (ov.width !== Math.round(widthCss * dpr) || ov.height !== Math.round(OVERVIEW_HEIGHT_PX * dpr)) {
        ov.width = Math.round(widthCss * dpr);
        ov.height = Math.round(OVERVIEW_HEIGHT_PX * dpr);
        ov.style.height = OVERVIEW_HEIGHT_PX + "px";
      }
      octx.setTransform(dpr, 0, 0, dpr, 0, 0);
      var x0 = state.gutterPx + PLOT_PAD_PX, x1 = widthCss - PLOT_PAD_PX, bins = Math.max(1, Math.round(x1 - x0));
      var o = state.overview;
      if (!o || o.result !== state.result || o.bins !== bins) {
        o = state.overview = {result: state.result, bins: bins, x0: x0, x1: x1,
          summary: overviewSummary(state.columns, total(), bins, TENSOR_CORE_KINDS)};
      }
      o.x0 = x0; o.x1 = x1;
      octx.fillStyle = colours.bg;
      octx.fillRect(0, 0, widthCss, OVERVIEW_HEIGHT_PX);
      octx.fillStyle = colours.panel;
      octx.fillRect(0, 0, state.gutterPx, OVERVIEW_HEIGHT_PX);
      octx.font = LABEL_FONT_PX + "px " + uiFont;
      octx.textBaseline = "middle";
      octx.textAlign = "left";
      octx.fillStyle = colours.muted;
      octx.fillText("overview", GUTTER_PAD_PX, OVERVIEW_HEIGHT_PX / 2);
      var half = OVERVIEW_HEIGHT_PX / 2 - 1, mid = OVERVIEW_HEIGHT_PX / 2, sm = o.summary;
      [[sm.busy, colours["mma-a"], -1], [sm.wait, colours.wait, 1]].forEach(function (spec) {
        var values = spec[0];
        octx.fillStyle = spec[1];
        octx.beginPath();
        for (var i = 0; i < values.length; i++) {
          var hPx = values[i] * half;
          if (hPx <= 0) continue;
          hPx = Math.max(hPx, 1);
          octx.rect(x0 + i, spec[2] < 0 ? mid - hPx : mid, 1, hPx);
        }
        octx.fill();
      });
      // The visible window: the rest veiled, the window outlined (at least 3 px wide).
      var per = (x1 - x0) / total();
      var wx0 = Math.max(x0, x0 + state.view.t0Step * per), wx1 = Math.min(x1, x0 + state.view.t1Step * per);
      if (wx1 - wx0 < 3) { var c = (wx0 + wx1) / 2; wx0 = c - 1.5; wx1 = c + 1.5; }
      octx.globalAlpha = OVERVIEW_DIM_ALPHA;
      octx.fillStyle = colours.bg;
      octx.fillRect(x0, 0, Math.max(0, wx0 - x0), OVERVIEW_HEIGHT_PX);
      octx.fillRect(wx1, 0, Math.max(0, x1 - wx1), OVERVIEW_HEIGHT_PX);
      octx.globalAlpha = 1;
      octx.strokeStyle = colours.cursor;
      octx.lineWidth = 1.5;
      octx.strokeRect(wx0 + 0.75, 0.75, Math.max(1, wx1 - wx0 - 1.5), OVERVIEW_HEIGHT_PX - 1.5);
      octx.fillStyle = colours.border;
      octx.fillRect(0, OVERVIEW_HEIGHT_PX - 1, widthCss, 1);
      state.overviewWindow = {x0: wx0, x1: wx1, plotX0: x0, plotX1: x1};
    }

    function updateReadouts() {
      var v = state.view, c = state.cursor;
      var off = c !== null && (c < v.t0Step || c > v.t1Step);
      document.getElementById("cursor-readout").textContent = "cursor " + (c === null ? "\u2013" : stepText(c) + (off ? " (off screen)" : ""));
      var a = state.markerA, b = state.markerB;
      // B before A: the distance is still |B - A| (GTKWave and Surfer show the magnitude).
      var delta = a !== null && b !== null ? "|B\u2212A| " + Math.abs(b - a) + " steps" + (b < a ? " (B before A)" : "") : "B\u2212A \u2013";
      document.getElementById("marker-readout").textContent = "A " + (a === null ? "\u2013" : a) + "  B " +
        (b === null ? "\u2013" : b) + "  " + delta;
      document.getElementById("view-readout").textContent = "view " + hashNumber(v.t0Step) + "\u2013" + hashNumber(v.t1Step) +
        " (" + hashNumber(v.t1Step - v.t0Step) + " steps)";
      var lod = document.getElementById("lod-note");
      var sum = state.summarised || [];
      lod.hidden = !sum.length;
      lod.textContent = sum.length ? "Summarised: blocks narrower than a pixel are drawn 1 px wide, one per kind and pixel column (" +
        sum.map(function (s) { return s.label + ": " + s.blocks; }).join(", ") + " blocks); zoom in (w) to see each." : "";
      if (c !== lastBarrierStep || state.result !== lastBarrierResult) renderBarriers();
      renderRange();
    }

    // -- hit testing
    function canvasPoint(ev) {
      var rect = canvas.getBoundingClientRect();
      return {x: ev.clientX - rect.left, y: ev.clientY - rect.top};
    }

    /** Blocks under canvas CSS point (x, y): the ones containing that time, else the nearest within HIT_SLOP_PX. */
    function blocksAt(x, y) {
      var scale = state.scale;
      if (!scale || x < state.gutterPx) return [];
      var row = rowAt(y);
      if (row < 0) return [];
      var index = state.laneIndex[row];
      if (!index) return [];
      var t = scale.tStep(x), slop = HIT_SLOP_PX / scale.pxPerStep;
      var range = visibleRange(index, t - slop, t + slop);
      var inside = [], best = -1, bestDist = Infinity, starts = index.starts, ends = index.ends;
      for (var i = range[0]; i < range[1]; i++) {
        var s0 = starts[i], s1 = ends[i];
        if (s0 <= t && t < s1) inside.push(index.lo + i);
        var d = t < s0 ? s0 - t : (t >= s1 ? t - s1 : 0);
        if (d <= slop && d < bestDist) { best = index.lo + i; bestDist = d; }
      }
      return (inside.length ? inside : (best >= 0 ? [best] : [])).map(blockById);
    }

    // -- tooltip: a short summary (the details panel has the rest); parsed text only via textContent
    function showTooltip(b, clientX, clientY) {
      tooltip.textContent = "";
      var ok = tileText(b);
      KVCommon.html("div", "kv-tt-title", blockName(b) + (ok ? " " + ok : "") + "  [" + laneLabel(b.lane) + "]", tooltip);
      KVCommon.html("div", null, "steps " + b.start + "\u2013" + b.end + " (" + (b.end - b.start) + " step" + (b.end - b.start === 1 ? "" : "s") + ")" +
        (b.stage !== null && b.stage !== undefined ? ", stage " + b.stage : ""), tooltip);
      if (b.kind === "wait") KVCommon.html("div", null, "wait reason: " + (b.reason || "?"), tooltip);
      KVCommon.html("div", "kv-muted", "click: details, dependencies and source lines", tooltip);
      tooltip.hidden = false;
      // Fixed positioning in viewport coordinates: the tooltip may extend past the canvas box.
      var viewW = document.documentElement.clientWidth, viewH = document.documentElement.clientHeight;
      var tipW = tooltip.offsetWidth, tipH = tooltip.offsetHeight;
      var left = clientX + 14, top = clientY + 16;
      if (left + tipW > viewW) left = Math.max(0, clientX - tipW - 14);
      if (top + tipH > viewH) top = Math.max(0, clientY - tipH - 10);
      tooltip.style.left = left + "px";
      tooltip.style.top = top + "px";
      tooltip.setAttribute("data-block", String(b.id));
    }
    /** Kind name of a block, with its operand for loads ("TMA issue K", "FULL V"). */
    function blockName(b) {
      var name = kindName(b.kind);
      return b.operand && (b.kind === "issue" || b.kind === "filling" || b.kind === "full") ? name + " " + b.operand : name;
    }
    /** Display name of a lane id ("consumer WG0"), or the id itself for an unknown lane. */
    function laneLabel(id) {
      for (var i = 0; i < state.allLanes.length; i++) if (state.allLanes[i].id === id) return laneName(state.allLanes[i]);
      return String(id);
    }
    function hideTooltip() { tooltip.hidden = true; tooltip.removeAttribute("data-block"); }

    /**
     * Re-aim cursor, hover and tooltip at the pointer after the view moved under it (keys, wheel,
     * a redraw): what they describe is always what is under the pointer now.
     */
    function refreshPointer() {
      var p = state.pointer;
      if (!p || press) return;
      var rect = canvas.getBoundingClientRect();
      var x = p.clientX - rect.left, y = p.clientY - rect.top;
      if (x < 0 || y < 0 || x > rect.width || y > rect.height) { state.hover = null; hideTooltip(); return; }
      if (state.scale && x >= state.gutterPx) state.cursor = Math.round(state.scale.tStep(x));
      var hit = blocksAt(x, y)[0] || null;
      state.hover = hit;
      if (hit) showTooltip(hit, p.clientX, p.clientY); else hideTooltip();
    }

    // -- mouse: hover/cursor, drag to pan, click to select and follow, wheel to pan or zoom
    var press = null;
    canvas.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      press = {x: ev.clientX, view: {t0Step: state.view.t0Step, t1Step: state.view.t1Step}, dragging: false};
      // Shift+drag selects a range (markers A and B, as Perfetto's area selection); a plain drag pans.
      var at = canvasPoint(ev);
      if (ev.shiftKey && state.scale && at.x >= state.gutterPx) press.area = {fromStep: state.scale.tStep(at.x)};
      try { canvas.setPointerCapture(ev.pointerId); } catch (e) { /* synthetic events have no capture */ }
    });
    canvas.addEventListener("pointermove", function (ev) {
      state.pointer = {clientX: ev.clientX, clientY: ev.clientY};
      if (press) {
        var dx = ev.clientX - press.x;
        if (!press.dragging && Math.abs(dx) >= DRAG_THRESHOLD_PX) { press.dragging = true; canvas.classList.add("kv-dragging"); hideTooltip(); }
        if (press.dragging && state.scale && press.area) {
          state.markerA = Math.max(0, Math.round(press.area.fromStep));
          state.markerB = Math.max(0, Math.round(state.scale.tStep(canvasPoint(ev).x)));
          requestDraw();
          return;
        }
        if (press.dragging && state.scale) {
          var dSteps = dx / state.scale.pxPerStep;
          setView(press.view.t0Step - dSteps, press.view.t1Step - dSteps);
          return;
        }
      }
      refreshPointer();
      requestDraw();
    });
    canvas.addEventListener("pointerup", function (ev) {
      var wasPress = press;
      press = null;
      canvas.classList.remove("kv-dragging");
      if (wasPress && wasPress.area && wasPress.dragging) {
        // The range ends snap to a block edge within SNAP_PX, as the marker keys do.
        state.markerA = snapStep(state.markerA);
        state.markerB = snapStep(state.markerB);
        canvas.focus({preventScroll: true});
        requestDraw();
        return;
      }
      if (!wasPress || wasPress.dragging) return;
      var pt = canvasPoint(ev);
      if (pt.x < state.gutterPx) {
        // The gutter: a group's triangle (or anywhere on a folded group's row) folds / unfolds it.
        var gRow = rowAt(pt.y);
        if (gRow >= 0 && state.rowHead[gRow] && (state.rowMembers[gRow] || pt.x < GUTTER_PAD_PX + GROUP_TOGGLE_PX)) {
          toggleGroup(state.rowHead[gRow]);
          canvas.focus({preventScroll: true});
          return;
        }
      }
      if (state.scale && pt.x >= state.gutterPx) state.cursor = Math.round(state.scale.tStep(pt.x));
      var hit = blocksAt(pt.x, pt.y)[0];
      if (hit) { select(hit); follow(hit); } else { select(null); clearFollow(); }
      canvas.focus({preventScroll: true});
    });
    canvas.addEventListener("pointercancel", function () { press = null; canvas.classList.remove("kv-dragging"); });
    canvas.addEventListener("pointerleave", function () { state.pointer = null; if (!press) { state.hover = null; hideTooltip(); requestDraw(); } });
    canvas.addEventListener("wheel", function (ev) {
      if (!state.scale) return;
      ev.preventDefault();
      state.pointer = {clientX: ev.clientX, clientY: ev.clientY};
      var unit = ev.deltaMode === 1 ? WHEEL_LINE_PX : (ev.deltaMode === 2 ? canvas.clientWidth : 1);
      var dy = ev.deltaY * unit, dx = ev.deltaX * unit;
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        zoomBy(Math.exp(dy * WHEEL_ZOOM_PER_PX), state.scale.tStep(canvasPoint(ev).x));
        return;
      }
      // More lanes than fit: the plain (vertical) wheel scrolls them, as in Perfetto; at either
      // end it is left to the page (which then scrolls, as nested scroll areas do). Shift+wheel
      // and horizontal wheels pan in time; with every lane on screen the plain wheel pans too
      // (the GTKWave habit the page had before lanes could scroll).
      if (!ev.shiftKey && Math.abs(dy) >= Math.abs(dx) && lanesOverflow()) {
        if (scrollLanes(dy)) ev.preventDefault();
        return;
      }
      ev.preventDefault();
      var px = Math.abs(dx) > Math.abs(dy) ? dx : dy;
      panBy(px / state.scale.pxPerStep);
    }, {passive: false});
    // The sticky ruler is drawn where the window's top edge crosses the canvas: redraw on scroll.
    window.addEventListener("scroll", function () { requestDraw(); }, {passive: true});

    // -- the overview strip: a press centres the view there (span kept), a drag moves it; a press
    // inside the window drags the window by the point pressed (Perfetto's overview, GTKWave's
    // horizontal scrollbar).
    var overviewPress = null;
    function overviewStep(ev) {
      var w = state.overviewWindow, rect = overviewCanvas.getBoundingClientRect();
      if (!w) return null;
      var x = ev.clientX - rect.left;
      return Math.max(0, Math.min(1, (x - w.plotX0) / Math.max(1, w.plotX1 - w.plotX0))) * total();
    }
    if (overviewCanvas) {
      overviewCanvas.addEventListener("pointerdown", function (ev) {
        if (ev.button !== 0) return;
        var t = overviewStep(ev);
        if (t === null) return;
        ev.preventDefault();
        var v = state.view, span = v.t1Step - v.t0Step;
        overviewPress = {offset: t >= v.t0Step && t <= v.t1Step ? t - v.t0Step : span / 2, span: span};
        setView(t - overviewPress.offset, t - overviewPress.offset + span);
        try { overviewCanvas.setPointerCapture(ev.pointerId); } catch (e) { /* synthetic events have no capture */ }
      });
      overviewCanvas.addEventListener("pointermove", function (ev) {
        if (!overviewPress) return;
        var t = overviewStep(ev);
        if (t !== null) setView(t - overviewPress.offset, t - overviewPress.offset + overviewPress.span);
      });
      var endOverview = function () { overviewPress = null; };
      overviewCanvas.addEventListener("pointerup", endOverview);
      overviewCanvas.addEventListener("pointercancel", endOverview);
    }

    // -- selection and the details panel
    function select(b) {
      state.selected = b || null;
      renderDetails();
      requestDraw();
    }
    /** Select a block and bring it into view (keyboard selection, dependency links). */
    function selectAndShow(b) {
      if (!b) return;
      select(b);
      var v = state.view, span = v.t1Step - v.t0Step;
      if (b.end < v.t0Step || b.start > v.t1Step) setView((b.start + b.end) / 2 - span / 2, (b.start + b.end) / 2 + span / 2);
      if (state.laneRow[b.lane] !== undefined) scrollRowIntoView(state.laneRow[b.lane]);
      if (!state.pointer) state.cursor = b.start;
      requestDraw();
    }
    function blockLine(b) {
      var ok = tileText(b);
      return blockName(b) + (ok ? " " + ok : "") + " [" + laneLabel(b.lane) + "] " + b.start + "\u2013" + b.end;
    }
    var detailsText = "";
    function renderDetails() {
      var body = document.getElementById("details-body"), copy = document.getElementById("btn-copy-details");
      var b = state.selected;
      body.textContent = "";
      copy.disabled = !b;
      body.removeAttribute("data-block");
      if (!b) {
        KVCommon.html("p", "kv-muted", "No block selected. Click a block, or focus the timeline and use the arrow keys or Tab.", body);
        detailsText = "";
        return;
      }
      body.setAttribute("data-block", String(b.id));
      var ok = tileText(b), text = [];
      KVCommon.html("h2", null, blockName(b) + (ok ? " " + ok : ""), body);
      text.push(blockName(b) + (ok ? " " + ok : ""));
      if (kindDoc(b.kind)) { KVCommon.html("p", "kv-muted", kindDoc(b.kind), body); }
      var dl = KVCommon.html("dl", null, null, body);
      function fact(name, value) {
        KVCommon.html("dt", null, name, dl);
        var dd = KVCommon.html("dd", null, value, dl);
        text.push(name + ": " + value);
        return dd;
      }
      fact("lane", laneLabel(b.lane));
      if (b.operand) fact("operand", b.operand);
      if (b.tile !== null && b.tile !== undefined) fact("output tile", String(b.tile));
      if (b.k !== null && b.k !== undefined) fact(currentView && currentView.unit ? currentView.unit : "k-tile", String(b.k));
      if (b.stage !== null && b.stage !== undefined) fact("stage", String(b.stage));
      fact("steps", b.start + "\u2013" + b.end + " (" + (b.end - b.start) + " step" + (b.end - b.start === 1 ? "" : "s") + ")");
      if (b.kind === "wait") fact("wait reason", (b.reason || "?") + (reasonDoc(b.reason) ? ": " + reasonDoc(b.reason) : ""));
      function links(name, ids) {
        var blocks = ids.map(blockById).filter(Boolean);
        if (!blocks.length) return;
        KVCommon.html("dt", null, name, dl);
        var dd = KVCommon.html("dd", null, null, dl);
        blocks.forEach(function (d, i) {
          if (i) dd.appendChild(document.createTextNode("; "));
          var a = KVCommon.html("button", "kv-link", blockLine(d), dd);
          a.type = "button";
          a.setAttribute("data-goto", String(d.id));
          a.addEventListener("click", function () { selectAndShow(d); });
        });
        text.push(name + ": " + blocks.map(blockLine).join("; "));
      }
      links("waited for", afterIds(b.id));
      links("waited on by", dependentsOf(b.id));
      var chosen = codePathLines(b, state.knobs.kPipeMmas);
      var refs = chosen.lines.filter(function (l, i, all) {
        // One statement can be two ops (consumer_try_wait + consumer_wait): show it once.
        for (var j = 0; j < i; j++) if (all[j].line === l.line && all[j].path === l.path) return false;
        return true;
      });
      KVCommon.html("h3", null, "Source" + (chosen.path ? " (" + chosen.path + ", chosen from " +
        (currentView && currentView.unit ? currentView.unit : "k-tile") + " " + b.k + " and K_PIPE_MMAS)" : ""), body);
      if (refs.length) {
        linkSources(KVCommon.sourceList(body, refs.map(function (l) { return {path: l.path, line: l.line, end_line: l.end_line, text: l.text, op: l.op}; })), refs);
        text.push((chosen.path ? "source (" + chosen.path + "):\n" : "source:\n") + KVCommon.sourceText(refs));
      } else {
        KVCommon.html("p", "kv-muted", "no parsed source line for this step", body);
        text.push("source: none parsed");
      }
      detailsText = text.join("\n");
    }
    document.getElementById("btn-copy-details").addEventListener("click", function () {
      var all = [detailsText, rangeText].filter(Boolean).join("\n\n");
      if (all) KVCommon.copyText(all);
    });

    // -- barrier state at the cursor
    var lastBarrierStep = undefined, lastBarrierResult = null;
    function renderBarriers() {
      lastBarrierStep = state.cursor;
      lastBarrierResult = state.result;
      var body = document.getElementById("barriers-body");
      var r = state.result;
      body.textContent = "";
      var list = r && Array.isArray(r.barriers) ? r.barriers : [];
      if (!list.length) { KVCommon.html("p", "kv-muted", "This schedule has no barrier model.", body); return; }
      if (state.cursor === null) { KVCommon.html("p", "kv-muted", "Move the cursor over the timeline (or press ] for the first barrier event).", body); return; }
      var t = state.cursor;
      document.getElementById("barriers-title").textContent = "Barriers after step " + t;
      if (r.barrierEventsOmitted) KVCommon.html("p", "kv-error", "Barrier events were not recorded for this schedule (the notices say why): phases unknown.", body);
      if (r.eventsPending) {
        KVCommon.html("p", "kv-muted", "Barrier events are on their way from the background simulation.", body);
        return;
      }
      // Without events the phases, arrivals and waiters are unknown: the rows say so instead of
      // the zeros a replay of no events would give.
      var unknown = r.barrierEventsOmitted === true;
      var states = unknown ? list.map(function (b) { return {barrier: b, phase: "?", arrivals: "?", expected: b.expected, waiters: []}; })
        : barrierStateAt(r, t);
      var table = KVCommon.html("table", "kv-bar-table", null, body);
      var head = KVCommon.html("tr", null, null, table);
      ["barrier", "phase", "arrived", "waiting (parity)", "wait / arrive lines"].forEach(function (h) { KVCommon.html("th", null, h, head); });
      states.forEach(function (s) {
        var tr = KVCommon.html("tr", s.waiters.length ? "kv-bar-waiting" : null, null, table);
        tr.setAttribute("data-barrier", String(s.barrier.id));
        tr.setAttribute("data-phase", String(s.phase));
        KVCommon.html("td", null, s.barrier.name, tr);
        KVCommon.html("td", "kv-num", String(s.phase), tr);
        KVCommon.html("td", "kv-num", s.arrivals + "/" + s.expected, tr);
        KVCommon.html("td", null, unknown ? "?" : s.waiters.map(function (w) { return laneLabel(w.lane) + " (" + w.parity + ")"; }).join(", ") || "\u2013", tr);
        var ln = s.barrier.lines || {};
        KVCommon.html("td", "kv-num", "wait " + ((ln.wait || []).join(", ") || "\u2013") + "; arrive " + ((ln.arrive || []).join(", ") || "\u2013"), tr);
      });
    }
    function stepBarrierEvent(dir) {
      var from = state.cursor !== null ? state.cursor : (dir > 0 ? -1 : Infinity);
      var t = barrierEventStep(state.result, from, dir);
      if (t === null) return;
      state.pointer = null;
      hideTooltip();
      state.cursor = t;
      keepInView(t);
      requestDraw();
    }
    document.getElementById("btn-bar-prev").addEventListener("click", function () { stepBarrierEvent(-1); });
    document.getElementById("btn-bar-next").addEventListener("click", function () { stepBarrierEvent(1); });
    function keepInView(t) {
      var v = state.view;
      if (t < v.t0Step || t > v.t1Step) { var span = v.t1Step - v.t0Step; setView(t - span / 2, t + span / 2); }
    }

    // -- markers (snapped to the nearest block edge within SNAP_PX), zoom to A-B
    function snapStep(t) {
      var scale = state.scale;
      if (!scale) return t;
      var slop = SNAP_PX / scale.pxPerStep, best = t, bestD = slop + 1;
      for (var row = 0; row < state.laneIndex.length; row++) {
        var index = state.laneIndex[row], range = visibleRange(index, t - slop, t + slop);
        for (var i = range[0]; i < range[1]; i++) {
          var ds = Math.abs(index.starts[i] - t), de = Math.abs(index.ends[i] - t);
          if (ds <= slop && ds < bestD) { best = index.starts[i]; bestD = ds; }
          if (de <= slop && de < bestD) { best = index.ends[i]; bestD = de; }
        }
      }
      return best;
    }
    function placeMarker(which) {
      var t = state.cursor !== null ? state.cursor : Math.round((state.view.t0Step + state.view.t1Step) / 2);
      t = snapStep(t);
      if (which === "a") state.markerA = t; else state.markerB = t;
      requestDraw();
    }
    function clearMarkers() { state.markerA = null; state.markerB = null; requestDraw(); }
    function zoomToMarkers() {
      if (state.markerA === null || state.markerB === null || state.markerA === state.markerB) return;
      setView(Math.min(state.markerA, state.markerB), Math.max(state.markerA, state.markerB));
    }
    /** Escape (after overlays): close the export menu, else clear the selection (selected block and followed chain). Never the markers. */
    function escape() {
      if (closeMenu()) return;
      select(null);
      clearFollow();
      hideTooltip();
    }
    /** f: fit the selected block (with its dependencies) or the followed chain; else the whole schedule. */
    function fitSelection() {
      var ids = [];
      if (isLive(state.selected)) ids = [state.selected.id].concat(afterIds(state.selected.id), dependentsOf(state.selected.id));
      else ids = state.highlightedSorted.slice();
      var lo = Infinity, hi = -Infinity, c = state.columns;
      ids.forEach(function (id) { if (id >= 0 && id < c.n) { lo = Math.min(lo, c.start[id]); hi = Math.max(hi, c.end[id]); } });
      if (!(hi > lo)) { fitView(); requestDraw(); return; }
      var pad = (hi - lo) * 0.05 + 1;
      setView(lo - pad, hi + pad);
    }

    // -- keyboard block selection
    function selectedRow() {
      var b = state.selected;
      return isLive(b) && state.laneRow[b.lane] !== undefined ? state.laneRow[b.lane] : -1;
    }
    function firstVisibleBlock() {
      for (var row = 0; row < state.laneIndex.length; row++) {
        var index = state.laneIndex[row], range = visibleRange(index, state.view.t0Step, state.view.t1Step);
        if (range[1] > range[0]) return blockById(index.lo + range[0]);
      }
      return null;
    }
    /** The neighbour of the selected block on its lane (dir +1 / -1). */
    function laneNeighbour(dir) {
      var row = selectedRow();
      if (row < 0) return firstVisibleBlock();
      var index = state.laneIndex[row], i = state.selected.id - index.lo + dir;
      return i >= 0 && i < index.n ? blockById(index.lo + i) : null;
    }
    /** The block on the next shown lane above/below (dir) nearest to the selected block's start. */
    function crossLane(dir) {
      var row = selectedRow();
      if (row < 0) return firstVisibleBlock();
      var t = state.selected.start;
      for (var r = row + dir; r >= 0 && r < state.laneIndex.length; r += dir) {
        var index = state.laneIndex[r], starts = index.starts;
        if (!index.n) continue;
        var i = Math.min(upperBound(starts, t, false), index.n - 1);
        if (i > 0 && Math.abs(starts[i - 1] - t) <= Math.abs(starts[i] - t)) i--;
        return blockById(index.lo + i);
      }
      return null;
    }
    /**
     * . / , : the cursor (only: the selection stays) to the next/previous block edge (an event) on
     * the selected block's lane, or with no block selected on any shown lane (GTKWave's next edge
     * moves the cursor, never the selection).
     */
    function laneEvent(dir) {
      var row = selectedRow();
      var t = state.cursor !== null ? state.cursor : (row >= 0 ? state.selected.start : Math.round(state.view.t0Step));
      var rows = row >= 0 ? [row] : state.laneIndex.map(function (_x, i) { return i; });
      var best = null;
      rows.forEach(function (r) {
        var edge = laneEdge(state.laneIndex[r], t, dir);
        if (edge !== null && (best === null || (dir > 0 ? edge.t < best : edge.t > best))) best = edge.t;
      });
      if (best === null) return;
      state.pointer = null;
      hideTooltip();
      state.cursor = best;
      keepInView(best);
      requestDraw();
    }
    function keySelect(b) { if (b) { state.pointer = null; hideTooltip(); selectAndShow(b); state.cursor = b.start; } }
    canvas.addEventListener("keydown", function (ev) {
      if (ev.key !== "Tab" || ev.ctrlKey || ev.altKey || ev.metaKey) return;
      // Tab walks the blocks of the selected lane once a block is selected (arrows select the first);
      // with no selection, or past either end of the lane, it leaves the canvas as usual (Escape
      // clears the selection), so the keyboard is never trapped.
      if (!state.selected) return;
      var next = laneNeighbour(ev.shiftKey ? -1 : 1);
      if (!next) return;
      ev.preventDefault();
      keySelect(next);
    });

    // -- export menu
    var menu = document.getElementById("export-menu"), menuButton = document.getElementById("btn-export");
    function openMenu() {
      menu.hidden = false;
      menuButton.setAttribute("aria-expanded", "true");
      menu.querySelector("button").focus();
    }
    function closeMenu() {
      if (menu.hidden) return false;
      menu.hidden = true;
      menuButton.setAttribute("aria-expanded", "false");
      menuButton.focus();
      return true;
    }
    menuButton.addEventListener("click", function () { if (menu.hidden) openMenu(); else closeMenu(); });
    menu.addEventListener("keydown", function (ev) {
      var items = Array.prototype.slice.call(menu.querySelectorAll("button")), i = items.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        ev.preventDefault();
        ev.stopPropagation();
        items[(i + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
      } else if (ev.key === "Escape") {
        ev.preventDefault();
        ev.stopPropagation();
        closeMenu();
      }
    });
    menu.addEventListener("click", function (ev) {
      var btn = ev.target && ev.target.closest ? ev.target.closest("button[data-format]") : null;
      if (!btn) return;
      var format = btn.getAttribute("data-format");
      closeMenu();
      exportAs(format);
    });
    document.addEventListener("mousedown", function (ev) {
      if (!menu.hidden && !menu.contains(ev.target) && ev.target !== menuButton) { menu.hidden = true; menuButton.setAttribute("aria-expanded", "false"); }
    });
    /**
     * The download's file name (KernelExport.exportFileName): the kernel, the knobs that differ
     * from the model's defaults for this structure (by their URL-hash keys), a hash of every knob,
     * and for SVG / PNG the view's steps. Throws when it cannot be made (no exporter).
     */
    function exportName(format) {
      var KE = window.KernelExport;
      if (!KE || typeof KE.exportFileName !== "function") throw new Error("no file name: the exporter (KernelExport) is missing");
      var model = state.knobs.model, defaults = {model: KS.defaultModel(parsed)};
      KS.knobsFor(model, parsed).forEach(function (spec) { defaults[spec.name] = spec["default"]; });
      var view = format === "svg" || format === "png" ? [state.view.t0Step, state.view.t1Step] : null;
      return KE.exportFileName(KE.kernelName(parsed), simKnobs(), format, {defaults: defaults, keys: hashKeys, view: view});
    }
    /** Say on the page that an export failed (the notices list), replacing an earlier failure's line. */
    function exportFailed(format, e) {
      state.hashMessages = state.hashMessages.filter(function (m) { return String(m).indexOf(EXPORT_FAILED) !== 0; })
        .concat([EXPORT_FAILED + " (" + format + "): " + (e && e.message ? e.message : String(e)) + "; no file was written."]);
      renderNotices();
    }
    /** Hand blob to the browser as a download named name; a failed hand-off is said on the page. */
    function download(format, name, blob) {
      try {
        if (!blob) throw new Error("the " + format + " data could not be made");
        if (!name) throw new Error("no file name could be made");
        var url = URL.createObjectURL(blob);
        var a = document.createElement("a");
        a.href = url;
        a.download = name;
        document.body.appendChild(a);
        a.click();
        document.body.removeChild(a);
        setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
      } catch (e) {
        exportFailed(format, e);
        return;
      }
      state.lastExport = name;
      // A download that went out clears the line of an earlier failure.
      var before = state.hashMessages.length;
      state.hashMessages = state.hashMessages.filter(function (m) { return String(m).indexOf(EXPORT_FAILED) !== 0; });
      if (state.hashMessages.length !== before) renderNotices();
    }
    function exportAs(format) {
      var KE = window.KernelExport, r = state.result;
      try {
        // The name first: an export whose name cannot be made stops before any work.
        var name = exportName(format);
        if (format === "chrome" || format === "vcd") {
          // Barrier events still on their way from the Worker: export when they arrive.
          if (r && r.eventsPending) { pendingExport = format; return; }
          // An explicit user action: the exporter reads result.blocks (built once, here).
          if (!r || r.error || !r.columns || !r.columns.n) throw new Error("no schedule to export");
          var markers = [];
          if (state.markerA !== null) markers.push({name: "A", step: state.markerA});
          if (state.markerB !== null) markers.push({name: "B", step: state.markerB});
          // args.lines: the code path the details panel shows for each block (codePathLines).
          var kPipe = state.knobs.kPipeMmas;
          var options = {kernel: KE.kernelName(parsed), markers: markers, strings: true,
                         codePath: function (b) { return codePathLines(b, kPipe).lines; }};
          var text = format === "chrome" ? KE.chromeTraceText(r, options) : KE.vcd(r, options);
          download(format, name, new Blob([text], {type: format === "chrome" ? "application/json" : "text/plain"}));
        } else if (format === "svg") {
          download(format, name, new Blob([viewSvg()], {type: "image/svg+xml"}));
        } else if (format === "png") {
          viewPng(function (blob) { download(format, name, blob); }, function (e) { exportFailed(format, e); });
        } else {
          throw new Error("unknown export format");
        }
      } catch (e) {
        exportFailed(format, e);
      }
    }

    // -- buttons and keyboard (one key map, shared with the help overlay: KVCommon.installKeys)
    function moveCursor(d) {
      var t = state.cursor !== null ? state.cursor : Math.round(state.view.t0Step);
      state.pointer = null;
      hideTooltip();
      state.cursor = Math.max(0, t + d);
      keepInView(state.cursor);
      requestDraw();
    }
    /** Zoom around the cursor when it is on screen (speedscope/Perfetto: around the mouse), else the centre. */
    function zoomKey(factor) {
      var c = state.cursor, v = state.view;
      zoomBy(factor, c !== null && c >= v.t0Step && c <= v.t1Step ? c : undefined);
    }
    function pan(dir, big) { var span = state.view.t1Step - state.view.t0Step; panBy(dir * span * (big ? PAN_FRACTION_BIG : PAN_FRACTION)); }
    document.getElementById("btn-zoom-in").addEventListener("click", function () { zoomBy(1 / ZOOM_STEP); });
    document.getElementById("btn-zoom-out").addEventListener("click", function () { zoomBy(ZOOM_STEP); });
    document.getElementById("btn-fit").addEventListener("click", function () { fitView(); requestDraw(); });
    document.getElementById("btn-marker-a").addEventListener("click", function () { placeMarker("a"); });
    document.getElementById("btn-marker-b").addEventListener("click", function () { placeMarker("b"); });
    document.getElementById("btn-zoom-ab").addEventListener("click", zoomToMarkers);
    document.getElementById("btn-clear").addEventListener("click", clearMarkers);

    var keyMap = [
      {keys: ["w", "W"], label: "w", help: "zoom in (around the cursor)", run: function () { zoomKey(1 / ZOOM_STEP); }},
      {keys: ["s", "S"], label: "s", help: "zoom out", run: function () { zoomKey(ZOOM_STEP); }},
      {keys: ["+", "="], label: "+ / =", help: "zoom in", run: function () { zoomBy(1 / ZOOM_STEP); }},
      {keys: ["-", "_"], label: "- / _", help: "zoom out", run: function () { zoomBy(ZOOM_STEP); }},
      {keys: ["a"], label: "a / d", help: "pan left / right (Shift: half a screen)", run: function () { pan(-1, false); }},
      {keys: ["A"], label: "", help: "", run: function () { pan(-1, true); }},
      {keys: ["d"], label: "", help: "", run: function () { pan(1, false); }},
      {keys: ["D"], label: "", help: "", run: function () { pan(1, true); }},
      {keys: ["Home"], label: "Home / End", help: "go to the start / end", run: function () { var s = state.view.t1Step - state.view.t0Step; setView(0, s); }},
      {keys: ["End"], label: "", help: "", run: function () { var s = state.view.t1Step - state.view.t0Step; setView(total() - s, total()); }},
      {keys: ["0"], label: "0", help: "fit the whole schedule", run: function () { fitView(); requestDraw(); }},
      {keys: ["f", "F"], label: "f", help: "fit the selected block and its dependencies, or the followed chain", run: fitSelection},
      {keys: ["z", "Z"], label: "z", help: "zoom to the range between markers A and B", run: zoomToMarkers},
      {keys: ["m"], label: "m / M", help: "put marker A / B (Shift+m) at the cursor, snapped to the nearest block edge", run: function () { placeMarker("a"); }},
      {keys: ["M"], label: "", help: "", run: function () { placeMarker("b"); }},
      {keys: ["x", "X"], label: "x", help: "clear markers A and B (Escape keeps them)", run: clearMarkers},
      {keys: ["ArrowLeft"], label: "\u2190 / \u2192", help: "select the previous / next block on the selected lane", run: function () { keySelect(laneNeighbour(-1)); }},
      {keys: ["ArrowRight"], label: "", help: "", run: function () { keySelect(laneNeighbour(1)); }},
      {keys: ["ArrowUp"], label: "\u2191 / \u2193", help: "select the block on the lane above / below", run: function () { keySelect(crossLane(-1)); }},
      {keys: ["ArrowDown"], label: "", help: "", run: function () { keySelect(crossLane(1)); }},
      {keys: ["Tab"], label: "Tab / Shift+Tab", help: "in the timeline, once a block is selected: next / previous block on its lane (Escape, then Tab, leaves)"},
      {keys: ["."], label: ". / ,", help: "cursor (only) to the next / previous event (block edge) on the selected block's lane, or on any lane", run: function () { laneEvent(1); }},
      {keys: [","], label: "", help: "", run: function () { laneEvent(-1); }},
      {keys: ["]"], label: "] / [", help: "cursor to the next / previous barrier event (the barrier panel follows)", run: function () { stepBarrierEvent(1); }},
      {keys: ["["], label: "", help: "", run: function () { stepBarrierEvent(-1); }},
      {keys: [">"], label: "> / <", help: "cursor one step right / left", run: function () { moveCursor(1); }},
      {keys: ["<"], label: "", help: "", run: function () { moveCursor(-1); }},
      {keys: ["c"], label: "c / C", help: "fold / unfold the lane group (stages, consumer WGs, TMEM, peer CTA) of the selected block, else of the lane under the pointer; C unfolds every group", run: toggleGroupKey},
      {keys: ["C"], label: "", help: "", run: function () { state.collapsedGroups.clear(); relayout(); }},
      {keys: ["/"], label: "/", help: "filter lanes by name (the lanes panel also hides and reorders them)", run: function () {
        var panel = document.getElementById("lanes-panel");
        panel.open = true;
        document.getElementById("lane-filter").focus();
      }},
      {keys: ["e", "E"], label: "e", help: "open the export menu (Chrome trace, VCD, SVG, PNG)", run: openMenu},
      {keys: ["g"], label: "g", help: "search blocks (kind, o.k, wait reason, operand, lane); in the box Enter / Shift+Enter go to the next / previous match, Escape returns", run: focusSearch},
      {keys: ["n"], label: "n / N", help: "next / previous search match (cursor, selection and view go there)", run: function () { jumpMatch(1); }},
      {keys: ["N"], label: "", help: "", run: function () { jumpMatch(-1); }},
      {keys: ["p"], label: "p / P", help: "pin this run to compare (verdict deltas, ghost under the lanes) / unpin", run: pinRun},
      {keys: ["P"], label: "", help: "", run: unpinRun},
      {keys: ["Escape"], label: "Escape", help: "close the export menu, else clear the selected block and the followed chain; never the markers", run: escape}
    ];
    var keys = KVCommon.installKeys(keyMap.filter(function (b) { return b.label !== "" || b.run; }).map(function (b) {
      // Bindings without a label share the row of the one before them in the help.
      return b.label === "" ? {keys: b.keys, run: b.run, label: b.keys[0], help: null} : b;
    }), {title: "Waveform: keyboard and mouse", mouse: [
      "Move: the cursor follows the pointer; the barrier panel shows every barrier after that step.",
      "Click a block: select it (details panel, dependency arrows) and follow its k-tile; click empty space to clear.",
      "Drag: pan; Shift+wheel or a horizontal wheel: pan; Ctrl+wheel: zoom around the pointer; the wheel scrolls the lanes when they do not all fit (else it pans); Shift+drag: put markers A and B (the details panel gives the range's statistics).",
      "Overview strip (above the ruler): the whole run with the visible window outlined; click or drag on it to move the view.",
      "A triangle left of a lane name folds its group (stages, consumer WGs, TMEM, peer CTA) into one row; click the folded row's name to unfold.",
      "The URL hash keeps knobs, view, cursor, markers, the followed chain and the folded lane groups: copy the link to share the view."]});
    document.getElementById("btn-help").addEventListener("click", function () { keys.openHelp(); });

    // -- SVG and PNG of the current view (what is on screen, at its zoom, with ruler and legend)
    function xmlText(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
    /** Kind names of the blocks on the lanes drawn (hidden and filtered-out lanes left out). */
    function visibleKinds() {
      var c = state.columns, codes = new Uint8Array(c.kinds.length), out = {};
      // Folded groups' rows draw their lanes' blocks, so those kinds are listed too.
      state.laneIndex.forEach(function (index, row) {
        (state.rowMemberIndexes[row] || [index]).forEach(function (ix) { for (var id = ix.lo; id < ix.hi; id++) codes[c.kind[id]] = 1; });
      });
      c.kinds.forEach(function (kind, i) { if (codes[i]) out[kind] = true; });
      return out;
    }
    /**
     * The SVG legend: the view's entries for kinds with blocks on the lanes drawn (not those only
     * on hidden lanes), then the view's note, wrapped onto as many rows as the width needs (each
     * row LEGEND_ROW_PX). Returns {height, svg: [element texts]} for a legend whose top is y0;
     * swatch(fillKey, x, y, w, h) gives a swatch's SVG.
     */
    function svgLegend(w, y0, swatch) {
      var kinds = visibleKinds();
      var plain = function (parts) { return parts.map(function (p) { return Array.isArray(p) ? p[0] : p; }).join(""); };
      var items = (currentView && currentView.legend ? currentView.legend : []).filter(function (entry) { return kinds[entry.kind]; })
        .map(function (entry) { return {fills: entry.fills, text: plain(entry.text), muted: false}; });
      if (currentView && currentView.note) items.push({fills: [], text: plain(currentView.note), muted: true});
      var swatchW = LEGEND_SWATCH_PX + LEGEND_SWATCH_GAP_PX;
      var layout = legendLayout(items.map(function (it) { return it.fills.length * swatchW + textWidth(it.text); }), GUTTER_PAD_PX, w - GUTTER_PAD_PX);
      var out = [];
      items.forEach(function (it, i) {
        var x = layout.at[i].x, mid = y0 + layout.at[i].row * LEGEND_ROW_PX + LEGEND_ROW_PX / 2;
        it.fills.forEach(function (key) {
          out.push(swatch(key, x, mid - 5, LEGEND_SWATCH_PX, 10));
          x += swatchW;
        });
        out.push('<text x="' + x.toFixed(1) + '" y="' + mid + '" fill="' + (it.muted ? colours.muted : colours.fg) + '" dominant-baseline="middle">' + xmlText(it.text) + "</text>");
      });
      return {height: layout.rows * LEGEND_ROW_PX + (layout.rows ? 4 : 0), svg: out};
    }
    /**
     * The current view as SVG text: the rectangles and labels the last frame drew (wait blocks
     * hatched as on the canvas), lane names, ruler, cursor and marker lines, legend (svgLegend).
     */
    function viewSvg() {
      flush();
      var scale = state.scale, w = Math.round(canvas.clientWidth || 800), rowsH = state.rowsBottom;
      useFont(LABEL_FONT_PX + "px " + uiFont);
      // A swatch: a rectangle of the fill, hatched for waits as the blocks are.
      var swatch = function (key, x, y, sw, sh) {
        return '<rect x="' + x + '" y="' + y + '" width="' + sw + '" height="' + sh + '" fill="' + colours[key] + '" data-kind="' + key + '"/>' +
          (key === "wait" ? '<path fill="' + colours["kind-wait-hatch"] + '" data-kind="wait-hatch" d="' + hatchBands(x, y, sw, sh) + '"/>' : "");
      };
      var legend = svgLegend(w, rowsH + 2, swatch);
      var h = rowsH + 2 + legend.height;
      var out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + " " + h +
        '" font-family="' + xmlText(uiFont) + '" font-size="' + LABEL_FONT_PX + '">'];
      out.push('<rect width="' + w + '" height="' + h + '" fill="' + colours.bg + '"/>');
      var rects = state.lastRects || {}, labels = state.lastLabels || {};
      paintOrder(rects).forEach(function (key) {
        var list = rects[key], base = key.replace(/[\^~]/g, ""), dimmed = key.indexOf("~") >= 0;
        var d = [], hatch = [], opacity = dimmed ? ' fill-opacity="' + DIM_ALPHA + '"' : "";
        for (var r = 0; r < list.length; r += 4) {
          d.push("M" + list[r].toFixed(1) + " " + list[r + 1] + "h" + list[r + 2].toFixed(1) + "v" + list[r + 3] + "h" + (-list[r + 2]).toFixed(1) + "z");
          if (base === "wait") hatch.push(hatchBands(list[r], list[r + 1], list[r + 2], list[r + 3]));
        }
        out.push('<path fill="' + colours[base] + '"' + opacity + ' data-kind="' + base + '" d="' + d.join("") + '"/>');
        // Wait blocks: the canvas pattern's hatching, drawn over the fill (hatchBands).
        if (hatch.length) out.push('<path fill="' + colours["kind-wait-hatch"] + '"' + opacity + ' data-kind="wait-hatch" d="' + hatch.join("") + '"/>');
      });
      FILL_KEYS.forEach(function (key) {
        var group = labels[key];
        if (!group) return;
        for (var j = 0; j < group.length; j += 5) {
          var room = group[j + 2] - group[j + 1] - 2 * LABEL_PAD_PX, cands = labelCandidates(group[j]), text = null;
          for (var c = 0; c < cands.length; c++) if (textWidth(cands[c]) <= room) { text = cands[c]; break; }
          if (text !== null) out.push('<text x="' + ((group[j + 1] + group[j + 2]) / 2).toFixed(1) + '" y="' + group[j + 3] + '" fill="' + colours[key + "-fg"] +
            '" text-anchor="middle" dominant-baseline="middle">' + xmlText(text) + "</text>");
        }
      });
      [[state.markerA, colours["marker-a"]], [state.markerB, colours["marker-b"]], [state.cursor, colours.cursor]].forEach(function (m) {
        if (m[0] === null || !scale) return;
        var x = scale.xPx(m[0]);
        if (x >= state.gutterPx && x <= w) out.push('<line x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="0" y2="' + rowsH + '" stroke="' + m[1] + '"/>');
      });
      out.push('<rect width="' + w + '" height="' + RULER_HEIGHT_PX + '" fill="' + colours.panel + '"/>');
      (state.rulerLabels || []).forEach(function (l) {
        out.push('<text x="' + l.left.toFixed(1) + '" y="' + (RULER_HEIGHT_PX - 9) + '" fill="' + colours.fg + '" dominant-baseline="middle">' + xmlText(l.text) + "</text>");
      });
      out.push('<rect width="' + state.gutterPx + '" height="' + rowsH + '" fill="' + colours.panel + '"/>');
      state.lanes.forEach(function (lane, row) {
        out.push('<text x="' + (GUTTER_PAD_PX + GROUP_TOGGLE_PX) + '" y="' + (state.rowTop[row] + state.rowHeight[row] / 2) + '" fill="' + colours.fg +
          '" font-size="' + LANE_FONT_PX + '" dominant-baseline="middle">' + xmlText(laneName(lane)) + "</text>");
      });
      out.push('<g class="kv-svg-legend">');
      out.push.apply(out, legend.svg);
      out.push("</g>");
      out.push("</svg>");
      return out.join("\n");
    }
    /**
     * The current view as PNG (the SVG drawn on a canvas at the device pixel ratio): callback(blob),
     * or fail(error) when the SVG cannot be drawn or the canvas gives no PNG (too large a canvas).
     */
    function viewPng(callback, fail) {
      var svg = viewSvg(), dpr = window.devicePixelRatio || 1;
      // A data: URL (not a Blob URL): the image is decoded from the page's own text, no request.
      var img = new Image(), url = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
      img.onload = function () {
        try {
          var c = document.createElement("canvas");
          c.width = Math.round(img.width * dpr);
          c.height = Math.round(img.height * dpr);
          var cx = c.getContext("2d");
          cx.scale(dpr, dpr);
          cx.drawImage(img, 0, 0);
          c.toBlob(function (blob) {
            if (blob) callback(blob);
            else fail(new Error("the browser made no PNG of a " + c.width + " x " + c.height + " px canvas"));
          }, "image/png");
        } catch (e) {
          fail(e);
        }
      };
      img.onerror = function () { fail(new Error("the view's SVG could not be drawn as an image")); };
      img.src = url;
    }

    // -- URL hash: read at start and on hashchange, written (debounced) after every change
    var hashTimer = 0, lastWrittenHash = null;
    function scheduleHashWrite() {
      if (hashTimer) return;
      hashTimer = setTimeout(writeHash, HASH_WRITE_DELAY_MS);
    }
    function currentHash() { return formatHash(Object.assign({}, state, {knobs: simKnobs(), pinText: state.pinned ? state.pinned.text : null}), hashKeys); }
    function writeHash() {
      hashTimer = 0;
      var h = currentHash();
      if (h === lastWrittenHash) return;
      lastWrittenHash = h;
      try { history.replaceState(null, "", "#" + h); } catch (e) { /* some file:// setups refuse; the view still works */ }
    }
    function applyHash(hash) {
      var p = parseHash(hash, hashKeys, rangeOf, state.knobs.model);
      if (p.model && p.model !== state.knobs.model) {
        // Another model: its starting knobs and controls, then the hash's knobs on top.
        state.knobs = baseKnobs(p.model);
        buildControls(p.model);
      }
      Object.keys(p.knobs).forEach(function (k) { state.knobs[k] = p.knobs[k]; });
      syncUnits();
      state.cursor = p.cursor; state.markerA = p.markerA; state.markerB = p.markerB;
      state.follow = p.follow;
      // Folded lane groups: the hash's (none when it has no groups= key).
      state.collapsedGroups = new Set(p.groups || []);
      state.hashMessages = startMessages.concat(p.messages);
      startMessages = [];
      restorePin(p.pin);
      // The hash's view applies to the result of its knobs: now, or when the Worker answers
      // (large settings simulate there, at start-up too, so the page never blocks on them).
      state.pendingView = p.view || "fit";
      if (!simulateInBackground()) simulateNow();
      renderNotices();
      lastWrittenHash = null;
      requestDraw();
    }
    /** Apply the view a hash asked for (pendingView) to the result just taken; once. */
    function applyPendingView() {
      var view = state.pendingView;
      state.pendingView = null;
      if (!view) return;
      if (view === "fit") { fitView(); return; }
      state.view = {t0Step: view.t0Step, t1Step: view.t1Step};
      state.fitted = false;
      clampView();
      var v = state.view;
      if (Math.abs(v.t0Step - view.t0Step) > 1e-6 || Math.abs(v.t1Step - view.t1Step) > 1e-6) {
        state.hashMessages.push("URL hash: view " + hashNumber(view.t0Step) + ".." + hashNumber(view.t1Step) +
          " is outside the schedule; shown as " + hashNumber(v.t0Step) + ".." + hashNumber(v.t1Step) + ".");
      }
    }
    window.addEventListener("hashchange", function () {
      if (location.hash.replace(/^#/, "") !== lastWrittenHash) applyHash(location.hash);
    });

    // -- reading a schedule (issue 23): range statistics (markers A-B, Shift+drag), search and
    // jump, a pinned run compared with the live one (verdict deltas, a ghost under the lanes),
    // source lines as links. Every figure reads the columns and lane indexes, never block objects.
    state.search = {text: "", query: null, ids: new Int32Array(0), perLane: {}, pos: -1};
    state.pinned = null;
    var searchBox = document.getElementById("search"), searchCount = document.getElementById("search-count");
    var lastRangeKey = null, rangeText = "", pinWorker = null, pinRunId = 0;

    /** A new result: the search runs again on its columns, the range statistics are recomputed. */
    function refreshReading() {
      lastRangeKey = null;
      if (state.search.text) runSearch(); else renderSearchCount();
    }

    /** The lane indexes of the current result by lane position (rangeStats' laneIndexes). */
    function indexesByLane() { return state.columns.lanes.map(function (id) { return state.perLane[id]; }); }

    /** The statistics between markers A and B in the details panel (re-rendered only when they, the result or the lanes change). */
    function renderRange() {
      var a = state.markerA, b = state.markerB, r = state.result;
      // While a Shift+drag is under way the markers move every frame: computed on release.
      if (press && press.area) return;
      var key = [a, b, state.lanes, r];
      if (lastRangeKey && key.every(function (x, i) { return x === lastRangeKey[i]; })) return;
      lastRangeKey = key;
      var body = document.getElementById("range-body");
      body.textContent = "";
      body.removeAttribute("data-t0");
      body.removeAttribute("data-t1");
      rangeText = "";
      document.getElementById("btn-copy-details").disabled = !state.selected;
      if (a === null || b === null || a === b || !r || r.error || !state.columns.n) {
        body.hidden = true;
        return;
      }
      body.hidden = false;
      var st = rangeStats(state.columns, a, b, indexesByLane()), text = [];
      body.setAttribute("data-t0", String(st.t0));
      body.setAttribute("data-t1", String(st.t1));
      var title = "Between A and B: steps " + st.t0 + "\u2013" + st.t1 + " (" + st.span + " steps)";
      KVCommon.html("h3", null, title, body);
      text.push(title);
      var util = "Tensor core busy " + st.tensorBusy + " of " + st.span + " steps (" + pct(st.tensorUtil) + ")";
      KVCommon.html("p", null, util, body).setAttribute("data-tensor-busy", String(st.tensorBusy));
      text.push(util);
      var byId = {};
      st.lanes.forEach(function (row) { byId[row.lane] = row; });
      var order = currentView && currentView.waitReasons ? currentView.waitReasons.map(function (w) { return w.reason; }) : [];
      var table = KVCommon.html("table", "kv-bar-table kv-range-table", null, body);
      var head = KVCommon.html("tr", null, null, table);
      ["lane", "busy", "wait (by reason)", "blocks by kind"].forEach(function (h) { KVCommon.html("th", null, h, head); });
      state.lanes.forEach(function (lane) {
        var row = byId[lane.id];
        if (!row) return;
        var reasons = order.concat(Object.keys(row.waits).filter(function (k) { return order.indexOf(k) < 0; }).sort())
          .filter(function (k) { return row.waits[k] > 0; }).map(function (k) { return k + " " + row.waits[k]; });
        var kinds = Object.keys(row.counts).map(function (k) { return kindName(k) + " " + row.counts[k]; });
        var tr = KVCommon.html("tr", null, null, table);
        tr.setAttribute("data-lane", lane.id);
        tr.setAttribute("data-busy", String(row.busy));
        tr.setAttribute("data-wait", String(row.wait));
        var cells = [laneName(lane), row.busy + " (" + pct(st.span > 0 ? row.busy / st.span : null) + ")",
          row.wait ? row.wait + (reasons.length ? ": " + reasons.join(", ") : "") : "\u2013", kinds.join(", ") || "\u2013"];
        cells.forEach(function (cell, i) { KVCommon.html("td", i === 1 ? "kv-num" : null, cell, tr); });
        text.push(cells.join("  |  "));
      });
      rangeText = text.join("\n");
      document.getElementById("btn-copy-details").disabled = false;
    }

    /** A translucent band between markers A and B (the range the statistics cover). */
    function drawRangeBand(scale, heightCss) {
      if (state.markerA === null || state.markerB === null || state.markerA === state.markerB) return;
      var x0 = Math.max(scale.xPx(Math.min(state.markerA, state.markerB)), state.gutterPx);
      var x1 = Math.min(scale.xPx(Math.max(state.markerA, state.markerB)), scale.x1Px + PLOT_PAD_PX);
      if (x1 <= x0) return;
      ctx.globalAlpha = RANGE_BAND_ALPHA;
      ctx.fillStyle = colours["marker-b"];
      ctx.fillRect(x0, RULER_HEIGHT_PX, x1 - x0, heightCss - RULER_HEIGHT_PX);
      ctx.globalAlpha = 1;
    }

    // -- search: parse the query against the result's vocabulary, match on the columns
    function searchVocab() {
      var c = state.columns;
      return {
        kinds: c.kinds.map(function (k) { return {kind: k, name: kindName(k)}; }),
        reasons: c.reasons.filter(function (x) { return x !== null; }),
        operands: c.operands.slice(),
        lanes: state.allLanes.map(function (l) { return {id: l.id, label: laneName(l)}; }),
        unit: currentView && currentView.unit ? currentView.unit : "k-tile"
      };
    }
    function runSearch() {
      var text = String(searchBox.value || "");
      var q = text.trim() ? parseQuery(text, searchVocab()) : null;
      var found = q ? searchBlocks(state.columns, q) : {ids: new Int32Array(0), perLane: []};
      var perLane = {};
      found.perLane.forEach(function (ids, li) { perLane[state.columns.lanes[li]] = ids; });
      state.search = {text: text.trim(), query: q, ids: found.ids, perLane: perLane, pos: -1};
      renderSearchCount();
      requestDraw();
    }
    function renderSearchCount() {
      var s = state.search, q = s.query;
      searchBox.removeAttribute("aria-invalid");
      searchCount.classList.remove("kv-danger");
      if (!q) { searchCount.textContent = ""; searchCount.title = ""; return; }
      if (q.error) {
        searchBox.setAttribute("aria-invalid", "true");
        searchCount.classList.add("kv-danger");
        searchCount.textContent = q.error;
        searchCount.title = "";
        return;
      }
      var n = s.ids.length;
      searchCount.textContent = n === 0 ? "no match" : (s.pos >= 0 ? (s.pos + 1) + " / " + n : n + " match" + (n === 1 ? "" : "es")) +
        (n ? " (Enter / Shift+Enter)" : "");
      searchCount.title = "Read as: " + q.words.join("; ");
    }
    /** Enter / n (dir 1), Shift+Enter / N (dir -1): select the next / previous match, cursor at its start, view on it. */
    function jumpMatch(dir) {
      var s = state.search;
      if (!s.ids.length) return;
      s.pos = stepMatch(s.ids, state.columns.start, s.pos, state.cursor, dir);
      var b = blockById(s.ids[s.pos]);
      state.pointer = null;
      hideTooltip();
      selectAndShow(b);
      state.cursor = b.start;
      renderSearchCount();
      requestDraw();
    }
    /**
     * Matches outlined on the lanes drawn: per lane, binary search for the visible ones, then at
     * most one mark per pixel column (the next match is found by binary search past it).
     */
    function drawSearchHits(scale, widthCss) {
      var s = state.search, drawn = 0;
      state.searchDrawn = 0;
      if (!s.ids.length) return;
      var wide = new Path2D(), thin = new Path2D(), start = state.columns.start, end = state.columns.end;
      for (var row = 0; row < state.lanes.length; row++) {
        var list = s.perLane[state.lanes[row].id];
        if (!list || !list.length) continue;
        var index = state.laneIndex[row], range = visibleRange(index, scale.t0Step, scale.t1Step);
        var j = lowerBoundIn(list, index.lo + range[0], 0, list.length), j1 = lowerBoundIn(list, index.lo + range[1], j, list.length);
        var box = blockY(row);
        while (j < j1) {
          var id = list[j], x0 = Math.max(scale.xPx(start[id]), state.gutterPx), x1 = Math.min(scale.xPx(end[id]), widthCss);
          j++;
          if (x1 < x0) continue;
          drawn++;
          if (x1 - x0 >= SEPARATE_MIN_WIDTH_PX) { wide.rect(x0 + 1, box.y - 1, x1 - x0 - 2, box.h + 2); continue; }
          var px = Math.floor(x0);
          thin.rect(px, box.y - 1, SEARCH_THIN_PX, box.h + 2);
          // Skip the matches that start inside this mark (one mark per pixel column).
          var limit = scale.tStep(px + SEARCH_THIN_PX), lo = j, hi = j1;
          while (lo < hi) { var mid = (lo + hi) >>> 1; if (start[list[mid]] < limit) lo = mid + 1; else hi = mid; }
          j = lo;
        }
      }
      ctx.strokeStyle = colours.cursor;
      ctx.fillStyle = colours.cursor;
      ctx.lineWidth = 2;
      ctx.stroke(wide);
      ctx.fill(thin);
      state.searchDrawn = drawn;
    }
    searchBox.addEventListener("input", runSearch);
    searchBox.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); jumpMatch(ev.shiftKey ? -1 : 1); }
      else if (ev.key === "Escape") { ev.preventDefault(); canvas.focus({preventScroll: true}); }
    });
    function focusSearch() { searchBox.focus(); searchBox.select(); }

    // -- a pinned run: compared in the verdict, drawn as a ghost under the live lanes
    /** The knobs of model that are simulated (derived ones dropped: the simulator derives them again). */
    function simulatedKnobs(knobs) {
      var out = Object.assign({}, knobs);
      KS.knobsFor(knobs.model, parsed).forEach(function (spec) { if (spec.derived) delete out[spec.name]; });
      return out;
    }
    function makePinned(knobs, result) {
      var perLane = {}, c = result && !result.error && result.columns && typeof result.columns.n === "number" ? result.columns : null;
      if (c) c.lanes.forEach(function (id, li) { perLane[id] = laneIndexOf(c, li); });
      return {knobs: knobs, result: result, columns: c, perLane: perLane, pending: false,
              text: formatPin(knobs, simulatedKnobs(baseKnobs(knobs.model)), hashKeys)};
    }
    /** p: pin the run on screen (replacing an earlier pin). */
    function pinRun() {
      var r = state.result;
      if (noFit || !r || r.error || !r.columns) return;
      pinRunId++;
      state.pinned = makePinned(simKnobs(), r);
      renderVerdict();
      requestDraw();
    }
    /** Shift+P: forget the pinned run. */
    function unpinRun() {
      if (!state.pinned) return;
      pinRunId++;
      state.pinned = null;
      renderVerdict();
      requestDraw();
    }
    /** The hash's pin= value: the pinned run is simulated again (in a Worker when large), then compared. */
    function restorePin(text) {
      pinRunId++;
      if (text === null || text === undefined || noFit) { if (state.pinned) { state.pinned = null; renderVerdict(); } return; }
      var p = parsePin(text, hashKeys, rangeOf, state.knobs.model);
      state.hashMessages = state.hashMessages.concat(p.messages);
      var knobs = simulatedKnobs(Object.assign(baseKnobs(p.model), p.knobs)), id = pinRunId;
      var estimate = 0;
      try { estimate = KS.estimateBlockCount(knobs, parsed); } catch (e) { estimate = 0; }
      var take = function (result) {
        if (id !== pinRunId) return;  // pinned again, or unpinned, meanwhile
        state.pinned = makePinned(knobs, result);
        renderVerdict();
        requestDraw();
      };
      if (estimate >= WORKER_MIN_BLOCKS && estimate <= KS.MAX_BLOCKS) {
        pinWorker = pinWorker || newWorker(function (ev) { if (ev.data.id === pinRunId) take(unpackResult(ev.data.packed)); },
          function (ev) { pinWorker = null; take({error: "the pinned run failed: " + (ev.message || "unknown error")}); });
        if (pinWorker) {
          state.pinned = {knobs: knobs, result: null, columns: null, perLane: {}, pending: true, text: formatPin(knobs, simulatedKnobs(baseKnobs(knobs.model)), hashKeys)};
          pinWorker.postMessage({id: id, parsed: parsed, knobs: knobs});
          return;
        }
      }
      var result;
      try { result = KS.simulate(parsed, knobs, {events: false}); } catch (e) { result = {error: "the pinned run failed: " + (e && e.message ? e.message : String(e))}; }
      take(result);
    }
    /** "+3", "\u22123", "\u00b10": a signed difference. */
    function deltaText(x) { return x > 0 ? "+" + x : (x < 0 ? "\u2212" + (-x) : "\u00b10"); }
    /** The knobs that differ between the pinned run and the live one: "stages 4 \u2192 6". */
    function knobDiffText(pinnedKnobs, liveKnobs) {
      var out = [];
      if (pinnedKnobs.model !== liveKnobs.model) out.push("model " + pinnedKnobs.model + " \u2192 " + liveKnobs.model);
      hashKeys.forEach(function (pair) {
        var name = pair[1], a = pinnedKnobs[name], b = liveKnobs[name];
        if (name === "model" || a === b || (a === undefined && b === undefined)) return;
        out.push(pair[0] + " " + (a === undefined ? "\u2013" : hashValue(a)) + " \u2192 " + (b === undefined ? "\u2013" : hashValue(b)));
      });
      return out;
    }
    /** The verdict's comparison with the pinned run: the knobs changed, delta total, delta bubbles per lane and reason. */
    function renderCompare(el) {
      var p = state.pinned;
      document.getElementById("btn-unpin").hidden = !p;
      document.getElementById("btn-pin").textContent = p ? "Re-pin" : "Pin run";
      if (!p) return;
      var box = KVCommon.html("div", "kv-compare", null, el);
      box.id = "compare";
      var diff = knobDiffText(p.knobs, simKnobs());
      KVCommon.html("p", "kv-compare-head", "Against the pinned run" + (diff.length ? " (" + diff.join(", ") + ")" : " (same settings)") +
        "; the ghost under the lanes is the pinned schedule", box);
      var rp = p.result, v = state.result && state.result.verdict;
      if (p.pending) { KVCommon.html("p", "kv-muted", "The pinned run is simulating in the background\u2026", box); return; }
      if (!rp || rp.error || !rp.verdict) { KVCommon.html("p", "kv-danger", "The pinned run has no verdict" + (rp && rp.error ? ": " + rp.error : "."), box); return; }
      if (rp.deadlock) { KVCommon.html("p", "kv-danger", "The pinned run deadlocks after step " + rp.deadlock.step + ".", box); return; }
      if (!v) return;
      var order = currentView && currentView.waitReasons ? currentView.waitReasons.map(function (w) { return w.reason; }) : [];
      var d = verdictDelta(rp.verdict, v, order);
      box.setAttribute("data-delta-total", String(d.total[1] - d.total[0]));
      KVCommon.html("p", "kv-big", "\u0394 total: " + deltaText(d.total[1] - d.total[0]) + " steps (" + d.total[0] + " \u2192 " + d.total[1] + ")", box);
      var ul = KVCommon.html("ul", null, null, box);
      d.lanes.forEach(function (ln) {
        var li = KVCommon.html("li", null, laneLabel(ln.lane) + " bubbles " + deltaText(ln.live - ln.pinned) + " (" + ln.pinned + " \u2192 " + ln.live + ")" +
          (ln.reasons.length ? ": " + ln.reasons.map(function (x) { return x[0] + " " + deltaText(x[2] - x[1]); }).join(", ") : ""), ul);
        li.setAttribute("data-lane", ln.lane);
        li.setAttribute("data-delta", String(ln.live - ln.pinned));
      });
    }
    /**
     * The pinned schedule, faint, under the live blocks: each shown lane's pinned blocks in the
     * visible window (binary search), the full row height so it shows around the live blocks,
     * at most one 1 px rectangle per pixel column for sub-pixel blocks; one fill.
     */
    function drawGhost(scale, widthCss) {
      var p = state.pinned, rects = 0;
      state.ghostDrawn = 0;
      if (!p || !p.columns) return;
      var path = new Path2D();
      for (var row = 0; row < state.lanes.length; row++) {
        var index = p.perLane[state.lanes[row].id];
        if (!index || !index.n) continue;
        var range = visibleRange(index, scale.t0Step, scale.t1Step), starts = index.starts, ends = index.ends;
        var y = state.rowTop[row] + 1, h = state.rowHeight[row] - 2, i = range[0], end = range[1];
        while (i < end) {
          var x0 = Math.max(scale.xPx(starts[i]), state.gutterPx), x1 = Math.min(scale.xPx(ends[i]), widthCss);
          if (x1 - x0 >= MIN_BLOCK_WIDTH_PX) { path.rect(x0, y, x1 - x0, h); rects++; i++; continue; }
          var px = Math.floor(x0);
          if (x1 >= x0) { path.rect(px, y, MIN_BLOCK_WIDTH_PX, h); rects++; }
          i = Math.max(i + 1, lowerBoundIn(starts, scale.tStep(px + MIN_BLOCK_WIDTH_PX), i + 1, end));
        }
      }
      ctx.globalAlpha = GHOST_ALPHA;
      ctx.fillStyle = colours.fg;
      ctx.fill(path);
      ctx.globalAlpha = 1;
      state.ghostDrawn = rects;
    }
    document.getElementById("btn-pin").addEventListener("click", pinRun);
    document.getElementById("btn-unpin").addEventListener("click", unpinRun);

    // -- source lines as links (viz.py --source-link): plain links the user follows, never a fetch
    var sourceLinks = model.sourceLinks && typeof model.sourceLinks === "object" ? model.sourceLinks : null;
    /** Make each source reference of list ul (KVCommon.sourceList of refs) a link to its file and line, where the file is known. */
    function linkSources(ul, refs) {
      if (!sourceLinks || !sourceLinks.files) return;
      var items = ul.children;
      for (var i = 0; i < items.length && i < refs.length; i++) {
        var abs = Object.prototype.hasOwnProperty.call(sourceLinks.files, refs[i].path) ? sourceLinks.files[refs[i].path] : null;
        var url = abs ? sourceHref(sourceLinks.scheme, abs, refs[i].line) : null;
        var where = items[i].querySelector(".kc-where");
        if (!url || !where) continue;
        var a = document.createElement("a");
        a.className = "kc-where kv-src-link";
        a.href = url;
        a.textContent = where.textContent;
        a.title = "Open " + abs + " (line " + refs[i].line + ")";
        where.parentNode.replaceChild(a, where);
      }
    }

    // -- start: the page model's defaults < embedded initial knobs < hash
    state.knobs = baseKnobs(pageModel);
    buildControls(pageModel);
    readTheme();
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      var onScheme = function () { readTheme(); requestDraw(); };
      if (mq.addEventListener) mq.addEventListener("change", onScheme); else if (mq.addListener) mq.addListener(onScheme);
    }
    window.addEventListener("resize", requestDraw);
    if (window.ResizeObserver) new ResizeObserver(function () { requestDraw(); }).observe(box);
    applyHash(location.hash);
    renderChainInfo();
    flush();

    // -- test hook: positions and state for browser tests and the benchmark
    window.__kv = {
      state: state,
      pure: pure,
      visibleRange: visibleRange,
      laneIndexOf: laneIndexOf,
      blocksAt: function (x, y) { return blocksAt(x, y); },
      /** Client (viewport) coordinates of the visible middle of block id, or null when off screen. */
      blockCenter: function (id) {
        var scale = state.scale, bb = scale && idBox(scale, id);
        if (!bb) return null;
        var x0 = Math.max(bb.x0, state.gutterPx), x1 = Math.min(bb.x1, scale.x1Px);
        if (x1 <= x0) return null;
        var rect = canvas.getBoundingClientRect();
        return {x: rect.left + (x0 + x1) / 2, y: rect.top + bb.y + bb.h / 2, widthPx: x1 - x0};
      },
      /** Every block as an object: materialises result.blocks (tests and exports only; the page never calls it). */
      blocks: function () { return (state.result && !state.result.error && state.result.blocks) || []; },
      /** Block id of the current result as an object (built from the columns), or null. */
      block: function (id) { return blockById(id); },
      /** The blocks of one lane in start order, as objects (tests). */
      laneBlocks: function (laneId) {
        var index = state.perLane[laneId], out = [];
        for (var i = 0; index && i < index.n; i++) out.push(blockById(index.lo + i));
        return out;
      },
      highlighted: function () { return Array.from(state.highlighted).sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }); },
      simulating: function () { return !!state.simulating; },
      setKnobs: function (k) { Object.keys(k).forEach(function (n) { state.knobs[n] = k[n]; }); requestSimulate(); },
      setModel: setModel,
      select: function (id) { select(blockById(id)); flush(); },
      followBlock: function (id) { follow(blockById(id)); flush(); },
      selectedId: function () { return state.selected ? state.selected.id : null; },
      arrowEdges: arrowEdges,
      exportAs: exportAs,
      exportName: exportName,
      viewSvg: viewSvg,
      barrierStateAt: function (t) { return barrierStateAt(state.result, t); },
      setView: setView,
      fit: function () { fitView(); requestDraw(); },
      flush: flush,
      hash: currentHash,
      search: function (text) { searchBox.value = text; runSearch(); flush(); return {ids: Array.from(state.search.ids), query: state.search.query}; },
      rangeStats: function (t0, t1) { return rangeStats(state.columns, t0, t1, indexesByLane()); },
      pinned: function () { return state.pinned ? {knobs: state.pinned.knobs, text: state.pinned.text, pending: state.pinned.pending, total: state.pinned.result && state.pinned.result.total} : null; },
      writeHashNow: function () { if (hashTimer) { clearTimeout(hashTimer); } writeHash(); return location.hash; }
    };
  }

  if (typeof document !== "undefined") startPage();
  return pure;
})();
if (typeof module !== "undefined" && module.exports) module.exports = KVWave;
