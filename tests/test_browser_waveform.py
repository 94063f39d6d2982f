"""Headless-Chromium tests of the waveform page, opened from file:// like a user would.

Each test checks that the page made no network request and logged no console or page error.
Timeouts only catch hangs; nothing here asserts wall-clock speed.
"""

import copy
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import node_util  # noqa: E402
import browser_util  # noqa: E402
from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import render_waveform as rw  # noqa: E402

EXAMPLE = Path(os.environ.get("KV_EXAMPLE_JSON", ROOT / "examples" / "sm90_gemm_pingpong.json"))
CHAIN_KINDS = ("issue", "filling", "full", "wgmma")
INJECTED = '<img id="kv-injected" src="x.png" onerror="window.__pwned = 1"></script><!-- '


@pytest.fixture(scope="module")
def parsed():
    """The canonical parsed structure."""
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page_url(parsed, tmp_path_factory):
    """file:// URL of the page rendered from the canonical example."""
    out = tmp_path_factory.mktemp("waveform") / "sm90_gemm_pingpong_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed))
    return out.as_uri()


FIND_BLOCK_JS = """([kind, tile, k]) => {
  const kv = window.__kv;
  for (const b of kv.blocks()) {
    if (b.kind !== kind || (tile !== null && b.tile !== tile) || (k !== null && b.k !== k)) continue;
    const centre = kv.blockCenter(b.id);
    if (centre && centre.widthPx >= 4) return [b, centre];
  }
  return null;
}"""


def find_block(page, kind, tile=None, k=None):
    """Return (block, centre) of the first block of a kind (and tile/k) visibly on the canvas."""
    found = page.evaluate(FIND_BLOCK_JS, [kind, tile, k])
    assert found, f"no visible {kind} block (tile={tile}, k={k})"
    return found[0], found[1]


def verdict_text(page):
    return page.inner_text("#verdict")


def test_page_loads_offline_and_draws(open_page, page_url, parsed):
    page = open_page(page_url)
    assert kv(page, "kv.blocks().length") > 0
    assert page.is_hidden("#error")
    assert "Total:" in verdict_text(page)
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert lanes[0] == "producer" and lanes[-1].startswith("consumer")
    assert any(l.startswith("stage") for l in lanes)
    legend = page.inner_text(".kv-legend")
    for word in ("issue", "FILLING", "FULL", "WGMMA", "EPI", "WAIT"):
        assert word in legend
    header = page.inner_text(".kv-header")
    assert parsed["kernel_layer"]["source"]["path"] in header
    assert parsed["pipelines"][0]["class"] in header
    box = page.locator("#wave").bounding_box()
    assert box["width"] > 300 and box["height"] > 100
    # Every knob control has an accessible label.
    assert kv(page, "Array.from(document.querySelectorAll('[data-knob]')).every(el => el.labels.length > 0)")
    page.screenshot(path=str(browser_util.artifact_path("waveform_light.png")), full_page=True)


CANVAS_PIXEL_JS = """([x, y]) => {
  const canvas = document.getElementById('wave'), dpr = window.devicePixelRatio || 1;
  return Array.from(canvas.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data);
}"""


def test_dark_scheme(open_page, page_url):
    page = open_page(page_url, color_scheme="dark")
    light_bg = "#ffffff"
    bg = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()")
    assert bg and bg.lower() != light_bg
    # The canvas reads the theme too: its ruler and lane gutter are the dark panel colour.
    width = kv(page, "document.getElementById('wave').clientWidth")
    for x, y in ((width - 3, 3), (3, kv(page, "kv.state.rowsBottom") - 3)):
        r, g, b, _a = page.evaluate(CANVAS_PIXEL_JS, [x, y])
        assert r + g + b < 3 * 64, (x, y, r, g, b)
    page.screenshot(path=str(browser_util.artifact_path("waveform_dark.png")), full_page=True)


def test_initial_knobs_come_from_the_model(open_page, page_url, parsed):
    # The page starts where schedule.js's simulate(structure, {}) does (the kernel layer's
    # schedule and warpgroups, K_PIPE_MMAS): the same knobs `node schedule.js export` uses.
    page = open_page(page_url)
    knobs = kv(page, "kv.state.knobs")
    expected = node_util.fits([parsed])[0]["knobs"]
    assert expected["schedule"] == parsed["kernel_layer"]["schedule"]
    for name, value in expected.items():
        assert knobs[name] == value, name


