"""Headless-Chromium tests of the waveform page's issue-12 work, with real keyboard and mouse input.

Every defect the issue lists has a test here that fails on the page before this work (noted per
test); then the dependency arrows, the barrier panel (phase bits against a replay of the
simulator's barrierEvents), the details panel, keyboard navigation, lanes and the exports.
Timeouts only catch hangs; nothing here asserts wall-clock speed.
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
FA3 = ROOT / "examples" / "fa3_fwd.json"


@pytest.fixture(scope="module")
def gemm_url(tmp_path_factory):
    out = tmp_path_factory.mktemp("wave_read") / "gemm.html"
    pagekit.write_atomic(out, rw.render(json.loads(GEMM.read_text(encoding="utf-8"))))
    return out.as_uri()


@pytest.fixture(scope="module")
def fa3_url(tmp_path_factory):
    out = tmp_path_factory.mktemp("wave_read") / "fa3.html"
    pagekit.write_atomic(out, rw.render(json.loads(FA3.read_text(encoding="utf-8"))))
    return out.as_uri()


def visible_block(page, kind, tile=None, k=None, min_px=8):
    """(block, centre) of the first block of kind (tile, k) at least min_px wide on screen."""
    found = page.evaluate("""([kind, tile, k, minPx]) => {
      const kv = window.__kv;
      for (const b of kv.blocks()) {
        if (b.kind !== kind || (tile !== null && b.tile !== tile) || (k !== null && b.k !== k)) continue;
        const c = kv.blockCenter(b.id);
        if (c && c.widthPx >= minPx) return [b, c];
      }
      return null;
    }""", [kind, tile, k, min_px])
    assert found, (kind, tile, k)
    return found


def under_pointer(page, x, y):
    """Id of the block under client point (x, y) and the step there, from the page's own mapping."""
    return page.evaluate("""([x, y]) => {
      const kv = window.__kv, r = document.getElementById('wave').getBoundingClientRect();
      const hit = kv.blocksAt(x - r.left, y - r.top)[0];
      return [hit ? hit.id : null, Math.round(kv.state.scale.tStep(x - r.left))];
    }""", [x, y])


# ---- the listed defects --------------------------------------------------------------------

def test_tooltip_and_cursor_follow_the_pointer_after_keyboard_zoom(open_page, gemm_url):
    # Old page: after "+" the tooltip still named the block that was under the pointer before.
    page = open_page(gemm_url)
    _b, c = visible_block(page, "wgmma", k=3)
    x, y = round(c["x"] + c["widthPx"] / 2 - 2), round(c["y"])
    page.mouse.move(x, y)
    page.wait_for_selector("#tooltip:not([hidden])")
    for key in ("+", "+", "d"):
        page.keyboard.press(key)
        flush(page)
        hit, step = under_pointer(page, x, y)
        assert kv(page, "kv.state.cursor") == step
        if hit is None:
            assert page.is_hidden("#tooltip")
            continue
        b = kv(page, f"kv.block({hit})")
        title = page.inner_text("#tooltip").split("\n")[0]
        ok = str(b["tile"]) if b["k"] is None else f"{b['tile']}.{b['k']}"
        assert f" {ok} " in f" {title} " and f"{b['start']}\u2013{b['end']}" in page.inner_text("#tooltip"), key


def test_question_mark_opens_a_visible_overlay(open_page, gemm_url):
    # Old page: ? toggled a <details> at the bottom of the page, out of view.
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("?")
    assert page.is_visible("#kc-help")
    box = page.locator("#kc-help .kc-help-box").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800
    text = page.inner_text("#kc-help")
    for key in ("w", "a / d", "m / M", "] / [", ". / ,"):
        assert key in text
    page.keyboard.press("Escape")
    assert page.is_hidden("#kc-help")


