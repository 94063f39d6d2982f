/* Waveform page part: reading a schedule: range statistics, search and jump, a pinned run compared with
 * the live one, source lines as links.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveReading = (function () {
  "use strict";
  var GHOST_ALPHA = KVWaveConst.GHOST_ALPHA, MIN_BLOCK_WIDTH_PX = KVWaveConst.MIN_BLOCK_WIDTH_PX,
      PLOT_PAD_PX = KVWaveConst.PLOT_PAD_PX, RANGE_BAND_ALPHA = KVWaveConst.RANGE_BAND_ALPHA,
      RULER_HEIGHT_PX = KVWaveConst.RULER_HEIGHT_PX, SEARCH_THIN_PX = KVWaveConst.SEARCH_THIN_PX,
      SEPARATE_MIN_WIDTH_PX = KVWaveConst.SEPARATE_MIN_WIDTH_PX,
      WORKER_MIN_BLOCKS = KVWaveConst.WORKER_MIN_BLOCKS, laneIndexOf = KVWaveIndex.laneIndexOf,
      lowerBoundIn = KVWaveIndex.lowerBoundIn, visibleRange = KVWaveIndex.visibleRange,
      kindName = KVWaveKinds.kindName, viewHolder = KVWaveKinds.viewHolder,
      unpackResult = KVWaveResult.unpackResult, parseQuery = KVWaveStats.parseQuery,
      rangeStats = KVWaveStats.rangeStats, searchBlocks = KVWaveStats.searchBlocks,
      sourceHref = KVWaveStats.sourceHref, stepMatch = KVWaveStats.stepMatch,
      verdictDelta = KVWaveStats.verdictDelta, formatPin = KVWaveView.formatPin,
      hashValue = KVWaveView.hashValue, parsePin = KVWaveView.parsePin;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, box = P.box, canvas = P.canvas, ctx = P.ctx, hashKeys = P.hashKeys, model = P.model,
        parsed = P.parsed, state = P.state;
    // -- reading a schedule (issue 23): range statistics (markers A-B, Shift+drag), search and
    // jump, a pinned run compared with the live one (verdict deltas, a ghost under the lanes),
    // source lines as links. Every figure reads the columns and lane indexes, never block objects.
    state.search = {text: "", query: null, ids: new Int32Array(0), perLane: {}, pos: -1};
    state.pinned = null;
    var searchBox = document.getElementById("search"), searchCount = document.getElementById("search-count");
    var lastRangeKey = null, pinWorker = null, pinRunId = 0;
    P.rangeText = "";

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
      if (P.press && P.press.area) return;
      var key = [a, b, state.lanes, r];
      if (lastRangeKey && key.every(function (x, i) { return x === lastRangeKey[i]; })) return;
      lastRangeKey = key;
      var body = document.getElementById("range-body");
      body.textContent = "";
      body.removeAttribute("data-t0");
      body.removeAttribute("data-t1");
      P.rangeText = "";
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
      var util = "Tensor core busy " + st.tensorBusy + " of " + st.span + " steps (" + P.pct(st.tensorUtil) + ")";
      KVCommon.html("p", null, util, body).setAttribute("data-tensor-busy", String(st.tensorBusy));
      text.push(util);
      var byId = {};
      st.lanes.forEach(function (row) { byId[row.lane] = row; });
      var order = viewHolder.current && viewHolder.current.waitReasons ? viewHolder.current.waitReasons.map(function (w) { return w.reason; }) : [];
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
        var cells = [P.laneName(lane), row.busy + " (" + P.pct(st.span > 0 ? row.busy / st.span : null) + ")",
          row.wait ? row.wait + (reasons.length ? ": " + reasons.join(", ") : "") : "\u2013", kinds.join(", ") || "\u2013"];
        cells.forEach(function (cell, i) { KVCommon.html("td", i === 1 ? "kv-num" : null, cell, tr); });
        text.push(cells.join("  |  "));
      });
      P.rangeText = text.join("\n");
      document.getElementById("btn-copy-details").disabled = false;
    }

    /** A translucent band between markers A and B (the range the statistics cover). */
    function drawRangeBand(scale, heightCss) {
      if (state.markerA === null || state.markerB === null || state.markerA === state.markerB) return;
      var x0 = Math.max(scale.xPx(Math.min(state.markerA, state.markerB)), state.gutterPx);
      var x1 = Math.min(scale.xPx(Math.max(state.markerA, state.markerB)), scale.x1Px + PLOT_PAD_PX);
      if (x1 <= x0) return;
      ctx.globalAlpha = RANGE_BAND_ALPHA;
      ctx.fillStyle = P.colours["marker-b"];
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
        lanes: state.allLanes.map(function (l) { return {id: l.id, label: P.laneName(l)}; }),
        unit: viewHolder.current && viewHolder.current.unit ? viewHolder.current.unit : "k-tile"
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
      P.requestDraw();
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
      var b = P.blockById(s.ids[s.pos]);
      state.pointer = null;
      P.hideTooltip();
      P.selectAndShow(b);
      state.cursor = b.start;
      renderSearchCount();
      P.requestDraw();
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
        var box = P.blockY(row);
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
      ctx.strokeStyle = P.colours.cursor;
      ctx.fillStyle = P.colours.cursor;
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
              text: formatPin(knobs, simulatedKnobs(P.baseKnobs(knobs.model)), hashKeys)};
    }
    /** p: pin the run on screen (replacing an earlier pin). */
    function pinRun() {
      var r = state.result;
      if (P.noFit || !r || r.error || !r.columns) return;
      pinRunId++;
      state.pinned = makePinned(P.simKnobs(), r);
      P.renderVerdict();
      P.requestDraw();
    }
    /** Shift+P: forget the pinned run. */
    function unpinRun() {
      if (!state.pinned) return;
      pinRunId++;
      state.pinned = null;
      P.renderVerdict();
      P.requestDraw();
    }
    /** The hash's pin= value: the pinned run is simulated again (in a Worker when large), then compared. */
    function restorePin(text) {
      pinRunId++;
      if (text === null || text === undefined || P.noFit) { if (state.pinned) { state.pinned = null; P.renderVerdict(); } return; }
      var p = parsePin(text, hashKeys, P.rangeOf, state.knobs.model);
      state.hashMessages = state.hashMessages.concat(p.messages);
      var knobs = simulatedKnobs(Object.assign(P.baseKnobs(p.model), p.knobs)), id = pinRunId;
      var estimate = 0;
      try { estimate = KS.estimateBlockCount(knobs, parsed); } catch (e) { estimate = 0; }
      var take = function (result) {
        if (id !== pinRunId) return;  // pinned again, or unpinned, meanwhile
        state.pinned = makePinned(knobs, result);
        P.renderVerdict();
        P.requestDraw();
      };
      if (estimate >= WORKER_MIN_BLOCKS && estimate <= KS.MAX_BLOCKS) {
        pinWorker = pinWorker || P.newWorker(function (ev) { if (ev.data.id === pinRunId) take(unpackResult(ev.data.packed)); },
          function (ev) { pinWorker = null; take({error: "the pinned run failed: " + (ev.message || "unknown error")}); });
        if (pinWorker) {
          state.pinned = {knobs: knobs, result: null, columns: null, perLane: {}, pending: true, text: formatPin(knobs, simulatedKnobs(P.baseKnobs(knobs.model)), hashKeys)};
          P.postRun(pinWorker, {id: id, knobs: knobs});
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
      var diff = knobDiffText(p.knobs, P.simKnobs());
      KVCommon.html("p", "kv-compare-head", "Against the pinned run" + (diff.length ? " (" + diff.join(", ") + ")" : " (same settings)") +
        "; the ghost under the lanes is the pinned schedule", box);
      var rp = p.result, v = state.result && state.result.verdict;
      if (p.pending) { KVCommon.html("p", "kv-muted", "The pinned run is simulating in the background\u2026", box); return; }
      if (!rp || rp.error || !rp.verdict) { KVCommon.html("p", "kv-danger", "The pinned run has no verdict" + (rp && rp.error ? ": " + rp.error : "."), box); return; }
      if (rp.deadlock) { KVCommon.html("p", "kv-danger", "The pinned run deadlocks after step " + rp.deadlock.step + ".", box); return; }
      if (!v) return;
      var order = viewHolder.current && viewHolder.current.waitReasons ? viewHolder.current.waitReasons.map(function (w) { return w.reason; }) : [];
      var d = verdictDelta(rp.verdict, v, order);
      box.setAttribute("data-delta-total", String(d.total[1] - d.total[0]));
      KVCommon.html("p", "kv-big", "\u0394 total: " + deltaText(d.total[1] - d.total[0]) + " steps (" + d.total[0] + " \u2192 " + d.total[1] + ")", box);
      var ul = KVCommon.html("ul", null, null, box);
      d.lanes.forEach(function (ln) {
        var li = KVCommon.html("li", null, P.laneLabel(ln.lane) + " bubbles " + deltaText(ln.live - ln.pinned) + " (" + ln.pinned + " \u2192 " + ln.live + ")" +
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
      ctx.fillStyle = P.colours.fg;
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

    P.searchBox = searchBox;
    P.refreshReading = refreshReading;
    P.indexesByLane = indexesByLane;
    P.renderRange = renderRange;
    P.drawRangeBand = drawRangeBand;
    P.runSearch = runSearch;
    P.jumpMatch = jumpMatch;
    P.drawSearchHits = drawSearchHits;
    P.focusSearch = focusSearch;
    P.pinRun = pinRun;
    P.unpinRun = unpinRun;
    P.restorePin = restorePin;
    P.renderCompare = renderCompare;
    P.drawGhost = drawGhost;
    P.linkSources = linkSources;
  }

  return {install: install};
})();
