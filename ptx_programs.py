"""Role programs read from one kernel's PTX (stdlib only): the first piece of the PTX front end.

    python3 ptx_programs.py kernel.ptx            # prints the JSON model
    python3 ptx_programs.py kernel.ptx --entry NAME

Steps (docs/ptx-front-end.md):
1. Split the chosen `.entry` body into statements (labels, `bra`, `@%p bra`, `ret` / `exit`),
   scoping labels by `{ }` blocks (every inline-asm block reuses LAB_WAIT / DONE).
2. Basic blocks and the CFG; dominators (Cooper, Harvey and Kennedy's iterative algorithm over
   reverse postorder); back edges to a dominator give natural loops, nested by containment; a
   retreating edge to a non-dominator is an irreducible loop (a warning). A loop whose header is
   inside an inline-asm block (the LAB_WAIT retry around mbarrier.try_wait) is a spin loop: its
   wait is one op (`spin: true`), not a loop node.
3. Roles: a branch predicate is evaluated for every thread of `.maxntid` when its definitions
   reach `%tid.x` through single-definition registers and a small table of integer ops
   (EVAL_OPS). A predicate equal on all lanes of each warp splits the warps that reach a block
   (a warp mask propagated over the CFG); the warps are then partitioned by the blocks they
   reach, one role per class. A branch that depends on %tid but cannot be evaluated is warned
   about and both its sides stay reachable.
4. Per role, the blocks it reaches become a schema-3 body: natural loops as `loop` nodes,
   forward branches in the layout's if / if-else shape as `if` nodes, the protocol instructions
   (ptx_lines.CLASS_RULES) as `op` nodes with their source chain; a branch in any other shape
   leaves its blocks in layout order with a warning.

Every loop is bounded by the text's size, the evaluator by EVAL_BUDGET and the dataflow by
MAX_PASSES; bad text gives warnings, never an exception.
"""

import argparse
import json
import re
import sys
from pathlib import Path

import ptx_lines

MAX_STATEMENT = 20000      # characters in one statement (a wgmma with 64 accumulators is ~1,500)
LINE_DIRECTIVES = (".loc", ".file", ".section", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg")
MAX_BRACE_DEPTH = 64        # deeper `{` nesting is malformed text (a warning; the rest is flat)
EVAL_BUDGET = 4096          # registers evaluated per kernel (each is a vector over the threads)
EVAL_DEPTH = 64             # definition chain followed per predicate
MAX_THREADS = 1024          # the hardware's block size limit
MAX_PASSES = 64             # dominator and warp-mask passes over the CFG
WARP = 32
WARPGROUP = 128

# Opcodes that start like a protocol instruction but have no ptx_lines class on purpose: set-up,
# fences and hints, and `bar.warp.sync` (__syncwarp(): the lanes of one warp reconverge, e.g. the
# SM100 kernel layer's load and MMA warps, sm100_gemm_tma_warpspecialized.hpp 660 and 728; it
# orders nothing between warps, so between roles). Any other opcode with a protocol head and no
# class is `unknown_protocol`.
KNOWN_UNCLASSED = re.compile(r"(?:mbarrier\.(?:init|inval)|fence\.|barrier\.cluster\.|"
                             r"prefetch\.|setmaxnreg\.|cp\.async\.bulk\.prefetch\b|bar\.warp\.sync\b)")
PROTOCOL_HEADS = ptx_lines.CLASS_HEADS + ("fence.", "setmaxnreg.", "prefetch.")

RE_ENTRY = re.compile(r"\s*(?:\.visible\s+|\.weak\s+)*\.entry\s+(?P<name>[A-Za-z_$][\w$]*)")
RE_NTID = re.compile(r"\s*\.(?:maxntid|reqntid)\s+(?P<x>\d+)(?:\s*,\s*(?P<y>\d+))?(?:\s*,\s*(?P<z>\d+))?")
RE_LABEL = re.compile(r"\s*(?P<label>[A-Za-z_$][\w$]*)\s*:(?!:)")
RE_GUARD = re.compile(r"\s*@(?P<neg>!?)(?P<pred>%?[\w$]+)\s+")
RE_OPCODE = re.compile(r"\s*(?P<op>[a-z][\w.:]*)")
RE_INT = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)U?$")


def _warn(warnings, kind, line, message):
    """Append one warning (kind, PTX line, message)."""
    warnings.append({"kind": kind, "line": line, "message": message})


# ---------------------------------------------------------------- 1. statements


class Stmt:
    """One PTX statement: its line, opcode, operands, guard predicate and brace scope chain."""
    __slots__ = ("line", "op", "args", "guard", "neg", "text", "scopes", "labels")

    def __init__(self, line, op, args, guard, neg, text, scopes):
        self.line, self.op, self.args, self.guard, self.neg = line, op, args, guard, neg
        self.text, self.scopes, self.labels = text, scopes, []


def split_operands(text):
    """Operands at the top level of a statement (commas inside [] and {} do not split)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def read_entry(text, entry, warnings):
    """(entry name, (x, y, z) threads or None, statements, labels) of the chosen .entry."""
    lines = text.splitlines()
    names = [(i, m.group("name")) for i, ln in enumerate(lines) for m in [RE_ENTRY.match(ln)] if m]
    if not names:
        raise PtxError("no .entry in the text")
    if entry is None:
        start, name = names[0]
        if len(names) > 1:
            _warn(warnings, "several_entries", start + 1,
                  f"{len(names)} entries; reading the first ({name}); pick one with --entry")
    else:
        found = [(i, n) for i, n in names if n == entry]
        if not found:
            raise PtxError(f"no .entry named {entry}")
        start, name = found[0]
    stmts, ntid = [], None
    labels = {}          # (scope id, name) -> index of the statement it labels
    pending = []         # labels waiting for their statement
    scopes, next_scope, opened = [], 0, False
    buf, buf_line, vec = [], 0, 0    # the statement being read, its first line, its {} depth
    has_text = False                 # whether buf holds more than blanks
    for i in range(start, len(lines)):
        line = lines[i].split("//", 1)[0]
        stripped = line.strip()
        if not opened:
            m = RE_NTID.match(line)
            if m:
                ntid = tuple(int(m.group(k) or 1) for k in "xyz")
        if stripped.startswith(LINE_DIRECTIVES):
            continue         # .loc / .file / .maxntid ...: one line, no `;`, never inside a statement
        for ch in line:
            blank = not has_text
            if ch in "{}" and vec == 0 and has_text and "".join(buf).rstrip().endswith(":"):
                # labels just before a scope brace: they label the next statement
                _statement("".join(buf), buf_line, scopes or [0], stmts, labels, pending, warnings)
                buf, has_text, blank = [], False, True
            if ch == "{" and blank and vec == 0:
                if len(scopes) >= MAX_BRACE_DEPTH:
                    _warn(warnings, "malformed", i + 1, f"braces nested deeper than {MAX_BRACE_DEPTH}")
                    vec += 1
                    continue
                next_scope += 1
                scopes.append(next_scope)
                opened = True
                buf, has_text = [], False
                continue
            if ch == "}" and vec == 0:
                if scopes:
                    scopes.pop()
                buf, has_text = [], False
                if opened and not scopes:
                    break
                continue
            if not scopes:
                buf, has_text = [], False
                continue
            if ch == "{":
                vec += 1
            elif ch == "}":
                vec -= 1
            if ch == ";" and vec == 0:
                _statement("".join(buf), buf_line, scopes, stmts, labels, pending, warnings)
                buf, has_text = [], False
                continue
            if blank and not ch.isspace():
                buf_line, has_text = i + 1, True
            buf.append(ch)
            if len(buf) > MAX_STATEMENT:
                _warn(warnings, "malformed", buf_line, f"a statement longer than {MAX_STATEMENT} characters")
                buf, vec, has_text = [], 0, False
        else:
            if not has_text:
                buf = []
            else:
                buf.append("\n")
            continue
        break
    else:
        if scopes:
            _warn(warnings, "malformed", len(lines), "the entry's body is not closed")
    for key in pending:        # labels at the very end: they label the end of the function
        labels[key] = len(stmts)
    return name, ntid, stmts, labels


def _statement(text, line, scopes, stmts, labels, pending, warnings):
    """Read one `;`-terminated statement (its leading labels first) into stmts."""
    m = RE_LABEL.match(text)
    while m:
        pending.append((scopes[-1], m.group("label")))
        text = text[m.end():]
        m = RE_LABEL.match(text)
    if not text.strip() or text.lstrip().startswith("."):
        return
    line += text[:len(text) - len(text.lstrip())].count("\n")   # the opcode's own line
    g = RE_GUARD.match(text)
    pos = g.end() if g else 0
    o = RE_OPCODE.match(text, pos)
    if not o:
        _warn(warnings, "malformed", line, f"unreadable statement: {' '.join(text.split())[:80]}")
        return
    s = Stmt(line, o.group("op"), split_operands(text[o.end():]),
             g.group("pred") if g else None, bool(g and g.group("neg")),
             " ".join(text.split()), tuple(scopes))
    for key in pending:
        labels[key] = len(stmts)
        s.labels.append(key[1])
    pending.clear()
    stmts.append(s)


class PtxError(ValueError):
    """The text has nothing this reader can start from (no .entry)."""


# ---------------------------------------------------------------- 2. blocks, CFG, loops

TERMINATORS = ("ret", "exit", "trap")


def _target(stmt, labels):
    """The statement index a branch goes to, searching the branch's open scopes innermost first."""
    name = stmt.args[0] if stmt.args else ""
    for sid in reversed(stmt.scopes):
        if (sid, name) in labels:
            return labels[(sid, name)]
    return None


