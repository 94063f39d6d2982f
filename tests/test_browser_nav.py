"""Headless-Chromium tests of navigation at scale on the waveform page (issue 23 part 5), real input only.

Each test fails on the page before this work: the wheel always panned (it could not scroll lanes),
the ruler left with the page, there was no overview strip, lane groups could not fold, `.` / `,`
selected blocks and "Min stages to hide TMA: n/a" gave no reason. Timeouts only catch hangs.
"""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import render_waveform as rw  # noqa: E402

GEMM = ROOT / "examples" / "sm90_gemm_pingpong.json"
SHORT = (1280, 500)   # 16 stages (19 lanes) do not fit under the header here


@pytest.fixture(scope="module")
def gemm_url(tmp_path_factory):
    out = tmp_path_factory.mktemp("nav") / "gemm.html"
    pagekit.write_atomic(out, rw.render(json.loads(GEMM.read_text(encoding="utf-8"))))
    return out.as_uri()


def canvas_rect(page, sel="#wave"):
    return page.evaluate(f"(() => {{ const e = document.querySelector('{sel}'); return e ? e.getBoundingClientRect().toJSON() : null; }})()")


def lane_at(page, client_y):
    """Id of the lane drawn at client y, from the rows' drawn tops (state.rowTop)."""
    return page.evaluate("""(y) => {
      const kv = window.__kv, r = document.getElementById('wave').getBoundingClientRect(), tops = kv.state.rowTop;
      let row = -1;
      for (let i = 0; i < tops.length; i++) if (tops[i] <= y - r.top) row = i;
      return row < 0 ? null : kv.state.lanes[row].id;
    }""", client_y)


def show_canvas(page):
    """Scroll the page so the whole canvas is in the window; return its rect."""
    page.evaluate("document.getElementById('wave').scrollIntoView({block: 'end'})")
    flush(page)
    return canvas_rect(page)


def view(page):
    v = kv(page, "kv.state.view")
    return v["t0Step"], v["t1Step"]


def test_plain_wheel_scrolls_overflowing_lanes_shift_pans_ctrl_zooms(open_page, gemm_url):
    # Old page: every wheel panned in time, so lanes past the window's height were unreachable by wheel.
    page = open_page(gemm_url + "#stages=16", viewport=SHORT)
    page.keyboard.press("w")   # zoomed in, so a pan can move both ways
    flush(page)
    r = show_canvas(page)
    assert r["height"] <= SHORT[1], "the canvas stops at the window's height"
    x, y = r["x"] + r["width"] * 0.6, r["y"] + 120
    page.mouse.move(x, y)
    before_lane, before_view = lane_at(page, y), view(page)
    page.mouse.wheel(0, 72)
    flush(page)
    assert view(page) == before_view, "the plain wheel does not pan when lanes overflow"
    after_lane = lane_at(page, y)
    assert after_lane != before_lane, "the lanes scrolled under the pointer"
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert lanes.index(after_lane) > lanes.index(before_lane)
    # Shift+wheel pans in time and leaves the lanes where they are.
    page.keyboard.down("Shift")
    page.mouse.wheel(0, 120)
    page.keyboard.up("Shift")
    flush(page)
    assert view(page)[0] > before_view[0]
    assert lane_at(page, y) == after_lane
    # Ctrl+wheel zooms around the pointer.
    span = view(page)[1] - view(page)[0]
    page.keyboard.down("Control")
    page.mouse.wheel(0, -240)
    page.keyboard.up("Control")
    flush(page)
    assert view(page)[1] - view(page)[0] < span
    # Keyboard selection scrolls its lane into view: the last consumer lane, below the fold.
    page.focus("#wave")
    page.keyboard.press("ArrowRight")
    for _ in range(20):
        page.keyboard.press("ArrowDown")
    flush(page)
    sel = kv(page, "kv.selectedId()")
    row = kv(page, f"kv.state.laneRow[kv.block({sel}).lane]")
    top, h = kv(page, f"[kv.state.rowTop[{row}], kv.state.rowHeight[{row}]]")
    assert 34 <= top and top + h <= r["height"] + 0.5, (top, h, r["height"])


