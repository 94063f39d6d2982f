/*
 * sim/interpret/wg.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * C++ kernels with a warpgroup-index role variable (FlashAttention-3): constants, flags and
 * expressions; the static walks settled twin warps and exact settled dry runs use.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretWg = (function (K) {
  "use strict";

  var INTEGRAL_CONSTANTS = K.INTEGRAL_CONSTANTS, PASS = K.PASS, RUNTIME_CONDITIONS = K.RUNTIME_CONDITIONS, SYMBOL_KNOBS = K.SYMBOL_KNOBS,
    Scheduler = K.Scheduler, SymId = K.SymId, Tuple = K.Tuple,
    WARPGROUP_THREADS = K.WARPGROUP_THREADS, WARP_THREADS = K.WARP_THREADS, Work = K.Work,
    declKind = K.declKind, evalExpr = K.evalExpr, knownFlag = K.knownFlag,
    registerLoopClass = K.registerLoopClass, symbolicSum = K.symbolicSum;

  // ---------------------------------------------------------------------------------------------
  // C++ kernels with a warpgroup-index role variable (FlashAttention-3's SM90 forward:
  // docs/programs.md "FlashAttention-3 forward"). Hooks above call these when ctx.wg; the other
  // C++ runs and the DSL runs never reach them.

  /**
   * FA3's compile-time flags as the default build sets them (hdim 128, BF16, no paging, no
   * PackGQA): IntraWGOverlap and MmaPV_is_RS are the launch's template arguments for head
   * dimension 128 (hopper/tile_size.h tile_size_fwd_sm90: `return {128, ..., MmaPV_is_RS,
   * IntraWGOverlap}` with both true at hdim 128); the mainloop derives Use_TMA_Q = !PackGQA (56),
   * Use_TMA_KV = !PagedKVNonTMA (57), Transpose_V = Is_FP8 && !V_colmajor (55, off),
   * SameHeadDim (60, on), LargeHeadDimV = kHeadDimV > 256 (61, off), RescaleOBeforeGemm =
   * kHeadDim > 128 && ... (356, off); UseSchedulerBarrier (352-355: `(IntraWGOverlap ?
   * (NumMmaWarpGroups >= 2) && (!Is_FP8 ? kHeadDim <= 128 : kHeadDim >= 128) : NumMmaWarpGroups
   * == 2) && !LargeHeadDimV`, both head-dimension tests true at 128) is on with IntraWGOverlap and
   * two or more MMA warpgroups, without it with exactly two (schedulerBarrierOn). Any other name is
   * off unless knobs.flags sets it.
   */
  var FA3_FLAG_DEFAULTS = { IntraWGOverlap: 1, MmaPV_is_RS: 1, Use_TMA_Q: 1, Use_TMA_KV: 1, Use_TMA_O: 1, SameHeadDim: 1,
    UseSchedulerBarrier: "schedulerBarrier" };
  /**
   * FA3's thread-count constants the parse cannot evaluate (they are sizes of MMA atoms): per MMA
   * warpgroup 128 threads. NumMmaThreadsQK = size(TiledMmaQK{}) (mainloop 119) and NumMmaThreads
   * (kernel 181, mainloop) span every MMA warpgroup; NumMmaWarpGroups (kernel 75) is the
   * consumerWGs knob; NumProducerThreads (mainloop 121) is one warp when !Transpose_V &&
   * Use_TMA_KV && Use_TMA_Q, else a warpgroup; NumEpilogueThreads is NumMmaThreads.
   */
  function fa3Constant(name, ctx) {
    var W = ctx.mmaWarpgroups();
    switch (name) {
      case "NumMmaWarpGroups": return W;
      case "NumMmaThreadsQK": case "NumMmaThreads": case "NumEpilogueThreads": return W * WARPGROUP_THREADS;
      case "NumProducerThreads":
        return !wgFlag(ctx, "Transpose_V") && wgFlag(ctx, "Use_TMA_KV") && wgFlag(ctx, "Use_TMA_Q") ? WARP_THREADS : WARPGROUP_THREADS;
      // kernel 182: `MmaThreadOffset = NumLoadWarpGroups * cutlass::NumThreadsPerWarpGroup`; the MMA
      // warpgroups' thread_idx is `threadIdx.x - MmaThreadOffset` (394, 423), so mma()'s
      // warp_group_idx (1018) is 0 for the first MMA warpgroup.
      case "MmaThreadOffset": {
        var v = ctx.roleVars[0], L = v && typeof ctx.constants[v.load_warpgroups] === "number" ? ctx.constants[v.load_warpgroups] : 1;
        return L * WARPGROUP_THREADS;
      }
      case "cutlass::NumThreadsPerWarpGroup": return WARPGROUP_THREADS;
      case "cutlass::NumThreadsPerWarp": return WARP_THREADS;
      default: return PASS;
    }
  }

  /**
   * The load warpgroup count a warpgroup-index kernel names (`load_warpgroups` of its role
   * variable) where it is no literal constant: 1, the count wgRoles binds. CUTLASS's cp.async
   * kernel layers define it as `cute::size(GmemTiledCopyA{}) / NumThreadsPerWarpGroup`
   * (sm90_gemm_warpspecialized_cooperative.hpp 108, _pingpong.hpp 111), and the collective
   * builder makes that copy one warpgroup wide for the Pingpong and Cooperative schedules
   * (collective/builders/sm90_gmma_builder.inl 808, 813: `NumLoadWarpGroups = ... ? 2 : 1`).
   */
  function wgLoadWarpgroups(name, ctx) {
    var v = ctx.roleVars[0];
    if (!v || name !== v.load_warpgroups || Object.prototype.hasOwnProperty.call(ctx.constants, name)) return PASS;
    return 1;
  }

  /** FA3's UseSchedulerBarrier at head dimension 128 without LargeHeadDimV (mainloop 352-355): 1 or 0. */
  function schedulerBarrierOn(intraWGOverlap, mmaWarpgroups) {
    return (intraWGOverlap ? mmaWarpgroups >= 2 : mmaWarpgroups === 2) ? 1 : 0;
  }

  /** A compile-time flag of a warpgroup-index kernel: knobs.flags, else FA3_FLAG_DEFAULTS, else off. */
  function wgFlag(ctx, name) {
    var v;
    if (ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name)) v = ctx.knobs.flags[name] ? 1 : 0;
    else if (FA3_FLAG_DEFAULTS[name] === "schedulerBarrier") v = schedulerBarrierOn(wgFlag(ctx, "IntraWGOverlap"), ctx.mmaWarpgroups());
    else v = FA3_FLAG_DEFAULTS[name] || 0;
    ctx.flags[name] = v;
    return v;
  }

  /**
   * The names an `if constexpr` condition reads anywhere in the programs: compile-time names, so
   * a runtime test reading one (`if (!LargeHeadDimV || warp_group_idx == 1)`, mainloop 937) reads
   * the same flag.
   */
  function compileTimeNames(ctx) {
    if (ctx.ctNames) return ctx.ctNames;
    var out = ctx.ctNames = {};
    function ids(e) {
      if (!Array.isArray(e)) return;
      if (e[0] === "id" && typeof e[1] === "string" && !/::/.test(e[1])) out[e[1]] = true;
      for (var i = 1; i < e.length; i++) if (Array.isArray(e[i])) ids(e[i]);
    }
    function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "if" && n.constexpr) ids(n.cond);
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    }
    walk(ctx.kernel);
    Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body); });
    Object.keys(ctx.lambdas).forEach(function (k) { walk(ctx.lambdas[k].body); });
    return out;
  }

  /** The thread a role's program is run for (lane 0 of its first warp), or null outside a role. */
  function wgThread(ctx) { return ctx.rr && typeof ctx.rr.role.thread === "number" ? ctx.rr.role.thread : null; }

  var namedBarrierNames = new Map();
  /** Whether a name is a member of a named-barrier enum (`FwdNamedBarriers::WarpSchedulerWG1`), cached per name. */
  function namedBarrierName(name) {
    var got = namedBarrierNames.get(name);
    if (got === undefined) { got = /^\w*NamedBarriers::\w+$/.test(name); namedBarrierNames.set(name, got); }
    return got;
  }

  /** Expressions of a warpgroup-index kernel (evalExpr's hook): threads, warp indices, FA3's rules. */
  function wgExpr(e, env, ctx, constexpr) {
    var t = wgThread(ctx);
    switch (e[0]) {
      case "id": {
        if (Object.prototype.hasOwnProperty.call(env, e[1])) return PASS;
        // A named-barrier id of an enum whose file the run does not read (hopper/named_barrier.hpp):
        // symbolic, member + offset (`FwdNamedBarriers::WarpSchedulerWG1`).
        if (namedBarrierName(e[1])) return new SymId(e[1], 0);
        var c = fa3Constant(e[1], ctx);
        if (c !== PASS) return c;
        c = wgLoadWarpgroups(e[1], ctx);
        if (c !== PASS) return c;
        var known = Object.prototype.hasOwnProperty.call(ctx.constants, e[1]) || ctx.roleVarNames[e[1]];
        if (!known && (constexpr || Object.prototype.hasOwnProperty.call(FA3_FLAG_DEFAULTS, e[1]) || compileTimeNames(ctx)[e[1]])) return wgFlag(ctx, e[1]);
        return PASS;
      }
      case "member":   // threadIdx.x: the role's thread
        return Array.isArray(e[1]) && e[1][0] === "id" && e[1][1] === "threadIdx" && e[2] === "x" && t !== null ? t : PASS;
      case "bin": return symbolicSum(e, env, ctx, constexpr);
      case "call": {
        var name = e[1], args = e[2] || [];
        switch (name) {
          // cutlass/arch: canonical_warp_group_idx() is threadIdx.x / 128 made warp-uniform;
          // hopper/utils.h canonical_warp_group_idx_nosync() the same without the shuffle;
          // canonical_warp_idx_sync() is threadIdx.x / 32.
          case "cutlass::canonical_warp_group_idx": case "flash::canonical_warp_group_idx_nosync": case "canonical_warp_group_idx":
            return t === null ? PASS : Math.floor(t / WARPGROUP_THREADS);
          case "cutlass::canonical_warp_idx_sync": case "canonical_warp_idx_sync":
            return t === null ? PASS : Math.floor(t / WARP_THREADS);
          // __shfl_sync(mask, v, 0): lane 0's value; the role's thread is lane 0 (kernel 334, mainloop 1018).
          case "__shfl_sync": return args.length === 3 ? evalExpr(args[1], env, ctx, constexpr) : PASS;
          // cute::conditional_return<B>(a, b): a when B (`cute::conditional_return<!Transpose_V>(pipeline_v,
          // pipeline_vt)`, mainloop 763); B is a flag name, optionally negated.
          case "cute::conditional_return": {
            var m = /^\s*(!?)\s*(\w+)\s*$/.exec(String(e[3] || ""));
            if (!m || args.length !== 2) return PASS;
            var on = wgFlag(ctx, m[2]) ? 1 : 0;
            return evalExpr(args[(m[1] ? 1 - on : on) ? 0 : 1], env, ctx, constexpr);
          }
          // hopper/block.h BlockMN::get_n_block_min_max: without causal / local masking and without
          // a split, (0, ceil(seqlen_k / kBlockN)): the kvBlocks knob (the documented choice);
          // get_n_block_min_before_local_mask returns its n_block_min without a local window.
          case "BlockMN_t::get_n_block_min_max":
            if (wgFlag(ctx, "Is_causal") || wgFlag(ctx, "Is_local") || wgFlag(ctx, "Split")) return PASS;
            return new Tuple([0, ctx.knobs.kvBlocks]);
          case "BlockMN_t::get_n_block_min_before_local_mask":
            return !wgFlag(ctx, "Is_local") && args.length >= 3 ? evalExpr(args[2], env, ctx, false) : PASS;
          default: return PASS;
        }
      }
      case "mcall": {
        var o = evalExpr(e[1], env, ctx, constexpr);
        // FA3's tile schedulers (hopper/tile_scheduler.hpp): `work_tile_info.is_valid(params)` is
        // tile < the CTA's tiles (TILES_PER_CTA: outputTiles); get_block_coord is not followed.
        if (o instanceof Work && e[2] === "is_valid") return K.tileValid(ctx, o.tile);
        if (o instanceof Scheduler && (e[2] === "get_initial_work")) return new Work(o.tile);
        if (o instanceof Scheduler && e[2] === "get_next_work") { o.tile += 1; return new Work(o.tile); }
        return PASS;
      }
      default: return PASS;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Settled twin warps (docs/programs.md "Performance"): wgRoles runs every warp of a group to its
  // end, but a warp whose first WG_TRACE_OPS op lines (its trace, all grouping reads) match an
  // earlier warp's of its group only adds its thread count; the rest of its run matters only by
  // the flags it may read (ctx.flags, whose order the verdict keeps). It stops once none is new.

  var WG_CHECK_MASK = 63;   // wgRoles tests whether a warp is settled every 64 commands (the trace fills in ~280)

  /** The names any let, set, structured binding or parameter of the programs binds (an environment may hold them). */
  function wgBindable(ctx) {
    if (ctx.wgBound) return ctx.wgBound;
    var out = ctx.wgBound = Object.create(null);
    function params(ps) { (ps || []).forEach(function (p) { if (p && typeof p.name === "string") out[p.name] = true; }); }
    function walk(x) {
      if (Array.isArray(x)) { x.forEach(walk); return; }
      if (x === null || typeof x !== "object") return;
      if (x.node === "let") (x.names || []).forEach(function (n) { out[n] = true; });
      if (x.node === "set" && typeof x.name === "string") out[x.name] = true;   // bindReturn may create it
      Object.keys(x).forEach(function (k) { if (typeof x[k] === "object") walk(x[k]); });
    }
    walk(ctx.kernel);
    Object.keys(ctx.functions).forEach(function (k) { params(ctx.functions[k].params); walk(ctx.functions[k].body); });
    Object.keys(ctx.lambdas).forEach(function (k) { params(ctx.lambdas[k].params); walk(ctx.lambdas[k].body); });
    return out;
  }

  /** wgFlag's value of a name without recording it. */
  function wgFlagValue(ctx, name) {
    if (ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name)) return ctx.knobs.flags[name] ? 1 : 0;
    if (FA3_FLAG_DEFAULTS[name] === "schedulerBarrier") return schedulerBarrierOn(wgFlagValue(ctx, "IntraWGOverlap"), ctx.mmaWarpgroups());
    return FA3_FLAG_DEFAULTS[name] || 0;
  }

  /** Whether reading name with wgFlag now would leave ctx.flags as it is (there already, with that value). */
  function wgFlagHeld(ctx, name) {
    return Object.prototype.hasOwnProperty.call(ctx.flags, name) && ctx.flags[name] === wgFlagValue(ctx, name);
  }

  var WG_CONSTANT_NAMES = { NumMmaWarpGroups: true, NumMmaThreadsQK: true, NumMmaThreads: true, NumEpilogueThreads: true,
    "cutlass::NumThreadsPerWarpGroup": true, "cutlass::NumThreadsPerWarp": true };   // fa3Constant: no flag read
  /** The flags a wgExpr rule reads besides an id's own (fa3Constant, the call rules of wgExpr). */
  var WG_RULE_FLAGS = { NumProducerThreads: ["Transpose_V", "Use_TMA_KV", "Use_TMA_Q"],
    "BlockMN_t::get_n_block_min_max": ["Is_causal", "Is_local", "Split"], "BlockMN_t::get_n_block_min_before_local_mask": ["Is_local"] };

  /**
   * The settle walks' `!`, `&&` and `||` (wgStaticExpr, cppStaticExpr): 1, 0 or null (not decided
   * statically), with evalBinary's short circuits (the right side of a decided `&&` / `||` is not
   * read); `rec` evaluates the operands in the walk's own language.
   */
  function staticLogic(ctx, e, constexpr, st, rec) {
    if (e[0] === "un") {
      var a = rec(ctx, e[2], constexpr, st);
      return e[1] === "!" && a !== null ? (a ? 0 : 1) : null;
    }
    var l = rec(ctx, e[2], constexpr, st);
    if (e[1] === "&&" && l !== null && !l) return 0;   // evalBinary: the right side is not evaluated
    if (e[1] === "||" && l !== null && l) return 1;
    var r = rec(ctx, e[3], constexpr, st);
    if ((e[1] === "&&" || e[1] === "||") && l !== null && r !== null) return r ? 1 : 0;
    return null;
  }

  /**
   * An expression's value as far as it is decided before the run (a number, else null), setting
   * st.fresh when its evaluation (evalExpr with wgExpr, constexpr as given) may read a flag
   * wgFlagHeld does not hold, and st.calls to what its calls may inline. Every id may be read
   * (a superset) except the right side of an `&&` / `||` whose left side is decided and
   * short-circuits (evalBinary); an id is decided when no environment can hold it (wgBindable) and
   * wgExpr reads it as a flag ctx.flags holds. A decided value is the one the run computes.
   */
  function wgStaticExpr(ctx, e, constexpr, st) {
    if (!Array.isArray(e)) return null;
    var i;
    switch (e[0]) {
      case "n": return typeof e[1] === "number" ? e[1] : null;
      case "id": {
        var name = e[1];
        if (typeof name !== "string" || (st.bound && st.bound[name])) return null;   // wgExpr: the environment's value
        if (WG_RULE_FLAGS[name]) WG_RULE_FLAGS[name].forEach(function (x) { if (!wgFlagHeld(ctx, x)) st.fresh = true; });
        var v = ctx.roleVars[0];
        if (Object.prototype.hasOwnProperty.call(ctx.constants, name) || ctx.roleVarNames[name] || namedBarrierName(name) ||
            WG_CONSTANT_NAMES[name] || WG_RULE_FLAGS[name] || (v && name === v.load_warpgroups)) return null;   // wgExpr answers first
        if (!(constexpr || Object.prototype.hasOwnProperty.call(FA3_FLAG_DEFAULTS, name) || compileTimeNames(ctx)[name])) return null;
        if (!wgFlagHeld(ctx, name)) { st.fresh = true; return null; }
        if (name === "UseSchedulerBarrier" && !wgFlagHeld(ctx, "IntraWGOverlap")) st.fresh = true;
        return wgBindable(ctx)[name] ? null : ctx.flags[name];
      }
      case "un": case "bin": return staticLogic(ctx, e, constexpr, st, wgStaticExpr);
      case "call":
        if (typeof e[1] === "string") {
          st.calls.push(e[1]);
          if (WG_RULE_FLAGS[e[1]]) WG_RULE_FLAGS[e[1]].forEach(function (x) { if (!wgFlagHeld(ctx, x)) st.fresh = true; });
          if (e[1] === "cute::conditional_return") {
            var m = /^\s*!?\s*(\w+)\s*$/.exec(String(e[3] || ""));
            if (m && !wgFlagHeld(ctx, m[1])) st.fresh = true;
            if (m) wgStaticId(ctx, m[1], st);   // evalCall's own path reads it constexpr
          }
          var icFlag = integralConstantFlag(e);
          if (icFlag !== null) wgStaticId(ctx, icFlag, st);
        }
        break;
      case "mcall":
        if (typeof e[2] === "string") st.calls.push(e[2]);
        break;
      default: break;
    }
    for (i = 1; i < e.length; i++) if (Array.isArray(e[i])) wgStaticExpr(ctx, e[i], constexpr, st);
    return null;
  }

  /**
   * The name evalCall's integral-constant rule (expr.js integralConstant) reads constexpr for a
   * call: the template argument of a `bool` construction (`cute::bool_constant<Is_local>{}`,
   * `std::integral_constant<bool, !X>{}`), or null.
   */
  function integralConstantFlag(e) {
    var kind = INTEGRAL_CONSTANTS[e[1]], targs = String(e[3] === undefined ? "" : e[3]);
    if (kind === undefined || (e[2] || []).length) return null;
    if (kind === "typed") {
      var t = /^\s*(\w+)\s*,(.*)$/.exec(targs);
      if (!t || t[1] !== "bool") return null;
      kind = "bool"; targs = t[2];
    }
    var m = kind === "bool" && /^\s*!?\s*([A-Za-z_]\w*)\s*$/.exec(targs);
    return m && m[1] !== "true" && m[1] !== "false" ? m[1] : null;
  }

  /** A name read constexpr by evalCall's cute::conditional_return (through wgExpr's id rule). */
  function wgStaticId(ctx, name, st) { wgStaticExpr(ctx, ["id", name], true, st); }

  var WG_NODE_LISTS = { body: true, then: true, "else": true, init: true, step: true };

  /**
   * Whether running nodes may read a flag ctx.flags does not hold (seen.expr: wgStaticExpr, or
   * cppStaticExpr outside warpgroup-index kernels; an unread `if constexpr` text: Context.flag):
   * every expression of every node (any field) with those of every function and lambda a call may
   * inline (by name, any owner: a superset), except the branch an `if constexpr` condition decided
   * before the run does not take, and with seen.prune both branches of a runtime `if` whose
   * condition is surely unknown outside a register loop (surelyUnknown: RoleRun.exec then skips it
   * or stops). seen: the callees already walked in this test (seen.calls), the op kinds met
   * (seen.ops), whether the walk is inside a loop that may be a register loop (seen.reg).
   */
  function restNodesReadFresh(ctx, nodes, seen) {
    // seen.bound: the names the environment surely holds here (lookup reads them first, no flag):
    // a list's lets bind for its later nodes (not a dead let, not a role variable: execLet binds none).
    var outer = seen.bound, fresh = false;
    seen.bound = Object.create(outer);
    for (var i = 0; i < nodes.length && !fresh; i++) {
      var n = nodes[i];
      if (restNodeReadsFresh(ctx, n, seen)) fresh = true;
      else if (n && n.node === "let" && !ctx.deadLets.has(n) && !((n.names || []).length === 1 && ctx.roleVarNames[n.names[0]])) {
        (n.names || []).forEach(function (x) { seen.bound[x] = true; });
      }
    }
    seen.bound = outer;
    return fresh;
  }

  function restNodeReadsFresh(ctx, node, seen) {
    if (node === null || typeof node !== "object") return false;
    var st = { fresh: false, calls: [], bound: seen.bound }, keys = Object.keys(node), k, x;
    if (node.node === "op") seen.ops[node.op] = true;
    if (node.node === "if" && !node.constexpr && seen.prune && !seen.reg && !Object.prototype.hasOwnProperty.call(RUNTIME_CONDITIONS, node.text) &&
        surelyUnknown(ctx, node.cond)) {
      seen.expr(ctx, node.cond, false, st);
      return st.fresh || restCallsReadFresh(ctx, st.calls, seen);
    }
    if (node.node === "loop" && node.unroll === "unroll" && !seen.reg && registerLoopClass(node) !== null) {
      // A register loop (RoleRun.enterLoop) runs its body's unknown tests as held: no pruning inside.
      seen.reg = true;
      var inside = restNodeReadsFresh(ctx, node, seen);
      seen.reg = false;
      return inside;
    }
    if (node.node === "if" && node.constexpr) {
      var c = null;
      if (Array.isArray(node.cond) && node.cond[0] === "?") {
        // RoleRun.exec: an unread compile-time text is Context.flag(text).
        var text = String(node.cond[1]), given = ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, text) && ctx.knobs.flags[text] ? 1 : 0;
        if (!(Object.prototype.hasOwnProperty.call(ctx.flags, text) && ctx.flags[text] === given)) return true;
        c = given;
      } else c = seen.expr(ctx, node.cond, true, st);
      if (st.fresh || restCallsReadFresh(ctx, st.calls, seen)) return true;
      if (c !== null) return restNodesReadFresh(ctx, (c ? node.then : node["else"]) || [], seen);
      return restNodesReadFresh(ctx, node.then || [], seen) || restNodesReadFresh(ctx, node["else"] || [], seen);
    }
    // Run.order: an order barrier's arguments, evaluated constexpr when its object is declared.
    if (node.node === "let" && node.type && ctx.orderAliases[declKind(node.type).base]) {
      var ost = { fresh: false, calls: st.calls, bound: null };   // evaluated in an empty environment
      (ctx.orderAliases[declKind(node.type).base].args || []).forEach(function (a) { seen.expr(ctx, a, true, ost); });
      if (ost.fresh) return true;
    }
    if (node.node === "call") st.calls.push(node.lambda ? "L:" + node.lambda : node.name);
    for (var j = 0; j < keys.length; j++) {
      k = keys[j]; x = node[k];
      if (WG_NODE_LISTS[k] && Array.isArray(x)) { if (restNodesReadFresh(ctx, x, seen)) return true; }
      else if (Array.isArray(x) && x.length && Array.isArray(x[0])) x.forEach(function (a) { seen.expr(ctx, a, false, st); });
      else if (Array.isArray(x)) seen.expr(ctx, x, false, st);
      else if (x !== null && typeof x === "object" && typeof x.node === "string" && restNodeReadsFresh(ctx, x, seen)) return true;
    }
    return st.fresh || restCallsReadFresh(ctx, st.calls, seen);
  }

  /** Whether a function or lambda of one of these names (any owner) may read a fresh flag (restNodesReadFresh). */
  function restCallsReadFresh(ctx, names, seen) {
    for (var i = 0; i < names.length; i++) {
      var lam = names[i].slice(0, 2) === "L:", name = lam ? names[i].slice(2) : names[i], table = lam ? ctx.lambdas : ctx.functions;
      var keys = Object.keys(table);
      for (var j = 0; j < keys.length; j++) {
        var key = keys[j];
        var tag = (seen.reg ? "R" : "") + (lam ? "L:" : "F:") + key;
        if (!(key === name || key.slice(-name.length - 2) === "::" + name) || seen.calls[tag]) continue;
        seen.calls[tag] = true;
        var fn = table[key], st = { fresh: false, calls: [], bound: seen.bound };
        (fn.params || []).forEach(function (p) { if (p && Array.isArray(p["default"])) seen.expr(ctx, p["default"], false, st); });
        if (st.fresh || restCallsReadFresh(ctx, st.calls, seen)) return true;
        var outer = seen.bound;
        seen.bound = Object.create(null);   // callFunction / callLambda: the callee's parameters (a lambda's captures are not counted)
        (fn.params || []).forEach(function (p) { if (p && typeof p.name === "string") seen.bound[p.name] = true; });
        var inBody = restNodesReadFresh(ctx, fn.body || [], seen);
        seen.bound = outer;
        if (inBody) return true;
      }
    }
    return false;
  }

  /** A walk's record for restNodesReadFresh: its expression rule and whether runtime tests prune (seen.prune). */
  function restSeen(expr, prune, reg) {
    return { expr: expr, prune: prune, reg: reg, calls: Object.create(null), ops: Object.create(null), bound: Object.create(null) };
  }

  /** A frame's environment as restNodesReadFresh's seen.bound: the names it holds now. */
  function frameBound(env) {
    var out = Object.create(null);
    for (var k in env) if (Object.prototype.hasOwnProperty.call(env, k)) out[k] = true;
    return out;
  }

  /** The member names a value can hold (a Struct's): those of every aggregate and every member assignment of the programs. */
  function structFields(ctx) {
    if (ctx.structFieldNames) return ctx.structFieldNames;
    var out = ctx.structFieldNames = Object.create(null);
    function walk(x) {
      if (Array.isArray(x)) {
        if (x[0] === "struct" && Array.isArray(x[1])) x[1].forEach(function (f) { out[f] = true; });
        x.forEach(walk);
      } else if (x !== null && typeof x === "object") {
        if (x.node === "set" && typeof x.member === "string") out[x.member] = true;
        Object.keys(x).forEach(function (k) { if (typeof x[k] === "object") walk(x[k]); });
      }
    }
    walk(ctx.kernel);
    Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body); });
    Object.keys(ctx.lambdas).forEach(function (k) { walk(ctx.lambdas[k].body); });
    return out;
  }

  /**
   * Whether evalExpr (no DSL or warpgroup hooks) surely gives an Unknown for e, in any environment:
   * an unread text or increment, a member no Struct of the programs has (structFields: evalExpr's
   * member rule), a negation or a `? :` test of one, an arithmetic or comparison with one side
   * such (evalBinary returns the Unknown side), `&&` / `||` with both sides such.
   */
  function surelyUnknown(ctx, e) {
    if (!Array.isArray(e)) return true;
    switch (e[0]) {
      case "?": case "post": return true;
      case "member": return !structFields(ctx)[e[2]];
      case "un": return surelyUnknown(ctx, e[2]);
      case "?:": return surelyUnknown(ctx, e[1]);
      case "bin":
        return e[1] === "&&" || e[1] === "||" ? surelyUnknown(ctx, e[2]) && surelyUnknown(ctx, e[3]) :
          surelyUnknown(ctx, e[2]) || surelyUnknown(ctx, e[3]);
      default: return false;
    }
  }

  /**
   * cppStaticExpr: wgStaticExpr's counterpart for C++ kernels with role enums (lookup, evalBinary):
   * a flag is read (Context.flag) only by a name evaluated constexpr that knownFlag does not
   * answer; a name no environment can hold (wgBindable) is decided when lookup gives a knob
   * symbol's number, a numeric constant or a flag ctx.flags holds.
   */
  function cppStaticExpr(ctx, e, constexpr, st) {
    if (!Array.isArray(e)) return null;
    var i;
    switch (e[0]) {
      case "n": return typeof e[1] === "number" ? e[1] : null;
      case "id": {
        var name = e[1];
        if (typeof name !== "string" || !constexpr || (st.bound && st.bound[name])) return null;   // lookup: the environment's value
        if (!knownFlag(ctx, name)) { st.fresh = true; return null; }
        if (wgBindable(ctx)[name] || ctx.roleVarNames[name]) return null;
        var sym = SYMBOL_KNOBS[name];
        if (sym && typeof ctx.knobs[sym] === "number") return ctx.knobs[sym];
        if (Object.prototype.hasOwnProperty.call(ctx.constants, name)) return typeof ctx.constants[name] === "number" ? ctx.constants[name] : null;
        var sep = name.lastIndexOf("::");
        if (sep > 0 && ctx.enums[name.slice(0, sep)]) return null;
        return ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name) && ctx.knobs.flags[name] ? 1 : 0;
      }
      case "un": case "bin": return staticLogic(ctx, e, constexpr, st, cppStaticExpr);
      case "call":
        if (typeof e[1] === "string") st.calls.push(e[1]);
        // evalCall: `cute::conditional_return<C>` reads C constexpr.
        if (e[1] === "cute::conditional_return") cppStaticExpr(ctx, ["id", String(e[3] || "").replace(/[\s!]/g, "")], true, st);
        if (integralConstantFlag(e) !== null) cppStaticExpr(ctx, ["id", integralConstantFlag(e)], true, st);
        break;
      case "mcall":
        if (typeof e[2] === "string") st.calls.push(e[2]);
        break;
      default: break;
    }
    for (i = 1; i < e.length; i++) if (Array.isArray(e[i])) cppStaticExpr(ctx, e[i], constexpr, st);
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Warpgroup coordinates (CUTLASS 88's FMHA kernel layer: docs/programs.md "CUTLASS 88 Hopper
  // FMHA"). evalExpr calls these for every C++ run; they pass (PASS) on anything else.

  /**
   * FMHA_BLOCK_COORDS: the block coordinate `tile_scheduler.get_block_coord()` (88 FMHA kernel 345)
   * returns, by the collective the kernel layer is instantiated with (its file): the forward's
   * scheduler is the builder's IndividualTileScheduler (kIsPersistent off; fmha_kernel_builder.hpp
   * 117-118), whose coordinate is `make_coord(blockIdx.x, _0{}, make_coord(blockIdx.y, blockIdx.z))`
   * (fmha_tile_scheduler.hpp 72-75); the backward's is `TileSchedulerBwdAdapter<IndividualTileScheduler>`
   * (device/fmha_device_bwd.hpp 96-104), `select<1,0,2>` of it (fmha_tile_scheduler.hpp 189-193):
   * `(_0{}, blockIdx.x, (blockIdx.y, blockIdx.z))`. Each entry lists the modes: "b" a block index,
   * 0 the static `_0{}`, an array a nested coordinate. The run's CTA is blockIdx (0, 0, 0), the
   * cluster's first (as `cute::block_rank_in_cluster`, RUNTIME_CHOICES); what the consumers read of
   * it, `get<1>(wg_coord) % NumMmaWarpGroups` (backward 634) after the kernel's `wg_block =
   * NumMmaWarpGroups * wg_block + i` (kernel 364-376), is i for every block index.
   */
  var FMHA_BLOCK_COORDS = {
    "88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp": ["b", 0, ["b", "b"]],
    "88_hopper_fmha/collective/fmha_collective_bwd_tma_warpspecialized.hpp": [0, "b", ["b", "b"]]
  };
  /**
   * FUSION_ADAPTERS: the collective whose `Fusion` template argument is an adapter, by its file (as
   * FMHA_BLOCK_COORDS): CUTLASS 88's backward mainloop is instantiated only with
   * `FusionBwdAdapter<Fusion>` (device/fmha_device_bwd.hpp 94-96), whose get_trip_count swaps the
   * Q and K modes of the block, the tile and the problem before it asks the base
   * (collective/fmha_fusion.hpp 194-204): DefaultFusion's ceil_div(get<3>, get<1>) of the swapped
   * shapes is the Q length over the tile's Q rows, the m-blocks one CTA's K/V block steps over (the
   * backward's `inner_tile_count`, 386, 534): the `qBlocks` knob. Its is_contributing is true
   * (232-237); it defines no other trip count, so another is not known. Any other collective's
   * `Fusion{}` is DefaultFusion (FUSION_TRIP_COUNTS).
   */
  var FUSION_ADAPTERS = {
    "88_hopper_fmha/collective/fmha_collective_bwd_tma_warpspecialized.hpp": { get_trip_count: "qBlocks", is_contributing: 1 }
  };
  /** `Fusion{}.name(...)`: the value of its trip count or test (a knob's value, a constant), else PASS. */
  function fusionValue(ctx, name) {
    var path = ctx.structure.source && ctx.structure.source.path;
    var table = Object.prototype.hasOwnProperty.call(FUSION_ADAPTERS, path) ? FUSION_ADAPTERS[path] : K.FUSION_TRIP_COUNTS;
    if (!Object.prototype.hasOwnProperty.call(table, name)) {
      return table === K.FUSION_TRIP_COUNTS ? PASS : new K.Unknown("`Fusion{}." + name + "` of FusionBwdAdapter is not known");
    }
    var v = table[name];
    return typeof v === "string" ? ctx.knobs[v] : v;
  }
  function makeCoord(modes) {
    return new K.Coord(modes.map(function (m) { return Array.isArray(m) ? makeCoord(m) : m === "b" ? 0 : new K.IntConst(m); }),
      modes.map(function (m) { return !Array.isArray(m) && m !== "b"; }));
  }
  function blockCoord(e, env, ctx) {
    if (e[2] !== "get_block_coord" || (e[3] || []).length || !Array.isArray(e[1]) || e[1][0] !== "id") return PASS;
    var box = env[e[1][1]], path = ctx.structure.source && ctx.structure.source.path;
    if (!box || !(box.v instanceof Scheduler) || !Object.prototype.hasOwnProperty.call(FMHA_BLOCK_COORDS, path)) return PASS;
    return makeCoord(FMHA_BLOCK_COORDS[path]);
  }

  /** The mode `get<k>(c)` names of a Coord c (k a digit or a name of a compile-time int), or null. */
  function coordMode(e, env, ctx) {
    var args = e[2] || [];
    if ((e[1] !== "get" && e[1] !== "cute::get") || args.length !== 1 || e[3] === undefined) return null;
    var c = evalExpr(args[0], env, ctx, false);
    if (!(c instanceof K.Coord)) return null;
    var k = /^[0-9]$/.test(String(e[3])) ? Number(e[3]) : /^[A-Za-z_]\w*$/.test(String(e[3])) ? evalExpr(["id", e[3]], env, ctx, false) : null;
    return typeof k === "number" && k >= 0 && k < c.items.length ? { coord: c, k: k } : null;
  }

  /**
   * COORD_REFERENCES: the variable box of a reference let to a mode `get<k>(c)` of a coordinate (its
   * value is that mode; an assignment writes it), or null when e names no dynamic numeric mode.
   */
  function coordBox(e, env, ctx) {
    var m = coordMode(e, env, ctx);
    if (m === null || m.coord.statics[m.k] || typeof m.coord.items[m.k] !== "number") return null;
    function read() { return m.coord.items[m.k]; }
    function write(x) { m.coord.items[m.k] = typeof x === "number" ? x : new K.Unknown("a coordinate mode set to a non-number"); }
    return Object.defineProperty({}, "v", { enumerable: true, get: read, set: write });
  }

  /**
   * Calls on coordinates: `get<k>(c)` of a Coord is its mode k (a static mode its IntConst), and
   * SHFL_UNIFORM: `__shfl_sync(mask, v, lane)` is lane `lane`'s v (a warp broadcast), so it is v
   * where v is the same in every lane: where v reads only numbers, parse constants and modes of
   * block coordinates (the warpgroup's coordinate, one per role: `get<1>(wg_coord) %
   * NumMmaWarpGroups`, 88 FMHA backward 634). FA3's warpgroup-index rules have their own (wg.js).
   */
  function coordCall(e, env, ctx, constexpr) {
    if (e[1] === "get" || e[1] === "cute::get") {
      var m = coordMode(e, env, ctx);
      if (m === null) return PASS;
      var x = m.coord.items[m.k];
      return m.coord.statics[m.k] ? x : K.clone(x);
    }
    if (e[1] === "__shfl_sync" && !ctx.wg && !ctx.dsl && (e[2] || []).length === 3) {
      var v = e[2][1];
      // A fresh Unknown (never the node's own): whether v is uniform depends on the frame, so a let of it is not inert (RoleRun.execLet).
      if (!uniformExpr(v, env, ctx)) return new K.Unknown("`__shfl_sync(...)` of a value not known to be the same in every lane");
      return evalExpr(v, env, ctx, constexpr);
    }
    return PASS;
  }
  function uniformExpr(e, env, ctx) {
    if (!Array.isArray(e)) return false;
    switch (e[0]) {
      case "n": return true;
      case "id": return !Object.prototype.hasOwnProperty.call(env, e[1]) && Object.prototype.hasOwnProperty.call(ctx.constants, e[1]);
      case "bin": return uniformExpr(e[2], env, ctx) && uniformExpr(e[3], env, ctx);
      case "call": return coordMode(e, env, ctx) !== null;
      default: return false;
    }
  }

  /**
   * `is_constant<N, decltype(get<k>(c))>::value` (cute/numeric/integral_constant.hpp 104-118: true
   * when the type is an integral constant of value N) of a mode of a Coord: whether that mode is
   * static with value N (`constexpr int wg_dim = is_constant<0, decltype(get<1>(wg_coord))>::value ?
   * 0 : 1;`, 88 FMHA kernel 363). Of any other expression the type is not known.
   */
  function isConstant(e, env, ctx) {
    var m = Array.isArray(e[2]) && e[2][0] === "call" ? coordMode(e[2], env, ctx) : null;
    if (m === null) return new K.Unknown("`is_constant<" + e[1] + ", ...>` of a value whose type is not known");
    return m.coord.statics[m.k] && m.coord.items[m.k] instanceof K.IntConst && m.coord.items[m.k].value === e[1] ? 1 : 0;
  }

  K.FA3_FLAG_DEFAULTS = FA3_FLAG_DEFAULTS; K.WG_CHECK_MASK = WG_CHECK_MASK;
  K.compileTimeNames = compileTimeNames; K.cppStaticExpr = cppStaticExpr;
  K.frameBound = frameBound; K.restNodeReadsFresh = restNodeReadsFresh;
  K.restNodesReadFresh = restNodesReadFresh; K.restSeen = restSeen; K.wgExpr = wgExpr;
  K.wgStaticExpr = wgStaticExpr;
  K.FMHA_BLOCK_COORDS = FMHA_BLOCK_COORDS; K.blockCoord = blockCoord; K.coordCall = coordCall; K.coordMode = coordMode;
  K.coordBox = coordBox;
  K.FUSION_ADAPTERS = FUSION_ADAPTERS; K.fusionValue = fusionValue;
  K.isConstant = isConstant;
  return K;
})(typeof KernelInterpretDslOps !== "undefined" ? KernelInterpretDslOps : require("./dsl_ops.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretWg;
