/*
 * sim/interpret/warps.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * The warp a role's program runs as, in a kernel whose roles are enum values of the warp index
 * (ROLE_WARP), and the batch of a work tile (WORK_BATCH): what the ptr-array / grouped GEMMs read
 * to decide whether their tensor maps need an update (docs/programs.md "Array (ptr-array and
 * grouped) GEMMs"); the tile schedulers that hand work tiles through a pipeline (GROUP_SCHEDULER,
 * SCHEDULER_PIPELINE: docs/programs.md "Tile schedulers that hand work through a pipeline").
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretWarps = (function (K) {
  "use strict";

  var PASS = K.PASS, WARP_THREADS = K.WARP_THREADS, WARPGROUP_THREADS = K.WARPGROUP_THREADS, evalExpr = K.evalExpr,
    isUnknown = K.isUnknown;
  var WARPS_PER_WARPGROUP = WARPGROUP_THREADS / WARP_THREADS;

  /**
   * ROLE_WARP_UNITS: what one step of a role variable's warp argument is, by the call that gives
   * the argument (the kernel's own let of that name): `canonical_warp_idx_sync()` a warp
   * (cutlass/arch/arch.h: threadIdx.x / 32), `canonical_warp_group_idx()` a warpgroup (4 warps:
   * threadIdx.x / 128), `warp_idx % NumWarpsPerWarpGroup` the warp within the warpgroup.
   */
  function warpUnit(e, lets) {
    if (!Array.isArray(e)) return null;
    if (e[0] === "call" && /^(?:cutlass::)?canonical_warp_idx_sync$/.test(e[1]) && !(e[2] || []).length) return "warp";
    if (e[0] === "call" && /^(?:cutlass::)?canonical_warp_group_idx$/.test(e[1]) && !(e[2] || []).length) return "warpgroup";
    if (e[0] === "bin" && e[1] === "%" && Array.isArray(e[3]) && e[3][0] === "id" && e[3][1] === "NumWarpsPerWarpGroup" &&
        Array.isArray(e[2]) && e[2][0] === "id" && lets[e[2][1]] && warpUnit(lets[e[2][1]], lets) === "warp") return "inWarpgroup";
    return null;
  }

  /**
   * The argument name of a role variable's initializer `Enum(x)`, or of `x < static_cast<int>(Enum::M)
   * ? Enum(x) : Enum::M` (SM100 kernels: every warp from M's value on is M, so M's first warp is its
   * value, as every other member's is); else null.
   */
  function roleArgument(e, v) {
    if (!Array.isArray(e)) return null;
    var call = e;
    if (e[0] === "?:") {
      var c = e[1], last = e[3];
      if (!Array.isArray(c) || c[0] !== "bin" || c[1] !== "<" || !Array.isArray(last) || last[0] !== "id" ||
          last[1].indexOf(v.enum + "::") !== 0) return null;
      var bound = Array.isArray(c[3]) && c[3][0] === "call" && c[3][1] === "static_cast" ? (c[3][2] || [])[0] : c[3];
      if (!Array.isArray(bound) || bound[0] !== "id" || bound[1] !== last[1]) return null;
      call = e[2];
      if (!Array.isArray(c[2]) || c[2][0] !== "id" || !Array.isArray(call) || JSON.stringify((call[2] || [])[0]) !== JSON.stringify(c[2])) return null;
    }
    if (call[0] !== "call" || call[1] !== v.enum || (call[2] || []).length !== 1 || call[2][0][0] !== "id") return null;
    return call[2][0][1];
  }

  /** {role variable name: "warp" | "warpgroup" | "inWarpgroup"} of the kernel program's top-level lets (cached on ctx). */
  function roleWarpUnits(ctx) {
    if (ctx.roleWarpUnits !== undefined) return ctx.roleWarpUnits;
    var lets = {}, inits = {}, out = {};
    (ctx.kernel || []).forEach(function (n) {
      if (n.node === "let" && (n.names || []).length === 1 && lets[n.names[0]] === undefined) { lets[n.names[0]] = n.expr; inits[n.names[0]] = n.expr; }
    });
    (ctx.roleVars || []).forEach(function (v) {
      var arg = Array.isArray(v.values) ? roleArgument(inits[v.name], v) : null;
      var unit = arg !== null && lets[arg] ? warpUnit(lets[arg], lets) : null;
      if (unit) out[v.name] = unit;
    });
    ctx.roleWarpUnits = Object.keys(out).length === (ctx.roleVars || []).length && (ctx.roleVars || []).length ? out : null;
    return ctx.roleWarpUnits;
  }

  /**
   * ROLE_WARP: `canonical_warp_idx_sync()` in a kernel whose roles are enum values of the warp
   * index is the first warp of the role, the warp whose elected thread the role's program follows
   * (as `if (lane_predicate)` is that thread's: RUNTIME_CONDITIONS). Each role variable's value
   * fixes it: `WarpCategory(warp_idx)` the member's value (a warp), `WarpGroupRole(warp_group_idx)`
   * 4 warps per member, `ProducerWarpRole(warp_idx_in_warp_group)` the warp within the warpgroup
   * (0, the warpgroup's first, for a role its binding does not fix: the consumer warpgroups).
   * PASS when the kernel's role variables are not all of these forms or their enum's values are unread.
   */
  function roleWarp(ctx) {
    var units = roleWarpUnits(ctx), binding = ctx.roleBinding || {};
    if (!units) return PASS;
    var warp = 0, fixed = false;
    for (var i = 0; i < ctx.roleVars.length; i++) {
      var v = ctx.roleVars[i], b = binding[v.name];
      if (!b || typeof b.name !== "string") { if (units[v.name] === "warp") return PASS; continue; }
      var at = v.members.indexOf(b.name.slice(b.name.lastIndexOf("::") + 2));
      if (at < 0) return PASS;
      var value = v.values[at];
      warp += units[v.name] === "warpgroup" ? value * WARPS_PER_WARPGROUP : value;
      fixed = true;
    }
    return fixed ? warp : PASS;
  }

  /**
   * WORK_BATCH: a work tile's `L_idx` (its batch, static_tile_scheduler.hpp 58) is the tile's own
   * index: each of a CTA's tiles is in a batch of its own, the documented choice (the batch of a
   * tile is the problem's, which the run does not have). A persistent CTA strides over the linear
   * tile index by the grid (static_tile_scheduler.hpp advance_to_next_work, 192-199), so two of its
   * tiles share a batch only when the batch has more output tiles than the grid has CTAs. So the
   * array kernels' `did_batch_change` holds on every tile and their tensor-map updates run per
   * tile; those calls hold no op (no step either way).
   */
  function workMember(ctx, work, name) {
    return name === "L_idx" ? work.tile : PASS;
  }

  /**
   * `idx2crd(i, shape<4>(g))` of a number i: an integer index over an integral shape is the index
   * (cute/stride.hpp 241-243). Mode 4 of the array collectives' tiled tensors `gA_mkl` / `gB_nkl`
   * (BLK, BLK_K, m or n, k, l) is the batch mode, built from the integer `init_L` (SM90 array
   * collective 337-346; SM100 array collective, ARRAY_BATCH_MODE in docs/programs.md).
   */
  function batchCoord(e, env, ctx, constexpr) {
    var args = e[2] || [];
    if (args.length !== 2 || !Array.isArray(args[1]) || args[1][0] !== "call" || !/^(?:cute::)?shape$/.test(args[1][1]) ||
        String(args[1][3]) !== "4") return PASS;
    var i = evalExpr(args[0], env, ctx, constexpr);
    return typeof i === "number" && !isUnknown(i) ? i : PASS;
  }

  /**
   * CUTLASS_CONSTANTS: the library's own warp constants a kernel reads by name (cutlass/cutlass.h
   * 100-102: `NumThreadsPerWarpGroup = 128`, `NumWarpsPerWarpGroup = NumThreadsPerWarpGroup /
   * NumThreadsPerWarp`, 4): `warp_idx % NumWarpsPerWarpGroup` (array cooperative kernel 473).
   */
  var CUTLASS_CONSTANTS = { NumWarpsPerWarpGroup: WARPS_PER_WARPGROUP, "cutlass::NumWarpsPerWarpGroup": WARPS_PER_WARPGROUP };

  /**
   * GROUP_SCHEDULER: a tile scheduler that hands its work tiles from one warp to the others
   * through a pipeline is modelled only where that pipeline is a ring of the run
   * (SCHEDULER_PIPELINE, below). The kernel shows it by calling `scheduler.advance_to_next_work(p,
   * state)` (a pipeline and its state) in an arm its compile-time flags select: only such
   * schedulers have that overload: the grouped GEMMs' PersistentTileSchedulerSm90Group (the
   * Scheduler warp's producer_acquire / commit, the others' consumer_wait / release in
   * fetch_next_work: sm90_tile_scheduler_group.hpp 431-447, 558-575; SM100's delegates to it,
   * sm100_tile_scheduler_group.hpp 195-200, 310-315) and SM100's CLC scheduler (below); the static
   * persistent scheduler has only `advance_to_next_work(uint32_t)` (static_tile_scheduler.hpp 192),
   * its `fetch_next_work(work, pipeline, state)` ignores the pipeline (296-304). SM90's array
   * kernels call it under `if constexpr (cute::is_same_v<SchedulerTag, GroupScheduler>)`
   * (cooperative 612-621: the tag is GroupScheduler for the grouped GEMM, 126, 137-145; off, the
   * ptr-array GEMM, it is PersistentTileSchedulerSm90, tile_scheduler.hpp 97-127); SM100's array
   * kernel where `IsSchedDynamicPersistent` is off (sm100_gemm_array_tma_
   * warpspecialized.hpp 859, its `else` arm). Where SCHEDULER_PIPELINE makes no ring (SM90's
   * scheduler pipeline, or a run without the `schedStages` knob) each role stops at the
   * scheduler's declaration, named. The call is the group scheduler's when it returns (work, true)
   * into a structured binding (sm90_tile_scheduler_group.hpp 447); the CLC scheduler's returns the
   * producer state (`clc_pipe_producer_state = scheduler.advance_to_next_work(...)`, 828): the
   * walk records either form (ctx.schedulerAdvance), handsWork answers the group's line.
   * A flag is peeked (knobs.flags), not recorded: the roles record it where they read it.
   */
  function handsWork(ctx) {
    if (ctx.schedulerHandsWork !== undefined) return ctx.schedulerHandsWork;
    var given = ctx.knobs.flags || {}, found = null;
    function on(cond) {
      var name = Array.isArray(cond) && (cond[0] === "id" || cond[0] === "?") ? String(cond[1]) : null;
      return name === null ? null : !!given[name];
    }
    function isCall(e) {
      return Array.isArray(e) && e[0] === "mcall" && Array.isArray(e[1]) && e[1][0] === "id" && e[1][1] === "scheduler" &&
        e[2] === "advance_to_next_work" && (e[3] || []).length >= 2;
    }
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (found !== null) return;
        // The group scheduler's (work, true) into a structured binding; the CLC scheduler's state into its producer state.
        if (n.node === "let" && (n.names || []).length === 2 && isCall(n.expr)) { found = { line: n.line, expr: n.expr, form: "group" }; return; }
        if (n.node === "set" && n.op === "=" && !n.member && isCall(n.expr)) { found = { line: n.line, expr: n.expr, form: "clc" }; return; }
        if (n.node === "if" && n.constexpr) {
          var c = on(n.cond);
          if (c !== false) walk(n.then);
          if (c !== true) walk(n["else"]);
          return;
        }
        walk(n.body); walk(n.then); walk(n["else"]);
      });
    })(ctx.kernel || []);
    ctx.schedulerAdvance = found;
    ctx.schedulerHandsWork = found && found.form === "group" ? found.line : null;
    return ctx.schedulerHandsWork;
  }

  function newScheduler(rr, node) {
    var s = rr.scheduler = new K.Scheduler(), at = handsWork(rr.ctx);
    if (at !== null && !rr.ctx.schedPipe) {
      rr.stop(node, "the tile scheduler hands its work tiles through a pipeline (`scheduler.advance_to_next_work(pipeline, state)`, line " + at +
        ": the grouped GEMM's group scheduler, sm90_tile_scheduler_group.hpp 431-447 and 558-575), which is not modelled");
    }
    return s;
  }

  /**
   * SCHED_PIPELINE_CHOICE: the SM100 array and mixed TMA / cp.async kernel layers choose their
   * scheduler pipeline's class at compile time, `using CLCPipeline = cute::conditional_t<
   * IsSchedDynamicPersistent, cutlass::PipelineCLCFetchAsync<...>, cutlass::PipelineAsync<...>>;`
   * (sm100_gemm_array_tma_warpspecialized.hpp 178-180; sm100_gemm_mixed_tma_cpasync_
   * warpspecialized.hpp 209-211). The parse's kernel-layer pipelines keep the two candidates, not
   * the condition, so the condition is this table's, pinned on the source text by a test: the
   * flag on gives the first class, off the second.
   */
  var SCHED_PIPELINE_CHOICE = { flag: "IsSchedDynamicPersistent", choices: [["PipelineCLCFetchAsync", "PipelineAsync"], ["PipelineAsync", "PipelineEmpty"]] };

  function choiceClass(ctx, k) {
    var c = k["class"];
    if (typeof c === "string") return c;
    var hit = Array.isArray(c) && c.length === 2 && SCHED_PIPELINE_CHOICE.choices.some(function (w) { return w[0] === c[0] && w[1] === c[1]; });
    return hit ? c[(ctx.knobs.flags || {})[SCHED_PIPELINE_CHOICE.flag] ? 0 : 1] : null;
  }

  /** The kernel-layer pipeline alias of the object a kernel program declares by name (its let's type), or null. */
  function declaredAlias(ctx, name) {
    var found = null;
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (found !== null) return;
        if (n.node === "let" && (n.names || [])[0] === name && n.type) { found = K.declKind(n.type).base; return; }
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    })(ctx.kernel || []);
    return found;
  }

  /**
   * SCHEDULER_PIPELINE: the ring a tile scheduler hands its work tiles through, where the kernel's
   * scheduler is the group scheduler (GROUP_SCHEDULER: `scheduler.advance_to_next_work(p, state)`
   * into a structured binding in an arm its flags select) and p's class is one the run models
   * (SCHED_PIPELINE_CHOICE: PipelineAsync, the flag off). Its stage count is
   * SchedulerPipelineStageCount, a dispatch-policy parameter the builder sets (the `schedStages`
   * knob, SOURCE_KNOB_ASSUMPTIONS). Made once the roles are known (ops.js run), as a ring of the
   * kernel layer's own (kernelLayerPipelines): its stage lanes are drawn and its states followed.
   */
  function schedulerPipelines(ctx) {
    ctx.schedPipe = null;
    // A run without the stage knob (a direct KernelInterpret.run; the program model always passes it) makes no ring.
    if (ctx.wg || ctx.dsl) return;
    handsWork(ctx);
    var adv = ctx.schedulerAdvance, arg = adv ? (adv.expr[3] || [])[0] : null;
    var alias = Array.isArray(arg) && arg[0] === "id" ? declaredAlias(ctx, arg[1]) : null;
    var k = alias ? ctx.kernelPipelines[alias] : null;
    if (!k || ctx.pipelineAliases[alias]) return;
    var cls = choiceClass(ctx, k);
    // The knob is read only here, for a kernel with such a ring (the page offers it only then).
    if (cls !== SCHED_RING_CLASS[adv.form] || typeof ctx.knobs.schedStages !== "number") return;
    schedulerRing(ctx, alias, k, cls);
    ctx.schedPipe = { alias: alias, object: arg[1], form: adv.form };
    if (adv.form === "clc" && ctx.kernelPipelines[SCHED_THROTTLE] && choiceClass(ctx, ctx.kernelPipelines[SCHED_THROTTLE]) === "PipelineAsync") {
      schedulerRing(ctx, SCHED_THROTTLE, ctx.kernelPipelines[SCHED_THROTTLE], "PipelineAsync");
    }
    ctx.stateCache = null;   // a state type of these rings read before they existed (the role walk's dry runs)
  }

  /**
   * The class of the scheduler ring by the advance's form: the group scheduler's PipelineAsync
   * (the flag off), the CLC scheduler's PipelineCLCFetchAsync (the SM100 GEMM 172; the flag on).
   * SCHED_THROTTLE: the CLC scheduler's throttle, the kernel layer's `CLCThrottlePipeline`
   * (`cutlass::PipelineAsync<SchedulerPipelineStageCount>`, SM100 GEMM 175, array 182-184): the
   * load warp's producer_acquire / commit before each tile's loads (632-634), the Sched warp's
   * consumer_wait / release before each query (692-694). Both have SchedulerPipelineStageCount
   * stages (`schedStages`).
   */
  var SCHED_RING_CLASS = { group: "PipelineAsync", clc: "PipelineCLCFetchAsync" };
  var SCHED_THROTTLE = "CLCThrottlePipeline";

  /** The kernel layer's pipeline alias as a ring of the run with schedStages stages (replacing its entry, if any). */
  function schedulerRing(ctx, alias, k, cls) {
    var own = { alias: alias, "class": cls, classes: k["class"], line: k.line, used: true, kernel_layer: true, stages: String(ctx.knobs.schedStages) };
    var at = ctx.pipelineList.indexOf(ctx.pipelineAliases[alias]);
    ctx.pipelineAliases[alias] = own;
    if (at >= 0) ctx.pipelineList[at] = own; else ctx.pipelineList.push(own);
  }

  /**
   * SCHED_CLC_RULE: PipelineCLCFetchAsync (sm100_pipeline.hpp 923-1124), the ring's rule (set on
   * the run's ring before the roles start: ops.js nameWaitReasons): producer_acquire waits the
   * stage's empty barrier and arms the full one for the 16-byte response (1083-1092); the full
   * barrier completes when the response of the query lands (clusterlaunchcontrol.try_cancel ...
   * complete_tx, sm100_tile_scheduler.hpp 393-405); consumer_wait waits it (1112-1117),
   * consumer_release arrives on the empty one (1120-1123); producer_tail waits every stage empty
   * (1029-1038). Its waits are `clc` (the Blackwell model's reason).
   */
  var SCHED_CLC_RULE = { stages: "schedStages", commit: "none", release: "arrive", acquireReason: "clc", waitReason: "clc" };

  function schedulerRings(run) {
    var sp = run.ctx.schedPipe, ring = sp && sp.form === "clc" ? run.pipes[sp.alias] : null;
    if (!ring) return;
    ring.rule = SCHED_CLC_RULE;
    ring.modelled = true;
  }

  /**
   * A scheduler call that hands a work tile through the scheduler ring (SCHEDULER_PIPELINE): the
   * group scheduler's `advance_to_next_work(pipeline, state)` (the Sched role writes the next tile)
   * and `fetch_next_work(work, pipeline, state)` (every other role reads it), as a call node the
   * role runs (execCall); null for any other call, which stays the static scheduler's.
   */
  function schedulerStep(rr, e, env, at) {
    var sp = rr.ctx.schedPipe, args = e[3] || [], name = e[2];
    var p = name === "advance_to_next_work" ? args[0] : name === "fetch_next_work" ? args[1] : null;
    if (!sp || !Array.isArray(p) || p[0] !== "id" || p[1] !== sp.object) return null;
    return { node: "call", receiver: e[1][1], name: name, args: args, line: at.line, end_line: at.end_line, handsWork: true, at: at };
  }

  /**
   * SCHED_CONSUMERS: the roles that release a scheduler ring's stage. The group scheduler's
   * pipeline is built with the Sched warp as its producer only and every other role's threads as
   * its consumers (array kernel 562-570, 583-587: `consumer_arv_count = NumMainloopLoadThreads +
   * NumEpilogueThreads + NumMMAThreads`, plus the epilogue load's when is_epi_load_needed, which
   * the run's epilogue never needs: RUNTIME_CHOICES is_producer_load_needed 0); the run counts one
   * arrival per role, so a stage's empty barrier expects every role of the run but the producer.
   */
  /*
   * The CLC scheduler's pipeline counts the Sched warp too (ProducerConsumer: it reads each
   * response itself), `consumer_arv_count = NumSchedThreads + cluster_size * (NumMainloopLoadThreads
   * + NumEpilogueThreads + NumMMAThreads)` (array kernel 574-580; SM100 GEMM 510-511): every role.
   */
  function schedConsumers(rr, ring) {
    if (ring.schedConsumers === undefined) {
      ring.schedConsumers = rr.run.roles.length - (rr.ctx.schedPipe.form === "clc" ? 0 : 1);
      ring.empty.forEach(function (b) { b.expected = ring.schedConsumers; });
      ring.responses = [];
    }
  }

  /**
   * The steps of a scheduler call (SCHEDULER_PIPELINE), from the scheduler's own code:
   * the group scheduler's advance (sm90_tile_scheduler_group.hpp 431-447, SM100's delegating,
   * sm100_tile_scheduler_group.hpp 195-200): the next tile of the CTA (the linear index moves by
   * the grid, 439-440: TILES_PER_CTA decides when it is past the CTA's last, the invalid tile that
   * ends every role's loop), producer_acquire (441), the response written to the stage and
   * producer_commit (443-445), (work, true) returned; its fetch (558-575; continue_current_work is
   * false, 470-472): consumer_wait, the response read, consumer_release, (work, true) returned.
   * The state is taken by value (the caller advances its own).
   */
  var SCHED_ADVANCE = [{ node: "op", op: "__sched_acquire" }, { node: "op", op: "__sched_commit" }];
  var SCHED_FETCH = [{ node: "op", op: "__sched_wait" }, { node: "op", op: "__sched_release" }];
  /**
   * CLC_QUERY: the CLC scheduler's advance (sm100_tile_scheduler.hpp 438-450): producer_acquire
   * (442), the query from the elected thread (444-446), the state advanced and returned (448-449).
   * The response lands clcLatency after the query and completes the stage's full barrier; the
   * Sched role's next step is its own fetch's wait on that stage (the kernel's do-loop, SM100 GEMM
   * 697-705), so the query is drawn as a `clc` block of clcLatency on its lane followed by the
   * landing, as the Blackwell model draws it (sim/blackwell_roles.js bwSched). The response is the
   * CTA's next tile, invalid past its last (TILES_PER_CTA).
   */
  var CLC_ADVANCE = [{ node: "op", op: "__sched_acquire" }, { node: "op", op: "__clc_query" }, { node: "op", op: "__clc_landed" }];

  function schedulerCall(rr, sched, node, env, ret) {
    var fetch = node.name === "fetch_next_work", pipe = rr.objectOf(node.args[fetch ? 1 : 0][1], env);
    var sa = node.args[fetch ? 2 : 1], box = Array.isArray(sa) && sa[0] === "id" ? env[sa[1]] || rr.env[sa[1]] : null;
    if (!(pipe instanceof K.Obj) || pipe.kind !== "pipe" || !pipe.data || !pipe.data.modelled) return rr.run.dry ? undefined : rr.stop(node, "the scheduler's pipeline is not a ring of the run");
    if (!box || !(box.v instanceof K.State)) return rr.stop(node, "`" + node.name + "` on a state the program does not follow");
    // Its blocks carry the statement's lines (node.at: the kernel program's own node, whose file the run knows).
    var call = { ring: pipe.data, st: box.v.clone(), node: node.at || node, sched: sched, ret: ret }, clc = rr.ctx.schedPipe.form === "clc";
    if (!fetch) {
      sched.tile += 1;
      call.tile = sched.tile;
      var after = call.st.clone();
      after.advance(1);
      if (ret) rr.bindReturn(ret, clc ? after : new K.Tuple([new K.Work(sched.tile), 1]));
    }
    rr.frames.push({ nodes: fetch ? SCHED_FETCH : clc ? CLC_ADVANCE : SCHED_ADVANCE, pc: 0, env: { __sched: { v: call } }, loop: null, fn: null });
    return undefined;
  }

  K.OP_SEMANTICS.__sched_acquire = function (rr, node, env) {
    var c = env.__sched.v, s = c.st.index;
    schedConsumers(rr, c.ring);
    return rr.run.cmdWait(rr, c.ring.empty[s], c.st.phase, c.ring.acquireReason, c.node, c.tile, null, s);   // the tile it is to write
  };
  K.OP_SEMANTICS.__sched_commit = function (rr, node, env) {
    var c = env.__sched.v, s = c.st.index;
    schedConsumers(rr, c.ring);
    c.ring.responses[s] = c.tile;
    return rr.run.cmdArrive(rr, c.ring.full[s], c.node);
  };
  K.OP_SEMANTICS.__clc_query = function (rr, node, env) {
    var c = env.__sched.v;
    if (rr.run.dry) return K.DRY;
    var latency = rr.run.knobs.clcLatency;
    return rr.run.eng.work(typeof latency === "number" ? latency : 0, "clc", rr.run.linesOf(c.node), c.tile, null, c.st.index);
  };
  K.OP_SEMANTICS.__clc_landed = function (rr, node, env) {
    var c = env.__sched.v, s = c.st.index;
    c.ring.responses[s] = c.tile;
    return rr.run.cmdArrive(rr, c.ring.full[s], c.node);
  };
  K.OP_SEMANTICS.__sched_wait = function (rr, node, env) {
    var c = env.__sched.v, s = c.st.index;
    return rr.run.cmdWait(rr, c.ring.full[s], c.st.phase, c.ring.waitReason, c.node, rr.currentTile(), null, s);
  };
  // The response read after the wait: the tile the producer wrote to the stage (a dry run, whose
  // waits do not block, takes the role's own next tile).
  K.OP_SEMANTICS.__sched_release = function (rr, node, env) {
    var c = env.__sched.v, s = c.st.index;
    schedConsumers(rr, c.ring);
    var t = c.ring.responses[s];
    if (t === undefined && !rr.run.dry) return rr.stop(c.node, "the scheduler's response stage " + s + " was read before any tile was written to it");
    c.sched.tile = t === undefined ? c.sched.tile + 1 : t;
    if (c.ret) rr.bindReturn(c.ret, new K.Tuple([new K.Work(c.sched.tile), 1]));
    return rr.run.cmdArrive(rr, c.ring.empty[s], c.node);
  };

  /**
   * ENUM_VALUES: `static_cast<int>(E::M)` (or `int32_t`, `uint32_t`) of a member of a role enum is
   * the member's value (the parse's `values`, C++'s: `Epilogue = 4`, SM100 array kernel 256, read
   * at 1043); without the values, or any other cast, the value stays the member.
   */
  function enumAsInt(ctx, v, name, targs) {
    if (!(v instanceof K.EnumValue) || name !== "static_cast" || !/^(?:u?int(?:32_t)?)$/.test(String(targs || "").trim())) return v;
    var sep = v.name.lastIndexOf("::"), en = v.name.slice(0, sep), member = v.name.slice(sep + 2);
    var rv = (ctx.roleVars || []).filter(function (x) { return x.enum === en && Array.isArray(x.values); })[0];
    var at = rv ? rv.members.indexOf(member) : -1;
    return at >= 0 ? rv.values[at] : v;
  }

  K.SCHED_PIPELINE_CHOICE = SCHED_PIPELINE_CHOICE; K.SCHED_CLC_RULE = SCHED_CLC_RULE; K.schedulerPipelines = schedulerPipelines; K.schedulerRings = schedulerRings; K.schedulerStep = schedulerStep; K.schedulerCall = schedulerCall;
  K.CUTLASS_CONSTANTS = CUTLASS_CONSTANTS; K.enumAsInt = enumAsInt; K.newScheduler = newScheduler; K.roleWarp = roleWarp; K.workMember = workMember; K.batchCoord = batchCoord;
  return K;
})(typeof KernelInterpretTmem !== "undefined" ? KernelInterpretTmem : require("./tmem.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretWarps;
