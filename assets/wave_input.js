/* Waveform page part: hit testing, the tooltip, the mouse and wheel on the timeline and the overview strip.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveInput = (function () {
  "use strict";
  var DRAG_THRESHOLD_PX = KVWaveConst.DRAG_THRESHOLD_PX, GROUP_TOGGLE_PX = KVWaveConst.GROUP_TOGGLE_PX,
      GUTTER_PAD_PX = KVWaveConst.GUTTER_PAD_PX, HIT_SLOP_PX = KVWaveConst.HIT_SLOP_PX,
      WHEEL_LINE_PX = KVWaveConst.WHEEL_LINE_PX, WHEEL_ZOOM_PER_PX = KVWaveConst.WHEEL_ZOOM_PER_PX,
      visibleRange = KVWaveIndex.visibleRange, kindName = KVWaveKinds.kindName,
      tileText = KVWaveKinds.tileText;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var canvas = P.canvas, overviewCanvas = P.overviewCanvas, state = P.state, tooltip = P.tooltip;
    // -- hit testing
    function canvasPoint(ev) {
      var rect = canvas.getBoundingClientRect();
      return {x: ev.clientX - rect.left, y: ev.clientY - rect.top};
    }

    /** Blocks under canvas CSS point (x, y): the ones containing that time, else the nearest within HIT_SLOP_PX. */
    function blocksAt(x, y) {
      var scale = state.scale;
      if (!scale || x < state.gutterPx) return [];
      var row = P.rowAt(y);
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
      return (inside.length ? inside : (best >= 0 ? [best] : [])).map(P.blockById);
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
      for (var i = 0; i < state.allLanes.length; i++) if (state.allLanes[i].id === id) return P.laneName(state.allLanes[i]);
      return String(id);
    }
    function hideTooltip() { tooltip.hidden = true; tooltip.removeAttribute("data-block"); }

    /**
     * Re-aim cursor, hover and tooltip at the pointer after the view moved under it (keys, wheel,
     * a redraw): what they describe is always what is under the pointer now.
     */
    function refreshPointer() {
      var p = state.pointer;
      if (!p || P.press) return;
      var rect = canvas.getBoundingClientRect();
      var x = p.clientX - rect.left, y = p.clientY - rect.top;
      if (x < 0 || y < 0 || x > rect.width || y > rect.height) { state.hover = null; hideTooltip(); return; }
      if (state.scale && x >= state.gutterPx) state.cursor = Math.round(state.scale.tStep(x));
      var hit = blocksAt(x, y)[0] || null;
      state.hover = hit;
      if (hit) showTooltip(hit, p.clientX, p.clientY); else hideTooltip();
    }

    // -- mouse: hover/cursor, drag to pan, click to select and follow, wheel to pan or zoom
    P.press = null;
    canvas.addEventListener("pointerdown", function (ev) {
      if (ev.button !== 0) return;
      P.press = {x: ev.clientX, view: {t0Step: state.view.t0Step, t1Step: state.view.t1Step}, dragging: false};
      // Shift+drag selects a range (markers A and B, as Perfetto's area selection); a plain drag pans.
      var at = canvasPoint(ev);
      if (ev.shiftKey && state.scale && at.x >= state.gutterPx) P.press.area = {fromStep: state.scale.tStep(at.x)};
      try { canvas.setPointerCapture(ev.pointerId); } catch (e) { /* synthetic events have no capture */ }
    });
    canvas.addEventListener("pointermove", function (ev) {
      state.pointer = {clientX: ev.clientX, clientY: ev.clientY};
      if (P.press) {
        var dx = ev.clientX - P.press.x;
        if (!P.press.dragging && Math.abs(dx) >= DRAG_THRESHOLD_PX) { P.press.dragging = true; canvas.classList.add("kv-dragging"); hideTooltip(); }
        if (P.press.dragging && state.scale && P.press.area) {
          state.markerA = Math.max(0, Math.round(P.press.area.fromStep));
          state.markerB = Math.max(0, Math.round(state.scale.tStep(canvasPoint(ev).x)));
          P.requestDraw();
          return;
        }
        if (P.press.dragging && state.scale) {
          var dSteps = dx / state.scale.pxPerStep;
          P.setView(P.press.view.t0Step - dSteps, P.press.view.t1Step - dSteps);
          return;
        }
      }
      refreshPointer();
      P.requestDraw();
    });
    canvas.addEventListener("pointerup", function (ev) {
      var wasPress = P.press;
      P.press = null;
      canvas.classList.remove("kv-dragging");
      if (wasPress && wasPress.area && wasPress.dragging) {
        // The range ends snap to a block edge within SNAP_PX, as the marker keys do.
        state.markerA = P.snapStep(state.markerA);
        state.markerB = P.snapStep(state.markerB);
        canvas.focus({preventScroll: true});
        P.requestDraw();
        return;
      }
      if (!wasPress || wasPress.dragging) return;
      var pt = canvasPoint(ev);
      if (pt.x < state.gutterPx) {
        // The gutter: a group's triangle (or anywhere on a folded group's row) folds / unfolds it.
        var gRow = P.rowAt(pt.y);
        if (gRow >= 0 && state.rowHead[gRow] && (state.rowMembers[gRow] || pt.x < GUTTER_PAD_PX + GROUP_TOGGLE_PX)) {
          P.toggleGroup(state.rowHead[gRow]);
          canvas.focus({preventScroll: true});
          return;
        }
      }
      if (state.scale && pt.x >= state.gutterPx) state.cursor = Math.round(state.scale.tStep(pt.x));
      var hit = blocksAt(pt.x, pt.y)[0];
      if (hit) { P.select(hit); P.follow(hit); } else { P.select(null); P.clearFollow(); }
      canvas.focus({preventScroll: true});
    });
    canvas.addEventListener("pointercancel", function () { P.press = null; canvas.classList.remove("kv-dragging"); });
    canvas.addEventListener("pointerleave", function () { state.pointer = null; if (!P.press) { state.hover = null; hideTooltip(); P.requestDraw(); } });
    canvas.addEventListener("wheel", function (ev) {
      if (!state.scale) return;
      ev.preventDefault();
      state.pointer = {clientX: ev.clientX, clientY: ev.clientY};
      var unit = ev.deltaMode === 1 ? WHEEL_LINE_PX : (ev.deltaMode === 2 ? canvas.clientWidth : 1);
      var dy = ev.deltaY * unit, dx = ev.deltaX * unit;
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        P.zoomBy(Math.exp(dy * WHEEL_ZOOM_PER_PX), state.scale.tStep(canvasPoint(ev).x));
        return;
      }
      // More lanes than fit: the plain (vertical) wheel scrolls them, as in Perfetto; at either
      // end it is left to the page (which then scrolls, as nested scroll areas do). Shift+wheel
      // and horizontal wheels pan in time; with every lane on screen the plain wheel pans too
      // (the GTKWave habit the page had before lanes could scroll).
      if (!ev.shiftKey && Math.abs(dy) >= Math.abs(dx) && P.lanesOverflow()) {
        if (P.scrollLanes(dy)) ev.preventDefault();
        return;
      }
      ev.preventDefault();
      var px = Math.abs(dx) > Math.abs(dy) ? dx : dy;
      P.panBy(px / state.scale.pxPerStep);
    }, {passive: false});
    // The sticky ruler is drawn where the window's top edge crosses the canvas: redraw on scroll.
    window.addEventListener("scroll", function () { P.requestDraw(); }, {passive: true});

    // -- the overview strip: a press centres the view there (span kept), a drag moves it; a press
    // inside the window drags the window by the point pressed (Perfetto's overview, GTKWave's
    // horizontal scrollbar).
    var overviewPress = null;
    function overviewStep(ev) {
      var w = state.overviewWindow, rect = overviewCanvas.getBoundingClientRect();
      if (!w) return null;
      var x = ev.clientX - rect.left;
      return Math.max(0, Math.min(1, (x - w.plotX0) / Math.max(1, w.plotX1 - w.plotX0))) * P.total();
    }
    if (overviewCanvas) {
      overviewCanvas.addEventListener("pointerdown", function (ev) {
        if (ev.button !== 0) return;
        var t = overviewStep(ev);
        if (t === null) return;
        ev.preventDefault();
        var v = state.view, span = v.t1Step - v.t0Step;
        overviewPress = {offset: t >= v.t0Step && t <= v.t1Step ? t - v.t0Step : span / 2, span: span};
        P.setView(t - overviewPress.offset, t - overviewPress.offset + span);
        try { overviewCanvas.setPointerCapture(ev.pointerId); } catch (e) { /* synthetic events have no capture */ }
      });
      overviewCanvas.addEventListener("pointermove", function (ev) {
        if (!overviewPress) return;
        var t = overviewStep(ev);
        if (t !== null) P.setView(t - overviewPress.offset, t - overviewPress.offset + overviewPress.span);
      });
      var endOverview = function () { overviewPress = null; };
      overviewCanvas.addEventListener("pointerup", endOverview);
      overviewCanvas.addEventListener("pointercancel", endOverview);
    }

    P.blocksAt = blocksAt;
    P.blockName = blockName;
    P.laneLabel = laneLabel;
    P.hideTooltip = hideTooltip;
    P.refreshPointer = refreshPointer;
  }

  return {install: install};
})();
