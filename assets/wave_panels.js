/* Waveform page part: selection and the details panel, the barrier panel, markers, keyboard block selection.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWavePanels = (function () {
  "use strict";
  var SNAP_PX = KVWaveConst.SNAP_PX, laneEdge = KVWaveIndex.laneEdge, upperBound = KVWaveIndex.upperBound,
      visibleRange = KVWaveIndex.visibleRange, kindDoc = KVWaveKinds.kindDoc,
      reasonDoc = KVWaveKinds.reasonDoc, tileText = KVWaveKinds.tileText,
      viewHolder = KVWaveKinds.viewHolder, barrierEventStep = KVWaveResult.barrierEventStep,
      barrierStateAt = KVWaveResult.barrierStateAt, codePathLines = KVWaveResult.codePathLines;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var canvas = P.canvas, state = P.state;
    // -- selection and the details panel
    function select(b) {
      state.selected = b || null;
      renderDetails();
      P.requestDraw();
    }
    /** Select a block and bring it into view (keyboard selection, dependency links). */
    function selectAndShow(b) {
      if (!b) return;
      select(b);
      var v = state.view, span = v.t1Step - v.t0Step;
      if (b.end < v.t0Step || b.start > v.t1Step) P.setView((b.start + b.end) / 2 - span / 2, (b.start + b.end) / 2 + span / 2);
      if (state.laneRow[b.lane] !== undefined) P.scrollRowIntoView(state.laneRow[b.lane]);
      if (!state.pointer) state.cursor = b.start;
      P.requestDraw();
    }
    function blockLine(b) {
      var ok = tileText(b);
      return P.blockName(b) + (ok ? " " + ok : "") + " [" + P.laneLabel(b.lane) + "] " + b.start + "\u2013" + b.end;
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
      KVCommon.html("h2", null, P.blockName(b) + (ok ? " " + ok : ""), body);
      text.push(P.blockName(b) + (ok ? " " + ok : ""));
      if (kindDoc(b.kind)) { KVCommon.html("p", "kv-muted", kindDoc(b.kind), body); }
      var dl = KVCommon.html("dl", null, null, body);
      function fact(name, value) {
        KVCommon.html("dt", null, name, dl);
        var dd = KVCommon.html("dd", null, value, dl);
        text.push(name + ": " + value);
        return dd;
      }
      fact("lane", P.laneLabel(b.lane));
      if (b.operand) fact("operand", b.operand);
      if (b.tile !== null && b.tile !== undefined) fact("output tile", String(b.tile));
      if (b.k !== null && b.k !== undefined) fact(viewHolder.current && viewHolder.current.unit ? viewHolder.current.unit : "k-tile", String(b.k));
      if (b.stage !== null && b.stage !== undefined) fact("stage", String(b.stage));
      fact("steps", b.start + "\u2013" + b.end + " (" + (b.end - b.start) + " step" + (b.end - b.start === 1 ? "" : "s") + ")");
      if (b.kind === "wait") fact("wait reason", (b.reason || "?") + (reasonDoc(b.reason) ? ": " + reasonDoc(b.reason) : ""));
      function links(name, ids) {
        var blocks = ids.map(P.blockById).filter(Boolean);
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
      links("waited for", P.afterIds(b.id));
      links("waited on by", P.dependentsOf(b.id));
      var chosen = codePathLines(b, state.knobs.kPipeMmas);
      var refs = chosen.lines.filter(function (l, i, all) {
        // One statement can be two ops (consumer_try_wait + consumer_wait): show it once.
        for (var j = 0; j < i; j++) if (all[j].line === l.line && all[j].path === l.path) return false;
        return true;
      });
      KVCommon.html("h3", null, "Source" + (chosen.path ? " (" + chosen.path + ", chosen from " +
        (viewHolder.current && viewHolder.current.unit ? viewHolder.current.unit : "k-tile") + " " + b.k + " and K_PIPE_MMAS)" : ""), body);
      if (refs.length) {
        P.linkSources(KVCommon.sourceList(body, refs.map(function (l) { return {path: l.path, line: l.line, end_line: l.end_line, text: l.text, op: l.op}; })), refs);
        text.push((chosen.path ? "source (" + chosen.path + "):\n" : "source:\n") + KVCommon.sourceText(refs));
      } else {
        KVCommon.html("p", "kv-muted", "no parsed source line for this step", body);
        text.push("source: none parsed");
      }
      detailsText = text.join("\n");
    }
    document.getElementById("btn-copy-details").addEventListener("click", function () {
      var all = [detailsText, P.rangeText].filter(Boolean).join("\n\n");
      if (all) KVCommon.copyText(all);
    });

    // -- barrier state at the cursor
    P.lastBarrierStep = undefined;
    P.lastBarrierResult = null;
    function renderBarriers() {
      P.lastBarrierStep = state.cursor;
      P.lastBarrierResult = state.result;
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
        KVCommon.html("td", null, unknown ? "?" : s.waiters.map(function (w) { return P.laneLabel(w.lane) + " (" + w.parity + ")"; }).join(", ") || "\u2013", tr);
        var ln = s.barrier.lines || {};
        KVCommon.html("td", "kv-num", "wait " + ((ln.wait || []).join(", ") || "\u2013") + "; arrive " + ((ln.arrive || []).join(", ") || "\u2013"), tr);
      });
    }
    function stepBarrierEvent(dir) {
      var from = state.cursor !== null ? state.cursor : (dir > 0 ? -1 : Infinity);
      var t = barrierEventStep(state.result, from, dir);
      if (t === null) return;
      state.pointer = null;
      P.hideTooltip();
      state.cursor = t;
      keepInView(t);
      P.requestDraw();
    }
    document.getElementById("btn-bar-prev").addEventListener("click", function () { stepBarrierEvent(-1); });
    document.getElementById("btn-bar-next").addEventListener("click", function () { stepBarrierEvent(1); });
    function keepInView(t) {
      var v = state.view;
      if (t < v.t0Step || t > v.t1Step) { var span = v.t1Step - v.t0Step; P.setView(t - span / 2, t + span / 2); }
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
      P.requestDraw();
    }
    function clearMarkers() { state.markerA = null; state.markerB = null; P.requestDraw(); }
    function zoomToMarkers() {
      if (state.markerA === null || state.markerB === null || state.markerA === state.markerB) return;
      P.setView(Math.min(state.markerA, state.markerB), Math.max(state.markerA, state.markerB));
    }
    /** Escape (after overlays): close the export menu, else clear the selection (selected block and followed chain). Never the markers. */
    function escape() {
      if (P.closeMenu()) return;
      select(null);
      P.clearFollow();
      P.hideTooltip();
    }
    /** f: fit the selected block (with its dependencies) or the followed chain; else the whole schedule. */
    function fitSelection() {
      var ids = [];
      if (P.isLive(state.selected)) ids = [state.selected.id].concat(P.afterIds(state.selected.id), P.dependentsOf(state.selected.id));
      else ids = state.highlightedSorted.slice();
      var lo = Infinity, hi = -Infinity, c = state.columns;
      ids.forEach(function (id) { if (id >= 0 && id < c.n) { lo = Math.min(lo, c.start[id]); hi = Math.max(hi, c.end[id]); } });
      if (!(hi > lo)) { P.fitView(); P.requestDraw(); return; }
      var pad = (hi - lo) * 0.05 + 1;
      P.setView(lo - pad, hi + pad);
    }

    // -- keyboard block selection
    function selectedRow() {
      var b = state.selected;
      return P.isLive(b) && state.laneRow[b.lane] !== undefined ? state.laneRow[b.lane] : -1;
    }
    function firstVisibleBlock() {
      for (var row = 0; row < state.laneIndex.length; row++) {
        var index = state.laneIndex[row], range = visibleRange(index, state.view.t0Step, state.view.t1Step);
        if (range[1] > range[0]) return P.blockById(index.lo + range[0]);
      }
      return null;
    }
    /** The neighbour of the selected block on its lane (dir +1 / -1). */
    function laneNeighbour(dir) {
      var row = selectedRow();
      if (row < 0) return firstVisibleBlock();
      var index = state.laneIndex[row], i = state.selected.id - index.lo + dir;
      return i >= 0 && i < index.n ? P.blockById(index.lo + i) : null;
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
        return P.blockById(index.lo + i);
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
      P.hideTooltip();
      state.cursor = best;
      keepInView(best);
      P.requestDraw();
    }
    function keySelect(b) { if (b) { state.pointer = null; P.hideTooltip(); selectAndShow(b); state.cursor = b.start; } }
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

    P.select = select;
    P.selectAndShow = selectAndShow;
    P.renderDetails = renderDetails;
    P.renderBarriers = renderBarriers;
    P.stepBarrierEvent = stepBarrierEvent;
    P.keepInView = keepInView;
    P.snapStep = snapStep;
    P.placeMarker = placeMarker;
    P.clearMarkers = clearMarkers;
    P.zoomToMarkers = zoomToMarkers;
    P.escape = escape;
    P.fitSelection = fitSelection;
    P.laneNeighbour = laneNeighbour;
    P.crossLane = crossLane;
    P.laneEvent = laneEvent;
    P.keySelect = keySelect;
  }

  return {install: install};
})();