def test_slider_change_resimulates(open_page, page_url):
    page = open_page(page_url)
    before_blocks = kv(page, "kv.blocks().length")
    before_total = kv(page, "kv.state.result.total")
    before_verdict = verdict_text(page)
    k_tiles = kv(page, "kv.state.knobs.kTiles")
    page.focus("#knob-kTiles")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    flush(page)
    assert kv(page, "kv.state.knobs.kTiles") == k_tiles + 2
    assert page.inner_text("#out-kTiles") == str(k_tiles + 2)
    assert kv(page, "kv.blocks().length") > before_blocks
    assert kv(page, "kv.state.result.total") > before_total
    assert verdict_text(page) != before_verdict
    assert f"k-tiles={k_tiles + 2}" in kv(page, "kv.writeHashNow()")
    # A select works the same way.
    page.select_option("#knob-schedule", "cooperative")
    flush(page)
    assert kv(page, "kv.state.knobs.schedule") == "cooperative"
    assert "cooperative" in kv(page, "kv.state.result.verdict.summary")


def test_click_follows_one_k_tile(open_page, page_url):
    page = open_page(page_url)
    block, centre = find_block(page, "wgmma", tile=1, k=2)
    page.mouse.click(centre["x"], centre["y"])
    expected = sorted(
        b["id"]
        for b in kv(page, "kv.blocks()")
        if b["tile"] == 1 and b["k"] == 2 and b["kind"] in CHAIN_KINDS
    )
    highlighted = kv(page, "kv.highlighted()")
    assert highlighted == expected
    kinds = {b["kind"] for b in kv(page, "kv.blocks()") if b["id"] in highlighted}
    assert {"issue", "wgmma"} <= kinds
    info = page.inner_text("#chain-info")
    assert "Following k-tile 1.2" in info and "released at" in info
    assert "follow=1.2" in kv(page, "kv.writeHashNow()")
    page.screenshot(path=str(browser_util.artifact_path("waveform_follow.png")), full_page=True)
    page.keyboard.press("Escape")
    assert kv(page, "kv.highlighted()") == []


def test_details_panel_shows_source_lines(open_page, page_url, parsed):
    page = open_page(page_url)
    block, centre = find_block(page, "wgmma", k=0)
    page.mouse.move(centre["x"], centre["y"])
    page.wait_for_selector("#tooltip:not([hidden])")
    tip = page.inner_text("#tooltip")
    assert "WGMMA" in tip and f"{block['tile']}.{block['k']}" in tip
    # The tooltip is a short summary: no source lines; a click puts them in the details panel.
    assert ".hpp:" not in tip
    page.mouse.click(centre["x"], centre["y"])
    text = page.inner_text("#details")
    assert "WGMMA" in text and f"{block['tile']}.{block['k']}" in text
    consumer = next(f for f in parsed["functions"] if f["role"] == "consumer" and any(o["op"] == "mma" for o in f["ops"]))
    for op_kind in ("consumer_wait", "mma"):
        op = next(o for o in consumer["ops"] if o["op"] == op_kind)
        assert f":{op['line']}" in text, op_kind
        assert op["text"][:30] in text, op_kind
    page.screenshot(path=str(browser_util.artifact_path("waveform_tooltip.png")))
    # Faithfulness: every block's lines are lines the parser recorded (path, line and text).
    known = {(op["line"], op["text"]) for fn in parsed["functions"] for op in fn.get("ops", [])}
    known |= {(c["line"], c["text"]) for c in (parsed.get("kernel_layer") or {}).get("calls", [])
              if isinstance(c, dict) and "text" in c}
    blocks = kv(page, "kv.blocks()")
    assert all(b["lines"] for b in blocks), [b for b in blocks if not b["lines"]][:3]
    stray = [(b["kind"], r["line"]) for b in blocks for r in b["lines"] if (r["line"], r["text"]) not in known]
    assert stray == []
    # Wait blocks name their reason (tooltip and details).
    wait, centre = find_block(page, "wait")
    page.mouse.move(centre["x"], centre["y"])
    assert f"wait reason: {wait['reason']}" in page.inner_text("#tooltip")
    page.mouse.click(centre["x"], centre["y"])
    assert wait["reason"] in page.inner_text("#details")


