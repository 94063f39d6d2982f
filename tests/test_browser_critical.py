"""Headless-Chromium test of the critical path's highlight on the waveform page (issue 21 section 4).

With a GPU chosen, the verdict lists the critical path's per-kind shares next to a checkbox; the
checkbox or the b key outlines the path's blocks on the timeline (culled to the visible window),
the URL hash keeps it as critical=on, and a result from the Worker carries the path too. The page
is opened offline from file://; timeouts only catch hangs, nothing asserts wall-clock speed.
"""

import json
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

# The path's ids (as result.criticalPath.blocks) and the ids the last frame outlined, both sorted.
PATH_JS = "kv.state.result.criticalPath.blocks.slice().sort((a, b) => a - b)"
DRAWN_JS = "kv.state.criticalDrawn.slice().sort((a, b) => a - b)"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    parsed = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("critical") / "gemm_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, rw.initial_knobs(parsed)))
    return out.as_uri()


def canvas_png(page):
    """The timeline canvas's pixels as a data URL (to compare frames)."""
    return page.evaluate("document.getElementById('wave').toDataURL()")


def test_the_highlight_is_off_by_default_toggles_with_b_and_the_checkbox_and_survives_a_reload(open_page, page_url):
    page = open_page(page_url + "#gpu=h100-sxm")
    path = kv(page, PATH_JS)
    assert len(path) > 3, path
    # Off by default: nothing outlined, the box unchecked, no key in the hash.
    assert kv(page, "kv.state.showCritical") is False
    assert kv(page, "kv.state.criticalDrawn") == []
    assert page.is_checked("#critical-toggle") is False
    assert "critical" not in kv(page, "kv.writeHashNow()")
    line = page.inner_text(".kv-critical")
    assert line.startswith(f"Critical path: {len(path)} blocks over "), line
    top = kv(page, "kv.state.result.criticalPath.top")
    assert f"cycles: {top} " in line, line
    off_png = canvas_png(page)
    # b on the timeline: every block of the path is outlined (the whole run is in view).
    page.focus("#wave")
    page.keyboard.press("b")
    flush(page)
    assert kv(page, "kv.state.showCritical") is True
    assert kv(page, DRAWN_JS) == path
    assert page.is_checked("#critical-toggle")
    assert canvas_png(page) != off_png, "the outline changes the frame"
    page.wait_for_function("location.hash.indexOf('critical=on') >= 0")
    # A reload keeps it through the hash.
    page.reload()
    page.wait_for_function(browser_util.WAVE_READY_JS)
    flush(page)
    assert kv(page, "kv.state.showCritical") is True
    assert page.is_checked("#critical-toggle")
    assert kv(page, DRAWN_JS) == kv(page, PATH_JS) == path
    # The checkbox turns it off: the frame is the one without outlines, the hash drops the key.
    page.uncheck("#critical-toggle")
    flush(page)
    assert kv(page, "kv.state.showCritical") is False
    assert kv(page, "kv.state.criticalDrawn") == []
    assert canvas_png(page) == off_png
    page.wait_for_function("location.hash.indexOf('critical') < 0")
    page.check("#critical-toggle")
    flush(page)
    assert kv(page, DRAWN_JS) == path


def test_the_outline_is_culled_to_the_visible_window(open_page, page_url):
    page = open_page(page_url + "#gpu=h100-sxm&critical=on")
    flush(page)
    total = kv(page, "kv.state.result.total")
    t0, t1 = total * 0.3, total * 0.6
    page.evaluate(f"window.__kv.setView({t0}, {t1})")
    flush(page)
    expected = kv(page, f"""kv.state.result.criticalPath.blocks.filter(id => {{
        const c = kv.state.columns; return c.end[id] > {t0} && c.start[id] < {t1}; }}).sort((a, b) => a - b)""")
    assert expected and len(expected) < len(kv(page, PATH_JS)), expected
    assert kv(page, DRAWN_JS) == expected


def test_without_a_gpu_there_is_no_path_and_b_does_nothing(open_page, page_url):
    page = open_page(page_url)
    assert kv(page, "kv.state.result.criticalPath === undefined")
    assert page.locator("#critical-toggle").count() == 0
    before = canvas_png(page)
    page.focus("#wave")
    page.keyboard.press("b")
    flush(page)
    assert kv(page, "kv.state.showCritical") is False
    assert kv(page, "kv.state.criticalDrawn") == []
    assert canvas_png(page) == before


def test_a_worker_result_carries_the_path(open_page, page_url):
    # 100 tiles x 128 k-tiles: estimated at 64,400 blocks (55,699 drawn), so the page simulates
    # in a Worker, which packs the result as columns (wave_result.js packResult).
    page = open_page(page_url + "#gpu=h100-sxm&tiles=100&k-tiles=128&critical=on")
    page.wait_for_function("window.__kv.state.result && window.__kv.state.result.criticalPath")
    flush(page)
    assert kv(page, "kv.state.lastWorker") is not None, "the result came from the Worker"
    assert kv(page, "kv.state.columns.n") > 50000
    assert kv(page, "kv.state.result.eventsPending !== undefined"), "an unpacked result"
    path = kv(page, PATH_JS)
    assert len(path) > 1000
    assert kv(page, DRAWN_JS) == path
    assert page.is_checked("#critical-toggle")
