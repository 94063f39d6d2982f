"""Headless-Chromium tests of the waveform page in the attention model, opened from file://.

The FA3 example page (examples/fa3_fwd_waveform.html) and a page rendered from CUTLASS's
88_hopper_fmha collective (parsed live from the installed nvidia-cutlass) must open in the
attention model. Each test checks that the page made no network request and logged no console or
page error. Timeouts only catch hangs; nothing here asserts wall-clock speed.
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
import node_util  # noqa: E402
from browser_util import flush, kv  # noqa: E402
import pagekit  # noqa: E402
import parse_cutlass  # noqa: E402
import render_waveform as rw  # noqa: E402

FA3_PAGE = ROOT / "examples" / "fa3_fwd_waveform.html"
FA3_JSON = ROOT / "examples" / "fa3_fwd.json"
FMHA_COLLECTIVE = "examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp"
# Kinds on a KV block's path: its K and V (Vt) loads, then GEMM0, softmax and GEMM1 on every WG.
KV_CHAIN_KINDS = ("issue", "transpose", "filling", "full", "gemm0", "softmax", "gemm1")
RE_TOTAL = re.compile(r"Total: (\d+) steps")
RE_UTILIZATION = re.compile(r"Tensor-core utilization: ([\d.]+)%")
RE_EXPOSED = re.compile(r"Softmax exposed: (\d+) of (\d+) steps")


@pytest.fixture(scope="module")
def fa3():
    """FA3's parsed forward mainloop and kernel layer, as embedded in the example page."""
    return json.loads(FA3_JSON.read_text(encoding="utf-8"))


FIND_BLOCK_JS = """([kind, tile, k, lane]) => {
  const kv = window.__kv;
  for (const b of kv.blocks()) {
    if (b.kind !== kind || (tile !== null && b.tile !== tile) || (k !== null && b.k !== k) || (lane !== null && b.lane !== lane)) continue;
    const centre = kv.blockCenter(b.id);
    if (centre && centre.widthPx >= 4) return [b, centre];
  }
  return null;
}"""


def find_block(page, kind, tile=None, k=None, lane=None):
    """Return (block, centre) of the first block of a kind (and tile/k/lane) visibly on the canvas."""
    found = page.evaluate(FIND_BLOCK_JS, [kind, tile, k, lane])
    assert found, f"no visible {kind} block (tile={tile}, k={k}, lane={lane})"
    return found[0], found[1]


def verdict(page):
    """(total steps, tensor-core utilization %, exposed softmax steps) as the verdict box shows them."""
    text = page.inner_text("#verdict")
    total, util, exposed = RE_TOTAL.search(text), RE_UTILIZATION.search(text), RE_EXPOSED.search(text)
    assert total and util and exposed, text
    return int(total.group(1)), float(util.group(1)), int(exposed.group(1))


def toggle(page, knob):
    """Toggle an on/off knob's checkbox from the keyboard and run the re-simulation."""
    page.focus(f"#knob-{knob}")
    page.keyboard.press("Space")
    flush(page)


