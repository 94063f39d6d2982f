"""The models' pages (docs/models/*.md) cite source lines for their rules; this reads those lines in
the real sources and fails when a cited line stops saying what the rule claims (or the page stops
citing it)."""

import os
import re
from pathlib import Path

import pytest

from docs_util import docs_page

GEMM = {
    "C": "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp",
    "P": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "S": "include/cutlass/pipeline/sm90_pipeline.hpp",
}
# (file key, line, text the line must contain): the GEMM model's rules in docs/models/gemm.md.
GEMM_LINES = [
    ("C", 264, "K_PIPE_MMAS = 1;"),
    ("C", 374, "pipeline.producer_acquire(smem_pipe_write)"),
    ("C", 480, "prologue_mma_count = min(K_PIPE_MMAS, k_tile_count)"),
    ("C", 529, "for ( ; k_tile_count > 0; --k_tile_count)"),
    ("C", 533, "pipeline.consumer_wait(smem_pipe_read, barrier_token)"),
    ("C", 543, "cute::gemm(tiled_mma"),
    ("C", 547, "warpgroup_wait<K_PIPE_MMAS>()"),
    ("C", 551, "pipeline.consumer_release(smem_pipe_release)"),
    ("C", 571, "warpgroup_wait<0>()"),
    ("C", 574, "pipeline.consumer_release(smem_pipe_release)"),
    ("P", 847, "math_wg_order_barrier.wait()"),
    ("P", 849, "collective_mainloop.mma("),
    ("P", 860, "math_wg_order_barrier.arrive()"),
    ("P", 863, "collective_mainloop.mma_tail("),
    ("P", 882, "math_wg_order_barrier.wait()"),
    ("P", 919, "math_wg_order_barrier.arrive()"),
    ("P", 563, "mainloop_pipe_consumer_state.advance(k_tile_count)"),
    ("S", 1299, "stage_({0, params.group_id == 0, 0})"),
]
FA3 = {"M": "hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp", "E": "hopper/epilogue_fwd.hpp", "N": "hopper/named_barrier.hpp"}
FA3_LINES = [
    ("M", 806, "if constexpr (Transpose_V) { load_V("),
    ("M", 852, "barrier_O.wait((work_idx + 1) % 2)"),
    ("M", 861, "for (; n_block >= n_block_min; --n_block)"),
    ("M", 887, "copy_Vt_to_V(smem_pipe_write)"),
    ("M", 1176, "warp_scheduler_barrier_sync()"),
    ("M", 1183, "warp_scheduler_barrier_arrive()"),
    ("M", 1199, "pipeline_v.consumer_release(smem_pipe_read_v)"),
    ("M", 1237, "FwdNamedBarriers::QueryEmpty"),
    ("M", 1256, "warp_scheduler_barrier_sync()"),
    ("M", 1336, "warp_scheduler_barrier_arrive()"),
    ("M", 1338, "FwdNamedBarriers::QueryEmpty"),
    ("E", 249, "named_barrier_sync(NumEpilogueThreads"),
    ("E", 327, "barrier_O.arrive(cta_id)"),
    ("N", 51, "QueryEmpty = 0"),
]


def model_section(page):
    """The text of a model's page, e.g. docs/models/gemm.md."""
    return docs_page(f"models/{page}.md")


def cites(section, key, line):
    """True when the page cites `key line` (alone, in a range start/end, or in a list after the key)."""
    for m in re.finditer(r"\b%s ([0-9][0-9, ()a-zA-Z<>_-]*)" % key, section):
        if re.search(r"(?<![0-9])%d(?![0-9])" % line, m.group(1)):
            return True
    return False


def test_gemm_rule_lines_say_what_the_docs_say(cutlass):
    section = model_section("gemm")
    for key, line, text in GEMM_LINES:
        source = cutlass(GEMM[key]).read_text(encoding="utf-8").split("\n")
        assert text in source[line - 1], f"{GEMM[key]}:{line} no longer has {text!r}"
        assert cites(section, key, line), f"the model page does not cite {key} {line}"


@pytest.mark.skipif(not os.environ.get("FLASH_ATTENTION_PATH"), reason="set FLASH_ATTENTION_PATH to a flash-attention checkout")
def test_fa3_rule_lines_say_what_the_docs_say():
    root = Path(os.environ["FLASH_ATTENTION_PATH"])
    section = model_section("attention")
    for key, line, text in FA3_LINES:
        source = (root / FA3[key]).read_text(encoding="utf-8").split("\n")
        assert text in source[line - 1], f"{FA3[key]}:{line} no longer has {text!r}"
        assert cites(section, key, line), f"the model page does not cite {key} {line}"


def test_the_gemm_page_states_the_hand_case_and_steady_state():
    section = model_section("gemm")
    assert "gives **27** steps" in section and "(1 + L)/(S − 1)" in section
