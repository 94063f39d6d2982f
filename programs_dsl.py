"""programs_dsl.py: the CuTe DSL front end of the role programs (JSON schema 3, docs/programs.md).

The same contract as programs_cpp.py (loops, branches, ops, lets, sets, calls, returns, each with
its source lines; expressions as program_expr trees), read from Python's `ast` instead of blanked
C++. parse_dsl.py walks each kernel and lists its ops with the call node that made each one and
the helper calls it went through (`_call`, `_fn`, `_via` on each op record); this module places
every op in the statement of the function whose body holds it, reads every statement with the
reader STATEMENT_READERS gives its node type (one small function each, the ast.NodeVisitor way),
and reads the kernel's warp-index variable into `kernel_layer.role_vars`. What no reader reads is
counted in `skipped` (or stops the program, named in `incomplete`), never guessed. Linear in the
function: every statement and expression node is visited a bounded number of times.
"""

import ast
import re

from program_expr import MAX_DEPTH, MAX_EXPR_CHARS
from programs_cpp import MAX_BLOCK_DEPTH, MAX_NODES, prune

# -- expressions -------------------------------------------------------------------------------
# Python operators as program_expr spells them (C-style): `//` and `/` are both "/", `is` / `is not`
# compare like == / != (`x is None`), `and` / `or` / `not` are && / || / !.
BIN_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "/", ast.Mod: "%",
           ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
CMP_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.Is: "==", ast.IsNot: "!=", ast.In: "in", ast.NotIn: "not in"}
UNARY_OPS = {ast.Not: "!", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
BOOL_OPS = {ast.And: "&&", ast.Or: "||"}
# Augmented assignments: `set` ops (`q_producer_phase ^= 1` flips a phase, FA4 sm90 line 799).
AUG_OPS = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "/=",
           ast.Mod: "%=", ast.BitXor: "^=", ast.BitOr: "|=", ast.BitAnd: "&=", ast.LShift: "<<=",
           ast.RShift: ">>="}

