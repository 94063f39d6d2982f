/* Waveform page: the per-lane culling index over the result columns, the level-of-detail fill summary,
 * dependents, lane groups and the overview strip's summary.
 * Pure and DOM-free: a global KVWaveIndex in the page, module.exports in Node. ASCII only.
 */
var KVWaveIndex = (function (KVWaveConst) {
  "use strict";
  var NO_INT = KVWaveConst.NO_INT;

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

  /**
   * The culling index of a set of block ids from any lanes (the critical path: result.criticalPath.blocks),
   * in the shape visibleRange reads: ids sorted by start (ties: the lower id), their starts, ends
   * and the running maximum of ends, so visibleRange(index, t0, t1) gives the positions of every
   * id that may touch the window and never drops a visible one. Ids outside the columns are dropped.
   */
  function pathIndexOf(c, ids) {
    var kept = [];
    for (var k = 0; k < (ids ? ids.length : 0); k++) if (ids[k] >= 0 && ids[k] < c.n) kept.push(ids[k]);
    kept.sort(function (a, b) { return (c.start[a] - c.start[b]) || (a - b); });
    var n = kept.length, out = {n: n, ids: new Int32Array(kept), starts: new Float64Array(n), ends: new Float64Array(n), maxEnds: new Float64Array(n)};
    var running = -Infinity;
    for (var i = 0; i < n; i++) {
      out.starts[i] = c.start[kept[i]];
      out.ends[i] = c.end[kept[i]];
      running = Math.max(running, out.ends[i]);
      out.maxEnds[i] = running;
    }
    return out;
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

  return {laneIndexOf: laneIndexOf, emptyLaneIndex: emptyLaneIndex, pathIndexOf: pathIndexOf, LOD_SHIFT: LOD_SHIFT, LOD_GROUP: LOD_GROUP, LOD_MASK: LOD_MASK, buildFillSummary: buildFillSummary, fillMaskIn: fillMaskIn, dependentsOfColumns: dependentsOfColumns, laneEdge: laneEdge, upperBound: upperBound, lowerBoundIn: lowerBoundIn, visibleRange: visibleRange, GROUP_NAMES: GROUP_NAMES, RE_GROUP_KEY: RE_GROUP_KEY, groupKeyOf: groupKeyOf, groupName: groupName, groupRows: groupRows, overviewSummary: overviewSummary};
})(typeof KVWaveConst !== "undefined" ? KVWaveConst : require("./wave_const.js"));
if (typeof module !== "undefined" && module.exports) module.exports = KVWaveIndex;
