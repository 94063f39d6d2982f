/*
 * sim/blackwell_roles.js: the Blackwell model's run (docs/models/blackwell.md): its lanes and
 * block estimate, its barriers (the mainloop and accumulator rings, the CLC response and throttle,
 * the C loads), and runBlackwell, the role programs of the Sched, load, MMA, epilogue and
 * epilogue-load warps on the engine. sim/model_blackwell.js (knobs, refs, verdict, view) uses it.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/model_attention.js as a classic script, which makes KernelBlackwellRoles a global; Node gets
 * the same object through module.exports.
 */
var KernelBlackwellRoles = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/blackwell_roles.js: common.js is not loaded (the page runs it before this file)");
  })();
  var EMPTY = C.EMPTY, Engine = C.Engine, Ring = C.Ring, OrderBarrier = C.OrderBarrier, recordEvents = C.recordEvents;

  /** CLC response and throttle stages: the builder's SchedulerPipelineStageCount (sm100_umma_builder.inl:272). */
  var BW_CLC_STAGES = 2;

  /** C stages of the epilogue load pipeline (StagesC; not parsed: the epilogue builder picks it per tile). */
  var BW_C_STAGES = 2;

  /** Lines of refs (nulls dropped), for barrier descriptions. */
  function bwLines(refs) {
    return refs.map(function (r) { return r.line; }).filter(function (l) { return l !== null; });
  }

  /** Warp numbers of a parsed WarpCategory role as text ("warp 0", "warps 4+"), or "". */
  function bwWarps(roles, name) {
    for (var i = 0; i < roles.length; i++) {
      if (roles[i].name !== name) continue;
      var w = roles[i].warps;
      if (Array.isArray(w)) return w.length === 1 ? "warp " + w[0] : "warps " + w.join(", ");
      if (typeof w === "string") return "warps " + w;
    }
    return "";
  }

  /** Lanes of the Blackwell model in display order (docs/models/blackwell.md, lanes). */
  function blackwellLanes(knobs, refs) {
    var sh = refs && refs.shape ? refs.shape : { clc: true, roles: [] };
    var roles = sh.roles || [];
    var lanes = [];
    function tag(name, fallback) {
      var w = bwWarps(roles, name);
      return w ? " (" + fallback + ", " + w + ")" : " (" + fallback + ")";
    }
    function cta(prefix, c) {
      var p = c === 0 ? "" : "peer ";
      lanes.push({ id: prefix + "producer", label: p + "producer" + tag("MainloopLoad", "TMA load warp"), group: "producer", cta: c });
      for (var s = 0; s < knobs.stages; s++) lanes.push({ id: prefix + "stage" + s, label: p + "stage " + s, group: "stage", cta: c });
      if (c === 0) lanes.push({ id: "mma", label: "MMA" + tag("MMA", "issues UMMAs; tensor core"), group: "mma", cta: 0 });
      for (var a = 0; a < knobs.accStages; a++) lanes.push({ id: prefix + "acc" + a, label: p + "TMEM acc " + a, group: "acc", cta: c });
      lanes.push({ id: prefix + "epilogue", label: p + "epilogue" + tag("Epilogue", "epilogue warps"), group: "epilogue", cta: c });
      if (knobs.loadC) {
        lanes.push({ id: prefix + "epi_load", label: p + "epi_load" + tag("EpilogueLoad", "C load warp"), group: "epi_load", cta: c });
        for (var sc = 0; sc < BW_C_STAGES; sc++) lanes.push({ id: prefix + "c_stage" + sc, label: p + "C stage " + sc, group: "stage", cta: c });
      }
    }
    if (sh.clc) lanes.push({ id: "sched", label: "sched" + tag("Sched", "CLC warp"), group: "sched", cta: 0 });
    cta("", 0);
    if (knobs.ctaPair) cta("peer_", 1);
    return lanes;
  }

  /** Upper bound on the Blackwell block count (docs/models/blackwell.md, block cap). */
  function estimateBlackwellBlocks(knobs) {
    var n = knobs.outputTiles * knobs.kTiles;
    var ctas = knobs.ctaPair ? 2 : 1;
    // per k-tile: issue, filling, full, UMMA and a wait before it; the peer's issue, filling, full.
    // per tile: MMA waits (clc, acc); per CTA acc/full/drain + tmem_load, store and 3 waits;
    // sched: clc + 3 waits; per CTA with C: issue, filling, full and 2 waits.
    // Each further epilogue subtile: a TMEM load, a store, a drain and 2 waits per CTA, and with C
    // an issue, filling, full and 2 waits more.
    var sub = knobs.epiSubtiles - 1;
    return n * (5 + 3 * (ctas - 1)) + knobs.outputTiles * (2 + 8 * ctas + 4 + (knobs.loadC ? 5 * ctas : 0) +
      sub * ctas * (5 + (knobs.loadC ? 5 : 0)));
  }

  /** Barrier line lists {wait, arrive} from two ref lists. */
  function bwBarLines(wait, arrive) {
    return { wait: bwLines(wait), arrive: bwLines(arrive) };
  }

  /** First line of a ref list, or null. */
  function bwLine(refs) {
    return refs.length > 0 ? refs[0].line : null;
  }

  /**
   * The Blackwell model's barriers on engine eng, in the order they are made (barrier ids follow
   * it), set on x: the mainloop rings, the accumulator barriers, the CLC response and throttle
   * barriers (with a CLC scheduler), the C rings and load-order barriers (with loadC).
   */
  function bwBarriers(eng, knobs, refs, x) {
    var S = knobs.stages, A = knobs.accStages, loadC = knobs.loadC, ctas = x.ctas, li = x.li;
    var prefix = BW_PREFIX, name = BW_NAME, CS = BW_CLC_STAGES, SC = BW_C_STAGES;
    // Mainloop PipelineTmaUmmaAsync per CTA. In 2-SM mode both CTAs' TMAs complete the leader's
    // full barrier (expected 2 here) and the leader's commit is multicast to both empty barriers.
    var mainLines = { full: bwBarLines(refs.tmaWait, refs.filling), empty: bwBarLines(refs.acquire, refs.release) };
    var rings = [];
    for (var c0 = 0; c0 < ctas; c0++) {
      rings.push(new Ring(eng, name[c0] + "MainloopPipeline", S, li[prefix[c0] + "stage0"], c0 === 0 ? ctas : 1, 1, mainLines, refs.full));
    }
    // Accumulator PipelineUmmaAsync: full per CTA (umma_arrive, multicast in 2-SM mode), empty on
    // the leader only, expected one arrival per CTA's epilogue (consumer_arv_count, K 529).
    var accFull = [], accEmpty = [];
    for (var c1 = 0; c1 < ctas; c1++) {
      var row = [];
      for (var a0 = 0; a0 < A; a0++) {
        row.push(eng.barrier(name[c1] + "AccumulatorPipeline.full[" + a0 + "]", "acc_full", a0, 1, bwBarLines(refs.epiAccWait, refs.accCommit)));
      }
      accFull.push(row);
    }
    for (var a1 = 0; a1 < A; a1++) {
      accEmpty.push(eng.barrier("AccumulatorPipeline.empty[" + a1 + "]", "acc_empty", a1, ctas, bwBarLines(refs.accWait, refs.accRelease)));
    }
    // CLC response pipeline (PipelineCLCFetchAsync) and its throttle (PipelineAsync).
    var clcFull = [], clcEmpty = [], thrFull = [], thrEmpty = [];
    var consumers = 1 + ctas + 1 + ctas + (loadC ? ctas : 0); // sched, load warps, MMA, epilogues, C loads
    if (x.clc) {
      var fetchLines = bwLines(refs.fetchProducer.concat(refs.fetchSched, refs.fetchMma, refs.fetchEpiLoad, refs.fetchEpilogue));
      for (var i0 = 0; i0 < CS; i0++) {
        clcFull.push(eng.barrier("CLCPipeline.full[" + i0 + "]", "clc_full", i0, 1, { wait: fetchLines, arrive: bwLines(refs.clcQuery) }));
        clcEmpty.push(eng.barrier("CLCPipeline.empty[" + i0 + "]", "clc_empty", i0, consumers, { wait: bwLines(refs.clcQuery), arrive: fetchLines }));
        thrFull.push(eng.barrier("CLCThrottlePipeline.full[" + i0 + "]", "throttle_full", i0, 1, bwBarLines(refs.throttleWait, refs.throttle)));
        thrEmpty.push(eng.barrier("CLCThrottlePipeline.empty[" + i0 + "]", "throttle_empty", i0, 1, bwBarLines(refs.throttle, refs.throttleWait)));
      }
    }
    // Epilogue C loads: PipelineTransactionAsync<StagesC> per CTA and the LoadOrderBarrier.
    var cRings = [], orders = [];
    if (loadC) {
      for (var c2 = 0; c2 < ctas; c2++) {
        cRings.push(new Ring(eng, name[c2] + "EpiLoadPipeline", SC, li[prefix[c2] + "c_stage0"], 1, 1,
          { full: bwBarLines(refs.cWait, refs.epiLoad), empty: { wait: [], arrive: bwLines(refs.cWait) } }, refs.cWait));
        orders.push(new OrderBarrier(eng, name[c2] + "load_order_barrier", 1, 2, bwBarLines(refs.orderWait, refs.orderArrive)));
      }
    }
    x.rings = rings;
    x.accFull = accFull;
    x.accEmpty = accEmpty;
    x.clcFull = clcFull;
    x.clcEmpty = clcEmpty;
    x.thrFull = thrFull;
    x.thrEmpty = thrEmpty;
    x.cRings = cRings;
    x.orders = orders;
  }

  /** Lane-id prefixes and barrier-name prefixes of the leader CTA (0) and its peer (1). */
  var BW_PREFIX = ["", "peer_"], BW_NAME = ["", "peer "];

  /** fetch_next_work: consumer_wait on the CLC response of tile o, consumer_release at once. */
  function* fetchNextWork(x, o, who) {
    if (!x.clc) return;
    var st = o % BW_CLC_STAGES, eng = x.eng;
    yield eng.wait(x.clcFull[st], ((o / BW_CLC_STAGES) | 0) & 1, "clc", x.fetchRefs[who], o, null, null, bwLine(x.fetchRefs[who]));
    yield eng.arriveCmd(x.clcEmpty[st]);
  }

  /**
   * Sched warp (first CTA of the cluster): throttle wait/release, producer_acquire of the
   * response stage, try_cancel (the response lands clcLatency later), then its own fetch.
   */
  function bwSched(x) {
    var eng = x.eng, refs = x.refs, O = x.knobs.outputTiles, CL = x.knobs.clcLatency, CS = BW_CLC_STAGES;
    var thrFull = x.thrFull, thrEmpty = x.thrEmpty, clcFull = x.clcFull, clcEmpty = x.clcEmpty;
    return function* () {
      for (var o = 0; o < O; o++) {
        var st = o % CS, ph = ((o / CS) | 0) & 1;
        yield eng.wait(thrFull[st], ph, "throttle", refs.throttleWait, o, null, null, bwLine(refs.throttleWait));
        yield eng.arriveCmd(thrEmpty[st]);
        yield eng.wait(clcEmpty[st], ph ^ 1, "clc", refs.clcQuery, o, null, null, bwLine(refs.clcQuery));
        yield eng.work(CL, "clc", refs.clc, o, null, st);
        yield eng.arriveCmd(clcFull[st]);
        yield* fetchNextWork(x, o, "sched");
      }
    };
  }

  /** Mainloop load warp of CTA c: throttle (first CTA), acquire + TMA per k-tile, load-order arrive, fetch. */
  function bwProducer(x, c) {
    var eng = x.eng, refs = x.refs, knobs = x.knobs, rings = x.rings, clc = x.clc, CS = BW_CLC_STAGES;
    var S = knobs.stages, O = knobs.outputTiles, K = knobs.kTiles, L = knobs.tmaLatency, loadC = knobs.loadC;
    return function* () {
      var ring = rings[c], first = x.li[BW_PREFIX[c] + "stage0"];
      var acqLine = bwLine(refs.acquire);
      for (var o = 0; o < O; o++) {
        if (clc && c === 0) {
          var st = o % CS;
          yield eng.wait(x.thrEmpty[st], (((o / CS) | 0) & 1) ^ 1, null, EMPTY, o, null, null, bwLine(refs.throttle));
          yield eng.arriveCmd(x.thrFull[st]);
        }
        for (var k = 0; k < K; k++) {
          var g = o * K + k, s = g % S;
          yield eng.wait(ring.empty[s], (((g / S) | 0) & 1) ^ 1, null, EMPTY, o, k, s, acqLine);
          yield eng.copy(rings[0].full[s], L, refs.issue, refs.filling, o, k, s, first + s, ring);
          if (loadC && o === 0 && k === Math.min(S, K) - 1) yield x.orders[c].arrive(0);
        }
        yield* fetchNextWork(x, o, "producer");
      }
    };
  }

  /**
   * The MMA warp (leader CTA): fetch, acquire an accumulator stage, per k-tile wait/UMMA/commit,
   * umma_arrive. Records the tensor core's busy runs in x.busyS / x.busyE for the verdict.
   */
  function bwMma(x) {
    var eng = x.eng, refs = x.refs, knobs = x.knobs, rings = x.rings, tc = x.tc, ctas = x.ctas, li = x.li, build = x.build;
    var S = knobs.stages, A = knobs.accStages, O = knobs.outputTiles, K = knobs.kTiles, U = knobs.ummaLatency;
    var accFull = x.accFull, accEmpty = x.accEmpty, busyS = x.busyS, busyE = x.busyE;
    return function* (r) {
      var tmaWaitLine = bwLine(refs.tmaWait);
      for (var o = 0; o < O; o++) {
        yield* fetchNextWork(x, o, "mma");
        var a = o % A;
        yield eng.wait(accEmpty[a], (((o / A) | 0) & 1) ^ 1, "acc", refs.accWait, o, 0, a, bwLine(refs.accWait));
        var first = null, job = null;
        for (var k = 0; k < K; k++) {
          var g = o * K + k, s = g % S;
          yield eng.wait(rings[0].full[s], ((g / S) | 0) & 1, "tma", refs.tmaWait, o, k, s, tmaWaitLine);
          yield eng.mma(tc, U, "umma", refs.umma, o, k, s);
          job = r.lastJob;
          // The MMA warp never waits on its own jobs (commits track r.lastJob), so the engine's
          // outstanding-job list would only grow: drop it (a million-block run keeps no job objects).
          if (r.jobs.length >= 64) { r.jobs.length = 0; r.jobHead = 0; }
          if (first === null) first = job;
          var n = busyE.length;
          if (n > 0 && busyE[n - 1] === job.start) busyE[n - 1] = job.end;
          else { busyS.push(job.start); busyE.push(job.end); }
          // consumer_release = tcgen05.commit: the stage frees when this k-tile's UMMAs complete.
          if (refs.shape.release) for (var c = 0; c < ctas; c++) yield eng.commit(rings[c].empty[s]);
        }
        // accumulator_pipeline.producer_commit = umma_arrive (multicast to the peer in 2-SM mode).
        for (var c4 = 0; c4 < ctas; c4++) {
          yield eng.commit(accFull[c4][a]);
          eng.draw(li[BW_PREFIX[c4] + "acc" + a], "acc", first.start, job.end, o, null, a, null, refs.acc,
            build && first.blk >= 0 ? eng.tl.afterOf(first.blk) : EMPTY); // what bound the first UMMA bound the stage
        }
      }
    };
  }

  /**
   * Epilogue warps of CTA c: fetch, (C wait + release), accumulator wait, TMEM load, release,
   * store. Records each tile's epilogue interval in x.epiStart / x.epiEnd for the verdict.
   */
  function bwEpilogue(x, c) {
    var eng = x.eng, refs = x.refs, knobs = x.knobs, li = x.li, build = x.build;
    var A = knobs.accStages, O = knobs.outputTiles, T = knobs.tmemLoadLatency, ST = knobs.storeLatency;
    var ES = knobs.epiSubtiles, SC = BW_C_STAGES, loadC = knobs.loadC;
    var accFull = x.accFull, accEmpty = x.accEmpty, cRings = x.cRings, epiStart = x.epiStart, epiEnd = x.epiEnd;
    return function* (r) {
      for (var o = 0; o < O; o++) {
        yield* fetchNextWork(x, o, "epilogue");
        var a = o % A, bar = accFull[c][a], accLane = li[BW_PREFIX[c] + "acc" + a];
        // The subtile loop (sm100_epilogue_tma_warpspecialized.hpp store(), 819-888): per subtile
        // the C stage's wait and release, on the first the accumulator's wait, the TMEM load, on
        // the last the accumulator's release, then convert / smem / TMA store.
        for (var e = 0; e < ES; e++) {
          if (loadC) {
            var ci = o * ES + e, sc = ci % SC;
            yield eng.wait(cRings[c].full[sc], ((ci / SC) | 0) & 1, "c", refs.cWait, o, null, sc, bwLine(refs.cWait));
            yield eng.arriveCmd(cRings[c].empty[sc]);
          }
          if (e === 0) {
            yield eng.wait(bar, ((o / A) | 0) & 1, "mma", refs.epiAccWait, o, null, a, bwLine(refs.epiAccWait));
            var t = r.now;
            if (t > bar.time) eng.draw(accLane, "full", bar.time, t, o, null, a, null, refs.accFull, build && bar.blk >= 0 ? [bar.blk] : EMPTY);
            epiStart[c][o] = t;
          }
          var t1 = r.now;
          yield eng.work(T, "tmem_load", refs.tmemLoad, o, null, a);
          if (T > 0) eng.draw(accLane, "drain", t1, t1 + T, o, null, a, null, refs.tmemLoad, build ? eng.tl.afterOf(eng.laneLast[r.lane]) : EMPTY);
          if (e === ES - 1) yield eng.arriveCmd(accEmpty[a]);
          yield eng.work(ST, "store", refs.store, o, null, null);
        }
        epiEnd[c][o] = r.now;
      }
    };
  }

  /** EpilogueLoad warp of CTA c (with C): fetch, load-order wait once, acquire + TMA of C. */
  function bwEpiLoad(x, c) {
    var eng = x.eng, refs = x.refs, knobs = x.knobs, cRings = x.cRings, orders = x.orders;
    var O = knobs.outputTiles, L = knobs.tmaLatency, ES = knobs.epiSubtiles, SC = BW_C_STAGES;
    return function* () {
      var first = x.li[BW_PREFIX[c] + "c_stage0"];
      for (var o = 0; o < O; o++) {
        yield* fetchNextWork(x, o, "epi_load");
        if (o === 0) yield orders[c].wait(1, "order", refs.orderWait, o, null, null, bwLine(refs.orderWait));
        // load() (516-541): per epilogue subtile, acquire a C stage and its TMA.
        for (var e = 0; e < ES; e++) {
          var ci = o * ES + e, sc = ci % SC;
          yield eng.wait(cRings[c].empty[sc], (((ci / SC) | 0) & 1) ^ 1, null, EMPTY, o, null, sc, null);
          yield eng.copy(cRings[c].full[sc], L, refs.epiLoad, refs.epiLoad, o, null, sc, first + sc, cRings[c]);
        }
      }
    };
  }

  /**
   * Run the Blackwell model's role programs on the engine (bwSched, bwProducer, bwMma,
   * bwEpilogue, bwEpiLoad). With build false nothing is drawn (the comparison run of the
   * verdict). Returns the raw run.
   */
  function runBlackwell(knobs, refs, build) {
    var O = knobs.outputTiles, pair = knobs.ctaPair, loadC = knobs.loadC, clc = refs.shape.clc;
    var ctas = pair ? 2 : 1;
    var lanes = blackwellLanes(knobs, refs);
    var li = {};
    lanes.forEach(function (lane, i) { li[lane.id] = i; });
    var estimate = estimateBlackwellBlocks(knobs);
    var eng = new Engine(lanes, { build: build, events: build && recordEvents(estimate), capacity: build ? estimate : 0 });
    // x: what the role programs read (and, busyS/busyE and epiStart/epiEnd, what they record).
    var x = { eng: eng, knobs: knobs, refs: refs, build: build, clc: clc, ctas: ctas, li: li };
    bwBarriers(eng, knobs, refs, x);
    x.tc = eng.queue("tensor core");
    // Tensor-core busy runs (merged job intervals) and per-tile epilogue intervals, for the verdict.
    x.busyS = [];
    x.busyE = [];
    x.epiStart = [];
    x.epiEnd = [];
    for (var c3 = 0; c3 < ctas; c3++) { x.epiStart.push(new Float64Array(O)); x.epiEnd.push(new Float64Array(O)); }
    x.fetchRefs = { producer: refs.fetchProducer, sched: refs.fetchSched, mma: refs.fetchMma, epi_load: refs.fetchEpiLoad, epilogue: refs.fetchEpilogue };
    if (clc) eng.role("sched", li.sched, bwSched(x));
    eng.role("mma", li.mma, bwMma(x));
    for (var c5 = 0; c5 < ctas; c5++) {
      var prefix = BW_PREFIX[c5];
      eng.role(prefix + "producer", li[prefix + "producer"], bwProducer(x, c5), { drawWaits: false });
      eng.role(prefix + "epilogue", li[prefix + "epilogue"], bwEpilogue(x, c5));
      if (loadC) eng.role(prefix + "epi_load", li[prefix + "epi_load"], bwEpiLoad(x, c5));
    }
    var deadlock = eng.run();
    return {
      total: eng.tl.total,
      lanes: lanes,
      columns: build ? eng.tl.finalize() : null,
      roles: eng.roles,
      busy: x.tc.busy,
      busyS: x.busyS,
      busyE: x.busyE,
      epiStart: x.epiStart,
      epiEnd: x.epiEnd,
      deadlock: deadlock,
      barriers: build ? eng.barrierList() : [],
      barrierEvents: build ? eng.sortedEvents() : [],
      barrierEventsOmitted: build && eng.events === null
    };
  }


  return {
    BW_CLC_STAGES: BW_CLC_STAGES,
    BW_C_STAGES: BW_C_STAGES,
    blackwellLanes: blackwellLanes,
    estimateBlackwellBlocks: estimateBlackwellBlocks,
    runBlackwell: runBlackwell
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelBlackwellRoles;
