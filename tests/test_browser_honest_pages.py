"""Headless-Chromium tests of the honest pages (issue 9): a deadlock is a verdict, a kernel no
model fits shows its parsed structure instead of a schedule. Opened from file:// like a user."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import browser_util  # noqa: E402
from browser_util import kv  # noqa: E402
import pagekit  # noqa: E402
import parse_cutlass  # noqa: E402
import render_waveform as rw  # noqa: E402

MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
SM100 = "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"
EXAMPLE = ROOT / "examples" / "sm90_gemm_pingpong.json"


def test_deadlock_page_names_waiting_roles_and_lines(open_page, tmp_path):
    parsed = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    # The loop's consumer_release removed (as if deleted from the source): the mainloop never frees a stage.
    mma = next(fn for fn in parsed["functions"] if fn["name"] == "mma")
    mma["ops"] = [op for op in mma["ops"] if op["op"] != "consumer_release"]
    out = tmp_path / "deadlock_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, {"stages": 4, "kTiles": 5, "outputTiles": 2}))
    page = open_page(out.as_uri())
    assert page.get_attribute("#verdict", "data-state") == "deadlock"
    verdict = page.inner_text("#verdict")
    assert "Deadlock after step" in verdict
    assert "producer waits on MainloopPipeline.empty[0] (phase 0) at line 374" in verdict
    assert "Total:" not in verdict and "utilization" not in verdict
    assert "no consumer_release after the last mma of mma()" in page.inner_text("#messages")
    # The blocks before the deadlock are drawn.
    assert kv(page, "kv.blocks().length") > 0
    page.screenshot(path=str(browser_util.artifact_path("waveform_deadlock.png")), full_page=True)


def test_no_model_page_shows_the_parsed_structure_and_no_figures(open_page, tmp_path):
    parsed = {"schema_version": 1, "source": {"path": "empty.hpp", "lines": 3}, "kind": "mainloop", "arch": "sm90",
              "pipelines": [], "buffers": [], "functions": [{"name": "helper", "role": "other", "line": 1, "ops": []}],
              "warnings": ["empty.hpp:1: no pipeline found"]}
    out = tmp_path / "empty_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    page = open_page(out.as_uri())
    assert page.get_attribute("#verdict", "data-state") == "no-model"
    verdict = page.inner_text("#verdict")
    assert "No schedule model fits this kernel" in verdict and "no pipeline operation" in verdict
    assert "Total" not in verdict and "%" not in verdict
    assert page.is_visible("#structure")
    text = page.inner_text("#structure")
    assert "helper() [other]" in text and "no pipeline found" in text
    assert page.is_hidden("#wave") and page.is_hidden("#knobs")


def test_sm100_collective_gets_the_blackwell_page_never_an_sm90_one(open_page, cutlass, tmp_path):
    parsed = parse_cutlass.parse_file(cutlass(SM100))
    out = tmp_path / "sm100_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    page = open_page(out.as_uri())
    assert kv(page, "kv.state.knobs.model") == "blackwell"
    assert "WGMMA" not in page.inner_text("body")
    assert kv(page, "kv.blocks().length") > 0
    assert kv(page, "kv.blocks().filter(b => b.kind === 'wgmma').length") == 0
    # A collective alone: the page states the kernel-layer roles it assumes.
    assert "no kernel layer parsed" in page.inner_text("body")
    page.screenshot(path=str(browser_util.artifact_path("waveform_sm100_collective.png")), full_page=True)


def test_sm120_collective_gets_the_no_model_page(open_page, cutlass, tmp_path):
    """SM120 (GeForce Blackwell) issues warp-level MMAs with no TMEM or UMMA: neither the SM90 nor
    the SM100 model describes it, so the page shows the parsed structure and says so."""
    parsed = parse_cutlass.parse_file(cutlass("include/cutlass/gemm/collective/sm120_mma_tma_blockwise_scaling.hpp"))
    assert parsed["arch"] == "sm120"
    out = tmp_path / "sm120_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    page = open_page(out.as_uri())
    assert page.get_attribute("#verdict", "data-state") == "no-model"
    verdict = page.inner_text("#verdict")
    assert "No schedule model fits this kernel" in verdict and "no TMEM or UMMA" in verdict
    assert "%" not in verdict
    assert page.is_hidden("#wave")


def test_sm100_attention_gets_the_no_model_page(open_page, cutlass, tmp_path):
    """CUTLASS's 77_blackwell_fmha mainloop is SM100 attention: the Blackwell model (the SM100 GEMM)
    does not describe it, so the page says so instead of drawing a GEMM."""
    parsed = parse_cutlass.parse_file(cutlass(
        "examples/77_blackwell_fmha/collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"))
    out = tmp_path / "fmha_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    page = open_page(out.as_uri())
    assert page.get_attribute("#verdict", "data-state") == "no-model"
    # Attention by its structure: two chained tiled MMAs, whatever the operands are called.
    assert "2 tiled MMAs (mma_qk, mma_pv_ts): chained GEMMs" in page.inner_text("#verdict")
    assert page.is_hidden("#wave")
    # The model selector offers no model on a page no model fits.
    assert page.eval_on_selector("#knob-model", "el => [el.disabled, [...el.options].map(o => o.value)]") == [True, ["none"]]
    hashed = open_page(out.as_uri() + "#model=gemm")
    assert hashed.get_attribute("#verdict", "data-state") == "no-model"
    assert "model=gemm (no schedule model fits this kernel)" in hashed.inner_text("#messages")