def test_escape_keeps_markers_and_clears_selection(open_page, gemm_url):
    # Old page: Escape cleared markers A and B with the follow.
    page = open_page(gemm_url)
    _b, c = visible_block(page, "wgmma", k=1)
    page.mouse.move(c["x"], c["y"])
    page.click("#btn-marker-a")
    page.mouse.move(c["x"] + 80, c["y"])
    page.click("#btn-marker-b")
    page.mouse.click(c["x"], c["y"])
    flush(page)
    assert kv(page, "kv.highlighted().length") > 0
    a, b = kv(page, "[kv.state.markerA, kv.state.markerB]")
    assert a is not None and b is not None
    page.keyboard.press("Escape")
    flush(page)
    assert kv(page, "[kv.state.markerA, kv.state.markerB]") == [a, b]
    assert kv(page, "kv.highlighted()") == [] and kv(page, "kv.selectedId()") is None
    page.keyboard.press("x")
    assert kv(page, "[kv.state.markerA, kv.state.markerB]") == [None, None]


def test_follow_line_is_cleared_when_the_hash_drops_the_follow(open_page, gemm_url):
    # Old page: "Following k-tile ..." stayed after a hash change removed the follow.
    page = open_page(gemm_url)
    _b, c = visible_block(page, "wgmma", k=1)
    page.mouse.click(c["x"], c["y"])
    assert "Following" in page.inner_text("#chain-info")
    page.evaluate("location.hash = '#stages=4'")
    page.wait_for_function("window.__kv.state.follow === null")
    flush(page)
    assert "Following" not in page.inner_text("#chain-info")


def test_a_hash_edited_while_a_write_is_due_wins(open_page, gemm_url):
    # Old page: a click left a debounced hash write pending; when it came due before the user's
    # hashchange was dispatched, it replaced their hash with the page's, and the hashchange then
    # read the page's own hash and was ignored (the follow stayed; CI hit this under load).
    page = open_page(gemm_url)
    _b, c = visible_block(page, "wgmma", k=1)
    page.mouse.click(c["x"], c["y"])
    assert kv(page, "kv.state.follow") is not None
    written = page.evaluate("() => { location.hash = '#stages=3'; return window.__kv.writeHashNow(); }")
    assert "stages=3" in written and "follow" not in written, written
    flush(page)
    assert kv(page, "[kv.state.follow, kv.state.knobs.stages]") == [None, 3]
    assert "Following" not in page.inner_text("#chain-info")


def test_a_hash_edited_before_the_pages_first_write_wins(open_page, gemm_url):
    # Old page: before its first hash write the page had seen no hash, so a write coming due right
    # after the user's edit (before its hashchange) overwrote it (CI's absurd-hash test).
    page = open_page(gemm_url + "#stages=5")
    written = page.evaluate("() => { location.hash = '#stages=3'; return window.__kv.writeHashNow(); }")
    assert "stages=3" in written, written
    flush(page)
    assert kv(page, "kv.state.knobs.stages") == 3


def test_simulating_is_true_from_set_knobs_to_the_result(open_page, gemm_url):
    # Old page: simulating() was false between setKnobs and the next frame, so a caller waiting
    # for it to be false read the previous result's blocks.
    page = open_page(gemm_url)
    assert page.evaluate("() => { window.__kv.setKnobs({outputTiles: 7}); return window.__kv.simulating(); }") is True
    page.wait_for_function("!window.__kv.simulating()", timeout=120000)
    assert kv(page, "kv.blocks().filter(b => b.kind === 'epilogue').length") == 7


