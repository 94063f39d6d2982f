"""Raw mbarrier rings: the front-end pass for kernels that drive mbarriers themselves.

DeepGEMM's and FlashMLA's kernels (and CuTe DSL kernels calling `cute.arch.mbarrier_*`) keep
their stage rings as arrays of mbarriers indexed by a stage expression and waited on with a
phase bit, without any `cutlass::Pipeline*` class. This module finds those rings and the ops on
them (docs/parser.md "Raw mbarrier rings"; every pattern below cites the source line it was read
from there). It is called from parse_cutlass.py (one row of OP_RECOGNIZERS, plus `ring_facts`
after the functions are read) and from parse_dsl.py (`dsl_rings`). Standard library only; it
imports neither front end (they import it).

A ring becomes a `pipelines[]` entry with `"class": "mbarrier_ring"`; its ops are ordinary op
kinds (`barrier_wait`, `barrier_arrive`, `tma_load`, `umma_arrive`, `mma`) whose `pipeline` is the
ring's name. A barrier use that cannot be tied to a ring or to a barrier initialised in the file
(a `TMABarrier* barrier` parameter) is listed with `pipeline: null` and a warning: never guessed.
"""

import ast
import bisect
import re

from program_expr import parse_expr

RING_CLASS = "mbarrier_ring"
OBJECT_KIND = "mbarrier_ring"
MAX_INDEX_CHARS = 120        # a stage index longer than this is not read (keeps matching linear)
MAX_ARG_SCAN = 2000          # characters of a call's arguments read for a barrier reference
INIT_LOOP_LOOKBACK = 400     # characters before an `init` searched for its loop header
MAX_RINGS = 256              # rings listed per file (each costs a pass over the file for its facts)

_IDENT = r"[A-Za-z_]\w*"

# A name that stands for an mbarrier (or a ring of them): `full_barriers`, `barriers_K0`,
# `barrier`, `bar_kv_full`, `mbar_ptr`, `ready_bars`. Named and order barriers are told apart by
# their calls (`.wait()` with no phase, `NamedBarrier::sync`), not by this test.
RE_BARRIERISH = re.compile(r"barrier|mbar|^bars?_|_bars?$|_bar_", re.IGNORECASE)
# Order barriers keep their own recogniser (parse_cutlass RE_ORDER_OP), and so do names that
# start with `barrier_` when they are not indexed (FA3's barrier_Q; parse_cutlass RE_BARRIER_OP).
RE_ORDER_NAME = re.compile(r"order_barrier|OrderBarrier|scheduler_barrier")

# A member call on an mbarrier: `full_barriers[stage_idx]->wait(phase ^ 1)`,
# `plan.bar_kv_full[rs.buf_idx].arrive_and_expect_tx(bytes)`, `barrier->wait(phase)`.
RE_MEMBER = re.compile(rf"""
    (?<![\w.>:])                                       # not the tail of a longer receiver
    (?P<recv> (?:{_IDENT} \s* (?:\.|->) \s*){{0,6}}      # plan. / shared_storage.pipelines.
              (?P<name>{_IDENT}) )                     # the barrier or ring
    \s* (?:\[ (?P<index>[^\[\]{{}};]{{1,{MAX_INDEX_CHARS}}}) \] )?   # the stage index
    \s* (?:\.|->) \s*
    (?P<call>wait|try_wait|arrive_and_expect_tx|arrive|init) \s* \(
""", re.VERBOSE)

# A local reference to one ring element: `auto& full_barrier = *full_barriers[stage_idx];`.
RE_ELEMENT_REF = re.compile(rf"""
    (?P<alias>{_IDENT}) \s* = \s* [&*]? \s*
    (?P<ring>{_IDENT}) \s* \[ (?P<index>[^\[\]{{}};]{{1,{MAX_INDEX_CHARS}}}) \] \s* ;
""", re.VERBOSE)