class Block:
    """A basic block: statements [start, end), successors (taken branch first) and its branch."""
    __slots__ = ("id", "start", "end", "succs", "preds", "branch", "taken", "fall")

    def __init__(self, bid, start, end):
        self.id, self.start, self.end = bid, start, end
        self.succs, self.preds, self.branch, self.taken, self.fall = [], [], None, None, None


def build_cfg(stmts, labels, warnings):
    """Basic blocks in layout order, with their edges."""
    n = len(stmts)
    leaders = {0} if n else set()
    leaders.update(i for i in labels.values() if i < n)
    targets = {}
    for i, s in enumerate(stmts):
        if s.op.startswith("bra") or s.op in TERMINATORS:
            leaders.add(i + 1)
            if s.op.startswith("bra"):
                t = _target(s, labels)
                if t is None:
                    _warn(warnings, "unknown_label", s.line, f"branch to an undefined label: {s.text}")
                targets[i] = t
    starts = sorted(x for x in leaders if x < n)
    blocks, at = [], {}
    for k, st in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else n
        at[st] = len(blocks)
        blocks.append(Block(len(blocks), st, end))
    end_id = None

    def block_at(i):
        """The block that starts at statement i (the function end is a virtual exit block)."""
        nonlocal end_id
        if i in at:
            return at[i]
        if end_id is None:
            end_id = len(blocks)
            blocks.append(Block(end_id, n, n))
        return end_id
    for b in list(blocks):
        last = stmts[b.end - 1] if b.end > b.start else None
        if last is not None and last.op.startswith("bra"):
            b.branch = last
            t = targets.get(b.end - 1)
            if t is not None:
                b.taken = block_at(t)
                b.succs.append(b.taken)
            if last.guard is not None or t is None:
                b.fall = block_at(b.end)
                b.succs.append(b.fall)
        elif last is not None and last.op in TERMINATORS and last.guard is None:
            pass
        elif b.end <= n and b.id != end_id:
            b.fall = block_at(b.end)
            b.succs.append(b.fall)
    for b in blocks:
        b.succs = list(dict.fromkeys(b.succs))
        for s in b.succs:
            blocks[s].preds.append(b.id)
    return blocks


def reverse_postorder(blocks):
    """Block ids reachable from block 0, in reverse postorder (iterative DFS)."""
    if not blocks:
        return []
    seen, order, stack = {0}, [], [(0, 0)]
    while stack:
        b, k = stack.pop()
        succs = blocks[b].succs
        if k < len(succs):
            stack.append((b, k + 1))
            s = succs[k]
            if s not in seen:
                seen.add(s)
                stack.append((s, 0))
        else:
            order.append(b)
    return order[::-1]


def dominators(blocks, rpo, warnings):
    """Immediate dominators (Cooper, Harvey, Kennedy), as {block: idom}."""
    index = {b: i for i, b in enumerate(rpo)}
    idom = {rpo[0]: rpo[0]} if rpo else {}

    def meet(a, b):
        """The nearest common dominator of a and b."""
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a
    for _ in range(MAX_PASSES):
        changed = False
        for b in rpo[1:]:
            new = None
            for p in blocks[b].preds:
                if p in idom:
                    new = p if new is None else meet(p, new)
            if new is not None and idom.get(b) != new:
                idom[b], changed = new, True
        if not changed:
            return idom
    _warn(warnings, "budget", 0, f"dominators did not settle in {MAX_PASSES} passes")
    return idom


def dominates(idom, a, b):
    """Whether block a dominates block b."""
    while True:
        if a == b:
            return True
        up = idom.get(b)
        if up is None or up == b:
            return False
        b = up


class Loop:
    """A natural loop: its header, the blocks of its body, back-edge sources, parent, spin flag."""
    __slots__ = ("header", "blocks", "latches", "parent", "spin", "children")

    def __init__(self, header):
        self.header, self.blocks, self.latches = header, {header}, []
        self.parent, self.spin, self.children = None, False, []


def find_loops(blocks, stmts, rpo, idom, warnings):
    """Natural loops by header (back edges to a dominator); irreducible edges are warnings."""
    index = {b: i for i, b in enumerate(rpo)}
    loops = {}
    for b in rpo:
        for s in blocks[b].succs:
            if s in index and index[s] <= index[b]:
                if not dominates(idom, s, b):
                    line = stmts[blocks[b].end - 1].line if blocks[b].end > blocks[b].start else 0
                    _warn(warnings, "irreducible", line,
                          "a branch back to a block that does not dominate it (irreducible loop); "
                          "no loop node")
                    continue
                # the LAB_WAIT retry of an inline-asm wait: its branch lies in a scope below the
                # body's, so it is a spin loop even when it shares its header with a real loop
                last = stmts[blocks[b].end - 1] if blocks[b].end > blocks[b].start else None
                spin = last is not None and len(last.scopes) > 1
                loop = loops.setdefault((s, spin), Loop(s))
                loop.spin = spin
                loop.latches.append(b)
                work = [b]
                while work:
                    x = work.pop()
                    if x not in loop.blocks:
                        loop.blocks.add(x)
                        work.extend(p for p in blocks[x].preds if p in index)
    by_size = sorted(loops.values(), key=lambda lp: len(lp.blocks))
    for i, lp in enumerate(by_size):
        for outer in by_size[i + 1:]:
            if lp.header in outer.blocks and outer is not lp and \
                    (len(outer.blocks) > len(lp.blocks) or lp.spin):
                lp.parent = outer
                outer.children.append(lp)
                break
    return loops


# ---------------------------------------------------------------- 3. roles

def _imm(text):
    """An integer immediate, or None."""
    t = text.strip()
    if not RE_INT.match(t):
        return None
    t = t.rstrip("U")
    neg = t.startswith("-")
    v = int(t[1:] if neg else t, 0)
    return -v if neg else v