def test_200_by_200_tiles_shows_every_kind_and_honest_utilization(open_page, gemm_url):
    # Old page: no epilogue pixel on WG0 at the fitted view, and utilization read 100%.
    page = open_page(gemm_url + "#tiles=200&k-tiles=200")
    flush(page)
    assert kv(page, "kv.blocks().length") > 100000
    epilogues = kv(page, "kv.blocks().filter(b => b.kind === 'epilogue' && b.lane === 'consumer0').length")
    assert epilogues == 100
    # Count pixels in the epilogue colour along WG0's middle row of the canvas.
    count = page.evaluate("""() => {
      const kv = window.__kv, canvas = document.getElementById('wave'), ctx = canvas.getContext('2d');
      const row = kv.state.laneRow['consumer0'], dpr = window.devicePixelRatio || 1;
      const y = Math.round((kv.state.rowTop[row] + kv.state.rowHeight[row] / 2) * dpr);
      const data = ctx.getImageData(0, y, canvas.width, 1).data;
      const probe = document.createElement('canvas').getContext('2d');
      probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--kind-epilogue').trim();
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] === r && data[i + 1] === g && data[i + 2] === b) n++;
      return n;
    }""")
    assert count >= 50, count
    util = kv(page, "kv.state.result.verdict.tensorCoreUtilization")
    text = page.inner_text("#verdict")
    assert util < 1 and "100%" not in text and "100.0%" not in text
    # The summarised range says so.
    assert page.is_visible("#lod-note") and "Summarised" in page.inner_text("#lod-note")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_block_label_contrast_is_at_least_4_5(open_page, gemm_url, scheme):
    # Old theme: EPI (white on green) 2.8:1, FILLING (white on blue) 3.3:1.
    page = open_page(gemm_url, color_scheme=scheme)
    ratios = page.evaluate("""() => {
      const cs = getComputedStyle(document.documentElement), c = document.createElement('canvas').getContext('2d');
      function rgb(v) { c.clearRect(0, 0, 1, 1); c.fillStyle = v; c.fillRect(0, 0, 1, 1); return Array.from(c.getImageData(0, 0, 1, 1).data).slice(0, 3); }
      function lum(p) { const l = p.map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
        return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; }
      const out = {};
      for (const k of ['issue', 'transpose', 'filling', 'full', 'mma-a', 'mma-b', 'gemm0', 'softmax', 'gemm1', 'epilogue', 'wait']) {
        const a = lum(rgb(cs.getPropertyValue('--kind-' + k).trim())), b = lum(rgb(cs.getPropertyValue('--kind-' + k + '-fg').trim()));
        out[k] = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      }
      return out;
    }""")
    low = {k: round(v, 2) for k, v in ratios.items() if v < 4.5}
    assert low == {}


def test_ruler_badges_never_cover_labels_or_each_other(open_page, gemm_url):
    # Old page: the cursor badge was drawn over tick labels and marker badges; the last label clipped.
    page = open_page(gemm_url)
    box = page.locator("#wave").bounding_box()
    _b, c = visible_block(page, "wgmma", k=2)
    page.mouse.move(c["x"], c["y"])
    page.keyboard.press("m")
    page.mouse.move(c["x"] + 3, c["y"])
    page.keyboard.press("M")
    page.mouse.move(c["x"] + 5, c["y"])
    flush(page)
    badges = kv(page, "kv.state.badges")
    labels = kv(page, "kv.state.rulerLabels")
    assert len(badges) == 3 and labels
    for i, a in enumerate(badges):
        for b in badges[i + 1:]:
            assert a["right"] <= b["left"] or b["right"] <= a["left"], (a, b)
    # Badges sit in the ruler's top row, tick labels in its bottom row: no overlap by construction.
    consts = kv(page, "kv.pure.constants")
    assert consts["BADGE_ROW_PX"] < consts["RULER_HEIGHT_PX"]
    assert all(label["right"] <= box["width"] for label in labels)


def test_no_negative_time(open_page, gemm_url):
    # Old page: zooming out or panning left showed negative steps.
    page = open_page(gemm_url)
    page.focus("#wave")
    for _ in range(6):
        page.keyboard.press("-")
    for _ in range(5):
        page.keyboard.press("a")
    assert kv(page, "kv.state.view.t0Step") >= 0
    box = page.locator("#wave").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 60)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 5, box["y"] + 60, steps=5)
    page.mouse.up()
    assert kv(page, "kv.state.view.t0Step") >= 0


def test_small_window_shows_the_fa3_consumer_lanes(open_page, fa3_url):
    # Old page: at 1024x768 the consumer WG1 lanes were below the fold.
    page = open_page(fa3_url, viewport=(1024, 768))
    bottoms = page.evaluate("""() => {
      const kv = window.__kv, top = document.getElementById('wave').getBoundingClientRect().top;
      return kv.state.lanes.filter(l => l.id.startsWith('consumer')).map(l => {
        const row = kv.state.laneRow[l.id];
        return top + kv.state.rowTop[row] + kv.state.rowHeight[row];
      });
    }""")
    assert len(bottoms) == 4 and max(bottoms) <= 768
    assert page.evaluate("window.scrollY") == 0


# ---- keys ---------------------------------------------------------------------------------------

