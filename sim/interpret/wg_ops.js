/*
 * sim/interpret/wg_ops.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * C++ kernels with a warpgroup-index role variable: exact settled dry runs, settled twin warps,
 * the roles (wgRoles), lambdas and the ops (WG_OPS).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretWgOps = (function (K) {
  "use strict";

  var DRY = K.DRY, DRY_MMA_OPS = K.DRY_MMA_OPS, OPAQUE_LATENCY = K.OPAQUE_LATENCY,
    OP_SEMANTICS = K.OP_SEMANTICS, Obj = K.Obj, RoleRun = K.RoleRun, Run = K.Run, State = K.State,
    SymId = K.SymId, Unknown = K.Unknown, WARPGROUP_THREADS = K.WARPGROUP_THREADS,
    WARP_THREADS = K.WARP_THREADS, WG_CHECK_MASK = K.WG_CHECK_MASK, WG_TRACE_OPS = K.WG_TRACE_OPS,
    clone = K.clone, cppStaticExpr = K.cppStaticExpr, frameBound = K.frameBound,
    isUnknown = K.isUnknown, lastName = K.lastName, restNodeReadsFresh = K.restNodeReadsFresh,
    restNodesReadFresh = K.restNodesReadFresh, restSeen = K.restSeen, stateOf = K.stateOf,
    wgStaticExpr = K.wgStaticExpr;

  /**
   * dryRunSettled's exact test, when its cached one (dryEffects: every branch) fails: the rest of
   * the frames walked by restNodesReadFresh (decided `if constexpr` branches and surely unknown
   * runtime tests pruned) can read no new flag and reach no op of DRY_MMA_OPS. A failed test waits
   * twice as many tests as the last before the next (at most EXACT_BACKOFF_MAX): the walk covers
   * the rest of the program, and a run may never settle.
   */
  var EXACT_BACKOFF_MAX = 8;
  function dryRunSettledExact(rr) {
    if (rr.exactWait > 0) { rr.exactWait--; return false; }
    rr.exactBackoff = Math.min(EXACT_BACKOFF_MAX, 2 * (rr.exactBackoff || 0) + 1);
    rr.exactWait = rr.exactBackoff;
    var ctx = rr.ctx, seen = restSeen(cppStaticExpr, true, false), reg = false;
    for (var i = 0; i < rr.frames.length; i++) {
      var f = rr.frames[i], nodes = f.loop ? f.nodes : f.nodes.slice(f.pc);
      reg = seen.reg = reg || !!f.registerLoop;   // RoleRun.inRegisterLoop while this frame's rest runs
      seen.bound = frameBound(f.env);
      if (restNodesReadFresh(ctx, nodes, seen)) return false;
      if (f.loop && restNodeReadsFresh(ctx, { node: "loop-test", cond: f.loop.cond, step: f.loop.step }, seen)) return false;
    }
    return !Object.keys(DRY_MMA_OPS).some(function (op) { return seen.ops[op]; });
  }

  /** The op kinds whose reach wgRoles reads of a group's first warp (its role's produces, consumes). */
  var WG_ROLE_OPS = [["tma_load", "cp_async"], ["consumer_release"]];

  /**
   * Whether a warp's dry run in wgRoles may stop: its trace is full; nothing its frames still hold
   * (a frame's nodes from its pc on; a loop frame's whole body, test and step) may read a flag
   * ctx.flags does not hold; and either an earlier warp of its group has the same trace (it joins
   * that warp's role, whose other fields come from the earlier warp) or each of WG_ROLE_OPS is
   * decided (reached already, or no op of those kinds is left). Its remaining commands are dry
   * no-ops, so stopping it changes no result.
   */
  function wgWarpSettled(rr, traces) {
    if (rr.trace.length < WG_TRACE_OPS) return false;
    // A test that fails waits twice as many tests as the last one before the next (at most 64):
    // the walk below covers the rest of the program, and a warp may never settle.
    if (rr.wgWait > 0) { rr.wgWait--; return false; }
    rr.wgBackoff = Math.min(64, 2 * (rr.wgBackoff || 0) + 1);
    rr.wgWait = rr.wgBackoff;
    var key = rr.trace.join(","), twin = traces.some(function (t) { return t.key === key; });
    var ctx = rr.ctx, seen = restSeen(wgStaticExpr, false, false), reached = rr.reached || {};
    for (var i = 0; i < rr.frames.length; i++) {
      var f = rr.frames[i], nodes = f.loop ? f.nodes : f.nodes.slice(f.pc);
      seen.bound = frameBound(f.env);
      if (restNodesReadFresh(ctx, nodes, seen)) return false;
      if (f.loop && restNodeReadsFresh(ctx, { node: "loop-test", cond: f.loop.cond, step: f.loop.step }, seen)) return false;
    }
    return twin || WG_ROLE_OPS.every(function (kinds) {
      return kinds.some(function (op) { return reached[op]; }) || !kinds.some(function (op) { return seen.ops[op]; });
    });
  }

  /**
   * The roles of a warpgroup-index kernel: every warp of the kernel's NumLoadWarpGroups +
   * NumMmaWarpGroups warpgroups (kernel 74-76; the MMA warpgroups are the consumerWGs knob) is
   * dry-run with its first thread; warps of one warpgroup whose runs reach the same ops are one
   * role (a consumer warpgroup's four warps), a warp that reaches no op is none (FA3's producer
   * warps 1-3 return at kernel 336 with SingleProducerWarp). A role loads when it issues a TMA
   * copy and consumes when it releases a stage.
   */
  function wgRoles(ctx) {
    var v = ctx.roleVars[0], W = ctx.mmaWarpgroups();
    if (!v) return [];   // a raw-mbarrier kernel without a warp index (mbar.js: ctx.mbarError)
    var L = typeof ctx.constants[v.load_warpgroups] === "number" ? ctx.constants[v.load_warpgroups] : 1;
    // A raw-mbarrier kernel (mbar.js mbarLayout): its warpgroups from its thread count, each warp
    // bound to its warp index; FA3: the load and MMA warpgroups, each warp bound to its warpgroup.
    var lay = ctx.mbar ? K.mbarLayout(ctx) : { groups: L + W, bind: function (g) { return g; } };
    var probeRun = new Run(ctx, [], {});
    probeRun.dry = true;
    var out = [];
    for (var g = 0; g < lay.groups; g++) {
      var traces = [];
      for (var w = 0; w < 4; w++) {
        var binding = {};
        binding[v.name] = lay.bind(g, w);
        var role = { name: "", binding: binding, receivers: {}, produces: false, thread: (4 * g + w) * WARP_THREADS, threads: WARP_THREADS };
        var rr = new RoleRun(probeRun, role, out.length);
        rr.trace = [];
        rr.settleDry = true;   // RoleRun.next tests wgWarpSettled too (dryRunSettled)
        rr.wgTraces = traces;
        for (var n = 0; n < 1000000; n++) {
          if (rr.next() === null) break;
          if ((n & WG_CHECK_MASK) === WG_CHECK_MASK && wgWarpSettled(rr, traces)) break;   // the rest changes nothing
        }
        traces.push({ role: role, rr: rr, key: rr.trace.join(",") });
        // The first warp whose dry run stopped before any op: what the run names when no warp is a role.
        if (!rr.reached && rr.stopped && !ctx.discoveryStop) ctx.discoveryStop = { warp: 4 * g + w, line: rr.stopped.line, reason: rr.stopped.reason };
      }
      var groups = [];
      traces.forEach(function (tr) {
        if (!tr.rr.reached) return;
        var same = groups.filter(function (x) { return x.key === tr.key; })[0];
        if (same) same.n += 1; else groups.push({ key: tr.key, first: tr, n: 1 });
      });
      groups.forEach(function (gr) {
        var r = gr.first.role, rr2 = gr.first.rr;
        r.threads = gr.n * WARP_THREADS;
        r.produces = !!(rr2.reached.tma_load || rr2.reached.cp_async);   // a copy into a stage: it loads
        r.consumes = !!rr2.reached.consumer_release;
        var loads = ctx.mbar ? r.produces : g < L;   // a raw-mbarrier kernel's producer is the role that copies
        r.name = (loads ? "Producer" : "Consumer") + ".WG" + g + (gr.n < 4 ? ".warp" + (r.thread / WARP_THREADS - 4 * g) : "");
        out.push(r);
      });
    }
    ctx.roleBinding = {};
    ctx.rr = null;
    return out;
  }

  /**
   * The names a lambda can read or write in its caller's environment (docs/programs.md
   * "Performance"): every string of its program and of the lambdas it calls (under any owner),
   * each also split into its identifiers and its `.` / `->` parts, made once per lambda. Every
   * environment access of a lambda's frame names a variable by a string of its own nodes
   * (an id, a receiver, a state, an object, an argument), so the caller's other boxes are never read.
   */
  var lambdaNameCache = new WeakMap();
  function lambdaNames(ctx, lam) {
    var got = lambdaNameCache.get(lam);
    if (got !== undefined) return got;
    var names = Object.create(null), done = new Set();
    function strings(x) {
      if (typeof x === "string") {
        names[x] = true;
        (x.match(/[A-Za-z_]\w*/g) || []).forEach(function (t) { names[t] = true; });
        x.split(/\.|->/).forEach(function (t) { names[t] = true; });
      } else if (Array.isArray(x)) {
        x.forEach(strings);
      } else if (x !== null && typeof x === "object") {
        Object.keys(x).forEach(function (k) {
          strings(x[k]);
          if (k === "lambda" && typeof x[k] === "string") addLambda(x[k]);
        });
      }
    }
    function addLambda(key) {
      Object.keys(ctx.lambdas).forEach(function (k) {
        var l = ctx.lambdas[k];
        if (k.slice(-key.length - 2) === "::" + key && !done.has(l)) { done.add(l); strings(l.params); strings(l.body); }
      });
    }
    done.add(lam);
    strings(lam.params);
    strings(lam.body);
    got = Object.keys(names);
    lambdaNameCache.set(lam, got);
    return got;
  }

  /** A lambda's environment: the caller's boxes (shared) of the names it can touch (lambdaNames). */
  function captureEnv(env, names) {
    var out = {};
    for (var i = 0; i < names.length; i++) {
      if (Object.prototype.hasOwnProperty.call(env, names[i])) out[names[i]] = env[names[i]];
    }
    return out;
  }

  /** Inline a named lambda: its parameters bound to the call's arguments, its captures the caller's variables (by reference). */
  RoleRun.prototype.callLambda = function (node, env, f, ret) {
    var owner = f && f.fn ? f.fn.fn : "operator()";
    var lam = this.ctx.lambdas[owner + "::" + node.lambda] || this.ctx.lambdas["operator()::" + node.lambda];
    if (!lam) return this.stop(node, "the lambda `" + node.lambda + "` has no program");
    var callee = captureEnv(env, lambdaNames(this.ctx, lam));   // [&]: the enclosing function's boxes, shared
    for (var i = 0; i < lam.params.length; i++) {
      var p = lam.params[i], a = (node.args || [])[i];
      if (a === undefined) { callee[p.name] = { v: new Unknown("a default argument") }; continue; }
      var box = this.lvalueBox(a, env);
      callee[p.name] = box ? (p.ref ? box : { v: clone(box.v) }) : { v: clone(this.eval(a, env, false)) };
    }
    // A lambda runs in its function's frame token (its return ends the lambda only).
    var token = { fn: owner, ret: ret || null, lambda: node.lambda };
    this.frames.push({ nodes: lam.body, pc: 0, env: callee, loop: null, fn: token });
    return undefined;
  };

  /** execLet's hook: bind a function's own local named like the role variable when its initializer evaluates; true when bound. */
  RoleRun.prototype.wgLocalRoleVar = function (node, env, name) {
    if (!node.expr) return false;
    var v = this.eval(node.expr, env, false);
    if (isUnknown(v)) return false;
    env[name] = { v: v };
    return true;
  };

  /** `PipelineState s(index, phase, count)` (FA3 mainloop 1172): a followed state of that position. */
  RoleRun.prototype.wgState = function (node, env) {
    var self = this, v = node.args.map(function (a) { return self.eval(a, env, false); });
    if (v.some(function (x) { return typeof x !== "number"; })) return new Unknown("a state of unknown position");
    return new State(this.ctx.stateStages(node.type || ""), v[0], v[1], v[2], true);
  };

  /**
   * FA3's `epilogue.store(...)` (hopper/epilogue_fwd.hpp, not parsed): one `epilogue` block, then,
   * with TMA O, the store's one warp arrives on barrier_O (epilogue_fwd.hpp 327-346: the last warp
   * of the epilogue threads, so the last MMA warpgroup's role), which the producer waits for
   * before the next tile's Q (mainloop 852).
   */
  RoleRun.prototype.wgEpilogue = function (node) {
    var last = this.run.roles.filter(function (r) { return r.consumes; }).pop();
    var steps = [{ node: "op", op: "__fa3_epi_work", line: node.line, call: node }];
    // epilogue_fwd.hpp 249: the store starts with `named_barrier_sync(NumEpilogueThreads, EpilogueBarrier)`,
    // all MMA warpgroups' threads ("Make sure all WGs have finished reading V").
    if (!this.ctx.wgEnumRoles) steps.unshift({ node: "op", op: "__fa3_epi_sync", line: node.line, call: node });
    if (last && last.name === this.role.name && !this.ctx.wgEnumRoles) steps.push({ node: "op", op: "__fa3_epi_arrive", line: node.line });
    this.frames.push({ nodes: steps, pc: 0, env: {}, loop: null, fn: null });
    return undefined;
  };

  /** The tile of FA3's epilogue blocks: that of the role's last MMA, else the scheduler's. */
  RoleRun.prototype.epilogueTile = function () {
    return typeof this.lastMmaTile === "number" ? this.lastMmaTile : this.currentTile();
  };

  /** A ClusterBarrier of the run by its receiver's last name (`barrier_Q`, `barrier_O`): one arrival completes a phase. */
  Run.prototype.clusterBarrier = function (name) {
    var key = lastName(name);
    var got = this.named["cluster:" + key];
    if (!got) got = this.named["cluster:" + key] = this.eng.barrier(key, "mbarrier", null, 1, { wait: [], arrive: [] });
    return got;
  };

  /**
   * A named barrier counted in warps (`NamedBarrier::sync(count, id)`, FA3 mainloop 815, 917, 929,
   * 938): it expects count / 32 warp arrivals; a role arrives for each of its warps.
   */
  function wgNamed(rr, node, env) {
    var args = node.args || [];
    if (args.length < 2) return rr.stop(node, "a named barrier without its thread count and id");
    var threads = rr.eval(args[0], env, false), id = rr.eval(args[1], env, false);
    if (typeof id === "number") id = new SymId("named barrier " + id, 0);   // a plain number: its wait reads `named barrier 0`
    if (!(id instanceof SymId)) return rr.stop(node, "the named barrier's id is not known" + (isUnknown(id) ? ": " + id.why : ""));
    if (typeof threads !== "number" || threads % WARP_THREADS !== 0) return rr.stop(node, "the named barrier's thread count is not known");
    if (rr.run.dry) return DRY;
    return { bar: rr.run.namedBarrier(id, threads, WARP_THREADS), warps: Math.max(1, Math.round((rr.role.threads || WARP_THREADS) / WARP_THREADS)) };
  }

  var WG_OPS = {
    named_barrier_sync: function (rr, node, env) {
      var nb = wgNamed(rr, node, env);
      if (!nb || nb === DRY) return nb || undefined;
      // A sync is the role's other warps' arrivals, then its own arrive-and-wait.
      if (nb.warps > 1) rr.frames.push({ nodes: [{ node: "op", op: "__wg_sync", line: node.line }], pc: 0, env: { __nb: { v: { bar: nb.bar, node: node } } }, loop: null, fn: null });
      return nb.warps > 1 ? rr.run.eng.arriveCmd(nb.bar, nb.warps - 1) : rr.run.eng.sync(nb.bar, nb.bar.name, rr.run.linesOf(node), rr.currentTile(), null, null, node.line);
    },
    __wg_sync: function (rr, node, env) {
      var x = env.__nb.v;
      return rr.run.eng.sync(x.bar, x.bar.name, rr.run.linesOf(x.node), typeof x.tile === "number" ? x.tile : rr.currentTile(), null, null, x.node.line);
    },
    named_barrier_arrive: function (rr, node, env) {
      var nb = wgNamed(rr, node, env);
      if (!nb || nb === DRY) return nb || undefined;
      return rr.run.eng.arriveCmd(nb.bar, nb.warps);
    },
    // `barrier_Q.arrive_and_expect_tx(bytes)` (mainloop 819): the next TMA copy without a pipeline
    // (`copy(params.tma_load_Q.with(reinterpret_cast<...>(barrier_Q), ...))`, 820) lands on it;
    // a plain `arrive()` (836, the cp.async path) is one arrival.
    barrier_arrive: function (rr, node) {
      if (node.method === "arrive_and_expect_tx") { rr.txBarrier = node.receiver; return undefined; }
      if (rr.run.dry) return DRY;
      return rr.run.eng.arriveCmd(rr.run.clusterBarrier(node.receiver), 1);
    },
    // `barrier_Q.wait(work_idx % 2)` (mainloop 1096), `barrier_O.wait((work_idx + 1) % 2)` (852): wait on that parity.
    barrier_wait: function (rr, node, env) {
      var p = (node.args || []).length ? rr.eval(node.args[0], env, false) : null;
      if (typeof p !== "number") return rr.stop(node, "the parity of `" + node.receiver + ".wait` is not known");
      if (rr.run.dry) return DRY;
      return rr.run.cmdWait(rr, rr.run.clusterBarrier(node.receiver), p & 1, lastName(node.receiver), node, rr.currentTile(), null, null);
    },
    tma_load: function (rr, node, env) {
      if (node.object || !rr.txBarrier) return OP_SEMANTICS.tma_load(rr, node, env);
      var name = rr.txBarrier;
      rr.txBarrier = null;
      if (rr.run.dry) return DRY;
      return rr.run.eng.copy(rr.run.clusterBarrier(name), rr.run.knobs.tmaLatency, rr.run.linesOf(node), rr.run.linesOf(node),
        rr.currentTile(), rr.countOf("copy"), null, rr.lane === undefined ? rr.role.lane : rr.role.lane, null);
    },
    // The parse lists `warp_scheduler_barrier_sync()` / `_arrive()` (mainloop 1176, 1183) as order
    // ops; their own programs (915-932: named barriers) run in their place.
    order_wait: function (rr, node, env) { return rr.wgHelperOp(node, env); },
    order_arrive: function (rr, node, env) { return rr.wgHelperOp(node, env); },
    // FA3's flash::Softmax (hopper/softmax.h): max_get_scale (the row max) a `math` block,
    // online_softmax (exp2 of the scores) an `exp` block, rescale_o and finalize `math` blocks.
    softmax: function (rr, node) {
      var m = lastName(node.receiver || "");
      var cls = FA3_SOFTMAX[m];
      if (cls === undefined) return rr.stop(node, "the softmax step `" + node.receiver + "` is not modelled yet");
      return cls === null ? undefined : rr.run.opaque(rr, cls, node);
    },
    mma: function (rr, node, env) {
      if (node.object) return OP_SEMANTICS.mma(rr, node, env);
      var key = rr.lastWaited, s = key !== undefined ? rr.waited[key] : undefined;
      if (!rr.run.dry && s !== undefined) rr.mmaLog.push({ stage: s, gen: rr.waitedGen[key], line: node.line, pipe: key });
      rr.lastMmaTile = rr.currentTile();
      return rr.run.cmdMma(rr, node, rr.lastMmaTile, rr.countOf("mma"), s === undefined ? null : s);
    },
    consumer_wait: function (rr, node, env) {
      var r = OP_SEMANTICS.consumer_wait(rr, node, env);
      var name = node.object || node.receiver || "", obj = rr.objectOf(name, env);
      if (obj instanceof Obj && obj.kind === "pipe") {
        var key = null, pipes = rr.run.pipes;
        Object.keys(pipes).forEach(function (k) { if (pipes[k] === obj.data) key = k; });
        rr.waited[key] = rr.waited[node.object]; rr.waitedGen[key] = rr.waitedGen[node.object];
        var st = stateOf(rr, node, env);
        if (st) { rr.waited[key] = st.index; rr.waitedGen[key] = Math.floor(st.count / st.S); }
        rr.lastWaited = key;
      }
      return r;
    },
    // The epilogue's EpilogueBarrier (NumEpilogueThreads = NumMmaThreads: every MMA warp): a role
    // arrives for its other warps, then its last warp syncs, as named_barrier_sync above.
    __fa3_epi_sync: function (rr, node) {
      if (rr.run.dry) return DRY;
      var bar = rr.run.namedBarrier(new SymId("EpilogueBarrier", 0), rr.ctx.mmaWarpgroups() * WARPGROUP_THREADS, WARP_THREADS);
      var warps = Math.max(1, Math.round((rr.role.threads || WARP_THREADS) / WARP_THREADS));
      if (warps > 1) {
        rr.frames.push({ nodes: [{ node: "op", op: "__wg_sync", line: node.line }], pc: 0, env: { __nb: { v: { bar: bar, node: node.call, tile: rr.epilogueTile() } } }, loop: null, fn: null });
        return rr.run.eng.arriveCmd(bar, warps - 1);
      }
      return rr.run.eng.sync(bar, bar.name, rr.run.linesOf(node.call), rr.epilogueTile(), null, null, node.line);
    },
    // The store writes the O the role's MMAs accumulated: drawn with their tile (the kernel calls
    // get_next_work before the epilogue, flash_fwd_kernel_sm90.h 436, so the scheduler is one tile on).
    __fa3_epi_work: function (rr, node) {
      if (rr.run.dry) return DRY;
      var latency = rr.run.knobs[OPAQUE_LATENCY.epilogue];
      return rr.run.eng.work(typeof latency === "number" ? latency : 0, "epilogue", rr.run.linesOf(node.call), rr.epilogueTile(), null, null);
    },
    __fa3_epi_arrive: function (rr, node) {
      if (rr.run.dry) return DRY;
      return rr.run.eng.arriveCmd(rr.run.clusterBarrier("barrier_O"), 1);
    }
  };
  var FA3_SOFTMAX = { max_get_scale: "math", online_softmax: "exp", rescale_o: "math", finalize: "math" };

  /** An op the parse placed on a call of a member function with a program (warp_scheduler_barrier_sync): run that program. */
  RoleRun.prototype.wgHelperOp = function (node, env) {
    var fn = this.ctx.functions[lastName(node.receiver || "")];
    if (!fn) return this.stop(node, "the op `" + node.op + "` has no program to run");
    var token = { fn: fn.name, ret: null };
    this.frames.push({ nodes: fn.body, pc: 0, env: {}, loop: null, fn: token });
    return undefined;
  };

  K.WG_OPS = WG_OPS; K.dryRunSettledExact = dryRunSettledExact; K.wgRoles = wgRoles;
  K.wgWarpSettled = wgWarpSettled;
  return K;
})(typeof KernelInterpretWg !== "undefined" ? KernelInterpretWg : require("./wg.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretWgOps;
