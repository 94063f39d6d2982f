/*
 * sim/interpret.js: the role-program interpreter of kernel_logical_visualizer (docs/programs.md).
 *
 * Runs the programs a front end read from the source (JSON schema 3 `programs` and
 * `kernel_layer.program`) on schedule.js's engine: every role of the kernel layer executes the
 * kernel's own body with its role variables bound, the collective functions it calls are run
 * with their arguments bound (by value or by reference, as declared), and each op kind has one
 * meaning (OP_SEMANTICS). Pure and DOM-free like schedule.js: the page inlines it before
 * schedule.js (a global KernelInterpret), Node require()s it. The engine's primitives come in as
 * an argument (KernelSchedule.engine), so this file holds no engine of its own.
 *
 * What the interpreter cannot evaluate it does not guess: a role that reaches a runtime branch
 * whose outcome matters, a call it cannot resolve or a trip count it cannot bind stops there, and
 * the result names the node and its line (`stopped`).
 */
var KernelInterpret = (function (K) {
  "use strict";
  // The parts, in load order (render_waveform.py INTERPRET_JS_ASSETS packs them before this file).
  // interpret/constants.js, interpret/expr.js, interpret/context.js, interpret/role.js, interpret/ops.js, interpret/settle.js, interpret/dsl.js, interpret/dsl_ops.js, interpret/wg.js, interpret/wg_ops.js, interpret/mbar.js, interpret/dsl_sched.js, interpret/tmem.js, interpret/warps.js.
  return {
    run: K.run, Run: K.Run,
    Unknown: K.Unknown, State: K.State, evalExpr: K.evalExpr, fuse: K.fuse, Context: K.Context,
    enumerateRoles: K.enumerateRoles, RoleRun: K.RoleRun, OP_SEMANTICS: K.OP_SEMANTICS,
    SYMBOL_KNOBS: K.SYMBOL_KNOBS, SCHEDULER_STATIC: K.SCHEDULER_STATIC, MODELLED_PIPELINES: K.MODELLED_PIPELINES, PIPELINE_CLASSES: K.PIPELINE_CLASSES, TRIP_KNOBS: K.TRIP_KNOBS, RUNTIME_CHOICES: K.RUNTIME_CHOICES,
    EPILOGUE_CALLS: K.EPILOGUE_CALLS, TILE_KEY: K.TILE_KEY, TILE_COUNT_RULES: K.TILE_COUNT_RULES, isUnknown: K.isUnknown,
    MASK_TRIP_COUNTS: K.MASK_TRIP_COUNTS, RUNTIME_CONDITIONS: K.RUNTIME_CONDITIONS, RUNTIME_FLAGS: K.RUNTIME_FLAGS, COLLECTIVE_TYPES: K.COLLECTIVE_TYPES,
    MBAR_OPS: K.MBAR_OPS, MBAR_TEMPLATE: K.MBAR_TEMPLATE, mbarCovers: K.mbarCovers,
    OPAQUE_LATENCY: K.OPAQUE_LATENCY, REGISTER_LOOP_OPS: K.REGISTER_LOOP_OPS, FRAGMENT_MAKERS: K.FRAGMENT_MAKERS, FRAGMENT_STAGED: K.FRAGMENT_STAGED
  };
})(typeof KernelInterpretWarps !== "undefined" ? KernelInterpretWarps : require("./interpret/warps.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpret;
