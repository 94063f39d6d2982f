"""programs_cpp.py: the C++ front end of the role programs (JSON schema 3, docs/programs.md).

A role program is a function body read as a tree of steps: loops, branches, ops, state updates
and calls, each with its source lines. sim/interpret.js runs them on the engine. This module
reads one function body (a collective's `load`, `mma`, ...; a kernel layer's `operator()`) from
the blanked code of parse_cutlass.Source, placing the ops parse_cutlass already found in the
statements that hold them. Statements are told apart by STATEMENT_PATTERNS, one small function
each (the pygments way); what none of them reads is counted in the program's `skipped`, never
guessed. Linear in the body: every statement is visited once, brackets come from the file's
BracketIndex.
"""

import bisect
import re

from program_expr import MAX_EXPR_CHARS, names_in, parse_expr

MAX_NODES = 4000        # nodes per program; past it the program stops (`incomplete`)
# The longest argument text of an MMA call the reader parses (its operands: RS collective 622 has 71 characters).
MAX_MMA_ARGS = 400
MAX_BLOCK_DEPTH = 48    # nested blocks deeper than this are not read
MAX_STATEMENT_CHARS = 2000   # a longer statement without ops is not read (counted in `skipped`)

_IDENT = r"[A-Za-z_]\w*"
RE_WORD = re.compile(rf"{_IDENT}")
RE_PLAIN_NAME = re.compile(_IDENT)
RE_ATTRIBUTE = re.compile(r"^(?:\[\[[^\[\];]*\]\]\s*)+")
# `if (c) [[unlikely]] { ... }` (array pingpong kernel 610): the attribute before a branch's body.
RE_BRANCH_ATTRIBUTE = re.compile(r"\s*(?:\[\[[^\[\];]*\]\]\s*)+")
RE_PRAGMA = re.compile(r"(?:CUTLASS_PRAGMA_(?P<cu>NO_UNROLL|UNROLL)|CUTE_(?P<ce>NO_UNROLL|UNROLL))\b")
RE_KEYWORD = re.compile(r"(?P<kw>for|while|if|else|do|return|switch|break|continue)\b")
RE_IF_CONSTEXPR = re.compile(r"\s*constexpr\b")
RE_INC = re.compile(rf"^(?:(?P<pre>\+\+|--)\s*(?P<a>{_IDENT})|(?P<b>{_IDENT})\s*(?P<post>\+\+|--))$")
RE_ADVANCE = re.compile(rf"^(?P<name>{_IDENT})\s*\.\s*advance\s*\((?P<expr>.*)\)$")
RE_COMPOUND = re.compile(rf"^(?P<name>{_IDENT})\s*(?P<op>\+=|-=|\*=|\^=|\|=|&=|=)(?!=)\s*(?P<expr>.+)$")
# `cond ? ops : void()`: a statement that runs its ops only where cond holds (DeepGEMM@54e2261
# sm90_bf16_gemm.cuh:235 `lane_idx == 0 ? empty_barriers[s]->arrive() : void();`).
RE_TERNARY_VOID = re.compile(r"^(?P<cond>[^?;{}]+)\?(?P<then>[^;{}]+):\s*void\s*\(\s*\)$")
# A declaration of several names, `uint32_t stage_idx = 0, phase = 0;` (sm90_bf16_gemm.cuh:139):
# each later declarator is `name = e` or `name`.
RE_DECLARATOR = re.compile(rf"^\s*(?P<name>{_IDENT})\s*(?:=(?!=)\s*(?P<expr>.+))?$", re.S)
# DeepGEMM's `CUTE_TIE_DECL(tuple_expr, a, b)` (deep_gemm/common/cute_tie.cuh 34-40: `auto&& t =
# (tuple_expr); auto a = get<0>(t); auto b = get<1>(t);`, sm90_fp8_gemm_1d1d.cuh:212).
RE_TIE_DECL = re.compile(r"^CUTE_TIE_DECL\s*\((?P<args>.*)\)$", re.S)
# `using WGMMA = typename mma::sm90::FP8MMASelector<BLOCK_N>::type;` in a kernel's body (its `aliases`).
RE_USING = re.compile(rf"\busing\s+(?P<name>{_IDENT})\s*=\s*(?:typename\s+)?(?P<text>[^;{{}}]+);")
RE_MEMBER_SET = re.compile(rf"^(?P<name>{_IDENT})\s*\.\s*(?P<member>{_IDENT})\s*=(?!=)\s*(?P<expr>.+)$", re.S)
# IIFE_TYPE: `auto x = [&] () { ... return T{...}; ... } ();` (an immediately invoked lambda; the
# grouped GEMMs' scheduler, sm90_gemm_array_tma_warpspecialized_cooperative.hpp 456-464): the head
# up to the body's brace, and each `return` that constructs a named type.
RE_IIFE_HEAD = re.compile(r"^\[[&=\w\s,]*\]\s*\(\s*\)\s*(?:[A-Z_]+\s+)?\{")
RE_IIFE_TAIL = re.compile(r"\}\s*\(\s*\)$")
RE_RETURN_WORD = re.compile(r"\breturn\b")
RE_RETURN_CONSTRUCT = re.compile(rf"\breturn\s+(?:typename\s+)?(?P<type>{_IDENT}(?:\s*::\s*{_IDENT})*)\s*[{{(]")
RE_BINDING = re.compile(rf"^(?:const\s+)?auto\s*&{{0,2}}\s*\[(?P<names>[\w\s,]+)\]\s*=\s*(?P<expr>.+)$")
# A type may start with `decltype(name)` (77 bwd kernel 1686: `typename
# decltype(pipeline_load_mma_q)::PipelineState pipeline_load_mma_q_consumer_state;`).
RE_DECL = re.compile(rf"""^(?P<type>(?:(?:const|constexpr|static|typename|volatile)\s+)*
    (?:(?:{_IDENT}|decltype\s*\(\s*{_IDENT}\s*\))\s*(?:::\s*(?:template\s+)?{_IDENT}\s*)*)(?:<.*>)?(?:\s*::\s*{_IDENT})*(?:\s+const\b)?[\s&*]*?)
    \s(?P<name>{_IDENT})\s*(?:=(?!=)\s*(?P<expr>.+)|\{{(?P<brace>.*)\}}|\((?P<paren>.*)\))?$""", re.VERBOSE | re.S)
RE_CALL = re.compile(rf"^(?:(?P<recv>{_IDENT}(?:\s*(?:\.|->)\s*{_IDENT})*)\s*(?:\.|->)\s*)?(?:template\s+)?"
                     rf"(?P<name>{_IDENT}(?:\s*::\s*{_IDENT})*)\s*(?:<(?P<targs>[^;{{}}]*)>)?\s*\((?P<args>.*)\)$", re.S)
