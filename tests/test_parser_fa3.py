"""Parser tests on FlashAttention-3's real hopper/ sources, run locally when a checkout is given.

FlashAttention is not on the package registries and its source is never committed here, so
these tests need FLASH_ATTENTION_PATH=/path/to/flash-attention (any checkout with hopper/);
without it they skip (CI covers the same shapes with tests/fixtures/fa3_style_mainloop.hpp
and CUTLASS's own 88_hopper_fmha collectives).
"""

import json
import os
from pathlib import Path

import pytest

import parse_cutlass
from conftest import ROOT

FA3 = os.environ.get("FLASH_ATTENTION_PATH")
pytestmark = pytest.mark.skipif(not FA3, reason=(
    "FlashAttention-3 sources not given; run them with a flash-attention checkout: "
    "FLASH_ATTENTION_PATH=/path/to/flash-attention bash scripts/test.sh -k fa3 "
    "(or .venv/bin/python -m pytest tests/test_parser_fa3.py)"))
MAINLOOP = "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp"
KERNEL = "hopper/flash_fwd_kernel_sm90.h"


@pytest.fixture(scope="module")
def fa3(validate):
    root = Path(FA3)
    return validate(parse_cutlass.parse_file(root / MAINLOOP, root / KERNEL))


def fn(model, name):
    return next(f for f in model["functions"] if f["name"] == name)


def test_pipelines_are_conditional_aliases(fa3):
    pipes = {p["alias"]: p for p in fa3["pipelines"]}
    for alias in ("MainloopPipelineK", "MainloopPipelineV", "MainloopPipelineVt"):
        assert pipes[alias]["conditional"]
        assert set(pipes[alias]["class"]) >= {"PipelineTmaAsync", "PipelineAsync"}
        assert pipes[alias]["stages"] == "kStages"
        assert pipes[alias]["used"]


def test_buffers_in_every_alternative_struct(fa3):
    names = [b["name"] for b in fa3["buffers"]]
    assert {"smem_q", "smem_k", "smem_v", "smem_vt"} <= set(names)
    assert names.count("smem_v") >= 3   # declared once per alternative TensorStorage struct


def test_load_warp_produces_k_v_and_consumes_vt(fa3):
    load = fn(fa3, "load")
    assert load["role"] == "both"
    by = {(o["op"], o["pipeline"]) for o in load["ops"]}
    assert ("producer_acquire", "MainloopPipelineK") in by
    assert ("tma_load", "MainloopPipelineK") in by
    assert ("consumer_wait", "MainloopPipelineVt") in by
    assert ("producer_commit", "MainloopPipelineV") in by
    assert ("consumer_release", "MainloopPipelineVt") in by
    q = [o for o in load["ops"] if o["op"] == "tma_load" and o["operand"] == "Q"]
    assert q and q[0]["pipeline"] is None and q[0]["barrier"] == "barrier_Q"


def test_consumer_lambda_waits_resolve_to_pipeline_passed_in(fa3):
    mma = fn(fa3, "mma")
    assert mma["role"] == "consumer"
    waits = [o for o in mma["ops"] if o["op"] == "consumer_wait"]
    assert waits and all(o["via"]["lambda"] == "consumer_wait" for o in waits)
    assert {o["pipeline"] for o in waits} == {"MainloopPipelineK", "MainloopPipelineV"}
    releases = {o["pipeline"] for o in mma["ops"] if o["op"] == "consumer_release"}
    assert releases == {"MainloopPipelineK", "MainloopPipelineV"}
    gemm0 = [o for o in mma["ops"] if o["op"] == "mma" and o["receiver"] == "tiled_mma_qk"]
    assert gemm0 and all(o["pipeline"] == "MainloopPipelineK" for o in gemm0)
    assert any(o["op"] == "softmax" for o in mma["ops"])
    # the consumer's Q hand-off: barrier_Q.wait(work_idx % 2), no pipeline
    q_waits = [o for o in mma["ops"] if o["op"] == "barrier_wait" and o["barrier"] == "barrier_Q"]
    assert q_waits and all(o["pipeline"] is None for o in q_waits)


def test_backward_mmas_read_the_stage_of_the_wait_they_name(validate):
    bwd = validate(parse_cutlass.parse_file(Path(FA3) / "hopper/mainloop_bwd_sm90_tma_gmma_ws.hpp"))
    mma = fn(bwd, "mma")
    waits = [o for o in mma["ops"] if o["op"] == "consumer_wait"]
    assert {o["pipeline"] for o in waits} == {"MainloopPipeline", "MainloopPipeline_dO"}
    # Revisions that wait through a lambda (`auto consumer_wait = [](auto& pipeline, auto&
    # smem_pipe_read) {...}`) cite its body's line; the call site is `via`, one per pipeline.
    sites = {(o.get("via") or {}).get("line", o["line"]): o["pipeline"] for o in waits}
    assert set(sites.values()) == {"MainloopPipeline", "MainloopPipeline_dO"}
    gemms = [o for o in mma["ops"] if o["op"] == "mma"]
    # dK += dS^T Q reads Q's stage (smem_pipe_read); dV += P^T dO reads dO's (smem_pipe_read_do_cur):
    # the lambda's parameter smem_pipe_read stands for each call's own state argument.
    for o in gemms:
        if "tdKrQ(_, _, _, smem_pipe_read.index())" in o["text"]:
            assert o["pipeline"] == "MainloopPipeline", o["line"]
        if "smem_pipe_read_do_cur.index()" in o["text"]:
            assert o["pipeline"] == "MainloopPipeline_dO", o["line"]
    assert any("tdKrQ" in o["text"] for o in gemms)


