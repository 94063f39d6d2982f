"""Protocol instructions of nvcc's PTX with their -lineinfo inline chains (stdlib only).

nvcc -lineinfo writes `.file N "path"` directives (after the code) and, before each instruction,
`.loc FILE LINE COL[, function_name LABEL[+K], inlined_at FILE2 LINE2 COL2]`. One `.loc` carries
one inlining level: an instruction inlined through k calls is preceded by k `.loc` lines, outer
to inner, each inlined at the location of the one before it; frames above the run were written
before an earlier instruction. So the reader keeps, for every location it has seen, the
`inlined_at` of the most recent `.loc` at that location, and a chain is read by following those
links from the current `.loc` (innermost first). Each line is read once and a chain costs at most
MAX_CHAIN_DEPTH look-ups, so reading is linear in the PTX size.

read_ptx(text) -> Listing: the files, and every protocol instruction (see CLASS_RULES) with its
class, its statement text, its PTX line, the entry it lies in and its chain of (file, line, col).
Listing.first_frame(instruction, files) maps a chain to its innermost frame in a set of files.
"""

import posixpath
import re
from dataclasses import dataclass, field

# An inline chain longer than this is cut (a cycle in the links, or pathological input): no real
# CUTLASS instantiation measured here nests deeper than 15 (see docs/compiled-truth.md).
MAX_CHAIN_DEPTH = 256

# .file 3 "/path/to/cutlass.h"[, timestamp, size]
RE_FILE = re.compile(r'\s*\.file\s+(?P<index>\d+)\s+"(?P<path>[^"]*)"')
# .loc 6 496 9[, function_name $L__info_string80[+12], inlined_at 2 849 9]
RE_LOC = re.compile(r"""
    \s*\.loc \s+ (?P<file>\d+) \s+ (?P<line>\d+) \s+ (?P<col>\d+)      # the location
    (?: \s*,\s* function_name \s+ [^,\s]+                                # the inlined function
        \s*,\s* inlined_at \s+ (?P<afile>\d+) \s+ (?P<aline>\d+) \s+ (?P<acol>\d+) )?  # its call site
""", re.VERBOSE)
# .visible .entry NAME(   /   .func (.param ...) NAME(   /   .entry NAME(
RE_ENTRY = re.compile(r"\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:entry|func)\b(?P<rest>[^;{]*)")
RE_ENTRY_NAME = re.compile(r"(?P<name>[A-Za-z_$][\w$]*)\s*\(?\s*$|(?P<name2>[A-Za-z_$][\w$]*)\s*\(")
# A statement's leading label (`LAB_WAIT:`), predicate (`@p`, `@!%p3`) and braces are skipped.
RE_STATEMENT_HEAD = re.compile(r"[\s{}]*(?:[A-Za-z_$][\w$]*:)?[\s{}]*(?:@!?%?[\w$]+\s+)?")
RE_OPCODE = re.compile(r"[a-z][\w.:]*")

# Instruction classes, first match wins: (class, opcode pattern). The opcode is the statement's
# first token (with its dotted modifiers); operands never take part. Fences, mbarrier.init and
# cluster barriers are not protocol steps here and have no class.
CLASS_RULES = tuple((cls, re.compile(pattern)) for cls, pattern in (
    ("mbarrier_wait", r"mbarrier\.(?:try_wait|test_wait)\b"),
    ("mbarrier_expect_tx", r"mbarrier\.(?:arrive(?:_drop)?\.expect_tx|expect_tx)\b"),
    ("mbarrier_arrive", r"mbarrier\.arrive(?:_drop)?\b"),
    ("tma_load", r"cp\.async\.bulk\.tensor\.\d+d\.shared::(?:cluster|cta)\.global\b"),
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
    ("clc_try_cancel", r"clusterlaunchcontrol\.try_cancel\b"),
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
    parent = {}            # (file, line, col) -> (file, line, col) it was inlined at, or None
    current = None         # the location of the latest .loc
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
                current = (int(m.group("file")), int(m.group("line")), int(m.group("col")))
                if m.group("afile") is not None:
                    parent[current] = (int(m.group("afile")), int(m.group("aline")), int(m.group("acol")))
                else:
                    parent[current] = None
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
                chain_cache = _chain(current, parent)
                listing.max_chain_depth = max(listing.max_chain_depth, len(chain_cache))
            raw.append((cls, opcode, stmt, lineno, entry, chain_cache))
    listing.lines = lineno
    files = listing.files
    for cls, opcode, stmt, ptx_line, ent, chain in raw:
        frames = tuple(Frame(files.get(f, f"<file {f}>"), ln, col) for f, ln, col in chain)
        listing.instructions.append(Instruction(cls, opcode, stmt, ptx_line, ent, frames))
    return listing


def _chain(loc, parent):
    """The inline chain of a location, innermost first, following the inlined_at links."""
    out = []
    seen = set()
    while loc is not None and loc not in seen and len(out) < MAX_CHAIN_DEPTH:
        seen.add(loc)
        out.append(loc)
        loc = parent.get(loc)
    return tuple(out)