# Checks the compiler evaluates (they are no step of the program).
COMPILE_TIME_CALLS = frozenset({"static_assert", "CUTE_STATIC_ASSERT_V", "CUTE_STATIC_ASSERT", "assert"})
IGNORED = {"node": "ignored"}
NOT_TYPES = frozenset({"return", "else", "case", "goto", "throw", "delete", "new", "using", "typedef"})

# Pipeline member functions that are ops wherever they are called (a kernel layer calls its own
# pipelines' producer_acquire / consumer_wait ...); the collective ops come from parse_cutlass.
PIPELINE_METHODS = frozenset({
    "producer_acquire", "producer_acquire_bytes", "producer_try_acquire", "producer_commit", "producer_tail",
    "producer_get_barrier", "producer_expect_transaction", "consumer_try_wait", "consumer_wait",
    "consumer_test_wait", "consumer_release"})


# Barrier ops whose arguments a program node carries (`args`).
NAMED_BARRIER_OPS = frozenset({"named_barrier_sync", "named_barrier_arrive"})
BARRIER_OPS = NAMED_BARRIER_OPS | {"barrier_wait", "barrier_arrive"}
RE_BARRIER_METHOD = re.compile(r"(?:barrier_\w+|NamedBarrier)\s*(?:\.|->|::)\s*(?P<m>\w+)\s*\(")


def _norm(text):
    return " ".join(text.split())


def _key(op):
    """Where an op happens in its function: its own offset, or the call site of the lambda or
    helper whose body holds it (parse_cutlass's `_key`, outermost call first)."""
    return op.get("_key") or (op.get("_pos", 0),)


