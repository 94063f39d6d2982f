/*
 * sim/interpret/warps.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * The warp a role's program runs as, in a kernel whose roles are enum values of the warp index
 * (ROLE_WARP), and the batch of a work tile (WORK_BATCH): what the ptr-array / grouped GEMMs read
 * to decide whether their tensor maps need an update (docs/programs.md "Array (ptr-array and
 * grouped) GEMMs").
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
   * through a pipeline is not modelled. The kernel shows it by calling `scheduler.advance_to_next_work(p,
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
   * warpspecialized.hpp 859, its `else` arm). Each role then stops at the scheduler's declaration,
   * named. The call is the group scheduler's when it returns (work, true) into a structured binding
   * (sm90_tile_scheduler_group.hpp 447); the CLC scheduler's returns the producer state
   * (`clc_pipe_producer_state = scheduler.advance_to_next_work(...)`, 828), and its pipeline's
   * class, PipelineCLCFetchAsync, stops the Sched role at its first op as before.
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
        if (n.node === "let" && (n.names || []).length === 2 && isCall(n.expr)) { found = n.line; return; }
        if (n.node === "if" && n.constexpr) {
          var c = on(n.cond);
          if (c !== false) walk(n.then);
          if (c !== true) walk(n["else"]);
          return;
        }
        walk(n.body); walk(n.then); walk(n["else"]);
      });
    })(ctx.kernel || []);
    ctx.schedulerHandsWork = found;
    return found;
  }

  function newScheduler(rr, node) {
    var s = rr.scheduler = new K.Scheduler(), at = handsWork(rr.ctx);
    if (at !== null) {
      rr.stop(node, "the tile scheduler hands its work tiles through a pipeline (`scheduler.advance_to_next_work(pipeline, state)`, line " + at +
        ": the grouped GEMM's group scheduler, sm90_tile_scheduler_group.hpp 431-447 and 558-575), which is not modelled");
    }
    return s;
  }

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

  K.CUTLASS_CONSTANTS = CUTLASS_CONSTANTS; K.enumAsInt = enumAsInt; K.newScheduler = newScheduler; K.roleWarp = roleWarp; K.workMember = workMember; K.batchCoord = batchCoord;
  return K;
})(typeof KernelInterpretTmem !== "undefined" ? KernelInterpretTmem : require("./tmem.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretWarps;
