"""Hostile content and hostile controls in headless Chromium (file://).

1. A header written here whose comments, strings, statement texts and file name (in a tmp dir
   whose name is hostile too) carry `</script><script>`, `<img onerror>`, `<!--`, U+2028 and
   quotes, rendered through viz.py (waveform) and render_html.render(model) (graph): no injected
   script runs, no injected element appears, and the payload is shown as text.
2. Absurd values typed into the waveform page's controls (DOM) and URL hash after load: the page
   clamps or refuses them with a message and stays responsive.
(tests/test_browser_waveform.py already covers a garbage hash at load and the block cap.)
"""

import json
import subprocess
import sys

import pytest

import browser_util
import pagekit
import parse_cutlass
import render_html
from conftest import ROOT

SCRIPT_PAYLOAD = "</script><script>window.__pwned=1;document.title='pwned'</script>"
IMG_PAYLOAD = '<img src=x onerror="window.__pwned=2">'
# File names may not hold `/`: the name carries the rest of the payload.
NAME_PAYLOAD = "<script>window.__pwned=3<!--\u2028'\"<img src=x onerror=window.__pwned=4>"

HOSTILE_HEADER = f"""// {SCRIPT_PAYLOAD} {IMG_PAYLOAD} <!-- in a comment
struct CollectiveMma {{
  using MainloopPipeline = cutlass::PipelineTmaAsync<4>;
  struct SharedStorage {{ cute::array_aligned<T, cute::cosize_v<SmemLayoutA>> smem_A; }};
  CUTLASS_DEVICE void load(MainloopPipeline pipeline) {{
    pipeline.producer_acquire(smem_pipe_write, "{SCRIPT_PAYLOAD.replace('"', '""')}");
    copy(params.tma_load_a.with(*pipeline.producer_get_barrier(smem_pipe_write)), tAgA, "<!--");
    pipeline.producer_commit(smem_pipe_write, '"', "\\"quoted\\" {IMG_PAYLOAD.replace('"', "'")}");
  }}
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline) {{
    pipeline.consumer_wait(smem_pipe_read, "</script><!--<script>");
    cute::gemm(tiled_mma, tCrA, "{IMG_PAYLOAD.replace('"', "'")}");
    pipeline.consumer_release(smem_pipe_read);
  }}
}};
"""

CHECK_JS = """() => ({
  pwned: window.__pwned === undefined ? null : window.__pwned,
  title: document.title,
  imgs: Array.from(document.querySelectorAll("img")).length,
  onerror: Array.from(document.querySelectorAll("[onerror]")).length,
  injectedScripts: Array.from(document.scripts).filter(s => s.textContent.includes("__pwned")
                                                          && s.type !== "application/json").length,
  text: document.body.innerText,
  models: Array.from(document.querySelectorAll('script[type="application/json"]')).map(s => s.textContent),
  packed: window.KV_PROGRAMS === undefined ? null : JSON.stringify(window.KV_PROGRAMS),
})"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(header path, parsed model) of the hostile header in a hostile directory."""
    d = tmp_path_factory.mktemp("x") / ("dir " + NAME_PAYLOAD)
    d.mkdir()
    header = d / (NAME_PAYLOAD + ".hpp")
    header.write_text(HOSTILE_HEADER, encoding="utf-8")
    model = parse_cutlass.parse_file(header)
    texts = " ".join(o["text"] for f in model["functions"] for o in f["ops"])
    assert "</script><script>" in texts and "<img src=x onerror=" in texts and "<!--" in texts
    assert NAME_PAYLOAD in model["source"]["path"]
    return header, model


def check_page(browser, url, ready_js, watch_ok=True):
    """Open url; return the CHECK_JS facts after asserting nothing was injected."""
    context, page, watch = browser_util.new_page(browser, url, ready_js=ready_js)
    try:
        page.wait_for_timeout(300)   # let an injected onerror (a failed image load) fire
        facts = page.evaluate(CHECK_JS)
        assert facts["pwned"] is None, f"injected script ran: window.__pwned = {facts['pwned']}"
        assert facts["title"] != "pwned"   # the title may show the file name as text
        assert facts["imgs"] == 0 and facts["onerror"] == 0, "an injected element was created"
        assert facts["injectedScripts"] == 0
        if watch_ok:
            assert not watch.problems(), watch.problems()
        return facts, page, context
    except BaseException:
        context.close()
        raise


def test_waveform_page_of_hostile_header_via_cli(browser, hostile, tmp_path):
    header, model = hostile
    out = header.parent / "wave.html"
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), str(header), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    facts, page, context = check_page(browser, out.as_uri(), "window.__kv && window.__kv.state.frames > 0")
    try:
        # The file name is shown literally (title and header text); the function list (the
        # packed data part boot.js parses into KV_PROGRAMS, never runs) holds the statement
        # texts with their payloads, intact, and the model element the file name.
        assert NAME_PAYLOAD in facts["title"]
        assert "window.__pwned=3" in facts["text"]
        dumped = json.dumps([json.loads(m) for m in facts["models"]])
        assert NAME_PAYLOAD in json.loads(dumped)[0]["parsed"]["source"]["path"]
        assert "</script><script>" in facts["packed"] and "<img src=x onerror=" in facts["packed"]
    finally:
        context.close()