class _Reader:
    """Reads the statements of one function body into nodes (docs/programs.md "Nodes")."""

    def __init__(self, src, ops, helpers=frozenset(), lambdas=(), composed=frozenset()):
        self.src, self.code, self.br = src, src.code, src.brackets
        # The function's named lambdas (parse_cutlass FunctionContext.lambdas), by position: a
        # call of one is a `call` step naming the lambda's program (`lambda`), not its ops.
        self.lambdas = sorted(lambdas, key=lambda lam: lam["pos"])
        # An op of a kept helper (`softmax_step<false>(...)`, 77 FMHA mainloop 739) is a step of
        # the helper's own program; its call site is a `call` step, not a copy of the helper's ops.
        ops = [o for o in ops if not (o.get("_helpers") and o["_helpers"][0] in helpers)]
        # A load helper that is a composed collective whose program the parse has (`LoadK
        # load_k{...}`, 88 FMHA collective 265, of `using LoadK = CollectiveLoadTma<...>`, 170):
        # its call (`load_k.template step<false>(...)`, 275) is a `call` step of `LoadK::step`,
        # not the one copy the parse places there.
        ops = [o for o in ops if not ((o.get("via") or {}).get("helper") in composed and o.get("via", {}).get("tma"))]
        self.ops = sorted(ops, key=lambda o: (_key(o), o["op"]))
        self.op_keys = [_key(o)[0] for o in self.ops]
        self.count = 0
        self.skipped = 0
        self.stopped = None

    # -- positions -----------------------------------------------------------------------------

    def skip_space(self, pos, hi):
        while pos < hi and self.code[pos].isspace():
            pos += 1
        return pos

    def simple_end(self, pos, hi):
        """Offset just past the `;` ending the statement at pos (brackets skipped), or hi."""
        code, br = self.code, self.br
        k = bisect.bisect_left(br.pos, pos)
        while k < len(br.pos) and br.pos[k] < hi:
            ch = br.chars[k]
            if ch == ";":
                return br.pos[k] + 1
            if ch in "([{":
                p = br.partner[k]
                if p == br.NONE or br.pos[p] >= hi:
                    return hi
                k = p + 1
                continue
            return br.pos[k]        # a closer of an enclosing bracket
        return hi

    def lines(self, lo, hi):
        return self.src.line(lo), self.src.line(max(lo, hi - 1))

    def ops_in(self, lo, hi):
        a = bisect.bisect_left(self.op_keys, lo)
        b = bisect.bisect_left(self.op_keys, hi)
        return self.ops[a:b]

    # -- blocks --------------------------------------------------------------------------------

    def block(self, lo, hi, depth=0):
        """Nodes of the statements in code[lo:hi]."""
        nodes = []
        if depth > MAX_BLOCK_DEPTH:
            self.stop(lo, "blocks nested too deeply")
            return nodes
        pos = lo
        while pos < hi and self.stopped is None:
            pos = self.skip_space(pos, hi)
            if pos >= hi:
                break
            pos = self.statement(pos, hi, nodes, depth)
        return nodes

    def body_of(self, pos, hi, depth):
        """(nodes, end) of the statement or block at pos (the body of a loop or branch)."""
        pos = self.skip_space(pos, hi)
        out = []
        end = self.statement(pos, hi, out, depth + 1) if pos < hi else hi
        return out, end

    def statement(self, pos, hi, nodes, depth):
        """Read the statement at pos into nodes; return the offset after it."""
        code = self.code
        ch = code[pos]
        if ch == ";":
            return pos + 1
        if ch == "{":
            close = self.br.close_of(pos)
            if close is None or close > hi:
                self.stop(pos, "an unbalanced block")
                return hi
            nodes.extend(self.block(pos + 1, close, depth + 1))
            return close + 1
        m = RE_PRAGMA.match(code, pos)
        if m:
            after = self.skip_space(m.end(), hi)
            out = []
            end = self.statement(after, hi, out, depth)
            for node in out:
                if node.get("node") == "loop":
                    node["unroll"] = (m.group("cu") or m.group("ce")).lower()
            nodes.extend(out)
            return end
        m = RE_KEYWORD.match(code, pos)
        if m:
            handler = KEYWORD_READERS.get(m.group("kw"))
            return handler(self, m, pos, hi, nodes, depth)
        end = self.simple_end(pos, hi)
        if end <= pos:   # a stray closer: step over it (every statement read moves forward)
            return pos + 1
        self.simple(pos, end, nodes)
        return end

    def paren_after(self, pos, hi):
        """(open, close) of the `(` at or after pos (spaces between), or None."""
        p = self.skip_space(pos, hi)
        if p >= hi or self.code[p] != "(":
            return None
        close = self.br.close_of(p)
        if close is None or close >= hi:
            return None
        return p, close

    def aggregate(self, type_name, values):
        """["struct", [member names], [values]] when the file defines `struct T { ... }` with as
        many members as values (in order), else ["?", text]."""
        name = type_name.split("::")[-1].split()[-1] if type_name else ""
        fields = struct_members(self.src, name)
        if fields is None or len(fields) != len(values):
            return ["?", "{...} of " + (name or "an unknown type")]
        return ["struct", fields, values]

    def stop(self, pos, why):
        if self.stopped is None:
            self.stopped = {"line": self.src.line(pos), "reason": why}

    def add(self, nodes, node):
        self.count += 1
        if self.count > MAX_NODES:
            self.stop(0, f"more than {MAX_NODES} steps")
            return
        nodes.append(node)

    # -- simple statements ---------------------------------------------------------------------

    def op_node(self, op):
        """The step of a parsed op (parse_cutlass's record): kind, pipeline object, lines, and the
        state variable it names (the call's first argument when that is a plain name: the
        `smem_pipe_write` of `pipeline.producer_acquire(smem_pipe_write)`)."""
        node = {"node": "op", "op": op["op"], "line": op["line"], "end_line": op["end_line"],
                "text": op["text"]}
        for key in ("object", "operand", "unit", "count", "via"):
            if op.get(key) is not None:
                node[key] = op[key]
        if "object" not in node and op.get("receiver"):
            node["receiver"] = op["receiver"]
        if op.get("barrier") and isinstance(op.get("stage"), str):
            # An op on a raw mbarrier ring element (parse_mbarrier: `empty_barriers[stage_idx]->wait(
            # phase ^ 1)`, a copy onto `&full_barrier` with `auto& full_barrier = *full_barriers[stage_idx]`):
            # the ring and the index, as an expression the interpreter evaluates.
            node["ring"] = op["barrier"]
            node["index"] = parse_expr(op["stage"])
            if op["op"] == "barrier_arrive":
                node["method"] = "arrive_and_expect_tx" if "bytes" in op else "arrive"
        if op.get("_args") and op["op"] in BARRIER_OPS:
            # A barrier op's arguments (the named barrier's thread count and id, FA3 mainloop 917:
            # `NamedBarrier::sync(2 * cutlass::NumThreadsPerWarpGroup, ... + canonical_warp_group_idx_nosync())`;
            # a ClusterBarrier's parity, `barrier_Q.wait(work_idx % 2)`, 1096) and its method.
            lo, hi = op["_args"][0]
            node["args"] = [parse_expr(a) for a in split_top_level_commas(self.code[lo:hi])]
            m = RE_BARRIER_METHOD.search(op.get("text") or "")
            if m:
                node["method"] = m.group("m")
        if op["op"] in NAMED_BARRIER_OPS and op.get("barrier_id") and not node.get("args"):
            # A NamedBarrier object's `sync()` / `arrive()` takes no argument: its id is the
            # object's declaration's (`cutlass::arch::NamedBarrier transform_bar(NumTransformationThreads,
            # cutlass::arch::ReservedNamedBarriers::TransformBarrier);`, sm100_mma_warpspecialized_mixed_input.hpp
            # 994, synced at 1028); the interpreter keys the barrier by its text (NAMED_BARRIER_OWN).
            node["barrier_id"] = op["barrier_id"]
        if op.get("_args") and "via" not in op and op["op"] == "mma":
            # An MMA's operands (`cute::gemm(tiled_mma, tCrA(_,_,k_block), tCrB(_,_,k_block,read_stage),
            # accum)`, sm90_mma_tma_gmma_rs_warpspecialized.hpp 622): the stage it reads is the PIPE
            # coordinate of its shared-memory operand (interpreter MMA_OPERAND_STAGE).
            # Only a call's own short argument text: nested calls (`gemm(a, gemm(a, ...))`,
            # tests/pathological_inputs.py) would read the same text once per op.
            lo, hi = op["_args"][0]
            if hi - lo <= MAX_MMA_ARGS:
                node["args"] = [parse_expr(a) for a in split_top_level_commas(self.code[lo:hi])]
        if op.get("_args") and "via" not in op and op["op"] in PIPELINE_METHODS:
            lo, hi = op["_args"][0]
            first = self.code[lo:hi].split(",")[0].strip()
            if RE_PLAIN_NAME.fullmatch(first):
                node["state"] = first
            # A commit's arrive operation (`pipeline.producer_commit(smem_pipe_write,
            # cutlass::arch::cpasync_barrier_arrive)`, sm90_mma_multistage_gmma_ss_warpspecialized.hpp
            # 291, 310; PipelineAsync runs it on the full barrier first, sm90_pipeline.hpp 1121-1124):
            # its last name.
            parts = split_top_level_commas(self.code[lo:hi])
            if op["op"] == "producer_commit" and len(parts) == 2:
                arrive = _norm(parts[1]).split("::")[-1].strip()
                if RE_PLAIN_NAME.fullmatch(arrive):
                    node["arrive"] = arrive
        return node

    def simple_text(self, text, pos, nodes):
        """A statement given as text (a for header's init or step)."""
        t = _norm(text)
        if len(t) > MAX_STATEMENT_CHARS:
            return
        for _name, read in STATEMENT_PATTERNS:
            node = read(t)
            if node is not None and node is not IGNORED:
                node["line"] = node["end_line"] = self.src.line(pos)
                node["text"] = t[:200]
                nodes.append(node)
                return

    def lambda_at(self, name, pos):
        """The key (`name@line`) of the lambda `name` a call at pos runs: the nearest preceding
        definition whose own body does not hold the call (parse_cutlass find_function_ops's rule),
        else None."""
        best = None
        for lam in self.lambdas:
            if lam["pos"] >= pos:
                break
            if lam["open"] <= pos <= lam["close"] and name in lam["params"]:
                return None   # a parameter of the enclosing lambda (fwd_step's `mask_fn`, FA3 mainloop 1192)
            if lam["name"] == name and not lam["open"] <= pos <= lam["close"]:
                best = lam
        return lambda_key(best) if best is not None else None

    def lambda_call(self, lo, text):
        """The `call` node of a statement that calls a named lambda (`consumer_wait(pipeline_k,
        smem_pipe_read);`, FA3 mainloop 1140), with `lambda` its program's key; else None."""
        if not self.lambdas:
            return None
        m = RE_CALL.match(text)
        if not m or m.group("recv") or not RE_PLAIN_NAME.fullmatch(m.group("name")):
            return None
        key = self.lambda_at(m.group("name"), lo)
        if key is None:
            return None
        node = _read_call(text)
        if not node or node.get("node") != "call":
            return None
        node["lambda"] = key
        return node

    def declarators(self, text):
        """The lets of a declaration of several names (`uint32_t stage_idx = 0, phase = 0;`,
        DeepGEMM@54e2261 sm90_bf16_gemm.cuh:139): one per declarator, each of the declaration's
        type; None for any other statement."""
        m = RE_DECL.match(text)
        if not m or m.group("expr") is None:
            return None
        parts = split_top(m.group("expr"), ",")
        if len(parts) < 2:
            return None
        more = [RE_DECLARATOR.match(p) for p in parts[1:]]
        if not all(more):
            return None
        first = _read_decl(m.group("type") + " " + m.group("name") + " = " + parts[0])
        if first is None or first.get("node") != "let":
            return None
        out = [first]
        for d in more:
            expr = d.group("expr")
            out.append({"node": "let", "names": [d.group("name")], "type": first["type"],
                        "expr": parse_expr(expr) if expr is not None else None})
        return out

    def tie_decl(self, lo, text):
        """`CUTE_TIE_DECL(f(args), a, b);` (sm90_fp8_gemm_1d1d.cuh:212): a structured binding of a,
        b to the parts of the tuple (RE_TIE_DECL), with `lambda` the key of f when it is a named
        lambda (its program is kept); an argument `x ++` (`get_pipeline(iter_idx ++)`) is read as x,
        with a `set` x ++ after the binding (the call reads the value before the step). None for
        any other statement."""
        m = RE_TIE_DECL.match(text)
        if not m:
            return None
        parts = split_top(m.group("args"), ",")
        names = [x.strip() for x in parts[1:]]
        if len(parts) < 2 or not all(RE_PLAIN_NAME.fullmatch(x) for x in names):
            return None
        expr, after = parse_expr(parts[0]), []
        if expr[0] == "call":
            args = []
            for a in expr[2]:
                if isinstance(a, list) and a[0] == "post" and isinstance(a[2], list) and a[2][0] == "id":
                    after.append({"node": "set", "name": a[2][1], "op": a[1]})
                    a = a[2]
                args.append(a)
            expr = [expr[0], expr[1], args] + expr[3:]
        node = {"node": "let", "names": names, "type": "auto", "expr": expr}
        key = self.lambda_at(expr[1], lo) if expr[0] == "call" and RE_PLAIN_NAME.fullmatch(expr[1]) else None
        if key is not None:
            node["lambda"] = key
        return [node] + after

    def simple(self, lo, hi, nodes):
        """One statement ending at hi: its ops, else the first STATEMENT_PATTERNS reader's node."""
        # An attribute is no part of the statement (`[[maybe_unused]] int q_tile_count = NumMmaWarpGroups;`, 88 FMHA collective 257).
        text = RE_ATTRIBUTE.sub("", _norm(self.code[lo:hi].rstrip().rstrip(";")))
        line, end_line = self.lines(lo, hi)
        found = self.ops_in(lo, hi)
        call = self.lambda_call(lo, text)
        if call is not None:
            # The lambda's ops (placed here with `via`) are its program's steps: the call runs them.
            for op in found:
                if "via" not in op:
                    self.add(nodes, self.op_node(op))
            call["line"], call["end_line"] = line, end_line
            self.add(nodes, call)
            return
        if found:
            guard = RE_TERNARY_VOID.match(text)
            if guard:
                # Its ops run only where the condition holds: an `if` around them.
                then = []
                node = {"node": "if", "constexpr": False, "cond": parse_expr(guard.group("cond")), "then": then,
                        "else": [], "line": line, "end_line": end_line, "text": text[:200]}
                self.add(nodes, node)
                nodes = then
            for op in found:
                self.add(nodes, self.op_node(op))
            return
        if len(text) > MAX_STATEMENT_CHARS:
            self.skipped += 1
            return
        several = self.declarators(text)
        if several is None:
            several = self.tie_decl(lo, text)
        if several is not None:
            for node in several:
                node["line"], node["end_line"] = line, end_line
                node["text"] = _norm(self.src.prose[lo:hi])[:200]
                self.add(nodes, node)
            return
        for _name, read in STATEMENT_PATTERNS:
            node = read(text)
            if node is IGNORED:
                return
            if node is not None:
                if node["node"] == "let" and isinstance(node.get("expr"), list) and node["expr"][:1] == ["aggregate"]:
                    node["expr"] = self.aggregate(node["type"], node["expr"][1])
                node["line"], node["end_line"] = line, end_line
                node["text"] = _norm(self.src.prose[lo:hi])[:200]
                self.add(nodes, node)
                return
        if text:
            self.skipped += 1




