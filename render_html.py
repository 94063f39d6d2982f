"""Render the dataflow graph page: the parsed pipeline as a static, layered, left-to-right graph.

Three pure steps, each dumpable without the next:
  build_graph(model)   -> the graph model: nodes, edges and clusters, each carrying the source
                          lines it comes from ({path, line, end_line, op, text});
  layout_graph(graph)  -> coordinates: a layered (Sugiyama-style) layout written here, with
                          orthogonal edges routed through the gaps between layers and rows;
  render(model, title) -> the page: assets/graph.{html,css,js} with the JSON model inlined.
Markup, styles and script live in assets/ as real files; this module never writes HTML.
"""

import re
import types

import pagekit
import render_waveform

TEMPLATE_ASSET = "assets/graph.html"
THEME_CSS_ASSET = "assets/theme.css"
GRAPH_CSS_ASSET = "assets/graph.css"
GRAPH_JS_ASSET = "assets/graph.js"
# The shared page module (tooltip placement, source lists, key map and help overlay, start-up).
COMMON_CSS_ASSET = "assets/common.css"
COMMON_JS_ASSET = "assets/common.js"

# ---- Graph model ---------------------------------------------------------------------------

# Zones are the left-to-right bands of the layout, in data-flow order; each is a cluster.
ZONES = ("global", "sched", "producer", "smem", "consumer", "tmem", "epilogue")
# Zones that hold pipeline groups (stage buffers or TMEM accumulators with their mbarriers).
GROUP_ZONES = ("smem", "tmem")
# SM100 (issue 13): a pipeline whose class is one of these holds TMEM accumulators (the MMA warp
# produces, the epilogue warps consume; sm100_pipeline.hpp PipelineUmmaAsync) or CLC responses.
ACC_PIPELINE_CLASSES = ("PipelineUmmaAsync",)
CLC_PIPELINE_CLASSES = ("PipelineCLCFetchAsync",)
# warp_roles names (sm100 kernel layers' WarpCategory) of the zones they run in.
WARP_ROLE_ZONE = {"MainloopLoad": "producer", "MMA": "consumer", "Epilogue": "epilogue", "Sched": "sched"}
# Kernel-layer calls that tell the collectives apart (the parse records no receiver declarations or
# types): the mainloop object is the receiver of mma calls (CUTLASS's collective_mainloop, FA3's
# mainloop; `load` does not tell, SM100's collective_epilogue.load feeds C), the epilogue object
# the receiver of store / store_tail calls that is not the mainloop (CUTLASS 4.2 collective_epilogue.store, sm90_gemm_tma_warpspecialized_pingpong.hpp and
# sm100_gemm_tma_warpspecialized.hpp line 911; FA3's epilogue.store, flash_fwd_kernel_sm90.h).
MAINLOOP_CALLS = frozenset(("mma",))
EPILOGUE_CALLS = ("store", "store_tail")
LOAD_OPS = frozenset(("tma_load", "cp_async"))
# Parsed op kind -> the synchronisation node it is drawn as (try/test variants fold into one).
SYNC_NODE_OP = {
    "producer_acquire": "producer_acquire",
    "producer_try_acquire": "producer_acquire",
    "producer_tail": "producer_tail",
    "producer_commit": "producer_commit",
    "consumer_wait": "consumer_wait",
    "consumer_try_wait": "consumer_wait",
    "consumer_test_wait": "consumer_wait",
    "consumer_release": "consumer_release",
    "umma_arrive": "umma_arrive",
}
# Ops that make the TMA arrive on a pipeline's full barrier (besides the copy itself).
FULL_ARRIVE_OPS = frozenset(("producer_get_barrier", "producer_expect_transaction"))
# Edge kinds: data moves; full/empty are the two barrier hand-offs; order is program order
# inside one warpgroup (acquire before the copy, wait before the MMA, MMA before the release).
EDGE_KINDS = ("data", "full", "empty", "order")
# A fragment name that partitions one operand: tCrA, tSrK, tOrV, tOsP -> A, K, V, P.
RE_FRAGMENT = re.compile(r"""
    t [A-Z]+        # the partitioner's tile (C for the MMA's C layout, S, O ...)
    [rs]            # r: register fragment, s: shared-memory view
    (?P<operand>[A-Z][A-Za-z0-9]*)
""", re.VERBOSE)
# The MMA call's argument list starts after `gemm...(`, optionally with template arguments.
RE_GEMM_OPEN = re.compile(r"\bgemm\w*\s*(?:<[^;(){}]*>)?\s*\(")
RE_IDENT = re.compile(r"[A-Za-z_]\w*")


def _source_line(path, line, end_line, op, text, **extra):
    """One source reference as the graph model stores it."""
    ref = {"path": path, "line": line, "end_line": end_line if end_line is not None else line,
           "op": op, "text": text or ""}
    ref.update(extra)
    return ref


def _op_line(path, fn, op):
    """The source reference of one parsed op (with its function's name)."""
    return _source_line(path, op["line"], op.get("end_line"), op["op"], op.get("text"),
                        function=fn["name"])


def _via_line(path, fn, op):
    """The source reference of the helper or lambda an op goes through, if any."""
    via = op.get("via") or {}
    if not isinstance(via.get("line"), int):
        return None
    name = via.get("helper") or via.get("lambda") or "helper"
    what = "helper" if via.get("helper") else "lambda"
    text = f"{what} {name}" + (f" (wraps {via['tma']})" if via.get("tma") else "")
    return _source_line(path, via["line"], via["line"], what, text, function=fn["name"])


def _sorted_lines(lines):
    """Deduplicated source references in (path, line, op) order."""
    seen = {}
    for ref in lines:
        key = (ref["path"], ref["line"], ref["end_line"], ref["op"], ref["text"])
        seen.setdefault(key, ref)
    return [seen[k] for k in sorted(seen, key=lambda k: (k[0], k[1], k[2], k[3], k[4]))]


def _pipe_label(pipes):
    """Short text for one pipeline or a compile-time choice: MainloopPipeline{V,Vt}."""
    if len(pipes) == 1:
        return pipes[0]
    prefix = pipes[0]
    for p in pipes[1:]:
        while not p.startswith(prefix):
            prefix = prefix[:-1]
    # Cut back to a word boundary so every alternative keeps its capitalised suffix.
    while prefix and any(len(p) == len(prefix) or not p[len(prefix)].isupper() for p in pipes):
        prefix = prefix[:-1]
    return f"{prefix}{{{','.join(p[len(prefix):] for p in pipes)}}}"


def _mma_args(text):
    """Split the MMA call's arguments; returns (args, complete) (texts may be truncated)."""
    m = RE_GEMM_OPEN.search(text or "")
    if not m:
        return [], False
    args, depth, start = [], 0, m.end()
    for i in range(m.end(), len(text)):
        ch = text[i]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            if depth == 0 and ch == ")":
                args.append(text[start:i].strip())
                return args, True
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
    args.append(text[start:].strip())
    return args, False


class _Builder:
    """Accumulates nodes, edges and clusters with stable ids; merges repeated facts."""

    def __init__(self):
        self.nodes = {}
        self.edges = {}
        self.order = 0

    def node(self, node_id, kind, zone, label, detail=(), **extra):
        """Return the node with this id, creating it on first use."""
        node = self.nodes.get(node_id)
        if node is None:
            self.order += 1
            node = {"id": node_id, "kind": kind, "zone": zone, "label": label,
                    "detail": list(detail), "lines": [], "_order": self.order}
            node.update(extra)
            self.nodes[node_id] = node
        return node

    def edge(self, kind, source, target, lines, description, **extra):
        """Return the edge kind:source->target, creating it on first use; adds lines."""
        edge_id = f"{kind}:{source}->{target}"
        edge = self.edges.get(edge_id)
        if edge is None:
            edge = {"id": edge_id, "kind": kind, "source": source, "target": target,
                    "description": description, "lines": []}
            edge.update(extra)
            self.edges[edge_id] = edge
        edge["lines"].extend(ref for ref in lines if ref)
        return edge


class _Graph:
    """What the build steps share: the parsed facts, indexed, and the nodes and edges so far."""

    def __init__(self, model):
        self.model = model
        self.path = (model.get("source") or {}).get("path") or "unknown"
        self.layer = model.get("kernel_layer") or None
        self.kpath = ((self.layer or {}).get("source") or {}).get("path") or "unknown"
        self.buffers = _buffers_by_name(model, self.path)
        self.buffer_by_operand = {}
        for name in sorted(self.buffers):
            self.buffer_by_operand.setdefault(self.buffers[name]["operand"], name)
        identities = self.identities = _object_identities(model)
        self.pipelines = _pipeline_identities(model, self.kpath, identities[0])
        self.warp_roles = {r.get("name") for r in (self.layer or {}).get("warp_roles") or [] if isinstance(r, dict)}
        self.functions = [dict(f, zone=_zone_of(f, self.warp_roles))
                          for f in (_resolve_choices(f, identities) for f in model.get("functions") or [])
                          if f.get("role") in ("producer", "consumer", "both")]
        self.b = _Builder()
        self.buffer_pipes = {}    # buffer name -> pipelines (identities) whose loads write it
        self.used_pipes = []      # identities drawn, in first-use order
        self.accumulators = set()
        self.mma_records = []     # (fn, zone, op, mma node id, acc name, operand tokens, ref)
        self.acc_pipes = _accumulator_pipelines(self.pipelines, self.functions)


