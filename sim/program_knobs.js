/*
 * sim/program_knobs.js: the program model's knobs (docs/programs.md "The program model"): their
 * ranges and defaults, taken from the hand-written models where the knob is the same, and the
 * assumption the page states where a run reads a knob whose value the source leaves to its
 * instantiation (a template parameter). Data only; sim/model_program.js validates and uses them.
 *
 * Pure and DOM-free, plain ES2017, ASCII only, no module syntax: the page inlines it before
 * sim/model_program.js as a classic script, which makes KernelProgramKnobs a global; Node gets
 * the same object through module.exports.
 */
var KernelProgramKnobs = (function () {
  "use strict";

  /** A sibling sim/ module: the page's global (global: its value, undefined in Node), or require()d next to this file. */
  function sibling(global, file) {
    if (global !== undefined) return global;
    if (typeof require === "function" && typeof module !== "undefined") return require("./" + file);
    throw new Error("sim/program_knobs.js: " + file + " is not loaded (the page runs it before this file)");
  }
  var GM = sibling(typeof KernelModelGemm !== "undefined" ? KernelModelGemm : undefined, "model_gemm.js");
  var BW = sibling(typeof KernelModelBlackwell !== "undefined" ? KernelModelBlackwell : undefined, "model_blackwell.js");
  var AT = sibling(typeof KernelModelAttention !== "undefined" ? KernelModelAttention : undefined, "model_attention.js");
  var GEMM_KNOB_RANGES = GM.GEMM_KNOB_RANGES, GEMM_DEFAULT_KNOBS = GM.GEMM_DEFAULT_KNOBS,
    BW_KNOB_RANGES = BW.BW_KNOB_RANGES, BW_DEFAULT_KNOBS = BW.BW_DEFAULT_KNOBS;

  /** The program model's numeric knobs: the GEMM model's, less what the code decides (WGs, schedule). */
  var PROGRAM_KNOB_RANGES = {};
  ["stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "kPipeMmas"].forEach(function (k) {
    PROGRAM_KNOB_RANGES[k] = GEMM_KNOB_RANGES[k];
  });
  var PROGRAM_DEFAULT_KNOBS = { model: "program" };
  Object.keys(PROGRAM_KNOB_RANGES).forEach(function (k) { PROGRAM_DEFAULT_KNOBS[k] = GEMM_DEFAULT_KNOBS[k]; });
  // The SM100 programs' knobs (the Blackwell model's: accumulator stages, UMMA, TMEM load, store).
  ["accStages", "ummaLatency", "tmemLoadLatency", "storeLatency"].forEach(function (k) { PROGRAM_KNOB_RANGES[k] = BW_KNOB_RANGES[k]; PROGRAM_DEFAULT_KNOBS[k] = BW_DEFAULT_KNOBS[k]; });
  // The attention programs' knobs: KV blocks (the mask's trip counts, sim/interpret.js
  // MASK_TRIP_COUNTS) and the register loops' latencies (docs/programs.md "Register loops").
  PROGRAM_KNOB_RANGES.kvBlocks = AT.ATTENTION_KNOB_RANGES.kvBlocks;
  PROGRAM_DEFAULT_KNOBS.kvBlocks = AT.ATTENTION_DEFAULT_KNOBS.kvBlocks;
  // The attention backward's Q blocks of one KV block's tile (its m-block loop: FA4 bwd_sm90
  // `get_m_block_min_max`, block_info.py 83-96, ceil(seqlen_q / tile_m) without causal or local
  // masking; sim/interpret/dsl.js DSL_Q_BLOCKS). Default 4, as kvBlocks.
  PROGRAM_KNOB_RANGES.qBlocks = { min: 1, max: 4096, label: "Q blocks per KV tile (M)",
    doc: "backward m-block iterations (Q / dO blocks) per KV block's tile" };
  PROGRAM_DEFAULT_KNOBS.qBlocks = 4;
  PROGRAM_KNOB_RANGES.softmaxLatency = { min: 0, max: 10000, label: "exp loop latency (X)",
    doc: "steps of one register loop with exponentials (the softmax's MUFU work)" };
  PROGRAM_DEFAULT_KNOBS.softmaxLatency = AT.ATTENTION_DEFAULT_KNOBS.softmaxLatency;
  PROGRAM_KNOB_RANGES.mathLatency = { min: 0, max: 10000, label: "register loop latency (R)",
    doc: "steps of one register loop of other arithmetic (row max, row sum, rescale)" };
  PROGRAM_DEFAULT_KNOBS.mathLatency = 1;
  // A bulk reduce-add's latency (sim/interpret/ops.js OPAQUE_LATENCY `reduce`: the backward's dQ
  // accumulation, FA4's cpasync_reduce_bulk_add_f32, CUTLASS's SM90_TMA_REDUCE_ADD): its own class,
  // not a store's (its add lands in L2, sim/perf.js epilogueCycles reduceAdd). Default: the store's.
  PROGRAM_KNOB_RANGES.reduceLatency = { min: 0, max: 10000, label: "reduce-add latency (Ra)",
    doc: "steps of one bulk reduce-add into global memory (TMA / cp.reduce.async.bulk .add), complete at its end" };
  PROGRAM_DEFAULT_KNOBS.reduceLatency = BW_DEFAULT_KNOBS.storeLatency;
  // The k-blocks of one k-tile (sim/interpret.js MMA_K_BLOCKS: `size<2>(tCrA)` of an MMA fragment,
  // the RS mainloops' one WGMMA per k-block): a template shape the parse does not evaluate.
  PROGRAM_KNOB_RANGES.kBlocks = { min: 1, max: 64, label: "k-blocks per k-tile (B)",
    doc: "MMA k-blocks of one k-tile (size<2> of an MMA fragment: TileShape K / the MMA atom's K); the RS mainloops issue one WGMMA per k-block" };
  PROGRAM_DEFAULT_KNOBS.kBlocks = 4;
  // The scale-factor k-blocks of one k-tile (sim/interpret/constants.js SCALE_K_BLOCKS: the blockwise-
  // scaling collective's ScaleKsPerTile = TileShape K / ScaleGranularityK, 137-138, the granularity
  // a template parameter with no default). Default 1: granularity K = the tile's K, as every scale
  // config of CUTLASS's examples/81_blackwell_gemm_blockwise (SOURCE_KNOB_ASSUMPTIONS).
  PROGRAM_KNOB_RANGES.scaleKBlocks = { min: 1, max: 64, label: "scale k-blocks per k-tile (Sk)",
    doc: "blockwise scaling's ScaleKsPerTile: TileShape K / ScaleGranularityK, the scale layout's K granularity (a template parameter); each is one accumulator stage the MMA fills and the epilogue scales" };
  PROGRAM_DEFAULT_KNOBS.scaleKBlocks = 1;
  // The head dim of CUTLASS 77's backward tile (sim/interpret/tmem.js TMEM_TILE_SHAPES: TileShapeDQK =
  // get<2>(TileShape{}), a template parameter, 67). Default 128: examples/77_blackwell_fmha/
  // 77_blackwell_fmha_bwd.cu's default `int d = 128;` (119) runs run_bwd_128 (1007-1008), whose
  // TileShape is Shape<_128, _128, HeadDim, HeadDim> with HeadDim _128 (906-908) (SOURCE_KNOB_ASSUMPTIONS).
  PROGRAM_KNOB_RANGES.tileDQK = { min: 32, max: 256, label: "tile head dim (D)",
    doc: "the attention backward's TileShapeDQK (get<2> of its TileShape template parameter): the reduce stores dQ in D / 32 chunks of a 32-column TMEM load" };
  PROGRAM_DEFAULT_KNOBS.tileDQK = 128;
  // The SM103 block-scaled MMA's scale-factor vector size (sim/interpret/constants.js SYMBOL_KNOBS,
  // CONSTANT_EXPRS: `TiledMma::SFVecSize`, which the builder picks from the schedule tag, Vs16 or
  // Vs32). Default 16: CUTLASS's examples/89_sm103_fp4_ultra_gemm (SOURCE_KNOB_ASSUMPTIONS).
  // Only 16 and 32 are built (find_vector_size; can_implement, sm103 collective 525-527).
  PROGRAM_KNOB_RANGES.sfVecSize = { min: 16, max: 32, values: [16, 32], label: "scale-factor vector size (Vs)",
    doc: "SM103 block scaling's SFVecSize (16 or 32 elements per scale factor, from the kernel schedule tag): 16 gives 4 scale-factor stages per k-tile, 32 gives 2 (SF_BUFFERS_PER_TILE_K)" };
  PROGRAM_DEFAULT_KNOBS.sfVecSize = 16;
  // The SM100 sparse MMA's metadata reuse (sim/interpret/constants.js SYMBOL_KNOBS UTCCP_REUSE:
  // `UtccpReuseCnt`, 1 or 2 from the tile's K and the metadata atom's K, sparse collective 186-188).
  // Default 2: CUTLASS's examples/83_blackwell_sparse_gemm (half_t, tile K 64) (SOURCE_KNOB_ASSUMPTIONS).
  PROGRAM_KNOB_RANGES.utccpReuse = { min: 1, max: 2, values: [1, 2], label: "metadata k-tiles per E copy (Ue)",
    doc: "SM100 sparse GEMM's UtccpReuseCnt (1 or 2): the k-tiles one metadata (E) stage serves; at 2 the load copies E and the MMA copies it to TMEM every second k-tile" };
  PROGRAM_DEFAULT_KNOBS.utccpReuse = 2;
  // The CLC query's latency (sim/interpret/warps.js CLC_QUERY): the Blackwell model's knob.
  PROGRAM_KNOB_RANGES.clcLatency = BW_KNOB_RANGES.clcLatency;
  PROGRAM_DEFAULT_KNOBS.clcLatency = BW_DEFAULT_KNOBS.clcLatency;
  // The stages of the ring a tile scheduler hands its work through (sim/interpret/warps.js
  // SCHEDULER_PIPELINE: `PipelineAsync<SchedulerPipelineStageCount>`, the dispatch policy's
  // parameter, which the builder sets). Default 2: sm100_umma_builder.inl 272's
  // `conditional_return<IsGroupGemm>(8, 2)` for a GEMM that is not grouped, and the mixed TMA /
  // cp.async builder's AccumulatorPipelineStageCount + 1 (125) at one accumulator stage (SOURCE_KNOB_ASSUMPTIONS).
  PROGRAM_KNOB_RANGES.schedStages = { min: 1, max: 16, label: "scheduler pipeline stages (Ss)",
    doc: "SchedulerPipelineStageCount: the stages of the tile scheduler's response ring; the Sched warp writes at most this many tiles ahead of the slowest role's read" };
  PROGRAM_DEFAULT_KNOBS.schedStages = 2;
  // The element width of a CuTe DSL kernel's data tensors (sim/interpret/constants.js DSL_TENSOR_DTYPES:
  // `self.dk_dtype = mdK.element_type`, FA4 bwd_sm100 695, a `__call__` tensor the caller chooses).
  // Default 16: FA4's interface.py passes the backward bf16 / fp16 Q, K, V, dO (2547-2548) and dK / dV
  // `torch.empty_like(k)` (2599, 2604) (SOURCE_KNOB_ASSUMPTIONS). 8 and 32 are for what-ifs.
  PROGRAM_KNOB_RANGES.elementBits = { min: 8, max: 32, values: [8, 16, 32], label: "data element width in bits (Eb)",
    doc: "the element width of a CuTe DSL kernel's Q / K / V / dO / dK / dV tensors (their __call__ element type): FA4 backward's dK / dV epilogue stages by it (sdK_epi_tile: 128 bytes of dK per row per stage)" };
  PROGRAM_DEFAULT_KNOBS.elementBits = 16;
  // The CuTe DSL attention programs' math warpgroups (FA4 sm90 `self.num_wg_mma`, 212: tile_m / 64,
  // 2 at the default tile_m 128; sim/interpret.js DSL_SELF_KNOBS): the attention model's C knob.
  PROGRAM_KNOB_RANGES.consumerWGs = AT.ATTENTION_KNOB_RANGES.consumerWGs;
  PROGRAM_DEFAULT_KNOBS.consumerWGs = 2;

  /**
   * SOURCE_KNOB_ASSUMPTIONS: stated where the run reads the knob: a value the source leaves to its
   * instantiation (a template parameter), with the default and where it comes from.
   */
  var SOURCE_KNOB_ASSUMPTIONS = {
    scaleKBlocks: "blockwise scaling's ScaleKsPerTile (TileShape K / ScaleGranularityK, a template parameter the source leaves open) is the scale k-blocks knob (Sk), default 1: one scale block per k-tile, as CUTLASS's examples/81 configure it",
    tileDQK: "the attention backward's TileShapeDQK (get<2> of the TileShape template parameter) is the tile head dim knob (D), default 128: examples/77's default d = 128 runs TileShape (128, 128, 128, 128)",
    sfVecSize: "SM103 block scaling's SFVecSize (TiledMma::SFVecSize, which the builder picks from the kernel schedule tag) is the scale-factor vector size knob (Vs), default 16: four scale-factor stages per k-tile, as CUTLASS's examples/89 builds it",
    schedStages: "the tile scheduler's response ring has SchedulerPipelineStageCount stages (a dispatch-policy parameter the builder sets: 8 for a grouped GEMM and 2 otherwise in sm100_umma_builder.inl 272, AccumulatorPipelineStageCount + 1 in the mixed TMA / cp.async builder, 125), the scheduler stages knob (Ss), default 2",
    elementBits: "the CuTe DSL kernel's data tensors' element type (`self.dk_dtype = mdK.element_type` of a `__call__` tensor, which the source leaves to its caller) is the element width knob (Eb): dK dtype 16-bit (assumed, as FA4's interface.py passes bf16 / fp16 inputs, 2547-2548, and dK = torch.empty_like(k), 2599; float32 dK / dV accumulators only with GQA's dKV_postprocess, 3022-3023)",
    utccpReuse: "SM100 sparse GEMM's UtccpReuseCnt (the metadata atom's K over the tile's K when the tile's K is smaller, else 1; both template choices) is the metadata reuse knob (Ue), default 2: one E copy per two k-tiles, as CUTLASS's examples/83 builds it (half_t, tile K 64)"
  };

  return { PROGRAM_KNOB_RANGES: PROGRAM_KNOB_RANGES, PROGRAM_DEFAULT_KNOBS: PROGRAM_DEFAULT_KNOBS, SOURCE_KNOB_ASSUMPTIONS: SOURCE_KNOB_ASSUMPTIONS };
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelProgramKnobs;
