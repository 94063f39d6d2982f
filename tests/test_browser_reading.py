"""Headless-Chromium tests of issue 23's reading tools on the waveform page, with real input.

Range statistics (markers by keys, Shift+drag), search and jump (g, Enter / Shift+Enter, n / N),
a pinned run compared with the live one (p, the verdict's deltas, the ghost, pin= surviving a
reload), source lines as links (viz.py --source-link on the installed CUTLASS header) and a
details panel that is not clipped to 22em. Each test fails on the page before this work (it had
no range statistics, search box, pin, links, and a 22em panel). Figures are checked against an
independent brute force over the block objects (the test hook's kv.blocks(): tests only).
Timeouts only catch hangs; nothing asserts wall-clock speed.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import browser_util  # noqa: E402
from browser_util import flush, kv  # noqa: E402

GEMM = ROOT / "examples" / "sm90_gemm_pingpong.json"
FA3 = ROOT / "examples" / "fa3_fwd.json"
MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
PINGPONG = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"


_page = browser_util.render_page


@pytest.fixture(scope="module")
def gemm_url(tmp_path_factory):
    return _page(tmp_path_factory, GEMM, "gemm.html")


@pytest.fixture(scope="module")
def fa3_url(tmp_path_factory):
    return _page(tmp_path_factory, FA3, "fa3.html")


# Statistics over [t0, t1) by brute force over block objects, one unit step at a time (blocks
# start and end on whole steps): per lane busy (a non-wait block covers the step), wait steps by
# reason, blocks of each kind overlapping the range; the tensor core's busy steps.
BRUTE_JS = """([t0, t1]) => {
  const kv = window.__kv, blocks = kv.blocks(), lanes = {}, tensor = new Set();
  const TC = ['wgmma', 'gemm0', 'gemm1', 'umma'];
  for (const b of blocks) {
    const row = lanes[b.lane] || (lanes[b.lane] = {busy: 0, wait: 0, waits: {}, counts: {}});
    if (b.start < t1 && b.end > t0) row.counts[b.kind] = (row.counts[b.kind] || 0) + 1;
  }
  for (const lane of Object.keys(lanes)) {
    const mine = blocks.filter(b => b.lane === lane);
    for (let t = t0; t < t1; t++) {
      if (mine.some(b => b.kind !== 'wait' && b.start <= t && t < b.end)) lanes[lane].busy++;
      for (const b of mine) {
        if (b.start > t || t >= b.end) continue;
        if (b.kind === 'wait') { lanes[lane].wait++; lanes[lane].waits[b.reason] = (lanes[lane].waits[b.reason] || 0) + 1; }
        if (TC.includes(b.kind)) tensor.add(t);
      }
    }
  }
  return {lanes, tensor: tensor.size};
}"""


def wave_box(page):
    return page.query_selector("#wave").bounding_box()


def step_x(page, t):
    """Client x of step t on the canvas (the page's own TimeScale)."""
    return page.evaluate("(t) => document.getElementById('wave').getBoundingClientRect().left + window.__kv.state.scale.xPx(t)", t)


def range_rows(page):
    """{lane: (busy, wait)} of the range table in the details panel."""
    return page.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('#range-body tr[data-lane]'))
      .map(tr => [tr.dataset.lane, [Number(tr.dataset.busy), Number(tr.dataset.wait)]]))""")


def assert_range_matches_brute_force(page):
    t0 = int(page.get_attribute("#range-body", "data-t0"))
    t1 = int(page.get_attribute("#range-body", "data-t1"))
    want = page.evaluate(BRUTE_JS, [t0, t1])
    rows = range_rows(page)
    assert rows, "no lane rows in the range statistics"
    for lane, (busy, wait) in rows.items():
        assert (busy, wait) == (want["lanes"][lane]["busy"], want["lanes"][lane]["wait"]), lane
    assert int(page.get_attribute("#range-body [data-tensor-busy]", "data-tensor-busy")) == want["tensor"]
    return t0, t1, want


# ---- Part 2: range statistics ---------------------------------------------------------------

def test_markers_by_keys_give_range_statistics_in_the_details_panel(open_page, fa3_url):
    # Old page: markers gave only |B-A|; no statistics anywhere.
    page = open_page(fa3_url)
    total = kv(page, "kv.state.result.total")
    box = wave_box(page)
    y = box["y"] + 60
    page.mouse.move(step_x(page, round(total * 0.2)), y)
    page.keyboard.press("m")
    page.mouse.move(step_x(page, round(total * 0.7)), y)
    page.keyboard.press("M")
    flush(page)
    assert page.is_visible("#range-body")
    t0, t1, want = assert_range_matches_brute_force(page)
    assert t1 - t0 >= total * 0.4
    text = page.inner_text("#range-body")
    assert f"steps {t0}\u2013{t1}" in text and "Tensor core busy" in text
    # Wait steps by reason: a consumer row names each reason with its steps.
    waits = want["lanes"]["consumer0"]["waits"]
    row = page.inner_text("#range-body tr[data-lane='consumer0']")
    for reason, steps in waits.items():
        assert f"{reason} {steps}" in row
    # Clearing the markers clears the statistics.
    page.keyboard.press("x")
    flush(page)
    assert page.is_hidden("#range-body")


def test_shift_drag_selects_a_range_and_plain_drag_still_pans(open_page, gemm_url):
    # Old page: any drag panned; Shift+drag too.
    page = open_page(gemm_url)
    page.keyboard.press("0")
    flush(page)
    box = wave_box(page)
    y = box["y"] + 100
    view = kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]")
    x0, x1 = step_x(page, 10.2), step_x(page, 31.7)
    page.keyboard.down("Shift")
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(x1, y, steps=6)
    page.mouse.up()
    page.keyboard.up("Shift")
    flush(page)
    assert kv(page, "[kv.state.view.t0Step, kv.state.view.t1Step]") == view, "Shift+drag must not pan"
    a, b = kv(page, "[kv.state.markerA, kv.state.markerB]")
    assert a is not None and b is not None and abs(a - 10.2) <= 2 and abs(b - 31.7) <= 2
    assert_range_matches_brute_force(page)
    assert "A " + str(a) in page.inner_text("#marker-readout")
    # A plain drag pans and leaves the markers.
    page.mouse.move(x1, y)
    page.mouse.down()
    page.mouse.move(x1 - 150, y, steps=6)
    page.mouse.up()
    flush(page)
    assert kv(page, "kv.state.view.t0Step") > view[0]
    assert kv(page, "[kv.state.markerA, kv.state.markerB]") == [a, b]
    assert "a=" in kv(page, "kv.writeHashNow()"), "the range is in the hash (as markers)"


# ---- Part 2: search and jump ----------------------------------------------------------------

MATCHES_JS = """(pred) => {
  const f = new Function('b', 'return ' + pred);
  return window.__kv.blocks().filter(f).sort((x, y) => x.start - y.start || window.__kv.state.columns.lane[x.id] - window.__kv.state.columns.lane[y.id] || x.id - y.id).map(b => b.id);
}"""


def test_search_box_cycles_matches_with_enter_and_shift_enter(open_page, gemm_url):
    # Old page: no search box; g did nothing.
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("g")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("wait tma")
    flush(page)
    want = page.evaluate(MATCHES_JS, "b.kind === 'wait' && b.reason === 'tma'")
    assert len(want) >= 3
    assert page.inner_text("#search-count").startswith(f"{len(want)} matches")
    # The cursor (none yet: step 0) decides the first match; then Enter walks in time order and wraps.
    seen = []
    for _ in range(len(want) + 1):
        page.keyboard.press("Enter")
        flush(page)
        seen.append(kv(page, "kv.selectedId()"))
        b = kv(page, f"kv.block({seen[-1]})")
        assert kv(page, "kv.state.cursor") == b["start"]
    assert seen == want + want[:1]
    assert page.evaluate("document.activeElement.id") == "search", "Enter keeps the box focused"
    page.keyboard.press("Shift+Enter")   # back across the start: the last match
    flush(page)
    assert kv(page, "kv.selectedId()") == want[-1]
    assert page.inner_text("#search-count").startswith(f"{len(want)} / {len(want)}")
    page.keyboard.press("Shift+Enter")
    flush(page)
    assert kv(page, "kv.selectedId()") == want[-2]
    # Every match on screen is outlined.
    assert kv(page, "kv.state.searchDrawn") == len(want)
    # Escape returns to the timeline; n / N step from there.
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "wave"
    page.keyboard.press("n")
    flush(page)
    assert kv(page, "kv.selectedId()") == want[-1]
    page.keyboard.press("N")
    flush(page)
    assert kv(page, "kv.selectedId()") == want[-2]


def test_search_by_name_and_k_tile_moves_the_view_to_an_off_screen_match(open_page, gemm_url):
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("Home")
    for _ in range(4):
        page.keyboard.press("w")
    flush(page)
    page.keyboard.press("g")
    page.keyboard.type("WGMMA 3.4")
    page.keyboard.press("Enter")
    flush(page)
    want = page.evaluate(MATCHES_JS, "b.kind === 'wgmma' && b.tile === 3 && b.k === 4")
    assert len(want) == 1
    assert kv(page, "kv.selectedId()") == want[0]
    b = kv(page, f"kv.block({want[0]})")
    v = kv(page, "kv.state.view")
    assert v["t0Step"] <= b["start"] <= v["t1Step"], "the view moved to the match"
    assert "WGMMA 3.4" in page.inner_text("#details-body h2")
    # A word that names nothing says so and matches nothing.
    page.fill("#search", "WGMMA bogus")
    flush(page)
    assert "bogus" in page.inner_text("#search-count")
    assert page.get_attribute("#search", "aria-invalid") == "true"
    assert kv(page, "kv.state.searchDrawn") == 0


def test_new_keys_are_listed_in_the_help_and_steal_no_documented_key(open_page, gemm_url):
    page = open_page(gemm_url)
    page.focus("#wave")
    page.keyboard.press("?")
    helptext = page.inner_text("#kc-help")
    for label in ("g", "n", "N", "p", "P", "/", "m", "M", "e"):
        assert page.locator("#kc-help kbd", has_text=label).count() >= 1, label
    assert "search" in helptext and "pin" in helptext and "Shift+drag" in helptext
    page.keyboard.press("Escape")
    # / still focuses the lane filter, not the search.
    page.focus("#wave")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "lane-filter"


# ---- Part 3: compare two settings -----------------------------------------------------------

def canvas_pixels(page):
    return page.evaluate("document.getElementById('wave').toDataURL()")


def test_pin_a_run_change_a_knob_and_compare(open_page, gemm_url):
    # Old page: no pin; the verdict showed only the live run.
    page = open_page(gemm_url + "#stages=6")
    flush(page)
    pinned_verdict = kv(page, "kv.state.result.verdict")
    page.click("#btn-pin")
    flush(page)
    assert page.is_visible("#compare")
    # Change a knob with the keyboard: the stages slider, four steps down (6 -> 2).
    page.focus("#knob-stages")
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    flush(page)
    assert kv(page, "kv.state.knobs.stages") == 2
    live = kv(page, "kv.state.result.verdict")
    head = page.inner_text("#compare")
    assert "stages 6 \u2192 2" in head
    assert int(page.get_attribute("#compare", "data-delta-total")) == live["total"] - pinned_verdict["total"]
    assert f"({pinned_verdict['total']} \u2192 {live['total']})" in head
    for lane, w in live["waits"].items():
        li = page.locator(f"#compare li[data-lane='{lane}']")
        assert int(li.get_attribute("data-delta")) == w["total"] - pinned_verdict["waits"][lane]["total"]
        for reason in ("order", "tma"):
            d = w[reason] - pinned_verdict["waits"][lane][reason]
            sign = "+" if d > 0 else ("\u2212" if d < 0 else "\u00b1")
            assert f"{reason} {sign}{abs(d)}" in li.inner_text()
    # The ghost: the pinned schedule under the live lanes, gone when unpinned (Shift+P).
    assert kv(page, "kv.state.ghostDrawn") > 0
    with_ghost = canvas_pixels(page)
    assert "pin=model:gemm,stages:6" in kv(page, "kv.writeHashNow()")
    page.focus("#wave")
    page.keyboard.press("P")
    flush(page)
    assert kv(page, "kv.state.ghostDrawn") == 0 and page.locator("#compare").count() == 0
    assert canvas_pixels(page) != with_ghost
    assert "pin=" not in kv(page, "kv.writeHashNow()")


def test_the_hash_keeps_the_pinned_setting_across_a_reload(open_page, fa3_url):
    page = open_page(fa3_url + "#kv-blocks=3")
    flush(page)
    page.focus("#wave")
    page.keyboard.press("p")
    flush(page)
    pinned_total = kv(page, "kv.state.result.total")
    page.evaluate("window.__kv.setKnobs({kvBlocks: 8})")
    flush(page)
    h = kv(page, "kv.writeHashNow()")
    assert "kv-blocks=8" in h and "pin=model:attention,kv-blocks:3" in h
    page.reload()
    page.wait_for_function("window.__kv && window.__kv.state.frames > 0 && !window.__kv.simulating()")
    flush(page)
    p = kv(page, "kv.pinned()")
    assert p and p["knobs"]["kvBlocks"] == 3 and p["total"] == pinned_total
    assert kv(page, "kv.state.knobs.kvBlocks") == 8
    live_total = kv(page, "kv.state.result.total")
    assert int(page.get_attribute("#compare", "data-delta-total")) == live_total - pinned_total
    assert kv(page, "kv.state.ghostDrawn") > 0
    # A bad pin is refused with a message, never a hang or a page error.
    page.goto(fa3_url + "#pin=model:attention,kv-blocks:abc,bogus:1")
    page.wait_for_function("window.__kv && window.__kv.state.frames > 0")
    assert "URL hash pin:" in page.inner_text("#messages")


# ---- Part 4: from a block to its source -----------------------------------------------------

def _viz(args, cwd):
    return subprocess.run([sys.executable, str(ROOT / "viz.py")] + args, cwd=cwd, capture_output=True, text=True, timeout=300)


def _select_wgmma(page):
    page.focus("#wave")
    found = page.evaluate("""() => {
      const kv = window.__kv, c = kv.state.columns;
      for (let id = 0; id < c.n; id++) if (c.kinds[c.kind[id]] === 'wgmma' && c.k[id] > 1) { const p = kv.blockCenter(id); if (p && p.widthPx > 6) return [id, p]; }
      return null;
    }""")
    assert found
    page.mouse.click(found[1]["x"], found[1]["y"])
    flush(page)
    assert kv(page, "kv.selectedId()") == found[0]
    return found[0]


@pytest.mark.parametrize("scheme", ["file", "vscode"])
def test_source_lines_show_their_text_and_link_to_the_file(open_page, cutlass, tmp_path, scheme):
    # Old page: file:line was plain text; viz.py had no --source-link.
    header, layer = cutlass(MAINLOOP), cutlass(PINGPONG)
    out = tmp_path / "real.html"
    args = [str(header), "--kernel-layer", str(layer), "-o", str(out)] + ([] if scheme == "file" else ["--source-link", scheme])
    res = _viz(args, tmp_path)
    assert res.returncode == 0, res.stderr
    page = open_page(out.as_uri())
    _select_wgmma(page)
    links = page.evaluate("""() => Array.from(document.querySelectorAll('#details-body .kc-src li')).map(li => {
      const a = li.querySelector('a.kc-where'); return {href: a ? a.getAttribute('href') : null, where: li.querySelector('.kc-where').textContent, text: li.querySelector('code').textContent};
    })""")
    assert len(links) >= 2
    lines = header.resolve().read_text(encoding="utf-8").split("\n")
    for item in links:
        line = int(item["where"].rsplit(":", 1)[1].split("-")[0])
        abs_path = header.resolve().as_posix()
        if scheme == "file":
            assert item["href"] == "file://" + abs_path.replace(" ", "%20")
        else:
            assert item["href"] == f"vscode://file{abs_path}:{line}"
        # The statement text is the file's own line (its first words: the parse joins continued lines).
        assert item["text"].split("(")[0].strip() in lines[line - 1], (line, item["text"])
    # Clicking a link is the user's own navigation: no request is made while the page renders it.
    assert not [u for u in page.evaluate("performance.getEntriesByType('resource').map(e => e.name)") if u.startswith(("file:", "vscode:"))]


def test_source_link_none_writes_no_link_and_no_absolute_path(open_page, cutlass, tmp_path):
    header = cutlass(MAINLOOP)
    out = tmp_path / "none.html"
    res = _viz([str(header), "--source-link", "none", "-o", str(out)], tmp_path)
    assert res.returncode == 0, res.stderr
    html = out.read_text(encoding="utf-8")
    assert header.resolve().as_posix() not in html
    page = open_page(out.as_uri())
    _select_wgmma(page)
    assert page.locator("#details-body .kc-src li").count() >= 2
    assert page.locator("#details-body a.kc-where").count() == 0
    bad = _viz([str(header), "--source-link", "emacs", "-o", str(out)], tmp_path)
    # As every bad choice of the CLI (argparse): status 2, the error on the last line, no traceback.
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--source-link" in bad.stderr.strip().splitlines()[-1]


def test_details_panel_is_not_clipped_to_22em_when_there_is_room(open_page, fa3_url):
    # Old page: max-height 22em, so the panel scrolled even in a tall window.
    page = open_page(fa3_url + "#a=0&b=60", viewport=(1280, 1500))
    _select_wgmma_or_gemm = page.evaluate("""() => {
      const kv = window.__kv, c = kv.state.columns;
      for (let id = 0; id < c.n; id++) if (c.kinds[c.kind[id]] === 'gemm1') return id;
      return null;
    }""")
    page.evaluate(f"window.__kv.select({_select_wgmma_or_gemm})")
    flush(page)
    panel = page.evaluate("""() => { const p = document.getElementById('details'), fs = parseFloat(getComputedStyle(p).fontSize);
      return {scroll: p.scrollHeight, client: p.clientHeight, em22: 22 * fs}; }""")
    assert panel["scroll"] > panel["em22"], "the test needs content taller than 22em"
    assert panel["scroll"] <= panel["client"] + 1, panel


# ---- At scale: columns and lane indexes only ------------------------------------------------

POISON_JS = """() => {
  for (const r of [window.__kv.state.result]) for (const key of ['blocks', 'laneBlocks']) {
    Object.defineProperty(r, key, {enumerable: true, configurable: true, get() { throw new Error('page read result.' + key); }});
  }
  return window.__kv.state.columns.n;
}"""


def test_reading_tools_on_a_large_worker_result_never_build_block_objects(open_page, gemm_url):
    page = open_page(gemm_url + "#tiles=64&k-tiles=256")
    n = page.evaluate(POISON_JS)
    assert n > 50000
    total = kv(page, "kv.state.result.total")
    box = wave_box(page)
    page.keyboard.down("Shift")
    page.mouse.move(box["x"] + 200, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 40, box["y"] + 100, steps=5)
    page.mouse.up()
    page.keyboard.up("Shift")
    flush(page)
    t0 = int(page.get_attribute("#range-body", "data-t0"))
    t1 = int(page.get_attribute("#range-body", "data-t1"))
    assert 0 <= t0 < t1 <= total
    busy = int(page.get_attribute("#range-body [data-tensor-busy]", "data-tensor-busy"))
    assert 0 < busy <= t1 - t0
    page.keyboard.press("g")
    page.keyboard.type("wgmma 40.200")
    page.keyboard.press("Enter")
    flush(page)
    sel = kv(page, "kv.selectedId()")
    c = kv(page, f"[kv.state.columns.tile[{sel}], kv.state.columns.k[{sel}]]")
    assert c == [40, 200]
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    page.evaluate("window.__kv.setKnobs({stages: 2})")
    page.wait_for_function("window.__kv.state.knobs.stages === 2 && !window.__kv.simulating() && window.__kv.state.result.columns.n > 50000")
    flush(page)
    assert kv(page, "kv.state.ghostDrawn") > 0
    assert page.get_attribute("#compare", "data-delta-total") is not None