def test_graph_page_of_hostile_header(browser, hostile, tmp_path):
    header, model = hostile
    out = tmp_path / "graph.html"
    pagekit.write_atomic(out, render_html.render(model))
    facts, page, context = check_page(browser, out.as_uri(), "window.KVGraph && KVGraph.state.ready")
    try:
        # Hovering a sync node shows its source lines as text, payload included.
        shown = page.evaluate("""() => {
          const tips = [];
          for (const node of document.querySelectorAll('[data-id^="op:"]')) {
            node.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
            node.dispatchEvent(new MouseEvent('mouseenter', {bubbles: true}));
            const tip = document.querySelector('#tooltip, .kv-tooltip, [role="tooltip"]');
            if (tip) tips.push(tip.textContent);
          }
          return tips.join('\\n');
        }""")
        after = page.evaluate(CHECK_JS)
        assert after["pwned"] is None and after["imgs"] == 0 and after["onerror"] == 0
        assert "</script><script>" in shown or "<img src=x onerror=" in shown or "<!--" in shown, shown[:500]
    finally:
        context.close()


def test_graph_page_of_hostile_header_via_cli(browser, hostile, tmp_path):
    header, model = hostile
    out = tmp_path / "graph_cli.html"
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), str(header), "--mode", "graph",
                           "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    facts, page, context = check_page(browser, out.as_uri(), "window.KVGraph && KVGraph.state.ready")
    context.close()


# ---------------------------------------------------------------- hostile controls and hash


@pytest.fixture(scope="module")
def waveform_url(tmp_path_factory):
    import render_waveform
    model = json.loads(pagekit.asset_path("examples/sm90_gemm_pingpong.json").read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("wave") / "page.html"
    pagekit.write_atomic(out, render_waveform.render(model))
    return out.as_uri()


ABSURD = ["-5", "1e12", "NaN", "abc", "", "Infinity", "-0", "2.5", "99999999999999999999", "<b>x</b>"]

SET_CONTROL_JS = """([id, value]) => {
  const el = document.getElementById(id);
  if (el.tagName === 'SELECT') {
    // A select cannot hold a value it has no option for: add one, as a hostile script could.
    const opt = document.createElement('option'); opt.value = value; opt.textContent = value;
    el.appendChild(opt);
  }
  el.value = value;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}"""


def responsive(page):
    """True when the page answers a trivial evaluation (a hung tab times out instead)."""
    return page.evaluate("1 + 1") == 2


def test_absurd_values_in_the_controls_are_clamped(browser, waveform_url):
    context, page, watch = browser_util.new_page(browser, waveform_url)
    try:
        ids = page.evaluate("Array.from(document.querySelectorAll('[data-knob]')).filter(e => e.type !== 'checkbox')"
                            ".map(e => e.id)")
        ranges = page.evaluate("KernelSchedule.KNOB_RANGES")
        assert ids
        for control in ids:
            for value in ABSURD:
                page.evaluate(SET_CONTROL_JS, [control, value])
                page.evaluate("window.__kv.flush()")
                assert responsive(page)
                # A large setting simulates in the background: the knobs are the simulated ones
                # (clamped, with messages) once its result is taken (CI's load made this race).
                page.wait_for_function("!window.__kv.simulating()", timeout=120000)
                knobs = page.evaluate("window.__kv.state.knobs")
                name = page.evaluate(f"document.getElementById('{control}').dataset.knob")
                v = knobs[name]
                error = page.evaluate("window.__kv.state.result && window.__kv.state.result.error")
                if name in ranges and isinstance(v, (int, float)):
                    r = ranges[name]
                    in_range = r["min"] <= v <= r["max"] and v == int(v)
                    assert in_range or error or page.is_visible("#messages") or page.is_visible("#error"), \
                        (control, value, v)
            # back to a sane value so the next control starts from a valid schedule
            page.evaluate("window.__kv.setKnobs(window.__kv.state.initialKnobs || {})")
        assert not watch.problems(), watch.problems()
    finally:
        context.close()


def test_absurd_hash_after_load_keeps_the_page_responsive(browser, waveform_url):
    context, page, watch = browser_util.new_page(browser, waveform_url)
    try:
        for hash_ in ("#tiles=999999999&k-tiles=999999999&stages=99999",
                      "#stages=NaN&tiles=-1&t0=-1e308&t1=1e308&cursor=-Infinity",
                      "#k-tiles=" + "9" * 400,
                      "#" + "&".join(f"x{i}=1" for i in range(2000))):
            page.evaluate(f"location.hash = {json.dumps(hash_)}")
            page.wait_for_timeout(100)
            page.evaluate("window.__kv.flush()")
            assert responsive(page)
            assert page.is_visible("#messages") or page.is_visible("#error"), hash_[:80]
        assert not watch.problems(), watch.problems()
    finally:
        context.close()
