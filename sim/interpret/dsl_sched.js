/*
 * sim/interpret/dsl_sched.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * CuTe DSL programs: the tile scheduler class a FlashAttention-4 kernel runs, and the tiles one
 * CTA runs with it (DSL_SCHEDULER_CLASSES).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretDslSched = (function (K) {
  "use strict";

  var PASS = K.PASS, Scheduler = K.Scheduler, Unknown = K.Unknown, evalExpr = K.evalExpr, isUnknown = K.isUnknown;

  /**
   * DSL_SCHEDULER_CLASSES: how many tiles one CTA runs with each of flash_attn/cute/tile_scheduler.py's
   * classes. "single": one (advance_to_next_work makes the work invalid: SingleTileScheduler 254,
   * 302-304, 325-327, `_is_first_block = False`; SingleTileLPTScheduler 698-708 and
   * SingleTileLPTBwdScheduler 853-856, `_tile_idx = total_blocks`; SingleTileVarlenScheduler
   * 1368-1375, `_is_first_block = False`). "strided": the CTA strides over the tiles
   * (StaticPersistentTileScheduler 429-434, `_tile_idx += grid_dim`, valid while < total, 418).
   * "fetched": the next tile comes from a scheduler pipeline (DynamicPersistentVarlenScheduler
   * 1553-1563; Sm100FmhaClcDynamicTileScheduler 2116-2122). strided and fetched run the
   * `outputTiles` knob's tiles, as before this rule (the fetch itself is not modelled).
   */
  var DSL_SCHEDULER_CLASSES = {
    SingleTileScheduler: "single", SingleTileLPTScheduler: "single", SingleTileLPTBwdScheduler: "single",
    SingleTileVarlenScheduler: "single", StaticPersistentTileScheduler: "strided",
    DynamicPersistentVarlenScheduler: "fetched", Sm100FmhaClcDynamicTileScheduler: "fetched"
  };
  /**
   * DSL_SCHEDULER_CLC: the single-tile classes that fetch the next tile under SchedulingMode.CLC
   * (SingleTileLPTScheduler 698-703, SingleTileVarlenScheduler 1368-1373: `if
   * const_expr(self.params.scheduling_mode == SchedulingMode.CLC): ... consumer_wait ...`).
   */
  var DSL_SCHEDULER_CLC = { SingleTileLPTScheduler: true, SingleTileVarlenScheduler: true };
  /**
   * DSL_SCHEDULING_MODES: SchedulingMode's members (tile_scheduler.py 33-37, an IntEnum of
   * `auto()`: 1, 2, 3, 4). The run's mode is the constructor's `self.scheduling_mode` where it
   * sets one (FA4 sm100 287-291, passed to to_underlying_arguments at 765-767; mla_sm100 116-118),
   * else STATIC, the default of to_underlying_arguments (tile_scheduler.py 262, 553, 799).
   */
  var DSL_SCHEDULING_MODES = { "SchedulingMode.NONE": 1, "SchedulingMode.STATIC": 2, "SchedulingMode.DYNAMIC": 3, "SchedulingMode.CLC": 4 };

  /** A scheduler class of the run: a name of DSL_SCHEDULER_CLASSES (dslExpr's `id` hook). */
  function SchedClass(name) { this.name = name; }

  /** dslExpr's `id` hook: a scheduler class or a SchedulingMode member by name, else PASS. */
  function dslSchedulerId(name) {
    if (Object.prototype.hasOwnProperty.call(DSL_SCHEDULING_MODES, name)) return DSL_SCHEDULING_MODES[name];
    return Object.prototype.hasOwnProperty.call(DSL_SCHEDULER_CLASSES, name) ? new SchedClass(name) : PASS;
  }

  /**
   * The class whose create `text` calls (DSL_SCHEDULER_CREATE, dsl.js isSchedulerCreate): a kernel
   * parameter (`TileScheduler.create`, FA4 sm90 580) is the value the launch binds it to
   * (programs_dsl.kernel_args: `__call__`'s local, sm90 317-325, passed at 395 to the
   * `cutlass.Constexpr` parameter 441); `self.tile_scheduler_cls.create` (sm100 1287) the
   * constructor's attribute (sm100 768 `= TileScheduler`, 730 `= self.TileScheduler`, the `if` tree
   * 294-308). Both are evaluated as compile-time values with the run's flags (dslFlag).
   */
  function schedulerClass(ctx, text) {
    var root = text.replace(/\.create$/, "");
    if (K.namedSchedulerCreate(text)) return new SchedClass(root.split(".").pop());
    var v = ctx.roleVars.length && ctx.roleVars[0].constructor, args = v && v.kernel_args;
    var c;
    if (/^self\.\w+$/.test(root)) c = evalExpr(["member", ["id", "self"], root.slice(5)], {}, ctx, true);
    else if (args && Object.prototype.hasOwnProperty.call(args, root)) c = evalExpr(args[root].expr, K.dslCtorEnv(ctx), ctx, true);
    else return new Unknown("the tile scheduler `" + root + "` is no kernel argument the parse reads (programs_dsl.kernel_args)");
    if (c instanceof SchedClass) return c;
    return new Unknown("the tile scheduler class `" + root + "` is not known" + (isUnknown(c) && c.why ? " (" + c.why + ")" : "") +
      ": DSL_SCHEDULER_CLASSES names " + Object.keys(DSL_SCHEDULER_CLASSES).join(", "));
  }

  /**
   * DSL_NAMED_SCHEDULER: the create of a scheduler class by its module's name, `utils.StaticPersistentTileScheduler.create(
   * tile_sched_params, cute.arch.block_idx(), cute.arch.grid_dim())` (CUTLASS's CuTe DSL examples:
   * blockwise_gemm.py 976, 1024, 1143, 1330). CUTLASS's cutlass.utils.StaticPersistentTileScheduler
   * (python/CuTeDSL/cutlass/utils/static_persistent_tile_scheduler.py: a tile is valid while its
   * linear index is below the problem's clusters, and each advance adds the persistent clusters) is
   * the strided kind FA4's class of that name is. Only names of DSL_SCHEDULER_CLASSES.
   */
  K.namedSchedulerCreate = function (text) {
    var m = /^(?:\w+\.)+(\w+)\.create$/.exec(text);
    return m !== null && !/^self\./.test(text) && Object.prototype.hasOwnProperty.call(DSL_SCHEDULER_CLASSES, m[1]);
  };

  /** The run's SchedulingMode (DSL_SCHEDULING_MODES): `self.scheduling_mode`, else STATIC. */
  function schedulingMode(ctx) {
    var v = ctx.roleVars.length && ctx.roleVars[0].constructor;
    if (!(v && v.attrs && v.attrs["self.scheduling_mode"])) return DSL_SCHEDULING_MODES["SchedulingMode.STATIC"];
    return evalExpr(["member", ["id", "self"], "scheduling_mode"], {}, ctx, true);
  }

  /**
   * A role's tile scheduler made by the create `text`: a Scheduler; the run's class and its kind
   * are kept on the run's context (ctx.dslScheduler: work objects are copied by value, K.clone, so
   * they cannot carry them), which the tiles-per-CTA hook reads (TILES_PER_CTA, expr.js: 1 for a
   * "single" class, and the run then reads no `outputTiles`; `outputTiles` for "strided" /
   * "fetched"). An Unknown naming the class when it is not known, or when a second create of the
   * run gives another kind (the role stops at the create, dsl.js dslAssign).
   */
  K.dslNewScheduler = function (ctx, text) {
    var c = schedulerClass(ctx, text);
    if (isUnknown(c)) return c;
    var kind = DSL_SCHEDULER_CLASSES[c.name];
    if (DSL_SCHEDULER_CLC[c.name]) {
      var mode = schedulingMode(ctx);
      if (typeof mode !== "number") return new Unknown("the scheduling mode of " + c.name + " (`self.scheduling_mode`) is not known");
      if (mode === DSL_SCHEDULING_MODES["SchedulingMode.CLC"]) kind = "fetched";
    }
    if (ctx.dslScheduler && ctx.dslScheduler.kind !== kind) {
      return new Unknown("two tile scheduler classes of different kinds (" + ctx.dslScheduler.cls + ", " + c.name + ")");
    }
    ctx.dslScheduler = { cls: c.name, kind: kind };
    var s = new Scheduler();
    if (ctx.rr) ctx.rr.scheduler = s;
    return s;
  };

  /** `work_tile.is_valid_tile`: the tile is below the CTA's tiles (TILES_PER_CTA, expr.js: 1 for a single-tile class, else `outputTiles`). */
  K.dslWorkValid = function (ctx, w) {
    return K.tileValid(ctx, w.tile);
  };

  K.DSL_SCHEDULER_CLASSES = DSL_SCHEDULER_CLASSES; K.DSL_SCHEDULER_CLC = DSL_SCHEDULER_CLC;
  K.DSL_SCHEDULING_MODES = DSL_SCHEDULING_MODES; K.SchedClass = SchedClass; K.dslSchedulerId = dslSchedulerId;
  return K;
})(typeof KernelInterpretMbar !== "undefined" ? KernelInterpretMbar : require("./mbar.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretDslSched;
