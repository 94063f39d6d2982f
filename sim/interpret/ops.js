/*
 * sim/interpret/ops.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Op semantics (OP_SEMANTICS: one meaning per op kind, docs/programs.md "Ops") and a run (Run: the
 * engine, the rings, the order barriers, the roles; `run`, the entry).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretOps = (function (K) {
  "use strict";

  var COMMIT_ARRIVE_OPS = K.COMMIT_ARRIVE_OPS,
    DRY_CHECK_MASK = K.DRY_CHECK_MASK, EPILOGUE_CALLS = K.EPILOGUE_CALLS, MMA_UNITS = K.MMA_UNITS,
    Obj = K.Obj, PIPELINE_CLASSES = K.PIPELINE_CLASSES, RoleRun = K.RoleRun, State = K.State,
    TILE_KEY = K.TILE_KEY, cpAsyncCommits = K.cpAsyncCommits, declKind = K.declKind,
    discoverRoles = K.discoverRoles, evalExpr = K.evalExpr, isUnknown = K.isUnknown,
    operandStage = K.operandStage;

  // Defined in a later part: called through K at run time.
  function dryRunSettled(rr) { return K.dryRunSettled(rr); }

  // ---------------------------------------------------------------------------------------------
  // Op semantics: one meaning per op kind (docs/programs.md "Ops")

  /**
   * The ring of an op's pipeline object, or null when the object is no pipeline this run models
   * (the epilogue's, the scheduler's: the op is then no step). A pipeline of a class whose
   * barrier counts are not modelled (anything but PipelineTmaAsync so far) stops the role.
   */
  function pipeOf(rr, node, env) {
    var name = node.object || node.receiver || "";
    var obj = rr.objectOf(name, env);
    // A pipeline object the program declares but the run cannot evaluate (`auto pipeline_v_load =
    // f(...)` of a call no rule reads) stops the role: its ops are not dropped silently. One the
    // program does not declare (a pipeline of a file not parsed, its let pruned) stays no step.
    if (isUnknown(obj) && !rr.run.dry) {
      rr.stop(node, "the pipeline object `" + name + "` is not followed (" + obj.why + ")");
      return null;
    }
    if (!(obj instanceof Obj) || obj.kind !== "pipe") return null;
    if (!obj.data.modelled && epiloguePipeline(rr.ctx, obj.data.cls)) return null;   // EPILOGUE_PIPELINES
    if (!obj.data.modelled && K.TMA_STORE_PIPELINES[obj.data.cls]) return null;   // TMA_STORE_PIPELINES (tmem.js): the role's own store waits
    if (!obj.data.modelled) { rr.stop(node, "the pipeline class " + obj.data.cls + " is not modelled yet (PIPELINE_CLASSES: " + Object.keys(PIPELINE_CLASSES).join(", ") + ")"); return null; }
    return obj.data;
  }
  /**
   * EPILOGUE_PIPELINES: a pipeline of the epilogue collective's own class (`using EpiStorePipeline =
   * typename CollectiveEpilogue::StorePipeline;`, sm90_gemm_warpspecialized_pingpong.hpp 325-328,
   * its `epi_store_pipeline.producer_tail(...)` at 511: wait for the tile's TMA stores) while the
   * epilogue collective's program is not parsed: its ops are the epilogue's, drawn inside its one
   * `epilogue` block (EPILOGUE_CALLS), so they are no step.
   */
  function epiloguePipeline(ctx, cls) {
    if (!/^(?:typename\s+)?CollectiveEpilogue::\w+$/.test(String(cls))) return false;
    return !Object.keys(ctx.functions).some(function (k) { return /^CollectiveEpilogue::/.test(k); });
  }

  function stateOf(rr, node, env) {
    var box = node.state ? env[node.state] : null;
    return box && box.v instanceof State ? box.v : null;
  }

  var SOFTMAX_88 = { init: null, step: "exp", tail: "math" };   // OP_SEMANTICS.softmax

  var OP_SEMANTICS = {
    producer_acquire: function (rr, node, env) {
      var ring = pipeOf(rr, node, env), st = stateOf(rr, node, env);
      if (!ring) return undefined;
      if (!st) return rr.stop(node, "producer_acquire on a state the program does not follow");
      rr.acquired[node.object] = st.index;
      rr.acquiredGen[node.object] = Math.floor(st.count / st.S);
      return rr.run.cmdWait(rr, ring.empty[st.index], st.phase, ring.acquireReason, node, rr.currentTile(),
        ring.rule.acquireReason ? 0 : null, st.index);
    },
    // PipelineTmaAsyncMla::producer_acquire_bytes(state, bytes) (pipeline_mla.hpp 177-201): the
    // empty-barrier wait of producer_acquire, with `bytes` as the full barrier's expected
    // transaction count instead of Params::transaction_bytes. The copy that follows on that
    // barrier (77 MLA load 283-286: V's TMA copy of TransactionBytesLoadV bytes) is what lands on
    // it, as after producer_acquire; the byte count itself is no step. Only the classes whose rule
    // has `acquireBytes` define the method; on any other it stops the role.
    producer_acquire_bytes: function (rr, node, env) {
      var ring = pipeOf(rr, node, env);
      if (!ring) return undefined;
      if (!ring.rule.acquireBytes) return rr.stop(node, "producer_acquire_bytes on " + ring.cls + ", which does not define it");
      return OP_SEMANTICS.producer_acquire(rr, node, env);
    },
    producer_try_acquire: function () { return undefined; },   // the token: producer_acquire waits
    // More bytes on the acquired stage's full barrier (sm100_pipeline.hpp 689-690): they land with
    // the stage's copies (77 bwd kernel 509: K's bytes on Q's stage, copied through its barrier, 512-516).
    producer_expect_transaction: function () { return undefined; },
    producer_get_barrier: function (rr, node, env) {
      var st = stateOf(rr, node, env);
      if (st) { rr.acquired[node.object] = st.index; rr.acquiredGen[node.object] = Math.floor(st.count / st.S); }
      return undefined;
    },
    tma_load: function (rr, node, env) {
      var ring = pipeOf(rr, node, env);
      if (!ring) return undefined;
      var s = rr.acquired[node.object];
      // HELPER_COPIES: a copy the parse places at the call of a load helper that is a composed
      // collective (`load_k.template step<false>(...)`, 88 FMHA collective 275, of `LoadK load_k{...,
      // pipeline, ...}`, 265): its own program (CollectiveLoadTma::step, fmha_collective_load.hpp
      // 118-137) acquires under `if constexpr (kAcquireBarrier)`, a template argument, on the member
      // pipeline its brace initializer binds, and advances the caller's count; none of that is run.
      if (s === undefined && node.via && node.via.helper && Object.keys(rr.ctx.collectives).length) {
        return rr.stop(node, "the load helper `" + node.via.helper + "` (declared at line " + node.via.line + ") is read as one copy at its call, " +
          "not as a call of its composed collective's program (its acquire under a template argument, its member pipeline and the count it " +
          "decrements are not run yet)");
      }
      if (s === undefined) return rr.stop(node, "a TMA copy before any acquire of its pipeline");
      var gen = rr.acquiredGen[node.object];
      if (!rr.run.dry) rr.copyLog.push({ stage: s, gen: gen, line: node.line, pipe: node.object });
      return rr.run.cmdCopy(rr, ring, s, node, rr.currentTile(), rr.copyIndex(node.object, s, gen));
    },
    producer_commit: function (rr, node, env) {
      var ring = pipeOf(rr, node, env);
      if (!ring || ring.rule.commit === "none") return undefined;   // TMA pipelines: the transaction bytes complete the phase
      if (COMMIT_ARRIVE_OPS[node.arrive] === "landing") {
        // The cp.async copies' landing arrives; with no parsed copy into this acquire's stage
        // (77 decode's Q: raw `cp_async_zfill` calls, load_cpasync 208-213) nothing would.
        var at = node.object + ":" + rr.acquired[node.object] + ":" + rr.acquiredGen[node.object];
        if (rr.lastCpAsync !== at) return rr.stop(node, "producer_commit arrives when the stage's cp.async copies land, but no copy into this stage is an op of the parse");
        return undefined;
      }
      var st = stateOf(rr, node, env);
      if (!st) return rr.stop(node, "producer_commit on a state the program does not follow");
      return ring.rule.commit === "commit" ? rr.run.cmdCommit(rr, ring.full[st.index], node) : rr.run.cmdArrive(rr, ring.full[st.index], node);
    },
    // A cp.async copy into the stage of the last acquire (`copy_if(gmem_tiled_copy_a, ...)`,
    // multistage mainloop 271, 281, 305-306): drawn and counted as a TMA copy (issue, filling of
    // tmaLatency, one arrival on the full barrier when the acquire's copies land), which is the
    // completion its commit's `cpasync_barrier_arrive` gives (COMMIT_ARRIVE_OPS). A cp.async
    // commit without that arrive op would complete the phase before the copies land: not modelled.
    cp_async: function (rr, node, env) {
      var ring = pipeOf(rr, node, env);
      if (!ring) return undefined;
      if (!cpAsyncCommits(rr.ctx, node.object)) return rr.stop(node, "a cp.async copy whose commit does not arrive on its landing (no `cpasync_barrier_arrive`)");
      if (rr.acquired[node.object] === undefined) return rr.stop(node, "a cp.async copy before any acquire of its pipeline");
      var at = node.object + ":" + rr.acquired[node.object] + ":" + rr.acquiredGen[node.object];
      if (node.joins && rr.lastCpAsync === at) return undefined;   // drawn with the run's first copy (fuseCopyRun)
      rr.lastCpAsync = at;
      return OP_SEMANTICS.tma_load(rr, node, env);
    },
    producer_tail: function (rr, node, env) {
      var ring = pipeOf(rr, node, env), st = stateOf(rr, node, env);
      if (!ring || !st) return undefined;
      // sm90_pipeline.hpp producer_tail(PipelineState state): for each stage, wait its empty
      // barrier, advance: a copy of the state (it is taken by value), so the caller's is not moved
      // (FA3's K and V tails share smem_pipe_write, mainloop 907-909).
      rr.frames.push({ nodes: TAIL_NODES(ring.S), pc: 0, env: { __tail: { v: { ring: ring, st: st.clone(), node: node } } }, loop: null, fn: null });
      return undefined;
    },
    __tail_wait: function (rr, node, env) {
      var t = env.__tail.v;
      var cmd = rr.run.cmdWait(rr, t.ring.empty[t.st.index], t.st.phase, null, t.node, rr.currentTile(), null, t.st.index);
      t.st.advance(1);
      return cmd;
    },
    consumer_try_wait: function () { return undefined; },
    consumer_wait: function (rr, node, env) {
      var ring = pipeOf(rr, node, env), st = stateOf(rr, node, env);
      if (!ring) return undefined;
      if (!st) return rr.stop(node, "consumer_wait on a state the program does not follow");
      rr.waited[node.object] = st.index;
      rr.waitedGen[node.object] = Math.floor(st.count / st.S);
      (rr.stageGens[node.object] || (rr.stageGens[node.object] = {}))[st.index] = rr.waitedGen[node.object];
      return rr.run.cmdWait(rr, ring.full[st.index], st.phase, ring.waitReason, node, rr.currentTile(),
        ring.rule.waitReason === "tma" || ring.waitReason === "tma" ? rr.countOf("wait") : null, st.index);
    },
    consumer_release: function (rr, node, env) {
      var ring = pipeOf(rr, node, env), st = stateOf(rr, node, env);
      if (!ring) return undefined;
      if (!st) return rr.stop(node, "consumer_release on a state the program does not follow");
      return ring.rule.release === "commit" ? rr.run.cmdCommit(rr, ring.empty[st.index], node) : rr.run.cmdArrive(rr, ring.empty[st.index], node);
    },
    mma: function (rr, node, env) {
      var s = rr.waited[node.object], gen = rr.waitedGen[node.object], named = operandStage(rr, node, env);
      if (named !== null) { s = named; gen = rr.stageGens[node.object][named]; }
      if (!rr.run.dry && s !== undefined) rr.mmaLog.push({ stage: s, gen: gen, line: node.line, pipe: node.object });
      if (rr.run.dry && rr.firstMma === null) rr.firstMmaRows = K.operandStages(rr, node, env);   // MMA_ROWS
      return rr.run.cmdMma(rr, node, rr.currentTile(), rr.countOf("mma"), s === undefined ? null : s);
    },
    warpgroup_wait: function (rr, node, env) {
      var n = typeof node.count === "number" ? node.count : rr.eval(["id", String(node.count)], env, false);
      if (typeof n !== "number") return rr.stop(node, "warpgroup_wait<" + node.count + "> with an unknown count");
      return rr.run.cmdMmaWait(rr, n);
    },
    warpgroup_arrive: function () { return undefined; },
    // A TMEM -> register copy (`copy(tiled_tmem_load, ...)`, 77 FMHA mainloop 569, 833, 912, 1009):
    // opaque work of the TMEM-load latency class.
    tmem_load: function (rr, node) { return rr.run.opaque(rr, "tmem_load", node); },
    // A TMA store (`copy(params.tma_store_o, ...)`, 77 FMHA epilogue 203, 211): one block of the
    // store latency, complete at its end, so its commit (tma_store_arrive, 205) and waits
    // (tma_store_wait<N>, 215, 220) are no step.
    tma_store: function (rr, node) { return rr.run.opaque(rr, "store", node); },
    // BULK_REDUCE_STORE: a TMA reduce-add (`copy(params.tma_red_dq, tDQsDQ(...), tDQgDQ(...))`, 88 FMHA
    // backward 560, on `make_tma_copy(SM90_TMA_REDUCE_ADD{}, ...)`, 237, 338) is a TMA store whose
    // destination adds what it writes: one `reduce` block of reduceLatency, complete at its end like
    // tma_store (its tma_store_arrive / tma_store_wait, 561, 551, 568, are no step); the raw-mbarrier
    // front end (mbar.js) and the DSL's cpasync_reduce_bulk_add_f32 (dsl.js DSL_BULK_REDUCE) draw theirs so.
    bulk_reduce: function (rr, node) { return rr.run.opaque(rr, "reduce", node); },
    // SOFTMAX_88: CUTLASS 88's CollectiveSoftmax (collective/fmha_collective_softmax.hpp; its row
    // reductions are warp shuffles, 116, 239, 281, no block-level barrier): `init` (54) no step,
    // `step` (89, 209) an `exp` block of softmaxLatency, `tail` (268) a `math` block. Any other
    // softmax method stops the role.
    softmax: function (rr, node) {
      var cls = SOFTMAX_88[K.lastName(node.receiver || "")];
      if (cls === undefined) return rr.stop(node, "the op `softmax` (`" + node.receiver + "`) is not modelled yet");
      return cls === null ? undefined : rr.run.opaque(rr, cls, node);
    },
    tma_store_arrive: function () { return undefined; },
    tma_store_wait: function () { return undefined; },
    __epi_acc_wait: function (rr, node, env) {
      var e = env.__epi.v;
      return rr.run.cmdWait(rr, e.ring.full[e.st.index], e.st.phase, "mma", e.node, rr.currentTile(), null, e.st.index);
    },
    __epi_tmem_load: function (rr, node, env) { return rr.run.opaque(rr, "tmem_load", env.__epi.v.node, env.__epi.v.st.index); },
    __epi_acc_release: function (rr, node, env) { var e = env.__epi.v; return rr.run.cmdArrive(rr, e.ring.empty[e.st.index], node); },
    __epi_store: function (rr, node, env) { return rr.run.opaque(rr, "store", env.__epi.v.node, null); },
    // ORDER_OPS: an order barrier's `wait()` / `arrive()` the parse lists as an op inside a
    // collective's function (`math_wg_order_barrier.wait()`, 88 FMHA collective 400, 408, on the
    // kernel's MathWarpGroupOrderBarrier handed by reference, kernel 263, 385) is the object's
    // call, as in the kernel layer (Run.orderCall); on anything else the role stops.
    order_wait: function (rr, node, env) { return orderOp(rr, node, env, "wait"); },
    order_arrive: function (rr, node, env) { return orderOp(rr, node, env, "arrive"); },
    named_barrier_sync: function (rr, node) { return ownNamedBarrier(rr, node); },
    named_barrier_arrive: function (rr, node) { return ownNamedBarrier(rr, node); }
  };

  /**
   * NAMED_BARRIER_OWN: a NamedBarrier object's `sync()` / `arrive()` in a kernel of enum roles
   * (`transform_bar.sync()`, sm100_mma_warpspecialized_mixed_input.hpp 1028, the object declared at
   * 994 with `NumTransformationThreads` = 128 (295) threads and id `ReservedNamedBarriers::TransformBarrier`)
   * whose id only one role's programs reach (enumerateRoles' probe: barrierIds) is among that
   * role's own threads: the code completes it on hardware and no other role arrives on it, so it
   * orders nothing between roles, and the run, which runs the role as one thread of control, has
   * no step for it. A barrier more roles reach stops the role (the run does not know how many
   * threads an enum role has, so it cannot count their arrivals); so does a barrier op without
   * an object's id (a free `NamedBarrier::sync(count, id)` in such a kernel).
   */
  function ownNamedBarrier(rr, node) {
    var roles = node.barrier_id && rr.ctx.barrierRoles ? rr.ctx.barrierRoles[node.barrier_id] : null;
    if (!roles) return rr.stop(node, "the op `" + node.op + "` is not modelled yet");
    if (roles.length === 1 && roles[0] === rr.role.name) return undefined;
    return rr.stop(node, "the named barrier `" + node.barrier_id + "` is reached by the roles " + roles.join(", ") +
      ", whose thread counts the run does not know");
  }

  /** ORDER_OPS: an `order_wait` / `order_arrive` op on its receiver, which must be an order barrier object. */
  function orderOp(rr, node, env, verb) {
    var obj = rr.objectOf(node.receiver || "", env);
    if (!(obj instanceof Obj) || obj.kind !== "order") {
      return rr.stop(node, "the op `" + node.op + "` on `" + (node.receiver || "") + "`, which is no order barrier the run follows");
    }
    return rr.run.orderCall(rr, obj, node, verb);
  }

  /** The SM100 epilogue store's steps (RoleRun.epilogueStore), each an op of OP_SEMANTICS. */
  var EPILOGUE_SM100 = [{ node: "op", op: "__epi_acc_wait" }, { node: "op", op: "__epi_tmem_load" },
    { node: "op", op: "__epi_acc_release" }, { node: "op", op: "__epi_store" }];

  var tailCache = {};
  function TAIL_NODES(S) {
    if (!tailCache[S]) { var a = []; for (var i = 0; i < S; i++) a.push({ node: "op", op: "__tail_wait" }); tailCache[S] = a; }
    return tailCache[S];
  }


  // ---------------------------------------------------------------------------------------------
  // A run: the engine, the rings, the order barriers, the roles (docs/programs.md "Running")

  var DRY = { dry: true };

  function linesOfNode(node) {
    if (!node) return [];
    if (node.lines) return node.lines;
    return typeof node.line === "number" ? [node.line] : [];
  }

  /**
   * The line list of a node, one array per node for the whole run: the timeline interns line
   * lists by identity (a fresh array per block would grow its table with every block).
   */
  Run.prototype.linesOf = function (node) {
    var got = this.lineCache.get(node);
    if (got === undefined) {
      got = linesOfNode(node);
      this.lineCache.set(node, got);
      if (got.length && !this.lineNodes.has(got)) this.lineNodes.set(got, node);
    }
    return got;
  };

  /**
   * The file of every step the run can execute (the prepared bodies: fuse's copies included):
   * a composed or epilogue collective's function its own `path`, the kernel layer's program (and
   * its lambdas) the kernel layer's file, any other function the mainloop's (structure.source).
   */
  function nodeFiles(ctx, fns, kl) {
    var files = new Map(), main = ctx.structure.source && ctx.structure.source.path || null;
    var kernel = kl.source && kl.source.path || main;
    function walk(nodes, path) {
      (nodes || []).forEach(function (n) {
        if (!n || typeof n !== "object") return;
        files.set(n, path);
        ["body", "then", "else", "init", "step"].forEach(function (k) { if (Array.isArray(n[k])) walk(n[k], path); });
      });
    }
    fns.forEach(function (p) {
      var path = p.path || main;
      if (ctx.functions[p.name]) walk(ctx.functions[p.name].body, path);
      (p.lambdas || []).forEach(function (l) { var lam = ctx.lambdas[p.name + "::" + l.key]; if (lam) walk(lam.body, path); });
    });
    if (ctx.kernel) walk(ctx.kernel, kernel);
    (kl.program && kl.program.lambdas || []).forEach(function (l) {
      var lam = ctx.lambdas[kl.program.name + "::" + l.key];
      if (lam) walk(lam.body, kernel);
    });
    return files;
  }

  /**
   * The source refs of a run's line lists, parallel to columns.linesTable: each line a
   * {path, line, end_line, text, op} as the hand-written models' blocks carry them, so the page's
   * details panel and the exports name the file and statement of every program block.
   */
  Run.prototype.lineRefs = function (linesTable) {
    var self = this, texts = statementTexts(this.ctx.structure);
    return linesTable.map(function (lines) {
      var node = self.lineNodes.get(lines), path = node ? self.ctx.nodeFiles.get(node) || null : null;
      return lines.map(function (line) {
        var one = lines.length === 1, known = texts[path + ":" + line];
        return { path: path, line: line, end_line: one && node && typeof node.end_line === "number" ? node.end_line : line,
          text: known !== undefined ? known : one && node && typeof node.text === "string" ? node.text : "",
          op: node ? node.op || node.name || node.node : null };
      });
    });
  };

  /** "path:line" -> the statement text the parse keeps (the mainloop's ops, the kernel layer's calls). */
  function statementTexts(st) {
    var out = {}, main = st.source && st.source.path || null, kl = st.kernel_layer || {};
    (st.functions || []).forEach(function (fn) {
      (fn.ops || []).forEach(function (op) { if (typeof op.text === "string") out[(fn.path || main) + ":" + op.line] = op.text; });
    });
    var kpath = kl.source && kl.source.path || main;
    (kl.calls || []).forEach(function (c) { if (typeof c.text === "string" && out[kpath + ":" + c.line] === undefined) out[kpath + ":" + c.line] = c.text; });
    return out;
  }

  /**
   * Run the programs of structure with knobs on the engine primitives prims
   * ({Engine, Ring, OrderBarrier}); returns {lanes, total, columns, deadlock, barriers,
   * barrierEvents, roles, stopped, flags, notes} or {error}.
   */
  function run(structure, knobs, prims, options) {
    var found = discoverRoles(structure, knobs, prims), ctx = found.ctx, roles = found.roles;
    if (!ctx.kernel) return { error: "no kernel-layer program: the roles are not known" };
    if (!roles.length) {
      var ds = ctx.discoveryStop;   // wgRoles: a warp's dry run stopped before its first op (DeepGEMM FP8 1D1D 210)
      return { error: "no role of the kernel layer reaches a step" + (ctx.mbarError ? ": " + ctx.mbarError :   // mbar.js mbarContext
        ds ? ": the dry runs stopped first (warp " + ds.warp + " at line " + ds.line + ": " + ds.reason + ")" : "") };
    }
    var refused = ctx.dsl ? K.dslRefusedSettings(ctx) : null;   // DSL_CONSTRUCTOR_ASSERTS (dsl_ops.js)
    if (refused) return { error: refused };
    K.schedulerPipelines(ctx);   // SCHEDULER_PIPELINE (warps.js): the ring a tile scheduler hands its work through
    var R = new Run(ctx, roles, options || {});
    return R.go();
  }

  function Run(ctx, roles, options) {
    this.ctx = ctx;
    this.roles = roles;
    this.options = options;
    this.knobs = ctx.knobs;
    this.dry = false;
    this.orders = {};
    this.pipes = {};
    this.groups = null;
    this.notes = [];
    this.lineCache = new Map();
    this.lineNodes = new Map();   // a line list -> the node it is of (lineRefs)
    this.named = {};   // named barriers by id (DSL kernels: Run.namedBarrier)
  }

  /** The lanes: producing roles, each ring's stages, then the other roles. */
  Run.prototype.layout = function () {
    var lanes = [], self = this;
    var producers = this.roles.filter(function (r) { return r.produces; });
    var others = this.roles.filter(function (r) { return !r.produces; });
    producers.forEach(function (r) { r.lane = lanes.length; lanes.push({ id: "role:" + r.name, label: r.name, group: "producer" }); });
    this.ringLanes = {};
    var used = [], rings = this.ctx.rings;
    this.ctx.pipelineList.forEach(function (p) {
      if (!p.used) return;
      if (!(rings.several[p.alias] > 1)) { used.push({ key: p.alias, alias: p.alias, p: p }); return; }
      Object.keys(rings.byDecl).forEach(function (d) { if (rings.byDecl[d] === d && declAlias(self.ctx, d) === p.alias) used.push({ key: d, alias: p.alias, p: p }); });
    });
    used.forEach(function (u) {
      self.ringLanes[u.key] = lanes.length;
      for (var s = 0, S = self.ctx.stagesOf(u.alias); s < S; s++) lanes.push({ id: u.key + ".stage" + s, label: u.key + " stage " + s, group: "stage" });
    });
    others.forEach(function (r) { r.lane = lanes.length; lanes.push({ id: "role:" + r.name, label: r.name, group: "consumer" }); });
    this.usedPipes = used;
    return lanes;
  };

  /**
   * DECLTYPE_PIPELINES: `decltype(p)` of a pipeline object the kernel program declares is its
   * alias (77 bwd kernel 1686 `typename decltype(pipeline_load_mma_q)::PipelineState`, 1697
   * `make_producer_start_state<decltype(pipeline_load_mma_q)>()`, of `PipelineLoadMmaQ
   * pipeline_load_mma_q(...)`, 1540), so such a state has that ring's stages; any other text is itself.
   */
  K.decltypeAlias = function (ctx, text) {
    var m = /^decltype\(\s*(\w+)\s*\)$/.exec(text);
    if (!m) return text;
    var cache = ctx.decltypeCache || (ctx.decltypeCache = {});
    if (!Object.prototype.hasOwnProperty.call(cache, m[1])) cache[m[1]] = declAlias(ctx, m[1]) || text;
    return cache[m[1]];
  };

  /** The pipeline alias of a pipeline object the kernel program declares. */
  function declAlias(ctx, name) {
    var found = null;
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (found) return;
        if (n.node === "let" && n.names && n.names[0] === name && n.type) { found = declKind(n.type).base; found = ctx.samePipeline[found] || found; return; }
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    })(ctx.kernel);
    return found;
  }

  /**
   * The wait reasons of each ring: its class's (PIPELINE_CLASSES) where the run has one ring of
   * that class, else the ring's own name (77 FMHA: the MMA warp's waits for `pipeline_mma_s0`,
   * the softmax's S, and for `PipelineO`, the correction's O, are told apart); a TMA wait is
   * always "tma"; a class with no reason (PipelineAsync) names the ring.
   */
  Run.prototype.nameWaitReasons = function () {
    K.schedulerRings(this);   // SCHED_CLC_RULE (warps.js): the CLC scheduler's ring
    var pipes = this.pipes, perClass = {};
    Object.keys(pipes).forEach(function (k) { perClass[pipes[k].cls] = (perClass[pipes[k].cls] || 0) + 1; });
    Object.keys(pipes).forEach(function (k) {
      var ring = pipes[k], rule = ring.rule;
      if (!rule) return;
      var own = perClass[ring.cls] > 1;
      ring.acquireReason = rule.acquireReason ? (own ? k : rule.acquireReason) : rule.waitReason ? null : k;
      ring.waitReason = rule.waitReason === "tma" ? "tma" : rule.waitReason ? (own ? k : rule.waitReason) : k;
      if (this.ctx.cpAsyncFilled && this.ctx.cpAsyncFilled[k]) ring.waitReason = "tma";   // CP_ASYNC_WAIT
    }, this);
  };

  /**
   * CP_ASYNC_WAIT: the rings whose stages cp.async copies fill (a `cp_async` op on the object, in
   * a program whose commits arrive on the copies' landing, COMMIT_ARRIVE_OPS): a consumer_wait on
   * one waits for copies to land, as on a TMA ring, so it is drawn as one (reason `tma`, with the
   * tile's wait count as k), the way the GEMM model draws the cp.async mainloop
   * (sim/model_gemm.js copyKind: the copy latency knob stands for cp.async).
   */
  function cpAsyncFilled(run) {
    var ctx = run.ctx, out = {};
    // The parse names each copy's pipeline alias (`pipeline`: MainloopPipeline for the collective's
    // parameter `pipeline`, parse_cutlass pipeline_objects), which keys the run's ring.
    (ctx.structure.functions || []).forEach(function (fn) {
      (fn.ops || []).forEach(function (op) {
        if (op.op === "cp_async" && op.pipeline && run.pipes[op.pipeline] && cpAsyncCommits(ctx, op.object)) out[op.pipeline] = true;
      });
    });
    return out;
  }

  Run.prototype.order = function (alias) {
    if (this.orders[alias]) return this.orders[alias];
    var b = this.ctx.orderAliases[alias] || {};
    var args = (b.args || []).map(function (a) { return evalExpr(a, {}, this.ctx, true); }, this);
    var depth = typeof args[0] === "number" ? args[0] : 1, length = typeof args[1] === "number" ? args[1] : 2;
    var bar = this.eng ? new this.ctx.prims.OrderBarrier(this.eng, alias, depth, length, []) : null;
    this.orders[alias] = { bar: bar, alias: alias, depth: depth, length: length, groups: {}, next: 0 };
    return this.orders[alias];
  };

  /** The group of role rr in an order barrier: its rank among the roles that call it, in role order. */
  Run.prototype.orderGroup = function (rr, ob, receiver) {
    var key = rr.role.name;
    if (ob.groups[key] === undefined) {
      var users = this.roles.filter(function (r) { return r.receivers[receiver]; }).map(function (r) { return r.name; });
      ob.groups[key] = Math.max(0, users.indexOf(key));
    }
    return ob.groups[key];
  };

  /** A call `verb` (default the node's name: `wait`, `arrive`; others are no step) on an order barrier object. */
  Run.prototype.orderCall = function (rr, obj, node, verb) {
    var ob = obj.data, g = typeof obj.group === "number" ? obj.group : this.orderGroup(rr, ob, node.receiver);
    verb = verb || node.name;
    if (this.dry) return verb === "wait" || verb === "arrive" ? DRY : undefined;
    if (g >= ob.length) return rr.stop(node, "order barrier group " + g + " beyond its length " + ob.length);
    if (verb === "wait") {
      var reason = this.nextIsEpilogue(rr) ? "epilogue-order" : "order";
      return ob.bar.wait(g, reason, this.linesOf(node), rr.currentTile(), null, null, node.line);
    }
    if (verb === "arrive") return ob.bar.arrive(g);
    return undefined;
  };

  /** Whether the role's next call with a step is an epilogue call (its order wait is "epilogue-order"). */
  Run.prototype.nextIsEpilogue = function (rr) {
    var f = rr.frames[rr.frames.length - 1];
    for (var i = f.pc; i < f.nodes.length; i++) {
      var n = f.nodes[i];
      if (n.node === "let") {
        var c = rr.stepCall(n.expr, f.env, n);
        if (c === null) continue;
        n = c;
      }
      if (n.node === "call" && n.receiver) {
        var o = rr.objectOf(n.receiver, f.env);
        if (o instanceof Obj && o.kind === "epilogue") { if (EPILOGUE_CALLS[n.name]) return true; continue; }
        return false;
      }
      if (n.node === "op" || n.node === "loop" || n.node === "if") return false;
    }
    return false;
  };

  /** The knob of each opaque work class's latency (reduce: a bulk reduce-add, OP_SEMANTICS.bulk_reduce). */
  var OPAQUE_LATENCY = { epilogue: "epilogueLatency", tmem_load: "tmemLoadLatency", store: "storeLatency",
    reduce: "reduceLatency", exp: "softmaxLatency", math: "mathLatency" };

  Run.prototype.opaque = function (rr, cls, node, stage) {
    if (this.dry) return DRY;
    var latency = this.knobs[OPAQUE_LATENCY[cls]];
    return this.eng.work(typeof latency === "number" ? latency : 0, cls, this.linesOf(node), rr.currentTile(), null,
      stage === undefined ? null : stage);
  };

  // A barrier the run has no stage for (a state whose stage count is not its ring's) stops the role, named.
  function noStage(rr, node) { return rr.stop(node, "the op's stage is not one of its ring's stages (the state's stage count is not the ring's)"); }
  Run.prototype.cmdWait = function (rr, bar, parity, reason, node, tile, k, stage) {
    if (this.dry) return DRY;
    if (!bar) return noStage(rr, node);
    return this.eng.wait(bar, parity, reason, this.linesOf(node), tile, k, stage, node.line);
  };
  Run.prototype.cmdArrive = function (rr, bar, node) {
    if (this.dry) return DRY;
    if (!bar) return noStage(rr, node);
    return this.eng.arriveCmd(bar, 1);
  };
  Run.prototype.cmdCopy = function (rr, ring, s, node, tile, k) {
    if (this.dry) return DRY;
    if (!ring.full[s]) return noStage(rr, node);
    // hold: copies into one stage after one acquire are one transaction (Engine.copy, flushTx)
    return this.eng.copy(ring.full[s], this.knobs.tmaLatency, this.linesOf(node), this.linesOf(node), tile, k, s, ring.firstLane + s, ring,
      null, true);
  };
  var WARP_MMA_ARCH = /^sm_?(?!90|1[01]\d)\d{2,3}/i;
  Run.prototype.cmdMma = function (rr, node, tile, k, stage) {
    if (this.dry) {
      if (rr.firstMma === null) rr.firstMma = { tile: tile, line: node.line, rows: rr.firstMmaRows || "" };
      return DRY;
    }
    // WARP_MMA: an MMA of a structure whose arch is neither SM90 nor SM100-110 (sm80, sm120: `mma.sync`
    // atoms, the parse's unit `mma`) is synchronous in its warp, not the async tensor-core issue
    // WGMMA / UMMA are: the run does not draw it as one. (An unknown arch keeps the WGMMA reading.)
    if (node.unit === "mma" && WARP_MMA_ARCH.test(String(rr.ctx.structure.arch || ""))) {
      return rr.stop(node, "a warp-level MMA (mma.sync on " + rr.ctx.structure.arch + ", not WGMMA or UMMA) is not modelled yet");
    }
    var parts = this.groups ? this.groups[rr.role.name] || 1 : 1;
    var unit = MMA_UNITS[node.unit];
    if (unit) return this.eng.mma(this.tc, this.knobs[unit.latency], unit.kind, this.linesOf(node), tile, k, stage, 1, null);
    return this.eng.mma(this.tc, this.knobs.wgmmaLatency, "wgmma", this.linesOf(node), tile, k, stage, parts,
      parts > 1 ? tile * TILE_KEY + k : null);
  };
  Run.prototype.cmdCommit = function (rr, bar, node) {
    if (this.dry) return DRY;
    if (!bar) return noStage(rr, node);
    return this.eng.commit(bar);
  };
  Run.prototype.cmdMmaWait = function (rr, n) {
    if (this.dry) return DRY;
    return this.eng.mmaWait(n, null, []);
  };

  /**
   * Roles that issue their first MMA on the same work tile, at the same line, reading the same
   * operand stages (MMA_ROWS), share every MMA job (one TiledMma spans their warpgroups: the
   * cooperative kernels); found by a dry run of each role up to its first MMA, in which no
   * command waits.
   */
  Run.prototype.mmaGroups = function () {
    var self = this, first = {};
    this.dry = true;
    this.roles.forEach(function (role, i) {
      var rr = new RoleRun(self, role, i);
      rr.settleDry = true;
      for (var n = 0; n < 100000 && rr.firstMma === null; n++) {
        if (rr.next() === null) break;
        if ((n & DRY_CHECK_MASK) === DRY_CHECK_MASK && dryRunSettled(rr)) break;   // the rest can issue no MMA, read no new flag
      }
      if (rr.firstMma !== null) first[role.name] = rr.firstMma.tile + ":" + rr.firstMma.line + ":" + rr.firstMma.rows;
    });
    this.dry = false;
    var count = {};
    Object.keys(first).forEach(function (k) { count[first[k]] = (count[first[k]] || 0) + 1; });
    var groups = {};
    Object.keys(first).forEach(function (k) { groups[k] = count[first[k]]; });
    return groups;
  };

  K.DRY = DRY; K.EPILOGUE_SM100 = EPILOGUE_SM100; K.OPAQUE_LATENCY = OPAQUE_LATENCY;
  K.OP_SEMANTICS = OP_SEMANTICS; K.Run = Run; K.TAIL_NODES = TAIL_NODES;
  K.cpAsyncFilled = cpAsyncFilled; K.nodeFiles = nodeFiles; K.run = run; K.stateOf = stateOf;
  return K;
})(typeof KernelInterpretRole !== "undefined" ? KernelInterpretRole : require("./role.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretOps;
