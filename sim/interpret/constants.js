/*
 * sim/interpret/constants.js: part of the role-program interpreter (sim/interpret.js, docs/programs.md).
 *
 * The run's named constants: the source names that are knobs (SYMBOL_KNOBS, TRIP_KNOBS), the
 * builder-set values (FASTF32_BUILDER), and the constants of the parse a run knows (runConstants:
 * literals, sums, option defaults, and the expressions of CONSTANT_EXPRS).
 *
 * The parts share one namespace (K): each takes what an earlier part defines by name at load
 * time and calls what a later part defines through K (late bound), so the parts load in the
 * order of render_waveform.py INTERPRET_JS_ASSETS and none holds state of its own. This part is
 * the first: it binds nothing.
 */
var KernelInterpretConstants = (function () {
  "use strict";
  var K = {};

  // ---------------------------------------------------------------------------------------------
  // Tables (docs/programs.md "Rules", each with the source lines it comes from)

  /** Source names that are knobs: a symbol the source leaves to its instantiation. */
  var SYMBOL_KNOBS = {
    "K_PIPE_MMAS": "kPipeMmas", "DispatchPolicy::Stages": "stages", "Stages": "stages", "K_PIPE_MAX": "stages",
    "MainloopPipeline::Stages": "stages",
    // `min(Load2TransformPipeline::Stages, k_tile_count)` (SM100 mixed-input kernel layer 687): the
    // load-to-transform ring's DispatchPolicy::Load2TransformPipelineStageCount (mixed-input collective 244-246).
    "Load2TransformPipeline::Stages": "stages",
    // `min(MainloopABPipeline::Stages, k_tile_count)` (SM100 MMA-transform kernel layer 658, SM103
    // block-scaled kernel layer 686) and `min(MainloopSFPipeline::Stages/2, k_tile_count)` (SM103 805):
    // rings of the stages knob (blockwise-scaling collective 189-195: DispatchPolicy::Stages; SM103
    // collective 206-215: LoadABPipelineStageCount / LoadSFPipelineStageCount of one StageCount<N>).
    "MainloopABPipeline::Stages": "stages", "MainloopSFPipeline::Stages": "stages",
    // SCALE_K_BLOCKS: `ScaleKsPerTile = size<2>(TileShape{}) / ScaleGranularityK` (blockwise-scaling
    // collective 137-138; the granularity is `size<1, 0>(LayoutSFA{})`, a template parameter with no
    // default): the scaleKBlocks knob, default 1 (examples/81's scale configs, granularity K = tile K).
    "ScaleKsPerTile": "scaleKBlocks",
    // FASTF32_BUILDER: `StagesPerTile = size<2>(CtaShapeA_MK{}) / DispatchPolicy::AccPromotionInterval`
    // (emulated collective 201; CtaShapeA_MK = partition_shape_A(TiledMma, (tile M, tile K)), modes
    // (MMA,MMA_M,MMA_K), 147) is the k-blocks knob over the builder's AccPromotionInterval 1.
    "StagesPerTile": "kBlocks",
    // CONSTANT_EXPRS: the SM103 collective's `static constexpr int SFVecSize = TiledMma::SFVecSize;`
    // (sm103_blockscaled_mma_warpspecialized.hpp 129): the MMA atom's scale-factor vector size, which
    // the builder picks from the kernel schedule tag (builders/sm1xx_common.inl find_vector_size,
    // 137-183: the `...Vs16Sm103` tags 16, others 32): the sfVecSize knob, default 16 (CUTLASS's
    // examples/89_sm103_fp4_ultra_gemm builds `KernelTmaWarpSpecialized1SmBlockScaledMxNvf4UltraVs16Sm103`, 134).
    "TiledMma::SFVecSize": "sfVecSize",
    // UTCCP_REUSE: the SM100 sparse collective's `UtccpReuseCnt = ((size<2>(TileShape{}) /
    // SparseConfig::TensorEAtomK{}) == 0) ? TensorEAtomK{} / size<2>(TileShape{}) : 1` (sparse
    // collective 186-188: 1 or 2, from the tile's K and the metadata atom's K, which the element
    // type picks, builders/sm1xx_sparse_config.inl 122-134): the utccpReuse knob, default 2 (CUTLASS's
    // examples/83 builds half_t A, 91, with tile K 64, 118: the F16 atom's K is 16 x 2 x 4 = 128).
    "UtccpReuseCnt": "utccpReuse"
  };
  var TRIP_KNOBS = { "k_tile_count": "kTiles", "iter_count": "qBlocks" };   // unevaluable trip-count variables' knobs (77 bwd 1726: m-blocks)

  /**
   * FASTF32_BUILDER: the FastF32 (9xBF16) dispatch policy's members, which its only builder sets
   * (collective/builders/sm100_9xBF16_umma_builder.inl 146 ScalingFactor 8, 202 NumBandsToCompute 5,
   * 203 AccPromotionInterval 1; dispatch_policy.hpp 1119-1124, 1228-1233 for the array twin): the
   * emulated collectives read them as `DispatchPolicy::X` and as their own copies (emulated 197-199).
   * No other CUTLASS source names the first two; `DispatchPolicy::ScalingFactor` only the emulated
   * collectives' transform (644, 665; the mixed-input builder's own is 1, read by no collective). With them the MMA's band `if constexpr`s run all five bands
   * (834, 843) and its `for (s = 1; s < AccPromotionInterval)` loops none; StagesPerTile is kBlocks.
   */
  var FASTF32_BUILDER = { "DispatchPolicy::NumBandsToCompute": 5, "NumBandsToCompute": 5, "DispatchPolicy::AccPromotionInterval": 1,
    "AccPromotionInterval": 1, "DispatchPolicy::ScalingFactor": 8 };

  /**
   * Constants the parse keeps as text that is a sum of integer constants and literals
   * (`static constexpr int StageCountKV = StageCountK + StageCountV;`, 77 MLA mainloop 77-79: 2):
   * their value, in source order, into `constants`. Any other text stays no constant.
   */
  function constantSums(constants, list) {
    function factor(t) {
      if (/^[0-9]+$/.test(t)) return Number(t);
      return Object.prototype.hasOwnProperty.call(constants, t) && typeof constants[t] === "number" ? constants[t] : null;
    }
    list.forEach(function (c) {
      if (typeof c.value !== "string" || SYMBOL_KNOBS[c.name] || Object.prototype.hasOwnProperty.call(constants, c.name)) return;
      // A term may be a product (`StageCountQ = 2 /*K, V*/ * NumMmaWarpGroups;`, 88 FMHA bwd collective 61).
      var terms = c.value.split("+"), sum = 0;
      for (var i = 0; i < terms.length; i++) {
        var fs = terms[i].split("*"), prod = 1;
        for (var j = 0; j < fs.length; j++) { var f = factor(fs[j].trim()); if (f === null) return; prod *= f; }
        sum += prod;
      }
      constants[c.name] = sum;
    });
  }

  /**
   * FIND_OPTION_DEFAULTS: a constant written `find_option_t<Tag::kX, D, Options...>::value` (88 FMHA
   * collective 69-75, kernel 54-55) is its default D (fmha_options.hpp 41-44: find_option of no
   * matching option is Default): the kernel the example's builder makes for the cooperative
   * schedule passes no Options (kernel/fmha_kernel_builder.hpp 109-120). D is `Int<N>` (N a literal
   * or a constant), `true_type` or `false_type`; the list entry comes back with D as its value text.
   */
  var RE_FIND_OPTION = /^\s*(?:cutlass::fmha::kernel::)?find_option_t\s*<\s*Tag::\w+\s*,\s*(.+?)\s*,\s*Options\s*\.\.\.\s*>\s*::\s*value\s*$/;
  function optionDefault(c) {
    var m = typeof c.value === "string" ? RE_FIND_OPTION.exec(c.value) : null;
    if (m === null) return c;
    var d = m[1], int = /^(?:cute::)?Int\s*<\s*(\w+)\s*>$/.exec(d);
    var text = int ? int[1] : /^(?:cute::|std::)?true_type$/.test(d) ? "1" : /^(?:cute::|std::)?false_type$/.test(d) ? "0" : null;
    return text === null ? c : Object.assign({}, c, { value: text });
  }


  /**
   * CONSTANT_EXPRS: a collective's `static constexpr int X = e;` (or `static int constexpr`) that a
   * program reads, which the parse gives with e's tree (parse_cutlass find_constants, `expr`), is
   * e's value when e is integer arithmetic, comparisons and `?:` over literals, the constants
   * before it and the knobs of SYMBOL_KNOBS: the SM103 collective's `SF_BUFFERS_PER_TILE_K =
   * SFVecSize == 16 ? 4 : 2` (151), of `SFVecSize = TiledMma::SFVecSize` (129, the sfVecSize knob).
   * Any other e leaves X unknown, as before. Null for a value that is no integer.
   */
  function constantExpr(e, constants, knobs) {
    var has = Object.prototype.hasOwnProperty;
    if (!Array.isArray(e)) return null;
    switch (e[0]) {
      case "n": return typeof e[1] === "number" ? e[1] : null;
      case "id":
        if (has.call(SYMBOL_KNOBS, e[1])) return typeof knobs[SYMBOL_KNOBS[e[1]]] === "number" ? knobs[SYMBOL_KNOBS[e[1]]] : null;
        return has.call(constants, e[1]) && typeof constants[e[1]] === "number" ? constants[e[1]] : null;
      case "?:": {
        var c = constantExpr(e[1], constants, knobs);
        return c === null ? null : constantExpr(c !== 0 ? e[2] : e[3], constants, knobs);
      }
      case "un": {
        var u = constantExpr(e[2], constants, knobs);
        return u === null ? null : e[1] === "-" ? -u : e[1] === "!" ? (u === 0 ? 1 : 0) : e[1] === "+" ? u : null;
      }
      case "bin": {
        var a = constantExpr(e[2], constants, knobs), b = constantExpr(e[3], constants, knobs);
        if (a === null || b === null) return null;
        switch (e[1]) {
          case "+": return a + b;
          case "-": return a - b;
          case "*": return a * b;
          case "/": return b === 0 ? null : Math.trunc(a / b);
          case "%": return b === 0 ? null : a % b;
          case "==": return a === b ? 1 : 0;
          case "!=": return a !== b ? 1 : 0;
          case "<": return a < b ? 1 : 0;
          case ">": return a > b ? 1 : 0;
          case "<=": return a <= b ? 1 : 0;
          case ">=": return a >= b ? 1 : 0;
          default: return null;
        }
      }
      default: return null;
    }
  }

  /**
   * DSL_TENSOR_DTYPES: the element width of a CuTe DSL kernel's `__call__` tensor, by the
   * parameter's name (programs_dsl CALL_ELEMENT_TYPES: `self.dk_dtype = mdK.element_type`, FA4
   * bwd_sm100 688-696). The source leaves it to the caller, so it is what FA4's interface.py passes
   * the SM100 backward (`_flash_attn_bwd`): Q, K, V and dO bf16 / fp16 ("inputs must be float16 or
   * bfloat16", 2547-2548), dK and dV `torch.empty_like(k)` / `(v)` (2599, 2604): the elementBits
   * knob, default 16 (sim/program_knobs.js SOURCE_KNOB_ASSUMPTIONS); with GQA (`dKV_postprocess =
   * qhead_per_kvhead > 1 ...`, 2648; the kernel's own attribute, bwd_sm100 702) the kernel gets
   * dk_accum / dv_accum, float32 (2656-2684, 3022-3023: `accum`); LSE (log2), dPsum and dQaccum
   * are float32 (2613-2642). A parameter not listed has no known width.
   */
  var DSL_TENSOR_DTYPES = {
    mQ: { knob: "elementBits" }, mK: { knob: "elementBits" }, mV: { knob: "elementBits" }, mdO: { knob: "elementBits" },
    mdK: { knob: "elementBits", accum: "dKV_postprocess" }, mdV: { knob: "elementBits", accum: "dKV_postprocess" },
    mLSE: { bits: 32 }, mdPsum: { bits: 32 }, mdQaccum: { bits: 32 }
  };

  /**
   * The constants of a run: the kernel layer's literals (a name two of them give different
   * values, two schedule structs of one file, is none), the parse's literals and sums
   * (constantSums), its option defaults (FIND_OPTION_DEFAULTS), CONSTANT_EXPRS, then the
   * FASTF32_BUILDER values the parse does not give.
   */
  function runConstants(structure, knobs) {
    var kl = structure.kernel_layer || {}, constants = {}, conflicting = {}, list = structure.constants || [];
    (kl.constants || []).forEach(function (c) {
      if (typeof c.value !== "number") return;
      if (Object.prototype.hasOwnProperty.call(constants, c.name) && constants[c.name] !== c.value) conflicting[c.name] = true;
      constants[c.name] = c.value;
    });
    Object.keys(conflicting).forEach(function (n) { delete constants[n]; });
    list.forEach(function (c) { if (typeof c.value === "number" && !SYMBOL_KNOBS[c.name]) constants[c.name] = c.value; });
    constantSums(constants, list.map(optionDefault));
    list.forEach(function (c) {
      if (!c.expr || SYMBOL_KNOBS[c.name] || Object.prototype.hasOwnProperty.call(constants, c.name)) return;
      var v = constantExpr(c.expr, constants, knobs);
      if (v !== null) constants[c.name] = v;
    });
    Object.keys(FASTF32_BUILDER).forEach(function (n) { if (!Object.prototype.hasOwnProperty.call(constants, n)) constants[n] = FASTF32_BUILDER[n]; });
    return constants;
  }

  K.DSL_TENSOR_DTYPES = DSL_TENSOR_DTYPES; K.SYMBOL_KNOBS = SYMBOL_KNOBS; K.TRIP_KNOBS = TRIP_KNOBS; K.FASTF32_BUILDER = FASTF32_BUILDER;
  K.constantExpr = constantExpr; K.runConstants = runConstants;
  return K;
})();

if (typeof module !== "undefined" && module.exports) module.exports = KernelInterpretConstants;