def test_fa3_example_opens_in_the_attention_model(open_page, fa3):
    page = open_page(FA3_PAGE.as_uri())
    assert kv(page, "kv.state.knobs.model") == "attention"
    assert page.eval_on_selector("#knob-model", "el => el.value") == "attention"
    assert page.is_hidden("#error") and page.is_hidden("#messages")
    # The page starts as FA3 is built by default (BF16, head dimension 128: 2 MMA WGs, both
    # refinements on, Transpose_V off); make_examples.py adds 6 KV blocks.
    knobs = kv(page, "kv.state.knobs")
    assert (knobs["dtype"], knobs["headDim"], knobs["intraWGOverlap"], knobs["interWGPingpong"], knobs["transposeV"],
            knobs["consumerWGs"], knobs["kvBlocks"]) == ("bf16", 128, True, True, False, 2, 6)
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    stages = knobs["stages"]
    for ring in ("k", "v"):
        assert [l for l in lanes if l.startswith(ring + "_stage")] == [f"{ring}_stage{s}" for s in range(stages)]
    assert not [l for l in lanes if l.startswith("vt_stage")]
    # The derived flags are shown, read-only, with FA3's rule in their title.
    for name, flag in (("interWGPingpong", "UseSchedulerBarrier"), ("transposeV", "Transpose_V")):
        assert kv(page, f"document.getElementById('knob-{name}').disabled") is True
        assert flag in kv(page, f"document.getElementById('knob-{name}').title")
    consumers = [l for l in lanes if l.startswith("consumer")]
    assert consumers == ["consumer0", "consumer0_softmax", "consumer1", "consumer1_softmax"]
    # Softmax lanes are thinner sub-rows right under their consumer lane.
    heights = dict(zip(lanes, kv(page, "kv.state.rowHeight")))
    assert heights["consumer0_softmax"] < heights["consumer0"] and heights["consumer1_softmax"] < heights["consumer1"]
    kinds = set(kv(page, "kv.blocks().map(b => b.kind)"))
    assert {"issue", "filling", "full", "gemm0", "softmax", "gemm1", "epilogue"} <= kinds and "transpose" not in kinds
    # Controls come from knobsFor("attention"), each labelled; flags are checkboxes.
    assert kv(page, "Array.from(document.querySelectorAll('[data-knob]')).every(el => el.labels.length > 0)")
    assert kv(page, "document.getElementById('knob-intraWGOverlap').type") == "checkbox"
    assert kv(page, "document.getElementById('knob-kvBlocks').type") == "range"
    assert page.query_selector("#knob-kTiles") is None
    # The legend lists the attention kinds only.
    legend = page.inner_text("#legend")
    for word in ("issue", "FILLING", "FULL", "G0 o.j", "SM o.j", "G1 o.j", "EPI", "WAIT"):
        assert word in legend, word
    assert "WGMMA" not in legend
    assert fa3["kernel_layer"]["source"]["path"] in page.inner_text(".kv-header")
    assert "Softmax exposed" in page.inner_text("#verdict")
    page.screenshot(path=str(browser_util.artifact_path("attention_light.png")), full_page=True)


def test_fa3_dark_scheme(open_page):
    page = open_page(FA3_PAGE.as_uri(), color_scheme="dark")
    colour = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--kind-gemm0').trim()")
    assert colour and colour.lower() != "#2b59c3"
    page.screenshot(path=str(browser_util.artifact_path("attention_dark.png")), full_page=True)


def test_refinements_update_blocks_and_verdict(open_page):
    # FA3's own page: IntraWGOverlap is a compile-time input (a knob); the scheduler barrier is
    # derived from it (UseSchedulerBarrier), so the refinements are compared on an 88-style
    # structure-free page below and here through the knob FA3 lets vary.
    page = open_page(FA3_PAGE.as_uri())
    both_on, text_on = verdict(page), page.inner_text("#verdict")
    blocks_on = kv(page, "kv.blocks().map(b => [b.lane, b.kind, b.start, b.end])")
    toggle(page, "intraWGOverlap")
    assert kv(page, "kv.state.knobs.intraWGOverlap") is False
    # Two WGs without IntraWGOverlap: UseSchedulerBarrier stays on (NumMmaWarpGroups == 2).
    assert kv(page, "kv.state.knobs.interWGPingpong") is True
    text_ping = page.inner_text("#verdict")
    assert text_ping != text_on
    assert kv(page, "kv.blocks().map(b => [b.lane, b.kind, b.start, b.end])") != blocks_on
    assert "intra-overlap=off" in kv(page, "kv.writeHashNow()")
    assert "inter-pingpong" not in kv(page, "kv.writeHashNow()")
    # One WG has no scheduler barrier: both refinements off, the run is longer and the tensor
    # core idler per WG (README "The insight": the refinements pay).
    page.evaluate("window.__kv.setKnobs({consumerWGs: 1})")
    flush(page)
    assert kv(page, "kv.state.knobs.interWGPingpong") is False
    page.screenshot(path=str(browser_util.artifact_path("attention_both_off.png")), full_page=True)
    page.evaluate("window.__kv.setKnobs({consumerWGs: 2})")
    toggle(page, "intraWGOverlap")
    assert verdict(page) == both_on


