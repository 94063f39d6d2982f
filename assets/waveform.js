/* Waveform page: draws KernelSchedule.simulate() output (schedule.js) on one canvas, GTKWave style.
 *
 * This file starts the page. The rest lives in assets/wave_*.js (docs/waveform.md "Module layout"):
 * pure, DOM-free modules Node can require (wave_const, wave_kinds, wave_index, wave_view,
 * wave_result, wave_stats), and the page's parts, each an install(P) over one page context P
 * holding the embedded model, the canvas and the one state object. render_waveform.py packs them
 * into one script, in its WAVEFORM_JS_ASSETS order, with this file last. In Node this file
 * requires the pure modules and exports what the tests read of them.
 * ASCII only: the page is written with ASCII character references, so non-ASCII text uses \u escapes.
 */
var KVWave = (function () {
  "use strict";
  // The pure modules: globals in the page (one packed script), required in Node.
  var M = typeof module !== "undefined" && module.exports ? {
    KVWaveConst: require("./wave_const.js"),
    KVWaveKinds: require("./wave_kinds.js"),
    KVWaveIndex: require("./wave_index.js"),
    KVWaveView: require("./wave_view.js"),
    KVWaveResult: require("./wave_result.js"),
    KVWaveStats: require("./wave_stats.js")
  } : {
    KVWaveConst: KVWaveConst,
    KVWaveKinds: KVWaveKinds,
    KVWaveIndex: KVWaveIndex,
    KVWaveView: KVWaveView,
    KVWaveResult: KVWaveResult,
    KVWaveStats: KVWaveStats
  };

  // What tests and the benchmark read of the pure modules (require("assets/waveform.js") in Node, window.__kv.pure in the page).
  var pure = {
    legendLayout: M.KVWaveStats.legendLayout,
    hatchBands: M.KVWaveStats.hatchBands,
    packResult: M.KVWaveResult.packResult,
    packEvents: M.KVWaveResult.packEvents,
    unpackResult: M.KVWaveResult.unpackResult,
    percentText: M.KVWaveResult.percentText,
    criticalPathLine: M.KVWaveResult.criticalPathLine,
    pathIndexOf: M.KVWaveIndex.pathIndexOf,
    barrierStateAt: M.KVWaveResult.barrierStateAt,
    barrierEventStep: M.KVWaveResult.barrierEventStep,
    codePathLines: M.KVWaveResult.codePathLines,
    TimeScale: M.KVWaveView.TimeScale,
    laneIndexOf: M.KVWaveIndex.laneIndexOf,
    visibleRange: M.KVWaveIndex.visibleRange,
    niceTickStep: M.KVWaveView.niceTickStep,
    buildFillSummary: M.KVWaveIndex.buildFillSummary,
    fillMaskIn: M.KVWaveIndex.fillMaskIn,
    dependentsOfColumns: M.KVWaveIndex.dependentsOfColumns,
    laneEdge: M.KVWaveIndex.laneEdge,
    labelCandidates: M.KVWaveKinds.labelCandidates,
    fillKey: M.KVWaveKinds.fillKey,
    chainIds: M.KVWaveKinds.chainIds,
    parseHash: M.KVWaveView.parseHash,
    formatHash: M.KVWaveView.formatHash,
    tileText: M.KVWaveKinds.tileText,
    rangeStats: M.KVWaveStats.rangeStats,
    parseQuery: M.KVWaveStats.parseQuery,
    searchBlocks: M.KVWaveStats.searchBlocks,
    stepMatch: M.KVWaveStats.stepMatch,
    formatPin: M.KVWaveView.formatPin,
    parsePin: M.KVWaveView.parsePin,
    groupKeyOf: M.KVWaveIndex.groupKeyOf,
    groupName: M.KVWaveIndex.groupName,
    groupRows: M.KVWaveIndex.groupRows,
    overviewSummary: M.KVWaveIndex.overviewSummary,
    verdictDelta: M.KVWaveStats.verdictDelta,
    sourceHref: M.KVWaveStats.sourceHref,
    TENSOR_CORE_KINDS: M.KVWaveStats.TENSOR_CORE_KINDS,
    withPrograms: withPrograms,
    constants: {RULER_HEIGHT_PX: M.KVWaveConst.RULER_HEIGHT_PX, LANE_HEIGHT_PX: M.KVWaveConst.LANE_HEIGHT_PX,
      GUTTER_MIN_WIDTH_PX: M.KVWaveConst.GUTTER_MIN_WIDTH_PX, LABEL_MIN_WIDTH_PX: M.KVWaveConst.LABEL_MIN_WIDTH_PX,
      BADGE_ROW_PX: M.KVWaveConst.BADGE_ROW_PX}
  };

  /**
   * The parsed structure with its packed parts put back: the model element carries it without its
   * function list and role programs, the packed `programs` script defines
   * KV_PROGRAMS = {functions, programs, kernelProgram} (render_waveform.packed_programs;
   * docs/waveform.md). A copy: the embedded model is not changed.
   */
  function withPrograms(parsed, packed) {
    if (!parsed || typeof parsed !== "object" || !packed || typeof packed !== "object") return parsed;
    var out = Object.assign({}, parsed);
    if (packed.functions) out.functions = packed.functions;
    if (packed.programs) out.programs = packed.programs;
    if (packed.kernelProgram && out.kernel_layer && typeof out.kernel_layer === "object") {
      out.kernel_layer = Object.assign({}, out.kernel_layer, {program: packed.kernelProgram});
    }
    return out;
  }

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

  /**
   * The page: the context P (the embedded model, the canvas, the one state object), then each part
   * installs its functions on P in the order below (a part reads another's functions through P
   * when it runs, so only install-time code depends on that order), then the start.
   */
  function runPage() {
    var P = {};
    var GUTTER_MIN_WIDTH_PX = KVWaveConst.GUTTER_MIN_WIDTH_PX, RULER_HEIGHT_PX = KVWaveConst.RULER_HEIGHT_PX,
        SMALL_WINDOW_HEIGHT_PX = KVWaveConst.SMALL_WINDOW_HEIGHT_PX, laneIndexOf = KVWaveIndex.laneIndexOf,
        visibleRange = KVWaveIndex.visibleRange, barrierStateAt = KVWaveResult.barrierStateAt,
        rangeStats = KVWaveStats.rangeStats;
    var KS = window.KernelSchedule;
    if (!KS || typeof KS.simulate !== "function") throw new Error("the simulator (KernelSchedule) is missing");
    var model = JSON.parse(document.getElementById("model").textContent);
    var parsed = withPrograms(model.parsed, window.KV_PROGRAMS);
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
    P.unitComputed = {};

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
      // The critical path's highlight (b, the verdict's checkbox, critical=on): its culling index
      // (built once per result) and the ids the last frame outlined.
      showCritical: false, criticalIndex: null, criticalDrawn: [],
      scale: null, gutterPx: GUTTER_MIN_WIDTH_PX, frames: 0, lastFrameMs: 0, lastSimMs: 0, lastDrawMs: 0,
      lastWorker: null, resultDrawPending: false, lastResultDrawnAt: 0, lastResultFrameAt: 0
    };

    P.KS = KS;
    P.model = model;
    P.parsed = parsed;
    P.hashKeys = hashKeys;
    P.gpuTable = gpuTable;
    P.UNIT_SPECS = UNIT_SPECS;
    P.canvas = canvas;
    P.box = box;
    P.tooltip = tooltip;
    P.ctx = ctx;
    P.overviewCanvas = overviewCanvas;
    P.overviewCtx = overviewCtx;
    P.state = state;
    // The page's parts (assets/wave_*.js; docs/waveform.md "Module layout"), in install order.
    [KVWaveKnobs, KVWaveFlags, KVWaveWorker, KVWaveLayout, KVWaveVerdict, KVWaveDraw, KVWaveInput, KVWavePanels, KVWaveExports, KVWaveSvg, KVWaveUrl, KVWaveReading, KVWaveKeys].forEach(function (part) { part.install(P); });

    // -- start: the page model's defaults < embedded initial knobs < hash
    state.knobs = P.baseKnobs(P.pageModel);
    P.buildControls(P.pageModel);
    P.readTheme();
    if (window.matchMedia) {
      var mq = window.matchMedia("(prefers-color-scheme: dark)");
      var onScheme = function () { P.readTheme(); P.requestDraw(); };
      if (mq.addEventListener) mq.addEventListener("change", onScheme); else if (mq.addListener) mq.addListener(onScheme);
    }
    window.addEventListener("resize", P.requestDraw);
    if (window.ResizeObserver) new ResizeObserver(function () { P.requestDraw(); }).observe(box);
    P.applyHash(location.hash);
    P.renderChainInfo();
    P.flush();

    // -- test hook: positions and state for browser tests and the benchmark
    window.__kv = {
      state: state,
      pure: pure,
      visibleRange: visibleRange,
      laneIndexOf: laneIndexOf,
      blocksAt: function (x, y) { return P.blocksAt(x, y); },
      /** Client (viewport) coordinates of the visible middle of block id, or null when off screen. */
      blockCenter: function (id) {
        var scale = state.scale, bb = scale && P.idBox(scale, id);
        if (!bb) return null;
        var x0 = Math.max(bb.x0, state.gutterPx), x1 = Math.min(bb.x1, scale.x1Px);
        if (x1 <= x0) return null;
        var rect = canvas.getBoundingClientRect();
        return {x: rect.left + (x0 + x1) / 2, y: rect.top + bb.y + bb.h / 2, widthPx: x1 - x0};
      },
      /** Every block as an object: materialises result.blocks (tests and exports only; the page never calls it). */
      blocks: function () { return (state.result && !state.result.error && state.result.blocks) || []; },
      /** Block id of the current result as an object (built from the columns), or null. */
      block: function (id) { return P.blockById(id); },
      /** The blocks of one lane in start order, as objects (tests). */
      laneBlocks: function (laneId) {
        var index = state.perLane[laneId], out = [];
        for (var i = 0; index && i < index.n; i++) out.push(P.blockById(index.lo + i));
        return out;
      },
      highlighted: function () { return Array.from(state.highlighted).sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }); },
      /** A run is asked for (the next frame starts it) or running in the background: the drawing is not yet the knobs'. */
      simulating: function () { return !!state.simulating || P.simulateRequested(); },
      setKnobs: function (k) { Object.keys(k).forEach(function (n) { state.knobs[n] = k[n]; }); P.requestSimulate(); },
      setModel: P.setModel,
      select: function (id) { P.select(P.blockById(id)); P.flush(); },
      followBlock: function (id) { P.follow(P.blockById(id)); P.flush(); },
      selectedId: function () { return state.selected ? state.selected.id : null; },
      arrowEdges: P.arrowEdges,
      exportAs: P.exportAs,
      exportName: P.exportName,
      viewSvg: P.viewSvg,
      barrierStateAt: function (t) { return barrierStateAt(state.result, t); },
      setView: P.setView,
      fit: function () { P.fitView(); P.requestDraw(); },
      flush: P.flush,
      hash: P.currentHash,
      search: function (text) { P.searchBox.value = text; P.runSearch(); P.flush(); return {ids: Array.from(state.search.ids), query: state.search.query}; },
      rangeStats: function (t0, t1) { return rangeStats(state.columns, t0, t1, P.indexesByLane()); },
      pinned: function () { return state.pinned ? {knobs: state.pinned.knobs, text: state.pinned.text, pending: state.pinned.pending, total: state.pinned.result && state.pinned.result.total} : null; },
      writeHashNow: function () { if (P.hashTimer) { clearTimeout(P.hashTimer); } P.writeHash(); return location.hash; }
    };
  }

  if (typeof document !== "undefined") startPage();
  return pure;
})();
if (typeof module !== "undefined" && module.exports) module.exports = KVWave;
