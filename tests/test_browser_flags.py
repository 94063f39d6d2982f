"""Headless-Chromium tests of the compile-time flags panel (assets/wave_flags.js, docs/waveform.md
"Compile-time flags"): the program model's run lists the source's flags and settings it read
(verdict.flags); the panel shows each with its value and sets it by name; the URL hash carries
what was set (flag.NAME=on|off|N), a pinned run keeps it, and `viz.py --flag` starts the page
with it. Opened from file:// like a user, on the bundled FA4 SM90 parse (no package needed but for
the --flag test, which parses the installed flash-attn-4)."""

import json
import subprocess

import pytest
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import render_waveform as rw  # noqa: E402

FLAG = "self.intra_wg_overlap"


@pytest.fixture(scope="module")
def page_url(tmp_path_factory):
    """The bundled FA4 SM90 parse (examples/fa4_fwd_sm90.json) as a page starting in the program model."""
    parsed = json.loads((ROOT / "examples" / "fa4_fwd_sm90.json").read_text())
    out = tmp_path_factory.mktemp("flags") / "fa4_sm90_program.html"
    pagekit.write_atomic(out, rw.render(parsed, {"model": "program"}))
    return out.as_uri()


def _flag_box(page, name):
    return page.locator(f'#knob-flag-list input[data-flag="{name}"]')


def test_the_panel_lists_the_runs_flags_and_sets_one(open_page, page_url):
    page = open_page(page_url)
    assert kv(page, "kv.state.knobs.model") == "program"
    assert not page.locator("#knob-flags").is_hidden()
    read = kv(page, "kv.state.result.verdict.flags")
    names = page.eval_on_selector_all("#knob-flag-list input", "els => els.map(e => e.getAttribute('data-flag'))")
    assert names == sorted(read) and FLAG in names
    # FA4 SM90's intra-warpgroup overlap is on by default (flash_fwd_sm90.py, DSL_FLAG_DEFAULTS).
    assert read[FLAG] == 1 and _flag_box(page, FLAG).is_checked()
    before = kv(page, "kv.state.result.total")
    page.locator("#knob-flags summary").click()
    _flag_box(page, FLAG).uncheck()
    flush(page)
    assert kv(page, "kv.state.knobs.flags") == {FLAG: 0}
    assert kv(page, "kv.state.result.verdict.flags")[FLAG] == 0
    assert kv(page, "kv.state.result.total") != before
    assert f"{FLAG} off" in page.inner_text("#verdict")
    assert "(set)" in page.inner_text("#knob-flag-list")
    assert "flag." + quote(FLAG, safe="") + "=off" in page.evaluate("window.__kv.writeHashNow()")
    # Reset forgets the flags: the source's value again.
    page.locator("#knob-flag-reset").click()
    flush(page)
    assert kv(page, "kv.state.knobs.flags") is None
    assert kv(page, "kv.state.result.total") == before


def test_the_hash_sets_a_flag_and_refuses_a_bad_value(open_page, page_url):
    page = open_page(page_url + "#flag." + quote(FLAG, safe="") + "=off&flag.x=maybe")
    assert kv(page, "kv.state.knobs.flags") == {FLAG: 0}
    assert kv(page, "kv.state.result.verdict.flags")[FLAG] == 0
    messages = page.inner_text("#messages")
    assert "URL hash: ignored flag.x=maybe (expected on, off or an integer)." in messages


def test_a_pinned_run_keeps_its_flags(open_page, page_url):
    page = open_page(page_url + "#flag." + quote(FLAG, safe="") + "=off")
    off = kv(page, "kv.state.result.total")
    page.locator("#btn-pin").click()
    flush(page)
    hash_text = page.evaluate("window.__kv.writeHashNow()")
    assert "pin=" in hash_text and "flag." in kv(page, "kv.state.pinned.text")
    # The same hash in a new page restores the pinned run with its flag.
    page2 = open_page(page_url + hash_text)
    page2.wait_for_function("window.__kv.pinned() && window.__kv.pinned().total !== undefined && window.__kv.pinned().total !== null")
    assert kv(page2, "kv.pinned().knobs.flags") == {FLAG: 0}
    assert kv(page2, "kv.pinned().total") == off


def test_viz_flag_starts_the_page_with_it(open_page, tmp_path):
    from test_parser_dsl import fa4_dir
    out = tmp_path / "fa4_flag.html"
    subprocess.run([sys.executable, str(ROOT / "viz.py"), str(fa4_dir() / "flash_fwd_sm90.py"), "--model", "program",
                    "--flag", FLAG + "=off", "-o", str(out)], check=True, capture_output=True, text=True, cwd=ROOT)
    page = open_page(out.as_uri())
    assert kv(page, "kv.state.result.verdict.flags")[FLAG] == 0
    assert kv(page, "kv.state.knobs.flags") == {FLAG: 0}
