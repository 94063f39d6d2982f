/* Dataflow graph page: draws the layout computed by render_html.layout_graph() as SVG.
 *
 * Sections: (1) named constants, (2) pure helpers (view transform, fit, neighbours, arrowheads),
 * (3) the page: drawing once, then hover, selection, pan and zoom. All text from the parsed
 * source is inserted with textContent, never as markup. ASCII only.
 */
var KVGraph = (function () {
  "use strict";

  // ---- (1) Named constants -------------------------------------------------------------------
  var SVG_NS = "http://www.w3.org/2000/svg";
  var FIT_PAD_PX = 16;           // space kept around the drawing by fit
  var MAX_FIT_SCALE = 1.6;       // fit never blows a small graph up beyond this
  var MIN_SCALE = 0.1;
  var MAX_SCALE = 6;
  var ZOOM_STEP = 1.25;          // one +/- press or button click
  var WHEEL_ZOOM_PER_PX = 0.0018;
  var WHEEL_LINE_PX = 16;        // deltaMode 1 (lines) -> pixels
  var PAN_STEP_PX = 60;          // arrow keys
  var DRAG_THRESHOLD_PX = 4;     // a press that moves less than this is a click
  var ARROW_LEN_PX = 8;
  var ARROW_HALF_PX = 4;
  var NODE_RADIUS_PX = 4;
  var SYNC_RADIUS_PX = 12;       // barrier operations are drawn as pills
  var TEXT_INSET_PX = 12;        // matches render_html.NODE_PAD_X
  var TEXT_TOP_PX = 7;           // matches render_html.NODE_PAD_Y
  var TEXT_LINE_PX = 15;         // matches render_html.LINE_H
  var STAGE_MIN_PX = 320;
  var STAGE_BOTTOM_PX = 12;
  var PALETTE_SIZE = 6;
  var MIN_TEXT_CONTRAST = 4.5;   // WCAG AA for normal text (node labels are 10.5-12 px)

  // ---- (2) Pure helpers -----------------------------------------------------------------------
  /** Scale and offset that fit a w x h drawing into a vw x vh viewport, centred. */
  function fitView(w, h, vw, vh) {
    var s = Math.min((vw - 2 * FIT_PAD_PX) / Math.max(w, 1), (vh - 2 * FIT_PAD_PX) / Math.max(h, 1), MAX_FIT_SCALE);
    s = Math.max(s, MIN_SCALE);
    return {scale: s, tx: (vw - w * s) / 2, ty: (vh - h * s) / 2};
  }

  /** New view after zooming by factor around the viewport point (px, py). */
  function zoomAt(view, factor, px, py) {
    var s = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
    var k = s / view.scale;
    return {scale: s, tx: px - (px - view.tx) * k, ty: py - (py - view.ty) * k};
  }

  /** {nodeId: [edge ids]} for every node, from the graph's edges. */
  function incidence(graph) {
    var out = {};
    graph.nodes.forEach(function (n) { out[n.id] = []; });
    graph.edges.forEach(function (e) {
      if (out[e.source]) out[e.source].push(e.id);
      if (out[e.target]) out[e.target].push(e.id);
    });
    return out;
  }

  /** SVG path data of an orthogonal polyline. */
  function pathData(points) {
    return points.map(function (p, i) { return (i ? "L" : "M") + p[0] + " " + p[1]; }).join(" ");
  }

  /** Arrowhead triangle at the polyline's end, pointing along its last segment; shortens the line. */
  function arrowHead(points) {
    var n = points.length;
    var a = points[n - 2], b = points[n - 1];
    var dx = b[0] - a[0], dy = b[1] - a[1];
    var len = Math.sqrt(dx * dx + dy * dy) || 1;
    var ux = dx / len, uy = dy / len;
    var bx = b[0] - ux * ARROW_LEN_PX, by = b[1] - uy * ARROW_LEN_PX;
    var head = "M" + b[0] + " " + b[1] + " L" + (bx - uy * ARROW_HALF_PX) + " " + (by + ux * ARROW_HALF_PX) +
      " L" + (bx + uy * ARROW_HALF_PX) + " " + (by - ux * ARROW_HALF_PX) + " Z";
    var line = points.slice(0, n - 1).concat([[b[0] - ux * (ARROW_LEN_PX - 1), b[1] - uy * (ARROW_LEN_PX - 1)]]);
    return {head: head, line: line};
  }


  /** Relative luminance (WCAG 2) of a computed CSS colour "rgb(r, g, b)". */
  function luminance(css) {
    var v = (String(css).match(/[\d.]+/g) || [0, 0, 0]).slice(0, 3).map(function (x) {
      x = Number(x) / 255;
      return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
  }

  /** Contrast ratio (WCAG 2) of two luminances. */
  function contrast(a, b) { return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }

  /** Black or white, whichever reads better on this fill: at least 4.58:1 on any colour. */
  function readableOn(fillCss) {
    var l = luminance(fillCss);
    return contrast(l, 0) >= contrast(l, 1) ? "#000000" : "#ffffff";
  }

  // ---- (3) The page ---------------------------------------------------------------------------
  var C = KVCommon;
  var state = {ready: false, view: {scale: 1, tx: 0, ty: 0}, selected: null, drag: null, hover: null,
               nodeEls: {}, edgeEls: {}, edgeById: {}, graph: null, layout: null, incident: {}, details: ""};

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(node);
    return node;
  }

  var html = C.html;

  function pipeClass(graph, name) {
    for (var i = 0; i < graph.pipelines.length; i++) {
      if (graph.pipelines[i].name === name) return "kg-pipe-" + (graph.pipelines[i].index % PALETTE_SIZE);
    }
    return "";
  }

  function draw() {
    var graph = state.graph, layout = state.layout;
    var root = document.getElementById("viewport");
    var clusterLayer = el("g", {"class": "kg-clusters"}, root);
    var edgeLayer = el("g", {"class": "kg-edges"}, root);
    var nodeLayer = el("g", {"class": "kg-nodes"}, root);
    // Zones first, pipeline groups on top of them.
    var clusters = graph.clusters.slice().sort(function (a, b) { return (a.kind === "zone" ? 0 : 1) - (b.kind === "zone" ? 0 : 1); });
    clusters.forEach(function (c) {
      var box = layout.clusters[c.id];
      if (!box) return;
      var cls = "kg-cluster kg-cluster-" + c.kind;
      if (c.kind === "pipeline") cls += " kg-cluster-" + pipeClass(graph, c.pipeline).replace("kg-", "");
      var g = el("g", {"class": cls, "data-id": c.id}, clusterLayer);
      el("rect", {x: box.x, y: box.y, width: box.w, height: box.h, rx: 6}, g);
      var t = el("text", {"class": "kg-cluster-title", x: box.x + 8, y: box.y + 15}, g);
      t.textContent = box.text[0];
      if (box.text.length > 1 && box.text[1]) {
        var s = el("text", {"class": "kg-cluster-subtitle", x: box.x + 8, y: box.y + 29}, g);
        s.textContent = box.text[1];
      }
      g.addEventListener("mouseenter", function (ev) { showTip(ev, c.title, c.subtitle, c.lines, null); });
      g.addEventListener("mousemove", moveTip);
      g.addEventListener("mouseleave", hideTip);
    });
    graph.edges.forEach(function (e) {
      var geo = layout.edges[e.id];
      if (!geo || geo.points.length < 2) return;
      var cls = "kg-edge kg-edge-" + e.kind + (e.conditional ? " kg-edge-cond" : "");
      if (e.pipeline && e.kind !== "data" && e.kind !== "order") cls += " " + pipeClass(graph, e.pipeline);
      var g = el("g", {"class": cls, "data-id": e.id}, edgeLayer);
      var arrow = arrowHead(geo.points);
      el("path", {"class": "kg-line", d: pathData(arrow.line)}, g);
      el("path", {"class": "kg-head", d: arrow.head}, g);
      el("path", {"class": "kg-hit", d: pathData(geo.points)}, g);
      g.addEventListener("mouseenter", function (ev) {
        g.classList.add("kg-hover");
        var title = labelOf(e.source) + " \u2192 " + labelOf(e.target) + " (" + e.kind + ")";
        showTip(ev, title, e.description + (e.pipeline ? " [" + e.pipeline + "]" : ""), e.lines, g);
      });
      g.addEventListener("mousemove", moveTip);
      g.addEventListener("mouseleave", function () { g.classList.remove("kg-hover"); hideTip(); });
      state.edgeEls[e.id] = g;
    });
    graph.nodes.forEach(function (n) {
      var box = layout.nodes[n.id];
      if (!box) return;
      var g = el("g", {"class": "kg-node kg-kind-" + n.kind, "data-id": n.id, tabindex: "0", role: "button",
                       "aria-label": n.label + " " + n.detail.join(" ")}, nodeLayer);
      el("rect", {x: box.x, y: box.y, width: box.w, height: box.h,
                  rx: n.kind === "sync" ? SYNC_RADIUS_PX : NODE_RADIUS_PX}, g);
      box.text.forEach(function (line, i) {
        var t = el("text", {"class": i ? "kg-detail" : "kg-label", x: box.x + TEXT_INSET_PX,
                            y: box.y + TEXT_TOP_PX + TEXT_LINE_PX * i + 11}, g);
        t.textContent = line;
      });
      g.addEventListener("mouseenter", function (ev) {
        g.classList.add("kg-hover");
        showTip(ev, n.label + "  (" + kindName(n.kind) + ")", n.detail.join(" | "), n.lines, g, n.id);
      });
      g.addEventListener("mousemove", moveTip);
      g.addEventListener("mouseleave", function () { g.classList.remove("kg-hover"); hideTip(); });
      g.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); hideTip(); select(n.id); }
      });
      state.nodeEls[n.id] = g;
    });
  }

  var KIND_NAMES = {gmem: "global memory operand", load: "load", smem: "shared-memory stage buffer",
                    full: "full barrier", empty: "empty barrier", barrier: "transaction barrier",
                    sync: "barrier operation", mma: "MMA", acc: "accumulator", epilogue: "epilogue",
                    tmem: "TMEM accumulator stages"};
  function kindName(kind) { return KIND_NAMES[kind] || kind; }

  function labelOf(id) {
    for (var i = 0; i < state.graph.nodes.length; i++) {
      var n = state.graph.nodes[i];
      if (n.id === id) return n.label + (n.detail.length && n.kind !== "smem" ? " " + n.detail[0] : "");
    }
    return id;
  }

  function showTip(ev, title, desc, lines, owner, nodeId) {
    var tip = document.getElementById("tooltip");
    tip.textContent = "";
    html("div", "kc-tip-title", title, tip);
    if (desc) html("div", "kc-tip-desc", desc, tip);
    C.sourceList(tip, lines || [], C.TIP_MAX_LINES, "click the node for all");
    state.hover = {owner: owner, nodeId: nodeId || null};
    moveTip(ev);
  }

  /** The node ids a click on node id highlights: it first, then its neighbours. */
  function clickHighlight(id) {
    var keep = [id];
    (state.incident[id] || []).forEach(function (eid) {
      var e = state.edgeById[eid];
      [e.source, e.target].forEach(function (n) { if (keep.indexOf(n) < 0) keep.push(n); });
    });
    return keep;
  }

  /** What the tooltip must not cover: the highlighted nodes (selection and neighbours) and, over a
   *  node, what a click on it would highlight (its neighbours here, itself as the anchor), so the
   *  click never lands with the tooltip over its own highlight. */
  function avoidRects(hover) {
    var ids = {};
    if (state.selected !== null) clickHighlight(state.selected).forEach(function (n) { ids[n] = true; });
    if (hover.nodeId) clickHighlight(hover.nodeId).forEach(function (n) { ids[n] = true; });
    delete ids[hover.nodeId];
    return Object.keys(ids).sort().filter(function (n) { return state.nodeEls[n]; })
      .map(function (n) { return state.nodeEls[n].getBoundingClientRect(); });
  }

  /** Follow the pointer; placed where it covers no highlighted node, else hidden. */
  function moveTip(ev) {
    if (!state.hover) return;
    var tip = document.getElementById("tooltip");
    var anchor = state.hover.nodeId ? state.nodeEls[state.hover.nodeId].getBoundingClientRect() : null;
    C.placeTooltip(tip, ev.clientX, ev.clientY, document.getElementById("graph-box"), avoidRects(state.hover), anchor);
  }

  function hideTip() {
    state.hover = null;
    document.getElementById("tooltip").hidden = true;
  }

  function applyView() {
    var v = state.view;
    document.getElementById("viewport").setAttribute("transform", "translate(" + v.tx + " " + v.ty + ") scale(" + v.scale + ")");
    document.getElementById("zoom-readout").textContent = Math.round(v.scale * 100) + "%";
  }

  function stageSize() {
    var svg = document.getElementById("graph");
    return {w: svg.clientWidth, h: svg.clientHeight};
  }

  function fit() {
    var size = stageSize();
    state.view = fitView(state.layout.width, state.layout.height, size.w, size.h);
    applyView();
  }

  function zoomBy(factor, px, py) {
    var size = stageSize();
    state.view = zoomAt(state.view, factor, px === undefined ? size.w / 2 : px, py === undefined ? size.h / 2 : py);
    applyView();
  }

  function panBy(dx, dy) {
    state.view = {scale: state.view.scale, tx: state.view.tx + dx, ty: state.view.ty + dy};
    applyView();
  }

  /** Highlight a node, its neighbours and their edges; dim the rest; list its sources below. */
  function select(id) {
    clearSelection();
    if (!state.nodeEls[id]) return;
    state.selected = id;
    var keep = {};
    clickHighlight(id).forEach(function (n) { keep[n] = true; });
    var litEdges = {};
    (state.incident[id] || []).forEach(function (eid) { litEdges[eid] = true; });
    Object.keys(state.nodeEls).forEach(function (nid) {
      var g = state.nodeEls[nid];
      if (nid === id) g.classList.add("kg-selected");
      else if (keep[nid]) g.classList.add("kg-neighbour");
      else g.classList.add("kg-dim");
    });
    Object.keys(state.edgeEls).forEach(function (eid) {
      state.edgeEls[eid].classList.add(litEdges[eid] ? "kg-lit" : "kg-dim");
    });
    showDetails(id, Object.keys(keep).filter(function (k) { return k !== id; }).sort());
  }

  function clearSelection() {
    state.selected = null;
    var all = Object.keys(state.nodeEls).map(function (k) { return state.nodeEls[k]; })
      .concat(Object.keys(state.edgeEls).map(function (k) { return state.edgeEls[k]; }));
    all.forEach(function (g) { g.classList.remove("kg-dim", "kg-selected", "kg-neighbour", "kg-lit"); });
    var details = document.getElementById("details");
    details.textContent = "";
    html("p", "kg-muted", "Click a node (or Tab to it and press Enter) to highlight its neighbours and list its source lines here.", details);
    state.details = "";
    document.getElementById("details-copy").disabled = true;
  }

  /** The side panel: the node, its source lines and its neighbours; stays until the next selection. */
  function showDetails(id, neighbours) {
    var node = null;
    state.graph.nodes.forEach(function (n) { if (n.id === id) node = n; });
    var details = document.getElementById("details");
    details.textContent = "";
    var title = node.label + " (" + kindName(node.kind) + ")" + (node.detail.length ? ": " + node.detail.join(", ") : "");
    html("h2", null, title, details);
    html("h3", null, "Source lines", details);
    C.sourceList(details, node.lines, 0);
    html("h3", null, "Connected to", details);
    var connected = neighbours.map(labelOf).join("; ") || "nothing";
    html("p", null, connected, details);
    details.parentNode.scrollTop = 0;
    state.details = title + "\n\nSource lines:\n" + C.sourceText(node.lines) + "\n\nConnected to: " + connected + "\n";
    document.getElementById("details-copy").disabled = false;
  }

  /** The key map (also the ? overlay's text). */
  function keyBindings() {
    return [
      {keys: ["Escape"], label: "Escape", help: "clear the selection", run: function () { hideTip(); clearSelection(); }},
      {keys: ["+", "="], label: "+ / =", help: "zoom in", run: function () { zoomBy(ZOOM_STEP); }},
      {keys: ["-", "_"], label: "- / _", help: "zoom out", run: function () { zoomBy(1 / ZOOM_STEP); }},
      {keys: ["f", "F", "0"], label: "f / 0", help: "fit the whole graph", run: fit},
      {keys: ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"], label: "arrows", help: "pan", run: function (ev) {
        var d = {ArrowLeft: [PAN_STEP_PX, 0], ArrowRight: [-PAN_STEP_PX, 0], ArrowUp: [0, PAN_STEP_PX], ArrowDown: [0, -PAN_STEP_PX]}[ev.key];
        panBy(d[0], d[1]);
      }},
      {keys: ["Tab"], label: "Tab / Enter", help: "move between nodes / select the focused node", run: null}
    ];
  }

  var MOUSE_HELP = [
    "Hover a node or an edge: the source lines it comes from, with the statement text (the tooltip stays clear of the highlighted nodes and of what a click there would highlight; a click or the wheel closes it).",
    "Click a node: highlight its neighbours, dim the rest, and list its lines in the Details panel (Copy copies them); a click on the background clears.",
    "Drag: pan; wheel: zoom around the mouse.",
    "Edges run left to right in the direction data and signals flow; an arrow into a node's right side is a signal back to an earlier stage (release -> empty barrier -> acquire)."
  ];

  function nodeIdAt(target) {
    var g = target && target.closest ? target.closest(".kg-node") : null;
    return g ? g.getAttribute("data-id") : null;
  }

  function wireInput() {
    var svg = document.getElementById("graph");
    svg.addEventListener("mousedown", function (ev) {
      // A click closes the tooltip (it changes what is highlighted); it reopens on the next hover.
      hideTip();
      if (ev.button !== 0) return;
      state.drag = {x: ev.clientX, y: ev.clientY, tx: state.view.tx, ty: state.view.ty, moved: false,
                    node: nodeIdAt(ev.target)};
    });
    window.addEventListener("mousemove", function (ev) {
      var d = state.drag;
      if (!d) return;
      var dx = ev.clientX - d.x, dy = ev.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) < DRAG_THRESHOLD_PX) return;
      d.moved = true;
      svg.classList.add("kg-dragging");
      hideTip();
      state.view = {scale: state.view.scale, tx: d.tx + dx, ty: d.ty + dy};
      applyView();
    });
    window.addEventListener("mouseup", function () {
      var d = state.drag;
      state.drag = null;
      svg.classList.remove("kg-dragging");
      if (!d || d.moved) return;
      if (d.node) select(d.node);
      else clearSelection();
    });
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      hideTip();  // the zoom moves the nodes the tooltip was placed beside
      var dy = ev.deltaMode === 1 ? ev.deltaY * WHEEL_LINE_PX : ev.deltaY;
      var box = svg.getBoundingClientRect();
      zoomBy(Math.exp(-dy * WHEEL_ZOOM_PER_PX), ev.clientX - box.left, ev.clientY - box.top);
    }, {passive: false});
    var keys = C.installKeys(keyBindings(), {title: "Dataflow graph: keys and mouse", mouse: MOUSE_HELP});
    document.getElementById("btn-help").addEventListener("click", keys.openHelp);
    document.getElementById("details-copy").addEventListener("click", function () { C.copyText(state.details); });
    document.getElementById("btn-zoom-in").addEventListener("click", function () { zoomBy(ZOOM_STEP); });
    document.getElementById("btn-zoom-out").addEventListener("click", function () { zoomBy(1 / ZOOM_STEP); });
    document.getElementById("btn-fit").addEventListener("click", fit);
    document.getElementById("btn-clear").addEventListener("click", clearSelection);
    window.addEventListener("resize", function () { sizeStage(); fit(); });
  }

  /** Let the graph and the details panel use the rest of the window, so fit shows everything and
   *  the details stay in view without scrolling. */
  function sizeStage() {
    var main = document.querySelector(".kg-main");
    var top = main.getBoundingClientRect().top + window.scrollY;
    main.style.height = Math.max(STAGE_MIN_PX, window.innerHeight - top - STAGE_BOTTOM_PX) + "px";
  }

  /** Node text on a filled box takes black or white from the box's computed fill (both themes),
   *  so every label meets WCAG's 4.5:1; outlined boxes keep the theme's text colours. */
  function fitTextContrast() {
    Object.keys(state.nodeEls).forEach(function (id) {
      var g = state.nodeEls[id];
      var fill = getComputedStyle(g.querySelector("rect")).fill;
      var texts = g.querySelectorAll("text");
      for (var i = 0; i < texts.length; i++) texts[i].style.fill = "";
      if (!/^rgb/.test(fill)) return;
      var l = luminance(fill);
      for (i = 0; i < texts.length; i++) {
        if (contrast(l, luminance(getComputedStyle(texts[i]).fill)) < MIN_TEXT_CONTRAST) texts[i].style.fill = readableOn(fill);
      }
    });
  }

  function showNotes(notes) {
    if (!notes || !notes.length) return;
    var box = document.getElementById("notes");
    notes.forEach(function (n) { html("p", null, "Note: " + n, box); });
    box.hidden = false;
  }

  function start() {
    C.startup("The graph", "error", function () {
      var model = JSON.parse(document.getElementById("model").textContent);
      state.graph = model.graph;
      state.layout = model.layout;
      state.incident = incidence(model.graph);
      model.graph.edges.forEach(function (e) { state.edgeById[e.id] = e; });
      if (!model.graph.nodes.length) C.showError("error", "Nothing to draw: the parser found no pipeline operations in this file.");
      draw();
      fitTextContrast();
      if (window.matchMedia) {
        var scheme = window.matchMedia("(prefers-color-scheme: dark)");
        if (scheme.addEventListener) scheme.addEventListener("change", fitTextContrast);
      }
      showNotes(model.graph.notes);
      wireInput();
      sizeStage();
      fit();
      state.ready = true;
    });
  }

  if (typeof document !== "undefined" && document.getElementById("model")) start();

  return {state: state, fit: fit, zoomBy: zoomBy, panBy: panBy, select: select, clear: clearSelection,
          fitView: fitView, zoomAt: zoomAt, arrowHead: arrowHead, contrast: contrast, luminance: luminance};
})();
if (typeof module !== "undefined") module.exports = KVGraph;
