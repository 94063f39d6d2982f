#!/usr/bin/env python3
"""Static, regex-based parser of CUTLASS warp-specialized (SM90+) kernel sources into a JSON model.

Pipeline of the parser (each step a pure function):
  1. read_source(): bytes -> text (UTF-8, with replacement and a warning when it is not).
  2. blank_source(): two same-length copies of the text: `code` with comments and string/char
     literals blanked, `prose` with only comments blanked (for statement texts). Every newline
     is kept, so an offset in either copy is an offset in the file.
  3. BracketIndex: one linear pass pairing (), [], {} so later steps jump between brackets.
  4. Scope walk over `{...}` blocks: structs and function bodies with their line ranges.
  5. One precompiled, named pattern per construct (RE_*) finds pipeline aliases, buffers, ops,
     kernel-layer facts; every match maps back to a line through LineIndex.
Nothing here renders anything; viz.py and the renderers read the dict that parse_text() returns.
"""

import argparse
import bisect
import itertools
import json
import operator
import os
import re
import stat
import sys
from array import array
from pathlib import Path

__version__ = "0.1.0"
SCHEMA_VERSION = 1
TOOL_NAME = "kernel_logical_visualizer"

MAX_FILE_BYTES = 16 * 1024 * 1024   # larger inputs are refused: headers are < 1 MB
MAX_TEXT_CHARS = 160                # statement texts are trimmed to this length
STATEMENT_SCAN_LIMIT = 4000         # chars scanned around an op for its statement (keeps it linear)
MAX_FUNCTION_NESTING = 3            # functions inside functions inside ... deeper are not parsed
BINARY_SNIFF_BYTES = 8192

# ----------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------


class VizError(Exception):
    """Base of every error the CLIs report as one line (`path:line:col: msg`) with exit status 2."""

    def __init__(self, path, msg, line=None, col=None, notes=()):
        super().__init__(msg)
        self.path, self.msg, self.line, self.col = str(path), msg, line, col
        self.notes = list(notes)

    def __str__(self):
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.msg}"


class InputError(VizError):
    """The input cannot be read or is not a source file (missing, directory, binary, too large)."""


class ParseError(VizError, ValueError):
    """The text was read but holds nothing this tool can model."""


class DriverFileError(ParseError):
    """An example driver (.cu with CollectiveBuilder): the pipeline lives in a collective mainloop."""


# ----------------------------------------------------------------------------------------------
# Step 1-3: reading, blanking, line and bracket indexes
# ----------------------------------------------------------------------------------------------


