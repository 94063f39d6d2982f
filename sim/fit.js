/*
 * sim/fit.js: model choice (docs/fit.md). fitModel picks the candidate model by architecture and
 * shape (isBlackwell, attentionShape), then asks the candidate's coverage rule (the model's
 * `covers`: gemmCovers, attentionCovers, blackwellCovers here, the program model's its own)
 * whether the source has anything the model does not run; the inventory those rules read
 * (fitInventory: functions, pipelines by identity and their uses, MMA functions and paths).
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it after
 * sim/common.js as a classic script, which makes KernelFit a global; Node gets the same object
 * through module.exports.
 */
var KernelFit = (function () {
  "use strict";

  /** sim/common.js: the page's global, or require()d next to this file. */
  var C = (function () {
    if (typeof KernelSimCommon !== "undefined") return KernelSimCommon;
    if (typeof require === "function" && typeof module !== "undefined") return require("./common.js");
    throw new Error("sim/fit.js: common.js is not loaded (the page runs it before this file)");
  })();
  var isObject = C.isObject, lineOrNull = C.lineOrNull, opsOf = C.opsOf, pickFunction = C.pickFunction,
    kindSet = C.kindSet, allOps = C.allOps, PRODUCER_ROLES = C.PRODUCER_ROLES, CONSUMER_ROLES = C.CONSUMER_ROLES,
    LOAD_OPS = C.LOAD_OPS, RE_CLC_CLASS = C.RE_CLC_CLASS, classText = C.classText, pipeIdentity = C.pipeIdentity,
    pipeObjects = C.pipeObjects;

  /** Op kinds that show a pipeline protocol (a file without any of them has nothing to schedule). */
  var PIPELINE_OPS = kindSet(["producer_acquire", "producer_commit", "consumer_wait", "consumer_try_wait",
    "consumer_release", "tma_load", "cp_async", "barrier_wait", "barrier_arrive", "order_wait", "order_arrive",
    "producer_acquire_bytes", "producer_arrive", "consumer_release_from_umma", "umma_arrive", "named_barrier_sync",
    "named_barrier_arrive"]);

  /**
   * True for an SM100 (Blackwell) structure: its arch, else a WarpCategory role named MMA or UMMA /
   * TMEM ops. An arch named below sm100 (sm90) is never Blackwell, whatever its ops; other warp
   * roles do not decide it (a CuTe DSL Hopper kernel has warp-index role branches too).
   */
  function isBlackwell(st) {
    var arch = typeof st.arch === "string" ? st.arch.toLowerCase() : "";
    if (/^sm_?1[01]\d/.test(arch)) return true;
    if (/^sm_?\d{2}$/.test(arch) || /^sm_?12\d/.test(arch)) return false;
    // CUTLASS SM100's `enum class WarpCategory` has a single MMA warp; SM90 kernels have none.
    if (isObject(st.kernel_layer) && Array.isArray(st.kernel_layer.warp_roles) &&
        st.kernel_layer.warp_roles.some(function (r) { return isObject(r) && /^mma$/i.test(String(r.name)); })) return true;
    return allOps(st).some(function (op) {
      return op.op === "umma_arrive" || op.op === "consumer_release_from_umma" || op.op === "tmem_load" ||
        (op.op === "mma" && (op.unit === "umma" || /tcgen05|\bumma/i.test(String(op.text || ""))));
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The attention shape (docs/models/attention.md): K and V pipelines, or 88's shared K/V ring

  /** Pipelines of a structure that are real declarations (not template parameters), as an array. */
  function declaredPipelines(st) {
    return (Array.isArray(st.pipelines) ? st.pipelines : []).filter(function (p) {
      return isObject(p) && typeof p.alias === "string" && !p.template_parameter;
    });
  }

  /**
   * Alias of the first declared pipeline whose alias ends with suffix, or null: a type alias ends
   * with it as written (MainloopPipelineK, case-sensitive); an object name ends with "_" and the
   * suffix in lower case (pipeline_k, pipeline_vt: the CuTe DSL's pipelines are objects).
   */
  function pipelineEndingWith(pipes, suffix) {
    var lower = "_" + suffix.toLowerCase();
    for (var i = 0; i < pipes.length; i++) {
      var alias = pipes[i].alias;
      if (alias.length > suffix.length && alias.slice(-suffix.length) === suffix) return alias;
      if (alias.length > lower.length && alias.slice(-lower.length) === lower) return alias;
    }
    return null;
  }

  /** Which GEMM an mma op is: "gemm0" (receiver has qk or qv: the scores), "gemm1" (pv), else by pipeline. */
  function mmaClass(op, kPipe, vPipe) {
    var receiver = typeof op.receiver === "string" ? op.receiver.toLowerCase() : "";
    if (receiver.indexOf("qk") >= 0 || receiver.indexOf("qv") >= 0) return "gemm0";
    if (receiver.indexOf("pv") >= 0) return "gemm1";
    if (kPipe !== null && op.pipeline === kPipe) return "gemm0";
    if (vPipe !== null && op.pipeline === vPipe) return "gemm1";
    return null;
  }

  /**
   * Attention shape of a structure: {attention, kv: "separate" | "shared", vt, kPipe, vPipe, vtPipe,
   * qPipe, kvPipe}. Separate: pipeline aliases ending in K and V (FA3's MainloopPipelineK / V).
   * Shared: no such pair, but buffers of operands K and V and mma ops of both GEMMs (qk and pv):
   * CUTLASS 88_hopper_fmha, whose one MainloopPipeline carries K and V alternately.
   */
  function attentionShape(structure) {
    var st = isObject(structure) ? structure : {};
    var pipes = declaredPipelines(st);
    var kPipe = pipelineEndingWith(pipes, "K");
    var vPipe = pipelineEndingWith(pipes, "V");
    var vtPipe = pipelineEndingWith(pipes, "Vt");
    var qPipe = pipelineEndingWith(pipes, "Q");
    var separate = kPipe !== null && vPipe !== null;
    var shape = { attention: separate, kv: "separate", vt: separate && vtPipe !== null,
      kPipe: kPipe, vPipe: vPipe, vtPipe: vtPipe, qPipe: qPipe, kvPipe: null };
    if (separate) return shape;
    var operands = {};
    (Array.isArray(st.buffers) ? st.buffers : []).filter(isObject).forEach(function (b) { operands[b.operand] = true; });
    var ops = allOps(st);
    var classes = {};
    ops.forEach(function (op) { if (op.op === "mma") classes[mmaClass(op, null, null)] = true; });
    if (operands.K && operands.V && classes.gemm0 && classes.gemm1) {
      shape.attention = true;
      shape.kv = "shared";
      // The shared pipeline: the one the K loads go through.
      ops.forEach(function (op) {
        if (shape.kvPipe === null && LOAD_OPS[op.op] && op.operand === "K" && typeof op.pipeline === "string") shape.kvPipe = op.pipeline;
      });
    }
    return shape;
  }

  // ---------------------------------------------------------------------------------------------
  // Fit: a model runs only when it executes every pipeline, role and MMA path the source has
  // (docs/fit.md). fitModel picks the candidate model by architecture and shape, then asks the
  // candidate's coverage rule (MODELS[name].covers) whether anything in the source is left out.

  /** Op kinds that act on a pipeline's barriers: a use of the pipeline they name. */
  var PIPE_USE_OPS = kindSet(["producer_acquire", "producer_try_acquire", "producer_commit", "producer_commit_local",
    "producer_get_barrier", "producer_tail", "producer_acquire_bytes", "producer_arrive", "umma_arrive", "tma_load",
    "cp_async", "consumer_wait", "consumer_try_wait", "consumer_release", "consumer_release_from_umma"]);

  /** Pipeline uses on the producer side of a pipeline (filling or committing a stage). */
  var PRODUCER_USE_OPS = kindSet(["producer_acquire", "producer_try_acquire", "producer_commit", "producer_commit_local",
    "producer_get_barrier", "producer_acquire_bytes", "producer_arrive", "umma_arrive"]);

  /** Pipeline uses on the consumer side (waiting for a stage, releasing it). */
  var CONSUMER_WAIT_OPS = kindSet(["consumer_wait", "consumer_try_wait"]);

  /** Kernel-layer pipelines the Blackwell model runs besides the mainloop and accumulator: by name. */
  var RE_BW_KERNEL_PIPE = /clc|throttle|load_order|store/i;

  /** Warp roles of a C++ SM100 kernel layer's WarpCategory that the Blackwell model runs. */
  var BW_ROLE_NAMES = kindSet(["MMA", "Sched", "MainloopLoad", "EpilogueLoad", "Epilogue", "Unused", "Spare"]);

  /** The tiled MMA an mma op issues on, without call suffixes: tiled_mma.with(...) -> tiled_mma, gemm_Si[0] -> gemm_Si. */
  function mmaPath(op) {
    var r = typeof op.receiver === "string" ? op.receiver.trim() : "";
    var m = /^[A-Za-z_][\w:]*/.exec(r);
    return m ? m[0] : "mma";
  }

  /** "name() at line N" of a function, for reasons. */
  function fnAt(fn) {
    return (fn.name || "?") + "()" + (typeof fn.line === "number" ? " at line " + fn.line : "");
  }

  /** " (line N)" of an op or declaration, or "". */
  function atLine(x) {
    return x && typeof x.line === "number" ? " (line " + x.line + ")" : "";
  }

  /**
   * What a structure has, for the coverage rules: functions with ops (the collective's, then the
   * kernel layer's), the pipelines their ops use (by pipeIdentity, in first-use order, each with
   * its class, declaration line and uses {fn, op}), the functions that issue MMAs and the
   * distinct tiled MMAs (paths) they issue on.
   */
  function fitInventory(st) {
    var objects = pipeObjects(st), decl = {}, dsl = st.language === "cute-dsl";
    (Array.isArray(st.pipelines) ? st.pipelines : []).filter(isObject).forEach(function (p) {
      if (typeof p.alias === "string" && !decl[p.alias]) decl[p.alias] = p;
    });
    var kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var fns = (Array.isArray(st.functions) ? st.functions : []).filter(isObject)
      .concat(kl && Array.isArray(kl.functions) ? kl.functions.filter(isObject) : [])
      .filter(function (fn) { return opsOf(fn).length > 0; });
    var pipes = {}, order = [], mmaFns = [], paths = [];
    fns.forEach(function (fn) {
      var issues = false;
      opsOf(fn).forEach(function (op) {
        if (op.op === "mma") {
          issues = true;
          if (paths.indexOf(mmaPath(op)) < 0) paths.push(mmaPath(op));
        }
        if (PIPE_USE_OPS[op.op] !== true) return;
        var id = pipeIdentity(op, objects, dsl);
        if (id === null) return;
        if (!pipes[id]) {
          var d = decl[id] || null;
          pipes[id] = { id: id, cls: d ? classText(d["class"]) : "", line: d ? lineOrNull(d.line) : null, uses: [] };
          order.push(id);
        }
        pipes[id].uses.push({ fn: fn, op: op });
      });
      if (issues) mmaFns.push(fn);
    });
    return { objects: objects, pipes: pipes, order: order, fns: fns, mmaFns: mmaFns, paths: paths, kl: kl };
  }

  /** Uses of pipeline id in fn whose op kind is in kinds (all kinds when kinds is null). */
  function usesIn(inv, id, fn, kinds) {
    return inv.pipes[id].uses.filter(function (u) { return (fn === null || u.fn === fn) && (kinds === null || kinds[u.op.op] === true); });
  }

  /** "X (PipelineTmaUmmaAsync, line 201)" of a pipeline, for reasons. */
  function pipeText(p) {
    var bits = [p.cls, p.line !== null ? "line " + p.line : ""].filter(function (b) { return b; });
    return p.id + (bits.length ? " (" + bits.join(", ") + ")" : "");
  }

  /** A first use of pipeline p as "f() line N", for reasons. */
  function firstUse(p) {
    var u = p.uses[0];
    return u.fn.name + "()" + atLine(u.op);
  }

  /** True for a load of the C operand (the epilogue's source tile), not a mainloop operand. */
  function isCLoad(op) {
    return op.operand === "C" || /tma_load_c\b|load_c\b/i.test(typeof op.receiver === "string" ? op.receiver : "");
  }

  /**
   * Coverage of the Blackwell model (one load warp filling one mainloop ring, one MMA warp issuing
   * one tiled MMA into a TMEM accumulator ring, epilogue warps draining it; the kernel layer's CLC,
   * throttle, load-order and C-load pipelines): null when the source has nothing else, else the
   * reason. Rules in docs/fit.md "Blackwell".
   */
  function blackwellCovers(st, inv) {
    if (inv.paths.length > 1) {
      return "it issues MMAs on " + inv.paths.length + " tiled MMAs (" + inv.paths.join(", ") + "): chained GEMMs " +
        "(attention's S = Q K^T then O += P V, a backward pass, latent attention) are not modelled on SM100 yet; " +
        "the Blackwell model runs one GEMM";
    }
    if (inv.mmaFns.length > 1) {
      return "MMAs are issued from " + inv.mmaFns.length + " functions (" + inv.mmaFns.map(fnAt).join(", ") +
        "): the Blackwell model has one MMA warp";
    }
    var mmaFn = inv.mmaFns[0];
    var ownLoad = opsOf(mmaFn).filter(function (op) { return LOAD_OPS[op.op] === true; })[0];
    if (ownLoad) {
      return "the same function " + fnAt(mmaFn) + " loads" + atLine(ownLoad) + " and issues the MMAs: one warp does both " +
        "(not warp-specialized, or role branches inside one kernel the parser does not split yet); the Blackwell " +
        "model needs a load warp and an MMA warp";
    }
    var main = inv.order.filter(function (id) {
      return usesIn(inv, id, null, LOAD_OPS).some(function (u) { return !isCLoad(u.op); });
    });
    if (main.length === 0) return "no load into a pipeline stage was parsed (no TMA or cp.async copy on a pipeline): the mainloop ring is not in this file";
    if (main.length > 1) {
      return "its loads fill " + main.length + " pipelines (" + main.map(function (id) { return pipeText(inv.pipes[id]); }).join("; ") +
        "): the Blackwell model runs one mainloop ring (a scale-factor, transform or second operand ring is not modelled yet)";
    }
    var M = main[0];
    var cpLoads = usesIn(inv, M, null, LOAD_OPS).filter(function (u) { return u.op.op === "cp_async"; });
    if (cpLoads.length > 0) {
      return "its mainloop ring " + pipeText(inv.pipes[M]) + " is filled by cp.async copies" + atLine(cpLoads[0].op) +
        ": the Blackwell model draws TMA copies landing on the stage's transaction barrier; a cp.async producer's arrivals are not modelled on SM100 yet";
    }
    if (usesIn(inv, M, mmaFn, CONSUMER_WAIT_OPS).length === 0) {
      return "the MMA function " + fnAt(mmaFn) + " never waits on the mainloop pipeline " + pipeText(inv.pipes[M]);
    }
    var acc = inv.order.filter(function (id) { return id !== M && usesIn(inv, id, mmaFn, PRODUCER_USE_OPS).length > 0; });
    if (acc.length > 1) {
      return "the MMA function " + fnAt(mmaFn) + " fills " + acc.length + " pipelines (" + acc.join(", ") +
        "): the Blackwell model runs one accumulator ring";
    }
    for (var i = 0; i < inv.order.length; i++) {
      var id = inv.order[i], p = inv.pipes[id];
      if (id === M || id === acc[0]) continue;
      var kernelSide = RE_CLC_CLASS.test(p.cls) || RE_BW_KERNEL_PIPE.test(id) ||
        p.uses.every(function (u) { return LOAD_OPS[u.op.op] !== true || isCLoad(u.op); }) && /epi|load_pipeline|c_pipe/i.test(id);
      if (!kernelSide || usesIn(inv, id, mmaFn, null).length > 0) {
        return "pipeline " + pipeText(p) + ", used by " + firstUse(p) + ", is not one the Blackwell model runs " +
          "(it runs the mainloop ring " + M + (acc.length ? ", the accumulator " + acc[0] : "") +
          " and the kernel layer's CLC, throttle, load-order and C-load pipelines)";
      }
    }
    // C++ WarpCategory roles have fixed names; a CuTe DSL kernel's roles are its branches, covered by the function rules above.
    var roles = inv.kl && Array.isArray(inv.kl.warp_roles) ? inv.kl.warp_roles.filter(isObject) : [];
    var cpp = st.language === "cpp";
    for (var r = 0; cpp && r < roles.length; r++) {
      if (BW_ROLE_NAMES[roles[r].name] !== true) {
        return "warp role " + roles[r].name + atLine(roles[r]) + " of the kernel layer is not one the Blackwell model runs " +
          "(MMA, Sched, MainloopLoad, EpilogueLoad, Epilogue)";
      }
    }
    return null;
  }

  /**
   * The warp-specialized roles of an SM90 structure: the producer function that loads (TMA or
   * cp.async), the consumer function that issues MMAs; null with the reason when either is missing
   * or one function does both.
   */
  function sm90Roles(st, inv) {
    var functions = Array.isArray(st.functions) ? st.functions.filter(isObject) : [];
    var producer = pickFunction(functions, PRODUCER_ROLES, LOAD_OPS);
    var consumer = pickFunction(functions, CONSUMER_ROLES, { mma: true });
    if (!opsOf(producer).some(function (op) { return LOAD_OPS[op.op] === true; })) {
      return { reason: "no producer function loads into a pipeline stage (no TMA or cp.async copy found)" };
    }
    if (!opsOf(consumer).some(function (op) { return op.op === "mma"; })) {
      return { reason: "no consumer-role function issues an MMA (MMAs were parsed in " + inv.mmaFns.map(fnAt).join(", ") +
        ", which no consumer role calls as parsed)" };
    }
    if (producer === consumer) {
      return { reason: "the same function " + (producer.name || "?") + "() loads and computes (not warp-specialized): " +
        "the models need a producer role and consumer roles" };
    }
    return { producer: producer, consumer: consumer, reason: null };
  }

  /** Pipelines used by collective functions (not the kernel layer's), in first-use order. */
  function collectivePipes(st, inv) {
    var own = Array.isArray(st.functions) ? st.functions : [];
    return inv.order.filter(function (id) { return inv.pipes[id].uses.some(function (u) { return own.indexOf(u.fn) >= 0; }); });
  }

  /**
   * Coverage of the SM90 GEMM model (a producer filling one mainloop ring, consumer warpgroups
   * issuing one tiled MMA in CUTLASS's SS order: wait, MMAs, warpgroup_wait<K_PIPE_MMAS>,
   * release): null or the reason. Rules in docs/fit.md "GEMM".
   */
  function gemmCovers(st, inv) {
    var roles = sm90Roles(st, inv);
    if (roles.reason !== null) return roles.reason;
    if (inv.paths.length > 1) {
      return "it issues MMAs on " + inv.paths.length + " tiled MMAs (" + inv.paths.join(", ") + "): the GEMM model runs one";
    }
    var pipes = collectivePipes(st, inv);
    if (pipes.length > 1) {
      return "the collective uses " + pipes.length + " pipelines (" + pipes.map(function (id) { return pipeText(inv.pipes[id]); }).join("; ") +
        "): neither the one-pipeline GEMM mainloop nor the attention shape";
    }
    var cOps = opsOf(roles.consumer);
    if (!cOps.some(function (op) { return op.op === "consumer_wait"; })) return "the MMA consumer never waits on a pipeline stage";
    var lastMma = -Infinity;
    cOps.forEach(function (op) { if (op.op === "mma" && typeof op.line === "number" && op.line > lastMma) lastMma = op.line; });
    var releases = cOps.filter(function (op) { return op.op === "consumer_release" && typeof op.line === "number"; });
    if (releases.length > 0 && !releases.some(function (op) { return op.line > lastMma; })) {
      return roles.consumer.name + "() releases its stages" + atLine(releases[0]) + " before its last MMA (line " + lastMma + "), " +
        "inside the k-block loop (the register-sourced RS mainloop's order): the GEMM model runs the SS order " +
        "(wait, the k-tile's MMAs, warpgroup_wait<K_PIPE_MMAS>, release)";
    }
    return null;
  }

  /**
   * Coverage of the attention model (FA3 / 88's forward: K and V rings, or one shared K/V ring,
   * optionally Vt and Q): null, or the reason when the roles are missing or the producer or
   * consumer function uses another pipeline. Pipelines only other functions use (FA3's AppendKV
   * path, load_kv_new / store_kv_new) are separate compile-time paths: attentionNotModelled names them.
   */
  function attentionCovers(st, inv) {
    var roles = sm90Roles(st, inv);
    if (roles.reason !== null) return roles.reason;
    var known = attentionPipes(st);
    for (var i = 0; i < inv.order.length; i++) {
      var p = inv.pipes[inv.order[i]];
      if (known.indexOf(p.id) < 0 && p.uses.some(function (u) { return u.fn === roles.producer || u.fn === roles.consumer; })) {
        return "pipeline " + pipeText(p) + ", used by " + firstUse(p) + ", is not one the attention model runs (" + known.join(", ") + ")";
      }
    }
    return null;
  }

  /** The pipelines the attention model runs for a structure: K, V, Vt, Q and the shared K/V ring it has. */
  function attentionPipes(st) {
    var shape = attentionShape(st);
    return [shape.kPipe, shape.vPipe, shape.vtPipe, shape.qPipe, shape.kvPipe].filter(function (x) { return x !== null; });
  }

  /** The no-model fit: {model: null, reason, assumptions: [], notModelled: [], divergences: []}. */
  function noFit(reason) {
    return { model: null, reason: reason, assumptions: [], notModelled: [], divergences: [] };
  }

  /**
   * A model's notModelled entries as a fit gives them: {notModelled: [text], divergences: [{text,
   * lines}]}. An entry is a text (something the model leaves out: the epilogue as one latency) or
   * {text, diverges, lines}; with `diverges: true` it says the model's protocol is not the code's
   * (the GEMM model's one wait per k-tile against an MMA function with several warpgroup_waits,
   * model_gemm.js gemmNotModelled), and defaultFit reads that flag, never the text. Every entry's
   * text stays in notModelled, so the page lists it as before.
   */
  function notModelledOf(entries) {
    var out = { notModelled: [], divergences: [] };
    (Array.isArray(entries) ? entries : []).forEach(function (e) {
      if (!isObject(e)) { out.notModelled.push(String(e)); return; }
      out.notModelled.push(String(e.text));
      if (e.diverges === true) out.divergences.push({ text: String(e.text), lines: Array.isArray(e.lines) ? e.lines.slice() : [] });
    });
    return out;
  }

  /** Why a structure has no MMA at all: an epilogue collective, or MMAs the parser did not see. */
  function noMmaReason(st, ops) {
    var loads = ops.some(function (op) { return LOAD_OPS[op.op] === true; });
    if (!loads && ops.some(function (op) { return op.op === "tma_store" || op.op === "tma_store_arrive"; })) {
      return "an epilogue collective (TMA stores, no MMA): its schedule is part of a kernel's mainloop/epilogue interplay; no model draws it alone";
    }
    return "no MMA was parsed in this file (no cute::gemm / tcgen05 / wgmma call the parser recognises; MMAs issued from " +
      "helper functions in other files are not followed): every model needs the MMA consumer's ops";
  }

  /** The stage ops a hand-written model runs on a ring: each must name the ring it is on. */
  var STAGE_OPS = kindSet(["producer_acquire", "producer_try_acquire", "producer_commit", "consumer_wait", "consumer_try_wait",
    "consumer_release", "consumer_release_from_umma"]);

  /**
   * UNRESOLVED_STAGE_OP (docs/fit.md step 9): the reason no hand-written model fits when a stage
   * op's receiver is no pipeline the parse resolved (no `pipeline` alias, no `object`: a pipeline
   * handed through a container the parse does not follow, parse_dsl's "receiver ... not resolved"
   * warning), else null. A model would have to guess which ring such a wait or release is on.
   */
  function unresolvedStageOp(st) {
    var objects = pipeObjects(st), dsl = st.language === "cute-dsl", kl = isObject(st.kernel_layer) ? st.kernel_layer : null;
    var fns = (Array.isArray(st.functions) ? st.functions : []).concat(kl && Array.isArray(kl.functions) ? kl.functions : []).filter(isObject);
    for (var i = 0; i < fns.length; i++) {
      var ops = opsOf(fns[i]);
      for (var j = 0; j < ops.length; j++) {
        if (STAGE_OPS[ops[j].op] !== true || pipeIdentity(ops[j], objects, dsl) !== null) continue;
        var recv = typeof ops[j].receiver === "string" && ops[j].receiver !== "" ? " on `" + ops[j].receiver + "`" : "";
        return fns[i].name + "()'s " + ops[j].op + atLine(ops[j]) + recv + " is on no pipeline the parse resolved (see its " +
          "warnings): a hand-written model would have to guess which ring it waits on or releases";
      }
    }
    return null;
  }

  /**
   * Which hand-written model fits a structure: {model: name | null, reason, assumptions: [text],
   * notModelled: [text], divergences: [{text, lines}]} (notModelledOf). Candidate by architecture
   * and shape (SM120 none, SM100 blackwell, the attention shape attention, else gemm), then the
   * candidate's coverage rule; anything it leaves out gives the no-model fit with the reason
   * (docs/fit.md). models: schedule.js's MODELS. The page's default is defaultFit's.
   */
  function fitModel(structure, models) {
    if (!isObject(structure)) {
      return { model: "gemm", reason: "no parsed structure: the CUTLASS 4.2 SM90 GEMM program is assumed",
        assumptions: ["no parsed structure: the CUTLASS 4.2 SM90 GEMM mainloop and kernel layers are assumed"], notModelled: [],
        divergences: [] };
    }
    var st = structure;
    var ops = allOps(st);
    // A whole kernel in one file (its own functions hold the ops: parse_cutlass whole_kernel) is fitted as a mainloop is.
    if (st.kind === "kernel_layer" && !(isObject(st.kernel_layer) && st.kernel_layer.whole_kernel === true)) {
      return noFit("only a kernel layer was parsed (no collective's pipeline ops): parse it together with its collective mainloop");
    }
    if (st.kind === "epilogue") return noFit(noMmaReason(st, [{ op: "tma_store" }]));
    if (/^sm_?12\d/.test(typeof st.arch === "string" ? st.arch.toLowerCase() : "")) {
      return noFit("an " + st.arch + " structure (GeForce Blackwell: TMA loads with warp-level MMAs, no TMEM or UMMA): no model " +
        "describes it yet; the SM90 and SM100 models would draw tensor-core work it does not do");
    }
    if (!ops.some(function (op) { return PIPELINE_OPS[op.op] === true; })) {
      return noFit("no pipeline operation (acquire, commit, wait, release, TMA or cp.async load) was found in this file");
    }
    if (!ops.some(function (op) { return op.op === "mma"; })) return noFit(noMmaReason(st, ops));
    var inv = fitInventory(st);
    var name = isBlackwell(st) ? "blackwell" : attentionShape(st).attention ? "attention" : "gemm";
    var model = models[name];
    var reason = model.covers(st, inv);
    if (reason !== null) return noFit(reason);
    var unresolved = unresolvedStageOp(st);
    if (unresolved !== null) return noFit(unresolved);
    var left = notModelledOf(model.notModelled(st, inv));
    return { model: name, reason: model.fitReason, assumptions: model.assumptions(st), notModelled: left.notModelled,
      divergences: left.divergences };
  }

  /** A fit's divergences as one text: each entry's, joined by "; ". */
  function divergenceText(fit) {
    return fit.divergences.map(function (d) { return d.text; }).join("; ");
  }

  /**
   * The model a page starts in, with its fit (docs/fit.md "Default model"): the hand-written fit
   * (fitModel), except where (a) that model fits but its notModelled says its protocol diverges
   * from the code's (fit.divergences, entries flagged `diverges: true`) and (b) a model that runs
   * the code's own programs (`alongside`: the program model) covers the structure and its run at
   * the default knobs is complete (incomplete(name) === null: no error, no stopped role, no
   * deadlock). Then that model, with a reason naming the divergences, its own assumptions and
   * omissions, and `handFit`: the hand-written fit, which the page still offers. Else the hand
   * fit, unchanged. incomplete(name): schedule.js's run of a model at its default knobs.
   */
  function defaultFit(structure, models, incomplete) {
    var fit = fitModel(structure, models);
    if (fit.model === null || fit.divergences.length === 0) return fit;
    var names = Object.keys(models).filter(function (name) {
      return models[name].alongside === true && models[name].covers(structure) === null;
    });
    for (var i = 0; i < names.length; i++) {
      if (incomplete(names[i]) !== null) continue;
      var m = models[names[i]], left = notModelledOf(m.notModelled(structure));
      return { model: names[i],
        reason: m.fitReason + ", by default: the " + fit.model + " model fits but does not follow the code here (" +
          divergenceText(fit) + "), and the programs run complete at the source's settings (no role stopped, no deadlock); " +
          "the " + fit.model + " model stays in the model choice",
        assumptions: m.assumptions(structure), notModelled: left.notModelled, divergences: left.divergences, handFit: fit };
    }
    return fit;
  }

  return {
    fitModel: fitModel,
    defaultFit: defaultFit,
    notModelledOf: notModelledOf,
    divergenceText: divergenceText,
    isBlackwell: isBlackwell,
    attentionShape: attentionShape,
    mmaClass: mmaClass,
    declaredPipelines: declaredPipelines,
    fitInventory: fitInventory,
    pipeText: pipeText,
    gemmCovers: gemmCovers,
    attentionCovers: attentionCovers,
    attentionPipes: attentionPipes,
    blackwellCovers: blackwellCovers
  };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelFit;