def test_w_s_zoom_and_a_d_pan(open_page, gemm_url):
    # Old page: w, s and d did nothing and a set marker A.
    page = open_page(gemm_url)
    page.focus("#wave")
    span0 = kv(page, "kv.state.view.t1Step - kv.state.view.t0Step")
    page.keyboard.press("w")
    span1 = kv(page, "kv.state.view.t1Step - kv.state.view.t0Step")
    assert span1 < span0
    t0 = kv(page, "kv.state.view.t0Step")
    page.keyboard.press("d")
    assert kv(page, "kv.state.view.t0Step") > t0
    page.keyboard.press("a")
    assert kv(page, "kv.state.view.t0Step") == pytest.approx(t0)
    assert kv(page, "kv.state.markerA") is None
    page.keyboard.press("s")
    assert kv(page, "kv.state.view.t1Step - kv.state.view.t0Step") > span1


def test_arrows_tab_and_lane_events_select_blocks(open_page, gemm_url):
    # Old page: no keyboard selection and no next/previous event.
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("ArrowRight")
    first = kv(page, "kv.selectedId()")
    assert first is not None
    lane = kv(page, f"kv.block({first}).lane")
    page.keyboard.press("ArrowRight")
    second = kv(page, "kv.selectedId()")
    blocks = kv(page, f"kv.laneBlocks('{lane}').map(b => b.id)")
    assert blocks.index(second) == blocks.index(first) + 1
    page.keyboard.press("Tab")
    assert blocks.index(kv(page, "kv.selectedId()")) == blocks.index(second) + 1
    page.keyboard.press("Shift+Tab")
    assert kv(page, "kv.selectedId()") == second
    page.keyboard.press("ArrowDown")
    below = kv(page, "kv.selectedId()")
    assert kv(page, f"kv.state.laneRow[kv.block({below}).lane]") == kv(page, f"kv.state.laneRow['{lane}']") + 1
    # . / , move the cursor to the next / previous block edge on the selected lane.
    sel = kv(page, f"kv.block({below})")
    edges = sorted({e for b in kv(page, f"kv.laneBlocks('{sel['lane']}')") for e in (b["start"], b["end"])})
    cur = kv(page, "kv.state.cursor")
    page.keyboard.press(".")
    nxt = kv(page, "kv.state.cursor")
    assert nxt == min(e for e in edges if e > cur)
    page.keyboard.press(",")
    assert kv(page, "kv.state.cursor") == max(e for e in edges if e < nxt)
    assert page.inner_text("#details").count("Selected block".upper()) <= 1


def test_lane_filter_hide_and_reorder(open_page, gemm_url):
    # Old page: no lane search, no hiding or reordering.
    page = open_page(gemm_url)
    all_ids = kv(page, "kv.state.lanes.map(l => l.id)")
    page.focus("#wave")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "lane-filter"
    page.keyboard.type("consumer")
    flush(page)
    assert kv(page, "kv.state.lanes.map(l => l.id)") == [i for i in all_ids if i.startswith("consumer")]
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "wave"
    page.fill("#lane-filter", "")
    page.uncheck("#lane-show-stage0")
    flush(page)
    assert "stage0" not in kv(page, "kv.state.lanes.map(l => l.id)")
    page.click("#lane-list li:has(#lane-show-consumer1) button[data-move=up]")
    flush(page)
    ids = kv(page, "kv.state.lanes.map(l => l.id)")
    assert ids.index("consumer1") < ids.index("consumer0")


def test_markers_snap_zoom_to_a_b_and_absolute_delta(open_page, gemm_url):
    # Old page: no snapping, no zoom to A-B, and B-A was negative when B < A.
    page = open_page(gemm_url)
    b, c = visible_block(page, "wgmma", k=2, min_px=20)
    scale = kv(page, "kv.state.scale.pxPerStep")
    # A pointer 2 px right of the block's start: marker A snaps to the start.
    x = round(c["x"] - c["widthPx"] / 2 + 2)
    page.mouse.move(x, c["y"])
    page.keyboard.press("m")
    assert kv(page, "kv.state.markerA") == b["start"]
    assert scale > 2
    page.mouse.move(round(c["x"] - c["widthPx"] / 2 - 3 * scale), c["y"])
    page.keyboard.press("M")
    a_, b_ = kv(page, "[kv.state.markerA, kv.state.markerB]")
    assert b_ < a_
    flush(page)
    assert f"|B\u2212A| {a_ - b_} steps" in page.inner_text("#marker-readout")
    page.keyboard.press("z")
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == [b_, a_]


