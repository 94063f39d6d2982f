"""build_graph / layout_graph on the installed nvidia-cutlass 4.2.0.0 headers and an FA3-shaped fixture."""

import json
from pathlib import Path

import pytest

import pagekit
import parse_cutlass
import render_html

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
PINGPONG = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"
COOPERATIVE = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp"
MULTISTAGE = "include/cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp"
FMHA = "examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp"
FA3_LIKE = FIXTURES / "fa3_like_mainloop.hpp"
PIPE = "MainloopPipeline"


# ---- helpers -------------------------------------------------------------------------------

def graph_of(path, kernel=None):
    """(parsed model, graph) of one header."""
    model = parse_cutlass.parse_file(path, kernel)
    return model, render_html.build_graph(model)


def nodes_by_id(graph):
    return {n["id"]: n for n in graph["nodes"]}


def edge(graph, kind, source, target):
    """The edge kind:source->target (fails with the list of edges when absent)."""
    for e in graph["edges"]:
        if (e["kind"], e["source"], e["target"]) == (kind, source, target):
            return e
    raise AssertionError(f"no {kind} edge {source} -> {target}; edges: {[e['id'] for e in graph['edges']]}")


def lines(item, path_end=None):
    """Line numbers of a node/edge/cluster (optionally only those in a file ending with path_end)."""
    return sorted({r["line"] for r in item["lines"] if path_end is None or r["path"].endswith(path_end)})


def cluster(graph, cid):
    for c in graph["clusters"]:
        if c["id"] == cid:
            return c
    raise AssertionError(f"no cluster {cid}: {[c['id'] for c in graph['clusters']]}")


def inside(inner, outer):
    return (inner["x"] >= outer["x"] and inner["y"] >= outer["y"]
            and inner["x"] + inner["w"] <= outer["x"] + outer["w"]
            and inner["y"] + inner["h"] <= outer["y"] + outer["h"])


def segment_hits_box(p, q, box, inset=1.0):
    """True when the axis-parallel segment p-q passes through the box's interior (shrunk by inset)."""
    x0, y0 = box["x"] + inset, box["y"] + inset
    x1, y1 = box["x"] + box["w"] - inset, box["y"] + box["h"] - inset
    if p[0] == q[0]:  # vertical
        lo, hi = sorted((p[1], q[1]))
        return x0 < p[0] < x1 and lo < y1 and hi > y0
    if p[1] == q[1]:  # horizontal
        lo, hi = sorted((p[0], q[0]))
        return y0 < p[1] < y1 and lo < x1 and hi > x0
    raise AssertionError(f"edge segment {p}-{q} is not orthogonal")


def check_geometry(graph, layout):
    """The layout invariants: every node placed, no overlaps, no edge through a box, ends on borders."""
    boxes = layout["nodes"]
    assert set(boxes) == {n["id"] for n in graph["nodes"]}
    ids = sorted(boxes)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            A, B = boxes[a], boxes[b]
            overlap = (A["x"] < B["x"] + B["w"] and B["x"] < A["x"] + A["w"]
                       and A["y"] < B["y"] + B["h"] and B["y"] < A["y"] + A["h"])
            assert not overlap, f"node boxes overlap: {a} {A} and {b} {B}"
    for e in graph["edges"]:
        pts = layout["edges"][e["id"]]["points"]
        assert len(pts) >= 2, e["id"]
        for p, q in zip(pts, pts[1:]):
            for nid, box in boxes.items():
                assert not segment_hits_box(p, q, box), f"edge {e['id']} segment {p}-{q} crosses node {nid} {box}"
        # The polyline starts on the source box's border and ends on the target's.
        for point, nid in ((pts[0], e["source"]), (pts[-1], e["target"])):
            box = boxes[nid]
            on_side = point[0] in (box["x"], round(box["x"] + box["w"], 1))
            assert on_side and box["y"] <= point[1] <= box["y"] + box["h"], (e["id"], nid, point, box)
    # Pipeline groups sit inside the shared-memory zone and hold their nodes; zones hold theirs.
    for c in graph["clusters"]:
        box = layout["clusters"][c["id"]]
        for nid in c["nodes"]:
            assert inside(boxes[nid], box), f"{nid} outside cluster {c['id']}"
        if c.get("parent"):
            assert inside(box, layout["clusters"][c["parent"]]), c["id"]
    zones = [layout["clusters"][c["id"]] for c in graph["clusters"] if c["kind"] == "zone"]
    for i, a in enumerate(zones):
        for b in zones[i + 1:]:
            assert a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"], "zone boxes overlap"


def check_traceable(graph):
    """Every node, edge and cluster carries at least one source line with a path and statement text."""
    for item in graph["nodes"] + graph["edges"] + graph["clusters"]:
        assert item["lines"], f"{item['id']} has no source lines"
        for ref in item["lines"]:
            assert set(ref) >= {"path", "line", "end_line", "op", "text"}, ref
            assert ref["line"] >= 1 and ref["end_line"] >= ref["line"] and ref["text"], (item["id"], ref)


# ---- canonical GEMM mainloop with the pingpong kernel layer -------------------------------

@pytest.fixture(scope="module")
def gemm(cutlass):
    return graph_of(cutlass(MAINLOOP), cutlass(PINGPONG))