class Evaluator:
    """Values of registers as functions of %tid.x, evaluated for every thread. A value is None
    when it is no function of %tid.x (unknown on every thread), else a list with one entry per
    thread, None where that thread's value is unknown (`and.pred` / `or.pred` of a known and an
    unknown predicate: PARTIAL_PRED)."""

    def __init__(self, stmts, nthreads, block_start=None):
        self.defs = {}       # register -> [(statement index, statement)]
        self.block_start = block_start or {}
        for k, s in enumerate(stmts):
            if s.op.startswith(("bra", "st.", "ret", "exit", "bar", "wgmma", "mbarrier")) or not s.args:
                continue
            for d in s.args[0].split("|"):
                self.defs.setdefault(d.strip(), []).append((k, s))
        self.n = nthreads
        self.memo = {}
        self.budget = EVAL_BUDGET

    def touches_tid(self, reg, depth=0, seen=None):
        """Whether any definition chain of reg reads a thread or warp index."""
        seen = set() if seen is None else seen
        if reg in seen or depth > EVAL_DEPTH:
            return False
        seen.add(reg)
        for _, s in self.defs.get(reg, ()):
            for a in s.args[1:]:
                if re.search(r"%(?:tid|laneid|warpid)\b", a):
                    return True
                if a.startswith("%") and self.touches_tid(a, depth + 1, seen):
                    return True
        return False

    def reaching(self, reg, at):
        """The one definition of reg that reaches statement `at`: the only one, or the last one
        before `at` in the same basic block; else None."""
        defs = self.defs.get(reg, ())
        if len(defs) == 1:
            return defs[0]
        if at is None:
            return None
        home = self.block_start.get(at)
        best = None
        for k, s in defs:
            if k < at and self.block_start.get(k) == home and (best is None or k > best[0]):
                best = (k, s)
        return best

    def value(self, operand, depth=0, at=None):
        """The operand's value per thread (a list), or None when it is not a function of %tid.x."""
        operand = operand.strip()
        imm = _imm(operand)
        if imm is not None:
            return [imm] * self.n
        if operand == "%tid.x":
            return list(range(self.n))
        if operand in ("%tid.y", "%tid.z"):
            return [0] * self.n if self.flat else None
        d = self.reaching(operand, at)
        if d is None or depth > EVAL_DEPTH:
            return None
        if d[0] in self.memo:
            return self.memo[d[0]]
        if self.budget <= 0:
            return None
        self.budget -= 1
        self.memo[d[0]] = None        # a cycle reads as unknown
        v = self._eval(d[1], operand, depth, d[0])
        self.memo[d[0]] = v
        return v

    flat = True   # set False when the block has a y or z extent

    def touches_elect(self, reg, depth=0, seen=None):
        """Whether a definition chain of reg reads elect.sync's result (one elected lane)."""
        seen = set() if seen is None else seen
        if reg in seen or depth > EVAL_DEPTH:
            return False
        seen.add(reg)
        for _, s in self.defs.get(reg, ()):
            if s.op.startswith("elect.sync"):
                return True
            for a in s.args[1:] + ([s.guard] if s.guard else []):
                if a.startswith("%") and self.touches_elect(a, depth + 1, seen):
                    return True
        return False

    def _eval(self, s, dest, depth, at):
        """One definition's value, per EVAL_OPS."""
        head = s.op.split(".")[0]
        if head == "elect":
            # elect.sync d|p, mask: one lane per warp. Lane 0 stands for the elected one: which
            # lane it is never matters to roles, since a lane-dependent predicate splits nothing.
            parts = [x.strip() for x in s.args[0].split("|")]
            if dest == parts[-1] and len(parts) == 2:
                return [int(t % WARP == 0) for t in range(self.n)]
            return [0] * self.n
        if s.guard is not None:
            # `@%p mov d, x` after an earlier definition of d in the block: d = p ? x : earlier
            guard = self.value(s.guard, depth + 1, at)
            prev = self.value(dest, depth + 1, at) if self.reaching(dest, at) else None
            new = self._eval(Stmt(s.line, s.op, s.args, None, False, s.text, s.scopes), dest, depth, at)
            if guard is None or prev is None or new is None:
                return None
            return _known([None if g is None else x if bool(g) != s.neg else y
                           for x, y, g in zip(new, prev, guard)])
        args = [self.value(a, depth + 1, at) if i else None for i, a in enumerate(s.args)]
        width = 64 if (".u64" in s.op or ".s64" in s.op or ".b64" in s.op) else 32
        mask = (1 << width) - 1
        signed = ".s" in s.op

        def norm(x):
            """Wrap to the width, as signed when the type is."""
            x &= mask
            return x - (1 << width) if signed and x >> (width - 1) else x
        if head == "shfl" and ".idx" in s.op and len(s.args) >= 5:
            src, lane, clamp = args[1], _uniform(args[2]), _uniform(args[3])
            if src is None or lane is None or clamp != WARP - 1 or dest != s.args[0].split("|")[0].strip():
                return None
            return _known([src[(t - t % WARP) + lane] if (t - t % WARP) + lane < self.n else None
                           for t in range(self.n)])
        if head in ("mov", "cvt") and len(args) == 2 and args[1] is not None:
            return args[1]
        if head == "setp" and len(args) >= 3 and "|" not in s.args[0]:
            a, b = args[1], args[2]
            f = SETP.get(s.op.split(".")[1] if "." in s.op else "")
            if a is None or b is None or f is None:
                return None
            if any(t in s.op for t in (".u", ".b")):     # unsigned compare
                return _lift(lambda x, y: int(f(x & 0xFFFFFFFFFFFFFFFF, y & 0xFFFFFFFFFFFFFFFF)), a, b)
            return _lift(lambda x, y: int(f(x, y)), a, b)
        if head == "selp" and len(args) == 4 and None not in args[1:]:
            return _known([None if c is None else x if c else y for x, y, c in zip(args[1], args[2], args[3])])
        if head == "not" and len(args) == 2 and args[1] is not None:
            if ".pred" in s.op:
                return _lift(lambda x: int(not x), args[1])
            return _lift(lambda x: norm(~x), args[1])
        if ".pred" in s.op and head in PARTIAL_PRED and len(args) == 3 and (args[1] or args[2]):
            return PARTIAL_PRED[head](args[1] or [None] * self.n, args[2] or [None] * self.n)
        f = EVAL_OPS.get(head)
        if f is None or len(args) != 3 or args[1] is None or args[2] is None:
            return None
        if not signed:
            return _lift(lambda x, y: _norm_or_none(f(x & mask, y & mask), norm), args[1], args[2])
        return _lift(lambda x, y: _norm_or_none(f(x, y), norm), args[1], args[2])


def _lift(f, *vecs):
    """f per thread over vectors of one length, None where any operand is None (or f gives
    None); None when no thread's value is known."""
    return _known([None if None in xs else f(*xs) for xs in zip(*vecs)])


def _known(vals):
    """The vector, or None when no entry of it is known."""
    return None if all(v is None for v in vals) else vals


def _norm_or_none(r, norm):
    """norm(r), or None for an undefined result (division by zero)."""
    return None if r is None else norm(r)


def _and3(a, b):
    """Three-valued and of two predicate vectors (None: unknown): false wins over unknown."""
    return _known([0 if x == 0 or y == 0 else None if x is None or y is None else int(bool(x and y))
                   for x, y in zip(a, b)])


def _or3(a, b):
    """Three-valued or of two predicate vectors (None: unknown): true wins over unknown."""
    return _known([1 if x or y else None if x is None or y is None else 0 for x, y in zip(a, b)])


# `and.pred` / `or.pred` where one operand is no function of %tid.x: the known operand still
# decides the threads where it is absorbing. CUTLASS's SM100 kernel layer tests
# `warp_category == Sched && is_first_cta_in_cluster` and `... == EpilogueLoad &&
# is_epi_load_needed` (sm100_gemm_tma_warpspecialized.hpp 450, 452); nvcc branches on the
# negation, `or.pred %p109, %p107, %p108` with `%p107 = warp != 1`, `%p108 = %cluster_ctarank
# != 0`: every warp but 1 takes it whatever the cluster rank, and only warp 1 is unresolved.
PARTIAL_PRED = {"and": _and3, "or": _or3}


def _uniform(vals):
    """The one value every thread has, or None."""
    if not vals or vals[0] is None or any(v != vals[0] for v in vals):
        return None
    return vals[0]


def _div(x, y):
    """PTX div: truncating; None on division by zero."""
    if y == 0:
        return None
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _rem(x, y):
    """PTX rem: the sign of the dividend."""
    q = _div(x, y)
    return None if q is None else x - q * y


# The integer ops the role evaluator follows (everything else is unknown).
EVAL_OPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "div": _div, "rem": _rem, "and": lambda x, y: x & y, "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y, "shl": lambda x, y: x << min(y, 64),
    "shr": lambda x, y: x >> min(y, 64), "min": min, "max": max,
}
SETP = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
    "lo": lambda x, y: x < y, "ls": lambda x, y: x <= y, "hi": lambda x, y: x > y,
    "hs": lambda x, y: x >= y,
}


def branch_masks(blocks, ev, nwarps, loops, stmts, warnings):
    """{block: (taken warp mask, fallthrough warp mask)} of every warp-uniform thread predicate."""
    out, in_loop = {}, set()
    for lp in loops.values():
        if not lp.spin:
            in_loop |= lp.blocks
    for b in blocks:
        s = b.branch
        if s is None or s.guard is None or b.taken is None:
            continue
        vals = ev.value(s.guard, at=b.end - 1) if ev is not None else None
        reported = ev is not None and b.id not in in_loop and ev.touches_tid(s.guard) and \
            not ev.touches_elect(s.guard)    # elect.sync: one elected lane, not a role
        if vals is None:
            if reported:
                _warn(warnings, "unresolved_role_predicate", s.line,
                      f"the predicate {s.guard} of `{s.text}` depends on the thread index but "
                      "is not evaluated (a register with several definitions or an op outside "
                      "EVAL_OPS): both sides kept for every warp")
            continue
        taken = fall = unknown = 0
        uniform = True
        for w in range(nwarps):
            lanes = vals[w * WARP:(w + 1) * WARP]
            if not lanes or None in lanes:
                unknown |= 1 << w          # some lane not evaluated: the warp may go either way
                continue
            t = [bool(x) != s.neg for x in lanes]
            if all(t):
                taken |= 1 << w
            elif any(t):
                uniform = False
            else:
                fall |= 1 << w
        if not uniform:
            continue
        if unknown and reported:
            _warn(warnings, "unresolved_role_predicate", s.line,
                  f"the predicate {s.guard} of `{s.text}` is not evaluated for warps "
                  f"{_warp_list(unknown, nwarps)} (an operand that is no function of the thread "
                  "index): both sides kept for them, the other warps decided")
        out[b.id] = (taken | unknown, fall | unknown)
    return out


def _warp_list(mask, nwarps):
    """`1, 3` (the warps of a mask)."""
    return ", ".join(str(w) for w in range(nwarps) if mask >> w & 1)


def warp_reach(blocks, rpo, masks, nwarps, warnings):
    """{block: mask of the warps that may reach it} (a forward dataflow to a fixpoint)."""
    reach = {b: 0 for b in rpo}
    if not rpo:
        return reach
    reach[rpo[0]] = (1 << nwarps) - 1
    for _ in range(MAX_PASSES):
        changed = False
        for b in rpo:
            m = reach[b]
            blk = blocks[b]
            for s in blk.succs:
                out = m
                if b in masks:
                    out &= masks[b][0] if s == blk.taken else masks[b][1]
                    if s == blk.taken and s == blk.fall:
                        out = m
                if s in reach and out & ~reach[s]:
                    reach[s] |= out
                    changed = True
        if not changed:
            return reach
    _warn(warnings, "budget", 0, f"warp reach did not settle in {MAX_PASSES} passes")
    return reach


