/* Waveform page part: simulating (on this thread, or in a Web Worker made from the page's own scripts,
 * with the barrier events fetched by a second Worker) and applying a result.
 * install(P) adds its functions to the page context P (assets/waveform.js). ASCII only.
 */
var KVWaveWorker = (function () {
  "use strict";
  var APPLY_SPLIT_MS = KVWaveConst.APPLY_SPLIT_MS, EVENTS_DELAY_MS = KVWaveConst.EVENTS_DELAY_MS,
      PROGRESS_SHOW_MS = KVWaveConst.PROGRESS_SHOW_MS, PROGRESS_TICK_MS = KVWaveConst.PROGRESS_TICK_MS,
      WORKER_MIN_BLOCKS = KVWaveConst.WORKER_MIN_BLOCKS, laneIndexOf = KVWaveIndex.laneIndexOf,
      viewHolder = KVWaveKinds.viewHolder, packEvents = KVWaveResult.packEvents,
      packResult = KVWaveResult.packResult, unpackResult = KVWaveResult.unpackResult;

  /** Install this part of the page on the page context P. */
  function install(P) {
    var KS = P.KS, UNIT_SPECS = P.UNIT_SPECS, gpuTable = P.gpuTable, parsed = P.parsed, state = P.state;
    // -- simulation
    /** Simulate now on this thread (small settings, start-up, and when no Worker can be made). */
    function simulateNow() {
      cancelBackground();
      state.resultRunId = 0;
      var t0 = performance.now();
      var result;
      try {
        // A structure no model fits gets the honest no-model result (structure only, no verdict).
        result = P.noFit ? KS.simulate(parsed, {}) : KS.simulate(parsed, P.simKnobs());
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
    // The structure comes with a Worker's first message only and the Worker keeps it (`kept`):
    // its later runs reuse what the simulator keeps per structure object (prepared programs and
    // discovered roles, docs/programs.md "Performance") and nothing re-clones it (postRun).
    var WORKER_MAIN = "var packResult = " + packResult.toString() + ";\nvar packEvents = " + packEvents.toString() + ";\n" +
      "var kept = null;\n" +
      "self.onmessage = function (e) { var d = e.data, r, t0 = performance.now(); if (d.parsed) kept = d.parsed;" +
      " try { r = KernelSchedule.simulate(kept, d.knobs, {events: d.events === true}); }" +
      " catch (err) { r = {error: 'simulation failed: ' + (err && err.message ? err.message : String(err))}; }" +
      " if (d.events === true) { var ev = packEvents(r), t2 = ev.transfer; delete ev.transfer;" +
      " self.postMessage({id: d.id, events: ev}, t2); return; }" +
      " var t1 = performance.now(), p = packResult(r), transfer = p.transfer || []; delete p.transfer;" +
      " p.timing = {simulate: t1 - t0, pack: performance.now() - t1};" +
      " self.postMessage({id: d.id, packed: p}, transfer); };";
    // pendingExport: a trace/VCD export waiting for the result's deferred barrier events.
    var worker = null, workerUrl = null, runId = 0, running = null, progressTimer = 0;
    P.pendingExport = null;
    // The barrier-events Worker, the result id it is running for (0: idle), its start timer.
    var eventsWorker = null, eventsRunning = 0, eventsTimer = 0;
    /** Post a run to Worker w (WORKER_MAIN): the structure goes with the Worker's first run only. */
    function postRun(w, msg) {
      if (!w.kvHasParsed) { msg.parsed = parsed; w.kvHasParsed = true; }
      w.postMessage(msg);
    }
    P.postRun = postRun;
    /** A Worker running the page's simulator with WORKER_MAIN, or null when none can be made. */
    function newWorker(onmessage, onerror) {
      var simSource = window.KV_SOURCES && window.KV_SOURCES.schedule;
      if (!simSource || typeof Worker === "undefined" || typeof Blob === "undefined") return null;
      try {
        // The formulas (perf), the GPU table, the interpreter, the timeline builder and the engine
        // come first: schedule.js reads them (the last two at its start).
        if (!workerUrl) {
          workerUrl = URL.createObjectURL(new Blob([window.KV_SOURCES.perf || "", "\nvar KernelGpuTable = " + JSON.stringify(gpuTable) + ";\n",
            window.KV_SOURCES.interpret || "", "\n", window.KV_SOURCES.timeline || "", "\n", window.KV_SOURCES.engine || "", "\n",
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
        if (performance.now() - unpackStart < APPLY_SPLIT_MS) P.flush();
        else P.requestDraw();
        if (result && result.eventsPending) scheduleEvents(id);
      }, function (ev) {
        running = null;
        showProgress(null);
        worker = null;
        applyResult({error: "background simulation failed: " + (ev.message || "unknown error")}, performance.now());
        P.requestDraw();
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
        postRun(eventsWorker, {id: id, knobs: Object.assign({}, r.knobs), events: true});
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
      P.renderNotices();
      P.lastBarrierResult = null;
      P.requestDraw();
      if (P.pendingExport) { var format = P.pendingExport; P.pendingExport = null; P.exportAs(format); }
    }
    /** The deferred barrier events of the result on screen (else a stale run's: ignored). */
    function takeEvents(ev) {
      eventsRunning = 0;
      var r = state.result;
      if (!r || !r.eventsPending || state.resultRunId !== ev.data.id) return;
      r.supplyEvents(ev.data.events);
      P.lastBarrierResult = null;  // the barrier panel re-renders with them
      P.requestDraw();
      if (P.pendingExport) { var format = P.pendingExport; P.pendingExport = null; P.exportAs(format); }
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
      try { estimate = P.noFit ? 0 : KS.estimateBlockCount(P.simKnobs(), parsed); } catch (e) { estimate = 0; }
      if (!(estimate >= WORKER_MIN_BLOCKS) || estimate > KS.MAX_BLOCKS) return false;
      cancelBackground();
      worker = worker || makeWorker();
      if (!worker) return false;
      running = {id: ++runId, t0: performance.now(), estimate: estimate};
      postRun(worker, {id: running.id, knobs: P.simKnobs()});
      showProgress(running);
      P.renderNotices();  // cleared hash messages go at once; the simulator's come with the result
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
        P.unitComputed = {};
        var sources = result.units && result.units.sources ? result.units.sources : {};
        Object.keys(sources).forEach(function (k) { if ((sources[k] === "gpu" || sources[k] === "problem") && k in result.knobs) P.unitComputed[k] = result.knobs[k]; });
        state.knobs = Object.assign({}, result.knobs, units);
      }
      state.result = result;
      // The view description first: row layout (sub-lanes), fills and legend read it.
      viewHolder.current = result.view || null;
      if (viewHolder.current && viewHolder.current.legend) {
        viewHolder.current.legendByKind = {};
        viewHolder.current.legend.forEach(function (entry) { viewHolder.current.legendByKind[entry.kind] = entry; });
      }
      state.allLanes = Array.isArray(result.lanes) ? result.lanes : [];
      // The block columns (result.columns): never result.blocks, which builds an object per block.
      var c = result.columns && typeof result.columns.n === "number" && !result.error ? result.columns : null;
      state.columns = c || KS.emptyColumns();
      state.blockCache = new Map();
      state.liveBlocks = new WeakSet();
      state.perLane = {};
      if (c) c.lanes.forEach(function (id, li) { state.perLane[id] = laneIndexOf(c, li); });
      state.fills = P.fillSummaryOf(state.columns);
      state.dependents = null;
      if (state.selected) state.selected = state.selected.id < state.columns.n ? P.blockById(state.selected.id) : null;
      state.hover = null;
      P.applyLanes();
      P.renderLaneList();
      P.renderDetails();
      state.simMessages = Array.isArray(result.messages) ? result.messages : [];
      if (state.fitted) P.fitView(); else P.clampView();
      P.applyPendingView();
      P.applyFollow();
      P.syncControls();
      P.renderLegend();
      P.renderFlags();
      P.renderNotices();
      P.renderVerdict();
      P.renderStructure();
      P.refreshReading();
      state.lastSimMs = performance.now() - t0;
      state.lastApplyMs = performance.now() - applyStart;
      // the next draw() is the first to show this result (lastResultDrawnAt: when it ended)
      state.resultDrawPending = true;
    }

    P.simulateNow = simulateNow;
    P.newWorker = newWorker;
    P.simulateInBackground = simulateInBackground;
  }

  return {install: install};
})();