def test_gemm_nodes(gemm):
    _model, g = gemm
    nodes = nodes_by_id(g)
    assert {"gmem:A", "gmem:B", "load:A", "load:B", "smem:smem_A", "smem:smem_B", f"full:{PIPE}",
            f"empty:{PIPE}", "mma:tiled_mma", "acc:accum", "epilogue"} <= set(nodes)
    assert nodes["load:A"]["label"] == "TMA load A"
    assert lines(nodes["smem:smem_A"]) == [156] and lines(nodes["smem:smem_B"]) == [157]
    assert nodes["smem:smem_A"]["layouts"] == ["SmemLayoutA"]
    assert nodes["smem:smem_A"]["stages"] == "DispatchPolicy::Stages"
    assert "stages DispatchPolicy::Stages" in nodes["smem:smem_A"]["detail"]
    assert lines(nodes[f"full:{PIPE}"]) == [111] and lines(nodes[f"empty:{PIPE}"]) == [111]
    assert lines(nodes["mma:tiled_mma"]) == [496, 518, 543]
    assert lines(nodes[f"op:producer:producer_acquire:{PIPE}"]) == [374, 407]
    assert lines(nodes[f"op:consumer:consumer_release:{PIPE}"]) == [551, 574]
    # The epilogue comes from the kernel layer's collective_epilogue.store call.
    epi = nodes["epilogue"]
    assert lines(epi, PINGPONG) == [886, 904]
    assert all(r["path"] == PINGPONG for r in epi["lines"])
    assert "collective_epilogue.store(" in epi["lines"][0]["text"]


def test_gemm_data_path(gemm):
    _model, g = gemm
    tma_a = edge(g, "data", "load:A", "smem:smem_A")
    assert lines(tma_a) == [384]
    assert tma_a["lines"][0]["text"].startswith("copy(mainloop_params.tma_load_a.with(")
    assert tma_a["lines"][0]["op"] == "tma_load"
    assert lines(edge(g, "data", "gmem:A", "load:A")) == [384]
    assert lines(edge(g, "data", "load:B", "smem:smem_B")) == [385]
    assert lines(edge(g, "data", "smem:smem_A", "mma:tiled_mma")) == [496, 518, 543]
    assert lines(edge(g, "data", "smem:smem_B", "mma:tiled_mma")) == [496, 518, 543]
    assert lines(edge(g, "data", "mma:tiled_mma", "acc:accum")) == [496, 518, 543]
    to_epi = edge(g, "data", "acc:accum", "epilogue")
    assert lines(to_epi, PINGPONG) == [849, 886]


def test_gemm_barrier_signals(gemm):
    _model, g = gemm
    # producer_acquire (374) <- empty barrier <- consumer_release (551)
    release = edge(g, "empty", f"op:consumer:consumer_release:{PIPE}", f"empty:{PIPE}")
    assert 551 in lines(release) and release["pipeline"] == PIPE
    acquire = edge(g, "empty", f"empty:{PIPE}", f"op:producer:producer_acquire:{PIPE}")
    assert 374 in lines(acquire)
    assert any(r["line"] == 374 and r["text"] == "pipeline.producer_acquire(smem_pipe_write);" for r in acquire["lines"])
    # TMA arrive -> full barrier -> consumer_wait
    arrive = edge(g, "full", "load:A", f"full:{PIPE}")
    assert lines(arrive) == [381, 384]
    wait = edge(g, "full", f"full:{PIPE}", f"op:consumer:consumer_wait:{PIPE}")
    assert lines(wait) == [486, 487, 512, 513, 532, 533]
    # Program order inside each warpgroup.
    assert lines(edge(g, "order", f"op:producer:producer_acquire:{PIPE}", "load:A")) == [374, 384]
    assert 496 in lines(edge(g, "order", f"op:consumer:consumer_wait:{PIPE}", "mma:tiled_mma"))
    assert 551 in lines(edge(g, "order", "mma:tiled_mma", f"op:consumer:consumer_release:{PIPE}"))


def test_gemm_clusters_from_kernel_layer(gemm):
    _model, g = gemm
    prod = cluster(g, "cluster:producer")
    cons = cluster(g, "cluster:consumer")
    assert "Producer" in prod["title"] and "load:A" in prod["nodes"]
    assert cons["title"] == "Consumer warpgroups (pingpong)"
    assert "Consumer0" in cons["subtitle"] and "Consumer1" in cons["subtitle"]
    assert {"mma:tiled_mma", "acc:accum", "epilogue"} <= set(cons["nodes"])
    assert 373 in lines(cons, PINGPONG) and 69 in lines(cons, PINGPONG)
    pipe = cluster(g, f"cluster:pipe:{PIPE}")
    assert pipe["parent"] == "cluster:smem" and pipe["title"] == PIPE
    assert set(pipe["nodes"]) == {f"full:{PIPE}", f"empty:{PIPE}", "smem:smem_A", "smem:smem_B"}
    assert cluster(g, "cluster:global")["nodes"] == ["gmem:A", "gmem:B"]


def test_gemm_traceable_and_layout(gemm):
    _model, g = gemm
    check_traceable(g)
    layout = render_html.layout_graph(g)
    check_geometry(g, layout)
    lay = layout["layers"]
    # Left to right: operand, load, buffer, MMA, accumulator, epilogue.
    chain = ["gmem:A", "load:A", "smem:smem_A", "mma:tiled_mma", "acc:accum", "epilogue"]
    assert [lay[n] for n in chain] == sorted(lay[n] for n in chain) and len({lay[n] for n in chain}) == len(chain)
    # Readable without dragging: the whole drawing fits a 1280px-wide window at >= 75%.
    assert 1240 / layout["width"] >= 0.75, layout["width"]


def test_cooperative_cluster_title(cutlass):
    _model, g = graph_of(cutlass(MAINLOOP), cutlass(COOPERATIVE))
    assert cluster(g, "cluster:consumer")["title"] == "Consumer warpgroups (cooperative)"
    assert "epilogue" in nodes_by_id(g)


