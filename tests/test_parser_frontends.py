"""The C++ front end on constructs of today's kernels (issue 20 part 5): helper expansion the
right way round, static-call copies and stores, rings of raw mbarriers. Each source is written
here, in the style of the real code the docs cite (docs/parser.md), never copied from it."""

import textwrap

import parse_cutlass


def parse(tmp_path, validate, text, name="k.hpp"):
    """Parse a source written to tmp_path; the model must validate against the schema."""
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return validate(parse_cutlass.parse_text(p.read_text(), str(p), name))


def ops_of(model, fn):
    """(op, line, via helper) of one function's ops."""
    f = next(f for f in model["functions"] if f["name"] == fn)
    return [(o["op"], o["line"], (o.get("via") or {}).get("helper")) for o in f["ops"]]


# A mainloop with its own templated gemm helper (FlashMLA's splitkv_mla.cuh calls
# `gemm<true, -1>(tiled_mma, ...)`, FA3's utils.h defines flash::gemm the same way) and a
# templated load helper (`load_kv<true, KTraits>(...)`), next to a call of CuTe's own gemm.
HELPERS = """\
template <int Stages>
struct Mainloop {
  using MainloopPipeline = cutlass::PipelineTmaAsync<Stages>;
  template <bool zero_init, int wg_wait, class TiledMma, class A, class B, class C>
  CUTLASS_DEVICE void gemm(TiledMma& tiled_mma, A const& a, B const& b, C& c) {
    warpgroup_arrive();
    cute::gemm(tiled_mma, a, b, c);
    warpgroup_wait<wg_wait>();
  }
  template <bool First, class KTraits>
  CUTLASS_DEVICE void load_kv(MainloopPipeline pipeline_k, int state) {
    pipeline_k.producer_acquire(state);
  }
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline_k, int smem_pipe_read) {
    pipeline_k.consumer_wait(smem_pipe_read);
    gemm<true, -1>(tiled_mma, tSrQ, tSrK, tSrS);
    cute::gemm(tiled_mma, tSrQ, tSrK, tSrS);
    pipeline_k.consumer_release(smem_pipe_read);
  }
  CUTLASS_DEVICE void load(MainloopPipeline pipeline_k, int state) {
    load_kv<true, KTraits>(pipeline_k, state);
  }
};
"""


def test_templated_helpers_are_followed(tmp_path, validate):
    """load_kv<true, KTraits>(...) lists load_kv's ops at the call (line 21)."""
    m = parse(tmp_path, validate, HELPERS)
    assert ops_of(m, "load") == [("producer_acquire", 12, "load_kv")]


def test_own_gemm_helper_replaces_the_call_site_mma(tmp_path, validate):
    """gemm<true, -1>(tiled_mma, ...) runs this file's gemm: its fence, MMA and wait, once."""
    m = parse(tmp_path, validate, HELPERS)
    assert ops_of(m, "mma") == [
        ("consumer_wait", 15, None),
        ("warpgroup_arrive", 6, "gemm"), ("mma", 7, "gemm"), ("warpgroup_wait", 8, "gemm"),
        ("mma", 17, None),                     # cute::gemm: CuTe's, one MMA, not the helper
        ("consumer_release", 18, None),
    ]


def test_qualified_call_of_another_namespace_is_not_the_helper(tmp_path, validate):
    """A file that defines `gemm` and calls only cute::gemm / flash::gemm expands nothing."""
    text = HELPERS.replace("gemm<true, -1>(tiled_mma", "flash::gemm<true, -1>(tiled_mma")
    m = parse(tmp_path, validate, text)
    assert ops_of(m, "mma") == [("consumer_wait", 15, None), ("mma", 16, None), ("mma", 17, None),
                                ("consumer_release", 18, None)]


def test_qualified_call_of_the_own_struct_is_the_helper(tmp_path, validate):
    """Mainloop::load_kv<...>(...) names the helper's own struct: followed."""
    text = HELPERS.replace("    load_kv<true, KTraits>(", "    Mainloop::load_kv<true, KTraits>(")
    m = parse(tmp_path, validate, text)
    assert ops_of(m, "load") == [("producer_acquire", 12, "load_kv")]


def test_a_less_than_is_not_a_template_call(tmp_path, validate):
    """`if (load_kv < n) (...)`-like comparisons are not calls of load_kv."""
    text = HELPERS.replace("    load_kv<true, KTraits>(pipeline_k, state);",
                           "    int x = load_kv < state; (void)(x);")
    m = parse(tmp_path, validate, text)
    assert ops_of(m, "load") == []