def test_tooltip_inserts_source_as_text(open_page, parsed, tmp_path):
    nasty = copy.deepcopy(parsed)
    for fn in nasty["functions"]:
        for op in fn.get("ops", []):
            if op["op"] == "mma":
                op["text"] = INJECTED + op["text"]
    out = tmp_path / "nasty.html"
    pagekit.write_atomic(out, rw.render(nasty))
    page = open_page(out.as_uri())
    _block, centre = find_block(page, "wgmma", k=0)
    page.mouse.click(centre["x"], centre["y"])
    assert INJECTED.strip() in page.inner_text("#details")
    assert page.query_selector("#kv-injected") is None
    assert page.evaluate("window.__pwned") is None


def test_hash_round_trip(open_page, page_url):
    page = open_page(page_url)
    page.evaluate(
        """() => { const s = document.getElementById('knob-stages'); s.value = '6';
                   s.dispatchEvent(new Event('input', {bubbles: true})); }"""
    )
    page.select_option("#knob-consumerWGs", "1")
    flush(page)
    page.focus("#wave")
    page.keyboard.press("+")
    page.keyboard.press("+")
    page.keyboard.press("d")
    block, centre = find_block(page, "wgmma", k=1)
    page.mouse.move(centre["x"], centre["y"])
    page.keyboard.press("m")
    page.mouse.move(centre["x"] + 60, centre["y"])
    page.keyboard.press("M")
    page.mouse.click(centre["x"], centre["y"])
    flush(page)
    state = kv(page, "({knobs: kv.state.knobs, view: kv.state.view, a: kv.state.markerA, b: kv.state.markerB, follow: kv.state.follow})")
    assert state["knobs"]["stages"] == 6 and state["knobs"]["consumerWGs"] == 1
    assert state["a"] is not None and state["b"] is not None and state["b"] > state["a"]
    assert "|B\u2212A|" in page.inner_text("#marker-readout")
    hash_text = kv(page, "kv.writeHashNow()")
    # The model is a knob too (gemm | attention) and leads the hash; the GEMM knobs follow in flag order.
    assert hash_text.startswith("#model=gemm&stages=6&")
    assert "&consumers=1&" in hash_text and "&t0=" in hash_text and "&a=" in hash_text and "follow=" in hash_text

    again = open_page(page_url + hash_text)
    restored = kv(again, "({knobs: kv.state.knobs, view: kv.state.view, a: kv.state.markerA, b: kv.state.markerB, follow: kv.state.follow})")
    for name in ("stages", "outputTiles", "kTiles", "tmaLatency", "wgmmaLatency", "epilogueLatency", "consumerWGs", "schedule"):
        assert restored["knobs"][name] == state["knobs"][name], name
    assert restored["view"]["t0Step"] == pytest.approx(state["view"]["t0Step"], abs=1e-3)
    assert restored["view"]["t1Step"] == pytest.approx(state["view"]["t1Step"], abs=1e-3)
    assert (restored["a"], restored["b"], restored["follow"]) == (state["a"], state["b"], state["follow"])
    assert kv(again, "kv.hash()") == hash_text[1:]
    assert again.is_hidden("#messages")
    assert kv(again, "kv.highlighted()") == kv(page, "kv.highlighted()")


def test_editing_the_hash_updates_the_page(open_page, page_url):
    page = open_page(page_url)
    page.evaluate("location.hash = '#stages=3&k-tiles=7&t0=2&t1=20'")
    page.wait_for_function("window.__kv.state.knobs.stages === 3")
    flush(page)
    assert kv(page, "kv.state.knobs.kTiles") == 7
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == [2, 20]
    assert kv(page, "kv.state.lanes.filter(l => l.id.startsWith('stage')).length") == 3
    assert page.inner_text("#out-stages") == "3"


def test_garbage_hash_is_clamped_or_refused_with_messages(open_page, page_url):
    garbage = "#stages=-5&tiles=1e12&k-tiles=abc&tma=NaN&wgmma=2.6&schedule=%3Cscript%3E&consumers=9&t0=5&t1=1&cursor=Infinity&follow=x&bogus=1&%E0%A4%A=1"
    page = open_page(page_url + garbage)
    knobs = kv(page, "kv.state.knobs")
    ranges = kv(page, "KernelSchedule.KNOB_RANGES")
    assert knobs["stages"] == ranges["stages"]["min"]
    assert knobs["outputTiles"] == ranges["outputTiles"]["max"]
    assert knobs["consumerWGs"] == ranges["consumerWGs"]["max"]
    assert knobs["schedule"] in ("pingpong", "cooperative")
    assert page.is_visible("#messages")
    messages = page.inner_text("#messages")
    for key in ("stages=-5", "tiles=1e12", "k-tiles=abc", "tma=NaN", "schedule=<script>", "consumers=9", "t0/t1", "cursor=Infinity", "follow=x", "bogus", "bad % escape"):
        assert key in messages, key
    assert page.query_selector("#messages script") is None
    # Still alive: the view is a fit of the clamped schedule, and a slider change clears the messages.
    assert kv(page, "kv.state.view.t0Step") == 0
    assert kv(page, "kv.state.result.error") is None
    page.focus("#knob-kTiles")
    page.keyboard.press("ArrowRight")
    flush(page)
    # 4096 tiles x 6 k-tiles simulate in the page's Worker: wait for its result.
    page.wait_for_function("!window.__kv.simulating()")
    # The hash messages are gone; what stays is the simulator's note that one stage cannot hold
    # K_PIPE_MMAS = 1 in-flight WGMMA (CUTLASS static_asserts it; the verdict shows the deadlock).
    assert page.inner_text("#messages").strip().startswith("kPipeMmas: 1 >= stages (1)")
    assert len(kv(page, "kv.state.simMessages")) == 1
    assert "Deadlock" in verdict_text(page)