# `if const_expr(c):` / `if cutlass.const_expr(c):` is decided when the kernel is compiled.
CONST_EXPR_CALLS = frozenset({"const_expr", "cutlass.const_expr"})
# Counted loops: `range(...)`, `cutlass.range(...)`, `cutlass.range_constexpr(...)` (unrolled).
RANGE_CALLS = frozenset({"range", "cutlass.range", "cute.range", "cutlass.range_dynamic"})
RANGE_CONSTEXPR_CALLS = frozenset({"range_constexpr", "cutlass.range_constexpr", "cute.range_constexpr"})
# `with cute.arch.elect_one():` runs its body on one elected thread: an `if` on that call (the
# C++ front end's `if (cute::elect_one_sync())`); other `with` bodies are read in place.
ELECT_ONE_CALLS = frozenset({"cute.arch.elect_one", "elect_one"})
# No step of the program: the compiler's checks and Python's own bookkeeping.
IGNORED_STATEMENTS = (ast.Pass, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal,
                      ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# State objects advanced in place: `state.advance()` moves one stage (flash_attn/cute/pipeline.py
# PipelineStateSimple.advance, lines 73-77; CUTLASS's PipelineState.advance the same).
ADVANCE_METHOD = "advance"
# Pipeline methods whose first argument is the pipeline state (the op node's `state`).
STATE_FIRST_METHODS = frozenset({
    "producer_acquire", "producer_try_acquire", "producer_commit", "producer_tail",
    "producer_get_barrier", "consumer_wait", "consumer_try_wait", "consumer_test_wait",
    "consumer_release"})
# A TMA copy function (copy_utils.tma_producer_copy_fn) takes its stage from `producer_state=`.
STATE_KEYWORDS = ("producer_state", "consumer_state", "state")
# cutlass.pipeline's participants (sm90.py PipelineAsync.make_producer / make_consumer): objects with
# their own state whose methods are pipeline ops (PipelineConsumer.wait_and_advance, handle.release).
PARTICIPANT_METHODS = frozenset({"make_consumer", "make_producer"})
RE_IDENT = re.compile(r"[A-Za-z_]\w*$")
# DSL_ASSERT_EQUALS: `assert a == b` in a kernel function is a `call` node of this name whose one
# argument is the test (sim/interpret/dsl_ops.js dslAssert: a name the run does not know is bound
# to the other side's value; a test that is false stops the role). Other asserts are no step.
ASSERT_CALL = "assert"
# CALL_ELEMENT_TYPES: `self.dk_dtype = mdK.element_type` (FA4 bwd_sm100 695): a `__call__` tensor
# parameter's element type, read as such (the interpreter's DSL_TENSOR_DTYPES gives its width).
ELEMENT_TYPE_ATTR = "element_type"


def _text(src, node, limit=MAX_EXPR_CHARS):
    """One-line source text of a node, at most limit characters."""
    text = " ".join(src.segment(node, limit=limit).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def dotted(node):
    """`a.b.c` of a Name/Attribute chain and its root name, else (None, None)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts)), node.id
    return None, None


class ExprReader:
    """Python expressions as program_expr trees. A dotted name whose root is not a local of the
    function (a module: `cute.arch.warp_idx`, `cutlass.range`) is one name, as C++ keeps
    `cute::arch::warp_idx`; on a local (`self`, a parameter, an assigned name) it is a member
    access or a member call. What it does not read is ["?", text]."""

    def __init__(self, src, local_names):
        self.src, self.locals = src, local_names

    def unread(self, node):
        return ["?", _text(self.src, node)]

    def expr(self, node, depth=0):
        """The tree of one expression node."""
        if node is None:
            return None
        if depth > MAX_DEPTH:
            return self.unread(node)
        reader = EXPR_READERS.get(type(node))
        return reader(self, node, depth + 1) if reader else self.unread(node)

    def args(self, call, depth):
        """Positional arguments, then keywords as ["kw", name, e]; `*name` is ["star", ["id", name]]
        (`self.mma(*mma_args, is_dQ_wg=True)`, FA4 bwd_sm90 844: the interpreter splices the
        tuple); any other `*x` and `**x` are unread."""
        out = [(["star", ["id", a.value.id]] if isinstance(a.value, ast.Name) else self.unread(a))
               if isinstance(a, ast.Starred) else self.expr(a, depth) for a in call.args]
        for k in call.keywords:
            out.append(["kw", k.arg, self.expr(k.value, depth)] if k.arg else self.unread(k.value))
        return out

    def is_module_path(self, node):
        """(dotted, True) when node is a Name/Attribute chain whose root is not a local."""
        name, root = dotted(node)
        return name, (name is not None and root not in self.locals)


def _expr_constant(r, node, depth):
    v = node.value
    if isinstance(v, bool):
        return ["n", 1 if v else 0]
    if isinstance(v, int):
        return ["n", v]
    return r.unread(node)        # None, floats, strings: not values the interpreter computes


def _expr_name(r, node, depth):
    if node.id in ("True", "False"):
        return ["n", 1 if node.id == "True" else 0]
    return ["id", node.id]


def _expr_attribute(r, node, depth):
    name, module = r.is_module_path(node)
    if module:
        return ["id", name]
    return ["member", r.expr(node.value, depth), node.attr]


def _expr_call(r, node, depth):
    func = node.func
    args = r.args(node, depth)
    # `tuple(x for ...)` / `list(x for ...)` is the comprehension's items.
    if (isinstance(func, ast.Name) and func.id in ("tuple", "list") and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp))):
        return r.expr(node.args[0], depth)
    if isinstance(func, ast.Name):
        return ["call", func.id, args]
    if isinstance(func, ast.Attribute):
        name, module = r.is_module_path(func)
        if module:
            return ["call", name, args]
        return ["mcall", r.expr(func.value, depth), func.attr, args]
    return r.unread(node)


def _expr_comp(r, node, depth):
    """A generator expression or list comprehension with one `for` over names: ["comp", elt,
    [names], iterable, [conditions]] (`tuple(w for w, active in [(self.relay_warp_id, not
    use_cpasync_load_KV), ...] if active)`, FA4 mla_sm100 161-167); the interpreter evaluates it
    when the iterable is a known tuple. Nested `for`s, `async` and other targets are unread."""
    if len(node.generators) != 1 or node.generators[0].is_async:
        return r.unread(node)
    g = node.generators[0]
    targets = g.target.elts if isinstance(g.target, ast.Tuple) else [g.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        return r.unread(node)
    names = [t.id for t in targets] if isinstance(g.target, ast.Tuple) else [g.target.id]
    return ["comp", r.expr(node.elt, depth), names, r.expr(g.iter, depth), [r.expr(c, depth) for c in g.ifs]]


def _expr_binop(r, node, depth):
    op = BIN_OPS.get(type(node.op))
    if op is None:               # ** and @ have no C spelling
        return r.unread(node)
    return ["bin", op, r.expr(node.left, depth), r.expr(node.right, depth)]


def _expr_unary(r, node, depth):
    return ["un", UNARY_OPS[type(node.op)], r.expr(node.operand, depth)]


def _expr_boolop(r, node, depth):
    op = BOOL_OPS[type(node.op)]
    out = r.expr(node.values[0], depth)
    for v in node.values[1:]:
        out = ["bin", op, out, r.expr(v, depth)]
    return out


def _expr_compare(r, node, depth):
    """`a < b` is ["bin", "<", a, b]; a chain `a < b < c` is (a < b) && (b < c)."""
    parts, left = [], node.left
    for op, right in zip(node.ops, node.comparators):
        c = CMP_OPS.get(type(op))
        if c is None:
            return r.unread(node)
        parts.append(["bin", c, r.expr(left, depth), r.expr(right, depth)])
        left = right
    out = parts[0]
    for p in parts[1:]:
        out = ["bin", "&&", out, p]
    return out


def _expr_ifexp(r, node, depth):
    return ["?:", r.expr(node.test, depth), r.expr(node.body, depth), r.expr(node.orelse, depth)]


def _expr_subscript(r, node, depth):
    index = node.slice
    if type(index).__name__ == "Index":      # Python 3.8's wrapper
        index = index.value
    if isinstance(index, (ast.Slice, ast.Tuple)):
        return ["index", r.expr(node.value, depth), r.unread(index)]
    return ["index", r.expr(node.value, depth), r.expr(index, depth)]


def _expr_tuple(r, node, depth):
    """A tuple or list is a call of `tuple` / `list` (`return a, b`; C++ writes make_tuple)."""
    kind = "tuple" if isinstance(node, ast.Tuple) else "list"
    return ["call", kind, [r.unread(e) if isinstance(e, ast.Starred) else r.expr(e, depth) for e in node.elts]]


EXPR_READERS = {
    ast.Constant: _expr_constant, ast.Name: _expr_name, ast.Attribute: _expr_attribute,
    ast.Call: _expr_call, ast.BinOp: _expr_binop, ast.UnaryOp: _expr_unary,
    ast.BoolOp: _expr_boolop, ast.Compare: _expr_compare, ast.IfExp: _expr_ifexp,
    ast.Subscript: _expr_subscript, ast.Tuple: _expr_tuple, ast.List: _expr_tuple,
    ast.GeneratorExp: _expr_comp, ast.ListComp: _expr_comp,
}


# -- where each op goes --------------------------------------------------------------------------


class OpPlacement:
    """The ops of every function, placed at the node of its body that holds them.

    parse_dsl records on each op the function its frame walks (`_fn`), the call node (`_call`)
    and the helper / lambda calls it went through (`_via`, outermost first: `_node` the callee,
    `_call` the call). In function F the op goes at F's own call node when F is the innermost
    function, or at the call of the lambda / local function that holds it (with `via`) when only
    lambdas lie between; when a helper (a method or module function) lies between, the op is in
    that helper's program and F's statement is a `call` node naming it (`function`)."""

    def __init__(self, frames):
        self.anchors = {}        # id(F) -> {id(anchor node): [(op, via, [objects])]}
        self.resolved = {}       # id(call node) -> [program names it calls], in order
        self.kept = {}           # id(F) -> F, the functions that get a program
        seen = {}
        for frame in frames:
            for op in frame.ops:
                if "_fn" in op:
                    self.place(op, seen)

    def place(self, op, seen):
        stack = [op["_fn"]] + [e["_node"] for e in op["_via"]]
        helpers = [op["_fn"]] + [e["_node"] for e in op["_via"] if "helper" in e]
        for fn in helpers:
            self.kept.setdefault(id(fn), fn)
        for i, fn in enumerate(stack):
            if not any(fn is h for h in helpers):
                continue
            rest = op["_via"][i:]
            if rest and "helper" in rest[0]:
                names = self.resolved.setdefault(id(rest[0]["_call"]), [])
                if rest[0]["_node"].name not in names:
                    names.append(rest[0]["_node"].name)
                continue
            if any("helper" in e for e in rest):
                continue         # a lambda of F calls a helper: the op is that helper's
            anchor = rest[0]["_call"] if rest else op["_call"]
            key = (id(fn), id(anchor), id(op["_call"]))
            entry = seen.get(key)
            if entry is not None:
                if op.get("object") and op["object"] not in entry[2]:
                    entry[2].append(op["object"])
                continue
            via = None
            if rest:
                via = {"lambda": rest[0].get("lambda"), "line": rest[0]["line"]}
                if len(rest) > 1:
                    via["chain"] = [[e.get("lambda"), e["line"]] for e in rest[1:]]
            entry = (op, via, [op["object"]] if op.get("object") else [])
            seen[key] = entry
            self.anchors.setdefault(id(fn), {}).setdefault(id(anchor), []).append(entry)


# -- statements ------------------------------------------------------------------------------


class _Reader:
    """Reads the statements of one function into nodes (docs/programs.md "The contract")."""

    def __init__(self, src, fn, placement):
        self.src, self.fn = src, fn
        self.anchors = placement.anchors.get(id(fn), {})
        self.resolved = placement.resolved
        self.bound = set(_param_names(fn))
        self.ex = ExprReader(src, _local_names(fn))
        self.count = 0
        self.skipped = 0
        self.stopped = None

    def stop(self, node, why):
        if self.stopped is None:
            self.stopped = {"line": node.lineno, "reason": why}

    def add(self, nodes, node):
        self.count += 1
        if self.count > MAX_NODES:
            self.stop(self.fn, f"more than {MAX_NODES} steps")
            return
        nodes.append(node)

    def lines(self, node):
        return node.lineno, max(node.lineno, getattr(node, "end_lineno", None) or node.lineno)

    def block(self, stmts, depth=0):
        """Nodes of a statement list."""
        nodes = []
        if depth > MAX_BLOCK_DEPTH:
            if stmts:
                self.stop(stmts[0], "blocks nested too deeply")
            return nodes
        for stmt in stmts:
            if self.stopped is not None:
                break
            self.statement(stmt, nodes, depth)
        return nodes

    def statement(self, stmt, nodes, depth):
        if isinstance(stmt, IGNORED_STATEMENTS):
            return
        reader = STATEMENT_READER_OF.get(type(stmt))
        if reader is None:
            self.stop(stmt, f"`{type(stmt).__name__}` is not read yet")
            return
        reader(self, stmt, nodes, depth)

    def ops_of(self, *roots):
        """The placed ops whose anchor lies in these expression / statement nodes, in order."""
        hits = []
        for root in roots:
            if root is None:
                continue
            for sub in ast.walk(root):
                hit = self.anchors.get(id(sub))
                if hit:
                    hits.append(((sub.end_lineno, sub.end_col_offset), hit))
        # Evaluation order: a call ends after the calls in its arguments and receiver, so the
        # barrier of `cute.copy(..., tma_bar_ptr=p.producer_get_barrier(s))` comes first.
        hits.sort(key=lambda h: h[0])
        return [entry for _pos, hit in hits for entry in hit]

    def add_ops(self, nodes, found):
        for op, via, objects in found:
            self.add(nodes, self.op_node(op, via, objects))

    def op_node(self, op, via, objects):
        """The step of a parsed op: kind, pipeline object, lines, state variable, arguments."""
        node = {"node": "op", "op": op["op"], "line": op["line"], "end_line": op["end_line"],
                "text": op["text"]}
        if len(objects) == 1:
            node["object"] = objects[0]
        elif objects:            # the helper runs on several pipelines: bound by its caller
            node["objects"] = sorted(objects)
        for key in ("operand", "unit", "count", "barrier_id", "call", "receiver"):
            if op.get(key) is not None:
                node[key] = op[key]
        if via is not None:
            node["via"] = via
        call = op["_call"]
        if isinstance(call, ast.Call):
            node["args"] = self.ex.args(call, 0)
            state = _state_of(call)
            if state is not None:
                node["state"] = state
        return node

    def resolved_of(self, call, node):
        """`function` (or `functions`) of a node whose call the parse followed into a helper."""
        names = self.resolved.get(id(call)) if call is not None else None
        if names:
            if len(names) == 1:
                node["function"] = names[0]
            else:
                node["functions"] = list(names)
        return node

    def bind(self, name):
        """True the first time a name is bound in the function (a `let`), then False (a `set`)."""
        if name in self.bound:
            return False
        self.bound.add(name)
        return True


def _param_names(fn):
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def _local_names(fn):
    """Parameters and every name the function (not its nested functions) assigns."""
    names = set(_param_names(fn))
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return names


def _state_of(call):
    """The state variable of a pipeline call: its first argument (`pipeline_k.producer_acquire(
    kv_producer_state)`), or a `producer_state=` keyword (`load_K(..., producer_state=s)`)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in STATE_FIRST_METHODS and call.args:
        if isinstance(call.args[0], ast.Name):
            return call.args[0].id
    for k in call.keywords:
        if k.arg in STATE_KEYWORDS and isinstance(k.value, ast.Name):
            return k.value.id
    return None


def _simple_ops(r, stmt, nodes):
    """A simple statement holding placed ops is those ops (as the C++ front end reads them)."""
    found = r.ops_of(stmt)
    if found:
        r.add_ops(nodes, found)
        return True
    return False


def _value_call(value):
    return value if isinstance(value, ast.Call) else None


def _read_assign(r, stmt, nodes, depth):
    """`x = e` (let the first time, set after), `a, b = e` (let of several names). An op whose call
    is the whole value of `x = ...` names x as its `result` (`handle_Q =
    pipeline_Q_consumer.wait_and_advance()`, FA4 bwd_sm100 2945: the handle the op returns)."""
    start = len(nodes)
    if _simple_ops(r, stmt, nodes):
        added = nodes[start:]
        if (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and len(added) == 1
                and added[0].get("node") == "op" and isinstance(stmt.value, ast.Call)
                and added[0].get("line") == stmt.value.lineno):
            added[0]["result"] = stmt.targets[0].id
            r.bind(stmt.targets[0].id)
        return
    line, end_line = r.lines(stmt)
    expr = r.ex.expr(stmt.value)
    read = False
    for target in stmt.targets:
        if isinstance(target, ast.Name):
            node = {"node": "let", "names": [target.id], "expr": expr} if r.bind(target.id) else \
                {"node": "set", "name": target.id, "op": "=", "expr": expr}
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(t, ast.Name) for t in target.elts):
            names = [t.id for t in target.elts]
            for n in names:
                r.bind(n)
            node = {"node": "let", "names": names, "expr": expr}
        else:
            continue             # self.x = e, a[i] = e: not a variable of the program
        node["line"], node["end_line"] = line, end_line
        r.add(nodes, r.resolved_of(_value_call(stmt.value), node))
        read = True
    if not read:
        r.skipped += 1


def _read_annassign(r, stmt, nodes, depth):
    """`x: T = e` (a let with its type), `x: T` (no step)."""
    if stmt.value is None:
        return
    if _simple_ops(r, stmt, nodes):
        return
    if not isinstance(stmt.target, ast.Name):
        r.skipped += 1
        return
    line, end_line = r.lines(stmt)
    name = stmt.target.id
    expr = r.ex.expr(stmt.value)
    node = {"node": "let", "names": [name], "type": _text(r.src, stmt.annotation), "expr": expr} \
        if r.bind(name) else {"node": "set", "name": name, "op": "=", "expr": expr}
    node["line"], node["end_line"] = line, end_line
    r.add(nodes, r.resolved_of(_value_call(stmt.value), node))


def _read_augassign(r, stmt, nodes, depth):
    """`x += e`, `phase ^= 1`: a set with the C operator."""
    if _simple_ops(r, stmt, nodes):
        return
    if not isinstance(stmt.target, ast.Name):
        r.skipped += 1
        return
    line, end_line = r.lines(stmt)
    r.add(nodes, {"node": "set", "name": stmt.target.id, "op": AUG_OPS.get(type(stmt.op), "?="),
                  "expr": r.ex.expr(stmt.value), "line": line, "end_line": end_line})


def _read_expr(r, stmt, nodes, depth):
    """A call statement: its ops, `state.advance()`, else a call node."""
    if _simple_ops(r, stmt, nodes):
        return
    call = stmt.value
    if isinstance(call, ast.Constant):
        return                   # a docstring
    if not isinstance(call, ast.Call):
        r.skipped += 1
        return
    line, end_line = r.lines(stmt)
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == ADVANCE_METHOD and isinstance(func.value, ast.Name):
        step = r.ex.expr(call.args[0]) if call.args else ["n", 1]
        r.add(nodes, {"node": "set", "name": func.value.id, "op": "advance", "expr": step,
                      "line": line, "end_line": end_line})
        return
    node = {"node": "call", "args": r.ex.args(call, 0), "line": line, "end_line": end_line}
    if isinstance(func, ast.Name):
        node["name"] = func.id
    elif isinstance(func, ast.Attribute):
        name, module = r.ex.is_module_path(func)
        if module:
            node["name"] = name
        else:
            recv, _root = dotted(func.value)
            if recv is None:
                r.skipped += 1
                return
            node["name"], node["receiver"] = func.attr, recv
    else:
        r.skipped += 1
        return
    r.add(nodes, r.resolved_of(call, node))


def _unroll_of(call, name):
    """`unroll` of a counted loop: range_constexpr and unroll_full=True unroll it; unroll=1 does not."""
    if name in RANGE_CONSTEXPR_CALLS:
        return "unroll"
    for k in call.keywords:
        if k.arg == "unroll_full" and isinstance(k.value, ast.Constant) and k.value.value is True:
            return "unroll"
        if k.arg == "unroll" and isinstance(k.value, ast.Constant) and k.value.value == 1:
            return "no_unroll"
    return None


def _read_for(r, stmt, nodes, depth):
    """`for i in range(a, b, s)` (and cutlass.range / range_constexpr): a counted loop,
    init `let i = a`, cond `i < b` (`i > b` for a negative literal step), step `set i += s`;
    any other iterable is a `range` loop over its text."""
    found = r.ops_of(stmt.iter)
    r.add_ops(nodes, found)
    if stmt.orelse:
        r.stop(stmt.orelse[0], "a for ... else is not read yet")
        return
    line, end_line = r.lines(stmt)
    text = f"for {_text(r.src, stmt.target)} in {_text(r.src, stmt.iter)}"
    call = stmt.iter if isinstance(stmt.iter, ast.Call) else None
    name = dotted(call.func)[0] if call is not None else None
    counted = call is not None and (name in RANGE_CALLS or name in RANGE_CONSTEXPR_CALLS) and \
        isinstance(stmt.target, ast.Name) and 1 <= len(call.args) <= 3 and \
        not any(isinstance(a, ast.Starred) for a in call.args)
    if not counted:
        if isinstance(stmt.target, ast.Name):
            r.bind(stmt.target.id)
        body = r.block(stmt.body, depth + 1)
        r.add(nodes, {"node": "loop", "kind": "range", "cond": r.ex.expr(stmt.iter), "init": [],
                      "step": [], "body": body, "line": line, "end_line": end_line, "text": text})
        return
    var = stmt.target.id
    args = call.args
    start = r.ex.expr(args[0]) if len(args) >= 2 else ["n", 0]
    stop = r.ex.expr(args[1] if len(args) >= 2 else args[0])
    step = r.ex.expr(args[2]) if len(args) == 3 else ["n", 1]
    negative = step[0] == "un" and step[1] == "-" and step[2][0] == "n" or (step[0] == "n" and step[1] < 0)
    first = r.bind(var)
    init = [{"node": "let" if first else "set", "line": line,
             **({"names": [var]} if first else {"name": var, "op": "="}), "expr": start}]
    loop = {"node": "loop", "kind": "for", "init": init,
            "cond": ["bin", ">" if negative else "<", ["id", var], stop],
            "step": [{"node": "set", "name": var, "op": "+=", "expr": step, "line": line}],
            "body": r.block(stmt.body, depth + 1), "line": line, "end_line": end_line, "text": text}
    unroll = _unroll_of(call, name)
    if unroll:
        loop["unroll"] = unroll
    r.add(nodes, loop)


def _read_while(r, stmt, nodes, depth):
    r.add_ops(nodes, r.ops_of(stmt.test))
    if stmt.orelse:
        r.stop(stmt.orelse[0], "a while ... else is not read yet")
        return
    line, end_line = r.lines(stmt)
    r.add(nodes, {"node": "loop", "kind": "while", "init": [], "step": [],
                  "cond": r.ex.expr(stmt.test), "body": r.block(stmt.body, depth + 1),
                  "line": line, "end_line": end_line, "text": "while " + _text(r.src, stmt.test)})


def _const_expr_arg(test):
    """The condition inside `const_expr(c)` / `cutlass.const_expr(c)`, else None."""
    if isinstance(test, ast.Call) and dotted(test.func)[0] in CONST_EXPR_CALLS and \
            len(test.args) == 1 and not test.keywords:
        return test.args[0]
    return None


def _read_if(r, stmt, nodes, depth):
    """`if c:` / `if const_expr(c):` (constexpr) / `elif` / `else`."""
    r.add_ops(nodes, r.ops_of(stmt.test))
    inner = _const_expr_arg(stmt.test)
    line, end_line = r.lines(stmt)
    src_line = r.src.lines[line - 1].lstrip() if 0 < line <= len(r.src.lines) else ""
    keyword = "elif" if src_line.startswith("elif") else "if"
    # Each arm starts from the names bound before the if (a name first bound in both arms is a
    # let in each); after the if, a name either arm bound is bound (later assignments are sets).
    before = set(r.bound)
    then = r.block(stmt.body, depth + 1)
    after_then, r.bound = r.bound, set(before)
    els = r.block(stmt.orelse, depth + 1)
    r.bound |= after_then
    r.add(nodes, {"node": "if", "constexpr": inner is not None,
                  "cond": r.ex.expr(inner if inner is not None else stmt.test),
                  "then": then, "else": els, "line": line, "end_line": end_line,
                  "text": f"{keyword} {_text(r.src, stmt.test)}"})


def _read_with(r, stmt, nodes, depth):
    """`with cute.arch.elect_one():` is an if on that call; other with-bodies are read in place."""
    r.add_ops(nodes, r.ops_of(*[i.context_expr for i in stmt.items]))
    elect = [i for i in stmt.items if isinstance(i.context_expr, ast.Call)
             and dotted(i.context_expr.func)[0] in ELECT_ONE_CALLS]
    if not elect:
        nodes.extend(r.block(stmt.body, depth + 1))
        return
    line, end_line = r.lines(stmt)
    call = elect[0].context_expr
    r.add(nodes, {"node": "if", "constexpr": False, "cond": r.ex.expr(call),
                  "then": r.block(stmt.body, depth + 1), "else": [], "line": line,
                  "end_line": end_line, "text": "with " + _text(r.src, call)})


def _read_return(r, stmt, nodes, depth):
    r.add_ops(nodes, r.ops_of(stmt.value))
    line, end_line = r.lines(stmt)
    r.add(nodes, r.resolved_of(_value_call(stmt.value), {
        "node": "return", "expr": r.ex.expr(stmt.value), "line": line, "end_line": end_line}))


def _read_assert(r, stmt, nodes, depth):
    """DSL_ASSERT_EQUALS: `assert a == b[, msg]` (one `==`, FA4 bwd_sm100 4817: `assert num_epi_stages
    == self.num_epi_stages`) is a call node named ASSERT_CALL with the test as its argument; any
    other assert is no step (the compiler's check), as before."""
    t = stmt.test
    if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq)):
        return
    line, end_line = r.lines(stmt)
    r.add(nodes, {"node": "call", "name": ASSERT_CALL, "args": [r.ex.expr(t)], "line": line, "end_line": end_line})


