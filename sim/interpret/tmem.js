/*
 * sim/interpret/tmem.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Tensor memory: the shape of a TMEM-load copy's partition (how many chunks a role loads and
 * stores one by one), the TMEM allocator's calls and the TMA-store pipeline, whose ops are the
 * role's own store waits (docs/programs.md "CUTLASS 77 attention backward", "FlashAttention-4
 * SM100 backward and latent attention").
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretTmem = (function (K) {
  "use strict";

  var PASS = K.PASS, Tuple = K.Tuple, Layout = K.Layout, evalExpr = K.evalExpr;

  /**
   * TMEM_LOAD_ATOMS: a TMEM load atom of 32 data paths and 32 bits, `SM100_TMEM_LOAD_32dp32b<r>x`:
   * each thread loads r 32-bit columns of its lane (cute/arch/copy_sm100.hpp 3642-3645:
   * `SM100_TMEM_LOAD_32dp32b32x` has `DRegisters = uint32_t[32]`).
   */
  var TMEM_LOAD_ATOM = /^(?:cute::)?SM100_TMEM_LOAD_32dp32b(\d+)x$/;
  /**
   * TMEM_TILE_SHAPES: the (M, N) of a tile shape type the source leaves to its instantiation, a
   * number or the knob that gives it. 77's backward `TileShapeDSK` (the dQ GEMM's tile,
   * `Shape<TileShapeQ, TileShapeDQK, TileShapeK>`, 177-187): M is TileShapeQ, 128 by its
   * static_assert (63-64); N is TileShapeDQK = `get<2>(TileShape{})` (67), a template parameter:
   * the `tileDQK` knob (sim/model_program.js: default 128, the example's default head dim).
   */
  var TMEM_TILE_SHAPES = { TileShapeDSK: [128, "tileDQK"] };

  /** The single let of each name in one program (a name two lets give is none). */
  function singleLets(body) {
    var lets = {}, clash = {};
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && (n.names || []).length === 1) {
          if (Object.prototype.hasOwnProperty.call(lets, n.names[0])) clash[n.names[0]] = true;
          lets[n.names[0]] = n.expr;
        }
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    })(body);
    Object.keys(clash).forEach(function (k) { delete lets[k]; });
    return lets;
  }

  /** The lets of the one program that declares `name` once (the kernel's or a function's), cached; else null. */
  function letsDeclaring(ctx, name) {
    var all = ctx.tmemLets || (ctx.tmemLets = [ctx.kernel || []].concat(Object.keys(ctx.functions).map(function (k) { return ctx.functions[k].body; })).map(singleLets));
    var hits = all.filter(function (lets) { return Object.prototype.hasOwnProperty.call(lets, name); });
    return hits.length === 1 ? hits[0] : null;
  }

  /** The let initializer of the name an expression is (`["id", x]`), else null. */
  function letOf(lets, e) {
    return Array.isArray(e) && e[0] === "id" && Object.prototype.hasOwnProperty.call(lets, e[1]) ? lets[e[1]] : null;
  }

  /**
   * TMEM_LOAD_PARTITIONS: `size<m>(X)` of `X = thr.partition_D(c)` where `thr = tiled.get_slice(i)`,
   * `tiled = make_tmem_copy(atom, t)`, `atom = SM100_TMEM_LOAD_32dp32b<r>x{}` and `c =
   * make_identity_tensor(take<0,2>(T{}))` of a TMEM_TILE_SHAPES tile (M, N). make_tmem_copy's
   * threads are 32 lanes by 4 warps (cute/atom/copy_traits_sm100.hpp 297-302): one copy covers
   * 128 rows by r columns, and the partition's modes are (TMEM_LOAD, TMEM_LOAD_M, TMEM_LOAD_N)
   * (277-279): mode 1 is M / 128, mode 2 N / r. 77's reduce stores dQ in size<2>(tTR_cDQ) chunks
   * of 32 columns (1430-1447, 1473; `using TileShapeDQ = _32;`, 236). Null when not this shape.
   */
  function tmemCopyMode(ctx, name, mode) {
    var lets = letsDeclaring(ctx, name), x = lets && letOf(lets, ["id", name]);
    if (!Array.isArray(x) || x[0] !== "mcall" || x[2] !== "partition_D" || (x[3] || []).length !== 1) return null;
    var thr = letOf(lets, x[1]), tiled = Array.isArray(thr) && thr[0] === "mcall" && thr[2] === "get_slice" ? letOf(lets, thr[1]) : null;
    if (!Array.isArray(tiled) || tiled[0] !== "call" || String(tiled[1]).replace(/^cute::/, "") !== "make_tmem_copy" || (tiled[2] || []).length !== 2) return null;
    var atom = letOf(lets, tiled[2][0]), m = Array.isArray(atom) && atom[0] === "call" && !(atom[2] || []).length ? TMEM_LOAD_ATOM.exec(String(atom[1])) : null;
    var c = letOf(lets, x[3][0]);
    if (m === null || !Array.isArray(c) || c[0] !== "call" || c[1] !== "make_identity_tensor" || (c[2] || []).length !== 1) return null;
    var take = c[2][0];
    if (!Array.isArray(take) || take[0] !== "call" || take[1] !== "take" || String(take[3]) !== "0,2" || (take[2] || []).length !== 1) return null;
    var tile = take[2][0], shape = Array.isArray(tile) && tile[0] === "call" && !(tile[2] || []).length &&
      Object.prototype.hasOwnProperty.call(TMEM_TILE_SHAPES, tile[1]) ? TMEM_TILE_SHAPES[tile[1]] : null;
    if (shape === null || (mode !== 1 && mode !== 2)) return null;
    var extent = shape[mode - 1], per = mode === 1 ? 128 : Number(m[1]);
    var v = typeof extent === "number" ? extent : ctx.knobs[extent];
    return typeof v === "number" && v > 0 && v % per === 0 ? v / per : null;
  }

  /**
   * TMA_STORE_PIPELINES: sm90_pipeline.hpp PipelineTmaStore (655-708) has no barriers: its
   * producer_acquire is `tma_store_wait<UnacquiredStages>()` (697-701), producer_commit
   * `tma_store_arrive()` (705-707) and producer_tail `tma_store_wait<0>()` (687-689), waits for
   * the role's own TMA stores. The run completes a store (or reduce-add) at the end of its block
   * (OP_SEMANTICS tma_store, bulk_reduce), so these ops are no step: 77's backward reduce
   * (1475, 1494, 1834).
   */
  var TMA_STORE_PIPELINES = { PipelineTmaStore: true };

  /**
   * INERT_RECEIVERS (the `controls` marks hasEffect reads): a variable of the TMEM allocator's
   * type (`TmemAllocator tmem_allocator;`, 77 bwd kernel 1673; `using TmemAllocator =
   * cute::TMEM::Allocator1Sm;`, 70): its allocate and free are no step (TMEM columns are not
   * modelled), so a runtime test around them alone is skipped: the compute's `if (warp_idx %
   * kNumComputeWarps == 0)` around `tmem_allocator.free(...)` (1812-1815).
   */
  var TMEM_ALLOCATOR_TYPES = { TmemAllocator: true, "cute::TMEM::Allocator1Sm": true };
  var INERT = "\u0000inert ";
  function markInertReceivers(bodies, controls) {
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && n.expr === null && TMEM_ALLOCATOR_TYPES[n.type]) (n.names || []).forEach(function (v) { controls[INERT + v] = true; });
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    })([].concat.apply([], bodies));
    return controls;
  }

  /** A TMEM load atom of the DSL (`tcgen05.copy.Ld32x32bOp(tcgen05.copy.Repetition(r))`): r columns per thread. */
  function TmemAtom(rep) { this.rep = rep; }
  /** FA4's copy_utils.make_tmem_copy(atom, num_wg): a tiled copy of 128 rows by `cols` columns. */
  function TmemCopy(rep, cols) { this.rep = rep; this.cols = cols; }

  /** A shape argument: its value, or of `t[:k]` (`self.mma_tiler_kq[:2]`, bwd_sm100 3332) the known tuple's first k items. */
  function prefix(a, env, ctx) {
    var k = Array.isArray(a) && a[0] === "index" && Array.isArray(a[2]) && a[2][0] === "?" ? /^:(\d+)$/.exec(String(a[2][1])) : null;
    if (k === null) return evalExpr(a, env, ctx, false);
    var t = evalExpr(a[1], env, ctx, false);
    return t instanceof Tuple && t.items.length >= Number(k[1]) ? new Tuple(t.items.slice(0, Number(k[1]))) : PASS;
  }

  /**
   * DSL_TMEM_COPIES (dslLayoutCall's hook): `cute.make_copy_atom(tcgen05.copy.Ld32x32bOp(
   * tcgen05.copy.Repetition(r)), Float32)` is a TMEM load atom of r 32-bit columns per thread
   * (bwd_sm100 3346-3348); `copy_utils.make_tmem_copy(atom, num_wg)` is a tiled copy of 128 rows
   * by r * num_wg columns (flash_attn/cute/copy_utils.py 52-62: `tiler_mn` of 128 * num_rep *
   * num_wg elements over (32, 4, num_wg) threads, asserting 32 data paths of 32 bits);
   * `cute.make_identity_tensor(s)` of a known shape is known by it.
   */
  function dslTmemCall(e, env, ctx) {
    var name = e[1], args = e[2] || [];
    if (name === "cute.make_copy_atom" && args.length === 2) {
      var op = args[0];
      if (!Array.isArray(op) || op[0] !== "call" || op[1] !== "tcgen05.copy.Ld32x32bOp" || (op[2] || []).length !== 1) return PASS;
      var rep = op[2][0];
      if (!Array.isArray(rep) || rep[0] !== "call" || rep[1] !== "tcgen05.copy.Repetition" || (rep[2] || []).length !== 1) return PASS;
      var r = evalExpr(rep[2][0], env, ctx, false);
      return typeof r === "number" && r > 0 ? new TmemAtom(r) : PASS;
    }
    if (name === "copy_utils.make_tmem_copy" && (args.length === 1 || args.length === 2)) {
      var atom = evalExpr(args[0], env, ctx, false), wg = args.length === 2 ? evalExpr(args[1], env, ctx, false) : 1;
      return atom instanceof TmemAtom && typeof wg === "number" && wg > 0 ? new TmemCopy(atom.rep, atom.rep * wg) : PASS;
    }
    if (name === "cute.make_identity_tensor" && args.length === 1) {
      var s = prefix(args[0], env, ctx);
      return s instanceof Tuple && s.items.every(function (v) { return typeof v === "number" && v > 0; }) ? new Layout(s) : PASS;
    }
    return PASS;
  }

  /**
   * DSL_TMEM_COPIES (dslMethodExpr's hook): a TMEM copy's `get_slice(t)` is the same copy (one
   * thread's slice has the copy's modes); `partition_D(X)` / `partition_S(X)` of a known shape
   * whose mode 0 is (128, N) is ((r, 1), N / cols, the other modes): each copy covers 128 rows by
   * `cols` columns (FA4's comment at bwd_sm100 3357: `((32, 1), 2, 1, 1)`). `m.partition_C(c)` of an
   * identity tensor of a known (M, N), M 128 and N at most 256, is ((M, N), 1, 1): the trivial tiled
   * MMA FA4 builds on that tile (`make_trivial_tiled_mma(..., self.mma_tiler_kq[:2])`, 471-479, for
   * `thr_mma_S.partition_C(cute.make_identity_tensor(self.mma_tiler_kq[:2]))`, 3332) is one
   * tcgen05 atom of that shape (the source's comment, 3326: `((128, 128), 1, 1)`).
   */
  function dslTmemMethod(e, obj, env, ctx) {
    var name = e[2], args = e[3] || [];
    if (obj instanceof TmemCopy && name === "get_slice" && args.length === 1) return obj;
    if (obj instanceof TmemCopy && (name === "partition_D" || name === "partition_S") && args.length === 1) {
      var t = evalExpr(args[0], env, ctx, false), sh = t instanceof Layout ? t.shape : null, m0 = sh && sh.items[0];
      if (!(m0 instanceof Tuple) || m0.items.length !== 2 || m0.items[0] !== 128 || typeof m0.items[1] !== "number" || m0.items[1] % obj.cols) return PASS;
      return new Layout(new Tuple([new Tuple([obj.rep, 1]), m0.items[1] / obj.cols].concat(sh.items.slice(1))));
    }
    if (name === "partition_C" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "call" && args[0][1] === "cute.make_identity_tensor") {
      var c = evalExpr(args[0], env, ctx, false), s = c instanceof Layout ? c.shape : null;
      if (!s || s.items.length !== 2 || s.items[0] !== 128 || s.items[1] > 256) return PASS;
      return new Layout(new Tuple([s, 1, 1]));
    }
    return PASS;
  }

  /**
   * RUNTIME_CONDITIONS `if (lane_predicate)` is true: the role's program is the thread its lane
   * predicate elects, as `cute::elect_one_sync()` is 1 (RUNTIME_CHOICES). In CUTLASS 4.2 every
   * `lane_predicate` is `cute::elect_one_sync()` except 77's backward reduce's `(threadIdx.x %
   * (kNumReduceWarps * NumThreadsPerWarp)) == 0` (1457; the MLA backward's 1433): thread 0 of the
   * reduce warps 0-3 (kWarpAssignment, 90), the one that acquires the store stage and issues the
   * dQ reduce-add (1474-1495); the others only meet it at the transpose barrier.
   */
  K.RUNTIME_CONDITIONS["if (lane_predicate)"] = 1;

  K.tmemCopyMode = tmemCopyMode; K.TMA_STORE_PIPELINES = TMA_STORE_PIPELINES; K.markInertReceivers = markInertReceivers; K.INERT_RECEIVER = INERT;
  K.dslTmemCall = dslTmemCall; K.dslTmemMethod = dslTmemMethod; K.TMEM_TILE_SHAPES = TMEM_TILE_SHAPES;
  return K;
})(typeof KernelInterpretDslSched !== "undefined" ? KernelInterpretDslSched : require("./dsl_sched.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretTmem;
