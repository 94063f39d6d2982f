"""Headless-Chromium test of the default model where the GEMM model fits but does not follow the
code (docs/fit.md "Default model"): `viz.py` on CUTLASS 4.2's FP8 blockwise-scaling mainloop with
its cooperative kernel layer writes a page that starts in the program model and says why in the
verdict, with the GEMM model still in the model choice; `--model gemm` starts in the GEMM model,
whose messages say why it is not the default. Opened from file:// like a user."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import kv  # noqa: E402
import viz  # noqa: E402

BLOCKWISE = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"
COOPERATIVE = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp"


def page_of(open_page, cutlass, tmp_path, name, *flags):
    """viz.py's page of the blockwise mainloop with its kernel layer (plus flags), opened."""
    out = tmp_path / name
    assert viz.main([str(cutlass(BLOCKWISE)), "--kernel-layer", str(cutlass(COOPERATIVE)), *flags, "-o", str(out)]) == 0
    return open_page(out.as_uri())


def test_the_page_starts_in_the_program_model_and_says_why(open_page, cutlass, tmp_path):
    page = page_of(open_page, cutlass, tmp_path, "blockwise_waveform.html")
    assert kv(page, "kv.state.knobs.model") == "program"
    options = page.eval_on_selector_all("#knob-model option", "els => els.map(e => e.value)")
    assert "gemm" in options and "program" in options
    why = page.inner_text("#verdict .kv-fit-reason")
    assert why.startswith("Why program: the kernel layer's own role programs")
    assert "the gemm model fits but does not follow the code here (mma() waits on its WGMMAs 3 times (warpgroup_wait, lines 897, 976, 1052)" in why
    assert "Roles not modelled past a step: none" in page.inner_text("#verdict")


def test_model_gemm_starts_in_the_gemm_model(open_page, cutlass, tmp_path):
    page = page_of(open_page, cutlass, tmp_path, "blockwise_gemm_waveform.html", "--model", "gemm")
    assert kv(page, "kv.state.knobs.model") == "gemm"
    assert page.query_selector("#verdict .kv-fit-reason") is None
    assert "the default is the program model, because this one does not follow the code here" in page.inner_text("#messages")
