#!/usr/bin/env python3
"""CuTe DSL (Python) front end: pipelines, roles and ops of a CuTe DSL kernel, read with `ast`.

CUTLASS's CuTe DSL kernels (FlashAttention-4's flash_attn/cute/*.py, CUTLASS's
examples/python/CuTeDSL) write the same pipeline API as the C++ headers, in Python. This module
reads one such file with the standard `ast` module (never a regex over the source) and returns
the JSON model of parse_cutlass.py (schema_version 3, `language: "cute-dsl"`).

Steps (each a small function or class below):
  1. read_source (parse_core's, shared with the C++ front end: size, binary and encoding
     checks), ast.parse.
  2. Module index: classes, their methods, module functions, `@cute.struct` fields (buffers),
     literal `self.x = N` attributes (constants).
  3. Each `@cute.kernel` method is walked statement by statement with a small abstract
     environment (name -> Value: a pipeline object, a producer/consumer participant, a handle,
     a TMA copy function, a `partial`, a method reference...). Calls are classified by a table
     of recognisers; calls of methods of the class, `partial` bindings and local functions are
     followed into their bodies (bounded), and their ops are listed at the call site with `via`.
  4. Role branches (`if warp_idx == self.tma_warp_id:`) split the kernel into functions.
Nothing here renders anything.
"""

import ast
import re
import sys
from pathlib import Path

import parse_core
import parse_mbarrier
import programs_dsl
from parse_core import MAX_TEXT_CHARS, SCHEMA_VERSION, InputError, ParseError, operand_name, role_of

LANGUAGE = "cute-dsl"
MAX_NESTING = 100           # statements/expressions nested deeper are skipped (with a warning)
MAX_HELPER_DEPTH = 6        # helper calls followed at most this deep
WORK_PER_NODE = 40          # the walk visits at most this many nodes per node of the file...
MIN_WORK = 200_000          # ...and at least this many (following helpers repeats their bodies)
MAX_OPS_PER_FUNCTION = 5000
# ast.parse costs seconds per megabyte and builds a large tree; DSL kernels are < 300 KB
# (FA4's largest, flash_bwd_sm100.py, is about 220 KB), so larger Python files are refused.
MAX_PYTHON_CHARS = 2 * 1024 * 1024

# ----------------------------------------------------------------------------------------------
# Names the recognisers read (each documented in docs/dsl.md)
# ----------------------------------------------------------------------------------------------

# Pipeline method -> op kind. FA4's index/phase wrappers (flash_attn/cute/pipeline.py) map to the
# op they wrap.
PIPELINE_METHODS = {
    "producer_acquire": "producer_acquire",
    "producer_try_acquire": "producer_try_acquire",
    "producer_commit": "producer_commit",
    "producer_tail": "producer_tail",
    "producer_get_barrier": "producer_get_barrier",
    "consumer_wait": "consumer_wait",
    "consumer_try_wait": "consumer_try_wait",
    "consumer_test_wait": "consumer_test_wait",
    "consumer_release": "consumer_release",
    "producer_acquire_w_index_phase": "producer_acquire",
    "producer_commit_w_index": "producer_commit",
    "consumer_wait_w_index_phase": "consumer_wait",
    "consumer_release_w_index": "consumer_release",
}
# PipelineTmaStore: its "pipeline" ops are TMA-store bookkeeping (bulk commit / wait groups).
TMA_STORE_METHODS = {"producer_commit": "tma_store_arrive", "producer_acquire": "tma_store_wait",
                     "producer_tail": "tma_store_wait"}
# pipeline.sync_object_full / sync_object_empty used directly (FA4's SM100 kernels).
SYNC_OBJECT_OPS = {
    ("full", "wait"): "consumer_wait", ("full", "try_wait"): "consumer_try_wait",
    ("full", "arrive"): "producer_commit", ("empty", "wait"): "producer_acquire",
    ("empty", "try_wait"): "producer_try_acquire", ("empty", "arrive"): "consumer_release",
}
# Participants API (cutlass.pipeline PipelineProducer / PipelineConsumer and their handles).
PRODUCER_PARTICIPANT_OPS = {"acquire": "producer_acquire", "acquire_and_advance": "producer_acquire",
                            "try_acquire": "producer_try_acquire", "commit": "producer_commit",
                            "tail": "producer_tail"}
CONSUMER_PARTICIPANT_OPS = {"wait": "consumer_wait", "wait_and_advance": "consumer_wait",
                            "try_wait": "consumer_try_wait", "release": "consumer_release"}
HANDLE_OPS = {"producer": {"commit": "producer_commit"}, "consumer": {"release": "consumer_release"}}
NAMED_BARRIER_OPS = {"arrive": "named_barrier_arrive", "arrive_unaligned": "named_barrier_arrive",
                     "wait": "named_barrier_sync", "wait_unaligned": "named_barrier_sync",
                     "arrive_and_wait": "named_barrier_sync", "sync": "named_barrier_sync",
                     "arrive_and_wait_unaligned": "named_barrier_sync"}
ORDER_BARRIER_OPS = {"wait": "order_wait", "arrive": "order_arrive"}
# Free functions, by the last two parts of their dotted name.
FREE_FUNCTION_OPS = {
    ("warpgroup", "fence"): "warpgroup_arrive",
    ("warpgroup", "commit_group"): "warpgroup_commit",
    ("warpgroup", "wait_group"): "warpgroup_wait",
    ("arch", "barrier"): "named_barrier_sync",
    ("arch", "barrier_arrive"): "named_barrier_arrive",
    ("pipeline", "sync"): "named_barrier_sync",
    ("pipeline", "arrive"): "named_barrier_arrive",
    ("arch", "cp_async_bulk_commit_group"): "tma_store_arrive",
    ("arch", "cp_async_bulk_wait_group"): "tma_store_wait",
    ("tcgen05", "commit"): "umma_arrive",
}
# FA4's / FA3-style named order barriers between consumer warpgroups (as in parse_cutlass).
ORDER_HELPERS = {"warp_scheduler_barrier_sync": "order_wait",
                 "warp_scheduler_barrier_arrive": "order_arrive"}

RE_PIPELINE_CLASS = re.compile(r"Pipeline[A-Z]\w*$")
RE_GEMM_FUNCTION = re.compile(r"gemm(?:_\w+)?$")
RE_TMA_FACTORY = re.compile(r"tma\w*copy\w*fn$|tma_get_copy_fn$")
RE_TMA_ATOM_OPERAND = re.compile(r"tma_(?:atom|load)_?(?P<operand>[A-Za-z][A-Za-z0-9]*?)(?:_fn)?$")
RE_SMEM_NAME = re.compile(r"^s(?P<operand>d?[A-Z]\w*|[a-z])$")
RE_PARTITION_OPERAND = re.compile(r"s(?P<operand>[A-Z][A-Za-z0-9]*)$")
RE_WARP_INDEX = re.compile(r"^(?:warp_idx|warp_group_idx|warpgroup_idx|wg_idx|warp_id)\w*$")
RE_ROLE_ATTR = re.compile(r"^(?:num_)?(?P<role>[a-z][a-z0-9_]*?)_(?:warp|warpgroup|warp_group)s?(?:_ids?|_idx)?$")
RE_NOT_BUFFER = re.compile(r"mbar|barrier|ptr|_full|_empty", re.IGNORECASE)


# ----------------------------------------------------------------------------------------------
# Abstract values
# ----------------------------------------------------------------------------------------------


class Value:
    """Base of the abstract values a name can hold; Unknown is the plain instance."""

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


UNKNOWN = Value()
TEXTS = " texts"   # env key (not an identifier): parameter -> the caller's argument text


class SelfRef(Value):
    """`self` inside a method."""


class Pipe(Value):
    """A created pipeline object (pipeline_objects[] entry)."""

    def __init__(self, name, classes, auto=False):
        self.name, self.classes, self.auto = name, classes, auto


class PipeCreate(Value):
    """The result of `X.PipelineY.create(...)` before it is bound to a name."""

    def __init__(self, cls, stages, node, groups=None):
        self.cls, self.stages, self.node, self.groups = cls, stages, node, groups


class Factory(Value):
    """A method of a base class in a sibling module that returns a created pipeline
    (DSL_SIBLING_FACTORY): the classes its `create` may make, its num_stages text, where it is."""

    def __init__(self, classes, stages, where):
        self.classes, self.stages, self.where = classes, stages, where


class Participant(Value):
    """A PipelineProducer / PipelineConsumer of a pipeline."""

    def __init__(self, pipe, side):
        self.pipe, self.side = pipe, side


class Participants(Value):
    """`....make_participants()`: the (producer, consumer) pair."""

    def __init__(self, pipe):
        self.pipe = pipe


class Handle(Value):
    """What acquire_and_advance() / wait_and_advance() return (commit/release/barrier)."""

    def __init__(self, pipe, side):
        self.pipe, self.side = pipe, side


class Barrier(Value):
    """A pointer to a pipeline's full barrier (producer_get_barrier, handle.barrier)."""

    def __init__(self, pipe):
        self.pipe = pipe


class SyncObject(Value):
    """pipeline.sync_object_full / sync_object_empty."""

    def __init__(self, pipe, which):
        self.pipe, self.which = pipe, which


class TmaFn(Value):
    """A callable that issues a TMA load (FA4's copy_utils.tma_get_copy_fn / tma_producer_copy_fn)."""

    def __init__(self, operand, pipe):
        self.operand, self.pipe = operand, pipe


class NamedBar(Value):
    """A NamedBarrier object, with its id and thread-count texts."""

    def __init__(self, barrier_id, count):
        self.barrier_id, self.count = barrier_id, count


class OrderBar(Value):
    """A PipelineOrder object (order barrier between consumer groups)."""

    def __init__(self, name):
        self.name = name


class Callable(Value):
    """A function of this file: a method (bound to self), a module function, a local def, a lambda."""

    def __init__(self, name, node, kind, env=None):
        self.name, self.node, self.kind, self.env = name, node, kind, env


class External(Value):
    """A name not defined in this file (cute.copy, sm90_utils.gemm_zero_init, ...), as dotted text."""

    def __init__(self, dotted):
        self.dotted = dotted