def _read_jump(r, stmt, nodes, depth):
    line, end_line = r.lines(stmt)
    r.add(nodes, {"node": "break" if isinstance(stmt, ast.Break) else "continue", "line": line,
                  "end_line": end_line})


STATEMENT_READERS = (
    ("assignment", (ast.Assign,), _read_assign),              # x = e, a, b = e
    ("annotated", (ast.AnnAssign,), _read_annassign),         # x: T = e
    ("augmented", (ast.AugAssign,), _read_augassign),         # x += e, phase ^= 1
    ("call", (ast.Expr,), _read_expr),                        # ops, state.advance(), f(args)
    ("for", (ast.For,), _read_for),                           # for i in cutlass.range(n)
    ("while", (ast.While,), _read_while),                     # while c
    ("if", (ast.If,), _read_if),                              # if / if const_expr / elif / else
    ("with", (ast.With,), _read_with),                        # with cute.arch.elect_one()
    ("return", (ast.Return,), _read_return),
    ("jump", (ast.Break, ast.Continue), _read_jump),
    ("assert", (ast.Assert,), _read_assert),                  # assert a == b (DSL_ASSERT_EQUALS)
)
STATEMENT_READER_OF = {t: read for _name, types, read in STATEMENT_READERS for t in types}


# -- programs --------------------------------------------------------------------------------