def test_no_kernel_layer_means_no_epilogue(cutlass):
    _model, g = graph_of(cutlass(MAINLOOP))
    assert "epilogue" not in nodes_by_id(g)
    assert any("no kernel layer" in n for n in g["notes"])
    prod = cluster(g, "cluster:producer")
    assert prod["title"] == "Producer (load)" and "load" in prod["subtitle"]
    assert 310 in lines(prod)  # the load function's head
    check_traceable(g)


def test_build_is_deterministic(cutlass):
    model = parse_cutlass.parse_file(cutlass(MAINLOOP), cutlass(PINGPONG))
    first = json.dumps(render_html.page_model(model), sort_keys=True)
    again = json.dumps(render_html.page_model(json.loads(json.dumps(model))), sort_keys=True)
    assert first == again


# ---- the multistage cp.async mainloop ------------------------------------------------------

def test_multistage_cp_async(cutlass):
    _model, g = graph_of(cutlass(MULTISTAGE))
    nodes = nodes_by_id(g)
    assert nodes["load:A"]["label"] == "cp.async A"
    assert lines(nodes["load:A"]) == [271, 305]
    assert lines(edge(g, "data", "load:A", "smem:smem_A")) == [271, 305]
    assert lines(nodes["smem:smem_A"]) == [138]
    commit = f"op:producer:producer_commit:{PIPE}"
    # cp.async completes through producer_commit, not through a TMA transaction.
    assert lines(edge(g, "full", commit, f"full:{PIPE}")) == [291, 310]
    assert lines(edge(g, "order", "load:A", commit)) == [271, 291, 305, 310]
    assert not [e for e in g["edges"] if e["kind"] == "full" and e["source"].startswith("load:")]
    assert 475 in lines(edge(g, "empty", f"op:consumer:consumer_release:{PIPE}", f"empty:{PIPE}"))
    assert {263, 301} <= set(lines(edge(g, "empty", f"empty:{PIPE}", f"op:producer:producer_acquire:{PIPE}")))
    check_traceable(g)
    check_geometry(g, render_html.layout_graph(g))


# ---- 88_hopper_fmha: K/V share one pipeline, Q has its own ---------------------------------

def test_fmha_two_pipelines(cutlass):
    _model, g = graph_of(cutlass(FMHA))
    nodes = nodes_by_id(g)
    q = "MainloopPipelineQ"
    assert {f"full:{PIPE}", f"empty:{PIPE}", f"full:{q}", f"empty:{q}"} <= set(nodes)
    assert [p["name"] for p in g["pipelines"]] == [PIPE, q]
    assert set(cluster(g, f"cluster:pipe:{PIPE}")["nodes"]) == {f"full:{PIPE}", f"empty:{PIPE}", "smem:smem_k", "smem:smem_v"}
    assert set(cluster(g, f"cluster:pipe:{q}")["nodes"]) == {f"full:{q}", f"empty:{q}", "smem:smem_q"}
    assert nodes["smem:smem_q"]["stages"] == "StagesQ::value"
    assert nodes["smem:smem_k"]["stages"] == "Stages::value"
    # Loads go through helper objects (load_k.step): the helper line is part of the load node.
    assert 265 in lines(nodes["load:K"]) and 275 in lines(nodes["load:K"])
    assert lines(edge(g, "full", "load:K", f"full:{PIPE}")) == [265, 275, 299]
    assert lines(edge(g, "full", "load:Q", f"full:{q}")) == [262, 272, 278, 293, 314, 322]
    # The helpers acquire inside step(): empty barrier -> load directly.
    assert 275 in lines(edge(g, "empty", f"empty:{PIPE}", "load:K"))
    assert 322 in lines(edge(g, "empty", f"empty:{q}", "load:Q"))
    # Separate consumer paths per pipeline: wait/release nodes are not merged.
    assert lines(edge(g, "full", f"full:{q}", f"op:consumer:consumer_wait:{q}")) == [379]
    assert lines(edge(g, "empty", f"op:consumer:consumer_release:{q}", f"empty:{q}")) == [545]
    assert 399 in lines(edge(g, "full", f"full:{PIPE}", f"op:consumer:consumer_wait:{PIPE}"))
    # Two MMAs; S = Q K^T reads smem_q and smem_k, O = P V reads smem_v and the S accumulator.
    assert lines(edge(g, "data", "smem:smem_q", "mma:tiled_mma_qk")) == [406, 452, 505]
    assert lines(edge(g, "data", "smem:smem_k", "mma:tiled_mma_qk")) == [406, 452, 505]
    assert lines(edge(g, "data", "smem:smem_v", "mma:tiled_mma_pv")) == [427, 476, 532]
    assert lines(edge(g, "data", "acc:acc_qk", "mma:tiled_mma_pv")) == [427, 476, 532]
    assert lines(edge(g, "data", "mma:tiled_mma_pv", "acc:acc_pv")) == [427, 476, 532]
    # The Q wait orders the QK MMA (it reads smem_q), even though that MMA follows the K wait.
    assert 379 in lines(edge(g, "order", f"op:consumer:consumer_wait:{q}", "mma:tiled_mma_qk"))
    for e in g["edges"]:
        if e["kind"] in ("full", "empty"):
            assert e["pipeline"] in (PIPE, q)
            assert (e["pipeline"] == q) == (q in e["source"] + e["target"]), e["id"]
    check_traceable(g)
    check_geometry(g, render_html.layout_graph(g))


# ---- FA3-shaped structure (own fixture): K, V, Vt pipelines and barrier_Q ------------------

