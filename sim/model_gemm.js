/*
 * sim/model_gemm.js: the SM90 GEMM model (docs/models/gemm.md): CUTLASS 4.2's TMA
 * warp-specialized pingpong / cooperative mainloop and kernel layer as role programs on the
 * engine. Its knobs and their validation, the role program read from the parsed mainloop
 * (gemmProgram), the run (runGemm), the verdict (minStagesToHideTma, the summary), the view
 * description, and register(), which adds it to schedule.js's MODELS.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/fit.js as a classic script, which makes KernelModelGemm a global; Node gets the same object
 * through module.exports.
 */
var KernelModelGemm = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/model_gemm.js: common.js is not loaded (the page runs it before this file)");
  })();
  /** sim/fit.js: the page's global, or require()d next to this file. */
  var FIT = (function () {
    if (typeof KernelFit !== "undefined") return KernelFit;
    if (typeof require === "function" && typeof module !== "undefined") return require("./fit.js");
    throw new Error("sim/model_gemm.js: fit.js is not loaded (the page runs it before this file)");
  })();
  var EMPTY = C.EMPTY, Engine = C.Engine, Ring = C.Ring, OrderBarrier = C.OrderBarrier,
    recordEvents = C.recordEvents, PRODUCER_ROLES = C.PRODUCER_ROLES, CONSUMER_ROLES = C.CONSUMER_ROLES,
    LOAD_OPS = C.LOAD_OPS, tableChoices = C.tableChoices, showValue = C.showValue,
    normalizeNumber = C.normalizeNumber, knobObject = C.knobObject, reportUnknownKnobs = C.reportUnknownKnobs,
    isObject = C.isObject, lineOrNull = C.lineOrNull, opsOf = C.opsOf, pickFunction = C.pickFunction,
    sourceRefs = C.sourceRefs, linesOf = C.linesOf, firstLine = C.firstLine, allOps = C.allOps,
    sourceConstant = C.sourceConstant, layerWarpgroups = C.layerWarpgroups, layerPath = C.layerPath;
  var gemmCovers = FIT.gemmCovers;

  /** Stage counts tried by verdict.minStagesToHideTma (the stages knob range). */
  var MIN_STAGES_SEARCH_MAX = 64;

  /** k-tiles (O * K) above which minStagesToHideTma is not searched (each probe is a run). */
  var MIN_STAGES_SEARCH_TILES = 10000;

  /**
   * Wait reasons of the GEMM model: order (math order barrier before mma()), epilogue-order (before
   * the epilogue), tma (full barrier), tensor-core (a WGMMA issued but queued behind another WG's).
   */
  var WAIT_REASON_PRIORITY = ["order", "epilogue-order", "tma", "tensor-core"];

  /** Block kinds, in the order the page's legend lists them. */
  var BLOCK_KINDS = ["issue", "filling", "full", "wgmma", "epilogue", "wait"];

  /** Numeric knobs of the GEMM model: [min, max] ranges, defaults and slider labels, in display order. */
  var GEMM_KNOB_RANGES = {
    stages: { min: 1, max: 64, label: "stages (S)", doc: "shared-memory pipeline stages" },
    outputTiles: { min: 1, max: 4096, label: "output tiles (O)", doc: "output tiles processed by this CTA" },
    kTiles: { min: 1, max: 4096, label: "k-tiles per tile (K)", doc: "mainloop iterations per output tile" },
    tmaLatency: { min: 0, max: 10000, label: "TMA latency (L)", doc: "steps from TMA issue to stage full" },
    wgmmaLatency: { min: 1, max: 10000, label: "WGMMA latency (W)", doc: "steps of one k-tile's WGMMA" },
    epilogueLatency: { min: 0, max: 10000, label: "epilogue latency (E)", doc: "steps of one tile's epilogue" },
    consumerWGs: { min: 1, max: 2, label: "consumer WGs (C)", doc: "math warpgroups" },
    kPipeMmas: { min: 0, max: 63, label: "K_PIPE_MMAS", doc: "WGMMAs left in flight by warpgroup_wait<K_PIPE_MMAS> before a k-tile is released (source value by default; >= stages deadlocks)" }
  };

  /** Defaults of the GEMM model (kPipeMmas: CUTLASS 4.2's K_PIPE_MMAS = 1 when the source does not say). */
  var GEMM_DEFAULT_KNOBS = {
    model: "gemm",
    stages: 4,
    outputTiles: 4,
    kTiles: 5,
    tmaLatency: 4,
    wgmmaLatency: 2,
    epilogueLatency: 3,
    consumerWGs: 2,
    schedule: "pingpong",
    kPipeMmas: 1
  };

  /**
   * Enumerated knobs of the GEMM model (not sliders): allowed values from schedule.js's KNOB_TABLE,
   * filled in by register() (the table is the one source of the words).
   */
  var GEMM_KNOB_CHOICES = {
    schedule: []
  };

  /**
   * Validate a knob set for the GEMM model: returns {knobs, messages}; never throws. sourceKnobs
   * ({name: {value, line}}) are the source's literal values, used as defaults.
   */
  function normalizeGemmKnobs(input, sourceKnobs) {
    var messages = [];
    var raw = knobObject(input, messages);
    var knobs = { model: "gemm" };
    var src = sourceKnobs || {};
    var name;
    for (name in GEMM_KNOB_RANGES) {
      var fallback0 = src[name] ? src[name].value : GEMM_DEFAULT_KNOBS[name];
      fallback0 = Math.min(GEMM_KNOB_RANGES[name].max, Math.max(GEMM_KNOB_RANGES[name].min, fallback0));
      knobs[name] = normalizeNumber(name, raw[name], GEMM_KNOB_RANGES[name], fallback0, messages);
    }
    for (name in GEMM_KNOB_CHOICES) {
      var value = raw[name];
      var fallback = src[name] ? src[name].value : GEMM_DEFAULT_KNOBS[name];
      var text = typeof value === "string" ? value.trim().toLowerCase() : null;
      if (value === undefined || value === null) knobs[name] = fallback;
      else if (text !== null && GEMM_KNOB_CHOICES[name].indexOf(text) >= 0) knobs[name] = text;
      else {
        messages.push(name + ": " + showValue(value) + " is not one of " +
          GEMM_KNOB_CHOICES[name].join(", ") + "; using the default " + fallback);
        knobs[name] = fallback;
      }
    }
    // K_PIPE_MMAS >= stages is not clamped: CUTLASS static_asserts it (K_PIPE_MMAS < K_PIPE_MAX) and
    // the engine shows why: the release of a stage waits for a WGMMA whose data needs that stage.
    if (knobs.kPipeMmas >= knobs.stages) {
      messages.push("kPipeMmas: " + knobs.kPipeMmas + " >= stages (" + knobs.stages +
        "): CUTLASS rejects this at compile time (static_assert K_PIPE_MMAS < K_PIPE_MAX); the schedule deadlocks");
    }
    reportUnknownKnobs(raw, knobs, messages);
    return { knobs: knobs, messages: messages };
  }

  /** Lanes of the GEMM model in display order: producer, stage0..stage{S-1}, consumer0[, consumer1]. */
  function gemmLanes(knobs) {
    var lanes = [{ id: "producer", label: "producer (load WG)", group: "producer" }];
    for (var s = 0; s < knobs.stages; s++) lanes.push({ id: "stage" + s, label: "stage " + s, group: "stage" });
    for (var c = 0; c < knobs.consumerWGs; c++) lanes.push({ id: "consumer" + c, label: "consumer WG" + c, group: "consumer" });
    return lanes;
  }

  /** Upper bound on the GEMM block count, known before simulating (the block cap uses it). */
  function estimateGemmBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    var copies = knobs.consumerWGs === 2 && knobs.schedule === "cooperative" ? 2 : 1;
    var epilogues = knobs.epilogueLatency > 0 ? knobs.outputTiles : 0;
    // issue + filling + full per k-tile; per consumer copy a WGMMA per k-tile, an epilogue per
    // tile, and at most one wait before each of those plus one before each epilogue order wait.
    return n * (2 + (knobs.tmaLatency > 0 ? 1 : 0)) + copies * 2 * (n + knobs.outputTiles + epilogues);
  }

  /**
   * The consumer's role program from the parsed mainloop (docs/models/gemm.md): which steps exist.
   * Without a recognised mainloop (a producer function with a load and a consumer function with a
   * consumer_wait and an mma) the CUTLASS 4.2 program is assumed whole (`assumed: true`).
   * {acquire, wait, loopRelease, tailRelease, kPipe: {value, line} | null, lines: {...}}.
   */
  function gemmProgram(structure) {
    var st = isObject(structure) ? structure : {};
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var prog = { acquire: true, wait: true, loopRelease: true, tailRelease: true, tailAssumed: false, kPipe: null, assumed: true,
      lines: { acquire: null, wait: null, waitOrderMma: null, waitOrderEpi: null } };
    var kp = sourceConstant(st, "K_PIPE_MMAS");
    if (kp !== null) prog.kPipe = kp;
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    var pOps = opsOf(producer), cOps = opsOf(consumer);
    // Only a recognised mainloop (a producer that loads, a consumer that waits and issues MMAs)
    // is read; anything less keeps the assumed CUTLASS 4.2 program (the page says so).
    var loads = pOps.some(function (op) { return LOAD_OPS[op.op] === true; });
    var waitsAny = cOps.some(function (op) { return op.op === "consumer_wait"; });
    if (!loads || !waitsAny) return prog;
    prog.assumed = false;
    var acq = pOps.filter(function (op) { return op.op === "producer_acquire"; });
    prog.acquire = acq.length > 0;
    if (prog.acquire) prog.lines.acquire = lineOrNull(acq[0].line);
    var waits = cOps.filter(function (op) { return op.op === "consumer_wait"; });
    prog.wait = waits.length > 0;
    if (prog.wait) prog.lines.wait = lineOrNull(waits[waits.length - 1].line);
    // The loop's release: a consumer_release after the consumer function's last mma (by line).
    var lastMma = -Infinity;
    cOps.forEach(function (op) { if (op.op === "mma" && typeof op.line === "number" && op.line > lastMma) lastMma = op.line; });
    prog.loopRelease = cOps.some(function (op) { return op.op === "consumer_release" && typeof op.line === "number" && op.line > lastMma; });
    // The tail's release: a consumer_release in another consumer function (mma_tail).
    prog.tailRelease = functions.some(function (fn) {
      return fn !== consumer && CONSUMER_ROLES[fn.role] && opsOf(fn).some(function (op) { return op.op === "consumer_release"; });
    });
    // A loop release without a separate tail (a CuTe DSL kernel, a partial parse): the tile's last
    // k-tiles are assumed released after the loop, and the page says so.
    prog.tailAssumed = !prog.tailRelease && prog.loopRelease;
    if (prog.tailAssumed) prog.tailRelease = true;
    // K_PIPE_MMAS from a literal warpgroup_wait<N> in the consumer loop when no constant was recorded.
    if (prog.kPipe === null) {
      var ww = cOps.filter(function (op) { return op.op === "warpgroup_wait" && typeof op.line === "number" && op.line > lastMma; });
      ww.forEach(function (op) {
        var n = typeof op.count === "number" ? op.count : typeof op.count === "string" && /^\s*\d+\s*$/.test(op.count) ? Number(op.count) : NaN;
        if (prog.kPipe === null && isFinite(n)) prog.kPipe = { value: n, line: lineOrNull(op.line) };
      });
    }
    return prog;
  }

  /**
   * Values of the GEMM knobs that the source fixes, {name: {value, line}}: kPipeMmas when literal;
   * from the kernel layer (docs/fit.md "Starting knobs"), a pingpong or cooperative schedule tag
   * gives that schedule and 2 consumer WGs, any other tag (basic, unknown) 1 WG, and an integer
   * num_mma_warpgroups the WG count. The page, `node schedule.js export` and the CLI all start here.
   */
  function gemmSourceKnobs(structure) {
    var prog = gemmProgram(structure);
    var out = {};
    if (prog.kPipe !== null) out.kPipeMmas = prog.kPipe;
    var kl = isObject(structure) && isObject(structure.kernel_layer) ? structure.kernel_layer : null;
    if (kl !== null) {
      var line = lineOrNull(kl.schedule_line), path = layerPath(kl);
      if (GEMM_KNOB_CHOICES.schedule.indexOf(kl.schedule) >= 0) {
        out.schedule = { value: kl.schedule, line: line, path: path };
        out.consumerWGs = { value: 2, line: line, path: path };
      } else {
        out.consumerWGs = { value: 1, line: line, path: path };
      }
      var wgs = layerWarpgroups(kl);
      if (wgs !== null) out.consumerWGs = wgs;
    }
    return out;
  }

  /** The producer's role program (Engine.role): per k-tile g, producer_acquire of its stage, then the TMA. */
  function gemmProducer(eng, ring, knobs, refs, prog) {
    var S = knobs.stages, O = knobs.outputTiles, K = knobs.kTiles, L = knobs.tmaLatency;
    var FIRST_STAGE = 1;
    return function () {
      var g = 0, acquired = false, total = O * K, acquireLine = prog.lines.acquire;
      return function () {
        if (g >= total) return null;
        var s = g % S, o = (g / K) | 0, k = g - o * K;
        if (!acquired && prog.acquire) {
          acquired = true;
          return eng.wait(ring.empty[s], ((g / S | 0) & 1) ^ 1, null, EMPTY, o, k, s, acquireLine);
        }
        acquired = false;
        g++;
        return eng.copy(ring.full[s], L, refs.issue, refs.filling, o, k, s, FIRST_STAGE + s, ring);
      };
    };
  }

  // Steps of a GEMM consumer WG's tile, in source order (docs/models/gemm.md): the kernel
  // layer's order wait, mma()'s k-loop (wait, WGMMA, warpgroup_wait<K_PIPE_MMAS> and the lagged
  // release once k >= K_PIPE_MMAS), the order arrive, mma_tail (warpgroup_wait<0>, release of
  // the last min(K_PIPE_MMAS, K) k-tiles), the epilogue between its order wait and arrive.
  var TILE = 0, K_WAIT = 1, K_MMA = 2, K_LAG_WAIT = 3, K_RELEASE = 4, ORDER_ARRIVE_MMA = 5, TAIL_WAIT = 6,
    TAIL_RELEASE = 7, ORDER_WAIT_EPI = 8, EPILOGUE = 9, ORDER_ARRIVE_EPI = 10;

  /**
   * Consumer WG w's role program (Engine.role): the kernel layer's tile loop around the
   * mainloop's mma() and mma_tail(). x: the run's {eng, knobs, refs, prog, ring, tc, order,
   * pingpong, cooperative} (runGemm).
   */
  function gemmConsumer(x, w) {
    var eng = x.eng, knobs = x.knobs, refs = x.refs, prog = x.prog, ring = x.ring, tc = x.tc, order = x.order;
    var pingpong = x.pingpong, cooperative = x.cooperative;
    var S = knobs.stages, O = knobs.outputTiles, K = knobs.kTiles;
    var W = knobs.wgmmaLatency, Ep = knobs.epilogueLatency, KP = knobs.kPipeMmas;
    var orderMmaLine = firstLine(refs.orderMma), orderEpiLine = firstLine(refs.orderEpilogue);
    return function () {
      var P = Math.min(KP, K), tileStep = pingpong ? 2 : 1, parts = cooperative ? 2 : 1;
      var o = pingpong ? w : 0, k = 0, kt = 0, g = 0, step = TILE;
      return function () {
        for (;;) {
          switch (step) {
            case TILE:
              if (o >= O) return null;
              k = 0;
              step = K_WAIT;
              if (pingpong) return order.wait(w, "order", refs.orderMma, o, 0, (o * K) % S, orderMmaLine);
              break;
            case K_WAIT:
              if (k >= K) { step = ORDER_ARRIVE_MMA; break; }
              g = o * K + k;
              step = K_MMA;
              if (prog.wait) return eng.wait(ring.full[g % S], (g / S | 0) & 1, "tma", refs.wait, o, k, g % S, prog.lines.wait);
              break;
            case K_MMA:
              step = K_LAG_WAIT;
              return eng.mma(tc, W, "wgmma", refs.wgmma, o, k, g % S, parts, cooperative ? g : null);
            case K_LAG_WAIT:
              if (k < P) { k++; step = K_WAIT; break; }
              step = K_RELEASE;
              return eng.mmaWait(KP, null, EMPTY);
            case K_RELEASE:
              k++;
              step = K_WAIT;
              if (prog.loopRelease) return eng.arriveCmd(ring.empty[(g - P) % S]);
              break;
            case ORDER_ARRIVE_MMA:
              step = TAIL_WAIT;
              if (pingpong) return order.arrive(w);
              break;
            case TAIL_WAIT:
              kt = K - P;
              step = TAIL_RELEASE;
              return eng.mmaWait(0, null, EMPTY);
            case TAIL_RELEASE:
              if (prog.tailRelease && kt < K) return eng.arriveCmd(ring.empty[(o * K + kt++) % S]);
              step = ORDER_WAIT_EPI;
              break;
            case ORDER_WAIT_EPI:
              step = EPILOGUE;
              if (pingpong) return order.wait(w, "epilogue-order", refs.orderEpilogue, o, null, null, orderEpiLine);
              break;
            case EPILOGUE:
              step = ORDER_ARRIVE_EPI;
              return eng.work(Ep, "epilogue", refs.epilogue, o, null, null);
            default:
              // ORDER_ARRIVE_EPI: the next tile of this WG follows
              step = TILE;
              o += tileStep;
              if (pingpong) return order.arrive(w);
          }
        }
      };
    };
  }

  /**
   * Run the GEMM model on the engine. With build false no block is allocated and the run stops at
   * the first late TMA wait ({deadlock, stopped}); with build true, probe(lateTma) is told
   * whether one occurred. The roles: the producer (gemmProducer) and each consumer WG (gemmConsumer).
   */
  function runGemm(knobs, refs, prog, build, probe) {
    var S = knobs.stages, C = knobs.consumerWGs;
    var pingpong = C === 2 && knobs.schedule === "pingpong";
    var cooperative = C === 2 && knobs.schedule === "cooperative";
    var lanes = gemmLanes(knobs);
    var FIRST_STAGE = 1, FIRST_CONSUMER = 1 + S;
    var estimate = estimateGemmBlocks(knobs);
    var eng = new Engine(lanes, { build: build, events: build && recordEvents(estimate), capacity: build ? estimate : 0 });
    var releaseLines = linesOf(refs.release);
    var ring = new Ring(eng, "MainloopPipeline", S, FIRST_STAGE, 1, cooperative ? 2 : 1,
      { full: { wait: linesOf(refs.wait), arrive: linesOf(refs.filling) },
        empty: { wait: linesOf(refs.issue.filter(function (r) { return r.op === "producer_acquire"; })),
          arrive: releaseLines } }, refs.full);
    var tc = eng.queue("tensor core");
    // A TMA wait is "late" when it starts after step 0 and ends while the tensor core is idle
    // (a wait that ends while another WGMMA still runs costs nothing); a probe run stops there.
    eng.watchLate("tma", tc, !build);
    var order = pingpong ? new OrderBarrier(eng, "math_wg_order_barrier", 2, 2,
      { wait: linesOf(refs.order.filter(function (r) { return r.op === "wait"; })),
        arrive: linesOf(refs.order.filter(function (r) { return r.op === "arrive"; })) }) : null;

    // Role programs as step functions (Engine.role): each call returns the role's next command.
    eng.role("producer", 0, gemmProducer(eng, ring, knobs, refs, prog), { drawWaits: false });
    var x = { eng: eng, knobs: knobs, refs: refs, prog: prog, ring: ring, tc: tc, order: order, pingpong: pingpong,
      cooperative: cooperative };
    for (var c = 0; c < C; c++) eng.role("consumer" + c, FIRST_CONSUMER + c, gemmConsumer(x, c));
    var deadlock = eng.run();
    if (!build) return { deadlock: deadlock, stopped: eng.stopped };
    if (probe) probe(eng.late);
    return {
      total: eng.tl.total,
      lanes: lanes,
      columns: eng.tl.finalize(),
      roles: eng.roles,
      busy: tc.busy,
      deadlock: deadlock,
      barriers: eng.barrierList(),
      barrierEvents: eng.sortedEvents(),
      barrierEventsOmitted: eng.events === null
    };
  }

  /**
   * Smallest S in 1..64 whose run has no late TMA wait (one starting after step 0 and ending while
   * the tensor core is idle) and no deadlock, else null.
   */
  function minStagesToHideTma(knobs, refs, prog, currentLate) {
    for (var S = 1; S <= MIN_STAGES_SEARCH_MAX; S++) {
      var late;
      if (S === knobs.stages) late = currentLate;
      else {
        var variant = {};
        for (var key in knobs) variant[key] = knobs[key];
        variant.stages = S;
        var run = runGemm(variant, refs, prog, false, true);
        late = run.stopped || run.deadlock !== null;
      }
      if (!late) return S;
    }
    return null;
  }

  /** Zeroed per-reason wait totals of one GEMM consumer lane. */
  function newWaitTotals() {
    var w = {};
    WAIT_REASON_PRIORITY.forEach(function (r) { w[r] = 0; });
    w.total = 0;
    return w;
  }

  /** One-line human summary of a GEMM verdict. */
  function gemmSummary(knobs, verdict) {
    var C = knobs.consumerWGs;
    var head = (C === 2 ? knobs.schedule + ", 2 consumer WGs" : "1 consumer WG") + ": " + verdict.total + " steps";
    var util = Math.round(verdict.tensorCoreUtilization * 1000) / 10;
    var parts = [head, "tensor cores busy " + util + "%"];
    var lanesText = Object.keys(verdict.waits).map(function (lane) {
      var w = verdict.waits[lane];
      var items = WAIT_REASON_PRIORITY.filter(function (r) { return w[r] > 0; }).map(function (r) { return r + " " + w[r]; });
      return lane + " waits " + (items.length ? items.join(", ") : "none");
    });
    parts = parts.concat(lanesText);
    if (verdict.minStagesToHideTma === null) {
      parts.push("TMA latency not hidden even with " + MIN_STAGES_SEARCH_MAX + " stages");
    } else {
      parts.push("TMA hidden from " + verdict.minStagesToHideTma + " stages (have " + knobs.stages + ")");
    }
    return parts.join("; ");
  }

  /** The GEMM model's simulate: validated knobs and precomputed refs in, result fields out. */
  function simulateGemm(knobs, refs, structure) {
    var prog = refs.program;
    var late = false;
    var run = runGemm(knobs, refs, prog, true, function (flag) { late = flag; });
    var waits = {};
    run.roles.forEach(function (role, i) {
      if (i === 0) return;
      var w = newWaitTotals();
      for (var reason in role.waits) { w[reason] = role.waits[reason]; w.total += role.waits[reason]; }
      waits[role.name] = w;
    });
    var verdict = {
      total: run.total,
      waits: waits,
      tensorCoreUtilization: run.total > 0 ? run.busy / run.total : 0,
      tensorCoreBusySteps: run.busy,
      minStagesToHideTma: run.deadlock !== null ? null :
        knobs.outputTiles * knobs.kTiles <= MIN_STAGES_SEARCH_TILES ? minStagesToHideTma(knobs, refs, prog, late) : null,
      summary: ""
    };
    verdict.summary = run.deadlock !== null ? run.deadlock.message : gemmSummary(knobs, verdict);
    if (run.deadlock === null && knobs.outputTiles * knobs.kTiles > MIN_STAGES_SEARCH_TILES) {
      verdict.summary = verdict.summary.replace(/; TMA (latency not hidden|hidden from)[^;]*$/, "; minimum stages not searched above " +
        MIN_STAGES_SEARCH_TILES + " k-tiles");
    }
    // Why a verdict figure is null, for the page ("n/a: why"). Outside `verdict`, so the golden
    // digests (tests/js/golden.test.js reads the verdict) are unchanged. The three cases are the
    // three nulls of minStagesToHideTma above: a deadlock, a run too large to search, no S in
    // 1..MIN_STAGES_SEARCH_MAX without a late TMA wait.
    var notes = {};
    if (verdict.minStagesToHideTma === null) {
      notes.minStagesToHideTma = run.deadlock !== null ? "the run deadlocks" :
        knobs.outputTiles * knobs.kTiles > MIN_STAGES_SEARCH_TILES ? "not searched above " + MIN_STAGES_SEARCH_TILES +
          " k-tiles (output tiles x k-tiles = " + knobs.outputTiles * knobs.kTiles + "; each stage count tried is a run)" :
        "the TMA latency stays exposed even with " + MIN_STAGES_SEARCH_MAX + " stages";
    }
    return { total: run.total, lanes: run.lanes, columns: run.columns, verdict: verdict, notes: notes,
      deadlock: run.deadlock, barriers: run.barriers, barrierEvents: run.barrierEvents,
      barrierEventsOmitted: run.barrierEventsOmitted };
  }

  /** The kind of copy a GEMM structure's producer issues: "cp.async" when it only has cp_async loads. */
  function copyKind(structure) {
    var ops = allOps(isObject(structure) ? structure : {});
    var tma = ops.some(function (op) { return op.op === "tma_load"; });
    var cp = ops.some(function (op) { return op.op === "cp_async"; });
    return cp && !tma ? "cp.async" : "TMA";
  }

  /** The GEMM model's view description for a run (copy: "TMA" or "cp.async"). */
  function gemmView(knobs, refs) {
    var copy = refs && refs.copy ? refs.copy : "TMA";
    return {
      unit: "k-tile",
      copy: copy,
      kinds: {
        issue: { name: copy + " issue", doc: "producer_acquire + the " + copy + " copies of one k-tile (1 step)", chain: "k", rank: 0 },
        filling: { name: "FILLING", doc: copy + " in flight: the data lands L steps after the issue", chain: "k", rank: 1 },
        full: { name: "FULL", doc: "the stage holds its k-tile, from the landing to its release (consumer_release)", chain: "k", rank: 2 },
        wgmma: { name: "WGMMA", doc: "the k-tile's WGMMAs on the tensor core (in-order queue shared by the consumer WGs)", chain: "k", tile: true, rank: 4 },
        epilogue: { name: "EPILOGUE", doc: "the tile's epilogue (collective_epilogue.store)", tile: true, rank: 7 },
        wait: { name: "WAIT", doc: "the WG is blocked" }
      },
      legend: [
        { kind: "issue", fills: ["issue"], text: ["issue ", ["o.k"], " (producer " + copy + " issue)"] },
        { kind: "filling", fills: ["filling"], text: [["FILLING"], " (" + copy + " in flight)"] },
        { kind: "full", fills: ["full"], text: [["FULL"], " (landed until released)"] },
        { kind: "wgmma", fills: ["mma-a", "mma-b"], text: ["WGMMA ", ["o.k"], " (alternates by output tile)"] },
        { kind: "epilogue", fills: ["epilogue"], text: [["EPI o"], " (epilogue)"] },
        { kind: "wait", fills: ["wait"], text: [["WAIT reason"], " (hatched bubble)"] }
      ],
      note: ["", ["o.k"], " = output tile o, k-tile k; time in abstract steps"],
      waitReasons: [
        { reason: "order", doc: "math warpgroup order barrier before mma() (the other consumer WG has the tensor cores)" },
        { reason: "epilogue-order", doc: "epilogue order barrier (the other consumer WG stores first)" },
        { reason: "tma", doc: "the stage's full barrier: its " + copy + " data has not landed" },
        { reason: "tensor-core", doc: "the WGMMA is issued but queued behind another one on the tensor core" }
      ],
      verdict: [
        { label: "Tensor-core utilization", field: "tensorCoreUtilization", format: "percent" },
        { label: "Min stages to hide " + copy, field: "minStagesToHideTma", format: "stages", knob: "stages" }
      ],
      subLaneGroups: []
    };
  }

  /** What the GEMM model assumes of a structure that fits it (fitModel's assumptions). */
  function gemmAssumptions(st) {
    var out = [];
    if (!isObject(st.kernel_layer)) {
      out.push("no kernel layer was parsed: the tile loop, the number of consumer WGs and the schedule (pingpong or cooperative) are the knobs' (as in CUTLASS 4.2's sm90_gemm_tma_warpspecialized_pingpong/_cooperative.hpp)");
    }
    if (copyKind(st) === "cp.async") {
      out.push("the loads are cp.async (PipelineAsync), not TMA: the copy latency knob stands for cp.async");
    }
    return out;
  }

  /** What each model leaves out of a kernel it fits: shown on the page, fit.notModelled. */
  var GEMM_NOT_MODELLED = [
    "the epilogue (its C loads, smem and D stores, and the kernel layer's epilogue pipelines) is one latency E per output tile",
    "every output tile has the same k-tile count, and the tile scheduler's own work takes no time"
  ];

  /**
   * GEMM_NOT_MODELLED plus what this structure's MMA function does that the model's one wait per
   * k-tile (`warpgroup_wait<K_PIPE_MMAS>`, then the release) does not draw: several
   * warpgroup_waits (the FP8 blockwise mainloop's `warpgroup_wait<0>` before each scale promotion,
   * the RS mixed-input mainloop's wait per k-block with its register conversions of A). That entry
   * is a divergence from the code's protocol, not an omission, so it is structured
   * `{text, diverges: true, lines}` (sim/fit.js notModelledOf; the default rule, docs/fit.md
   * "Default model", reads the flag, never the text). The program model, where it runs, draws the
   * code's own order.
   */
  function gemmNotModelled(st) {
    var out = GEMM_NOT_MODELLED.slice();
    var fns = isObject(st) && Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    fns.forEach(function (fn) {
      var ops = Array.isArray(fn.ops) ? fn.ops : [];
      if (!ops.some(function (op) { return op.op === "mma"; })) return;
      var waits = ops.filter(function (op) { return op.op === "warpgroup_wait"; }).map(function (op) { return op.line; });
      if (waits.length > 1) {
        out.push({ diverges: true, lines: waits.slice(),
          text: (fn.name || "the MMA function") + "() waits on its WGMMAs " + waits.length + " times (warpgroup_wait, lines " + waits.join(", ") +
            "), more than the one warpgroup_wait<K_PIPE_MMAS> per k-tile this model draws: its order of waits, MMAs and releases may differ (the program model runs the code's own)" });
      }
    });
    return out;
  }

  /** Source refs of the GEMM model: sourceRefs plus the role program read from the structure. */
  function gemmRefs(structure) {
    var refs = sourceRefs(structure);
    refs.program = gemmProgram(structure);
    refs.copy = copyKind(structure);
    return refs;
  }

  /** Say where K_PIPE_MMAS came from when the knob was not set and the structure did not give it. */
  function adjustGemmKnobs(knobs, refs, messages, raw) {
    var given = isObject(raw) && raw.kPipeMmas !== undefined && raw.kPipeMmas !== null;
    if (!given && refs.program.kPipe === null && !refs.program.assumed) {
      messages.push("kPipeMmas: K_PIPE_MMAS is not in the parsed structure; using CUTLASS 4.2's value 1 " +
        "(sm90_mma_tma_gmma_ss_warpspecialized.hpp:264)");
    }
    if (!refs.program.loopRelease) messages.push("no consumer_release after the last mma of " +
      (refs.consumer ? refs.consumer.name : "the consumer") + "(): the mainloop releases no stage (only the tail does)");
    if (!refs.program.acquire) messages.push("no producer_acquire in the producer: loads do not wait for a free stage");
    if (refs.program.tailAssumed) messages.push("no release after the mainloop (mma_tail) was found: the last kPipeMmas " +
      "k-tiles of each tile are assumed released after the loop's warpgroup_wait<0>");
  }

  /** The GEMM model's knob specs for a structure: a cp.async mainloop's copy latency says cp.async, not TMA. */
  function gemmSpecs(specs, structure) {
    if (structure === undefined || copyKind(structure) !== "cp.async") return specs;
    specs.forEach(function (spec) {
      if (spec.name !== "tmaLatency") return;
      spec.label = "cp.async latency (L)";
      spec.short = "cp.async fill";
      spec.doc = "steps from the cp.async copies' issue to the stage full (producer_commit's arrive)";
    });
    return specs;
  }

  /** Register the GEMM model in schedule.js's MODELS; its schedule words come from the knob table. */
  function register(models, table) {
    GEMM_KNOB_CHOICES.schedule = tableChoices(table, "schedule");
    models.gemm = {
      defaults: GEMM_DEFAULT_KNOBS,
      ranges: GEMM_KNOB_RANGES,
      choices: GEMM_KNOB_CHOICES,
      normalize: normalizeGemmKnobs,
      sourceKnobs: gemmSourceKnobs,
      // Knobs that stand for a constant the source spells (`K_PIPE_MMAS = 1`, collective 264): a
      // value other than the source's is an edit of the code, checked against its own program
      // (schedule.js whatIfCheck). The equivalence tests found the model and the code apart only there.
      whatIfKnobs: ["kPipeMmas"],
      adjust: adjustGemmKnobs,
      estimateBlocks: estimateGemmBlocks,
      lanes: gemmLanes,
      simulate: simulateGemm,
      refs: gemmRefs,
      view: gemmView,
      flags: {},
      waitReasons: WAIT_REASON_PRIORITY,
      blockKinds: BLOCK_KINDS,
      // Model-specific verdict fields of a result with no blocks (block cap).
      emptyVerdict: { minStagesToHideTma: null },
      // Knobs that multiply the block count, named in the block-cap error.
      sizeKnobs: "outputTiles (O) or kTiles (K)",
      covers: gemmCovers,
      adaptSpecs: gemmSpecs,
      fitReason: "one pipeline: a loading producer and a waiting MMA consumer",
      assumptions: gemmAssumptions,
      notModelled: gemmNotModelled
    };
  }

  return {
    register: register,
    GEMM_DEFAULT_KNOBS: GEMM_DEFAULT_KNOBS,
    GEMM_KNOB_RANGES: GEMM_KNOB_RANGES,
    GEMM_KNOB_CHOICES: GEMM_KNOB_CHOICES,
    WAIT_REASON_PRIORITY: WAIT_REASON_PRIORITY,
    BLOCK_KINDS: BLOCK_KINDS,
    gemmSourceKnobs: gemmSourceKnobs,
    gemmView: gemmView,
    runGemm: runGemm
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelModelGemm;
