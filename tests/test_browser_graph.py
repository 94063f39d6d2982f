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


# ---- Issue 12: the graph page's defects, each reproduced with real input --------------------

def example_model(name):
    return json.loads(pagekit.asset_path(f"examples/{name}.json").read_text(encoding="utf-8"))


RECTS_JS = """sel => [...document.querySelectorAll(sel)].map(e => {
  const r = (e.querySelector('rect') || e).getBoundingClientRect();
  return {id: e.dataset.id || e.id, x: r.left, y: r.top, w: r.width, h: r.height};
})"""


def rect_of(page, selector):
    rects = page.evaluate(RECTS_JS, selector)
    assert len(rects) == 1, (selector, rects)
    return rects[0]


def overlaps(a, b):
    return a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


def inside(inner, outer, slack=0.5):
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + slack
            and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + slack)


def test_fa3_every_parsed_buffer_is_drawn_once_in_its_pipeline(browser, tmp_path):
    model = example_model("fa3_fwd")
    url = write_page(tmp_path, "fa3_graph", model)
    context, page, watch = open_page(browser, url, viewport=(1600, 1000))
    try:
        drawn = page.evaluate("[...document.querySelectorAll('.kg-node.kg-kind-smem')].map(g => g.dataset.id)")
        assert sorted(drawn) == sorted({f"smem:{b['name']}" for b in model["buffers"]})
        # smem_vt (line 342) sits inside the MainloopPipelineVt group, with the Vt barriers.
        group = rect_of(page, '.kg-cluster[data-id="cluster:pipe:MainloopPipelineVt"]')
        for node in ("smem:smem_vt", "full:MainloopPipelineVt", "empty:MainloopPipelineVt"):
            assert inside(rect_of(page, f'.kg-node[data-id="{node}"]'), group), node
        assert watch.problems() == []
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [(1600, 1000), (1024, 768)])
def test_clicked_node_details_are_visible_persistent_and_copyable(browser, tmp_path, viewport):
    url = write_page(tmp_path, "gemm_details", canonical_model())
    context, page, watch = open_page(browser, url, viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        x, y = center(page, "mma:tiled_mma")
        page.mouse.click(x, y)
        panel = page.locator("#details")
        heading = rect_of(page, "#details h2")
        win = page.evaluate("({x: 0, y: 0, w: window.innerWidth, h: window.innerHeight})")
        # Visible where the user is looking: inside the window without scrolling (the wheel
        # zooms the graph, so the page cannot be scrolled to it).
        assert inside(heading, win), (heading, win)
        assert page.evaluate("window.scrollY") == 0
        assert "cute::gemm(tiled_mma" in panel.inner_text()
        # Persistent: hovering elsewhere and moving away keeps it.
        lx, ly = center(page, "load:A")
        page.mouse.move(lx, ly)
        page.mouse.move(2, 2)
        assert "cute::gemm(tiled_mma" in panel.inner_text()
        # Copyable: selectable text, and a Copy button that puts the details on the clipboard.
        assert page.evaluate("getComputedStyle(document.querySelector('#details code')).userSelect") != "none"
        page.click("#details-copy")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert "cute::gemm(tiled_mma" in copied and "sm90_mma_tma_gmma_ss_warpspecialized.hpp:" in copied
        assert watch.problems() == []
    finally:
        context.close()


def test_tooltip_never_covers_the_highlighted_neighbours_and_follows_the_pointer(browser, tmp_path):
    url = write_page(tmp_path, "gemm_tip", canonical_model())
    context, page, watch = open_page(browser, url, viewport=(1280, 800))
    try:
        ids = page.evaluate("[...document.querySelectorAll('.kg-node')].map(g => g.dataset.id)")
        covered = []
        for node in ids:
            x, y = center(page, node)
            page.mouse.click(x, y)
            # The click closed the tooltip; leaving and hovering again reopens it.
            page.mouse.move(2, 2)
            page.mouse.move(x + 1, y + 1)
            tip = page.evaluate(RECTS_JS, "#tooltip")[0]
            if page.evaluate("document.getElementById('tooltip').hidden"):
                continue
            for other in page.evaluate(RECTS_JS, ".kg-node.kg-neighbour, .kg-node.kg-selected"):
                if other["id"] != node and overlaps(tip, other):
                    covered.append((node, other["id"]))
        assert covered == []
        # The tooltip follows the pointer inside a node.
        x, y = center(page, "load:A")
        page.keyboard.press("Escape")
        page.mouse.move(x - 10, y)
        first = rect_of(page, "#tooltip")
        page.mouse.move(x + 10, y + 3)
        second = rect_of(page, "#tooltip")
        assert (second["x"] - first["x"], second["y"] - first["y"]) == (20, 3)
        assert watch.problems() == []
    finally:
        context.close()


def test_question_mark_opens_a_help_overlay_and_escape_closes_it_before_clearing(browser, tmp_path):
    url = write_page(tmp_path, "gemm_help", canonical_model())
    context, page, watch = open_page(browser, url, viewport=(1024, 768))
    try:
        x, y = center(page, "mma:tiled_mma")
        page.mouse.click(x, y)
        page.keyboard.press("?")
        overlay = page.locator("#kc-help")
        overlay.wait_for(state="visible")
        box = rect_of(page, "#kc-help .kc-help-box")
        assert inside(box, {"x": 0, "y": 0, "w": 1024, "h": 768})
        # On top: the element at the overlay's centre belongs to it.
        assert page.evaluate(f"document.getElementById('kc-help').contains(document.elementFromPoint({box['x'] + box['w'] / 2}, {box['y'] + box['h'] / 2}))")
        text = overlay.inner_text()
        for key in ("Escape", "?", "+", "f"):
            assert key in text
        # Escape closes the overlay first and keeps the selection; the next Escape clears it.
        page.keyboard.press("Escape")
        overlay.wait_for(state="hidden")
        assert page.evaluate("document.querySelectorAll('.kg-selected').length") == 1
        page.keyboard.press("Escape")
        assert page.evaluate("document.querySelectorAll('.kg-selected, .kg-dim').length") == 0
        assert watch.problems() == []
    finally:
        context.close()


def test_sm100_page_draws_tmem_between_the_mma_warp_and_the_epilogue(browser, tmp_path):
    """Issue 13 on the graph page, from the hand-written CONTRACT-shaped SM100 structure."""
    model = json.loads((Path(__file__).resolve().parent / "fixtures" / "sm100_gemm_structure.json").read_text())
    url = write_page(tmp_path, "sm100_graph", model)
    context, page, watch = open_page(browser, url, viewport=(1600, 1000))
    try:
        assert_fit(page)
        mma, tmem, epi = (rect_of(page, f'.kg-node[data-id="{n}"]')
                          for n in ("mma:tiled_mma", "tmem:AccumulatorPipeline", "epilogue"))
        assert mma["x"] + mma["w"] < tmem["x"] and tmem["x"] + tmem["w"] < epi["x"]
        titles = page.evaluate("[...document.querySelectorAll('.kg-cluster-zone .kg-cluster-title')].map(t => t.textContent)")
        assert {"MMA warp (warp 0)", "Tensor memory", "Epilogue warps (warps 4+)", "Sched warp (warp 1)"} <= set(titles)
        page.mouse.move(tmem["x"] + tmem["w"] / 2, tmem["y"] + tmem["h"] / 2)
        page.locator("#tooltip").wait_for(state="visible")
        assert "sm100_gemm_tma_warpspecialized.hpp:169" in page.locator("#tooltip").inner_text()
        page.screenshot(path=str(browser_util.artifact_path("graph_sm100_light.png")))
        assert watch.problems() == []
    finally:
        context.close()


CONTRAST_JS = """() => {
  const lum = c => { const v = c.match(/[\\d.]+/g).slice(0, 3).map(x => { x = x / 255;
    return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const out = [];
  document.querySelectorAll('.kg-node').forEach(g => {
    const rect = getComputedStyle(g.querySelector('rect')).fill;
    const bg = rect.startsWith('rgb') ? rect : getComputedStyle(document.body).backgroundColor;
    g.querySelectorAll('text').forEach(t => {
      const a = lum(bg), b = lum(getComputedStyle(t).fill);
      out.push([g.dataset.id, t.textContent, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]);
    });
  });
  return out;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_node_label_has_4_5_to_1_contrast(browser, tmp_path, scheme):
    """Issue 12: labels on the epilogue (green) and buffer (blue) fills were below 4.5:1."""
    for name, model in (("gemm", canonical_model()),
                        ("sm100", json.loads((Path(__file__).resolve().parent / "fixtures" / "sm100_gemm_structure.json").read_text()))):
        url = write_page(tmp_path, f"{name}_contrast_{scheme}", model)
        context, page, watch = open_page(browser, url, scheme=scheme)
        try:
            low = [(node, text, round(ratio, 2)) for node, text, ratio in page.evaluate(CONTRAST_JS) if ratio < 4.5]
            assert low == [], (name, scheme)
            assert watch.problems() == []
        finally:
            context.close()


# ---- Issue 23 part 6: tooltips clear of what the click highlights; a click closes them; SM100 and FA3 --

HIGHLIGHT_PAGES = {
    "gemm": (canonical_model, (1280, 800)),
    "sm100": (lambda: example_model("sm100_gemm"), (1600, 1000)),
    "fa3": (lambda: example_model("fa3_fwd"), (1600, 1000)),
}


def click_highlight(graph, node_id):
    """The node ids a click on node_id highlights (it and the other ends of its edges)."""
    out = {node_id}
    for e in graph["edges"]:
        if node_id in (e["source"], e["target"]):
            out |= {e["source"], e["target"]}
    return out


def tip_rect(page):
    """The tooltip's client rectangle, or None when it is hidden."""
    if page.evaluate("document.getElementById('tooltip').hidden"):
        return None
    return page.evaluate(RECTS_JS, "#tooltip")[0]


@pytest.mark.parametrize("name", sorted(HIGHLIGHT_PAGES))
def test_hover_tooltip_never_covers_what_the_click_highlights_and_the_click_closes_it(browser, tmp_path, name):
    """Hover each node (with the previous click's selection still lit), then click it without
    moving: the tooltip placed at hover covers neither the lit nodes nor the node and neighbours
    the click lights, and the click closes it."""
    make, viewport = HIGHLIGHT_PAGES[name]
    model = make()
    url = write_page(tmp_path, f"{name}_tip_click", model)
    graph = render_html.build_graph(model)
    context, page, watch = open_page(browser, url, viewport=viewport)
    try:
        rects = {r["id"]: r for r in page.evaluate(RECTS_JS, ".kg-node")}
        covered, shown, still_open = [], 0, []
        for node in sorted(rects):
            x, y = center(page, node)
            page.mouse.move(x, y)
            lit = {r["id"] for r in page.evaluate(RECTS_JS, ".kg-node.kg-selected, .kg-node.kg-neighbour")}
            tip = tip_rect(page)
            if tip is not None:
                shown += 1
                covered += [(node, other) for other in sorted(lit | click_highlight(graph, node))
                            if overlaps(tip, rects[other])]
            page.mouse.down()
            page.mouse.up()
            assert page.evaluate("[...document.querySelectorAll('.kg-node.kg-selected')].map(g => g.dataset.id)") == [node]
            if tip_rect(page) is not None:
                still_open.append(node)
        assert covered == []
        assert still_open == []
        # Not by hiding: the tooltip is shown over most nodes.
        assert shown >= 0.8 * len(rects), (shown, len(rects))
        assert watch.problems() == []
    finally:
        context.close()


EDGE_POINT_JS = """id => {
  const path = document.querySelector(`.kg-edge[data-id="${id}"] path.kg-hit`);
  const p = path.getPointAtLength(path.getTotalLength() / 2).matrixTransform(path.getScreenCTM());
  return [p.x, p.y];
}"""


def test_a_click_on_an_edge_closes_its_tooltip(browser, tmp_path):
    url = write_page(tmp_path, "gemm_edge_click", canonical_model())
    context, page, watch = open_page(browser, url)
    try:
        x, y = page.evaluate(EDGE_POINT_JS, "data:smem:smem_A->mma:tiled_mma")
        page.mouse.move(x, y)
        page.locator("#tooltip").wait_for(state="visible")
        assert "MMA reads smem_A" in page.inner_text("#tooltip")
        page.mouse.click(x, y)
        assert tip_rect(page) is None
        assert watch.problems() == []
    finally:
        context.close()


def test_sm100_example_page_mma_warp_zone_and_accumulator_barriers(browser, tmp_path):
    """The real SM100 parse: the UMMA and its waits sit in the MMA warp's zone, not the load
    warp's; the TMEM group holds the accumulator's full and empty barriers."""
    url = write_page(tmp_path, "sm100_example_graph", example_model("sm100_gemm"))
    context, page, watch = open_page(browser, url, viewport=(1600, 1000))
    try:
        assert_fit(page)
        zone_of = {r["id"]: r for r in page.evaluate(RECTS_JS, ".kg-cluster")}
        mma_zone, load_zone = zone_of["cluster:consumer"], zone_of["cluster:producer"]
        assert page.text_content('.kg-cluster[data-id="cluster:consumer"] .kg-cluster-title') == "MMA warp (warp 0)"
        for node in ("mma:tiled_mma", "op:consumer:consumer_wait:MainloopPipeline",
                     "op:consumer:producer_acquire:AccumulatorPipeline"):
            box = rect_of(page, f'.kg-node[data-id="{node}"]')
            assert inside(box, mma_zone) and not overlaps(box, load_zone), node
        group = zone_of["cluster:pipe:AccumulatorPipeline"]
        for node in ("full:AccumulatorPipeline", "tmem:AccumulatorPipeline", "empty:AccumulatorPipeline"):
            assert inside(rect_of(page, f'.kg-node[data-id="{node}"]'), group), node
        assert "commit / wait not parsed" in page.text_content('.kg-node[data-id="full:AccumulatorPipeline"]')
        assert "epilogue collective" in page.inner_text("#notes")
        page.screenshot(path=str(browser_util.artifact_path("graph_sm100_example_light.png")))
        assert watch.problems() == []
    finally:
        context.close()


def test_fa3_page_draws_the_epilogue_and_no_missing_epilogue_note(browser, tmp_path):
    model = example_model("fa3_fwd")
    url = write_page(tmp_path, "fa3_epilogue", model)
    context, page, watch = open_page(browser, url, viewport=(1600, 1000))
    try:
        epi = page.locator('.kg-node[data-id="epilogue"]')
        assert epi.count() == 1 and "epilogue.store" in epi.text_content()
        assert page.locator('.kg-edge[data-id="data:acc:tOrO->epilogue"]').count() == 1
        assert page.evaluate("document.getElementById('notes').hidden")
        x, y = center(page, "epilogue")
        page.mouse.move(x, y)
        page.locator("#tooltip").wait_for(state="visible")
        stores = [c for c in model["kernel_layer"]["calls"] if c["call"] == "store"]
        assert f"flash_fwd_kernel_sm90.h:{stores[0]['line']}" in page.inner_text("#tooltip")
        assert watch.problems() == []
    finally:
        context.close()
