"""Protocol instructions of nvcc's PTX with their -lineinfo inline chains (stdlib only).

nvcc -lineinfo writes `.file N "path"` directives (after the code) and, before each instruction,
`.loc FILE LINE COL[, function_name LABEL[+K], inlined_at FILE2 LINE2 COL2]`. One `.loc` carries
one inlining level: an instruction inlined through k calls is preceded by k `.loc` lines, outer
to inner, each inlined at the location of the one before it; frames above the run were written
before an earlier instruction. So each `.loc` becomes a node whose parent is the node of the most
recent `.loc` at its `inlined_at` location, looked up when the `.loc` is read, and a chain is read
by following the parents from the current node (innermost first). The look-up must happen then,
not when the chain is read: a recursive template (cute's copy() -> Copy_Atom::call() -> copy())
puts the same location twice in one run with different call sites, and the later `.loc` at that
location would otherwise redirect the earlier frame's link (a false cycle that cuts the chain
below the collective). Parents are always earlier nodes, so there are no cycles. Each line is
read once and a chain costs at most MAX_CHAIN_DEPTH steps, so reading is linear in the PTX size.

read_ptx(text) -> Listing: the files, and every protocol instruction (see CLASS_RULES) with its
class, its statement text, its PTX line, the entry it lies in and its chain of (file, line, col).
Listing.first_frame(instruction, files) maps a chain to its innermost frame in a set of files.
back_edges(text) lists the branches to an earlier label of the same function (its loops).
"""

import os
import posixpath
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

# An inline chain longer than this is cut (pathological input): no real CUTLASS or FlashAttention
# instantiation measured here nests deeper than 21 (FA3; see docs/compiled-truth.md).
MAX_CHAIN_DEPTH = 256

# .file 3 "/path/to/cutlass.h"[, timestamp, size]
RE_FILE = re.compile(r'\s*\.file\s+(?P<index>\d+)\s+"(?P<path>[^"]*)"')
# .loc 6 496 9[, function_name $L__info_string80[+12], inlined_at 2 849 9]
RE_LOC = re.compile(r"""
    \s*\.loc \s+ (?P<file>\d+) \s+ (?P<line>\d+) \s+ (?P<col>\d+)      # the location
    (?: \s*,\s* function_name \s+ (?P<fn>[^,\s]+)                         # the inlined function
        \s*,\s* inlined_at \s+ (?P<afile>\d+) \s+ (?P<aline>\d+) \s+ (?P<acol>\d+) )?  # its call site
""", re.VERBOSE)
# .visible .entry NAME(   /   .func (.param ...) NAME(   /   .entry NAME(
RE_ENTRY = re.compile(r"\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:entry|func)\b(?P<rest>[^;{]*)")
RE_ENTRY_NAME = re.compile(r"(?P<name>[A-Za-z_$][\w$]*)\s*\(?\s*$|(?P<name2>[A-Za-z_$][\w$]*)\s*\(")
# A statement's leading label (`LAB_WAIT:`), predicate (`@p`, `@!%p3`) and braces are skipped.
RE_STATEMENT_HEAD = re.compile(r"[\s{}]*(?:[A-Za-z_$][\w$]*:)?[\s{}]*(?:@!?%?[\w$]+\s+)?")
RE_OPCODE = re.compile(r"[a-z][\w.:]*")
# $L__BB0_12:   /   LAB_WAIT:   (a label at the start of a code line)
RE_LABEL = re.compile(r"\s*(?P<label>[A-Za-z_$][\w$]*):")
# [@%p3 ]bra[.uni] $L__BB0_12;   (the branch's target label)
RE_BRANCH = re.compile(r"(?:^|[;{}\s])(?:@!?%?[\w$]+\s+)?bra(?:\.uni)?\s+(?P<target>[A-Za-z_$][\w$]*)\s*;")

