"""Parser breadth (schema v2, issue 10): each class of code on a fixture of our own, then on the
real CUTLASS 4.2 sources where the class occurs."""

import pytest

import parse_cutlass
from conftest import ROOT
from docs_util import docs_section

FIXTURES = ROOT / "tests" / "fixtures"


def parse(name, validate):
    return validate(parse_cutlass.parse_file(FIXTURES / name))


def line_of(name, snippet, nth=0):
    """1-based line of the nth line holding snippet in a fixture (tests do not hard-code lines)."""
    hits = [i for i, text in enumerate((FIXTURES / name).read_text().splitlines(), 1) if snippet in text]
    return hits[nth]


def fn(model, name):
    return next(f for f in model["functions"] if f["name"] == name)


def ops(model, name, kind=None):
    return [o for o in fn(model, name)["ops"] if kind is None or o["op"] == kind]


# ---------------------------------------------------------------- 1-2: pipelines are objects


def test_two_objects_of_one_alias_stay_two(validate):
    m = parse("v2_objects.hpp", validate)
    assert m["language"] == "cpp" and m["schema_version"] == 3
    acq = ops(m, "load_kv", "producer_acquire")
    assert [(o["pipeline"], o["object"]) for o in acq] == [
        ("MainloopPipeline", "pipeline_k"), ("MainloopPipeline", "pipeline_v"), ("PipelineQ", "pipeline_q")]
    objs = {o["name"]: o for o in m["pipeline_objects"]}
    assert (objs["pipeline_k"]["kind"], objs["pipeline_v"]["kind"]) == ("parameter", "parameter")
    assert objs["pipeline_k"]["alias"] == objs["pipeline_v"]["alias"] == "MainloopPipeline"
    assert objs["pipeline_k"]["class"] == "PipelineTmaAsync" and objs["pipeline_k"]["stages"] == "Stages"
    assert objs["pipeline_q"]["kind"] == "member"
    assert objs["pipeline_q"]["line"] == line_of("v2_objects.hpp", "PipelineQ pipeline_q;")


def test_tuple_unpacking_get_n_locals_and_name_matching(validate):
    m = parse("v2_objects.hpp", validate)
    assert [(o["op"], o["pipeline"], o["object"]) for o in fn(m, "mma")["ops"]] == [
        ("consumer_wait", "MainloopPipeline", "mainloop_pipeline"),
        ("producer_acquire", "AccumulatorPipeline", "accumulator_pipeline")]
    assert [(o["op"], o["pipeline"], o["object"]) for o in fn(m, "mma_get")["ops"]] == [
        ("consumer_release", "MainloopPipeline", "ml"), ("producer_commit", "AccumulatorPipeline", "acc")]
    objs = {o["name"]: o for o in m["pipeline_objects"]}
    assert objs["mainloop_pipeline"]["kind"] == objs["acc"]["kind"] == "tuple"
    assert objs["local_pipeline"]["kind"] == "local"
    # params.accumulator_pipeline: no declaration in this function, matched to AccumulatorPipeline
    by_name = ops(m, "by_name")
    assert (by_name[0]["pipeline"], by_name[0]["object"]) == ("AccumulatorPipeline", "accumulator_pipeline")
    assert not m["warnings"]
    # every op object names a pipeline_objects entry
    names = set(objs)
    assert all(o["object"] in names for f in m["functions"] for o in f["ops"] if o.get("pipeline"))


def test_flashinfer_style_k_and_v_objects_keep_apart():
    text = """
    struct M { using MainloopPipeline = cutlass::PipelineTmaAsync<2>;
      CUTLASS_DEVICE void load(MainloopPipeline pipeline_k, MainloopPipeline pipeline_v, S s) {
        pipeline_k.producer_acquire(s); copy(p.tma_load_k.with(*pipeline_k.producer_get_barrier(s)), a, b);
        pipeline_v.producer_acquire(s); copy(p.tma_load_v.with(*pipeline_v.producer_get_barrier(s)), a, b); } };
    """
    m = parse_cutlass.parse_text(text, "flashinfer_like.cuh")
    loads = [(o["operand"], o["object"]) for f in m["functions"] for o in f["ops"] if o["op"] == "tma_load"]
    assert loads == [("K", "pipeline_k"), ("V", "pipeline_v")]