def role_classes(reach, loops, nwarps):
    """The warps partitioned by the loops they reach (a role is its steady state: warps that
    differ only in straight-line set-up code, such as warp 0 initialising the barriers, are one
    role, and that difference stays an `if` in its program), as warp masks in warp order."""
    classes = [(1 << nwarps) - 1]
    for m in sorted({reach.get(lp.header, 0) for lp in loops.values() if not lp.spin}):
        nxt = []
        for c in classes:
            for part in (c & m, c & ~m):
                if part:
                    nxt.append(part)
        classes = nxt
    return sorted(classes, key=lambda c: (c & -c))


def role_name(mask, nwarps):
    """`wg1-2` for whole warpgroups, else `wg0.w0+w2` (warps within their warpgroup)."""
    warps = [w for w in range(nwarps) if mask >> w & 1]
    per = WARPGROUP // WARP
    groups = sorted({w // per for w in warps})
    whole = all(all(mask >> (g * per + k) & 1 for k in range(per)) for g in groups) and \
        all(g * per + k < nwarps for g in groups for k in range(per))
    if whole:
        runs = _runs(groups)
        return "wg" + ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)
    parts = []
    for g in groups:
        ws = [w % per for w in warps if w // per == g]
        parts.append(f"wg{g}.w" + "+w".join(str(w) for w in ws))
    return ",".join(parts)


def _runs(xs):
    """Consecutive runs of sorted integers as (first, last) pairs."""
    out = []
    for x in xs:
        if out and out[-1][1] == x - 1:
            out[-1][1] = x
        else:
            out.append([x, x])
    return [tuple(r) for r in out]


# ---------------------------------------------------------------- 4. programs

def _op_node(stmt, info, warnings, seen_unknown):
    """The op node of a protocol statement, or None."""
    cls = ptx_lines.classify(stmt.op)
    if cls is None:
        if stmt.op.startswith(PROTOCOL_HEADS) and not KNOWN_UNCLASSED.match(stmt.op):
            if stmt.op not in seen_unknown:
                seen_unknown.add(stmt.op)
                _warn(warnings, "unknown_protocol", stmt.line,
                      f"{stmt.op} looks like a protocol instruction but has no class")
        if stmt.op == "call" or stmt.op.startswith("call."):
            names = [a for a in stmt.args if re.match(r"[A-Za-z_$]", a)]
            return {"node": "call", "name": names[0] if names else "?", "ptx_line": stmt.line,
                    "line": stmt.line}
        return None
    node = {"node": "op", "op": cls, "opcode": stmt.op, "ptx_line": stmt.line}
    chain = info.get((stmt.line, stmt.op))
    if chain:
        node["file"], node["line"] = chain[0].file, chain[0].line
        node["chain"] = [[f.file, f.line] for f in chain]
    if stmt.guard:
        node["guard"] = ("!" if stmt.neg else "") + stmt.guard
    addrs = [a.strip("[]").strip() for a in stmt.args if a.startswith("[")]
    if cls.startswith("mbarrier") and addrs:
        node["barrier"] = addrs[0]
        if ".parity" in stmt.op and len(stmt.args) >= 3:
            node["parity"] = stmt.args[2]
    elif cls in ("tma_load", "bulk_load", "clc_try_cancel") and len(addrs) >= 2:
        node["barrier"] = addrs[-1]     # the completion mbarrier (after the destination)
    elif cls == "umma_commit" and addrs:
        node["barrier"] = addrs[0]
    elif cls in ("wgmma_wait", "bulk_wait", "cp_async_wait") and stmt.args:
        node["count"] = _imm(stmt.args[0]) if _imm(stmt.args[0]) is not None else stmt.args[0]
    elif cls in ("bar_sync", "bar_arrive") and stmt.args:
        node["barrier"] = _imm(stmt.args[0]) if _imm(stmt.args[0]) is not None else stmt.args[0]
        if len(stmt.args) > 1:
            node["count"] = _imm(stmt.args[1]) if _imm(stmt.args[1]) is not None else stmt.args[1]
    return node


class ProgramBuilder:
    """Schema-3 bodies of one role from the CFG, its loops and the role's reachable blocks."""

    def __init__(self, blocks, stmts, loops, masks, mask, reach, info, warnings, seen_unknown, warned):
        self.blocks, self.stmts, self.loops, self.masks = blocks, stmts, loops, masks
        self.mask, self.info, self.warnings, self.seen = mask, info, warnings, seen_unknown
        self.mine = {b for b, m in reach.items() if m & mask}
        self.inner = {}            # block -> innermost non-spin loop
        for lp in sorted((lp for lp in loops.values() if not lp.spin), key=lambda lp: -len(lp.blocks)):
            for b in lp.blocks:
                self.inner[b] = lp
        self.warned = warned
        self.ev = None           # the Evaluator (read_programs sets it), for elect.sync branches
        self.registers = {}      # ptx line -> the role's setmaxnreg hint there (register_hints)

    def succs(self, b):
        """The role's successors of block b (a branch the role's warps decide keeps one side)."""
        blk = self.blocks[b]
        out = []
        for s in blk.succs:
            if b in self.masks and blk.taken != blk.fall:
                side = self.masks[b][0] if s == blk.taken else self.masks[b][1]
                if not side & self.mask:
                    continue
            out.append(s)
        return out

    def child_loop(self, b, loop):
        """The loop directly inside `loop` that holds block b, or None."""
        lp = self.inner.get(b)
        while lp is not None and lp.parent is not loop and lp is not loop:
            nxt = lp.parent
            while nxt is not None and nxt.spin:
                nxt = nxt.parent
            lp = nxt
        return None if lp is loop else lp

    def body(self, loop):
        """The body of a loop (None: the whole role) in layout order."""
        members = self.mine if loop is None else (loop.blocks & self.mine)
        if loop is None:
            members = {b for b in members if b < len(self.blocks)}
        return self.region(sorted(members), loop)

    def region(self, order, loop):
        """The nodes of the blocks `order` (layout order) of one loop level."""
        pos = {b: i for i, b in enumerate(order)}
        out, i = [], 0
        while i < len(order):
            b = order[i]
            child = self.child_loop(b, loop)
            if child is not None:
                node = self.loop_node(child)
                out.append(node)
                last = max(pos[x] for x in child.blocks if x in pos)
                i = last + 1
                continue
            spin = self.loops.get((b, True))
            if spin is not None:
                inside = sorted(x for x in spin.blocks if x in pos)
                for x in inside:
                    out.extend(self.ops(x))
                i = pos[inside[-1]] + 1
                continue
            out.extend(self.ops(b))
            nxt, node = self.branch(order, pos, i, loop)
            if node is not None:
                out.append(node)
            i = nxt
        return out

    def branch(self, order, pos, i, loop):
        """(next position, if node or None) for the branch ending order[i]."""
        b = order[i]
        blk = self.blocks[b]
        succs = self.succs(b)
        if blk.branch is None or len(succs) < 2:
            return i + 1, None
        t, f = blk.taken, blk.fall
        s = blk.branch
        cond_taken = ["un", "!", ["id", s.guard]] if s.neg else ["id", s.guard]
        head = {"node": "if", "line": s.line, "ptx_line": s.line, "text": s.text}
        if self.ev is not None and self.ev.touches_elect(s.guard):
            head["lanes"] = "one_elected"    # a branch on elect.sync's predicate
        if loop is not None and (t not in loop.blocks or t == loop.header):
            kind = "continue" if t == loop.header else "break"
            return i + 1, dict(head, cond=cond_taken, then=[{"node": kind, "ptx_line": s.line}], **{"else": []})
        if t not in pos:
            if t == len(self.blocks) - 1 or not self.blocks[t].succs:
                return i + 1, dict(head, cond=cond_taken, then=[{"node": "return", "ptx_line": s.line}], **{"else": []})
            return i + 1, self.unstructured(s)
        j = pos[t]
        if j <= i or pos.get(f) != i + 1:
            return i + 1, self.unstructured(s)
        then_blocks = order[i + 1:j]
        k = j
        last = self.blocks[then_blocks[-1]] if then_blocks else None
        if last is not None and last.branch is not None and last.branch.guard is None and \
                last.taken in pos and pos[last.taken] > j:
            k = pos[last.taken]
        if not self.closed(order, pos, i + 1, j, j if k == j else k) or \
                (k > j and not self.closed(order, pos, j, k, k)):
            return i + 1, self.unstructured(s)
        node = dict(head, cond=["un", "!", cond_taken] if not s.neg else ["id", s.guard],
                    then=self.region(then_blocks, loop), **{"else": self.region(order[j:k], loop)})
        return k, node

    def closed(self, order, pos, lo, hi, join):
        """Whether the blocks order[lo:hi] branch only among themselves, to the join, or out of
        this loop level (break / continue / return)."""
        for b in order[lo:hi]:
            for s in self.succs(b):
                p = pos.get(s)
                if p is not None and not (lo <= p < hi or p == join) and not self.is_spin_edge(b, s):
                    return False
        return True

    def is_spin_edge(self, b, s):
        """An edge back to a spin loop's header (the asm retry)."""
        lp = self.loops.get((s, True))
        return lp is not None and b in lp.blocks

    def unstructured(self, stmt):
        """No if node for a branch of another shape; warned once per branch."""
        if stmt.line not in self.warned:
            self.warned.add(stmt.line)
            _warn(self.warnings, "unstructured_branch", stmt.line,
                  f"`{stmt.text}` is not in an if / if-else shape: its blocks stay in layout order")
        return None

    def loop_node(self, lp):
        """A loop node: header and back-edge PTX lines, its body."""
        hdr = self.blocks[lp.header]
        latch = max(lp.latches)
        first = self.stmts[hdr.start].line if hdr.start < len(self.stmts) else 0
        back = self.stmts[self.blocks[latch].end - 1].line
        src = self.first_source(lp)
        # tested at its back edge: a do-while (schema 3's `do`)
        node = {"node": "loop", "kind": "do", "back_edge": True, "ptx_line": first, "end_ptx_line": back,
                "body": self.body(lp)}
        if src:           # no key when no op in the loop has a .loc (schema 3: a line is >= 1)
            node["file"], node["line"] = src
            node["file"] = src[0]
        return node

    def first_source(self, lp):
        """(file, line) of the first op in the loop's blocks, the loop's source anchor."""
        for b in sorted(lp.blocks):
            for k in range(self.blocks[b].start, self.blocks[b].end):
                chain = self.info.get((self.stmts[k].line, self.stmts[k].op))
                if chain:
                    return chain[0].file, chain[0].line
        return None

    def ops(self, b):
        """The op and call nodes of one block (a spin loop's wait is marked)."""
        blk = self.blocks[b]
        out = []
        spin = any(lp.spin and b in lp.blocks for lp in self.loops.values())
        for k in range(blk.start, blk.end):
            hint = register_hint(self.stmts[k], self.info)
            if hint is not None:
                self.registers[hint["ptx_line"]] = hint
            node = _op_node(self.stmts[k], self.info, self.warnings, self.seen)
            if node is not None:
                if spin and node["node"] == "op" and node["op"] == "mbarrier_wait":
                    node["spin"] = True
                out.append(node)
        return out


RE_SETMAXNREG = re.compile(r"setmaxnreg\.(?P<dir>inc|dec)\.sync\.aligned\.u32$")


def register_hint(stmt, info):
    """`setmaxnreg.{inc,dec}.sync.aligned.u32 N` (PTX ISA: a warpgroup raises or lowers its
    per-thread register limit to N) as {"direction", "count", "ptx_line", "file", "line"}, else
    None. CUTLASS's warp-specialized kernels lower the producer warpgroup's registers and raise the
    math warpgroups' (sm90_gemm_tma_warpspecialized_cooperative.hpp: LoadRegisterRequirement 40,
    MmaRegisterRequirement 232), so the hint tells a role's part without reading its ops."""
    m = RE_SETMAXNREG.match(stmt.op)
    if m is None:
        return None
    count = _imm(stmt.args[0]) if stmt.args else None
    hint = {"direction": m.group("dir"), "count": count, "ptx_line": stmt.line}
    chain = info.get((stmt.line, stmt.op))
    if chain:
        hint["file"], hint["line"] = chain[0].file, chain[0].line
    return hint


def register_hints(pb, name, warnings):
    """A role's setmaxnreg hints in PTX line order; a role that both raises and lowers is warned."""
    hints = [pb.registers[k] for k in sorted(pb.registers)]
    if len({h["direction"] for h in hints}) > 1:
        _warn(warnings, "register_hints", hints[0]["ptx_line"],
              f"role {name} both raises and lowers its registers (setmaxnreg .inc and .dec)")
    return hints


# ---------------------------------------------------------------- 6. loop trip counts

def source_locations(text):
    """{PTX line: (file index, source line)} of the innermost `.loc` before each line (the last
    one written: one `.loc` per inlining level, outer to inner)."""
    out, cur = {}, None
    for i, line in enumerate(text.splitlines(), 1):
        if ".loc" in line:
            m = ptx_lines.RE_LOC.match(line)
            if m:
                cur = (int(m.group("file")), int(m.group("line")))
                continue
        if cur is not None:
            out[i] = cur
    return out


class SourceText:
    """Source lines of the `.file` table, read on first use (a missing file reads as empty)."""

    def __init__(self, files):
        self.files, self.cache = files, {}

    def line(self, loc):
        """(path, line, the line's text stripped or None) of a (file index, line) location."""
        if loc is None or loc[0] not in self.files:
            return None
        path = self.files[loc[0]]
        if path not in self.cache:
            try:
                self.cache[path] = Path(path).read_text(errors="replace").splitlines()
            except (OSError, ValueError):
                self.cache[path] = []
        lines = self.cache[path]
        text = " ".join(lines[loc[1] - 1].split()) if 0 < loc[1] <= len(lines) else None
        return path, loc[1], text


MAX_KNOB_NAME = 80     # characters of a source line used as a knob's name


def trip_count(lp, blocks, stmts, ev, locs, source):
    """The trip count of a natural loop as a knob: {register, value (int or None), induction,
    step, compare, name, file, line} from the back edge `@%p bra header` with p = setp.CMP a, b:
    one operand the induction (redefined in the loop as itself + an immediate, directly or
    through a mov), the other the limit. A counting-down loop to an immediate takes its trip
    count from the induction's value on entry (its definition outside the loop); else the limit
    is the bound. None when the back edge has no such shape."""
    if ev is None:
        return None
    latch = max(lp.latches)
    br = stmts[blocks[latch].end - 1]
    if br.guard is None:
        return None
    d = ev.reaching(br.guard, blocks[latch].end - 1)
    if d is None or not d[1].op.startswith("setp") or len(d[1].args) < 3:
        return None
    setp = d[1]
    inside = {k for b in lp.blocks if b < len(blocks) for k in range(blocks[b].start, blocks[b].end)}

    def step_of(reg):
        """The immediate step of reg's in-loop redefinition, or None."""
        for k, s in ev.defs.get(reg, ()):
            if k not in inside:
                continue
            if s.op.startswith("mov") and len(s.args) == 2 and s.args[1].startswith("%"):
                for k2, s2 in ev.defs.get(s.args[1], ()):
                    if s2.op.startswith(("add", "sub")) and len(s2.args) == 3 and s2.args[1] == reg \
                            and _imm(s2.args[2]) is not None:
                        return _imm(s2.args[2]) * (1 if s2.op.startswith("add") else -1)
            if s.op.startswith(("add", "sub")) and len(s.args) == 3 and s.args[1] == reg and _imm(s.args[2]) is not None:
                return _imm(s.args[2]) * (1 if s.op.startswith("add") else -1)
        return None
    a, b = setp.args[1], setp.args[2]
    for ind, limit in ((a, b), (b, a)):
        step = step_of(ind) if ind.startswith("%") else None
        if step is None:
            # the compare may read the stepped copy (`add %r2, %r1, 1; setp %r2, N`)
            dd = ev.reaching(ind, None) if ind.startswith("%") else None
            if dd and dd[1].op.startswith(("add", "sub")) and len(dd[1].args) == 3 and \
                    _imm(dd[1].args[2]) is not None and step_of(dd[1].args[1]) is not None:
                ind, step = dd[1].args[1], step_of(dd[1].args[1])
        if step is None:
            continue
        bound = limit
        if step < 0 and _imm(limit) is not None:
            entry = [s for k, s in ev.defs.get(ind, ()) if k not in inside and s.op.startswith("mov")
                     and len(s.args) == 2]
            if len(entry) == 1:
                bound = entry[0].args[1]
        value = _imm(bound)
        at = source.line(locs.get(setp.line))
        name = at[2][:MAX_KNOB_NAME] if at and at[2] else bound
        out = {"register": None if value is not None else bound, "value": value, "induction": ind,
               "step": step, "compare": setp.op, "limit": limit, "name": name}
        if at:
            out["file"], out["line"] = at[0], at[1]
        return out
    return None


# ---------------------------------------------------------------- 5. stage rings

MBARRIER_BYTES = 8          # one mbarrier object (the stride of a barrier array)
# Barrier-operand classes that complete a transaction count (bytes): their barrier is a ring's
# full barrier. A tcgen05.commit is not among them: it also releases empty barriers (the UMMA
# consumer's release), so its barrier's slot comes from the other rules.
# The CLC's `clusterlaunchcontrol.try_cancel.async...mbarrier::complete_tx::bytes [resp], [mbar]`
# writes its 16-byte response and completes the bytes on mbar, as a TMA load does (CUTLASS's
# PipelineCLCFetchAsync: the scheduler warp's producer_acquire arrives with expect_tx 16, then
# issues the query; sm100_pipeline.hpp / sm100_tile_scheduler.hpp).
TX_CLASSES = ("mbarrier_expect_tx", "tma_load", "bulk_load", "clc_try_cancel")
# The fills that complete a full barrier: no parser step of their own (the expect_tx is the
# producer_commit); they keep their class's OP_KIND.
FILL_CLASSES = ("tma_load", "bulk_load", "clc_try_cancel")
BARRIER_CLASSES = ("mbarrier_wait", "mbarrier_arrive", "mbarrier_expect_tx", "tma_load", "bulk_load",
                   "umma_commit", "cp_async_mbarrier_arrive", "clc_try_cancel")
# Which parser op kind (docs/parser.md) a barrier op is, by its class family and ring slot.
STEP_OF = {("wait", "empty"): "producer_acquire", ("tx", "full"): "producer_commit",
           ("wait", "full"): "consumer_wait", ("arrive", "empty"): "consumer_release",
           ("arrive", "full"): "producer_commit"}


def _family(cls):
    """wait / tx / arrive: what a barrier op does to its barrier."""
    return "wait" if cls == "mbarrier_wait" else "tx" if cls in TX_CLASSES else "arrive"


# The bits of a shared-memory barrier address an `and` must keep to leave its slot unchanged: bits
# 3-23 (barriers are 8-byte aligned; a CTA's shared window is under 16 MB). CUTLASS's 2-SM TMA
# loads clear bit 24, the peer CTA's bit, so the load completes on the leader CTA's barrier
# (`& Sm100MmaPeerBitMask`, 0xFEFFFFFF, cute/arch/copy_sm100_tma.hpp 45, 63); nvcc folds in the
# alignment: `and.b32 %r2015, %r2019, -16777224` (0xFEFFFFF8) in the 2-SM GEMM unit.
PEER_MASK_KEPT = 0x00FFFFF8


class Affine:
    """Addresses as const + symbol + sum(coef * register) over single-definition chains."""

    def __init__(self, ev, stmts=()):
        self.ev = ev
        self.stmts = stmts

    def same_guard(self, k, at):
        """Whether the guarded definition k runs whenever statement `at` does: `at` has the same
        guard, in the same block, and the guard is not redefined between them (inline asm's
        `@p mapa remAddr32, a, cta; @p mbarrier.arrive.expect_tx [remAddr32], n;`, CUTLASS's
        ClusterTransactionBarrier::arrive_and_expect_tx with a CTA id, barrier.h)."""
        if at is None or not 0 <= at < len(self.stmts) or not k < at:
            return False
        d, u = self.stmts[k], self.stmts[at]
        if (u.guard, u.neg) != (d.guard, d.neg) or self.ev.block_start.get(k) != self.ev.block_start.get(at):
            return False
        return not any(k < j < at for j, _ in self.ev.defs.get(d.guard, ()))

    def of(self, operand, at, depth=0):
        """{"": const, "sym:NAME": 1, "%reg": coef} of an operand; a register whose definition is
        not one of add / sub / shl / mul / mad / mov / cvt / cvta / mapa by an immediate is a term."""
        t = operand.strip()
        imm = _imm(t)
        if imm is not None:
            return {"": imm}
        if not t.startswith("%") and t not in self.ev.defs and re.match(r"[A-Za-z_$][\w$]*$", t):
            return {"sym:" + t: 1}     # a variable's address (inline asm's `.reg` names are registers)
        d = self.ev.reaching(t, at) if depth <= EVAL_DEPTH else None
        if d is None or (d[1].guard is not None and not self.same_guard(d[0], at)):
            return {t: 1}
        k, s = d
        head, a = s.op.split(".")[0], s.args
        if head in ("mov", "cvt", "cvta", "mapa") and len(a) >= 2:
            return self.of(a[1], k, depth + 1)
        if head in ("add", "sub") and len(a) == 3:
            x, y = self.of(a[1], k, depth + 1), self.of(a[2], k, depth + 1)
            return _combine(x, y, 1 if head == "add" else -1)
        if head == "and" and len(a) == 3 and _imm(a[2]) is not None and \
                _imm(a[2]) & PEER_MASK_KEPT == PEER_MASK_KEPT:
            return self.of(a[1], k, depth + 1)      # the leader CTA's barrier: the same slot
        if head in ("shl", "mul") and len(a) == 3 and _imm(a[2]) is not None:
            f = 1 << _imm(a[2]) if head == "shl" else _imm(a[2])
            return {key: v * f for key, v in self.of(a[1], k, depth + 1).items()}
        if head == "mad" and len(a) == 4 and _imm(a[2]) is not None:
            x = {key: v * _imm(a[2]) for key, v in self.of(a[1], k, depth + 1).items()}
            return _combine(x, self.of(a[3], k, depth + 1), 1)
        return {t: 1}


def _combine(x, y, sign):
    """x + sign * y of two affine forms."""
    out = dict(x)
    for key, v in y.items():
        out[key] = out.get(key, 0) + sign * v
    return {key: v for key, v in out.items() if v or key == ""}


class Rings:
    """Barrier arrays (symbol + offset, stride 8, indexed by a stage counter) grouped into rings."""

    def __init__(self, stmts, ev, warnings):
        self.stmts, self.ev, self.warnings = stmts, ev, warnings
        self.aff = Affine(ev, stmts)
        self.counter_memo = {}
        self.with_register = set()     # array keys with a register part that is no stage counter

    def defs(self, reg):
        """Every definition of a register."""
        return [s for _, s in self.ev.defs.get(reg, ())]

    def wrap_of(self, pred):
        """(N, counter source register) when pred is `setp.eq n, N` with n = add x, 1; N may be a
        register name (not a constant); else None."""
        ds = self.defs(pred)
        if len(ds) != 1 or not ds[0].op.startswith("setp.eq") or len(ds[0].args) < 3:
            return None
        n, bound = ds[0].args[1], ds[0].args[2]
        nd = self.defs(n)
        if len(nd) != 1 or not nd[0].op.startswith("add") or _imm(nd[0].args[2]) != 1:
            return None
        return (_imm(bound) if _imm(bound) is not None else bound), nd[0].args[1]

    def counter(self, reg):
        """{"stages": N | register | None, "rule": ...} of a stage register: a `selp reg, 0, n, p`
        wrap (p from wrap_of), or `and reg, x, 2^k - 1`; None when it is neither."""
        if reg in self.counter_memo:
            return self.counter_memo[reg]
        out = None
        ns = []
        for s in self.defs(reg):
            if s.op.startswith("selp") and len(s.args) == 4 and _imm(s.args[1]) == 0:
                w = self.wrap_of(s.args[3])
                if w is not None:
                    ns.append(w[0])
            elif s.op.startswith("and") and len(s.args) == 3 and _imm(s.args[2]) is not None:
                m = _imm(s.args[2])
                if m > 0 and m & (m + 1) == 0:
                    ns.append(m + 1)
        if ns:
            consts = sorted({n for n in ns if isinstance(n, int)})
            out = {"stages": consts[0] if len(consts) == 1 else None,
                   "bound": [n for n in ns if not isinstance(n, int)][:1] or None,
                   "several": len(consts) > 1}
        else:
            out = self.copied_counter(reg)
        self.counter_memo[reg] = out
        return out

    def copied_counter(self, reg):
        """The counter a register copies: every definition a `mov` (a register or an immediate,
        its starting value) and every register source one counter with the same stages (nvcc
        keeps a loop's stage in a copy of the counter: the SM100 load warp's `mov.u32 %r2132,
        %r2135` before and at the end of its k-loop); None otherwise."""
        ds = self.defs(reg)
        if not ds or not all(d.op.startswith("mov") and len(d.args) == 2 for d in ds):
            return None
        srcs = sorted({d.args[1] for d in ds if d.args[1].startswith("%")})
        if not srcs:
            return None
        self.counter_memo[reg] = None          # a copy cycle is no counter
        got = [self.counter(r) for r in srcs]
        if any(g is None for g in got) or len({json.dumps(g, sort_keys=True) for g in got}) != 1:
            return None
        return dict(got[0])

    def phase_flips_on_wrap(self, reg):
        """Whether a parity register has an `xor reg, x, t` definition with t = selp 1, 0, p on a
        wrap predicate p (the phase bit flipped when its stage counter wraps)."""
        for s in self.defs(reg):
            if s.op.startswith("xor") and len(s.args) == 3:
                for t in s.args[1:]:
                    for d in self.defs(t):
                        if d.op.startswith("selp") and len(d.args) == 4 and _imm(d.args[1]) == 1 \
                                and _imm(d.args[2]) == 0 and self.wrap_of(d.args[3]) is not None:
                            return True
        return False

    def initial_parity(self, reg):
        """The immediate of the register's one `mov reg, imm` definition, else None."""
        imms = {_imm(s.args[1]) for s in self.defs(reg) if s.op.startswith("mov") and len(s.args) == 2}
        imms.discard(None)
        return imms.pop() if len(imms) == 1 else None

    def address(self, stmt_index, operand):
        """(array key, stage register or None, stride) of a barrier address, or None when the
        address has no symbol and no register base."""
        form = self.aff.of(operand, stmt_index)
        const = form.get("", 0)
        syms = [k for k, v in form.items() if k.startswith("sym:") and v == 1]
        # registers: `%r12`, and inline asm's own `.reg` names (`remAddr32`)
        regs = sorted(k for k in form if k and not k.startswith("sym:"))
        stage = [r for r in regs if form[r] % MBARRIER_BYTES == 0 and self.counter(r)]
        base = [r for r in regs if r not in stage]
        if len(stage) > 1:
            return None
        key = "+".join([k[4:] for k in syms] + base) or "0"
        if base:
            self.with_register.add(f"{key}+{const}")
        return (f"{key}+{const}", stage[0] if stage else None, form[stage[0]] if stage else None)


def _array_order(arr):
    """Sort key of an array key `base+offset`: the base, then the offset as a number."""
    base, _, off = arr.rpartition("+")
    return base, _imm(off) if _imm(off) is not None else 0, off


def find_rings(nodes_by_role, stmts, ev, warnings):
    """Group the barrier ops of every role's program by ring; annotate each op node with its
    `ring`, `slot` and `step` where found; return the model's rings and lone barriers."""
    if ev is None:
        return [], []
    rings = Rings(stmts, ev, warnings)
    index = {s.line: k for k, s in enumerate(stmts)}
    sites = []          # (role, node, array key, stage register, stride)
    for role, nodes in nodes_by_role:
        for n in nodes:
            if n.get("node") != "op" or n["op"] not in BARRIER_CLASSES or not n.get("barrier"):
                continue
            k = index.get(n["ptx_line"])
            addr = rings.address(k, n["barrier"]) if k is not None else None
            if addr is None:
                _warn(warnings, "unresolved_barrier", n["ptx_line"],
                      f"the barrier address {n['barrier']} is not base + 8 * stage counter")
                continue
            sites.append((role, n, addr[0], addr[1], addr[2]))
    parent = {}

    def find(x):
        """Union-find root."""
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for _, _, arr, stage, _ in sites:
        if stage is not None:
            parent[find(arr)] = find("stage:" + stage)
    def grouped():
        """{ring root: its sites} of the indexed arrays."""
        out = {}
        for site in sites:
            if site[3] is not None or find(site[2]) != site[2]:
                out.setdefault(find(site[2]), []).append(site)
        return out
    # Arrays no one counter indexes together (each role copies its counters) are one ring when
    # they lie back to back with the same stage count: CUTLASS's pipeline SharedStorage is
    # `FullBarrier full_barrier_[Stages]; EmptyBarrier empty_barrier_[Stages];`
    # (cutlass/pipeline/sm90_pipeline.hpp 281-282, the same in sm100_pipeline.hpp).
    single = {}
    for root, ss in grouped().items():
        arrays = {x[2] for x in ss}
        ns = {(rings.counter(x[3]) or {}).get("stages") for x in ss if x[3]}
        if len(arrays) == 1 and len(ns) == 1 and isinstance(next(iter(ns)), int):
            base, _, off = next(iter(arrays)).rpartition("+")
            single[(base, int(off))] = (root, next(iter(ns)))
    for (base, off), (root, n) in sorted(single.items()):
        nxt = single.get((base, off + MBARRIER_BYTES * n))
        if nxt is not None and nxt[1] == n:
            parent[find(nxt[0])] = find(root)
    groups = grouped()
    out, lone = [], {}
    extents = {}     # (symbol part, offset) of each slot of a ring's arrays -> (ring root, array)
    for root, ss in groups.items():
        n = {(rings.counter(x[3]) or {}).get("stages") for x in ss if x[3]}
        n = n.pop() if len(n) == 1 else None
        for arr in {x[2] for x in ss}:
            base, _, off = arr.rpartition("+")
            if isinstance(n, int) and _imm(off) is not None:
                for k in range(n):
                    extents[(base, _imm(off) + MBARRIER_BYTES * k)] = (root, arr, k)
    for site in sites:
        if site[3] is None and find(site[2]) == site[2]:
            base, _, off = site[2].rpartition("+")
            hit = extents.get((base, _imm(off))) if _imm(off) is not None else None
            if hit is not None:
                # a constant slot of a ring's array (an unrolled loop over its stages)
                site[1]["stage_index"] = hit[2]
                groups[hit[0]].append((site[0], site[1], hit[1], None, None))
            else:
                lone.setdefault(site[2], []).append(site)
    for root in sorted(groups, key=lambda r: min(s[1]["ptx_line"] for s in groups[r])):
        ss = groups[root]
        name = f"ring{len(out)}"
        counters = sorted({s[3] for s in ss if s[3]})
        ns = {rings.counter(c)["stages"] for c in counters}
        bounds = sorted({b for c in counters for b in (rings.counter(c)["bound"] or ())})
        stages = ns.pop() if len(ns) == 1 else None
        first = min(s[1]["ptx_line"] for s in ss)
        if stages is None:
            why = f"the stage bound is the register {bounds[0]}" if bounds else \
                "its stage counters wrap at different constants"
            _warn(warnings, "ring_stages", first, f"{name}: no constant stage count ({why})")
        arrays = sorted({s[2] for s in ss}, key=_array_order)
        slot = {}
        for s in ss:
            if s[1]["op"] in TX_CLASSES:
                slot[s[2]] = "full"
        pairing = "tx" if slot else None
        if slot and len(arrays) == 2:
            for a in arrays:
                slot.setdefault(a, "empty")
        elif not slot and len(arrays) == 2:
            # No transaction bytes: the producer is the role whose wait starts at parity 1 (it
            # waits on empty barriers that start free: CUTLASS's make_producer_start_state).
            for s in ss:
                if s[1]["op"] == "mbarrier_wait" and s[1].get("parity"):
                    p0 = rings.initial_parity(s[1]["parity"])
                    if p0 in (0, 1):
                        other = [a for a in arrays if a != s[2]][0]
                        slot = {s[2]: "empty" if p0 == 1 else "full", other: "full" if p0 == 1 else "empty"}
                        pairing = "initial_parity"
                        break
        if len(slot) < len(arrays):
            _warn(warnings, "ring_pairing", first,
                  f"{name}: which of its {len(arrays)} barrier arrays is full and which empty is not "
                  "shown by the code (no transaction bytes, no constant initial parity)")
        phases = sorted({s[1]["parity"] for s in ss if s[1].get("parity")})
        # Some parity registers are only a start state (a peeled first iteration's `shr k, 3`);
        # one that flips on a wrap is enough to show the phase bit.
        flips = any(rings.phase_flips_on_wrap(p) for p in phases)
        if phases and not flips:
            _warn(warnings, "ring_phase", first,
                  f"{name}: none of its parity registers ({', '.join(phases)}) is seen flipping "
                  "when a stage counter wraps")
        roles = {}
        for role, n, arr, stage, stride in ss:
            n["ring"] = name
            if arr in slot:
                n["slot"] = slot[arr]
                step = STEP_OF.get((_family(n["op"]), slot[arr]))
                if step and n["op"] not in FILL_CLASSES:
                    n["op_kind"] = step
            roles.setdefault(role, set()).add(n.get("op_kind") or n["op"])
        out.append({"name": name, "stages": stages, "stage_bound": bounds[0] if bounds else None,
                    "counters": counters, "phases": phases, "phase_flips": flips, "pairing": pairing,
                    "arrays": [{"base": a, "slot": slot.get(a),
                                "stride": sorted({s[4] for s in ss if s[2] == a and s[4]}) or None}
                               for a in arrays],
                    "ptx_line": first, "ops": len(ss),
                    "roles": {r: sorted(v) for r, v in sorted(roles.items())}})
    barriers = []
    for arr in sorted(lone, key=lambda a: min(s[1]["ptx_line"] for s in lone[a])):
        if arr in rings.with_register:
            _warn(warnings, "unresolved_stage", min(s[1]["ptx_line"] for s in lone[arr]),
                  f"the barrier address {arr} has a register part that is not a stage counter "
                  "wrapping at a constant: not grouped into a ring")
        for _, n, _, _, _ in lone[arr]:
            n["ring"] = f"barrier{len(barriers)}"
        barriers.append({"name": f"barrier{len(barriers)}", "base": arr, "ops": len(lone[arr]),
                         "ptx_line": min(s[1]["ptx_line"] for s in lone[arr]),
                         "roles": sorted({s[0] for s in lone[arr]})})
    return out, barriers


def read_programs(text, entry=None):
    """The JSON model of one kernel's PTX: language, entry, roles' programs, loops, warnings."""
    warnings = []
    name, ntid, stmts, labels = read_entry(text, entry, warnings)
    listing = ptx_lines.read_ptx(text)
    info = {}
    for ins in listing.instructions:
        info.setdefault((ins.ptx_line, ins.opcode), ins.chain)
    blocks = build_cfg(stmts, labels, warnings)
    rpo = reverse_postorder(blocks)
    idom = dominators(blocks, rpo, warnings)
    loops = find_loops(blocks, stmts, rpo, idom, warnings)
    ev, nthreads = None, None
    if ntid is None:
        _warn(warnings, "no_thread_count", 0,
              "no .maxntid / .reqntid: roles are not split (one role for every thread)")
        nwarps = 1
    else:
        nthreads = min(ntid[0] * ntid[1] * ntid[2], MAX_THREADS)
        if ntid[1] * ntid[2] != 1:
            _warn(warnings, "thread_shape", 0, f"block shape {ntid}: %tid.y / %tid.z are not evaluated")
        ev = Evaluator(stmts, nthreads, {k: b.start for b in blocks for k in range(b.start, b.end)})
        ev.flat = ntid[1] * ntid[2] == 1
        nwarps = max(1, (nthreads + WARP - 1) // WARP)
    masks = branch_masks(blocks, ev, nwarps, loops, stmts, warnings)
    reach = warp_reach(blocks, rpo, masks, nwarps, warnings)
    seen_unknown, warned = set(), set()
    programs = []
    for mask in role_classes(reach, loops, nwarps):
        pb = ProgramBuilder(blocks, stmts, loops, masks, mask, reach, info, warnings, seen_unknown, warned)
        pb.ev = ev
        body = pb.body(None)
        role = role_name(mask, nwarps) if ntid else "all"
        programs.append({
            "name": role,
            "registers": register_hints(pb, role, warnings),
            "warps": [w for w in range(nwarps) if mask >> w & 1] if ntid else None,
            "line": stmts[0].line if stmts else 0,
            "end_line": stmts[-1].line if stmts else 0,
            "params": [], "skipped": 0, "body": body,
            "ops": _count_ops(body),
            "loops": sum(1 for lp in loops.values() if not lp.spin and reach.get(lp.header, 0) & mask),
        })
    locs, source = source_locations(text), SourceText(listing.files)
    ring_list, barrier_list = find_rings([(pr["name"], list(walk(pr["body"]))) for pr in programs],
                                         stmts, ev, warnings)
    loop_list = []
    for lp in sorted(loops.values(), key=lambda lp: (blocks[lp.header].start, lp.spin)):
        hdr = blocks[lp.header]
        trip = None if lp.spin else trip_count(lp, blocks, stmts, ev, locs, source)
        if trip is None and not lp.spin:
            _warn(warnings, "trip_count", stmts[blocks[max(lp.latches)].end - 1].line,
                  "the loop's back edge is not `@%p bra` on a compare of a stepped induction: "
                  "no trip count")
        loop_list.append({
            "trip": trip,
            "ptx_line": stmts[hdr.start].line if hdr.start < len(stmts) else 0,
            "back_edges": sorted(stmts[blocks[b].end - 1].line for b in lp.latches),
            "blocks": len(lp.blocks), "spin": lp.spin,
            "parent": (stmts[blocks[lp.parent.header].start].line if lp.parent else None),
        })
    warnings.sort(key=lambda w: (w["line"], w["kind"]))
    return {"language": "ptx", "schema_version": 3, "entry": name,
            "threads": list(ntid) if ntid else None,
            "cfg": {"statements": len(stmts), "blocks": len(blocks),
                    "edges": sum(len(b.succs) for b in blocks)},
            "loops": loop_list, "programs": programs, "rings": ring_list, "barriers": barrier_list,
            "warnings": warnings}


def walk(nodes):
    """Every node of a body, nested ones included, in order (iterative: bodies nest deeply)."""
    stack = list(reversed(nodes))
    while stack:
        x = stack.pop()
        yield x
        for k in ("else", "then", "body"):
            stack.extend(reversed(x.get(k) or ()))


def _count_ops(nodes):
    """The number of op nodes in a body, nested ones included."""
    n = 0
    stack = list(nodes)
    while stack:
        x = stack.pop()
        n += x.get("node") == "op"
        for k in ("body", "then", "else"):
            stack.extend(x.get(k) or ())
    return n


# ---------------------------------------------------------------- 7. the product's structure

NO_SCHEDULE = ("no schedule is modelled for PTX input yet: the interpreter does not run raw "
               "mbarrier programs, so this page shows the parse only (no model is offered)")
RE_TARGET = re.compile(r"^\s*\.target\s+sm_(?P<arch>\d{2,3})", re.MULTILINE)
MAX_PTX_CHARS = 64 * 1024 * 1024     # a larger file is refused (the largest unit's PTX is < 1 MB)
# A PTX class as a parser op kind (docs/parser.md), where it is one without a ring's slot; the
# ring-resolved steps (`step`: producer_acquire ... consumer_release) come first.
OP_KIND = {"tma_load": "tma_load", "bulk_load": "tma_load", "wgmma": "mma", "umma": "mma",
           "tma_store": "tma_store", "bar_sync": "named_barrier_sync",
           "bar_arrive": "named_barrier_arrive", "umma_commit": "umma_arrive",
           "tmem_load": "tmem_load", "clc_try_cancel": "clc_query", "cp_async": "cp_async"}
PRODUCER_STEPS = ("producer_acquire", "producer_commit", "tma_load")
CONSUMER_STEPS = ("consumer_wait", "consumer_release", "mma")


def _function_op(node):
    """A functions[].ops entry (the parser's op contract) of a program op node, or None."""
    kind = node.get("op_kind") or OP_KIND.get(node["op"])
    if kind is None:
        return None
    line = node["line"] if node.get("line") else node["ptx_line"]
    op = {"op": kind, "line": line, "end_line": line, "receiver": "", "pipeline": node.get("ring"),
          "buffer": None, "text": f"{node['opcode']} (PTX line {node['ptx_line']})"[:160],
          "ptx_line": node["ptx_line"]}
    if node.get("file"):
        op["file"] = node["file"]
    if kind == "mma":
        op["unit"] = "wgmma" if node["op"] == "wgmma" else "umma"
    return op


def structure(ptx, path, display, lines, arch):
    """The JSON structure the pages and --print-json read (docs/json.md), language "ptx": one
    function per role with its ops in the parser's vocabulary, the rings as pipelines, the role
    programs, and every warning as a `path:line: message` string."""
    functions = []
    for prog in ptx["programs"]:
        ops = [o for o in (_function_op(n) for n in walk(prog["body"]) if n.get("node") == "op") if o]
        kinds = {o["op"] for o in ops}
        prod, cons = bool(kinds & set(PRODUCER_STEPS)), bool(kinds & set(CONSUMER_STEPS))
        role = "both" if prod and cons else "producer" if prod else "consumer" if cons else "other"
        functions.append({"name": prog["name"], "role": role, "line": max(1, prog["line"]),
                          "end_line": max(1, prog["end_line"]), "ops": ops, "warps": prog["warps"]})
    pipelines = [{"alias": r["name"], "class": "mbarrier ring (PTX)",
                  "stages": str(r["stages"]) if r["stages"] is not None else (r["stage_bound"] or "?"),
                  "line": max(1, r["ptx_line"]), "used": True} for r in ptx["rings"]]
    warnings = [f"{display}:{NO_SCHEDULE}"] + [
        f"{display}:{w['line']}: {w['message']}" if w["line"] else f"{display}: {w['message']}"
        for w in ptx["warnings"]]
    programs = [{k: v for k, v in prog.items() if k not in ("ops", "loops", "warps")}
                for prog in ptx["programs"]]
    return {"schema_version": 3, "language": "ptx", "source": {"path": display, "lines": lines},
            "kind": "unknown", "arch": f"sm{arch}" if arch else "unknown",
            "pipelines": pipelines, "pipeline_objects": [], "buffers": [], "functions": functions,
            "kernel_layer": None, "programs": {"functions": programs}, "warnings": warnings,
            "ptx": {k: ptx[k] for k in ("entry", "threads", "cfg", "loops", "rings", "barriers")}}


def parse_text(text, path, display, entry=None):
    """The structure of a PTX text (raises parse_core.ParseError when it has no .entry)."""
    import parse_core
    try:
        ptx = read_programs(text, entry)
    except PtxError as err:
        raise parse_core.ParseError(path, str(err)) from None
    m = RE_TARGET.search(text)
    return structure(ptx, path, display, text.count("\n") + 1, m.group("arch") if m else None)


def parse_file(path, kernel_layer=None):
    """parse_core's front-end entry for a .ptx file; raise VizError on bad input."""
    import parse_core
    path = Path(path)
    if kernel_layer is not None:
        raise parse_core.InputError(kernel_layer, "--kernel-layer applies to C++ headers, not PTX")
    try:
        if path.stat().st_size > MAX_PTX_CHARS:
            raise parse_core.InputError(path, f"PTX file too large (the limit is {MAX_PTX_CHARS} bytes)")
        text = path.read_text(errors="replace")
    except OSError as exc:
        raise parse_core.InputError(path, f"cannot read: {exc.strerror or exc}") from None
    return parse_text(text, path, parse_core.display_path(path))


def main(argv=None):
    """CLI: print the JSON model of a PTX file; exit 2 with one stderr line on bad input."""
    ap = argparse.ArgumentParser(
        description="Read role programs from one kernel's PTX (nvcc -lineinfo -ptx).",
        epilog="example: python3 ptx_programs.py sm90_gemm_pingpong.ptx > programs.json")
    ap.add_argument("ptx", help="a .ptx file")
    ap.add_argument("--entry", help="the .entry to read (default: the first)")
    args = ap.parse_args(argv)
    try:
        text = Path(args.ptx).read_text(errors="replace")
        model = read_programs(text, args.entry)
    except (OSError, PtxError) as err:
        print(f"ptx_programs: {args.ptx}: {err}", file=sys.stderr)
        return 2
    json.dump(model, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def _register():
    """Register this module as parse_core's PTX front end (parse_core imports it by name)."""
    import parse_core
    parse_core.register_front_end("ptx_programs", sys.modules[__name__])


_register()

if __name__ == "__main__":
    sys.exit(main())