# Instruction classes, first match wins: (class, opcode pattern). The opcode is the statement's
# first token (with its dotted modifiers); operands never take part. Fences, mbarrier.init and
# cluster barriers are not protocol steps here and have no class.
CLASS_RULES = tuple((cls, re.compile(pattern)) for cls, pattern in (
    ("mbarrier_wait", r"mbarrier\.(?:try_wait|test_wait)\b"),
    ("mbarrier_expect_tx", r"mbarrier\.(?:arrive(?:_drop)?\.expect_tx|expect_tx)\b"),
    ("mbarrier_arrive", r"mbarrier\.arrive(?:_drop)?\b"),
    # `.cta_group::2`: the 2-SM UMMA's loads (CUTLASS's SM100_TMA_2SM_LOAD) complete on the
    # leader CTA's barrier
    ("tma_load", r"cp\.async\.bulk\.tensor\.\d+d(?:\.cta_group::\d)?\.shared::(?:cluster|cta)\.global\b"),
    ("tma_store", r"cp\.async\.bulk\.tensor\.\d+d\.global\.shared::cta\b"),
    ("tma_reduce", r"cp\.reduce\.async\.bulk\.tensor\b"),
    ("tma_prefetch", r"cp\.async\.bulk\.prefetch\.tensor\b"),
    ("bulk_commit", r"cp\.async\.bulk\.commit_group\b"),
    ("bulk_wait", r"cp\.async\.bulk\.wait_group\b"),
    ("bulk_load", r"cp\.async\.bulk\.shared::(?:cluster|cta)\.global\b"),
    ("bulk_store", r"cp\.(?:reduce\.)?async\.bulk\.global\.shared::cta\b"),
    ("cp_async_commit", r"cp\.async\.commit_group\b"),
    ("cp_async_wait", r"cp\.async\.wait_(?:group|all)\b"),
    ("cp_async_mbarrier_arrive", r"cp\.async\.mbarrier\.arrive\b"),
    ("cp_async", r"cp\.async\.c[ag]\b"),
    ("wgmma", r"wgmma\.mma_async\b"),
    ("wgmma_fence", r"wgmma\.fence\b"),
    ("wgmma_commit", r"wgmma\.commit_group\b"),
    ("wgmma_wait", r"wgmma\.wait_group\b"),
    ("umma", r"tcgen05\.mma\b"),
    ("umma_commit", r"tcgen05\.commit\b"),
    ("tmem_load", r"tcgen05\.ld\b"),
    ("tmem_store", r"tcgen05\.st\b"),
    ("tmem_copy", r"tcgen05\.cp\b"),
    ("tmem_alloc", r"tcgen05\.(?:alloc|dealloc|relinquish_alloc_permit)\b"),
    ("tmem_wait", r"tcgen05\.wait::(?:ld|st)\b"),
    ("clc_try_cancel", r"clusterlaunchcontrol\.try_cancel\b"),
    ("clc_query_cancel", r"clusterlaunchcontrol\.query_cancel\b"),
    ("bar_sync", r"(?:bar|barrier)(?:\.cta)?\.sync\b|bar(?:rier)?(?:\.cta)?\.red\b|bar\.\d"),
    ("bar_arrive", r"(?:bar|barrier)(?:\.cta)?\.arrive\b"),
    ("elect", r"elect\.sync\b"),
))
# Words one of the classes' opcodes starts with: a statement that starts with none of them is
# skipped without running the rules (most PTX lines are moves, adds and loads).
CLASS_HEADS = ("mbarrier.", "cp.", "wgmma.", "tcgen05.", "clusterlaunchcontrol.", "bar", "elect.")


@dataclass(frozen=True)
class Frame:
    """One level of an inline chain: a source location (file is the .file path)."""
    file: str
    line: int
    col: int


@dataclass(frozen=True)
class Instruction:
    """One protocol instruction: its class, statement text, PTX line, entry and inline chain."""
    cls: str
    opcode: str
    text: str
    ptx_line: int
    entry: str
    chain: tuple   # of Frame, innermost first; empty when no .loc precedes it


@dataclass
class Listing:
    """What read_ptx found: the .file table and the protocol instructions in PTX order."""
    files: dict = field(default_factory=dict)          # index -> path
    instructions: list = field(default_factory=list)
    lines: int = 0
    max_chain_depth: int = 0

    def first_frame(self, instruction, files):
        """The innermost frame of the instruction's chain whose file is in `files`, or None."""
        for frame in instruction.chain:
            if frame.file in files:
                return frame
        return None


def classify(opcode):
    """The class of an opcode (see CLASS_RULES), or None."""
    if not opcode.startswith(CLASS_HEADS):
        return None
    for cls, pattern in CLASS_RULES:
        if pattern.match(opcode):
            return cls
    return None


def _statements(line):
    """(opcode, statement text) of each `;`-separated statement of one code line."""
    for piece in line.split(";"):
        head = RE_STATEMENT_HEAD.match(piece)
        m = RE_OPCODE.match(piece, head.end())
        if m:
            yield m.group(0), " ".join(piece[head.end():].split())


