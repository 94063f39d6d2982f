"""Pathological parser inputs, shared by tests/test_pathological.py and bench/bench_parse.py.

Two families:
  * generic shapes (long lines, unbalanced brackets, deep nesting, one huge line, ...);
  * near-matches of every RE_* pattern in parse_cutlass, generated from one matching sample
    per pattern (NEAR_MATCH_SAMPLES): every prefix of the sample and the sample with each single
    character deleted, repeated. A pattern added to parse_cutlass without a sample here fails
    test_every_pattern_has_a_near_match_sample, so the family stays complete.
"""

import parse_cutlass
import program_expr
import programs_cpp

# The modules whose RE_* patterns run on every parse: parse_cutlass's by name, the role-program
# readers' as "module.NAME".
PATTERN_MODULES = {"": parse_cutlass, "programs_cpp.": programs_cpp, "program_expr.": program_expr}

# One text each pattern matches (checked by the tests). The text is placed inside a function body
# of a mainloop-looking file so the per-function patterns are exercised too.
NEAR_MATCH_SAMPLES = {
    "RE_LEXEME": '/* c */ "s\\"" \'c\' // x',
    "RE_USING": "using MainloopPipeline = cutlass::PipelineTmaAsync<Stages>;",
    "RE_TEMPLATE_PIPELINE_PARAM": "template <class T, class MainloopPipeline> struct S {};",
    "RE_NOT_PIPELINE": "PipelineState",
    "RE_TYPE_HEAD": "typename cutlass::PipelineTmaAsync<",
    "RE_PIPELINE_NAME": "PipelineTmaAsync",
    "RE_CONDITIONAL": "cute::conditional_t<B, cutlass::PipelineTmaAsync<S>, cutlass::PipelineAsync<S>>",
    "RE_ARRAY_ALIGNED": "cute::array_aligned<T, cute::cosize_v<SmemLayoutA>> smem_A;",
    "RE_COSIZE_LAYOUT": "cosize_v<SmemLayoutA>",
    "RE_MEMBER_NAME": " smem_A[4];",
    "RE_STRUCT_HEAD": "struct alignas(16) [[nodiscard]] SharedStorage final {",
    "RE_TEMPLATE_PREFIX": "template <class T>",
    "RE_PIPE_OP": "pipeline.template producer_acquire<true>(smem_pipe_write);",
    "RE_COPY_CALL": "cute::copy(params.tma_load_a.with(*tma_barrier, mcast_mask_a), tAgA, tAsA);",
    "RE_TMA_WITH": "mainloop_params.tma_load_a.with(",
    "RE_TMA_OPERAND": "tma_load_V_new",
    "RE_GMEM_COPY": "params.gmem_tiled_copy_a",
    "RE_BARRIER_NAME": "shared_storage.pipelines.barrier_Q",
    "RE_GEMM_CALL": "flash::gemm</*zero_init=*/true>(tiled_mma_qk, tSrQ, tSrK, tSrS);",
    "RE_SOFTMAX_WORD": "softmax.template max_get_scale<true>(tSrS);",
    "RE_MEMBER_CALL_TAIL": ".template online_softmax<true>(",
    "RE_ORDER_OP": "math_wg_order_barrier.wait(); warp_scheduler_barrier_sync();",
    "RE_BARRIER_OP": "shared_storage.pipelines.barrier_Q.arrive_and_expect_tx(kBytes); barrier_Q.wait(work_idx % 2);",
    "RE_LAMBDA": "auto consumer_wait = [](auto& pipeline, auto& smem_pipe_read) {",
    "RE_LOAD_HELPER": "LoadK load_k{params.tma_load_k, pipeline_k, storage.smem_k};",
    "RE_AUTO_LOCAL": "auto& pipe = pipeline_k;",
    "RE_ROLE_ENUM": "enum class WarpGroupRole : int32_t { Producer = 0, Consumer0 = 1 };",
    "RE_WARPGROUP_COUNT": "static constexpr uint32_t NumMmaWarpGroups = 2;",
    "RE_ORDER_BARRIER": "using MathWarpGroupOrderBarrier = cutlass::OrderedSequenceBarrier<1, 2>;",
    "RE_KERNEL_TAG": "KernelTmaWarpSpecializedPingpong",
    "RE_KERNEL_CALL": "collective_mainloop.template load<true>(params, pipeline);",
    "RE_MAINLOOP_CALL": "collective_mainloop.mma(",
    "RE_INT_LITERAL": " (2u) ",
    "RE_DRIVER": "cutlass::gemm::collective::CollectiveBuilder",
    "RE_ARCH_NAME": "sm90_",
    "RE_ARCH_TAG": "cutlass::arch::Sm90",
    "RE_ANGLE_STOP": "<",
    "RE_STATEMENT_STOP": ";",
    "RE_SCAN_PREFILTER": "PipelineTmaAsync <",
    "RE_SCOPE_BRACE": "void f() {",
    "RE_SPACES": "  ",
    "RE_IDENT": "smem_pipe_read",
    "RE_SPLIT_STOP": ",",
    "RE_TYPED_NAME": "typename cute::MainloopPipeline const& pipeline,",
    "RE_NAMED_CALL": "consumer_wait(pipeline_k, smem_pipe_read);",
    "RE_MEMBER_CALL": "load_k.template step<true>(smem_pipe_write);",
    # schema v2
    "RE_1SM": "SM100_MMA_F16BF16_SS_1SM",
    "RE_2SM": "SM100_MMA_F16BF16_2x1SM_SS",
    "RE_ACC_STAGES": "static constexpr uint32_t AccumulatorPipelineStageCount = 2;",
    "RE_ASSIGNMENT": "int read_stage = smem_pipe_read.index();",
    "RE_BARRIER_ASSIGN": "BarrierType* tma_barrier = ",
    "RE_LOCAL_DEF": "Vec* dst_ptr = &dst(i);",
    "RE_RETURN": "return WarpRole::Softmax0;",
    "RE_RAW_CP_ASYNC": "cutlass::arch::cp_async_zfill<16, cutlass::arch::CacheOperation::Always>(",
    "RE_SMEM_NAME": "shared_tensors.smem_lse.begin()",
    "RE_BULK_REDUCE": "SM90_BULK_REDUCE_ADD",
    "RE_CLC": "cutlass::PipelineCLCFetchAsync<Stages, ClusterShape>",
    "RE_CONSTANT": "static constexpr int K_PIPE_MMAS = 1;",
    "RE_DECLARED_AFTER_TYPE": " const& pipelines,",
    "RE_GET_ELEMENT": "auto pipeline_ab = cute::get<0>(pipelines);",
    "RE_GLOBAL_PARTITION": "tDgC(_, k)",
    "RE_SHARED_PARTITION": "tOsO(_, _, s)",
    "RE_REGISTER_PARTITION": "tOrO(_, k)",
    "RE_DIRECTIVE_LINE": "#if __CUDA_ARCH__ >= 900",
    "RE_CUDA_ARCH_GUARD": "__CUDA_ARCH__ >= 1000",
    "RE_PARTITION": "filter_zeros(tSFAsSFA(_,_,_,k))",
    "RE_KERNEL_TAG_ANY": "KernelTmaWarpSpecialized2SmSm100",
    "RE_LAMBDA_TAIL": " CUTLASS_LAMBDA_FUNC_INLINE mutable -> int ",
    "RE_NAMED_BARRIER_DECL": "arch::NamedBarrier tmem_allocation_result_barrier(NumThreads, Id);",
    "RE_NAMED_BARRIER_OBJ_CALL": "tmem_allocation_result_barrier.arrive_and_wait();",
    "RE_NAMED_BARRIER_CALL": "cutlass::arch::NamedBarrier::sync(NumThreads, BarrierId);",
    "RE_PLAIN_IDENT": "smem_pipe_read.index()",
    "RE_QUALIFIED_PIPELINE": "EpiLoadPipeline",
    "RE_SCHED_CALL": "scheduler.fetch_next_work(work_tile_info, clc_pipeline, clc_pipe_consumer_state);",
    "RE_STRUCTURED_BINDING": "auto [mainloop_pipeline, accumulator_pipeline] = pipelines;",
    "RE_THIS_CALL": "this->mma_step(read_stage, pipeline);",
    "RE_TMA_STORE_ARG": "params.tma_store_d",
    "RE_LOAD_ATOM": "SM90_BULK_COPY_G2S",
    "RE_STORE_ATOM": "SM90_TMA_STORE_2D",
    "RE_REDUCE_ATOM": "SM90_TMA_REDUCE_ADD_2D",
    "RE_TMA_ATOM_ARG": "params.tma_red_dq",
    "RE_TMA_STORE_NAME": "tma_store_d",
    "RE_TMA_STORE_ARRIVE": "cute::tma_store_arrive();",
    "RE_TMA_STORE_WAIT": "tma_store_wait<StagesD - 1>();",
    "RE_TMEM_LOAD_COPY": "tiled_t2r",
    "RE_TUPLE_TYPE": "cute::tuple<MainloopPipeline, AccumulatorPipeline> pipelines",
    "RE_UMMA_ARRIVE": "cutlass::arch::umma_arrive_multicast_2x1SM(smem_ptr, mask);",
    "RE_UMMA_HINT": "tcgen05.commit",
    "RE_VALUE_REF": "conditional_return<B>(pipeline_v, pipeline_vt)",
    "RE_WARPGROUP_ARRIVE": "warpgroup_arrive();",
    "RE_WARPGROUP_WAIT": "warpgroup_wait<K_PIPE_MMAS>();",
    "RE_WARP_CATEGORY": "enum class WarpCategory : int32_t { MMA = 0, Sched = 1, MainloopLoad = 2, Epilogue = 4 };",
    "RE_WGMMA_HINT": "warpgroup_arrive",
    # schema v3: the role programs (programs_cpp, program_expr) and the kernel layer's facts for them
    "RE_ANY_ROLE_ENUM": "enum class ProducerWarpRole { Mainloop = 0, Warp1 = 1 };",
    "RE_INT_CONSTEXPR": "static constexpr uint32_t StagesPerMathWarpGroup = 2;",
    "RE_PERSISTENT_LITERAL": "static constexpr bool kIsPersistent = false;",
    "RE_INT_CONSTANT_EXPR": "static int constexpr SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2;",
    "RE_ROLE_VAR": "auto warp_group_role = WarpGroupRole(canonical_warp_group_idx());",
    "RE_ROLE_FUNCTION": "static constexpr WarpRole warp_idx_to_WarpRole(int warp_idx) {",
    "RE_WARP_GROUP_VAR": "int warp_group_idx = cutlass::canonical_warp_group_idx();",
    "RE_CONDITIONAL_T": "std::conditional_t<Use_TMA_KV, PipelineTmaAsync, typename cutlass::PipelineAsync<kStages>>",
    "RE_LAST_CLASS": "PipelineAsync<kStages>",
    "programs_cpp.RE_BARRIER_METHOD": "shared_storage.pipelines.barrier_Q.arrive_and_expect_tx(bytes)",
    "RE_SHAPE_LITERAL": "class ThreadShape = Shape<_2, _1, _1>,",
    "RE_USING_TEMPLATE": "using Load = Sm100FmhaLoadTmaWarpspecialized<",
    "RE_QUOTED_INCLUDE": '#include "collective/sm100_fmha_load_tma_warpspecialized.hpp"',
    "programs_cpp.RE_MEMBER_SET": "params_order_s01.group_id = role == WarpRole::Softmax1 ? 1 : 0",
    "programs_cpp.RE_WORD": "typename",
    "programs_cpp.RE_OWN_PIPELINE_CLASS": "cutlass::PipelineAsync<SchedulerPipelineStageCount>",
    "programs_cpp.RE_PRAGMA": "CUTLASS_PRAGMA_NO_UNROLL",
    "programs_cpp.RE_DECLARATOR": "phase = 0",
    "programs_cpp.RE_GLOBAL": "__global__",
    "programs_cpp.RE_ATTRIBUTE": "[[maybe_unused]] ",
    "programs_cpp.RE_BRANCH_ATTRIBUTE": " [[unlikely]] ",
    "programs_cpp.RE_IIFE_HEAD": "[&] () {",
    "programs_cpp.RE_IIFE_TAIL": "} ()",
    "programs_cpp.RE_RETURN_WORD": "return",
    "programs_cpp.RE_RETURN_CONSTRUCT": "return TileScheduler{",
    "programs_cpp.RE_CLASS_HEAD": "struct CollectiveLoadTma : Base {",
    "programs_cpp.RE_DATA_MEMBER": "Pipeline& pipeline",
    "programs_cpp.RE_MEMBER_INIT": "pipeline(pipeline_)",
    "programs_cpp.RE_TEMPLATE_HEAD": "template <",
    "programs_cpp.RE_TPARAM": "bool kAdvanceIterator = true",
    "programs_cpp.RE_TIE_DECL": "CUTE_TIE_DECL(get_pipeline(iter_idx ++), stage_idx, phase)",
    "programs_cpp.RE_USING": "using WGMMA = typename mma::sm90::FP8MMASelector<BLOCK_N>::type;",
    "programs_cpp.RE_TERNARY_VOID": "lane_idx == 0 ? empty_barriers[s]->arrive() : void()",
    "RE_OUTER_LOADS": "static const int kOuterLoads = 2;",
    "RE_OPTION_CONSTANT": "static constexpr bool kIsPersistent = find_option_t<Tag::kIsPersistent, false_type, Options...>::value;",
    "RE_ROLE_VAR_TYPED": "WarpCategory warp_category = f();",
    "RE_STAGE_COUNT_ALIAS": "using StagesQ = cutlass::gemm::collective::StageCount<StageCountQ>;",
    "RE_STATE_ALIAS": "using PipelineStateOuter = typename cutlass::PipelineState<MainloopPipelineOuter::Stages>;",
    "RE_PIPELINE_STATE_USING": "using MainloopPipelineTMAState = typename MainloopPipelineTMA::PipelineState;",
    "RE_COLLECTIVE_STATE_USING": "using MainloopPipelineTMAState = typename CollectiveMainloop::MainloopPipelineTMAState;",
    "programs_cpp.RE_KEYWORD": "while (work_tile_info.is_valid())",
    "programs_cpp.RE_IF_CONSTEXPR": " constexpr",
    "programs_cpp.RE_INC": "++smem_pipe_read",
    "programs_cpp.RE_ADVANCE": "mainloop_pipe_consumer_state.advance(k_tile_count * NumMmaWarpGroups)",
    "programs_cpp.RE_COMPOUND": "k_tile_count -= prologue_mma_count",
    "programs_cpp.RE_BINDING": "auto [next_work_tile_info, increment_pipe] = scheduler.fetch_next_work(work_tile_info)",
    "programs_cpp.RE_DECL": "typename CollectiveMainloop::PipelineState mainloop_pipe_consumer_state = make_state<Pipe<2>>(x)",
    "programs_cpp.RE_CALL": "collective_mainloop.template mma<true>(mainloop_pipeline, mainloop_pipe_consumer_state, k_tile_count)",
    "programs_cpp.RE_PARAM": "MainloopPipeline pipeline",
    "programs_cpp.RE_PLAIN_NAME": "smem_pipe_write",
    "programs_cpp.RE_STRUCT_MEMBER": "  uint32_t main_load = false",
    "program_expr.RE_TOKEN": "min(K_PIPE_MMAS, k_tile_count) > 0x1F && !a->b[2]",
}