def test_real_77_fmha_objects_and_88_objects(cutlass, validate):
    m = validate(parse_cutlass.parse_file(
        cutlass("examples/77_blackwell_fmha/collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp")))
    objs = {o["name"]: o["alias"] for o in m["pipeline_objects"]}
    assert objs["pipeline_s0"] == objs["pipeline_s1"] == "PipelineS"
    assert objs["pipeline_s0_c"] == objs["pipeline_s1_c"] == "PipelineC"
    commits = {o["object"] for o in ops(m, "mma", "producer_commit")}
    assert {"pipeline_s0", "pipeline_s1", "pipeline_corr"} <= commits
    m88 = validate(parse_cutlass.parse_file(
        cutlass("examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp")))
    assert {o["object"] for f in m88["functions"] for o in f["ops"] if o.get("pipeline")} >= {"pipeline", "pipeline_q"}


# ---------------------------------------------------------------- 3-4: barriers and pointers


def test_nearest_preceding_barrier_assignment_reaches_the_copy(validate):
    m = parse("v2_barriers_pointers.hpp", validate)
    loads = [(o["operand"], o["pipeline"], o["object"]) for o in ops(m, "load", "tma_load")]
    assert loads == [("Q", "PipelineQ", "pipeline_q"), ("K", "PipelineKV", "pipeline_kv")]


def test_pointer_receivers(validate):
    m = parse("v2_barriers_pointers.hpp", validate)
    loads = ops(m, "load_pointers", "tma_load")
    assert [(o["receiver"], o["operand"], o["pipeline"]) for o in loads] == [
        ("observed_tma_load_a_", "A", "PipelineKV"), ("tma_atom", None, "PipelineKV")]


def test_real_77_load_labels_q_as_q(cutlass, validate):
    m = validate(parse_cutlass.parse_file(
        cutlass("examples/77_blackwell_fmha/collective/sm100_fmha_load_tma_warpspecialized.hpp")))
    loads = [(o["line"], o["operand"], o["object"]) for f in m["functions"] for o in f["ops"] if o["op"] == "tma_load"]
    assert (245, "Q", "pipeline_q") in loads and (262, "Q", "pipeline_q") in loads
    assert (254, "K", "pipeline_kv") in loads and (270, "V", "pipeline_kv") in loads
    assert all(obj == ("pipeline_q" if op == "Q" else "pipeline_kv") for _, op, obj in loads)


# ---------------------------------------------------------------- 5: ops count where they run


def test_lambdas_and_helpers_count_at_each_call_site(validate):
    m = parse("v2_calls.hpp", validate)
    got = [(o["op"], o["line"], o.get("via")) for o in fn(m, "consumer")["ops"]]
    kblock = line_of("v2_calls.hpp", "cute::gemm(tiled_mma, tCrA(_, _, k_block)")
    step_wait = line_of("v2_calls.hpp", "pipe.consumer_wait(read_state)")
    step_mma = line_of("v2_calls.hpp", "tCrA(_, _, _, read_stage)")
    assert got == [
        ("consumer_wait", line_of("v2_calls.hpp", "pipeline.consumer_wait(smem_pipe_read)"), None),
        ("mma", kblock, {"lambda": "gemm_kblock", "line": line_of("v2_calls.hpp", "gemm_kblock(0)")}),
        ("mma", kblock, {"lambda": "gemm_kblock", "line": line_of("v2_calls.hpp", "gemm_kblock(1)")}),
        ("consumer_wait", step_wait, {"helper": "mma_step", "line": line_of("v2_calls.hpp", "mma_step(pipeline,")}),
        ("mma", step_mma, {"helper": "mma_step", "line": line_of("v2_calls.hpp", "mma_step(pipeline,")}),
        ("consumer_release", line_of("v2_calls.hpp", "consumer_release(smem_pipe_read)", 1), None),
    ]
    # the helper's parameter `pipe` is the caller's `pipeline` at the call site
    assert {o["object"] for o in fn(m, "consumer")["ops"] if o.get("pipeline")} == {"pipeline"}
    # the never-called lambda's release (first consumer_release line) is nowhere
    never = line_of("v2_calls.hpp", "consumer_release(smem_pipe_read)")
    assert never not in [o["line"] for f in m["functions"] for o in f["ops"]]


