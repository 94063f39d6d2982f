/*
 * sim/interpret/role.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Running a role: RoleRun, an explicit stack of frames over the program tree.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretRole = (function (K) {
  "use strict";

  var COLLECTIVE_TYPES = K.COLLECTIVE_TYPES, COMMIT_ARRIVE_OPS = K.COMMIT_ARRIVE_OPS,
    DRY_CHECK_MASK = K.DRY_CHECK_MASK, EPILOGUE_CALLS = K.EPILOGUE_CALLS, EnumValue = K.EnumValue,
    K_BLOCKS_DEFAULT = K.K_BLOCKS_DEFAULT, MAX_STEPS_PER_COMMAND = K.MAX_STEPS_PER_COMMAND, Obj = K.Obj, PASS = K.PASS,
    RUNTIME_CONDITIONS = K.RUNTIME_CONDITIONS, Scheduler = K.Scheduler, State = K.State,
    Struct = K.Struct, TRIP_KNOBS = K.TRIP_KNOBS, Tuple = K.Tuple, Unknown = K.Unknown,
    WG_TRACE_OPS = K.WG_TRACE_OPS, Work = K.Work, clone = K.clone, evalExpr = K.evalExpr,
    hasEffect = K.hasEffect, isUnknown = K.isUnknown, truthy = K.truthy, unknownAt = K.unknownAt;

  // Defined in a later part: called through K at run time.
  function dryRunSettled(rr) { return K.dryRunSettled(rr); }
  function dslBinding(role) { return K.dslBinding(role); }

  // ---------------------------------------------------------------------------------------------
  // Running a role: an explicit stack of frames over the program tree

  /**
   * One role's interpreter. next() runs program steps until one needs the engine and returns that
   * command (null at the end, or when the role stops: then this.stopped says where and why).
   */
  function RoleRun(run, role, index) {
    this.run = run;
    this.ctx = run.ctx;
    this.role = role;
    this.index = index;
    this.env = {};
    this.frames = [{ nodes: run.ctx.kernel, pc: 0, env: this.env, loop: null, fn: null }];
    this.stopped = null;
    this.tile = 0;
    this.counts = {};          // per tile: copies / waits / MMAs so far (block k)
    this.acquired = {};        // pipeline object name -> stage of its last acquire
    this.waited = {};          // pipeline object name -> stage of its last consumer wait
    this.acquiredGen = {};     // ... and which fill of that stage (state count / stages): the hazard check
    this.waitedGen = {};
    this.stageGens = {};       // pipeline object name -> stage -> the fill its last consumer wait saw (MMA_OPERAND_STAGE)
    this.copyLog = [];         // per copy issued: {stage, gen, line}; per MMA: the stage and fill it reads
    this.mmaLog = [];
    this.lastTile = -1;
    this.scheduler = null;
    this.dry = false;
    this.firstMma = null;      // {tile, line, rows}: where the role issues its first MMA (the dry run stops there; rows: MMA_ROWS)
    this.firstMmaRows = "";    // the operand stages of the MMA being issued in a dry run (MMA_ROWS)
  }

  RoleRun.prototype.stop = function (node, why) {
    if (this.stopped === null) this.stopped = { role: this.role.name, line: node && node.line || null, reason: why };
    this.frames.length = 0;
    return null;
  };

  /** The role's binding as values (built once per role; the context reads it while this role evaluates). */
  RoleRun.prototype.bindingValues = function () {
    if (this.boundValues === undefined) {
      var out = {}, binding = this.role.binding;
      Object.keys(binding).forEach(function (k) { out[k] = new EnumValue(binding[k]); });
      this.boundValues = this.ctx.dsl || this.ctx.wg ? dslBinding(this.role) : out;
    }
    return this.boundValues;
  };

  RoleRun.prototype.eval = function (e, env, constexpr) {
    this.ctx.roleBinding = this.bindingValues();
    this.ctx.rr = this;
    return evalExpr(e, env, this.ctx, constexpr);
  };

  /** The count of kind in the role's current work tile (the block's k). */
  RoleRun.prototype.countOf = function (kind) {
    var t = this.currentTile();
    if (t !== this.lastTile) { this.counts = {}; this.lastTile = t; }
    var c = this.counts[kind] || 0;
    this.counts[kind] = c + 1;
    return c;
  };

  /**
   * The k of a TMA copy: a further copy into the stage of the same acquire (same pipeline, stage
   * and fill number) joins the first copy's transaction and keeps its k; else the next copy count.
   */
  RoleRun.prototype.copyIndex = function (object, stage, gen) {
    var last = this.lastCopy || (this.lastCopy = {});
    var prev = last[object], tile = this.currentTile();
    if (prev && prev.stage === stage && prev.gen === gen && prev.tile === tile) return prev.k;
    var k = this.countOf("copy");
    last[object] = { stage: stage, gen: gen, tile: tile, k: k };
    return k;
  };

  RoleRun.prototype.currentTile = function () {
    var w = this.env.work_tile_info;
    if (w && w.v instanceof Work) return w.v.tile;
    return this.scheduler ? this.scheduler.tile : 0;
  };

  RoleRun.prototype.next = function () {
    for (var guard = 0; guard < MAX_STEPS_PER_COMMAND; guard++) {
      // mmaGroups's dry run: steps without commands (ops on rings that do not exist yet) are tested too.
      if (this.settleDry === true && (guard & DRY_CHECK_MASK) === DRY_CHECK_MASK && dryRunSettled(this)) return null;
      var f = this.frames[this.frames.length - 1];
      if (!f) return null;
      if (f.pc >= f.nodes.length) {
        if (f.loop) {
          var st = this.loopStep(f);
          if (st !== undefined) return st;
          continue;
        }
        this.frames.pop();
        continue;
      }
      var node = f.nodes[f.pc++];
      var cmd = this.exec(node, f);
      if (cmd !== undefined) return cmd;
      if (this.stopped) return null;
    }
    return this.stop(null, "more than " + MAX_STEPS_PER_COMMAND + " program steps without an engine command");
  };

  /** End of a loop body: run its step, test its condition again. */
  RoleRun.prototype.loopStep = function (f) {
    var loop = f.loop;
    for (var i = f.stepAt || 0; i < loop.step.length; i++) {
      var depth = this.frames.length;
      this.exec(loop.step[i], f);
      // A step calling a named lambda (`advance_pipeline(k_block_idx)`, DeepGEMM sm90_bf16_gemm.cuh
      // 167) runs the lambda before the rest of the step and the test: come back here after it.
      if (loop.step[i].lambda && this.frames.length > depth) { f.stepAt = i + 1; return undefined; }
    }
    f.stepAt = 0;
    f.iter++;
    var again = f.once ? false : this.loopCond(loop, f.env);
    if (again === null) return this.stop(loop, "the condition of `" + (loop.text || "loop") + "` is not known after an iteration");
    if (!again) {
      this.frames.pop();
      return undefined;
    }
    f.pc = 0;
    return undefined;
  };

  RoleRun.prototype.loopCond = function (loop, env) {
    var v = this.eval(loop.cond, env, false);
    if (isUnknown(v)) return null;
    return truthy(v);
  };

  /** Run one node; return an engine command, or undefined to go on. */
  RoleRun.prototype.exec = function (node, f) {
    var env = f.env;
    switch (node.node) {
      case "let": return this.execLet(node, env, f);
      case "set": return this.execSet(node, env);
      case "if": {
        var c = !node.constexpr && Object.prototype.hasOwnProperty.call(RUNTIME_CONDITIONS, node.text) ? RUNTIME_CONDITIONS[node.text] :
          this.eval(node.cond, env, node.constexpr);
        // A compile-time condition the front end did not read (`if constexpr (is_variable_length_v<...>)`,
        // 77 FMHA load 174) is a flag named by its text, off unless set, like an undefined name.
        if (isUnknown(c) && node.constexpr && Array.isArray(node.cond) && node.cond[0] === "?") c = this.ctx.flag(String(node.cond[1]));
        // In a register loop's one pass, a test of the loop's index (`if (i == size(t) - kReleasePipeCount)`,
        // 77 FMHA mainloop 646) holds for that pass: its steps run once, after the loop's block.
        if (isUnknown(c) && this.inRegisterLoop()) c = 1;
        if (isUnknown(c)) {
          if (!hasEffect(node.then, this.ctx.controls) && !hasEffect(node["else"], this.ctx.controls)) return undefined;
          return this.stop(node, "runtime condition not modelled: " + c.why);
        }
        var branch = truthy(c) ? node.then : node["else"];
        if (branch && branch.length) {
          this.frames.push({ nodes: branch, pc: 0, env: env, loop: null, fn: f.fn });
          // Raw-mbarrier kernels count an arrive's threads by the tests it runs under (mbar.js mbarArrivals).
          if (this.ctx.mbar && !node.constexpr) {
            var gf = this.frames[this.frames.length - 1];
            gf.guard = truthy(c) ? node.cond : ["un", "!", node.cond];
            gf.guardText = node.text;
          }
        }
        return undefined;
      }
      case "loop": return this.enterLoop(node, f);
      case "op": return this.execOp(node, env);
      case "call": return this.execCall(node, env, f);
      case "return": {
        // A collective function's return value goes to the caller's let / assignment (`auto [state, iter] =
        // collective_mainloop.load(...)`): a tuple's parts by position, else the one value.
        if (f.fn && f.fn.ret && node.expr) this.bindReturn(f.fn.ret, this.eval(node.expr, env, false));
        while (this.frames.length && this.frames[this.frames.length - 1].fn === f.fn) this.frames.pop();
        return undefined;
      }
      case "break": {
        while (this.frames.length && !this.frames[this.frames.length - 1].loop) this.frames.pop();
        this.frames.pop();
        return undefined;
      }
      case "continue": {   // the rest of the innermost loop's body is skipped; its step and test run
        while (this.frames.length && !this.frames[this.frames.length - 1].loop) this.frames.pop();
        var lf = this.frames[this.frames.length - 1];
        if (lf) lf.pc = lf.nodes.length;
        return undefined;
      }
      default: return undefined;
    }
  };

  /** Op kinds a register loop may hold (no pipeline op: its body is the thread's own arithmetic). */
  var REGISTER_LOOP_OPS = { tmem_load: true };
  var registerClasses = new Map();
  /**
   * The math class of a register loop: "exp" when its body calls an exponential (`::exp2f`,
   * `exp2f`, the MUFU work of a softmax), else "math"; null when the body holds a pipeline op.
   */
  function registerLoopClass(node) {
    var got = registerClasses.get(node);
    if (got !== undefined) return got;
    var ok = true;
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "op" && !REGISTER_LOOP_OPS[n.op]) ok = false;
        if (n.node === "loop" && !(n.unroll === "unroll")) ok = false;
        walk(n.body); walk(n.then); walk(n["else"]);
      });
    })(node.body);
    got = ok ? (/exp2/.test(JSON.stringify(node.body)) ? "exp" : "math") : null;
    registerClasses.set(node, got);
    return got;
  }

  /** Whether the role is inside a register loop's one pass. */
  RoleRun.prototype.inRegisterLoop = function () {
    for (var i = this.frames.length - 1; i >= 0; i--) if (this.frames[i].registerLoop) return true;
    return false;
  };

  RoleRun.prototype.enterLoop = function (node, f) {
    var env = f.env;
    for (var i = 0; i < node.init.length; i++) this.exec(node.init[i], { env: env, fn: f.fn });
    var frame = { nodes: node.body, pc: 0, env: env, loop: node, fn: f.fn, iter: 0, once: false };
    if (node.kind === "do") {   // do { body } while (cond): the body runs before the first test
      this.frames.push(frame);
      return undefined;
    }
    // A DSL loop over a tuple (`for tma_atom in (tma_atom_Q, ...)`, sm90 449) is skipped when its body has no effect.
    if (this.ctx.dsl && node.kind === "range") {
      return hasEffect(node.body, this.ctx.controls) ? this.stop(node, "a loop over `" + (node.text || "an iterable") + "` is not modelled") : undefined;
    }
    var c = this.loopCond(node, env);
    // An issue loop over the k-blocks stays one issue of the k-tile though MMA_K_BLOCKS binds its trip count.
    if (c !== null && node.unroll === "unroll" && onlyMmas(node.body) && readsKBlocks(node.cond, this.ctx)) c = null;
    if (c === null) {
      // An unrolled loop over k-blocks (`for k_block < size<2>(tCrA)` around cute::gemm) is one
      // issue of the k-tile: its body holds MMAs and nothing that waits.
      if (node.unroll === "unroll" && onlyMmas(node.body)) {
        frame.once = true;
        this.frames.push(frame);
        return undefined;
      }
      // An unrolled loop over k-blocks of copies into one stage (multistage mainloop 269, 279) is
      // the k-tile's copies of that operand: its body once, one transaction with the acquire's others.
      if (node.unroll === "unroll" && onlyCopies(node.body) === true) {
        frame.once = true;
        this.frames.push(frame);
        return undefined;
      }
      // A register loop (an unrolled loop over a register tensor, `for (int i = 0; i <
      // size(tTMEM_LOADrS); i += 2)`, 77 FMHA mainloop 583, 625, 680) with no pipeline op in it is
      // one block of its math class (docs/programs.md "Register loops"), then its body once.
      // A rolled loop over a register fragment with only register work in it is one too (REGISTER_FRAGMENTS).
      var cls = node.unroll === "unroll" || K.fragmentLoop(node, f.fn ? (this.ctx.functions[f.fn.fn] || {}).body : this.ctx.kernel, this.ctx) ?
        registerLoopClass(node) : null;
      if (cls !== null) {
        frame.once = true;
        frame.registerLoop = true;
        this.frames.push(frame);
        return this.run.opaque(this, cls, node);
      }
      return this.stop(node, "the trip count of `" + (node.text || "loop") + "` is not bound");
    }
    if (c) this.frames.push(frame);
    return undefined;
  };

  /**
   * Whether every producer_commit on the pipeline object `object` in the programs (functions and
   * named lambdas) runs a landing arrive op (COMMIT_ARRIVE_OPS): the commits of other pipelines
   * (77 decode's UMMA pipelines S and O) say nothing of the cp.async ring.
   */
  function cpAsyncCommits(ctx, object) {
    var memo = ctx.cpAsyncCommits || (ctx.cpAsyncCommits = {});
    if (memo[object] !== undefined) return memo[object];
    var all = true, any = false;
    function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "op" && n.op === "producer_commit" && n.object === object) {
          any = true;
          if (COMMIT_ARRIVE_OPS[n.arrive] !== "landing") all = false;
        }
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    }
    Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body); });
    Object.keys(ctx.lambdas || {}).forEach(function (k) { walk(ctx.lambdas[k].body); });
    return (memo[object] = any && all);
  }

  /**
   * Whether an unrolled loop's body is only copies into one stage (`for (int k = 0; k <
   * size<2>(tAsA); ++k)` around `copy_if`, multistage mainloop 269-276): copy ops, calls (the
   * `clear` of a residue k-block) and runtime tests over them; no wait, no nested loop.
   */
  function onlyCopies(nodes) {
    var any = false;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "op" && (n.op === "cp_async" || n.op === "tma_load")) any = true;
      else if (n.node === "if" && !n.constexpr) {
        var t = onlyCopies(n.then || []), e = onlyCopies(n["else"] || []);
        if (t === null || e === null) return null;
        any = any || t || e;
      }
      else if (n.node === "op" || n.node === "loop" || n.node === "if" || n.node === "return" || n.node === "break" || n.node === "continue") return null;
    }
    return any;
  }

  /**
   * The names of MMA register fragments (MMA_K_BLOCKS) across the structure's programs, by name:
   * `fragment` (mode 2 is the k-blocks) or `partition` (a partition_A / partition_B tensor).
   */
  function mmaFragments(ctx) {
    if (ctx.mmaFragmentNames) return ctx.mmaFragmentNames;
    var names = {}, lambdas = [];
    function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && (n.names || []).length === 1 && Array.isArray(n.expr)) {
          if (K.fragmentKind(n.expr) !== null) names[n.names[0]] = K.fragmentKind(n.expr);
          else if (n.expr[0] === "?" && /^\s*\[[&=]?\]\s*(\(\s*\))?\s*\{[\s\S]*\}\s*\(\s*\)\s*$/.test(String(n.expr[1]))) lambdas.push(n);
        }
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    }
    Object.keys(ctx.functions).forEach(function (k) { walk(ctx.functions[k].body); });
    // A lambda called on the spot is a fragment when every one of its returns makes one like a
    // fragment or a partition (mixed-input 807-816); at least one return.
    lambdas.forEach(function (n) {
      var text = String(n.expr[1]), rets = text.match(/\breturn\b[^;]*;/g) || [];
      var like = rets.length > 0 && rets.every(function (r) {
        var m = /^return\s+(?:cute::)?make_(?:fragment|tensor)_like\s*(?:<[^<>;]*>)?\s*\(\s*([A-Za-z_]\w*)\s*[(),]/.exec(r);
        return m !== null && Object.prototype.hasOwnProperty.call(names, m[1]);
      });
      if (like) names[n.names[0]] = "fragment";
    });
    return (ctx.mmaFragmentNames = names);
  }

  /**
   * MMA_OPERAND_STAGE: the stage an MMA reads, from its operands (programs_cpp gives an mma op its
   * call's `args`): an operand `X(c0, c1, c2, s)` of a descriptor fragment X (a let of a
   * FRAGMENT_STAGED maker, modes (MMA,MMA_N,MMA_K,PIPE): `Tensor tCrB =
   * mma_warpgroup_slice.make_fragment_B(tCsB);`, RS collective 556) reads stage s. The RS mainloop
   * waits on the next k-tile's stage before the current one's last k-block MMA (665 before 679),
   * so the last wait does not name the stage that MMA reads: `tCrB(_,_,k_block,read_stage)`, with
   * `int read_stage = smem_pipe_read.index();` taken before `++smem_pipe_read` (654-655). Null when
   * no operand names a stage the role has waited on (then the last wait's stage, as before), or
   * when the coordinate is not a plain name (77 MLA's `tOrV(_,_,_,v_index / 2)`: V's own smem
   * stages, half the KV ring, mla mainloop 305, 403).
   */
  var FRAGMENT_STAGED = { make_fragment_A: true, make_fragment_B: true };
  function operandStage(rr, node, env) {
    if (!node.args) return null;
    var staged = stagedFragments(rr.ctx);
    for (var i = 0; i < node.args.length; i++) {
      var a = node.args[i];
      if (!Array.isArray(a) || a[0] !== "call" || !staged[a[1]] || (a[2] || []).length !== 4) continue;
      // Only a plain name is the ring's stage: 77 MLA's `tOrV(_,_,_,v_index / 2)` indexes V's own
      // smem stages (half the KV ring, mla mainloop 403), which no ring stage names.
      if (!Array.isArray(a[2][3]) || a[2][3][0] !== "id") continue;
      var v = rr.eval(a[2][3], env, false);
      if (typeof v === "number" && rr.stageGens[node.object] && rr.stageGens[node.object][v] !== undefined) return v;
    }
    return null;
  }
  /**
   * MMA_ROWS: the shared-memory tiles an MMA reads, as "fragment@stage" for each operand `X(c0,
   * c1, c2, s)` of a descriptor fragment X (FRAGMENT_STAGED) whose stage s evaluates (a name or a
   * state's `index()`), joined; "" when none does. One TiledMma job that spans warpgroups reads one
   * tile of each operand (the cooperative kernels: both consumers' `tCrA(_,_,_,read_stage)` of one
   * wait), so roles whose first MMAs read different stages compute different rows and are not one
   * MMA group (Run.mmaGroups): 88's consumers each read their own Q tile,
   * `tSrQ(_,_,_,smem_pipe_read_q.index())` (88 FMHA collective 406), the Q state advanced by the
   * role's warpgroup index (`smem_pipe_read_outer.advance(i * kOuterLoads)`, kernel 350-361), the
   * stage the load warp filled with that warpgroup's rows (its `wg_coord` row, kernel 365-376).
   */
  function operandStages(rr, node, env) {
    var staged = stagedFragments(rr.ctx), out = [];
    (node.args || []).forEach(function (a) {
      if (!Array.isArray(a) || a[0] !== "call" || !staged[a[1]] || (a[2] || []).length !== 4) return;
      var v = rr.eval(a[2][3], env, false);
      if (typeof v === "number") out.push(a[1] + "@" + v);
    });
    return out.join(",");
  }
  function stagedFragments(ctx) {
    if (ctx.stagedFragmentNames) return ctx.stagedFragmentNames;
    var names = {};
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && (n.names || []).length === 1 && Array.isArray(n.expr) && n.expr[0] === "mcall" && FRAGMENT_STAGED[n.expr[2]]) names[n.names[0]] = true;
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    })([].concat.apply([], Object.keys(ctx.functions).map(function (k) { return ctx.functions[k].body; })));
    return (ctx.stagedFragmentNames = names);
  }

  /** The k-blocks of one k-tile (MMA_K_BLOCKS): the `kBlocks` knob, else K_BLOCKS_DEFAULT. */
  function kBlocks(ctx) {
    return typeof ctx.knobs.kBlocks === "number" ? ctx.knobs.kBlocks : K_BLOCKS_DEFAULT;
  }

  /** Whether an expression reads the k-blocks of an MMA fragment (`size<2>(tCrA)`, MMA_K_BLOCKS). */
  function readsKBlocks(e, ctx) {
    if (!Array.isArray(e)) return false;
    if (e[0] === "call" && e[1] === "size" && String(e[3]) === "2" && (e[2] || []).length === 1 && Array.isArray(e[2][0]) &&
        e[2][0][0] === "id" && mmaFragments(ctx)[e[2][0][1]] === "fragment") return true;
    for (var i = 1; i < e.length; i++) if (Array.isArray(e[i]) && readsKBlocks(e[i], ctx)) return true;
    return false;
  }

  function onlyMmas(nodes) {
    var any = false;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "op" && n.op === "mma") any = true;
      else if (n.node === "op" || n.node === "loop" || n.node === "if") return false;
    }
    return any;
  }

  RoleRun.prototype.execLet = function (node, env, f) {
    if (this.ctx.deadLets.has(node)) return undefined;   // nothing reads it, its evaluation has no effect (deadLets)
    var self = this;
    var names = node.names || [];
    if (this.ctx.dsl) { var dl = this.dslAssign(node, env, names); if (dl !== PASS) return dl; }
    // `auto [a, b] = collective_epilogue.store(...)`, `x = scheduler.f(...)`: the call is a step;
    // what it returns is not followed (the names become unknown).
    var call = this.stepCall(node.expr, env, node, f);
    if (call) {
      names.forEach(function (n) { env[n] = { v: new Unknown("returned by `" + call.name + "`") }; });
      return this.execCall(call, env, f, { names: names, env: env });
    }
    if (names.length !== 1) {   // a structured binding: the parts of a tuple, else unknown
      var tv = node.expr ? this.eval(node.expr, env, false) : null;
      names.forEach(function (n, i) {
        env[n] = { v: tv instanceof Tuple && i < tv.items.length ? clone(tv.items[i]) : new Unknown("part of a structured binding") };
      });
      return undefined;
    }
    var name = names[0];
    // An inert let (below) is the same Unknown on every run of it: no evaluation.
    if (node.__inert === true) { env[name] = { v: node.expr.__unknown }; return undefined; }
    // A collective function's local named like the kernel's role variable (FA3 mma()'s
    // `int warp_group_idx = __shfl_sync(..., thread_idx / NumThreadsPerWarpGroup, 0)`, mainloop
    // 1018: 0 for the first MMA warpgroup, where the kernel's warp_group_idx, 208, is 1) is its own
    // variable, as dslAssign's Python locals are (wgLocalRoleVar).
    if (this.ctx.wg && this.ctx.roleVarNames[name] && env !== this.env && this.wgLocalRoleVar(node, env, name)) return undefined;
    if (this.ctx.roleVarNames[name]) return undefined;   // the role variables are the role's binding
    // COORD_REFERENCES: `auto& wg_block = get<wg_dim>(wg_coord);` (88 FMHA kernel 364) names a mode
    // of a coordinate: an assignment to it (`wg_block = NumMmaWarpGroups * wg_block + 0;`, 366) writes that mode.
    var ref = /&\s*$/.test(node.type || "") && Array.isArray(node.expr) && node.expr[0] === "call" ? K.coordBox(node.expr, env, this.ctx) : null;
    if (ref !== null) { env[name] = ref; return undefined; }
    var v = this.valueOfDecl(node, env);
    if (isUnknown(v) && TRIP_KNOBS[name] && typeof self.ctx.knobs[TRIP_KNOBS[name]] === "number") v = self.ctx.knobs[TRIP_KNOBS[name]];
    else if (node.expr && isUnknown(v) && v === node.expr.__unknown && (node.expr[0] === "call" || node.expr[0] === "?") && node.__plain === true) {
      // Its initializer is a call no rule evaluates (evalCall's last line, which depends on the
      // name and the argument shapes only) or an unread text: so it always is.
      Object.defineProperty(node, "__inert", { value: true, enumerable: false });
    }
    env[name] = { v: v };
    return undefined;
  };

  /** The value a declaration gives its name: a state, a scheduler, an object, or its initializer's. */
  /** What a declaration's type makes of it (cached per type text): state, scheduler, or its base name. */
  var declKinds = new Map();
  function declKind(type) {
    var got = declKinds.get(type);
    if (got === undefined) {
      var base = type.replace(/^(?:typename\s+)?(?:\w+::)*/, "").replace(/[\s&*]+$/, "");
      // `TileScheduler scheduler(...)` is the scheduler; `typename TileScheduler::WorkTileInfo` is not.
      got = { state: /PipelineState\b/.test(type), scheduler: /\bTileScheduler\b/.test(type) && !/\bTileScheduler::/.test(type),
        base: base };
      declKinds.set(type, got);
    }
    return got;
  }

  RoleRun.prototype.valueOfDecl = function (node, env) {
    var ctx = this.ctx, type = node.type || "";
    if (Object.prototype.hasOwnProperty.call(ctx.stateTypes, type)) type = ctx.stateTypes[type];   // a kernel state alias
    var kind = declKind(type);
    if (kind.state && node.expr === null) return new State(ctx.stateStages(type), 0, 0, 0, ctx.stateFollowed(type));
    if (kind.state && ctx.wg && node.construct && (node.args || []).length === 3) return this.wgState(node, env);
    if (kind.scheduler) return K.newScheduler(this, node);   // warps.js GROUP_SCHEDULER
    var base = ctx.samePipeline[kind.base] || kind.base;
    if (ctx.pipelineAliases[base]) {
      var key = node.names && ctx.rings.byDecl[node.names[0]] || base;
      if (this.run.pipes[key]) return new Obj("pipe", base, this.run.pipes[key]);
      // A dry run (before the rings exist): the pipeline is no value yet, and never an inert let.
      return new Unknown("the pipeline `" + base + "` before the run's rings exist");
    }
    if (ctx.orderAliases[base]) return this.orderObject(node, base, env);
    // A kernel-layer pipeline of a class the run does not model (the CLC pipelines): its ops stop the role.
    if (ctx.kernelPipelines[base] && !ctx.pipelineAliases[base]) {
      return new Obj("pipe", base, { modelled: false, cls: String(ctx.kernelPipelines[base]["class"]) });
    }
    // before CollectiveEpilogue's opaque store; its members from the declaration's arguments (COMPOSED_MEMBERS)
    if (ctx.collectives[base]) return new Obj("composed", base, { members: K.composedMembers(this, ctx.collectives[base], node, env) });
    if (COLLECTIVE_TYPES[base]) return new Obj(COLLECTIVE_TYPES[base], base);
    // A declaration of no object the run follows (its value is its initializer's): execLet may mark it inert.
    if (node.__plain === undefined) Object.defineProperty(node, "__plain", { value: true, enumerable: false });
    if (node.expr === null) return unknownAt(node, function () { return "`" + type + "` default-constructed"; });
    if (node.construct) return unknownAt(node, function () { return "a `" + type + "` construction"; });
    var v = this.eval(node.expr, env, false);
    return clone(v);
  };

  /**
   * An order barrier object: its group is the `group_id` of the Params it is constructed with when
   * the program sets it (`params_order_s01.group_id = role == WarpRole::Softmax1 ? 1 : 0;`, 77 FMHA
   * kernel 394, constructed at 396-397), else the role's rank among the roles that call it.
   */
  RoleRun.prototype.orderObject = function (node, base, env) {
    var obj = new Obj("order", base, this.run.order(base));
    (node.args || []).forEach(function (a) {
      var box = Array.isArray(a) && a[0] === "id" ? env[a[1]] : null;
      if (box && box.v instanceof Struct && typeof box.v.fields.group_id === "number") obj.group = box.v.fields.group_id;
    });
    return obj;
  };

  /** The call node of an expression `obj.name(args)` on an object whose calls are steps, else null. */
  RoleRun.prototype.stepCall = function (e, env, at, f) {
    // FREE_CALL_LETS: in a collective's function, an initializer calling one of its own functions
    // (`int inner_tile_count = get_inner_tile_count(blk_coord, problem_size);`, 88 FMHA backward 386, 534) runs its program.
    if (f && f.fn && !this.ctx.dsl && Array.isArray(e) && e[0] === "call" && this.ctx.functions[e[1]]) return { node: "call", name: e[1], args: e[2] || [], line: at.line, end_line: at.end_line };
    if (!Array.isArray(e) || e[0] !== "mcall" || !Array.isArray(e[1]) || e[1][0] !== "id") return null;
    var obj = this.objectOf(e[1][1], env);
    if (obj instanceof Scheduler) return K.schedulerStep(this, e, env, at);   // warps.js SCHEDULER_PIPELINE
    if (!(obj instanceof Obj) || (obj.kind !== "epilogue" && obj.kind !== "mainloop")) return null;
    if (obj.kind === "epilogue" && !EPILOGUE_CALLS[e[2]]) return null;
    if (obj.kind === "mainloop" && !this.ctx.functions[e[2]]) return null;
    return { node: "call", receiver: e[1][1], name: e[2], args: e[3] || [], line: at.line, end_line: at.end_line };
  };

  RoleRun.prototype.execSet = function (node, env) {
    if (node.member) {   // `params_order_s01.group_id = ...`: one member of a local's value
      var mbox = env[node.name];
      if (!mbox) return undefined;
      if (!(mbox.v instanceof Struct)) mbox.v = new Struct({});
      mbox.v.fields[node.member] = clone(this.eval(node.expr, env, false));
      return undefined;
    }
    if (this.ctx.dsl) { var ds = this.dslSet(node, env); if (ds !== PASS) return ds; }
    var box = env[node.name];
    if (!box) {
      if (node.name === "work_tile_info" && this.scheduler) { box = env.work_tile_info = { v: null }; } else return undefined;
    }
    var v = box.v;
    if (node.op === "++" || node.op === "--") {
      if (v instanceof State && node.op === "++") v.advance(1);
      else if (v instanceof Scheduler && node.op === "++") v.tile += 1;   // `++tile_scheduler` (fmha_tile_scheduler.hpp 80, 153)
      else if (typeof v === "number") box.v = v + (node.op === "++" ? 1 : -1);
      else box.v = new Unknown(node.op + " of a non-number");
      return undefined;
    }
    if (node.op === "=") {
      var call = this.stepCall(node.expr, env, node);
      if (call) {
        // The arguments are read before the assignment; a function that returns nothing leaves the name unknown.
        var prev = box.v, cmd = this.execCall(call, env, null, { names: [node.name], env: env });
        if (box.v === prev) box.v = new Unknown("returned by `" + call.name + "`");
        return cmd;
      }
    }
    var x = node.expr ? this.eval(node.expr, env, false) : new Unknown("no expression");
    if (node.op === "advance") {
      if (v instanceof State && typeof x === "number") v.advance(x);
      else if (v instanceof State && v.followed) return this.stop(node, "advance by an unknown count: " + (x && x.why));
      return undefined;
    }
    if (node.op === "=") { box.v = clone(x); return undefined; }
    if (typeof v === "number" && typeof x === "number") {
      // The bit operators (`phase ^= stage_idx == 0;`, DeepGEMM sm90_bf16_gemm.cuh 145) as C's.
      box.v = node.op === "+=" ? v + x : node.op === "-=" ? v - x : node.op === "^=" ? v ^ x : node.op === "|=" ? v | x :
        node.op === "&=" ? v & x : v * x;
    } else {
      box.v = new Unknown(node.op + " of an unknown value");
    }
    return undefined;
  };

  /** The object a receiver names in this frame (a variable, or a kernel object). */
  var lastNames = new Map();
  /** The last name of a receiver (`a.b->c` gives c; OBJECT_ALIAS_SUFFIX: `x@Alias` x), cached: receivers repeat on every iteration. */
  function lastName(name) {
    var got = lastNames.get(name);
    if (got === undefined) { got = String(name).split(/\.|->/).pop().replace(/@\w+$/, ""); lastNames.set(name, got); }
    return got;
  }

  RoleRun.prototype.objectOf = function (name, env) {
    var last = lastName(name);
    var box = env[last] || this.env[last];
    return box ? box.v : undefined;
  };

  /** Bind a returned value to a call's targets: a tuple's parts by position, else the one name. */
  RoleRun.prototype.bindReturn = function (ret, v) {
    function put(n, x) { if (ret.env[n]) ret.env[n].v = x; else ret.env[n] = { v: x }; }
    if (ret.names.length === 1 && !(v instanceof Tuple)) { put(ret.names[0], clone(v)); return; }
    ret.names.forEach(function (n, i) {
      put(n, v instanceof Tuple && i < v.items.length ? clone(v.items[i]) : new Unknown("part of a returned value"));
    });
  };

  RoleRun.prototype.execCall = function (node, env, f, ret) {
    if (this.ctx.dsl) { var dc = this.dslCall(node, env); if (dc !== PASS) return dc; }
    if (node.lambda) return this.callLambda(node, env, f, ret);
    if (!node.receiver) {
      // EPILOGUE_OPERATOR: `epilogue(...)` of a `CollectiveEpilogue epilogue;` (88 FMHA kernel
      // 409-413) calls the object's operator(), an epilogue call (EPILOGUE_CALLS).
      var callee = this.objectOf(node.name, env);
      if (callee instanceof Obj && callee.kind === "epilogue") return this.epilogueCall(node, "operator()", env, ret);
      // A free call of a function of the parse (a collective's own helper, `softmax_step<false>(...)`,
      // 77 FMHA mainloop 739) is inlined like a collective call; other free calls (fences, register
      // allocation, prefetches) are no step.
      var helper = f && f.fn ? this.ctx.functions[node.name] : K.ownKernelFunction(this.ctx, node.name);   // WHOLE_KERNEL
      return helper ? this.callFunction(helper, node, env, f, ret) : undefined;
    }
    var obj = this.objectOf(node.receiver, env);
    if (obj instanceof Scheduler) {
      if (node.handsWork) return K.schedulerCall(this, obj, node, env, ret);   // warps.js SCHEDULER_PIPELINE
      if (node.name === "advance_to_next_work") {
        var n = node.args && node.args.length ? this.eval(node.args[0], env, false) : 1;
        if (typeof n !== "number") return this.stop(node, "advance_to_next_work by an unknown count");
        obj.tile += n;
      }
      return undefined;
    }
    if (obj instanceof Obj && obj.kind === "order") return this.run.orderCall(this, obj, node);
    if (obj instanceof Obj && obj.kind === "epilogue") return this.epilogueCall(node, node.name, env, ret);
    if (obj instanceof Obj && obj.kind === "composed") {
      var own = this.ctx.functions[obj.name + "::" + node.name];
      if (!own) return this.stop(node, "`" + node.receiver + "." + node.name + "` has no program in the parse of " + this.ctx.collectives[obj.name].path);
      return this.callFunction(own, node, env, f, ret, obj);
    }
    if (obj instanceof Obj && obj.kind === "mainloop") {
      var fn = this.ctx.functions[node.name];
      if (!fn) return this.stop(node, "`" + node.receiver + "." + node.name + "` has no program in the parse");
      return this.callFunction(fn, node, env, f, ret);
    }
    return undefined;
  };

  /**
   * A call `method` (EPILOGUE_CALLS) of the collective epilogue: EPILOGUE_SM100 when handed the accumulator
   * ring, FA3's store its rule, a stop when handed a modelled pipeline, else one opaque block of its class.
   */
  RoleRun.prototype.epilogueCall = function (node, method, env, ret) {
    var cls = EPILOGUE_CALLS[method];
    if (!cls) return undefined;
    var acc = this.accumulatorArgs(node, env);
    if (acc) return this.epilogueStore(node, acc, ret);
    if (this.ctx.wg && method === "store") return this.wgEpilogue(node);
    var handed = this.pipelineArg(node, env);
    if (handed) {
      var call = node.receiver ? node.receiver + "." + node.name : node.name;
      return this.stop(node, "the epilogue collective's program is not parsed: `" + call +
        "` is handed the pipeline " + handed + ", whose waits and releases are its own");
    }
    return this.run.opaque(this, cls, node);
  };

  /**
   * The accumulator pipeline an epilogue call is handed (an argument that is a ring of a class
   * whose consumer waits on MMAs, `PipelineUmmaAsync`) and the state after it, or null.
   */
  RoleRun.prototype.accumulatorArgs = function (node, env) {
    var args = node.args || [];
    for (var i = 0; i + 1 < args.length; i++) {
      var a = args[i];
      if (!Array.isArray(a) || a[0] !== "id") continue;
      var o = this.objectOf(a[1], env);
      if (!(o instanceof Obj) || o.kind !== "pipe" || !o.data.rule || o.data.rule.waitReason !== "mma") continue;
      var b = args[i + 1], sb = Array.isArray(b) && b[0] === "id" ? env[b[1]] : null;
      if (sb && sb.v instanceof State) return { ring: o.data, state: sb.v };
    }
    return null;
  };

  /** The name of a modelled pipeline a call is handed (77 FMHA kernel 612: `pipeline_corr_epi`), else null. */
  RoleRun.prototype.pipelineArg = function (node, env) {
    var args = node.args || [];
    for (var i = 0; i < args.length; i++) {
      var a = args[i];
      if (!Array.isArray(a) || a[0] !== "id") continue;
      var o = this.objectOf(a[1], env);
      if (o instanceof Obj && o.kind === "pipe" && o.data.modelled) return a[1];
    }
    return null;
  };

  /**
   * An SM100 epilogue's store of one output tile (sm100_epilogue_tma_warpspecialized.hpp, not parsed:
   * EPILOGUE_SM100 in docs/programs.md): wait for the accumulator stage (866), the TMEM load (882),
   * release the stage (888) and advance the state (889), then convert / smem / TMA store (922, 771);
   * it returns (load state, store state, accumulator state) (955).
   */
  RoleRun.prototype.epilogueStore = function (node, acc, ret) {
    var st = acc.state.clone();
    var env = { __epi: { v: { ring: acc.ring, st: st, node: node } } };
    if (ret) {
      var after = st.clone();
      after.advance(1);
      this.bindReturn(ret, new Tuple([new Unknown("the epilogue's C load state"), new Unknown("the epilogue's store state"), after]));
    }
    this.frames.push({ nodes: K.EPILOGUE_SM100, pc: 0, env: env, loop: null, fn: null });
    return undefined;
  };

  /**
   * The variable an argument names: a name, or the chosen side of `c ? a : b` over names (`is_softmax_0
   * ? pipeline_s0_corr_producer_state : pipeline_s1_corr_producer_state`, 77 FMHA kernel 461: a
   * reference parameter then shares that variable); null for any other expression.
   */
  RoleRun.prototype.lvalueBox = function (a, env) {
    if (a[0] === "id") return env[a[1]] || null;
    if (a[0] === "?:" && Array.isArray(a[2]) && Array.isArray(a[3])) {
      var c = this.eval(a[1], env, false);
      if (isUnknown(c)) return null;
      return this.lvalueBox(truthy(c) ? a[2] : a[3], env);
    }
    return null;
  };

  /** Inline a collective function: its parameters bound to the call's arguments. */
  RoleRun.prototype.callFunction = function (fn, node, env, f, ret, obj) {
    var callee = {}, c = obj ? this.ctx.collectives[obj.name] : null;
    // A composed object's members and its class's template arguments (`using LoadK = CollectiveLoadTma<
    // LoadKind::kK, ...>`, 88 FMHA collective 170-176), then a member call's own (TEMPLATE_ARGS); parameters shadow them.
    if (c) { Object.keys(obj.data.members).forEach(function (m) { callee[m] = obj.data.members[m]; }); K.bindTemplateArgs(c.tparams, c.targs, {}, this.ctx, callee); }
    if (node.receiver) K.bindTemplateArgs(fn.tparams, node.targ_exprs, env, this.ctx, callee);
    for (var i = 0; i < fn.params.length; i++) {
      var p = fn.params[i], a = node.args[i];
      if (a === undefined) { callee[p.name] = { v: new Unknown("a default argument") }; continue; }
      var box = this.lvalueBox(a, env);
      if (box) {
        callee[p.name] = p.ref ? box : { v: clone(box.v) };
      } else {
        callee[p.name] = { v: clone(this.eval(a, env, false)) };
      }
    }
    var token = { fn: fn.name, ret: ret || null };
    this.frames.push({ nodes: fn.body, pc: 0, env: callee, loop: null, fn: token });
    return undefined;
  };

  RoleRun.prototype.execOp = function (node, env) {
    var sem = K.OP_SEMANTICS[node.op];
    if (this.ctx.dsl) {
      (this.reached || (this.reached = {}))[node.op] = true;   // dslRoles: a binding that reaches an op is a role
      if (this.trace) this.trace.push(node.line);
      if (K.DSL_OPS[node.op]) sem = K.DSL_OPS[node.op];
    }
    if (this.ctx.wg) {
      (this.reached || (this.reached = {}))[node.op] = true;   // wgRoles: a warp that reaches an op is (part of) a role
      if (this.trace && this.trace.length < WG_TRACE_OPS && !(this.ctx.mbar && K.MBAR_UNTRACED[node.op])) this.trace.push(node.line);
      if (K.WG_OPS[node.op]) sem = K.WG_OPS[node.op];
      if (this.ctx.mbar && K.MBAR_OPS[node.op]) sem = K.MBAR_OPS[node.op];   // raw rings (mbar.js)
    }
    if (!sem) return this.stop(node, "the op `" + node.op + "` is not modelled yet");
    return sem(this, node, env);
  };

  K.FRAGMENT_STAGED = FRAGMENT_STAGED; K.REGISTER_LOOP_OPS = REGISTER_LOOP_OPS;
  K.RoleRun = RoleRun; K.cpAsyncCommits = cpAsyncCommits; K.declKind = declKind;
  K.kBlocks = kBlocks; K.lastName = lastName; K.mmaFragments = mmaFragments;
  K.onlyCopies = onlyCopies; K.operandStage = operandStage; K.operandStages = operandStages; K.registerLoopClass = registerLoopClass;
  return K;
})(typeof KernelInterpretContext !== "undefined" ? KernelInterpretContext : require("./context.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretRole;