class Partial(Value):
    """functools.partial(func, *args, **kwargs): args are (value, node) pairs."""

    def __init__(self, func, args, kwargs):
        self.func, self.args, self.kwargs = func, args, kwargs


class Alts(Value):
    """One of several values (an `a if c else b`, a list of partials indexed by a variable)."""

    def __init__(self, values):
        self.values = values


class Seq(Value):
    """A tuple or list of values (with their expression nodes when it was a literal)."""

    def __init__(self, values, nodes=None):
        self.values, self.nodes = values, nodes


class RoleCond(Value):
    """A boolean computed from a warp index (is_tma_warp = warp_idx == self.tma_warp_id)."""

    def __init__(self, node):
        self.node = node


def _pipe_of(value):
    """The Pipe a value refers to (a pipe, participant, handle, barrier), else None."""
    if isinstance(value, Pipe):
        return value
    if isinstance(value, (Participant, Handle, Barrier, SyncObject, Participants)):
        return value.pipe
    return None


# ----------------------------------------------------------------------------------------------
# Source text helpers
# ----------------------------------------------------------------------------------------------


class SourceText:
    """Line-indexed text of one file; segments are sliced by ast's (line, UTF-8 byte col)."""

    def __init__(self, text, display):
        self.lines = text.split("\n")
        self.display = display
        self.warnings = []
        self._seen = set()

    def warn(self, line, msg):
        """Record one warning `path:line: msg` (each distinct warning once)."""
        key = (line, msg)
        if key in self._seen:
            return
        self._seen.add(key)
        self.warnings.append(f"{self.display}:{line}: {msg}")

    def segment(self, node, limit=4 * MAX_TEXT_CHARS):
        """The source text of a node (at most about `limit` characters), else ast.unparse."""
        try:
            l1, l2 = node.lineno, node.end_lineno
            c1, c2 = node.col_offset, node.end_col_offset
        except AttributeError:
            return ""
        if l1 is None or l2 is None or l1 < 1 or l2 > len(self.lines):
            return ""
        if l1 == l2:
            raw = self.lines[l1 - 1].encode("utf-8")[c1:c2]
            return raw[:limit * 4].decode("utf-8", errors="replace")
        parts = [self.lines[l1 - 1].encode("utf-8")[c1:].decode("utf-8", errors="replace")]
        size = len(parts[0])
        for ln in range(l1 + 1, l2):
            if size > limit:
                return "\n".join(parts)
            parts.append(self.lines[ln - 1])
            size += len(parts[-1])
        if size <= limit:
            parts.append(self.lines[l2 - 1].encode("utf-8")[:c2].decode("utf-8", errors="replace"))
        return "\n".join(parts)

    def text(self, node):
        """One-line text of a node: white space collapsed, trimmed to MAX_TEXT_CHARS."""
        text = " ".join(self.segment(node).split())
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS - 3] + "..."
        return text


def dotted_name(node):
    """`a.b.c` for a Name/Attribute chain, else None (programs_dsl.dotted without the root)."""
    return programs_dsl.dotted(node)[0]


def operand_of_atom(text):
    """The operand a TMA atom / copy-function name names: tma_atom_a -> A, tma_load_K_fn -> K."""
    last = re.split(r"[^\w]+", text.strip())
    for word in reversed([w for w in last if w]):
        m = RE_TMA_ATOM_OPERAND.search(word)
        if m:
            return operand_name(m.group("operand"))
    return None


def _int_literal(node):
    """The int of a literal (or a negated literal), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return -inner if inner is not None else None
    return None


def _decorator_last(node):
    """Last dotted part of a decorator (`cute.kernel` -> kernel, `cute.jit(...)` -> jit)."""
    if isinstance(node, ast.Call):
        node = node.func
    name = dotted_name(node)
    return name.rsplit(".", 1)[-1] if name else None


# ----------------------------------------------------------------------------------------------
# Module index: classes, methods, buffers, constants
# ----------------------------------------------------------------------------------------------


class ModuleIndex:
    """Classes and their methods, module functions, buffers and literal self attributes."""

    def __init__(self, tree, src, path=None):
        self.src, self.tree, self.path = src, tree, path
        self.pipeline_aliases = _pipeline_aliases(tree)   # DSL_IMPORT_ALIASES: local name -> (class, module, line)
        self.factories = {}        # (class, method) -> Factory or None (DSL_SIBLING_FACTORY, read once)
        self.classes = {}          # class name -> {"node", "methods": {name: FunctionDef}, "bases"}
        self.functions = {}        # module-level function name -> FunctionDef
        self.kernels = []          # (class name or None, FunctionDef) decorated @*.kernel
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                methods = {n.name: n for n in node.body
                           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                bases = [dotted_name(b) or "" for b in node.bases]
                self.classes[node.name] = {"node": node, "methods": methods, "bases": bases}
                for m in methods.values():
                    if any(_decorator_last(d) == "kernel" for d in m.decorator_list):
                        self.kernels.append((node.name, m))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
                if any(_decorator_last(d) == "kernel" for d in node.decorator_list):
                    self.kernels.append((None, node))
        self.constants = {}        # class name -> {attr: (int value or int list, line)}
        self.self_values = {}      # class name -> {attr: Value} (NamedBarrier objects in __init__)
        for cname, info in self.classes.items():
            self.constants[cname], self.self_values[cname] = self._self_attributes(info)

    def method(self, cname, name):
        """A method of a class or of a base class defined in this file, else None."""
        seen = set()
        while cname in self.classes and cname not in seen:
            seen.add(cname)
            info = self.classes[cname]
            if name in info["methods"]:
                return info["methods"][name]
            cname = next((b.rsplit(".", 1)[-1] for b in info["bases"]
                          if b.rsplit(".", 1)[-1] in self.classes), None)
        return None

    def sibling_factory(self, cname, name):
        """DSL_SIBLING_FACTORY: `self.name(...)` where name is no method of cname or of a base in this
        file, but of a base class imported from a sibling module (`_sibling_class`) whose body returns
        `X.create(...)` with X a pipeline class: a Factory, else None. One level: the sibling
        class's own bases are not read."""
        key = (cname, name)
        if key not in self.factories:
            self.factories[key] = self._sibling_factory(cname, name)
        return self.factories[key]

    def _sibling_factory(self, cname, name):
        seen = set()
        while cname in self.classes and cname not in seen and self.path is not None:
            seen.add(cname)
            for base in (b.rsplit(".", 1)[-1] for b in self.classes[cname]["bases"] if b):
                if base in self.classes:
                    continue
                found = _sibling_class(self.tree, self.path, base)
                method = None if found is None else next(
                    (n for n in found[0].body if isinstance(n, ast.FunctionDef) and n.name == name), None)
                if method is not None:
                    return _factory_of(method, found[2], found[1])
            cname = next((b.rsplit(".", 1)[-1] for b in self.classes[cname]["bases"]
                          if b.rsplit(".", 1)[-1] in self.classes), None)
        return None

    def _self_attributes(self, info):
        """Literal `self.x = 3` / `self.x = (4, 5)` and `self.x = NamedBarrier(...)` of a class.

        SELF_CONSTANTS: `self.x` is a constant only when every assignment to it in the class gives
        the same literal. One that gives another value, a value that is not a literal (an arm of
        `if ...: self.x = 2 else: self.x = f(...)`), an augmented or annotated assignment, or a
        tuple target naming it makes it no constant: the run then reads it as the constructor
        assigns it (sim/interpret/dsl.js dslConstructor), or not at all, never as one arm's literal.
        """
        consts, values, varying = {}, {}, set()
        for node in ast.walk(info["node"]):
            for target, value_node in _self_targets(node):
                value = _int_literal(value_node) if value_node is not None else None
                if value is None and isinstance(value_node, (ast.Tuple, ast.List)):
                    items = [_int_literal(e) for e in value_node.elts]
                    value = items if items and None not in items else None
                if value is None or (target.attr in consts and consts[target.attr][0] != value):
                    varying.add(target.attr)   # another value, or one that is not a literal: not a constant
                else:
                    consts.setdefault(target.attr, (value, node.lineno))
                if isinstance(value_node, ast.Call):
                    callee = dotted_name(value_node.func) or ""
                    if callee.rsplit(".", 1)[-1] == "NamedBarrier":
                        values[target.attr] = _named_barrier(self.src, value_node)
        return {k: v for k, v in consts.items() if k not in varying}, values


def _pipeline_aliases(tree):
    """DSL_IMPORT_ALIASES: {local name: (class, module, line)} of `from M import PipelineX as Y`
    at module level (quack gemm_sm90.py 33: `from quack.pipeline import PipelineAsync as
    QuackPipelineAsync`): `Y.create(...)` creates a PipelineX, taken by its name."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.asname and alias.asname != alias.name and RE_PIPELINE_CLASS.match(alias.name):
                    out[alias.asname] = (alias.name, node.module, node.lineno)
    return out


def _factory_of(fn, text, display):
    """The Factory of a sibling module's method, or None: every `return` of its body is
    `X.create(...)` where X is a pipeline class (dotted), or a local bound once to such a class or
    to `A if c else B` of two (quack gemm_base.py 1239-1240: `pipeline_cls =
    pipeline.PipelineTmaAsync if not self.gather_A else PipelineTmaCpAsync`; `return
    pipeline_cls.create(...)`); its num_stages keyword's text from that module."""
    locals_ = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            names = [node.value.body, node.value.orelse] if isinstance(node.value, ast.IfExp) else [node.value]
            classes = [(dotted_name(n) or "").rsplit(".", 1)[-1] for n in names]
            name = node.targets[0].id
            locals_[name] = None if name in locals_ or not all(RE_PIPELINE_CLASS.match(c) for c in classes) else classes
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    classes, stages = [], None
    for ret in returns:
        call = ret.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "create"):
            return None
        recv = dotted_name(call.func.value) or ""
        made = locals_.get(recv) if recv in locals_ else ([recv.rsplit(".", 1)[-1]] if RE_PIPELINE_CLASS.match(
            recv.rsplit(".", 1)[-1]) else None)
        if not made:
            return None
        classes += [c for c in made if c not in classes]
        kw = next((k.value for k in call.keywords if k.arg == "num_stages"), None)
        if kw is not None:
            stages = ast.get_source_segment(text, kw)
    if not classes:
        return None
    return Factory(classes, stages, {"file": display, "line": fn.lineno, "method": fn.name})