def test_block_cap_error_is_shown_and_recoverable(open_page, page_url):
    page = open_page(page_url + "#tiles=4096&k-tiles=4096")
    assert page.is_visible("#error")
    assert "too many blocks" in page.inner_text("#error")
    assert "No verdict" in verdict_text(page)
    assert kv(page, "kv.blocks().length") == 0
    page.screenshot(path=str(browser_util.artifact_path("waveform_error.png")))
    page.evaluate("window.__kv.setKnobs({outputTiles: 4, kTiles: 5})")
    flush(page)
    assert page.is_hidden("#error")
    assert kv(page, "kv.blocks().length") > 0


def test_keyboard_and_buttons_zoom_pan_fit(open_page, page_url):
    page = open_page(page_url)
    total = kv(page, "kv.state.result.total")
    view = kv(page, "kv.state.view")
    assert (view["t0Step"], view["t1Step"]) == (0, total)
    page.focus("#wave")
    page.keyboard.press("+")
    zoomed = kv(page, "kv.state.view")
    assert zoomed["t1Step"] - zoomed["t0Step"] < total
    page.keyboard.press("d")
    panned = kv(page, "kv.state.view")
    assert panned["t0Step"] > zoomed["t0Step"]
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert kv(page, "kv.state.view.t1Step - kv.state.view.t0Step") > zoomed["t1Step"] - zoomed["t0Step"]
    page.keyboard.press("0")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == [0, total]
    # Home / End jump to either end at the same zoom.
    page.keyboard.press("+")
    span = kv(page, "kv.state.view.t1Step - kv.state.view.t0Step")
    page.keyboard.press("End")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == pytest.approx([total - span, total])
    page.keyboard.press("Home")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == pytest.approx([0, span])
    page.keyboard.press("0")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == [0, total]
    page.click("#btn-zoom-in")
    assert kv(page, "kv.state.view.t1Step - kv.state.view.t0Step") < total
    page.click("#btn-fit")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == [0, total]
    # Cursor by keyboard, markers by buttons.
    page.focus("#wave")
    for _ in range(5):
        page.keyboard.press(">")
    page.click("#btn-marker-a")
    page.focus("#wave")
    for _ in range(3):
        page.keyboard.press(">")
    page.click("#btn-marker-b")
    # Markers snap to a block edge within a few pixels of the cursor (at the fitted zoom, every step
    # is a block edge somewhere), so the distance stays 3 steps.
    assert kv(page, "kv.state.markerB - kv.state.markerA") == 3
    flush(page)  # readouts are written by the next frame
    assert "3 steps" in page.inner_text("#marker-readout")
    page.keyboard.press("?")
    assert page.is_visible("#kc-help")