def function_params(src, fn, body):
    """[{name, type, ref[, default]}] of a function's parameters (`self` left out). Python passes
    objects, so `ref` is true for a parameter the body advances in place (`state.advance()`: the
    caller's state moves too) and false otherwise (`x = e` rebinds the callee's name only)."""
    advanced = set()

    def visit(nodes):
        for n in nodes:
            if n["node"] == "set" and n["op"] == "advance":
                advanced.add(n["name"])
            for key in ("init", "body", "step", "then", "else"):
                visit(n.get(key) or ())
    visit(body)
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    ex = ExprReader(src, set())
    out = []
    for i, (arg, default) in enumerate(pairs):
        if i == 0 and arg.arg == "self":
            continue
        p = {"name": arg.arg, "type": _text(src, arg.annotation) if arg.annotation is not None else "",
             "ref": arg.arg in advanced}
        if default is not None:
            p["default"] = ex.expr(default)
        out.append(p)
    return out


def _prune(body, local_callables):
    """programs_cpp.prune, keeping also the lets of local callables a call node names
    (`load_K = partial(self.load_KV, ...)` ... `load_K(block=n_block, ...)`): prune reads a
    node's `expr`, so each such call carries its name there while it runs."""
    marked, calls, receivers, barriers, objects = [], set(), set(), set(), set()

    def mark(nodes):
        for n in nodes:
            if n["node"] == "call" and "receiver" not in n and n["name"] in local_callables and "expr" not in n:
                n["expr"] = ["id", n["name"]]
                marked.append(n)
            # A let whose initializer runs a program is a step, whatever reads its names
            # (`consumer_state_Q, consumer_state_dO = mma_one_m_block_all(...)`, FA4 bwd_sm90 1387:
            # the names are read only by the next iteration's call of the same let).
            if n["node"] == "let" and (n.get("function") or n.get("functions")):
                calls.update(n["names"])
            # A let or set whose initializer calls a local callable needs that callable's let
            # (`softmax_step_fn = partial(self.softmax_step, ..., pipeline_S, ...)` then `(...) =
            # softmax_step_fn(...)`, FA4 MLA 2706, 2730; `load_Qv = partial(self.load_inner, ...,
            # pipeline_Qv)` then `producer_state_Qv = load_Qv(...)`, 2106, 2120): it holds the
            # partial's bound arguments.
            e = n.get("expr") if n["node"] in ("let", "set") else None
            if isinstance(e, list) and e[:1] == ["call"] and e[1] in local_callables:
                calls.add(e[1])
            # A named-barrier object an op of the function runs on (`epi_barrier =
            # cutlass.pipeline.NamedBarrier(...)` then `epi_barrier.arrive_and_wait()`, FA4
            # bwd_sm90 1672, 1709): the interpreter reads its let for the id and thread count.
            if n["node"] == "op" and isinstance(n.get("receiver"), str):
                receivers.add(n["receiver"])
            # DSL_OP_OBJECTS: the pipeline an op runs on (`pipe.consumer_wait(state)` in the kernel's
            # own body, as CUTLASS's CuTe DSL dense GEMMs write them): its creation's let is the ring.
            if n["node"] == "op" and isinstance(n.get("object"), str):
                objects.add(n["object"])
            if n["node"] == "let" and len(n["names"]) == 1 and isinstance(n.get("expr"), list) and \
                    n["expr"][:1] == ["call"] and str(n["expr"][1]).split(".")[-1] == "NamedBarrier":
                barriers.add(n["names"][0])
            # A pipeline's participant an op runs on (`pipeline_Q_consumer = pipeline_Q.make_consumer()`,
            # FA4 bwd_sm100 2677, then `pipeline_Q_consumer.wait_and_advance()`, 2945): its state is the op's.
            if n["node"] == "let" and len(n["names"]) == 1 and isinstance(n.get("expr"), list) and \
                    n["expr"][:1] == ["mcall"] and n["expr"][2] in PARTICIPANT_METHODS:
                barriers.add(n["names"][0])
            for key in ("init", "body", "step", "then", "else"):
                mark(n.get(key) or ())
    mark(body)
    out = prune(body, extra=calls | (receivers & barriers) | objects)
    for n in marked:
        del n["expr"]
    return out