# Static copies of a named atom, in the style of cute/atom/copy_traits_sm90_tma.hpp's callers
# (a kernel issuing the bulk copy itself) and of DeepGEMM / FlashMLA's epilogues
# (`cute::SM90_TMA_STORE_2D::copy(&tensor_map_d, smem_d, n, m)`, `SM90_BULK_COPY_S2G::copy(...)`),
# and TMA atoms copied without .with(...) (88_hopper_fmha's `copy(params.tma_red_dq, ...)`,
# FlashMLA's `cute::copy(tma_params.tma_O, ...)`).
STATIC = """\
template <int Stages>
struct Mainloop {
  using MainloopPipeline = cutlass::PipelineTmaAsync<Stages>;
  CUTLASS_DEVICE void load(MainloopPipeline pipeline, int state) {
    pipeline.producer_acquire(state);
    auto* tma_barrier = pipeline.producer_get_barrier(state);
    SM90_BULK_COPY_G2S::copy(gK_ptr, tma_barrier, sK_ptr, kBytes);
    pipeline.producer_commit(state);
  }
  CUTLASS_DEVICE void store(Params const& params, int state) {
    cute::SM90_TMA_STORE_2D::copy(&tensor_map_d, smem_d, n_idx, m_idx);
    SM90_BULK_COPY_S2G::copy(&sO(row, _0{}), &gO(row, _0{}), kRowBytes);
    SM90_BULK_REDUCE_ADD::copy(sdQ_ptr, gdQaccum_ptr, kDqBytes, kHint);
    copy(params.tma_red_dq, tDQsDQ(_,_,_,state), tDQgDQ(_,_,_,g_index));
    cute::copy(tma_params.tma_O, thr_tma.partition_S(sOutputBuf), thr_tma.partition_D(gO));
    tma_store_arrive();
  }
  template <class Desc>
  CUTLASS_DEVICE static void copy(Desc const* desc, uint64_t* mbar, void* smem) {
    SM90_TMA_LOAD_2D::copy(desc, mbar, smem, 0, 0);   // an atom dispatching: no op
  }
};
"""


def test_static_bulk_copy_into_a_stage_is_a_load_on_the_barriers_pipeline(tmp_path, validate):
    """SM90_BULK_COPY_G2S::copy(.., tma_barrier, ..): tma_load on the pipeline tma_barrier came from."""
    m = parse(tmp_path, validate, STATIC)
    load = [o for o in next(f for f in m["functions"] if f["name"] == "load")["ops"] if o["op"] == "tma_load"]
    assert [(o["line"], o["atom"], o["pipeline"]) for o in load] == [(7, "SM90_BULK_COPY_G2S", "MainloopPipeline")]


def test_static_stores_and_reductions(tmp_path, validate):
    """S2G / TMA_STORE_2D are stores, BULK_REDUCE_ADD and tma_red_* reductions, tma_O a store."""
    m = parse(tmp_path, validate, STATIC)
    f = next(f for f in m["functions"] if f["name"] == "store")
    assert [(o["op"], o["line"], o.get("atom"), o["operand"]) for o in f["ops"]] == [
        ("tma_store", 11, "SM90_TMA_STORE_2D", None),
        ("tma_store", 12, "SM90_BULK_COPY_S2G", None),
        ("bulk_reduce", 13, "SM90_BULK_REDUCE_ADD", None),
        ("bulk_reduce", 14, None, "DQ"),          # the source partition's operand (tDQsDQ)
        ("tma_store", 15, None, "O"),             # the atom's name (tma_O)
        ("tma_store_arrive", 16, None, None),
    ]


def test_an_atoms_own_copy_dispatch_is_no_op(tmp_path, validate):
    """Inside a function named copy (cute's atoms dispatching to each other) nothing is an op."""
    m = parse(tmp_path, validate, STATIC)
    assert not [f for f in m["functions"] if f["name"] == "copy" and f["ops"]]


def test_a_tma_load_atom_without_with_is_not_a_store(tmp_path, validate):
    """copy(params.tma_load_k, tKsK, tKgK) (no barrier) is neither a store nor a load."""
    text = STATIC.replace("copy(params.tma_red_dq,", "copy(params.tma_load_k,")
    m = parse(tmp_path, validate, text)
    f = next(f for f in m["functions"] if f["name"] == "store")
    assert [o["line"] for o in f["ops"]] == [11, 12, 13, 15, 16]


def test_a_prepared_tma_atom_into_a_shared_partition_is_not_a_store(tmp_path, validate):
    """copy(tma_copy_traits_a, tAgA(...), tAsA(...)) after an acquire (SM103's array collectives
    copy through a prepared atom) stays the load it was: never a store."""
    text = STATIC.replace("SM90_BULK_COPY_G2S::copy(gK_ptr, tma_barrier, sK_ptr, kBytes);",
                          "copy(tma_copy_traits_a, group_modes<0,2>(tAgA(_,_,k)), tAsA(_,state));")
    m = parse(tmp_path, validate, text)
    f = next(f for f in m["functions"] if f["name"] == "load")
    assert [(o["op"], o["operand"]) for o in f["ops"] if o["line"] == 7] == [("cp_async", "A")]


def test_a_tma_atom_named_atom_stores_its_operand(tmp_path, validate):
    """copy(tma_atom_D, tSG_sD, tSG_gD(...)) (CuTe's Blackwell tutorial style): a store of D."""
    text = STATIC.replace("cute::copy(tma_params.tma_O,", "copy(tma_atom_D,")
    m = parse(tmp_path, validate, text)
    f = next(f for f in m["functions"] if f["name"] == "store")
    assert [(o["op"], o["operand"]) for o in f["ops"] if o["line"] == 15] == [("tma_store", "D")]