# ---- arrows, details, barriers -------------------------------------------------------------------

def test_click_draws_dependency_arrows_both_ways(open_page, gemm_url):
    page = open_page(gemm_url)
    b, c = visible_block(page, "wgmma", tile=0, k=2)
    page.mouse.click(c["x"], c["y"])
    flush(page)
    edges = kv(page, "kv.arrowEdges()")
    blocks = kv(page, "kv.blocks()")
    waiters = [x["id"] for x in blocks if b["id"] in (x.get("after") or [])]
    assert waiters
    for src in b["after"]:
        assert [src, b["id"]] in edges
    for dst in waiters:
        assert [b["id"], dst] in edges
    assert kv(page, "kv.state.arrowCount") > 0
    # Off-screen edges are culled: zoom far from the block and nothing is drawn for it.
    page.evaluate(f"window.__kv.setView({b['end'] + 30}, {b['end'] + 34})")
    page.evaluate("window.__kv.select(null)")
    page.keyboard.press("Escape")
    flush(page)
    assert kv(page, "kv.state.arrowCount") == 0


def test_details_panel_shows_only_the_executed_code_path_and_links(open_page, gemm_url):
    page = open_page(gemm_url)
    first, c = visible_block(page, "wgmma", tile=0, k=0)
    page.mouse.click(c["x"], c["y"])
    text = page.inner_text("#details")
    # CUTLASS's first k-tile runs the wait/MMA at 487/496; the steady-state loop's 533/543 not.
    assert ":487" in text and ":496" in text and ":533" not in text and ":543" not in text
    steady, c = visible_block(page, "wgmma", tile=0, k=3)
    page.mouse.click(c["x"], c["y"])
    text = page.inner_text("#details")
    assert ":533" in text and ":543" in text and ":487" not in text and "steady-state loop" in text
    # Dependencies are links: following one selects that block.
    link = page.locator("#details button[data-goto]").first
    target = int(link.get_attribute("data-goto"))
    link.click()
    assert kv(page, "kv.selectedId()") == target
    # Persistent: moving the pointer elsewhere keeps the panel; the text is selectable (copyable).
    page.mouse.move(5, 5)
    assert page.get_attribute("#details-body", "data-block") == str(target)
    assert page.evaluate("getComputedStyle(document.getElementById('details')).userSelect") != "none"
    assert not page.is_disabled("#btn-copy-details")


def replay_phases(result, t):
    """Phase bit of every barrier after the events at or before step t (independent of the page)."""
    phases = {b["id"]: 0 for b in result["barriers"]}
    for e in result["barrierEvents"]:
        if e["t"] > t:
            break
        phases[e["barrier"]] = e["phase"]
    return phases


@pytest.mark.parametrize("url_name", ["gemm_url", "fa3_url"])
def test_barrier_panel_phase_bits_match_the_simulator(open_page, request, url_name):
    page = open_page(request.getfixturevalue(url_name))
    result = kv(page, "({barriers: kv.state.result.barriers, barrierEvents: kv.state.result.barrierEvents, total: kv.state.result.total})")
    assert result["barriers"] and result["barrierEvents"]
    page.focus("#wave")
    checked = 0
    for _ in range(12):
        page.keyboard.press("]")
        flush(page)
        t = kv(page, "kv.state.cursor")
        rows = page.eval_on_selector_all("#barriers-body tr[data-barrier]",
                                         "rows => rows.map(r => [Number(r.dataset.barrier), Number(r.dataset.phase)])")
        expected = replay_phases(result, t)
        assert dict(rows) == expected, t
        assert f"after step {t}" in page.text_content("#barriers-title")
        checked += 1
    # Stepping back lands on the previous event step.
    before = kv(page, "kv.state.cursor")
    page.keyboard.press("[")
    prev = max(e["t"] for e in result["barrierEvents"] if e["t"] < before)
    assert kv(page, "kv.state.cursor") == prev
    # Waiters are named with their parity; lines of waits and arrives are listed.
    text = page.inner_text("#barriers-body")
    assert "wait " in text and "arrive " in text
    assert checked == 12