# A mainloop-shaped frame: the near-matches land in a struct, a function body and a call's
# argument list, where the per-scope patterns run.
FRAME_HEAD = ("struct CollectiveMma {\n  using MainloopPipeline = cutlass::PipelineTmaAsync<4>;\n"
              "  CUTLASS_DEVICE void load(MainloopPipeline pipeline) {\n"
              "    pipeline.producer_acquire(state);\n")
FRAME_TAIL = "\n  }\n};\n"


def pattern_names():
    """Names of every module-level compiled RE_* pattern of PATTERN_MODULES."""
    return sorted(prefix + n for prefix, mod in PATTERN_MODULES.items() for n, v in vars(mod).items()
                  if n.startswith("RE_") and hasattr(v, "finditer"))


def pattern(name):
    """The compiled pattern a pattern_names() name stands for."""
    prefix, _, short = name.rpartition(".")
    return getattr(PATTERN_MODULES[prefix + "." if prefix else ""], short)


def near_matches(sample):
    """Every prefix of sample and sample with each one character deleted, space-separated."""
    pieces = [sample[:k] for k in range(1, len(sample))]
    pieces += [sample[:k] + sample[k + 1:] for k in range(len(sample))]
    return " ".join(pieces)


def fill(piece, size):
    """piece repeated to exactly size characters."""
    return (piece * (size // max(1, len(piece)) + 1))[:size]


def near_match_text(name, size):
    """A mainloop-shaped text of about size characters full of near-matches of one pattern."""
    body = fill(near_matches(NEAR_MATCH_SAMPLES[name]) + "\n", size)
    return FRAME_HEAD + body + FRAME_TAIL


def generic_texts(size):
    """Name -> text of about size characters, each built to stress one shape."""
    unit = {
        "long lines": "x" * 100_000 + "\n",
        "unbalanced <": "template <",
        "unbalanced (": "f(",
        "unbalanced [": "a[",
        "unbalanced {": "struct A {",
        "stray closers": ")]}>",
        "openers then stray closers": None,
        "deep template nesting": "A<" * 50 + "int" + ">" * 50 + ";\n",
        "deep call nesting": None,
        "nested copy calls": None,
        "nested gemm calls": None,
        "near-miss pipeline ops": "pipeline.producer_acquir(x); pipeline . consumer_wai (y);\n",
        "near-miss copies": "copy(params.tma_load_a.wit(*b), x); copy_if(gmem_tiled_copy_, x);\n",
        "using without ;": "using X = cutlass::PipelineTmaAsync<Stages, ",
        "ops without ;": "p.consumer_wait(s) ",
        "unterminated comment": "/*" + "x" * 1000,
        "unterminated raw string": 'R"xy(' + "a" * 100,
        "long identifier": "a" * 1000,
        "quotes": "'\"" * 500 + "\n",
        "backslashes": "\\" * 999 + "\n",
        "braces": "{" * 1000 + "}" * 1000 + "\n",
        "function heads": "void f() const noexcept ",
        "single line of ops": "p.consumer_wait(s); ",
    }
    half = size // 2
    out = {}
    for name, piece in unit.items():
        if piece is not None:
            out[name] = fill(piece, size)
    out["openers then stray closers"] = fill("(", half) + fill("]", half)
    depth = size // 16
    out["deep call nesting"] = "void g() {" + "f(" * depth + ")" * depth + ";}"
    n = size // 16
    out["nested copy calls"] = "void g() {" + "copy(a, " * n + ")" * n + ";}"
    n = size // 32
    out["nested gemm calls"] = "void g() {" + "gemm(tiled_mma, " * n + ")" * n + ";}"
    n = size // 40
    out["nested functions"] = "void f() { p.consumer_wait(s);" * n + "}" * n
    many = {
        "many device functions": "CUTLASS_DEVICE void f(P p) { p.consumer_wait(s); }\n",
        "many lambdas": "auto w = [](auto& p) { p.consumer_wait(s); }; w(pipeline); ",
        "many load helpers": "LoadK load_k{params.tma_load_k, pipeline_k, s}; load_k.step(x); ",
        "many structs with buffers": "struct S { cute::array_aligned<T, cute::cosize_v<L>> smem_a; };\n",
        "many pipeline aliases": "using P{i} = cutlass::PipelineTmaAsync<{i}>; ",
        "many copies after acquires": "p.producer_acquire(s); copy(params.tma_load_a.with(b), x, y); ",
    }
    for name, piece in many.items():
        if "{i}" in piece:
            text = "".join(piece.replace("{i}", str(i)) for i in range(size // len(piece)))
        else:
            text = fill(piece, size)
        out[name] = FRAME_HEAD + text + FRAME_TAIL
    # v2 expansion: one helper called many times; lambdas calling lambdas (depth and budget bound)
    n = size // 8
    out["many helper calls"] = (FRAME_HEAD + "  }\n  CUTLASS_DEVICE void h(MainloopPipeline p) { p.consumer_wait(s); }\n"
                                "  CUTLASS_DEVICE void g(MainloopPipeline p) {\n" + "h(p); " * n + FRAME_TAIL)
    chain = ("auto a = [&](auto& q) { q.consumer_wait(s); }; auto b = [&](auto& q) { a(q); a(q); a(q); }; "
             "auto c = [&](auto& q) { b(q); b(q); b(q); }; auto d = [&](auto& q) { c(q); c(q); c(q); }; d(pipeline); ")
    out["nested lambda calls"] = FRAME_HEAD + fill(chain, size) + FRAME_TAIL
    out["many tuple bindings"] = FRAME_HEAD + fill("auto [p0, p1] = pipelines; auto p2 = get<0>(pipelines); "
                                                   "p0.consumer_wait(s); ", size) + FRAME_TAIL
    out["single line of ops"] = FRAME_HEAD + out["single line of ops"] + FRAME_TAIL
    out["ops without ;"] = FRAME_HEAD + out["ops without ;"] + FRAME_TAIL
    return out
