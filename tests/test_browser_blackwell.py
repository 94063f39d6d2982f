"""Headless-Chromium tests of the waveform page in the Blackwell (SM100) model, opened from file://.

The page is rendered from the parsed CUTLASS 4.2 SM100 pair (tests/fixtures/sm100_gemm_pair.parsed.json:
gemm/collective/sm100_mma_warpspecialized.hpp with --kernel-layer gemm/kernel/sm100_gemm_tma_warpspecialized.hpp)
and must open offline in the blackwell model with its lanes, verdict and SM100 source lines. Each
test checks (open_page fixture) that the page made no network request and logged no error.
Timeouts only catch hangs; nothing here asserts wall-clock speed.
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

FIXTURE = ROOT / "tests" / "fixtures" / "sm100_gemm_pair.parsed.json"
MAINLOOP = "sm100_mma_warpspecialized.hpp"
LANES = ["sched", "producer", "stage0", "stage1", "stage2", "stage3", "mma", "acc0", "acc1", "epilogue"]
RE_TOTAL = re.compile(r"Total: (\d+) steps")


@pytest.fixture(scope="module")
def sm100():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page_url(sm100, tmp_path_factory):
    """The page as viz.py renders it for the SM100 pair (the structure picks the model)."""
    out = tmp_path_factory.mktemp("blackwell") / "sm100_gemm_waveform.html"
    pagekit.write_atomic(out, rw.render(sm100, rw.initial_knobs(sm100)))
    return out.as_uri()


FIND_BLOCK_JS = """([kind, lane]) => {
  const kv = window.__kv;
  for (const b of kv.blocks()) {
    if (b.kind !== kind || (lane !== null && b.lane !== lane)) continue;
    const centre = kv.blockCenter(b.id);
    if (centre && centre.widthPx >= 4) return [b, centre];
  }
  return null;
}"""


def hover(page, kind, lane=None):
    """Hover the first visible block of a kind (on a lane), then click it; return (block, the
    details panel's text). The tooltip is a short summary; the source lines are in the panel."""
    found = page.evaluate(FIND_BLOCK_JS, [kind, lane])
    assert found, f"no visible {kind} block on {lane}"
    block, centre = found
    page.mouse.move(centre["x"], centre["y"])
    page.wait_for_selector("#tooltip:not([hidden])")
    page.mouse.click(centre["x"], centre["y"])
    return block, page.inner_text("#details")


def test_sm100_page_opens_offline_in_the_blackwell_model(open_page, page_url, sm100):
    page = open_page(page_url)
    assert kv(page, "kv.state.knobs.model") == "blackwell"
    assert page.eval_on_selector("#knob-model", "el => el.value") == "blackwell"
    assert page.is_hidden("#error") and page.is_hidden("#messages")
    assert kv(page, "kv.state.lanes.map(l => l.id)") == LANES
    labels = dict(kv(page, "kv.state.lanes.map(l => [l.id, l.label])"))
    # Lane labels carry the parsed WarpCategory warp numbers.
    assert "warp 0" in labels["mma"] and "warp 1" in labels["sched"] and "warp 2" in labels["producer"]
    assert "warps 4+" in labels["epilogue"]
    kinds = set(kv(page, "kv.blocks().map(b => b.kind)"))
    assert {"clc", "issue", "filling", "full", "umma", "acc", "drain", "tmem_load", "store"} <= kinds
    assert "wgmma" not in kinds
    # Controls come from knobsFor("blackwell"): accumulator stages slider, 2-SM checkbox.
    assert kv(page, "document.getElementById('knob-accStages').type") == "range"
    assert kv(page, "document.getElementById('knob-ctaPair').type") == "checkbox"
    assert page.query_selector("#knob-wgmmaLatency") is None
    assert int(RE_TOTAL.search(page.inner_text("#verdict")).group(1)) == 43
    header = page.inner_text(".kv-header")
    assert sm100["kernel_layer"]["source"]["path"] in header and sm100["source"]["path"] in header
    page.screenshot(path=str(browser_util.artifact_path("blackwell_light.png")), full_page=True)


def test_accumulator_stages_and_cta_pair_update_the_page(open_page, page_url):
    page = open_page(page_url)
    kv(page, "kv.setKnobs({accStages: 1})")
    flush(page)
    assert int(RE_TOTAL.search(page.inner_text("#verdict")).group(1)) == 52
    assert kv(page, "kv.state.lanes.filter(l => l.group === 'acc').map(l => l.id)") == ["acc0"]
    assert "acc-stages=1" in kv(page, "kv.writeHashNow()")
    # 2-SM mode draws the peer CTA's lanes (the checkbox, from the keyboard).
    page.focus("#knob-ctaPair")
    page.keyboard.press("Space")
    flush(page)
    assert kv(page, "kv.state.knobs.ctaPair") is True
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert [l for l in lanes if l.startswith("peer_")] == [
        "peer_producer", "peer_stage0", "peer_stage1", "peer_stage2", "peer_stage3", "peer_acc0", "peer_epilogue"]
    assert "mma" in lanes and "peer_mma" not in lanes
    assert kv(page, "kv.blocks().filter(b => b.lane === 'peer_epilogue' && b.kind === 'tmem_load').length") == 4
    assert "cta-pair=on" in kv(page, "kv.writeHashNow()")
    page.screenshot(path=str(browser_util.artifact_path("blackwell_pair.png")), full_page=True)


def test_tooltips_cite_sm100_lines(open_page, page_url, sm100):
    page = open_page(page_url)
    load = next(f for f in sm100["functions"] if f["name"] == "load")
    tma = [op["line"] for op in load["ops"] if op["op"] == "tma_load"]
    assert tma == [617, 618]
    _block, text = hover(page, "issue", "producer")
    for line in tma:
        assert f"{MAINLOOP}:{line}" in text, text
    assert "observed_tma_load_a_->with" in text
    _block, text = hover(page, "full", "stage0")
    assert f"{MAINLOOP}:681" in text and f"{MAINLOOP}:705" in text, text
    # Every block's lines are lines the parser recorded for this pair.
    recorded = {(op["line"], op["text"]) for f in sm100["functions"] for op in f["ops"]}
    recorded |= {(c["line"], c["text"]) for c in sm100["kernel_layer"]["calls"]}
    blocks = kv(page, "kv.blocks()")
    assert [(b["kind"], r["line"]) for b in blocks for r in b["lines"] if (r["line"], r["text"]) not in recorded] == []


PIXEL_AT_BLOCK_JS = """(id) => {
  const kv = window.__kv, c = kv.blockCenter(id), canvas = document.getElementById('wave');
  if (!c) return null;
  const rect = canvas.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  const px = canvas.getContext('2d').getImageData(Math.round((c.x - rect.left) * dpr), Math.round((c.y - rect.top) * dpr), 1, 1).data;
  return Array.from(px);
}"""


def test_blackwell_kinds_legend_and_verdict_are_drawn_from_the_view(open_page, page_url):
    """The page draws the new kinds, legend and verdict lines from result.view (no model-name branch)."""
    page = open_page(page_url)
    # A UMMA block is painted in the theme's MMA fill (as the view's legend says).
    umma = kv(page, "kv.blocks().find(b => b.kind === 'umma').id")
    fill = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--kind-mma-a').trim()")
    assert re.fullmatch(r"#[0-9a-fA-F]{6}", fill), fill
    pixel = page.evaluate(PIXEL_AT_BLOCK_JS, umma)
    assert pixel is not None
    assert max(abs(pixel[i] - int(fill[1 + 2 * i:3 + 2 * i], 16)) for i in range(3)) <= 8, (pixel, fill)
    legend = page.inner_text("#legend")
    for word in ("UMMA", "ACC o", "LD o", "ST o", "CLC o"):
        assert word in legend, word
    text = page.inner_text("#verdict")
    assert "Epilogues hidden: 18 of 24 epilogue steps overlap UMMAs" in text
    assert "the tensor core never waits for an epilogue" in text
    assert "Min stages to hide" not in text
    _block, tip = hover(page, "umma", "mma")
    assert f"{MAINLOOP}:699" in tip and f"{MAINLOOP}:705" in tip


def test_click_follows_one_k_tile_on_the_sm100_example(open_page):
    # issue 18: following did nothing on every SM100 page (the Blackwell kinds had no chain fields).
    page = open_page((ROOT / "examples" / "sm100_gemm_waveform.html").as_uri())
    found = page.evaluate("""() => {
      const kv = window.__kv;
      for (const b of kv.blocks()) {
        if (b.kind !== 'umma' || b.tile !== 1 || b.k !== 1) continue;
        const c = kv.blockCenter(b.id);
        if (c && c.widthPx >= 4) return [b, c];
      }
      return null; }""")
    assert found, "no visible UMMA 1.1"
    block, centre = found
    page.mouse.click(centre["x"], centre["y"])
    flush(page)
    blocks = kv(page, "kv.blocks()")
    chain = [b for b in blocks if b["id"] in kv(page, "kv.highlighted()")]
    assert {b["kind"] for b in chain} == {"issue", "filling", "full", "umma"}
    assert all(b["tile"] == 1 and b["k"] == 1 for b in chain)
    info = page.inner_text("#chain-info")
    assert "Following k-tile 1.1" in info and "not in this schedule" not in info
    assert "follow=1.1" in kv(page, "kv.writeHashNow()")
