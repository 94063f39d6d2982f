/*
 * sim/interpret/mbar.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Kernels that drive raw mbarrier rings themselves (DeepGEMM's SM90 GEMMs: docs/programs.md "Raw
 * mbarrier kernels (DeepGEMM)"): a `__global__` program with no kernel layer, its warp-index
 * variable, its template parameters, its rings (parse_mbarrier's `mbarrier_ring` pipelines) and
 * the ops on them, with each stage index and parity evaluated from the program's own variables.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretMbar = (function (K) {
  "use strict";

  var DRY = K.DRY, EnumValue = K.EnumValue, PASS = K.PASS, Scheduler = K.Scheduler,
    Unknown = K.Unknown, WARPGROUP_THREADS = K.WARPGROUP_THREADS, WARP_THREADS = K.WARP_THREADS,
    evalExpr = K.evalExpr, isUnknown = K.isUnknown;

  /**
   * DeepGEMM's template parameters the run reads, as its own launch sets them (a number, a knob's
   * name, a function of the context, or an enum member). Threads: `num_tma_threads = 128`,
   * `num_math_threads = layout.block_m <= 64 ? 128 : 256` (csrc/jit_kernels/heuristics/sm90.hpp
   * 190-191), so kNumMathThreads is 128 per math warpgroup (the consumerWGs knob, default 2) and
   * BLOCK_M is 64 per math warpgroup (one WGMMA::M per warpgroup: 128 at the default). The stage
   * count kNumStages_ is the `stages` knob (the FP8 1D1D kernel's kNumStages, a template parameter
   * there: sm90_fp8_gemm_1d1d.cuh 34). One CTA: no multicast (kNumTMAMulticast 1). BLOCK_N 128;
   * the K-block is 128 bytes of the A element (`block_k = 128 / get_element_size(...)`, sm90.hpp
   * 60): BLOCK_K_ 64 for BF16, BLOCK_K 128 for the FP8 kernels (1D1D asserts it, 52). The 128-byte
   * swizzles, the runtime shapes (SHAPE_* 0), a normal K-major GEMM without accumulation.
   */
  var MBAR_TEMPLATE = {
    kNumTMAThreads: 128,
    kNumMathThreads: function (ctx) { return ctx.mmaWarpgroups() * WARPGROUP_THREADS; },
    BLOCK_M: function (ctx) { return ctx.mmaWarpgroups() * 64; },
    kNumStages_: "stages", kNumStages: "stages",
    kNumTMAMulticast: 1, kIsTMAMulticastOnA: 0, BLOCK_N: 128, BLOCK_K_: 64, BLOCK_K: 128,
    kSwizzleAMode: 128, kSwizzleBMode: 128, kSwizzleDMode: 128,
    SHAPE_M: 0, SHAPE_N: 0, SHAPE_K: 0, kNumGroups: 1, kNumSMs: 132, kWithAccumulation: 0,
    kGemmType: "GemmType::Normal", kMajorA: "cute::UMMA::Major::K", kMajorB: "cute::UMMA::Major::K"
  };
  /** The enums MBAR_TEMPLATE's members are of (a member compares equal to itself only). */
  var MBAR_ENUMS = ["GemmType", "cute::UMMA::Major", "sched::IndexType"];
  /**
   * The SM90 WGMMA atom (`using WGMMA = typename mma::sm90::BF16MMASelector<BLOCK_N, ...>::type`,
   * sm90_bf16_gemm.cuh 60; deep_gemm/include/deep_gemm/mma/sm90.cuh): M 64, K 16 (BF16), N
   * BLOCK_N, kNumAccum M * N / 128 accumulators per thread. MBAR_MMA_K: its K by the selector the
   * kernel's alias names (programs_cpp `aliases`): FP8MMASelector 32 (sm90.cuh 28: FP8MMA's K),
   * BF16MMASelector 16 (91); a kernel that names none (our fixture) has the BF16 atom.
   */
  var MBAR_WGMMA = { "WGMMA::M": 64, "WGMMA::K": "K", "WGMMA::N": "BLOCK_N", "WGMMA::kNumAccum": "accum" };
  var MBAR_MMA_K = { FP8MMASelector: 32, BF16MMASelector: 16 };
  /** `sizeof` of the element types the kernel names. */
  var MBAR_SIZEOF = { __nv_bfloat16: 2, nv_bfloat16: 2, "cutlass::bfloat16_t": 2, __nv_fp8_e4m3: 1, float: 4 };
  /** Calls that give the thread's lane (the role's thread is lane 0 of its first warp). */
  var MBAR_LANE_CALLS = { "ptx::get_lane_idx": true, "cutlass::canonical_lane_idx": true, lane_idx: true, get_lane_idx: true };
  /** Ops a warp's trace leaves out when wgRoles groups warps (only some threads of a warpgroup issue them). */
  var MBAR_UNTRACED = { tma_store_wait: true, tma_store_arrive: true, tma_store: true, bulk_reduce: true };

  /**
   * Whether e is `threadIdx.x / unit` (or that through `__shfl_sync(mask, ·, 0)`): a warp index
   * (unit 32, also `canonical_warp_idx_sync()`), a warpgroup index (unit 128).
   */
  function warpIndexExpr(e, unit) {
    unit = unit || WARP_THREADS;
    if (!Array.isArray(e)) return false;
    if (e[0] === "call" && e[1] === "__shfl_sync" && (e[2] || []).length === 3) return warpIndexExpr(e[2][1], unit);
    if (e[0] === "call" && unit === WARP_THREADS && /(?:^|::)canonical_warp_idx(?:_sync)?$/.test(e[1])) return true;
    return e[0] === "bin" && e[1] === "/" && Array.isArray(e[2]) && e[2][0] === "member" && Array.isArray(e[2][1]) &&
      e[2][1][1] === "threadIdx" && e[2][2] === "x" && Array.isArray(e[3]) && e[3][0] === "n" && e[3][1] === unit;
  }

  /** Whether e is `threadIdx.x % 32`: the lane (sm90_fp8_gemm_1d1d.cuh 80). */
  function laneExpr(e) {
    return e[0] === "bin" && e[1] === "%" && Array.isArray(e[2]) && e[2][0] === "member" && Array.isArray(e[2][1]) &&
      e[2][1][1] === "threadIdx" && e[2][2] === "x" && Array.isArray(e[3]) && e[3][0] === "n" && e[3][1] === WARP_THREADS;
  }

  /**
   * The context of a raw-mbarrier kernel (Context's hook, with no kernel layer): the `__global__`
   * program (programs_cpp `global`) is the kernel; its first let of a warp index is the role
   * variable; the rings the run lays out are the full sides with an empty partner. Else nothing.
   */
  function mbarContext(ctx, structure) {
    var rings = (structure.pipelines || []).filter(function (p) { return p["class"] === "mbarrier_ring"; });
    var fns = (structure.programs && structure.programs.functions) || [];
    var g = fns.filter(function (p) { return p.global === true; });
    if (!rings.length || g.length !== 1 || !ctx.functions[g[0].name]) return;
    var fn = g[0], self = ctx;
    ctx.mbar = true;
    ctx.wg = true;   // wgExpr's thread rules, the named barriers, lambdas, wgRoles's dry runs
    ctx.kernel = ctx.functions[fn.name].body;
    ctx.mbarFn = fn.name;
    var sel = /(?:^|::)(\w+MMASelector)\s*</.exec(String((fn.aliases || {}).WGMMA || ""));
    ctx.mbarMmaK = sel ? MBAR_MMA_K[sel[1]] || new Unknown("the K of `" + fn.aliases.WGMMA + "`") : MBAR_MMA_K.BF16MMASelector;
    // Lambdas whose body is one `return e` (`get_pipeline`, sm90_fp8_gemm_1d1d.cuh 165-166): a call evaluates e.
    ctx.mbarValueLambdas = {};
    (fn.lambdas || []).forEach(function (l) {
      var body = (l.body || []);
      if (body.length === 1 && body[0].node === "return" && body[0].expr) {
        self.mbarValueLambdas[l.name] = self.mbarValueLambdas[l.name] === undefined ?
          { params: (l.params || []).map(function (q) { return q.name; }), expr: body[0].expr } : null;
      }
    });
    Object.keys(ctx.lambdas).forEach(function (k) {
      if (k.indexOf(fn.name + "::") === 0) self.lambdas["operator()::" + k.slice(fn.name.length + 2)] = self.lambdas[k];
    });
    var roleVar = null, wgVar = null;
    ctx.mbarLaneVars = {};
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && (n.names || []).length === 1 && n.expr) {
          if (roleVar === null && warpIndexExpr(n.expr)) roleVar = { name: n.names[0], kind: "warp_index_raw", line: n.line };
          if (wgVar === null && warpIndexExpr(n.expr, WARPGROUP_THREADS)) wgVar = n;
          if ((n.expr[0] === "call" && MBAR_LANE_CALLS[n.expr[1]]) || laneExpr(n.expr)) self.mbarLaneVars[n.names[0]] = true;
        }
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    })(ctx.kernel);
    if (roleVar) { ctx.roleVars = [roleVar]; ctx.roleVarNames = {}; ctx.roleVarNames[roleVar.name] = true; }
    // FlashMLA's SM90 decode (splitkv_mla.cuh 975: `const int warpgroup_idx = threadIdx.x / 128;`):
    // roles from a warpgroup index with no warp index are not laid out yet (docs/programs.md).
    else if (wgVar) ctx.mbarError = "the kernel's roles come from the warpgroup index `" + wgVar.names[0] + "` (line " + wgVar.line +
      "), not a warp index (`threadIdx.x / 32`): not modelled yet";
    else ctx.mbarError = "the kernel tests no warp-index variable (`threadIdx.x / 32`)";
    MBAR_ENUMS.forEach(function (en) { if (!self.enums[en]) self.enums[en] = []; });
    var byName = {};
    rings.forEach(function (p) { byName[p.alias] = p; });
    ctx.mbarRings = {};
    ctx.pipelineList = [];
    rings.forEach(function (p) {
      var r = p.ring || {};
      if (r.role !== "full" || !byName[r.partner]) return;
      ctx.pipelineList.push(p);
      ctx.mbarRings[p.alias] = { key: p.alias, side: "full" };
      ctx.mbarRings[r.partner] = { key: p.alias, side: "empty" };
    });
  }

  /** A template parameter's, the WGMMA atom's or a `sizeof`'s value (mbarExpr), else PASS. */
  function mbarName(name, env, ctx) {
    if (Object.prototype.hasOwnProperty.call(MBAR_TEMPLATE, name)) {
      var t = MBAR_TEMPLATE[name];
      if (typeof t === "function") return t(ctx);
      if (typeof t === "string") return /::/.test(t) ? new EnumValue(t) : ctx.knobs[t];
      return t;
    }
    if (Object.prototype.hasOwnProperty.call(MBAR_WGMMA, name)) {
      var w = MBAR_WGMMA[name], n = evalExpr(["id", "BLOCK_N"], env, ctx, true);
      if (w === "BLOCK_N") return n;
      if (w === "accum") return typeof n === "number" ? 64 * n / 128 : n;
      if (w === "K") return ctx.mbarMmaK;
      return w;
    }
    return PASS;
  }

  /** The role's thread (wgRoles's dry runs and the run bind it), or null. */
  function mbarThread(ctx) { return ctx.rr && typeof ctx.rr.role.thread === "number" ? ctx.rr.role.thread : null; }

  /** Expressions of a raw-mbarrier kernel (evalExpr's hook, before wgExpr's): the rules above, DeepGEMM's scheduler. */
  function mbarExpr(e, env, ctx, constexpr) {
    switch (e[0]) {
      case "id": {
        if (Object.prototype.hasOwnProperty.call(env, e[1])) return PASS;
        // The problem's K (the launch passes `gemm_desc.k`: sm90_fp8_gemm_1d1d.hpp 71), a kernel
        // parameter: kTiles k-blocks of BLOCK_K (`shape_k = SHAPE_K != 0 ? SHAPE_K : shape_k`, 66,
        // keeps it with SHAPE_K 0), as the scheduler's current_shape_k (below).
        if (e[1] === "shape_k") return problemK(env, ctx);
        var sep = e[1].lastIndexOf("::");
        if (sep > 0 && MBAR_ENUMS.indexOf(e[1].slice(0, sep)) >= 0) return new EnumValue(e[1]);   // before wgExpr's flags
        return mbarName(e[1], env, ctx);
      }
      case "call": {
        var name = e[1], args = e[2] || [];
        if (name === "sizeof" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "id" &&
            Object.prototype.hasOwnProperty.call(MBAR_SIZEOF, args[0][1])) return MBAR_SIZEOF[args[0][1]];
        if (MBAR_LANE_CALLS[name] && !args.length) { var t = mbarThread(ctx); return t === null ? PASS : t % WARP_THREADS; }
        // deep_gemm/include/deep_gemm/common/math.cuh ceil_div: (a + b - 1) / b.
        if (name === "math::ceil_div" && args.length === 2) {
          var a = evalExpr(args[0], env, ctx, constexpr), b = evalExpr(args[1], env, ctx, constexpr);
          if (typeof a !== "number" || typeof b !== "number" || b <= 0) return isUnknown(a) ? a : isUnknown(b) ? b : new Unknown("ceil_div of a non-number");
          return Math.floor((a + b - 1) / b);
        }
        // `auto scheduler = sched::Scheduler<...>(shape_m, shape_n, shape_k, grouped_layout)` (136): the role's scheduler.
        var lam = ctx.mbarValueLambdas[name];
        if (lam && lam.params.length === args.length) return valueLambda(lam, args, env, ctx, constexpr);
        if (name === "sched::Scheduler") { var s = new Scheduler(); s.next = 0; if (ctx.rr) ctx.rr.scheduler = s; return s; }
        return PASS;
      }
      case "mcall": case "member": {
        var o = evalExpr(e[1], env, ctx, constexpr);
        if (!(o instanceof Scheduler) || o.next === undefined) return PASS;
        // deep_gemm/include/deep_gemm/scheduler/gemm.cuh get_next_block: true for the CTA's next
        // block while blocks are left: the CTA's tiles (TILES_PER_CTA: outputTiles), one per call.
        if (e[0] === "mcall" && e[2] === "get_next_block") { o.tile = o.next++; return K.tileValid(ctx, o.tile); }
        // current_shape_k: K of the current block, kTiles k-blocks of BLOCK_K, so `num_total_k_blocks =
        // math::ceil_div(scheduler.current_shape_k, BLOCK_K)` (166, 243) is the kTiles knob.
        if (e[0] === "member" && e[2] === "current_shape_k") return problemK(env, ctx);
        return PASS;
      }
      default: return PASS;
    }
  }

  /** The problem's K: kTiles k-blocks of BLOCK_K. */
  function problemK(env, ctx) {
    var bk = evalExpr(["id", "BLOCK_K"], env, ctx, true);
    return typeof bk === "number" ? ctx.knobs.kTiles * bk : bk;
  }

  /**
   * A call of a lambda whose body is one `return e`: e with the parameters bound to the
   * arguments' values and the rest read where the call is (its captures: `[=]` copies of the
   * kernel's constants, the same there).
   */
  function valueLambda(lam, args, env, ctx, constexpr) {
    var inner = Object.assign({}, env);
    for (var i = 0; i < args.length; i++) inner[lam.params[i]] = { v: evalExpr(args[i], env, ctx, constexpr) };
    return evalExpr(lam.expr, inner, ctx, constexpr);
  }

  /** A constexpr let of the kernel's top level, evaluated in order up to it (a ring's stage count `kNumStages`, 57). */
  function mbarConst(ctx, name) {
    if (/^\d+$/.test(name)) return Number(name);
    var env = {};
    for (var i = 0; i < ctx.kernel.length; i++) {
      var n = ctx.kernel[i];
      if (n.node !== "let" || (n.names || []).length !== 1 || !/\bconstexpr\b/.test(n.type || "") || !n.expr) continue;
      env[n.names[0]] = { v: evalExpr(n.expr, env, ctx, true) };
      if (n.names[0] === name) return env[name].v;
    }
    return evalExpr(["id", name], env, ctx, true);
  }

  /** Context.stagesOf's hook: a ring's stage count from its text (parse_mbarrier `stages`), evaluated; null when unknown. */
  function mbarStages(ctx, alias) {
    var p = ctx.pipelineAliases[alias];
    var v = p && typeof p.stages === "string" && /^\w+$/.test(p.stages) ? mbarConst(ctx, p.stages) : null;
    return typeof v === "number" && v >= 1 ? v : null;
  }

  /**
   * Run.go's hook: each ring's arrival counts. A barrier expects its `init(count)` (parse_mbarrier
   * `ring.init_expr`, evaluated: full `init(1)`, empty `init(kNumTMAMulticast * kNumMathThreads /
   * 32)`, 116-117); a full barrier that TMA copies land on expects one more, the transaction (the
   * stage's copies land as one: the engine's held transaction). A count it cannot evaluate leaves
   * the ring's ops to stop the role (ring.mbarError).
   */
  function mbarRingCounts(ctx, ring, u) {
    var full = ctx.pipelineAliases[u.alias], empty = ctx.pipelineAliases[(full.ring || {}).partner];
    var nf = mbarInit(ctx, full), ne = mbarInit(ctx, empty);
    if (typeof nf !== "number" || typeof ne !== "number") {
      ring.mbarError = "the init count of `" + (typeof nf !== "number" ? full.alias : empty.alias) + "` is not known";
      return;
    }
    var tx = mbarCopied(ctx, full.alias) ? 1 : 0;
    for (var s = 0; s < ring.S; s++) { ring.full[s].expected = nf + tx; ring.empty[s].expected = ne; }
    ring.mbarCounts = { full: nf, tx: tx, empty: ne };
    ring.cls = "mbarrier_ring";
  }

  function mbarInit(ctx, p) {
    var r = p && p.ring;
    if (!r || !Array.isArray(r.init_expr)) return null;
    var v = evalExpr(r.init_expr, mbarTopEnv(ctx), ctx, true);
    return typeof v === "number" && v >= 1 ? v : null;
  }

  /** The kernel's top-level constexpr lets, evaluated in order (an init count may name one). */
  function mbarTopEnv(ctx) {
    var env = {};
    ctx.kernel.forEach(function (n) {
      if (n.node === "let" && (n.names || []).length === 1 && /\bconstexpr\b/.test(n.type || "") && n.expr) env[n.names[0]] = { v: evalExpr(n.expr, env, ctx, true) };
    });
    return env;
  }

  /** Whether a TMA copy op of the programs lands on this ring. */
  function mbarCopied(ctx, alias) {
    var found = false;
    function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "op" && n.op === "tma_load" && n.ring === alias) found = true;
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    }
    walk(ctx.kernel);
    Object.keys(ctx.lambdas).forEach(function (k) { walk(ctx.lambdas[k].body); });
    return found;
  }

  /** Run.go's lanes: the group count and each warp's binding for wgRoles (kNumTMAThreads + kNumMathThreads threads). */
  function mbarLayout(ctx) {
    var threads = evalExpr(["bin", "+", ["id", "kNumTMAThreads"], ["id", "kNumMathThreads"]], {}, ctx, true);
    return { groups: typeof threads === "number" ? Math.ceil(threads / WARPGROUP_THREADS) : 0, bind: warpOf };
  }
  /** The warp index of warp w of warpgroup g. */
  function warpOf(g, w) { return 4 * g + w; }

  // ---------------------------------------------------------------------------------------------
  // The ops on raw rings (MBAR_OPS: execOp's table under ctx.mbar)

  /**
   * The ring element an op names (`empty_barriers[stage_idx]`, the `&full_barrier` of a copy):
   * {ring (the run's Ring, null in a dry run), side, stage}, with the index evaluated from the
   * program's variables; else the role stops (and null is returned).
   */
  function mbarElement(rr, node, env) {
    var m = rr.ctx.mbarRings && rr.ctx.mbarRings[node.ring];
    if (!m) return rr.stop(node, "`" + (node.ring || node.receiver || node.op) + "` is no ring of a full / empty pair the run models");
    var S = rr.ctx.stagesOf(m.key);
    if (typeof S !== "number") return rr.stop(node, "the stage count of `" + m.key + "` is not known");
    var s = rr.eval(node.index, env, false);
    if (typeof s !== "number" || s !== Math.floor(s) || s < 0 || s >= S) {
      return rr.stop(node, "the stage index of `" + node.ring + "` is not known" + (isUnknown(s) ? ": " + s.why : " (" + s + " of " + S + ")"));
    }
    var ring = rr.run.dry ? null : rr.run.pipes[m.key];
    if (ring && ring.mbarError) return rr.stop(node, ring.mbarError);
    return { ring: ring, side: m.side, stage: s, key: m.key };
  }

  /**
   * How a guard of the role's frames (the `if` tests it is inside, RoleRun.exec) selects threads:
   * "warp" when it holds `elect_one_sync()` (one thread per warp) or tests a lane variable against
   * 0 (`lane_idx == 0 ? ... : void()`, 235), "thread" when it reads a lane or threadIdx.x any other
   * way, null when it is warp-uniform.
   */
  function guardKind(ctx, e) {
    var kind = null;
    (function walk(x) {
      if (!Array.isArray(x) || kind === "thread") return;
      if (x[0] === "call" && /(?:^|::)elect_one_sync$/.test(String(x[1]))) { if (kind === null) kind = "warp"; return; }
      if (x[0] === "bin" && x[1] === "==" && laneId(ctx, x[2]) && Array.isArray(x[3]) && x[3][0] === "n" && x[3][1] === 0) { if (kind === null) kind = "warp"; return; }
      if (laneId(ctx, x) || (x[0] === "member" && Array.isArray(x[1]) && x[1][1] === "threadIdx")) { kind = "thread"; return; }
      for (var i = 1; i < x.length; i++) walk(x[i]);
    })(e);
    return kind;
  }
  function laneId(ctx, x) { return Array.isArray(x) && x[0] === "id" && ctx.mbarLaneVars[x[1]] === true; }

  /**
   * The arrivals one `arrive()` of the role makes: every thread of its warps arrives, unless a
   * guard it runs under selects one thread per warp (then one per warp: the math warpgroup's
   * `lane_idx == 0 ? empty_barriers[s]->arrive() : void()`, 235, and the producer's elected thread,
   * 154); a guard selecting threads any other way stops the role (null).
   */
  function mbarArrivals(rr, node) {
    var warps = Math.max(1, Math.round((rr.role.threads || WARP_THREADS) / WARP_THREADS)), perWarp = false;
    for (var i = 0; i < rr.frames.length; i++) {
      var g = rr.frames[i].guard;
      if (g === undefined) continue;
      var k = guardKind(rr.ctx, g);
      if (k === "thread") return rr.stop(node, "the arrivals under `" + (rr.frames[i].guardText || "a thread test") + "` are not counted");
      if (k === "warp") perWarp = true;
    }
    return perWarp ? warps : warps * WARP_THREADS;
  }

  var MBAR_OPS = {
    // `empty_barriers[stage_idx]->wait(phase ^ 1)` (169), `full_barriers[stage_idx]->wait(phase)` (249):
    // a wait on that stage's barrier for the parity, both evaluated.
    barrier_wait: function (rr, node, env) {
      var el = mbarElement(rr, node, env);
      if (!el) return null;
      var p = (node.args || []).length ? rr.eval(node.args[0], env, false) : null;
      if (typeof p !== "number") return rr.stop(node, "the parity of the wait on `" + node.ring + "` is not known" + (isUnknown(p) ? ": " + p.why : ""));
      rr.mbarEpoch = (rr.mbarEpoch || 0) + 1;
      if (el.side === "full") rr.mbarStage = el.stage;
      if (rr.run.dry) return DRY;
      var bar = el.side === "full" ? el.ring.full[el.stage] : el.ring.empty[el.stage];
      return rr.run.cmdWait(rr, bar, p & 1, el.side === "full" ? "tma" : node.ring, node, rr.currentTile(), rr.countOf("wait"), el.stage);
    },
    // `arrive()` (235): the role's arrivals (mbarArrivals); `arrive_and_expect_tx(bytes)` (198): one
    // arrival of the elected thread; its bytes are the transaction the stage's copies complete (not
    // checked against the copies' sizes). An arrive on another CTA's barrier (`arrive(target_cta)`,
    // 238, multicast only) stops the role.
    barrier_arrive: function (rr, node, env) {
      if (node.method === "arrive" && (node.args || []).length) return rr.stop(node, "an arrive on another CTA's barrier (the cluster is not modelled)");
      var el = mbarElement(rr, node, env);
      if (!el) return null;
      var n = mbarArrivals(rr, node);
      if (n === null) return null;
      if (rr.run.dry) return DRY;
      return rr.run.eng.arriveCmd(el.side === "full" ? el.ring.full[el.stage] : el.ring.empty[el.stage], n);
    },
    // `tma::copy<...>(&tensor_map_a, &full_barrier, smem_a[stage_idx], ...)` (187-197): a copy of
    // tmaLatency into that stage, landing on its full barrier; the copies of one stage between two
    // waits are one transaction (one issue k, one tx arrival at the last landing).
    tma_load: function (rr, node, env) {
      var el = mbarElement(rr, node, env);
      if (!el) return null;
      if (el.side !== "full") return rr.stop(node, "a copy onto the empty side `" + node.ring + "`");
      if (rr.run.dry) return DRY;
      var k = rr.copyIndex(node.ring, el.stage, rr.mbarEpoch || 0);
      return rr.run.cmdCopy(rr, el.ring, el.stage, node, rr.currentTile(), k);
    },
    // `WGMMA::wgmma(a_desc, b_desc, accum, 1)` (266): one WGMMA job of wgmmaLatency on the stage of
    // the role's last full wait.
    mma: function (rr, node) {
      return rr.run.cmdMma(rr, node, rr.currentTile(), rr.countOf("mma"), rr.mbarStage === undefined ? null : rr.mbarStage);
    },
    // `cute::tma_store_arrive()` (381) after the D stores (`cute_tma_t::copy(&tensor_map_cd, ...)`,
    // 372, 378): the stores are one `store` block of storeLatency on the role; `tma_store_wait<0>`
    // (294) is no step (the store block is already the role's time).
    tma_store_arrive: function (rr, node) {
      if (rr.mbarStored) { rr.mbarStored = false; return undefined; }   // its stores drew their own blocks
      return rr.run.opaque(rr, "store", node);
    },
    // A store the parse reads as one (`cute::SM90_TMA_STORE_2D::copy(...)`): its `store` block, and
    // the next tma_store_arrive is no step. (DeepGEMM stores through an alias, `cute_tma_t::copy`,
    // 372, 378, that the parse does not read: there the arrive stands for them.)
    tma_store: function (rr, node, env) {
      rr.mbarStored = true;
      return K.OP_SEMANTICS.tma_store(rr, node, env);
    },
    // `cute::SM90_TMA_REDUCE_ADD_2D::copy(&tensor_map_cd, smem_d_0, ...)` (sm90_fp8_gemm_1d1d.cuh
    // 333-335): a TMA store that adds into D (the FP32 accumulation): its `reduce` block
    // (OP_SEMANTICS.bulk_reduce), and the next tma_store_arrive is no step, as after a store.
    bulk_reduce: function (rr, node, env) {
      rr.mbarStored = true;
      return K.OP_SEMANTICS.bulk_reduce(rr, node, env);
    }
  };

  K.MBAR_OPS = MBAR_OPS;

  /**
   * Why the program model cannot run a structure as a raw-mbarrier kernel (model_program.js
   * programCovers), or null: it needs the `__global__` program, a full / empty ring pair, a
   * warp-index variable and a thread count from the template parameters (MBAR_TEMPLATE).
   */
  function mbarCovers(structure) {
    var ctx = new K.Context(structure, { consumerWGs: 2, stages: 4, flags: {} }, null);
    if (!ctx.mbar) return "no `__global__` program drives a raw mbarrier ring";
    if (ctx.mbarError) return ctx.mbarError;
    if (!Object.keys(ctx.mbarRings).length) return "no raw mbarrier ring has a full / empty partner";
    // The warps are laid out from DeepGEMM's thread-count parameters: a kernel that names neither
    // (tests/fixtures/raw_mbarrier_ring_gemm.cuh's kMathThreads) is not one whose launch is known.
    var text = JSON.stringify(ctx.kernel);
    if (text.indexOf('"kNumMathThreads"') < 0 && text.indexOf('"kNumTMAThreads"') < 0) return "the kernel names neither kNumTMAThreads nor kNumMathThreads: its warp count is not known";
    if (!(mbarLayout(ctx).groups > 0)) return "the kernel's thread count (kNumTMAThreads + kNumMathThreads) is not known";
    return null;
  }

  K.MBAR_ENUMS = MBAR_ENUMS; K.mbarCovers = mbarCovers; K.MBAR_SIZEOF = MBAR_SIZEOF; K.MBAR_TEMPLATE = MBAR_TEMPLATE; K.MBAR_UNTRACED = MBAR_UNTRACED;
  K.MBAR_WGMMA = MBAR_WGMMA; K.mbarContext = mbarContext; K.mbarExpr = mbarExpr; K.mbarLayout = mbarLayout;
  K.mbarRingCounts = mbarRingCounts; K.mbarStages = mbarStages;
  return K;
})(typeof KernelInterpretWgOps !== "undefined" ? KernelInterpretWgOps : require("./wg_ops.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretMbar;
