/* Waveform page part: block objects from the columns, lane rows and groups, vertical scrolling, the lane
 * panel, the view (fit, clamp, zoom, pan) and following a k-tile.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveLayout = (function () {
  "use strict";
  var BLOCK_CACHE_MAX = KVWaveConst.BLOCK_CACHE_MAX, FILL_KEYS = KVWaveConst.FILL_KEYS,
      LANE_HEIGHT_PX = KVWaveConst.LANE_HEIGHT_PX, MAX_SPAN_FACTOR = KVWaveConst.MAX_SPAN_FACTOR,
      MIN_SPAN_STEPS = KVWaveConst.MIN_SPAN_STEPS, RULER_HEIGHT_PX = KVWaveConst.RULER_HEIGHT_PX,
      SUB_LANE_HEIGHT_PX = KVWaveConst.SUB_LANE_HEIGHT_PX, buildFillSummary = KVWaveIndex.buildFillSummary,
      emptyLaneIndex = KVWaveIndex.emptyLaneIndex, groupRows = KVWaveIndex.groupRows,
      upperBound = KVWaveIndex.upperBound, chainIds = KVWaveKinds.chainIds,
      chainRank = KVWaveKinds.chainRank, kindName = KVWaveKinds.kindName,
      viewHolder = KVWaveKinds.viewHolder;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, box = P.box, canvas = P.canvas, state = P.state;
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
        var entry = viewHolder.current && viewHolder.current.legendByKind ? viewHolder.current.legendByKind[kind] : null;
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
      P.refreshPointer();
      P.requestDraw();
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
      P.requestDraw();
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
        return !filter || (P.laneName(lane) + " " + lane.id).toLowerCase().indexOf(filter) >= 0;
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
        var label = KVCommon.html("label", null, P.laneName(lane), li);
        label.htmlFor = box.id;
        box.addEventListener("change", function () {
          if (box.checked) state.hiddenLanes.delete(lane.id); else state.hiddenLanes.add(lane.id);
          relayout();
        });
        [["\u2191", -1, "up"], ["\u2193", 1, "down"]].forEach(function (spec) {
          var btn = KVCommon.html("button", null, spec[0], li);
          btn.type = "button";
          btn.title = "Move " + P.laneName(lane) + " " + spec[2];
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
    function relayout() { applyLanes(); P.requestDraw(); }
    document.getElementById("lane-filter").addEventListener("input", function (ev) {
      state.laneFilter = String(ev.target.value || "");
      relayout();
    });
    document.getElementById("lane-filter").addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" || ev.key === "Enter") { ev.preventDefault(); canvas.focus({preventScroll: true}); }
    });

    function isSubLane(lane) {
      return !!(viewHolder.current && viewHolder.current.subLaneGroups && viewHolder.current.subLaneGroups.indexOf(lane.group) >= 0);
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
      P.requestDraw();
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
      P.requestDraw();
    }
    function clearFollow() {
      state.follow = null;
      state.highlighted = new Set();
      state.highlightedSorted = [];
      renderChainInfo();
      P.requestDraw();
    }

    function renderChainInfo() {
      var el = document.getElementById("chain-info");
      var unit = viewHolder.current && viewHolder.current.unit ? viewHolder.current.unit : "k-tile";
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

    P.fillSummaryOf = fillSummaryOf;
    P.blockById = blockById;
    P.isLive = isLive;
    P.afterIds = afterIds;
    P.scrollRows = scrollRows;
    P.scrollLanes = scrollLanes;
    P.lanesOverflow = lanesOverflow;
    P.scrollRowIntoView = scrollRowIntoView;
    P.toggleGroup = toggleGroup;
    P.toggleGroupKey = toggleGroupKey;
    P.rowAt = rowAt;
    P.applyLanes = applyLanes;
    P.renderLaneList = renderLaneList;
    P.relayout = relayout;
    P.isSubLane = isSubLane;
    P.total = total;
    P.fitView = fitView;
    P.clampView = clampView;
    P.setView = setView;
    P.zoomBy = zoomBy;
    P.panBy = panBy;
    P.applyFollow = applyFollow;
    P.follow = follow;
    P.clearFollow = clearFollow;
    P.renderChainInfo = renderChainInfo;
  }

  return {install: install};
})();