@pytest.fixture(scope="module")
def fa3_like():
    return graph_of(FA3_LIKE)


def test_fa3_like_separate_pipelines(fa3_like):
    _model, g = fa3_like
    nodes = nodes_by_id(g)
    names = ["MainloopPipelineK", "MainloopPipelineV", "MainloopPipelineVt"]
    assert [p["name"] for p in g["pipelines"]] == names + ["barrier_Q"]
    for name in names:
        assert f"full:{name}" in nodes and f"empty:{name}" in nodes
        group = cluster(g, f"cluster:pipe:{name}")
        assert group["title"] == name and f"full:{name}" in group["nodes"]
        assert "PipelineAsync" in group["subtitle"]  # conditional_t alternatives
        assert lines(nodes[f"full:{name}"]) == [12 + names.index(name)]
    # Distinct palette slots: the three paths are drawn in different colours.
    assert len({p["index"] for p in g["pipelines"]}) == 4
    # Signal edges never mix pipelines: each belongs to exactly one.
    for e in g["edges"]:
        if e["kind"] in ("full", "empty"):
            ends = [n for n in (e["source"], e["target"]) if n.split(":")[0] in ("full", "empty", "barrier")]
            assert len(ends) == 1 and ends[0].endswith(":" + e["pipeline"]), e["id"]


def test_fa3_like_load_consumes_vt_and_produces_v(fa3_like):
    _model, g = fa3_like
    vt, v = "MainloopPipelineVt", "MainloopPipelineV"
    # The producer warpgroup waits on Vt's full barrier and releases Vt's empty barrier ...
    # schema v2: the wait keeps its own line (52) and cites the lambda's call site (72)
    assert lines(edge(g, "full", f"full:{vt}", f"op:producer:consumer_wait:{vt}")) == [52, 72]
    assert lines(edge(g, "empty", f"op:producer:consumer_release:{vt}", f"empty:{vt}")) == [57]
    # ... and produces V: acquire V's empty barrier, commit V's full barrier.
    assert 53 in lines(edge(g, "empty", f"empty:{v}", f"op:producer:producer_acquire:{v}"))
    assert lines(edge(g, "full", f"op:producer:producer_commit:{v}", f"full:{v}")) == [56]
    # In that order: wait Vt -> acquire V ... commit V -> release Vt.
    assert lines(edge(g, "order", f"op:producer:consumer_wait:{vt}", f"op:producer:producer_acquire:{v}")) == [52, 53]
    assert lines(edge(g, "order", f"op:producer:producer_commit:{v}", f"op:producer:consumer_release:{vt}")) == [56, 57]
    prod = cluster(g, "cluster:producer")
    assert f"op:producer:consumer_wait:{vt}" in prod["nodes"]
    # The V copy goes through a compile-time choice of V or Vt: both drawn, marked conditional.
    choice = "op:producer:producer_acquire:MainloopPipelineV|MainloopPipelineVt"
    assert nodes_by_id(g)[choice]["detail"] == ["MainloopPipeline{V,Vt}"]
    for p in (v, vt):
        arrive = edge(g, "full", "load:V", f"full:{p}")
        assert arrive["conditional"] and lines(arrive) == [46, 67, 71]   # v2: + load_V's call sites
        assert edge(g, "empty", f"empty:{p}", choice)["conditional"]


def test_fa3_like_q_barrier_and_lambda_waits(fa3_like):
    _model, g = fa3_like
    nodes = nodes_by_id(g)
    bar = nodes["barrier:barrier_Q"]
    assert bar["kind"] == "barrier" and lines(bar) == [63]
    assert lines(edge(g, "full", "load:Q", "barrier:barrier_Q")) == [63]
    assert lines(edge(g, "data", "load:Q", "smem:smem_q")) == [63]
    assert "1 stage (barrier_Q)" in nodes["smem:smem_q"]["detail"]
    # The consumer waits through its local consumer_wait lambda (line 99), per pipeline.
    k_wait = nodes["op:consumer:consumer_wait:MainloopPipelineK"]
    assert lines(k_wait) == [100, 101, 107]   # schema v2: the lambda's own lines, then its call site
    assert any(r["op"] == "lambda" and "consumer_wait" in r["text"] for r in k_wait["lines"])
    assert lines(nodes["op:consumer:consumer_wait:MainloopPipelineV"]) == [100, 101, 112]
    assert lines(edge(g, "data", "smem:smem_q", "mma:tiled_mma_qk")) == [108]
    assert lines(edge(g, "data", "smem:smem_k", "mma:tiled_mma_qk")) == [108]
    assert lines(edge(g, "data", "smem:smem_v", "mma:tiled_mma_pv")) == [113]
    assert lines(edge(g, "order", "op:consumer:consumer_wait:MainloopPipelineK", "mma:tiled_mma_qk")) == [101, 108]
    assert lines(edge(g, "order", "mma:tiled_mma_pv", "op:consumer:consumer_release:MainloopPipelineV")) == [113, 114]


def test_fa3_like_traceable_and_layout(fa3_like):
    _model, g = fa3_like
    check_traceable(g)
    layout = render_html.layout_graph(g)
    check_geometry(g, layout)
    # The three pipeline groups are separate boxes stacked without overlap.
    groups = [layout["clusters"][f"cluster:pipe:{p}"] for p in ("MainloopPipelineK", "MainloopPipelineV", "MainloopPipelineVt")]
    for i, a in enumerate(groups):
        for b in groups[i + 1:]:
            assert a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]


# ---- page plumbing -------------------------------------------------------------------------

