/*
 * sim/interpret/expr.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * Values (unknowns, pipeline states, tuples, objects), the rule tables (docs/programs.md "Rules"; the
 * knob symbols are constants.js's),
 * expressions, and the program preparation (consecutive TMA copies of one stage are one transaction).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own.
 */
var KernelInterpretExpr = (function (K) {
  "use strict";
  var SYMBOL_KNOBS = K.SYMBOL_KNOBS, TRIP_KNOBS = K.TRIP_KNOBS;

  // Defined in a later part: called through K at run time.
  function declKind(type) { return K.declKind(type); }
  function dslExpr(e, env, ctx, constexpr) { return K.dslExpr(e, env, ctx, constexpr); }
  function kBlocks(ctx) { return K.kBlocks(ctx); }
  function mmaFragments(ctx) { return K.mmaFragments(ctx); }
  function onlyCopies(nodes) { return K.onlyCopies(nodes); }
  function wgExpr(e, env, ctx, constexpr) { return K.wgExpr(e, env, ctx, constexpr); }

  var MAX_STEPS_PER_COMMAND = 100000;   // program steps between two engine commands (a bound on any loop)
  var TILE_KEY = 1048576;               // MMA job keys: tile * TILE_KEY + the tile's MMA count

  // ---------------------------------------------------------------------------------------------
  // Values

  /** An unknown value, with why (shown when a role stops on it). */
  function Unknown(why) { this.why = why; }
  function isUnknown(v) { return v instanceof Unknown; }
  /**
   * The Unknown an expression or program node always gives for one reason, made once and kept on
   * the node (a hidden property): a kernel's loops evaluate the same unreadable lets (tensor
   * layouts, partitions) on every iteration, and a fresh message per evaluation dominated the run.
   */
  function unknownAt(node, why) {
    var u = node.__unknown;
    if (u === undefined) {
      u = new Unknown(why());
      Object.defineProperty(node, "__unknown", { value: u, enumerable: false });
    }
    return u;
  }

  /** cutlass::PipelineState<Stages>: index, phase, count (sm90_pipeline.hpp PipelineState). */
  function State(S, index, phase, count, followed) {
    this.S = S; this.index = index; this.phase = phase; this.count = count;
    this.followed = followed !== false;   // false: a state of a pipeline the run does not model
  }
  State.prototype.advance = function (n) {
    if (!(n > 0)) return;
    var total = this.index + n, wraps = Math.floor(total / this.S);
    this.index = total - wraps * this.S;
    this.phase ^= wraps & 1;
    this.count += n;
  };
  State.prototype.clone = function () { return new State(this.S, this.index, this.phase, this.count, this.followed); };

  /** A role-enum member (`WarpGroupRole::Consumer0`). */
  function EnumValue(name) { this.name = name; }
  /** The static persistent tile scheduler (one per thread: each role has its own). */
  function Scheduler() { this.tile = 0; }
  /** A work tile's info (`work_tile_info`): the tile index the scheduler handed out. */
  function Work(tile) { this.tile = tile; }
  /** An aggregate `IsParticipant is_participant = {...}`: its members' values by name. */
  function Struct(fields) { this.fields = fields; }
  /** What `cute::make_tuple(...)` returns: a structured binding takes its parts. */
  function Tuple(items) { this.items = items; }
  /** An object whose calls have a meaning here: a pipeline, an order barrier, a collective. */
  function Obj(kind, name, data) { this.kind = kind; this.name = name; this.data = data || null; }

  /**
   * A value of an integral-constant type (`cute::true_type{}`, `cute::Int<4>{}`: INTEGRAL_CONSTANTS):
   * its type carries its compile-time value, which `decltype(v)::value` reads (FA3 mainloop 1259-1260
   * of the values the calls pass, 1308-1333); like std::integral_constant's conversion operator, it
   * is that value in a test or an arithmetic (truthy, evalBinary, `!`).
   */
  function IntConst(value) { this.value = value; }

  /**
   * A CuTe coordinate a tile scheduler returns (`make_coord(blockIdx.x, _0{}, make_coord(blockIdx.y,
   * blockIdx.z))`, 88 FMHA fmha_tile_scheduler.hpp 72-75; FMHA_BLOCK_COORDS, wg.js): its modes' values
   * (a number, or a nested Coord) and which modes are static integral constants (`_0{}`: their type
   * carries the value, `is_constant` reads it). A copy (`auto wg_coord = blk_coord;`, kernel 346) is
   * its own value (clone).
   */
  function Coord(items, statics) { this.items = items; this.statics = statics; }
  Coord.prototype.copy = function () {
    return new Coord(this.items.map(function (x) { return x instanceof Coord ? x.copy() : x; }), this.statics.slice());
  };

  function clone(v) { return v instanceof State ? v.clone() : v instanceof Work ? new Work(v.tile) : v instanceof Coord ? v.copy() : v; }

  /** What a DSL hook returns when it leaves the node to the C++ rules. */
  var PASS = { pass: true };
  /** Python's None. */
  var NONE = { none: true };
  var DRY_CHECK_MASK = 1023;  // test whether a dry run is settled every 1,024 commands (sim/interpret/settle.js)
  var WG_TRACE_OPS = 400;   // op lines of a warp's trace (RoleRun.execOp): warps group by them (sim/interpret/wg_ops.js)

  // ---------------------------------------------------------------------------------------------
  // Tables (docs/programs.md "Rules", each with the source lines it comes from)

  /** Calls whose value at run time is a documented choice (the page states it). */
  var RUNTIME_CHOICES = {
    "cute::elect_one_sync": 1, "elect_one_sync": 1,     // the elected thread's program is the role's
    "is_producer_load_needed": 0,                         // the epilogue's C load is not modelled
    "cute::block_rank_in_cluster": 0                      // the run is the cluster's first CTA (the MMA leader)
  };
  /**
   * `size(X{})` of the MMA atom's CTA shape: 1, one CTA per MMA (the 2-SM CTA pair, with a peer
   * CTA, is not modelled). SM100 kernel layer 426 (`size<0>(typename TiledMma::AtomThrID{})`) and
   * 428 (`size(AtomThrShapeMNK{}) == 2`).
   */
  var MMA_CTA_SHAPES = { "AtomThrShapeMNK": 1, "TiledMma::AtomThrID": 1, "typename TiledMma::AtomThrID": 1 };
  /**
   * `size<0>(X{})` of a TiledMMA: its thread layout's V mode (cute/atom/mma_atom.hpp 634-640:
   * `size<I...>(mma.get_thr_layout_vmnk())`), the CTAs of one MMA atom: 1 in the one-CTA run
   * (SM100 mixed-input kernel layer 421, `cta_rank_in_cluster % size<0>(TiledMma{}) == 0`). Only
   * mode 0: `size(TiledMma{})` is the whole thread layout and stays unknown.
   */
  var MMA_CTA_MODES = { "TiledMma": 1 };
  /**
   * The static persistent tile scheduler's static answers (CUTLASS 4.2
   * gemm/kernel/static_tile_scheduler.hpp: compute_epilogue 404-412, get_work_k_tile_count
   * 448-452, valid_warpgroup_in_work_tile 498-500, requires_separate_reduction 504-506); a string
   * is the knob whose value it returns. advance_to_next_work(n) moves this role's tile by n
   * (192-199), is_valid() is tile < the CTA's tiles (TILES_PER_CTA: outputTiles).
   */
  var SCHEDULER_STATIC = {
    "TileScheduler::valid_warpgroup_in_work_tile": 1, "TileScheduler::compute_epilogue": 1,
    "TileScheduler::requires_separate_reduction": 0, "TileScheduler::get_work_k_tile_count": "kTiles"
  };
  /**
   * The attention mask's trip counts (`Mask{}.get_trip_count(...)`, 77 FMHA mainloop 272, 723, 753):
   * the run takes CUTLASS 77's NoMask (collective/fmha_fusion.hpp 41-69): every KV block is an
   * unmasked one, so get_trip_count and get_unmasked_trip_count are the KV-block knob and
   * get_masked_trip_count is 0. A string is the knob whose value it returns.
   */
  var MASK_TRIP_COUNTS = { get_trip_count: "kvBlocks", get_unmasked_trip_count: "kvBlocks", get_masked_trip_count: 0 };
  /**
   * FUSION_TRIP_COUNTS: CUTLASS 88's `Fusion{}` (a template parameter of its collectives) is taken
   * as `DefaultFusion` (88 `collective/fmha_fusion.hpp` 41-81): get_trip_count is the KV blocks
   * (49: ceil_div of the KV length by the tile's), get_masked_trip_count the same (59: every block
   * runs the masked loop) and get_unmasked_trip_count 0 (69); `is_contributing` is true
   * (FusionBwdAdapter 232-237). The causal and residual fusions are not read.
   */
  var FUSION_TRIP_COUNTS = { get_trip_count: "kvBlocks", get_masked_trip_count: "kvBlocks", get_unmasked_trip_count: 0, is_contributing: 1 };
  /**
   * MMA_K_BLOCKS: `size<2>(F)` of an MMA register fragment F is the k-blocks of one k-tile (BLK_K
   * over the WGMMA's K), read where the code follows them one by one: the RS mainloop copies A
   * smem->registers per k-block while the previous k-blocks' WGMMAs run, and waits and releases
   * inside its k-block loops (sm90_mma_tma_gmma_rs_warpspecialized.hpp 616, 660, 705; the
   * mixed-input collective's `K_BLOCK_MAX = size<2>(tCrA_load)`, 853). A fragment is a name a let
   * declares with a maker below (`Tensor tCrA = mma_thread_slice.partition_fragment_A(...)`, modes
   * (MMA,MMA_M,MMA_K): RS 554), or with an immediately called lambda whose every return is
   * `make_fragment_like<T>(F)` / `make_tensor_like<T>(P(...))` of a fragment or of a partition P
   * (`partition_A`, modes (MMA,MMA_M,MMA_K,PIPE)): mixed-input 807-816. The value is the `kBlocks`
   * knob, else K_BLOCKS_DEFAULT: 4, a 64-deep k-tile of 16-bit A at the 16-deep WGMMA K of 16-bit
   * types (the RS collective asserts more than 2, 576; mixed-input at least 4, 855).
   */
  var FRAGMENT_MAKERS = { partition_fragment_A: "fragment", partition_fragment_B: "fragment", partition_A: "partition", partition_B: "partition" };
  /** FRAGMENT_CALLS: `Tensor tCrA = get_tCrA();` (emulated mma_init 897-909, mixed-input 1241-1253): both returns make_fragment_A of SmemLayoutACompute, modes (MMA,MMA_M,MMA_K,...). */
  var FRAGMENT_CALLS = { get_tCrA: "fragment" };
  /** The fragment kind an initializer makes (a FRAGMENT_MAKERS method, a FRAGMENT_CALLS call of no arguments), else null. */
  function fragmentKind(e) {
    var t = e[0] === "mcall" ? FRAGMENT_MAKERS : e[0] === "call" && !(e[2] || []).length ? FRAGMENT_CALLS : null, name = e[0] === "mcall" ? e[2] : e[1];
    return t !== null && Object.prototype.hasOwnProperty.call(t, name) ? t[name] : null;
  }
  var K_BLOCKS_DEFAULT = 4;
  /**
   * MODE_CONSTANTS: `size<m>(X)` of a tensor whose let has one of these initializer texts is the
   * named constant. The blockwise-scaling collective's MMA fragments (mma_init 762-781):
   * `flat_divide(tCrA_, mma_tile_shape_A)(_,_,_,_0{},_0{},_0{},_,_)` tiles the k mode of
   * make_fragment_A's (MMA,MMA_M,MMA_K,PIPE) by `Int<K_BLOCK_MMAS_PER_SCALE_K>{}` (767-770): modes
   * (MMA,MMA_M,MMA_K_PER_SCALE,MMA_K_REST,PIPE), and MMA_K_REST is (TileShape K / MMA K) /
   * (ScaleGranularityK / MMA K) = ScaleKsPerTile (137-142), the trip count of mma()'s 1047.
   */
  var MODE_CONSTANTS = {
    "flat_divide(tCrA_, mma_tile_shape_A)(_,_,_,_0{},_0{},_0{},_,_)": { 3: "ScaleKsPerTile" },
    "flat_divide(tCrB_, mma_tile_shape_B)(_,_,_,_0{},_0{},_0{},_,_)": { 3: "ScaleKsPerTile" }
  };
  /**
   * Runtime conditions, by their source text, whose value is a documented choice: the problem is
   * not empty (77 FMHA kernel 450, 486, 544, 580, 610: `if (get<1>(logical_problem_shape) == 0)`,
   * a KV length of zero, is false).
   */
  /**
   * Flags of the verdict that are run-time choices, not compile-time ones: a knob (knobs.flags)
   * sets them like a flag, and the page marks them "run time" (FA4 sm100's correction vote
   * `vote_ballot_sync`, DSL_RUNTIME_CHOICES).
   */
  var RUNTIME_FLAGS = { vote_ballot_sync: "the correction's rescale vote (vote_ballot_sync(scale < 1.0)): 1 rescales O every KV block" };
  var RUNTIME_CONDITIONS = { "if (get<1>(logical_problem_shape) == 0)": 0,
    // The cp.async mainloop's k-residue predicate of its first k-tile (sm90_mma_multistage_gmma_ss_
    // warpspecialized.hpp 270, 280: copy the k-block, else clear it): the run takes K a multiple
    // of BLK_K (residue_k = 0, line 388-389 of the kernel layers), so every k-block is copied.
    "if (get<1>(tAcA(0,0,k)) >= -get<2>(residue_mnk))": 1, "if (get<1>(tBcB(0,0,k)) >= -get<2>(residue_mnk))": 1,
    // SM100 cp.async mainloops: `k_residue = K - size<1>(gB_in) * size<2>(gA_in)` (K less BLK_K x the
    // k-tiles) is 0 as above: no predicated first k-tile (sm100_mma_cpasync_warpspecialized.hpp
    // 423, 468-498), no last k-tile kept back (sm100_mma_mixed_tma_cpasync_warpspecialized.hpp 619-622).
    "if (k_residue != 0 && k_tile_count > 0)": 0, "if (k_residue != 0)": 0,
    // 77's decode Load (sm100_fmha_load_cpasync_warpspecialized.hpp 279, 312): a K / V tile of the
    // KV cache is copied whole; the last, partial one (and the new token's row) by masked cp.async.
    // Either way the tile's copies then commit on the stage: the run takes every tile as a cache tile.
    "if (k_index < full_tiles_cache)": 1, "if (v_index < full_tiles_cache)": 1,   // 77 bwd kernel 1724, 1729 (grid: 1850-1855): the K/V block is inside, with m-blocks
    "if (get<1>(blk_coord) * TileShapeK{} >= get<1>(problem_shape))": 0, "if (iter_count <= 0)": 0 };
  /**
   * Arrive operations a `producer_commit(state, op)` runs on the stage's full barrier before its
   * own arrival (sm90_pipeline.hpp PipelineAsync 1121-1124), by the op's last name:
   * `cpasync_barrier_arrive` is `cp.async.mbarrier.arrive` (arch/barrier.h 728-735): one pending
   * arrival that lands when the thread's cp.async copies complete, so the phase completes when the
   * copies land. The run draws that as the copies' transaction (`cp_async`, held like a TMA
   * copy's); the commit is then no step.
   */
  /*
   * `cpasync_barrier_arrive_noinc` (`cp.async.mbarrier.arrive.noinc`, arch/barrier.h 745-760) is
   * the same landing without raising the pending count: the barrier's expected count holds it
   * instead (SM100 blockwise scaling 212-213: `NumMainloopSFProducerThreadEvents = 64`, "1 arrival
   * and 1 arrival through cp.async.mbarrier" per thread of the warp, the SF pipeline's
   * producer_arv_count, MMA-transform kernel 489), so the phase again completes when the copies land.
   */
  var COMMIT_ARRIVE_OPS = { cpasync_barrier_arrive: "landing", cpasync_barrier_arrive_noinc: "landing" };
  /** Free calls that construct a pipeline state (sm90_pipeline.hpp make_producer_start_state). */
  var STATE_MAKERS = { "cutlass::make_producer_start_state": 1, "make_producer_start_state": 1 };
  /**
   * Pipeline classes whose barrier counts the run models: a TMA producer (the full barrier
   * completes on the transaction bytes; producer_commit is no step) and consumers that release
   * one arrival per role of their group (sm90_pipeline.hpp PipelineTmaAsync).
   */
  /**
   * Each modelled pipeline class: the knob of its stage count, what producer_commit and
   * consumer_release do (`none`: no step, `arrive`: one arrival, `commit`: a tcgen05/umma commit,
   * arriving when every MMA the role issued so far completes), and the wait reasons of its
   * producer_acquire and consumer_wait. Sources: sm90_pipeline.hpp PipelineTmaAsync;
   * sm100_pipeline.hpp PipelineTmaUmmaAsync (537: consumer_release 725, 740-751 umma_arrive) and
   * PipelineUmmaAsync (119: producer_commit 212, 260-267 umma_arrive; consumer_release 242).
   */
  var PIPELINE_CLASSES = {
    "PipelineTmaAsync": { stages: "stages", commit: "none", release: "arrive", acquireReason: null, waitReason: "tma" },
    "PipelineTmaUmmaAsync": { stages: "stages", commit: "none", release: "commit", acquireReason: null, waitReason: "tma" },
    "PipelineUmmaAsync": { stages: "accStages", commit: "commit", release: "arrive", acquireReason: "acc", waitReason: "mma" },
    // sm90_pipeline.hpp PipelineAsync (1015): producer_acquire waits the empty barrier (1185-1188),
    // producer_commit arrives on the full one (1193-1195), consumer_wait waits it (1219-1223),
    // consumer_release arrives on the empty one (1236-1238). Its waits are named by the pipeline object.
    "PipelineAsync": { stages: "stages", commit: "arrive", release: "arrive", acquireReason: null, waitReason: null },
    // FlashAttention-3's hopper/sm90_pipeline_no_cluster.hpp (22-92): PipelineTmaAsync whose
    // consumer_release arrives from one thread per warpgroup (90-92); one arrival per role here too.
    "PipelineTmaAsyncNoCluster": { stages: "stages", commit: "none", release: "arrive", acquireReason: null, waitReason: "tma" },
    // CuTe DSL (flash_attn/cute/pipeline.py, over cutlass.pipeline): PipelineTmaUmma (348) is the
    // TMA-to-UMMA ring of PipelineTmaUmmaAsync; PipelineAsyncUmma (409) has threads that arrive on
    // the full barrier (producer_commit) and an MMA warp that releases by a tcgen05 commit.
    "PipelineTmaUmma": { stages: "stages", commit: "none", release: "commit", acquireReason: null, waitReason: "tma" },
    "PipelineAsyncUmma": { stages: "stages", commit: "arrive", release: "commit", acquireReason: null, waitReason: null },
    // CUTLASS 77's examples/77_blackwell_fmha/common/pipeline_mla.hpp PipelineTmaAsyncMla (49): a
    // wrapper of PipelineTmaUmmaAsync (56) built with its own barriers (producer arrival count 1,
    // 79; consumer arrival count 1 for a 1x1 cluster, 81-82). producer_acquire, producer_get_barrier
    // and consumer_wait are the wrapped class's (171-174, 203-211); consumer_release (213-216,
    // 229-247) is a tcgen05 commit on the stage's empty barrier (umma_arrive, 240, for a static
    // one-CTA cluster). Its own producer_acquire_bytes(state, bytes) (177-201) waits the empty
    // barrier at the state's phase and has the leader expect `bytes` on the full one (180, 184):
    // `acquireBytes` (OP_SEMANTICS.producer_acquire_bytes).
    "PipelineTmaAsyncMla": { stages: "stages", commit: "none", release: "commit", acquireReason: null, waitReason: "tma", acquireBytes: true },
    // sm100_pipeline.hpp PipelineTmaTransformAsync (289): a PipelineTmaAsync (295) whose producer
    // is TMA (producer_acquire 462-464 and producer_commit 467-469 are the wrapped class's: the
    // commit is a no-op for TMA, sm90_pipeline.hpp 560-562) and whose consumers are threads:
    // consumer_release (507-510) arrives on the stage's empty barrier from one signalling thread
    // per consumer warpgroup (init_masks 393-429) and the empty barrier expects
    // ceil(num_consumers / 128) per cluster row and column (357-359): one arrival per consuming
    // warpgroup role in a one-CTA cluster.
    "PipelineTmaTransformAsync": { stages: "stages", commit: "none", release: "arrive", acquireReason: null, waitReason: "tma" },
    // sm100_pipeline.hpp PipelineUmmaConsumerAsync (765): a PipelineAsync (770) whose producers are
    // threads (producer_acquire 819-821 waits the empty barrier; producer_commit 831-837 arrives on
    // the full one, which expects Params::producer_arv_count arrivals: every thread of the
    // producing role) and whose consumer is the MMA warp: consumer_release (867-869, 888-897) is a
    // tcgen05 commit (umma_arrive, 895, one-CTA MMA).
    "PipelineUmmaConsumerAsync": { stages: "stages", commit: "arrive", release: "commit", acquireReason: null, waitReason: null },
    // sm100_pipeline.hpp PipelineTmaSparseUmmaAsync (1185): a PipelineTmaUmmaAsync (Impl, 1190)
    // with its barriers (init_barriers 1209-1210, constructor 1223-1238) whose producer_try_acquire,
    // producer_tail, producer_get_barrier, consumer_try_wait, consumer_wait and consumer_release
    // forward to it (1260-1302). Its own producer_acquire(state, load_e, token) (1266-1274,
    // 1312-1322) waits the stage's empty barrier at the state's phase and has the leader expect the
    // A/B bytes plus the metadata's when load_e: the copies that follow on that barrier (sparse
    // collective 798-807: E's only when load_e) land as one transaction. No producer_commit.
    "PipelineTmaSparseUmmaAsync": { stages: "stages", commit: "none", release: "commit", acquireReason: null, waitReason: "tma" }
  };
  var MODELLED_PIPELINES = {};
  Object.keys(PIPELINE_CLASSES).forEach(function (k) { MODELLED_PIPELINES[k] = true; });
  /**
   * Calls that construct an integral-constant value (IntConst) as the source writes them, by name:
   * a number is the value (`cute::true_type{}`, FA3 mainloop 1308; cute/numeric/integral_constant.hpp
   * `using true_type = bool_constant<true>`), `bool` the template argument as a compile-time
   * condition (`cute::bool_constant<Is_local>{}`, 1233, 1333: a flag name, optionally negated, or a
   * literal), `int` an integer template argument (`cute::Int<4>{}`: a literal or a numeric constant
   * of the parse), `typed` a type then a value (`std::integral_constant<bool, true>{}`: `bool` as
   * `bool`, any other type as `int`). `_4{}` and other aliases are not read.
   */
  var INTEGRAL_CONSTANTS = { "cute::true_type": 1, "std::true_type": 1, "cute::false_type": 0, "std::false_type": 0,
    "cute::bool_constant": "bool", "std::bool_constant": "bool", "cute::Int": "int",
    "std::integral_constant": "typed", "cute::integral_constant": "typed" };

  /** Per MMA unit: the knob of one k-tile's MMA latency and the block kind. */
  var MMA_UNITS = { umma: { latency: "ummaLatency", kind: "umma" } };
  /**
   * Methods of a collective epilogue: the latency class of each (absent: no step). `operator()`:
   * the object called by its name (EPILOGUE_OPERATOR, role.js: 88 FMHA kernel 409-413).
   */
  var EPILOGUE_CALLS = { store: "epilogue", "operator()": "epilogue" };

  // ---------------------------------------------------------------------------------------------
  // Expressions

  function evalExpr(e, env, ctx, constexpr) {
    if (!Array.isArray(e)) return new Unknown("no expression");
    if (ctx.dsl) { var dv = dslExpr(e, env, ctx, constexpr); if (dv !== PASS) return dv; }   // CuTe DSL forms
    if (ctx.mbar) { var mv = K.mbarExpr(e, env, ctx, constexpr); if (mv !== PASS) return mv; }   // raw-mbarrier kernels (mbar.js)
    if (ctx.wg) { var wv = wgExpr(e, env, ctx, constexpr); if (wv !== PASS) return wv; }     // C++ warpgroup-index roles (FA3)
    switch (e[0]) {
      case "n": return e[1];
      case "id": return lookup(e[1], env, ctx, constexpr);
      case "un": {
        var a = evalExpr(e[2], env, ctx, constexpr);
        if (a instanceof IntConst) a = a.value;
        if (isUnknown(a) || typeof a !== "number") return isUnknown(a) ? a : new Unknown(e[1] + " of a non-number");
        return e[1] === "!" ? (a ? 0 : 1) : e[1] === "-" ? -a : e[1] === "~" ? ~a : a;
      }
      case "bin": return evalBinary(e, env, ctx, constexpr);
      case "?:": {
        var c = evalExpr(e[1], env, ctx, constexpr);
        if (isUnknown(c)) return c;
        return evalExpr(c ? e[2] : e[3], env, ctx, constexpr);
      }
      case "call": { var cc = K.coordCall(e, env, ctx, constexpr); return cc !== PASS ? cc : evalCall(e, env, ctx, constexpr); }
      case "is_constant": return K.isConstant(e, env, ctx);   // wg.js
      case "struct": {   // an aggregate of a struct the file defines: its members by name
        var fields = {};
        for (var f = 0; f < e[1].length; f++) fields[e[1][f]] = evalExpr(e[2][f], env, ctx, constexpr);
        return new Struct(fields);
      }
      case "member": {
        var o = evalExpr(e[1], env, ctx, constexpr);
        if (o instanceof Struct && Object.prototype.hasOwnProperty.call(o.fields, e[2])) return o.fields[e[2]];
        if (o instanceof Work && K.workMember(ctx, o, e[2]) !== PASS) return K.workMember(ctx, o, e[2]);   // WORK_BATCH (warps.js)
        return isUnknown(o) ? o : unknownAt(e, function () { return "the member `" + e[2] + "` is not evaluated"; });
      }
      case "mcall": { var bc = K.blockCoord(e, env, ctx); return bc !== PASS ? bc : evalMethod(e, env, ctx, constexpr); }
      case "decltype": {   // `decltype(x)::value` (program_expr): the compile-time value of x's integral-constant type
        var tv = evalExpr(e[1], env, ctx, false);
        if (tv instanceof IntConst && e[2] === "value") return tv.value;
        return isUnknown(tv) ? tv : new Unknown("`decltype(" + e[1][1] + ")::" + e[2] + "` of a value of no integral-constant type");
      }
      case "post": return unknownAt(e, function () { return "an increment inside an expression"; });
      default: return unknownAt(e, function () { return "not read: " + (e[1] === undefined ? e[0] : e[1]); });
    }
  }

  function evalBinary(e, env, ctx, constexpr) {
    var op = e[1];
    var a = evalExpr(e[2], env, ctx, constexpr);
    if (op === "&&" && !isUnknown(a) && !truthy(a)) return 0;
    if (op === "||" && !isUnknown(a) && truthy(a)) return 1;
    var b = evalExpr(e[3], env, ctx, constexpr);
    if (op === "&&" || op === "||") {
      if (isUnknown(b)) return b;
      if (isUnknown(a)) return op === "&&" && !truthy(b) ? 0 : op === "||" && truthy(b) ? 1 : a;
      return truthy(b) ? 1 : 0;
    }
    if (isUnknown(a)) return a;
    if (isUnknown(b)) return b;
    if (a instanceof EnumValue || b instanceof EnumValue) {
      var same = a instanceof EnumValue && b instanceof EnumValue && a.name === b.name;
      return op === "==" ? (same ? 1 : 0) : op === "!=" ? (same ? 0 : 1) : new Unknown("enum " + op);
    }
    if (a instanceof IntConst || b instanceof IntConst) {   // its value (IntConst)
      return evalBinary(["bin", op, ["n", a instanceof IntConst ? a.value : a], ["n", b instanceof IntConst ? b.value : b]], env, ctx, constexpr);
    }
    if (typeof a !== "number" || typeof b !== "number") return unknownAt(e, function () { return op + " of non-numbers"; });
    switch (op) {
      case "+": return a + b;
      case "-": return a - b;
      case "*": return a * b;
      case "/": return b === 0 ? new Unknown("division by zero") : Math.trunc(a / b);
      case "%": return b === 0 ? new Unknown("division by zero") : a % b;
      case "<": return a < b ? 1 : 0;
      case ">": return a > b ? 1 : 0;
      case "<=": return a <= b ? 1 : 0;
      case ">=": return a >= b ? 1 : 0;
      case "==": return a === b ? 1 : 0;
      case "!=": return a !== b ? 1 : 0;
      case "&": return a & b;
      case "|": return a | b;
      case "^": return a ^ b;
      case "<<": return a << b;
      case ">>": return a >> b;
      default: return new Unknown("operator " + op);
    }
  }

  function truthy(v) { return typeof v === "number" ? v !== 0 : v instanceof IntConst ? v.value !== 0 : v !== null && v !== undefined; }

  function lookup(name, env, ctx, constexpr) {
    if (Object.prototype.hasOwnProperty.call(env, name)) return env[name].v;
    if (Object.prototype.hasOwnProperty.call(ctx.roleBinding, name)) return ctx.roleBinding[name];
    if (ctx.roleVarNames[name]) { var u = new Unknown("the role of this thread"); u.roleVar = name; return u; }
    var sym = SYMBOL_KNOBS[name];
    if (sym && typeof ctx.knobs[sym] === "number") return ctx.knobs[sym];
    if (Object.prototype.hasOwnProperty.call(ctx.constants, name)) return ctx.constants[name];
    var sep = name.lastIndexOf("::");
    if (sep > 0 && ctx.enums[name.slice(0, sep)]) return new EnumValue(name);
    // A member named through its enum's namespace (`cutlass::fmha::collective::LoadKind::kK`, 88 FMHA collective 171) is `LoadKind::kK`.
    var en = sep > 0 ? name.slice(name.lastIndexOf("::", sep - 1) + 2, sep) : "";
    if (en && en !== name.slice(0, sep) && ctx.enums[en]) return new EnumValue(en + name.slice(sep));
    // `CollectiveMainloop::kOuterLoads` (88 FMHA kernel 348) is the collective's constant (collective 77).
    if (name.slice(0, 20) === "CollectiveMainloop::" && Object.prototype.hasOwnProperty.call(ctx.constants, name.slice(20))) return ctx.constants[name.slice(20)];
    if (Object.prototype.hasOwnProperty.call(K.CUTLASS_CONSTANTS, name)) return K.CUTLASS_CONSTANTS[name];   // warps.js
    if (sym) return new Unknown("`" + name + "` is the " + sym + " knob, which the run was not given");   // a knob's symbol is no flag
    if (constexpr) return ctx.flag(name);
    // COMPILE_TIME_NAMES: outside FA3 and the DSL, a name an `if constexpr` of the programs tests is
    // that compile-time flag wherever it is read (`bool do_barrier = kLoadsQSeparately;` and `else if
    // (kLoadsQSeparately && ...)`, 88 FMHA kernel 295 and 311, of the `static constexpr bool` at 55
    // that `if constexpr (kLoadsQSeparately)` tests at 272).
    // The value only: the flag is listed (ctx.flags, in reading order) where an `if constexpr` reads it.
    if (!ctx.wg && !ctx.dsl && K.compileTimeNames(ctx)[name]) return ctx.knobs.flags && ctx.knobs.flags[name] ? 1 : 0;
    var u = ctx.unknownNames[name];
    if (u === undefined) u = ctx.unknownNames[name] = new Unknown("`" + name + "` is not known");
    return u;
  }

  /**
   * TILES_PER_CTA: how many tiles one CTA's tile scheduler runs, the one hook every scheduler's
   * validity test asks (`work_tile_info.is_valid()` of CUTLASS's schedulers, the FMHA schedulers'
   * `is_valid()`, FA3's `is_valid(params)`, DeepGEMM's `get_next_block`, the DSL's
   * `work_tile.is_valid_tile`): the first rule of TILE_COUNT_RULES that holds, else the
   * `outputTiles` knob (a persistent scheduler's share of the problem). The answer and its rule are
   * kept on the context (ctx.tilesPerCta) for the run's result: the units (schedule.js
   * simulateUnits) run the problem's waves of a one-tile CTA one after another. A run that never
   * asks has no tile loop: one tile per CTA (settle.js). A single-tile rule reads no `outputTiles`,
   * so the page offers no tile slider that moves nothing (model_program.js programReads).
   */
  var TILE_COUNT_RULES = [
    // FMHA_INDIVIDUAL_SCHEDULER: the collective's option `kIsPersistent` is 0 (88 FMHA collective
    // 69, its find_option default, FIND_OPTION_DEFAULTS): 88's builder takes
    // `std::conditional_t<kIsPersistent, PersistentTileScheduler, IndividualTileScheduler>` on the
    // same option (fmha_kernel_builder.hpp 117-118), and the individual scheduler's is_valid()
    // holds until its first `++` (fmha_tile_scheduler.hpp 48, 67-82). Its collective releases Q
    // only `if (kIsPersistent)` (collective 545), so a second tile would wait for Q forever.
    { name: "FMHA_INDIVIDUAL_SCHEDULER", tiles: function (ctx) {
      return !ctx.dsl && Object.prototype.hasOwnProperty.call(ctx.constants, "kIsPersistent") && ctx.constants.kIsPersistent === 0 ? 1 : null;
    } },
    // DSL_SCHEDULER_CLASSES (dsl_sched.js): the run's scheduler class is a single-tile one.
    { name: "DSL_SCHEDULER_CLASSES", tiles: function (ctx) {
      return ctx.dslScheduler && ctx.dslScheduler.kind === "single" ? 1 : null;
    } }
  ];

  function tilesPerCta(ctx) {
    for (var i = 0; i < TILE_COUNT_RULES.length; i++) {
      var t = TILE_COUNT_RULES[i].tiles(ctx);
      if (t !== null) {
        ctx.tilesPerCta = { tiles: t, rule: TILE_COUNT_RULES[i].name + (ctx.dslScheduler ? " (" + ctx.dslScheduler.cls + ")" : "") };
        return t;
      }
    }
    ctx.tilesPerCta = { tiles: ctx.knobs.outputTiles, rule: "outputTiles" };
    return ctx.tilesPerCta.tiles;
  }

  /** A tile scheduler's validity test: 1 while `tile` (counted from 0) is below the CTA's tiles (tilesPerCta). */
  function tileValid(ctx, tile) {
    return tile < tilesPerCta(ctx) ? 1 : 0;
  }

  function evalCall(e, env, ctx, constexpr) {
    var name = e[1], args = e[2] || [];
    if (name === "min" || name === "max" || name === "cute::min" || name === "cute::max" || name === "std::min" || name === "std::max") {
      var vals = args.map(function (a) { return evalExpr(a, env, ctx, constexpr); });
      for (var i = 0; i < vals.length; i++) if (isUnknown(vals[i]) || typeof vals[i] !== "number") return isUnknown(vals[i]) ? vals[i] : new Unknown(name + " of a non-number");
      return name.slice(-3) === "min" ? Math.min.apply(null, vals) : Math.max.apply(null, vals);
    }
    if (Object.prototype.hasOwnProperty.call(SCHEDULER_STATIC, name)) {
      var sv = SCHEDULER_STATIC[name];
      return typeof sv === "string" ? ctx.knobs[sv] : sv;
    }
    if (STATE_MAKERS[name]) return new State(ctx.stagesOf(e[3] || ""), 0, 1, 0, ctx.followsPipeline(e[3] || ""));
    if (name === "cute::make_tuple" || name === "make_tuple") {
      return new Tuple(args.map(function (a) { return clone(evalExpr(a, env, ctx, constexpr)); }));
    }
    // TUPLE_GET: `get<I>(t)` of a tuple value (a by-value parameter bound to `cute::make_tuple(...)`:
    // SM103 collective mma() 1080-1085 of kernel 902-904) is its part I (cute/container/tuple.hpp).
    if ((name === "get" || name === "cute::get") && args.length === 1 && args[0][0] === "id" && /^[0-9]+$/.test(String(e[3]))) {
      var tup = evalExpr(args[0], env, ctx, constexpr), ti = Number(e[3]);
      if (tup instanceof Tuple && ti < tup.items.length) return clone(tup.items[ti]);
      if (tup instanceof Tuple || !isUnknown(tup)) return new Unknown("`get<" + ti + ">(" + args[0][1] + ")` of no tuple part");
      return new Unknown(tup.why);   // fresh, never the node's own: a let of it is not inert (its first run may be a dry run's)
    }
    // `get<1>(ThreadShape{})` of a shape the source writes as literals (parse `shapes`: 77 FMHA
    // mainloop 61 `class ThreadShape = Shape<_2, _1, _1>`, read at 340, 346, 354, 477).
    if (name === "get" && args.length === 1 && /^[0-9]$/.test(String(e[3])) && Array.isArray(args[0]) && args[0][0] === "call" &&
        ctx.shapes[args[0][1]] && !(args[0][2] || []).length) {
      var dims = ctx.shapes[args[0][1]], gi = Number(e[3]);
      return gi < dims.length ? dims[gi] : new Unknown("`get<" + gi + ">` past the rank of " + args[0][1]);
    }
    if (name === "size" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "call" &&
        Object.prototype.hasOwnProperty.call(MMA_CTA_SHAPES, args[0][1])) return MMA_CTA_SHAPES[args[0][1]];
    if (name === "size" && String(e[3]) === "0" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "call" &&
        Object.prototype.hasOwnProperty.call(MMA_CTA_MODES, args[0][1])) return MMA_CTA_MODES[args[0][1]];
    if (Object.prototype.hasOwnProperty.call(RUNTIME_CHOICES, name)) return RUNTIME_CHOICES[name];
    if (ctx.enums[name] && args.length === 1) return new Unknown("the role of this thread");
    // ROLE_WARP, the idx2crd of a batch index (warps.js).
    if (/^(?:cutlass::)?canonical_warp_idx_sync$/.test(name) && !args.length) { var rw = K.roleWarp(ctx); if (rw !== PASS) return rw; }
    if (name === "idx2crd" || name === "cute::idx2crd") { var bc = K.batchCoord(e, env, ctx, constexpr); if (bc !== PASS) return bc; }
    if ((name === "int" || name === "static_cast" || name === "uint32_t") && args.length === 1) return K.enumAsInt(ctx, evalExpr(args[0], env, ctx, constexpr), name, e[3]);
    // `cute::conditional_return<C>(a, b)` (cute/util/type_traits.hpp: a if the compile-time C,
    // else b; FA3 mainloop 763: `pipeline_v_load = cute::conditional_return<!Transpose_V>(pipeline_v,
    // pipeline_vt)`) with C a flag or its negation.
    if (name === "cute::conditional_return" && args.length === 2 && /^\s*!?\s*[A-Za-z_]\w*\s*$/.test(String(e[3] || ""))) {
      var ct = String(e[3]).trim(), neg = ct.charAt(0) === "!";
      var cv = evalExpr(["id", ct.replace(/^!\s*/, "")], env, ctx, true);
      if (!isUnknown(cv)) return evalExpr((truthy(cv) !== neg) ? args[0] : args[1], env, ctx, constexpr);
    }
    if (Object.prototype.hasOwnProperty.call(INTEGRAL_CONSTANTS, name) && !args.length) {
      var ic = integralConstant(INTEGRAL_CONSTANTS[name], String(e[3] === undefined ? "" : e[3]), env, ctx);
      if (ic !== null) return ic;
    }
    if (name === "size" && String(e[3]) === "2" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "id" &&
        mmaFragments(ctx)[args[0][1]] === "fragment") return kBlocks(ctx);
    var mc = name === "size" && args.length === 1 && Array.isArray(args[0]) && args[0][0] === "id" ? K.modeConstant(ctx, args[0][1], e[3]) : null;
    if (mc !== null) return typeof mc === "number" ? mc : evalExpr(["id", mc], env, ctx, constexpr);
    // Every test above depends on the name and the shapes of the arguments only, never on the
    // environment: a let whose initializer reaches this line is inert (RoleRun.execLet).
    return unknownAt(e, function () { return "`" + name + "(...)` is not evaluated"; });
  }

  /**
   * The IntConst of an INTEGRAL_CONSTANTS construction of kind `kind` with template arguments
   * `targs` (their text), or an Unknown made here (never the node's own: a let of one is not inert,
   * RoleRun.execLet); null when the text is not one the rule reads.
   */
  function integralConstant(kind, targs, env, ctx) {
    if (typeof kind === "number") return targs === "" ? new IntConst(kind) : null;
    if (kind === "typed") {
      var m = /^\s*(\w+)\s*,(.*)$/.exec(targs);
      return m ? integralConstant(m[1] === "bool" ? "bool" : "int", m[2], env, ctx) : null;
    }
    var t = targs.trim(), v;
    if (/^\d+$/.test(t)) v = Number(t);
    else if (t === "true" || t === "false") v = t === "true" ? 1 : 0;
    else if (kind === "bool" && /^!?\s*[A-Za-z_]\w*$/.test(t)) {   // a compile-time condition: a flag or its negation
      v = evalExpr(["id", t.replace(/^!\s*/, "")], env, ctx, true);
      if (!isUnknown(v)) v = truthy(v) !== (t.charAt(0) === "!") ? 1 : 0;
    } else if (kind === "int" && /^[A-Za-z_][\w:]*$/.test(t)) {
      v = Object.prototype.hasOwnProperty.call(ctx.constants, t) && typeof ctx.constants[t] === "number" ? ctx.constants[t] :
        new Unknown("the integral constant `" + t + "` is not a numeric constant");
    } else return null;
    return isUnknown(v) ? v : new IntConst(kind === "bool" ? (v ? 1 : 0) : v);
  }

  function evalMethod(e, env, ctx, constexpr) {
    if (Array.isArray(e[1]) && e[1][0] === "call" && e[1][1] === "Mask" && Object.prototype.hasOwnProperty.call(MASK_TRIP_COUNTS, e[2])) {
      var mv = MASK_TRIP_COUNTS[e[2]];
      return typeof mv === "string" ? ctx.knobs[mv] : mv;
    }
    if (Array.isArray(e[1]) && e[1][0] === "call" && e[1][1] === "Fusion") { var fv = K.fusionValue(ctx, e[2]); if (fv !== PASS) return fv; }
    var obj = evalExpr(e[1], env, ctx, constexpr), name = e[2];
    if (obj instanceof State) {
      if (name === "index") return obj.index;
      if (name === "phase") return obj.phase;
      if (name === "count") return obj.count;
    }
    if (obj instanceof Work && name === "is_valid") return tileValid(ctx, obj.tile);
    if (obj instanceof Scheduler) {
      if (name === "initial_work_tile_info" || name === "get_current_work") return new Work(obj.tile);
      // 77_blackwell_fmha kernel/fmha_tile_scheduler.hpp: is_valid() (69-71, 137-139) until operator++
      // (80-83, 153-156) has moved past the CTA's last tile (TILES_PER_CTA).
      if (name === "is_valid") return tileValid(ctx, obj.tile);
      // static_tile_scheduler.hpp 266-273 and 299-304: advance, then (the next work, true).
      if (name === "fetch_next_work") { obj.tile += 1; return new Tuple([new Work(obj.tile), 1]); }
      // sm100_tile_scheduler.hpp 555-562: without a reduction, fixup returns the accumulator state it got.
      if (name === "fixup" && (e[3] || []).length >= 5) return clone(evalExpr(e[3][4], env, ctx, constexpr));
      if (Object.prototype.hasOwnProperty.call(SCHEDULER_STATIC, "TileScheduler::" + name)) {
        var sv2 = SCHEDULER_STATIC["TileScheduler::" + name];
        return typeof sv2 === "string" ? ctx.knobs[sv2] : sv2;
      }
    }
    if (obj instanceof Obj && obj.kind === "epilogue" && Object.prototype.hasOwnProperty.call(RUNTIME_CHOICES, name)) return RUNTIME_CHOICES[name];
    if (Object.prototype.hasOwnProperty.call(RUNTIME_CHOICES, name) && !(obj instanceof Obj)) return RUNTIME_CHOICES[name];
    return unknownAt(e, function () { return "`." + name + "()` is not evaluated"; });
  }

  // ---------------------------------------------------------------------------------------------
  // Program preparation: consecutive TMA copies of one stage are one transaction

  /** The nodes of a body with consecutive tma_load ops on one object fused into one copy step. */
  function fuse(nodes) {
    var out = [];
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "op" && n.op === "tma_load") {
        var lines = [n.line], j = i + 1;
        while (j < nodes.length && nodes[j].node === "op" && nodes[j].op === "tma_load" && nodes[j].object === n.object) {
          lines.push(nodes[j].line);
          j++;
        }
        // The fused node keeps the first copy's fields (a DSL copy's receiver and state: `tma_load_fn(..., producer_state=...)`).
        out.push(Object.assign({}, n, { node: "op", op: "tma_load", object: n.object, line: n.line, end_line: nodes[j - 1].end_line, lines: lines, operand: n.operand }));
        i = j - 1;
        continue;
      }
      if (copyRunObject(n) !== null) { i = fuseCopyRun(nodes, i, out); continue; }   // cp.async copies of one stage
      var copy = n;
      ["body", "then", "else", "init", "step"].forEach(function (k) {
        if (Array.isArray(n[k])) { if (copy === n) copy = Object.assign({}, n); copy[k] = fuse(n[k]); }
      });
      out.push(copy);
    }
    return out;
  }

  /**
   * The pipeline object of a cp.async copy step: a `cp_async` op, or an unrolled loop whose body is
   * only cp.async copies of one object (onlyCopies: `for (int k = 0; k < size<2>(tAsA); ++k)`
   * around `copy_if`, multistage mainloop 269-276); else null.
   */
  function copyRunObject(n) {
    if (n.node === "op" && n.op === "cp_async") return n.object || null;
    if (n.node !== "loop" || n.unroll !== "unroll" || onlyCopies(n.body || []) !== true) return null;
    var objs = {};
    (function walk(ns) { ns.forEach(function (m) { if (m.node === "op") objs[m.op === "cp_async" ? m.object : "\u0000"] = true; walk(m.then || []); walk(m["else"] || []); }); })(n.body);
    var keys = Object.keys(objs);
    return keys.length === 1 && keys[0] !== "\u0000" && keys[0] !== "undefined" ? keys[0] : null;
  }

  /**
   * Consecutive cp.async copy steps of one pipeline object from nodes[i] (the A and B copies of a
   * k-tile: multistage mainloop 269-286, 305-306) are one transaction drawn as one issue: every
   * copy op of the run carries the run's lines, and all but the run's first are marked `joins`
   * (OP_SEMANTICS.cp_async: no step when the role's last copy was into the same acquire).
   * Pushes the fused steps to out; returns the index of the run's last step.
   */
  function fuseCopyRun(nodes, i, out) {
    var obj = copyRunObject(nodes[i]), j = i, lines = [];
    while (j < nodes.length && copyRunObject(nodes[j]) === obj) j++;
    function each(ns, f) {
      return ns.map(function (m) {
        if (m.node === "op" && m.op === "cp_async") return f(m);
        if (m.node !== "if" && m.node !== "loop") return m;
        var c = Object.assign({}, m);
        ["body", "then", "else"].forEach(function (k) { if (Array.isArray(m[k])) c[k] = each(m[k], f); });
        return c;
      });
    }
    var run = nodes.slice(i, j);
    each(run, function (m) { lines.push(m.line); return m; });
    var first = true;
    run.forEach(function (m) {
      out.push(each([m], function (op) {
        var f = Object.assign({}, op, { lines: lines, joins: !first });
        first = false;
        return f;
      })[0]);
    });
    return j - 1;
  }

  /**
   * REGISTER_FRAGMENTS: the makers of an owning register tensor (cute `make_fragment_like`,
   * `make_tensor_like`: `make_tensor<T>(layout)` with no pointer, tensor_impl.hpp 418-475;
   * `partition_fragment_C(mma, shape)`, atom/mma_atom.hpp 575-580).
   * A rolled loop `for (int i = 0; i < size(X); ...)` over such an X (88 FMHA backward 712-715,
   * `reg_LSE = make_fragment_like<ElementAccumulator>(acc_S)`) whose body holds only register work
   * (`fragmentLoop`: lets, assignments to no control name, free calls of no program, tests of
   * those; no op, no loop, no jump) is a register loop ("Register loops", RoleRun.enterLoop).
   */
  var REGISTER_FRAGMENTS = { make_fragment_like: true, make_tensor_like: true, partition_fragment_C: true };
  function registerWork(nodes, ctx) {
    return (nodes || []).every(function (n) {
      if (n.node === "let") return true;
      if (n.node === "set") return !(ctx.controls && ctx.controls[n.name]);
      if (n.node === "call") return !n.receiver && !n.lambda && !ctx.functions[n.name];
      if (n.node === "if") return registerWork(n.then, ctx) && registerWork(n["else"], ctx);
      return false;
    });
  }
  /** Whether `node` is a rolled loop over a register fragment the function `body` declares once. */
  function fragmentLoop(node, body, ctx) {
    var c = node.cond, init = node.init || [], iv = init.length === 1 && init[0].names ? init[0].names[0] : null;
    if (!Array.isArray(c) || c[0] !== "bin" || c[1] !== "<" || !iv || !Array.isArray(c[2]) || c[2][0] !== "id" || c[2][1] !== iv) return false;
    var b = c[3];   // plain size(X): size<k>(X) carries its modes as a fourth part
    if (!Array.isArray(b) || b[0] !== "call" || b[1] !== "size" || b.length !== 3 || b[2].length !== 1 || b[2][0][0] !== "id") return false;
    var name = b[2][0][1], lets = [];
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "let" && (n.names || []).indexOf(name) >= 0) lets.push(n);
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    })(body);
    var e = lets.length === 1 ? lets[0].expr : null;
    if (!Array.isArray(e) || e[0] !== "call" || !REGISTER_FRAGMENTS[String(e[1]).replace(/^cute::/, "")]) return false;
    return registerWork(node.body, ctx);
  }

  /** Whether nodes hold a step with an effect (an op, a call on an object, a state update). */
  function hasEffect(nodes, controls) {
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "set" && controls && !controls[n.name]) continue;
      if (n.node === "op" || n.node === "set" || (n.node === "call" && n.receiver && !(controls && controls[K.INERT_RECEIVER + n.receiver])) || n.node === "return") return true;
      if ((n.body && hasEffect(n.body, controls)) || (n.then && hasEffect(n.then, controls)) || (n["else"] && hasEffect(n["else"], controls))) return true;
    }
    return false;
  }

  /**
   * The names whose assignment can change a schedule: every name a loop's condition or step, an
   * op's state or a call's receiver reads, anywhere in the programs. An assignment to any other
   * name (`row_offset = ...` under `if (epilogue.params.ptr_LSE != nullptr)`, 77 FMHA mainloop
   * 1076-1082) is no effect, so a runtime branch holding only such steps is skipped.
   */
  function controlNames(bodies) {
    var out = {};
    function ids(e) {
      if (!Array.isArray(e)) return;
      if (e[0] === "id" && typeof e[1] === "string") out[e[1]] = true;
      for (var i = 1; i < e.length; i++) if (Array.isArray(e[i])) ids(e[i]);
    }
    (function walk(nodes) {
      (nodes || []).forEach(function (n) {
        if (n.node === "loop") { ids(n.cond); (n.step || []).forEach(function (s) { if (s.name) out[s.name] = true; }); }
        if (n.node === "op" && n.state) out[n.state] = true;
        if (n.node === "call" && n.receiver) out[n.receiver] = true;
        walk(n.body); walk(n.then); walk(n["else"]); walk(n.init);
      });
    })([].concat.apply([], bodies));
    return out;
  }

  /** Mark each deadlock wait on a barrier that never completed a phase in the run (`neverCompleted`). */
  function markNeverCompleted(deadlock, eng) {
    var byName = {};
    eng.barriers.forEach(function (b) { byName[b.name] = b; });
    deadlock.waiting.forEach(function (w) {
      var b = byName[w.barrier];
      if (b && b.completed === 0 && b.arrivals === 0) w.neverCompleted = true;
    });
  }

  /**
   * The program of the lambda `key` (`load_q@192`) of whichever function defines it, or null: a
   * static walk does not know the caller's function (RoleRun.callLambda does).
   */
  function lambdaNamed(ctx, key) {
    var keys = Object.keys(ctx.lambdas || {});
    for (var i = 0; i < keys.length; i++) if (keys[i].slice(-key.length - 2) === "::" + key) return ctx.lambdas[keys[i]];
    return null;
  }

  /**
   * Whether nodes hold an op (of kind `kind`, or any when null), at any depth, also through the
   * functions they call: a collective's own helper (a free call), a composed collective's
   * function (`Load load; load.load(...)`, 77 FMHA mainloop 250-251) and a named lambda (77's
   * cp.async Load: `load_q(...)`, whose ops are all in the lambda, load_cpasync 192-216), when ctx
   * is given.
   */
  function hasOp(nodes, kind, ctx, depth) {
    var types = {};
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.node === "op" && (kind === null || n.op === kind)) return true;
      if (ctx && n.node === "let" && n.names && n.names.length === 1 && n.type) types[n.names[0]] = declKind(n.type).base;
      if (ctx && n.node === "call" && (depth || 0) < 4) {
        var fn = n.lambda ? lambdaNamed(ctx, n.lambda) :
          n.receiver ? (ctx.collectives[types[n.receiver]] ? ctx.functions[types[n.receiver] + "::" + n.name] : null) : ctx.functions[n.name];
        if (fn && hasOp(fn.body, kind, ctx, (depth || 0) + 1)) return true;
      }
      if ((n.body && hasOp(n.body, kind, ctx, depth)) || (n.then && hasOp(n.then, kind, ctx, depth)) || (n["else"] && hasOp(n["else"], kind, ctx, depth))) return true;
    }
    return false;
  }

  K.COMMIT_ARRIVE_OPS = COMMIT_ARRIVE_OPS; K.DRY_CHECK_MASK = DRY_CHECK_MASK;
  K.EPILOGUE_CALLS = EPILOGUE_CALLS; K.EnumValue = EnumValue; K.FRAGMENT_MAKERS = FRAGMENT_MAKERS; K.FRAGMENT_CALLS = FRAGMENT_CALLS; K.fragmentKind = fragmentKind; K.MODE_CONSTANTS = MODE_CONSTANTS;
  K.INTEGRAL_CONSTANTS = INTEGRAL_CONSTANTS; K.IntConst = IntConst;
  K.K_BLOCKS_DEFAULT = K_BLOCKS_DEFAULT; K.MASK_TRIP_COUNTS = MASK_TRIP_COUNTS; K.FUSION_TRIP_COUNTS = FUSION_TRIP_COUNTS;
  K.MAX_STEPS_PER_COMMAND = MAX_STEPS_PER_COMMAND; K.MMA_UNITS = MMA_UNITS;
  K.MODELLED_PIPELINES = MODELLED_PIPELINES; K.NONE = NONE; K.Obj = Obj; K.PASS = PASS;
  K.PIPELINE_CLASSES = PIPELINE_CLASSES; K.RUNTIME_CHOICES = RUNTIME_CHOICES;
  K.RUNTIME_CONDITIONS = RUNTIME_CONDITIONS; K.RUNTIME_FLAGS = RUNTIME_FLAGS;
  K.SCHEDULER_STATIC = SCHEDULER_STATIC; K.Scheduler = Scheduler;
  K.State = State; K.Struct = Struct; K.TILE_KEY = TILE_KEY; K.TILE_COUNT_RULES = TILE_COUNT_RULES; K.tileValid = tileValid;
  K.Tuple = Tuple; K.Unknown = Unknown; K.WG_TRACE_OPS = WG_TRACE_OPS; K.Work = Work; K.Coord = Coord;
  K.clone = clone; K.controlNames = controlNames; K.evalCall = evalCall; K.evalExpr = evalExpr;
  K.REGISTER_FRAGMENTS = REGISTER_FRAGMENTS; K.fragmentLoop = fragmentLoop; K.fuse = fuse; K.hasEffect = hasEffect; K.hasOp = hasOp; K.isUnknown = isUnknown; K.lambdaNamed = lambdaNamed;
  K.markNeverCompleted = markNeverCompleted; K.truthy = truthy; K.unknownAt = unknownAt;
  return K;
})(typeof KernelInterpretConstants !== "undefined" ? KernelInterpretConstants : require("./constants.js"));

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretExpr;