def _object_identities(model):
    """({object: identity}, {choice local: [identities]}): how the graph names pipeline objects.

    A pipeline is drawn under its type alias (MainloopPipeline) unless two declared objects share
    that alias (FlashInfer's `MainloopPipeline pipeline_k, MainloopPipeline pipeline_v`), in which
    case each object is a pipeline of its own. A local that picks one of several pipelines at
    compile time (FA3's `auto pipeline_v_load = cute::conditional_return<!Transpose_V>(pipeline_v,
    pipeline_vt)`, `candidates` in pipeline_objects) joins its candidates' groups."""
    objs = [o for o in model.get("pipeline_objects") or [] if isinstance(o, dict) and o.get("name")]
    by_alias = {}
    for o in objs:
        if not o.get("candidates") and o.get("kind") != "named":
            by_alias.setdefault(o.get("alias"), []).append(o["name"])
    ident = {}
    for o in objs:
        names = by_alias.get(o.get("alias"), [])
        ident[o["name"]] = o["name"] if len(names) > 1 and o["name"] in names else (o.get("alias") or o["name"])
    choices = {}
    for o in objs:
        cands = o.get("candidates") or []
        if len(cands) > 1:
            choices[o["name"]] = [by_alias[a][0] if len(by_alias.get(a, [])) > 1 else a for a in cands]
    return ident, choices


def _resolve_choices(fn, identities):
    """fn (a copy) with each op's `object` replaced by the graph identity of its pipeline."""
    ident, choices = identities
    if not ident:
        return fn
    ops = []
    for op in fn.get("ops") or []:
        obj = op.get("object")
        if obj in choices:
            op = dict(op, pipeline_candidates=choices[obj])
            op.pop("object")
        elif obj in ident:
            op = dict(op, object=ident[obj])
        reads = op.get("objects") or op.get("pipelines")
        if reads:   # an MMA that reads two pipelines: their identities
            op = dict(op, pipelines=[ident.get(p, p) for p in reads])
        ops.append(op)
    return dict(fn, ops=ops)


def _pipeline_identities(model, kpath, ident):
    """{identity: pipeline facts}: one per type alias and one per pipeline object (CONTRACT v2:
    identity = op.object || op.pipeline), so two objects of one alias are two pipelines. SM100
    kernel layers declare the accumulator and CLC pipelines themselves (kernel_layer.pipelines,
    same shape; their lines point into the kernel layer's file)."""
    out = {}
    for pipe in model.get("pipelines") or []:
        out[pipe["alias"]] = dict(pipe)
    for pipe in (model.get("kernel_layer") or {}).get("pipelines") or []:
        if isinstance(pipe, dict) and pipe.get("alias") and pipe["alias"] not in out:
            out[pipe["alias"]] = dict(pipe, path=kpath)
    for obj in model.get("pipeline_objects") or []:
        name = obj.get("name")
        if not isinstance(name, str) or name in out or ident.get(name) != name:
            continue   # an object drawn under its alias (_object_identities) adds no pipeline
        alias = out.get(obj.get("alias")) or {}
        entry = dict(alias)
        entry.pop("path", None)  # the object's own line is in the mainloop file
        entry.update({"alias": obj.get("alias"), "object": name, "line": obj.get("line", alias.get("line")),
                      "end_line": obj.get("line", alias.get("end_line")),
                      "class": obj.get("class") or alias.get("class"), "stages": obj.get("stages") or alias.get("stages"),
                      "text": f"{name}: {obj.get('alias') or obj.get('class') or 'pipeline'} ({obj.get('kind') or 'object'})"})
        out[name] = entry
    return out


def _class_names(pipe):
    cls = pipe.get("class")
    return [str(c) for c in cls] if isinstance(cls, list) else [str(cls or "")]


def _accumulator_pipelines(pipelines, functions):
    """Identities of TMEM accumulator pipelines (SM100): class PipelineUmmaAsync, or a pipeline that
    a function issuing `unit: "umma"` MMAs producer-acquires: the MMA warp acquires only the
    accumulator stage it writes (CUTLASS 4.2 sm100_mma_warpspecialized.hpp mma():
    accumulator_pipeline.producer_acquire, line 675, while it consumer_waits on the mainloop)."""
    out = {p for p, pipe in pipelines.items()
           if any(c.startswith(ACC_PIPELINE_CLASSES) for c in _class_names(pipe))}
    for fn in functions:
        if any(op["op"] == "mma" and op.get("unit") == "umma" for op in fn["ops"]):
            out.update(_ident(o) for o in fn["ops"]
                       if o["op"] in ("producer_acquire", "producer_try_acquire") and _ident(o))
    return out


def _ident(op):
    """A pipeline op's pipeline identity (CONTRACT v2): op.object || op.pipeline."""
    return op.get("object") or op.get("pipeline")


def _buffers_by_name(model, path):
    """Parsed buffers merged by name (FA3 declares one member in several storage structs)."""
    buffers = {}
    for buf in model.get("buffers") or []:
        entry = buffers.setdefault(buf["name"], {"operand": buf.get("operand") or "", "layouts": [], "lines": []})
        if buf.get("layout") and buf["layout"] not in entry["layouts"]:
            entry["layouts"].append(buf["layout"])
        entry["lines"].append(_source_line(path, buf["line"], buf["line"], "buffer", buf.get("text"),
                                           struct=buf.get("struct")))
    return buffers


def _issues_umma(fn):
    """True when a function issues UMMAs (tcgen05.mma: an `mma` op with unit "umma")."""
    return any(op["op"] == "mma" and op.get("unit") == "umma" for op in fn.get("ops") or [])


def _zone_of(fn, warp_roles=()):
    """The zone a role function's nodes go in: producer for role producer or both, else consumer.

    SM100: when the kernel layer declares an MMA warp (warp_roles, WarpCategory::MMA), a function
    that issues UMMAs runs there, though its role is `both` (CUTLASS 4.2 sm100_mma_warpspecialized.hpp
    mma() consumer_waits on the mainloop and producer_acquires the accumulator, line 675); only the
    MMA warp issues tcgen05.mma (sm100_gemm_tma_warpspecialized.hpp calls collective_mainloop.mma
    in its is_participant.mma branch, lines 725-769), never the MainloopLoad warp."""
    if "MMA" in warp_roles and _issues_umma(fn):
        return WARP_ROLE_ZONE["MMA"]
    return "producer" if fn["role"] in ("producer", "both") else "consumer"


def _pipes_of(op):
    """Pipeline identities an op uses: its compile-time candidates, else op.object || op.pipeline."""
    cands = op.get("pipeline_candidates")
    if cands:
        return list(cands)
    ident = op.get("object") or op.get("pipeline")
    return [ident] if ident else []


def _use_pipe(g, p):
    if p not in g.used_pipes:
        g.used_pipes.append(p)


def _pipe_class(pipe):
    cls = pipe.get("class")
    return " | ".join(cls) if isinstance(cls, list) else str(cls)


def _barrier_zone(g, p):
    """TMEM accumulator pipelines' barriers sit with the accumulators, the others in shared memory."""
    return "tmem" if p in g.acc_pipes else "smem"


def _full_node(g, p):
    """The full barrier of pipeline p (or a standalone transaction barrier such as FA3's barrier_Q)."""
    _use_pipe(g, p)
    pipe = g.pipelines.get(p)
    if pipe is None:
        return g.b.node(f"barrier:{p}", "barrier", "smem", p, ["transaction barrier"], pipeline=p)
    node = g.b.node(f"full:{p}", "full", _barrier_zone(g, p), "full barrier", [p], pipeline=p)
    if not node["lines"]:
        node["lines"].append(_source_line(pipe.get("path") or g.path, pipe["line"], pipe.get("end_line"), "pipeline",
                                          pipe.get("text") or f"{p} = {_pipe_class(pipe)}"))
    return node


def _empty_node(g, p):
    """The empty barrier of pipeline p."""
    _use_pipe(g, p)
    pipe = g.pipelines.get(p) or {}
    node = g.b.node(f"empty:{p}", "empty", _barrier_zone(g, p), "empty barrier", [p], pipeline=p)
    if not node["lines"] and pipe:
        node["lines"].append(_source_line(pipe.get("path") or g.path, pipe["line"], pipe.get("end_line"), "pipeline",
                                          pipe.get("text") or p))
    return node


def _buffer_node(g, name, pipes=None):
    """The shared-memory stage buffer `name` (once per name), in its first pipeline's group."""
    buf = g.buffers.get(name) or {"operand": "", "layouts": [], "lines": []}
    pipes = pipes if pipes is not None else (g.buffer_pipes.get(name) or [])
    stages = [g.pipelines[p]["stages"] for p in pipes if p in g.pipelines and g.pipelines[p].get("stages")]
    if stages:
        stage_text = f"stages {stages[0]}"
    elif pipes:
        stage_text = f"1 stage ({pipes[0]})"
    else:
        stage_text = "stages ? (no load parsed)"
    detail = [" / ".join(buf["layouts"]) or "layout ?", stage_text]
    node = g.b.node(f"smem:{name}", "smem", "smem", name, detail, operand=buf["operand"],
                    pipeline=pipes[0] if pipes else None, layouts=buf["layouts"], stages=stages[0] if stages else None)
    if not node["lines"]:
        node["lines"].extend(buf["lines"])
    return node


def _sync_node(g, zone, op_kind, pipes):
    """One node per (zone, barrier operation, pipelines): every call site's lines merge into it."""
    key = "|".join(pipes)
    if op_kind == "producer_tail":
        # load_tail's wait for the last releases: drawn on the acquire node when the same
        # warpgroup acquires this pipeline (the common case), else as its own node.
        acquire = f"op:{zone}:producer_acquire:{key}"
        if acquire in g.b.nodes or any(o["op"] in ("producer_acquire", "producer_try_acquire")
                                       and "|".join(_pipes_of(o)) == key
                                       for f in g.functions if f["zone"] == zone for o in f["ops"]):
            op_kind = "producer_acquire"
    return g.b.node(f"op:{zone}:{op_kind}:{key}", "sync", zone, op_kind, [_pipe_label(pipes)],
                    op=op_kind, pipelines=list(pipes))


def _scan_buffer_pipes(g):
    """Step 1: which pipelines (and standalone barriers) the loads into each buffer signal."""
    for fn in g.functions:
        for op in fn["ops"]:
            if op["op"] in LOAD_OPS and op.get("buffer"):
                lst = g.buffer_pipes.setdefault(op["buffer"], [])
                for p in _pipes_of(op) + ([op["barrier"]] if op.get("barrier") else []):
                    if p not in lst:
                        lst.append(p)


