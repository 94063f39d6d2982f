"""Headless-Chromium tests of the waveform page's exports (issue 23, part 1), with real clicks.

Each test fails on the page before this work: the file name spelled every knob (243 characters
for FA3's defaults, so Chromium wrote nothing once a knob changed), a failed PNG said nothing,
the SVG legend was one clipped row that listed kinds of hidden lanes, and wait blocks lost their
hatching in SVG and PNG. Timeouts only catch hangs; nothing here asserts wall-clock speed.
"""

import base64
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

GEMM = ROOT / "examples" / "sm90_gemm_pingpong.json"
FA3 = ROOT / "examples" / "fa3_fwd.json"
# What the exporter promises (trace_export.js MAX_FILE_NAME_CHARS); Chromium writes nothing past 255 bytes.
MAX_NAME_BYTES = 120
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


render = browser_util.render_page


@pytest.fixture(scope="module")
def gemm_url(tmp_path_factory):
    return render(tmp_path_factory, GEMM, "gemm.html")


@pytest.fixture(scope="module")
def fa3_url(tmp_path_factory):
    return render(tmp_path_factory, FA3, "fa3.html")


def click_export(page, fmt):
    """Open the Export menu and click one format, as a user does."""
    page.click("#btn-export")
    page.click(f"#export-menu button[data-format={fmt}]")


def download_by_click(page, fmt):
    """(suggested file name, bytes) of the download that clicking Export -> fmt starts."""
    with page.expect_download() as info:
        click_export(page, fmt)
    download = info.value
    assert download.failure() is None, download.failure()
    return download.suggested_filename, Path(download.path()).read_bytes()


def svg_boxes(page, svg):
    """[[tag, text, x, y, width, height]] of every text and rect of the SVG's legend group, laid out by Chromium."""
    return page.evaluate("""(svg) => {
      const holder = document.createElement('div');
      holder.innerHTML = svg;
      document.body.appendChild(holder);
      const root = holder.querySelector('svg');
      const out = [...root.querySelectorAll('.kv-svg-legend text, .kv-svg-legend rect')].map((el) => {
        const b = el.getBBox();
        return [el.tagName, el.textContent, b.x, b.y, b.width, b.height];
      });
      holder.remove();
      return out;
    }""", svg)


def svg_size(svg):
    m = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
    return int(m.group(1)), int(m.group(2))


# ---- file names ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["png", "svg", "chrome", "vcd"])
def test_fa3_with_a_changed_knob_downloads_a_short_safe_name(open_page, fa3_url, fmt):
    # The case: #model=attention&tma=100, Export -> PNG wrote no file (a 250+ byte name).
    page = open_page(fa3_url + "#model=attention&tma=100")
    assert kv(page, "kv.state.knobs.tmaLatency") == 100
    name, data = download_by_click(page, fmt)
    assert len(name.encode("utf-8")) <= MAX_NAME_BYTES, (len(name), name)
    assert SAFE_NAME.match(name), name
    assert name.startswith("flash_fwd_kernel_sm90_tma-100_"), name
    # Only the changed knob is spelled (no stages-, kv-blocks-...), then the hash of all knobs.
    assert not re.search(r"_(stages|kv-blocks|tiles|consumers)-", name), name
    assert re.search(r"_[0-9a-f]{8}(_view-\d+-\d+)?\.", name), name
    head = {"png": b"\x89PNG", "svg": b"<svg", "chrome": b"{", "vcd": b"$"}[fmt]
    assert data.startswith(head) and len(data) > 100
    assert kv(page, "kv.state.lastExport") == name
    assert page.is_hidden("#messages")


def test_same_knobs_same_name_other_knobs_other_name(open_page, fa3_url):
    page = open_page(fa3_url + "#model=attention&tma=100")
    first, _ = download_by_click(page, "chrome")
    again, _ = download_by_click(page, "chrome")
    assert first == again
    page.evaluate("window.__kv.setKnobs({tmaLatency: 101})")
    flush(page)
    other, _ = download_by_click(page, "chrome")
    assert other != first and "_tma-101_" in other