def test_gemm1_tooltip_shows_v_wait_and_pv_mma_lines(open_page, fa3):
    page = open_page(FA3_PAGE.as_uri())
    block, centre = find_block(page, "gemm1", tile=0, k=1, lane="consumer0")
    page.mouse.move(centre["x"], centre["y"])
    page.wait_for_selector("#tooltip:not([hidden])")
    assert "GEMM1 0.1" in page.inner_text("#tooltip")
    # The details panel (a click) holds the facts and every source line of the block.
    page.mouse.click(centre["x"], centre["y"])
    text = page.inner_text("#details")
    facts = dict(zip(*[iter(page.eval_on_selector_all("#details dl > *", "els => els.map(e => e.textContent)"))] * 2))
    assert "GEMM1 0.1" in text and facts["KV block"] == "1" and facts["output tile"] == "0"
    consumer = next(f for f in fa3["functions"] if f["name"] == "mma")
    v_waits = [o for o in consumer["ops"] if o["op"] == "consumer_wait" and o["pipeline"] == "MainloopPipelineV"]
    pv_mmas = [o for o in consumer["ops"] if o["op"] == "mma" and "pv" in o["receiver"]]
    assert v_waits and pv_mmas
    base = fa3["source"]["path"].split("/")[-1]
    for op in v_waits + pv_mmas:
        assert f"{base}:{op['line']}" in text, op
    assert v_waits[0]["text"][:30] in text and pv_mmas[0]["text"][:30] in text
    page.screenshot(path=str(browser_util.artifact_path("attention_tooltip.png")))
    # A stage block names its operand; a wait names its reason.
    full, centre = find_block(page, "full", lane="v_stage0")
    page.mouse.click(centre["x"], centre["y"])
    facts = dict(zip(*[iter(page.eval_on_selector_all("#details dl > *", "els => els.map(e => e.textContent)"))] * 2))
    assert facts["operand"] == "V"
    wait, centre = find_block(page, "wait")
    page.mouse.move(centre["x"], centre["y"])
    assert f"wait reason: {wait['reason']}" in page.inner_text("#tooltip")


def source_refs(parsed):
    """Every (path, line, text) the parser recorded anywhere in a parsed structure."""
    refs, stack = set(), [parsed]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("line"), int) and "text" in item:
                refs.add((item["line"], item["text"]))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return refs


def test_every_block_traces_to_parsed_lines(open_page, fa3):
    """Faithfulness: every block of the FA3 page carries source lines, all of them lines the parser
    recorded (the Q hand-off included: barrier_Q.arrive_and_expect_tx / barrier_Q.wait)."""
    page = open_page(FA3_PAGE.as_uri())
    known = source_refs(fa3)
    blocks = kv(page, "kv.blocks()")
    unknown = [(b["kind"], ref["line"]) for b in blocks for ref in b["lines"] if (ref["line"], ref["text"]) not in known]
    assert unknown == []
    assert [(b["kind"], b["lane"]) for b in blocks if not b["lines"]] == []
    q_full = next(b for b in blocks if b["kind"] == "full" and b["lane"] == "q_stage0")
    assert {ref["op"] for ref in q_full["lines"]} == {"barrier_wait"}


def test_block_without_parsed_lines_says_so(open_page, fa3, tmp_path):
    """Without the barrier_Q waits (as if the parser had missed them) the Q blocks have no line, and
    their tooltip says so instead of showing nothing."""
    stripped = json.loads(json.dumps(fa3))
    for fn in stripped["functions"]:
        fn["ops"] = [op for op in fn["ops"] if op["op"] != "barrier_wait"]
    out = tmp_path / "fa3_no_q_wait.html"
    pagekit.write_atomic(out, rw.render(stripped, {"intraWGOverlap": True, "interWGPingpong": True}))
    page = open_page(out.as_uri())
    blocks = kv(page, "kv.blocks()")
    lineless = [b for b in blocks if not b["lines"]]
    assert lineless and {(b["kind"], b["lane"]) for b in lineless} <= {("full", "q_stage0"), ("wait", "consumer0"), ("wait", "consumer1")}
    centre = kv(page, f"kv.blockCenter({lineless[0]['id']})")
    page.mouse.click(centre["x"], centre["y"])
    assert "no parsed source line" in page.inner_text("#details")