# -- keyword statements ------------------------------------------------------------------------


def _read_for(r, m, pos, hi, nodes, depth):
    par = r.paren_after(m.end(), hi)
    if par is None:
        r.stop(pos, "a for without its header")
        return hi
    op, close = par
    header = r.code[op + 1:close]
    parts = _split_semicolons(header)
    if len(parts) != 3:   # a range-for `for (auto x : xs)` is not read as a counted loop
        body, end = r.body_of(close + 1, hi, depth)
        line, end_line = r.lines(pos, end)
        r.add(nodes, {"node": "loop", "kind": "range", "cond": ["?", _norm(header)], "init": [],
                      "step": [], "body": body, "line": line, "end_line": end_line,
                      "text": "for (" + _norm(header) + ")"})
        return end
    init, step = [], []
    if parts[0].strip():
        r.simple_text(parts[0], pos, init)
    if parts[2].strip():
        # Top-level commas only: FA3's kernel 328 steps with a call of two arguments.
        for piece in split_top(parts[2], ","):
            # A step calling a named lambda (`advance_pipeline(k_block_idx)`, DeepGEMM@54e2261
            # sm90_bf16_gemm.cuh:167) is a `call` step naming its program.
            call = r.lambda_call(pos, _norm(piece))
            if call is not None:
                call["line"] = call["end_line"] = r.src.line(pos)
                call["text"] = _norm(piece)[:200]
                step.append(call)
                continue
            r.simple_text(piece, pos, step)
    body, end = r.body_of(close + 1, hi, depth)
    line, end_line = r.lines(pos, end)
    r.add(nodes, {"node": "loop", "kind": "for", "init": init,
                  "cond": parse_expr(parts[1]) if parts[1].strip() else ["n", 1],
                  "step": step, "body": body, "line": line, "end_line": end_line,
                  "text": "for (" + _norm(r.src.prose[op + 1:close]) + ")"})
    return end


def _read_while(r, m, pos, hi, nodes, depth):
    par = r.paren_after(m.end(), hi)
    if par is None:
        r.stop(pos, "a while without its condition")
        return hi
    op, close = par
    body, end = r.body_of(close + 1, hi, depth)
    line, end_line = r.lines(pos, end)
    r.add(nodes, {"node": "loop", "kind": "while", "init": [], "step": [],
                  "cond": parse_expr(r.code[op + 1:close]), "body": body, "line": line,
                  "end_line": end_line, "text": "while (" + _norm(r.src.prose[op + 1:close]) + ")"})
    return end


def _past_attribute(r, pos, hi):
    """The position after a `[[likely]]` / `[[unlikely]]` attribute at pos (C++20: it marks the
    branch, the body follows it), else pos."""
    am = RE_BRANCH_ATTRIBUTE.match(r.code, pos, hi)
    return am.end() if am else pos


