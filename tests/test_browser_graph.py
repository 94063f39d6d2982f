"""The graph page in headless Chromium (Debian's /usr/bin/chromium via playwright), opened from file://."""

import json
from pathlib import Path

import pytest

import browser_util
import pagekit
import parse_cutlass
import render_html

FA3_LIKE = Path(__file__).resolve().parent / "fixtures" / "fa3_like_mainloop.hpp"
READY = "window.KVGraph && KVGraph.state.ready"
HOSTILE = "<b id=\"inj\">bold</b> & </div>"


def canonical_model():
    """The bundled canonical GEMM (pingpong) parse, with one statement text made hostile."""
    model = json.loads(pagekit.asset_path("examples/sm90_gemm_pingpong.json").read_text(encoding="utf-8"))
    for fn in model["functions"]:
        for op in fn["ops"]:
            if op["op"] == "mma" and op["line"] == 496:
                op["text"] = op["text"] + " // " + HOSTILE
    return model


def write_page(tmp_path, name, model):
    path = tmp_path / f"{name}.html"
    pagekit.write_atomic(path, render_html.render(model))
    return path.as_uri()


def open_page(browser, url, scheme="light", viewport=(1280, 800)):
    return browser_util.new_page(browser, url, color_scheme=scheme, viewport=viewport, ready_js=READY)


BOXES_JS = """() => {
  const out = {};
  document.querySelectorAll('.kg-node').forEach(g => {
    const r = g.querySelector('rect').getBoundingClientRect();
    out[g.dataset.id] = {x: r.left, y: r.top, w: r.width, h: r.height};
  });
  const s = document.getElementById('graph').getBoundingClientRect();
  return {nodes: out, svg: {x: s.left, y: s.top, w: s.width, h: s.height},
          win: {w: window.innerWidth, h: window.innerHeight}};
}"""


def center(page, node_id):
    box = page.locator(f'.kg-node[data-id="{node_id}"] rect').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def assert_fit(page):
    geo = page.evaluate(BOXES_JS)
    svg, win = geo["svg"], geo["win"]
    assert geo["nodes"], "no nodes drawn"
    for nid, b in geo["nodes"].items():
        assert b["x"] >= svg["x"] - 0.5 and b["y"] >= svg["y"] - 0.5, (nid, b, svg)
        assert b["x"] + b["w"] <= svg["x"] + svg["w"] + 0.5 and b["y"] + b["h"] <= svg["y"] + svg["h"] + 0.5, (nid, b, svg)
        assert b["x"] + b["w"] <= win["w"] and b["y"] + b["h"] <= win["h"], (nid, b, win)
    ids = sorted(geo["nodes"])
    for i, a in enumerate(ids):
        for c in ids[i + 1:]:
            A, B = geo["nodes"][a], geo["nodes"][c]
            assert not (A["x"] < B["x"] + B["w"] and B["x"] < A["x"] + A["w"]
                        and A["y"] < B["y"] + B["h"] and B["y"] < A["y"] + A["h"]), (a, c)
    return geo


