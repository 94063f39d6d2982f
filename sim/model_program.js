/*
 * sim/model_program.js: the program model (model "program", docs/programs.md): the code's own
 * role programs (schema 3), run by sim/interpret.js on the engine. This file is the glue: its
 * knobs (the GEMM and Blackwell models' latencies, less what the code decides), why it cannot run
 * a structure, the verdict, the view, and register(), which adds it to schedule.js's MODELS
 * (sim/fit.js defaultFit says where it is the default).
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/model_blackwell.js as a classic script, which makes KernelModelProgram a global; Node gets
 * the same object through module.exports.
 */
var KernelModelProgram = (function () {
  "use strict";

  /** A sibling sim/ module: the page's global (global: its value, undefined in Node), or require()d next to this file. */
  function sibling(global, file) {
    if (global !== undefined) return global;
    if (typeof require === "function" && typeof module !== "undefined") return require("./" + file);
    throw new Error("sim/model_program.js: " + file + " is not loaded (the page runs it before this file)");
  }
  var C = sibling(typeof KernelSimCommon !== "undefined" ? KernelSimCommon : undefined, "common.js");
  var GM = sibling(typeof KernelModelGemm !== "undefined" ? KernelModelGemm : undefined, "model_gemm.js");
  var BW = sibling(typeof KernelModelBlackwell !== "undefined" ? KernelModelBlackwell : undefined, "model_blackwell.js");
  var Timeline = C.Timeline, ENGINE_PRIMITIVES = C.ENGINE_PRIMITIVES, recordEvents = C.recordEvents, normalizeNumber = C.normalizeNumber,
    knobObject = C.knobObject, reportUnknownKnobs = C.reportUnknownKnobs, isObject = C.isObject;
  var WAIT_REASON_PRIORITY = GM.WAIT_REASON_PRIORITY, BLOCK_KINDS = GM.BLOCK_KINDS,
    gemmSourceKnobs = GM.gemmSourceKnobs, gemmView = GM.gemmView;
  var blackwellView = BW.blackwellView;

  /** sim/interpret.js: the page's global, or require()d next to this file. */
  function interpretModule() {
    if (typeof KernelInterpret !== "undefined") return KernelInterpret;
    if (typeof require === "function" && typeof module !== "undefined") return require("./interpret.js");
    return null;
  }

  /** The program model's knobs and the assumptions of those the source leaves open (sim/program_knobs.js). */
  var PK = sibling(typeof KernelProgramKnobs !== "undefined" ? KernelProgramKnobs : undefined, "program_knobs.js");
  var PROGRAM_KNOB_RANGES = PK.PROGRAM_KNOB_RANGES, PROGRAM_DEFAULT_KNOBS = PK.PROGRAM_DEFAULT_KNOBS,
    SOURCE_KNOB_ASSUMPTIONS = PK.SOURCE_KNOB_ASSUMPTIONS;

  /** Validate a knob set for the program model: {knobs, messages}; never throws. */
  function normalizeProgramKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "program" };
    var src = sourceKnobs || {};
    for (var name in PROGRAM_KNOB_RANGES) {
      var r = PROGRAM_KNOB_RANGES[name];
      var fallback = Math.min(r.max, Math.max(r.min, src[name] ? src[name].value : PROGRAM_DEFAULT_KNOBS[name]));
      knobs[name] = normalizeNumber(name, raw[name], r, fallback, messages);
      // A knob of a few values (sfVecSize): any other is its default, said.
      if (r.values && r.values.indexOf(knobs[name]) < 0) {
        messages.push(name + ": " + knobs[name] + " is not one of " + r.values.join(", ") + "; using " + fallback);
        knobs[name] = fallback;
      }
    }
    // Compile-time flags and settings the run reads (Context.flag, dslFlag): {name: value} (common.js normalizeFlagValues).
    if (raw.flags !== undefined) {
      if (isObject(raw.flags)) knobs.flags = C.normalizeFlagValues(raw.flags, messages);
      else messages.push("flags: not an object of flag names, ignored");
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /** Why the program model cannot run a structure, or null (it needs the kernel layer's program). */
  function programCovers(st) {
    var I = interpretModule();
    if (I === null) return "sim/interpret.js is not loaded";
    if (!isObject(st) || !isObject(st.programs) || !Array.isArray(st.programs.functions)) {
      return "the structure has no role programs (schema 3: parse it again)";
    }
    // A `__global__` program driving raw mbarrier rings (DeepGEMM: sim/interpret/mbar.js) is its own kernel.
    var rawRings = (st.pipelines || []).some(function (p) { return isObject(p) && p["class"] === "mbarrier_ring"; });
    if (rawRings && !isObject(st.kernel_layer) && typeof I.mbarCovers === "function") return I.mbarCovers(st);
    if (!isObject(st.kernel_layer) || !isObject(st.kernel_layer.program)) {
      return "no kernel layer's program was parsed: the roles are not known (parse the collective with --kernel-layer)";
    }
    var vars = st.kernel_layer.role_vars;
    if (!Array.isArray(vars) || !vars.length) {
      return "the kernel layer's role branches test no role variable the interpreter reads (an enum of warpgroup or warp roles)";
    }
    // An enum role variable (C++), or a CuTe DSL warp index with its representative warps
    // (programs_dsl.role_vars: members and spans, each span [lo, hi | null]).
    var bad = vars.filter(function (v) {
      if (!isObject(v)) return true;
      if (v.kind === "warp_group_index") return false;   // FA3's warpgroup index (sim/interpret.js wgRoles)
      if (v.kind === "warp_index") {
        return !Array.isArray(v.members) || !v.members.length || !v.members.every(function (m) { return typeof m === "number"; }) ||
          !Array.isArray(v.spans) || v.spans.length !== v.members.length;
      }
      return typeof v["enum"] !== "string";
    });
    if (bad.length) return "a role variable is neither an enum nor a warp index with its member warps: " + (isObject(bad[0]) ? String(bad[0].name) : "?");
    if (vars.some(function (v) { return v.kind === "warp_index"; }) && vars.length !== 1) {
      return "a CuTe DSL kernel with " + vars.length + " warp-index role variables: the interpreter splits roles over one";
    }
    return null;
  }

  /** Upper bound on the program model's block count, known before simulating. */
  function estimateProgramBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    // per k-tile: issue, filling, full and, per consumer role (two at most in the SM90 kernels), a
    // wait and an MMA; per tile and role an epilogue and two order waits (an upper bound).
    return n * 3 + 2 * (2 * n + 3 * knobs.outputTiles) + 64;
  }

  /**
   * Stage counts the load-hiding search tries (1 up to this, within the stages knob's range) and
   * the steps of the busiest CTA (output tiles x k-tiles or KV blocks) above which it is not
   * searched: the GEMM model's bounds (model_gemm.js MIN_STAGES_SEARCH_MAX, MIN_STAGES_SEARCH_TILES).
   */
  var MIN_STAGES_SEARCH_MAX = 64, MIN_STAGES_SEARCH_STEPS = 10000;
  /** Stage counts the search tries one by one (1 up to this) before it doubles and bisects (searchStages). */
  var MIN_STAGES_SEARCH_LINEAR = 8;
  /** Blocks of the current run above which the search is not made (each probe costs up to a run like it). */
  var MIN_STAGES_SEARCH_BLOCKS = 50000;

  /**
   * The knobs that set a load ring's stage count: each modelled pipeline class whose consumer_wait
   * is a wait for copies to land (sim/interpret.js PIPELINE_CLASSES, waitReason "tma") names its
   * stage knob; a cp.async ring (PipelineAsync, CP_ASYNC_WAIT) reads `stages` too. Today that is
   * `stages` alone; several would be varied together.
   */
  function loadStageKnobs(I) {
    var out = { stages: true }, classes = I && I.PIPELINE_CLASSES ? I.PIPELINE_CLASSES : {};
    Object.keys(classes).forEach(function (c) { if (classes[c].waitReason === "tma" && classes[c].stages) out[classes[c].stages] = true; });
    return Object.keys(out).sort();
  }

  /**
   * Engine primitives that watch a run for the load-hiding search (watch = {late, rings, copied,
   * stopOn, stopRings, layoutOnly}). Each ring's stage count goes to watch.rings[name], each
   * ring a copy lands in to watch.copied[name]. A wait by role r
   * on a ring's full barrier for reason `tma` (a load ring) is "late", the GEMM model's definition (model_gemm.js runGemm, engine.js watchLate) read per
   * role and ring, when it starts after step 0 and ends at t while the tensor core is idle (its
   * last job ended before t), here also only once the tensor core has run a job (the prologue's
   * first fills, which no stage count hides, are not steady state): watch.late[r][ring]. With
   * stopOn (role names) and stopRings (ring names), the first late wait of one of those roles on
   * one of those rings ends the run (a probe needs no more); layoutOnly ends it before its first
   * step (only the rings' stage counts are wanted).
   */
  function watchingPrims(watch) {
    // The ring whose full barrier a barrier name is (`ring.full[3]` -> `ring`), else null; kept per name.
    var ringOf = Object.create(null);
    function fullRing(name) {
      var r = ringOf[name];
      if (r === undefined) r = ringOf[name] = /\.full\[\d+\]$/.test(name) ? name.replace(/\.full\[\d+\]$/, "") : null;
      return r;
    }
    var Base = ENGINE_PRIMITIVES.Engine, BaseRing = ENGINE_PRIMITIVES.Ring;
    function WatchEngine(lanes, options) {
      Base.call(this, lanes, options);
      this.watchQueue = null;
      this.watch = watch;
      if (watch.layoutOnly) this.stopped = true;
    }
    WatchEngine.prototype = Object.create(Base.prototype);
    WatchEngine.prototype.constructor = WatchEngine;
    WatchEngine.prototype.queue = function (name) {
      var q = Base.prototype.queue.call(this, name);
      if (name === "tensor core") this.watchQueue = q;
      return q;
    };
    WatchEngine.prototype.passWait = function (r, bar, reason, lines, tile, k, stage) {
      // t and the wait block's start as Engine.passWait / advanceTo compute them.
      var t = bar.time > r.now ? bar.time : r.now, from = this.laneEnd[r.lane] > r.now ? this.laneEnd[r.lane] : r.now;
      var ring = fullRing(bar.name);
      if (reason === "tma" && ring !== null && r.drawWaits && t > from) {
        var q = this.watchQueue;
        if (from > 0 && q !== null && q.busy > 0 && q.end < t) {
          (watch.late[r.name] = watch.late[r.name] || {})[ring] = true;
          if (watch.stopOn && watch.stopOn[r.name] && watch.stopRings && watch.stopRings[ring]) this.stopped = true;
        }
      }
      return Base.prototype.passWait.call(this, r, bar, reason, lines, tile, k, stage);
    };
    // A copy's full barrier names its ring: the rings copies land in are the load rings (watch.copied).
    WatchEngine.prototype.copy = function (bar) {
      var ring = bar && typeof bar.name === "string" ? fullRing(bar.name) : null;
      if (ring !== null) watch.copied[ring] = true;
      return Base.prototype.copy.apply(this, arguments);
    };
    function WatchRing(engine, name, S) {
      BaseRing.apply(this, arguments);
      if (engine.watch) engine.watch.rings[name] = S;
    }
    WatchRing.prototype = BaseRing.prototype;
    var prims = {};
    Object.keys(ENGINE_PRIMITIVES).forEach(function (key) { prims[key] = ENGINE_PRIMITIVES[key]; });
    prims.Engine = WatchEngine;
    prims.Ring = WatchRing;
    return prims;
  }

  /** A fresh watch for watchingPrims. */
  function newWatch(stopOn, stopRings, layoutOnly) {
    return { late: {}, rings: {}, copied: {}, stopOn: stopOn || null, stopRings: stopRings || null, layoutOnly: !!layoutOnly };
  }

  /** The names of the roles that issue MMAs in a run (an MMA group, or a lane with an MMA block). */
  function issuerNames(run) {
    var lanes = mmaLanes(run.columns), out = {};
    run.roles.forEach(function (r) { if (r.mmaGroup !== null || lanes[r.lane]) out[r.name] = true; });
    return out;
  }

  /** Whether watch has a wait of `what` (late) by an MMA-issuing role (issuers) on one of rings. */
  function waitsOn(watch, what, issuers, rings) {
    return Object.keys(watch[what]).some(function (role) {
      return issuers[role] && Object.keys(watch[what][role]).some(function (ring) { return rings[ring]; });
    });
  }

  /**
   * "Stages needed to hide the load" (docs/performance.md "Stages needed to hide the load"): the
   * smallest count S of the load rings' stage knob(s), from 1, whose run has no late load wait
   * (watchingPrims) of an MMA-issuing role on a ring whose stage count is that knob, and no
   * deadlock. The rings the knob sizes are those whose stage count follows it between this run
   * and a layout-only run at another count (a ring with the code's own count, 77's PipelineQ with
   * StageCountQ = 2, is not one: no stage knob changes its waits). The current setting's run
   * (run, watch) answers for its own S. Returns {stages} or {stages: null, why}.
   */
  function minStagesToHideLoad(structure, knobs, run, watch) {
    var I = interpretModule(), reads = programReads(structure, knobs.flags) || {};
    if (run.deadlock !== null) return { stages: null, why: "the run deadlocks" };
    if (run.stopped.length) return { stages: null, why: "a role stopped (" + run.stopped[0].role + " at line " + run.stopped[0].line + "): the run is not the whole kernel" };
    // A copy draws its issue (1 step) whatever its latency, and its filling when the latency is > 0.
    if (!kindPresent(run.columns, "issue") && !kindPresent(run.columns, "filling")) return { stages: null, why: "no load ring: the run draws no copy" };
    var stageKnobs = loadStageKnobs(I).filter(function (k) { return reads[k]; });
    if (!stageKnobs.length) return { stages: null, why: "the load rings' stage counts are the code's own (no stage knob to vary)" };
    var steps = searchSteps(reads, knobs);
    if (steps > MIN_STAGES_SEARCH_STEPS) {
      return { stages: null, why: "not searched above " + MIN_STAGES_SEARCH_STEPS + " steps (output tiles x " + (reads.kvBlocks ? "KV blocks" : "k-tiles") +
        " = " + steps + "; each stage count tried is a run)" };
    }
    if (run.columns && run.columns.n > MIN_STAGES_SEARCH_BLOCKS) {
      return { stages: null, why: "not searched above " + MIN_STAGES_SEARCH_BLOCKS + " blocks (this run draws " + run.columns.n + "; each stage count tried is a run)" };
    }
    var range = PROGRAM_KNOB_RANGES[stageKnobs[0]], top = Math.min(range.max, MIN_STAGES_SEARCH_MAX);
    var current = knobs[stageKnobs[0]], uniform = stageKnobs.every(function (k) { return knobs[k] === current; });
    function variantAt(S) {
      var v = {};
      Object.keys(knobs).forEach(function (name) { v[name] = knobs[name]; });
      stageKnobs.forEach(function (k) { v[k] = S; });
      return v;
    }
    // The rings the knob sizes: their stage count is the knob's in this run and in a layout-only run at another count.
    var other = current < range.max ? current + 1 : current - 1, layout = newWatch(null, null, true);
    I.run(structure, variantAt(other), watchingPrims(layout), { events: false });
    // Of those, the load rings: the rings this run's copies land in.
    var sized = {}, anySized = false;
    Object.keys(watch.rings).forEach(function (name) {
      if (uniform && watch.copied[name] && watch.rings[name] === current && layout.rings[name] === other) { sized[name] = true; anySized = true; }
    });
    var issuers = issuerNames(run);
    if (!anySized) return { stages: null, why: "the load rings have the code's own stage counts (no stage knob sizes them)" };
    function lateAt(S) {
      if (uniform && S === current) return waitsOn(watch, "late", issuers, sized);
      var w = newWatch(issuers, sized, false);
      var probe = I.run(structure, variantAt(S), watchingPrims(w), { events: false });
      return !!probe.error || probe.deadlock !== null || probe.stopped.length > 0 || waitsOn(w, "late", issuers, sized);
    }
    var S = searchStages(range.min, top, lateAt);
    return S !== null ? { stages: S } : { stages: null, why: "the load stays exposed even with " + top + " stages" };
  }

  /**
   * The smallest S in lo..top for which late(S) is false, or null: every count up to
   * MIN_STAGES_SEARCH_LINEAR is tried in turn (exact); above it the counts double (16, 32, 64: at
   * most top) until one hides the load, and the count is bisected between that one and the last
   * that did not. The bisection assumes what holds for a ring: a count that hides the load also
   * hides it with more stages (more stages only let a copy start earlier). At most
   * MIN_STAGES_SEARCH_LINEAR + 2 log2(top) probes, where trying every count to 64 made a setting
   * whose load no count hides cost 64 runs.
   */
  function searchStages(lo, top, late) {
    var S = lo, last = lo - 1;
    for (; S <= Math.min(top, MIN_STAGES_SEARCH_LINEAR); S++) {
      if (!late(S)) return S;
      last = S;
    }
    if (last >= top) return null;
    var hit = null;
    for (S = Math.min(Math.max(2 * last, last + 1), top); hit === null; S = Math.min(2 * S, top)) {
      if (!late(S)) hit = S;
      else if (S >= top) return null;
      else last = S;
    }
    while (hit - last > 1) {   // late(last), !late(hit)
      var mid = (last + hit) >> 1;
      if (late(mid)) last = mid; else hit = mid;
    }
    return hit;
  }

  /** The steps of the busiest CTA the load-hiding search is bounded by: output tiles x KV blocks or k-tiles. */
  function searchSteps(reads, knobs) {
    return knobs.outputTiles * (reads.kvBlocks ? knobs.kvBlocks : knobs.kTiles);
  }

  /** Whether a run's columns hold a block of kind. */
  function kindPresent(columns, kind) {
    if (!columns || !columns.kinds) return false;
    var code = columns.kinds.indexOf(kind);
    if (code < 0) return false;
    for (var i = 0; i < columns.n; i++) if (columns.kind[i] === code) return true;
    return false;
  }

  /** The program model's simulate: sim/interpret.js's run of the structure's programs, as result fields. */
  function simulateProgram(knobs, refs, structure) {
    var I = interpretModule(), estimate = estimateProgramBlocks(knobs);
    // The run records its late load waits (no other effect) for the load-hiding search below.
    // The watching engine costs every wait and copy a little (about 1.4x on a large GEMM run): only
    // a run the search may use is watched; a larger one is answered by its step bound unwatched.
    var searchable = searchSteps(programReads(structure, knobs.flags) || {}, knobs) <= MIN_STAGES_SEARCH_STEPS;
    var watch = searchable ? newWatch(null, null, false) : null;
    var run = I.run(structure, knobs, watch !== null ? watchingPrims(watch) : ENGINE_PRIMITIVES,
      { events: recordEvents(estimate), capacity: estimate });
    if (run.error) {
      var empty = new Timeline([], false, 0).finalize();
      return { total: 0, lanes: [], columns: empty, deadlock: null, barriers: [], barrierEvents: [],
        verdict: { total: 0, waits: {}, tensorCoreUtilization: 0, tensorCoreBusySteps: 0, hazards: [], stopped: [],
          minStagesToHideTma: null, summary: "the program could not run: " + run.error }, notes: { minStagesToHideTma: "the program could not run" } };
    }
    // A deadlock after a role stopped is what is not modelled, not the code's protocol: the
    // roles waiting for the stopped one cannot go on (77 without its epilogue's program).
    if (run.deadlock !== null && run.stopped.length) {
      run.deadlock.afterStopped = run.stopped.map(function (x) { return { role: x.role, line: x.line, reason: x.reason }; });
      run.deadlock.message = "after " + run.stopped.map(function (x) { return x.role + " stopped at line " + x.line; }).join(", ") +
        " (not modelled), the roles waiting for it cannot go on: " + run.deadlock.message;
    }
    // A deadlock with no stop, on barriers nothing in the run ever arrived on, while role bindings
    // reach no step: the missing producer may be one of those (its steps hidden from the run), so
    // the page does not call it the code's deadlock (docs/programs.md "Deadlocks and what is not modelled").
    var never = run.deadlock !== null && !run.stopped.length && (run.idle || []).length ?
      run.deadlock.waiting.filter(function (w) { return w.neverCompleted; }) : [];
    if (never.length) {
      run.deadlock.afterIdle = run.idle.slice();
      run.deadlock.message = "not shown to be the code's: " + never.map(function (w) { return w.barrier; }).join(", ") +
        " never completed while the role bindings " + run.idle.join(", ") + " reach no step (one of them may produce for it, " +
        "through steps the run does not see): " + run.deadlock.message;
    }
    var verdict = {
      total: run.total, waits: run.waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0, tensorCoreBusySteps: run.busy,
      hazards: run.hazards, stopped: run.stopped, roles: run.roles.map(function (r) { return r.name; }),
      flags: run.flags, summary: "",
      hazardText: run.hazards.length ? run.hazards.length + (run.hazards.length >= 20 ? "+" : "") + " (first: " + run.hazards[0].message + ")" : "none",
      stoppedText: run.stopped.length ? run.stopped.map(function (x) { return x.role + " at line " + x.line + ": " + x.reason; }).join("; ") : "none",
      flagsText: flagsText(run.flags), mmaWaits: mmaWaits(run),
      idle: run.idle || [], idleText: run.idle && run.idle.length ? run.idle.join(", ") : "none",
      // TILES_PER_CTA (sim/interpret/expr.js): the tiles one CTA ran and the rule that said so.
      tilesPerCta: run.tilesPerCta.tiles, tilesPerCtaRule: run.tilesPerCta.rule, tilesPerCtaText: tilesPerCtaText(run.tilesPerCta)
    };
    verdict.mmaWaitText = mmaWaitText(verdict.mmaWaits);
    // Why a null figure is null goes to notes (as the GEMM model's), shown by the page as "n/a: why".
    var hide = minStagesToHideLoad(structure, knobs, run, watch), notes = {};
    verdict.minStagesToHideTma = hide.stages;
    if (hide.stages === null) notes.minStagesToHideTma = hide.why;
    verdict.summary = programSummary(run, verdict, knobs);
    // The blocks' lines as source refs ({path, line, end_line, text, op}, as the hand-written
    // models give them), so the page and the exports name each block's file and statement.
    if (run.lineRefs && run.columns) run.columns.linesTable = run.lineRefs;
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict, notes: notes,
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted === true };
  }

  /** The verdict's tiles-per-CTA line: the count and the rule that gave it (TILES_PER_CTA, docs/programs.md). */
  function tilesPerCtaText(t) {
    var why = t.rule === "outputTiles" ? "the outputTiles knob: a persistent CTA's share of the tiles" :
      t.rule === "no tile loop" ? "no tile loop: each CTA computes one tile" :
      t.rule + ": its tile scheduler runs one tile per CTA";
    return t.tiles + " (" + why + ")";
  }

  /**
   * What the roles that issue MMAs wait for: {role: {reason: steps}} (the roles with an MMA group,
   * sim/interpret.js Run.mmaGroups). Their waits are the tensor core's idle time from the issuer's
   * side, each named by its ring (77's MMA warp: `pipeline_mma_s0` for the softmax's S -> P,
   * `PipelineO` for the correction's rescale of O, `tma` for the loads).
   */
  function mmaWaits(run) {
    var out = {}, issuers = mmaLanes(run.columns);
    run.roles.forEach(function (r) {
      if ((r.mmaGroup === null && !issuers[r.lane]) || !run.waits[r.name]) return;
      var w = {}, any = false;
      Object.keys(run.waits[r.name]).forEach(function (k) { if (k !== "total" && run.waits[r.name][k] > 0) { w[k] = run.waits[r.name][k]; any = true; } });
      if (any) out[r.name] = w;
    });
    return out;
  }

  /** The lane indices with an MMA block (`wgmma`, `umma`): the MMA-issuing roles of a run whose roles have no MMA group (DSL, FA3). */
  function mmaLanes(columns) {
    var out = {};
    if (!columns || !columns.kinds) return out;
    var codes = {};
    columns.kinds.forEach(function (k, i) { if (k === "wgmma" || k === "umma") codes[i] = true; });
    for (var i = 0; i < columns.n; i++) if (codes[columns.kind[i]]) out[columns.lane[i]] = true;
    return out;
  }

  /** mmaWaits as one line: "MMA: PipelineO 6, tma 6, pipeline_mma_s0 3" (largest first), or "none". */
  function mmaWaitText(waits) {
    var roles = Object.keys(waits);
    if (!roles.length) return "none";
    return roles.map(function (role) {
      var w = waits[role];
      var keys = Object.keys(w).sort(function (a, b) { return w[b] - w[a] || (a < b ? -1 : 1); });
      return role + ": " + keys.map(function (k) { return k + " " + w[k]; }).join(", ");
    }).join("; ");
  }

  /**
   * The verdict's flags, by name: "NAME on|off" (1 / 0), "NAME = V" for a setting of another value (FA4's
   * `self.q_stage = 2`), a run-time choice (interpret.js RUNTIME_FLAGS) marked "(run time)".
   */
  function flagsText(flags) {
    var I = interpretModule(), rt = I && I.RUNTIME_FLAGS ? I.RUNTIME_FLAGS : {};
    var names = Object.keys(flags).sort();
    if (!names.length) return "none";
    return names.map(function (f) {
      var v = flags[f];
      return f + (rt[f] ? " (run time)" : "") + (v === 0 || v === 1 ? " " + (v ? "on" : "off") : " = " + v);
    }).join(", ");
  }

  /** The program verdict's one line: a deadlock, roles that stopped, hazards, else the figures. */
  function programSummary(run, v, knobs) {
    if (run.deadlock !== null) return run.deadlock.message;
    var parts = [];
    if (run.stopped.length) {
      parts.push("not modelled: " + run.stopped.map(function (s) { return s.role + " stopped at line " + s.line + " (" + s.reason + ")"; }).join("; "));
    }
    if (run.hazards.length) parts.push(run.hazards.length + (run.hazards.length >= 20 ? "+" : "") + " hazard(s): " + run.hazards[0].message);
    parts.push("total " + run.total + " steps; tensor core busy " + Math.round(100 * v.tensorCoreUtilization) + "%");
    if (typeof v.minStagesToHideTma === "number") parts.push("load hidden from " + v.minStagesToHideTma + " stages (have " + knobs.stages + ")");
    return parts.join("; ");
  }

  /**
   * The program model's view: the kinds, legend and wait reasons of the blocks its op classes
   * draw (the SM90 GEMM model's for WGMMA programs, the Blackwell model's for UMMA programs, less
   * the kinds only the hand-written Blackwell program draws: CLC, ACC, DRAIN).
   */
  function programView(knobs, refs, result) {
    var umma = refs && refs.units && refs.units.umma && !refs.units.wgmma;
    var view = umma ? blackwellView() : gemmView(knobs, refs);
    if (umma) {
      ["clc", "acc", "drain"].forEach(function (k) { delete view.kinds[k]; });
      view.legend = view.legend.filter(function (item) { return view.kinds[item.kind]; });
      view.waitReasons = view.waitReasons.filter(function (w) { return ["tma", "acc", "mma"].indexOf(w.reason) >= 0; });
    }
    // The base views describe their own families' roles (the Blackwell GEMM's load warp copying A
    // and B): a program's blocks are its own roles' steps, said generically (PROGRAM_KIND_DOCS).
    Object.keys(PROGRAM_KIND_DOCS).forEach(function (k) { if (view.kinds[k]) view.kinds[k].doc = PROGRAM_KIND_DOCS[k].doc; });
    view.legend.forEach(function (item) { if (PROGRAM_KIND_DOCS[item.kind]) item.text = PROGRAM_KIND_DOCS[item.kind].legend; });
    if (result && result.columns) addRunKinds(view, result.columns);
    view.verdict = [
      { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
      { label: "What the MMA-issuing roles wait for (steps, by ring)", format: "template", template: "{mmaWaitText}" },
      // minStagesToHideLoad: the load rings' stage count from which no MMA-issuing role waits late on a load.
      { label: "Stages needed to hide the load", field: "minStagesToHideTma", format: "stages", knob: "stages" },
      { label: "Hazards (a stage refilled while its MMA reads it)", format: "template", template: "{hazardText}" },
      { label: "Roles not modelled past a step", format: "template", template: "{stoppedText}" },
      { label: "Role bindings that reach no step (no lane)", format: "template", template: "{idleText}" },
      { label: "Tiles per CTA", format: "template", template: "{tilesPerCtaText}" },
      { label: "Flags (compile time; run-time choices marked)", format: "template", template: "{flagsText}" }
    ];
    view.note = ["", ["o.k"], " = output tile o, k-tile k; the lanes are the roles of the kernel layer's own program; time in abstract steps"];
    return view;
  }

  /** The program model's own words for the base views' kinds (their docs and legend texts). */
  var PROGRAM_KIND_DOCS = {
    issue: { doc: "a role's producer_acquire and its copies into one stage (one TMA transaction), 1 step",
      legend: ["issue ", ["o.k"], " (a role's copies into one stage)"] },
    filling: { doc: "the copies in flight: the data lands L steps after the issue", legend: [["FILLING"], " (copies in flight)"] },
    full: { doc: "a stage from the landing of its data to its release (the consumers' release or the commit of the MMAs that read it)",
      legend: [["FULL"], " (landed until released)"] },
    umma: { doc: "a tcgen05 MMA the role issues, on the CTA's tensor core (in issue order)", legend: [["UMMA"], " (a role's tcgen05 MMA)"] },
    wgmma: { doc: "a WGMMA the role issues, on the CTA's tensor core (in-order queue shared by the issuing roles)", legend: ["WGMMA ", ["o.k"], " (a role's WGMMA; alternates by output tile)"] }
  };

  /**
   * Block kinds the interpreter draws that the base view (GEMM or Blackwell) does not name: each
   * with its name, doc and fill (docs/programs.md "Ops", "Register loops").
   */
  var PROGRAM_KINDS = {
    exp: { name: "EXP", doc: "a register loop with exponentials (the softmax's MUFU work): one block of the exp loop latency", fill: "softmax" },
    math: { name: "MATH", doc: "a register loop of other arithmetic (row max, row sum, rescale): one block of the register loop latency", fill: "gemm1" },
    tmem_load: { name: "TMEM LOAD", doc: "a TMEM -> register copy (tmem_load latency)", fill: "transpose" },
    store: { name: "STORE", doc: "a TMA store (store latency), complete at its end", fill: "epilogue" },
    reduce: { name: "REDUCE-ADD", doc: "a bulk reduce-add into global memory, its add done in L2 (reduce-add latency), complete at its end",
      fill: "epilogue" },
    epilogue: { name: "EPILOGUE", doc: "the epilogue collective's store, one block (its program is not parsed)", fill: "epilogue" }
  };

  /**
   * Add to view the kinds and wait reasons of a run that it does not describe yet: the view is
   * derived from what the program's ops drew, never written per kernel family. A wait named by a
   * ring (sim/interpret.js Run.nameWaitReasons) is documented as a wait on that ring.
   */
  function addRunKinds(view, columns) {
    (columns.kinds || []).forEach(function (kind) {
      if (view.kinds[kind]) return;
      var k = PROGRAM_KINDS[kind] || { name: String(kind).toUpperCase(), doc: "a step of the program (" + kind + ")", fill: "issue" };
      view.kinds[kind] = { name: k.name, doc: k.doc, tile: true };
      view.legend.splice(Math.max(0, view.legend.length - 1), 0, { kind: kind, fills: [k.fill], text: [[k.name], " (" + k.doc + ")"] });
    });
    var known = {};
    view.waitReasons.forEach(function (w) { known[w.reason] = true; });
    (columns.reasons || []).forEach(function (reason) {
      if (reason === null || known[reason]) return;
      known[reason] = true;
      view.waitReasons.push({ reason: reason, doc: "the ring `" + reason + "`: a consumer waits for its full barrier (the producer's commit), a producer for its empty barrier (the consumer's release)" });
    });
  }

  /** The run-time choices the interpreter makes (sim/interpret.js RUNTIME_CHOICES, SCHEDULER_STATIC). */
  var PROGRAM_ASSUMPTIONS = [
    "cute::elect_one_sync() is taken: the elected thread's program is the role's",
    "the static persistent tile scheduler: each role's tiles follow advance_to_next_work / fetch_next_work; output tiles (O) is where is_valid() ends",
    "a runtime branch the program cannot evaluate is skipped when it holds no step, else the role stops there (named in the verdict)",
    "an attention mask's trip counts are CUTLASS 77's NoMask: every KV block unmasked (KV blocks per tile is the knob)",
    "a register loop (an unrolled loop over a register tensor) is one block of its math class, and its body's steps run once at its end: an order-barrier arrive inside it is drawn at the loop's end",
    "an if constexpr the front end could not read is a flag named by its text, off (listed in the verdict's flags); of two such texts that differ only by == / !=, the one read second is the first's opposite"
  ];
  var PROGRAM_NOT_MODELLED = [
    "the epilogue collective's own program unless given (--epilogue-collective): collective_epilogue.store is one epilogue block of E steps, and a store handed a pipeline stops its role; its C load (is_producer_load_needed) is taken as not needed",
    "TMEM stores (copy to a tmem_store atom) are no op of the parse: writing P or statistics to TMEM costs nothing",
    "the dynamic persistent scheduler and other compile-time flags the source leaves to its instantiation: off unless knobs.flags says on (listed in the verdict's flags)",
    "pipelines of files not parsed here (the epilogue's, the tile scheduler's): their states and ops are not followed",
    "a lambda's own loops and branches (its ops run at its call site in order)",
    "in cycles (a GPU chosen): an exp block costs only the MUFU's exp2 of its elements (the softmax's row max, scale FMAs, row sum and conversions are not charged), each softmax role running at once gets the whole MUFU, and issue slots and register traffic are free: attention predictions are upper bounds (docs/performance.md \"How well it predicts\")"
  ];

  /** Which MMA unit each program knob times (a structure shows only its units' knobs). */
  var PROGRAM_KNOB_UNITS = {
    wgmmaLatency: "wgmma", kPipeMmas: "wgmma", epilogueLatency: "wgmma",
    ummaLatency: "umma", accStages: "umma", tmemLoadLatency: "umma", storeLatency: "umma"
  };

  /** The MMA units a structure's ops issue: {wgmma?, umma?}. */
  function programUnits(structure) {
    var units = {};
    (isObject(structure) && Array.isArray(structure.functions) ? structure.functions : []).forEach(function (fn) {
      (isObject(fn) && Array.isArray(fn.ops) ? fn.ops : []).forEach(function (op) {
        if (isObject(op) && op.op === "mma") units[op.unit === "umma" ? "umma" : "wgmma"] = true;
      });
    });
    return units;
  }

  /**
   * The program knobs a structure's run reads: one run at the default knobs (and the given
   * compile-time flags, knobs.flags) whose knob object records each read (cached per structure
   * and flags). Null when the run cannot be made.
   */
  var readsCache = typeof WeakMap === "function" ? new WeakMap() : null;
  function programReads(structure, flags) {
    if (!isObject(structure)) return null;
    var key = flags ? JSON.stringify(flags) : "", byFlags = readsCache && readsCache.get(structure);
    if (byFlags && Object.prototype.hasOwnProperty.call(byFlags, key)) return byFlags[key];
    var I = interpretModule(), reads = null;
    if (I !== null && programCovers(structure) === null) {
      reads = {};
      var knobs = flags ? { flags: flags } : {};
      Object.keys(PROGRAM_KNOB_RANGES).forEach(function (name) {
        Object.defineProperty(knobs, name, { enumerable: true, get: function () { reads[name] = true; return PROGRAM_DEFAULT_KNOBS[name]; } });
      });
      var run = I.run(structure, knobs, ENGINE_PRIMITIVES, { events: false });
      if (run.error) reads = null;
    }
    if (readsCache) { if (!byFlags) readsCache.set(structure, byFlags = {}); byFlags[key] = reads; }
    return reads;
  }

  /**
   * The program model's knob specs for a structure: the knobs its run reads (the trip counts,
   * stage counts and latencies its programs use: docs/programs.md "The program model"); where no
   * run can be made, those of the MMA units its ops issue.
   */
  function programSpecs(specs, structure) {
    var reads = programReads(structure);
    if (reads !== null) return specs.filter(function (spec) { return !PROGRAM_KNOB_RANGES[spec.name] || reads[spec.name]; });
    var units = programUnits(structure);
    if (!Object.keys(units).length) return specs;
    return specs.filter(function (spec) { return !PROGRAM_KNOB_UNITS[spec.name] || units[PROGRAM_KNOB_UNITS[spec.name]]; });
  }

  /** The program knobs that time a block (the census sets each to 1 so every block has one step). */
  var PROGRAM_LATENCY_KNOBS = ["tmaLatency", "wgmmaLatency", "epilogueLatency", "ummaLatency", "tmemLoadLatency", "storeLatency",
    "reduceLatency", "softmaxLatency", "mathLatency"];
  /** The step counts of the census's two runs (one output tile each): their difference is one step's work. */
  var CENSUS_STEPS = [2, 3];

  /**
   * What the program's own run draws for one CTA tile (docs/performance.md "The program model in
   * cycles"), the counts programLatencies (sim/perf.js) splits a tile's work by: two runs of one
   * output tile at CENSUS_STEPS steps (KV blocks when the run reads kvBlocks, else k-tiles, else
   * the m-blocks of Q when it reads qBlocks: an attention backward's loop), every latency 1, the
   * other knobs as given. Per step (the second run less the first): MMA jobs (the tensor core's
   * busy steps: it runs one job at a time, and the cooperative WGs' halves are one job), copies
   * (`filling` blocks), exp blocks and the `reduce` (bulk reduce-add) blocks of all roles. Per
   * tile (the first run): the most `epilogue`, `store` and `reduce` blocks any one role draws. A
   * qBlocks census also counts per step the GEMMs (MMA sites, by their source lines, drawn more
   * often at more steps), the `math` blocks and the `store` blocks of all roles. Returns {step:
   * knob name, counts} or {error}.
   */
  function programCensus(structure, knobs) {
    var I = interpretModule(), reads = programReads(structure, knobs.flags);
    if (I === null || reads === null) {
      var why = programCovers(structure) || (I !== null && I.run(structure, Object.assign({}, PROGRAM_DEFAULT_KNOBS, { flags: knobs.flags }), ENGINE_PRIMITIVES, { events: false }).error);
      return { error: "the program cannot be run (" + (why || "sim/interpret.js failed") + ")" };
    }
    var step = reads.kvBlocks ? "kvBlocks" : reads.kTiles ? "kTiles" : reads.qBlocks ? "qBlocks" : null;
    if (step === null) return { error: "the run reads none of kTiles, kvBlocks or qBlocks: its work per tile is not known" };
    var runs = CENSUS_STEPS.map(function (steps) {
      var k = {};
      Object.keys(knobs).forEach(function (name) { k[name] = knobs[name]; });
      PROGRAM_LATENCY_KNOBS.forEach(function (name) { k[name] = 1; });
      k.outputTiles = 1;
      k[step] = steps;
      var est = estimateProgramBlocks(k) + 64 * steps;
      var run = I.run(structure, k, ENGINE_PRIMITIVES, { events: recordEvents(est), capacity: est });
      if (run.error) return { error: run.error };
      // A deadlock after a role stopped is what is not modelled (simulateProgram): count what was drawn.
      if (run.deadlock !== null && !run.stopped.length) return { error: "it deadlocks at " + step + " " + steps + ": " + run.deadlock.message, deadlock: true };
      return censusOf(run);
    });
    var bad = runs.filter(function (r) { return r.error; });
    if (bad.length) return { error: "the census run failed: " + bad[0].error, deadlock: bad[0].deadlock === true };
    var a = runs[0], b = runs[1], per = CENSUS_STEPS[1] - CENSUS_STEPS[0];
    var counts = { mmaJobsPerStep: (b.busy - a.busy) / per, copiesPerStep: (b.filling - a.filling) / per, expPerStep: (b.exp - a.exp) / per,
      epiloguePerTile: a.epilogue, storePerTile: a.store, reducePerStep: (b.reduceAll - a.reduceAll) / per, reducePerTile: a.reduce };
    if (step === "qBlocks") {
      // The MMA sites the longer run draws more often (a peeled first or last block's is no GEMM of the step).
      counts.gemmsPerStep = stepGemms(structure, Object.keys(b.mmaSites).filter(function (key) { return b.mmaSites[key] > (a.mmaSites[key] || 0); }));
      counts.mathPerStep = (b.math - a.math) / per;
      counts.storePerStep = (b.storeAll - a.storeAll) / per;
    }
    return { step: step, counts: counts };
  }

  /**
   * STEP_GEMMS: the GEMMs of a step are its MMA sites grouped by the accumulator they write: the
   * last argument of a C++ CuTe gemm of four (`cute::gemm(mma, A, B, C)`, cute/algorithm/gemm.hpp;
   * CUTLASS 88's `gemm_zero_acc(atom, tA, tB, tC)`, collective/fmha_common.hpp 63). 88's backward
   * issues dQ = dS K as two calls into `acc_DQ` over the two halves of N (789-790) and dK from two
   * branches into `acc_DK` (795, 828): 7 sites, 5 GEMMs. A site whose accumulator is not read (a
   * CuTe DSL MMA) is its own GEMM; the jobs of one GEMM may be several (one per WG).
   */
  function stepGemms(structure, sites) {
    var acc = {}, gemms = {};
    (function walk(x) {
      if (Array.isArray(x)) return x.forEach(walk);
      if (!x || typeof x !== "object") return;
      var last = x.node === "op" && x.op === "mma" && Array.isArray(x.args) && x.args.length === 4 ? x.args[3] : null;
      if (structure.language === "cpp" && Array.isArray(last) && last[0] === "id") acc[x.line] = last[1];
      Object.keys(x).forEach(function (k) { if (k !== "args") walk(x[k]); });
    })(structure.programs || null);
    sites.forEach(function (key) {
      var named = (JSON.parse(key) || []).filter(function (l) { return Object.prototype.hasOwnProperty.call(acc, l); });
      gemms[named.length ? "acc " + acc[named[0]] : key] = true;
    });
    return Object.keys(gemms).length;
  }

  /**
   * One census run's counts: busy steps, filling, exp and math blocks, the most epilogue / store /
   * reduce blocks on one lane, the store and reduce blocks of all lanes, and the MMA blocks per
   * site (their lines).
   */
  function censusOf(run) {
    var c = run.columns, out = { busy: run.busy, filling: 0, exp: 0, math: 0, epilogue: 0, store: 0, storeAll: 0, reduce: 0, reduceAll: 0, mmaSites: {} };
    var perLane = { epilogue: {}, store: {}, reduce: {} };
    for (var i = 0; i < c.n; i++) {
      var kind = c.kinds[c.kind[i]];
      if (kind === "filling" || kind === "exp" || kind === "math") out[kind]++;
      else if (kind === "wgmma" || kind === "umma") {
        var site = JSON.stringify(c.linesTable[c.lines[i]] || null);
        out.mmaSites[site] = (out.mmaSites[site] || 0) + 1;
      } else if (kind === "epilogue" || kind === "store" || kind === "reduce") {
        if (kind !== "epilogue") out[kind + "All"]++;
        perLane[kind][c.lane[i]] = (perLane[kind][c.lane[i]] || 0) + 1;
        out[kind] = Math.max(out[kind], perLane[kind][c.lane[i]]);
      }
    }
    return out;
  }

  /**
   * The code's own program at knobs, for a what-if check of a hand-written model's setting
   * (schedule.js whatIfCheck): one interpreter run, no events, no load-hiding search. Returns
   * {deadlock: message or null, stopped: [{role, line, reason}]} or {error}.
   */
  function runCode(knobs, structure) {
    var I = interpretModule();
    if (I === null || programCovers(structure) !== null) return { error: "the program cannot be run" };
    var run = I.run(structure, knobs, ENGINE_PRIMITIVES, { events: false, capacity: estimateProgramBlocks(knobs) });
    if (run.error) return { error: run.error };
    return { deadlock: run.deadlock !== null ? run.deadlock.message : null,
      stopped: run.stopped.map(function (x) { return { role: x.role, line: x.line, reason: x.reason }; }) };
  }

  /** Register the program model in schedule.js's MODELS (last, as KNOB_TABLE.models lists it). */
  function register(models) {
    models.program = {
      defaults: PROGRAM_DEFAULT_KNOBS,
      ranges: PROGRAM_KNOB_RANGES,
      choices: {},
      normalize: normalizeProgramKnobs,
      sourceKnobs: function (st) { var g = gemmSourceKnobs(st); return g.kPipeMmas ? { kPipeMmas: g.kPipeMmas } : {}; },
      estimateBlocks: estimateProgramBlocks,
      lanes: function () { return []; },
      simulate: simulateProgram,
      runCode: runCode,
      refs: function (st) { return { producer: null, consumer: null, copy: "TMA", units: programUnits(st) }; },
      view: programView,
      flags: {},
      compileFlags: true,   // knobs.flags: the source's compile-time flags by name (schedule.js modelTakesFlags)
      waitReasons: WAIT_REASON_PRIORITY,
      blockKinds: BLOCK_KINDS,
      emptyVerdict: { hazards: [], stopped: [], minStagesToHideTma: null },
      sizeKnobs: "outputTiles (O) or kTiles (K)",
      covers: programCovers,
      adaptSpecs: programSpecs,
      fitReason: "the kernel layer's own role programs, run by sim/interpret.js",
      alongside: true,
      assumptions: function (st) {
        var reads = programReads(st);
        return PROGRAM_ASSUMPTIONS.concat(Object.keys(SOURCE_KNOB_ASSUMPTIONS).filter(function (k) { return reads !== null && reads[k]; })
          .map(function (k) { return SOURCE_KNOB_ASSUMPTIONS[k]; }));
      },
      notModelled: function () { return PROGRAM_NOT_MODELLED.slice(); }
    };
  }

  return {
    register: register,
    programReads: programReads,
    programCensus: programCensus,
    searchStages: searchStages,
    PROGRAM_LATENCY_KNOBS: PROGRAM_LATENCY_KNOBS.slice()
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelModelProgram;