def _add_load(g, fn, op, ref):
    """A copy from global memory: gmem operand -> load -> stage buffer, and the load's full barrier."""
    kind, pipes = op["op"], _pipes_of(op)
    operand = op.get("operand") or (g.buffers.get(op.get("buffer")) or {}).get("operand") or "?"
    engine = "TMA load" if kind == "tma_load" else "cp.async"
    recv = (op.get("via") or {}).get("tma") or op.get("receiver") or ""
    gm = g.b.node(f"gmem:{operand}", "gmem", "global", operand, ["global memory"], operand=operand)
    gm["lines"].append(ref)
    ld = g.b.node(f"load:{operand}", "load", "producer", f"{engine} {operand}",
                  [recv.split(".")[-1] or engine], operand=operand, engines=[])
    if kind not in ld["engines"]:
        ld["engines"].append(kind)
        if len(ld["engines"]) > 1:
            ld["label"] = f"TMA/cp.async {operand}"
    ld["lines"].append(ref)
    via = _via_line(g.path, fn, op)
    if via:
        ld["lines"].append(via)
    g.b.edge("data", gm["id"], ld["id"], [ref], f"{engine} reads {operand} from global memory")
    if op.get("buffer"):
        sm = _buffer_node(g, op["buffer"])
        g.b.edge("data", ld["id"], sm["id"], [ref], f"{engine} writes {op['buffer']} (one stage)")
    if kind == "tma_load":
        for p in pipes:
            g.b.edge("full", ld["id"], _full_node(g, p)["id"], [ref, via],
                     f"the TMA completes its transaction bytes on the full barrier of {p}",
                     pipeline=p, conditional=len(pipes) > 1)
        if op.get("barrier"):
            bar = _full_node(g, op["barrier"])
            bar["lines"].append(ref)
            g.b.edge("full", ld["id"], bar["id"], [ref, via],
                     f"the TMA completes its transaction bytes on {op['barrier']}",
                     pipeline=op["barrier"], conditional=False)
    return ld["id"]


def _add_sync(g, fn, zone, op, ref):
    """A barrier operation and its signal edge to or from the pipeline's full/empty barrier."""
    kind, pipes = op["op"], _pipes_of(op)
    op_kind = SYNC_NODE_OP[kind]
    node = _sync_node(g, zone, op_kind, pipes)
    node["lines"].append(ref)
    via = _via_line(g.path, fn, op)
    if via:
        node["lines"].append(via)
    cond = len(pipes) > 1
    for p in pipes:
        if op_kind in ("producer_acquire", "producer_tail"):
            g.b.edge("empty", _empty_node(g, p)["id"], node["id"], [ref],
                     f"{kind} waits until the consumers released the stage ({p})", pipeline=p, conditional=cond)
        elif op_kind in ("producer_commit", "umma_arrive"):
            g.b.edge("full", node["id"], _full_node(g, p)["id"], [ref],
                     f"{op_kind} arrives on the full barrier ({p})"
                     + (" when the UMMAs issued before it complete (tcgen05.commit)" if op_kind == "umma_arrive" else ""),
                     pipeline=p, conditional=cond)
        elif op_kind == "consumer_wait":
            g.b.edge("full", _full_node(g, p)["id"], node["id"], [ref, via],
                     f"{kind} waits until the stage is full ({p})", pipeline=p, conditional=cond)
        else:
            g.b.edge("empty", node["id"], _empty_node(g, p)["id"], [ref],
                     f"consumer_release arrives on the empty barrier ({p})", pipeline=p, conditional=cond)
    return node["id"], op_kind


def _add_mma(g, fn, zone, op, ref):
    """An MMA node per receiver; its operands and accumulator are resolved after every function."""
    recv = op.get("receiver") or "mma"
    unit = op.get("unit")
    extra = {"unit": unit} if unit else {}
    node = g.b.node(f"mma:{recv}", "mma", zone, recv, [{"umma": "UMMA (tcgen05)", "wgmma": "WGMMA"}.get(unit, "MMA")],
                    receiver=recv, **extra)
    node["lines"].append(ref)
    args, complete = _mma_args(op.get("text"))
    acc = args[-1] if complete and len(args) >= 2 else None
    acc = acc if acc and RE_IDENT.fullmatch(acc) else None
    tokens = RE_IDENT.findall(" ".join(args[1:-1] if complete else args[1:]))
    if acc:
        g.accumulators.add(acc)
    g.mma_records.append((fn, zone, op, node["id"], acc, tokens, ref))
    return node["id"], tokens


def _add_function(g, fn):
    """Step 2: the nodes and edges of one role function's ops, then its program-order edges."""
    zone = fn["zone"]
    ops = sorted(fn["ops"], key=lambda o: (o["line"], o.get("end_line") or o["line"]))
    loads, syncs, mmas = [], [], []   # (op, node id, pipes) / (op, node id, op kind, pipes) / (op, node id, tokens)
    arrive_lines = {}
    for op in ops:
        kind = op["op"]
        ref = _op_line(g.path, fn, op)
        if kind in LOAD_OPS:
            loads.append((op, _add_load(g, fn, op, ref), _pipes_of(op)))
        elif kind in FULL_ARRIVE_OPS:
            for p in _pipes_of(op):
                arrive_lines.setdefault(p, []).append(ref)
        elif kind in SYNC_NODE_OP:
            node_id, op_kind = _add_sync(g, fn, zone, op, ref)
            syncs.append((op, node_id, op_kind, _pipes_of(op)))
        elif kind == "mma":
            node_id, tokens = _add_mma(g, fn, zone, op, ref)
            mmas.append((op, node_id, tokens))
    # Extra TMA-arrive statements (producer_get_barrier ...) join the load -> full edges.
    for p, refs in arrive_lines.items():
        for _op, ld_id, pipes in loads:
            if p in pipes:
                edge = g.b.edges.get(f"full:{ld_id}->{'full:' + p if p in g.pipelines else 'barrier:' + p}")
                if edge is not None:
                    edge["lines"].extend(refs)
    _order_edges(g.b, g.path, fn, loads, syncs, mmas, g.buffer_pipes, g.buffer_by_operand,
                 lambda p: _empty_node(g, p))


def _add_mma_dataflow(g):
    """Step 3: MMA operands (buffers, accumulators) and accumulators (FMHA: acc_qk -> PV)."""
    for fn, zone, op, mma_id, acc, tokens, ref in g.mma_records:
        read_buffers = []
        for tok in tokens:
            m = RE_FRAGMENT.fullmatch(tok)
            if m and m.group("operand") in g.buffer_by_operand:
                name = g.buffer_by_operand[m.group("operand")]
                if name not in read_buffers:
                    read_buffers.append(name)
        ident = op.get("object") or op.get("pipeline")
        if not read_buffers and ident:
            read_buffers = sorted(n for n, ps in g.buffer_pipes.items() if ident in ps)
        for name in read_buffers:
            g.b.edge("data", _buffer_node(g, name)["id"], mma_id, [ref], f"MMA reads {name} (the stage it waited for)")
        for other in sorted(g.accumulators):
            if other != acc and any(t == other or t.startswith(other + "_") for t in tokens):
                g.b.edge("data", f"acc:{other}", mma_id, [ref], f"MMA reads the accumulator {other}")
        tmem = []
        if op.get("unit") == "umma":
            # The accumulator pipelines the UMMA names, else the ones its own function acquires.
            tmem = [p for p in op.get("pipelines") or [] if p in g.acc_pipes] or sorted(
                {_ident(o) for o in fn["ops"] if o["op"] in ("producer_acquire", "producer_try_acquire")
                 and _ident(o) in g.acc_pipes})
        if tmem:
            for p in tmem:
                t = _tmem_node(g, p)
                g.b.edge("data", mma_id, t["id"], [ref], f"UMMA accumulates into a TMEM accumulator stage of {p}"
                         + (f" ({acc})" if acc else ""))
            continue
        name = acc or "accumulator"
        a = g.b.node(f"acc:{name}", "acc", "consumer", name, ["accumulator (registers)"])
        a["lines"].append(ref)
        g.b.edge("data", mma_id, a["id"], [ref], f"MMA accumulates into {name}")


def _tmem_node(g, p):
    """The TMEM accumulator stages of accumulator pipeline p, between the MMA warp and the epilogue."""
    _use_pipe(g, p)
    pipe = g.pipelines.get(p) or {}
    layer = g.layer or {}
    stages = layer.get("accumulator_stages") or pipe.get("stages")
    node = g.b.node(f"tmem:{p}", "tmem", "tmem", "TMEM accumulator",
                    [f"stages {stages}" if stages is not None else "stages ?", p], pipeline=p,
                    stages=stages)
    if not node["lines"]:
        if pipe.get("line") is not None:
            node["lines"].append(_source_line(pipe.get("path") or g.path, pipe["line"], pipe.get("end_line"), "pipeline",
                                              pipe.get("text") or f"{p} = {_pipe_class(pipe)}"))
        alias = g.pipelines.get(pipe.get("alias")) if pipe.get("object") else None
        if alias and alias.get("line") is not None:
            node["lines"].append(_source_line(alias.get("path") or g.path, alias["line"], alias.get("end_line"),
                                              "pipeline", alias.get("text") or pipe["alias"]))
        if isinstance(layer.get("accumulator_stages_line"), int):
            line = layer["accumulator_stages_line"]
            node["lines"].append(_source_line(g.kpath, line, line, "accumulator_stages",
                                              f"accumulator stages: {layer.get('accumulator_stages')}"))
    return node