def test_render_page(cutlass):
    model = parse_cutlass.parse_file(cutlass(MAINLOOP), cutlass(PINGPONG))
    page = render_html.render(model)
    assert page.count('<script type="application/json" id="model">') == 1
    assert "@@" not in page and "/*@@" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'SVG_NS = "http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert page == render_html.render(json.loads(json.dumps(model)))
    assert render_html.render(model, title="a <b> & c").count("a &lt;b&gt; &amp; c") == 2


def test_hostile_text_is_escaped():
    model = json.loads(json.dumps(json.loads(pagekit.asset_path("examples/sm90_gemm_pingpong.json").read_text())))
    for fn in model["functions"]:
        for op in fn["ops"]:
            op["text"] = "</script><img src=x onerror=alert(1)> <!--"
    page = render_html.render(model)
    assert "</script><img" not in page and "<img" not in page
    assert page.count("</script>") == 3  # the JSON island, the shared module and the graph script only


def test_assets_are_ascii_and_markers_once():
    template = pagekit.read_asset(render_html.TEMPLATE_ASSET)
    for marker in ("@@TITLE@@", "@@HEADING@@", "/*@@THEME_CSS@@*/", "/*@@COMMON_CSS@@*/", "/*@@GRAPH_CSS@@*/",
                   "/*@@COMMON_JS@@*/", "/*@@GRAPH_JS@@*/", "@@MODEL_JSON@@"):
        assert template.count(marker) == 1, marker
    for asset in (render_html.TEMPLATE_ASSET, render_html.GRAPH_CSS_ASSET, render_html.GRAPH_JS_ASSET,
                  render_html.COMMON_CSS_ASSET, render_html.COMMON_JS_ASSET):
        pagekit.read_asset(asset).encode("ascii")
    for asset in (render_html.GRAPH_JS_ASSET, render_html.COMMON_JS_ASSET):
        js = pagekit.read_asset(asset)
        assert "innerHTML" not in js and "fetch(" not in js and "XMLHttpRequest" not in js


# ---- Issue 12: every buffer once, pipeline identity, crossing reduction ---------------------

def example(name):
    return json.loads(pagekit.asset_path(f"examples/{name}.json").read_text(encoding="utf-8"))


def test_fa3_every_parsed_buffer_appears_once_in_its_pipeline():
    model = example("fa3_fwd")
    graph = render_html.build_graph(model)
    smem = [n for n in graph["nodes"] if n["kind"] == "smem"]
    assert sorted(n["label"] for n in smem) == sorted({b["name"] for b in model["buffers"]})
    vt = nodes_by_id(graph)["smem:smem_vt"]
    assert vt["pipeline"] == "MainloopPipelineVt"
    assert "smem:smem_vt" in cluster(graph, "cluster:pipe:MainloopPipelineVt")["nodes"]
    assert [r["line"] for r in vt["lines"]] == [342]
    assert vt["detail"][-1] == "stages kStages; no load parsed"
    # Read after the producer warpgroup's wait on the Vt pipeline (the transpose).
    e = edge(graph, "data", "smem:smem_vt", "op:producer:consumer_wait:MainloopPipelineVt")
    assert 781 in [r["line"] for r in e["lines"]]
    # A buffer no pipeline is named after stands alone and says so.
    scale = nodes_by_id(graph)["smem:smem_scale"]
    assert scale["pipeline"] is None and scale["detail"][-1] == "no pipeline or load parsed"
    layout = render_html.layout_graph(graph)
    assert inside(layout["nodes"]["smem:smem_vt"], layout["clusters"]["cluster:pipe:MainloopPipelineVt"])


def test_pipeline_identity_is_the_object_so_two_objects_of_one_alias_are_two_pipelines():
    """CONTRACT v2: op.object || op.pipeline. Give FA3's K and V pipelines one alias and two objects."""
    model = example("fa3_fwd")
    aliases = {"MainloopPipelineK": "pipeline_k", "MainloopPipelineV": "pipeline_v"}
    model["pipelines"] = [dict(p, alias="MainloopPipeline") if p["alias"] == "MainloopPipelineK" else p
                          for p in model["pipelines"] if p["alias"] != "MainloopPipelineV"]
    model["pipeline_objects"] = [{"name": obj, "alias": "MainloopPipeline", "class": None, "stages": None,
                                  "line": 400 + i, "kind": "parameter"} for i, obj in enumerate(aliases.values())]
    for fn in model["functions"]:
        for op in fn["ops"]:
            if op.get("pipeline") in aliases:
                op["object"] = aliases[op["pipeline"]]
                op["pipeline"] = "MainloopPipeline"
    graph = render_html.build_graph(model)
    groups = {c["pipeline"]: c for c in graph["clusters"] if c["kind"] == "pipeline"}
    assert {"pipeline_k", "pipeline_v"} <= set(groups)
    assert "MainloopPipeline" not in groups
    assert groups["pipeline_k"]["subtitle"].startswith("MainloopPipeline: ")
    ids = nodes_by_id(graph)
    assert "full:pipeline_k" in ids and "full:pipeline_v" in ids
    assert edge(graph, "full", "full:pipeline_k", "op:consumer:consumer_wait:pipeline_k")
    assert edge(graph, "full", "full:pipeline_v", "op:consumer:consumer_wait:pipeline_v")
    assert [r["line"] for r in ids["full:pipeline_v"]["lines"]] == [401]


def hand_graph(edges):
    """A graph model with one consumer zone and the given (source, target) edges."""
    ids = sorted({v for e in edges for v in e})
    nodes = [{"id": v, "kind": "sync", "zone": "consumer", "label": v, "detail": [], "lines": []} for v in ids]
    return {"nodes": nodes, "clusters": [], "pipelines": [], "notes": [],
            "edges": [{"id": f"order:{a}->{b}", "kind": "order", "source": a, "target": b, "lines": [],
                       "description": "", "pipeline": None, "conditional": False} for a, b in edges]}


