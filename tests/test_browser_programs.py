"""Headless-Chromium tests of the program model on the page (docs/programs.md): the kernel
layer's own role programs drawn as lanes, offered beside the fit, and the page a header changed
at test time gets (a release moved before the gemm: no hand-written model fits, the program
model runs and reports the hazard with both lines). Opened from file:// like a user."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import kv  # noqa: E402
import pagekit  # noqa: E402
import parse_cutlass  # noqa: E402
import render_waveform as rw  # noqa: E402

COLLECTIVE = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
PINGPONG = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"


def test_program_model_draws_the_kernel_layers_roles(open_page, cutlass, tmp_path):
    parsed = parse_cutlass.parse_header(cutlass(COLLECTIVE), cutlass(PINGPONG))
    out = tmp_path / "program_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, {"model": "program"}))
    page = open_page(out.as_uri())
    assert kv(page, "kv.state.knobs.model") == "program"
    options = page.eval_on_selector_all("#knob-model option", "els => els.map(e => e.value)")
    assert options == ["gemm", "attention", "blackwell", "program"]
    lanes = kv(page, "kv.state.result.lanes.map(l => l.id)")
    assert lanes == ["role:Producer.Mainloop", "MainloopPipeline.stage0", "MainloopPipeline.stage1",
                     "MainloopPipeline.stage2", "MainloopPipeline.stage3", "role:Consumer0", "role:Consumer1"]
    verdict = page.inner_text("#verdict")
    assert "Hazards (a stage refilled while its MMA reads it): none" in verdict
    assert "Roles not modelled past a step: none" in verdict
    assert "IsSchedDynamicPersistent off" in verdict


def test_a_release_before_the_gemm_gets_the_program_model_and_its_hazard(open_page, cutlass, tmp_path):
    lines = cutlass(COLLECTIVE).read_text().split("\n")
    assert "pipeline.consumer_release(smem_pipe_release);" in lines[550] and "cute::gemm" in lines[542]
    lines[542] = lines[550].strip() + " " + lines[542].strip()
    lines[550] = ""
    header = tmp_path / "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
    header.write_text("\n".join(lines))
    parsed = parse_cutlass.parse_header(header, cutlass(PINGPONG))
    out = tmp_path / "hazard_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    page = open_page(out.as_uri())
    # No hand-written model fits this order; the page offers (and runs) only the program model.
    options = page.eval_on_selector_all("#knob-model option", "els => els.map(e => e.value)")
    assert options == ["program"]
    assert kv(page, "kv.state.knobs.model") == "program"
    verdict = page.inner_text("#verdict")
    assert "Hazards (a stage refilled while its MMA reads it):" in verdict
    assert "stage 0 is refilled (line 384)" in verdict and "while the MMA of line 496 still reads it" in verdict