def _add_kernel_layer_ops(g):
    """SM100 kernel layers call pipeline ops themselves (accumulator_pipeline.producer_commit after
    mma(), sm100_gemm_tma_warpspecialized.hpp line 770): a kernel_layer call whose receiver is a
    pipeline object becomes that op in the zone of the role that owns the pipeline's side."""
    for c in (g.layer or {}).get("calls") or []:
        p, call = c.get("receiver"), c.get("call")
        p = g.identities[0].get(p, p)
        if p not in g.pipelines or call not in SYNC_NODE_OP or not isinstance(c.get("line"), int):
            continue
        producer_side = SYNC_NODE_OP[call] in ("producer_acquire", "producer_commit", "producer_tail", "umma_arrive")
        if p in g.acc_pipes:
            zone = "consumer" if producer_side else "epilogue"
        else:
            zone = "producer" if producer_side else "consumer"
        fake_fn = {"name": "kernel", "role": "consumer"}
        op = {"op": call, "object": p, "line": c["line"], "end_line": c.get("end_line"), "text": c.get("text")}
        ref = _source_line(g.kpath, c["line"], c.get("end_line"), call, c.get("text"), function=fake_fn["name"])
        _add_sync(g, fake_fn, zone, op, ref)


def _add_clc(g):
    """SM100 CLC tile scheduler: a PipelineCLCFetchAsync pipeline's barriers, the Sched warp's query
    (producer) and every role's fetch_next_work (consumer wait and release of the response)."""
    clc = [p for p, pipe in g.pipelines.items() if any(c.startswith(CLC_PIPELINE_CLASSES) for c in _class_names(pipe))]
    calls = (g.layer or {}).get("calls") or []
    fetch = [c for c in calls if c.get("call") == "fetch_next_work" and isinstance(c.get("line"), int)]
    query = [c for c in calls if c.get("call") in ("clc_query", "advance_to_next_work") and isinstance(c.get("line"), int)]
    for fn in g.functions:
        query += [dict(o, call=o["op"]) for o in fn["ops"] if o["op"] == "clc_query"]
        fetch += [dict(o, call=o["op"]) for o in fn["ops"] if o["op"] == "fetch_next_work"]
    if not clc or not (fetch or query):
        return
    p = clc[0]
    refs = lambda cs: [_source_line(g.kpath, c["line"], c.get("end_line"), c["call"], c.get("text")) for c in cs]
    full, empty = _full_node(g, p), _empty_node(g, p)
    if query:
        q = g.b.node(f"op:sched:clc_query:{p}", "sync", "sched", "clc_query", [p], op="clc_query", pipelines=[p])
        q["lines"].extend(refs(query))
        g.b.edge("full", q["id"], full["id"], refs(query), f"the CLC response (try_cancel) completes the full barrier ({p})", pipeline=p)
        g.b.edge("empty", empty["id"], q["id"], refs(query), f"the next query waits until every role released the response ({p})", pipeline=p)
    if fetch:
        f = g.b.node(f"op:sched:fetch_next_work:{p}", "sync", "sched", "fetch_next_work", ["every role", p],
                     op="fetch_next_work", pipelines=[p])
        f["lines"].extend(refs(fetch))
        g.b.edge("full", full["id"], f["id"], refs(fetch), f"fetch_next_work waits for the CLC response ({p})", pipeline=p)
        g.b.edge("empty", f["id"], empty["id"], refs(fetch), f"fetch_next_work releases the response ({p})", pipeline=p)


def _pipe_of_buffer_name(g, buf_name, operand):
    """The one pipeline identity named after a buffer's operand (MainloopPipelineVt, pipeline_vt
    for smem_vt), or None when none or several match."""
    if not operand:
        return None
    hits = []
    for ident, pipe in g.pipelines.items():
        names = {ident, pipe.get("alias") or ident}
        if any(n.endswith("Pipeline" + operand) or n.lower().endswith("_" + operand.lower()) for n in names):
            hits.append(ident)
    return hits[0] if len(hits) == 1 else None


def _add_unloaded_buffers(g):
    """Step 4: every parsed buffer appears once. One no parsed load writes (FA3's smem_vt, written
    by a load the parse attributes to another buffer) goes in the pipeline named after its operand,
    read by that pipeline's consumer_wait nodes; without such a pipeline it stands alone."""
    for name in sorted(g.buffers):
        if f"smem:{name}" in g.b.nodes:
            continue
        operand = g.buffers[name]["operand"]
        ident = _pipe_of_buffer_name(g, name, operand)
        node = _buffer_node(g, name, [ident] if ident else [])
        if ident is None:
            node["detail"][-1] = "no pipeline or load parsed"
            continue
        _use_pipe(g, ident)
        node["detail"][-1] = f"{node['detail'][-1]}; no load parsed"
        for wait_id in sorted(n for n, v in g.b.nodes.items() if v.get("op") == "consumer_wait" and ident in v.get("pipelines", ())):
            g.b.edge("data", node["id"], wait_id, list(g.b.nodes[wait_id]["lines"]),
                     f"read after this consumer_wait on {ident} (the parse names no op that reads {name})")


def _collective_receivers(layer):
    """(mainloop receivers, epilogue receivers) of a kernel layer's calls, each sorted: see
    MAINLOOP_CALLS and EPILOGUE_CALLS."""
    calls = [c for c in (layer or {}).get("calls") or [] if isinstance(c, dict) and c.get("receiver")]
    mainloops = sorted({c["receiver"] for c in calls if c.get("call") in MAINLOOP_CALLS})
    epilogues = sorted({c["receiver"] for c in calls if c.get("call") in EPILOGUE_CALLS} - set(mainloops))
    return mainloops, epilogues


def _add_epilogue(g):
    """Step 5: the epilogue node fed by the accumulators (the kernel layer's store / store_tail calls
    on its epilogue object); returns the page notes."""
    layer = g.layer
    mainloops, epilogues = _collective_receivers(layer)
    epilogue_calls = [c for c in (layer or {}).get("calls") or []
                      if c.get("receiver") in epilogues and c.get("call") in EPILOGUE_CALLS
                      and isinstance(c.get("line"), int)]
    if not epilogue_calls:
        if layer:
            return ["the kernel layer calls no store / store_tail on an epilogue object: no epilogue node"]
        return ["no kernel layer given: the epilogue is not drawn (no parsed source line names it)"]
    recv = epilogue_calls[0]["receiver"]
    epi = g.b.node("epilogue", "epilogue", "consumer", "epilogue", [f"{recv}.store"], receiver=recv)
    epi["lines"].extend(_source_line(g.kpath, c["line"], c.get("end_line"), c["call"], c.get("text"))
                        for c in epilogue_calls)
    mma_calls = [_source_line(g.kpath, c["line"], c.get("end_line"), c["call"], c.get("text"))
                 for c in layer.get("calls") or []
                 if c.get("receiver") in mainloops and c.get("call") == "mma" and isinstance(c.get("line"), int)]
    store = [_source_line(g.kpath, c["line"], c.get("end_line"), c["call"], c.get("text"))
             for c in epilogue_calls if c["call"] == "store"]
    # The accumulators the store call names (FA3: epilogue.store(params.epilogue, tOrO, ...), not
    # tSrS, which softmax turns into the PV MMA's operand); when it names none (CUTLASS passes
    # `accumulators`, the mainloop calls it `accum`), every accumulator no MMA reads.
    accs = sorted(n for n in g.b.nodes if n.startswith("acc:"))
    named = set(RE_IDENT.findall(" ".join(c.get("text") or "" for c in epilogue_calls if c["call"] == "store")))
    fed = [n for n in accs if n[len("acc:"):] in named]
    if not fed:
        feeding = {e["source"] for e in g.b.edges.values() if e["kind"] == "data" and e["source"].startswith("acc:")
                   and g.b.nodes.get(e["target"], {}).get("kind") == "mma"}
        fed = [n for n in accs if n not in feeding]
    for node_id in fed:
        g.b.edge("data", node_id, "epilogue", mma_calls + store,
                 f"the kernel passes the accumulators to {recv}.store")
    tmem = sorted(n for n in g.b.nodes if n.startswith("tmem:"))
    if tmem:
        # SM100: the epilogue warps read the accumulators from TMEM (their own warps, own zone).
        epi["zone"] = "epilogue"
        for node_id in tmem:
            g.b.edge("data", node_id, "epilogue", store,
                     "the epilogue warps load the accumulator stage from TMEM (tcgen05.ld) and store the tile")
    return []


# The four barrier operations of an accumulator pipeline: (barrier, edge direction, sync op kinds,
# the side that runs them, the word its node's detail uses when none was parsed).
ACC_BARRIER_SIDES = (
    ("full", "in", ("producer_commit", "umma_arrive"), "MMA warp", "commit"),
    ("full", "out", ("consumer_wait",), "epilogue", "wait"),
    ("empty", "in", ("consumer_release",), "epilogue", "release"),
    ("empty", "out", ("producer_acquire", "producer_tail"), "MMA warp", "acquire"),
)


def _add_accumulator_barriers(g):
    """Step 6: every TMEM accumulator pipeline shows both its barriers next to the TMEM stages: full
    (the MMA warp's producer_commit or umma_arrive -> the epilogue's consumer_wait) and empty (the
    epilogue's consumer_release -> the MMA warp's producer_acquire). Signal edges come only from
    parsed ops (role functions and kernel-layer calls); a side with none is named in the barrier's
    detail and in a note (CUTLASS 4.2 commits in the kernel layer, sm100_gemm_tma_warpspecialized.hpp
    line 770, on the pipeline object, a receiver the parse does not record; the epilogue's wait and
    release are inside the epilogue collective's store, which is not parsed)."""
    notes = []
    for node_id in sorted(n for n in g.b.nodes if n.startswith("tmem:")):
        p = g.b.nodes[node_id]["pipeline"]
        barriers = {"full": _full_node(g, p), "empty": _empty_node(g, p)}
        missing = {"full": [], "empty": []}
        for barrier, direction, kinds, side, word in ACC_BARRIER_SIDES:
            bid = barriers[barrier]["id"]
            if not any(e["kind"] == barrier and e.get("pipeline") == p
                       and (e["target"] if direction == "in" else e["source"]) == bid
                       and g.b.nodes.get(e["source"] if direction == "in" else e["target"], {}).get("op") in kinds
                       for e in g.b.edges.values()):
                missing[barrier].append((word, side, kinds))
        by_side = {}
        for barrier, gaps in missing.items():
            if gaps:
                barriers[barrier]["detail"].append(" / ".join(w for w, _s, _k in gaps) + " not parsed")
            for _word, side, kinds in gaps:
                by_side.setdefault(side, []).extend(kinds)
        if "MMA warp" in by_side:
            notes.append(f"{p}: no {' / '.join(by_side['MMA warp'])} of the MMA warp on the accumulator's barriers "
                         "was parsed (neither in its function nor among the kernel layer's calls)")
        if "epilogue" in by_side:
            notes.append(f"{p}: the epilogue's {' / '.join(by_side['epilogue'])} on the accumulator's barriers are "
                         "in the epilogue collective, which this parse does not include")
    return notes