def test_real_sm90_epilogue_store_lambda_and_named_barriers(cutlass, validate):
    m = validate(parse_cutlass.parse_file(
        cutlass("include/cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp")))
    store = fn(m, "store")
    stores = [o for o in store["ops"] if o["op"] == "tma_store"]
    # tma_store_fn is called at three sites; its copy (line 740) is listed at each
    assert [(o["line"], o["via"]["line"]) for o in stores] == [(740, 864), (740, 900), (740, 910)]
    assert all(o["operand"] == "D" and o["via"]["lambda"] == "tma_store_fn" for o in stores)
    commits = [o for o in store["ops"] if o["op"] == "producer_commit"]
    assert {(o["pipeline"], o["object"]) for o in commits} == {("StorePipeline", "store_pipeline")}
    syncs = [o for o in store["ops"] if o["op"] == "named_barrier_sync"]
    assert syncs and all(o["line"] == 711 and o["barrier_id"].endswith("EpilogueBarrier") for o in syncs)
    assert not [o for f in m["functions"] for o in f["ops"] if o["op"] == "cp_async"]


def test_real_sm120_gemm_kblock_lambda(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass("include/cutlass/gemm/collective/sm120_mma_tma_blockwise_scaling.hpp")))
    mmas = [o for f in m["functions"] for o in f["ops"] if o["op"] == "mma"]
    assert mmas and all(o.get("via", {}).get("lambda") == "gemm_kblock" for o in mmas)
    assert sorted({o["via"]["line"] for o in mmas}) == [734, 763]
    assert all(o["pipeline"] for o in mmas)


# ---------------------------------------------------------------- 6: op kinds


def test_more_op_kinds(validate):
    m = parse("v2_op_kinds.hpp", validate)
    store = [(o["op"], o.get("count"), o.get("barrier_id")) for o in fn(m, "store")["ops"]]
    assert store == [
        ("producer_acquire", None, None),
        ("named_barrier_sync", "NumEpilogueThreads", "EpilogueBarrierId"),
        ("tma_store", None, None), ("bulk_reduce", None, None), ("producer_commit", None, None),
        ("tma_store_arrive", None, None), ("tma_store_wait", 1, None),
        ("named_barrier_arrive", "NumThreads", "cutlass::arch::ReservedNamedBarriers::EpilogueBarrier"),
        ("producer_acquire_bytes", None, None), ("producer_commit_local", None, None),
        ("producer_arrive", None, None), ("consumer_release_from_umma", None, None)]
    tma_store = ops(m, "store", "tma_store")[0]
    assert (tma_store["operand"], tma_store["receiver"]) == ("D", "params.tma_store_d")
    assert all(o["pipeline"] == "StorePipeline" for o in ops(m, "store") if o["op"].startswith("producer_a") and
               o["receiver"] == "store_pipeline")
    fences = [(o["op"], o.get("count")) for o in fn(m, "fences")["ops"]]
    assert fences == [("warpgroup_arrive", None), ("mma", None), ("warpgroup_wait", "K_PIPE_MMAS"),
                      ("umma_arrive", None), ("tmem_load", None)]


def test_stores_are_never_cp_async(validate):
    m = parse("v2_op_kinds.hpp", validate)
    assert not [o for f in m["functions"] for o in f["ops"] if o["op"] == "cp_async"]


# ---------------------------------------------------------------- 8: wait_line


def test_mma_pairs_with_the_wait_it_reads_not_the_peek(validate):
    m = parse("v2_wait_line.hpp", validate)
    (mma,) = ops(m, "mixed", "mma")
    assert mma["wait_line"] == line_of("v2_wait_line.hpp", "pipeline.consumer_wait(smem_pipe_read, barrier_token)")
    assert "pipelines" not in mma


def test_mma_reading_two_pipelines_records_both(validate):
    m = parse("v2_wait_line.hpp", validate)
    (mma,) = ops(m, "two", "mma")
    q = line_of("v2_wait_line.hpp", "pipeline_q.consumer_wait")
    kv = line_of("v2_wait_line.hpp", "pipeline_kv.consumer_wait")
    assert mma["pipelines"] == ["PipelineQ", "PipelineKV"] and mma["wait_lines"] == [q, kv]
    assert mma["objects"] == ["pipeline_q", "pipeline_kv"]
    assert (mma["pipeline"], mma["wait_line"], mma["object"]) == ("PipelineKV", kv, "pipeline_kv")


def test_real_sm90_mixed_input_wait_lines(cutlass, validate):
    m = validate(parse_cutlass.parse_file(
        cutlass("include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp")))
    assert [(o["line"], o["wait_line"]) for o in ops(m, "mma", "mma")] == [(882, 861), (933, 898), (986, 948)]


def test_real_77_qk_mma_reads_q_and_kv(cutlass, validate):
    m = validate(parse_cutlass.parse_file(
        cutlass("examples/77_blackwell_fmha/collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp")))
    first = ops(m, "mma", "mma")[0]
    assert (first["line"], first["pipelines"], first["wait_lines"]) == (334, ["PipelineQ", "PipelineKV"], [320, 328])


