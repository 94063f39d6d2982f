"""The program model in cycles on the page (docs/performance.md "The program model in cycles"):
CUTLASS 77's Blackwell attention forward, run from its own role programs, with a GPU and an
attention problem in the URL hash shows time, TFLOPS and its UMMA latency's derivation. Timeouts
only catch hangs; nothing here asserts wall-clock speed."""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import browser_util  # noqa: E402,F401  (the open_page fixture's module)
from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import render_waveform as rw  # noqa: E402

EXAMPLE = ROOT / "examples" / "sm100_fmha_fwd.json"


def test_program_model_with_a_gpu_shows_time_throughput_and_latencies(open_page, tmp_path):
    parsed = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    out = tmp_path / "fmha_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, rw.initial_knobs(parsed)))
    page = open_page(out.as_uri() + "#model=program&gpu=b200&heads=16&seqlen=2048")
    page.wait_for_function("window.__kv.state.result && window.__kv.state.result.time")
    flush(page)
    assert kv(page, "kv.state.result.model") == "program"
    # 4 x 128^3 FLOPs per KV block over the MMA warp's 4 UMMAs, at 8192 BF16 FLOP/clk/SM.
    assert kv(page, "kv.state.knobs.ummaLatency") == 256
    assert kv(page, "kv.state.knobs.kvBlocks") == 16
    verdict = page.inner_text("#verdict")
    m = re.search(r"Throughput: ([\d.]+) TFLOPS", verdict)
    assert m and 0 < float(m.group(1)) <= 2255.1, verdict
    assert "mmaCycles: 2 x 64 x 128 x 128 / 8192 bf16" in verdict
    assert "registerLoopCycles: 64 x 128 / 128" in verdict
    assert "Bottleneck: " in verdict