def _self_targets(node):
    """The `self.x` targets an assignment statement sets, each with its value node (None where the
    statement gives no single value per target: augmented, annotated without a value, or unpacking)."""
    def is_self_attr(t):
        return isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    if isinstance(node, ast.Assign):
        out = []
        for target in node.targets:
            if is_self_attr(target):
                out.append((target, node.value))
            elif isinstance(target, (ast.Tuple, ast.List)):
                out.extend((t, None) for t in target.elts if is_self_attr(t))
        return out
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and is_self_attr(node.target):
        return [(node.target, node.value if isinstance(node, ast.AnnAssign) else None)]
    return []


def _named_barrier(src, call):
    """NamedBar from `NamedBarrier(barrier_id=..., num_threads=...)`."""
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    bid = kw.get("barrier_id", call.args[0] if call.args else None)
    count = kw.get("num_threads", call.args[1] if len(call.args) > 1 else None)
    return NamedBar(src.text(bid) if bid is not None else None,
                    src.text(count) if count is not None else None)


class TreeFacts:
    """One pass over the whole tree: node count, identifiers, struct classes, smem tensor assignments."""

    def __init__(self, tree):
        self.count, self.names, self.structs, self.tensors = 0, set(), [], []
        for node in ast.walk(tree):
            self.count += 1
            kind = type(node)
            if kind is ast.Name:
                self.names.add(node.id)
            elif kind is ast.Attribute:
                self.names.add(node.attr)
            elif kind is ast.alias:
                self.names.update(node.name.split("."))
            elif kind is ast.ClassDef:
                if any(_decorator_last(d) == "struct" for d in node.decorator_list):
                    self.structs.append(node)
            elif kind is ast.Assign and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) and \
                    isinstance(node.value.func, ast.Attribute) and \
                    node.value.func.attr in ("get_tensor", "allocate_tensor"):
                self.tensors.append(node)


def find_buffers(facts, src):
    """Shared-memory buffers: fields sX of `@cute.struct` classes, else `sX = ....get_tensor(...)`."""
    buffers, seen = [], set()
    structs, tensors = facts.structs, facts.tensors
    for cls in sorted(structs, key=lambda n: n.lineno):
        for field in cls.body:
            if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
                continue
            name = field.target.id
            m = RE_SMEM_NAME.match(name)
            if not m or RE_NOT_BUFFER.search(name) or name in seen:
                continue
            seen.add(name)
            buffers.append({"name": name, "operand": operand_name(m.group("operand")),
                            "layout": src.text(field.annotation), "line": field.lineno,
                            "struct": cls.name, "text": src.text(field)})
    for node in sorted(tensors, key=lambda n: n.lineno):
        name = node.targets[0].id
        m = RE_SMEM_NAME.match(name)
        if not m or RE_NOT_BUFFER.search(name) or name in seen:
            continue
        seen.add(name)
        call = node.value
        layout = src.text(call.args[0]) if call.args else ""
        buffers.append({"name": name, "operand": operand_name(m.group("operand")), "layout": layout,
                        "line": node.lineno, "struct": None, "text": src.text(node)})
    return buffers


def buffer_for(operand, buffers):
    """Name of the buffer holding an operand (case-insensitive), else None."""
    if not operand:
        return None
    for b in buffers:
        if b["operand"].lower() == operand.lower():
            return b["name"]
    return None


# ----------------------------------------------------------------------------------------------
# The walk
# ----------------------------------------------------------------------------------------------


class Budget(Exception):
    """Raised inside the walk when the work budget is spent (caught per function)."""


class Frame:
    """One function being listed (a kernel, a role branch of one, or another function) and its ops."""

    def __init__(self, name, line, end_line, role_label=None, branch=None):
        self.name, self.line, self.end_line = name, line, end_line
        self.role_label, self.branch = role_label, branch
        self.ops = []