# ---------------------------------------------------------------- 9: nothing silent


def test_unresolved_receiver_load_without_barrier_barrier_without_wait(validate):
    m = parse("v2_op_kinds.hpp", validate)
    path = m["source"]["path"]
    want = [
        f"{path}:{line_of('v2_op_kinds.hpp', 'mystery_pipe.consumer_wait')}: consumer_wait: receiver "
        "'mystery_pipe' not resolved to a pipeline alias",
        f"{path}:{line_of('v2_op_kinds.hpp', 'tma_load_x')}: tma_load of 'params.tma_load_x': "
        "no pipeline barrier or acquire found",
        f"{path}:{line_of('v2_op_kinds.hpp', 'barrier_O')}: barrier 'barrier_O' is arrived on but never "
        "waited on in this file"]
    assert m["warnings"] == want
    assert [parse_cutlass.warning_kind(w) for w in want] == [
        "unresolved-receiver", "load-without-barrier", "barrier-never-waited"]


def test_pipeline_types_but_no_ops_warns(capsys):
    m = parse_cutlass.parse_text("struct S { using P = cutlass::PipelineAsync<2>; };\n", "types_only.hpp")
    assert m["kind"] == "mainloop"
    assert m["warnings"] == ["types_only.hpp:1: pipeline types (P) but no op on any of them"]
    parse_cutlass.print_warnings(m)
    assert capsys.readouterr().err == "warning: types_only.hpp:1: pipeline types (P) but no op on any of them\n"


def test_real_sm100_collectives_resolve_every_named_receiver(cutlass_root, validate):
    files = sorted((cutlass_root / "include/cutlass/gemm/collective").glob("sm10*.hpp"))
    assert len(files) >= 16
    for path in files:
        m = validate(parse_cutlass.parse_file(path))
        assert not m["warnings"], (path.name, m["warnings"])


# ---------------------------------------------------------------- documentation drift


def test_every_op_kind_and_field_is_documented():
    """Each op kind of the schema is named in the docs' parser section, and each v2 top-level key
    in the json section; a new kind or key without its documentation fails."""
    import json
    schema = json.loads((ROOT / "schema" / "kernel_viz.schema.json").read_text())
    json_section = docs_section("json")
    parser_section = docs_section("parser")
    for kind in schema["$defs"]["op"]["properties"]["op"]["enum"]:
        assert f"`{kind}`" in parser_section, kind
    for key in schema["properties"]:
        assert f'"{key}"' in json_section, key
    assert f'"schema_version": {parse_cutlass.SCHEMA_VERSION}' in json_section
    for kind in schema["$defs"]["pipeline_object"]["properties"]["kind"]["enum"]:
        assert f'"{kind}"' in json_section, kind


# FA3's backward (2026 revisions) waits through one lambda for both rings; each MMA must read the
# stage of the call whose state argument it indexes, not the nearest expansion of the lambda.
LAMBDA_STATE_SOURCE = """
#include <cutlass/pipeline/pipeline.hpp>
template <class MainloopPipeline, class MainloopPipeline_dO>
struct Bwd {
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline_q, MainloopPipeline_dO pipeline_do,
                          PipelineState& smem_pipe_read, PipelineState& smem_pipe_read_do) {
    auto consumer_wait = [](auto& pipeline, auto& smem_pipe_read) {
      auto barrier_token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, barrier_token);
    };
    auto bwd_step = [&](int m_block, auto mask_fn) {
      consumer_wait(pipeline_q, smem_pipe_read);
      cute::gemm(tiled_mma_SdP, tSrQ(_, _, _, smem_pipe_read.index()), tSrK, tSrS);
      consumer_wait(pipeline_do, smem_pipe_read_do);
      cute::gemm(tiled_mma_dKV, tdVrP, tdVrdO(_, _, _, smem_pipe_read_do.index()), tdVrdV);
      cute::gemm(tiled_mma_dKV, tdKrdS, tdKrQ(_, _, _, smem_pipe_read.index()), tdKrdK);
      pipeline_q.consumer_release(smem_pipe_read);
      pipeline_do.consumer_release(smem_pipe_read_do);
    };
    for (int m_block = 0; m_block < 4; ++m_block) { bwd_step(m_block, mask); }
  }
};
"""