def function_program(src, fn, placement, cname=None):
    """The program of one function: {name, line, end_line, params, body, skipped[, incomplete]}."""
    r = _Reader(src, fn, placement)
    body = _prune(r.block(fn.body), r.ex.locals)
    end = max(fn.lineno, fn.end_lineno or fn.lineno)
    prog = {"name": fn.name, "line": fn.lineno, "end_line": end,
            "params": function_params(src, fn, body), "body": body, "skipped": r.skipped}
    if cname is not None:
        prog["class"] = cname
    if r.stopped is not None:
        prog["incomplete"] = r.stopped
    return prog


# -- role variables ------------------------------------------------------------------------------


def _cuts(warp_sets):
    """Representative warp indices: the smallest index of every run of warps that no branch tells
    apart (branches `== 0`, `< 4`: runs [0], [1, 3], [4, ...) give 0, 1, 4)."""
    cuts = {0}
    for warps in warp_sets:
        s = set(warps)
        for w in s:
            if w - 1 not in s:
                cuts.add(w)
            if w + 1 not in s:
                cuts.add(w + 1)
    return sorted(cuts)


# A constructor attribute naming the warps of a role (`self.softmax1_warp_ids = (4, 5, 6, 7)`,
# `self.mma_warp_id = 12`: FA4 flash_fwd_sm100.py 312-318).
RE_WARP_IDS = re.compile(r"\w*warp_ids?$")


def _warp_literal(node):
    """The warps of a literal `12` or `(13,)` / `[14, 15]`, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def warp_ids(init):
    """The constructor's warp-id attributes, each its last unconditional literal assignment in
    `__init__`'s own body: {"self.x": {"warps": [int], "scalar": bool, "line": int}}. A
    reassignment inside a branch of the constructor (FA4 sm100 341-354: `if self.q_stage == 1`,
    `elif not self.use_tma_KV`, `if self.use_correction_warps_for_epi`) is a variant of other
    constructor arguments, not read: the run takes the defaults, under which none of them runs."""
    out = {}
    for node in init.body if init is not None else []:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        t = node.targets[0]
        if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                and RE_WARP_IDS.match(t.attr)):
            continue
        warps = _warp_literal(node.value)
        if warps is not None:
            out["self." + t.attr] = {"warps": warps, "scalar": isinstance(node.value, ast.Constant),
                                     "line": node.lineno}
    return out


def constructor(src, init, setups=None, kernel=None):
    """The constructor's attributes as the run reads them: {"params": {name: default tree},
    "attrs": {"self.x": [{"expr": tree, "line": int}]}}, each attribute's unconditional
    assignments in `__init__`'s own body, in order (the last is its value; a reference to itself
    reads the one before: `self.split_P_arrive = int(self.split_P_arrive / 32) * 32`, 190) (`self.q_stage = q_stage`, FA4 sm100 184, with the
    parameter's default `q_stage: cutlass.Constexpr[int] = 2`, 157; `self.s_p_o_stage = 2 if
    self.use_s_ping_pong else self.q_stage`, 327). The interpreter evaluates an attribute with the
    parameters at their defaults; a branch's reassignment is another variant, not read."""
    if init is None:
        return None
    ex = ExprReader(src, _local_names(init))
    args = init.args
    positional = args.posonlyargs + args.args
    params = {}
    for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        params[a.arg] = ex.expr(d)
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if d is not None:
            params[a.arg] = ex.expr(d)
    attrs, local_sets = {}, []
    for node in init.body:
        # A local of the constructor bound to a literal (`hdim_multiple_of = 16`, 172) reads as one.
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, bool))):
            params[node.targets[0].id] = ex.expr(node.value)
        # Another unconditional assignment of a local, in order (`head_dim_v = head_dim_v if head_dim_v
        # is not None else head_dim`, FA4 sm100 175): the interpreter evaluates them after the defaults.
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            local_sets.append({"name": node.targets[0].id, "expr": ex.expr(node.value), "line": node.lineno})
        chain = _attr_chain(ex, node) if isinstance(node, ast.If) else None
        if chain:
            attrs.setdefault(chain[0], []).append({"expr": chain[1], "line": node.lineno})
        # An `if` tree every path of which assigns an attribute once (`if is_varlen_q: ... elif
        # self.is_causal or ...: self.TileScheduler = SingleTileLPTScheduler ...`, FA4 sm100 294-308):
        # the attribute's value is the tree of its arms, as a setup method's (_attr_tree). A tree that
        # indexes a value (the tuning table's `"num_regs_softmax" in self._tune` / `self._tune[...]`,
        # sm100 387-389) is not read: the run cannot read the table, and would list it as a flag.
        elif isinstance(node, ast.If) and not any(isinstance(n, ast.Subscript) for n in ast.walk(node)):
            for tname, tree in sorted((_attr_tree(ex, [node]) or {}).items()):
                attrs.setdefault(tname, []).append({"expr": tree, "line": node.lineno})
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) != 1 or node.value is None:
                continue
            t = targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                attrs.setdefault("self." + t.attr, []).append({"expr": ex.expr(node.value), "line": node.lineno})
    out = {"params": params, "attrs": attrs}
    checks = _ctor_asserts(ex, init.body, [])
    if checks:
        out["asserts"] = checks
    if setups and setups[0] is not None:
        _setup_attrs(src, setups[0], attrs, setups[1])
        # `__call__`'s lines: its own assignments are host code before the launch (the interpreter
        # lists no flags for the names their values read).
        out["launch"] = [setups[0].lineno, setups[0].end_lineno or setups[0].lineno]
        kargs = kernel_args(src, setups[0], kernel)
        if kargs:
            out["kernel_args"] = kargs
    if local_sets:
        out["locals"] = local_sets
    return out