def read_ptx(text):
    """Read PTX text into a Listing (never raises on text; unknown lines are skipped)."""
    listing = Listing()
    nodes = []             # per .loc: ((file, line, col), index of its parent node or None)
    latest = {}            # (file, line, col) -> index of the latest node at that location
    callees = {}           # node index -> function names of the .locs inlined at it so far
    by_callee = {}         # ((file, line, col), function name) -> latest node at the location
                           # that a .loc of that function was inlined at
    current = None         # the node of the latest .loc
    chain_cache = None     # the chain of `current`, built on first use
    entry = ""
    raw = []               # (cls, opcode, text, ptx_line, entry, chain as index tuples)
    lineno = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith(".loc"):
            m = RE_LOC.match(line)
            if m:
                loc = (int(m.group("file")), int(m.group("line")), int(m.group("col")))
                up = None
                if m.group("afile") is not None:
                    site = (int(m.group("afile")), int(m.group("aline")), int(m.group("acol")))
                    up = _call_site(site, m.group("fn"), latest, callees, by_callee)
                    if up is None:   # a call site no .loc has named yet: a frame without parent
                        nodes.append((site, None))
                        up = latest[site] = len(nodes) - 1
                    callees.setdefault(up, set()).add(m.group("fn"))
                    by_callee[site, m.group("fn")] = up
                nodes.append((loc, up))
                current = latest[loc] = len(nodes) - 1
                chain_cache = None
            continue
        if stripped.startswith(".file"):
            m = RE_FILE.match(line)
            if m:
                # normalised: a header included as "../collective/x.hpp" is named with the `..`
                listing.files[int(m.group("index"))] = posixpath.normpath(m.group("path"))
            continue
        if stripped.startswith((".visible", ".entry", ".func", ".weak", ".extern")):
            m = RE_ENTRY.match(line)
            if m:
                n = RE_ENTRY_NAME.search(m.group("rest"))
                if n:
                    entry = n.group("name") or n.group("name2")
            continue
        if not any(h in stripped for h in CLASS_HEADS):
            continue
        for opcode, stmt in _statements(stripped):
            cls = classify(opcode)
            if cls is None:
                continue
            if chain_cache is None:
                chain_cache = _chain(current, nodes)
                listing.max_chain_depth = max(listing.max_chain_depth, len(chain_cache))
            raw.append((cls, opcode, stmt, lineno, entry, chain_cache))
    listing.lines = lineno
    files = listing.files
    for cls, opcode, stmt, ptx_line, ent, chain in raw:
        frames = tuple(Frame(files.get(f, f"<file {f}>"), ln, col) for f, ln, col in chain)
        listing.instructions.append(Instruction(cls, opcode, stmt, ptx_line, ent, frames))
    return listing


def _call_site(site, fn, latest, callees, by_callee):
    """The node a .loc of function fn inlined at site hangs from. nvcc writes a whole run of .locs
    (outer to inner) only when the outer frames change; when it interleaves two inlined calls
    that share a helper (cute's copy() of the TMEM load and of the shared-memory store both pass
    through util.hpp's explode), a later instruction's .loc may name only the innermost level,
    inlined at the helper's location, whose latest .loc belongs to the other call. So: the
    latest node at site when nothing was inlined at it yet, or when fn was (the run being
    written); else the latest node at site that fn was inlined at before; else the latest."""
    up = latest.get(site)
    if up is None:
        return None
    seen = callees.get(up)
    if not seen or fn in seen:
        return up
    return by_callee.get((site, fn), up)


def _chain(node, nodes):
    """The inline chain of a node, innermost first: its location and its parents' locations."""
    out = []
    while node is not None and len(out) < MAX_CHAIN_DEPTH:
        loc, node = nodes[node]
        out.append(loc)
    return tuple(out)


@dataclass(frozen=True)
class BackEdge:
    """A branch to an earlier label: the PTX lines of the label and of the branch, and the brace
    depth of the label (1: the function body; deeper: a `{ }` scope, such as an inline-asm block's
    own LAB_WAIT retry loop around mbarrier.try_wait)."""
    label: str
    label_line: int
    branch_line: int
    depth: int


def back_edges(text):
    """Every branch to an earlier label of the same function, in PTX order. A label name is looked
    up among the labels of the enclosing scopes that are still open (inline-asm blocks reuse names
    such as LAB_WAIT in every block), nearest first."""
    out = []
    scopes = [{}]     # per open brace scope: label -> (line, depth)
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("//") or stripped.startswith("."):
            if stripped.startswith((".visible", ".entry", ".func", ".weak")):
                scopes = [{}]      # a new function: its labels are its own
            continue
        # Statements are split at braces so a label or branch is seen in its own scope.
        for piece in re.split(r"([{}])", line):
            if piece == "{":
                scopes.append({})
                continue
            if piece == "}":
                if len(scopes) > 1:
                    scopes.pop()
                continue
            m = RE_LABEL.match(piece)
            if m and not piece[m.end():].lstrip().startswith(":"):
                scopes[-1][m.group("label")] = (lineno, len(scopes) - 1)
            b = RE_BRANCH.search(piece)
            if b:
                for scope in reversed(scopes):
                    if b.group("target") in scope:
                        at, depth = scope[b.group("target")]
                        if at < lineno:
                            out.append(BackEdge(b.group("target"), at, lineno, depth))
                        break
    return out


def find_nvcc():
    """The nvcc to use (viz.py --nvcc, the compiled-truth tests): $KLV_NVCC, nvcc on PATH,
    /usr/local/cuda/bin/nvcc, or the PyPI wheel's (scripts/install_nvcc.sh puts it under
    site-packages/nvidia/); None when there is none."""
    env = os.environ.get("KLV_NVCC")
    if env:
        return env if Path(env).is_file() else None
    found = shutil.which("nvcc")
    if found:
        return found
    candidates = [Path("/usr/local/cuda/bin/nvcc")]
    for base in {Path(sys.prefix), Path(sys.executable).resolve().parent.parent}:
        candidates += sorted(base.glob("lib/python3*/site-packages/nvidia/cu*/bin/nvcc"))
        candidates += sorted(base.glob("lib/python3*/site-packages/nvidia/cuda_nvcc/bin/nvcc"))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return None