# Two layers whose alphabetical start order crosses every edge pair: a->z, b->y, c->x.
CROSSED = [("a", "z"), ("b", "y"), ("c", "x")]


def test_count_crossings():
    succs = {"a": ["z"], "b": ["y"], "c": ["x"], "x": [], "y": [], "z": []}
    assert render_html._count_crossings([["a", "b", "c"], ["x", "y", "z"]], succs) == 3
    assert render_html._count_crossings([["a", "b", "c"], ["z", "y", "x"]], succs) == 0


def test_crossing_reduction_untangles_a_crossed_graph():
    layout = render_html.layout_graph(hand_graph(CROSSED))
    assert layout["crossings"] == 0
    ys = {v: layout["nodes"][v]["y"] for v in "abcxyz"}
    assert (ys["a"] < ys["b"] < ys["c"]) == (ys["z"] < ys["y"] < ys["x"])


def test_crossing_reduction_is_what_removes_the_crossings(monkeypatch):
    """The inputs above do exercise the sweeps: without them the crossings stay."""
    monkeypatch.setattr(render_html, "ORDER_SWEEPS", 0)
    assert render_html.layout_graph(hand_graph(CROSSED))["crossings"] == 3
    assert render_html.layout_graph(render_html.build_graph(example("fa3_fwd")))["crossings"] > 100


def test_example_crossings_stay_low():
    """Regression bounds for the bundled examples (without sweeps: 11 and 470)."""
    assert render_html.layout_graph(render_html.build_graph(example("sm90_gemm_pingpong")))["crossings"] <= 1
    assert render_html.layout_graph(render_html.build_graph(example("fa3_fwd")))["crossings"] <= 45


# ---- Issue 13 on the graph page: SM100 (hand-written CONTRACT-shaped structure) --------------

def sm100():
    return json.loads((FIXTURES / "sm100_gemm_structure.json").read_text(encoding="utf-8"))


def test_sm100_tmem_accumulator_between_the_mma_warp_and_the_epilogue():
    graph = render_html.build_graph(sm100())
    ids = nodes_by_id(graph)
    tmem = ids["tmem:AccumulatorPipeline"]
    assert tmem["zone"] == "tmem" and tmem["kind"] == "tmem"
    assert tmem["detail"][0] == "stages AccumulatorPipelineStageCount"
    # Drawn under its alias (one object of that type): the alias (K 169) and the stage count (K 119).
    assert [(r["path"].split("/")[-1], r["line"]) for r in tmem["lines"]] == [
        ("sm100_gemm_tma_warpspecialized.hpp", 119), ("sm100_gemm_tma_warpspecialized.hpp", 169)]
    assert [r["line"] for r in edge(graph, "data", "mma:tiled_mma", "tmem:AccumulatorPipeline")["lines"]] == [699]
    assert [r["line"] for r in edge(graph, "data", "tmem:AccumulatorPipeline", "epilogue")["lines"]] == [911]
    assert ids["mma:tiled_mma"]["detail"] == ["UMMA (tcgen05)"]
    assert not any(n.startswith("acc:") for n in ids)  # no register accumulator on SM100
    assert ids["epilogue"]["zone"] == "epilogue"
    # The accumulator pipeline's barriers sit with the TMEM stages; the MMA warp acquires an
    # accumulator stage (C 675) and commits it (K 770, a kernel-layer call).
    assert ids["full:AccumulatorPipeline"]["zone"] == ids["empty:AccumulatorPipeline"]["zone"] == "tmem"
    assert [r["line"] for r in edge(graph, "empty", "empty:AccumulatorPipeline",
                                    "op:consumer:producer_acquire:AccumulatorPipeline")["lines"]] == [675]
    assert [r["line"] for r in edge(graph, "full", "op:consumer:producer_commit:AccumulatorPipeline",
                                    "full:AccumulatorPipeline")["lines"]] == [770]
    assert "cluster:pipe:AccumulatorPipeline" in [c["id"] for c in graph["clusters"]]
    assert any("epilogue collective" in n for n in graph["notes"])


def test_sm100_warp_roles_and_clc_pipeline():
    graph = render_html.build_graph(sm100())
    titles = {c["id"]: c["title"] for c in graph["clusters"]}
    assert titles["cluster:consumer"] == "MMA warp (warp 0)"
    assert titles["cluster:producer"] == "MainloopLoad warp (warp 2)"
    assert titles["cluster:epilogue"] == "Epilogue warps (warps 4+)"
    assert titles["cluster:sched"] == "Sched warp (warp 1)"
    assert [r["line"] for r in cluster(graph, "cluster:consumer")["lines"]] == [236]
    fetch = nodes_by_id(graph)["op:sched:fetch_next_work:CLCPipeline"]
    assert [r["line"] for r in fetch["lines"]] == [664, 741, 819, 877]
    assert edge(graph, "full", "full:CLCPipeline", fetch["id"])
    assert edge(graph, "empty", fetch["id"], "empty:CLCPipeline")
    assert edge(graph, "full", "op:sched:clc_query:CLCPipeline", "full:CLCPipeline")
    assert [r["line"] for r in nodes_by_id(graph)["full:CLCPipeline"]["lines"]] == [172]


