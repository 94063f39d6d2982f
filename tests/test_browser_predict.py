"""Headless-Chromium test of the waveform page's GPU select (issue 21 part 4, docs/performance.md).

The canonical GEMM page, opened offline from file://: choosing H100 SXM and a 4096^3 problem turns
the ruler into cycles and microseconds, the verdict gives the time, TFLOPs and the bottleneck, and
the URL hash keeps the GPU. Timeouts only catch hangs; nothing here asserts wall-clock speed.
"""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import browser_util  # noqa: E402
from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import render_waveform as rw  # noqa: E402

EXAMPLE = ROOT / "examples" / "sm90_gemm_pingpong.json"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    parsed = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("predict") / "gemm_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, rw.initial_knobs(parsed)))
    return out.as_uri()


def test_choosing_a_gpu_shows_microseconds_and_the_prediction(open_page, page_url):
    page = open_page(page_url)
    assert page.input_value("#knob-gpu") == ""
    assert not any("\u00b5s" in label["text"] for label in kv(page, "kv.state.rulerLabels"))
    assert "TFLOPS" not in page.inner_text("#verdict")
    page.fill("#knob-problem", "4096x4096x4096")
    page.select_option("#knob-gpu", "h100-sxm")
    page.dispatch_event("#knob-problem", "change")
    flush(page)
    page.wait_for_function("window.__kv.state.result && window.__kv.state.result.time !== null && window.__kv.state.result.time !== undefined")
    flush(page)
    labels = [label["text"] for label in kv(page, "kv.state.rulerLabels")]
    assert labels and all("\u00b5s" in text for text in labels), labels
    verdict = page.inner_text("#verdict")
    # 8 tiles per CTA x 64 k-tiles of 512-cycle WGMMAs: 262,144 busy cycles; the run is a bit longer.
    assert kv(page, "kv.state.knobs.wgmmaLatency") == 512
    assert kv(page, "kv.state.knobs.outputTiles") == 8 and kv(page, "kv.state.knobs.kTiles") == 64
    m = re.search(r"Throughput: ([\d.]+) TFLOPS", verdict)
    assert m and 800 < float(m.group(1)) < 989.4, verdict
    assert "Bottleneck: tensor-core" in verdict
    assert "mmaCycles: 2 x 128 x 128 x 64 / 4096 bf16" in verdict
    page.wait_for_function("location.hash.indexOf('gpu=h100-sxm') >= 0")
    assert "wgmma=" not in page.evaluate("location.hash")  # computed, not pinned in the link
    # Back to none: steps again.
    page.select_option("#knob-gpu", "")
    flush(page)
    page.wait_for_function("!window.__kv.state.result.time")
    flush(page)
    assert "TFLOPS" not in page.inner_text("#verdict")
    assert not any("\u00b5s" in label["text"] for label in kv(page, "kv.state.rulerLabels"))
