/*
 * sim/interpret/dsl.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * CuTe DSL programs (programs_dsl.py): values, flags, expressions, pipelines, roles and calls.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretDsl = (function (K) {
  "use strict";

  var Context = K.Context, DRY = K.DRY, NONE = K.NONE, Obj = K.Obj, PASS = K.PASS,
    RoleRun = K.RoleRun, Run = K.Run, Scheduler = K.Scheduler, State = K.State, Tuple = K.Tuple,
    Unknown = K.Unknown, Work = K.Work, clone = K.clone, evalCall = K.evalCall,
    evalExpr = K.evalExpr, isUnknown = K.isUnknown, truthy = K.truthy;

  // ---------------------------------------------------------------------------------------------
  // CuTe DSL programs (programs_dsl.py; docs/programs.md "FlashAttention-4 SM90 forward (CuTe DSL)").
  // Hooks in the functions above call these when the structure's role variable is a warp index
  // (ctx.dsl); the C++ runs never reach them.

  /** A method or function with a program of the parse (`self.load_KV`). */
  function FnRef(name) { this.name = name; }
  /** functools.partial(f, *args, **kwargs): f a FnRef or the text of a callable without a program. */
  function Partial(fn, args, kwargs) { this.fn = fn; this.args = args; this.kwargs = kwargs; }
  /** A named-barrier id of an IntEnum the parse does not read (`int(NamedBarrierFwd.WarpSchedulerWG1) + 1`): member + offset. */
  function SymId(base, off) { this.base = base; this.off = off; }
  SymId.prototype.key = function () { return this.base.split(".").pop() + (this.off ? (this.off > 0 ? "+" : "") + this.off : ""); };
  /** `copy_utils.tma_producer_copy_fn(copy, pipeline)`: a TMA copy that arrives on its pipeline's full barrier. */
  function CopyFn(pipe) { this.pipe = pipe; }

  /** Threads of one warp / one warpgroup (the role units of a DSL kernel). */
  var WARP_THREADS = 32, WARPGROUP_THREADS = 128;

  /**
   * Compile-time flags of FA4 SM90 (`if const_expr(self.x)`), with the source's defaults: the
   * constructor's (flash_fwd_sm90.py 56-58, 62-65: intra_wg_overlap=True, mma_pv_is_rs=True,
   * use_tma_KV = not paged_kv_non_tma=False) and __call__'s for the default problem (227-230:
   * use_tma_Q, use_tma_O without pack_gqa; 235: rescale_O_before_gemm = tile_hdimv > 128 and ...,
   * off at head dim 128). A string is a rule on the knobs: use_scheduler_barrier is
   * `num_wg_mma >= 2 and tile_hdim <= 128` under intra_wg_overlap, else `num_wg_mma == 2`
   * (222-226; head dim 128 assumed). Any other `self.x` flag is off unless knobs.flags sets it
   * (is_causal, is_local, pack_gqa, use_block_sparsity, Q_in_regs, ...).
   */
  var DSL_FLAG_DEFAULTS = {
    "self.intra_wg_overlap": 1, "self.mma_pv_is_rs": 1, "self.use_tma_KV": 1, "self.use_tma_Q": 1, "self.use_tma_O": 1,
    "self.rescale_O_before_gemm": 0, "self.use_scheduler_barrier": "schedulerBarrier"
  };
  /** `self.x` values that are knobs: the stage count (flash_fwd.py 53 num_stages=1) and the MMA warpgroup count (sm90 212). */
  var DSL_SELF_KNOBS = { num_stages: "stages", num_wg_mma: "consumerWGs", kv_stage: "stages" };
  /**
   * Constructor arguments without a default that the run fixes (listed in the verdict's flags):
   * the head dimension, 128 (as the SM90 run assumes; FA4 sm100 146 `head_dim: int`).
   */
  var DSL_CTOR_ARGS = { head_dim: 128 };
  /**
   * What FA4's Softmax methods are on the timeline (flash_attn/cute/softmax.py): online_softmax
   * (187: the row max, exp2 of the scores, 229-240) is an `exp` block (softmaxLatency);
   * rescale_O (291) and finalize (253) are `math` blocks (mathLatency); reset (172) is no step.
   */
  var SOFTMAX_CLASSES = { online_softmax: "exp", rescale_O: "math", finalize: "math", reset: null,
    // SoftmaxSm100 (softmax.py 305-470), the steps of FA4 sm100's softmax_step (2667-2733):
    // update_row_max (375: the fmax tree, the rescale factor's exp2), update_row_max_precomputed
    // (363: the hardware max), scale_subtract_rowmax (404) and update_row_sum (394) are `math`;
    // apply_exp2_convert (421: exp2 of every score, converted to P) is the `exp` block.
    update_row_max: "math", update_row_max_precomputed: "math", scale_subtract_rowmax: "math",
    apply_exp2_convert: "exp", update_row_sum: "math" };

  /** A compile-time flag or setting of a DSL kernel: knobs.flags (an integer kept), else DSL_FLAG_DEFAULTS, else off; recorded in ctx.flags. */
  function dslFlag(ctx, name) {
    var v;
    if (ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name)) v = typeof ctx.knobs.flags[name] === "number" ? ctx.knobs.flags[name] : ctx.knobs.flags[name] ? 1 : 0;
    else if (DSL_FLAG_DEFAULTS[name] === "schedulerBarrier") v = ctx.mmaWarpgroups() >= 2 ? 1 : 0;
    else v = DSL_FLAG_DEFAULTS[name] || 0;
    ctx.flags[name] = v;
    return v;
  }

  /** The number of MMA warpgroups: the consumerWGs knob, else tile_m / 64 (sm90 103, 210-212: one 64-row atom per WG). */
  Context.prototype.mmaWarpgroups = function () {
    if (typeof this.knobs.consumerWGs === "number") return this.knobs.consumerWGs;
    var m = this.structure.tile && typeof this.structure.tile.m === "number" ? this.structure.tile.m : 128;
    return Math.max(1, Math.floor(m / 64));
  };

  /** The warp a DSL role's thread runs in (its binding of the warp-index variable). */
  function dslWarp(ctx) {
    var keys = Object.keys(ctx.roleBinding);
    return keys.length && typeof ctx.roleBinding[keys[0]] === "number" ? ctx.roleBinding[keys[0]] : null;
  }

  /** The None-ness of a compile-time `x is None` test the run cannot evaluate: a flag named `x is not None` (off). */
  function noneTest(e, env, ctx) {
    var a = e[2], b = e[3], other = isNoneExpr(a) ? b : isNoneExpr(b) ? a : null;
    if (other === null) return PASS;
    // `self.mask_mod is not None`: a `self.x` the parse gives no value is a flag `self.x is not None` (off).
    var selfAttr = Array.isArray(other) && other[0] === "member" && Array.isArray(other[1]) && other[1][0] === "id" && other[1][1] === "self";
    var v = selfAttr && !Object.prototype.hasOwnProperty.call(ctx.constants, "self." + other[2]) ? new Unknown("a flag") : evalExpr(other, env, ctx, false);
    var isNone;
    if (v === NONE) isNone = 1;
    else if (!isUnknown(v)) isNone = 0;
    else isNone = dslFlag(ctx, exprText(other) + " is not None") ? 0 : 1;
    return e[1] === "==" ? isNone : e[1] === "!=" ? 1 - isNone : PASS;
  }
  /**
   * DSL_STRING_LITERALS: a plain string literal of the parse (`["?", "\"K\""]`: a quoted text with no
   * escape or inner quote) is a value compared by its text, as Python compares strings: the caller's
   * `"K"` for `K_or_V: cutlass.Constexpr[str]` makes `if const_expr(K_or_V == "K")` hold (FA4 bwd_sm100
   * 3898 then 4750-4754, 4816). Any other `?` text is PASS (not read).
   */
  function stringLiteral(t) {
    var q = typeof t === "string" && t.length >= 2 && t.length <= 66 ? t.charAt(0) : "";
    if ((q !== '"' && q !== "'") || t.indexOf(q, 1) !== t.length - 1 || t.indexOf("\\") >= 0) return PASS;
    return new K.EnumValue("str:" + t.slice(1, -1));
  }
  function isNoneExpr(e) { return Array.isArray(e) && e[0] === "?" && e[1] === "None"; }
  function exprText(e) {
    if (!Array.isArray(e)) return "?";
    if (e[0] === "id") return e[1];
    if (e[0] === "member") return exprText(e[1]) + "." + e[2];
    return JSON.stringify(e);
  }

  /**
   * A `+` / `-` the C++ rules leave to the hooks (dslExpr, wgExpr): a named-barrier id plus or
   * minus a number stays symbolic (SymId), and two tuples concatenate (`self.softmax0_warp_ids +
   * self.correction_warp_ids`, FA4 sm100 1029); else PASS.
   */
  function symbolicSum(e, env, ctx, constexpr) {
    if (e[1] !== "+" && e[1] !== "-") return PASS;
    var a = evalExpr(e[2], env, ctx, constexpr), b = evalExpr(e[3], env, ctx, constexpr);
    if (a instanceof SymId && typeof b === "number") return new SymId(a.base, a.off + (e[1] === "+" ? b : -b));
    if (a instanceof Tuple && b instanceof Tuple && e[1] === "+") return new Tuple(a.items.concat(b.items));
    if (b instanceof SymId && typeof a === "number" && e[1] === "+") return new SymId(b.base, b.off + a);
    return PASS;
  }

  /** DSL expressions (evalExpr's hook): PASS leaves e to the C++ rules. */
  function dslExpr(e, env, ctx, constexpr) {
    switch (e[0]) {
      case "kw": return evalExpr(e[2], env, ctx, constexpr);
      case "comp": return K.dslComprehension(e, env, ctx, constexpr);
      case "id": {
        if (e[1] === "cute.arch.WARP_SIZE") return WARP_THREADS;
        // DSL_SCHEDULER_CLASSES, DSL_SCHEDULING_MODES (dsl_sched.js): a tile scheduler class, a SchedulingMode member.
        var sc = K.dslSchedulerId(e[1]);
        if (sc !== PASS) return sc;
        // DSL_ENUMS: a member of one of the file's enums (programs_dsl.enum_members:
        // `CtaSchedule.TWO_CTA_SERIAL` is 3, FA4 bwd_sm100 69-74) is its value.
        var en = ctx.roleVars.length && ctx.roleVars[0].enums;
        return en && Object.prototype.hasOwnProperty.call(en, e[1]) ? en[e[1]].value : PASS;
      }
      case "?": return e[1] === "None" ? NONE : stringLiteral(e[1]);
      case "member": {
        if (Array.isArray(e[1]) && e[1][0] === "id" && e[1][1] === "self") return dslSelf(e[2], ctx, constexpr);
        var o = evalExpr(e[1], env, ctx, constexpr);
        if (o instanceof State && (e[2] === "index" || e[2] === "phase" || e[2] === "count")) return o[e[2]];
        // DSL_CLUSTER_LAYOUT, DSL_PARTICIPANTS (dsl_ops.js): a layout's shape, a handle's stage.
        if (o instanceof K.Layout && e[2] === "shape") return o.shape;
        if (o instanceof Obj && o.kind === "pipe_handle" && e[2] === "index") return o.data.state.index;
        // FA4's tile schedulers (flash_attn/cute/tile_scheduler.py): `work_tile.is_valid_tile` until
        // advance_to_next_work has moved past the CTA's last tile (TILES_PER_CTA, expr.js: one tile
        // for a single-tile class of DSL_SCHEDULER_CLASSES, else outputTiles); tile_idx is not followed.
        if (o instanceof Work && e[2] === "is_valid_tile") return K.dslWorkValid(ctx, o);
        return K.dslDtypeMember(e, o, env, ctx);   // DSL_TENSOR_DTYPES (dsl_ops.js): `mdK.element_type`, `dtype.width`
      }
      case "bin": {
        if ((e[1] === "==" || e[1] === "!=") && (isNoneExpr(e[2]) || isNoneExpr(e[3]))) return noneTest(e, env, ctx);
        if (e[1] === "in" || e[1] === "not in") return K.dslMembership(e, env, ctx, constexpr);
        return symbolicSum(e, env, ctx, constexpr);
      }
      case "call": {
        // Layouts and block_idx (dsl_ops.js).
        var lc = K.dslLayoutCall(e, env, ctx, constexpr);
        return lc !== PASS ? lc : dslCallExpr(e, env, ctx, constexpr);
      }
      case "mcall": return dslMethodExpr(e, env, ctx, constexpr);
      // `self.load_warp_ids[0]`, `self.softmax1_warp_ids[-1]` (FA4 sm100 1313, 1399): Python indexing of a tuple.
      case "index": {
        var t = evalExpr(e[1], env, ctx, constexpr), i = evalExpr(e[2], env, ctx, constexpr);
        if (!(t instanceof Tuple) || typeof i !== "number") return PASS;
        var j = i < 0 ? t.items.length + i : i;
        return j >= 0 && j < t.items.length ? t.items[j] : new Unknown("an index past the tuple");
      }
      default: return PASS;
    }
  }

  /** `self.x`: a method with a program, a constant of the parse, a knob, or (in a compile-time test) a flag. */
  function dslSelf(attr, ctx, constexpr) {
    if (ctx.functions[attr]) return new FnRef(attr);
    var name = "self." + attr;
    // The constructor's warp ids (programs_dsl.warp_ids: `self.load_warp_ids = (14,)`, FA4 sm100 317).
    var ids = ctx.roleVars.length && ctx.roleVars[0].warp_ids;
    if (ids && Object.prototype.hasOwnProperty.call(ids, name)) return ids[name].scalar ? ids[name].warps[0] : new Tuple(ids[name].warps.slice());
    if (Object.prototype.hasOwnProperty.call(DSL_SELF_KNOBS, attr)) {
      return attr === "num_wg_mma" ? ctx.mmaWarpgroups() : ctx.knobs[DSL_SELF_KNOBS[attr]];
    }
    if (Object.prototype.hasOwnProperty.call(ctx.constants, name)) return ctx.constants[name];
    // sm90 216-217: num_epilogue_threads = num_mma_threads = num_wg_mma warpgroups.
    if (attr === "num_mma_threads" || attr === "num_epilogue_threads") return ctx.mmaWarpgroups() * WARPGROUP_THREADS;
    // The constructor's own value first (flash_fwd_mla_sm100.py 102: `self.use_tma_KV = not
    // use_cpasync_load_KV`); DSL_FLAG_DEFAULTS only for an attribute it does not give.
    var ctor = dslConstructor(ctx, name);
    if (ctor !== PASS) {
      if (constexpr && typeof ctor === "number" && !(ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name))) ctx.flags[name] = ctor;
      if (constexpr && ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, name)) return dslFlag(ctx, name);
      return ctor;
    }
    if (Object.prototype.hasOwnProperty.call(DSL_FLAG_DEFAULTS, name)) return dslFlag(ctx, name);
    if (constexpr) return dslFlag(ctx, name);
    return new Unknown("`" + name + "` is not known");
  }

  /**
   * `self.x` from the constructor (programs_dsl.constructor): its last unconditional assignment in
   * `__init__`, evaluated with the parameters at their defaults (`self.q_stage = q_stage`, default
   * 2, FA4 sm100 157, 183); an assignment that reads itself reads the one before (190). PASS when
   * the constructor does not assign it or its value is not known. Values are cached per run.
   */
  function dslConstructor(ctx, name) {
    var ctor = ctx.roleVars.length && ctx.roleVars[0].constructor;
    if (!ctor || !ctor.attrs || !Object.prototype.hasOwnProperty.call(ctor.attrs, name)) return PASS;
    var cache = ctx.ctorCache || (ctx.ctorCache = {});
    if (Object.prototype.hasOwnProperty.call(cache, name)) return cache[name];
    // A cycle reads as not known.
    cache[name] = PASS;
    var env = dslCtorEnv(ctx);
    var list = ctor.attrs[name], v = PASS;
    for (var i = 0; i < list.length; i++) {
      // A value `__call__` computes before the launch (its lines are programs_dsl's `launch`: `self.epi_tile =
      // (self.m_block_size, ...)`, FA4 sm100 593) is host code: the names it reads are no compile-time tests (not in flags).
      var saved = ctor.launch && list[i].line >= ctor.launch[0] && list[i].line <= ctor.launch[1] ? Object.assign({}, ctx.flags) : null;
      var x = evalExpr(list[i].expr, env, ctx, true);
      if (saved) { Object.keys(ctx.flags).forEach(function (k) { if (!(k in saved)) delete ctx.flags[k]; }); }
      v = isUnknown(x) ? PASS : x;
      cache[name] = v;
    }
    return v;
  }

  /** The constructor's parameters at their defaults and its locals, as dslConstructor reads them (made once per run). */
  function dslCtorEnv(ctx) {
    var ctor = (ctx.roleVars.length && ctx.roleVars[0].constructor) || {}, env = ctx.ctorEnv;
    if (!env) {
      env = ctx.ctorEnv = {};
      // A parameter the knobs' flags name takes that value (DSL_CONSTRUCTOR_ASSERTS: the settings a user gives the constructor).
      var given = ctx.knobs.flags || {};
      Object.keys(ctor.params || {}).forEach(function (p) {
        env[p] = { v: Object.prototype.hasOwnProperty.call(given, p) ? given[p] : evalExpr(ctor.params[p], {}, ctx, true) };
      });
      Object.keys(DSL_CTOR_ARGS).forEach(function (p) { if (!env[p]) { env[p] = { v: DSL_CTOR_ARGS[p] }; ctx.flags[p] = DSL_CTOR_ARGS[p]; } });
      // The constructor's other local assignments, in order (`head_dim_v = head_dim_v if head_dim_v is not None else head_dim`, 175).
      (ctor.locals || []).forEach(function (l) { env[l.name] = { v: evalExpr(l.expr, env, ctx, true) }; });
    }
    return env;
  }

  /** `tuple(...)` / `list(...)`: `(self.mma_warp_id, *self.softmax0_warp_ids, ...)` (FA4 sm100 987-992): a starred tuple is spliced. */
  function dslTuple(args, env, ctx, constexpr) {
    var items = [];
    for (var ti = 0; ti < args.length; ti++) {
      var st = Array.isArray(args[ti]) && args[ti][0] === "?" && /^\*self\.(\w+)$/.exec(String(args[ti][1]));
      var tv = st ? dslSelf(st[1], ctx, constexpr) : evalExpr(args[ti], env, ctx, constexpr);
      if (st && !(tv instanceof Tuple)) return new Unknown("a starred item that is not a tuple");
      if (st) items = items.concat(tv.items); else items.push(tv);
    }
    return new Tuple(items);
  }

  /** A `NamedBarrier(barrier_id=..., num_threads=...)` construction: its object (dslCallExpr). */
  function dslNamedBarrier(name, args, env, ctx) {
    var nb = { id: null, threads: null };
    args.forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "barrier_id") nb.id = evalExpr(a[2], env, ctx, false);
      if (Array.isArray(a) && a[0] === "kw" && a[1] === "num_threads") nb.threads = evalExpr(a[2], env, ctx, false);
    });
    return new Obj("named", name, nb);
  }

  /** `partial(f, *args, **kwargs)`: a Partial binding the objects it is given (dslCallExpr). */
  function dslPartial(args, env, ctx, constexpr) {
    var fn = evalExpr(args[0], env, ctx, constexpr);
    if (isUnknown(fn) || fn === NONE) fn = exprText(args[0]);
    var pos = [], kw = {};
    args.slice(1).forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw") kw[a[1]] = { v: evalExpr(a[2], env, ctx, false) };
      // partial binds the objects it is given.
      else pos.push({ v: evalExpr(a, env, ctx, false) });
    });
    // A partial of a partial adds its arguments to the inner one's.
    if (fn instanceof Partial) return new Partial(fn.fn, fn.args.concat(pos), Object.assign({}, fn.kwargs, kw));
    return new Partial(fn, pos, kw);
  }

  /** DSL calls in expressions (evalCall's hook). */
  function dslCallExpr(e, env, ctx, constexpr) {
    var name = e[1], args = e[2] || [];
    var warp = dslWarp(ctx);
    switch (name) {
      case "const_expr": case "cutlass.const_expr": return args.length === 1 ? evalExpr(args[0], env, ctx, true) : PASS;
      // `with cute.arch.elect_one():` (programs_dsl: an `if` on the call) is taken: the elected thread's program is the role's.
      case "cute.arch.elect_one": return 1;
      case "cute.arch.make_warp_uniform": return args.length === 1 ? evalExpr(args[0], env, ctx, constexpr) : PASS;
      // The role's thread is the first lane of its first warp: thread_idx() is (32 * warp, 0, 0).
      case "cute.arch.warp_idx": return warp === null ? PASS : warp;
      case "cute.arch.thread_idx": return warp === null ? PASS : new Tuple([warp * WARP_THREADS, 0, 0]);
      // flash_attn/cute/utils.py 542-546: thread_idx()[0] // 128.
      case "utils.canonical_warp_group_idx": return warp === null ? PASS : Math.floor(warp * WARP_THREADS / WARPGROUP_THREADS);
      case "Int32": case "cutlass.Int32": return args.length === 1 ? evalExpr(args[0], env, ctx, constexpr) : PASS;
      case "int":
        if (args.length === 1 && Array.isArray(args[0]) && args[0][0] === "id" && /^NamedBarrier\w*\.\w+$/.test(args[0][1])) return new SymId(args[0][1], 0);
        return PASS;
      case "len": {
        var lt = args.length === 1 ? evalExpr(args[0], env, ctx, constexpr) : null;
        return lt instanceof Tuple ? lt.items.length : PASS;
      }
      case "cutlass.min": case "cutlass.max": return evalCall(["call", name.slice(8), args], env, ctx, constexpr);
      case "tuple": case "list": return dslTuple(args, env, ctx, constexpr);
      case "math.ceil": {
        var cv = args.length === 1 ? evalExpr(args[0], env, ctx, constexpr) : null;
        return typeof cv === "number" ? Math.ceil(cv) : PASS;
      }
      // `pipeline_custom.NamedBarrier(barrier_id=..., num_threads=...)` (FA4 sm100 985, 1119): a
      // named barrier object whose methods (pipeline.py 164-205) are the named-barrier ops.
      // (`cutlass.pipeline.NamedBarrier(barrier_id=int(NamedBarrierBwd.PdS), num_threads=self.num_mma_threads)`, FA4 bwd_sm90 1267, 1672.)
      case "pipeline_custom.NamedBarrier": case "pipeline.NamedBarrier": case "cutlass.pipeline.NamedBarrier": case "NamedBarrier":
        return dslNamedBarrier(name, args, env, ctx);
      case "partial": return args.length ? dslPartial(args, env, ctx, constexpr) : PASS;
      // cutlass.pipeline make_pipeline_state(Producer | Consumer, stages): a producer starts at phase 1
      // (as CUTLASS's make_producer_start_state), a consumer at phase 0 (called at sm90 676, 1002;
      // spelled in full, `cutlass.pipeline.make_pipeline_state`, at bwd_sm90 885).
      case "pipeline.make_pipeline_state": case "cutlass.pipeline.make_pipeline_state": {
        var S = args.length > 1 ? evalExpr(args[1], env, ctx, constexpr) : new Unknown("no stage count");
        if (typeof S !== "number") return PASS;
        return new State(S, 0, /Producer$/.test(exprText(args[0])) ? 1 : 0, 0, true);
      }
      // quack copy_utils.tma_producer_copy_fn(copy, pipeline) (called at sm90 722, 726): the copy's
      // barrier is the pipeline's producer barrier of the state it is given.
      case "copy_utils.tma_producer_copy_fn": {
        var p = args.length > 1 ? evalExpr(args[1], env, ctx, false) : null;
        return p instanceof Obj && p.kind === "pipe" ? new CopyFn(p) : PASS;
      }
      // DSL_RUNTIME_CHOICES: `should_rescale = cute.arch.vote_ballot_sync(scale < 1.0) != 0` (FA4 sm100
      // 2884): whether a row's max grew in the block, a value of the data; the run takes 1 (correction
      // rescales O every block, the slower path) unless knobs.flags["vote_ballot_sync"] is 0.
      case "cute.arch.vote_ballot_sync": {
        var vb = ctx.knobs.flags && Object.prototype.hasOwnProperty.call(ctx.knobs.flags, "vote_ballot_sync") ? (ctx.knobs.flags.vote_ballot_sync ? 1 : 0) : 1;
        ctx.flags.vote_ballot_sync = vb;
        return vb;
      }
      // flash_attn/cute/block_info.py BlockInfo (constructed at sm90 542).
      case "BlockInfo": return new Obj("block_info", "BlockInfo");
      // DSL_MMA_CTAS: `cute.size(tiled_mma_qk.thr_id.shape)` (FA4 sm100 974, 977) is the CTAs of one
      // MMA: 1 (CtaGroup.ONE) without use_2cta_instrs; the 2-CTA pair is not modelled.
      case "cute.size": {
        // DSL_P_STORE_CHUNKS: `cute.size(tStP_r2t.shape[2])` (FA4 sm100 2711, 2714), the TMEM stores of
        // one P tile: tilePlikeFP32 = n_block_size / 32 * 16 columns (2231, 16-bit P) in
        // St32x32bOp(Repetition(16)) copies of 16 columns (2253-2260; the source's shape comment
        // `(((16,32),1),1,4)`): n_block_size / 32, 4 at n_block_size 128.
        if (args.length === 1 && Array.isArray(args[0]) && args[0][0] === "index" && JSON.stringify(args[0][1]) === '["member",["id","tStP_r2t"],"shape"]' &&
            JSON.stringify(args[0][2]) === '["n",2]') {
          var nb = dslSelf("n_block_size", ctx, false);
          return typeof nb === "number" && nb % 32 === 0 ? nb / 32 : PASS;
        }
        if (args.length !== 1 || !Array.isArray(args[0]) || args[0][0] !== "member" || args[0][2] !== "shape" ||
            !Array.isArray(args[0][1]) || args[0][1][0] !== "member" || args[0][1][2] !== "thr_id") return PASS;
        return dslFlag(ctx, "self.use_2cta_instrs") ? new Unknown("the 2-CTA MMA (use_2cta_instrs) is not modelled") : 1;
      }
      default: {
        // Calling a local partial of the tile scheduler's create (`TileSchedulerCls = partial(TileScheduler.create,
        // tile_sched_params)`, sm90 580; called at 679, 1006): the role's tile scheduler.
        var box = env[name];
        if (box && box.v instanceof Partial && isSchedulerCreate(box.v.fn) && ctx.rr) return K.dslNewScheduler(ctx, box.v.fn);
        return PASS;
      }
    }
  }

  /**
   * DSL_SCHEDULER_CREATE: the create of the kernel's tile scheduler class, as a local
   * (`TileScheduler.create`, sm90 580; bwd_sm90 762) or the constructor's attribute
   * (`self.tile_scheduler_cls.create`, sm100 1287; bwd_sm100 1688), called or bound by a partial.
   */
  function isSchedulerCreate(text) {
    return text === "TileScheduler.create" || text === "self.tile_scheduler_cls.create" || K.namedSchedulerCreate(text);
  }

  /** DSL method calls in expressions (evalMethod's hook). */
  function dslMethodExpr(e, env, ctx, constexpr) {
    // `self.tile_scheduler_cls.create(tile_sched_params)` (FA4 sm100 1287, the static path of 1284):
    // the role's tile scheduler, as SM90's partial of TileScheduler.create.
    if (ctx.rr && isSchedulerCreate(exprText(["member", e[1], e[2]]))) return K.dslNewScheduler(ctx, exprText(["member", e[1], e[2]]));
    // DSL_PROCESS_WORK_TILE: `self.process_work_tile(block_info, seqlen, n_block_min, n_block_max)`
    // (FA4 sm100 3616-3629; called at 1649, 1895, 2377, 2857, 3340) is has_kv_work and, for varlen Q
    // without the varlen scheduler, seqlen_q > 0: without split-KV has_kv_work is True (block_info.py
    // 78-79), and the run's Q is not varlen (has_cu_seqlens_q / has_seqused_q off), so it is 1; with
    // split-KV it is n_block_min < n_block_max.
    if (e[2] === "process_work_tile" && Array.isArray(e[1]) && e[1][0] === "id" && e[1][1] === "self" && (e[3] || []).length === 4) {
      if (!dslFlag(ctx, "self.is_split_kv")) return 1;
      var lo = evalExpr(e[3][2], env, ctx, false), hi = evalExpr(e[3][3], env, ctx, false);
      return typeof lo === "number" && typeof hi === "number" ? (lo < hi ? 1 : 0) : PASS;
    }
    var obj = evalExpr(e[1], env, ctx, constexpr), name = e[2], args = e[3] || [];
    // DSL_PARTICIPANTS (dsl_ops.js).
    var part = K.dslParticipantCall(obj, name);
    if (part !== PASS) return part;
    var tm = K.dslTmemMethod(e, obj, env, ctx);   // DSL_TMEM_COPIES (tmem.js)
    if (tm !== PASS) return tm;
    if (obj instanceof State && name === "clone") return obj.clone();
    if (obj instanceof Scheduler && (name === "initial_work_tile_info" || name === "get_current_work")) return new Work(obj.tile);
    // DSL_SCHEDULER_ADVANCE: `work_tile = tile_scheduler.advance_to_next_work()` (FA4 sm100 1734, 2083,
    // 2551, 3092, 3397) moves to the CTA's next tile and returns it (tile_scheduler.py
    // StaticPersistentTileScheduler 429-434: _tile_idx += grid_dim, then get_current_work;
    // SingleTileScheduler 325: the one tile is done): the role's tile + 1, valid while below the
    // CTA's tiles (TILES_PER_CTA, expr.js: 1 for a single-tile class, else outputTiles).
    if (obj instanceof Scheduler && name === "advance_to_next_work" && !args.length) { obj.tile += 1; return new Work(obj.tile); }
    if (obj instanceof Obj && obj.kind === "block_info") {
      // block_info.py 28-52: without causal or local masking, n_block_min = 0 and n_block_max is
      // ceil(seqlen_k / tile_n): the kvBlocks knob. 149-157: without a local window,
      // get_n_block_min_before_local_mask returns its n_block_min.
      if (name === "get_n_block_min_max") return new Tuple([0, ctx.knobs.kvBlocks]);
      // DSL_Q_BLOCKS: block_info.py 83-96, the backward's m-block range of one KV block (FA4
      // bwd_sm90 975, 1352, 1843): m_block_min = 0 and m_block_max = ceil(seqlen_q / tile_m), the
      // qBlocks knob, without causal or local masking; with either, the range depends on n_block
      // and the sequence lengths (86-95), which the run does not follow.
      if (name === "get_m_block_min_max") {
        if (dslFlag(ctx, "self.is_causal") || dslFlag(ctx, "self.is_local")) return new Unknown("the causal / local m-block range (block_info.py 86-95) is not followed");
        return new Tuple([0, ctx.knobs.qBlocks]);
      }
      if (name === "get_n_block_min_before_local_mask" && args.length >= 3 && !dslFlag(ctx, "self.is_local")) return evalExpr(args[2], env, ctx, false);
    }
    return PASS;
  }

  /**
   * The class each DSL pipeline object is created with on the compile-time path the run takes
   * (`pipeline_k = pipeline_custom.PipelineTmaAsync.create(...)` under `if const_expr(self.use_tma_KV)`,
   * sm90 483-492; the parse lists both classes of the two branches).
   */
  function dslPipelines(ctx) {
    ctx.roleBinding = {};
    dslMarkElect(ctx);
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "if" && n.constexpr) {
          var c = evalExpr(n.cond, {}, ctx, true);
          if (isUnknown(c)) { walk(n.then); walk(n["else"]); } else walk(truthy(c) ? n.then : n["else"]);
          return;
        }
        var nm = n.node === "let" && n.names && n.names.length === 1 ? n.names[0] : n.node === "set" && n.op === "=" && !n.member ? n.name : null;
        var made = nm ? dslCreation(ctx, nm, n) : null;
        var p = made && ctx.pipelineAliases[nm];
        if (p && Array.isArray(p["class"])) {
          var merged = Object.assign({}, p, { "class": made.cls });
          ctx.pipelineAliases[nm] = merged;
          ctx.pipelineList[ctx.pipelineList.indexOf(p)] = merged;
        }
        if (p) (ctx.dslCreate || (ctx.dslCreate = {}))[nm] = made;
        walk(n.then); walk(n["else"]);
      });
    })(ctx.kernel);
  }

  /**
   * The creation of the pipeline object `name` by the let or set n, as {cls, kw} (kw: the create
   * call's keyword arguments, expression trees), else null: `X.PipelineY.create(...)` written
   * there, or DSL_PIPELINE_FACTORY: n's line is one of the parse's `creates` of the object (a
   * local factory's `return cls.create(..., producer_group=producer, consumer_group=consumer)`
   * bound here, FA4 flash_fwd_mla_sm100.py 926-935 and 941-969: the parse followed the factory
   * with its parameters bound to this call's arguments), with that creation's class and groups.
   */
  function dslCreation(ctx, name, n, expr) {
    var p = ctx.pipelineAliases[name], e = expr || n.expr;
    // `x = (make_pipeline(...) if const_expr(c) else None)` (FA4 MLA 966-969): the arm c takes.
    if (p && Array.isArray(e) && e[0] === "?:") {
      var arm = evalExpr(e[1], {}, ctx, true);
      return isUnknown(arm) ? null : dslCreation(ctx, name, n, truthy(arm) ? e[2] : e[3]);
    }
    if (!p || !Array.isArray(e) || e[0] !== "call") return null;
    var m = /(?:^|\.)(\w+)\.create$/.exec(e[1]);
    if (m) {
      var kw = {};
      (e[2] || []).forEach(function (a) { if (Array.isArray(a) && a[0] === "kw") kw[a[1]] = a[2]; });
      return { cls: m[1], kw: kw };
    }
    var c = (p.creates || []).filter(function (x) { return x.line === n.line; })[0];
    if (!c) return null;
    var groups = {};
    Object.keys(c.groups || {}).forEach(function (side) {
      if (/^[A-Za-z_]\w*$/.test(c.groups[side])) groups[side + "_group"] = ["id", c.groups[side]];
    });
    return { cls: c["class"], kw: groups };
  }

  /** Marks the op nodes under `with cute.arch.elect_one():` (programs_dsl: an `if` on the call): one thread per warp runs them. */
  function dslMarkElect(ctx) {
    function walk(nodes, elect) {
      (nodes || []).forEach(function (n) {
        if (n.node === "op" && elect) n.elect = true;
        var e = elect || (n.node === "if" && Array.isArray(n.cond) && n.cond[0] === "call" && ELECT_ONE_NAMES[n.cond[1]] === true);
        walk(n.then, e); walk(n["else"], elect); walk(n.body, elect); walk(n.init, elect); walk(n.step, elect);
      });
    }
    walk(ctx.kernel, false);
    Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body, false); });
  }
  var ELECT_ONE_NAMES = { "cute.arch.elect_one": true, "elect_one": true };

  /**
   * An arrival of a role on a `thread` side of a ring with counts (dslRingCounts): every thread of
   * the role arrives (role.threads), one per warp under elect_one or with the pipeline's
   * elect_one flag; a `umma` side is a tcgen05 commit (one arrival when the role's MMAs so far
   * complete), a `tma` side's arrivals are the TMA transactions (no step here).
   */
  RoleRun.prototype.dslArrive = function (node, ring, bar, side) {
    var agent = ring.dslAgents[side];
    if (agent === "tma") return undefined;
    if (this.run.dry) return DRY;
    if (agent === "umma") return this.run.cmdCommit(this, bar, node);
    if (!bar) return this.run.cmdArrive(this, bar, node);   // a stage the ring does not have: a named stop
    var threads = this.role.threads || WARP_THREADS;
    return this.run.eng.arriveCmd(bar, node.elect || ring.dslElect[side] ? Math.max(1, Math.round(threads / WARP_THREADS)) : threads);
  };

  /**
   * The roles of a DSL kernel: the warp-index variable bound to each member of its spans, the
   * last open span (the math warps, `else` of `warp_idx < 4`, sm90 609) split per warpgroup up to
   * the kernel's warps (num_threads = 128 * (num_wg_mma + 1), sm90 214), since the math
   * warpgroups' programs branch on their warpgroup (canonical_warp_group_idx, 1488, 1533, 1543).
   * A binding is a role when its dry run reaches an op; it loads when it issues a TMA copy.
   */
  function dslRoles(ctx) {
    var v = ctx.roleVars[0], W = ctx.mmaWarpgroups();
    // The kernel's warps: those of its constructor's warp-id tuples (programs_dsl `warps`: FA4 sm100,
    // threads_per_cta 321-331, 16 warps), else SM90's num_threads = 128 * (num_wg_mma + 1) (sm90 214).
    var warps = typeof v.warps === "number" ? v.warps : 4 * (W + 1);
    var cands = [];
    v.spans.forEach(function (sp, si) {
      var lo = sp[0], hi = sp[1] === null ? warps - 1 : Math.min(sp[1], warps - 1);
      if (sp[1] === null && lo % 4 === 0) {
        for (var w = lo; w <= hi; w += 4) cands.push({ warp: w, threads: WARPGROUP_THREADS, wg: Math.floor(w / 4) });
      } else if (lo <= hi && typeof v.warps === "number") {
        // DSL_WARP_ROLES: each warp of a run the constructor's tuples name is dry-run on its own and
        // adjacent warps of one warpgroup whose runs agree merge below (softmax0's 0-3 one role): a
        // warp's own values split it off (FA4 bwd_sm100's dK / dV epilogue, `wg_idx` from thread_idx
        // and `leader_warp = warp_idx % 4 == 0`, 4757-4759, the reduce's `is_tma_warp`, 4070).
        for (var wi = lo; wi <= hi; wi++) cands.push({ warp: wi, threads: WARP_THREADS, wg: null, warpsOf: 1, span: si });
      } else if (lo <= hi) cands.push({ warp: lo, threads: WARP_THREADS * (hi - lo + 1) > WARPGROUP_THREADS ? WARPGROUP_THREADS : WARP_THREADS, wg: null });
    });
    var probeRun = new Run(ctx, [], {});
    probeRun.dry = true;
    var out = [];
    cands.forEach(function (c) {
      var binding = {};
      binding[v.name] = c.warp;
      var role = { name: "", binding: binding, receivers: {}, produces: false, threads: c.threads };
      var rr = new RoleRun(probeRun, role, out.length);
      rr.trace = [];
      for (var n = 0; n < 1000000; n++) { if (rr.next() === null) break; }
      // A warp of a constructor warp-id tuple whose dry run stops before its first op is a role
      // too, so the verdict names where it stopped (FA4 sm100's load and epilogue warps).
      if (!rr.reached && rr.stopped && c.warpsOf) rr.reached = {};
      // So is any binding whose dry run stops before its first op (FA4 bwd_sm90 with block sparsity:
      // `if process_tile` on `get_total_q_block_count_bwd(...)`, 1361-1370, and the block-sparse
      // arms' calls, DSL_UNFOLLOWED_CALLS), so the verdict names the stop instead of dropping the role.
      if (!rr.reached && rr.stopped) rr.reached = {};
      if (!rr.reached) {
        // No step reached: no lane, but the verdict lists it (a warp the run leaves out is said).
        var idName0 = Object.keys(v.warp_ids || {}).filter(function (k) { return v.warp_ids[k].warps.indexOf(c.warp) >= 0; })[0];
        ctx.idle.push((idName0 ? idName0.replace(/^self\./, "").replace(/_warp_ids?$/, "") : v.name + " " + c.warp) + ".warp" + c.warp);
        return;
      }
      // Adjacent runs of warps of one warpgroup whose dry runs reach the same op nodes in the same
      // order are one role (FA4 sm100: warp 0 differs from warps 1-3 only by the descriptor
      // prefetch under `warp_idx == 0`, 964, which holds no op): its threads are both runs'.
      var prev = out.length ? out[out.length - 1] : null;
      var pw = prev ? prev.binding[v.name] : null;
      // (Two runs that reach no op are told apart by where they stop: FA4 sm100's epilogue warp 13
      // and load warp 14 are two roles.)
      var stopAt = rr.stopped ? rr.stopped.line + ":" + rr.stopped.reason : "";
      // (Warps of one span that both stop before any op, at the same line, merge too: one stop.)
      if (prev && c.warpsOf && prev.trace && (prev.trace.length || (c.span !== undefined && prev.span === c.span)) && prev.trace.join() === rr.trace.join() && prev.stopAt === stopAt &&
          Math.floor(pw / 4) === Math.floor(c.warp / 4) && pw + prev.threads / WARP_THREADS === c.warp) {
        prev.threads += c.threads;
        return;
      }
      role.trace = rr.trace;
      role.stopAt = stopAt;
      role.span = c.span;
      var branch = (v.branches || []).filter(function (b) { return Array.isArray(b.warps) && b.warps.indexOf(c.warp) >= 0 && b.warps.length > 1; })[0] ||
        (v.branches || []).filter(function (b) { return !Array.isArray(b.warps); })[0];
      // A warp of a constructor warp-id tuple is named by it (`self.softmax1_warp_ids`: softmax1).
      var idName = Object.keys(v.warp_ids || {}).filter(function (k) { return v.warp_ids[k].warps.indexOf(c.warp) >= 0; })[0];
      role.name = idName ? idName.replace(/^self\./, "").replace(/_warp_ids?$/, "") + ".warp" + c.warp :
        (branch ? branch.role : "warp") + (c.wg !== null ? ".WG" + c.wg : ".warp" + c.warp);
      role.produces = !!rr.reached.tma_load;
      role.consumes = !!rr.reached.consumer_release;
      out.push(role);
    });
    ctx.roleBinding = {};
    ctx.rr = null;
    return out;
  }

  /** The role's binding as values: DSL roles bind numbers. */
  function dslBinding(role) {
    var out = {};
    Object.keys(role.binding).forEach(function (k) { out[k] = role.binding[k]; });
    return out;
  }

  /** Bind a DSL function's parameters: a partial's arguments, then the call's; keywords by name; defaults. */
  RoleRun.prototype.dslBind = function (fn, partial, args, env) {
    var self = this, callee = {}, pos = [], kw = {};
    if (partial) { pos = partial.args.slice(); Object.keys(partial.kwargs).forEach(function (k) { kw[k] = partial.kwargs[k]; }); }
    var starred = null;
    (args || []).forEach(function (a) {
      if (Array.isArray(a) && a[0] === "kw") kw[a[1]] = self.dslArgBox(a[2], env);
      else if (Array.isArray(a) && a[0] === "star") {
        // `self.mma(*mma_args, is_dQ_wg=True)` (FA4 bwd_sm90 805, 844): the tuple's items are positional arguments.
        var t = self.eval(a[1], env, false);
        if (t instanceof Tuple && starred === null) t.items.forEach(function (v) { pos.push({ v: v }); });
        else if (starred === null) starred = pos.length;
      } else pos.push(self.dslArgBox(a, env));
    });
    // A starred argument that is not a known tuple leaves its position and every later one unknown.
    if (starred !== null) pos.length = starred;
    fn.params.forEach(function (p, i) {
      if (starred !== null && i >= starred && !Object.prototype.hasOwnProperty.call(kw, p.name)) {
        callee[p.name] = { v: new Unknown("the argument `" + p.name + "` comes from a starred argument the run does not know") };
        return;
      }
      var box = i < pos.length ? pos[i] : Object.prototype.hasOwnProperty.call(kw, p.name) ? kw[p.name] : null;
      if (box === null) {
        callee[p.name] = { v: p["default"] ? clone(self.eval(p["default"], callee, false)) : new Unknown("the argument `" + p.name + "` is not given") };
        return;
      }
      // Python passes objects: a parameter the body advances shares the caller's variable (`ref`).
      callee[p.name] = p.ref && box.lvalue ? box.lvalue : { v: box.lvalue ? clone(box.lvalue.v) : box.v };
    });
    return callee;
  };
  RoleRun.prototype.dslArgBox = function (a, env) {
    var lv = Array.isArray(a) ? this.lvalueBox(a, env) : null;
    if (lv) return { lvalue: lv, v: lv.v };
    return { v: this.eval(a, env, false) };
  };

  /** The program a DSL call runs, with the partial it goes through: {fn, partial} or null. */
  RoleRun.prototype.dslCallee = function (node, callExpr, env) {
    var ctx = this.ctx, target = null;
    if (callExpr) {
      var box = env[callExpr[1]];
      target = box ? box.v : null;
    } else if (node.receiver === "self" && ctx.functions[node.name]) target = new FnRef(node.name);
    else if (!node.receiver && env[node.name]) target = env[node.name].v;
    var partial = null;
    if (target instanceof Partial) { partial = target; target = target.fn; }
    if (target instanceof FnRef && ctx.functions[target.name]) return { fn: ctx.functions[target.name], partial: partial };
    if (node["function"] && ctx.functions[node["function"]]) return { fn: ctx.functions[node["function"]], partial: partial };
    return null;
  };

  /** Push a DSL function's frame. */
  RoleRun.prototype.dslInvoke = function (callee, args, env, ret) {
    var cenv = this.dslBind(callee.fn, callee.partial, args, env);
    this.frames.push({ nodes: callee.fn.body, pc: 0, env: cenv, loop: null, fn: { fn: callee.fn.name, ret: ret || null } });
    return undefined;
  };

  /** execLet / execSet hook: a call of a DSL program, or a pipeline's creation. */
  RoleRun.prototype.dslAssign = function (node, env, names) {
    var e = node.expr;
    // A helper's local named like the role variable (`warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx()) % 4`,
    // FA4 sm100 2616, 2768) is Python's function-scoped local, not the role's binding.
    if (names.length === 1 && this.ctx.roleVarNames[names[0]] && env !== this.env && e) {
      var lv = this.eval(e, env, false);
      if (!isUnknown(lv)) { env[names[0]] = { v: lv }; return undefined; }
    }
    // (Also a set: `pipeline_o_epi = None` then, under `if const_expr(not self.use_correction_warps_for_epi)`,
    // `pipeline_o_epi = PipelineAsync.create(...)`, FA4 sm100 1125-1134.)
    if (names.length === 1 && this.ctx.pipelineAliases[names[0]] && dslCreation(this.ctx, names[0], node)) {
      var ring = this.run.pipes[names[0]];
      env[names[0]] = { v: ring ? new Obj("pipe", names[0], ring) : new Unknown("a pipeline of a dry run") };
      return undefined;
    }
    // DSL_SCHEDULER_CREATE: `tile_scheduler = self.tile_scheduler_cls.create(...)` (sm100 1287) or
    // `= TileSchedulerCls()` (sm90 679): the role's scheduler; a class the run does not know stops it here.
    var part = names.length === 1 && Array.isArray(e) && e[0] === "call" && env[e[1]] ? env[e[1]].v : null;
    var named = names.length === 1 && Array.isArray(e) && e[0] === "call" && K.namedSchedulerCreate(String(e[1]));   // DSL_NAMED_SCHEDULER
    if (names.length === 1 && Array.isArray(e) && ((e[0] === "mcall" && e[2] === "create") || named || (part instanceof Partial && isSchedulerCreate(part.fn)))) {
      this.ctx.rr = this;
      var sched = named ? K.dslNewScheduler(this.ctx, e[1]) : e[0] === "mcall" ? dslMethodExpr(e, env, this.ctx, false) : dslCallExpr(e, env, this.ctx, false);
      if (sched instanceof Scheduler) { env[names[0]] = { v: sched }; return undefined; }
      if (isUnknown(sched) && (e[0] !== "mcall" || isSchedulerCreate(exprText(["member", e[1], e[2]])))) return this.stop(node, sched.why);
    }
    // DSL_SELF_CALL_SETS: `state = self.helper(...)` (FA4 bwd_sm100 3878, 3898) runs the method's program (the parse's `function`).
    var own = Array.isArray(e) && e[0] === "mcall" && Array.isArray(e[1]) && e[1][1] === "self" && this.ctx.functions[node["function"]];
    if (own) { this.dslUnknownNames(names, env, node["function"]); return this.dslInvoke({ fn: own, partial: null }, e[3], env, { names: names, env: env }); }
    if (!Array.isArray(e) || e[0] !== "call") return PASS;
    var callee = this.dslCallee(node, e, env);
    if (!callee) return this.dslUnfollowed(node, e[1], e[2], env, true);
    this.dslUnknownNames(names, env, callee.fn.name);
    return this.dslInvoke(callee, e[2], env, { names: names, env: env });
  };
  /** Names a call's return binds start unknown (its return sets them). */
  RoleRun.prototype.dslUnknownNames = function (names, env, fn) { names.forEach(function (n) { if (!env[n]) env[n] = { v: new Unknown("returned by `" + fn + "`") }; }); };

  /**
   * execCall hook: a call of a DSL program (`self.load(...)`, `load_K(block=...)` through its
   * partial); `self.epilogue(...)` (FlashAttentionForwardBase.epilogue, flash_fwd.py 331, not in
   * this file's parse) is its named-barrier sync over the MMA threads (351-352) then one
   * `epilogue` block (EPILOGUE_FA4).
   */
  RoleRun.prototype.dslCall = function (node, env) {
    if (!node.receiver && node.name === "assert") return this.dslAssert(node, env);   // DSL_ASSERT_EQUALS (dsl_ops.js)
    // `sm_stats_barrier.arrive_w_index(index=...)` / `.arrive_and_wait_w_index(...)` (FA4 sm100 2457,
    // 2863): methods of a NamedBarrier object (pipeline.py 178-205) the op parse does not list.
    var rb = node.receiver ? (env[node.receiver] || this.env[node.receiver]) : null;
    if (rb && rb.v instanceof Obj && rb.v.kind === "named" && NAMED_METHODS[node.name]) {
      return K.DSL_OPS[NAMED_METHODS[node.name]](this, { node: "op", op: NAMED_METHODS[node.name], call: node.name, receiver: node.receiver,
        args: node.args, line: node.line, end_line: node.end_line }, env);
    }
    // DSL_OPAQUE_CALLS: `self.correction_rescale(thr_mma_pv, tOtO_stage, tidx, scale)` (FA4 sm100 2896;
    // 3100-3149: TMEM load of O, multiply by the scale, TMEM store, no pipeline op) is one `math` block.
    if (node.receiver === "self" && DSL_OPAQUE_CALLS[node.name] && !this.ctx.functions[node.name]) return this.run.opaque(this, DSL_OPAQUE_CALLS[node.name], node);
    if (!node.receiver && DSL_BULK_REDUCE[node.name]) return this.run.opaque(this, DSL_BULK_REDUCE[node.name], node);
    if (node.receiver === "self" && node.name === "epilogue" && !this.ctx.functions.epilogue) {
      this.frames.push({ nodes: EPILOGUE_FA4, pc: 0, env: { __call: { v: node } }, loop: null, fn: null });
      return undefined;
    }
    var callee = this.dslCallee(node, null, env);
    if (!callee) return this.dslUnfollowed(node, (node.receiver ? node.receiver + "." : "") + node.name, node.args, env);
    return this.dslInvoke(callee, node.args, env, null);
  };

  /**
   * execSet hook: Python assignment. `x = f(...)` of a DSL program binds its return; a name the
   * path has not bound is bound (Python names are function-scoped); the compound operators the
   * front end emits (`q_producer_phase ^= 1`, sm90 799) compute on numbers.
   */
  RoleRun.prototype.dslSet = function (node, env) {
    if (node.member) return PASS;
    if (node.op === "=") {
      var d = this.dslAssign(node, env, [node.name]);
      if (d !== PASS) return d;
      // DSL_ROLE_REBIND: the name's box starts as what the name reads now, so the right side sees it (`warp_idx =
      // cute.arch.make_warp_uniform(warp_idx)` after `= cute.arch.warp_idx()`, CUTLASS DSL blockwise_gemm.py 648-649).
      if (!env[node.name]) {
        var rb = this.bindingValues();
        env[node.name] = { v: Object.prototype.hasOwnProperty.call(rb, node.name) ? rb[node.name] : new Unknown("not bound yet") };
      }
      return PASS;
    }
    var box = env[node.name];
    if (!box || !COMPOUND_OPS[node.op]) return PASS;
    var x = this.eval(node.expr, env, false);
    box.v = typeof box.v === "number" && typeof x === "number" ? COMPOUND_OPS[node.op](box.v, x) : new Unknown(node.op + " of an unknown value");
    return undefined;
  };
  var COMPOUND_OPS = {
    "+=": function (a, b) { return a + b; }, "-=": function (a, b) { return a - b; }, "*=": function (a, b) { return a * b; },
    "/=": function (a, b) { return b === 0 ? new Unknown("division by zero") : Math.trunc(a / b); },
    "%=": function (a, b) { return b === 0 ? new Unknown("division by zero") : a % b; },
    "^=": function (a, b) { return a ^ b; }, "|=": function (a, b) { return a | b; }, "&=": function (a, b) { return a & b; },
    "<<=": function (a, b) { return a << b; }, ">>=": function (a, b) { return a >> b; }
  };

  /** The consumers a DSL ring's empty barrier waits for: the roles that release (FA4 sm90: the consumer group `mma_warps`, every MMA warp, 462). */
  function dslConsumerCount(roles) {
    var n = roles.filter(function (r) { return r.consumes; }).length;
    return n > 0 ? n : 1;
  }
  /** NamedBarrier methods (flash_attn/cute/pipeline.py 164-205; cutlass.pipeline.NamedBarrier): the op each is. */
  var NAMED_METHODS = { arrive_w_index: "named_barrier_arrive", arrive_and_wait_w_index: "named_barrier_sync",
    arrive_and_wait_unaligned: "named_barrier_sync", arrive_and_wait: "named_barrier_sync", arrive: "named_barrier_arrive" };
  var DSL_OPAQUE_CALLS = { correction_rescale: "math" };
  /**
   * DSL_BULK_REDUCE: `copy_utils.cpasync_reduce_bulk_add_f32(smem, gmem, bytes)` (flash_attn/cute
   * copy_utils.py 267-288: `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32`), the
   * backward's dQ accumulation into global memory (FA4 bwd_sm90 1903, on the dQ warp; the dK / dV
   * reduce of the GQA epilogue, 1772, 1791) is a `reduce` block (reduceLatency, as ops.js
   * bulk_reduce), complete at its end like a TMA store (its `cp_async_bulk_commit_group` /
   * `_wait_group` are no steps).
   */
  var DSL_BULK_REDUCE = { "copy_utils.cpasync_reduce_bulk_add_f32": "reduce" };
  var EPILOGUE_FA4 = [{ node: "op", op: "__fa4_epi_sync" }, { node: "op", op: "__fa4_epi_work" }];

  K.CopyFn = CopyFn; K.SOFTMAX_CLASSES = SOFTMAX_CLASSES; K.SymId = SymId; K.symbolicSum = symbolicSum;
  K.WARPGROUP_THREADS = WARPGROUP_THREADS; K.WARP_THREADS = WARP_THREADS;
  K.dslBinding = dslBinding; K.dslConsumerCount = dslConsumerCount; K.dslExpr = dslExpr;
  K.dslPipelines = dslPipelines; K.dslRoles = dslRoles; K.dslCreation = dslCreation;
  K.dslSelf = dslSelf; K.isNoneExpr = isNoneExpr; K.dslCtorEnv = dslCtorEnv;
  return K;
})(typeof KernelInterpretSettle !== "undefined" ? KernelInterpretSettle : require("./settle.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretDsl;
