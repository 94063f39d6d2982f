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