class Walker:
    """Walks kernels (and unreached functions) and lists their ops."""

    def __init__(self, src, index, buffers, arch, nodes):
        self.src, self.index, self.buffers, self.arch = src, index, buffers, arch
        self.pipes = {}             # name -> pipeline object dict (pipeline_objects entry)
        self.pipe_values = {}       # name -> Pipe
        self.frames = []            # finished Frames, in source order
        self.warp_roles = []
        self.reached = set()        # ids of FunctionDef nodes walked
        self.work_left = max(MIN_WORK, WORK_PER_NODE * nodes)
        self.budget_warned = False
        self.depth = 0
        self.keyword_of = {}        # id(expression node) -> the keyword it is passed as

    # -- frames, ops ---------------------------------------------------------------------------

    def run(self):
        """Walk every kernel, then every function with ops that no kernel reached."""
        for cname, fn in sorted(self.index.kernels, key=lambda k: k[1].lineno):
            self.walk_function(cname, fn, kernel=True)
        others = [(c, m) for c, info in self.index.classes.items() for m in info["methods"].values()]
        others += [(None, f) for f in self.index.functions.values()]
        for cname, fn in sorted(others, key=lambda k: k[1].lineno):
            if id(fn) not in self.reached:
                self.walk_function(cname, fn, kernel=False)

    def walk_function(self, cname, fn, kernel):
        """List one function: a kernel is split by its role branches."""
        frame = Frame(fn.name, fn.lineno, fn.end_lineno or fn.lineno)
        self.reached.add(id(fn))
        env = self._params_env(cname, fn, bound=None)
        ctx = {"cls": cname, "frame": frame, "via": [], "kernel": kernel, "in_role": False,
               "fn_name": fn.name, "returns": [], "env_texts": {}, "fn_node": fn}
        try:
            self.walk_body(fn.body, env, ctx)
        except Budget:
            pass   # warned once by spend() / emit()
        if frame.ops:
            self.frames.append(frame)

    def _params_env(self, cname, fn, bound, caller_texts=None):
        """Environment of a function body: `self`, and parameters bound to the call's values."""
        env = {}
        args = fn.args
        params = [a.arg for a in args.posonlyargs + args.args]
        if cname is not None and params and params[0] == "self":
            env["self"] = SelfRef()
            params = params[1:]
        kwonly = [a.arg for a in args.kwonlyargs]
        for p in params + kwonly:
            env[p] = UNKNOWN
        if bound is not None:
            pos, kw = bound
            texts = {}
            for name, (value, node) in zip(params, pos):
                env[name] = value
                texts[name] = self.arg_text(node, caller_texts)
            for name, (value, node) in kw.items():
                if name in env:
                    env[name] = value
                    texts[name] = self.arg_text(node, caller_texts)
            env[TEXTS] = texts
        return env

    def arg_text(self, node, caller_texts):
        """The text an argument stands for: a parameter passed on keeps the caller's text."""
        if isinstance(node, ast.Name) and caller_texts and node.id in caller_texts:
            return caller_texts[node.id]
        return self.src.text(node)

    def spend(self, n=1):
        """Count work; raise Budget when the file's budget is spent."""
        self.work_left -= n
        if self.work_left < 0:
            if not self.budget_warned:
                self.budget_warned = True
                self.src.warn(1, "work budget spent following helpers: later ops are not listed")
            raise Budget()

    def emit(self, ctx, kind, node, receiver, pipe=None, **extra):
        """Append an op to the current frame (op line = the call's line)."""
        frame = ctx["frame"]
        if len(frame.ops) >= MAX_OPS_PER_FUNCTION:
            self.src.warn(node.lineno, f"more than {MAX_OPS_PER_FUNCTION} ops in {frame.name}: "
                          "the rest are not listed")
            raise Budget()
        stmt = ctx.get("stmt")
        text_node = stmt if stmt is not None and stmt.lineno <= node.lineno <= (stmt.end_lineno or 0) else node
        op = {
            "op": kind, "line": node.lineno,
            "end_line": max(node.lineno, getattr(text_node, "end_lineno", None) or node.lineno),
            "receiver": receiver, "pipeline": pipe.name if pipe else None,
            "buffer": None, "text": self.src.text(text_node),
            # For programs_dsl (removed before the model is returned): the call, the function
            # walked, the helper / lambda calls on the way (each with its callee and call node).
            "_call": node, "_fn": ctx["fn_node"], "_via": list(ctx["via"]),
        }
        if pipe:
            op["object"] = pipe.name   # absent when the op names no pipeline object (the schema's `object: str?`)
        for key, value in extra.items():
            if value is not None:
                op[key] = value
        if op.get("operand") and op["buffer"] is None:
            op["buffer"] = buffer_for(op["operand"], self.buffers)
        if ctx["via"]:
            outer = ctx["via"][0]
            op["via"] = {k: v for k, v in outer.items() if not k.startswith("_")}
            if len(ctx["via"]) > 1:
                # The inner calls, compactly: [name, call line] (+ the name it was called by).
                op["via"]["chain"] = [
                    [v.get("helper") or v.get("lambda"), v["line"]] + ([v["as"]] if "as" in v else [])
                    for v in ctx["via"][1:]]
        frame.ops.append(op)
        return op

    # -- statements ----------------------------------------------------------------------------

    def walk_body(self, stmts, env, ctx):
        """Walk a statement list in order."""
        for stmt in stmts:
            self.walk_stmt(stmt, env, ctx)

    def walk_stmt(self, stmt, env, ctx):
        """One statement: bind names, evaluate expressions (emitting ops), recurse into blocks."""
        self.spend()
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                self.src.warn(stmt.lineno, f"statements nested more than {MAX_NESTING} deep are not parsed")
                return
            self._walk_stmt(stmt, env, ctx)
        finally:
            self.depth -= 1

    def _walk_stmt(self, stmt, env, ctx):
        """walk_stmt's body (ctx["stmt"] is the simple statement whose text ops show)."""
        simple = not isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                                       ast.AsyncWith, ast.Try, ast.FunctionDef, ast.AsyncFunctionDef,
                                       ast.ClassDef)) and type(stmt).__name__ not in ("Match", "TryStar")
        saved = ctx.get("stmt")
        ctx["stmt"] = stmt if simple else None
        try:
            if isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value, env, ctx)
                for target in stmt.targets:
                    self.bind(target, value, env, ctx, stmt)
            elif isinstance(stmt, ast.AnnAssign):
                value = self.eval(stmt.value, env, ctx) if stmt.value is not None else UNKNOWN
                self.bind(stmt.target, value, env, ctx, stmt)
            elif isinstance(stmt, ast.AugAssign):
                self.eval(stmt.value, env, ctx)
            elif isinstance(stmt, ast.Expr):
                self.eval(stmt.value, env, ctx)
            elif isinstance(stmt, ast.Return):
                if stmt.value is not None:
                    ctx["returns"].append(self.eval(stmt.value, env, ctx))
            elif isinstance(stmt, ast.If):
                self.walk_if(stmt, env, ctx)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                self.eval(stmt.iter, env, ctx)
                self.bind(stmt.target, UNKNOWN, env, ctx, stmt)
                self.walk_body(stmt.body, env, ctx)
                self.walk_body(stmt.orelse, env, ctx)
            elif isinstance(stmt, ast.While):
                self.eval(stmt.test, env, ctx)
                self.walk_body(stmt.body, env, ctx)
                self.walk_body(stmt.orelse, env, ctx)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    value = self.eval(item.context_expr, env, ctx)
                    if item.optional_vars is not None:
                        self.bind(item.optional_vars, value, env, ctx, stmt)
                self.walk_body(stmt.body, env, ctx)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self.walk_body(stmt.body, env, ctx)
                for handler in stmt.handlers:
                    self.walk_body(handler.body, env, ctx)
                self.walk_body(stmt.orelse, env, ctx)
                self.walk_body(stmt.finalbody, env, ctx)
            elif type(stmt).__name__ == "Match":
                self.eval(stmt.subject, env, ctx)
                for case in stmt.cases:
                    self.walk_body(case.body, env, ctx)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                env[stmt.name] = Callable(stmt.name, stmt, "local", env)
            elif isinstance(stmt, ast.ClassDef):
                pass   # @cute.struct layouts: read by find_buffers
            else:
                for child in ast.iter_child_nodes(stmt):
                    if isinstance(child, ast.expr):
                        self.eval(child, env, ctx)
        finally:
            ctx["stmt"] = saved

    def bind(self, target, value, env, ctx, stmt):
        """Bind an assignment target to a value (tuples element-wise; creations registered)."""
        if isinstance(target, ast.Name):
            if isinstance(value, PipeCreate):
                value = self.register_pipe(target.id, value, stmt)
            elif isinstance(value, Participants):
                value = value.pipe
            if isinstance(value, Pipe) and value.auto:
                value = self.rename_pipe(value, target.id, line=stmt.lineno if stmt is not None else None)
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            names = target.elts
            if isinstance(value, Participants):
                if value.pipe.auto and all(isinstance(t, ast.Name) for t in names):
                    self.rename_pipe(value.pipe, ", ".join(t.id for t in names),
                                     participants=[t.id for t in names])
                parts = [Participant(value.pipe, "producer"), Participant(value.pipe, "consumer")]
                for t, v in zip(names, parts):
                    self.bind(t, v, env, ctx, stmt)
                return
            if isinstance(value, Seq) and len(value.values) == len(names):
                for t, v in zip(names, value.values):
                    self.bind(t, v, env, ctx, stmt)
                return
            first = value if isinstance(value, TmaFn) else UNKNOWN
            for i, t in enumerate(names):
                self.bind(t.value if isinstance(t, ast.Starred) else t, first if i == 0 else UNKNOWN,
                          env, ctx, stmt)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN, env, ctx, stmt)
        else:
            # self.x = ..., a[i] = ...: evaluate the sub-expressions for their calls.
            for child in ast.iter_child_nodes(target):
                if isinstance(child, ast.expr):
                    self.eval(child, env, ctx)

    def rename_pipe(self, pipe, name, participants=None, line=None):
        """Give a pipeline created in a helper's `return` the name its caller binds it to, and the
        line of that binding. DSL_PIPELINE_FACTORY: each binding of a factory's result is listed in
        the object's `creates` (its line, class and groups), and a name bound again (another arm:
        `pipeline_K = make_pipeline(AsyncUmma, ...)` where the other arm makes a TmaUmma one, FA4
        MLA 953 / 962) is one object of both classes."""
        auto = self.pipes.pop(pipe.name, None)
        self.pipe_values.pop(pipe.name, None)
        made = None
        if auto is not None and auto.get("groups") is not None and line is not None:
            made = {"line": line, "class": auto["class"], "groups": auto.pop("groups")}
        if name in self.pipes:
            if auto is not None:
                for cls in auto["class"] if isinstance(auto["class"], list) else [auto["class"]]:
                    self.register_pipe(name, PipeCreate(cls, auto["stages"], None), None)
                if made:
                    self.pipes[name].setdefault("creates", []).append(made)
            return self.pipe_values[name]
        entry = auto
        entry["name"] = entry["alias"] = name
        if line is not None:
            entry["line"] = line
        if made:
            entry["creates"] = [made]
        if participants:
            entry["participants"] = participants
        pipe.name, pipe.auto = name, False
        self.pipes[name] = entry
        self.pipe_values[name] = pipe
        return pipe

    def register_pipe(self, name, create, node, participants=None, auto=False):
        """Record a created pipeline object; the same name created twice is one object."""
        entry = self.pipes.get(name)
        if entry is None:
            entry = {"name": name, "alias": name, "class": create.cls, "stages": create.stages,
                     "line": create.node.lineno, "kind": "created", "text": self.src.text(node)}
            if create.groups:
                entry["groups"] = create.groups
            if participants:
                entry["participants"] = participants
            if getattr(create, "factory", None):
                entry["factory"] = create.factory
            self.pipes[name] = entry
            self.pipe_values[name] = Pipe(name, [create.cls], auto)
            for cls in getattr(create, "more", ()):
                self.register_pipe(name, PipeCreate(cls, create.stages, create.node), node)
        else:
            classes = entry["class"] if isinstance(entry["class"], list) else [entry["class"]]
            if create.cls not in classes:
                classes.append(create.cls)
                self.pipe_values[name].classes = list(classes)
            entry["class"] = classes if len(classes) > 1 else classes[0]
            if create.stages != entry["stages"]:
                if entry["stages"] is None:
                    entry["stages"] = create.stages
                elif create.stages is not None and create.stages not in entry["stages"].split(" | "):
                    entry["stages"] = f"{entry['stages']} | {create.stages}"
        return self.pipe_values[name]

    # -- role branches -------------------------------------------------------------------------

    def walk_if(self, stmt, env, ctx):
        """An if: a role branch of a kernel starts a new function; else walk both arms."""
        if ctx["kernel"] and not ctx["in_role"] and not ctx["via"] and self.is_role_test(stmt.test, env):
            self.eval(stmt.test, env, ctx)
            label = self.role_label(stmt.test)
            bound = env.get(stmt.test.id) if isinstance(stmt.test, ast.Name) else None
            if isinstance(bound, RoleCond):   # is_tma_warp = warp_idx == ...; if is_tma_warp:
                label = label or self.role_label(bound.node)
                stmt_test = bound.node
            else:
                stmt_test = stmt.test
            self.role_branch(stmt, stmt.body, label, self.src.text(stmt.test), env, ctx, test=stmt_test)
            if stmt.orelse:
                if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                    self.walk_stmt(stmt.orelse[0], env, ctx)
                else:
                    text = f"not ({self.src.text(stmt.test)})"
                    self.role_branch(stmt, stmt.orelse, label and f"not {label}", text, env, ctx,
                                     line=stmt.orelse[0].lineno)
            return
        self.eval(stmt.test, env, ctx)
        # Both arms are listed; a name bound differently in the two arms holds either value.
        self.spend(1 + len(env) // 16)
        env_a, env_b = dict(env), dict(env)
        self.walk_body(stmt.body, env_a, ctx)
        self.walk_body(stmt.orelse, env_b, ctx)
        for name in set(env_a) | set(env_b):
            a, b = env_a.get(name, UNKNOWN), env_b.get(name, UNKNOWN)
            env[name] = a if a is b else _alts([a, b])

    def role_branch(self, stmt, body, label, test_text, env, ctx, line=None, test=None):
        """Walk one arm of a role branch as its own function (test: the condition it selects by)."""
        line = line or stmt.lineno
        end = max((getattr(s, "end_lineno", None) or s.lineno) for s in body)
        name_label = label or test_text
        if len(name_label) > 60:
            name_label = name_label[:57] + "..."
        name = f"{ctx['fn_name']}[{name_label}]"
        taken = {f.name for f in self.frames}
        k = 2
        base = name
        while name in taken:
            name, k = f"{base} #{k}", k + 1
        frame = Frame(name, line, end, role_label=label, branch=test_text)
        inner = dict(ctx, frame=frame, in_role=True, stmt=None)
        try:
            self.walk_body(body, env, inner)
        finally:
            if frame.ops:
                self.frames.append(frame)
            role = role_of(frame.ops)
            warps = self.warps_of(test, self.src.text(test)) if test is not None else test_text
            self.warp_roles.append({"name": label or (role if role != "other" else test_text), "warps": warps,
                                    "line": line, "function": name if frame.ops else None,
                                    "test": test_text})

    def is_role_test(self, node, env):
        """True when a condition compares a warp / warpgroup index (or a name computed from one)."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Compare):
                for side in [sub.left] + list(sub.comparators):
                    if isinstance(side, ast.Name) and RE_WARP_INDEX.match(side.id):
                        return True
            elif isinstance(sub, ast.Name) and isinstance(env.get(sub.id), RoleCond):
                return True
        return False

    def role_label(self, test):
        """The role a warp test names: `self.tma_warp_id` -> tma, `self.num_dma_warp_groups` -> dma."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self.role_label(test.operand)
            return inner and f"not {inner}"
        # An attribute names the role when the test selects it: `== self.x_warp_id`,
        # `in self.x_warp_ids`, a range bound `self.x_warp_ids[0]`, or `< self.num_x_warp_groups`
        # (`warp_idx < self.mma_warp_id` only bounds another role's warps).
        naming = []
        for cmp in (n for n in ast.walk(test) if isinstance(n, ast.Compare)):
            for op, side in zip(cmp.ops, cmp.comparators):
                for node in (side, cmp.left):
                    attr = node.value if isinstance(node, ast.Subscript) else node
                    if not (isinstance(attr, ast.Attribute) and isinstance(attr.value, ast.Name)
                            and attr.value.id == "self"):
                        continue
                    if isinstance(op, (ast.Eq, ast.In)) or isinstance(node, ast.Subscript) or \
                            (attr.attr.startswith("num_") and isinstance(op, (ast.Lt, ast.GtE))):
                        naming.append(attr)
        for sub in sorted(naming, key=lambda n: (n.lineno, n.col_offset)):
            m = RE_ROLE_ATTR.match(sub.attr)
            if m:
                return m.group("role").rstrip("0123456789_") or m.group("role")
        subs = sorted((n for n in ast.walk(test) if hasattr(n, "lineno")),
                      key=lambda n: (n.lineno, n.col_offset))
        for sub in subs:
            if isinstance(sub, ast.Name) and sub.id.startswith("is_"):
                m = RE_ROLE_ATTR.match(sub.id[3:])
                if m:
                    return m.group("role").rstrip("0123456789_") or m.group("role")
        return None

    def warps_of(self, test, text):
        """The warp indexes a simple test selects (`warp_idx == 4`, `warp_idx < 4`), else its text."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
                and test.left.id.startswith("warp_idx"):
            value = self.constant_of(test.comparators[0])
            op = test.ops[0]
            if isinstance(value, int) and 0 <= value <= 64:
                if isinstance(op, ast.Eq):
                    return [value]
                if isinstance(op, ast.Lt):
                    return list(range(value))
                if isinstance(op, ast.LtE):
                    return list(range(value + 1))
            if isinstance(value, list) and isinstance(op, ast.In):
                return value
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) == 2:
            # warp_idx >= self.x_ids[0] and warp_idx <= self.x_ids[-1]: a literal range
            lo = hi = None
            for cmp in test.values:
                if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and
                        isinstance(cmp.left, ast.Name) and cmp.left.id.startswith("warp_idx")):
                    return text
                value, op = self.constant_of(cmp.comparators[0]), cmp.ops[0]
                if not isinstance(value, int):
                    return text
                if isinstance(op, (ast.GtE, ast.Gt)):
                    lo = value + (1 if isinstance(op, ast.Gt) else 0)
                elif isinstance(op, (ast.LtE, ast.Lt)):
                    hi = value - (1 if isinstance(op, ast.Lt) else 0)
            if lo is not None and hi is not None and 0 <= lo <= hi <= 64:
                return list(range(lo, hi + 1))
        return text

    def constant_of(self, node):
        """A literal int, or `self.x` / `self.x[i]` with a literal value in the class."""
        value = _int_literal(node)
        if value is not None:
            return value
        index = None
        if isinstance(node, ast.Subscript):
            index = _int_literal(node.slice)
            node = node.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            for consts in self.index.constants.values():
                if node.attr in consts:
                    value = consts[node.attr][0]
                    if index is None:
                        return value
                    if isinstance(value, list) and -len(value) <= index < len(value):
                        return value[index]
        return None

    # -- expressions ---------------------------------------------------------------------------

    def eval(self, node, env, ctx):
        """Abstract value of an expression; every call inside it is classified (ops emitted)."""
        if node is None:
            return UNKNOWN
        self.spend()
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                self.src.warn(getattr(node, "lineno", 1),
                              f"expressions nested more than {MAX_NESTING} deep are not parsed")
                return UNKNOWN
            return self._eval(node, env, ctx)
        finally:
            self.depth -= 1

    def _eval(self, node, env, ctx):
        """eval's body, by node type."""
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.index.functions:
                return Callable(node.id, self.index.functions[node.id], "function")
            return External(node.id)
        if isinstance(node, ast.Attribute):
            base = self.eval(node.value, env, ctx)
            return self.attribute(base, node, ctx)
        if isinstance(node, ast.Call):
            return self.call(node, env, ctx)
        if isinstance(node, ast.IfExp):
            self.eval(node.test, env, ctx)
            return _alts([self.eval(node.body, env, ctx), self.eval(node.orelse, env, ctx)])
        if isinstance(node, (ast.Tuple, ast.List)):
            return Seq([self.eval(e, env, ctx) for e in node.elts], list(node.elts))
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            inner = dict(env)
            for gen in node.generators:
                self.eval(gen.iter, inner, ctx)
                self.bind(gen.target, UNKNOWN, inner, ctx, node)
                for cond in gen.ifs:
                    self.eval(cond, inner, ctx)
            return Seq([self.eval(node.elt, inner, ctx)])
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value, env, ctx)
            index = self.eval(node.slice, env, ctx)
            if isinstance(base, Seq) and base.values:
                k = _int_literal(node.slice)
                if k is not None and -len(base.values) <= k < len(base.values):
                    return base.values[k]
                return _alts(base.values)
            del index
            return UNKNOWN
        if isinstance(node, ast.Compare):
            for sub in [node.left] + list(node.comparators):
                self.eval(sub, env, ctx)
            if self.is_role_test(node, env):
                return RoleCond(node)
            return UNKNOWN
        if isinstance(node, ast.BoolOp):
            values = [self.eval(v, env, ctx) for v in node.values]
            if any(isinstance(v, RoleCond) for v in values):
                return RoleCond(node)
            return UNKNOWN
        if isinstance(node, ast.Lambda):
            return Callable("lambda", node, "lambda", env)
        if isinstance(node, (ast.DictComp,)):
            return UNKNOWN
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.eval(child, env, ctx)
        return UNKNOWN

    def attribute(self, base, node, ctx):
        """Value of `base.attr`."""
        attr = node.attr
        if isinstance(base, SelfRef):
            cname = ctx["cls"]
            method = self.index.method(cname, attr) if cname else None
            if method is not None:
                return Callable(attr, method, "method")
            values = self.index.self_values.get(cname, {})
            if attr in values:
                return values[attr]
            factory = self.index.sibling_factory(cname, attr) if cname else None
            if factory is not None:
                return factory
            return External(f"self.{attr}")
        if isinstance(base, Pipe) and attr in ("sync_object_full", "sync_object_empty"):
            return SyncObject(base, attr.rsplit("_", 1)[-1])
        if isinstance(base, Handle) and attr == "barrier":
            return Barrier(base.pipe)
        if isinstance(base, External):
            return External(f"{base.dotted}.{attr}")
        return UNKNOWN

    # -- calls ---------------------------------------------------------------------------------

    def call(self, node, env, ctx):
        """Classify one call: emit its op (in source position order) and return its value."""
        func = node.func
        slot = len(ctx["frame"].ops)
        if isinstance(func, ast.Attribute):
            recv = self.eval(func.value, env, ctx)
            slot = len(ctx["frame"].ops)
            method = func.attr
            callee = self.attribute(recv, func, ctx)
        else:
            recv, method = None, None
            callee = self.eval(func, env, ctx)
            slot = len(ctx["frame"].ops)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.eval(a.value, env, ctx)
                if isinstance(value, Seq):   # f(*args) with args = (a, b, ...): spread it
                    nodes = value.nodes or [a] * len(value.values)
                    args.extend(zip(value.values, nodes))
                    continue
                args.append((UNKNOWN, a))
                break   # later positions are unknown
            args.append((self.eval(a, env, ctx), a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is not None:
                self.keyword_of[id(k.value)] = k.arg
            value = self.eval(k.value, env, ctx)
            if k.arg is not None:
                kwargs[k.arg] = (value, k.value)
        after = ctx["frame"].ops[slot:]
        del ctx["frame"].ops[slot:]
        result = self.classify(node, recv, method, callee, args, kwargs, env, ctx)
        # The call's own op (if any) comes before the ops of its arguments (source order),
        # but ops of a followed helper run after its arguments were evaluated.
        if result is not None and result[1] == "helper":
            own = ctx["frame"].ops[slot:]
            del ctx["frame"].ops[slot:]
            ctx["frame"].ops.extend(after + own)
            return result[0]
        ctx["frame"].ops.extend(after)
        return result[0] if result is not None else UNKNOWN

    def classify(self, node, recv, method, callee, args, kwargs, env, ctx):
        """Return (value, "op" | "helper") after emitting what the call does, or None."""
        recv_text = self.src.text(node.func.value) if isinstance(node.func, ast.Attribute) else None
        # 1. Methods on pipeline-ish receivers.
        if isinstance(recv, Alts) and method is not None and all(isinstance(v, Pipe) for v in recv.values):
            # `p = pipeline_a if c else pipeline_b`: the one named like the receiver, else the first.
            last = (recv_text or "").rsplit(".", 1)[-1]
            best = next((v for v in recv.values if v.name == last), recv.values[0])
            before = len(ctx["frame"].ops)
            result = self.pipeline_method(node, best, method, recv_text, args, ctx)
            for op in ctx["frame"].ops[before:]:
                op["pipeline_candidates"] = [best.name] + [v.name for v in recv.values if v is not best]
            return result
        if isinstance(recv, Pipe) and method is not None:
            return self.pipeline_method(node, recv, method, recv_text, args, ctx)
        if isinstance(recv, SyncObject):
            kind = SYNC_OBJECT_OPS.get((recv.which, method.split("_")[0] if method.startswith("arrive") else method))
            if method == "get_barrier":
                return Barrier(recv.pipe), "op"
            if kind:
                self.emit(ctx, kind, node, recv_text, recv.pipe, call=f"sync_object_{recv.which}.{method}")
            return UNKNOWN, "op"
        if isinstance(recv, Participant):
            table = PRODUCER_PARTICIPANT_OPS if recv.side == "producer" else CONSUMER_PARTICIPANT_OPS
            kind = table.get(method)
            if kind:
                self.emit(ctx, kind, node, recv_text, recv.pipe, call=method)
                if method in ("acquire", "acquire_and_advance", "wait", "wait_and_advance"):
                    return Handle(recv.pipe, recv.side), "op"
            return UNKNOWN, "op"
        if isinstance(recv, Handle):
            kind = HANDLE_OPS[recv.side].get(method)
            if kind:
                self.emit(ctx, kind, node, recv_text, recv.pipe, call=f"handle.{method}")
            return UNKNOWN, "op"
        if isinstance(recv, NamedBar) and method in NAMED_BARRIER_OPS:
            self.emit(ctx, NAMED_BARRIER_OPS[method], node, recv_text, None,
                      barrier_id=recv.barrier_id, count=recv.count)
            return UNKNOWN, "op"
        if isinstance(recv, OrderBar) and method in ORDER_BARRIER_OPS:
            self.emit(ctx, ORDER_BARRIER_OPS[method], node, recv_text, None)
            return UNKNOWN, "op"
        if isinstance(recv, SelfRef) and method in ORDER_HELPERS:
            self.emit(ctx, ORDER_HELPERS[method], node, f"self.{method}", None)
            return UNKNOWN, "op"
        # DSL_SIBLING_FACTORY: the call creates the factory's pipeline at this line.
        if isinstance(callee, Factory):
            create = PipeCreate(callee.classes[0], callee.stages, node)
            create.more, create.factory = callee.classes[1:], callee.where
            if ctx.get("stmt") is not None and isinstance(ctx["stmt"], (ast.Assign, ast.AnnAssign)) \
                    and ctx["stmt"].value is node:
                return create, "op"
            return self.anonymous_pipe(node, create, ctx), "op"
        # 2. Names of this file and bound values: follow them.
        if isinstance(callee, (Callable, Partial, Alts, TmaFn)):
            return self.call_value(node, callee, args, kwargs, ctx, name=self.src.text(node.func))
        # 3. Free functions recognised by name (a pipeline method on a name we do not know is 4.).
        if isinstance(callee, External) and not (method in PIPELINE_METHODS and not isinstance(recv, SelfRef)):
            return self.external_call(node, callee.dotted, args, kwargs, ctx, recv_text)
        # 4. Receivers we know nothing about: pipeline methods by name, softmax steps.
        if method is not None:
            if method in PIPELINE_METHODS and recv_text:
                # Listed (unattributed) only when the receiver is named like a pipeline.
                listed = "pipe" in recv_text.lower()
                if listed:
                    self.emit(ctx, PIPELINE_METHODS[method], node, recv_text, None,
                              call=method if PIPELINE_METHODS[method] != method else None)
                self.src.warn(node.lineno, f"{method}: receiver '{recv_text}' not resolved to a "
                              "pipeline object created in this file" + ("" if listed else " (not listed)"))
                return UNKNOWN, "op"
            if isinstance(func_value := node.func.value, ast.Name) and \
                    func_value.id.lower().startswith("softmax") and method != "create":
                self.emit(ctx, "softmax", node, f"{func_value.id}.{method}", None)
                return UNKNOWN, "op"
        return None

    def pipeline_method(self, node, pipe, method, recv_text, args, ctx):
        """A method called on a pipeline object."""
        if method in ("make_participants",):
            return Participants(pipe), "op"
        if method == "make_producer":
            return Participant(pipe, "producer"), "op"
        if method == "make_consumer":
            return Participant(pipe, "consumer"), "op"
        store = any(c == "PipelineTmaStore" for c in pipe.classes)
        if store and method in TMA_STORE_METHODS:
            self.emit(ctx, TMA_STORE_METHODS[method], node, recv_text, pipe, call=method)
            return UNKNOWN, "op"
        kind = PIPELINE_METHODS.get(method)
        if kind is None:
            if method.startswith(("producer_", "consumer_")):
                self.src.warn(node.lineno, f"{recv_text}.{method}: pipeline method not recognised")
            return UNKNOWN, "op"
        self.emit(ctx, kind, node, recv_text, pipe, call=method if kind != method else None)
        if kind == "producer_get_barrier":
            return Barrier(pipe), "op"
        return UNKNOWN, "op"

    def external_call(self, node, dotted, args, kwargs, ctx, recv_text):
        """A function not defined in this file, recognised by its dotted name."""
        parts = dotted.split(".")
        last = parts[-1]
        pair = tuple(parts[-2:]) if len(parts) >= 2 else None
        # Pipeline creation: X.PipelineY.create(...), or an imported alias's (DSL_IMPORT_ALIASES).
        if last == "create" and len(parts) == 2 and parts[0] in self.index.pipeline_aliases:
            cls, module, line = self.index.pipeline_aliases[parts[0]]
            if module != "cutlass.pipeline":
                self.src.warn(node.lineno, f"{parts[0]} ({module}.{cls}, imported at line {line}) is taken as the "
                              f"CUTLASS {cls} by its name: the module's own class is not read")
            parts = [cls, "create"]
        if last == "create" and len(parts) >= 2 and RE_PIPELINE_CLASS.match(parts[-2]):
            cls = parts[-2]
            if cls == "PipelineOrder":
                return OrderBar(None), "op"
            # DSL_PIPELINE_FACTORY: inside a followed function (`make_pipeline(cls, mbar_ptr,
            # num_stages, producer, consumer)`, FA4 flash_fwd_mla_sm100.py 926-935, called at
            # 941-969), a parameter stands for its caller's argument text (`self.num_stages_S`),
            # and the producer / consumer groups are kept: the caller's statement holds no create call.
            texts = ctx.get("env_texts") or {}
            stages = kwargs.get("num_stages")
            stages_text = self.arg_text(stages[1], texts) if stages else None
            groups = None
            if ctx.get("via"):
                groups = {side: self.arg_text(kwargs[side + "_group"][1], texts)
                          for side in ("producer", "consumer") if kwargs.get(side + "_group")}
            create = PipeCreate(cls, stages_text, node, groups or None)
            if ctx.get("stmt") is not None and isinstance(ctx["stmt"], (ast.Assign, ast.AnnAssign)) \
                    and ctx["stmt"].value is node:
                return create, "op"
            # Not assigned to a name (a keyword argument, `....create(...).make_participants()`).
            return self.anonymous_pipe(node, create, ctx), "op"
        if last == "NamedBarrier":
            return _named_barrier(self.src, node), "op"
        if dotted in ("partial", "functools.partial"):
            if not args:
                return UNKNOWN, "op"
            return Partial(args[0][0], args[1:], kwargs), "op"
        if pair == ("cute", "copy") or dotted == "copy":
            return self.copy_call(node, args, kwargs, ctx), "op"
        if pair == ("cute", "gemm") or RE_GEMM_FUNCTION.match(last):
            self.mma(node, dotted, args, ctx)
            return UNKNOWN, "op"
        if pair in FREE_FUNCTION_OPS:
            kind = FREE_FUNCTION_OPS[pair]
            extra = {}
            if kind in ("warpgroup_wait", "tma_store_wait"):
                count = args[0][1] if args else (kwargs.get("n") or kwargs.get("num") or (None, None))[1]
                if count is not None:
                    value = _int_literal(count)
                    extra["count"] = value if value is not None else self.src.text(count)
            if kind.startswith("named_barrier"):
                bid = kwargs.get("barrier_id") or (args[0] if args else None)
                cnt = kwargs.get("number_of_threads") or kwargs.get("num_threads") or \
                    (args[1] if len(args) > 1 else None)
                extra["barrier_id"] = self.src.text(bid[1]) if bid else None
                extra["count"] = self.src.text(cnt[1]) if cnt else None
            if kind == "umma_arrive":
                pipe = next((_pipe_of(v) for v, _ in args if _pipe_of(v)), None)
                self.emit(ctx, kind, node, dotted, pipe, **extra)
                return UNKNOWN, "op"
            self.emit(ctx, kind, node, dotted, None, **extra)
            return UNKNOWN, "op"
        if RE_TMA_FACTORY.search(last):
            operand, pipe = None, None
            for value, arg in args + list(kwargs.values()):
                if isinstance(value, TmaFn):
                    operand = operand or value.operand
                    pipe = pipe or value.pipe
                elif _pipe_of(value):
                    pipe = pipe or _pipe_of(value)
                elif operand is None:
                    operand = operand_of_atom(self.src.text(arg))
                    if operand is None and isinstance(arg, ast.Name):
                        operand = operand_of_atom(ctx["env_texts"].get(arg.id, ""))
            return TmaFn(operand, pipe), "op"
        # Pipelines handed to code we cannot see: say so.
        for value, arg in args + list(kwargs.values()):
            if _pipe_of(value) or isinstance(value, (Participant, Handle)):
                shown = value.name if isinstance(value, Pipe) else self.src.text(arg)
                self.src.warn(node.lineno, f"{shown} passed to {dotted}, which is not "
                              "defined in this file: its pipeline ops are not listed")
                break
        return UNKNOWN, "op"

    def anonymous_pipe(self, node, create, ctx):
        """A pipeline created without a name of its own: named after its keyword or tuple target."""
        stmt = ctx.get("stmt")
        name = None
        participants = None
        # Only `a, b = X.create(...).make_participants()` names the pipeline after its targets.
        direct = isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and \
            isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.value is node
        if direct and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in target.elts):
                participants = [t.id for t in target.elts]
                name = ", ".join(participants)
            elif isinstance(target, ast.Name):
                name = target.id
        auto = name is None
        if name is None:
            kw = self.keyword_of.get(id(node))
            name = f"{kw or create.cls}@{node.lineno}"
        return self.register_pipe(name, create, stmt if stmt is not None else node, participants, auto)

    def copy_call(self, node, args, kwargs, ctx):
        """cute.copy: a TMA load when it names a barrier (tma_bar_ptr=; or mbar_ptr=, a bulk G2S copy's
        barrier: `copy_stats = partial(cute.copy, copy_atom_stats)` over `CopyBulkG2SOp()`, called with
        `mbar_ptr=pipeline_LSE.producer_get_barrier(...)`, FA4 bwd_sm100 2189-2190, 2222-2226: the
        copy completes the bytes on that pipeline's full barrier as a TMA load does), a TMA store
        when its atom is a TMA one."""
        atom_text = self.src.text(args[0][1]) if args else ""
        operand = operand_of_atom(atom_text)
        if operand is None and args and isinstance(args[0][1], ast.Name):
            operand = operand_of_atom(ctx["env_texts"].get(args[0][1].id, ""))
        if operand is None and len(args) >= 3:
            m = RE_PARTITION_OPERAND.search(self.src.text(args[2][1]).split("[")[0])
            operand = operand_name(m.group("operand")) if m else None
        bar = kwargs.get("tma_bar_ptr") or kwargs.get("mbar_ptr")
        if bar is not None:
            pipe = _pipe_of(bar[0])
            extra = {}
            if pipe is None:
                self.src.warn(node.lineno, f"TMA copy barrier '{self.src.text(bar[1])}' not resolved "
                              "to a pipeline object")
                extra["barrier"] = self.src.text(bar[1])
            if "mcast_mask" in kwargs:
                extra["mcast"] = True
            self.emit(ctx, "tma_load", node, atom_text, pipe, operand=operand, **extra)
        elif "tma" in atom_text.lower():
            self.emit(ctx, "tma_store", node, atom_text, None, operand=operand)
        return UNKNOWN

    def mma(self, node, callee_text, args, ctx, bound=()):
        """An MMA (cute.gemm or a gemm* wrapper); the receiver is its tiled MMA argument."""
        all_args = list(bound) + list(args)
        receiver = None
        for value, arg in all_args[:2]:
            text = self.src.text(arg)
            if "mma" in text.lower():
                receiver = text
                break
        if receiver is None:
            receiver = self.src.text(node.func)
        unit = "wgmma" if self.arch == "sm90" else "umma" if self.arch.startswith("sm10") else "mma"
        names = set()
        for a in node.args + [k.value for k in node.keywords]:
            for sub in ast.walk(a):
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
        op = self.emit(ctx, "mma", node, receiver, None, unit=unit, call=callee_text)
        op["_names"] = names
        return op

    def call_value(self, node, callee, args, kwargs, ctx, name):
        """Call a bound value: follow methods/functions/lambdas, apply partials, issue TMA fns."""
        if isinstance(callee, Partial):
            merged = dict(callee.kwargs)
            merged.update(kwargs)
            inner = callee.func
            if isinstance(inner, External):
                dotted = inner.dotted
                last = dotted.split(".")[-1]
                if dotted.endswith("cute.gemm") or RE_GEMM_FUNCTION.match(last):
                    self.mma(node, dotted, args, ctx, bound=callee.args)
                    return UNKNOWN, "op"
                return self.external_call(node, dotted, list(callee.args) + list(args), merged, ctx, None)
            return self.call_value(node, inner, list(callee.args) + list(args), merged, ctx, name)
        if isinstance(callee, Alts):
            results = []
            for value in callee.values:
                if isinstance(value, (Callable, Partial, TmaFn, Alts)):
                    results.append(self.call_value(node, value, args, kwargs, ctx, name)[0])
            return _alts(results), "helper"
        if isinstance(callee, TmaFn):
            pipe = callee.pipe
            bar = kwargs.get("tma_bar_ptr")
            if bar is not None and _pipe_of(bar[0]):
                pipe = _pipe_of(bar[0])
            if pipe is None and bar is None:
                # A TMA load always signals an mbarrier; a TMA copy without one is a store.
                self.emit(ctx, "tma_store", node, name, None, operand=callee.operand)
                return UNKNOWN, "op"
            extra = {} if pipe else {"barrier": self.src.text(bar[1])}
            self.emit(ctx, "tma_load", node, name, pipe, operand=callee.operand, **extra)
            if pipe is None:
                self.src.warn(node.lineno, f"TMA load '{name}': barrier not resolved to a pipeline object")
            return UNKNOWN, "op"
        if isinstance(callee, Callable):
            return self.follow(node, callee, args, kwargs, ctx, name), "helper"
        return UNKNOWN, "op"

    def follow(self, node, callee, args, kwargs, ctx, name):
        """Walk a helper's body with its parameters bound; its ops are listed here, with via."""
        fn = callee.node
        if any(fn is k for _c, k in self.index.kernels):
            return UNKNOWN   # a kernel launch (`self.kernel(...).launch(...)`): listed as the kernel
        if any(v.get("_node") is fn for v in ctx["via"]) or len(ctx["via"]) >= MAX_HELPER_DEPTH:
            self.src.warn(node.lineno, f"{callee.name}: helper calls nested more than "
                          f"{MAX_HELPER_DEPTH} deep (or recursive) are not followed")
            return UNKNOWN
        self.reached.add(id(fn))
        if callee.kind == "lambda":
            env = dict(callee.env)
            params = [a.arg for a in fn.args.args]
            for p, (value, _a) in zip(params, args):
                env[p] = value
            for k, (value, _a) in kwargs.items():
                if k in params:
                    env[k] = value
        else:
            cname = ctx["cls"] if callee.kind == "method" else None
            env = self._params_env(cname, fn, (args, kwargs), ctx["env_texts"])
            if callee.kind == "local":
                merged = dict(callee.env)
                merged.update(env)
                env = merged
        via_key = "lambda" if callee.kind in ("lambda", "local") else "helper"
        via_name = name if callee.kind == "lambda" else callee.name
        entry = {via_key: via_name, "line": node.lineno, "_node": fn, "_call": node}
        if callee.kind != "lambda" and name not in (callee.name, f"self.{callee.name}"):
            entry["as"] = name
        inner = dict(ctx, via=ctx["via"] + [entry], returns=[], stmt=None, env_texts=env.get(TEXTS, {}))
        if callee.kind == "method" or callee.kind == "function":
            inner["cls"] = ctx["cls"] if callee.kind == "method" else None
        if callee.kind == "lambda":
            value = self.eval(fn.body, env, inner)
            return value
        self.walk_body(fn.body, env, inner)
        returns = [r for r in inner["returns"] if r is not UNKNOWN]
        return returns[0] if len(returns) == 1 else _alts(returns) if returns else UNKNOWN


def _alts(values):
    """One value, or Alts of the distinct known ones."""
    known = []
    for v in values:
        if v is UNKNOWN or v is None:
            continue
        if isinstance(v, Alts):
            known.extend(x for x in v.values if x not in known)
        elif v not in known:
            known.append(v)
    if not known:
        return UNKNOWN
    return known[0] if len(known) == 1 else Alts(known)


# ----------------------------------------------------------------------------------------------
# Post-processing: MMA pipelines, roles, the model
# ----------------------------------------------------------------------------------------------

WAIT_KINDS = ("consumer_wait",)


def pair_mmas_with_waits(ops):
    """Each MMA reads the stage of the nearest preceding consumer_wait sharing a name with it
    (its pipeline state), else of the nearest preceding consumer_wait (as parse_cutlass does)."""
    waits = []
    for op in ops:
        if op["op"] in WAIT_KINDS and op["pipeline"]:
            waits.append(op)
        elif op["op"] == "mma" and waits:
            names = op.get("_names", set())
            waited = next((w for w in reversed(waits) if w.get("_names", set()) & names), waits[-1])
            op["pipeline"] = op["object"] = waited["pipeline"]
            op["wait_line"] = waited["line"]
    for op in ops:
        op.pop("_names", None)


def arch_of(tree_names, path, kernel_classes=()):
    """sm90 / sm100 / ... from the file name, else from the name of a class holding a @cute.kernel
    (DSL_ARCH_CLASS: CUTLASS's `class Sm120GemmKernel` in examples/python/CuTeDSL/cute/
    blackwell_geforce/kernel/dense_gemm/dense_gemm.py, a warp-level MMA kernel that has no
    tcgen05), else from the instruction modules it imports."""
    m = parse_core.RE_ARCH_NAME.search(Path(str(path)).name)
    if m:
        return f"sm{m.group('num')}"
    for cname in kernel_classes:
        m = parse_core.RE_ARCH_NAME.match(cname)
        if m:
            return f"sm{m.group('num')}"
    if "tcgen05" in tree_names:
        return "sm100"
    if "warpgroup" in tree_names:
        return "sm90"
    return "unknown"


def parse_tree(text, display):
    """ast.parse with every failure mode turned into one ParseError line."""
    try:
        return ast.parse(text, filename=str(display))
    except SyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else None
        raise ParseError(display, f"Python syntax error: {exc.msg}", line=line) from None
    except (RecursionError, MemoryError):
        raise ParseError(display, "Python source nested too deeply to parse") from None
    except ValueError as exc:   # e.g. NUL bytes
        raise ParseError(display, f"not Python source: {exc}") from None


def parse_text(text, path="<text>", display=None, read_warnings=()):
    """Parse one CuTe DSL source text into the JSON model (schema_version 3, language cute-dsl).

    Raises ParseError when the text is not Python; a file without pipeline objects still gives
    a model (parse_file refuses it)."""
    display = display or str(path)
    tree = parse_tree(text, display)
    src = SourceText(text, display)
    src.warnings.extend(read_warnings)
    try:
        return _model(tree, src, path, display)
    except RecursionError:
        raise ParseError(display, "Python source nested too deeply to analyse") from None


def _model(tree, src, path, display):
    """The JSON model of a parsed tree."""
    index = ModuleIndex(tree, src, path)
    facts = TreeFacts(tree)
    buffers = find_buffers(facts, src)
    arch = arch_of(facts.names, path, sorted({c for c, _ in index.kernels if c}))
    walker = Walker(src, index, buffers, arch, facts.count)
    walker.run()
    kernel = min(index.kernels, key=lambda k: k[1].lineno)[1] if index.kernels else None
    # The role programs (docs/programs.md "CuTe DSL front end"); strips the ops' private keys.
    programs, kernel_program, role_vars = programs_dsl.read(
        src, index, walker.frames, kernel, walker.warp_roles, lambda n: bool(RE_WARP_INDEX.match(n)))
    functions = []
    for frame in walker.frames:
        pair_mmas_with_waits(frame.ops)
        if not frame.ops:
            continue
        fn = {"name": frame.name, "role": role_of(frame.ops), "line": frame.line,
              "end_line": max(frame.end_line, frame.line), "device": True, "pipeline_params": {},
              "ops": frame.ops}
        if frame.role_label is not None or frame.branch is not None:
            fn["warp_role"] = frame.role_label or frame.branch
            fn["branch"] = frame.branch
        functions.append(fn)
    functions.sort(key=lambda f: f["line"])
    pipelines, objects = [], []
    for entry in walker.pipes.values():
        used_ops = [o for f in functions for o in f["ops"] if o.get("object") == entry["name"]]
        operands = sorted({o["operand"] for o in used_ops if o["op"] == "tma_load" and o.get("operand")})
        pipelines.append({"alias": entry["name"], "class": entry["class"],
                          "stages": entry["stages"] if entry["stages"] is not None else "",
                          "line": entry["line"], "used": bool(used_ops), "operands": operands,
                          "text": entry["text"]})
        if entry.get("creates"):
            pipelines[-1]["creates"] = entry["creates"]
        if entry.get("factory"):
            pipelines[-1]["factory"] = entry["factory"]
        obj = {"name": entry["name"], "alias": entry["name"], "class": entry["class"],
               "stages": entry["stages"], "line": entry["line"], "kind": "created"}
        if entry.get("participants"):
            obj["participants"] = entry["participants"]
        objects.append(obj)
    # Raw `cute.arch.mbarrier_*` rings (parse_mbarrier.py): pipelines of class "mbarrier_ring".
    rings, ring_objects = parse_mbarrier.dsl_rings(tree, src, functions)
    pipelines.extend(rings)
    objects.extend(ring_objects)
    constants = []
    for cname, consts in index.constants.items():
        for attr, (value, line) in sorted(consts.items(), key=lambda kv: kv[1][1]):
            if isinstance(value, int):
                constants.append({"name": f"self.{attr}", "value": value, "line": line})
    kernel_layer = None
    if kernel is not None:
        kernel_layer = {
            "source": {"path": display, "lines": len(src.lines)},
            "schedule": "unknown", "schedule_line": None,
            "warpgroup_roles": [], "warpgroup_roles_line": None,
            "producer_warp_roles": [], "producer_warp_roles_line": None,
            "num_load_warpgroups": None, "num_load_warpgroups_line": None,
            "num_mma_warpgroups": None, "num_mma_warpgroups_line": None,
            "order_barriers": [], "calls": [],
            "kernel": kernel.name, "kernel_line": kernel.lineno,
            "warp_roles": walker.warp_roles,
            "program": kernel_program, "role_vars": role_vars,
        }
    has_ops = any(f["ops"] for f in functions)
    return {
        "schema_version": SCHEMA_VERSION,
        "language": LANGUAGE,
        "tool": {"name": parse_core.TOOL_NAME, "version": parse_core.__version__},
        "source": {"path": display, "lines": len(src.lines)},
        "kind": "mainloop" if (has_ops or pipelines) else "unknown",
        "arch": arch,
        "pipelines": pipelines,
        "pipeline_objects": objects,
        "buffers": buffers,
        "functions": functions,
        "kernel_layer": kernel_layer,
        "constants": constants,
        "programs": {"functions": programs},
        "warnings": src.warnings,
        **kernel_params(tree, index, path),
    }


# ----------------------------------------------------------------------------------------------
# Kernel parameters: the tile, cluster and stage count a kernel class spells (docs/json.md)
# ----------------------------------------------------------------------------------------------

# __init__ parameters whose literal defaults are the CTA tile (M, N), in order of preference:
# FA4's FlashAttentionForwardBase (flash_attn/cute/flash_fwd.py, `tile_m: int = 128`,
# `tile_n: int = 128`, which flash_fwd_sm90.py's class inherits through `*args, **kwargs`) and
# FlashAttentionForwardSm100 (flash_fwd_sm100.py, `m_block_size: int = 128`, `n_block_size`).
DSL_TILE_PARAMS = (("tile_m", "tile_n"), ("m_block_size", "n_block_size"))
DSL_STAGE_PARAMS = ("num_stages",)
# A literal `self.cluster_shape_mn = (1, 1)` (flash_fwd_sm90.py's __init__).
DSL_CLUSTER_ATTRS = ("cluster_shape_mn",)


def _init_defaults(cls):
    """{parameter: (int default, line)} of a class's __init__ (literal int defaults only)."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return None
    out = {}
    a = init.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    for arg, default in pairs:
        value = _int_literal(default)
        if value is not None:
            out[arg.arg] = (value, arg.lineno)
    return out


def _sibling_class(tree, path, name):
    """(ClassDef, display path, text) of a base class imported from a module next to this file
    (`from flash_attn.cute.flash_fwd import FlashAttentionForwardBase` in flash_attn/cute/),
    read with ast; None when it is not one."""
    here = Path(str(path))
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if not any(alias.name == name and alias.asname is None for alias in node.names):
            continue
        package, _, module = node.module.rpartition(".")
        other = here.parent / f"{module}.py"
        if package.rpartition(".")[2] != here.parent.name or not other.is_file() or other == here:
            return None
        try:
            text, _ = parse_core.read_source(other)
            if len(text) > MAX_PYTHON_CHARS:
                return None
            for cls in ast.parse(text).body:
                if isinstance(cls, ast.ClassDef) and cls.name == name:
                    return cls, parse_core.display_path(other), text
        except (parse_core.VizError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    return None


def kernel_params(tree, index, path):
    """{tile, cluster, dtypes, stages} of a DSL file, as parse_tile.kernel_params gives them for
    C++ (docs/json.md "Kernel parameters"): the literal defaults of the kernel class's __init__
    (its own, else the nearest base's: a base in this file, or one imported from a sibling
    module), and a literal self.cluster_shape_mn. dtypes stay null: the element type is a
    required __init__ parameter (`dtype: Type[cutlass.Numeric]`), never a literal."""
    out = {"tile": None, "cluster": None, "dtypes": None, "stages": None}
    names = [k[0] for k in index.kernels if k[0]] + [c for c in index.classes]
    cname = next(iter(names), None)
    if cname is None:
        return out
    cls, where, seen = index.classes[cname]["node"], None, set()
    for _ in range(4):   # the class, then up to three bases
        seen.add(cls.name)
        defaults = _init_defaults(cls)
        if defaults and any(p in defaults for pair in DSL_TILE_PARAMS for p in pair):
            break
        bases = [dotted_name(b) or "" for b in cls.bases]
        base = next((b.rsplit(".", 1)[-1] for b in bases if b), None)
        if base is None or base in seen:
            defaults = None
            break
        if base in index.classes and where is None:
            cls = index.classes[base]["node"]
            continue
        found = _sibling_class(tree, path, base) if where is None else None
        if found is None:
            defaults = None
            break
        cls, where = found[0], found[1]
    owner = f"{cls.name}.__init__"
    for pm, pn in DSL_TILE_PARAMS:
        if defaults and pm in defaults and pn in defaults:
            (m, line), (n, _) = defaults[pm], defaults[pn]
            out["tile"] = {"m": m, "n": n, "k": None, "line": line, "literal": True,
                           "source": f"default of parameters {pm}, {pn} of {owner}",
                           "text": f"{pm}={m}, {pn}={n}"}
            break
    for pname in DSL_STAGE_PARAMS:
        if defaults and pname in defaults:
            value, line = defaults[pname]
            out["stages"] = {"value": value, "line": line, "source": f"default of parameter {pname} of {owner}",
                             "text": f"{pname}={value}"}
            break
    if where is not None:
        for fact in (out["tile"], out["stages"]):
            if fact is not None:
                fact["file"] = where
    consts = index.constants.get(cname, {})
    for attr in DSL_CLUSTER_ATTRS:
        value = consts.get(attr)
        if value and isinstance(value[0], list) and len(value[0]) in (2, 3):
            dims = value[0] + [None] * (3 - len(value[0]))
            out["cluster"] = {"m": dims[0], "n": dims[1], "k": dims[2], "line": value[1], "literal": True,
                              "source": f"self.{attr}", "text": f"self.{attr} = {tuple(value[0])}"}
            break
    return out


def parse_file(path, kernel_layer=None):
    """Parse a CuTe DSL file (read through parse_core.read_source); raise VizError."""
    path = Path(path)
    if kernel_layer is not None:
        raise InputError(kernel_layer, "--kernel-layer applies to C++ headers; a CuTe DSL file "
                         "holds its kernel layer itself")
    text, warns = parse_core.read_source(path)
    if len(text) > MAX_PYTHON_CHARS:
        raise InputError(path, f"Python file too large ({len(text)} characters; the limit of the "
                         f"CuTe DSL front end is {MAX_PYTHON_CHARS})")
    model = parse_text(text, path, parse_core.display_path(path), warns)
    if not model["pipeline_objects"]:
        raise ParseError(path, f"no CuTe DSL pipeline objects (PipelineX.create(...)) found in {path}")
    return _note_missing_kernel(model)


def _note_missing_kernel(model):
    """Warn (once, for parse and scan alike) when the file has no @cute.kernel function."""
    if model["kernel_layer"] is None:
        model["warnings"].append(f"{model['source']['path']}: no @cute.kernel function: each function "
                                 "is listed on its own, without role branches")
    return model


def scan_model(text, path, display, warns):
    """The model of a .py file for --scan, or None when it is not a DSL kernel with pipelines."""
    if ("Pipeline" not in text or ".create" not in text) and "mbarrier_" not in text or len(text) > MAX_PYTHON_CHARS:
        return None
    try:
        model = parse_text(text, path, display, warns)
    except ParseError:
        return None
    # The same acceptance as parse_file: pipeline objects (a file without @cute.kernel is listed,
    # with its warning), so a scan row and a single parse agree.
    return _note_missing_kernel(model) if model["pipeline_objects"] else None


parse_core.register_front_end("parse_dsl", sys.modules[__name__])

if __name__ == "__main__":   # the same command line as parse_cutlass.py, whose CLI it is
    import parse_cutlass
    sys.exit(parse_cutlass.main())