def test_canonical_page(browser, tmp_path):
    url = write_page(tmp_path, "gemm_graph", canonical_model())
    context, page, watch = open_page(browser, url)
    try:
        geo = assert_fit(page)
        assert len(geo["nodes"]) == 14
        # Readable without dragging: fit keeps the canonical GEMM at 75% or more.
        assert page.evaluate("KVGraph.state.view.scale") >= 0.75
        # Node text stays inside its box (the layout's width estimate holds for the real font).
        overflow = page.evaluate("""() => [...document.querySelectorAll('.kg-node')].filter(g => {
            const r = g.querySelector('rect').getBBox();
            return [...g.querySelectorAll('text')].some(t => { const b = t.getBBox();
              return b.x < r.x || b.x + b.width > r.x + r.width || b.y < r.y || b.y + b.height > r.y + r.height; });
          }).map(g => g.dataset.id)""")
        assert overflow == []

        # Hover: the source lines with their statement text.
        x, y = center(page, "load:A")
        page.mouse.move(x, y)
        tip = page.locator("#tooltip")
        tip.wait_for(state="visible")
        text = tip.inner_text()
        assert "TMA load A" in text
        assert "sm90_mma_tma_gmma_ss_warpspecialized.hpp:384" in text
        assert "copy(mainloop_params.tma_load_a.with(*tma_barrier, mcast_mask_a)" in text

        # Parsed text is inserted as text: the hostile markup shows verbatim and creates no element.
        x, y = center(page, "mma:tiled_mma")
        page.mouse.move(x, y)
        tip.wait_for(state="visible")
        assert HOSTILE in tip.inner_text()
        assert page.evaluate("document.getElementById('inj') === null")

        # Hovering an edge shows its lines too.
        page.mouse.move(5, 5)
        page.dispatch_event('.kg-edge[data-id="empty:empty:MainloopPipeline->op:producer:producer_acquire:MainloopPipeline"] path.kg-hit', "mouseenter")
        tip.wait_for(state="visible")
        assert "pipeline.producer_acquire(smem_pipe_write);" in tip.inner_text()
        page.dispatch_event('.kg-edge[data-id="empty:empty:MainloopPipeline->op:producer:producer_acquire:MainloopPipeline"]', "mouseleave")

        # Click: the node and its neighbours stay, everything else dims; Escape clears.
        x, y = center(page, "mma:tiled_mma")
        page.mouse.click(x, y)
        state = page.evaluate("""() => ({
            selected: [...document.querySelectorAll('.kg-node.kg-selected')].map(g => g.dataset.id),
            neighbours: [...document.querySelectorAll('.kg-node.kg-neighbour')].map(g => g.dataset.id).sort(),
            dimmed: document.querySelectorAll('.kg-node.kg-dim').length,
            lit: document.querySelectorAll('.kg-edge.kg-lit').length,
            details: document.getElementById('details').innerText})""")
        assert state["selected"] == ["mma:tiled_mma"]
        assert state["neighbours"] == ["acc:accum", "op:consumer:consumer_release:MainloopPipeline",
                                       "op:consumer:consumer_wait:MainloopPipeline", "smem:smem_A", "smem:smem_B"]
        assert state["dimmed"] == 14 - 1 - 5 and state["lit"] == 5
        assert "cute::gemm(tiled_mma" in state["details"]
        page.keyboard.press("Escape")
        assert page.evaluate("document.querySelectorAll('.kg-dim, .kg-selected, .kg-neighbour').length") == 0

        # Zoom (button, key, wheel), pan (drag) and fit.
        before = page.evaluate("KVGraph.state.view.scale")
        page.click("#btn-zoom-in")
        assert page.evaluate("KVGraph.state.view.scale") > before
        page.keyboard.press("-")
        page.keyboard.press("-")
        assert page.evaluate("KVGraph.state.view.scale") < before
        page.mouse.move(640, 500)
        view = page.evaluate("KVGraph.state.view")
        page.mouse.wheel(0, -300)
        # Wheel events arrive asynchronously: wait for the zoom (the timeout only catches hangs).
        page.wait_for_function(f"KVGraph.state.view.scale > {view['scale']}")
        zoomed = page.evaluate("KVGraph.state.view")
        # The drawing point under the mouse stays under it.
        box = page.locator("#graph").bounding_box()
        px, py = 640 - box["x"], 500 - box["y"]
        for axis, p in (("tx", px), ("ty", py)):
            assert (p - zoomed[axis]) / zoomed["scale"] == pytest.approx((p - view[axis]) / view["scale"], abs=1e-6)
        page.mouse.move(300, 300)
        page.mouse.down()
        page.mouse.move(380, 340, steps=4)
        page.mouse.up()
        moved = page.evaluate("KVGraph.state.view")
        assert abs(moved["tx"] - zoomed["tx"] - 80) < 1 and abs(moved["ty"] - zoomed["ty"] - 40) < 1
        assert page.evaluate("document.querySelectorAll('.kg-dim').length") == 0  # a drag is not a click
        page.click("#btn-fit")
        assert_fit(page)
        fitted = page.evaluate("KVGraph.state.view")
        page.keyboard.press("+")
        assert page.evaluate("KVGraph.state.view.scale") > fitted["scale"]
        page.keyboard.press("Shift+F")
        assert page.evaluate("KVGraph.state.view") == fitted

        page.screenshot(path=str(browser_util.artifact_path("graph_canonical_light.png")))
        assert watch.problems() == []
        assert all(u.startswith("file://") for u in watch.requests)
    finally:
        context.close()


def test_canonical_page_dark(browser, tmp_path):
    url = write_page(tmp_path, "gemm_graph_dark", canonical_model())
    context, page, watch = open_page(browser, url, scheme="dark")
    try:
        assert_fit(page)
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert bg == "rgb(20, 23, 29)"  # theme.css --bg (dark), shared with the waveform page
        page.screenshot(path=str(browser_util.artifact_path("graph_canonical_dark.png")))
        assert watch.problems() == []
    finally:
        context.close()


def test_fa3_like_page(browser, tmp_path):
    model = parse_cutlass.parse_file(FA3_LIKE)
    url = write_page(tmp_path, "fa3_like_graph", model)
    context, page, watch = open_page(browser, url, viewport=(1400, 1000))
    try:
        assert_fit(page)
        titles = page.evaluate("[...document.querySelectorAll('.kg-cluster-pipeline .kg-cluster-title')].map(t => t.textContent)")
        assert sorted(titles) == ["MainloopPipelineK", "MainloopPipelineV", "MainloopPipelineVt", "barrier_Q"]
        # The three pipelines' signal edges use three different colours.
        colours = []
        for pipe, zone in (("MainloopPipelineK", "consumer"), ("MainloopPipelineV", "consumer"),
                           ("MainloopPipelineVt", "producer")):
            sel = f'.kg-edge[data-id="full:full:{pipe}->op:{zone}:consumer_wait:{pipe}"] path.kg-line'
            colours.append(page.eval_on_selector(sel, "el => getComputedStyle(el).stroke"))
        assert len(set(colours)) == 3, colours
        x, y = center(page, "op:producer:consumer_wait:MainloopPipelineVt")
        page.mouse.move(x, y)
        page.locator("#tooltip").wait_for(state="visible")
        assert "pipeline_vt.consumer_wait(smem_pipe_read);" in page.locator("#tooltip").inner_text()
        page.screenshot(path=str(browser_util.artifact_path("graph_fa3_like_light.png")))
        assert watch.problems() == []
    finally:
        context.close()
