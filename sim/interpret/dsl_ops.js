/*
 * sim/interpret/dsl_ops.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * CuTe DSL programs: rings, states, named barriers and the ops (DSL_OPS).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretDslOps = (function (K) {
  "use strict";

  var CopyFn = K.CopyFn, DRY = K.DRY, Obj = K.Obj, PASS = K.PASS, PIPELINE_CLASSES = K.PIPELINE_CLASSES,
    RoleRun = K.RoleRun, Run = K.Run, SOFTMAX_CLASSES = K.SOFTMAX_CLASSES, State = K.State,
    SymId = K.SymId, TAIL_NODES = K.TAIL_NODES, WARPGROUP_THREADS = K.WARPGROUP_THREADS,
    WARP_THREADS = K.WARP_THREADS, isNoneExpr = K.isNoneExpr, isUnknown = K.isUnknown,
    lastName = K.lastName, truthy = K.truthy;

  /** The ring a DSL op runs on: its object, a parameter bound to one (`pipeline_kv`), or a TMA copy fn's. */
  RoleRun.prototype.dslRing = function (node, env) {
    var names = [node.object, node.receiver, barrierPointer(node)].filter(Boolean);
    for (var i = 0; i < names.length; i++) {
      var box = env[names[i]] || this.env[names[i]];
      var v = box ? box.v : undefined;
      if (v instanceof CopyFn) v = v.pipe;
      if (v instanceof Obj && v.kind === "pipe") {
        if (!v.data.modelled) { this.stop(node, "the pipeline class " + v.data.cls + " is not modelled yet (PIPELINE_CLASSES: " + Object.keys(PIPELINE_CLASSES).join(", ") + ")"); return null; }
        return { ring: v.data, key: v.name };
      }
    }
    if (this.run.dry) return { ring: null, key: names[0] || "" };
    this.stop(node, "the pipeline of `" + (node.call || node.op) + "` is not known here");
    return null;
  };

  /**
   * DSL_BARRIER_POINTER: the name a TMA copy's `tma_bar_ptr=` keyword reads (`tma_bar_ptr =
   * load_pipeline.producer_get_barrier(producer_state)` then `cute.copy(tma_atom, tXgX, tXsX,
   * tma_bar_ptr=tma_bar_ptr)`, FA4 flash_fwd_mla_sm100.py 2216-2217): DSL_OPS.producer_get_barrier
   * binds it to its pipeline, so the copy lands on that ring (the stage of its last acquire).
   */
  function barrierPointer(node) {
    if (node.op !== "tma_load") return null;
    var kw = (node.args || []).filter(function (a) { return Array.isArray(a) && a[0] === "kw" && a[1] === "tma_bar_ptr"; })[0];
    return kw && Array.isArray(kw[2]) && kw[2][0] === "id" ? kw[2][1] : null;
  }

  /** The state of a DSL pipeline op: the `state` variable, or the `_w_index[_phase]` forms' index and phase. */
  RoleRun.prototype.dslState = function (node, env, ring) {
    // DSL_RAW_BARRIER_OPS: `P.sync_object_empty.wait(i, phase)` / `P.sync_object_full.arrive(i, ...)` (bwd_sm100 2947-3075).
    var raw = /^sync_object_\w+\.(wait|arrive)$/.exec(node.call || "");
    if (/_w_index/.test(node.call || "") || raw) {
      var args = node.args || [];
      var idx = args.length ? this.eval(args[0], env, false) : null;
      var ph = (raw ? raw[1] === "wait" : /_phase$/.test(node.call)) && args.length > 1 ? this.eval(args[1], env, false) : 0;
      if (typeof idx !== "number" || typeof ph !== "number") return null;
      return new State(ring ? ring.S : 1, idx, ph, 0, true);
    }
    // DSL_PARTICIPANTS: an op on a participant or its handle runs on that object's state.
    var own = node.receiver && (env[node.receiver] || this.env[node.receiver]);
    if (own && own.v instanceof Obj && (own.v.kind === "participant" || own.v.kind === "pipe_handle")) return own.v.data.state;
    var box = node.state ? env[node.state] : null;
    return box && box.v instanceof State ? box.v : null;
  };

  /**
   * DSL_PARTICIPANTS (cutlass/pipeline/sm90.py make_consumer / make_producer; docs/programs.md):
   * a participant with its own state; wait_and_advance binds a handle (a copy of the state) to the
   * op's `result` and advances (bwd_sm100 2677, 2945, 3017). dslMethodExpr's hook.
   */
  K.dslParticipantCall = function (obj, name) {
    if (!(obj instanceof Obj && obj.kind === "pipe" && (name === "make_consumer" || name === "make_producer"))) return PASS;
    return new Obj("participant", obj.name, { pipe: obj, state: new State(obj.data.S, 0, name === "make_producer" ? 1 : 0, 0, true) });
  };

  /** After a participant's wait: the handle bound to the op's `result`, and wait_and_advance's advance. */
  RoleRun.prototype.dslParticipantWait = function (node, env, st) {
    var own = node.receiver && (env[node.receiver] || this.env[node.receiver]);
    if (!(own && own.v instanceof Obj && own.v.kind === "participant")) return;
    var h = new Obj("pipe_handle", own.v.name, { pipe: own.v.data.pipe, state: st.clone() });
    if (node.result) { if (env[node.result]) env[node.result].v = h; else env[node.result] = { v: h }; }
    if (node.call === "wait_and_advance") st.advance(1);
  };

  /** A named barrier of the run (bar.sync / bar.arrive with an id and a thread count): expected arrivals are role units. */
  Run.prototype.namedBarrier = function (id, threads, unit) {
    var key = id.key(), got = this.named[key];
    if (!got) {
      got = this.named[key] = this.eng.barrier(key, "named", null, Math.max(1, Math.round(threads / unit)), { wait: [], arrive: [] });
      got.threads = threads;
      got.unit = unit;
    }
    return got;
  };

  /**
   * DSL_BARRIER_COUNTS: `bar.sync id, n` counts n threads for the phase it takes part in (PTX
   * barrier: every thread of one phase gives the same count), so a DSL op on an id used before with
   * another count (FA4 bwd_sm100's epilogue barrier `barrier_id + wg_idx`: 128 threads at 4878, then
   * the leader warp's `barrier_arrive` and every warp's `barrier` with 128 + WARP_SIZE, 4894-4902)
   * counts that many from its next phase on; a count that changes inside a phase is null (namedOf
   * stops, naming it). (Run.namedBarrier keeps a barrier's first count, as the C++ runs use it.)
   */
  Run.prototype.dslNamedBarrier = function (id, threads, unit) {
    var got = this.namedBarrier(id, threads, unit);
    if (got.threads !== threads) {
      if (got.arrivals !== 0) return null;
      got.expected = Math.max(1, Math.round(threads / got.unit));
      got.threads = threads;
    }
    return got;
  };

  /** DSL_BARRIER_COUNTS: the stop of a named barrier whose thread count changes inside a phase. */
  function countChange(rr, node, id, threads) {
    var bar = rr.run.named[id.key()];
    return rr.stop(node, "the named barrier " + id.key() + " is used with " + threads + " threads while its current phase counts " + bar.threads);
  }

  /** A named-barrier op: its barrier, or a stop naming what is not known. */
  function namedOf(rr, node, env) {
    var args = node.args || [], id = null, threads = null;
    // A NamedBarrier object's method (`tmem_alloc_barrier.arrive_and_wait_unaligned()`, FA4 sm100 1346;
    // `sm_stats_barrier.arrive_w_index(index=...)`, 2457: id + index, pipeline.py 178-205).
    var ob = node.receiver ? (env[node.receiver] || rr.env[node.receiver]) : null;
    // DSL_SELF_BARRIERS: a barrier object the constructor holds (`self.compute_sync_barrier =
    // cutlass.pipeline.NamedBarrier(...)`, bwd_sm100 252-255; `.arrive_and_wait()` at 3678, 3692, 3723).
    var selfAttr = node.receiver && !ob && /^self\.\w+$/.exec(node.receiver);
    if (selfAttr) ob = { v: rr.eval(["member", ["id", "self"], node.receiver.slice(5)], env, false) };
    if (ob && ob.v instanceof Obj && ob.v.kind === "named") {
      id = ob.v.data.id; threads = ob.v.data.threads;
      if (/_w_index$/.test(node.call || "")) {
        var ix = null;
        args.forEach(function (a) { ix = rr.eval(Array.isArray(a) && a[0] === "kw" ? a[2] : a, env, false); });
        if (typeof ix !== "number") return rr.stop(node, "the named barrier's index is not known");
        id = id instanceof SymId ? new SymId(id.base, id.off + ix) : typeof id === "number" ? id + ix : id;
      }
      args = [];
    }
    args.forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "barrier_id") id = rr.eval(a[2], env, false);
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "number_of_threads") threads = rr.eval(a[2], env, false);
    });
    if (typeof id === "number") id = new SymId("id", id);
    if (!(id instanceof SymId)) return rr.stop(node, "the named barrier's id is not known");
    if (typeof threads !== "number") return rr.stop(node, "the named barrier's thread count is not known");
    var unit = rr.role.threads || WARPGROUP_THREADS;
    // A kernel whose roles are warp-id tuples (FA4 sm100) counts a barrier's arrivals in warps: a
    // role arrives with its warps, or, on a barrier of fewer threads than it has (the per-warp
    // statistics barriers of 64 threads, 1119-1121), with its representative warp only.
    if (rr.ctx.roleVars.length && rr.ctx.roleVars[0].warp_ids) {
      if (threads % WARP_THREADS !== 0) return rr.stop(node, "a named barrier of " + threads + " threads is not a whole number of warps");
      if (rr.run.dry) return DRY;
      var wb = rr.run.dslNamedBarrier(id, threads, WARP_THREADS);
      if (!wb) return countChange(rr, node, id, threads);
      wb.weight = threads < unit ? 1 : unit / WARP_THREADS;
      return wb;
    }
    // DSL_MIXED_BARRIERS: a barrier shared by roles of different sizes (FA4 bwd_sm90's dQEmptyWG* /
    // dQFullWG* of `num_threads_per_warp_group + WARP_SIZE` = 160 threads, 1617, 1626, 1874, 1897:
    // one MMA warpgroup and the dQ warp) counts warps: the warpgroup arrives with its 4 warps, the
    // warp with 1, so the barrier completes at 5 (its unit is fixed when it is first made).
    var unitB = threads % unit === 0 ? unit : WARP_THREADS;
    if (threads % unitB !== 0) return rr.stop(node, "a named barrier of " + threads + " threads is not a whole number of roles of " + unit + " threads");
    if (rr.run.dry) return DRY;
    var bar = rr.run.dslNamedBarrier(id, threads, unitB);
    if (!bar) return countChange(rr, node, id, threads);
    var w = unit / bar.unit;
    if (w < 1 || w !== Math.floor(w)) return rr.stop(node, "a role of " + unit + " threads on a named barrier counted in units of " + bar.unit);
    if (w !== 1) bar.weight = w;
    return bar;
  }

  /** DSL op semantics (execOp's hook): the pipeline ops through dslRing / dslState, MMAs with wg_wait, softmax, named barriers. */
  var DSL_OPS = {
    // DSL_BARRIER_POINTER: as OP_SEMANTICS' (the stage of a later copy), and its result names the ring.
    producer_get_barrier: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return r ? DRY : undefined;
      var st = rr.dslState(node, env, r.ring);
      if (st) { rr.acquired[r.key] = st.index; rr.acquiredGen[r.key] = Math.floor(st.count / st.S); }
      if (node.result) {
        var o = new Obj("pipe", r.key, r.ring);
        if (env[node.result]) env[node.result].v = o; else env[node.result] = { v: o };
      }
      return undefined;
    },
    producer_acquire: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return r ? DRY : undefined;
      var st = rr.dslState(node, env, r.ring);
      if (!st) return rr.stop(node, "producer_acquire on a state the program does not follow");
      rr.acquired[r.key] = st.index;
      rr.acquiredGen[r.key] = Math.floor(st.count / st.S);
      return rr.run.cmdWait(rr, r.ring.empty[st.index], st.phase, r.ring.acquireReason, node, rr.currentTile(), null, st.index);
    },
    tma_load: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return r ? DRY : undefined;
      // `tma_load_fn(src_idx=..., producer_state=s)` arrives on the barrier of s's stage; else the last acquire's.
      var st = rr.dslState(node, env, r.ring), s = st ? st.index : rr.acquired[r.key];
      if (s === undefined) return rr.stop(node, "a TMA copy before any acquire of its pipeline");
      if (!rr.run.dry) rr.copyLog.push({ stage: s, gen: st ? Math.floor(st.count / st.S) : rr.acquiredGen[r.key], line: node.line, pipe: r.key });
      return rr.run.cmdCopy(rr, r.ring, s, node, rr.currentTile(), rr.countOf("copy"));
    },
    producer_commit: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring || (r.ring.rule.commit === "none" && !r.ring.dslAgents)) return undefined;
      var st = rr.dslState(node, env, r.ring);
      if (!st) return rr.stop(node, "producer_commit on a state the program does not follow");
      if (r.ring.dslAgents) return r.ring.dslCounts ? rr.dslArrive(node, r.ring, r.ring.full[st.index], 0) : rr.stop(node, "the arrival counts of `" + r.key + "` are not known");
      return rr.run.cmdArrive(rr, r.ring.full[st.index], node);
    },
    producer_tail: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return undefined;
      var st = rr.dslState(node, env, r.ring);
      if (!st) return undefined;
      rr.frames.push({ nodes: TAIL_NODES(r.ring.S), pc: 0, env: { __tail: { v: { ring: r.ring, st: st.clone(), node: node } } }, loop: null, fn: null });
      return undefined;
    },
    consumer_wait: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return r ? DRY : undefined;
      var st = rr.dslState(node, env, r.ring);
      if (!st) return rr.stop(node, "consumer_wait on a state the program does not follow");
      rr.waited[r.key] = st.index;
      rr.waitedGen[r.key] = Math.floor(st.count / st.S);
      rr.lastWaited = r.key;
      var bar = r.ring.full[st.index], phase = st.phase, stage = st.index;
      rr.dslParticipantWait(node, env, st);
      return rr.run.cmdWait(rr, bar, phase, r.ring.waitReason, node, rr.currentTile(), rr.countOf("wait"), stage);
    },
    consumer_release: function (rr, node, env) {
      var r = rr.dslRing(node, env);
      if (!r || !r.ring) return r ? DRY : undefined;
      var st = rr.dslState(node, env, r.ring);
      if (!st) return rr.stop(node, "consumer_release on a state the program does not follow");
      if (r.ring.dslAgents) return r.ring.dslCounts ? rr.dslArrive(node, r.ring, r.ring.empty[st.index], 1) : rr.stop(node, "the arrival counts of `" + r.key + "` are not known");
      return rr.run.cmdArrive(rr, r.ring.empty[st.index], node);
    },
    /**
     * quack sm90_utils.gemm_zero_init / gemm_w_idx (`mma_qk_fn(B_idx=..., wg_wait=-1)`, sm90 1441,
     * 1447): one WGMMA job on the stage of the role's last wait, then, when wg_wait >= 0, a
     * warpgroup wait_group(wg_wait) (the helper's own tail); -1 issues without waiting.
     */
    mma: function (rr, node, env) {
      // DSL_SPLIT_P_WAIT: FA4 sm100's PV gemm (`gemm_Pi[stage](..., mbar_ptr=pipeline_p_lastsplit.sync_object_full
      // .get_barrier(stage) if self.split_P_arrive > 0 else None, mbar_phase=P_full_O_rescaled_phase)`, 1995-2002,
      // 2061-2068; sm100_utils.gemm_ptx_partial) waits that barrier at mbar_phase before its last K chunks:
      // the run waits it first, then issues the whole PV as one job.
      if (!node.__splitDone) {
        var mb = dslMbarWait(rr, node, env);
        if (mb === null) return undefined;
        if (mb) {
          rr.frames.push({ nodes: [Object.assign({}, node, { __splitDone: true })], pc: 0, env: env, loop: null, fn: null });
          return rr.run.cmdWait(rr, mb.bar, mb.phase, mb.reason, node, rr.currentTile(), rr.countOf("wait"), mb.stage);
        }
      }
      var wg = null;
      (node.args || []).forEach(function (a) { if (Array.isArray(a) && a[0] === "kw" && a[1] === "wg_wait") wg = rr.eval(a[2], env, false); });
      if (wg !== null && typeof wg !== "number") return rr.stop(node, "the MMA's wg_wait is not known");
      var key = rr.lastWaited, s = key !== undefined ? rr.waited[key] : undefined;
      if (!rr.run.dry && s !== undefined) rr.mmaLog.push({ stage: s, gen: rr.waitedGen[key], line: node.line, pipe: key });
      if (typeof wg === "number" && wg >= 0) rr.frames.push({ nodes: [{ node: "op", op: "__mma_wait", count: wg, line: node.line }], pc: 0, env: env, loop: null, fn: null });
      return rr.run.cmdMma(rr, node, rr.currentTile(), rr.countOf("mma"), s === undefined ? null : s);
    },
    __mma_wait: function (rr, node) { return rr.run.cmdMmaWait(rr, node.count); },
    warpgroup_wait: function (rr, node, env) {
      var n = typeof node.count === "number" ? node.count : (node.args || []).length ? rr.eval(node.args[0], env, false) : null;
      if (typeof n !== "number") return rr.stop(node, "warpgroup.wait_group with an unknown count");
      return rr.run.cmdMmaWait(rr, n);
    },
    softmax: function (rr, node) {
      var m = lastName(node.receiver || "");
      if (!Object.prototype.hasOwnProperty.call(SOFTMAX_CLASSES, m)) return rr.stop(node, "the softmax step `" + node.receiver + "` is not modelled yet");
      return SOFTMAX_CLASSES[m] === null ? undefined : rr.run.opaque(rr, SOFTMAX_CLASSES[m], node);
    },
    // `self.warp_scheduler_barrier_sync()` / `_arrive()` (sm90 1130, 1439, 1448, 1198): the parse lists
    // the call as an order op; the helper's own program (1531-1552) holds the named barrier, so it runs.
    order_wait: function (rr, node, env) { return rr.dslHelperOp(node, env); },
    order_arrive: function (rr, node, env) { return rr.dslHelperOp(node, env); },
    named_barrier_sync: function (rr, node, env) {
      var bar = namedOf(rr, node, env);
      if (!bar || bar === DRY) return bar || undefined;
      // A role of several warps arrives with all but one first, then syncs (arrive 1 and wait).
      var w = bar.weight || 1;
      bar.weight = null;
      if (w > 1) rr.frames.push({ nodes: [{ node: "op", op: "__named_sync", line: node.line }], pc: 0, env: { __bar: { v: { bar: bar, node: node } } }, loop: null, fn: null });
      if (w > 1) return rr.run.eng.arriveCmd(bar, w - 1);
      return rr.run.eng.sync(bar, bar.name, rr.run.linesOf(node), rr.currentTile(), null, null, node.line);
    },
    __named_sync: function (rr, node, env) {
      var b = env.__bar.v;
      return rr.run.eng.sync(b.bar, b.bar.name, rr.run.linesOf(b.node), rr.currentTile(), null, null, b.node.line);
    },
    named_barrier_arrive: function (rr, node, env) {
      var bar = namedOf(rr, node, env);
      if (!bar || bar === DRY) return bar || undefined;
      var w = bar.weight || 1;
      bar.weight = null;
      return rr.run.eng.arriveCmd(bar, w);
    },
    __fa4_epi_sync: function (rr, node, env) {
      var call = env.__call.v, threads = rr.ctx.mmaWarpgroups() * WARPGROUP_THREADS;
      if (rr.run.dry) return DRY;
      var bar = rr.run.namedBarrier(new SymId("NamedBarrierFwd.Epilogue", 0), threads, rr.role.threads || WARPGROUP_THREADS);
      return rr.run.eng.sync(bar, bar.name, rr.run.linesOf(call), rr.currentTile(), null, null, call.line);
    },
    __fa4_epi_work: function (rr, node, env) { return rr.run.opaque(rr, "epilogue", env.__call.v); }
  };

  /** The mbarrier wait of an MMA's `mbar_ptr=ring.sync_object_full.get_barrier(i)` / `mbar_phase=` keywords: {bar, phase, reason, stage}, false without one, null after a stop. */
  function dslMbarWait(rr, node, env) {
    var ptr = null, phase = null;
    (node.args || []).forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "mbar_ptr") ptr = a[2];
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "mbar_phase") phase = a[2];
    });
    if (!ptr) return false;
    if (ptr[0] === "?:") {
      var c = rr.eval(ptr[1], env, true);
      if (isUnknown(c)) { rr.stop(node, "the MMA's mbar_ptr condition is not known"); return null; }
      ptr = truthy(c) ? ptr[2] : ptr[3];
    }
    if (isNoneExpr(ptr)) return false;
    var m = Array.isArray(ptr) && ptr[0] === "mcall" && ptr[2] === "get_barrier" && Array.isArray(ptr[1]) && ptr[1][0] === "member" &&
      ptr[1][2] === "sync_object_full" && Array.isArray(ptr[1][1]) && ptr[1][1][0] === "id" ? ptr[1][1][1] : null;
    var box = m ? env[m] || rr.env[m] : null;
    var ring = box && box.v instanceof Obj && box.v.kind === "pipe" ? box.v.data : null;
    var idx = ring && (ptr[3] || []).length === 1 ? rr.eval(ptr[3][0], env, false) : null;
    var ph = phase ? rr.eval(phase, env, false) : null;
    if (!ring || typeof idx !== "number" || typeof ph !== "number") { rr.stop(node, "the MMA's mbarrier wait (mbar_ptr) is not known"); return null; }
    if (rr.run.dry) return { bar: null, phase: ph, reason: m, stage: idx };
    return { bar: ring.full[idx], phase: ph, reason: ring.waitReason || m, stage: idx };
  }

  /** An op the parse placed on a helper call whose own program holds the real ops: run that program. */
  RoleRun.prototype.dslHelperOp = function (node, env) {
    var m = /^self\.(\w+)$/.exec(node.receiver || "");
    var fn = m ? this.ctx.functions[m[1]] : null;
    if (!fn) return this.stop(node, "the op `" + node.op + "` has no program to run");
    return this.dslInvoke({ fn: fn, partial: null }, node.args || [], env, null);
  };

  /**
   * DSL_PIPELINE_AGENTS: the agent of each side of a cutlass.pipeline class, (producer, consumer)
   * (cutlass/pipeline/sm100.py: PipelineTmaUmma TmaLoad / TCGen05Mma, PipelineAsyncUmma AsyncThread /
   * TCGen05Mma, PipelineUmmaAsync TCGen05Mma / AsyncThread; sm90.py PipelineAsync AsyncThread on
   * both sides, PipelineTmaAsync TmaLoad / AsyncThread). Each side's mbarrier expects its
   * CooperativeGroup's size (MbarrierArray: `arrive_count = cg.size`): one arrival per thread of a
   * `thread` side, one per tcgen05 commit (`umma`) or TMA transaction (`tma`).
   */
  var DSL_PIPELINE_AGENTS = {
    PipelineTmaUmma: ["tma", "umma"], PipelineAsyncUmma: ["thread", "umma"], PipelineUmmaAsync: ["umma", "thread"],
    PipelineAsync: ["thread", "thread"], PipelineTmaAsync: ["tma", "thread"]
  };

  /**
   * The arrival counts of a ring of a kernel whose roles are warp-id tuples (FA4 sm100), from its
   * create call (`pipeline_s_p_o = PipelineUmmaAsync.create(..., producer_group=mma_warp,
   * consumer_group=softmax_correction_threads_cluster)`, 1073-1080): full expects the producer
   * group's size, empty the consumer group's, each group `ThreadCooperativeGroup(n)` (1003: a
   * partial of CooperativeGroup(Agent.Thread, n)) or `CooperativeGroup(Agent.Thread, n)` (bwd_sm100
   * 1412-1486) evaluated with the constructor's values (softmax_correction_threads_cluster = 32 *
   * len(softmax0 + correction warps) * cta_group_size = 256, 1028-1030). A ring whose counts are not
   * known is marked, and its arrivals stop the role. DSL_TMA_ASYNC_SIGNAL: a PipelineTmaAsync's
   * consumer release arrives once per warp (sm90.py `is_signalling_thread`; docs/programs.md).
   */
  function dslRingCounts(ctx, ring, name) {
    if (!(ctx.roleVars.length && ctx.roleVars[0].warp_ids)) return;
    var create = ctx.dslCreate && ctx.dslCreate[name], agents = DSL_PIPELINE_AGENTS[ring.cls];
    ring.dslAgents = agents || null;
    ring.dslCounts = null;
    if (!create || !agents) return;
    var kw = create.kw;   // dsl.js dslCreation: the create call's keywords (a factory's: its groups)
    var sizes = ["producer_group", "consumer_group"].map(function (k) { return dslGroupSize(ctx, kw[k]); });
    if (typeof sizes[0] !== "number" || typeof sizes[1] !== "number") return;
    ring.dslCounts = sizes;
    ring.full.forEach(function (b) { b.expected = sizes[0]; });
    ring.empty.forEach(function (b) { b.expected = sizes[1]; });
    // PipelineAsync's elect_one_commit / elect_one_release (flash_attn/cute/pipeline.py 228-243): one thread per warp signals.
    ring.dslElect = [kw.elect_one_commit ? truthy(K.evalExpr(kw.elect_one_commit, {}, ctx, true)) : false,
      kw.elect_one_release ? truthy(K.evalExpr(kw.elect_one_release, {}, ctx, true)) : ring.cls === "PipelineTmaAsync"];
  }

  /** The size of a CooperativeGroup the kernel program binds to `e` (a name), else null. */
  function dslGroupSize(ctx, e) {
    if (!Array.isArray(e) || e[0] !== "id") return null;
    var let_ = null;
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && n.names && n.names.length === 1 && n.names[0] === e[1]) let_ = let_ || n;
        if (!let_) { walk(n.then); walk(n["else"]); }
      });
    })(ctx.kernel);
    var x = let_ && let_.expr, xa = x && x[2] || [];
    if (!Array.isArray(x) || x[0] !== "call" || !/CooperativeGroup$/.test(x[1])) return null;
    // `ThreadCooperativeGroup(n)`: ThreadCooperativeGroup = partial(pipeline.CooperativeGroup, pipeline.Agent.Thread)
    // (sm100 1003); `cutlass.pipeline.CooperativeGroup(cutlass.pipeline.Agent.Thread, n)` (bwd_sm100 1412-1414).
    var nArg = xa.length === 1 && /^ThreadCooperativeGroup$/.test(x[1]) ? xa[0] :
      xa.length === 2 && /(?:^|\.)Agent\.Thread$/.test(exprText(xa[0])) ? xa[1] : null;
    if (nArg === null) return null;
    var v = K.evalExpr(nArg, {}, ctx, true);
    return typeof v === "number" && v > 0 ? v : null;
  }

  /** The text of a dotted name tree (`cutlass.pipeline.Agent.Thread`), else "". */
  function exprText(e) {
    if (!Array.isArray(e)) return "";
    if (e[0] === "id") return e[1];
    return e[0] === "member" ? exprText(e[1]) + "." + e[2] : "";
  }

  /** DSL_CLUSTER_LAYOUT: a CuTe layout the run knows by its shape, a Tuple of positive ints (`cute.make_layout(s)`). */
  function Layout(shape) { this.shape = shape; }
  /** The size of a shape: a number, a Tuple of shapes (their product) or a Layout's; null when not known. */
  function shapeSize(v) {
    if (v instanceof Layout) return shapeSize(v.shape);
    if (typeof v === "number") return v > 0 && v === Math.floor(v) ? v : null;
    if (!(v instanceof K.Tuple)) return null;
    var n = 1;
    for (var i = 0; i < v.items.length; i++) { var m = shapeSize(v.items[i]); if (m === null) return null; n *= m; }
    return n;
  }

  /** gcd of two non-negative integers, else Unknown. */
  function gcd(a, b) {
    if (typeof a !== "number" || typeof b !== "number" || a < 0 || b < 0 || a !== Math.floor(a) || b !== Math.floor(b)) return new K.Unknown("`math.gcd` of values that are not known integers");
    while (b) { var r = a % b; a = b; b = r; }
    return a;
  }

  /** DSL_TENSOR_SHAPES: `cute.make_tensor(iterator, shape)` is known by its shape when that is known (the iterator is not read). */
  function dslMakeTensor(args, env, ctx) {
    if (args.length !== 2) return PASS;
    var sh = K.evalExpr(args[1], env, ctx, false);
    if (sh instanceof Layout) sh = sh.shape;
    return sh instanceof K.Tuple && shapeSize(sh) !== null ? new Layout(sh) : PASS;
  }

  /**
   * DSL_CLUSTER_LAYOUT, DSL_BLOCK_IDX (dslExpr's hook; docs/programs.md): `cute.make_layout(s)` of a
   * known shape is a Layout; `cute.tiled_divide(L, tiler)` of a Layout of size 1 by a tuple tiler of
   * size-1 modes is all ones (the cluster of one CTA, bwd_sm100 767-772); `cute.size(x)` of a known
   * shape is its size; `cute.arch.block_idx()` is (0, 0, 0), the leader CTA (1329-1331).
   */
  K.dslLayoutCall = function (e, env, ctx, constexpr) {
    var name = e[1], args = e[2] || [];
    if (name === "cute.arch.block_idx" && !args.length) return new K.Tuple([0, 0, 0]);
    if (name === "cute.make_tensor") return dslMakeTensor(args, env, ctx);
    // Python's `math.gcd` of known integers (`math.gcd(128 // (self.dk_dtype.width // 8), self.tile_hdim // 2)`, bwd_sm100 621-627).
    if (name === "math.gcd" && args.length === 2) return gcd(K.evalExpr(args[0], env, ctx, constexpr), K.evalExpr(args[1], env, ctx, constexpr));
    var tm = K.dslTmemCall(e, env, ctx);   // DSL_TMEM_COPIES (tmem.js)
    if (tm !== PASS) return tm;
    if (name !== "cute.make_layout" && name !== "cute.tiled_divide" && name !== "cute.size") return PASS;
    // The argument is read as a value, not a compile-time test: an unknown name in it is no flag.
    var a = args.length ? K.evalExpr(args[0], env, ctx, false) : null;
    if (name === "cute.make_layout" && args.length === 1 && a instanceof K.Tuple && shapeSize(a) !== null) return new Layout(a);
    if (name === "cute.size" && args.length === 1 && !isUnknown(a)) { var n = shapeSize(a); return n === null ? PASS : n; }
    // DSL_TENSOR_SHAPES: `cute.make_tensor(iterator, shape)` of a known shape (a tuple of positive
    // ints, or a Layout) is known by that shape (`tdQrdQ = cute.make_tensor(tdQrdQ_t2r.iterator,
    // tdQrdQ_shape)`, bwd_sm100 4223-4227); `cute.size(x, mode=[i])` of a known shape is the size of
    // its mode i (the reduce's `for stage in cutlass.range_constexpr(cute.size(tdQrdQ, mode=[1]))`, 4229).
    if (name === "cute.size" && args.length === 2 && Array.isArray(args[1]) && args[1][0] === "kw" && args[1][1] === "mode") {
      var shape = a instanceof Layout ? a.shape : a, mode = K.evalExpr(args[1][2], env, ctx, false);
      if (!(shape instanceof K.Tuple) || !(mode instanceof K.Tuple) || mode.items.length !== 1 || typeof mode.items[0] !== "number") return PASS;
      var m = mode.items[0];
      var ms = m >= 0 && m < shape.items.length ? shapeSize(shape.items[m]) : null;
      return ms === null ? PASS : ms;
    }
    if (name !== "cute.tiled_divide" || args.length !== 2 || !(a instanceof Layout) || shapeSize(a) !== 1) return PASS;
    // The tiler, a tuple written in the call: each mode's size through `cute.size` (DSL_MMA_CTAS for `thr_id.shape`).
    var tiler = args[1];
    if (!(Array.isArray(tiler) && tiler[0] === "call" && tiler[1] === "tuple") || !(tiler[2] || []).every(function (m) {
      return K.evalExpr(["call", "cute.size", [m]], env, ctx, false) === 1;
    })) return PASS;
    return new Layout(new K.Tuple([1].concat(a.shape.items.map(function () { return 1; }))));
  };
  K.Layout = Layout;

  /**
   * DSL_COMPREHENSIONS: `["comp", elt, names, iterable, conds]` (programs_dsl._expr_comp), a
   * generator expression or list comprehension over a known tuple: each item bound to the names
   * (a tuple item unpacked), kept when every condition holds, gives elt; the items are a tuple
   * (`tuple(w for w, active in [(self.relay_warp_id, not use_cpasync_load_KV), ...] if active)`,
   * FA4 mla_sm100 161-167). An iterable or a condition the run does not know is Unknown.
   */
  K.dslComprehension = function (e, env, ctx, constexpr) {
    var xs = K.evalExpr(e[3], env, ctx, constexpr), names = e[2], out = [];
    if (!(xs instanceof K.Tuple)) return new K.Unknown("a comprehension over a value that is not a known tuple");
    for (var i = 0; i < xs.items.length; i++) {
      var item = xs.items[i], inner = Object.assign({}, env);
      if (names.length === 1) inner[names[0]] = { v: item };
      else if (item instanceof K.Tuple && item.items.length === names.length) names.forEach(function (n, j) { inner[n] = { v: item.items[j] }; });
      else return new K.Unknown("a comprehension item that does not unpack to " + names.join(", "));
      for (var c = 0; c < e[4].length; c++) {
        var cv = K.evalExpr(e[4][c], inner, ctx, constexpr);
        if (isUnknown(cv)) return new K.Unknown("a comprehension condition that is not known");
        if (!truthy(cv)) { inner = null; break; }
      }
      if (inner) out.push(K.evalExpr(e[1], inner, ctx, constexpr));
    }
    return new K.Tuple(out);
  };

  /**
   * DSL_MEMBERSHIP: `x in t` / `x not in t` (programs_dsl: ["bin", "in" | "not in", x, t]) of a
   * number in a known tuple of numbers (`warp_idx in self.softmax_warp_indices`, FA4 mla_sm100
   * 1232; `self.tile_hdim in (192, 256)`, bwd_sm100 144); anything else is Unknown.
   */
  K.dslMembership = function (e, env, ctx, constexpr) {
    var x = K.evalExpr(e[2], env, ctx, constexpr), t = K.evalExpr(e[3], env, ctx, constexpr);
    if (isUnknown(x)) return x;
    if (!(t instanceof K.Tuple) || typeof x !== "number" || !t.items.every(function (v) { return typeof v === "number"; })) {
      return new K.Unknown("`" + e[1] + "` of a value that is not a known tuple of numbers");
    }
    var has = t.items.indexOf(x) >= 0 ? 1 : 0;
    return e[1] === "in" ? has : 1 - has;
  };

  /**
   * DSL_UNFOLLOWED_CALLS: a free call without a program that is handed a pipeline the run models
   * or a pipeline state it follows does that protocol's waits and releases where the run cannot
   * see them (FA4 bwd_sm90's block-sparse arms: `produce_block_sparse_q_loads_bwd_sm90(...,
   * producer_state_Q, producer_state_dO, pipeline_Q, pipeline_dO, ...)`, 999-1020, and
   * `consume_block_sparse_mma_bwd_sm90(..., consumer_state_Q, ...)`, 1398-1417, functions of
   * block_sparse_utils.py, which this file's parse does not read): the role stops there, named.
   * PASS otherwise (the C++ rules: a free call is no step).
   */
  RoleRun.prototype.dslUnfollowed = function (node, name, args, env, valued) {
    var self = this, handed = null;
    (args || []).forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw") a = a[2];   // `f(..., ab_pipeline=ab_pipeline)`: the keyword's value
      if (handed || !Array.isArray(a) || a[0] !== "id") return;
      var box = env[a[1]] || self.env[a[1]], v = box ? box.v : undefined;
      if ((v instanceof Obj && v.kind === "pipe") || v instanceof State) handed = a[1];
    });
    if (!handed) return PASS;
    // A let's call the DSL rules give a value (`tuple(...)`, `copy_utils.tma_producer_copy_fn(load_Q, pipeline_Q)`) is read as such.
    if (valued && !isUnknown(this.eval(["call", name, args], env, false))) return PASS;
    return this.stop(node, "`" + name + "` is handed `" + handed + "` but has no program here: its pipeline steps are not followed");
  };


  /**
   * DSL_ASSERT_EQUALS (programs_dsl._read_assert: `assert a == b` is a call node named `assert`
   * with the test as its argument): where one side is a name of the function whose value the run
   * does not know and the other side is known, the assert states the name's value, and the run
   * binds it: `num_epi_stages = cute.size(tdKVgdKV.shape[1])` of a TMA partition (FA4 bwd_sm100
   * 4815, not modelled) is asserted equal to `self.num_epi_stages` (4817; 4819 for V), which the
   * setup computes from dK's element width (621-631, DSL_TENSOR_DTYPES). Two known numbers that
   * differ stop the role, naming the assert (the kernel does not compile at this setting; the run
   * never goes on past it); a side the run does not know otherwise leaves the assert no step.
   */
  RoleRun.prototype.dslAssert = function (node, env) {
    var t = (node.args || [])[0];
    if (!Array.isArray(t) || t[0] !== "bin" || t[1] !== "==") return undefined;
    var a = this.eval(t[2], env, false), b = this.eval(t[3], env, false);
    var ua = isUnknown(a), ub = isUnknown(b);
    if (ua && !ub && localName(t[2], env)) { env[t[2][1]].v = b; return undefined; }
    if (ub && !ua && localName(t[3], env)) { env[t[3][1]].v = a; return undefined; }
    if (ua || ub || typeof a !== "number" || typeof b !== "number" || a === b) return undefined;
    return this.stop(node, "the assert at line " + node.line + " is false at this setting: `" + treeText(t[2]) + "` is " + a +
      ", `" + treeText(t[3]) + "` is " + b);
  };
  /** A short Python-like text of an expression tree (names, numbers, members, operators, calls), for a stop's reason. */
  function treeText(e, depth) {
    if (!Array.isArray(e) || (depth || 0) > 6) return "...";
    var d = (depth || 0) + 1;
    switch (e[0]) {
      case "id": return String(e[1]);
      case "n": return String(e[1]);
      case "member": return treeText(e[1], d) + "." + e[2];
      case "bin": return treeText(e[2], d) + " " + (e[1] === "/" ? "//" : e[1]) + " " + treeText(e[3], d);
      case "un": return (e[1] === "!" ? "not " : e[1]) + treeText(e[2], d);
      case "call": return e[1] + "(" + (e[2] || []).map(function (a) { return treeText(a, d); }).join(", ") + ")";
      case "index": return treeText(e[1], d) + "[" + treeText(e[2], d) + "]";
      case "?": return String(e[1]);
      default: return "...";
    }
  }
  /** A name bound in the function's frame (a let or parameter), not a dotted path or another tree. */
  function localName(e, env) { return Array.isArray(e) && e[0] === "id" && Object.prototype.hasOwnProperty.call(env, e[1]); }

  /**
   * DSL_TENSOR_DTYPES (constants.js): `p.element_type` of a name the frame does not bind (the
   * constructor's `self.dk_dtype = mdK.element_type`, read from `__call__` by CALL_ELEMENT_TYPES)
   * is that tensor's element type when the table lists p: its width the knob (read, so the page
   * states the assumption) or float32 (fixed, or the kernel's `accum` attribute on); `t.width` of
   * an element type is its width in bits. PASS otherwise.
   */
  K.dslDtypeMember = function (e, o, env, ctx) {
    if (o instanceof Obj && o.kind === "dtype" && e[2] === "width") return o.data.bits;
    var p = e[2] === "element_type" && Array.isArray(e[1]) && e[1][0] === "id" && !env[e[1][1]] &&
      Object.prototype.hasOwnProperty.call(K.DSL_TENSOR_DTYPES, e[1][1]) ? K.DSL_TENSOR_DTYPES[e[1][1]] : null;
    if (!p) return PASS;
    var accum = p.accum ? K.dslSelf(p.accum, ctx, false) : 0;
    if (isUnknown(accum)) return new K.Unknown("the element type of `" + e[1][1] + "` depends on `self." + p.accum + "`, which is not known");
    var bits = p.bits || (truthy(accum) ? 32 : ctx.knobs[p.knob]);
    return typeof bits === "number" ? new Obj("dtype", e[1][1], { bits: bits }) : new K.Unknown("the element width of `" + e[1][1] + "` is not known");
  };

  /**
   * DSL_CONSTRUCTOR_ASSERTS (programs_dsl._ctor_asserts): the constructor's `assert` tests,
   * evaluated with its parameters (their defaults, or the knobs' flags of the same names) and
   * attributes; the first that is false, as the run's error, else null. A test the run cannot
   * evaluate is passed over. FA4 flash_fwd_mla_sm100.py's defaults (`is_topk_gather = True`,
   * `pack_gqa = False`, `use_cpasync_load_KV = False`, 68, 69, 66) fail `assert pack_gqa` (95)
   * and `assert use_cpasync_load_KV` (107): the constructor refuses them, so there is no kernel to run.
   */
  K.dslRefusedSettings = function (ctx) {
    var ctor = (ctx.roleVars.length && ctx.roleVars[0].constructor) || {}, env = K.dslCtorEnv(ctx);
    var checks = ctor.asserts || [];
    for (var i = 0; i < checks.length; i++) {
      var v = K.evalExpr(checks[i].expr, env, ctx, false);
      if (typeof v !== "number" || v !== 0) continue;
      var read = [];
      (function names(e) {
        if (!Array.isArray(e)) return;
        if (e[0] === "id" && env[e[1]] && read.indexOf(e[1]) < 0) read.push(e[1]);
        e.forEach(names);
      })(checks[i].expr);
      var given = ctx.knobs.flags || {};
      return "the constructor refuses these settings: its assert at line " + checks[i].line + " is false with " +
        read.map(function (n) {
          var x = env[n].v;
          return n + " = " + (typeof x === "number" ? x : "?") + (Object.prototype.hasOwnProperty.call(given, n) ? " (flag)" : " (default)");
        }).join(", ") + " (set a parameter by its name: viz.py --flag NAME=VALUE, the page's URL hash flag.NAME=VALUE, or simulate()'s knobs.flags)";
    }
    return null;
  };

  K.DSL_OPS = DSL_OPS; K.dslRingCounts = dslRingCounts;
  return K;
})(typeof KernelInterpretDsl !== "undefined" ? KernelInterpretDsl : require("./dsl.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretDslOps;