def _read_if(r, m, pos, hi, nodes, depth):
    after = m.end()
    cm = RE_IF_CONSTEXPR.match(r.code, after)
    constexpr = bool(cm)
    if cm:
        after = cm.end()
    par = r.paren_after(after, hi)
    if par is None:
        r.stop(pos, "an if without its condition")
        return hi
    op, close = par
    then, end = r.body_of(_past_attribute(r, close + 1, hi), hi, depth)
    els = []
    nxt = r.skip_space(end, hi)
    em = RE_KEYWORD.match(r.code, nxt) if nxt < hi else None
    if em and em.group("kw") == "else":
        els, end = r.body_of(_past_attribute(r, em.end(), hi), hi, depth)
    line, end_line = r.lines(pos, end)
    r.add(nodes, {"node": "if", "constexpr": constexpr, "cond": parse_expr(r.code[op + 1:close]),
                  "then": then, "else": els, "line": line, "end_line": end_line,
                  "text": ("if constexpr (" if constexpr else "if (") + _norm(r.src.prose[op + 1:close]) + ")"})
    return end


def _read_return(r, m, pos, hi, nodes, depth):
    end = r.simple_end(pos, hi)
    found = r.ops_in(pos, end)
    for op in found:
        r.add(nodes, r.op_node(op))
    expr = _norm(r.code[m.end():end].rstrip().rstrip(";"))
    line, end_line = r.lines(pos, end)
    r.add(nodes, {"node": "return", "expr": parse_expr(expr) if expr else None, "line": line,
                  "end_line": end_line})
    return end


def _read_jump(r, m, pos, hi, nodes, depth):
    end = r.simple_end(pos, hi)
    line, end_line = r.lines(pos, end)
    r.add(nodes, {"node": m.group("kw"), "line": line, "end_line": end_line})
    return end


def _read_do(r, m, pos, hi, nodes, depth):
    """`do body while (cond);`: a loop whose body runs before its condition is first tested."""
    body, end = r.body_of(m.end(), hi, depth)
    nxt = r.skip_space(end, hi)
    wm = RE_KEYWORD.match(r.code, nxt) if nxt < hi else None
    par = r.paren_after(wm.end(), hi) if wm and wm.group("kw") == "while" else None
    if par is None:
        r.stop(pos, "a do without its while")
        return hi
    op, close = par
    stop = r.simple_end(close + 1, hi)
    line, end_line = r.lines(pos, stop)
    r.add(nodes, {"node": "loop", "kind": "do", "init": [], "step": [], "cond": parse_expr(r.code[op + 1:close]),
                  "body": body, "line": line, "end_line": end_line,
                  "text": "do ... while (" + _norm(r.src.prose[op + 1:close]) + ")"})
    return stop


def _read_unread(r, m, pos, hi, nodes, depth):
    """switch / a stray else: the program stops here (named on the page)."""
    r.stop(pos, f"`{m.group('kw')}` is not read yet")
    return hi


KEYWORD_READERS = {"for": _read_for, "while": _read_while, "if": _read_if, "return": _read_return,
                   "break": _read_jump, "continue": _read_jump, "do": _read_do,
                   "switch": _read_unread, "else": _read_unread}




RE_STRUCT_MEMBER = re.compile(rf"\s*(?:(?:const|constexpr|mutable)\s+)*[\w:<>,\s]+?\s(?P<name>{_IDENT})\s*(?:=.*)?", re.S)


def struct_members(src, name):
    """The member names of `struct name { ... }` in src's code, in order (None when not found);
    cached per source."""
    cache = src.__dict__.setdefault("_struct_members", {})
    if name in cache:
        return cache[name]
    out = None
    if name and re.fullmatch(_IDENT, name):
        m = re.search(rf"\bstruct\s+{name}\s*\{{", src.code)
        close = src.brackets.close_of(m.end() - 1) if m else None
        if close is not None:
            body = src.code[m.end():close]
            pieces = [x for x in body.split(";") if x.strip()]
            matches = [RE_STRUCT_MEMBER.fullmatch(x) for x in pieces]
            # Plain data members only: a member function, a nested type or a static makes it no aggregate we read.
            if all(matches) and "(" not in body and "{" not in body and "static" not in body:
                out = [x.group("name") for x in matches]
    cache[name] = out
    return out


def split_top(text, sep, angles=False):
    """The parts of text between top-level `sep` characters: (), [] and {} nest, and <> too with
    angles (template arguments; only where no comparison can occur: parameter lists, alias args)."""
    opens, closes = ("([{<", ")]}>") if angles else ("([{", ")]}")
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def split_top_level_commas(text):
    """The non-empty top-level comma-separated parts of text, stripped (brackets and <> nest)."""
    return [p.strip() for p in split_top(text, ",", angles=True) if p.strip()]


def _split_semicolons(header):
    """A for header's three parts (top-level `;` only)."""
    return split_top(header, ";")


# -- statement patterns (one reader each, tried in order) --------------------------------------


def _read_inc(text):
    m = RE_INC.match(text)
    if not m:
        return None
    name = m.group("a") or m.group("b")
    return {"node": "set", "name": name, "op": (m.group("pre") or m.group("post"))}


def _read_advance(text):
    m = RE_ADVANCE.match(text)
    if not m:
        return None
    return {"node": "set", "name": m.group("name"), "op": "advance", "expr": parse_expr(m.group("expr"))}


def _read_compound(text):
    m = RE_COMPOUND.match(text)
    if not m:
        return None
    return {"node": "set", "name": m.group("name"), "op": m.group("op"), "expr": parse_expr(m.group("expr"))}


def _read_member_set(text):
    """`params_order_s01.group_id = role == WarpRole::Softmax1 ? 1 : 0;` (77 FMHA kernel 394): a
    `set` of one member of a local (`member`), e.g. an order barrier's or a pipeline's Params."""
    m = RE_MEMBER_SET.match(text)
    if not m:
        return None
    return {"node": "set", "name": m.group("name"), "member": m.group("member"), "op": "=",
            "expr": parse_expr(m.group("expr"))}


def _read_binding(text):
    m = RE_BINDING.match(text)
    if not m:
        return None
    names = [n.strip() for n in m.group("names").split(",") if n.strip()]
    return {"node": "let", "names": names, "type": "auto", "expr": parse_expr(m.group("expr"))}


def _read_call(text):
    m = RE_CALL.match(text)
    if not m or m.group("name") in NOT_TYPES:
        return None
    if m.group("name") in COMPILE_TIME_CALLS and not m.group("recv"):
        return IGNORED
    # Each argument read on its own: a long call (77 bwd kernel `load(blk_coord, ..., 17
    # arguments)`, 1733-1745) is no longer one text past program_expr.MAX_EXPR_CHARS.
    text_args = m.group("args")
    args = parse_expr("f(" + text_args + ")") if len(text_args) < MAX_EXPR_CHARS - 3 else \
        ["call", "f", [parse_expr(a) for a in split_top_level_commas(text_args)] if text_args.strip() else []]
    node = {"node": "call", "name": re.sub(r"\s+", "", m.group("name")),
            "args": args[2] if args[0] == "call" else [["?", _norm(text_args)]]}
    if m.group("recv"):
        node["receiver"] = re.sub(r"\s+", "", m.group("recv"))
    if m.group("targs") is not None:
        node["targs"] = _norm(m.group("targs"))
        if node.get("receiver"):
            # A member call's template arguments as expressions (`load_k.template step<false>(...)`, 88
            # FMHA collective 275; `template load_kv_maybe_q<!kLoadsQSeparately>(...)`, kernel 300):
            # the callee's template parameters (`tparams`) take them in order.
            node["targ_exprs"] = [parse_expr(t) for t in split_top(node["targs"], ",", angles=True)]
    if node.get("receiver") and node["name"] in PIPELINE_METHODS:
        first = node["args"][0] if node["args"] else None
        op = {"node": "op", "op": node["name"], "object": node["receiver"].split(".")[-1]}
        if first and first[0] == "id":
            op["state"] = first[1]
        return op
    return node