def test_click_follows_one_kv_block(open_page):
    # An FP8 build: Transpose_V, so V goes through Vt and the load warp's transpose.
    page = open_page(FA3_PAGE.as_uri() + "#dtype=fp8")
    assert kv(page, "kv.state.knobs.transposeV") is True
    block, centre = find_block(page, "gemm0", tile=1, k=2)
    page.mouse.click(centre["x"], centre["y"])
    blocks = kv(page, "kv.blocks()")
    expected = sorted(b["id"] for b in blocks if b["tile"] == 1 and b["k"] == 2 and b["kind"] in KV_CHAIN_KINDS)
    highlighted = kv(page, "kv.highlighted()")
    assert highlighted == expected
    chain = [b for b in blocks if b["id"] in highlighted]
    # K issue -> fill -> full -> GEMM0 -> softmax, V (through Vt and the transpose) -> GEMM1, on both WGs.
    assert {(b["kind"], b["operand"]) for b in chain if b["operand"]} >= {
        ("issue", "K"), ("filling", "K"), ("full", "K"), ("issue", "Vt"), ("filling", "Vt"), ("transpose", "V"), ("full", "V")}
    for kind in ("gemm0", "softmax", "gemm1"):
        assert len([b for b in chain if b["kind"] == kind]) == 2, kind
    # On each WG the block's math runs in order: GEMM0, then softmax and GEMM1.
    for wg in ("consumer0", "consumer1"):
        of = {b["kind"]: b for b in chain if b["lane"].startswith(wg)}
        assert of["gemm0"]["end"] <= of["softmax"]["start"] and of["gemm0"]["end"] <= of["gemm1"]["start"], wg
    # Each fill started when its own issue ended (`after`), so the arrows drawn stay inside the chain.
    by_id = {b["id"]: b for b in blocks}
    for fill in (b for b in chain if b["kind"] == "filling"):
        assert [by_id[a]["kind"] for a in fill["after"]] == ["issue"] and fill["after"][0] in highlighted
    info = page.inner_text("#chain-info")
    assert "Following KV block 1.2" in info and "K released at" in info and "V released at" in info
    assert "follow=1.2" in kv(page, "kv.writeHashNow()")
    page.mouse.move(1, 1)  # off the canvas: the tooltip hides, the highlighted chain stays
    flush(page)
    assert kv(page, "kv.highlighted()") == expected
    page.screenshot(path=str(browser_util.artifact_path("attention_follow.png")), full_page=True)
    page.keyboard.press("Escape")
    assert kv(page, "kv.highlighted()") == []


def test_model_selector_switches_to_gemm_and_back(open_page):
    page = open_page(FA3_PAGE.as_uri())
    attention_knobs = kv(page, "kv.state.knobs")
    page.focus("#knob-model")
    page.select_option("#knob-model", "gemm")
    flush(page)
    # The GEMM model's starting knobs for this structure (schedule.js knobsFor: FA3's kernel layer
    # has no pingpong / cooperative tag, so one consumer WG, as the CLI and exports start).
    knobs = kv(page, "kv.state.knobs")
    defaults = kv(page, "Object.fromEntries(KernelSchedule.knobsFor('gemm', KVWave.withPrograms(JSON.parse(document.getElementById('model').textContent).parsed, window.KV_PROGRAMS)).map(s => [s.name, s.default]).concat([['model', 'gemm']]))")
    assert knobs == defaults
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert "stage0" in lanes and not any(l.startswith(("k_stage", "v_stage")) for l in lanes)
    assert {"wgmma"} <= set(kv(page, "kv.blocks().map(b => b.kind)"))
    assert page.query_selector("#knob-kTiles") is not None and page.query_selector("#knob-kvBlocks") is None
    legend = page.inner_text("#legend")
    assert "WGMMA" in legend and "G0" not in legend
    assert "Min stages to hide TMA" in page.inner_text("#verdict")
    assert kv(page, "kv.writeHashNow()").startswith("#model=gemm&stages=4&")
    page.select_option("#knob-model", "attention")
    flush(page)
    # Back on the page's own model: its starting knobs (the embedded ones), not stale GEMM ones.
    assert kv(page, "kv.state.knobs") == attention_knobs
    assert "Softmax exposed" in page.inner_text("#verdict")