def test_lambda_parameters_stand_for_each_calls_arguments(tmp_path, validate):
    path = tmp_path / "bwd_lambda_waits.hpp"
    path.write_text(LAMBDA_STATE_SOURCE, encoding="utf-8")
    m = validate(parse_cutlass.parse_file(path))
    operand = lambda text: next(name for name in ("tSrQ", "tdVrdO", "tdKrQ") if name + "(" in text)  # noqa: E731
    gemms = {operand(o["text"]): o["pipeline"] for o in fn(m, "mma")["ops"] if o["op"] == "mma"}
    # dK += dS^T Q reads Q's stage although the dO wait is nearer; dV += P^T dO reads dO's.
    assert gemms == {"tSrQ": "MainloopPipeline", "tdVrdO": "MainloopPipeline_dO", "tdKrQ": "MainloopPipeline"}


FA3_FLAGS_SOURCE = """
template <int Stages, bool IntraWGOverlap, bool V_colmajor_>
struct Toy {
  static constexpr bool Is_FP8 = cute::is_same_v<Element, cutlass::float_e4m3_t>;
  static constexpr bool V_colmajor = V_colmajor_;
  static constexpr bool Transpose_V = Is_FP8 && !V_colmajor;
  static constexpr bool UseSchedulerBarrier = (IntraWGOverlap
      ? (NumMmaWarpGroups >= 2) && (!Is_FP8 ? kHeadDim <= 128 : kHeadDim >= 128)
      : NumMmaWarpGroups == 2)
      && !LargeHeadDimV;
  using MainloopPipelineK = cutlass::PipelineTmaAsync<Stages>;
  CUTLASS_DEVICE void load(MainloopPipelineK pipeline_k, PipelineState& s) { pipeline_k.producer_acquire(s); }
};
"""


def test_fa3_build_flags_are_constants_with_their_lines(tmp_path, validate):
    # The attention model derives Transpose_V and the scheduler barrier from these (FA3_BUILD_FLAGS).
    path = tmp_path / "fa3_flags.hpp"
    path.write_text(FA3_FLAGS_SOURCE, encoding="utf-8")
    consts = {c["name"]: (c["line"], c["value"]) for c in validate(parse_cutlass.parse_file(path))["constants"]}
    assert consts["Transpose_V"] == (6, "Is_FP8 && !V_colmajor")
    assert consts["UseSchedulerBarrier"] == (7, "(IntraWGOverlap ? (NumMmaWarpGroups >= 2) && (!Is_FP8 ? kHeadDim <= 128 "
                                                ": kHeadDim >= 128) : NumMmaWarpGroups == 2) && !LargeHeadDimV")
    assert "V_colmajor" not in consts   # only the flags the rules read


@pytest.mark.parametrize("text, arch", [
    ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000\n#endif\n", "sm100"),
    ("#if __CUDA_ARCH__ >= 900\n#endif\n", "sm90"),
    ('asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3;" :: "r"(d));\n', "sm100"),
    ("using Mma = SM100_MMA_F16BF16_SS<T, T, float, 128, 256>;\n", "sm100"),
    ('asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 ...");\n', "sm90"),
    ("warpgroup_arrive(); cute::gemm(tiled_mma, a, b, c); warpgroup_wait<0>();\n", "sm90"),
    ("__global__ void k() {}\n", "unknown"),
    ("// tcgen05 in a comment says nothing\n", "unknown"),
])
def test_arch_from_the_code_of_a_cu_file(tmp_path, text, arch):
    # A .cu / .cuh kernel without sm in its name: the guard or the instructions it uses say (issue 18).
    path = tmp_path / "kernel.cuh"
    path.write_text("#include <cuda.h>\n" + text + "struct P { void f(Pipe pipeline, S s) { pipeline.producer_acquire(s); } };\n",
                    encoding="utf-8")
    assert parse_cutlass.parse_file(path)["arch"] == arch


def test_a_copy_from_smem_into_registers_is_no_cp_async(tmp_path):
    # FA3's epilogue reads O back from smem with a "gmem" tiled copy (issue 18): not a load into a stage.
    path = tmp_path / "epilogue_like.hpp"
    path.write_text("""
struct Epi {
  CUTLASS_DEVICE void store(Pipe pipeline, State s) {
    pipeline.producer_acquire(s);
    cute::copy(gmem_tiled_copy_O, tOsO, tOrO);
    cute::copy(gmem_tiled_copy_A, tAgA(_, _, _, k), tAsA(_, _, _, s.index()));
  }
};
""", encoding="utf-8")
    ops = [(o["op"], o["line"]) for f in parse_cutlass.parse_file(path)["functions"] for o in f["ops"]]
    assert ("cp_async", 6) in ops and ("cp_async", 5) not in ops