def _read_decl(text):
    m = RE_DECL.match(text)
    if not m:
        return None
    expr_text = m.group("expr")
    if expr_text is not None and expr_text.strip().startswith("{") and expr_text.strip().endswith("}"):
        # `T x = {a, b, ...}`: an aggregate; its members are named from T's definition by the reader.
        parts = split_top_level_commas(expr_text.strip()[1:-1])
        return {"node": "let", "names": [m.group("name")], "type": _norm(m.group("type")),
                "expr": ["aggregate", [parse_expr(x) for x in parts]]}
    typ = _norm(m.group("type"))
    first = RE_WORD.match(typ)
    if not typ or (first and first.group() in NOT_TYPES):
        return None
    expr = m.group("expr") if m.group("expr") is not None else m.group("brace") if m.group("brace") is not None \
        else m.group("paren")
    if typ == "auto" and expr is not None:
        built = _iife_type(expr.strip())
        if built:   # IIFE_TYPE: the type every return of the invoked lambda constructs
            return {"node": "let", "names": [m.group("name")], "type": built, "expr": None, "construct": True,
                    "iife": True}
    node = {"node": "let", "names": [m.group("name")], "type": typ,
            "expr": parse_expr(expr) if expr is not None and expr.strip() else None}
    if m.group("brace") is not None or m.group("paren") is not None:
        node["construct"] = True   # T x{args} / T x(args): a construction, not a copy
        call = parse_expr("f(" + expr + ")") if expr is not None and expr.strip() else None
        if call and call[0] == "call":
            node["args"] = call[2]   # its arguments (an order barrier's Params, 77 FMHA kernel 396-397)
    return node


def _iife_type(text):
    """IIFE_TYPE: the type T of `[&] () { ... } ()` when every `return` in its body constructs T
    (`return TileScheduler{params.scheduler};`, array cooperative kernel 456-464), else None: a
    lambda that returns anything else (another lambda, a value) keeps its unread text."""
    head = RE_IIFE_HEAD.match(text)
    tail = RE_IIFE_TAIL.search(text)
    if not head or not tail or tail.start() < head.end():
        return None
    body = text[head.end():tail.start()]
    built = {re.sub(r"\s+", "", r.group("type")) for r in RE_RETURN_CONSTRUCT.finditer(body)}
    if len(built) != 1 or len(RE_RETURN_WORD.findall(body)) != len(RE_RETURN_CONSTRUCT.findall(body)):
        return None
    return built.pop()


STATEMENT_PATTERNS = (
    ("increment", _read_inc),          # ++x, x++, --x, x--
    ("advance", _read_advance),        # x.advance(n)
    ("binding", _read_binding),        # auto [a, b] = f(...)
    ("assignment", _read_compound),    # x = e, x += e, x -= e, x *= e
    ("member", _read_member_set),      # x.m = e
    ("call", _read_call),              # recv.f(args), f<T>(args) (pipeline methods become ops)
    ("declaration", _read_decl),       # T x = e, T x{e}, T x(e), T x
)


def function_program(src, fn, ops, helpers=frozenset(), lambdas=(), kernel=False, composed=frozenset()):
    """The program of one function: {name, line, end_line, params, body, skipped[, incomplete]
    [, lambdas]}. helpers: the names of the functions whose programs are kept too (their ops stay
    theirs). lambdas: the function's named lambdas (parse_cutlass, each with its own `ops`): each
    called one is a program of `lambdas` and its call sites are `call` steps naming it. composed:
    the load-helper variables whose calls are `call` steps (their composed collective's program)."""
    r = _Reader(src, ops, helpers, lambdas, composed)
    raw = r.block(fn["open"] + 1, fn["close"])
    called = set()
    _called_lambdas(raw, called)
    progs, done, captured = [], set(), set()
    while called - done:   # a lambda's body may call another (fwd_step calls consumer_wait)
        for key in sorted(called - done):
            done.add(key)
            lam = next((x for x in lambdas if lambda_key(x) == key), None)
            if lam is None:
                continue
            lp = lambda_program(src, lam, helpers, lambdas, captured)
            _called_lambdas(lp["body"], called)
            progs.append(lp)
    # A let a lambda reads through its captures (`warp_group_idx` in fwd_step, FA3 mainloop 1175) stays.
    body = prune(raw, captured, objects=not kernel, object_types=kernel_pipeline_aliases(src) if kernel else ())
    prog = {"name": fn["name"], "line": fn["line"], "end_line": fn["end_line"],
            "params": function_params(src, fn), "body": body, "skipped": r.skipped}
    if r.stopped is not None:
        prog["incomplete"] = r.stopped
    if progs:
        prog["lambdas"] = sorted(progs, key=lambda x: x["line"])
    if not kernel and is_global(src, fn):
        prog["global"] = True
        aliases = {m.group("name"): _norm(m.group("text"))
                   for m in RE_USING.finditer(src.code, fn["open"] + 1, fn["close"])}
        if aliases:
            prog["aliases"] = aliases   # a kernel's type aliases (the WGMMA atom its selector picks)
    tparams = template_params(src.code, _head_start(src.code, fn.get("name_pos")), fn.get("name_pos"))
    if any(t["type"] not in TYPE_PARAMS for t in tparams):
        prog["tparams"] = tparams
    return prog


# A template parameter that is a type (its value is no number the run reads).
TYPE_PARAMS = frozenset({"class", "typename", "class...", "typename..."})
RE_TPARAM = re.compile(rf"^(?P<type>.+?)\s*(?P<dots>\.\.\.)?\s*\b(?P<name>{_IDENT})\s*(?:=\s*(?P<default>.+))?$", re.S)
RE_TEMPLATE_HEAD = re.compile(r"\s*template\s*<")


def _head_start(code, pos):
    """Where the declaration ending at pos starts: after the statement or block before it (is_global's rule)."""
    if not isinstance(pos, int):
        return None
    lo = max(0, pos - GLOBAL_LOOKBACK)
    return max(lo, code.rfind(";", lo, pos) + 1, code.rfind("}", lo, pos) + 1, code.rfind("{", lo, pos) + 1)