def _ctor_asserts(ex, body, guards):
    """DSL_CONSTRUCTOR_ASSERTS: the constructor's `assert` statements, in its body and in its
    `if` / `else` arms (`if is_topk_gather: assert pack_gqa`, FA4 flash_fwd_mla_sm100.py 95-96;
    105-107), each [{"expr": tree, "line": int}] with its arms' conditions folded in (`not c or
    test`). The interpreter evaluates them with the constructor's parameters: a settings the
    constructor itself refuses is no kernel to run."""
    out = []
    for node in body:
        if isinstance(node, ast.Assert):
            test = ex.expr(node.test)
            for g in reversed(guards):
                test = ["bin", "||", ["un", "!", g], test]
            out.append({"expr": test, "line": node.lineno})
        elif isinstance(node, ast.If):
            cond = ex.expr(node.test)
            out.extend(_ctor_asserts(ex, node.body, guards + [cond]))
            out.extend(_ctor_asserts(ex, node.orelse, guards + [["un", "!", cond]]))
    return out


def _setup_attrs(src, fn, attrs, methods=None):
    """Adds a setup method's unconditional `self.x = e` assignments (and `if` chains) to attrs, in
    order after the constructor's: `__call__` runs it before the launch (`self._setup_attributes()`,
    FA4 bwd_sm100 757; `self.Q_stage = 1 if self.use_2cta_instrs else 2`, 429). An assignment that
    reads one of the method's own locals is left out (its value is not the constructor's to give).
    With methods ({name: fn}, `__call__`'s setup methods), fn is `__call__` itself: its own
    assignments are read the same way, in order with the setup calls it makes (`self.cluster_shape_mnk
    = (*self.cluster_shape_mn, 1)`, 767; `self.num_mcast_ctas_b = cute.size(self.cluster_layout_vmnk
    .shape[1])`, 772, after `self._setup_attributes()`, 757)."""
    # A class the method defines (`class SharedStorage:`, FA4 sm100 ~800, then `self.shared_storage =
    # SharedStorage`, 822) is one of its locals too.
    own = (_local_names(fn) | {n.name for n in ast.walk(fn) if isinstance(n, ast.ClassDef)}) - {"self"}
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} - {"self"}
    ex = ExprReader(src, _local_names(fn))
    # An attribute the method also assigns under a statement of its body (`self.ex2_emu_freq = 0`,
    # FA4 sm100 550, then `if const_expr(self.enable_ex2_emu): self.ex2_emu_freq = ...`, 552-553) has
    # a value that depends on that branch: its top-level assignments are left out too.
    nested = {_self_assign(n) for stmt in fn.body if not isinstance(stmt, (ast.Assign, ast.Expr))
              for n in ast.walk(stmt) if isinstance(n, ast.Assign)} - {None}
    for node in fn.body:
        setup = _self_call(node)
        if setup and methods and setup in methods:
            _setup_attrs(src, methods[setup], attrs)
            continue
        chain = _attr_chain(ex, node) if isinstance(node, ast.If) else None
        if chain and not _reads_any(node, own):
            attrs.setdefault(chain[0], []).append({"expr": chain[1], "line": node.lineno})
        elif isinstance(node, ast.If) and not _reads_any(node, own):
            for tname, tree in sorted((_attr_tree(ex, [node]) or {}).items()):
                attrs.setdefault(tname, []).append({"expr": tree, "line": node.lineno})
        name = _self_assign(node)
        if name and name not in nested and not _reads_any(node.value, own, params):
            attrs.setdefault(name, []).append({"expr": ex.expr(node.value), "line": node.lineno})
        # `__call__`'s `self.tile_scheduler_cls = TileScheduler` (FA4 sm100 768, after `TileScheduler =
        # self.TileScheduler`, 730; bwd_sm100 959 after the `if` chain 922-927): an attribute set to a
        # bare local takes the value the local has there (call_locals), when the parse reads it.
        elif name and name not in nested and methods is not None and isinstance(node.value, ast.Name):
            got = call_locals(src, fn, node.lineno).get(node.value.id)
            if got is not None:
                attrs.setdefault(name, []).append({"expr": got["expr"], "line": node.lineno})


def _self_call(stmt):
    """The method name of a `self.m()` statement (no arguments), else None."""
    c = stmt.value if isinstance(stmt, ast.Expr) else None
    if (isinstance(c, ast.Call) and not c.args and not c.keywords and isinstance(c.func, ast.Attribute)
            and isinstance(c.func.value, ast.Name) and c.func.value.id == "self"):
        return c.func.attr
    return None


def _reads_any(node, names, params=()):
    """Whether the tree under node reads one of names (a plain Name load), other than through a
    None test of params (CALL_NONE_TESTS, _none_tests)."""
    tests = (_none_tests(node, params) | _element_types(node, params)) if params else ()
    return any(isinstance(n, ast.Name) and n.id in names and id(n) not in tests
               for n in ast.walk(node) if isinstance(getattr(n, "ctx", None), ast.Load))


def _none_tests(node, params):
    """CALL_NONE_TESTS: the `p is None` / `p is not None` tests of params under node (the ids of
    their Name nodes). A `__call__` parameter's None-ness is the interpreter's flag `p is not None`
    (off unless set, sim/interpret/dsl.js noneTest), as it is wherever the kernel tests it, so an
    assignment that reads the parameter only through such tests is read (`self.use_tma_store =
    not (self.qhead_per_kvhead == 1 and mCuSeqlensK is not None)`, FA4 bwd_sm100 701)."""
    out = set()
    for n in ast.walk(node):
        if (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot))
                and isinstance(n.left, ast.Name) and n.left.id in params
                and isinstance(n.comparators[0], ast.Constant) and n.comparators[0].value is None):
            out.add(id(n.left))
    return out


