/*
 * sim/interpret/context.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * The run context (the structure's programs, knobs and objects), dead lets (docs/programs.md
 * "Performance") and the roles: every combination of the role variables a branch tests.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretContext = (function (K) {
  "use strict";

  var EPILOGUE_CALLS = K.EPILOGUE_CALLS, EnumValue = K.EnumValue,
    MODELLED_PIPELINES = K.MODELLED_PIPELINES, PIPELINE_CLASSES = K.PIPELINE_CLASSES,
    SYMBOL_KNOBS = K.SYMBOL_KNOBS, controlNames = K.controlNames, evalExpr = K.evalExpr,
    fuse = K.fuse, hasOp = K.hasOp, isUnknown = K.isUnknown, truthy = K.truthy;

  // Defined in a later part: called through K at run time.
  function compileTimeNames(ctx) { return K.compileTimeNames(ctx); }
  function declKind(type) { return K.declKind(type); }
  function dslPipelines(ctx) { return K.dslPipelines(ctx); }
  function dslRoles(ctx) { return K.dslRoles(ctx); }
  function dslSelf(attr, ctx, constexpr) { return K.dslSelf(attr, ctx, constexpr); }
  function nodeFiles(ctx, fns, kl) { return K.nodeFiles(ctx, fns, kl); }
  function wgRoles(ctx) { return K.wgRoles(ctx); }

  // ---------------------------------------------------------------------------------------------
  // The run context: the structure's programs, knobs, objects

  function Context(structure, knobs, prims) {
    var kl = structure.kernel_layer || {};
    this.structure = structure;
    this.knobs = knobs;
    this.prims = prims;
    this.constants = K.runConstants(structure, knobs);
    var self = this;
    this.enums = {};
    this.roleVars = kl.role_vars || [];
    this.roleVarNames = {};
    this.roleVars.forEach(function (v) { self.enums[v.enum] = v.members; self.roleVarNames[v.name] = true; });
    // The kernel layer's other role enums (parse `kernel_layer.enums`): `WarpGroupRole::Producer` is a member.
    (kl.enums || []).forEach(function (en) { if (!self.enums[en.name]) self.enums[en.name] = en.members; });
    // A CuTe DSL kernel's role variable is a warp index (programs_dsl.role_vars): its roles bind numbers.
    this.dsl = this.roleVars.some(function (v) { return v.kind === "warp_index"; });
    // A C++ kernel whose role variable is the warpgroup index (FA3: `int warp_group_idx =
    // cutlass::canonical_warp_group_idx();`): its roles bind numbers and threads (wgRoles).
    this.wg = !this.dsl && this.roleVars.some(function (v) { return v.kind === "warp_group_index"; });
    // WG_ENUM_ROLES: a warpgroup-index kernel that names its roles through a role enum chosen on the
    // index (CUTLASS's cp.async kernel layers, sm90_gemm_warpspecialized_cooperative.hpp 276-290) runs
    // the CUTLASS GEMM rules of the enum kernels: MMA groups by first MMA tile (Run.mmaGroups), and
    // its epilogue is the epilogue collective's, not FA3's.
    this.wgEnumRoles = this.wg && (kl.enums || []).length > 0;
    this.rr = null;
    this.roleBinding = {};
    this.flags = {};          // compile-time flags read: {name: value}
    var fns = (structure.programs && structure.programs.functions) || [];
    // The prepared programs depend on the structure alone: made once per structure (preparedPrograms).
    var prepared = preparedPrograms(structure, fns, kl);
    this.functions = prepared.functions;
    this.lambdas = prepared.lambdas;
    this.kernel = prepared.kernel;
    this.nodeFiles = prepared.nodeFiles || (prepared.nodeFiles = nodeFiles(this, fns, kl));
    this.pipelineAliases = {};
    this.pipelineList = [];
    (structure.pipelines || []).forEach(function (p) { self.pipelineAliases[p.alias] = p; self.pipelineList.push(p); });
    kernelLayerPipelines(this, kl);
    // `using PipelineStateOuter = typename cutlass::PipelineState<MainloopPipelineOuter::Stages>;`
    // (88 FMHA kernel 121-125, parse `kernel_layer.state_aliases`): a state of that pipeline.
    this.stateTypes = {};
    (kl.state_aliases || []).forEach(function (a) { self.stateTypes[a.alias] = a.pipeline + "::PipelineState"; });
    // A `__global__` program with raw mbarrier rings and no kernel layer (DeepGEMM): mbar.js.
    if (!this.kernel && !this.dsl) K.mbarContext(this, structure);
    this.orderAliases = {};
    (kl.order_barriers || []).concat(structure.order_barriers || []).forEach(function (b) {
      if (!self.orderAliases[b.alias]) self.orderAliases[b.alias] = b;
    });
    this.rings = pipelineRings(this);
    this.controls = prepared.controls ||
      (prepared.controls = K.markInertReceivers([this.kernel || []], controlNames([this.kernel || []].concat(Object.keys(this.functions).map(function (k) { return self.functions[k].body; })))));
    this.unknownNames = Object.create(null);   // lookup's Unknown per name, made once
    this.idle = [];                             // role bindings that reach no step (enumerateRoles)
    this.shapes = {};
    (structure.shapes || []).forEach(function (sh) { self.shapes[sh.name] = sh.dims; });
    this.collectives = {};   // composed collectives by alias (parse_cutlass model["collectives"])
    (structure.collectives || []).forEach(function (c) {
      self.collectives[c.alias] = c;
      // A composed collective's enums (`enum class LoadKind {...}`, 88 FMHA fmha_collective_load.hpp 39-42): `LoadKind::kK` is a member.
      (c.enums || []).forEach(function (en) { if (!self.enums[en.name]) self.enums[en.name] = en.members; });
    });
    resolvePipelineChoices(this);
    if (this.dsl) dslPipelines(this);
    this.deadLets = prepared.deadLets || (prepared.deadLets = deadLets(this));
  }

  /**
   * The kernel layer's own pipeline aliases (`using AccumulatorPipeline = cutlass::PipelineUmmaAsync<...>`,
   * SM100 kernel layer 169) give the class of a collective's template-parameter pipeline; a
   * kernel-layer alias of a collective's alias is that alias (samePipeline); a modelled class the
   * collective does not name is a ring of its own.
   */
  function kernelLayerPipelines(ctx, kl) {
    ctx.kernelPipelines = {};
    ctx.samePipeline = {};   // a kernel-layer alias of a collective's pipeline alias: that alias
    (kl.pipelines || []).forEach(function (k) {
      ctx.kernelPipelines[k.alias] = k;
      var p = ctx.pipelineAliases[k.alias];
      // `using MainloopPipelineOuter = typename CollectiveMainloop::MainloopPipelineQ;` (88 FMHA
      // kernel 64-65): the collective's own pipeline (its alias at collective 119), one ring under
      // the collective's name, whichever of the two names a declaration or a state type uses.
      var named = /^(?:typename\s+)?CollectiveMainloop::(\w+)$/.exec(String(k["class"]));
      if (!p && named && ctx.pipelineAliases[named[1]] && !ctx.pipelineAliases[named[1]].template_parameter) {
        ctx.samePipeline[k.alias] = named[1];
        ctx.pipelineAliases[k.alias] = ctx.pipelineAliases[named[1]];
        return;
      }
      if (!p && MODELLED_PIPELINES[String(k["class"])] === true) {
        // The kernel layer's own pipeline of a modelled class (`using AccumulatorPipeline =
        // cutlass::PipelineUmmaAsync<...>;` in a kernel whose collective does not name it,
        // sm100_gemm_cpasync_warpspecialized.hpp 151): a ring of the run, its ops the kernel's.
        var own = { alias: k.alias, "class": k["class"], line: k.line, used: true, kernel_layer: true };
        ctx.pipelineAliases[k.alias] = own;
        ctx.pipelineList.push(own);
        return;
      }
      if (!p || !p.template_parameter) return;
      var merged = Object.assign({}, p, { "class": k["class"], line: k.line, kernel_layer: true });
      // The kernel layer's literal stage count (`using MainloopPipelineReducer = cutlass::PipelineAsync<2>;`, 88 FMHA kernel 66).
      if (!p.stages && k.stages) merged.stages = k.stages;
      ctx.pipelineAliases[k.alias] = merged;
      ctx.pipelineList[ctx.pipelineList.indexOf(p)] = merged;
    });
  }

  /**
   * A structure's programs as every run executes them (docs/programs.md "Performance"): each
   * function's, named lambda's and the kernel's body after fuse, with what is read off them alone
   * (nodeFiles, controls, deadLets: filled by the first Context). Kept per structure object, so a
   * page's re-runs, a sweep's settings and the load-hiding probes share one preparation; a run
   * never changes them (the hidden per-node caches, unknownAt and execLet's inert lets, already
   * live on the structure's own nodes).
   */
  var preparedCache = typeof WeakMap === "function" ? new WeakMap() : null;
  function preparedPrograms(structure, fns, kl) {
    var got = preparedCache !== null ? preparedCache.get(structure) : undefined;
    if (got !== undefined) return got;
    var functions = {}, lambdas = {};
    fns.forEach(function (p) { functions[p.name] = { name: p.name, params: p.params || [], body: fuse(p.body || []), line: p.line, tparams: p.tparams }; });
    // Named lambdas (programs_cpp.lambda_program): a call step names one by `lambda` (name@line).
    fns.concat(kl.program ? [kl.program] : []).forEach(function (p) {
      (p.lambdas || []).forEach(function (l) {
        lambdas[p.name + "::" + l.key] = { name: l.key, params: l.params || [], body: fuse(l.body || []), line: l.line };
      });
    });
    got = { functions: functions, lambdas: lambdas, kernel: kl.program ? fuse(kl.program.body || []) : null,
      nodeFiles: null, controls: null, deadLets: null };
    if (preparedCache !== null) preparedCache.set(structure, got);
    return got;
  }

  /**
   * The class of a pipeline alias the code chooses at compile time (docs/programs.md "Compile-time
   * pipeline classes"): `std::conditional_t<C, A, B>` (the parse's `choice`: FA3 mainloop 284-286)
   * is A or B by C as a compile-time condition; an alias of an alias (`alias_of`, 288) is its
   * class; a choice whose condition is unknown (`CUTE_STATIC_V(size(ClusterShape{})) == 1`, 283)
   * between two classes the run models by one rule is that rule's first class. Null: unresolved.
   */
  function resolvePipelineClass(ctx, alias, depth) {
    var p = ctx.pipelineAliases[alias];
    if (!p || depth > 8) return null;
    if (p.alias_of && p.alias_of !== alias) return resolvePipelineClass(ctx, p.alias_of, depth + 1);
    if (!p.choice) return typeof p["class"] === "string" ? p["class"] : null;
    function pick(name) { return name !== alias && ctx.pipelineAliases[name] ? resolvePipelineClass(ctx, name, depth + 1) : name; }
    var c = evalExpr(p.choice.cond, {}, ctx, true);
    if (!isUnknown(c)) return pick(truthy(c) ? p.choice.then : p.choice["else"]);
    var a = pick(p.choice.then), b = pick(p.choice["else"]);
    if (a && b && PIPELINE_CLASSES[a] && PIPELINE_CLASSES[b] && JSON.stringify(PIPELINE_CLASSES[a]) === JSON.stringify(PIPELINE_CLASSES[b])) return a;
    return null;
  }

  /** Give each chosen pipeline alias its resolved class (the parse's class list stays as `classes`). */
  function resolvePipelineChoices(ctx) {
    Object.keys(ctx.pipelineAliases).forEach(function (alias) {
      var p = ctx.pipelineAliases[alias];
      if (!p.choice && !p.alias_of) return;
      var cls = resolvePipelineClass(ctx, alias, 0);
      if (cls === null) return;
      var merged = Object.assign({}, p, { "class": cls, classes: p["class"] });
      ctx.pipelineAliases[alias] = merged;
      ctx.pipelineList[ctx.pipelineList.indexOf(p)] = merged;
    });
  }

  /**
   * The rings of a run: one per pipeline object the kernel program declares (`PipelineS
   * pipeline_mma_s0(...)` and `pipeline_mma_s1(...)`, 77 FMHA kernel 320 and 333, are two rings of
   * one class), keyed by the alias when the alias has one object (its lanes keep the alias's name),
   * else by the object's name. Returns {list: [{key, alias}], byDecl: {object name: key}}.
   */
  function pipelineRings(ctx) {
    var decls = [], seen = {};
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && n.names && n.names.length === 1 && n.type && !declKind(n.type).state) {
          var base = declKind(n.type).base;
          if (ctx.samePipeline[base]) base = ctx.samePipeline[base];
          if (ctx.pipelineAliases[base] && !seen[n.names[0]]) { seen[n.names[0]] = true; decls.push({ name: n.names[0], alias: base }); }
        }
        walk(n.then); walk(n["else"]); walk(n.body);
      });
    })(ctx.kernel);
    var perAlias = {};
    decls.forEach(function (d) { perAlias[d.alias] = (perAlias[d.alias] || 0) + 1; });
    var byDecl = {};
    decls.forEach(function (d) { byDecl[d.name] = perAlias[d.alias] > 1 ? d.name : d.alias; });
    return { byDecl: byDecl, several: perAlias };
  }

  /**
   * Whether a pipeline (by alias, `MainloopPipeline`) is one the run models: a pipeline of the
   * parsed collective. The kernel layer's other pipelines (the epilogue's, the tile scheduler's)
   * belong to files not parsed here; their states are not followed and their ops are no steps.
   */
  Context.prototype.followsPipeline = function (alias) {
    var a = K.decltypeAlias(this, String(alias).replace(/^(?:typename\s+)?(?:\w+::)*/, ""));
    return Object.prototype.hasOwnProperty.call(this.pipelineAliases, a);
  };
  /** The same for a state's declared type: `PipelineState` and the mainloop's are followed. */
  Context.prototype.followsStateType = function (type) {
    var t = String(type).replace(/^typename\s+/, "").trim();
    return t === "PipelineState" || t === "CollectiveMainloop::PipelineState" || /^MainloopPipeline(?:::|_)PipelineState$/.test(t) ||
      this.followsPipeline(t.replace(/::PipelineState$/, "")) || this.followsPipeline(t.replace(/(Pipeline)State$/, "$1"));
  };
  /** The pipeline alias a state's declared type names (`AccumulatorPipelineState`), or "". */
  Context.prototype.pipelineOfStateType = function (type) {
    // `typename CollectiveMainloop::PipelineQ::PipelineState` (77 FMHA kernel 409) names PipelineQ.
    var t = K.decltypeAlias(this, String(type).replace(/^typename\s+/, "").trim().replace(/::PipelineState$/, "").replace(/^(?:\w+::)*/, ""));
    var a = t.replace(/(Pipeline)State$/, "$1");
    return Object.prototype.hasOwnProperty.call(this.pipelineAliases, a) ? a : "";
  };
  /** The stage count of a pipeline (by alias): the knob its class names (PIPELINE_CLASSES), else `stages`. */
  Context.prototype.stagesOf = function (alias) {
    var a = K.decltypeAlias(this, String(alias).replace(/^(?:typename\s+)?(?:\w+::)*/, ""));
    if (this.mbar) return K.mbarStages(this, a);   // a raw ring's count, evaluated from the kernel's lets
    var p = this.pipelineAliases[a], rule = p && PIPELINE_CLASSES[String(p["class"])];
    // A stage count the alias writes as a literal or a named integer constant is the code's own
    // (`using PipelineC = cutlass::PipelineAsync<1>;`, 77 FMHA mainloop 162; `StageCountQ = 2`, 76).
    var own = p && typeof p.stages === "string" ? this.constantValue(p.stages) : null;
    // `PipelineTmaAsync<StagesQ::value>` with `using StagesQ = StageCount<StageCountQ>;` (88 FMHA
    // collective 78, 119; the parse's `stage_count`): StageCountQ's value.
    if (own === null && p && typeof p.stage_count === "string") own = this.constantValue(p.stage_count);
    if (own !== null) return own;
    // A DSL stage count `self.q_stage` (FA4 sm100 1034) is that attribute's value (dslSelf).
    if (this.dsl && p && typeof p.stages === "string" && /^self\.\w+$/.test(p.stages)) {
      var dv = dslSelf(p.stages.slice(5), this, false);
      if (typeof dv === "number") return dv;
    }
    var n = rule ? this.knobs[rule.stages] : undefined;
    // The stages knob is read here only, so a run whose rings all have the code's own counts
    // (77 MLA: StageCountKV = 2) does not offer it (model_program.js programReads).
    return typeof n === "number" ? n : this.knobs.stages;
  };
  /**
   * The stage count and whether the run follows a state of a declared type, made once per type
   * text: a kernel's loops declare the same states on every tile, and both answers depend only on
   * the context's aliases and knobs (not in CuTe DSL runs, whose stage counts read dslSelf).
   */
  Context.prototype.stateStages = function (type) {
    if (this.dsl) return this.stagesOf(this.pipelineOfStateType(type));
    var c = this.stateCache || (this.stateCache = new Map()), got = c.get(type);
    if (got === undefined) { got = { S: this.stagesOf(this.pipelineOfStateType(type)), followed: null }; c.set(type, got); }
    return got.S;
  };
  Context.prototype.stateFollowed = function (type) {
    if (this.dsl) return this.followsStateType(type);
    this.stateStages(type);
    var got = this.stateCache.get(type);
    if (got.followed === null) got.followed = this.followsStateType(type);
    return got.followed;
  };
  /** The value of a literal integer or a named integer constant of the parse, else null. */
  Context.prototype.constantValue = function (text) {
    var t = String(text).trim();
    if (/^[1-9][0-9]*$/.test(t)) return Number(t);
    if (Object.prototype.hasOwnProperty.call(SYMBOL_KNOBS, t)) return null;
    return Object.prototype.hasOwnProperty.call(this.constants, t) ? this.constants[t] : null;
  };

  /**
   * A compile-time flag the source does not define here: its knob (default off). COMPLEMENT_FLAGS:
   * a flag read as text with one `==` or `!=` is the negation of the same text with the other
   * (88's backward tests `decltype(get<0>(TileShape{}) != _128{})::value` at 718 and the `==`
   * twin at 737, one register loop each: exactly one runs), so where its twin is given or was
   * read first, it takes the twin's opposite; a value given for the flag itself wins.
   */
  Context.prototype.flag = function (name) {
    var given = this.knobs.flags && Object.prototype.hasOwnProperty.call(this.knobs.flags, name) ? this.knobs.flags[name] : undefined;
    var twin = given === undefined ? complementFlag(name) : null;
    if (twin !== null && this.knobs.flags && Object.prototype.hasOwnProperty.call(this.knobs.flags, twin)) given = !this.knobs.flags[twin];
    else if (twin !== null && Object.prototype.hasOwnProperty.call(this.flags, twin)) given = !this.flags[twin];
    this.flags[name] = given ? 1 : 0;
    return given ? 1 : 0;
  };
  /** The text of a flag with its one `==` / `!=` swapped (COMPLEMENT_FLAGS), else null. */
  function complementFlag(name) {
    var ops = String(name).match(/[=!]=/g);
    if (!ops || ops.length !== 1) return null;
    return String(name).replace(/[=!]=/, ops[0] === "==" ? "!=" : "==");
  }

  // ---------------------------------------------------------------------------------------------
  // Dead lets (docs/programs.md "Performance"): a let no step can read and whose evaluation has no
  // effect is not run. Found once per context.

  /** Calls and methods whose evaluation has an effect: a flag read (the verdict lists it) or a scheduler move. */
  var EFFECT_CALLS = { "cute::conditional_return": true, "BlockMN_t::get_n_block_min_max": true,
    "BlockMN_t::get_n_block_min_before_local_mask": true };
  var EFFECT_METHODS = { fetch_next_work: true, get_next_work: true, fixup: true };

  /**
   * Whether evaluating e (RoleRun.eval, not compile-time) cannot change anything but its value:
   * no flag read (Context.flag, wgFlag: under ctx.wg a name that may be a flag or a constant read
   * through one), no scheduler move. A form evalExpr does not know is an Unknown (pure).
   */
  function pureExpr(e, ctx) {
    if (!Array.isArray(e)) return true;
    switch (e[0]) {
      case "id":
        return !ctx.wg || !(Object.prototype.hasOwnProperty.call(K.FA3_FLAG_DEFAULTS, e[1]) || compileTimeNames(ctx)[e[1]] ||
          e[1] === "NumProducerThreads");
      case "call":
        return !EFFECT_CALLS[e[1]] && (e[2] || []).every(function (a) { return pureExpr(a, ctx); });
      case "mcall":
        return !EFFECT_METHODS[e[2]] && pureExpr(e[1], ctx) && (e[3] || []).every(function (a) { return pureExpr(a, ctx); });
      case "struct":
        return e[2].every(function (a) { return pureExpr(a, ctx); });
      default:
        for (var i = 1; i < e.length; i++) if (Array.isArray(e[i]) && !pureExpr(e[i], ctx)) return false;
        return true;
    }
  }

  /**
   * Whether a let may be skipped when its name is dead: one name, no role variable, a declaration
   * of no object the run follows (valueOfDecl's last lines, which depend on the type only), an
   * initializer that is no call step (RoleRun.stepCall: an `obj.f(...)` on a name) and is pure.
   */
  function skippableLet(n, ctx) {
    if (!n.names || n.names.length !== 1 || ctx.roleVarNames[n.names[0]]) return false;
    var kind = declKind(n.type || ""), base = kind.base;
    if (kind.state || kind.scheduler || ctx.pipelineAliases[base] || ctx.orderAliases[base] || ctx.kernelPipelines[base] ||
        ctx.collectives[base] || COLLECTIVE_TYPES[base]) return false;
    var e = n.expr;
    if (Array.isArray(e) && e[0] === "mcall" && Array.isArray(e[1]) && e[1][0] === "id") return false;
    // A reference to a mode (`auto& wg_block = get<wg_dim>(wg_coord);`, COORD_REFERENCES): its assignments write the coordinate.
    if (/&\s*$/.test(n.type || "") && Array.isArray(e) && e[0] === "call" && (e[1] === "get" || e[1] === "cute::get")) return false;
    return e === null || e === undefined || n.construct ? true : pureExpr(e, ctx);
  }

  /**
   * The dead lets of a context (a Set of let nodes). Every string of a node a step can read is a
   * possible read of a variable, as is each of its identifiers and `.` / `->` parts (ids,
   * receivers, states, objects, arguments, the strings lambdaNames copies): a conservative
   * superset of what any step reads. Strings count from the start (roots) except in three kinds
   * of node: a skippable let (its strings count once its name is live: a fixpoint), an assignment
   * to a name that only skippable lets bind (execSet does nothing without the name's box; it
   * counts once the name is live) and a free call of no function of the parse, no lambda
   * (execCall: no step, its arguments are never evaluated). `work_tile_info` (currentTile) is
   * always live. A skippable let whose name stays dead binds a value nothing reads: skipping it
   * cannot change a result. None in CuTe DSL runs (their hooks read the environment otherwise).
   */
  function deadLets(ctx) {
    var dead = new Set();
    if (ctx.dsl) return dead;
    var bodies = [ctx.kernel], params = [];
    Object.keys(ctx.functions).forEach(function (k) { bodies.push(ctx.functions[k].body); params = params.concat(ctx.functions[k].params); });
    Object.keys(ctx.lambdas).forEach(function (k) { bodies.push(ctx.lambdas[k].body); params = params.concat(ctx.lambdas[k].params); });
    // Names something other than a skippable let binds (parameters, other lets): their assignments count.
    var otherBound = Object.create(null);
    params.forEach(function (p) { if (p && typeof p.name === "string") otherBound[p.name] = true; });
    (function walk(x) {
      if (Array.isArray(x)) { x.forEach(walk); return; }
      if (x === null || typeof x !== "object") return;
      if (x.node === "let" && !skippableLet(x, ctx)) (x.names || []).forEach(function (n) { otherBound[n] = true; });
      Object.keys(x).forEach(function (k) { walk(x[k]); });
    })(bodies);
    var live = Object.create(null), pending = [];
    live.work_tile_info = true;
    function strings(x, into) {
      if (typeof x === "string") {
        into[x] = true;
        (x.match(/[A-Za-z_]\w*/g) || []).forEach(function (t) { into[t] = true; });
        x.split(/\.|->/).forEach(function (t) { into[t] = true; });
      } else if (Array.isArray(x)) {
        for (var i = 0; i < x.length; i++) strings(x[i], into);
      } else if (x !== null && typeof x === "object") {
        var name = x.node === "let" && skippableLet(x, ctx) ? x.names[0] :
          x.node === "set" && typeof x.name === "string" && !otherBound[x.name] && x.name !== "work_tile_info" ? x.name : null;
        if (x.node === "call" && !x.receiver && !x.lambda && !ctx.functions[x.name]) return;
        if (name !== null) {
          var reads = Object.create(null);
          Object.keys(x).forEach(function (k) { if (!(x.node === "let" && k === "names")) strings(x[k], reads); });
          pending.push({ node: x, name: name, reads: Object.keys(reads) });
          return;
        }
        Object.keys(x).forEach(function (k) { strings(x[k], into); });
      }
    }
    strings(bodies, live);
    strings(params, live);
    for (var changed = true; changed;) {
      changed = false;
      pending.forEach(function (l) {
        if (l.done || !live[l.name]) return;
        l.done = changed = true;
        l.reads.forEach(function (t) { live[t] = true; });
      });
    }
    pending.forEach(function (l) { if (l.node.node === "let" && !live[l.name]) dead.add(l.node); });
    return dead;
  }

  // ---------------------------------------------------------------------------------------------
  // Roles: every combination of the role variables a branch tests (docs/programs.md "Roles")

  function enumerateRoles(ctx) {
    if (ctx.dsl) return dslRoles(ctx);
    if (ctx.wg) return wgRoles(ctx);
    var vars = ctx.roleVars;
    var out = [];
    function walk(binding, depth) {
      ctx.roleBinding = {};
      Object.keys(binding).forEach(function (k) { ctx.roleBinding[k] = new EnumValue(binding[k]); });
      var probe = { tested: {}, active: false, receivers: {}, produces: false, env: {}, types: {}, owners: {}, barriers: {} };
      probeNodes(ctx.kernel, ctx, probe, 0);
      var next = null;
      for (var i = depth; i < vars.length; i++) if (probe.tested[vars[i].name] && !binding[vars[i].name]) { next = vars[i]; break; }
      if (next === null) {
        if (probe.active) out.push({ binding: Object.assign({}, binding), receivers: probe.receivers, produces: probe.produces, barriers: probe.barriers });
        else ctx.idle.push(Object.keys(binding).map(function (k) { return binding[k].split("::").pop(); }).join(".") || "kernel");
        return;
      }
      next.members.forEach(function (m) {
        var b = Object.assign({}, binding);
        b[next.name] = next.enum + "::" + m;
        walk(b, depth);
      });
    }
    walk({}, 0);
    ctx.roleBinding = {};
    var absent = absentWarpGroups(ctx);
    out = out.filter(function (r) {
      return !Object.keys(r.binding).some(function (k) { return absent[r.binding[k]]; }) ||
        (ctx.idle.push(Object.keys(r.binding).map(function (k) { return r.binding[k].split("::").pop(); }).join(".")), false);
    });
    ctx.barrierRoles = {};
    return out.map(function (r) {
      var names = Object.keys(r.binding).map(function (k) { return r.binding[k].split("::").pop(); });
      var name = names.join(".") || "kernel";
      Object.keys(r.barriers).sort().forEach(function (b) { (ctx.barrierRoles[b] || (ctx.barrierRoles[b] = [])).push(name); });
      return { name: name, binding: r.binding, receivers: r.receivers, produces: r.produces };
    });
  }

  /**
   * A run's context and roles (docs/programs.md "Performance", role discovery kept): the roles
   * enumerateRoles finds depend on the structure and on the knobs the context's construction and
   * the discovery read, nothing else (dry runs, no engine). So they are kept per structure object
   * with the knobs read (each knob's JSON; `Object.keys(knobs)` reads them all) and reused by a
   * later run whose knobs agree on every one of those: the load-hiding search's probes, a sweep's
   * settings, a page's re-runs. A reuse restores what the discovery left on the context that the
   * run reads or reports (DISCOVERY_FIELDS); every other context field it sets is a cache the run
   * rebuilds on demand. Returns {ctx, roles} (roles: fresh shallow copies).
   */
  var ROLE_MEMO_ENTRIES = 16;
  /**
   * The context fields the discovery leaves that the run reads or reports (kept as JSON, restored
   * on a reuse): the flags read, in their order; the bindings that reach no step; the NamedBarrier
   * ids each role reaches (NAMED_BARRIER_OWN); the first warp dry run that stopped before an op
   * (wgRoles, named when no warp is a role). A discovery that sets another such field must add it here.
   */
  var DISCOVERY_FIELDS = ["flags", "idle", "barrierRoles", "discoveryStop"];
  var roleMemo = typeof WeakMap === "function" && typeof Proxy === "function" ? new WeakMap() : null;
  function discoverRoles(structure, knobs, prims) {
    var entries = roleMemo !== null ? roleMemo.get(structure) : undefined;
    var hit = entries ? entries.filter(function (e) { return knobsAgree(e.reads, knobs); })[0] : undefined;
    if (hit !== undefined) {
      var ctx = new Context(structure, knobs, prims);
      DISCOVERY_FIELDS.forEach(function (f) { if (hit.fields[f] !== undefined) ctx[f] = JSON.parse(hit.fields[f]); });
      return { ctx: ctx, roles: hit.roles.map(function (r) { return Object.assign({}, r); }) };
    }
    var reads = Object.create(null), rec = roleMemo !== null ? recordingKnobs(knobs, reads) : null;
    var c = new Context(structure, rec ? rec.knobs : knobs, prims);
    var roles = c.kernel ? enumerateRoles(c) : [];
    if (rec) {
      rec.stop();
      c.knobs = knobs;
      if (!entries) roleMemo.set(structure, entries = []);
      var fields = {};
      DISCOVERY_FIELDS.forEach(function (f) { if (c[f] !== undefined) fields[f] = JSON.stringify(c[f]); });
      entries.unshift({ reads: Object.keys(reads).map(function (k) { return [k, reads[k]]; }),
        roles: roles.map(function (r) { return Object.assign({}, r); }), fields: fields });
      if (entries.length > ROLE_MEMO_ENTRIES) entries.pop();
    }
    return { ctx: c, roles: roles };
  }

  /** A knob value as the memo compares it. */
  function knobKey(v) { return v === undefined ? "undefined" : JSON.stringify(v); }
  var ALL_KNOBS = "\u0000all";   // reads[ALL_KNOBS]: the knobs were enumerated

  /** Whether knobs give every recorded read its recorded value. */
  function knobsAgree(reads, knobs) {
    for (var i = 0; i < reads.length; i++) {
      var k = reads[i][0], v = reads[i][1];
      if (k === ALL_KNOBS ? v !== knobKey(Object.keys(knobs).sort()) : knobKey(knobs[k]) !== v) return false;
    }
    return true;
  }

  /** knobs behind a Proxy that records each knob read into reads (until stop()): its name and value. */
  function recordingKnobs(knobs, reads) {
    var on = true;
    function note(k) { if (on && typeof k === "string" && !(k in reads)) reads[k] = knobKey(knobs[k]); }
    var proxy = new Proxy(knobs, {
      get: function (t, k) { note(k); return t[k]; },
      has: function (t, k) { note(k); return k in t; },
      getOwnPropertyDescriptor: function (t, k) { note(k); return Object.getOwnPropertyDescriptor(t, k); },
      ownKeys: function (t) { if (on && !(ALL_KNOBS in reads)) reads[ALL_KNOBS] = knobKey(Object.keys(t).sort()); return Reflect.ownKeys(t); },
      set: function (t, k, v) { t[k] = v; if (on && typeof k === "string") reads[k] = knobKey(v); return true; }
    });
    return { knobs: proxy, stop: function () { on = false; } };
  }

  /**
   * BLOCK_WARPGROUPS: the members of a role enum cast from the warpgroup index (`auto
   * warp_group_role = WarpGroupRole(warp_group_idx);` of `int warp_group_idx =
   * cutlass::canonical_warp_group_idx();`, 88 FMHA kernel 191-192) that no warpgroup of the block
   * holds: the block has NumLoadWarpGroups + NumMmaWarpGroups warpgroups (kernel 58-59, 128:
   * MaxThreadsPerBlock), and member i (the enum lists Producer = 0 .. Consumer3 = 4 in order,
   * 167-173) is warpgroup i. 88's forward at its default NumMmaWarpGroups = 2 (collective 73) has no
   * Consumer2, Consumer3. Returns {"Enum::Member": true}; empty when either count is not a number.
   */
  function absentWarpGroups(ctx) {
    var out = {}, total = ctx.constants.NumLoadWarpGroups + ctx.constants.NumMmaWarpGroups, wgVars = {};
    if (typeof total !== "number" || isNaN(total)) return out;
    (ctx.kernel || []).forEach(function (n) {
      if (n.node === "let" && n.names && n.names.length === 1 && Array.isArray(n.expr) && n.expr[0] === "call" &&
          /^(?:cutlass::)?canonical_warp_group_idx$/.test(n.expr[1])) wgVars[n.names[0]] = true;
    });
    (ctx.kernel || []).forEach(function (n) {
      var e = n.node === "let" && n.names && n.names.length === 1 ? n.expr : null;
      if (!Array.isArray(e) || e[0] !== "call" || (e[2] || []).length !== 1 || !Array.isArray(e[2][0]) || e[2][0][0] !== "id" || !wgVars[e[2][0][1]]) return;
      ctx.roleVars.forEach(function (v) {
        if (v.name === n.names[0] && v.enum === e[1]) v.members.forEach(function (m, i) { if (i >= total) out[v.enum + "::" + m] = true; });
      });
    });
    return out;
  }

  /**
   * The NamedBarrier objects' ids (an op's `barrier_id`) the steps can reach, into out: both arms
   * of every branch and the programs of the calls hasOp follows (NAMED_BARRIER_OWN).
   */
  function barrierIds(nodes, ctx, out, depth) {
    var types = {};
    for (var i = 0; nodes && i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "op" && n.barrier_id) out[n.barrier_id] = true;
      if (n.node === "let" && n.names && n.names.length === 1 && n.type) types[n.names[0]] = declKind(n.type).base;
      if (n.node === "call" && depth < 4) {
        var fn = n.lambda ? K.lambdaNamed(ctx, n.lambda) :
          n.receiver ? (ctx.collectives[types[n.receiver]] ? ctx.functions[types[n.receiver] + "::" + n.name] : null) : ctx.functions[n.name];
        if (fn) barrierIds(fn.body, ctx, out, depth + 1);
      }
      ["init", "body", "step", "then", "else"].forEach(function (k) { if (n[k]) barrierIds(n[k], ctx, out, depth); });
    }
  }

  /** A called function with an op makes a role; one whose program copies with TMA a loading role (its lane goes first). */
  function probeFunction(fn, ctx, probe) {
    if (!hasOp(fn.body, null, ctx)) return;
    probe.active = true;
    barrierIds(fn.body, ctx, probe.barriers, 1);
    if (hasOp(fn.body, "tma_load", ctx)) probe.produces = true;
  }

  /** Static walk for enumerateRoles: which role variables decide, whether the role does anything. */
  function probeNodes(nodes, ctx, probe, depth) {
    if (!nodes || depth > 8) return;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "if") {
        var c = probeCond(n.cond, ctx, probe, n.constexpr);
        if (c === null || c) probeNodes(n.then, ctx, probe, depth);
        if (c === null || !c) probeNodes(n["else"], ctx, probe, depth);
      } else if (n.node === "loop") {
        probeNodes(n.body, ctx, probe, depth);
      } else if (n.node === "op") {
        probe.active = true;
        if (n.barrier_id) probe.barriers[n.barrier_id] = true;
      } else if (n.node === "let" && n.names && n.names.length === 1 && n.type && COLLECTIVE_TYPES[declKind(n.type).base]) {
        probe.types[n.names[0]] = COLLECTIVE_TYPES[declKind(n.type).base];   // `CollectiveMainloop mainloop;` (77 FMHA 433)
        if (ctx.collectives[declKind(n.type).base]) probe.owners[n.names[0]] = declKind(n.type).base;
      } else if (n.node === "let" && n.names && n.names.length === 1 && n.type && ctx.collectives[declKind(n.type).base]) {
        probe.owners[n.names[0]] = declKind(n.type).base;   // `Load load;` of a composed collective
      } else if (n.node === "let" && n.names && n.names.length === 1 && Array.isArray(n.expr) && n.expr[0] === "struct") {
        // `IsParticipant is_participant = {(warp_category == WarpCategory::MMA), ...}`: the role's
        // booleans, tested later (SM100 kernel layer 448-454); evaluated under the binding so far.
        probe.env[n.names[0]] = { v: evalExpr(n.expr, probe.env, ctx, false) };
      } else if ((n.node === "let" || n.node === "set") && Array.isArray(n.expr) && n.expr[0] === "mcall" &&
          Array.isArray(n.expr[1]) && n.expr[1][0] === "id") {
        // `auto [a, b] = collective_epilogue.store(...)`, `state = collective_mainloop.mma(...)`: a call.
        probeNodes([{ node: "call", receiver: n.expr[1][1], name: n.expr[2] }], ctx, probe, depth + 1);
      } else if (n.node === "call" && !n.receiver && !n.lambda && K.ownKernelFunction(ctx, n.name)) {
        probeFunction(K.ownKernelFunction(ctx, n.name), ctx, probe);   // WHOLE_KERNEL: `load(...)`, 77 bwd kernel 1733
      } else if (n.node === "call" && n.receiver) {
        probe.receivers[n.receiver] = true;
        var rkind = receiverKind(probe, n.receiver);
        if (rkind === "epilogue" && EPILOGUE_CALLS[n.name]) probe.active = true;
        var own = probe.owners[n.receiver] ? ctx.functions[probe.owners[n.receiver] + "::" + n.name] : null;
        if (own && hasOp(own.body, null, ctx)) probe.active = true;
        if (own) barrierIds(own.body, ctx, probe.barriers, 1);
        var fn = ctx.functions[n.name];
        // A call of a collective function with no op (prefetch_tma_descriptors, load_init) does not make a
        // role; one whose program copies with TMA makes a loading role (its lane goes first).
        if (rkind === "mainloop" && fn) probeFunction(fn, ctx, probe);
      }
    }
  }

  /**
   * WHOLE_KERNEL: a whole kernel in one file (its structure is the kernel layer itself, `kind`
   * "kernel_layer": 77's `sm100_fmha_bwd_kernel_tma_warpspecialized.hpp`, whose operator() calls
   * the class's own load / mma / compute / reduce, 1733-1800): a free call of one of its functions
   * runs that function's program, from the kernel's own program too. Else null.
   */
  K.ownKernelFunction = function (ctx, name) {
    return ctx.structure.kind === "kernel_layer" && Object.prototype.hasOwnProperty.call(ctx.functions, name) ? ctx.functions[name] : null;
  };

  /** The declared types whose object's calls are steps: the collectives the kernel layer instantiates. */
  var COLLECTIVE_TYPES = { CollectiveMainloop: "mainloop", CollectiveEpilogue: "epilogue" };

  /** What a receiver of the kernel program is in the probe: by its declaration's type, else by the CUTLASS name. */
  function receiverKind(probe, name) {
    if (probe.types[name]) return probe.types[name];
    return name === "collective_mainloop" ? "mainloop" : name === "collective_epilogue" ? "epilogue" : null;
  }

  /**
   * A condition under the current partial role binding: 1, 0, or null (depends on the run). A
   * role variable the condition needs (its value is not decided without it) is marked tested, so
   * enumerateRoles splits on it; one a short circuit skips is not.
   */
  function probeCond(cond, ctx, probe, constexpr) {
    var v = evalExpr(cond, probe.env, ctx, constexpr);
    if (!isUnknown(v)) return truthy(v) ? 1 : 0;
    if (v.roleVar) probe.tested[v.roleVar] = true;
    return null;
  }

  /**
   * COMPOSED_MEMBERS: the members of a composed collective's object, bound from the declaration's
   * arguments in the order its `construct` fact gives (the constructor's `m(p)` initializer list,
   * else the aggregate's members: `LoadK load_k{params.tma_load_k, pipeline, storage.smem_k};`, 88
   * FMHA collective 265, of `CollectiveLoadTma(Params const& params, Pipeline& pipeline, ...) :
   * params(params), pipeline(pipeline), storage(storage)`, fmha_collective_load.hpp 62-63); a
   * reference member (57-59) shares its argument's variable, as a reference parameter does.
   */
  function composedMembers(rr, c, node, env) {
    var members = {}, refs = {};
    (c.members || []).forEach(function (m) { refs[m.name] = m.ref; });
    (c.construct || []).forEach(function (m, i) {
      var a = (node.args || [])[i];
      if (!m || a === undefined) return;
      var box = rr.lvalueBox(a, env);
      members[m] = box && refs[m] ? box : { v: K.clone(box ? box.v : rr.eval(a, env, false)) };
    });
    return members;
  }

  /**
   * TEMPLATE_ARGS: a template's non-type parameters (`tparams`) bound in scope, in order, to the
   * call's template arguments evaluated in env as compile-time expressions, else to their defaults
   * (`template<bool kAdvanceIterator=true, bool kAdvancePipe=true, bool kAcquireBarrier=true, ...>`,
   * fmha_collective_load.hpp 118, called `load_k.template step<false>(...)`, 88 FMHA collective
   * 275). One whose value is unknown, or with neither, stays unbound (a compile-time flag). Not
   * under ctx.wg (FA3, raw mbarrier kernels) nor the DSL.
   */
  function bindTemplateArgs(tparams, targs, env, ctx, scope) {
    if (ctx.wg || ctx.dsl) return;   // FA3's (and the raw-mbarrier kernels') template flags are the run's flag knobs, as COMPILE_TIME_NAMES
    (tparams || []).forEach(function (tp, i) {
      if (/^(?:class|typename)\b/.test(tp.type)) return;
      var v = i < (targs || []).length ? evalExpr(targs[i], env, ctx, true) : tp["default"] ? evalExpr(tp["default"], scope, ctx, true) : null;
      if (v !== null && !isUnknown(v)) scope[tp.name] = { v: v };
    });
  }

  /**
   * MODE_CONSTANTS (sim/interpret/expr.js): the constant `size<mode>(name)` is, or null. A name is
   * the structure's across its programs (as MMA_K_BLOCKS' fragments): mma() reads the fragments
   * mma_init made through its MmaParams (`auto [tiled_mma, tCrA, tCrB] = mma_inputs;`, blockwise
   * collective 1012). A name two lets give different texts is none.
   */
  function modeConstant(ctx, name, mode) {
    var tmem = K.tmemCopyMode(ctx, name, Number(mode));   // TMEM_LOAD_PARTITIONS (tmem.js): a number
    if (tmem !== null) return tmem;
    var names = ctx.modeConstantNames;
    if (!names) {
      names = ctx.modeConstantNames = {};
      var clash = {};
      var walk = function (nodes) {
        (nodes || []).forEach(function (n) {
          if (n.node === "let" && (n.names || []).length === 1) {
            var text = Array.isArray(n.expr) && n.expr[0] === "?" ? n.expr[1] : null;
            var modes = text !== null && Object.prototype.hasOwnProperty.call(K.MODE_CONSTANTS, text) ? K.MODE_CONSTANTS[text] : null;
            if (modes === null || (names[n.names[0]] && names[n.names[0]] !== modes)) clash[n.names[0]] = true;
            else names[n.names[0]] = modes;
          }
          walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
        });
      };
      Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body); });
      Object.keys(clash).forEach(function (k) { delete names[k]; });
    }
    var m = Object.prototype.hasOwnProperty.call(names, name) ? names[name] : null;
    return m !== null && Object.prototype.hasOwnProperty.call(m, String(mode)) ? m[String(mode)] : null;
  }

  K.COLLECTIVE_TYPES = COLLECTIVE_TYPES; K.Context = Context; K.modeConstant = modeConstant; K.bindTemplateArgs = bindTemplateArgs; K.composedMembers = composedMembers; K.discoverRoles = discoverRoles; K.enumerateRoles = enumerateRoles;
  return K;
})(typeof KernelInterpretExpr !== "undefined" ? KernelInterpretExpr : require("./expr.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretContext;