def read_source(path):
    """Read a source file; return (text, warnings). Raise InputError for unreadable input."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a source file")
    if not path.is_file():
        # A FIFO or device may block on open or never end: refuse it before opening it.
        raise InputError(path, "not a regular file")
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):   # replaced since the check above
                raise InputError(path, "not a regular file")
            if info.st_size > MAX_FILE_BYTES:
                raise InputError(path, f"file too large ({info.st_size} bytes; the limit is "
                                 f"{MAX_FILE_BYTES})")
            # Never read more than the limit, even if the file grows while we read it.
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(path, f"file too large (more than {MAX_FILE_BYTES} bytes)")
    if not data.strip():
        raise InputError(path, "empty file")
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(path, "binary file (NUL bytes), not C++ source")
    warnings = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        warnings.append(f"{path}: not valid UTF-8 (first bad byte at offset {exc.start}); "
                        "decoded with replacement characters")
    if text.startswith("\ufeff"):
        text = " " + text[1:]   # keep offsets: a BOM becomes a blank
    # Normalize line ends without changing the number of lines: CR LF -> ' ' LF, lone CR -> LF.
    if "\r" in text:
        text = text.replace("\r\n", " \n").replace("\r", "\n")
    return text, warnings


_RAW_STRING_OPEN = re.compile(r'R"(?P<delim>[^()\\\s"]{0,16})\(')

# Lexemes the blanking pass cares about. Each alternative gives every character exactly one
# path (no nested quantifiers over the same characters), so the scan is linear on any text.
RE_LEXEME = re.compile(r"""
      (?P<line_comment> // (?:[^\n\\]|\\.|\\\n)* )          # // to end of line (\-newline continues)
    | (?P<block_comment> /\* (?:[^*]|\*(?!/))* (?:\*/|\Z) )  # /* ... */ (unterminated: to the end)
    | (?P<string> " (?:[^"\\\n]|\\.)* "? )                 # "..." on one line
    | (?P<char> ' (?:[^'\\\n]|\\.)* '? )                   # '...' (or a digit separator, see below)
    | (?P<directive> ^[ \t]* \# (?:[^\n\\]|\\.|\\\n)* )     # preprocessor line with continuations
""", re.VERBOSE | re.MULTILINE)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(s):
    """Replace every character but newlines by a space."""
    return _NOT_NEWLINE.sub(" ", s)


def blank_source(text):
    """Return (code, prose): text with comments+literals blanked, and with comments blanked.

    Both have exactly len(text) characters and the same newline offsets. Blanked characters
    become spaces; the quotes of a literal stay so `f("x")` still looks like a call.
    Preprocessor lines are blanked in both (they are not statements, and a `#endif` must not
    glue itself onto the next statement's text). Linear: one RE_LEXEME search per lexeme.
    """
    code, prose = [], []
    pos = 0
    n = len(text)
    while pos < n:
        m = RE_LEXEME.search(text, pos)
        if m is None:
            break
        start, end, kind = m.start(), m.end(), m.lastgroup
        if kind == "char" and _is_digit_separator(text, start):
            # 1'000'000: keep the quote as code and continue just after it.
            code.append(text[pos:start + 1])
            prose.append(text[pos:start + 1])
            pos = start + 1
            continue
        if kind == "string" and start > 0 and text[start - 1] == "R" and \
                (start < 2 or not _is_ident_char(text[start - 2]) or text[start - 2] in "uUL8"):
            raw = _RAW_STRING_OPEN.match(text, start - 1)
            if raw:
                close = ")" + raw.group("delim") + '"'
                stop = text.find(close, raw.end())
                end = n if stop < 0 else stop + len(close)
        code.append(text[pos:start])
        prose.append(text[pos:start])
        lexeme = text[start:end]
        if kind in ("string", "char"):
            inner = lexeme[1:-1] if len(lexeme) > 1 and lexeme[-1] == lexeme[0] else lexeme[1:]
            tail = lexeme[1 + len(inner):]
            code.append(lexeme[0] + _blank(inner) + tail)
            prose.append(lexeme)
        else:
            code.append(_blank(lexeme))
            prose.append(_blank(lexeme))
        pos = end
    code.append(text[pos:])
    prose.append(text[pos:])
    return "".join(code), "".join(prose)


def _is_ident_char(ch):
    """True for characters that can appear in a C++ identifier."""
    return ch.isalnum() or ch == "_"


def _is_digit_separator(text, i):
    """True when the quote at i is a C++14 digit separator (1'000'000), not a char literal."""
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum() and \
        _number_before(text, i)


def _number_before(text, i):
    """True when the token ending just before i starts with a digit."""
    j = i - 1
    while j >= 0 and (_is_ident_char(text[j]) or text[j] == "'"):
        j -= 1
    return text[j + 1].isdigit()


class LineIndex:
    """Map offsets to 1-based line numbers (binary search over newline offsets)."""

    def __init__(self, text):
        self.starts = [0]
        # Lines as `wc -l` and editors count them: a final newline does not open a new line.
        self.count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        pos = text.find("\n")
        while pos >= 0:
            self.starts.append(pos + 1)
            pos = text.find("\n", pos + 1)

    def line(self, offset):
        """Return the 1-based line holding offset."""
        return bisect.bisect_right(self.starts, offset)




class BracketIndex:
    """Pairs of matching (), [] and {} in blanked code, found in one stack pass.

    `<` is not paired here (it is also less-than); template argument lists are scanned locally
    with scan_angle(). Unbalanced brackets are left unpaired and never raise. The index also
    holds every `;`, so statement_end() can jump from any offset to the end of its statement.
    Offsets and partners live in flat arrays (a dict of 5 million pairs costs gigabytes).
    """

    CLOSE = {")": "(", "]": "[", "}": "{"}
    NONE = -1

    def __init__(self, code):
        # Token offsets at C speed: split() yields the text between tokens, so token k sits at
        # the summed lengths of the k+1 first pieces plus k.
        self.chars = RE_STATEMENT_STOP.findall(code)
        pieces = RE_STATEMENT_STOP.split(code)
        self.pos = array("q", map(operator.add, itertools.accumulate(map(len, pieces)),
                                  range(len(self.chars))))
        partner = array("q", [self.NONE]) * len(self.chars)
        stack = []                       # token indices of open brackets
        open_count = {"(": 0, "[": 0, "{": 0}
        chars = self.chars
        for k, ch in enumerate(chars):
            if ch in open_count:
                stack.append(k)
                open_count[ch] += 1
                continue
            want = self.CLOSE.get(ch)
            if want is None or not open_count[want]:
                continue                 # `;`, or a stray closer: O(1), never a stack walk
            # Pop until the matching opener: mismatched openers in between are discarded, so
            # each opener is popped once and the walk is amortised linear.
            while True:
                j = stack.pop()
                open_count[chars[j]] -= 1
                if chars[j] == want:
                    break
            partner[j] = k
            partner[k] = j
        self.partner = partner
        self._code = code
        self._stops = None

    def _index(self, pos):
        """Token index of the bracket at offset pos, or None."""
        k = bisect.bisect_left(self.pos, pos)
        if k < len(self.pos) and self.pos[k] == pos:
            return k
        return None

    def close_of(self, pos):
        """Offset of the bracket closing (or opening) the one at pos, or None."""
        k = self._index(pos)
        if k is None or self.partner[k] == self.NONE:
            return None
        return self.pos[self.partner[k]]

    def _stop_table(self):
        """stop[k]: the token where a statement scan starting at token k ends (built on first use).

        A `;`, a closer, or a `{` right after a `)` (the block of `if (...) {`, `for (...) {`)
        ends it; any other paired opener (a brace initializer `Shape{}`, a call) jumps past its
        partner; an unpaired opener is skipped. One backward pass, so every later
        statement_end() is a lookup.
        """
        if self._stops is None:
            n = len(self.chars)
            stops = array("q", [self.NONE]) * (n + 1)
            chars, partner, pos, code = self.chars, self.partner, self.pos, self._code
            for k in range(n - 1, -1, -1):
                ch = chars[k]
                if ch == "{" and k and chars[k - 1] == ")" and \
                        not code[pos[k - 1] + 1:pos[k]].strip():
                    stops[k] = k
                elif ch in "([{":
                    p = partner[k]
                    stops[k] = stops[p + 1] if p != self.NONE else stops[k + 1]
                else:
                    stops[k] = k
            self._stops = stops
        return self._stops

    def statement_end(self, start, pos, limit):
        """Offset ending the statement that starts at start and holds pos: just past its `;`, or
        at the `{` of the block it heads, or at an enclosing closer; limit if that is later.

        The scan runs from start, so brackets opened inside the statement before pos (the
        `copy(` around `softmax.finalize(...)`) are closed in its text. A closer of a bracket
        opened before start (the `)` of `for (...; ...; ++i) op;`) that lies before pos would
        end it too early: then the scan runs from pos.
        """
        stops = self._stop_table()
        stop = stops[bisect.bisect_left(self.pos, start)]
        if stop != self.NONE and self.pos[stop] < pos:
            stop = stops[bisect.bisect_left(self.pos, pos)]
        if stop == self.NONE or self.pos[stop] >= limit:
            return limit
        return self.pos[stop] + 1 if self.chars[stop] == ";" else self.pos[stop]


def scan_angle(code, pos, limit=2000):
    """Given code[pos] == '<', return the offset just past the matching '>' or None.

    Counts nested <> outside (), stops at ; (and at { } outside parentheses) so a less-than
    never runs away; `Shape{}` inside a parenthesised argument is fine.
    """
    depth = 0
    paren = 0
    end = min(len(code), pos + limit)
    # Jump between the characters that matter (C speed) instead of stepping through each one.
    for m in RE_ANGLE_STOP.finditer(code, pos, end):
        ch = m.group()
        if ch == "(":
            paren += 1
        elif ch == ")":
            paren -= 1
            if paren < 0:
                return None
        elif paren == 0 and ch == "<":
            depth += 1
            if depth > MAX_TEMPLATE_DEPTH:
                return None
        elif paren == 0 and ch == ">":
            depth -= 1
            if depth == 0:
                return m.end()
        elif ch == ";" or (paren == 0 and ch in "{}"):
            return None
    return None


RE_ANGLE_STOP = re.compile(r"[<>();{}]")
RE_STATEMENT_STOP = re.compile(r"[()\[\]{};]")
RE_SPACES = re.compile(r"\s*")
RE_SPLIT_STOP = re.compile(r"[()\[\]{}<>,]")
MAX_ARG_CHARS = 4 * MAX_TEXT_CHARS   # an argument longer than this is cut before it is read
MAX_TEMPLATE_DEPTH = 64   # deeper <...> nesting is not a type we can use


def split_top_level(code, start, end, brackets=None, max_parts=None):
    """Split code[start:end] at top-level commas (outside (), [], {}, <>); return (s, e) spans.

    With a BracketIndex, a paired bracket is jumped over in one step; with max_parts, the scan
    stops once that many spans are known (the last one then runs to end). Both keep a call
    nested in a call's first argument from costing its whole length at every level.
    """
    spans = []
    depth = 0
    angle = 0
    seg = start
    i = start
    while True:
        m = RE_SPLIT_STOP.search(code, i, end)
        if m is None:
            break
        i = m.start()
        ch = m.group()
        if ch in "([{":
            close = brackets.close_of(i) if brackets is not None and depth == 0 else None
            if close is not None and close < end:
                i = close + 1
                continue
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and depth == 0:
            angle += 1
        elif ch == ">" and depth == 0 and angle > 0:
            angle -= 1
        elif ch == "," and depth == 0 and angle == 0:
            spans.append((seg, i))
            seg = i + 1
            if max_parts is not None and len(spans) >= max_parts:
                return spans
        i += 1
    spans.append((seg, end))
    return spans


# ----------------------------------------------------------------------------------------------
# Patterns: one named, precompiled, verbose pattern per construct
# ----------------------------------------------------------------------------------------------

_IDENT = r"[A-Za-z_]\w*"
_QUALIFIED = rf"(?:::)?{_IDENT}(?:\s*::\s*{_IDENT})*"
RE_IDENT = re.compile(rf"\b{_IDENT}")

# `using Alias =` -- the aliased type runs to the statement's ';' (found bracket-aware by
# Source.statement, since FA3's types hold `{}` as in CUTE_STATIC_V(size(ClusterShape{}))).
RE_USING = re.compile(rf"""
    \busing \s+ (?P<alias>{_IDENT}) \s* = \s*   # using X =
""", re.VERBOSE)

# `class Pipeline` / `typename MainloopPipeline_` among template parameters
RE_TEMPLATE_PIPELINE_PARAM = re.compile(r"""
    (?<=[<,\s]) (?:class|typename) \s+ (?P<name>\w*Pipeline\w*) \s* (?=[,>=])
""", re.VERBOSE)

# Pipeline-like names that are not pipeline classes.
RE_NOT_PIPELINE = re.compile(r"(?:State|Storage|Params|Arguments)\w*$")
NOT_PIPELINE_CLASSES = frozenset({
    "PipelineState", "PipelineParams", "PipelineStorage", "PipelineSharedStorage",
    "PipelineArguments", "PipelineStateQ", "PipelineStateReducer",
})

# The head of a type expression: [typename] qualified::name [<]
RE_TYPE_HEAD = re.compile(rf"""
    \s* (?:typename \s+)? (?P<name>{_QUALIFIED}) \s* (?P<lt><)?
""", re.VERBOSE)
RE_PIPELINE_NAME = re.compile(r"Pipeline[A-Z]\w*$")

# `std::conditional_t<cond, A, B>` (and cute::conditional_t): each branch is a candidate.
RE_CONDITIONAL = re.compile(r"\bconditional(?:_t)?\s*<")

# cute::array_aligned<T, cosize_v<Layout>[, align]> smem_x;  (the <...> is scanned with scan_angle)
# and cute::ArrayEngine<T, cosize_v<Layout>> smem_x; (SM90 sparse and mixed-input collectives)
RE_ARRAY_ALIGNED = re.compile(r"\b(?:array_aligned|ArrayEngine)\s*<")
RE_COSIZE_LAYOUT = re.compile(rf"\bcosize_v\s*<\s*(?P<layout>{_QUALIFIED})")
RE_MEMBER_NAME = re.compile(rf"\s*(?P<name>{_IDENT})\s*(?:\[[^\];{{}}]*\]\s*)?;")

# A struct/class head just before '{' (after any `template <...>` prefix is skipped):
# struct [alignas(N)] Name [final] [: bases] {
RE_STRUCT_HEAD = re.compile(rf"""
    \s* (?P<kw>struct|class|union) \s+
    (?:alignas \s* \( [^()]* \) \s*)?            # alignas(16)
    (?:\[\[ [^\[\]]* \]\] \s*)?                 # [[attributes]]
    (?P<name>{_IDENT}) \b                        # the struct's name
""", re.VERBOSE)

RE_TEMPLATE_PREFIX = re.compile(r"\s*template\s*<")

# A `{` that can open a scope: its head (the text since the previous ; { }) is not blank, so
# `{{{{` runs cost one regex scan, not a Python step per brace.
RE_SCOPE_BRACE = re.compile(r"[^\s{};] \s* \{", re.VERBOSE)

# Pipeline member calls: recv.producer_acquire( ... ). The receiver is read backwards.
PRODUCER_OPS = ("producer_acquire", "producer_try_acquire", "producer_get_barrier",
                "producer_commit", "producer_expect_transaction", "producer_tail")
CONSUMER_OPS = ("consumer_try_wait", "consumer_test_wait", "consumer_wait", "consumer_release")
RE_PIPE_OP = re.compile(rf"""
    (?P<dot>\.|->) \s* (?:template \s+)?        # member access
    (?P<op>{"|".join(PRODUCER_OPS + CONSUMER_OPS)}) \b
    \s* (?P<targs><[^<>;{{}}()]*>)? \s* \(       # optional simple template args, then the call
""", re.VERBOSE)

# copy( / cute::copy( / copy_if( : TMA loads and cp.async loads are told apart by the first argument.
RE_COPY_CALL = re.compile(r"""
    (?<![\w.>]) (?:cute\s*::\s*)? (?P<fn>copy|copy_if) \s* \(
""", re.VERBOSE)

# First argument of a TMA copy: X.with(...)  (X: mainloop_params.tma_load_a, params.tma_load_K, params)
RE_TMA_WITH = re.compile(rf"""
    \s* (?P<recv>{_IDENT}(?:\s*(?:\.|->)\s*{_IDENT})*) \s* \. \s* with \s* \(
""", re.VERBOSE)

# The operand named by a TMA copy object: tma_load_a -> a, tma_load_K -> K, tma_load_V_new -> V_new
RE_TMA_OPERAND = re.compile(r"tma_load_?(?P<operand>[A-Za-z]\w*)$")
# A cp.async tiled copy: gmem_tiled_copy_a / GmemTiledCopyA
RE_GMEM_COPY = re.compile(rf"\s*(?P<recv>(?:{_IDENT}\s*(?:\.|->)\s*)*(?:gmem_tiled_copy|gmem_copy)_?(?P<operand>[A-Za-z]\w*))\s*$")

# Barrier-ish identifiers inside .with(...): *tma_barrier, shared_storage.pipelines.barrier_Q
RE_BARRIER_NAME = re.compile(r"\b(\w*barrier\w*)\b")
# `Type* name = ...` at the start of a statement text
RE_ASSIGNED_NAME = re.compile(rf"^[\w:<>,\s*&]*?\b(?P<name>{_IDENT})\s*=(?!=)")

# MMA: cute::gemm(tiled_mma, ...), flash::gemm<...>(tiled_mma_qk, ...), and wrappers named
# gemm_* (88_hopper_fmha's gemm_zero_acc(tiled_mma_qk, ...)); the first argument must be an MMA.
RE_GEMM_CALL = re.compile(rf"""
    (?<![\w.>]) (?P<callee>(?:{_IDENT} \s* :: \s*)* gemm(?:_\w+)?) \b \s* (?P<targs><)?
""", re.VERBOSE)

# Softmax steps of attention consumers: softmax.online_softmax(...), softmax.template
# max_get_scale<...>(...), softmax.step(...) (88_hopper_fmha). The literal `softmax` is found
# first and the identifier around it expanded by hand, so no quantifier spans an identifier twice.
RE_SOFTMAX_WORD = re.compile(r"softmax", re.IGNORECASE)
RE_MEMBER_CALL_TAIL = re.compile(rf"""
    \s* (?:\.|->) \s* (?:template \s+)? (?P<call>{_IDENT}) \s* (?:<[^<>;{{}}()]*>)? \s* \(
""", re.VERBOSE)

# Order barriers between consumer warpgroups, inside a mainloop: math_wg_order_barrier.wait(),
# and FlashAttention-3's warp_scheduler_barrier_sync() / _arrive() named-barrier helpers.
RE_ORDER_OP = re.compile(rf"""
    (?<![\w.>])
    (?: (?P<recv>{_IDENT}order_barrier\w*) \s* (?:\.|->) \s* (?P<call>wait|arrive)
      | (?P<fn>warp_scheduler_barrier_(?P<fcall>sync|arrive)) )
    \s* \(
""", re.VERBOSE)

# Standalone transaction barriers outside any pipeline (FlashAttention-3's Q and O barriers):
# barrier_Q.wait(phase), shared_storage.pipelines.barrier_Q.arrive_and_expect_tx(bytes),
# barrier_Q.arrive(). The member name must start with `barrier_`; the receiver is read backwards.
RE_BARRIER_OP = re.compile(r"""
    (?<![\w]) barrier_ (?P<name>\w+) \s* (?P<dot>\.|->) \s*
    (?P<call>wait|try_wait|arrive|arrive_and_expect_tx|expect_transaction) \s* \(
""", re.VERBOSE)

# A local lambda taking the pipeline as a parameter: auto consumer_wait = [](auto& pipeline, ...) {
RE_LAMBDA = re.compile(rf"""
    \bauto \s+ (?P<name>{_IDENT}) \s* = \s* \[ [^\]\[;{{}}]* \] \s* \(
""", re.VERBOSE)

# A load helper object built from a TMA copy: LoadK load_k{params.tma_load_k, pipeline, storage.smem_k};
RE_LOAD_HELPER = re.compile(rf"""
    \b(?P<type>{_IDENT}) \s+ (?P<var>{_IDENT}) \s* [{{(] \s*
    (?P<tma>(?:{_IDENT}\s*(?:\.|->)\s*)* tma_load_?\w+) \s* , \s*   # params.tma_load_k,
    (?P<pipe>{_IDENT}) \s* ,
""", re.VERBOSE)

# Any call `name(`, and any member call `var.method(` / `var.template method<...>(`: the name is
# looked up in a dict afterwards, so one scan serves every lambda and load helper.
RE_NAMED_CALL = re.compile(rf"(?<![\w.>])(?P<name>{_IDENT})\s*\(")
RE_MEMBER_CALL = re.compile(rf"""
    (?<![\w.>]) (?P<var>{_IDENT}) \s* \. \s* (?:template\s+)?
    (?P<method>{_IDENT}) \s* (?:<[^<>;{{}}()]*>)? \s* \(
""", re.VERBOSE)

RE_AUTO_LOCAL = re.compile(rf"""
    \bauto \s* [&*]* \s* (?P<name>{_IDENT}) \s* = (?P<init>[^;{{}}]*) ;
""", re.VERBOSE)

# Kernel layer
RE_ROLE_ENUM = re.compile(rf"""
    \benum \s+ (?:class|struct) \s+ (?P<name>WarpGroupRole|ProducerWarpRole)
    \s* (?::\s*{_QUALIFIED}\s*)? \{{ (?P<body>[^{{}}]*) \}}
""", re.VERBOSE)
# `NumMmaWarpGroups = <expr>;` (the value runs to the statement's ';', braces allowed: FA3
# writes CUTE_STATIC_V(size(TiledMmaPV{})) / NumThreadsPerWarpGroup); `==` is not a definition.
RE_WARPGROUP_COUNT = re.compile(r"""
    \b(?P<name>NumLoadWarpGroups|NumMmaWarpGroups) \s* =(?!=) \s*
""", re.VERBOSE)
RE_ORDER_BARRIER = re.compile(r"""
    \busing \s+ (?P<alias>\w*OrderBarrier\w*) \s* = \s* (?P<rhs>[^;{}]*) ;
""", re.VERBOSE)
# Kernel schedule tags (KernelTmaWarpSpecializedPingpong, KernelCpAsyncWarpSpecialized, ...):
# whole identifiers are matched, then classified by substring, so there is no backtracking.
RE_KERNEL_TAG = re.compile(r"\bKernel\w*WarpSpecialized\w*")
RE_KERNEL_CALL = re.compile(rf"""
    (?<![\w.>]) (?P<recv>(?:collective_)?mainloop|(?:collective_)?epilogue|{_IDENT}order_barrier\w*)
    \s* \. \s* (?:template \s+)? (?P<call>{_IDENT}) \s* (?:<[^<>;{{}}()]*>)? \s* \(
""", re.VERBOSE)
RE_MAINLOOP_CALL = re.compile(r"(?<![\w.>])(?:collective_)?mainloop\s*\.\s*(?:template\s+)?(?:load|mma)\s*[<(]")
RE_INT_LITERAL = re.compile(r"^\s*\(?\s*(?P<value>\d+)\s*[uUlL]*\s*\)?\s*$")

# Driver files
RE_DRIVER = re.compile(r"\bCollectiveBuilder\b|\bKernelScheduleAuto\b|\bGemmUniversalAdapter\b")
RE_ARCH_NAME = re.compile(r"(?i)(?<![a-z0-9])sm_?(?P<num>\d{2,3})[a-z]?(?![0-9])")
RE_ARCH_TAG = re.compile(r"\bcutlass::arch::Sm(?P<num>\d{2,3})\b|\bSm(?P<num2>\d{2,3})\b")

# Tokens that look like a call head but are statements.
CONTROL_WORDS = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof",
                           "decltype", "static_assert", "constexpr", "noexcept", "requires"})
DEVICE_QUALIFIERS = re.compile(r"\b(?:CUTLASS_DEVICE|CUTLASS_HOST_DEVICE|CUTE_DEVICE|"
                               r"CUTE_HOST_DEVICE|__device__|__forceinline__)\b")


# ----------------------------------------------------------------------------------------------
# Source context shared by the extraction steps
# ----------------------------------------------------------------------------------------------


class Source:
    """One file's text, its blanked copies and indexes, plus a warnings list."""

    def __init__(self, text, path, display_path=None):
        self.text = text
        self.path = str(path)
        self.display = display_path or self.path
        self.code, self.prose = blank_source(text)
        self.lines = LineIndex(text)
        self.brackets = BracketIndex(self.code)
        self.warnings = []

    def line(self, offset):
        """1-based line of an offset."""
        return self.lines.line(offset)

    def warn(self, offset, msg):
        """Record a warning in pyflakes style: path:line: message."""
        self.warnings.append(f"{self.display}:{self.line(offset)}: {msg}")

    def statement(self, pos, end_hint=None):
        """Return (start, end) of the statement containing pos: from after the previous ; { }
        to its ; at bracket depth 0, the `{` of a block it heads, or the end of an enclosing
        call (BracketIndex.statement_end). end_hint (past an op's call) must lie inside it.
        Bounded scans."""
        code = self.code
        lo = max(0, pos - STATEMENT_SCAN_LIMIT)
        # The previous ; { or } (rfind runs at C speed, so long statements cost little).
        start = max(code.rfind(";", lo, pos), code.rfind("{", lo, pos), code.rfind("}", lo, pos)) + 1
        start = max(start, lo)
        # Leading white space is not part of the statement.
        start = RE_SPACES.match(code, start, max(start, pos)).end()
        i = end_hint if end_hint is not None else pos
        hi = min(len(code), i + STATEMENT_SCAN_LIMIT)
        return start, self.brackets.statement_end(start, i, hi)

    def snippet(self, start, end):
        """One-line statement text (comments removed, white space collapsed, trimmed).

        Only a prefix of a long span is collapsed: once the collapsed prefix exceeds the limit,
        the rest cannot change the trimmed text (so many ops in one huge statement stay cheap).
        """
        window = 4 * MAX_TEXT_CHARS
        while True:
            stop = min(end, start + window)
            text = " ".join(self.prose[start:stop].split())
            if len(text) > MAX_TEXT_CHARS or stop >= end:
                break
            window *= 4
        if len(text) > MAX_TEXT_CHARS:
            text = text[:MAX_TEXT_CHARS - 3] + "..."
        return text


# ----------------------------------------------------------------------------------------------
# Step 4: scopes (structs and functions)
# ----------------------------------------------------------------------------------------------


def find_scopes(src):
    """Return (structs, functions): each a list of dicts with name, open/close offsets, lines.

    A `{` opens a function body when it follows `name(...)` plus optional qualifiers and the
    name is not a control keyword; a lambda (`](...) {`) is not a function. Struct heads are
    recognised by RE_STRUCT_HEAD on the text between the previous ; { } and the brace.
    """
    code = src.code
    structs, functions = [], []
    for m in RE_SCOPE_BRACE.finditer(code):
        open_pos = m.end() - 1
        close_pos = src.brackets.close_of(open_pos)
        if close_pos is None:
            continue
        lo = max(0, open_pos - STATEMENT_SCAN_LIMIT)
        head_start = max(lo, code.rfind(";", lo, open_pos) + 1, code.rfind("{", lo, open_pos) + 1,
                         code.rfind("}", lo, open_pos) + 1)
        fn = _function_head(src, head_start, open_pos)
        if fn is not None:
            name, name_pos, params_span, is_device = fn
            functions.append({
                "name": name, "name_pos": name_pos, "open": open_pos, "close": close_pos,
                "params": params_span, "device": is_device,
                "line": src.line(name_pos), "end_line": src.line(close_pos),
            })
            continue
        offset = _skip_template_prefix(code, head_start, open_pos)
        sm = RE_STRUCT_HEAD.match(code, offset, open_pos)
        if sm:
            structs.append({"name": sm.group("name"), "open": open_pos, "close": close_pos,
                            "line": src.line(sm.start("name"))})
    return structs, functions


def _skip_template_prefix(code, start, stop):
    """Offset just past a leading `template <...>` (repeated) in code[start:stop]."""
    pos = start
    while True:
        m = RE_TEMPLATE_PREFIX.match(code, pos, stop)
        if not m:
            return pos
        end = scan_angle(code, m.end() - 1, limit=stop - m.end() + 1)
        if end is None:
            return pos
        pos = end


def _function_head(src, head_start, open_pos):
    """If the text before the brace at open_pos is a function head, return its facts."""
    code = src.code
    i = open_pos - 1
    # Skip trailing qualifiers: const, noexcept, override, final, mutable, -> ret (simple).
    while True:
        while i >= head_start and code[i].isspace():
            i -= 1
        word_end = i + 1
        while i >= head_start and _is_ident_char(code[i]):
            i -= 1
        word = code[i + 1:word_end]
        if word in ("const", "noexcept", "override", "final", "volatile"):
            continue
        i = word_end - 1
        break
    if i < head_start or code[i] != ")":
        return None
    open_paren = src.brackets.close_of(i)
    if open_paren is None or open_paren < head_start:
        return None
    j = open_paren - 1
    while j >= head_start and code[j].isspace():
        j -= 1
    # A template argument list between name and '(' (e.g. operator() or f<T>) is not handled;
    # `]` before '(' means a lambda.
    name_end = j + 1
    if code[j] == ")" and j >= 1 and code[j - 1] == "(":
        # operator()(...) -- the call operator of a collective (sm90_mma_tma_gmma_ss)
        k = j - 2
        while k >= head_start and code[k].isspace():
            k -= 1
        if code[k - 7:k + 1] == "operator":
            j = k - 8
            name = "operator()"
            decl = code[head_start:j + 1]
            return name, j + 1, (open_paren + 1, i), bool(DEVICE_QUALIFIERS.search(decl))
    while j >= head_start and _is_ident_char(code[j]):
        j -= 1
    name = code[j + 1:name_end]
    if not name or name[0].isdigit() or name in CONTROL_WORDS:
        return None
    k = j
    while k >= head_start and code[k].isspace():
        k -= 1
    prev = code[k] if k >= head_start else ""
    # `= name(...) {`, `, name(...) {` (constructor init list), `.name(` are not definitions.
    if prev in "=,.(>" and not (prev == ">" and k > 0 and code[k - 1] != "-"):
        if prev != ">":
            return None
    if prev == ":" and not (k > 0 and code[k - 1] == ":"):
        return None   # `: member(x) {` -- the last entry of a constructor initializer list
    # Namespace-qualified definitions (Foo::bar(...)) are fine: the name is `bar`. Template
    # parameter defaults (template <bool B = true>) are not initialisations.
    decl = code[_skip_template_prefix(code, head_start, j + 1):j + 1]
    if "=" in decl.replace("==", "").replace("<=", "").replace(">=", "").replace("!=", ""):
        return None   # an initialisation like `auto x = f(...) {` is not a function
    is_device = bool(DEVICE_QUALIFIERS.search(decl))
    return name, j + 1, (open_paren + 1, i), is_device


# ----------------------------------------------------------------------------------------------
# Step 5: pipelines, buffers
# ----------------------------------------------------------------------------------------------


def find_pipelines(src):
    """Pipeline aliases: `using X = [ns::]Pipeline*<...>` and conditional aliases of them."""
    code = src.code
    pipelines = []
    by_alias = {}
    covered = 0   # end of the last alias statement: a `using` inside it is not a statement of its own
    for m in RE_USING.finditer(code):
        alias = m.group("alias")
        if m.start() < covered or alias in NOT_PIPELINE_CLASSES or RE_NOT_PIPELINE.search(alias):
            continue
        rhs_start = m.end()
        start, end = src.statement(m.start(), m.end())
        covered = end
        rhs = code[rhs_start:max(rhs_start, end - 1)]
        if "Pipeline" not in rhs:
            continue
        classes, stages = _type_candidates(code, rhs_start, rhs_start + len(rhs), by_alias)
        if not classes:
            continue
        entry = {
            "alias": alias,
            "class": classes[0] if len(classes) == 1 else classes,
            "stages": stages or "",
            "line": src.line(m.start()),
            "end_line": src.line(max(m.start(), end - 1)),
            "conditional": bool(RE_CONDITIONAL.search(rhs)),
            "text": src.snippet(start, end),
        }
        pipelines.append(entry)
        by_alias[alias] = entry
    # Template parameters that stand for a pipeline (88_hopper_fmha: template <..., class Pipeline>)
    for m in RE_TEMPLATE_PIPELINE_PARAM.finditer(code):
        alias = m.group("name")
        if alias in by_alias or RE_NOT_PIPELINE.search(alias):
            continue
        entry = {"alias": alias, "class": "template parameter", "stages": "",
                 "line": src.line(m.start("name")), "end_line": src.line(m.start("name")),
                 "conditional": False, "template_parameter": True,
                 "text": src.snippet(*_line_span(src, m.start("name")))}
        pipelines.append(entry)
        by_alias[alias] = entry
    return pipelines


def _line_span(src, pos):
    """(start, end) offsets of the line holding pos, at most STATEMENT_SCAN_LIMIT either side."""
    lo = max(0, pos - STATEMENT_SCAN_LIMIT)
    hi = min(len(src.code), pos + STATEMENT_SCAN_LIMIT)
    start = max(lo, src.code.rfind("\n", lo, pos) + 1)
    end = src.code.find("\n", pos, hi)
    return start, (hi if end < 0 else end)


def _type_candidates(code, start, end, by_alias, depth=0):
    """Pipeline classes a type expression may name, and its stages expression.

    `[typename] [ns::]PipelineX<S, ...>` -> [PipelineX], S;  an earlier alias -> its classes;
    `conditional_t<c, A, B>` -> candidates of A and B;  `Owner::SomePipeline` -> [that member].
    Any other type (e.g. a class template that merely takes a pipeline argument) -> [].
    """
    m = RE_TYPE_HEAD.match(code, start, end)
    if m is None or depth > 8:
        return [], None
    parts = [p.strip() for p in m.group("name").split("::") if p.strip()]
    last = parts[-1] if parts else ""
    targs = None
    if m.group("lt"):
        # Bounded by the expression's end: a later `>` is rejected anyway.
        close = scan_angle(code, m.end() - 1, limit=max(0, end - m.end() + 1))
        if close is not None and close <= end:
            targs = (m.end(), close - 1)
    if last in ("conditional_t", "conditional") and targs:
        args = split_top_level(code, *targs)
        classes, stages = [], None
        for a_start, a_end in args[1:3]:
            sub, sub_stages = _type_candidates(code, a_start, a_end, by_alias, depth + 1)
            classes.extend(c for c in sub if c not in classes)
            stages = stages or sub_stages
        return classes, stages
    if RE_PIPELINE_NAME.match(last) and not RE_NOT_PIPELINE.search(last) \
            and last not in NOT_PIPELINE_CLASSES and (targs or last not in by_alias):
        stages = None
        if targs:
            first = split_top_level(code, *targs)[0]
            stages = " ".join(code[first[0]:first[1]].split())
        return [last], stages
    if last in by_alias:
        entry = by_alias[last]
        return list(_as_list(entry["class"])), entry["stages"]
    if len(parts) >= 2 and "Pipeline" in last and not RE_NOT_PIPELINE.search(last):
        return ["::".join(parts[-2:])], None
    return [], None


def _as_list(value):
    """A class field is a string or a list of candidates; always return a list."""
    return value if isinstance(value, list) else [value]


def operand_from_name(name):
    """smem_A -> A, smem_q -> Q, smem_vt -> Vt, smem_k_new -> K_new."""
    base = re.sub(r"^(?:smem|s|shared)_?", "", name) or name
    return base[:1].upper() + base[1:]


def find_buffers(src, structs):
    """Shared-memory stage buffers: `array_aligned<...> smem_X;` / `ArrayEngine<...> smem_X;` members."""
    code = src.code
    buffers = []
    enclosing = _EnclosingStructs(structs)
    aliases = {}   # using SmemP_t = conditional_t<..., array_aligned<E, cosize_v<SmemLayoutP>>>;
    for m in RE_ARRAY_ALIGNED.finditer(code):
        lt = m.end() - 1
        end = scan_angle(code, lt)
        if end is None:
            continue
        targs = code[lt + 1:end - 1]
        lm = RE_COSIZE_LAYOUT.search(targs)
        layout = " ".join(lm.group("layout").split()) if lm else ""
        nm = RE_MEMBER_NAME.match(code, end, end + STATEMENT_SCAN_LIMIT)
        if nm is None:
            # Maybe inside a using-alias: find the alias this array_aligned belongs to.
            um = _enclosing_using(src, m.start())
            if um:
                aliases[um] = layout
            continue
        name = nm.group("name")
        if name in ("SharedStorage",):
            continue
        buffers.append(_buffer_entry(src, enclosing, name, layout, m.start(), nm.end()))
    if aliases:
        pat = re.compile(rf"\b(?P<type>{'|'.join(map(re.escape, sorted(aliases)))})\s+(?P<name>{_IDENT})\s*;")
        enclosing = _EnclosingStructs(structs)
        for m in pat.finditer(code):
            buffers.append(_buffer_entry(src, enclosing, m.group("name"), aliases[m.group("type")],
                                         m.start(), m.end(), via=m.group("type")))
    buffers.sort(key=lambda b: (b["line"], b["name"]))
    return buffers


def _enclosing_using(src, pos):
    """Name of the `using X =` alias whose declaration contains pos, if any."""
    start, _ = src.statement(pos)
    m = RE_USING.match(src.code, start, pos)
    return m.group("alias") if m else None


class _EnclosingStructs:
    """The innermost struct around each of a rising sequence of offsets, in one sweep.

    Struct spans come from bracket pairs, so they nest; a stack of the structs opened so far
    (minus those already closed) holds exactly the ones around the current offset.
    """

    def __init__(self, structs):
        self.structs = sorted(structs, key=lambda s: s["open"])
        self.next = 0
        self.stack = []

    def at(self, pos):
        """The innermost struct with open < pos < close, or None (pos must not decrease)."""
        while self.next < len(self.structs) and self.structs[self.next]["open"] < pos:
            s = self.structs[self.next]
            self.next += 1
            while self.stack and self.stack[-1]["close"] < s["open"]:
                self.stack.pop()
            self.stack.append(s)
        while self.stack and self.stack[-1]["close"] <= pos:
            self.stack.pop()
        return self.stack[-1] if self.stack else None


def _buffer_entry(src, enclosing, name, layout, start_pos, end_pos, via=None):
    """One buffer record with its enclosing struct."""
    stmt_start, stmt_end = src.statement(start_pos)
    struct = enclosing.at(start_pos)
    entry = {
        "name": name,
        "operand": operand_from_name(name),
        "layout": layout,
        "line": src.line(start_pos),
        "struct": struct["name"] if struct else None,
        "text": src.snippet(stmt_start, stmt_end),
    }
    if via:
        entry["via_alias"] = via
    return entry


# ----------------------------------------------------------------------------------------------
# Step 5: ops inside functions
# ----------------------------------------------------------------------------------------------


def _receiver_before(code, dot_pos):
    """Read the receiver expression that ends just before dot_pos (identifiers, . -> ::)."""
    i = dot_pos - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    end = i + 1
    while i >= 0:
        j = i
        while j >= 0 and _is_ident_char(code[j]):
            j -= 1
        if j == i:
            break
        i = j
        k = i
        while k >= 0 and code[k].isspace():
            k -= 1
        if k >= 1 and code[k] == "." and not code[k - 1] == ".":
            i = k - 1
        elif k >= 1 and code[k - 1:k + 1] in ("->", "::"):
            i = k - 2
        else:
            break
        while i >= 0 and code[i].isspace():
            i -= 1
    start = i + 1
    while start < end and code[start].isspace():
        start += 1
    return start, " ".join(code[start:end].split()).replace(" .", ".").replace(". ", ".")


# A declaration `[typename] [ns::]Type [const] [&|*] name` followed by , ) = ; { ( [ -- the type is
# checked against the pipeline aliases afterwards (one pattern for any number of aliases; an
# alternation of thousands of names would cost thousands of tries per character). The start
# may not follow `:` either, so a long a::b::c chain is tried from its first name only.
RE_TYPED_NAME = re.compile(rf"""
    (?<![\w.>:]) (?:typename\s+)? (?:{_IDENT}\s*::\s*)*   # optional qualification
    (?P<alias>{_IDENT}) \b                                 # the type (a pipeline alias?)
    (?:\s+const)? (?:\s*[&*]+\s*|\s+)                      # & / * / blank
    (?P<name>{_IDENT}) \s* (?=[,)=;{{(\[])                  # the declared name
""", re.VERBOSE)


def typed_names(code, start, end, aliases):
    """Yield (alias, name) for declarations in code[start:end] whose type is one of aliases."""
    if not aliases:
        return
    for m in RE_TYPED_NAME.finditer(code, start, end):
        if m.group("alias") in aliases:
            yield m.group("alias"), m.group("name")


class FunctionContext:
    """Names visible in one function: pipeline-typed params/locals, lambdas, load helpers."""

    def __init__(self, src, fn, pipelines):
        self.src, self.fn = src, fn
        self.aliases = {p["alias"]: p for p in pipelines}
        self.names = {}          # variable -> [pipeline alias, ...]
        self.lambdas = {}        # name -> {"params": [...], "ops": [(op, param_index)], "open", "close"}
        self.helpers = {}        # var -> {"operand", "pipeline", "tma"}
        self._collect()

    def _collect(self):
        code, fn = self.src.code, self.fn
        pstart, pend = fn["params"]
        body_end = fn["close"]
        for span_start, span_end in ((pstart, pend), (fn["open"], body_end)):
            for alias, name in typed_names(code, span_start, span_end, self.aliases):
                self.names.setdefault(name, [alias])
        for m in RE_AUTO_LOCAL.finditer(code, fn["open"], body_end):
            refs = [n for n in RE_IDENT.findall(m.group("init")) if n in self.names]
            if refs and m.group("name") not in self.names:
                seen = []
                for r in refs:
                    for a in self.names[r]:
                        if a not in seen:
                            seen.append(a)
                self.names[m.group("name")] = seen
        for m in RE_LOAD_HELPER.finditer(code, fn["open"], body_end):
            tma = " ".join(m.group("tma").split())
            om = RE_TMA_OPERAND.search(tma.replace(" ", ""))
            self.helpers[m.group("var")] = {
                "operand": om.group("operand") if om else None,
                "pipeline": m.group("pipe"),
                "tma": tma,
                "line": self.src.line(m.start()),
            }
        for m in RE_LAMBDA.finditer(code, fn["open"], body_end):
            paren = m.end() - 1
            pclose = self.src.brackets.close_of(paren)
            if pclose is None:
                continue
            params = []
            for s, e in split_top_level(code, paren + 1, pclose):
                words = RE_IDENT.findall(code, s, e)
                if words:
                    params.append(words[-1])
            brace = code.find("{", pclose)
            if brace < 0 or code[pclose + 1:brace].strip(" \n\tmutablenoexcept->:&*<>,") != "":
                continue
            bclose = self.src.brackets.close_of(brace)
            if bclose is None:
                continue
            ops = []
            for om in RE_PIPE_OP.finditer(code, brace, bclose):
                _, recv = _receiver_before(code, om.start())
                if recv in params:
                    ops.append((om.group("op"), params.index(recv)))
            if ops:
                self.lambdas[m.group("name")] = {"params": params, "ops": ops,
                                                 "open": brace, "close": bclose,
                                                 "line": self.src.line(m.start())}

    def resolve(self, receiver):
        """Pipeline alias for a receiver expression, or (None, []) when unknown."""
        last = re.split(r"\.|->", receiver)[-1].strip()
        if last in self.names:
            cands = self.names[last]
            return cands[0], cands
        if last in self.helpers:
            return self.resolve(self.helpers[last]["pipeline"])
        # By name: pipeline_k -> the alias ending in K (MainloopPipelineK), pipeline -> sole alias.
        suffix = re.sub(r"^(?:mainloop_)?pipeline_?", "", last, flags=re.I)
        if suffix and suffix != last:
            matches = [a for a in self.aliases if a.lower().endswith(suffix.lower())
                       and not a.lower().endswith("new" + suffix.lower())]
            exact = [a for a in matches if a.lower().endswith("pipeline" + suffix.lower())]
            pick = exact or matches
            if len(pick) == 1:
                return pick[0], pick
        if last.lower() in ("pipeline", "mainloop_pipeline") and len(self.aliases) == 1:
            alias = next(iter(self.aliases))
            return alias, [alias]
        return None, []


def find_ops(src, fn, pipelines, buffers):
    """All ops in one function body, in source order."""
    code = src.code
    ctx = FunctionContext(src, fn, pipelines)
    wrappers = _SpanUnion((lam["open"], lam["close"]) for lam in ctx.lambdas.values())
    ops = []

    def add(kind, pos, receiver, call_open=None, **extra):
        end_hint = close = None
        if call_open is not None:
            close = src.brackets.close_of(call_open)
            end_hint = close + 1 if close is not None else None
        start, end = src.statement(pos, end_hint)
        alias, cands = extra.pop("resolved", (None, []))
        op = {
            "op": kind, "line": src.line(pos), "end_line": src.line(max(pos, end - 1)),
            "receiver": receiver, "pipeline": alias, "buffer": None, "operand": None,
            "text": src.snippet(start, end), "_pos": pos,
            "_args": (call_open + 1, close) if close is not None else None,
        }
        if len(cands) > 1:
            op["pipeline_candidates"] = cands
        op.update(extra)
        ops.append(op)
        return op

    lo, hi = fn["open"], fn["close"]
    for m in RE_PIPE_OP.finditer(code, lo, hi):
        if wrappers.contains(m.start()):
            continue
        rstart, recv = _receiver_before(code, m.start())
        if not recv:
            continue
        resolved = ctx.resolve(recv)
        add(m.group("op"), rstart, recv, m.end() - 1, resolved=resolved)
        if resolved[0] is None:
            src.warn(rstart, f"{m.group('op')}: receiver '{recv}' not resolved to a pipeline alias")

    # Variables holding a pipeline's producer barrier: BarrierType* tma_barrier = pipeline.producer_get_barrier(...)
    barrier_vars = {}
    for op in ops:
        if op["op"] == "producer_get_barrier":
            am = RE_ASSIGNED_NAME.match(op["text"])
            if am:
                barrier_vars[am.group("name")] = (op["pipeline"], op.get("pipeline_candidates", [op["pipeline"]]))

    # Calls through local wrapper lambdas: consumer_wait(pipeline_k, smem_pipe_read)
    # One scan for calls of any name (a pattern per lambda would rescan the body per lambda).
    for m in RE_NAMED_CALL.finditer(code, lo, hi) if ctx.lambdas else ():
        name = m.group("name")
        lam = ctx.lambdas.get(name)
        if lam is None:
            continue
        if lam["open"] <= m.start() <= lam["close"]:
            continue
        paren = m.end() - 1
        close = src.brackets.close_of(paren)
        if close is None:
            continue
        want = max(idx for _, idx in lam["ops"]) + 1
        args = [" ".join(code[s:min(e, s + MAX_ARG_CHARS)].split())
                for s, e in split_top_level(code, paren + 1, close, src.brackets, want)]
        for kind, idx in lam["ops"]:
            recv = args[idx] if idx < len(args) else ""
            resolved = ctx.resolve(recv)
            add(kind, m.start(), recv, paren, resolved=resolved,
                via={"lambda": name, "line": lam["line"]})

    # Loads: TMA copies (X.with(...)) and cp.async tiled copies (gmem_tiled_copy_x)
    acquires = _Acquires(ops)
    for m in RE_COPY_CALL.finditer(code, lo, hi):
        paren = m.end() - 1
        close = src.brackets.close_of(paren)
        if close is None:
            continue
        spans = split_top_level(code, paren + 1, close, src.brackets, 1)
        first_start, first_end = spans[0]
        tm = RE_TMA_WITH.match(code, first_start, first_end)
        if tm:
            recv = " ".join(tm.group("recv").split())
            recv_compact = re.sub(r"\s+", "", recv)
            om = RE_TMA_OPERAND.search(recv_compact)
            operand = om.group("operand") if om else None
            # The barrier named inside .with(...) tells the pipeline: either a direct
            # *pipeline_k.producer_get_barrier(...), or a variable assigned from one
            # (tma_barrier), or a standalone barrier (FA3's barrier_Q: no pipeline at all).
            with_open = tm.end() - 1
            with_close = src.brackets.close_of(with_open) or first_end
            barrier = None
            bm = RE_PIPE_OP.search(code, with_open, with_close)
            if bm:
                _, brecv = _receiver_before(code, bm.start())
                resolved = ctx.resolve(brecv)
            else:
                first_arg = split_top_level(code, with_open + 1, with_close, src.brackets, 1)[0]
                names = RE_BARRIER_NAME.findall(code, first_arg[0], first_arg[1])
                if names and names[-1] in barrier_vars:
                    resolved = barrier_vars[names[-1]]
                elif names:
                    resolved, barrier = (None, []), names[-1]
                else:
                    resolved = acquires.before(m.start())
            extra = {"barrier": barrier} if barrier else {}
            add("tma_load", m.start(), recv, paren, resolved=resolved,
                operand=_norm_operand(operand), buffer=_buffer_for(operand, buffers), **extra)
            continue
        gm = RE_GMEM_COPY.fullmatch(code, first_start, first_end)
        if gm:
            operand = gm.group("operand")
            add("cp_async", m.start(), " ".join(gm.group("recv").split()), paren,
                resolved=acquires.before(m.start()), operand=_norm_operand(operand),
                buffer=_buffer_for(operand, buffers))

    # Load helper objects: load_k.step(...) where load_k was built from params.tma_load_k
    for m in RE_MEMBER_CALL.finditer(code, lo, hi) if ctx.helpers else ():
        var = m.group("var")
        helper = ctx.helpers.get(var)
        if helper is None or m.group("method") in HELPER_SETUP_METHODS:
            continue
        resolved = ctx.resolve(helper["pipeline"])
        add("tma_load", m.start(), f"{var}.{m.group('method')}", m.end() - 1, resolved=resolved,
            operand=_norm_operand(helper["operand"]), buffer=_buffer_for(helper["operand"], buffers),
            via={"helper": var, "tma": helper["tma"], "line": helper["line"]})

    # MMAs: gemm(tiled_mma..., ...)
    for m in RE_GEMM_CALL.finditer(code, lo, hi):
        pos = m.end()
        if m.group("targs"):
            end = scan_angle(code, m.start("targs"))
            if end is None:
                continue
            pos = end
        while pos < hi and code[pos].isspace():
            pos += 1
        if pos >= hi or code[pos] != "(":
            continue
        close = src.brackets.close_of(pos)
        if close is None:
            continue
        first_span = split_top_level(code, pos + 1, close, src.brackets, 1)[0]
        first = " ".join(code[first_span[0]:min(first_span[1], first_span[0] + MAX_ARG_CHARS)].split())
        if "mma" not in first.lower():
            continue
        add("mma", m.start(), first, pos)

    for m in RE_SOFTMAX_WORD.finditer(code, lo, hi):
        start, end = m.start(), m.end()
        if start > lo and (_is_ident_char(code[start - 1]) or code[start - 1] in ".>"):
            continue   # not the start of an identifier (or a member: x.softmax): skip
        while end < hi and _is_ident_char(code[end]):
            end += 1
        tail = RE_MEMBER_CALL_TAIL.match(code, end, hi)
        if tail:
            add("softmax", start, f"{code[start:end]}.{tail.group('call')}", tail.end() - 1)

    for m in RE_ORDER_OP.finditer(code, lo, hi):
        if m.group("fn"):
            kind = "order_wait" if m.group("fcall") == "sync" else "order_arrive"
            recv = m.group("fn")
        else:
            kind = "order_wait" if m.group("call") == "wait" else "order_arrive"
            recv = m.group("recv")
        add(kind, m.start(), recv, m.end() - 1)

    for m in RE_BARRIER_OP.finditer(code, lo, hi):
        rstart, recv = _receiver_before(code, m.start("dot"))
        kind = "barrier_wait" if m.group("call") in ("wait", "try_wait") else "barrier_arrive"
        add(kind, rstart, recv, m.end() - 1, barrier=f"barrier_{m.group('name')}")

    ops.sort(key=lambda o: (o["_pos"], o["op"]))
    _pair_mmas_with_waits(code, ops)
    for op in ops:
        del op["_pos"], op["_args"]
    return ops


WAIT_OPS = ("consumer_wait", "consumer_try_wait")


def _pair_mmas_with_waits(code, ops):
    """Give each MMA the pipeline and line of the consumer wait whose stage it reads.

    That is the nearest preceding wait (same function) whose call arguments share a name with
    the MMA's (the pipeline state: FA3's backward waits on pipeline_q with smem_pipe_read and
    on pipeline_do with smem_pipe_read_do_cur, then runs MMAs on both stages), else the nearest
    preceding wait.
    """
    waits = []   # (wait op, names in its arguments other than its receiver), in source order
    for op in ops:
        if op["op"] in WAIT_OPS:
            waits.append((op, _arg_names(code, op) - {op["receiver"]}))
        elif op["op"] == "mma" and waits:
            names = _arg_names(code, op)
            waited = next((w for w, state in reversed(waits) if state & names), waits[-1][0])
            if waited["pipeline"]:
                op["pipeline"] = waited["pipeline"]
                op["wait_line"] = waited["line"]


def _arg_names(code, op):
    """Identifiers in the first MAX_ARG_CHARS characters of an op's call arguments."""
    if op["_args"] is None:
        return set()
    start, end = op["_args"]
    return set(RE_IDENT.findall(code, start, min(end, start + MAX_ARG_CHARS)))


# Methods of a load helper object that prepare rather than load.
HELPER_SETUP_METHODS = frozenset({"init_state", "init_g", "get_slice", "partition_S", "partition_D"})


def _norm_operand(operand):
    """a -> A, K -> K, V_new -> V_new, vt -> Vt."""
    if not operand:
        return None
    return operand[:1].upper() + operand[1:]


def _buffer_for(operand, buffers):
    """The buffer whose operand matches (case-insensitively; V_new falls back to V)."""
    if not operand:
        return None
    want = operand.lower()
    for cand in (want, want.split("_")[0]):
        for b in buffers:
            if b["operand"].lower() == cand:
                return b["name"]
    return None


class _Acquires:
    """The nearest preceding producer_acquire (or producer_get_barrier) of an offset, by bisection."""

    KINDS = ("producer_acquire", "producer_get_barrier")

    def __init__(self, ops):
        found = sorted((op["_pos"], i, op) for i, op in enumerate(ops) if op["op"] in self.KINDS)
        self.positions = [p for p, _, _ in found]
        self.ops = [op for _, _, op in found]

    def before(self, pos):
        """(alias, candidates) of the pipeline acquired last before pos, else (None, [])."""
        k = bisect.bisect_left(self.positions, pos) - 1
        if k < 0:
            return None, []
        while k > 0 and self.positions[k - 1] == self.positions[k]:
            k -= 1   # among ops at one offset the first listed wins
        best = self.ops[k]
        if best["pipeline"]:
            return best["pipeline"], best.get("pipeline_candidates", [best["pipeline"]])
        return None, []


class _SpanUnion:
    """Offsets strictly inside any of a set of (open, close) spans, by bisection over their union."""

    def __init__(self, spans):
        self.starts, self.ends = [], []
        for a, b in sorted(spans):
            if self.ends and a < self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], b)
            else:
                self.starts.append(a)
                self.ends.append(b)

    def contains(self, pos):
        """True when a < pos < b for some span (a, b)."""
        k = bisect.bisect_left(self.starts, pos) - 1
        return k >= 0 and pos < self.ends[k]


PRODUCER_ROLE_OPS = frozenset({"producer_acquire", "producer_commit", "producer_tail",
                               "tma_load", "cp_async"})
CONSUMER_ROLE_OPS = frozenset({"consumer_wait", "consumer_try_wait", "consumer_release"})


def role_of(ops):
    """producer / consumer / both / other from the kinds of ops a function performs."""
    kinds = {o["op"] for o in ops}
    prod = bool(kinds & PRODUCER_ROLE_OPS)
    cons = bool(kinds & CONSUMER_ROLE_OPS)
    return "both" if prod and cons else "producer" if prod else "consumer" if cons else "other"


# ----------------------------------------------------------------------------------------------
# Kernel layer
# ----------------------------------------------------------------------------------------------


def parse_kernel_layer(src):
    """Warpgroup roles, counts, order barriers, schedule and collective calls of a kernel layer."""
    code = src.code
    out = {
        "source": {"path": src.display, "lines": src.lines.count},
        "schedule": "unknown", "schedule_line": None,
        "warpgroup_roles": [], "warpgroup_roles_line": None,
        "producer_warp_roles": [], "producer_warp_roles_line": None,
        "num_load_warpgroups": None, "num_load_warpgroups_line": None,
        "num_mma_warpgroups": None, "num_mma_warpgroups_line": None,
        "order_barriers": [], "calls": [],
    }
    for m in RE_ROLE_ENUM.finditer(code):
        members = []
        for part in m.group("body").split(","):
            name = part.split("=")[0].strip()
            if re.fullmatch(_IDENT, name):
                members.append(name)
        key = "warpgroup_roles" if m.group("name") == "WarpGroupRole" else "producer_warp_roles"
        if not out[key]:
            out[key] = members
            out[key + "_line"] = src.line(m.start())
    for m in RE_WARPGROUP_COUNT.finditer(code):
        key = "num_load_warpgroups" if m.group("name") == "NumLoadWarpGroups" else "num_mma_warpgroups"
        if out[key + "_line"] is not None:
            continue
        stmt_start, stmt_end = src.statement(m.start(), m.end())
        if "constexpr" not in code[stmt_start:m.start()]:
            continue
        value = " ".join(code[m.end():max(m.end(), stmt_end - 1)].split())
        im = RE_INT_LITERAL.match(value)
        out[key] = int(im.group("value")) if im else value
        out[key + "_line"] = src.line(m.start())
    for m in RE_ORDER_BARRIER.finditer(code):
        alias = m.group("alias")
        if alias.endswith(("Storage", "Params")):
            continue
        cls = re.search(rf"({_IDENT})\s*(?:<|$)", m.group("rhs").strip())
        out["order_barriers"].append({"alias": alias, "class": cls.group(1) if cls else m.group("rhs").strip(),
                                      "line": src.line(m.start())})
    tags = [(m.group(), m.start()) for m in RE_KERNEL_TAG.finditer(code)]
    for tag, pos in tags:
        kind = "pingpong" if "Pingpong" in tag else "cooperative" if "Cooperative" in tag else None
        if kind:
            out["schedule"], out["schedule_line"], out["schedule_tag"] = kind, src.line(pos), tag
            break
    else:
        if tags:
            out["schedule"], out["schedule_line"], out["schedule_tag"] = "basic", src.line(tags[0][1]), tags[0][0]
    for m in RE_KERNEL_CALL.finditer(code):
        paren = m.end() - 1
        close = src.brackets.close_of(paren)
        start, end = src.statement(m.start(), close + 1 if close is not None else None)
        out["calls"].append({
            "call": m.group("call"), "receiver": m.group("recv"),
            "line": src.line(m.start()), "end_line": src.line(max(m.start(), end - 1)),
            "text": src.snippet(start, end),
        })
    return out


def looks_like_kernel_layer(src):
    """A kernel layer names the WarpGroupRole enum or calls collective_mainloop.mma/load."""
    return bool(RE_ROLE_ENUM.search(src.code)) or \
        bool(RE_MAINLOOP_CALL.search(src.code))


# ----------------------------------------------------------------------------------------------
# Whole file
# ----------------------------------------------------------------------------------------------


def arch_of(src, path):
    """sm90 / sm100 / ... from the file name, else from an ArchTag in the text."""
    m = RE_ARCH_NAME.search(Path(path).name)
    if m:
        return f"sm{m.group('num')}"
    m = RE_ARCH_TAG.search(src.code)
    if m:
        return f"sm{m.group('num') or m.group('num2')}"
    return "unknown"


def display_path(path):
    """Path relative to the CUTLASS (or FlashAttention) tree root when inside one, else as given."""
    p = Path(path)
    try:
        resolved = p.resolve()
    except OSError:
        return str(path)
    for parent in resolved.parents:
        if (parent / "include" / "cutlass").is_dir() or (parent / "hopper").is_dir() and \
                (parent / "csrc").is_dir():
            return resolved.relative_to(parent).as_posix()
    return str(path)


def parse_text(text, path="<text>", display=None, read_warnings=()):
    """Parse one source text into the JSON model (kind may be 'unknown'); never raises on text."""
    src = Source(text, path, display)
    src.warnings.extend(read_warnings)
    structs, fns = find_scopes(src)
    fns = _shallow_functions(src, fns)
    pipelines = find_pipelines(src)
    buffers = find_buffers(src, structs)
    functions = []
    alias_set = frozenset(p["alias"] for p in pipelines)
    for fn in fns:
        ops = find_ops(src, fn, pipelines, buffers)
        # Functions nested in another listed function (local structs) keep their own ops;
        # keep device functions and any function that performs pipeline ops.
        if not ops and not fn["device"]:
            continue
        params = {}
        for alias, name in typed_names(src.code, fn["params"][0], fn["params"][1], alias_set):
            params[name] = alias
        functions.append({
            "name": fn["name"], "role": role_of(ops), "line": fn["line"], "end_line": fn["end_line"],
            "device": fn["device"], "pipeline_params": params, "ops": ops,
        })
    # An op inside a nested function definition would be listed twice; keep the innermost.
    functions = _drop_outer_duplicates(functions)
    is_kernel_layer = looks_like_kernel_layer(src)
    has_ops = any(f["ops"] for f in functions)
    kind = "unknown"
    if is_kernel_layer:
        kind = "kernel_layer"
    elif has_ops or pipelines:
        kind = "mainloop"
    elif RE_DRIVER.search(src.code):
        kind = "driver"
    model = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "source": {"path": src.display, "lines": src.lines.count},
        "kind": kind,
        "arch": arch_of(src, path),
        "pipelines": pipelines,
        "buffers": buffers,
        "functions": functions,
        "kernel_layer": parse_kernel_layer(src) if is_kernel_layer else None,
        "warnings": src.warnings,
    }
    for p in pipelines:
        used = any(o["pipeline"] == p["alias"] or p["alias"] in o.get("pipeline_candidates", [])
                   for f in functions for o in f["ops"])
        p["used"] = used
    return model


def _drop_outer_duplicates(functions):
    """When a function's span contains another's, ops on the inner lines belong to the inner."""
    order = sorted(range(len(functions)), key=lambda j: functions[j]["line"])
    starts = [functions[j]["line"] for j in order]
    for f in functions:
        first, last = f["line"], f["end_line"]
        # Only functions starting inside this one can be inside it (bisection, not all pairs).
        inner = [(functions[j]["line"] - 1, functions[j]["end_line"] + 1)
                 for j in order[bisect.bisect_right(starts, first):bisect.bisect_right(starts, last)]
                 if functions[j]["end_line"] <= last]
        if inner:
            lines = _SpanUnion(inner)   # open spans (line-1, end+1): the lines line..end
            f["ops"] = [o for o in f["ops"] if not lines.contains(o["line"])]
            f["role"] = role_of(f["ops"])
    return functions


def _shallow_functions(src, fns):
    """The functions nested at most MAX_FUNCTION_NESTING deep in other functions (one warning
    for the rest): each body is scanned once per enclosing function, so depth bounds the work."""
    kept, stack, dropped = [], [], None
    for fn in fns:   # in order of their opening brace; bodies nest (they are bracket pairs)
        while stack and stack[-1] < fn["open"]:
            stack.pop()
        if len(stack) >= MAX_FUNCTION_NESTING:
            dropped = dropped or fn
            continue
        stack.append(fn["close"])
        kept.append(fn)
    if dropped is not None:
        src.warn(dropped["name_pos"], f"functions nested more than {MAX_FUNCTION_NESTING} deep "
                 "in other functions are not parsed")
    return kept


def has_pipeline_api(model):
    """True when the model holds any pipeline op or pipeline alias (the tool has something to show)."""
    return bool(model["pipelines"]) or any(f["ops"] for f in model["functions"])


# ----------------------------------------------------------------------------------------------
# Files, lookup, drivers
# ----------------------------------------------------------------------------------------------


def cutlass_roots():
    """Directories to look a header name up in: $CUTLASS_PATH, then an installed nvidia-cutlass."""
    roots = []
    env = os.environ.get("CUTLASS_PATH")
    if env:
        roots.append(Path(env))
    try:
        import importlib.util
        spec = importlib.util.find_spec("cutlass_library")
    except (ImportError, ValueError):
        spec = None
    if spec and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            roots.append(Path(loc) / "source")
    return [r for r in roots if r.is_dir()]


def locate(name):
    """Resolve a HEADER argument: an existing path, else a path or file name under the roots."""
    p = Path(name)
    if p.exists():
        return p
    roots = cutlass_roots()
    for root in roots:
        for cand in (root / name, root / "include" / name, root / "examples" / name):
            if cand.is_file():
                return cand
    hits = []
    if os.sep not in name and "/" not in name:
        for root in roots:
            for sub in ("include", "examples", "."):
                base = root / sub
                if not base.is_dir():
                    continue
                for dirpath, dirnames, filenames in os.walk(base):
                    dirnames.sort()
                    if name in filenames:
                        hits.append(Path(dirpath) / name)
                if hits:
                    break
            if hits:
                break
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise InputError(name, "ambiguous name; matches " + ", ".join(str(h) for h in hits[:5]))
    where = ", ".join(str(r) for r in roots) or "no $CUTLASS_PATH and no nvidia-cutlass installed"
    raise InputError(name, f"no such file (also looked under: {where})")


def driver_candidates(path):
    """Collective mainloop headers next to a driver: walk up to include/cutlass/gemm/collective."""
    p = Path(path).resolve()
    for parent in p.parents:
        coll = parent / "include" / "cutlass" / "gemm" / "collective"
        if coll.is_dir():
            return sorted(coll.glob("sm90_*warpspecialized*.hpp")) or sorted(coll.glob("sm*_*.hpp"))
    return []


KERNEL_LAYER_AS_MAINLOOP = ("is a kernel layer, not a collective mainloop: its ops are the kernel's "
                            "own; pass the mainloop header first and this one as --kernel-layer")


def parse_file(path, kernel_layer=None):
    """Parse a mainloop (or kernel-layer) file, optionally with a kernel layer; raise VizError."""
    path = Path(path)
    if path.suffix == ".py":   # CuTe DSL kernels: the ast front end (parse_dsl.py)
        sys.modules.setdefault("parse_cutlass", sys.modules[__name__])   # one VizError when run as a script
        import parse_dsl
        return parse_dsl.parse_file(path, kernel_layer)
    text, warns = read_source(path)
    model = parse_text(text, path, display_path(path), warns)
    if model["kind"] == "driver" or (not has_pipeline_api(model) and RE_DRIVER.search(text)):
        cands = driver_candidates(path)
        notes = [f"candidate mainloop: {display_path(c)}" for c in cands]
        where = "; candidates listed below" if cands else \
            "; no CUTLASS include tree found above it to list candidates"
        raise DriverFileError(path, "example driver: the pipeline API lives in the collective mainloop "
                              "the CollectiveBuilder resolves to (pass that header)" + where, notes=notes)
    if not has_pipeline_api(model) and model["kind"] != "kernel_layer":
        raise ParseError(path, f"no CUTLASS pipeline API found in {path}")
    if model["kind"] == "kernel_layer":
        model["warnings"].append(f"{display_path(path)}: {KERNEL_LAYER_AS_MAINLOOP}")
    if kernel_layer is not None:
        ktext, kwarns = read_source(kernel_layer)
        ksrc = Source(ktext, kernel_layer, display_path(kernel_layer))
        if not looks_like_kernel_layer(ksrc):
            raise ParseError(kernel_layer, "not a CUTLASS kernel layer (no WarpGroupRole enum or "
                             "collective_mainloop calls)")
        model["kernel_layer"] = parse_kernel_layer(ksrc)
        model["warnings"].extend(kwarns)
    return model


# ----------------------------------------------------------------------------------------------
# Scan
# ----------------------------------------------------------------------------------------------

SCAN_SUFFIXES = (".hpp", ".h", ".cuh", ".hxx", ".hh", ".py")
RE_SCAN_PREFILTER = re.compile(r"\b(?:producer_acquire|consumer_wait|consumer_release|"
                               r"producer_commit|Pipeline[A-Z]\w*\s*<)")


def scan(directory):
    """Yield one summary row per header under directory that uses the pipeline API."""
    base = Path(directory)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for fname in sorted(filenames):
            if not fname.endswith(SCAN_SUFFIXES):
                continue
            path = Path(dirpath) / fname
            try:
                text, warns = read_source(path)
            except InputError:
                continue
            if fname.endswith(".py"):   # CuTe DSL kernels: the ast front end (parse_dsl.py)
                sys.modules.setdefault("parse_cutlass", sys.modules[__name__])
                import parse_dsl
                model = parse_dsl.scan_model(text, path, path.relative_to(base).as_posix(), warns)
                if model is None:
                    continue
            # Cheap substring tests first: most headers never mention the pipeline API.
            elif ("producer_" not in text and "consumer_" not in text and "Pipeline" not in text) \
                    or not RE_SCAN_PREFILTER.search(text):
                continue
            else:
                model = parse_text(text, path, path.relative_to(base).as_posix(), warns)
            if not has_pipeline_api(model):
                continue
            classes = []
            for p in model["pipelines"]:
                for c in _as_list(p["class"]):
                    if c not in classes:
                        classes.append(c)
            fns = model["functions"]
            yield {
                "path": model["source"]["path"], "kind": model["kind"], "arch": model["arch"],
                "pipeline_classes": classes,
                "producers": sum(f["role"] in ("producer", "both") for f in fns),
                "consumers": sum(f["role"] in ("consumer", "both") for f in fns),
                "ops": sum(len(f["ops"]) for f in fns),
                "warnings": len(model["warnings"]),
            }


# ----------------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------------

EPILOG = """examples:
  %(prog)s sm90_mma_tma_gmma_ss_warpspecialized.hpp --pretty
  %(prog)s include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp \\
      --kernel-layer sm90_gemm_tma_warpspecialized_pingpong.hpp
  %(prog)s --scan $CUTLASS_PATH/include
  %(prog)s --scan $CUTLASS_PATH/include --json

A name that is not an existing path is looked up under $CUTLASS_PATH and the include tree of an
installed nvidia-cutlass package. Exit status: 0 ok, 2 usage or input error (one line on stderr).
"""


def build_arg_parser():
    """The parse_cutlass command line."""
    ap = argparse.ArgumentParser(
        prog="kernel-viz-parse",
        description="Parse a CUTLASS warp-specialized mainloop (and kernel layer) into JSON.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", metavar="FILE", help="collective mainloop or kernel-layer header")
    ap.add_argument("--kernel-layer", metavar="K", help="kernel-layer header (pingpong/cooperative/basic)")
    ap.add_argument("--pretty", action="store_true", help="indent the JSON")
    ap.add_argument("--scan", metavar="DIR", help="summarise every header under DIR that uses the pipeline API")
    ap.add_argument("--json", action="store_true", help="with --scan: JSON lines instead of a table")
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return ap


def dump_json(model, pretty=False):
    """Deterministic JSON text for the model."""
    if pretty:
        return json.dumps(model, indent=2, sort_keys=True)
    return json.dumps(model, sort_keys=True, separators=(",", ":"))


def report_error(err, stream=None):
    """Print a VizError as one line (plus indented notes) on stderr."""
    stream = stream or sys.stderr
    print(f"error: {err}", file=stream)
    for note in err.notes:
        print(f"  note: {note}", file=stream)


def print_warnings(model, stream=None):
    """Warnings go to stderr, one per line, pyflakes style."""
    stream = stream or sys.stderr
    for w in model.get("warnings", []):
        print(f"warning: {w}", file=stream)


def run_cli(body):
    """Run a CLI body; our errors become one stderr line and an exit status.

    VizError -> its message (and notes), 2; a closed pipe -> 0; Ctrl-C -> `error: interrupted`,
    130 (pagekit.write_atomic has already removed its temporary file). Other exceptions are bugs
    and keep their traceback.
    """
    try:
        return body()
    except VizError as err:
        report_error(err)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


def main(argv=None):
    """Entry point of kernel-viz-parse; returns the exit status."""
    ap = build_arg_parser()
    args = ap.parse_args(argv)
    return run_cli(lambda: _main(ap, args))


def _main(ap, args):
    """The kernel-viz-parse command once its arguments are parsed."""
    if args.scan:
        if args.file:
            ap.error("give either FILE or --scan DIR, not both")
        if not Path(args.scan).is_dir():
            raise InputError(args.scan, "not a directory")
        rows = 0
        for row in scan(args.scan):
            rows += 1
            if args.json:
                print(json.dumps(row, sort_keys=True))
            else:
                print(f"{row['path']}\t{row['kind']}\t{','.join(row['pipeline_classes']) or '-'}\t"
                      f"producers={row['producers']}\tconsumers={row['consumers']}\t"
                      f"ops={row['ops']}\twarnings={row['warnings']}")
        if not args.json:
            print(f"{rows} headers use the pipeline API", file=sys.stderr)
        return 0
    if not args.file:
        ap.error("FILE or --scan DIR is required")
    path = locate(args.file)
    klayer = locate(args.kernel_layer) if args.kernel_layer else None
    model = parse_file(path, klayer)
    print_warnings(model)
    sys.stdout.write(dump_json(model, args.pretty) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