def _finish(g, notes):
    """Step 7: sorted nodes and edges with deduplicated lines, clusters and the pipeline list."""
    declared = list(g.pipelines)
    g.used_pipes.sort(key=lambda p: (0, declared.index(p)) if p in g.pipelines else (1, p))
    clusters = _clusters(g.model, g.b, g.path, g.kpath, g.functions, g.pipelines, g.used_pipes, g.buffer_pipes)
    pipe_index = {p: i for i, p in enumerate(g.used_pipes)}
    nodes = []
    for node_id in sorted(g.b.nodes):
        node = dict(g.b.nodes[node_id])
        node.pop("_order")
        node["lines"] = _sorted_lines(node["lines"])
        nodes.append(node)
    edges = []
    for edge_id in sorted(g.b.edges):
        edge = dict(g.b.edges[edge_id])
        edge["lines"] = _sorted_lines(edge["lines"])
        edge.setdefault("pipeline", None)
        edge.setdefault("conditional", False)
        edges.append(edge)
    known = {n["id"] for n in nodes}
    edges = [e for e in edges if e["source"] in known and e["target"] in known]
    pipes = []
    for p in g.used_pipes:
        pipe = g.pipelines.get(p)
        cls = (pipe or {}).get("class")
        pipes.append({"name": p, "index": pipe_index[p],
                      "class": " | ".join(cls) if isinstance(cls, list) else (cls or "transaction barrier"),
                      "stages": (pipe or {}).get("stages") or "", "standalone": pipe is None,
                      "alias": (pipe or {}).get("alias")})
    return {"nodes": nodes, "edges": edges, "clusters": clusters, "pipelines": pipes, "notes": notes,
            "source": {"mainloop": g.path, "kernel_layer": g.kpath if g.layer else None}}


def build_graph(model):
    """Return the pure graph model {nodes, edges, clusters, pipelines, notes} of a parsed model."""
    g = _Graph(model)
    _scan_buffer_pipes(g)
    for fn in g.functions:
        _add_function(g, fn)
    _add_kernel_layer_ops(g)
    _add_mma_dataflow(g)
    _add_unloaded_buffers(g)
    _add_clc(g)
    notes = _add_epilogue(g)
    notes += _add_accumulator_barriers(g)
    return _finish(g, notes)


def _order_edges(b, path, fn, loads, syncs, mmas, buffer_pipes, buffer_by_operand, empty_node):
    """Program-order edges inside one function: acquire -> copy -> commit, wait -> MMA -> release."""
    def key(pipes):
        return "|".join(pipes)

    def syncs_of(op_kind, pipes):
        return [(op, nid) for op, nid, kind, ps in syncs if kind == op_kind and key(ps) == key(pipes)]

    def refs(*ops):
        return [_op_line(path, fn, op) for op in ops]

    acquired = {key(ps) for _op, _n, kind, ps in syncs if kind == "producer_acquire"}
    for op, ld_id, pipes in loads:
        for acq, acq_id in syncs_of("producer_acquire", pipes):
            b.edge("order", acq_id, ld_id, refs(acq, op), "producer_acquire, then the copy into that stage")
        for com, com_id in syncs_of("producer_commit", pipes):
            b.edge("order", ld_id, com_id, refs(op, com), "the copy, then producer_commit")
        # Loads through helpers (88_hopper_fmha's load_k.step) acquire inside the helper.
        if pipes and key(pipes) not in acquired:
            via = _via_line(path, fn, op)
            for p in pipes:
                b.edge("empty", empty_node(p)["id"], ld_id, refs(op) + [via],
                       f"the load helper acquires an empty stage of {p} before copying",
                       pipeline=p, conditional=len(pipes) > 1)

    def ident(op):
        return op.get("object") or op.get("pipeline")

    def mma_reads(tokens, mma_op, p):
        if ident(mma_op) == p:
            return True
        for tok in tokens:
            m = RE_FRAGMENT.fullmatch(tok)
            if m and p in buffer_pipes.get(buffer_by_operand.get(m.group("operand")), []):
                return True
        return False

    ordered = sorted(syncs, key=lambda s: s[0]["line"])
    linked = set()
    for wait, wait_id, kind, pipes in ordered:
        if kind != "consumer_wait":
            continue
        for mma_op, mma_id, tokens in mmas:
            if not any(mma_reads(tokens, mma_op, p) for p in pipes):
                continue
            # An MMA that names the wait it follows (wait_line) pairs with that wait only.
            own = ident(mma_op) in pipes and isinstance(mma_op.get("wait_line"), int)
            if own and mma_op["wait_line"] not in (wait["line"], wait.get("end_line")):
                continue
            b.edge("order", wait_id, mma_id, refs(wait, mma_op), "consumer_wait, then the MMA on that stage")
            for rel, rel_id in syncs_of("consumer_release", pipes):
                b.edge("order", mma_id, rel_id, refs(mma_op, rel), "the MMA, then consumer_release")
            linked.add(wait_id)
    for wait, wait_id, kind, pipes in ordered:
        if kind != "consumer_wait" or wait_id in linked:
            continue
        # No MMA reads this pipeline here (FA3's load: wait Vt, transpose, produce V, release Vt):
        # chain the wait to the next op on another pipeline and that pipeline's last op to the release.
        release = next(((op, nid) for op, nid, k, ps in ordered
                        if k == "consumer_release" and key(ps) == key(pipes) and op["line"] > wait["line"]), None)
        between = [(op, nid) for op, nid, k, ps in ordered
                   if key(ps) != key(pipes) and op["line"] > wait["line"]
                   and (release is None or op["line"] < release[0]["line"])]
        if between:
            b.edge("order", wait_id, between[0][1], refs(wait, between[0][0]),
                   "consumer_wait, then this warpgroup produces into another pipeline")
            if release:
                b.edge("order", between[-1][1], release[1], refs(between[-1][0], release[0]),
                       "then it releases the stage it read")
        elif release:
            b.edge("order", wait_id, release[1], refs(wait, release[0]), "consumer_wait, then consumer_release")


def _function_ref(path, fn):
    """A source reference for a whole function (its head line)."""
    return _source_line(path, fn["line"], fn.get("end_line"), "function",
                        f"{fn['name']}(...)  [role {fn['role']}]", function=fn["name"])