def template_params(code, lo, hi):
    """[{name, type[, default]}] of the `template<...>` that opens code[lo:hi] (a function's or a
    class's head: `template<bool kAdvanceIterator=true, ..., class TileIterator, class State>`,
    88 FMHA fmha_collective_load.hpp 118), in order; the default is an expression tree. [] when
    the declaration has no template head."""
    if lo is None or hi is None:
        return []
    m = RE_TEMPLATE_HEAD.match(code, lo, hi)
    if not m:
        return []
    depth, i = 1, m.end()
    while i < hi and depth:
        ch = code[i]
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        i += 1
    if depth:
        return []
    out = []
    for piece in split_top(code[m.end():i - 1], ",", angles=True):
        t = RE_TPARAM.match(_norm(piece))
        if not t:
            return []
        typ = _norm(t.group("type")) + (t.group("dots") or "")
        param = {"name": t.group("name"), "type": typ}
        if t.group("default") is not None:
            param["default"] = parse_expr(t.group("default"))
        out.append(param)
    return out


RE_GLOBAL = re.compile(r"\b(?:__global__|CUTLASS_GLOBAL)\b")
GLOBAL_LOOKBACK = 800   # characters before a function's name searched for `__global__`


def is_global(src, fn):
    """Whether the function is a kernel entry (`__global__`, or CUTLASS's `CUTLASS_GLOBAL` macro,
    DeepGEMM@54e2261 sm90_bf16_gemm.cuh:39): its head, after the statement or block before it,
    says so."""
    pos = fn.get("name_pos")
    if not isinstance(pos, int):
        return False
    code = src.code
    lo = max(0, pos - GLOBAL_LOOKBACK)
    lo = max(lo, code.rfind(";", lo, pos) + 1, code.rfind("}", lo, pos) + 1, code.rfind("{", lo, pos) + 1)
    return RE_GLOBAL.search(code, lo, pos) is not None


def lambda_key(lam):
    """The key a call step names a lambda's program by: `name@line` of its definition (one name
    may be defined twice in a function: FA3's two `fwd_step`s, mainloop 1170 and 1258)."""
    return f"{lam['name']}@{lam['line']}"


def lambda_program(src, lam, helpers=frozenset(), lambdas=(), needed_out=None):
    """The program of a named lambda `auto name = [captures](params) { body };`: its body read
    like a function's, its own ops placed in it (an op on a parameter keeps the parameter's name
    as its receiver), its parameters typed as written. Captures are the enclosing function's
    variables, shared by reference (the interpreter's rule; FA3's lambdas capture `[&]`)."""
    code = src.code
    bracket = code.find("]", lam["pos"], lam["open"])
    paren = code.find("(", bracket, lam["open"]) if bracket >= 0 else -1
    close = src.brackets.close_of(paren) if paren >= 0 else None
    params = function_params(src, {"params": (paren + 1, close)}) if close is not None else []
    r = _Reader(src, lam.get("ops") or [], helpers, lambdas)
    body = prune(r.block(lam["open"] + 1, lam["close"]), needed_out=needed_out, objects=True)
    end_line = src.line(lam["close"])
    prog = {"name": lam["name"], "key": lambda_key(lam), "line": lam["line"], "end_line": end_line,
            "params": params, "body": body, "skipped": r.skipped,
            "captures": code[code.find("[", lam["pos"]) + 1:bracket].strip() if bracket >= 0 else ""}
    if r.stopped is not None:
        prog["incomplete"] = r.stopped
    # A braced return of a tuple-returning lambda (`-> cute::tuple<uint32_t, uint32_t> { return
    # {iter_idx % kNumStages, (iter_idx / kNumStages) & 1}; }`, sm90_fp8_gemm_1d1d.cuh:165-166)
    # constructs the tuple of its items: a `cute::make_tuple` of them.
    head = code[close + 1:lam["open"]] if close is not None else ""
    if re.search(r"\btuple\s*<", head):
        for n in body:
            text = n.get("expr")[1].strip() if n["node"] == "return" and (n.get("expr") or [None])[0] == "?" else ""
            if text.startswith("{") and text.endswith("}") and len(split_top(text[1:-1], ",")) >= 2:
                n["expr"] = ["call", "cute::make_tuple", [parse_expr(x) for x in split_top(text[1:-1], ",")]]
    return prog


def _called_lambdas(nodes, out):
    """Add the key of every lambda a `call` step (or a `let` binding a lambda's tuple) of nodes names."""
    for n in nodes:
        if n.get("node") in ("call", "let") and n.get("lambda"):
            out.add(n["lambda"])
        for key in SUBTREES:
            _called_lambdas(n.get(key) or (), out)


SUBTREES = ("init", "body", "step", "then", "else")


# KERNEL_OWN_PIPELINES: a kernel layer's own pipeline alias, `using CLCThrottlePipeline =
# cutlass::PipelineAsync<SchedulerPipelineStageCount>;` (sm100_gemm_tma_warpspecialized.hpp 175; the
# array kernel's `cute::conditional_t<IsSchedDynamicPersistent, cutlass::PipelineAsync<...>,
# cutlass::PipelineEmpty>`, 182-184): a class of cutlass, not the collective's or the epilogue's.
RE_OWN_PIPELINE_CLASS = re.compile(r"\bcutlass::Pipeline\w*\s*<")


def kernel_pipeline_aliases(src):
    """The names of the file's own pipeline aliases (KERNEL_OWN_PIPELINES)."""
    return frozenset(m.group("name") for m in RE_USING.finditer(src.code) if RE_OWN_PIPELINE_CLASS.search(m.group("text")))