# A free or qualified call that may name a barrier among its arguments, with the op it is:
# TMA copies onto a barrier (`tma::copy<...>(map, &full_barrier, smem, ...)`, `ku::tma_gather4(
# map, plan.bar_raw_ready[i], ...)`, `ku::launch_tma_copy(tma, g, s, plan.bar_q_tma, hint)`), MMA
# commits onto one (`umma_arrive(barrier)`, `ku::umma_arrive_noelect(plan.bar_qk_done[i])`,
# `umma_arrive_multicast_2x1SM(barrier, mask)`) and raw MMAs (`WGMMA::wgmma(...)`,
# `ku::utcmma_ss(...)`, `mma_t::fma(...)`), which name no barrier.
RE_CALL = re.compile(rf"""
    (?<![\w.>]) (?<!->)
    (?P<qual> (?:{_IDENT} \s* :: \s*){{0,4}} )
    (?P<fn> umma_arrive\w* | tcgen05_commit\w* | utcmma_\w+ | wgmma | fma
          | copy | tma_copy\w* | launch_tma_copy\w* | tma_gather\w* | tma_load\w* )
    \s* (?P<targs> < )?
""", re.VERBOSE)
COMMIT_FNS = re.compile(r"umma_arrive\w*|tcgen05_commit\w*$")
# A barrier reference inside an argument, after casts: `&full_barrier`, `full_barriers[s]`,
# `reinterpret_cast<uint64_t*>(empty_barriers[stage_idx])`, `(uint64_t*)&plan.bar_q_tma`.
RE_ARG_REF = re.compile(rf"""
    (?<![\w.>:]) (?<!->)
    (?P<recv> (?:{_IDENT} \s* (?:\.|->) \s*){{0,6}} (?P<name>{_IDENT}) )
    \s* (?:\[ (?P<index>[^\[\]{{}};]{{1,{MAX_INDEX_CHARS}}}) \] )?
    (?! \s* (?:\(|::|<|\.|->|\[) )
""", re.VERBOSE)
# The stage count of a ring, where it is spelled:
#   an array declaration `TMABarrier barriers_K0[9]`, `transac_bar_t bar_rope_ready[NUM_BUFS];`
#   (also the second name of `transac_bar_t bar_raw_ready[NUM_BUFS], bar_raw_free[NUM_BUFS];`);
RE_ARRAY_DECLS = re.compile(rf"""
    (?<![\w.>]) (?P<type>{_IDENT}) \s+
    (?P<list> {_IDENT} \s* \[[^\[\]{{}};]{{1,80}}\] \s*
              (?: , \s* {_IDENT} \s* \[[^\[\]{{}};]{{1,80}}\] \s*){{0,8}} ) [;,)]
""", re.VERBOSE)
RE_ARRAY_ITEM = re.compile(rf"(?P<name>{_IDENT})\s*\[(?P<extent>[^\[\]{{}};]{{1,80}})\]")
#   (for the line of a ring declared otherwise: `auto full_barriers = ...`, `TMABarrier* barrier`)
RE_DECLS = re.compile(rf"(?:\bauto\b|[\w:>])\s*[*&]?\s*[*&]?\s*(?<![\w.>])(?P<name>{_IDENT})\s*(?:=|\[|[,;)])")
NOT_TYPES = frozenset({"return", "delete", "new", "case", "else", "goto", "throw"})


def declarations(src):
    """({name: (type, extent, pos)} of array declarations, {name: pos} of other declaration-like
    spellings), each name's first, from one pass each over the file (cached on the Source)."""
    cached = getattr(src, "_mbarrier_decls", None)
    if cached is None:
        arrays, others = {}, {}
        for m in RE_ARRAY_DECLS.finditer(src.code):
            if m.group("type") in NOT_TYPES:
                continue
            for item in RE_ARRAY_ITEM.finditer(src.code, m.start("list"), m.end("list")):
                arrays.setdefault(item.group("name"), (m.group("type"), item.group("extent"), item.start()))
        for m in RE_DECLS.finditer(src.code):
            others.setdefault(m.group("name"), m.start())
        cached = src._mbarrier_decls = (arrays, others)
    return cached
#   the bound of the loop that initialises it: `for (uint32_t i = 0; i < kNumStages; ++ i) {
#   full_barriers[i]->init(1); ...}`;
RE_FOR_BOUND = re.compile(rf"""
    \bfor \s* \( [^;{{}}]{{0,120}} ; \s* (?P<var>{_IDENT}) \s* < \s* (?P<bound>[^;{{}}]{{1,80}}?) \s* ;
""", re.VERBOSE)
#   a modulo in its index: `tmem_empty_barriers[iter_idx % kNumEpilogueStages]`.
RE_INDEX_MODULO = re.compile(rf"%\s*(?P<bound>{_IDENT}|\d+)\s*$")

# A pipeline class's own implementation (CUTLASS's pipeline/sm90_pipeline.hpp `class
# PipelineTmaAsync` waits on `full_barrier_ptr_[stage].wait(phase)`): its barriers are that class,
# which the pipeline recognisers already read at its users, so such a file gets no ring.
RE_PIPELINE_CLASS = re.compile(rf"\b(?:class|struct)\s+\w*Pipeline\w*\s*(?:final\s*)?[:{{]")