# ---- failures are said on the page --------------------------------------------------------------

def test_a_png_download_that_fails_says_so(open_page, fa3_url):
    page = open_page(fa3_url + "#model=attention&tma=100")
    # The browser refuses the download hand-off (a stand-in for any failure after the PNG is made).
    page.evaluate("(() => { URL.createObjectURL = () => { throw new Error('blob URLs are disabled'); }; })()")
    click_export(page, "png")
    page.wait_for_selector("#messages:not([hidden])")
    text = page.inner_text("#messages")
    assert "Export failed (png): blob URLs are disabled; no file was written." in text
    assert kv(page, "kv.state.lastExport || null") is None


def test_a_canvas_that_gives_no_png_says_so_and_a_later_export_clears_it(open_page, fa3_url):
    page = open_page(fa3_url)
    page.evaluate("""(() => { const real = HTMLCanvasElement.prototype.toBlob;
      window.__realToBlob = real;
      HTMLCanvasElement.prototype.toBlob = function (cb) { setTimeout(() => cb(null), 0); }; })()""")
    click_export(page, "png")
    page.wait_for_selector("#messages:not([hidden])")
    assert re.search(r"Export failed \(png\): the browser made no PNG of a \d+ x \d+ px canvas", page.inner_text("#messages"))
    page.evaluate("(() => { HTMLCanvasElement.prototype.toBlob = window.__realToBlob; })()")
    download_by_click(page, "png")
    assert page.is_hidden("#messages")


def test_a_name_that_cannot_be_built_says_so(open_page, fa3_url):
    page = open_page(fa3_url)
    page.evaluate("(() => { window.KernelExport.exportFileName = () => { throw new Error('no name today'); }; })()")
    click_export(page, "svg")
    page.wait_for_selector("#messages:not([hidden])")
    assert "Export failed (svg): no name today; no file was written." in page.inner_text("#messages")


# ---- SVG / PNG ------------------------------------------------------------------------------------

@pytest.mark.parametrize("width", [1280, 900])
def test_svg_legend_wraps_and_nothing_is_clipped(open_page, fa3_url, width):
    # Old page: one fixed row, FA3 lost "WAIT reason" past the right edge.
    page = open_page(fa3_url, viewport=(width, 800))
    _name, data = download_by_click(page, "svg")
    svg = data.decode("utf-8")
    w, h = svg_size(svg)
    boxes = svg_boxes(page, svg)
    texts = [b[1] for b in boxes if b[0] == "text"]
    assert any(t.startswith("WAIT reason") for t in texts), texts
    assert any(t.startswith("G1 o.j") for t in texts), texts
    for tag, text, x, y, bw, bh in boxes:
        assert 0 <= x and x + bw <= w and 0 <= y and y + bh <= h, (tag, text, x, y, bw, bh, w, h)
    rows = {round(b[3] + b[5] / 2) for b in boxes if b[0] == "text"}
    assert len(rows) >= 2, rows
    # No two legend items overlap.
    items = sorted((b for b in boxes if b[0] == "text"), key=lambda b: (b[3], b[2]))
    for a, b in zip(items, items[1:]):
        if abs(a[3] - b[3]) < 1:
            assert a[2] + a[4] <= b[2], (a, b)


def test_svg_legend_lists_only_kinds_of_visible_lanes(open_page, gemm_url):
    page = open_page(gemm_url)
    _name, data = download_by_click(page, "svg")
    before = [b[1] for b in svg_boxes(page, data.decode("utf-8")) if b[0] == "text"]
    assert any(t.startswith("FILLING") for t in before) and any(t.startswith("FULL") for t in before)
    # Hide every stage lane (FILLING and FULL live there) in the lanes panel, by clicks.
    page.click("#lanes-panel > summary")
    for lane in kv(page, "kv.state.allLanes.filter(l => l.group === 'stage').map(l => l.id)"):
        page.click(f"#lane-show-{lane}")
    assert not kv(page, "kv.state.lanes.some(l => l.group === 'stage')")
    _name, data = download_by_click(page, "svg")
    after = [b[1] for b in svg_boxes(page, data.decode("utf-8")) if b[0] == "text"]
    assert not any(t.startswith("FILLING") or t.startswith("FULL") for t in after), after
    assert any(t.startswith("WGMMA") for t in after) and any(t.startswith("WAIT reason") for t in after), after
    assert any(t.startswith("issue") for t in after), after


