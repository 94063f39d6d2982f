/*
 * sim/timeline.js: the Timeline builder of kernel_logical_visualizer's simulator, shared by every
 * model: blocks collected as typed columns per lane while the engine runs (LaneSegment, pooled
 * between runs), the result's block columns in id order (Timeline.finalize), and the helpers that
 * turn columns back into v1 block objects (blockAt, blocksOf, attachColumns). docs/simulator.md
 * "Result columns" and "How the engine stores blocks".
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it before
 * sim/engine.js and schedule.js as a classic script, which makes KernelTimeline a global; Node
 * gets the same object through module.exports. The constants the engine and schedule.js share with
 * it (MAX_BLOCKS, EMPTY, KIND_WAIT) live here, and they import them from here.
 */
var KernelTimeline = (function () {
  "use strict";

  /** Hard cap on the (estimated) number of blocks, so no knob setting can freeze a browser tab. */
  var MAX_BLOCKS = 2000000;

  /** Shared empty dependency list (frozen: blocks share it, nobody may push into it). */
  var EMPTY = Object.freeze([]);

  /** Kind code of "wait" (interned first): bindings() skips wait blocks by code. */
  var KIND_WAIT = 0;

  /** Int32 stored for a null tile, k or stage (block fields are integers or null). */
  var NO_VALUE = -2147483648;

  /** Int32 column value of a tile / k / stage (integers or null). */
  function intField(v) {
    if (v === null || v === undefined) return NO_VALUE;
    if ((v | 0) !== v) throw new Error("timeline: tile, k and stage must be integers or null, got " + v);
    return v;
  }

  /** An empty array that never held anything but objects (objectList). */
  var OBJECT_LIST_SEED = [null];

  /**
   * An empty array whose elements are already of the object kind (PACKED_ELEMENTS). A `[]`
   * literal starts as a small-integer array and changes kind at its first object push, which
   * deoptimises the code that pushed onto the previous run's lists, run after run while the JIT
   * warms up; the engine's lists of roles, jobs and barriers start here instead.
   */
  function objectList() {
    return OBJECT_LIST_SEED.slice(0, 0);
  }

  /**
   * One lane's blocks while the engine runs, in the order they were appended: one typed array
   * per field (the result's columns, docs/simulator.md "Result columns"), `after` handles as CSR (afterAt /
   * afterList). `sorted` stays true while every block starts at or after the previous one.
   * Fields are spelled out (not set in a loop) so every segment has one shape on the hot path.
   */
  function LaneSegment(cap) {
    this.n = 0;
    this.cap = cap;
    this.kind = new Int32Array(cap);
    this.reason = new Int32Array(cap);
    this.lines = new Int32Array(cap);
    this.operand = new Int32Array(cap);
    this.tile = new Int32Array(cap);
    this.k = new Int32Array(cap);
    this.stage = new Int32Array(cap);
    this.start = new Float64Array(cap);
    this.end = new Float64Array(cap);
    this.afterAt = new Int32Array(cap + 1);
    // most blocks have one or two `after` handles
    this.afterList = new Int32Array(2 * cap);
    this.sorted = true;
  }

  /**
   * Segments whose blocks finalize() has copied out, kept for the next run's lanes (a slider
   * re-simulates the same model and size again and again): no fresh columns to allocate and
   * zero. Kept per lane index (the next run's lane li is most likely the same role, with the
   * capacity it grew to); at most SEGMENT_POOL_BLOCKS blocks' worth (a million-block run's are
   * let go).
   */
  var segmentPool = [], segmentPoolBlocks = 0, SEGMENT_POOL_BLOCKS = 1 << 18;

  /** An empty LaneSegment for lane index li and at least cap blocks: the pooled one if it fits, else a new one. */
  function takeSegment(li, cap) {
    var s = li < segmentPool.length ? segmentPool[li] : null;
    if (s === null || s === undefined || s.cap < cap) return new LaneSegment(cap);
    segmentPool[li] = null;
    segmentPoolBlocks -= s.cap;
    // afterAt[0] is never written (it stays 0); n and sorted are all a run left behind
    s.n = 0;
    s.sorted = true;
    return s;
  }

  /** Keep lane li's segment s for a later run if the pool has room. */
  function releaseSegment(li, s) {
    var old = li < segmentPool.length ? segmentPool[li] : null;
    if (old) segmentPoolBlocks -= old.cap;
    segmentPool[li] = null;
    if (segmentPoolBlocks + s.cap > SEGMENT_POOL_BLOCKS) return;
    while (segmentPool.length <= li) segmentPool.push(null);
    segmentPool[li] = s;
    segmentPoolBlocks += s.cap;
  }

  /**
   * How the last finalized run with lastShape.counts.length lanes filled them, against its
   * capacity estimate: only numbers (no memory is kept), a sizing hint for the next run's lanes.
   */
  var lastShape = null;

  /** Initial capacity of each of nl lanes for an estimate of cap blocks. */
  function laneShares(nl, cap) {
    var out = new Array(nl), li;
    if (lastShape !== null && lastShape.counts.length === nl && lastShape.capacity > 0) {
      // the last run's fill of each lane, scaled to this estimate, with a little room
      var scale = cap / lastShape.capacity;
      for (li = 0; li < nl; li++) out[li] = Math.max(256, Math.ceil(lastShape.counts[li] * scale * 1.05) + 64);
      return out;
    }
    var even = Math.max(256, Math.ceil(cap / Math.max(1, nl)));
    for (li = 0; li < nl; li++) out[li] = even;
    return out;
  }

  /** The per-block columns of a LaneSegment and of the result, in this order. */
  var SEGMENT_COLUMNS = ["kind", "reason", "lines", "operand", "tile", "k", "stage", "start", "end"];

  /** Double a segment's columns (the after list grows on its own). */
  LaneSegment.prototype.grow = function () {
    var cap = this.cap * 2;
    // The properties exist already, so assigning them by name keeps the segment's shape.
    for (var f = 0; f < SEGMENT_COLUMNS.length; f++) this[SEGMENT_COLUMNS[f]] = grown(this[SEGMENT_COLUMNS[f]], cap);
    this.afterAt = grown(this.afterAt, cap + 1);
    this.cap = cap;
  };

  /** A block handle is (index in its lane) << LANE_BITS | lane index; -1 for none. */
  var LANE_BITS = 10, LANE_MASK = (1 << LANE_BITS) - 1, MAX_LANE_BLOCKS = 1 << (31 - LANE_BITS);

  /**
   * Collects blocks as columns (no object per block while the engine runs), one LaneSegment per
   * lane, so finalize() copies each lane's columns out in order instead of permuting. A block is
   * a handle that says where it is (its lane and its index there, LANE_BITS), -1 for none.
   * finalize() returns the columns in id order (docs/simulator.md "Result columns"). withOperand: every
   * block gets an `operand` key (null unless set). capacity: the model's block estimate
   * (presizes the lanes' columns).
   */
  function Timeline(lanes, withOperand, capacity) {
    var cap = Math.max(1024, Math.min(capacity || 0, MAX_BLOCKS));
    if (lanes.length > LANE_MASK + 1) throw new Error("timeline: more than " + (LANE_MASK + 1) + " lanes");
    this.lanes = lanes;
    this.total = 0;
    this.n = 0;
    // Lanes share the estimate evenly to start with, or as the last run with as many lanes
    // filled them (lastShape); a lane that needs more doubles its own columns.
    this.capacity = cap;
    var share = laneShares(lanes.length, cap);
    this.segs = lanes.map(function (lane, li) { return takeSegment(li, share[li]); });
    this.kinds = ["wait"];
    // a null reason (work, not a wait) is code 0; the other reasons are strings
    this.reasons = [null];
    this.linesTable = objectList();
    this.operands = objectList();
    this.withOperand = !!withOperand;
  }

  /**
   * Index of string `value` in a small table of distinct strings from index `from` on (a null
   * before it is never compared), added when new. Strings only at this comparison site, so the
   * scan compares pointers.
   */
  function internString(table, value, from) {
    for (var i = from; i < table.length; i++) if (table[i] === value) return i;
    table.push(value);
    return i;
  }

  /** Index of array `value` (by identity: the refs' shared line lists) in a small table, added when new. */
  function internArray(table, value) {
    for (var i = 0; i < table.length; i++) if (table[i] === value) return i;
    table.push(value);
    return i;
  }

  /** A typed array of the same type with twice the length (or at least min), holding old's values. */
  function grown(old, min) {
    var a = new old.constructor(Math.max(old.length * 2, min));
    a.set(old);
    return a;
  }

  /**
   * Append a block to lane index li; its `after` handles are after[0..nAfter). Returns its
   * handle.
   */
  Timeline.prototype.add = function (li, kind, start, end, tile, k, stage, reason, lines, after, nAfter) {
    var s = this.segs[li], i = s.n;
    if (i === s.cap) {
      if (i === MAX_LANE_BLOCKS) throw new Error("timeline: more than " + MAX_LANE_BLOCKS + " blocks on one lane");
      s.grow();
    }
    if (i > 0 && start < s.start[i - 1]) s.sorted = false;
    s.kind[i] = internString(this.kinds, kind, 0);
    s.reason[i] = reason === null ? 0 : internString(this.reasons, reason, 1);
    s.lines[i] = internArray(this.linesTable, lines);
    s.operand[i] = 0;
    s.tile[i] = intField(tile);
    s.k[i] = intField(k);
    s.stage[i] = intField(stage);
    s.start[i] = start;
    s.end[i] = end;
    var at = s.afterAt[i];
    if (at + nAfter > s.afterList.length) s.afterList = grown(s.afterList, at + nAfter);
    for (var a = 0; a < nAfter; a++) s.afterList[at + a] = after[a];
    s.afterAt[i + 1] = at + nAfter;
    s.n = i + 1;
    this.n++;
    if (end > this.total) this.total = end;
    return (i << LANE_BITS) | li;
  };

  /** The end of block handle h. */
  Timeline.prototype.endOf = function (h) {
    return this.segs[h & LANE_MASK].end[h >> LANE_BITS];
  };

  /** The kind code of block handle h. */
  Timeline.prototype.kindOf = function (h) {
    return this.segs[h & LANE_MASK].kind[h >> LANE_BITS];
  };

  /** The `after` handles of block handle h (a copy; none for -1). */
  Timeline.prototype.afterOf = function (h) {
    if (h < 0) return EMPTY;
    var s = this.segs[h & LANE_MASK], i = h >> LANE_BITS;
    return Array.prototype.slice.call(s.afterList, s.afterAt[i], s.afterAt[i + 1]);
  };

  /** Name the operand (K, V, Vt, Q) of block handle h. */
  Timeline.prototype.setOperand = function (h, operand) {
    this.segs[h & LANE_MASK].operand[h >> LANE_BITS] = operand === null ? 0 : internString(this.operands, operand, 0) + 1;
  };

  /** The operand of block handle h, or null. */
  Timeline.prototype.operandOf = function (h) {
    var code = this.segs[h & LANE_MASK].operand[h >> LANE_BITS];
    return code === 0 ? null : this.operands[code - 1];
  };

  /**
   * Lane order of segment s's blocks: null when they were appended in start order (the
   * identity), else sorted by start (stable). A model appends in start order; this is the
   * defensive path.
   */
  function segmentOrder(s) {
    if (s.sorted) return null;
    var order = [];
    for (var i = 0; i < s.n; i++) order.push(i);
    order.sort(function (a, b) { return s.start[a] - s.start[b] || a - b; });
    return Int32Array.from(order);
  }

  /**
   * The result's block columns (docs/simulator.md "Result columns"), in id order: ids are lane order
   * (lanes as listed), then start order, so lane li's blocks are ids laneStart[li] ..
   * laneStart[li + 1] - 1, sorted by start. Each lane's columns are copied whole (a lane that
   * had to be sorted is gathered); only the `after` handles are renumbered (handle -> id).
   */
  Timeline.prototype.finalize = function () {
    var n = this.n, segs = this.segs, nl = segs.length, li;
    var laneStart = new Int32Array(nl + 1), afterTotal = 0;
    for (li = 0; li < nl; li++) {
      laneStart[li + 1] = laneStart[li] + segs[li].n;
      afterTotal += segs[li].afterAt[segs[li].n];
    }
    // Lanes appended out of start order (none today: the defensive path) are gathered through
    // their sort; rank maps such a lane's handles to positions (handle -> id).
    var orders = objectList(), rank = objectList(), anySorted = false;
    for (li = 0; li < nl; li++) {
      var o = segmentOrder(segs[li]);
      orders.push(o);
      rank.push(o === null ? null : inverse(o));
      if (o !== null) anySorted = true;
    }
    var c = {
      n: n, lanes: this.lanes.map(function (ln) { return ln.id; }), laneStart: laneStart, lane: new Int32Array(n),
      kind: new Int32Array(n), reason: new Int32Array(n), lines: new Int32Array(n), operand: new Int32Array(n),
      tile: new Int32Array(n), k: new Int32Array(n), stage: new Int32Array(n),
      start: new Float64Array(n), end: new Float64Array(n),
      afterAt: new Int32Array(n + 1), afterList: new Int32Array(afterTotal),
      kinds: this.kinds, reasons: this.reasons, linesTable: this.linesTable, operands: this.operands,
      withOperand: this.withOperand
    };
    var at = 0;
    for (li = 0; li < nl; li++) {
      var seg = segs[li], base = laneStart[li], order = orders[li];
      c.lane.fill(li, base, base + seg.n);
      if (order === null) copySegment(c, seg, base);
      else gatherSegment(c, seg, base, order);
      at = anySorted ? renumberAfterSorted(c, seg, base, order, at, laneStart, rank) : renumberAfter(c, seg, base, at, laneStart);
    }
    c.afterAt[n] = at;
    lastShape = { capacity: this.capacity, counts: segs.map(function (seg) { return seg.n; }) };
    // The lanes' blocks are the result's now: their segments go back to the pool.
    for (li = 0; li < nl; li++) releaseSegment(li, segs[li]);
    this.segs = null;
    return c;
  };

  /** The inverse of a permutation (an Int32Array of 0 .. n - 1). */
  function inverse(order) {
    var r = new Int32Array(order.length);
    for (var j = 0; j < order.length; j++) r[order[j]] = j;
    return r;
  }

  /** Copy segment s's columns whole into result columns c from id `base`. */
  function copySegment(c, s, base) {
    var n = s.n;
    c.kind.set(s.kind.subarray(0, n), base);
    c.reason.set(s.reason.subarray(0, n), base);
    c.lines.set(s.lines.subarray(0, n), base);
    c.operand.set(s.operand.subarray(0, n), base);
    c.tile.set(s.tile.subarray(0, n), base);
    c.k.set(s.k.subarray(0, n), base);
    c.stage.set(s.stage.subarray(0, n), base);
    c.start.set(s.start.subarray(0, n), base);
    c.end.set(s.end.subarray(0, n), base);
  }

  /** Copy segment s's columns into c from id `base` in the lane order `order`. */
  function gatherSegment(c, s, base, order) {
    for (var f = 0; f < SEGMENT_COLUMNS.length; f++) {
      var src = s[SEGMENT_COLUMNS[f]], dst = c[SEGMENT_COLUMNS[f]];
      for (var i = 0; i < s.n; i++) dst[base + i] = src[order[i]];
    }
  }

  /** Append segment s's `after` handles to c as ids (every lane in append order); returns the new end. */
  function renumberAfter(c, s, base, at, laneStart) {
    var sAt = s.afterAt, sList = s.afterList, afterAt = c.afterAt, afterList = c.afterList;
    for (var i = 0; i < s.n; i++) {
      afterAt[base + i] = at;
      for (var a = sAt[i], a1 = sAt[i + 1]; a < a1; a++) {
        var h = sList[a];
        afterList[at++] = laneStart[h & LANE_MASK] + (h >> LANE_BITS);
      }
    }
    return at;
  }

  /** renumberAfter when some lane was sorted: blocks in `order` (or append order), handles through rank. */
  function renumberAfterSorted(c, s, base, order, at, laneStart, rank) {
    var sAt = s.afterAt, sList = s.afterList, afterAt = c.afterAt, afterList = c.afterList;
    for (var i = 0; i < s.n; i++) {
      var j = order === null ? i : order[i];
      afterAt[base + i] = at;
      for (var a = sAt[j], a1 = sAt[j + 1]; a < a1; a++) {
        var h = sList[a], hl = h & LANE_MASK, hi = h >> LANE_BITS;
        afterList[at++] = laneStart[hl] + (rank[hl] === null ? hi : rank[hl][hi]);
      }
    }
    return at;
  }

  /** Empty result columns for lane ids laneIds (default none), no blocks. */
  function emptyColumns(laneIds) {
    var tl = new Timeline([], false, 0);
    var c = tl.finalize();
    c.lanes = laneIds || [];
    c.laneStart = new Int32Array(c.lanes.length + 1);
    return c;
  }

  /** A tile / k / stage column value as a block field: the integer, or null. */
  function fieldValue(v) {
    return v === NO_VALUE ? null : v;
  }

  /** A step time as stored in a block: a small integer (Smi) when it is one, so no number box is allocated. */
  function timeValue(t) {
    var i = t | 0;
    return i === t ? i : t;
  }

  /** Block `id` of result columns c as the v1 block object {id, lane, kind, start, end, tile, k, stage, reason, lines, after[, operand]}. */
  function blockAt(c, id) {
    var a0 = c.afterAt[id], a1 = c.afterAt[id + 1], after = EMPTY;
    if (a1 > a0) {
      // Exact length (a pushed [] would reserve 16 slots).
      after = new Array(a1 - a0);
      for (var i = a0; i < a1; i++) after[i - a0] = c.afterList[i];
    }
    var b = { id: id, lane: c.lanes[c.lane[id]], kind: c.kinds[c.kind[id]], start: timeValue(c.start[id]),
      end: timeValue(c.end[id]), tile: fieldValue(c.tile[id]), k: fieldValue(c.k[id]), stage: fieldValue(c.stage[id]),
      reason: c.reasons[c.reason[id]], lines: c.linesTable[c.lines[id]], after: after };
    // With withOperand every block has the key, else only blocks given an operand.
    var op = c.operand[id];
    if (c.withOperand || op !== 0) b.operand = op === 0 ? null : c.operands[op - 1];
    return b;
  }

  /** Every block of columns c as objects, indexed by id. */
  function blocksOf(c) {
    var blocks = new Array(c.n);
    for (var id = 0; id < c.n; id++) blocks[id] = blockAt(c, id);
    return blocks;
  }

  /** laneBlocks of columns c: lane id -> the ids of its blocks in start order. */
  function laneBlocksOf(c) {
    var out = {};
    for (var li = 0; li < c.lanes.length; li++) {
      var ids = new Array(c.laneStart[li + 1] - c.laneStart[li]);
      for (var i = 0; i < ids.length; i++) ids[i] = c.laneStart[li] + i;
      out[c.lanes[li]] = ids;
    }
    return out;
  }

  /**
   * Give result its block columns (a non-enumerable `columns`: JSON and deep equality skip the
   * typed arrays) and the v1 `blocks` and `laneBlocks` as enumerable getters that build the
   * objects once, on first read (tests, JSON dumps and exports read them; the page draws from
   * the columns and builds single blocks with blockAt). Returns result.
   */
  function attachColumns(result, columns) {
    Object.defineProperty(result, "columns", { value: columns, enumerable: false, configurable: true, writable: true });
    lazyProperty(result, "blocks", function () { return blocksOf(columns); });
    lazyProperty(result, "laneBlocks", function () { return laneBlocksOf(columns); });
    return result;
  }

  /** An enumerable getter on obj that builds its value once, on first read. */
  function lazyProperty(obj, name, build) {
    var cache = null;
    Object.defineProperty(obj, name, {
      enumerable: true,
      configurable: true,
      get: function () {
        if (cache === null) cache = build();
        return cache;
      },
      set: function (value) {
        Object.defineProperty(obj, name, { value: value, enumerable: true, configurable: true, writable: true });
      }
    });
  }

  return {
    MAX_BLOCKS: MAX_BLOCKS,
    EMPTY: EMPTY,
    KIND_WAIT: KIND_WAIT,
    objectList: objectList,
    grown: grown,
    Timeline: Timeline,
    emptyColumns: emptyColumns,
    blockAt: blockAt,
    blocksOf: blocksOf,
    attachColumns: attachColumns,
    lazyProperty: lazyProperty
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelTimeline;