def test_mouse_wheel_zoom_and_drag_pan(open_page, page_url):
    page = open_page(page_url)
    box = page.locator("#wave").bounding_box()
    # Whole pixels: mouse events carry integer client coordinates.
    x, y = round(box["x"] + box["width"] * 0.6), round(box["y"] + box["height"] * 0.6)
    page.mouse.move(x, y)
    flush(page)
    assert page.inner_text("#cursor-readout") != "cursor \u2013"
    span0 = kv(page, "kv.state.view.t1Step - kv.state.view.t0Step")
    step_under_mouse = f"kv.state.scale.tStep({x} - document.getElementById('wave').getBoundingClientRect().left)"
    anchor = kv(page, step_under_mouse)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    # Wheel events are delivered asynchronously: wait for their effect (the timeout only catches hangs).
    page.wait_for_function(f"window.__kv.state.view.t1Step - window.__kv.state.view.t0Step < {span0}")
    flush(page)
    # Zoom keeps the step under the mouse where it was (GTKWave / Perfetto habit), not the centre.
    assert kv(page, step_under_mouse) == pytest.approx(anchor, abs=1e-6)
    assert kv(page, "kv.state.view.t0Step") > 0
    t0 = kv(page, "kv.state.view.t0Step")
    page.mouse.wheel(0, 120)
    page.wait_for_function(f"window.__kv.state.view.t0Step > {t0}")
    t1 = kv(page, "kv.state.view.t0Step")
    page.mouse.down()
    page.mouse.move(x + 80, y, steps=4)
    page.mouse.up()
    assert kv(page, "kv.state.view.t0Step") < t1
    assert kv(page, "kv.highlighted()") == []  # a drag is not a click


def test_culling_never_drops_a_visible_block(open_page, page_url):
    page = open_page(page_url)
    mismatches = page.evaluate(
        """() => {
          const kv = window.__kv;
          let seed = 12345;
          const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
          let bad = 0, checks = 0;
          // Result columns of 40 lanes (the page's own index, laneIndexOf, over them): each lane's
          // blocks sorted by start; odd lanes also get overlapping blocks (a running maximum of
          // ends then keeps the search correct), zero-length blocks everywhere.
          const starts = [], ends = [], laneStart = [0], overlapping = [];
          for (let lane = 0; lane < 40; lane++) {
            let t = Math.floor(rnd() * 5);
            const n = Math.floor(rnd() * 60);
            overlapping.push(lane % 2 === 1);
            for (let i = 0; i < n; i++) {
              const len = Math.floor(rnd() * 6) + (lane % 2 === 1 && rnd() < 0.2 ? 20 : 0);
              starts.push(t); ends.push(t + len);
              t += (lane % 2 === 1 ? 0 : len) + Math.floor(rnd() * 4);
            }
            laneStart.push(starts.length);
          }
          const c = {start: Float64Array.from(starts), end: Float64Array.from(ends), laneStart: Int32Array.from(laneStart)};
          for (let lane = 0; lane < 40; lane++) {
            const index = kv.laneIndexOf(c, lane);
            const last = index.n ? Math.max(...index.ends) : 0;
            for (let w = 0; w < 50; w++) {
              const a = rnd() * (last + 10) - 5, b = a + rnd() * 30;
              const [lo, hi] = kv.visibleRange(index, a, b);
              for (let i = 0; i < index.n; i++) {
                const s0 = index.starts[i], e0 = index.ends[i];
                const visible = e0 > a && s0 < b;
                checks++;
                if (visible && (i < lo || i >= hi)) bad++;                                      // never drop a visible block
                if (!overlapping[lane] && !visible && i >= lo && i < hi && e0 > s0) bad++;   // and stay tight
              }
            }
          }
          return {bad, checks};
        }"""
    )
    assert mismatches["checks"] > 1000
    assert mismatches["bad"] == 0


def test_large_schedule_stays_interactive(open_page, page_url):
    page = open_page(page_url)
    # Cooperative: both consumer WGs run every k-tile, so 100 x 200 k-tiles make ~100,000 blocks.
    page.evaluate("window.__kv.setKnobs({outputTiles: 100, kTiles: 200, schedule: 'cooperative'})")
    flush(page)
    # Simulated in the page's Worker (large settings): wait for its result.
    page.wait_for_function("!window.__kv.simulating()")
    flush(page)
    assert kv(page, "kv.state.result.error") is None
    assert kv(page, "kv.blocks().length") >= 100000
    assert page.inner_text("#out-outputTiles") == "100"
    page.screenshot(path=str(browser_util.artifact_path("waveform_large_fit.png")))
    page.focus("#wave")
    for _ in range(12):
        page.keyboard.press("+")
    flush(page)
    block, centre = find_block(page, "wgmma")
    page.mouse.move(centre["x"], centre["y"])
    page.wait_for_selector("#tooltip:not([hidden])")
    page.mouse.click(centre["x"], centre["y"])
    assert len(kv(page, "kv.highlighted()")) >= 3
    page.screenshot(path=str(browser_util.artifact_path("waveform_large_zoomed.png")))


def test_missing_browser_skips_locally_but_fails_under_ci(monkeypatch):
    monkeypatch.setattr(browser_util, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="nonexistent"):
        browser_util.require_browser()
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        browser_util.require_browser()