def _clusters(model, b, path, kpath, functions, pipelines, used_pipes, buffer_pipes):
    """Zone clusters (global memory, producer WG, shared memory, consumer WGs) and pipeline groups."""
    layer = model.get("kernel_layer") or None
    members = {z: sorted(n for n, node in b.nodes.items() if node["zone"] == z) for z in ZONES}
    calls = (layer or {}).get("calls") or []

    mainloops = _collective_receivers(layer)[0]

    def call_refs(names):
        return [_source_line(kpath, c["line"], c.get("end_line"), c["call"], c.get("text"))
                for c in calls if c.get("receiver") in mainloops and c.get("call") in names]

    def kline(key, op, text):
        line = (layer or {}).get(key)
        return [_source_line(kpath, line, line, op, text)] if isinstance(line, int) else []

    prod_fns = [f for f in functions if f["zone"] == "producer"]
    cons_fns = [f for f in functions if f["zone"] == "consumer"]
    clusters = []

    def add(cid, kind, title, subtitle, nodes, lines, parent=None, zone=None, pipeline=None):
        clusters.append({"id": cid, "kind": kind, "title": title, "subtitle": subtitle, "nodes": nodes,
                         "lines": _sorted_lines([r for r in lines if r]), "parent": parent, "zone": zone,
                         "pipeline": pipeline})

    if members["global"]:
        refs = [r for n in members["global"] for r in b.nodes[n]["lines"]]
        add("cluster:global", "zone", "Global memory", "operands", members["global"], refs,
            zone="global")
    warp_roles = {r.get("name"): r for r in (layer or {}).get("warp_roles") or [] if isinstance(r, dict)}

    def role_cluster(zone, role, what):
        """A zone titled after an SM100 warp role: "MMA warp (warp 0)", with the enum's line."""
        r = warp_roles[role]
        warps = r.get("warps")
        warps = ", ".join(str(w) for w in warps) if isinstance(warps, list) else str(warps)
        plural = isinstance(r.get("warps"), str) or len(r.get("warps") or []) > 1
        title = f"{role} warp{'s' if plural else ''} (warp{'s' if plural else ''} {warps})"
        refs = [_source_line(kpath, r["line"], r["line"], "warp_role", f"WarpCategory::{role}")] if isinstance(r.get("line"), int) else []
        add(f"cluster:{zone}", "zone", title, what, members[zone],
            refs or [x for n in members[zone] for x in b.nodes[n]["lines"]], zone=zone)

    if members["sched"]:
        if "Sched" in warp_roles:
            role_cluster("sched", "Sched", "CLC tile scheduler (try_cancel); every role fetches the next tile")
        else:
            add("cluster:sched", "zone", "Tile scheduler", "CLC", members["sched"],
                [r for n in members["sched"] for r in b.nodes[n]["lines"]], zone="sched")
    if members["producer"] and "MainloopLoad" in warp_roles:
        role_cluster("producer", "MainloopLoad", "mainloop TMA loads")
    elif members["producer"]:
        if layer:
            roles = layer.get("warpgroup_roles") or []
            wroles = layer.get("producer_warp_roles") or []
            title = "Producer warpgroup" + (f" ({roles[0]})" if roles else "")
            subtitle = "load warp" + (f": {wroles[0]}" if wroles else "") + f" ({layer.get('schedule') or 'basic'} kernel)"
            refs = (kline("warpgroup_roles_line", "warpgroup_roles", "warpgroup roles: " + ", ".join(roles))
                    + kline("producer_warp_roles_line", "producer_warp_roles", "producer warp roles: " + ", ".join(wroles))
                    + call_refs(("load", "load_tail")))
        else:
            title = "Producer (load)"
            subtitle = "functions: " + ", ".join(f["name"] for f in prod_fns)
            refs = [_function_ref(path, f) for f in prod_fns]
        add("cluster:producer", "zone", title, subtitle, members["producer"], refs or
            [r for n in members["producer"] for r in b.nodes[n]["lines"]], zone="producer")
    for zone, title, subtitle in (("smem", "Shared memory", "stage buffers and mbarriers"),
                                  ("tmem", "Tensor memory", "accumulator stages (TMEM) and their mbarriers")):
        if not members[zone]:
            continue
        refs = [r for n in members[zone] for r in b.nodes[n]["lines"] if r["op"] in ("buffer", "pipeline")]
        add(f"cluster:{zone}", "zone", title, subtitle, members[zone], refs, zone=zone)
        for p in used_pipes:
            group = sorted(n for n in members[zone] if b.nodes[n].get("pipeline") == p)
            if not group:
                continue
            pipe = pipelines.get(p)
            if pipe:
                cls = pipe.get("class")
                cls = " | ".join(cls) if isinstance(cls, list) else str(cls)
                lines = [_source_line(pipe.get("path") or path, pipe["line"], pipe.get("end_line"), "pipeline",
                                      pipe.get("text") or p)]
                # A pipeline object names its type alias too (two objects of one alias are two groups).
                sub = f"{pipe['alias']}: {cls}" if pipe.get("object") and pipe.get("alias") else cls
            else:
                lines = [r for n in group for r in b.nodes[n]["lines"]]
                sub = "standalone barrier"
            for n in group:
                b.nodes[n]["group"] = f"cluster:pipe:{p}"
            add(f"cluster:pipe:{p}", "pipeline", p, sub, group, lines, parent=f"cluster:{zone}", zone=zone, pipeline=p)
    if members["consumer"] and "MMA" in warp_roles:
        role_cluster("consumer", "MMA", "one elected thread issues the UMMAs (tcgen05.mma)")
    elif members["consumer"]:
        if layer:
            roles = [r for r in layer.get("warpgroup_roles") or [] if r.lower().startswith("consumer")]
            sched = layer.get("schedule") or "basic"
            count = layer.get("num_mma_warpgroups")
            title = "Consumer warpgroups" if (isinstance(count, int) and count > 1) or len(roles) > 1 else "Consumer warpgroup"
            title += f" ({sched})"
            how = {"pingpong": "alternate output tiles", "cooperative": "split each output tile"}.get(sched, "")
            subtitle = ", ".join(roles) + (f": {how}" if how and roles else "")
            refs = (kline("schedule_line", "schedule", f"schedule {sched} ({layer.get('schedule_tag') or ''})")
                    + kline("warpgroup_roles_line", "warpgroup_roles", "warpgroup roles: " + ", ".join(layer.get("warpgroup_roles") or []))
                    + kline("num_mma_warpgroups_line", "num_mma_warpgroups", f"math warpgroups: {count}")
                    + call_refs(("mma", "mma_tail")))
        else:
            title = "Consumer (MMA)"
            subtitle = "functions: " + ", ".join(f["name"] for f in cons_fns)
            refs = [_function_ref(path, f) for f in cons_fns]
        add("cluster:consumer", "zone", title, subtitle, members["consumer"], refs or
            [r for n in members["consumer"] for r in b.nodes[n]["lines"]], zone="consumer")
    if members["epilogue"]:
        if "Epilogue" in warp_roles:
            role_cluster("epilogue", "Epilogue", "TMEM -> registers -> global memory")
        else:
            add("cluster:epilogue", "zone", "Epilogue", "", members["epilogue"],
                [r for n in members["epilogue"] for r in b.nodes[n]["lines"]], zone="epilogue")
    return clusters


# ---- Layout --------------------------------------------------------------------------------
# Pixel sizes are estimates for the page's monospace node font (graph.css uses the same sizes);
# widths are generous so the text fits in any common monospace face.
LABEL_CHAR_PX = 7.4          # 12px monospace label, per character
DETAIL_CHAR_PX = 6.5         # 10.5px monospace detail line, per character
TITLE_CHAR_PX = 7.0          # 12px UI-font cluster title (proportional, so this is a bound)
SUBTITLE_CHAR_PX = 6.2       # 10.5px cluster subtitle
NODE_PAD_X = 12              # text inset inside a node box
NODE_MIN_W = 84
LINE_H = 15                  # one text line inside a node
NODE_PAD_Y = 7
NODE_GAP = 22                # vertical gap between two node boxes in a layer
DUMMY_GAP = 12               # vertical clearance around an edge passing through a layer
GROUP_TITLE_H = 18           # pipeline group title band
GROUP_PAD = 8                # pipeline group box padding around its nodes
ZONE_TITLE_H = 36            # zone title + subtitle band
ZONE_PAD = 12                # zone box padding around its contents
MIN_GAP = 56                 # gap between layers of two zones (must exceed 2 * (ZONE_PAD + GROUP_PAD))
MIN_INNER_GAP = 34           # gap between two layers of one zone
INNER_INSET = 6              # edge tracks keep this far from the boxes in an inner gap
TRACK_PX = 10                # spacing of vertical edge tracks inside a gap
MARGIN = 16                  # around the whole drawing
ORDER_SWEEPS = 12            # barycenter sweeps for crossing reduction
POSITION_SWEEPS = 12         # down/up sweeps for vertical positions
GROUP_TITLE_CHARS = 32       # pipeline group title (the alias; the hover has the class)
ZONE_TITLE_CHARS = 56        # zone title and subtitle
MAX_TEXT_CHARS = 40          # longer node text lines are cut (the hover shows the full text)


