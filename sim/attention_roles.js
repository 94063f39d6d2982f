/*
 * sim/attention_roles.js: the attention model's run (docs/models/attention.md "The program"):
 * its lanes and block estimate, and runAttention, the role programs of FA3's load warp and MMA
 * warpgroups on the engine (every step with its FA3 lines), plus the tensor-core and softmax
 * accounting of the blocks. sim/model_attention.js (knobs, refs, verdict, view) uses it.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/model_gemm.js as a classic script, which makes KernelAttentionRoles a global; Node gets the
 * same object through module.exports.
 */
var KernelAttentionRoles = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/attention_roles.js: common.js is not loaded (the page runs it before this file)");
  })();
  /** sim/fit.js: the page's global, or require()d next to this file. */
  var FIT = (function () {
    if (typeof KernelFit !== "undefined") return KernelFit;
    if (typeof require === "function" && typeof module !== "undefined") return require("./fit.js");
    throw new Error("sim/attention_roles.js: fit.js is not loaded (the page runs it before this file)");
  })();
  var EMPTY = C.EMPTY, Engine = C.Engine, Ring = C.Ring, recordEvents = C.recordEvents, linesOf = C.linesOf,
    firstLine = C.firstLine;
  var attentionShape = FIT.attentionShape;

  /** Steps the load warp spends on one Vt -> V transpose (FA3 Transpose_V); not a knob. */
  var TRANSPOSE_STEPS = 1;

  /**
   * Lanes of the attention model in display order: producer, q_stage0, then k_stage*, v_stage*
   * (and vt_stage* with Transpose_V) or, with 88's shared K/V pipeline, kv_stage*; then per
   * consumer WG c: consumer{c} (its GEMMs, waits and epilogue) and consumer{c}_softmax.
   */
  function attentionLanes(knobs, refs) {
    var shape = refs && refs.shape ? refs.shape : attentionShape(null);
    var lanes = [{ id: "producer", label: "producer (load warp)", group: "producer" },
      { id: "q_stage0", label: "Q", group: "stage" }];
    var rings = shape.kv === "shared" ? [["kv", "K/V"]] : [["k", "K"], ["v", "V"]].concat(knobs.transposeV ? [["vt", "Vt"]] : []);
    rings.forEach(function (ring) {
      for (var s = 0; s < knobs.stages; s++) lanes.push({ id: ring[0] + "_stage" + s, label: ring[1] + " stage " + s, group: "stage" });
    });
    for (var c = 0; c < knobs.consumerWGs; c++) {
      lanes.push({ id: "consumer" + c, label: "consumer WG" + c, group: "consumer" });
      lanes.push({ id: "consumer" + c + "_softmax", label: "WG" + c + " softmax", group: "softmax" });
    }
    return lanes;
  }

  /** Upper bound on the attention block count, known before simulating. */
  function estimateAttentionBlocks(knobs) {
    var O = knobs.outputTiles, J = knobs.kvBlocks, C = knobs.consumerWGs;
    // Per tile: 3J + 1 producer blocks (K, Vt/V, transpose, Q), 2 per stage item (filling + full)
    // over 3J + 1 items, and per WG 2J GEMMs + J softmax + 1 epilogue + at most 2J + 3 waits and
    // J + 1 tensor-core waits.
    return O * ((3 * J + 1) + 2 * (3 * J + 1) + C * (6 * J + 5));
  }

  /**
   * The load warp's actions for one tile, in FA3's order (mainloop_fwd_sm90_tma_gmma_ws.hpp load()
   * 800-890): [kind, j] with kind K, V, Vt (TMA into the Vt ring), T (transpose Vt -> V), Q, O
   * (barrier_O.wait: the previous tile's epilogue stored O, whose smem aliases V).
   */
  function producerActions(J, intra, vt) {
    var acts = [];
    if (vt) acts.push(["Vt", 0]);
    acts.push(["K", 0]);
    acts.push(["Q", 0]);
    acts.push(["O", 0]);
    if (!vt && !intra) acts.push(["V", 0]);
    for (var j = 1; j < J; j++) {
      if (vt) acts.push(["Vt", j]);
      acts.push(["K", j]);
      if (!vt) acts.push(intra ? ["V", j - 1] : ["V", j]);
      if (vt) acts.push(["T", j - 1]);
    }
    if (!vt && intra) acts.push(["V", J - 1]);
    if (vt) acts.push(["T", J - 1]);
    return acts;
  }

  /**
   * The attention model's barriers on engine eng, in the order they are made (barrier ids follow
   * it): the K and V rings (one shared K/V ring for 88), the Vt ring with Transpose_V, Q's ring,
   * barrier_O, FA3's warp scheduler barriers (with the scheduler barrier) and EpilogueBarrier.
   */
  function attentionBarriers(eng, knobs, refs, laneIndex, x) {
    var S = knobs.stages, C = knobs.consumerWGs, vt = x.vt, shared = x.shared;
    var ringLines = function (fill, wait, acquire, release) {
      return { full: { wait: linesOf(wait), arrive: linesOf(fill) }, empty: { wait: linesOf(acquire), arrive: linesOf(release) } };
    };
    var kRing, vRing, vtRing = null;
    var acquireOf = function (list) { return list.filter(function (r) { return r.op === "producer_acquire"; }); };
    if (shared) {
      kRing = vRing = new Ring(eng, "MainloopPipeline", S, laneIndex.kv_stage0, 1, C,
        ringLines(refs.fillK.concat(refs.fillV), refs.waitK.concat(refs.waitV), acquireOf(refs.issueK), refs.releaseK), refs.fullK);
    } else {
      kRing = new Ring(eng, "MainloopPipelineK", S, laneIndex.k_stage0, 1, C,
        ringLines(refs.fillK, refs.waitK, acquireOf(refs.issueK), refs.releaseK), refs.fullK);
      vRing = new Ring(eng, "MainloopPipelineV", S, laneIndex.v_stage0, 1, C,
        ringLines(vt ? refs.transpose : refs.fillV, refs.waitV, acquireOf(refs.issueV), refs.releaseV), refs.fullV);
      if (vt) vtRing = new Ring(eng, "MainloopPipelineVt", S, laneIndex.vt_stage0, 1, 1,
        ringLines(refs.fillV, refs.fullVt, acquireOf(refs.issueV), refs.transpose), refs.fullVt);
    }
    // Q: barrier_Q (a transaction barrier, completed by the landing) and QueryEmpty, the named
    // barrier the load warp syncs on before loading Q and every MMA WG arrives on (mma_init, then
    // after each tile's loop): a ring of one stage whose empty barrier expects C + 1 arrivals.
    var qRing = new Ring(eng, "barrier_Q", 1, laneIndex.q_stage0, 1, C + 1,
      ringLines(refs.fillQ, refs.waitQ, refs.queryEmpty, refs.queryEmpty), refs.fullQ);
    qRing.full[0].name = "barrier_Q";
    qRing.empty[0].name = "QueryEmpty";
    qRing.empty[0].kind = "named";
    // barrier_O: one arrival per tile after the epilogue's O store (epilogue_fwd.hpp 327); the load
    // warp waits on it (parity (work_idx + 1) % 2) before writing V, whose smem O aliases.
    var barrierO = eng.barrier("barrier_O", "full", null, 1, { wait: linesOf(refs.barrierO), arrive: [] });
    // FA3's warp scheduler barriers (named_barrier.hpp WarpSchedulerWG1/2): one per WG, two WGs'
    // arrivals each; a WG syncs on its own and arrives on the other's.
    var schedBars = [];
    if (x.sched) {
      for (var c0 = 0; c0 < C; c0++) {
        schedBars.push(eng.barrier("WarpSchedulerWG" + (c0 + 1), "named", null, 2,
          { wait: linesOf(refs.barrier.filter(function (r) { return r.op === "order_wait"; })),
            arrive: linesOf(refs.barrier.filter(function (r) { return r.op === "order_arrive"; })) }));
      }
    }
    // EpilogueBarrier: the epilogue starts with a named-barrier sync of all MMA threads.
    var epiBar = eng.barrier("EpilogueBarrier", "named", null, C, { wait: linesOf(refs.epilogue), arrive: linesOf(refs.epilogue) });
    x.kRing = kRing;
    x.vRing = vRing;
    x.vtRing = vtRing;
    x.qRing = qRing;
    x.barrierO = barrierO;
    x.schedBars = schedBars;
    x.epiBar = epiBar;
  }

  /**
   * Ring item numbering: separate rings number K, V and Vt items t * J + j; a shared K/V ring
   * numbers them in the load warp's issue order. Sets x.itemK, x.itemV (per KV block j) and
   * x.perTile (items per tile).
   */
  function ringItems(acts, J, x) {
    var itemOf = { K: new Int32Array(J), V: new Int32Array(J) };
    var perTile = 2 * J;
    if (x.shared) {
      var n = 0;
      acts.forEach(function (a) { if (a[0] === "K" || a[0] === "V") itemOf[a[0]][a[1]] = n++; });
    } else {
      for (var jj = 0; jj < J; jj++) { itemOf.K[jj] = jj; itemOf.V[jj] = jj; }
      perTile = J;
    }
    x.itemK = itemOf.K;
    x.itemV = itemOf.V;
    x.perTile = perTile;
  }

  // Role programs as scripts: the steps of one output tile in source order, (op, j) pairs built
  // once, replayed per tile t by a step function (Engine.role) that builds each step's command.
  /** A growing script of (op, j) steps. */
  function script() {
    var sc = { ops: [], js: [] };
    sc.step = function (op, j) { sc.ops.push(op); sc.js.push(j === undefined ? 0 : j); };
    return sc;
  }

  /** A step function replaying `sc` for t = 0 .. O - 1 through command(op, t, j), after `prologue` (ops, once). */
  function replay(sc, prologue, command, O) {
    var ops = sc.ops, js = sc.js, n = ops.length, t = 0, pc = 0, pro = 0;
    return function () {
      if (pro < prologue.length) return command(prologue[pro++], 0, 0);
      if (pc === n) { pc = 0; t++; }
      if (t >= O || n === 0) return null;
      var op = ops[pc], j = js[pc];
      pc++;
      return command(op, t, j);
    };
  }

  // The load warp's steps: per K / V / Vt item producer_acquire then its TMA; Q after syncing on
  // QueryEmpty; barrier_O's wait; with Transpose_V, copy_Vt_to_V (781-791): wait Vt, acquire V,
  // transpose, commit V, release Vt.
  var P_ACQUIRE = 0, P_COPY = 1, P_SYNC_Q = 2, P_COPY_Q = 3, P_WAIT_O = 4, P_T_WAIT_VT = 5, P_T_ACQUIRE_V = 6,
    P_TRANSPOSE = 7, P_T_COMMIT_V = 8, P_T_RELEASE_VT = 9;
  // item operand of P_ACQUIRE / P_COPY steps: j * 3 + (0 K, 1 V, 2 Vt)
  var OPERANDS = ["K", "V", "Vt"];

  /** The load warp's script of one tile from its actions (producerActions). */
  function producerScriptOf(acts) {
    var producerScript = script();
    acts.forEach(function (a) {
      var kind = a[0], j = a[1];
      if (kind === "K" || kind === "V" || kind === "Vt") {
        var code = j * 3 + OPERANDS.indexOf(kind);
        producerScript.step(P_ACQUIRE, code);
        producerScript.step(P_COPY, code);
      } else if (kind === "Q") {
        producerScript.step(P_SYNC_Q);
        producerScript.step(P_COPY_Q);
      } else if (kind === "O") {
        producerScript.step(P_WAIT_O);
      } else {
        [P_T_WAIT_VT, P_T_ACQUIRE_V, P_TRANSPOSE, P_T_COMMIT_V, P_T_RELEASE_VT].forEach(function (op) { producerScript.step(op, j); });
      }
    });
    return producerScript;
  }

  /** The load warp's role program (Engine.role): its script replayed per tile. x: runAttention's run. */
  function attentionProducer(x, producerScript) {
    var eng = x.eng, refs = x.refs, S = x.S, J = x.J, L = x.L, perTile = x.perTile, itemK = x.itemK, itemV = x.itemV;
    var kRing = x.kRing, vRing = x.vRing, vtRing = x.vtRing, qRing = x.qRing, barrierO = x.barrierO;
    var barrierOLine = firstLine(refs.barrierO);
    return function () {
      return replay(producerScript, [], function (op, t, j) {
        var n, st, kind, ring;
        switch (op) {
          case P_ACQUIRE:
          case P_COPY:
            kind = OPERANDS[j % 3];
            j = (j / 3) | 0;
            // Acquire the item's stage (producer_acquire), then the TMA (1 step; lands L later).
            ring = kind === "K" ? kRing : kind === "V" ? vRing : vtRing;
            n = kind === "Vt" ? t * J + j : t * perTile + (kind === "K" ? itemK[j] : itemV[j]);
            st = n % S;
            if (op === P_ACQUIRE) return eng.wait(ring.empty[st], ((n / S | 0) & 1) ^ 1, null, EMPTY, t, j, st, null);
            return eng.copy(ring.full[st], L, kind === "K" ? refs.issueK : refs.issueV, kind === "K" ? refs.fillK : refs.fillV,
              t, j, st, ring.firstLane + st, ring, kind);
          case P_SYNC_Q:
            return eng.sync(qRing.empty[0], null, EMPTY, t, null, 0, null);
          case P_COPY_Q:
            return eng.copy(qRing.full[0], L, refs.issueQ, refs.fillQ, t, null, 0, qRing.firstLane, qRing, "Q");
          case P_WAIT_O:
            return eng.wait(barrierO, (t + 1) & 1, null, EMPTY, t, null, null, barrierOLine);
        }
        n = t * J + j;
        st = n % S;
        switch (op) {
          case P_T_WAIT_VT:
            return eng.wait(vtRing.full[st], (n / S | 0) & 1, null, EMPTY, t, j, st, null);
          case P_T_ACQUIRE_V:
            return eng.wait(vRing.empty[st], ((n / S | 0) & 1) ^ 1, null, EMPTY, t, j, st, null);
          case P_TRANSPOSE:
            return eng.work(TRANSPOSE_STEPS, "transpose", refs.transpose, t, j, st);
          case P_T_COMMIT_V: {
            var tblk = eng.laneLast[0];
            // it writes the V stage
            if (tblk >= 0) eng.tl.setOperand(tblk, "V");
            vRing.landed(st, eng.roles[0].now, tblk, t, j);
            return eng.arriveCmd(vRing.full[st]);
          }
          default:
            // P_T_RELEASE_VT
            return eng.arriveCmd(vtRing.empty[st]);
        }
      }, x.O);
    };
  }

  // A consumer WG's steps (mma(), 1138-1346, then the epilogue).
  var C_WAIT_Q = 0, C_WAIT_K = 1, C_WAIT_V = 2, C_GEMM0 = 3, C_GEMM1 = 4, C_MMA_WAIT0 = 5, C_MMA_WAIT1 = 6,
    C_RELEASE_K = 7, C_RELEASE_V = 8, C_SOFTMAX = 9, C_SYNC_SCHED = 10, C_ARRIVE_SCHED = 11, C_QUERY_EMPTY = 12,
    C_EPILOGUE_SYNC = 13, C_EPILOGUE = 14, C_ARRIVE_O = 15, C_ARRIVE_OWN_SCHED = 16;

  /** Consumer WG c's script of one tile (x: runAttention's run: J, C, intra, sched). */
  function consumerScript(x, c) {
    var J = x.J, C = x.C, intra = x.intra, sched = x.sched;
    var sc = script(), step = sc.step;
    step(C_WAIT_Q);
    if (intra) {
      // GEMM0(0) and softmax(0) before the loop, outside the scheduler barrier (1138-1163).
      step(C_WAIT_K, 0);
      step(C_GEMM0, 0);
      step(C_MMA_WAIT0);
      step(C_RELEASE_K, 0);
      step(C_SOFTMAX, 0);
      // fwd_step (1171-1210): phase {GEMM0(j), GEMM1(j-1)}
      // With the scheduler barrier only the first MMA WG waits for K(j) and V(j-1)
      // (`if (!UseSchedulerBarrier || warp_group_idx == 0)`, 1175, 1180): the others pass the
      // scheduler barrier after the WG before them issued on those stages.
      var waits = !sched || c === 0;
      for (var j = 1; j < J; j++) {
        if (waits) step(C_WAIT_K, j);
        if (sched) step(C_SYNC_SCHED, j);
        step(C_GEMM0, j);
        if (waits) step(C_WAIT_V, j - 1);
        step(C_GEMM1, j - 1);
        if (sched) step(C_ARRIVE_SCHED);
        step(C_MMA_WAIT1);
        step(C_RELEASE_K, j);
        step(C_SOFTMAX, j);
        // V(j-1) is released only after softmax(j) (1196-1199)
        step(C_MMA_WAIT0);
        step(C_RELEASE_V, j - 1);
      }
      // QueryEmpty before the final GEMM1 (1237)
      step(C_QUERY_EMPTY);
      step(C_WAIT_V, J - 1);
      // outside the scheduler barrier (1240)
      step(C_GEMM1, J - 1);
      step(C_MMA_WAIT0);
      step(C_RELEASE_V, J - 1);
    } else {
      // before the loop (1256)
      if (sched) step(C_SYNC_SCHED, 0);
      // fwd_step (1258-1306): phases {GEMM1(j-1), GEMM0(j)}
      for (var k = 0; k < J; k++) {
        step(C_WAIT_K, k);
        step(C_GEMM0, k);
        // right after GEMM0 is issued (1267)
        if (sched) step(C_ARRIVE_SCHED);
        step(C_MMA_WAIT0);
        step(C_RELEASE_K, k);
        step(C_SOFTMAX, k);
        step(C_WAIT_V, k);
        // before each GEMM1 (1295)
        if (sched) step(C_SYNC_SCHED, k);
        step(C_GEMM1, k);
        step(C_MMA_WAIT0);
        step(C_RELEASE_V, k);
      }
      // after the loop (1336)
      if (sched) step(C_ARRIVE_SCHED);
      // QueryEmpty after the last GEMM1 (1338)
      step(C_QUERY_EMPTY);
    }
    // Epilogue (epilogue_fwd.hpp store): all MMA WGs sync first (249), then write O; the last
    // WG's TMA store completion arrives on barrier_O (327).
    step(C_EPILOGUE_SYNC);
    step(C_EPILOGUE);
    if (c === C - 1) step(C_ARRIVE_O);
    return sc;
  }

  /** Consumer WG c's role program (Engine.role): mma_init, then its script per tile. x: runAttention's run. */
  function attentionConsumer(x, c) {
    var eng = x.eng, tc = x.tc, refs = x.refs, S = x.S, C = x.C, perTile = x.perTile, itemK = x.itemK, itemV = x.itemV;
    var G0 = x.G0, G1 = x.G1, X = x.X, E = x.E;
    var kRing = x.kRing, vRing = x.vRing, qRing = x.qRing, barrierO = x.barrierO, schedBars = x.schedBars, epiBar = x.epiBar;
    var waitKLine = firstLine(refs.waitK), waitVLine = firstLine(refs.waitV), waitQLine = firstLine(refs.waitQ);
    var epilogueLine = firstLine(refs.epilogue);
    var sm = x.laneIndex["consumer" + c + "_softmax"];
    // mma_init (933-951): QueryEmpty's first arrival; WG0 gives its own scheduler barrier the
    // first signal.
    var prologue = x.sched && c === 0 ? [C_QUERY_EMPTY, C_ARRIVE_OWN_SCHED] : [C_QUERY_EMPTY];
    var sc = consumerScript(x, c);
    return function () {
      return replay(sc, prologue, function (op, t, j) {
        var n;
        switch (op) {
          case C_WAIT_Q:
            return eng.wait(qRing.full[0], t & 1, "q", refs.waitQ, t, null, 0, waitQLine);
          case C_WAIT_K:
            n = t * perTile + itemK[j];
            return eng.wait(kRing.full[n % S], (n / S | 0) & 1, "k", refs.waitK, t, j, n % S, waitKLine);
          case C_WAIT_V:
            n = t * perTile + itemV[j];
            return eng.wait(vRing.full[n % S], (n / S | 0) & 1, "v", refs.waitV, t, j, n % S, waitVLine);
          case C_GEMM0:
            return eng.mma(tc, G0, "gemm0", refs.gemm0, t, j, (t * perTile + itemK[j]) % S);
          case C_GEMM1:
            return eng.mma(tc, G1, "gemm1", refs.gemm1, t, j, (t * perTile + itemV[j]) % S);
          case C_MMA_WAIT0:
            return eng.mmaWait(0);
          case C_MMA_WAIT1:
            return eng.mmaWait(1);
          case C_RELEASE_K:
            return eng.arriveCmd(kRing.empty[(t * perTile + itemK[j]) % S]);
          case C_RELEASE_V:
            return eng.arriveCmd(vRing.empty[(t * perTile + itemV[j]) % S]);
          case C_SOFTMAX:
            return eng.work(X, "softmax", refs.softmax, t, j, null, sm);
          case C_SYNC_SCHED:
            return eng.sync(schedBars[c], "barrier", refs.barrier, t, j, null, null);
          case C_ARRIVE_SCHED:
            // warp_scheduler_barrier_arrive (926-928): the next WG, WG1 -> WG2 (-> WG3) -> WG1
            return eng.arriveCmd(schedBars[(c + 1) % C]);
          case C_ARRIVE_OWN_SCHED:
            return eng.arriveCmd(schedBars[c]);
          case C_QUERY_EMPTY:
            return eng.arriveCmd(qRing.empty[0]);
          case C_EPILOGUE_SYNC:
            return eng.sync(epiBar, "epilogue", refs.epilogue, t, null, null, epilogueLine);
          case C_EPILOGUE:
            return eng.work(E, "epilogue", refs.epilogue, t, null, null);
          default:
            // C_ARRIVE_O
            return eng.arriveCmd(barrierO);
        }
      }, x.O);
    };
  }

  /**
   * Run the attention model (FlashAttention-3 forward, hopper/) on the engine. Roles: the load
   * warp (attentionProducer) and each consumer WG (attentionConsumer), programs as in
   * docs/models/attention.md (every rule with its FA3 lines).
   */
  function runAttention(knobs, refs) {
    var C = knobs.consumerWGs, J = knobs.kvBlocks;
    var shape = refs.shape;
    var shared = shape.kv === "shared";
    // x: what the role programs read. UseSchedulerBarrier needs 2 or 3 MMA WGs.
    var x = { refs: refs, S: knobs.stages, O: knobs.outputTiles, J: J, C: C, L: knobs.tmaLatency, X: knobs.softmaxLatency,
      E: knobs.epilogueLatency, G0: knobs.gemm0Latency, G1: knobs.gemm1Latency, intra: knobs.intraWGOverlap,
      sched: C >= 2 && knobs.interWGPingpong, shared: shared, vt: knobs.transposeV && !shared };
    var lanes = attentionLanes(knobs, refs);
    var laneIndex = {};
    lanes.forEach(function (lane, i) { laneIndex[lane.id] = i; });
    x.laneIndex = laneIndex;
    var estimate = estimateAttentionBlocks(knobs);
    var eng = new Engine(lanes, { events: recordEvents(estimate), operand: true, capacity: estimate });
    x.eng = eng;
    x.tc = eng.queue("tensor core");
    attentionBarriers(eng, knobs, refs, laneIndex, x);
    var acts = producerActions(J, x.intra, x.vt);
    ringItems(acts, J, x);
    eng.role("producer", 0, attentionProducer(x, producerScriptOf(acts)), { drawWaits: false });
    for (var c = 0; c < C; c++) eng.role("consumer" + c, laneIndex["consumer" + c], attentionConsumer(x, c));
    var deadlock = eng.run();
    // Attention blocks name their operand (K, V, Vt, Q) on producer and stage lanes; null elsewhere
    // (the engine's operand option).
    var columns = eng.tl.finalize();
    return { total: eng.tl.total, lanes: lanes, columns: columns, roles: eng.roles, steps: tensorCoreSteps(columns),
      deadlock: deadlock, barriers: eng.barrierList(), barrierEvents: eng.sortedEvents(), barrierEventsOmitted: eng.events === null };
  }

  /**
   * Tensor-core and softmax accounting over the blocks: {busy, exposed, softmax} = steps in which
   * any WG is in a GEMM, steps in which some WG is in softmax and none in a GEMM, and steps in
   * which some WG is in softmax: |G|, |S| - |S and G| and |S| for the unions G and S of the GEMM
   * and softmax blocks of result columns c.
   */
  function tensorCoreSteps(c) {
    var gemm = [c.kinds.indexOf("gemm0"), c.kinds.indexOf("gemm1")], softmax = [c.kinds.indexOf("softmax")];
    var G = unionOfKinds(c, gemm), S = unionOfKinds(c, softmax);
    var soft = spanTotal(S);
    return { busy: spanTotal(G), exposed: soft - overlapTotal(S, G), softmax: soft };
  }

  /**
   * The union of the blocks of kind codes `codes` (over every lane) as sorted disjoint spans
   * {start: [], end: []}: each lane's matching blocks are already in start order (ids of a lane
   * are sorted by start), so the lanes that have any are merged, taking the smallest next start
   * each time.
   */
  function unionOfKinds(c, codes) {
    var want = new Uint8Array(c.kinds.length), runs = [], li, i;
    codes.forEach(function (code) { if (code >= 0) want[code] = 1; });
    var kind = c.kind, start = c.start, end = c.end;
    for (li = 0; li < c.lanes.length; li++) {
      var lo = c.laneStart[li], hi = c.laneStart[li + 1], count = 0;
      for (i = lo; i < hi; i++) count += want[kind[i]];
      if (count === 0) continue;
      var ids = new Int32Array(count), m = 0;
      for (i = lo; i < hi; i++) if (want[kind[i]] === 1) ids[m++] = i;
      runs.push({ ids: ids, at: 0 });
    }
    var out = { start: [], end: [] }, s0 = 0, e0 = 0, open = false;
    for (;;) {
      var best = null, bestStart = 0;
      for (i = 0; i < runs.length; i++) {
        var run = runs[i];
        if (run.at < run.ids.length && (best === null || start[run.ids[run.at]] < bestStart)) {
          best = run;
          bestStart = start[run.ids[run.at]];
        }
      }
      if (best === null) break;
      var id = best.ids[best.at++], st = start[id], en = end[id];
      if (open && st <= e0) { if (en > e0) e0 = en; continue; }
      if (open) { out.start.push(s0); out.end.push(e0); }
      s0 = st; e0 = en; open = true;
    }
    if (open) { out.start.push(s0); out.end.push(e0); }
    return out;
  }

  /** Total length of sorted disjoint spans. */
  function spanTotal(u) {
    var sum = 0;
    for (var i = 0; i < u.start.length; i++) sum += u.end[i] - u.start[i];
    return sum;
  }

  /** Total length of the intersection of two lists of sorted disjoint spans. */
  function overlapTotal(a, b) {
    var i = 0, j = 0, sum = 0;
    while (i < a.start.length && j < b.start.length) {
      var lo = Math.max(a.start[i], b.start[j]), hi = Math.min(a.end[i], b.end[j]);
      if (hi > lo) sum += hi - lo;
      if (a.end[i] < b.end[j]) i++; else j++;
    }
    return sum;
  }

  return {
    attentionLanes: attentionLanes,
    estimateAttentionBlocks: estimateAttentionBlocks,
    runAttention: runAttention
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelAttentionRoles;