# Tokens that name a ring's side of a full / empty pair, and their partners.
ROLE_TOKENS = (("full", "empty"), ("ready", "free"), ("empty", "full"), ("free", "ready"))
ROLE_OF_TOKEN = {"full": "full", "ready": "full", "empty": "empty", "free": "empty"}
RE_TOKEN = re.compile(r"(?:^|_)(full|empty|ready|free)(?:_|$)", re.IGNORECASE)


def is_barrier_name(name):
    """True when a name reads as an mbarrier (or an array of them), not an order barrier."""
    return bool(RE_BARRIERISH.search(name)) and not RE_ORDER_NAME.search(name)


def _text(code, start, end):
    """One-line text of code[start:end]."""
    return " ".join(code[start:end].split())


def _int_or_text(text):
    """An int for a literal, else the text."""
    return int(text) if text.isdigit() else text


def split_args(src, open_pos, close):
    """(start, end) of each top-level argument between a call's parentheses (brackets paired by
    the source's BracketIndex; a `<` is not a bracket here, so a comma inside a template
    argument list of an argument splits it: no barrier reference spans one)."""
    code = src.code
    out = []
    start = i = open_pos + 1
    hi = min(close, open_pos + 1 + MAX_ARG_SCAN)
    while i < hi:
        ch = code[i]
        if ch in "([{":
            j = src.brackets.close_of(i)
            i = (j if j is not None and j < close else hi) + 1
            continue
        if ch == ",":
            out.append((start, i))
            start = i + 1
        i += 1
    if code[start:hi].strip():
        out.append((start, hi))
    return out


class RingTable:
    """One file's mbarrier facts, read once from the blanked code: the rings (names used with an
    index), the single barriers (initialised without one) and the local element references."""

    def __init__(self, src):
        code = src.code
        self.src = src
        self.rings = {}          # name -> {"first": pos}
        self.singles = set()     # initialised with no index: a standalone barrier, not a ring
        self.inits = []          # (pos, name, index) of every `.init(` on an indexed barrier
        self.init_args = {}      # name -> (pos, argument text) of its first `.init(count)`
        read = ("wait" in code or "arrive" in code) and not RE_PIPELINE_CLASS.search(code)
        for m in RE_MEMBER.finditer(code) if read else ():
            name = m.group("name")
            if not is_barrier_name(name):
                continue
            if m.group("index") is not None:
                self.rings.setdefault(name, {"first": m.start()})
                if m.group("call") == "init":
                    self.inits.append((m.start(), name, m.group("index").strip()))
                    close = src.brackets.close_of(m.end() - 1)
                    if name not in self.init_args and close is not None:
                        self.init_args[name] = (m.start(), " ".join(code[m.end():close].split()))
            elif m.group("call") == "init":
                self.singles.add(name)
        self.singles -= set(self.rings)
        self.refs = {}           # alias -> [(pos, ring, index)], rising
        for m in RE_ELEMENT_REF.finditer(code) if self.rings else ():
            if m.group("ring") in self.rings:
                self.refs.setdefault(m.group("alias"), []).append(
                    (m.start(), m.group("ring"), " ".join(m.group("index").split())))

    def ref(self, name, pos):
        """The ring element a local reference stands for at pos: (ring, index), or None."""
        entries = self.refs.get(name)
        if not entries:
            return None
        k = bisect.bisect_left([p for p, _, _ in entries], pos) - 1
        return entries[k][1:] if k >= 0 else None

    def resolve(self, name, index, pos):
        """What a barrier reference is: ("ring", ring, index), ("single", name, None),
        ("unknown", name, None), or None when the name is no barrier."""
        ref = self.ref(name, pos) if index is None else None
        if ref is not None:
            return ("ring",) + ref
        if index is not None and name in self.rings:
            return ("ring", name, " ".join(index.split()))
        if name in self.singles:
            return ("single", name, None)
        if is_barrier_name(name):
            return ("unknown", name, None)
        return None


def table_of(src):
    """The file's RingTable, built at the first request (one per Source)."""
    table = getattr(src, "_mbarrier_table", None)
    if table is None:
        table = RingTable(src)
        src._mbarrier_table = table
    return table


def _res(ring):
    """The resolution record parse_cutlass keeps on an op (its UNRESOLVED shape) for a ring."""
    return {"alias": ring, "cands": [], "object": None, "kind": OBJECT_KIND, "pos": None}


def _where(kind, name):
    """The warning for a barrier use this pass cannot tie to a ring."""
    return (f"{kind} on mbarrier '{name}': not an element of a ring indexed in this file nor a "
            "barrier initialised here (a pointer or parameter; its ring is not followed)")