def _clip(text, limit=MAX_TEXT_CHARS):
    """Shorten a node text line to what the box is sized for (ASCII ellipsis)."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _node_size(node):
    """(width, height) of a node box from its label and detail lines."""
    label = _clip(node["label"])
    detail = [_clip(d) for d in node["detail"]]
    width = max([len(label) * LABEL_CHAR_PX] + [len(d) * DETAIL_CHAR_PX for d in detail]) + 2 * NODE_PAD_X
    height = NODE_PAD_Y * 2 + LINE_H * (1 + len(detail))
    return max(NODE_MIN_W, round(width)), height


def _isotonic(values, weights):
    """Least-squares non-decreasing fit (pool adjacent violators)."""
    blocks = []  # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out = []
    for mean, _w, count in blocks:
        out.extend([mean] * count)
    return out


def _orient_edges(L):
    """Step 1: which way each edge is laid out."""
    graph, nodes, order_of, zone_rank = L.graph, L.nodes, L.order_of, L.zone_rank
    # 1. Orientation: edges run left to right; an edge into an earlier zone (release -> empty,
    #    empty -> acquire) is laid out reversed, and so is a back edge of a cycle inside a zone.
    intra = {nid: [] for nid in nodes}
    for e in graph["edges"]:
        s, t = e["source"], e["target"]
        if s != t and nodes[s]["zone"] == nodes[t]["zone"]:
            intra[s].append(t)
    back = set()
    state = {}
    for root in sorted(nodes, key=order_of.get):
        if root in state:
            continue
        stack = [(root, iter(sorted(set(intra[root]), key=order_of.get)))]
        state[root] = 1
        while stack:
            nid, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[nid] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((nid, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(set(intra[nxt]), key=order_of.get))))
    oriented = []  # (edge id, a, b, reversed) with a laid out left of b
    for e in graph["edges"]:
        s, t = e["source"], e["target"]
        if s == t:
            continue
        zs, zt = zone_rank[nodes[s]["zone"]], zone_rank[nodes[t]["zone"]]
        rev = zs > zt or (zs == zt and (s, t) in back)
        oriented.append((e["id"], t, s, True) if rev else (e["id"], s, t, False))
    L.oriented = oriented


def _assign_layers(L):
    """Step 2: the layer of every node."""
    nodes, order_of, oriented = L.nodes, L.order_of, L.oriented
    # 2. Layers: zone by zone, longest path inside a zone; zones never share a layer.
    layer_of = {}
    base = 0
    zone_layers = {}
    for z in ZONES:
        members = sorted((n for n in nodes if nodes[n]["zone"] == z), key=order_of.get)
        if not members:
            continue
        preds = {n: [] for n in members}
        for _eid, a, b2, _r in oriented:
            if a in preds and b2 in preds:
                preds[b2].append(a)
        local = {}

        def depth(n, seen=()):
            if n not in local:
                local[n] = 0 if not preds[n] else 1 + max(depth(p, seen + (n,)) for p in preds[n] if p not in seen)
            return local[n]
        for n in members:
            depth(n)
        for n in members:
            layer_of[n] = base + local[n]
        top = base + max(local.values())
        zone_layers[z] = (base, top)
        base = top + 1
    nlayers = base
    L.layer_of, L.zone_layers, L.nlayers = layer_of, zone_layers, nlayers


def _add_dummies(L):
    """Step 3: dummy vertices, adjacency and the initial layers."""
    oriented, layer_of, nodes, nlayers, order_of = L.oriented, L.layer_of, L.nodes, L.nlayers, L.order_of
    # 3. Dummy vertices for edges that span several layers.
    segments = []  # (a, b) between adjacent layers; a, b are node ids or dummy ids
    chains = {}
    dummies = {}
    for eid, a, b2, _rev in oriented:
        chain = [a]
        for k in range(layer_of[a] + 1, layer_of[b2]):
            d = f"~{eid}~{k}"
            dummies[d] = {"layer": k, "edge": eid}
            layer_of[d] = k
            chain.append(d)
        chain.append(b2)
        chains[eid] = chain
        segments.extend(zip(chain, chain[1:]))
    preds = {v: [] for v in layer_of}
    succs = {v: [] for v in layer_of}
    for a, b2 in segments:
        succs[a].append(b2)
        preds[b2].append(a)

    def group_of(v):
        return nodes[v].get("group") if v in nodes else None

    layers = [[] for _ in range(nlayers)]
    for v in sorted(layer_of, key=lambda v: (order_of.get(v, len(order_of)), v)):
        layers[layer_of[v]].append(v)
    L.segments, L.chains, L.dummies, L.preds, L.succs, L.group_of, L.layers = segments, chains, dummies, preds, succs, group_of, layers


def _count_crossings(order, succs):
    """Edge crossings between adjacent layers of an ordering (pairs of segments that swap order)."""
    pos = {v: i for lay in order for i, v in enumerate(lay)}
    total = 0
    for k in range(len(order) - 1):
        segs = [(pos[a], pos[b2]) for a in order[k] for b2 in succs[a]]
        for i in range(len(segs)):
            for j in range(i + 1, len(segs)):
                if (segs[i][0] - segs[j][0]) * (segs[i][1] - segs[j][1]) < 0:
                    total += 1
    return total


def _barycenter_order(lay, neighbours, pos, group_of):
    """One layer reordered by the mean position of each vertex's neighbours in the adjacent layer;
    members of one pipeline group move as one unit, and units without neighbours keep their slot."""
    bary = {}
    for v in lay:
        ns = [pos[u] for u in neighbours[v]]
        bary[v] = sum(ns) / len(ns) if ns else None
    units = []
    for v in lay:
        g = group_of(v)
        if g is not None and units and units[-1][0] == g:
            units[-1][1].append(v)
        else:
            units.append((g, [v]))
    merged = {}
    keyed = []
    for g, vs in units:
        if g is not None and g in merged:
            merged[g].extend(vs)
            continue
        if g is not None:
            merged[g] = vs
        keyed.append((g, vs))
    fixed = []
    for idx, (_g, vs) in enumerate(keyed):
        known = [bary[v] for v in vs if bary[v] is not None]
        b_unit = sum(known) / len(known) if known else sum(lay.index(v) for v in vs) / len(vs)
        inner = sorted(vs, key=lambda v: (bary[v] if bary[v] is not None else float(lay.index(v)), lay.index(v)))
        fixed.append((b_unit, idx, inner))
    fixed.sort(key=lambda t: (t[0], t[1]))
    return [v for _b, _i, inner in fixed for v in inner]


def _order_layers(L):
    """Step 4: order inside layers by barycenter sweeps (ORDER_SWEEPS, alternately down and up),
    keeping the ordering with the fewest crossings; pipeline groups stay contiguous."""
    nlayers, succs, preds, group_of = L.nlayers, L.succs, L.preds, L.group_of
    # Group pipeline members together before the first sweep.
    best = [_barycenter_order(lay, {v: [] for v in lay}, {v: i for i, v in enumerate(lay)}, group_of)
            for lay in L.layers]
    best_cross = _count_crossings(best, succs)
    current = [list(lay) for lay in best]
    for sweep in range(ORDER_SWEEPS):
        down = sweep % 2 == 0
        for k in (range(1, nlayers) if down else range(nlayers - 2, -1, -1)):
            neighbour_layer = current[k - 1] if down else current[k + 1]
            pos = {v: i for i, v in enumerate(neighbour_layer)}
            current[k] = _barycenter_order(current[k], preds if down else succs, pos, group_of)
        c = _count_crossings(current, succs)
        if c < best_cross:
            best, best_cross = [list(lay) for lay in current], c
    L.layers, L.best_cross = best, best_cross


def _vertical_positions(L):
    """Step 5: the y of every vertex."""
    layers, layer_of, nodes, group_of, preds, succs, nlayers = L.layers, L.layer_of, L.nodes, L.group_of, L.preds, L.succs, L.nlayers
    # 5. Vertical positions: centres as close as possible to the neighbours' mean, order and
    #    spacing kept (isotonic regression on the offsets), sweeping down and up.
    size = {v: _node_size(nodes[v]) if v in nodes else (0, 0) for v in layer_of}

    def gap_between(u, v):
        gap = NODE_GAP if (u in nodes and v in nodes) else DUMMY_GAP
        gu, gv = group_of(u), group_of(v)
        if gu != gv:
            if gu is not None:
                gap += GROUP_PAD
            if gv is not None:
                gap += GROUP_PAD + GROUP_TITLE_H
        return size[u][1] / 2 + size[v][1] / 2 + gap

    y = {}
    for lay in layers:
        cur = 0.0
        for i, v in enumerate(lay):
            if i:
                cur += gap_between(lay[i - 1], v)
            y[v] = cur

    def place(lay, desired):
        offsets = [0.0]
        for i in range(1, len(lay)):
            offsets.append(offsets[-1] + gap_between(lay[i - 1], lay[i]))
        weights = [1.0 if v in nodes else 0.6 for v in lay]
        fit = _isotonic([desired[i] - offsets[i] for i in range(len(lay))], weights)
        for i, v in enumerate(lay):
            y[v] = fit[i] + offsets[i]

    for sweep in range(POSITION_SWEEPS):
        down = sweep % 2 == 0
        for k in (range(nlayers) if down else range(nlayers - 1, -1, -1)):
            lay = layers[k]
            desired = []
            for v in lay:
                ns = (preds[v] if down else succs[v]) or (succs[v] if down else preds[v])
                desired.append(sum(y[u] for u in ns) / len(ns) if ns else y[v])
            place(lay, desired)
    L.size, L.y = size, y


def _assign_ports(L):
    """Step 6: where each edge leaves and enters a box."""
    layer_of, succs, preds, y, size, nodes = L.layer_of, L.succs, L.preds, L.y, L.size, L.nodes
    # 6. Ports: edges leave a node's right side and enter the left side, spread over its height
    #    in the order of the other end, so parallel edges never share a point.
    port_out, port_in = {}, {}
    for v in layer_of:
        outs = sorted(((y[b2], b2) for b2 in succs[v]))
        ins = sorted(((y[a], a) for a in preds[v]))
        h = size[v][1]
        for side, lst, store in (("out", outs, port_out), ("in", ins, port_in)):
            for i, (_yy, other) in enumerate(lst):
                key = (v, other) if side == "out" else (other, v)
                if v in nodes and len(lst) > 1:
                    usable = h - 2 * NODE_PAD_Y
                    store[key] = y[v] - usable / 2 + usable * i / (len(lst) - 1)
                else:
                    store[key] = y[v]
    L.port_out, L.port_in = port_out, port_in


def _assign_tracks(L):
    """Step 7: vertical edge runs in the gaps between layers."""
    segments, port_out, port_in, layer_of, nlayers, zone_layers = L.segments, L.port_out, L.port_in, L.layer_of, L.nlayers, L.zone_layers
    # 7. Tracks: inside each gap, vertical runs get their own x (greedy interval colouring).
    gap_tracks = {k: [] for k in range(nlayers - 1)}
    for a, b2 in segments:
        ya, yb = port_out[(a, b2)], port_in[(a, b2)]
        if abs(ya - yb) > 0.5:
            gap_tracks[layer_of[a]].append((min(ya, yb), max(ya, yb), a, b2))
    track_of = {}
    gap_count = {}
    for k, runs in gap_tracks.items():
        ends = []
        for lo, hi, a, b2 in sorted(runs, key=lambda r: (r[0], r[1], r[2], r[3])):
            for t, end in enumerate(ends):
                if end < lo - TRACK_PX:
                    ends[t] = hi
                    track_of[(a, b2)] = t
                    break
            else:
                ends.append(hi)
                track_of[(a, b2)] = len(ends) - 1
        gap_count[k] = len(ends)
    # Zone boxes (and the smem pipeline groups) sit in the gaps at zone boundaries; inner gaps
    # only need room for their tracks.
    zone_at = {}
    for z, (lo, hi) in zone_layers.items():
        for k in range(lo, hi + 1):
            zone_at[k] = z
    gap_inset = [(ZONE_PAD + GROUP_PAD) if zone_at.get(k) != zone_at.get(k + 1) else INNER_INSET
                 for k in range(nlayers - 1)]
    gap_w = [max(MIN_GAP if gap_inset[k] != INNER_INSET else MIN_INNER_GAP,
                 (gap_count.get(k, 0) + 1) * TRACK_PX + 2 * gap_inset[k]) for k in range(nlayers - 1)]
    L.track_of, L.gap_count, L.gap_inset, L.gap_w = track_of, gap_count, gap_inset, gap_w


def _column_positions(L):
    """Step 8: layer widths and x positions."""
    layers, size, graph, group_of, nlayers, gap_w, zone_layers = L.layers, L.size, L.graph, L.group_of, L.nlayers, L.gap_w, L.zone_layers
    # 8. Horizontal positions; a layer is as wide as its widest box or group title, and a zone
    #    as wide as its title.
    col_w = [max([NODE_MIN_W // 2] + [size[v][0] for v in lay]) for lay in layers]
    group_titles = {}
    for c in graph["clusters"]:
        if c["kind"] == "pipeline":
            group_titles[c["id"]] = c
    for k, lay in enumerate(layers):
        for v in lay:
            g = group_of(v)
            if g in group_titles:
                c = group_titles[g]
                need = len(_clip(c["title"], GROUP_TITLE_CHARS)) * TITLE_CHAR_PX - 2 * GROUP_PAD + 8
                col_w[k] = max(col_w[k], round(need))

    def columns():
        x, left = MARGIN + ZONE_PAD, []
        for k in range(nlayers):
            left.append(x)
            x += col_w[k] + (gap_w[k] if k < nlayers - 1 else 0)
        return left
    col_x = columns()
    for c in graph["clusters"]:
        if c["kind"] == "zone" and c["zone"] in zone_layers:
            lo, hi = zone_layers[c["zone"]]
            span = col_x[hi] + col_w[hi] - col_x[lo] + 2 * ZONE_PAD
            need = max(len(_clip(c["title"], ZONE_TITLE_CHARS)) * TITLE_CHAR_PX,
                       len(_clip(c["subtitle"], ZONE_TITLE_CHARS)) * SUBTITLE_CHAR_PX) + 16
            if need > span:
                col_w[hi] += int(need - span) + 1
                col_x = columns()
    L.col_w, L.col_x = col_w, col_x


def _boxes_and_routes(L):
    """Step 9: node boxes and edge polylines."""
    nodes, layer_of, size, col_x, col_w, y, oriented, chains, port_out, port_in, track_of, gap_inset, gap_w, gap_count = L.nodes, L.layer_of, L.size, L.col_x, L.col_w, L.y, L.oriented, L.chains, L.port_out, L.port_in, L.track_of, L.gap_inset, L.gap_w, L.gap_count
    # 9. Boxes, then edge polylines through ports, tracks and dummy rows.
    boxes = {}
    for v in nodes:
        k = layer_of[v]
        w, h = size[v]
        boxes[v] = {"x": round(col_x[k] + (col_w[k] - w) / 2, 1), "y": round(y[v] - h / 2, 1), "w": w, "h": h,
                    "text": [_clip(nodes[v]["label"])] + [_clip(d) for d in nodes[v]["detail"]]}

    def right_x(v):
        if v in nodes:
            return boxes[v]["x"] + boxes[v]["w"]
        return col_x[layer_of[v]] + col_w[layer_of[v]]

    def left_x(v):
        return boxes[v]["x"] if v in nodes else col_x[layer_of[v]]

    edge_points = {}
    for eid, a, b2, rev in oriented:
        chain = chains[eid]
        pts = []
        for u, v in zip(chain, chain[1:]):
            ya, yb = port_out[(u, v)], port_in[(u, v)]
            xa, xb = right_x(u), left_x(v)
            if u not in nodes:
                pts.append((left_x(u), ya))
            pts.append((xa, ya))
            if (u, v) in track_of:
                k = layer_of[u]
                gx = col_x[k] + col_w[k]
                inset = gap_inset[k]
                xt = gx + inset + (track_of[(u, v)] + 1) * (gap_w[k] - 2 * inset) / (gap_count[k] + 1)
                pts.append((xt, ya))
                pts.append((xt, yb))
            else:
                yb = ya  # sub-pixel difference: keep the run exactly horizontal
            pts.append((xb, yb))
        clean = []
        for p in pts:
            p = (round(p[0], 1), round(p[1], 1))
            if clean and clean[-1] == p:
                continue
            if len(clean) >= 2 and (clean[-2][0] == clean[-1][0] == p[0] or clean[-2][1] == clean[-1][1] == p[1]):
                clean[-1] = p
                continue
            clean.append(p)
        if rev:
            clean.reverse()
        edge_points[eid] = {"points": [list(p) for p in clean], "reversed": rev}
    L.boxes, L.edge_points = boxes, edge_points


def _cluster_boxes(L):
    """Step 10: cluster boxes."""
    graph, boxes, layer_of, col_x, col_w, zone_layers, dummies, y, nodes = L.graph, L.boxes, L.layer_of, L.col_x, L.col_w, L.zone_layers, L.dummies, L.y, L.nodes
    # 10. Cluster boxes: pipeline groups first, zones around their nodes, groups and passing edges.
    cboxes = {}
    for c in graph["clusters"]:
        if c["kind"] == "pipeline" and c["nodes"]:
            xs = [boxes[n]["x"] for n in c["nodes"]]
            x2 = [boxes[n]["x"] + boxes[n]["w"] for n in c["nodes"]]
            ys = [boxes[n]["y"] for n in c["nodes"]]
            y2 = [boxes[n]["y"] + boxes[n]["h"] for n in c["nodes"]]
            k = layer_of[c["nodes"][0]]
            x0 = min(min(xs), col_x[k]) - GROUP_PAD
            x1 = max(max(x2), col_x[k] + col_w[k]) + GROUP_PAD
            cboxes[c["id"]] = {"x": x0, "y": min(ys) - GROUP_PAD - GROUP_TITLE_H, "w": x1 - x0,
                               "h": max(y2) - min(ys) + 2 * GROUP_PAD + GROUP_TITLE_H,
                               "text": [_clip(c["title"], GROUP_TITLE_CHARS)]}
    for c in graph["clusters"]:
        if c["kind"] != "zone" or c["zone"] not in zone_layers:
            continue
        lo, hi = zone_layers[c["zone"]]
        top = [boxes[n]["y"] for n in c["nodes"]]
        bottom = [boxes[n]["y"] + boxes[n]["h"] for n in c["nodes"]]
        for child in graph["clusters"]:
            if child.get("parent") == c["id"] and child["id"] in cboxes:
                top.append(cboxes[child["id"]]["y"])
                bottom.append(cboxes[child["id"]]["y"] + cboxes[child["id"]]["h"])
        for d, info in dummies.items():
            if lo <= info["layer"] <= hi:
                top.append(y[d] - DUMMY_GAP)
                bottom.append(y[d] + DUMMY_GAP)
        x0 = col_x[lo] - ZONE_PAD - (GROUP_PAD if c["zone"] in GROUP_ZONES else 0)
        x1 = col_x[hi] + col_w[hi] + ZONE_PAD + (GROUP_PAD if c["zone"] in GROUP_ZONES else 0)
        y0 = min(top) - ZONE_PAD - ZONE_TITLE_H
        cboxes[c["id"]] = {"x": x0, "y": y0, "w": x1 - x0, "h": max(bottom) + ZONE_PAD - y0,
                           "text": [_clip(c["title"], ZONE_TITLE_CHARS), _clip(c["subtitle"], ZONE_TITLE_CHARS)]}
    L.cboxes = cboxes


def _place_drawing(L):
    """Step 11: shift the drawing to the margin; the layout result."""
    boxes, cboxes, edge_points, layer_of, nodes, best_cross = L.boxes, L.cboxes, L.edge_points, L.layer_of, L.nodes, L.best_cross
    # Shift everything so the drawing starts at (MARGIN, MARGIN).
    all_y = [b2["y"] for b2 in boxes.values()] + [b2["y"] for b2 in cboxes.values()]
    all_y += [p[1] for e in edge_points.values() for p in e["points"]]
    all_x = [b2["x"] for b2 in boxes.values()] + [b2["x"] for b2 in cboxes.values()]
    dy = MARGIN - min(all_y) if all_y else 0
    dx = MARGIN - min(all_x) if all_x else 0
    for box in list(boxes.values()) + list(cboxes.values()):
        box["x"] = round(box["x"] + dx, 1)
        box["y"] = round(box["y"] + dy, 1)
        box["w"] = round(box["w"], 1)
        box["h"] = round(box["h"], 1)
    for e in edge_points.values():
        e["points"] = [[round(p[0] + dx, 1), round(p[1] + dy, 1)] for p in e["points"]]
    right = [b2["x"] + b2["w"] for b2 in list(boxes.values()) + list(cboxes.values())]
    lower = [b2["y"] + b2["h"] for b2 in list(boxes.values()) + list(cboxes.values())]
    return {
        "width": round(max(right, default=0) + MARGIN, 1),
        "height": round(max(lower, default=0) + MARGIN, 1),
        "nodes": {k: boxes[k] for k in sorted(boxes)},
        "edges": {k: edge_points[k] for k in sorted(edge_points)},
        "clusters": {k: cboxes[k] for k in sorted(cboxes)},
        "layers": {v: layer_of[v] for v in sorted(nodes)},
        "crossings": best_cross,
    }

def layout_graph(graph):
    """Return {width, height, nodes, edges, clusters, layers, crossings}: boxes and orthogonal edge
    polylines, computed by the named steps below in order (each reads and adds fields of L)."""
    L = types.SimpleNamespace(graph=graph)
    nodes = {n["id"]: n for n in graph["nodes"]}
    zone_rank = {z: i for i, z in enumerate(ZONES)}
    order_of = {nid: i for i, nid in enumerate(sorted(nodes, key=lambda k: (zone_rank[nodes[k]["zone"]], k)))}
    L.nodes, L.zone_rank, L.order_of = nodes, zone_rank, order_of
    for step in (_orient_edges, _assign_layers, _add_dummies, _order_layers, _vertical_positions,
                 _assign_ports, _assign_tracks, _column_positions, _boxes_and_routes, _cluster_boxes):
        step(L)
    return _place_drawing(L)


# ---- Page ----------------------------------------------------------------------------------

def default_title(model):
    """Return the graph page's title: the kernel file's stem (as on the waveform page) and what the page shows."""
    return f"{render_waveform.kernel_stem(model)} - pipeline dataflow graph"


def page_model(model):
    """Return the JSON model embedded in the page: the graph and its layout."""
    graph = build_graph(model)
    return {"graph": graph, "layout": layout_graph(graph)}


def render(model, title=None):
    """Return the complete self-contained dataflow graph page for a parsed model."""
    title = title if title is not None else default_title(model)
    # The header facts (and their wording) are the waveform page's, so both pages agree.
    facts = render_waveform.header_facts(model)

    texts = {"TITLE": title, "HEADING": title}
    texts.update({f"FACT_{key.upper()}": facts[key] for key in ("kernel", "mainloop", "pipeline", "schedule")})
    assets = {"THEME_CSS": THEME_CSS_ASSET, "COMMON_CSS": COMMON_CSS_ASSET, "GRAPH_CSS": GRAPH_CSS_ASSET,
              "COMMON_JS": COMMON_JS_ASSET, "GRAPH_JS": GRAPH_JS_ASSET}
    return pagekit.render_template(TEMPLATE_ASSET, texts, assets, page_model(model))