def wait_rect(page):
    """[x, y, w, h] of the widest wait block the last frame drew (canvas CSS pixels)."""
    r = kv(page, "kv.state.lastRects.wait")
    assert r, "no wait block on screen"
    quads = [r[i:i + 4] for i in range(0, len(r), 4)]
    return max(quads, key=lambda q: q[2] * q[3])


def test_wait_blocks_keep_their_hatching_in_svg_and_png(open_page, gemm_url):
    page = open_page(gemm_url)
    x, y, w, h = wait_rect(page)
    assert w >= 12 and h >= 12, (w, h)
    _name, svg = download_by_click(page, "svg")
    svg = svg.decode("utf-8")
    # The hatching is drawn (bands over the fill), not a pattern: a page asset may hold no url(.
    hatch = re.search(r'<path fill="([^"]+)"[^>]* data-kind="wait-hatch" d="(M[^"]+)"', svg)
    assert hatch and '<path fill="' in svg.split('data-kind="wait-hatch"')[0], svg[:400]
    _name, png = download_by_click(page, "png")
    # The PNG's pixels inside the wait block: the wait colour and the hatch colour, as on the canvas.
    found = page.evaluate("""async ([data, x, y, w, h]) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + data;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const cx = c.getContext('2d');
      cx.drawImage(img, 0, 0);
      const dpr = img.width / Math.round(document.getElementById('wave').clientWidth);
      const px = cx.getImageData(Math.round((x + 2) * dpr), Math.round((y + 2) * dpr),
                                 Math.round((w - 4) * dpr), Math.round((h - 4) * dpr)).data;
      const seen = {};
      for (let i = 0; i < px.length; i += 4) seen[px[i] + ',' + px[i + 1] + ',' + px[i + 2]] = 1;
      const probe = document.createElement('canvas').getContext('2d');
      const rgb = (v) => { probe.fillStyle = v; probe.fillRect(0, 0, 1, 1); const d = probe.getImageData(0, 0, 1, 1).data; return d[0] + ',' + d[1] + ',' + d[2]; };
      const cs = getComputedStyle(document.documentElement);
      return {colours: Object.keys(seen), wait: rgb(cs.getPropertyValue('--kind-wait').trim()),
              hatch: rgb(cs.getPropertyValue('--kind-wait-hatch').trim())};
    }""", [base64.b64encode(png).decode("ascii"), x, y, w, h])
    assert found["wait"] in found["colours"], found
    assert found["hatch"] in found["colours"], found


# ---- the page's Chrome trace follows the details panel's code path ----------------------------

def test_page_trace_lines_are_the_details_panel_lines(open_page, gemm_url):
    page = open_page(gemm_url)
    _name, data = download_by_click(page, "chrome")
    trace = json.loads(data)
    by_block = {e["args"]["block"]: e for e in trace["traceEvents"] if e["ph"] in ("E", "X")}
    checked = 0
    for k in (0, 1, 3):
        block = kv(page, f"kv.blocks().find(b => b.kind === 'wgmma' && b.k === {k})")
        centre = kv(page, f"kv.blockCenter({block['id']})")  # client coordinates
        page.mouse.click(centre["x"], centre["y"])
        assert kv(page, "kv.selectedId()") == block["id"]
        shown = page.eval_on_selector_all("#details .kc-where", "els => els.map(e => e.textContent)")
        lines = by_block[block["id"]]["args"]["lines"]
        assert lines == [s.split("-")[0] for s in shown], (k, lines, shown)
        assert len(lines) < len({(r["path"], r["line"]) for r in block["lines"]}), k
        checked += 1
    assert checked == 3