# ----------------------------------------------------------------------------------------------
# The C++ recogniser (one row of parse_cutlass.OP_RECOGNIZERS)
# ----------------------------------------------------------------------------------------------


def scan_span(span):
    """Ops on raw mbarriers in one span: waits, arrives and expect-tx on ring elements or single
    barriers, TMA copies and MMA commits naming one, and raw MMAs. Runs after the other
    recognisers: a call they already made an op of (a static TMA atom, a free `umma_arrive`) is
    given its barrier instead of a second op."""
    src, code = span.src, span.code
    if not (span.has("bar") or span.has("wgmma") or span.has("utcmma") or span.has("fma")):
        return
    table = table_of(src)
    if not table.rings:
        # Only a file that drives a ring is read: CUTLASS's kernel layers wait on single
        # ClusterBarriers (tmem_deallocation_result_barrier.wait(phase)) beside their pipeline
        # classes, and their ops stay what the pipeline recognisers make of them.
        return
    by_args = {o["_args"][0]: o for o in span.ops if o["_args"]}
    for m in RE_MEMBER.finditer(code, span.lo, span.hi) if span.has("bar") else ():
        _member_op(span, table, m)
    for m in RE_CALL.finditer(code, span.lo, span.hi):
        _call_op(span, table, m, by_args)


def _member_op(span, table, m):
    """`recv[index].wait(phase)` / `.arrive(...)` / `.arrive_and_expect_tx(bytes)` on a barrier."""
    src, code = span.src, span.code
    name, index, call = m.group("name"), m.group("index"), m.group("call")
    if call == "init" or not (is_barrier_name(name) or (index is None and name in table.refs)):
        return
    if index is None and name.startswith("barrier_"):
        return   # parse_cutlass's standalone-barrier recogniser (FA3's barrier_Q) reads these
    paren = m.end() - 1
    close = src.brackets.close_of(paren)
    if close is None:
        return
    args = split_args(src, paren, close)
    if call in ("wait", "try_wait") and not args:
        return   # `.wait()` with no phase: an order barrier, not an mbarrier
    what = table.resolve(name, index, m.start("recv"))
    if what is None:
        return
    if what[0] == "unknown" and call == "arrive" and not args:
        return   # `x.arrive()` on a name never waited with a phase nor initialised: not ours
    kind = "barrier_wait" if call in ("wait", "try_wait") else "barrier_arrive"
    extra = {"barrier": what[1]}
    if what[2] is not None:
        extra["stage"] = what[2]
    if kind == "barrier_wait":
        extra["phase"] = _text(code, *args[0])
    if call == "arrive_and_expect_tx" and args:
        extra["bytes"] = _int_or_text(_text(code, *args[0]))
    recv = " ".join(code[m.start("recv"):m.end("recv")].split())
    if index is not None:
        recv += f"[{' '.join(index.split())}]"
    res = _res(what[1]) if what[0] == "ring" else None
    op = span.add(kind, m.start("recv"), recv, paren, res, **extra)
    if op is not None and what[0] == "unknown":
        src.warn(m.start("recv"), _where(kind, name))