# ---- exports --------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, head", [("chrome", b"{"), ("vcd", b"$"), ("svg", b"<svg"), ("png", b"\x89PNG")])
def test_export_menu_downloads_by_keyboard(open_page, gemm_url, fmt, head):
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("e")
    assert page.is_visible("#export-menu")
    order = ["chrome", "vcd", "svg", "png"]
    for _ in range(order.index(fmt)):
        page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.format") == fmt
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    download = info.value
    name = download.suggested_filename
    assert name.startswith("sm90_gemm_tma_warpspecialized_pingpong") or name.startswith("sm90_mma_tma_gmma_ss_warpspecialized")
    # Only knobs changed from the defaults are spelled (none here), then a hash (docs/exports.md).
    assert "stages-" not in name and len(name) <= 120
    data = Path(download.path()).read_bytes()
    assert data.startswith(head)
    if fmt == "chrome":
        trace = json.loads(data)
        # One slice per block: a B/E pair (an X event when zero-length; docs/exports.md).
        assert sum(1 for e in trace["traceEvents"] if e.get("ph") in ("B", "X")) == kv(page, "kv.blocks().length")
    if fmt == "svg":
        text = data.decode("utf-8")
        assert "consumer WG0" in text and "<path" in text
    assert page.is_hidden("#export-menu")


# ---- huge schedules -------------------------------------------------------------------------------

def test_large_settings_simulate_in_a_worker_cancel_stale_runs_and_stay_interactive(open_page, gemm_url):
    # Old page: the simulation ran on the main thread; every key waited for it.
    page = open_page(gemm_url)
    page.focus("#wave")
    # The progress line appears once a run has taken 250 ms (a slider's quick runs never show it).
    started = page.evaluate("() => { window.__kv.setKnobs({outputTiles: 200, kTiles: 200}); window.__kv.flush();"
                            " return [window.__kv.simulating(), document.getElementById('sim-progress').hidden]; }")
    assert started == [True, True]
    page.evaluate("window.__kv.setKnobs({outputTiles: 600, kTiles: 500})")
    page.wait_for_function("document.getElementById('sim-progress').textContent.indexOf('in the background') >= 0",
                           timeout=60000)
    # A newer setting replaces the running one (the stale run is terminated, its answer ignored).
    page.evaluate("window.__kv.setKnobs({outputTiles: 240, kTiles: 200})")
    page.wait_for_function("window.__kv.simulating()")
    # The last drawing stays interactive while the Worker runs.
    span = kv(page, "kv.state.view.t1Step - kv.state.view.t0Step")
    page.keyboard.press("w")
    assert kv(page, "kv.state.view.t1Step - kv.state.view.t0Step") < span
    assert kv(page, "kv.simulating()")
    page.wait_for_function("!window.__kv.simulating()", timeout=120000)
    assert page.is_hidden("#sim-progress")
    assert kv(page, "kv.state.knobs.outputTiles") == 240
    assert kv(page, "kv.blocks().filter(b => b.kind === 'epilogue').length") == 240


def test_a_worker_gets_the_structure_once_and_keeps_it(open_page, gemm_url):
    # Old page: every background run posted the whole structure again (a structured clone each
    # time), so the Worker's simulator never reused what it keeps per structure object.
    page = open_page(gemm_url)
    page.evaluate("""() => { window.__posts = []; const ids = new WeakMap(); let n = 0; const post = Worker.prototype.postMessage;
      Worker.prototype.postMessage = function (m, t) {
        if (!ids.has(this)) ids.set(this, n++);
        window.__posts.push([ids.get(this), !!(m && m.parsed)]);
        return post.call(this, m, t);
      }; }""")
    for tiles in (150, 160):
        page.evaluate(f"window.__kv.setKnobs({{outputTiles: {tiles}, kTiles: 200}})")
        page.wait_for_function(f"!window.__kv.simulating() && window.__kv.state.knobs.outputTiles === {tiles}", timeout=120000)
        assert kv(page, "kv.blocks().filter(b => b.kind === 'epilogue').length") == tiles
    posts = kv(page, "window.__posts")
    # Each Worker's first message carries the structure and no later one does (a barrier-events
    # Worker, terminated when a newer result replaces the one it runs for, starts anew with it).
    for worker in {w for w, _ in posts}:
        mine = [has for w, has in posts if w == worker]
        assert mine[0] is True and True not in mine[1:], posts
    # The run Worker (the first to get a message) ran both settings, the second without it.
    assert [has for w, has in posts if w == posts[0][0]] == [True, False], posts