def test_kernel_calls(fa3):
    calls = {(c["receiver"], c["call"]) for c in fa3["kernel_layer"]["calls"]}
    assert {("mainloop", "load"), ("mainloop", "mma"), ("epilogue", "store")} <= calls


def test_committed_example_matches_this_checkout_when_same_source(fa3):
    """examples/fa3_fwd.json was parsed from a FlashAttention checkout; if this checkout has the
    same file length, the facts must agree exactly."""
    committed = json.loads((ROOT / "examples" / "fa3_fwd.json").read_text())
    if committed["source"]["lines"] != fa3["source"]["lines"]:
        pytest.skip("a different FlashAttention revision than the committed example")
    assert json.loads(json.dumps(fa3)) == committed


# FA3's build rules the attention model implements (schedule.js FA3_TILE_SM90, fa3Derived; docs
# models/attention.md "FA3 as built"): (file, line, text the line must contain). A FlashAttention
# revision that changes one fails here, next to the rule to update.
FA3_BUILD_RULE_LINES = [
    ("hopper/tile_size.h", 25, "return {192, use_blockN_128 ? 128 : 192, use_blockN_128, true};"),
    ("hopper/tile_size.h", 30, "return {192, is_local || paged_kv_non_TMA ? 128 : 144, false, true};"),
    ("hopper/tile_size.h", 33, "return {128, use_blockN_128 ? 128 : 176, true, true};"),
    ("hopper/tile_size.h", 37, "(headdim_v <= 128 ? 128 : 112), true, true};"),
    ("hopper/tile_size.h", 39, "return {128, is_local ? 64 : 80, true, true};"),
    ("hopper/tile_size.h", 43, "return {192, 160, true, true};"),
    ("hopper/tile_size.h", 45, "return {192, 128, true, true};"),
    ("hopper/tile_size.h", 47, "(v_colmajor || (softcap && is_local) ? 192 : 224), true, true};"),
    ("hopper/tile_size.h", 49, "&& is_local ? 128 : 160, true, true};"),
    ("hopper/tile_size.h", 51, "return {128, is_local ? 64 : 128, true, !paged_kv_non_TMA};"),
    ("hopper/flash_fwd_launch_template.h", 45, "IntraWGOverlap = std::get<3>(kBlockMN_RS_IntraWGOverlap);"),
    ("hopper/flash_fwd_launch_template.h", 47, "kStages = Arch >= 90 ? 2"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 44, "Is_FP8 = cute::is_same_v<Element, cutlass::float_e4m3_t>"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 61, "LargeHeadDimV = kHeadDimV > 256;"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 55, "Transpose_V = Is_FP8 && !V_colmajor;"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 89, "AtomLayoutQK = Layout<Shape<Int<kBlockM / 64>, _1, _1>>;"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 124, "NumMmaWarpGroups = NumMmaThreads / cutlass::NumThreadsPerWarpGroup;"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 352, "UseSchedulerBarrier = (IntraWGOverlap"),
    ("hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", 928, ": (cur_WG < NumMmaWarpGroups - 1 ? cur_WG + 1 : 0);"),
]


@pytest.mark.parametrize("rel, line, text", FA3_BUILD_RULE_LINES)
def test_fa3_build_rule_lines_say_what_the_model_implements(rel, line, text):
    lines = (Path(FA3) / rel).read_text(encoding="utf-8").splitlines()
    assert text in lines[line - 1], f"{rel}:{line} is now {lines[line - 1].strip()!r}"


def test_viz_the_bundled_example_and_the_page_start_as_the_same_fa3_build(tmp_path):
    """viz.py on the FA3 checkout and the committed example page open in the same build: BF16,
    head dimension 128, 2 MMA WGs, IntraWGOverlap and the scheduler barrier on, Transpose_V off."""
    import re
    import node_util
    import viz
    out = tmp_path / "fa3.html"
    assert viz.main([str(Path(FA3) / "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp"), "--kernel-layer",
                     str(Path(FA3) / "hopper/flash_fwd_kernel_sm90.h"), "-o", str(out)]) == 0
    page = out.read_text()
    live = json.loads(re.search(r'<script type="application/json" id="model">(.*?)</script>', page, re.S).group(1))
    example = json.loads((ROOT / "examples" / "fa3_fwd.json").read_text(encoding="utf-8"))
    assert live["initialKnobs"] == {}
    got = node_util.fits([node_util.page_structure(page), example])
    build = [{k: g["knobs"][k] for k in ("dtype", "headDim", "consumerWGs", "intraWGOverlap", "interWGPingpong", "transposeV")}
             for g in got]
    assert build[0] == build[1] == {"dtype": "bf16", "headDim": 128, "consumerWGs": 2, "intraWGOverlap": True,
                                    "interWGPingpong": True, "transposeV": False}