def _element_types(node, params):
    """CALL_ELEMENT_TYPES: the ids of the Name nodes of params read as `p.element_type` under node
    (`self.dk_dtype = mdK.element_type`, FA4 bwd_sm100 688-696): a tensor's element type is the
    caller's choice, which the interpreter reads by the parameter's name (DSL_TENSOR_DTYPES, the
    dtypes FA4's interface.py passes), so such an assignment is read."""
    return {id(n.value) for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and n.attr == ELEMENT_TYPE_ATTR and isinstance(n.value, ast.Name)
            and n.value.id in params}


def setup_methods(index, cname):
    """The class's `__call__` and the methods it runs as `self.m()` statements in its own body
    (`self._setup_attributes()`, FA4 bwd_sm100 757): (call, {name: fn}); their attributes are set
    before the launch. (None, {}) without a `__call__`."""
    call = index.method(cname, "__call__")
    methods = {}
    for stmt in call.body if call is not None else ():
        name = _self_call(stmt)
        m = index.method(cname, name) if name else None
        if m is not None and m is not call:
            methods[name] = m
    return call, methods


def _self_assign(stmt):
    """The attribute name of a lone `self.x = e` statement, else None."""
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute)
            and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id == "self"):
        return "self." + stmt.targets[0].attr
    return None


def _attr_chain(ex, node):
    """A constructor's `if c1: self.x = a / elif c2: self.x = b / else: self.x = c` (every arm one
    assignment of the same attribute, ending in `else`: FA4 bwd_sm100 142-147, `self.cta_schedule`)
    as ("self.x", `c1 ? a : (c2 ? b : c)`); None for any other `if`."""
    arms, cur = [], node
    while isinstance(cur, ast.If):
        if len(cur.body) != 1 or _self_assign(cur.body[0]) is None or not cur.orelse:
            return None
        arms.append((cur.test, cur.body[0]))
        cur = cur.orelse[0] if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If) else cur.orelse
    if not isinstance(cur, list) or len(cur) != 1 or _self_assign(cur[0]) is None:
        return None
    name = _self_assign(cur[0])
    if any(_self_assign(a) != name for _, a in arms):
        return None
    tree = ex.expr(cur[0].value)
    for test, a in reversed(arms):
        tree = ["?:", ex.expr(test), ex.expr(a.value), tree]
    return name, tree


def _attr_tree(ex, stmts, tree=None, target=None, reads=None):
    """A setup method's `if` tree whose every path assigns an attribute (FA4 bwd_sm100 437-458:
    `self.dQ_reduce_ncol` under `if self.cta_schedule == CtaSchedule.TWO_CTA_SERIAL` / `else`, each
    arm an `if` / `else` of its own) as {"self.x": `c ? a : b` nested as the branches are}, for the
    attributes every path assigns once; the others are left out. The statements may be `self.x = e`,
    `assert`, `pass` and such `if`s only, a value may read an attribute only after its own path
    assigned it (`self.sdQaccum_stage = 64 // self.dQ_reduce_ncol`, 457), and a test no attribute
    the tree assigns; anything else is None (the tree is not read). With target and reads
    (_local_assign, _reads_names) the same of a function's local names (call_locals)."""
    target, reads = target or _self_assign, reads or _reads_attrs
    if tree is None:
        tree = {target(n) for s in stmts for n in ast.walk(s)} - {None}
    out = {}
    for stmt in stmts:
        if isinstance(stmt, (ast.Assert, ast.Pass)):
            continue
        name = target(stmt)
        if name:
            if name in out or (reads(stmt.value) & tree) - set(out):
                return None
            out[name] = ex.expr(stmt.value)
            continue
        if not isinstance(stmt, ast.If) or not stmt.orelse:
            return None
        a, b = _attr_tree(ex, stmt.body, tree, target, reads), _attr_tree(ex, stmt.orelse, tree, target, reads)
        if a is None or b is None or (set(a) | set(b)) & set(out) or reads(stmt.test) & tree:
            return None
        for k in sorted(set(a) & set(b)):
            out[k] = ["?:", ex.expr(stmt.test), a[k], b[k]]
    return out


def _local_assign(stmt):
    """The name of a lone `x = e` statement, else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _reads_names(node):
    """The plain names the tree under node reads."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def call_locals(src, fn, before):
    """The values of fn's locals at line `before`, as the parse reads them: {name: {"expr": tree,
    "line": int}} from fn's top-level statements before that line, each a lone `x = e` whose value
    reads none of fn's other locals (`TileScheduler = self.TileScheduler`, FA4 sm100 730), or an `if`
    tree every path of which assigns x once (`if const_expr(mCuSeqlensQ is not None or ...):
    TileScheduler = SingleTileVarlenScheduler / else: TileScheduler = (SingleTileScheduler if ... else
    SingleTileLPTScheduler)`, FA4 sm90 317-325) that reads no local but fn's parameters (a test of a
    parameter, `mCuSeqlensQ is not None`, is a compile-time flag of the run). A later statement
    that assigns x any other way (a loop, a `with`, an `if` not of that form) drops it."""
    ex = ExprReader(src, _local_names(fn))
    params = set(_param_names(fn))
    own = _local_names(fn) - {"self"}
    out = {}
    for node in fn.body:
        if node.lineno >= before:
            break
        name = _local_assign(node)
        if name:
            out.pop(name, None)
            if not _reads_any(node.value, own):
                out[name] = {"expr": ex.expr(node.value), "line": node.lineno}
            continue
        assigned = {_local_assign(n) for n in ast.walk(node)} - {None}
        for n in assigned:
            out.pop(n, None)
        tree = _attr_tree(ex, [node], None, _local_assign, _reads_names) if isinstance(node, ast.If) else None
        if tree and not _reads_names(node) & (own - params):
            for n, t in tree.items():
                out[n] = {"expr": t, "line": node.lineno}
    return out


def kernel_args(src, call, kernel):
    """The kernel's compile-time parameters bound at its launch in `__call__` (`self.kernel(...,
    TileScheduler, ...)`, FA4 sm90 362-395, to `TileScheduler: cutlass.Constexpr[Callable]`, 441):
    {param: {"expr": tree, "line": int}} for each argument that is a bare local of `__call__` whose
    value call_locals reads there, to a parameter annotated `Constexpr`; {} when there is none."""
    if kernel is None or call is None:
        return {}
    launch = None
    for n in ast.walk(call):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == kernel.name
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"):
            launch = n
            break
    if launch is None:
        return {}
    params = [a for a in kernel.args.posonlyargs + kernel.args.args if a.arg != "self"] + list(kernel.args.kwonlyargs)
    by_name = {a.arg: a for a in params}
    bound = [(params[i], a) for i, a in enumerate(launch.args) if i < len(params) and not isinstance(a, ast.Starred)]
    bound += [(by_name[k.arg], k.value) for k in launch.keywords if k.arg in by_name]
    values = call_locals(src, call, launch.lineno)
    out = {}
    for p, a in bound:
        if (isinstance(a, ast.Name) and a.id in values and p.annotation is not None
                and "Constexpr" in _text(src, p.annotation)):
            out[p.arg] = values[a.id]
    return out


def _reads_attrs(node):
    """The `self.x` attributes the tree under node reads."""
    return {"self." + n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == "self" and isinstance(n.ctx, ast.Load)}