def _skip_template_args(code, pos, limit=400):
    """Offset just past the `<...>` that opens at pos (depth counted, bounded), or None."""
    depth = 0
    hi = min(len(code), pos + limit)
    i = pos
    while i < hi:
        ch = code[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch in ";{}":
            return None
        i += 1
    return None


def _call_op(span, table, m, by_args):
    """A copy or commit naming a barrier, or a raw MMA (see RE_CALL)."""
    src, code = span.src, span.code
    fn, qual = m.group("fn"), "".join(m.group("qual").split())
    claimed = fn == "copy" and not qual.endswith("tma::")   # cute::copy, ATOM::copy: parse_cutlass's
    if fn == "fma" and not re.search(r"mma\w*::$", qual, re.IGNORECASE):
        return   # only an MMA atom's fma (`mma_t::fma(...)`), never a scalar fma
    if fn == "wgmma" and not qual.endswith("WGMMA::"):
        return
    pos = m.end()
    if m.group("targs"):
        pos = _skip_template_args(code, m.start("targs"))
        if pos is None:
            return
    while pos < len(code) and code[pos].isspace():
        pos += 1
    if pos >= len(code) or code[pos] != "(":
        return
    close = src.brackets.close_of(pos)
    if close is None or (claimed and (pos + 1, close) not in by_args):
        return
    start = m.start("qual") if qual else m.start("fn")
    recv = qual + fn
    if fn in ("wgmma", "fma") or fn.startswith("utcmma_"):
        # (Only in a file with a ring, see scan_span: cute's own MMA atoms call `fma`.)
        if (pos + 1, close) not in by_args:
            unit = "wgmma" if fn == "wgmma" else "umma" if (fn.startswith("utcmma_") or "UMMA" in code
                                                             or "tcgen05" in code) else "mma"
            span.add("mma", start, recv, pos, None, unit=unit)
        return
    kind = "umma_arrive" if COMMIT_FNS.match(fn) else "tma_load"
    ref = None
    for s, e in split_args(src, pos, close):
        for am in RE_ARG_REF.finditer(code, s, e):
            what = table.resolve(am.group("name"), am.group("index"), am.start())
            # Only a ring element or a barrier initialised here: a copy or commit onto anything
            # else keeps what parse_cutlass made of it (cutlass's `umma_arrive(&barrier)`).
            if what is not None and what[0] != "unknown":
                ref = what
                break
        if ref:
            break
    existing = by_args.get((pos + 1, close))
    if ref is None:
        return   # a copy naming no barrier: not a raw-mbarrier op (parse_cutlass reads copies)
    what = ref
    extra = {"barrier": what[1]}
    if what[2] is not None:
        extra["stage"] = what[2]
    res = _res(what[1]) if what[0] == "ring" else None
    if existing is not None:
        if existing["op"] in ("tma_load", "umma_arrive") and not existing.get("pipeline") \
                and not existing.get("barrier"):
            existing.update(extra)
            if res is not None:
                existing["_res"] = res
                existing["pipeline"] = what[1]
        op = existing
    else:
        span.add(kind, start, recv, pos, res, **extra)


# ----------------------------------------------------------------------------------------------
# The rings as pipelines[] entries (after the functions are read)
# ----------------------------------------------------------------------------------------------


def _stages(src, table, name, ops):
    """(stages text, how it was found, line) of a ring, or ("", None, None)."""
    code = src.code
    arr = declarations(src)[0].get(name)
    if arr is not None:
        return " ".join(arr[1].split()), "array extent", src.line(arr[2])
    for pos, ring, index in table.inits:
        if ring != name:
            continue
        head = None
        for fm in RE_FOR_BOUND.finditer(code, max(0, pos - INIT_LOOP_LOOKBACK), pos):
            head = fm
        if head is not None and head.group("var") == index:
            return " ".join(head.group("bound").split()), "init loop", src.line(head.start())
    for op in ops:
        mm = RE_INDEX_MODULO.search(op.get("stage", ""))
        if mm:
            return mm.group("bound"), "index modulo", op["line"]
    return "", None, None


def _decl(src, name, first):
    """(line, end_line, text) of the ring's declaration (an array declaration, else `auto name =`
    or a typed name), else of its first use."""
    code = src.code
    arrays, others = declarations(src)
    if name in arrays:   # `Type name[extent]`, perhaps a parameter: just that text
        typ, extent, at = arrays[name]
        line = src.line(at)
        return line, line, f"{typ} {name}[{' '.join(extent.split())}]"
    pos = others.get(name, first)
    start, end = src.statement(pos)
    start = max(start, code.rfind("\n", 0, pos) + 1) if name not in others else start
    return src.line(start), src.line(max(start, end - 1)), src.snippet(start, end)


def _partner_name(name):
    """(role, the partner's name) from a full/empty token in the name, or (None, None)."""
    m = RE_TOKEN.search(name)
    if not m:
        return None, None
    tok = m.group(1)
    low = tok.lower()
    other = dict(ROLE_TOKENS)[low]
    if tok.isupper():
        other = other.upper()
    elif tok[0].isupper():
        other = other.capitalize()
    return ROLE_OF_TOKEN[low], name[:m.start(1)] + other + name[m.end(1):]


def _roles_by_use(functions, rings):
    """{ring: (role, partner)} from the ops: a ring that TMA copies or an expect-tx land on is a
    full ring, and the ring the same function waited on just before (a producer waits on empty
    then copies onto full) is its empty partner."""
    out = {}
    for f in functions:
        last_wait = None
        for o in f["ops"]:
            ring = o.get("pipeline")
            if ring not in rings:
                continue
            if o["op"] == "barrier_wait":
                if _partner_name(ring)[0] != "full":
                    last_wait = ring   # a ring named full is never another ring's empty side
            elif o["op"] == "tma_load" or "bytes" in o:
                partner = last_wait if last_wait not in (None, ring) else None
                if ring not in out or (partner and not out[ring][1]):
                    out[ring] = ("full", partner)
                if partner and partner not in out:
                    out[partner] = ("empty", ring)
    return out


def ring_facts(src, functions):
    """The file's rings as (pipelines entries, pipeline_objects entries): one per ring with its
    stage count, role and partner; read after the functions' ops are final."""
    table = getattr(src, "_mbarrier_table", None)
    if table is None or not table.rings:
        return [], []
    by_ring = {}
    for f in functions:
        for o in f["ops"]:
            if o.get("pipeline") in table.rings:
                by_ring.setdefault(o["pipeline"], []).append(o)
    # A ring with no op of its own here (only passed to helpers as a pointer) is still listed
    # when the file initialises it (FlashMLA's barriers_K1), with `used` false.
    # (Not in a file where no ring has an op: cutlass/arch/barrier.h's
    # initialize_barrier_array_pair only initialises the arrays it is given.)
    names = list(by_ring)
    if names:
        names += sorted({n for _p, n, _i in table.inits if n not in by_ring})
    if len(names) > MAX_RINGS:
        src.warnings.append(f"{src.display}: more than {MAX_RINGS} mbarrier rings; the rest are not "
                            "listed (their ops keep their ring's name)")
        names = names[:MAX_RINGS]
    by_use = _roles_by_use(functions, set(names))
    pipes, objects = [], []
    for name in names:
        ops = by_ring.get(name, [])
        stages, how, stages_line = _stages(src, table, name, ops)
        line, end_line, text = _decl(src, name, table.rings[name]["first"])
        # The name says which side a ring is (`full_barriers`, `bar_raw_free`); its partner is
        # the ring named with the other token, else the one the ops pair it with.
        role, partner = _partner_name(name)
        if partner not in by_ring:
            partner = None
        use_role, use_partner = by_use.get(name, (None, None))
        role_from = "name" if role else "use" if use_role else None
        if role is None:
            role = use_role
        if partner is None and use_role == role:
            partner = use_partner
        ring = {
            "role": role, "partner": partner, "role_from": role_from,
            "stages_from": how, "stages_line": stages_line,
            "index": sorted({o["stage"] for o in ops if "stage" in o}),
            "phase": sorted({o["phase"] for o in ops if "phase" in o}),
            "waits": sum(o["op"] == "barrier_wait" for o in ops),
            "arrives": sum(o["op"] != "barrier_wait" and o["op"] != "mma" for o in ops),
        }
        if name in table.init_args:
            # The arrival count its barriers are initialised with (`empty_barriers[i]->init(
            # kNumTMAMulticast * kNumMathThreads / 32)`, DeepGEMM@54e2261 sm90_bf16_gemm.cuh:117).
            pos, count = table.init_args[name]
            ring["init"], ring["init_line"], ring["init_expr"] = count, src.line(pos), parse_expr(count)
        if not stages:
            src.warnings.append(f"{src.display}:{line}: mbarrier ring '{name}': its stage count is "
                                "not spelled in this file (no array extent, init loop or modulo)")
        pipes.append({"alias": name, "class": RING_CLASS, "stages": stages, "line": line,
                      "end_line": end_line, "conditional": False, "used": bool(ops), "text": text,
                      "ring": ring})
        objects.append({"name": name, "alias": name, "class": RING_CLASS, "stages": stages or None,
                        "line": line, "kind": OBJECT_KIND})
    pipes.sort(key=lambda p: (p["line"], p["alias"]))
    objects.sort(key=lambda o: (o["line"], o["name"]))
    return pipes, objects


# ----------------------------------------------------------------------------------------------
# The CuTe DSL (parse_dsl.py's hook): `cute.arch.mbarrier_*(ptr + stage, ...)`
# ----------------------------------------------------------------------------------------------

# The DSL's raw mbarrier calls (cute.arch, FA4 4.0.0b36's flash_fwd_mla_1cta_kb64_sm100.py and
# flash_bwd_sm100.py) and the op each one is; `init` only gives the stage count.
DSL_CALLS = {
    "mbarrier_init": None,
    "mbarrier_wait": "barrier_wait",
    "mbarrier_try_wait": "barrier_wait",
    "mbarrier_arrive": "barrier_arrive",
    "mbarrier_arrive_and_expect_tx": "barrier_arrive",
    "cp_async_mbarrier_arrive_noinc": "barrier_arrive",
}
DSL_TEXT_CHARS = 160


def _dsl_call_name(node):
    """`mbarrier_wait` for a call of `cute.arch.mbarrier_wait(...)` (any `*.arch.` prefix), else None."""
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr in DSL_CALLS and isinstance(f.value, ast.Attribute) \
            and f.value.attr == "arch":
        return f.attr
    return None


def _dsl_pointer(expr, binds):
    """(base name, stage text or None) of a barrier pointer: `mbar + stage`, `mbar`, or a local
    `bar = mbar + (p * n + stage)` bound earlier in the function; None for anything else."""
    if isinstance(expr, ast.Name) and expr.id in binds:
        return binds[expr.id]
    if isinstance(expr, ast.Name):
        return expr.id, None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and isinstance(expr.left, ast.Name):
        return expr.left.id, ast.unparse(expr.right)
    return None


class _DslFunction(ast.NodeVisitor):
    """The raw mbarrier calls of one function body in source order (nested defs are their own)."""

    def __init__(self):
        self.calls = []     # (call node, name, (base, stage) or None, enclosing `for` nodes)
        self.binds = {}
        self.bind_log = []  # (line, name, (base, stage)) of each `bar = mbar + stage`
        self.loops = []

    def visit_FunctionDef(self, node):
        """Nested functions are read on their own."""

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_For(self, node):
        """Remember the loop (an init loop gives the stage count)."""
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()

    def visit_Assign(self, node):
        """`bar = mbar + (...)`: later calls on `bar` name that element."""
        self.generic_visit(node)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            ptr = _dsl_pointer(node.value, {})
            if ptr is not None and ptr[1] is not None:
                self.binds[node.targets[0].id] = ptr
                self.bind_log.append((node.lineno, node.targets[0].id, ptr))
            else:
                self.binds.pop(node.targets[0].id, None)

    def visit_Call(self, node):
        """One `cute.arch.mbarrier_*` call."""
        self.generic_visit(node)
        name = _dsl_call_name(node)
        if name is not None:
            ptr = _dsl_pointer(node.args[0], self.binds) if node.args else None
            self.calls.append((node, name, ptr, list(self.loops)))


def _dsl_init_bound(loops, stage):
    """The `range(N)` text of the loop whose variable is the init's offset, else None."""
    for loop in reversed(loops):
        it = loop.iter
        if isinstance(loop.target, ast.Name) and loop.target.id == stage and isinstance(it, ast.Call) \
                and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1:
            return ast.unparse(it.args[0])
    return None


def _dsl_frame(functions, by_key, fn, line):
    """The model's function entry an op at `line` of `fn` belongs to: the innermost one whose
    lines hold it (the front end splits a kernel into role branches, `kernel[warp_idx == 0]`),
    else a new entry for `fn`."""
    end = fn.end_lineno or fn.lineno
    inside = [f for f in functions if fn.lineno <= f["line"] <= line <= f["end_line"] <= end]
    if inside:
        return max(inside, key=lambda f: (f["line"], -f["end_line"]))
    f = by_key.get((fn.name, fn.lineno))
    if f is None:
        f = {"name": fn.name, "role": "other", "line": fn.lineno, "end_line": end,
             "device": True, "pipeline_params": {}, "ops": []}
        functions.append(f)
        by_key[(fn.name, fn.lineno)] = f
    return f


def _dsl_copies_onto_rings(src, functions, fn, bind_log, ring_names):
    """A TMA copy the DSL front end read with `tma_bar_ptr=bar`, where `bar = ring + stage` was
    bound before it in `fn`, lands on that ring: it gets the ring, and the front end's warning
    that the barrier is no pipeline object is dropped."""
    end = fn.end_lineno or fn.lineno
    for f in functions:
        for o in f["ops"]:
            if o["op"] != "tma_load" or o.get("pipeline") or not fn.lineno <= o["line"] <= end:
                continue
            bound = [ptr for line, name, ptr in bind_log if name == o.get("barrier") and line <= o["line"]]
            if not bound or bound[-1][0] not in ring_names:
                continue
            ring, stage = bound[-1]
            stale = f"{src.display}:{o['line']}: TMA copy barrier '{o['barrier']}' not resolved"
            o.update(pipeline=ring, object=ring, barrier=ring, stage=stage)
            o.pop("pipeline_candidates", None)
            src.warnings[:] = [w for w in src.warnings if not w.startswith(stale)]


def dsl_rings(tree, src, functions):
    """Rings of `cute.arch.mbarrier_*` calls in a DSL tree: adds their ops to `functions` (the
    model's, matched by name and line, else a new entry) and returns (pipelines, objects)."""
    per_fn = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            v = _DslFunction()
            for stmt in node.body:
                v.visit(stmt)
            if v.calls:
                per_fn.append((node, v.calls, v.bind_log))
    ring_names = {ptr[0] for _fn, calls, _b in per_fn for _n, _name, ptr, _l in calls
                  if ptr is not None and ptr[1] is not None}
    # As in C++: a ring with no op of its own is listed only beside one that has ops
    # (FA4's flash_bwd_sm100.py initialises dQ_cluster_full_mbar_ptr + i and uses it elsewhere).
    if not any(ptr is not None and ptr[0] in ring_names and name != "mbarrier_init"
               for _fn, calls, _b in per_fn for _n, name, ptr, _l in calls):
        return [], []
    by_key = {(f["name"], f["line"]): f for f in functions}
    stages, first = {}, {}
    for fn, calls, bind_log in sorted(per_fn, key=lambda x: x[0].lineno):
        ops = []
        for node, name, ptr, loops in calls:
            line = node.lineno
            if ptr is None or (ptr[0] not in ring_names and not RE_BARRIERISH.search(ptr[0])):
                if ptr is None:
                    src.warn(line, f"{name}: its barrier argument is not a name or `name + offset`; "
                             "not tied to a ring")
                continue
            base, stage = ptr
            if base in ring_names:
                first.setdefault(base, line)
            if name == "mbarrier_init":
                bound = _dsl_init_bound(loops, stage) if stage is not None else None
                if base in ring_names and bound is not None and base not in stages:
                    stages[base] = (bound, "init loop", loops[-1].lineno)
                continue
            kind = DSL_CALLS[name]
            ring = base if base in ring_names and stage is not None else None
            text = " ".join(src.segment(node).split())
            if len(text) > DSL_TEXT_CHARS:
                text = text[:DSL_TEXT_CHARS - 3] + "..."
            op = {"op": kind, "line": line, "end_line": node.end_lineno or line,
                  "receiver": f"cute.arch.{name}", "pipeline": ring, "buffer": None, "operand": None,
                  "text": text, "barrier": base}
            if ring is not None:
                op["object"] = ring
                op["stage"] = stage
            if kind == "barrier_wait":
                phase = next((k.value for k in node.keywords if k.arg == "phase"), None)
                if phase is None and len(node.args) > 1:
                    phase = node.args[1]
                if phase is not None:
                    op["phase"] = ast.unparse(phase)
            if name == "mbarrier_arrive_and_expect_tx" and len(node.args) > 1:
                b = node.args[1]
                op["bytes"] = b.value if isinstance(b, ast.Constant) and isinstance(b.value, int) \
                    else ast.unparse(b)
            ops.append(op)   # a single barrier (`mbar_utccp`) keeps `barrier` and pipeline null
        _dsl_copies_onto_rings(src, functions, fn, bind_log, ring_names)
        for op in ops:
            f = _dsl_frame(functions, by_key, fn, op["line"])
            # Keep the front end's order: each barrier op goes after the last op at or before its line.
            k = len(f["ops"])
            while k > 0 and f["ops"][k - 1]["line"] > op["line"]:
                k -= 1
            f["ops"].insert(k, op)
    functions.sort(key=lambda f: f["line"])
    by_use = _roles_by_use(functions, ring_names)
    pipes, objects = [], []
    for name in sorted(ring_names, key=lambda n: first.get(n, 0)):
        ops = [o for f in functions for o in f["ops"] if o.get("pipeline") == name]
        count, how, sline = stages.get(name, ("", None, None))
        if not count:
            for o in ops:
                mm = RE_INDEX_MODULO.search(o.get("stage", ""))
                if mm:
                    count, how, sline = mm.group("bound"), "index modulo", o["line"]
                    break
        role, partner = _partner_name(name)
        if partner not in ring_names:
            partner = None
        use_role, use_partner = by_use.get(name, (None, None))
        role_from = "name" if role else "use" if use_role else None
        role = role or use_role
        if partner is None and use_role == role:
            partner = use_partner
        line = first.get(name, 1)
        if not count:
            src.warn(line, f"mbarrier ring '{name}': its stage count is not spelled in this file "
                     "(no array extent, init loop or modulo)")
        pipes.append({"alias": name, "class": RING_CLASS, "stages": count, "line": line, "used": bool(ops),
                      "text": " ".join(src.lines[line - 1].split())[:DSL_TEXT_CHARS],
                      "ring": {"role": role, "partner": partner, "role_from": role_from,
                               "stages_from": how, "stages_line": sline,
                               "index": sorted({o["stage"] for o in ops if "stage" in o}),
                               "phase": sorted({o["phase"] for o in ops if "phase" in o}),
                               "waits": sum(o["op"] == "barrier_wait" for o in ops),
                               "arrives": sum(o["op"] == "barrier_arrive" for o in ops)}})
        objects.append({"name": name, "alias": name, "class": RING_CLASS, "stages": count or None,
                        "line": line, "kind": OBJECT_KIND})
    return pipes, objects