def test_sm100_layout_runs_left_to_right_mma_tmem_epilogue():
    graph = render_html.build_graph(sm100())
    layout = render_html.layout_graph(graph)
    check_geometry(graph, layout)
    x = {n: layout["nodes"][n]["x"] for n in ("mma:tiled_mma", "tmem:AccumulatorPipeline", "epilogue")}
    assert x["mma:tiled_mma"] < x["tmem:AccumulatorPipeline"] < x["epilogue"]
    assert inside(layout["nodes"]["tmem:AccumulatorPipeline"], layout["clusters"]["cluster:pipe:AccumulatorPipeline"])
    assert inside(layout["clusters"]["cluster:pipe:AccumulatorPipeline"], layout["clusters"]["cluster:tmem"])


def test_sm100_real_collective_draws_the_tmem_accumulator(cutlass):
    """The real CUTLASS 4.2 pair: the UMMA accumulates into the TMEM stages of the accumulator
    pipeline its function acquires (C 675), never into a register accumulator."""
    model = parse_cutlass.parse_file(cutlass("include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"),
                                     cutlass("include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"))
    ids = nodes_by_id(render_html.build_graph(model))
    assert "tmem:AccumulatorPipeline" in ids
    assert not any(n.startswith("acc:") for n in ids)


def test_two_objects_of_one_alias_are_two_pipelines():
    """FlashInfer-style `MainloopPipeline pipeline_k, MainloopPipeline pipeline_v`: one alias, two
    objects, two pipeline groups; a single object is drawn under its alias."""
    def fn(name, role, kinds):
        return {"name": name, "role": role, "line": 1, "end_line": 9, "ops": [
            {"op": k, "line": 2 + i, "end_line": 2 + i, "receiver": obj, "pipeline": "MainloopPipeline",
             "object": obj, "buffer": None, "operand": None, "text": f"{obj}.{k}(s);"}
            for i, (k, obj) in enumerate(kinds)]}
    model = {"schema_version": 2, "language": "cpp", "source": {"path": "x.cuh", "lines": 20},
             "kind": "mainloop", "arch": "sm90", "buffers": [], "warnings": [], "kernel_layer": None,
             "pipelines": [{"alias": "MainloopPipeline", "class": "PipelineTmaAsync", "stages": "S", "line": 1}],
             "pipeline_objects": [{"name": "pipeline_k", "alias": "MainloopPipeline", "kind": "parameter", "line": 3},
                                  {"name": "pipeline_v", "alias": "MainloopPipeline", "kind": "parameter", "line": 3}],
             "functions": [fn("load", "producer", [("producer_acquire", "pipeline_k"), ("producer_acquire", "pipeline_v")]),
                           fn("mma", "consumer", [("consumer_wait", "pipeline_k"), ("consumer_release", "pipeline_k"),
                                                  ("consumer_wait", "pipeline_v"), ("consumer_release", "pipeline_v")])]}
    clusters = [c["id"] for c in render_html.build_graph(model)["clusters"]]
    assert "cluster:pipe:pipeline_k" in clusters and "cluster:pipe:pipeline_v" in clusters
    one = dict(model, pipeline_objects=model["pipeline_objects"][:1],
               functions=[fn("load", "producer", [("producer_acquire", "pipeline_k")]),
                          fn("mma", "consumer", [("consumer_wait", "pipeline_k"), ("consumer_release", "pipeline_k")])])
    assert "cluster:pipe:MainloopPipeline" in [c["id"] for c in render_html.build_graph(one)["clusters"]]


# ---- Issue 23 part 6: the MMA warp's zone, the accumulator's two barriers, FA3's epilogue -------

SM100_MAINLOOP = "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"
SM100_KERNEL = "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"


@pytest.fixture(scope="module")
def sm100_models(cutlass):
    """The committed SM100 example and a fresh parse of the installed CUTLASS 4.2 pair."""
    return {"example": example("sm100_gemm"),
            "fresh": parse_cutlass.parse_file(cutlass(SM100_MAINLOOP), cutlass(SM100_KERNEL))}


@pytest.mark.parametrize("which", ["example", "fresh"])
def test_sm100_the_mma_function_runs_in_the_mma_warp_zone_not_the_load_warps(sm100_models, which):
    """mma() has role `both` (it consumer_waits on the mainloop and producer_acquires the
    accumulator, C 675) but issues the UMMAs: it belongs to WarpCategory::MMA (K 236)."""
    model = sm100_models[which]
    assert [f["role"] for f in model["functions"] if f["name"] == "mma"] == ["both"]
    graph = render_html.build_graph(model)
    ids = nodes_by_id(graph)
    mma_zone = cluster(graph, "cluster:consumer")
    load_zone = cluster(graph, "cluster:producer")
    assert mma_zone["title"] == "MMA warp (warp 0)" and lines(mma_zone) == [236]
    assert load_zone["title"] == "MainloopLoad warp (warp 2)"
    mma_ops = {"mma:tiled_mma", f"op:consumer:consumer_wait:{PIPE}", f"op:consumer:consumer_release:{PIPE}",
               "op:consumer:producer_acquire:AccumulatorPipeline"}
    assert mma_ops <= set(mma_zone["nodes"])
    assert set(load_zone["nodes"]) == {"load:A", "load:B", f"op:producer:producer_acquire:{PIPE}"}
    assert all(ids[n]["zone"] == "consumer" for n in mma_ops)
    # The signals still run through shared memory: TMA -> full -> the MMA warp's wait.
    assert lines(edge(graph, "full", f"full:{PIPE}", f"op:consumer:consumer_wait:{PIPE}")) == [668, 681, 693]
    check_geometry(graph, render_html.layout_graph(graph))