def enum_members(index):
    """The module's enum members as values: {"Cls.X": {"value": int, "line": int}} for each
    class deriving from `Enum` / `IntEnum` (`class CtaSchedule(enum.Enum)`, FA4 bwd_sm100 69-74),
    each member an int literal or `enum.auto()` (Python's default: 1 for the first, else the one
    before plus 1). Members of different classes are plain ints here: the kernels compare members
    of one class (`self.cta_schedule == CtaSchedule.TWO_CTA_SERIAL`, 2206)."""
    out = {}
    for cname, info in index.classes.items():
        if not any(b.rsplit(".", 1)[-1] in ("Enum", "IntEnum") for b in info["bases"]):
            continue
        last = 0
        for stmt in info["node"].body:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            v = stmt.value
            if isinstance(v, ast.Call) and not v.args and (dotted(v.func)[0] or "").rsplit(".", 1)[-1] == "auto":
                last += 1
            elif isinstance(v, ast.Constant) and isinstance(v.value, int) and not isinstance(v.value, bool):
                last = v.value
            else:
                continue
            out[cname + "." + stmt.targets[0].id] = {"value": last, "line": stmt.lineno}
    return out


WARP_SIZE_NAMES = {"cute.arch.WARP_SIZE": 32, "cutlass.cute.arch.WARP_SIZE": 32}
FOLD_DEPTH = 8


def _fold(node, attrs, depth=0):
    """LAUNCH_WARPS' integer folding: an int literal, `self.x` (its constructor value, `attrs`),
    `cute.arch.WARP_SIZE` (32), `len(...)` of a tuple or list of literals and starred `self.x`
    tuples, and + - * // of those; None for anything else."""
    if depth > FOLD_DEPTH:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    name = dotted(node)[0] if isinstance(node, (ast.Attribute, ast.Name)) else None
    if name in WARP_SIZE_NAMES:
        return WARP_SIZE_NAMES[name]
    if name is not None and name.startswith("self.") and name in attrs:
        return _fold(attrs[name], attrs, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
        a, b = _fold(node.left, attrs, depth + 1), _fold(node.right, attrs, depth + 1)
        if a is None or b is None or (isinstance(node.op, ast.FloorDiv) and b == 0):
            return None
        return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op), a // b if b else None)
    if isinstance(node, ast.Call) and dotted(node.func)[0] == "len" and len(node.args) == 1:
        return _items(node.args[0], attrs, depth + 1)
    return None


def _items(node, attrs, depth):
    """The length of a literal tuple or list whose starred items are `self.x` tuples, else None."""
    if isinstance(node, (ast.Attribute, ast.Name)) and (dotted(node)[0] or "") in attrs and depth <= FOLD_DEPTH:
        return _items(attrs[dotted(node)[0]], attrs, depth + 1)
    if not isinstance(node, (ast.Tuple, ast.List)):
        return None
    n = 0
    for e in node.elts:
        if isinstance(e, ast.Starred):
            k = _items(e.value, attrs, depth + 1)
            if k is None:
                return None
            n += k
        else:
            n += 1
    return n


def launch_warps(init, call):
    """LAUNCH_WARPS: the warps of the kernel's launch, `self.kernel(...).launch(..., block=[E, 1, 1])`
    in `__call__` (sm100_hd256_2cta_fmha_backward_dkdvkernel.py 783-785, `block=[self.threads_per_cta,
    1, 1]`; `self.threads_per_cta = self.threads_per_warp * (self.num_compute_warps + 4)`, 164-165:
    12 warps, one more than the warp-id attributes name), E folded over the constructor's own
    unconditional `self.x = ...` assignments (`_fold`); None when there is no such launch or E does
    not fold to a multiple of 32."""
    if init is None or call is None:
        return None
    attrs = {}
    for node in init.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self":
            attrs["self." + node.targets[0].attr] = node.value
    for n in ast.walk(call):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "launch":
            block = next((k.value for k in n.keywords if k.arg == "block"), None)
            if isinstance(block, (ast.List, ast.Tuple)) and block.elts:
                threads = _fold(block.elts[0], attrs)
                if threads and threads > 0 and threads % 32 == 0:
                    return threads // 32
    return None


def role_vars(src, kernel, warp_roles, is_warp_index, init=None, enums=None, setups=None, call=None):
    """kernel_layer.role_vars of a DSL kernel: each warp-index variable its role branches compare
    (`warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())`), with the branches (line,
    test, the warps they select) and `members`, the representative warp indices the interpreter
    splits roles over, each with its run of warps in `spans` ([lo, hi], hi null: and above)."""
    ex = ExprReader(src, _local_names(kernel))
    names, first = [], {}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Compare):
            for side in [node.left] + list(node.comparators):
                if isinstance(side, ast.Name) and is_warp_index(side.id) and side.id not in names:
                    names.append(side.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            prev = first.get(node.targets[0].id)
            if prev is None or node.lineno < prev.lineno:
                first[node.targets[0].id] = node
    out = []
    for name in sorted(names, key=lambda n: (first[n].lineno if n in first else kernel.lineno, n)):
        branches = []
        for role in warp_roles:
            if re.search(rf"\b{re.escape(name)}\b", role["test"]):
                branches.append({"line": role["line"], "test": role["test"], "warps": role["warps"],
                                 "role": role["name"]})
        if not branches:
            continue
        lists = [b["warps"] for b in branches if isinstance(b["warps"], list)]
        # The constructor's warp-id tuples cut the runs too: the programs test them at run time
        # (`warp_idx < self.softmax1_warp_ids[0]`, FA4 sm100 1437, 1439), and the kernel's warps
        # are theirs (threads_per_cta, 321-331: 16 warps).
        ids = warp_ids(init)
        # Only a kernel that names a role's warps by a tuple (FA4 sm100) is read this way; a lone
        # `self.tma_warp_id = 4` (FA4 sm90 style) leaves the roles as its branches give them.
        if not any(not d["scalar"] for d in ids.values()):
            ids = {}
        lists += [d["warps"] for d in ids.values()]
        members = _cuts(lists)
        spans = [[m, members[i + 1] - 1] for i, m in enumerate(members[:-1])] + [[members[-1], None]]
        var = {"name": name, "kind": "warp_index", "members": members, "spans": spans,
               "branches": branches, "line": first[name].lineno if name in first else kernel.lineno}
        ctor = constructor(src, init, setups, kernel)
        if ctor:
            var["constructor"] = ctor
        if enums:
            var["enums"] = enums
        if ids:
            var["warp_ids"] = ids
            var["warps"] = max(w for d in ids.values() for w in d["warps"]) + 1
            launched = launch_warps(init, call)
            if launched is not None and launched > var["warps"]:
                var["warps"] = launched
        if name in first:
            var["expr"] = ex.expr(first[name].value)
        out.append(var)
    return out


def read(src, index, frames, kernel, warp_roles, is_warp_index):
    """(programs.functions, kernel_layer.program, kernel_layer.role_vars) of a parsed DSL file;
    strips the private keys parse_dsl left on the ops (`_call`, `_fn`, `_via`)."""
    placement = OpPlacement(frames)
    class_of = {}
    for cname, info in index.classes.items():
        for m in info["methods"].values():
            class_of[id(m)] = cname
    functions, kernel_program = [], None
    if kernel is not None:
        placement.kept.setdefault(id(kernel), kernel)
    for fn in sorted(placement.kept.values(), key=lambda f: f.lineno):
        prog = function_program(src, fn, placement, class_of.get(id(fn)))
        if fn is kernel:
            kernel_program = prog
        else:
            functions.append(prog)
    init = None
    if kernel is not None and class_of.get(id(kernel)):
        init = index.method(class_of[id(kernel)], "__init__")
    setups = setup_methods(index, class_of[id(kernel)]) if init is not None else None
    call = index.method(class_of[id(kernel)], "__call__") if init is not None else None
    roles = role_vars(src, kernel, warp_roles, is_warp_index, init, enum_members(index), setups,
                      call) if kernel is not None else []
    for frame in frames:
        for op in frame.ops:
            for key in ("_call", "_fn", "_via"):
                op.pop(key, None)
    return functions, kernel_program, roles