def test_plain_wheel_still_pans_when_every_lane_fits(open_page, gemm_url):
    page = open_page(gemm_url)
    page.keyboard.press("w")
    flush(page)
    r = show_canvas(page)
    assert kv(page, "kv.state.contentBottom") <= r["height"] + 0.5
    page.mouse.move(r["x"] + r["width"] / 2, r["y"] + 60)
    t0 = view(page)[0]
    page.mouse.wheel(0, 120)
    flush(page)
    assert view(page)[0] > t0


# The canvas's pixels in the 34 px band from CSS y: an FNV-1a digest of the RGBA bytes.
BAND_JS = """(y) => {
  const c = document.getElementById('wave'), dpr = c.width / c.clientWidth;
  const d = c.getContext('2d').getImageData(0, Math.round(y * dpr), c.width, Math.round(34 * dpr)).data;
  let h = 2166136261;
  for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 16777619) >>> 0; }
  return h;
}"""


def test_ruler_stays_at_the_window_top_when_the_page_scrolls(open_page, gemm_url):
    # Old page: the ruler is the canvas's top rows and scrolls away with the page.
    page = open_page(gemm_url + "#stages=16", viewport=SHORT)
    page.mouse.move(2, 2)   # off the canvas: no cursor badge follows the pointer
    page.evaluate("window.scrollTo(0, 0)")
    flush(page)
    r = canvas_rect(page)
    assert r["y"] > 150
    ruler = page.evaluate(BAND_JS, 0)
    # Scroll the page until the canvas's top is 150 px above the window's top edge.
    page.evaluate(f"window.scrollBy(0, {r['y'] + 150})")
    page.wait_for_function("window.__kv.state.rulerTopPx > 0")
    flush(page)
    r2 = canvas_rect(page)
    assert abs(r2["y"] + 150) < 1, r2
    top = kv(page, "kv.state.rulerTopPx")
    assert abs(top - 150) < 1
    assert page.evaluate(BAND_JS, top) == ruler, "the canvas rows at the window's top edge hold the ruler, as its top rows did"
    # The ruler covers the lanes under it: no block is hit there.
    assert kv(page, f"kv.blocksAt({r2['width'] / 2}, 150 + 20).length") == 0


def test_overview_strip_click_and_drag_move_the_view(open_page, gemm_url):
    # Old page: no overview strip.
    page = open_page(gemm_url)
    for _ in range(3):
        page.keyboard.press("w")
    flush(page)
    ov = canvas_rect(page, "#overview")
    assert ov is not None and ov["height"] > 10
    total = kv(page, "kv.state.result.total")
    gutter = kv(page, "kv.state.gutterPx")
    x0, x1 = ov["x"] + gutter + 6, ov["x"] + ov["width"] - 6
    span = view(page)[1] - view(page)[0]
    assert span < total / 2
    y = ov["y"] + ov["height"] / 2
    page.mouse.click(x0 + 0.75 * (x1 - x0), y)
    flush(page)
    t0, t1 = view(page)
    assert abs((t0 + t1) / 2 - 0.75 * total) <= 1, (t0, t1, total)
    assert abs((t1 - t0) - span) < 1e-6, "the span is kept"
    # Dragging the window by its middle moves it with the pointer.
    page.mouse.move(x0 + 0.75 * (x1 - x0), y)
    page.mouse.down()
    page.mouse.move(x0 + 0.5 * (x1 - x0), y, steps=4)
    page.mouse.move(x0 + 0.3 * (x1 - x0), y, steps=4)
    page.mouse.up()
    flush(page)
    t0, t1 = view(page)
    assert abs((t0 + t1) / 2 - 0.3 * total) <= 1, (t0, t1, total)
    # The strip draws the window where the view is.
    w = kv(page, "kv.state.overviewWindow")
    assert abs(w["x0"] - (gutter + 6 + t0 / total * (x1 - x0))) < 1.5