def test_attention_hash_round_trip(open_page):
    page = open_page(FA3_PAGE.as_uri())
    page.evaluate(
        """() => { const s = document.getElementById('knob-kvBlocks'); s.value = '4';
                   s.dispatchEvent(new Event('input', {bubbles: true})); }"""
    )
    toggle(page, "intraWGOverlap")
    page.evaluate("window.__kv.setKnobs({gemm1Latency: 3, softmaxLatency: 5, headDim: 96})")
    flush(page)
    page.focus("#wave")
    page.keyboard.press("+")
    block, centre = find_block(page, "softmax", k=1)
    page.mouse.click(centre["x"], centre["y"])
    flush(page)
    hash_text = kv(page, "kv.writeHashNow()")
    assert hash_text.startswith("#model=attention&")
    for part in ("kv-blocks=4", "gemm1=3", "softmax=5", "intra-overlap=off", "headdim=96", "dtype=bf16", "follow=", "t0="):
        assert part in hash_text, part
    # Derived knobs are not written: the hash holds what a user sets.
    assert "k-tiles=" not in hash_text and "schedule=" not in hash_text and "inter-pingpong" not in hash_text
    state = kv(page, "({knobs: kv.state.knobs, view: kv.state.view, follow: kv.state.follow, hl: kv.highlighted()})")
    again = open_page(FA3_PAGE.as_uri() + hash_text)
    restored = kv(again, "({knobs: kv.state.knobs, view: kv.state.view, follow: kv.state.follow, hl: kv.highlighted()})")
    assert restored["knobs"] == state["knobs"]
    assert restored["view"]["t0Step"] == pytest.approx(state["view"]["t0Step"], abs=1e-3)
    assert restored["follow"] == state["follow"] and restored["hl"] == state["hl"]
    assert kv(again, "kv.hash()") == hash_text[1:]
    assert again.is_hidden("#messages")
    # The FA3 page opened with #model=gemm is a GEMM page.
    gemm = open_page(FA3_PAGE.as_uri() + "#model=gemm&k-tiles=3")
    assert kv(gemm, "[kv.state.knobs.model, kv.state.knobs.kTiles]") == ["gemm", 3]


def test_bad_attention_hash_is_clamped_or_refused(open_page):
    garbage = "#model=attention&kv-blocks=0&gemm0=1e9&intra-overlap=maybe&inter-pingpong=YES&k-tiles=5&schedule=pingpong"
    page = open_page(FA3_PAGE.as_uri() + garbage)
    knobs = kv(page, "kv.state.knobs")
    ranges = kv(page, "KernelSchedule.ATTENTION_KNOB_RANGES")
    assert knobs["kvBlocks"] == ranges["kvBlocks"]["min"]
    assert knobs["gemm0Latency"] == ranges["gemm0Latency"]["max"]
    assert knobs["intraWGOverlap"] is True  # refused: the page's starting value stays
    assert knobs["interWGPingpong"] is True
    messages = page.inner_text("#messages")
    for key in ("kv-blocks=0", "gemm0=1e9", "intra-overlap=maybe", "k-tiles=5 (not a knob of the attention model)", "schedule=pingpong"):
        assert key in messages, key
    bad_model = open_page(FA3_PAGE.as_uri() + "#model=flash")
    assert kv(bad_model, "kv.state.knobs.model") == "attention"
    assert "model=flash" in bad_model.inner_text("#messages")


def test_fmha88_page_draws_the_shared_kv_ring(open_page, cutlass, tmp_path):
    parsed = parse_cutlass.parse_file(cutlass(FMHA_COLLECTIVE))
    assert node_util.fit_model(parsed) == "attention"
    out = tmp_path / "fmha88_waveform.html"
    pagekit.write_atomic(out, rw.render(parsed, {"stages": 4, "intraWGOverlap": True, "interWGPingpong": True}))
    page = open_page(out.as_uri())
    assert kv(page, "kv.state.knobs.model") == "attention"
    lanes = kv(page, "kv.state.lanes.map(l => l.id)")
    assert [l for l in lanes if l.startswith("kv_stage")] == [f"kv_stage{s}" for s in range(4)]
    assert not any(l.startswith(("k_stage", "v_stage", "vt_stage")) for l in lanes)
    operands = set(kv(page, "kv.blocks().filter(b => b.lane.startsWith('kv_stage')).map(b => b.operand)"))
    assert operands == {"K", "V"}
    assert "T o.j" not in page.inner_text("#legend")  # no Vt pipeline, no transpose
    assert page.is_hidden("#error")
    page.screenshot(path=str(browser_util.artifact_path("attention_fmha88.png")), full_page=True)
    # One shared stage cannot hold K[j+1] and V[j] at once with intra-WG overlap: the engine shows
    # the deadlock in the verdict box, naming the waiting roles and the barrier.
    page.evaluate("window.__kv.setKnobs({stages: 1})")
    flush(page)
    assert kv(page, "kv.state.knobs.stages") == 1
    verdict = page.inner_text("#verdict")
    assert "Deadlock after step" in verdict and "producer waits on MainloopPipeline.empty[0]" in verdict
    assert page.get_attribute("#verdict", "data-state") == "deadlock"
