/*
 * sim/interpret/settle.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Settled dry runs (docs/programs.md "Performance"): a dry run stops once the rest of the role
 * cannot change what it is for.
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretSettle = (function (K) {
  "use strict";

  var MODELLED_PIPELINES = K.MODELLED_PIPELINES, PIPELINE_CLASSES = K.PIPELINE_CLASSES,
    RoleRun = K.RoleRun, Run = K.Run, SYMBOL_KNOBS = K.SYMBOL_KNOBS,
    cpAsyncFilled = K.cpAsyncFilled, declKind = K.declKind,
    markNeverCompleted = K.markNeverCompleted;

  // Defined in a later part: called through K at run time.
  function dryRunSettledExact(rr) { return K.dryRunSettledExact(rr); }
  function dslConsumerCount(roles) { return K.dslConsumerCount(roles); }
  function dslRingCounts(ctx, ring, name) { return K.dslRingCounts(ctx, ring, name); }
  function wgWarpSettled(rr, traces) { return K.wgWarpSettled(rr, traces); }

  // ---------------------------------------------------------------------------------------------
  // Settled dry runs (docs/programs.md "Performance"): mmaGroups's dry run of a role that issues
  // no MMA used to run to the role's end (or 100,000 commands); it stops once the rest cannot
  // change what the dry run is for.

  var DRY_MMA_OPS = { mma: true };     // op kinds whose semantics issue an MMA (RoleRun.firstMma)

  /**
   * What a node can do that a dry run observes, at any depth: {mma, names, calls}, names being
   * the names it may read as a compile-time flag (Context.flag: an `if constexpr` condition's ids
   * or its unread text, a `cute::conditional_return<C>`'s C, an order barrier's arguments,
   * evaluated when its object is declared) and calls the functions and lambdas it may call (by
   * key; any owner, any collective of that name: a superset). Cached per node.
   */
  function localDryEffects(ctx, node) {
    var cache = ctx.dryLocal || (ctx.dryLocal = new WeakMap()), got = cache.get(node);
    if (got !== undefined) return got;
    var mma = false, names = Object.create(null), calls = Object.create(null);
    function ids(e, all) {
      if (!Array.isArray(e)) return;
      if (all && e[0] === "id" && typeof e[1] === "string") names[e[1]] = true;
      if (e[0] === "call" && e[1] === "cute::conditional_return") names[String(e[3] || "").replace(/[\s!]/g, "")] = true;
      for (var i = 1; i < e.length; i++) if (Array.isArray(e[i])) ids(e[i], all);
    }
    function callsNamed(table, name, prefix) {
      Object.keys(table).forEach(function (k) { if (k === name || k.slice(-name.length - 2) === "::" + name) calls[prefix + k] = true; });
    }
    if (node.node === "op" && DRY_MMA_OPS[node.op]) mma = true;
    if (node.node === "if" && node.constexpr) { ids(node.cond, true); if (Array.isArray(node.cond) && node.cond[0] === "?") names[String(node.cond[1])] = true; }
    ["expr", "cond", "args"].forEach(function (k) { if (Array.isArray(node[k])) ids(node[k], false); });
    if (node.node === "let" && node.type && ctx.orderAliases[declKind(node.type).base]) ids(ctx.orderAliases[declKind(node.type).base].args || [], true);
    if (node.node === "call" && node.lambda) callsNamed(ctx.lambdas, node.lambda, "L:");
    else if (node.node === "call") callsNamed(ctx.functions, node.name, "F:");
    if ((node.node === "let" || node.node === "set") && Array.isArray(node.expr) && node.expr[0] === "mcall") callsNamed(ctx.functions, node.expr[2], "F:");
    ["body", "then", "else", "init", "step"].forEach(function (k) {
      (node[k] || []).forEach(function (n) {
        var d = localDryEffects(ctx, n);
        mma = mma || d.mma;
        d.names.forEach(function (x) { names[x] = true; });
        d.calls.forEach(function (x) { calls[x] = true; });
      });
    });
    got = { mma: mma, names: Object.keys(names), calls: Object.keys(calls) };
    cache.set(node, got);
    return got;
  }

  /**
   * The dry-run effects of every function and lambda with those of all it may call (a fixpoint
   * over the call graph, so recursion needs no special case): {key: {mma, names}}, once per context.
   */
  function functionDryEffects(ctx) {
    if (ctx.dryFns) return ctx.dryFns;
    var out = {};
    function seed(key, body) {
      var mma = false, names = Object.create(null), calls = Object.create(null);
      body.forEach(function (n) {
        var d = localDryEffects(ctx, n);
        mma = mma || d.mma;
        d.names.forEach(function (x) { names[x] = true; });
        d.calls.forEach(function (x) { calls[x] = true; });
      });
      out[key] = { mma: mma, names: names, calls: Object.keys(calls) };
    }
    Object.keys(ctx.functions).forEach(function (k) { seed("F:" + k, ctx.functions[k].body); });
    Object.keys(ctx.lambdas).forEach(function (k) { seed("L:" + k, ctx.lambdas[k].body); });
    for (var changed = true; changed;) {
      changed = false;
      Object.keys(out).forEach(function (k) {
        var e = out[k];
        e.calls.forEach(function (c) {
          var d = out[c];
          if (!d) return;
          if (d.mma && !e.mma) { e.mma = changed = true; }
          Object.keys(d.names).forEach(function (x) { if (!e.names[x]) { e.names[x] = changed = true; } });
        });
      });
    }
    return (ctx.dryFns = out);
  }

  /** A node's dry-run effects with those of everything it may call: {mma, names}. */
  function dryEffects(ctx, node) {
    var cache = ctx.dryCache || (ctx.dryCache = new WeakMap()), got = cache.get(node);
    if (got !== undefined) return got;
    var local = localDryEffects(ctx, node), fns = functionDryEffects(ctx), mma = local.mma, names = Object.create(null);
    local.names.forEach(function (x) { names[x] = true; });
    local.calls.forEach(function (c) {
      var d = fns[c];
      if (!d) return;
      mma = mma || d.mma;
      Object.keys(d.names).forEach(function (x) { names[x] = true; });
    });
    got = { mma: mma, names: Object.keys(names) };
    cache.set(node, got);
    return got;
  }

  /**
   * Whether a name read as a flag now would add nothing to ctx.flags: it is there already (a
   * second read keeps its place and value, the knobs being fixed), or lookup answers it before
   * Context.flag (a role variable, a knob symbol, a constant, an enum member).
   */
  function knownFlag(ctx, name) {
    if (Object.prototype.hasOwnProperty.call(ctx.flags, name) || ctx.roleVarNames[name]) return true;
    if (SYMBOL_KNOBS[name] && typeof ctx.knobs[SYMBOL_KNOBS[name]] === "number") return true;
    if (Object.prototype.hasOwnProperty.call(ctx.constants, name)) return true;
    var sep = name.lastIndexOf("::");
    return sep > 0 && !!ctx.enums[name.slice(0, sep)];
  }

  /**
   * Whether the rest of a C++ role's dry run (mmaGroups) is settled: nothing its frames still hold
   * (a frame's nodes from its pc on; a loop's whole body, test and step, as it may run again) can
   * issue an MMA or read a flag ctx.flags does not hold. Its remaining commands are then DRY, its
   * first MMA stays none and the flags stay as they are: stopping it changes no result.
   */
  function dryRunSettled(rr) {
    var ctx = rr.ctx;
    if (ctx.wg && rr.wgTraces) return wgWarpSettled(rr, rr.wgTraces);   // wgRoles's dry runs
    if (ctx.dsl || ctx.wg) return false;
    for (var i = 0; i < rr.frames.length; i++) {
      var f = rr.frames[i], from = f.loop ? 0 : f.pc, extra = f.loop ? [f.loop.cond ? { node: "loop-test", cond: f.loop.cond } : null].concat(f.loop.step || []) : [];
      var nodes = f.nodes.slice(from).concat(extra.filter(Boolean));
      for (var j = 0; j < nodes.length; j++) {
        var d = dryEffects(ctx, nodes[j]);
        if (d.mma) return dryRunSettledExact(rr);
        for (var k = 0; k < d.names.length; k++) if (!knownFlag(ctx, d.names[k])) return dryRunSettledExact(rr);
      }
    }
    return true;
  }

  /**
   * Write-after-read hazards: a copy into a stage issued while an MMA still reads the stage's
   * previous fill. The i-th `issue` block of a loading role's lane is its i-th copy, the i-th
   * `wgmma` or `umma` block of a consuming role's lane its i-th MMA (lanes hold blocks in start order,
   * and the tensor core runs a role's jobs in issue order); an MMA reading fill g of stage s is
   * overlapped when fill g + 1 of s is issued before the MMA ends. Each hazard names the stage,
   * both lines and the step.
   */
  function hazards(c, runs) {
    var issueKind = c.kinds.indexOf("issue"), mmaKinds = [c.kinds.indexOf("wgmma"), c.kinds.indexOf("umma")];
    var fills = {}, out = [];
    function laneBlocks(li, kinds, log, each) {
      if (li === undefined || !log.length) return;
      for (var id = c.laneStart[li], i = 0; id < c.laneStart[li + 1] && i < log.length; id++) {
        var k = c.kind[id];
        if (k >= 0 && (k === kinds[0] || k === kinds[1])) each(id, log[i++]);
      }
    }
    // fills[pipe][stage][gen]: the fill's issue time and line (dense arrays: gens count up per stage).
    function slot(pipe, stage) {
      var p = fills[pipe] || (fills[pipe] = []);
      return p[stage] || (p[stage] = { t: [], line: [] });
    }
    runs.forEach(function (rr) {
      laneBlocks(rr.role.lane, [issueKind, -2], rr.copyLog, function (id, rec) {
        var f = slot(rec.pipe, rec.stage);
        f.t[rec.gen] = c.start[id];
        f.line[rec.gen] = rec.line;
      });
    });
    runs.forEach(function (rr) {
      laneBlocks(rr.role.lane, mmaKinds, rr.mmaLog, function (id, rec) {
        var f = fills[rec.pipe] && fills[rec.pipe][rec.stage], g = rec.gen + 1;
        var next = f && f.t[g] !== undefined ? { t: f.t[g], line: f.line[g] } : null;
        if (next && next.t < c.end[id] && out.length < 20) {
          out.push({ stage: rec.stage, pipeline: rec.pipe, copyLine: next.line, mmaLine: rec.line, at: next.t,
            mmaEnd: c.end[id], role: rr.role.name,
            message: "stage " + rec.stage + " is refilled (line " + next.line + ") at step " + next.t +
              " while the MMA of line " + rec.line + " still reads it (until step " + c.end[id] + ")" });
        }
      });
    });
    return out;
  }

  /** The drawn wait steps of each consuming role by reason (the verdict's `waits`). */
  function waitsOf(eng) {
    var out = {};
    eng.roles.forEach(function (role) {
      if (!role.drawWaits) return;
      var w = { total: 0 };
      for (var reason in role.waits) { w[reason] = role.waits[reason]; w.total += role.waits[reason]; }
      out[role.name] = w;
    });
    return out;
  }

  /**
   * CONSUMER_WARPGROUPS: the releases a ring's empty barrier expects per stage, from the code: the
   * kernel program sets `P.num_consumers = e` on the Params P its pipeline object is constructed
   * with (88 FMHA kernel 206: `pipeline_params_outer.num_consumers = cutlass::NumThreadsPerWarpGroup;`,
   * 211: `pipeline_params_inner.num_consumers = NumMmaWarpGroups * cutlass::NumThreadsPerWarpGroup;`,
   * handed at 243-244), and PipelineTmaAsync's empty barrier counts one arrival per consumer
   * warpgroup (sm90_pipeline.hpp 304-307: `num_consumer_warpgroups_per_cluster =
   * params.num_consumers / NumThreadsPerWarpGroup`; consumer_release arrives from one signalling
   * thread per warpgroup): e / 128. Null (the largest MMA group, as before) when no such set is
   * found, there are several, or e does not evaluate to a positive multiple of 128 (the
   * cooperative kernel's `size(TiledMma{})`).
   */
  var WARPGROUP_THREADS = 128;
  function consumerWarpgroups(ctx, key) { return paramsWarpgroups(ctx, key, "num_consumers"); }
  /**
   * PRODUCER_WARPGROUPS: the commits a PipelineAsync ring's full barrier expects per stage: its
   * Params' `producer_arv_count` is the full barrier's arrival count (sm90_pipeline.hpp 1034,
   * 1049-1052) and its producer_commit arrives from every producing thread (1193-1195): the kernel's
   * `pipeline_params_reducer.producer_arv_count = NumMmaWarpGroups * cutlass::NumThreadsPerWarpGroup;`
   * (88 FMHA kernel 214, handed at 245) is both consumer warpgroups' commits (each a warpgroup role,
   * backward 806 / 822 and 834-835). Found and evaluated as CONSUMER_WARPGROUPS; else 1, as before.
   */
  function producerWarpgroups(ctx, key) { return paramsWarpgroups(ctx, key, "producer_arv_count"); }
  function paramsWarpgroups(ctx, key, member) {
    var params = {}, sets = {};
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && n.construct && (n.names || []).length === 1 && (ctx.rings.byDecl[n.names[0]] || null) === key) {
          (n.args || []).forEach(function (a) { if (Array.isArray(a) && a[0] === "id") params[a[1]] = true; });
        }
        if (n.node === "set" && n.member === member && n.op === "=") (sets[n.name] || (sets[n.name] = [])).push(n.expr);
        walk(n.body); walk(n.then); walk(n["else"]);
      });
    })(ctx.kernel);
    var exprs = [];
    Object.keys(params).forEach(function (p) { if (sets[p]) exprs = exprs.concat(sets[p]); });
    if (exprs.length !== 1) return null;
    var env = { "cutlass::NumThreadsPerWarpGroup": { v: WARPGROUP_THREADS }, "NumThreadsPerWarpGroup": { v: WARPGROUP_THREADS } };
    var v = K.evalExpr(exprs[0], env, ctx, false);
    return typeof v === "number" && v > 0 && v % WARPGROUP_THREADS === 0 ? v / WARPGROUP_THREADS : null;
  }

  Run.prototype.go = function () {
    var prims = this.ctx.prims, self = this;
    var lanes = this.layout();
    var ownGroups = this.ctx.dsl || (this.ctx.wg && !this.ctx.wgEnumRoles);
    this.groups = ownGroups ? {} : this.mmaGroups();
    var maxGroup = 1;
    Object.keys(this.groups).forEach(function (k) { if (self.groups[k] > maxGroup) maxGroup = self.groups[k]; });
    if (ownGroups) maxGroup = dslConsumerCount(this.roles);
    var eng = this.eng = new prims.Engine(lanes, { build: true, events: this.options.events !== false, capacity: this.options.capacity || 0 });
    this.orders = {};
    this.usedPipes.forEach(function (u) {
      var p = u.p, cls = Array.isArray(p["class"]) ? p["class"].join(" | ") : String(p["class"]);
      // A stage's empty barrier expects one release per role of the consuming group (the kernel
      // layer's num_consumers: one warpgroup, or every warpgroup of a cooperative TiledMma).
      // CONSUMER_WARPGROUPS, where the kernel program says how many warpgroups consume the ring.
      var own = ownGroups || self.ctx.wg ? null : consumerWarpgroups(self.ctx, u.key);
      var producers = !ownGroups && !self.ctx.wg && PIPELINE_CLASSES[cls] && PIPELINE_CLASSES[cls].commit === "arrive" ? producerWarpgroups(self.ctx, u.key) : null;
      var ring = self.pipes[u.key] = new prims.Ring(eng, u.key, self.ctx.stagesOf(u.alias), self.ringLanes[u.key], producers || 1, own || maxGroup,
        { full: { wait: [], arrive: [] }, empty: { wait: [], arrive: [] } }, []);
      ring.cls = cls;
      ring.modelled = MODELLED_PIPELINES[cls] === true;
      ring.rule = PIPELINE_CLASSES[cls] || null;
      if (self.ctx.dsl) dslRingCounts(self.ctx, ring, u.key);   // FA4 sm100: the arrival counts its create call sets
      if (self.ctx.mbar) K.mbarRingCounts(self.ctx, ring, u);   // raw rings: their init counts (mbar.js)
    });
    this.ctx.cpAsyncFilled = cpAsyncFilled(this);
    this.nameWaitReasons();
    this.tc = eng.queue("tensor core");
    var runs = [];
    this.roles.forEach(function (role, i) {
      var rr = new RoleRun(self, role, i);
      runs.push(rr);
      eng.role(role.name, role.lane, function () { return function () { return rr.next(); }; },
        { drawWaits: !role.produces });
    });
    var deadlock = eng.run();
    if (deadlock !== null) markNeverCompleted(deadlock, eng);
    var stopped = runs.filter(function (rr) { return rr.stopped; }).map(function (rr) { return rr.stopped; });
    var columns = eng.tl.finalize();
    var lineRefs = this.lineRefs(columns.linesTable);
    return {
      lineRefs: lineRefs,
      lanes: lanes, total: eng.tl.total, columns: columns, deadlock: deadlock, hazards: hazards(columns, runs),
      barriers: eng.barrierList(), barrierEvents: eng.sortedEvents(), roles: this.roles.map(function (r) {
        return { name: r.name, binding: r.binding, lane: r.lane, mmaGroup: self.groups[r.name] || null };
      }),
      stopped: stopped, flags: this.ctx.flags, busy: this.tc.busy, waits: waitsOf(eng), barrierEventsOmitted: eng.events === null,
      idle: this.ctx.idle.slice(),
      // TILES_PER_CTA (expr.js): what the run's tile scheduler answered; a run that never asked has no tile loop.
      tilesPerCta: this.ctx.tilesPerCta || { tiles: 1, rule: "no tile loop" }
    };
  };

  K.DRY_MMA_OPS = DRY_MMA_OPS; K.dryRunSettled = dryRunSettled; K.knownFlag = knownFlag;
  return K;
})(typeof KernelInterpretOps !== "undefined" ? KernelInterpretOps : require("./ops.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretSettle;