def test_lane_groups_fold_by_click_and_key_and_the_hash_keeps_them(open_page, gemm_url):
    # Old page: a click in the gutter did nothing and there was no groups= key.
    page = open_page(gemm_url)
    r = show_canvas(page)
    row = kv(page, "kv.state.laneRow['stage0']")
    top = kv(page, f"kv.state.rowTop[{row}]")
    page.mouse.click(r["x"] + 5, r["y"] + top + 12)   # the triangle left of "stage 0"
    flush(page)
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert "group:stage" in lanes and "stage0" not in lanes, lanes
    page.wait_for_function("location.hash.includes('groups=stage')")
    # The folded row draws its lanes' blocks (FULL and FILLING fills at its height).
    frow = kv(page, "kv.state.laneRow['group:stage']")
    ftop, fh = kv(page, f"[kv.state.rowTop[{frow}], kv.state.rowHeight[{frow}]]")
    rects = kv(page, "kv.state.lastRects")
    ys = [v for key in ("full", "filling") for v in rects.get(key, [])[1::4]]
    assert any(ftop <= yy < ftop + fh for yy in ys)
    assert "stages (4 lanes)" in kv(page, f"kv.state.lanes[{frow}].label")
    # A click on the folded row's name unfolds it.
    page.mouse.click(r["x"] + 40, r["y"] + ftop + 12)
    flush(page)
    assert "stage0" in kv(page, "kv.state.lanes.map(l => l.id)")
    page.wait_for_function("!location.hash.includes('groups=')")
    # c folds the selected block's group (consumer WGs); the hash keeps it across a reload.
    page.focus("#wave")
    page.keyboard.press("ArrowRight")
    lane = kv(page, "kv.block(kv.selectedId()).lane")
    if not lane.startswith("consumer"):
        consumer = kv(page, "kv.laneBlocks('consumer0')[0].id")
        kv(page, f"kv.select({consumer})")
    page.keyboard.press("c")
    flush(page)
    assert "group:consumer" in kv(page, "kv.state.lanes.map(l => l.id)")
    page.wait_for_function("location.hash.includes('groups=consumer')")
    url = page.evaluate("location.href")
    again = open_page(url)
    assert "group:consumer" in kv(again, "kv.state.lanes.map(l => l.id)")
    again.focus("#wave")
    again.keyboard.press("Shift+C")
    flush(again)
    assert "consumer0" in kv(again, "kv.state.lanes.map(l => l.id)")


def test_dot_and_comma_move_the_cursor_only(open_page, gemm_url):
    # Old page: . and , selected the block at the edge, or the first block with nothing selected.
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    sel = kv(page, "kv.selectedId()")
    cursors = []
    for _ in range(4):
        page.keyboard.press(".")
        assert kv(page, "kv.selectedId()") == sel
        cursors.append(kv(page, "kv.state.cursor"))
    assert cursors == sorted(cursors) and len(set(cursors)) == 4
    page.keyboard.press(",")
    assert kv(page, "kv.state.cursor") == cursors[-2]
    assert kv(page, "kv.selectedId()") == sel
    # With nothing selected: the next edge on any shown lane, and still no selection.
    page.keyboard.press("Escape")
    assert kv(page, "kv.selectedId()") is None
    t = kv(page, "kv.state.cursor")
    page.keyboard.press(".")
    assert kv(page, "kv.selectedId()") is None
    edges = sorted({e for lane in kv(page, "kv.state.lanes.map(l => l.id)") for b in kv(page, f"kv.laneBlocks('{lane}')") for e in (b["start"], b["end"])})
    assert kv(page, "kv.state.cursor") == min(e for e in edges if e > t)


def test_min_stages_n_a_says_why(open_page, gemm_url):
    # Old page: "Min stages to hide TMA: n/a" and nothing more.
    page = open_page(gemm_url + "#tiles=128&k-tiles=100")
    text = page.inner_text("#verdict")
    assert "Min stages to hide TMA: n/a: not searched above 10000 k-tiles" in text, text
    page.evaluate("location.hash = '#tiles=2&k-tiles=100&tma=10000'")
    page.wait_for_function("document.getElementById('verdict').innerText.includes('exposed even with 64 stages')")


def test_help_lists_the_wheel_overview_and_group_gestures(open_page, gemm_url):
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("?")
    text = page.inner_text("body")
    assert "the wheel scrolls the lanes" in text
    assert "Overview strip" in text
    assert "c / C" in text
    assert "cursor (only)" in text