# The page draws from result.columns; result.blocks / laneBlocks build an object per block (300+
# ms and much garbage at a million blocks). These getters throw once installed, so any read on a
# normal path is a page error (the open_page fixture fails the test on page errors).
POISON_BLOCKS_JS = """() => {
  const r = window.__kv.state.result;
  for (const key of ['blocks', 'laneBlocks']) {
    Object.defineProperty(r, key, {enumerable: true, configurable: true, get() { throw new Error('page read result.' + key); }});
  }
  return r.columns.n;
}"""

# (id, centre) of the first block of a kind at least minPx wide on screen, read from the columns.
VISIBLE_ID_JS = """([kind, minPx]) => {
  const kv = window.__kv, c = kv.state.columns;
  for (let id = 0; id < c.n; id++) {
    if (c.kinds[c.kind[id]] !== kind) continue;
    const p = kv.blockCenter(id);
    if (p && p.widthPx >= minPx) return [id, p];
  }
  return null;
}"""


def drive_without_blocks(page):
    """Hover, click (select + follow), arrows, Tab, . / ,, barrier panel, f, zoom and pan with real input."""
    assert page.evaluate(POISON_BLOCKS_JS) > 0
    page.focus("#wave")
    found = None
    for _ in range(24):
        page.keyboard.press("w")
        flush(page)
        found = page.evaluate(VISIBLE_ID_JS, ["wgmma", 6])
        if found:
            break
    assert found, "no visible WGMMA block"
    block_id, centre = found
    page.mouse.move(centre["x"], centre["y"])
    page.wait_for_selector("#tooltip:not([hidden])")
    assert page.get_attribute("#tooltip", "data-block") == str(block_id)
    # Hovering fills the barrier panel, which may move the canvas: aim again before clicking.
    centre = kv(page, f"kv.blockCenter({block_id})")
    page.mouse.click(centre["x"], centre["y"])
    flush(page)
    assert kv(page, "kv.selectedId()") == block_id
    assert len(kv(page, "kv.highlighted()")) >= 2
    assert kv(page, "kv.state.arrowCount") > 0
    assert "waited for" in page.inner_text("#details-body")
    for key in ("ArrowRight", "Tab", "Shift+Tab", "ArrowDown", "ArrowUp", ".", ".", ",", "]", "]", "[", "f", "s", "a", "d", "Home", "End", "0"):
        page.keyboard.press(key)
    flush(page)
    assert kv(page, "kv.selectedId()") is not None
    page.mouse.move(centre["x"] + 5, centre["y"])
    page.mouse.wheel(0, 120)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -240)
    page.keyboard.up("Control")
    flush(page)
    assert page.inner_text("#barriers-body").strip()
    page.keyboard.press("Escape")
    flush(page)
    assert kv(page, "kv.selectedId()") is None


def test_page_never_materialises_blocks_on_its_normal_paths(open_page, gemm_url):
    # Old page: applyResult, hit testing, chains and arrows all read result.blocks.
    page = open_page(gemm_url)
    drive_without_blocks(page)


def test_worker_result_is_drawn_from_transferred_columns_without_block_objects(open_page, gemm_url):
    page = open_page(gemm_url)
    # The Worker's run skips the barrier events: the result is drawn without them (checked in the
    # page as soon as it is applied; the events run starts 50 ms after that at the earliest).
    first = page.evaluate("""async () => {
      const kv = window.__kv, t0 = performance.now();
      kv.setKnobs({outputTiles: 100, kTiles: 200, schedule: 'cooperative'});
      kv.flush();
      const background = kv.simulating();
      while (kv.simulating()) await new Promise((r) => setTimeout(r, 1));
      const r = kv.state.result;
      return {background, pending: r.eventsPending, skipped: r.barrierEventsSkipped, events: r.barrierEvents.length,
              drawn: kv.state.lastResultDrawnAt > t0};
    }""")
    assert first == {"background": True, "pending": True, "skipped": True, "events": 0, "drawn": True}
    flush(page)
    assert kv(page, "kv.state.columns.n") > 100000
    assert kv(page, "kv.state.columns.start instanceof Float64Array")
    drive_without_blocks(page)
    # The barrier events follow the result in a second message; then the panel replays them.
    page.wait_for_function("!window.__kv.state.result.eventsPending", timeout=120000)
    assert kv(page, "kv.state.result.barrierEvents.length") > 0
    assert kv(page, "kv.state.result.barrierEventsSkipped") is False
    page.keyboard.press("]")
    flush(page)
    assert page.query_selector("#barriers-body tr[data-barrier]") is not None
    assert "on their way" not in page.inner_text("#barriers-body")