def prune(body, extra=(), needed_out=None, objects=False, object_types=()):
    """The tree without what nothing reads: a `let` survives when a step needs one of its names
    (a condition, an op's state, a call's argument, an assignment, a return, a surviving let's
    initializer, to a fixpoint, or a call of a default-constructed object by its name); `text`
    stays on loops and branches only, and `end_line` only where it differs from `line` (docs/programs.md "The contract"). extra: names needed
    elsewhere (a lambda's captures); needed_out: a set that receives the names this tree needs.
    objects: an op's pipeline object is needed too (a collective function's or a lambda's: FA3's
    `auto pipeline_v_load = cute::conditional_return<!Transpose_V>(pipeline_v, pipeline_vt);`,
    mainloop 763, which load_V's ops use); a kernel layer's is not (its scheduler and epilogue
    pipelines are other files', and their ops stay no step: docs/programs.md), except an object
    whose let's type is one of object_types, the kernel layer's own pipeline aliases
    (KERNEL_OWN_PIPELINES: the CLC throttle, `clc_throttle_pipeline.producer_acquire(...)`, SM100
    kernel layer 632, of `CLCThrottlePipeline clc_throttle_pipeline(...)`, 549)."""
    needed, lets, called, op_objects = set(extra), [], set(), set()

    def visit(nodes):
        for n in nodes:
            if n["node"] == "let":
                lets.append(n)
            else:
                for key in ("cond", "expr"):
                    if n.get(key) is not None:
                        names_in(n[key], needed)
                for a in (n.get("args") or []) + (n.get("targ_exprs") or []):
                    names_in(a, needed)
                    # An MMA's operand tensor (`tCrB(_,_,k_block,read_stage)`): its declaration
                    # says which coordinate is the stage (interpreter MMA_OPERAND_STAGE).
                    if n["node"] == "op" and n.get("op") == "mma" and isinstance(a, list) and a[:1] == ["call"]:
                        needed.add(a[1])
                for key in ("state", "name"):
                    if n.get(key) and n["node"] in ("op", "set"):
                        needed.add(n[key])
                if objects and n["node"] == "op" and n.get("object"):
                    needed.add(n["object"])
                elif n["node"] == "op" and n.get("object"):
                    op_objects.add(n["object"])
                if n["node"] == "op" and isinstance(n.get("count"), str):
                    needed.add(n["count"])
                if n["node"] == "call" and n.get("receiver"):
                    needed.add(n["receiver"].split(".")[0])
                elif n["node"] == "call" and n.get("name") and not n.get("lambda"):
                    called.add(n["name"])
            for key in SUBTREES:
                visit(n.get(key) or ())
    visit(body)
    # `CollectiveEpilogue epilogue;` then `epilogue(...)`: a default-constructed object called by its
    # name (its operator(), 88 FMHA kernel 409-413) needs its declaration (EPILOGUE_OPERATOR,
    # docs/programs.md); a tensor indexed as `t(i)` is initialized, and its let is not kept for that.
    needed.update(x for n in lets if n.get("expr") is None and not n.get("args") for x in n["names"] if x in called)
    needed.update(x for n in lets if re.sub(r"^(?:typename\s+)?(?:\w+::)*", "", n.get("type") or "") in object_types
                  for x in n["names"] if x in op_objects)
    changed = True
    while changed:
        changed = False
        for n in lets:
            if not n.get("_keep") and any(x in needed for x in n["names"]):
                n["_keep"] = True
                changed = True
                if n.get("expr") is not None:
                    names_in(n["expr"], needed)
                for a in n.get("args") or ():
                    names_in(a, needed)
    if needed_out is not None:
        needed_out.update(needed)

    def rebuild(nodes):
        out = []
        for n in nodes:
            if n["node"] == "let" and not n.pop("_keep", False):
                continue
            if n["node"] not in ("loop", "if"):
                n.pop("text", None)
            if n.get("end_line") == n.get("line"):
                n.pop("end_line", None)
            for key in SUBTREES:
                if key in n:
                    n[key] = rebuild(n[key])
            out.append(n)
        return out
    return rebuild(body)


RE_CLASS_HEAD = re.compile(rf"\b(?:struct|class)\s+(?P<name>{_IDENT})\s*(?:final\s*)?(?::[^{{;]*)?\{{")
RE_DATA_MEMBER = re.compile(rf"^(?!(?:using|static|template|typedef|friend|return)\b)(?P<type>[\w:<>,\s]+?)(?P<ref>[&*]*)\s*\b(?P<name>{_IDENT})$")
RE_MEMBER_INIT = re.compile(rf"(?P<member>{_IDENT})\s*\(\s*(?P<param>{_IDENT})\s*\)")


def class_facts(src, cls):
    """What a composed collective's object is built from (docs/programs.md "CUTLASS 88 Hopper
    FMHA"): {tparams, members, construct, class_line} of `struct cls` in src, or None. tparams: its
    template head's (template_params); members: its data members in order, [{name, ref}]
    (`Pipeline& pipeline;`, fmha_collective_load.hpp 57-59); construct: the member each
    constructor argument initialises, from a constructor whose initializer list is `m(p)` over
    its parameters (`CollectiveLoadTma(Params const& params, Pipeline& pipeline, SharedStorage&
    storage) : params(params), pipeline(pipeline), storage(storage) {}`, 62-63), else the data
    members in order (an aggregate)."""
    code = src.code
    m = next((x for x in RE_CLASS_HEAD.finditer(code) if x.group("name") == cls), None)
    close = src.brackets.close_of(m.end() - 1) if m else None
    if close is None:
        return None
    head = _head_start(code, m.start())
    members, ctor, pos = [], None, m.end()
    while pos < close:   # the body's statements at its own depth (member function bodies skipped)
        end = pos
        while end < close and code[end] not in ";{":
            end = (src.brackets.close_of(end) or end) + 1 if code[end] in "([" else end + 1
        text = _norm(code[pos:end])
        if code[end:end + 1] == "{":
            block = src.brackets.close_of(end)
            c = re.match(rf"^(?:CUTLASS_\w+\s+)*{cls}\s*\((?P<params>.*?)\)\s*:(?P<inits>.*)$", text, re.S)
            if c and ctor is None:
                params = [RE_PARAM.match(_norm(x)) for x in split_top(c.group("params"), ",", angles=True)]
                # Only the list's own entries `m(p)` over a parameter name (not a call inside one).
                inits = [RE_MEMBER_INIT.fullmatch(_norm(x)) for x in split_top(c.group("inits"), ",")]
                inits = {i.group("param"): i.group("member") for i in inits if i}
                ctor = [inits.get(x.group("name")) if x else None for x in params]
            pos = (block if block is not None else close) + 1
            continue
        d = RE_DATA_MEMBER.match(text)
        if d and "(" not in text and "=" not in text:
            members.append({"name": d.group("name"), "ref": "&" in d.group("ref")})
        pos = end + 1
    construct = ctor if ctor is not None else [x["name"] for x in members]
    return {"tparams": template_params(code, head, m.start()), "members": members, "construct": construct,
            "class_line": src.line(m.start())}


RE_PARAM = re.compile(rf"(?P<type>.*?)(?P<ref>[&*]*)\s*(?P<name>{_IDENT})\s*(?:=.*)?$", re.S)


def function_params(src, fn):
    """[{name, type, ref}] of a function's parameters (ref: taken by reference)."""
    lo, hi = fn["params"]
    out = []
    for piece in split_top(src.code[lo:hi], ",", angles=True):
        p = _norm(piece)
        if not p or p == "void":
            continue
        m = RE_PARAM.match(p)
        if not m or not m.group("type").strip() or _norm(p).split("=")[0].strip().endswith(("&", "*")):
            # An unnamed parameter (`MainloopPipelineReducer&, PipelineStateReducer&,`, 88 FMHA
            # collective 346) keeps its place: the arguments bind by position.
            out.append({"name": "", "type": _norm(p), "ref": "&" in p})
            continue
        typ = _norm(m.group("type"))
        out.append({"name": m.group("name"), "type": typ,
                    "ref": "&" in m.group("ref") or typ.endswith("&")})
    return out