@pytest.mark.parametrize("which", ["example", "fresh"])
def test_sm100_tmem_group_shows_the_accumulators_full_and_empty_barriers(sm100_models, which):
    """The TMEM stages sit between the accumulator's two barriers; the parsed acquire (C 675)
    signals the empty one; the sides the parse lacks are named on the node and in the notes."""
    graph = render_html.build_graph(sm100_models[which])
    ids = nodes_by_id(graph)
    group = cluster(graph, "cluster:pipe:AccumulatorPipeline")
    assert set(group["nodes"]) == {"full:AccumulatorPipeline", "empty:AccumulatorPipeline", "tmem:AccumulatorPipeline"}
    assert group["parent"] == "cluster:tmem"
    assert lines(edge(graph, "empty", "empty:AccumulatorPipeline",
                      "op:consumer:producer_acquire:AccumulatorPipeline")) == [675]
    # Nothing in the parse commits the stage (K 770 is a call on the pipeline object) or waits on
    # it (the epilogue collective): said, not drawn.
    assert ids["full:AccumulatorPipeline"]["detail"] == ["AccumulatorPipeline", "commit / wait not parsed"]
    assert ids["empty:AccumulatorPipeline"]["detail"] == ["AccumulatorPipeline", "release not parsed"]
    assert not [e for e in graph["edges"] if "full:AccumulatorPipeline" in (e["source"], e["target"])]
    assert graph["notes"] == [
        "AccumulatorPipeline: no producer_commit / umma_arrive of the MMA warp on the accumulator's barriers "
        "was parsed (neither in its function nor among the kernel layer's calls)",
        "AccumulatorPipeline: the epilogue's consumer_wait / consumer_release on the accumulator's barriers "
        "are in the epilogue collective, which this parse does not include"]
    check_traceable(graph)


def test_sm100_accumulator_barriers_with_every_side_parsed():
    """Given the commit (K 770) and the epilogue's wait and release as kernel-layer calls, both
    barriers carry the two hand-offs and no note remains."""
    model = sm100()
    calls = model["kernel_layer"]["calls"]
    calls += [{"call": "consumer_wait", "receiver": "accumulator_pipeline", "line": 2001, "end_line": 2001,
               "text": "accumulator_pipeline.consumer_wait(acc_state);"},
              {"call": "consumer_release", "receiver": "accumulator_pipeline", "line": 2002, "end_line": 2002,
               "text": "accumulator_pipeline.consumer_release(acc_state);"}]
    graph = render_html.build_graph(model)
    ids = nodes_by_id(graph)
    assert lines(edge(graph, "full", "op:consumer:producer_commit:AccumulatorPipeline", "full:AccumulatorPipeline")) == [770]
    assert lines(edge(graph, "full", "full:AccumulatorPipeline", "op:epilogue:consumer_wait:AccumulatorPipeline")) == [2001]
    assert lines(edge(graph, "empty", "op:epilogue:consumer_release:AccumulatorPipeline", "empty:AccumulatorPipeline")) == [2002]
    assert ids["full:AccumulatorPipeline"]["detail"] == ids["empty:AccumulatorPipeline"]["detail"] == ["AccumulatorPipeline"]
    assert graph["notes"] == []
    check_geometry(graph, render_html.layout_graph(graph))


def test_fa3_epilogue_is_drawn_from_the_kernels_epilogue_store():
    """FA3's kernel calls epilogue.store / store_tail (not collective_epilogue): the epilogue is
    drawn from exactly those calls, fed by the accumulator the store names (tOrO), and no note
    says it is missing."""
    model = example("fa3_fwd")
    calls = model["kernel_layer"]["calls"]
    stores = sorted(c["line"] for c in calls if c["call"] in ("store", "store_tail"))
    assert stores and {c["receiver"] for c in calls if c["call"] in ("store", "store_tail")} == {"epilogue"}
    graph = render_html.build_graph(model)
    epi = nodes_by_id(graph)["epilogue"]
    assert epi["detail"] == ["epilogue.store"] and epi["zone"] == "consumer"
    assert lines(epi) == stores and all(r["path"] == model["kernel_layer"]["source"]["path"] for r in epi["lines"])
    mma_lines = sorted(c["line"] for c in calls if c["call"] == "mma" and c["receiver"] == "mainloop")
    store_line = [c["line"] for c in calls if c["call"] == "store"]
    assert lines(edge(graph, "data", "acc:tOrO", "epilogue")) == sorted(mma_lines + store_line)
    assert not [e for e in graph["edges"] if e["target"] == "epilogue" and e["source"] != "acc:tOrO"]
    assert graph["notes"] == []
    check_traceable(graph)
    check_geometry(graph, render_html.layout_graph(graph))


def test_epilogue_receiver_is_whatever_object_the_kernel_stores_through():
    """The rule is the call, not a name: renaming the epilogue object keeps the epilogue; a store
    on the mainloop object (the receiver of mma) is not an epilogue."""
    model = example("sm90_gemm_pingpong")
    for c in model["kernel_layer"]["calls"]:
        if c["receiver"] == "collective_epilogue":
            c["receiver"] = "epi_collective"
    graph = render_html.build_graph(model)
    assert nodes_by_id(graph)["epilogue"]["detail"] == ["epi_collective.store"]
    assert edge(graph, "data", "acc:accum", "epilogue")
    for c in model["kernel_layer"]["calls"]:
        if c["receiver"] == "epi_collective":
            c["receiver"] = "collective_mainloop"
    graph = render_html.build_graph(model)
    assert "epilogue" not in nodes_by_id(graph)
    assert graph["notes"] == ["the kernel layer calls no store / store_tail on an epilogue object: no epilogue node"]