# Only the first Web Worker can be made: the second (the barrier-events run) throws.
ONE_WORKER_ONLY = """(() => {
  const Real = window.Worker;
  let made = 0;
  window.Worker = function (url, options) {
    made++;
    if (made > 1) throw new Error('no more workers');
    return new Real(url, options);
  };
})()"""


def test_a_worker_result_whose_events_cannot_be_fetched_says_so_and_waits_for_nothing(open_page, gemm_url):
    # Without this, the barrier panel said "on their way" forever and a trace export never started.
    page = open_page(gemm_url, init_script=ONE_WORKER_ONLY)
    page.evaluate("window.__kv.setKnobs({outputTiles: 100, kTiles: 200, schedule: 'cooperative'})")
    flush(page)
    page.wait_for_function("!window.__kv.simulating()", timeout=120000)
    page.wait_for_function("!window.__kv.state.result.eventsPending", timeout=30000)
    assert kv(page, "kv.state.columns.n") > 100000
    assert kv(page, "kv.state.result.barrierEventsOmitted") is True
    assert "barrier events not recorded: no second Web Worker" in page.inner_text("#messages")
    box = page.query_selector("#wave").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 60)
    flush(page)
    assert kv(page, "kv.state.cursor") is not None
    assert "not recorded for this schedule" in page.inner_text("#barriers-body")
    assert "on their way" not in page.inner_text("#barriers-body")
    # issue 18: the rows then say "?", never the zeros a replay of no events gives.
    cells = page.eval_on_selector_all("#barriers-body tr[data-barrier] td.kv-num", "tds => tds.map(td => td.textContent)")
    assert cells and all(c.startswith("?") or c.startswith("wait ") for c in cells), cells[:6]
    assert page.eval_on_selector_all("#barriers-body tr[data-barrier]", "trs => trs.every(tr => tr.dataset.phase === '?')")


def test_million_block_result_is_applied_without_a_long_main_thread_task(open_page, gemm_url):
    # Old page: a million blocks were rebuilt as objects, indexed and drawn one by one (seconds).
    # 600 ms is a regression bound, not the target (100 ms, measured by bench/bench_page.py: 56-75 ms
    # on the 2-core VM): the object-building page took 1.26 s there, and a loaded CI machine must
    # not fail a page that meets the target.
    page = open_page(gemm_url)
    result = page.evaluate("""async () => {
      const kv = window.__kv, tasks = [];
      const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration); });
      obs.observe({type: 'longtask'});
      kv.setKnobs({outputTiles: 500, kTiles: 500});
      kv.flush();
      const background = kv.simulating();
      while (kv.simulating()) await new Promise(r => setTimeout(r, 20));
      kv.flush();
      await new Promise(r => requestAnimationFrame(() => r()));
      await new Promise(r => setTimeout(r, 200));
      for (const e of obs.takeRecords()) tasks.push(e.duration);
      obs.disconnect();
      return {background, n: kv.state.columns.n, error: kv.state.result.error, longest: Math.max(0, ...tasks)};
    }""")
    assert result["background"] and result["error"] is None
    assert result["n"] > 1000000
    assert result["longest"] < 600, result
    # Honest level of detail: the fitted view says it summarises, and the rare epilogue still shows.
    assert page.is_visible("#lod-note") and "Summarised" in page.inner_text("#lod-note")
    assert kv(page, "Object.keys(kv.state.lastRects).some(k => k.indexOf('epilogue') >= 0)")
