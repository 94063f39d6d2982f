"""Headless-Chromium tests of the program model on the page (docs/programs.md): the kernel
layer's own role programs drawn as lanes, offered beside the fit, and the page a header changed
at test time gets (a release moved before the gemm: no hand-written model fits, the program
model runs and reports the hazard with both lines). Opened from file:// like a user."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import flush, kv  # noqa: E402
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
    # TILES_PER_CTA: the persistent scheduler's share, said with its rule; no field reads "undefined".
    assert "Tiles per CTA: " in verdict and "(the outputTiles knob: a persistent CTA's share of the tiles)" in verdict
    assert "undefined" not in verdict


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


def test_the_blackwell_attention_example_runs_its_own_program(open_page):
    """examples/sm100_fmha_fwd_waveform.html (CUTLASS 77's forward, scripts/make_examples.py):
    no hand-written model fits chained GEMMs, so the page offers and runs the program model; the
    lanes are the kernel's six roles and its rings, the legend names the register-loop kinds, the
    verdict says what the MMA warp waits for, and a slider the program reads changes the run."""
    page = open_page((ROOT / "examples" / "sm100_fmha_fwd_waveform.html").as_uri())
    options = page.eval_on_selector_all("#knob-model option", "els => els.map(e => e.value)")
    assert options == ["program"]
    assert kv(page, "kv.state.knobs.model") == "program"
    lanes = kv(page, "kv.state.result.lanes.map(l => l.id)")
    roles = [lane for lane in lanes if lane.startswith("role:")]
    assert roles == ["role:Load", "role:Softmax0", "role:Softmax1", "role:Correction", "role:MMA", "role:Epilogue"]
    assert "pipeline_mma_s0.stage0" in lanes and "PipelineO.stage1" in lanes
    verdict = page.inner_text("#verdict")
    assert "What the MMA-issuing roles wait for (steps, by ring): MMA: " in verdict
    assert "PipelineO" in verdict and "pipeline_mma_s0" in verdict
    assert kv(page, "kv.state.result.deadlock") is None
    kinds = kv(page, "Object.keys(kv.state.result.view.kinds)")
    assert "exp" in kinds and "math" in kinds
    # No slider for knobs the program does not read (k-tiles, accumulator stages).
    assert page.query_selector("#knob-kTiles") is None and page.query_selector("#knob-accStages") is None
    total, kv_blocks = kv(page, "kv.state.result.total"), kv(page, "kv.state.knobs.kvBlocks")
    page.focus("#knob-kvBlocks")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    flush(page)
    assert kv(page, "kv.state.knobs.kvBlocks") == kv_blocks + 2
    assert kv(page, "kv.state.result.total") > total
    assert kv(page, "kv.state.result.deadlock") is None


def test_a_program_block_names_its_file_line_and_statement(open_page):
    """The details panel of a program block gives its source as the hand-written models' blocks
    do: the load warp's copy is in the composed Load collective's own file, the MMA warp's wait
    in the mainloop's, with the statement; never a bare number or `:undefined`."""
    page = open_page((ROOT / "examples" / "sm100_fmha_fwd_waveform.html").as_uri())
    ids = page.evaluate("() => { const o = {}; for (const b of window.__kv.blocks()) { const k = String(b.lane) + '/' + b.kind; "
                        "if (!(k in o)) o[k] = b.id; } return o; }")
    page.evaluate(f"() => window.__kv.select({ids['role:Load/issue']})")
    details = page.inner_text("#details")
    assert "sm100_fmha_load_tma_warpspecialized.hpp:245" in details and "undefined" not in details
    page.evaluate(f"() => window.__kv.select({ids['role:MMA/wait']})")
    details = page.inner_text("#details")
    assert "sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp:320" in details
    assert "pipeline_q.consumer_wait(pipeline_q_consumer_state);" in details
    assert "copies of A and B" not in page.inner_text(".kv-legend")


def test_a_run_stopped_by_what_is_not_modelled_is_not_called_a_deadlock_of_the_code(open_page, cutlass, tmp_path):
    """77 without its epilogue collective: the Epilogue role stops at kernel line 612 and the
    correction waits for it. The verdict says what stopped and does not blame the code."""
    ex = "examples/77_blackwell_fmha/"
    parsed = parse_cutlass.parse_header(cutlass(ex + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"),
                                        cutlass(ex + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"))
    out = tmp_path / "fmha_no_epilogue_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, {"model": "program", "outputTiles": 4}))
    page = open_page(out.as_uri())
    verdict = page.inner_text("#verdict")
    assert "what is not modelled blocks the run" in verdict
    assert "Not a deadlock of the code" in verdict
    assert "Epilogue stopped at line 612" in verdict
    assert "the code's protocol deadlocks here" not in verdict
