/* Waveform page part: buttons and keyboard (one key map, shared with the help overlay: KVCommon.installKeys).
 * Installed last: its key map names functions of every other part.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveKeys = (function () {
  "use strict";
  var PAN_FRACTION = KVWaveConst.PAN_FRACTION, PAN_FRACTION_BIG = KVWaveConst.PAN_FRACTION_BIG,
      ZOOM_STEP = KVWaveConst.ZOOM_STEP;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var state = P.state;
    // -- buttons and keyboard (one key map, shared with the help overlay: KVCommon.installKeys)
    function moveCursor(d) {
      var t = state.cursor !== null ? state.cursor : Math.round(state.view.t0Step);
      state.pointer = null;
      P.hideTooltip();
      state.cursor = Math.max(0, t + d);
      P.keepInView(state.cursor);
      P.requestDraw();
    }
    /** Zoom around the cursor when it is on screen (speedscope/Perfetto: around the mouse), else the centre. */
    function zoomKey(factor) {
      var c = state.cursor, v = state.view;
      P.zoomBy(factor, c !== null && c >= v.t0Step && c <= v.t1Step ? c : undefined);
    }
    function pan(dir, big) { var span = state.view.t1Step - state.view.t0Step; P.panBy(dir * span * (big ? PAN_FRACTION_BIG : PAN_FRACTION)); }
    document.getElementById("btn-zoom-in").addEventListener("click", function () { P.zoomBy(1 / ZOOM_STEP); });
    document.getElementById("btn-zoom-out").addEventListener("click", function () { P.zoomBy(ZOOM_STEP); });
    document.getElementById("btn-fit").addEventListener("click", function () { P.fitView(); P.requestDraw(); });
    document.getElementById("btn-marker-a").addEventListener("click", function () { P.placeMarker("a"); });
    document.getElementById("btn-marker-b").addEventListener("click", function () { P.placeMarker("b"); });
    document.getElementById("btn-zoom-ab").addEventListener("click", P.zoomToMarkers);
    document.getElementById("btn-clear").addEventListener("click", P.clearMarkers);

    var keyMap = [
      {keys: ["w", "W"], label: "w", help: "zoom in (around the cursor)", run: function () { zoomKey(1 / ZOOM_STEP); }},
      {keys: ["s", "S"], label: "s", help: "zoom out", run: function () { zoomKey(ZOOM_STEP); }},
      {keys: ["+", "="], label: "+ / =", help: "zoom in", run: function () { P.zoomBy(1 / ZOOM_STEP); }},
      {keys: ["-", "_"], label: "- / _", help: "zoom out", run: function () { P.zoomBy(ZOOM_STEP); }},
      {keys: ["a"], label: "a / d", help: "pan left / right (Shift: half a screen)", run: function () { pan(-1, false); }},
      {keys: ["A"], label: "", help: "", run: function () { pan(-1, true); }},
      {keys: ["d"], label: "", help: "", run: function () { pan(1, false); }},
      {keys: ["D"], label: "", help: "", run: function () { pan(1, true); }},
      {keys: ["Home"], label: "Home / End", help: "go to the start / end", run: function () { var s = state.view.t1Step - state.view.t0Step; P.setView(0, s); }},
      {keys: ["End"], label: "", help: "", run: function () { var s = state.view.t1Step - state.view.t0Step; P.setView(P.total() - s, P.total()); }},
      {keys: ["0"], label: "0", help: "fit the whole schedule", run: function () { P.fitView(); P.requestDraw(); }},
      {keys: ["f", "F"], label: "f", help: "fit the selected block and its dependencies, or the followed chain", run: P.fitSelection},
      {keys: ["z", "Z"], label: "z", help: "zoom to the range between markers A and B", run: P.zoomToMarkers},
      {keys: ["m"], label: "m / M", help: "put marker A / B (Shift+m) at the cursor, snapped to the nearest block edge", run: function () { P.placeMarker("a"); }},
      {keys: ["M"], label: "", help: "", run: function () { P.placeMarker("b"); }},
      {keys: ["x", "X"], label: "x", help: "clear markers A and B (Escape keeps them)", run: P.clearMarkers},
      {keys: ["ArrowLeft"], label: "\u2190 / \u2192", help: "select the previous / next block on the selected lane", run: function () { P.keySelect(P.laneNeighbour(-1)); }},
      {keys: ["ArrowRight"], label: "", help: "", run: function () { P.keySelect(P.laneNeighbour(1)); }},
      {keys: ["ArrowUp"], label: "\u2191 / \u2193", help: "select the block on the lane above / below", run: function () { P.keySelect(P.crossLane(-1)); }},
      {keys: ["ArrowDown"], label: "", help: "", run: function () { P.keySelect(P.crossLane(1)); }},
      {keys: ["Tab"], label: "Tab / Shift+Tab", help: "in the timeline, once a block is selected: next / previous block on its lane (Escape, then Tab, leaves)"},
      {keys: ["."], label: ". / ,", help: "cursor (only) to the next / previous event (block edge) on the selected block's lane, or on any lane", run: function () { P.laneEvent(1); }},
      {keys: [","], label: "", help: "", run: function () { P.laneEvent(-1); }},
      {keys: ["]"], label: "] / [", help: "cursor to the next / previous barrier event (the barrier panel follows)", run: function () { P.stepBarrierEvent(1); }},
      {keys: ["["], label: "", help: "", run: function () { P.stepBarrierEvent(-1); }},
      {keys: [">"], label: "> / <", help: "cursor one step right / left", run: function () { moveCursor(1); }},
      {keys: ["<"], label: "", help: "", run: function () { moveCursor(-1); }},
      {keys: ["c"], label: "c / C", help: "fold / unfold the lane group (stages, consumer WGs, TMEM, peer CTA) of the selected block, else of the lane under the pointer; C unfolds every group", run: P.toggleGroupKey},
      {keys: ["C"], label: "", help: "", run: function () { state.collapsedGroups.clear(); P.relayout(); }},
      {keys: ["/"], label: "/", help: "filter lanes by name (the lanes panel also hides and reorders them)", run: function () {
        var panel = document.getElementById("lanes-panel");
        panel.open = true;
        document.getElementById("lane-filter").focus();
      }},
      {keys: ["e", "E"], label: "e", help: "open the export menu (Chrome trace, VCD, SVG, PNG)", run: P.openMenu},
      {keys: ["g"], label: "g", help: "search blocks (kind, o.k, wait reason, operand, lane); in the box Enter / Shift+Enter go to the next / previous match, Escape returns", run: P.focusSearch},
      {keys: ["n"], label: "n / N", help: "next / previous search match (cursor, selection and view go there)", run: function () { P.jumpMatch(1); }},
      {keys: ["N"], label: "", help: "", run: function () { P.jumpMatch(-1); }},
      {keys: ["b", "B"], label: "b", help: "highlight the critical path (the chain of blocks that sets the total; with a GPU chosen) on the timeline, or stop", run: P.toggleCritical},
      {keys: ["p"], label: "p / P", help: "pin this run to compare (verdict deltas, ghost under the lanes) / unpin", run: P.pinRun},
      {keys: ["P"], label: "", help: "", run: P.unpinRun},
      {keys: ["Escape"], label: "Escape", help: "close the export menu, else clear the selected block and the followed chain; never the markers", run: P.escape}
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
      "The URL hash keeps knobs, view, cursor, markers, the followed chain, the folded lane groups and the critical-path highlight: copy the link to share the view."]});
    document.getElementById("btn-help").addEventListener("click", function () { keys.openHelp(); });

  }

  return {install: install};
})();
