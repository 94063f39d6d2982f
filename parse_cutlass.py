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
import contextlib
import functools
import itertools
import json
import operator
import os
import re
import sys
from array import array
from pathlib import Path

import parse_core
import parse_mbarrier
import parse_tile
import programs_cpp
# The shared core (parse_core.py), re-exported: viz.py, the tests and the scripts import these
# from the CLI's module.
from parse_core import (  # noqa: F401
    BINARY_SNIFF_BYTES, CONSUMER_OPS, CONSUMER_ROLE_OPS, MAX_FILE_BYTES, MAX_TEXT_CHARS,
    PIPELINE_MEMBER_OPS, PRODUCER_OPS, PRODUCER_ROLE_OPS, RE_ARCH_NAME, SCAN_SUFFIXES,
    SCHEMA_VERSION, TOOL_NAME, DriverFileError, InputError, ParseError, VizError, __version__,
    as_list, default_jobs, display_path, operand_name, parse_file, read_source, role_of, scan,
    scan_file, scan_row)

STATEMENT_SCAN_LIMIT = 4000         # chars scanned around an op for its statement (keeps it linear)
MAX_FUNCTION_NESTING = 3            # functions inside functions inside ... deeper are not parsed

# ----------------------------------------------------------------------------------------------
# Step 2-3: blanking, line and bracket indexes (step 1, read_source, is parse_core's)
# ----------------------------------------------------------------------------------------------


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
# A member type naming a pipeline (CollectiveMainloop::MainloopPipeline, ::LoadPipeline); not a
# class whose name merely contains the word (threadblock::MmaPipelined, EpiloguePipelined).
RE_QUALIFIED_PIPELINE = re.compile(r"\w*Pipeline(?:[A-Z0-9_]\w*)?")

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

# Pipeline member calls (parse_core.PRODUCER_OPS / CONSUMER_OPS): recv.producer_acquire( ... ).
# The receiver is read backwards.
RE_PIPE_OP = re.compile(rf"""
    (?P<dot>\.|->) \s* (?:template \s+)?        # member access
    (?P<op>{"|".join(PRODUCER_OPS + CONSUMER_OPS)}) \b
    \s* (?P<targs><[^<>;{{}}()]*>)? \s* \(       # optional simple template args, then the call
""", re.VERBOSE)

# copy( / cute::copy( / copy_if( : TMA loads and cp.async loads are told apart by the first argument.
RE_COPY_CALL = re.compile(r"""
    (?<![\w.>]) (?:cute\s*::\s*)? (?P<fn>copy|copy_if) \s* \(
""", re.VERBOSE)

# First argument of a TMA copy: X.with(...) or X->with(...)  (X: mainloop_params.tma_load_a,
# params.tma_load_K, observed_tma_load_a_ (a pointer), tma_atom)
RE_TMA_WITH = re.compile(rf"""
    \s* (?P<recv>{_IDENT}(?:\s*(?:\.|->)\s*{_IDENT})*) \s* (?:\.|->) \s* with \s* \(
""", re.VERBOSE)

# The operand named by a TMA copy object: tma_load_a -> a, tma_load_K -> K, tma_load_V_new -> V_new
RE_TMA_OPERAND = re.compile(r"tma_load_?(?P<operand>[A-Za-z]\w*)$")
# A cp.async tiled copy: gmem_tiled_copy_a / GmemTiledCopyA
# (SM100's cp.async collectives: gmem_to_smem_a_tiled_copy)
RE_GMEM_COPY = re.compile(rf"""\s* (?P<recv>(?:{_IDENT}\s*(?:\.|->)\s*)*
    (?: (?:gmem_tiled_copy|gmem_copy)_?(?P<operand>[A-Za-z]\w*)
      | gmem_to_smem_(?P<operand2>[A-Za-z][A-Za-z0-9]*)_tiled_copy ) ) \s*$""", re.VERBOSE)
# A CuTe partition name: t<part><g|s|r|t><operand> (tAgA: global A; tSFAsSFA: shared SFA)
RE_PARTITION = re.compile(r"\bt(?P<part>[A-Z][A-Za-z0-9]{0,8}?)(?P<space>[gs])(?P<operand>[A-Z][A-Za-z0-9_]*)\b")
# A copy whose destination is a global-memory partition (CuTe naming: tDgC) is a store, not a load.
RE_GLOBAL_PARTITION = re.compile(r"\s*t[A-Z]+g[A-Z]\w*")
# A copy out of a shared-memory partition (tOsO) or into a register one (tOrO) reads smem into
# registers (FA3's epilogue_fwd.hpp `cute::copy(gmem_tiled_copy_O, tOsO, tOrO)`): no load into a stage.
RE_SHARED_PARTITION = re.compile(r"\s*t[A-Z]+s[A-Z]\w*")
RE_REGISTER_PARTITION = re.compile(r"\s*t[A-Z]+r[A-Z]\w*")

# Barrier-ish identifiers inside .with(...): *tma_barrier, shared_storage.pipelines.barrier_Q
RE_BARRIER_NAME = re.compile(r"\b(\w*(?:barrier|mbar)\w*)\b")
# `Type* name = ...` at the start of a statement text

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
        self.cp_async_warned = False

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
        choice = _conditional_choice(rhs)
        if choice is not None:
            entry["choice"] = choice
        count = _stage_count_alias(code, entry["stages"])
        if count is not None:
            entry["stage_count"] = count   # `Stages::value` of `using Stages = StageCount<StageCount>;`
        plain = re.sub(r"^\s*typename\s+", "", rhs).strip()
        if plain in by_alias:
            entry["alias_of"] = plain   # `using MainloopPipelineKVNew = PipelineTmaAsync;` (FA3 mainloop 288)
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


# `using StagesQ = cutlass::gemm::collective::StageCount<StageCountQ>;` (88 FMHA collective 78;
# gemm/collective/collective_builder_decl.hpp `struct StageCount { static constexpr int value = S; }`):
# a pipeline written `PipelineTmaAsync<StagesQ::value>` (119) has StageCountQ stages.
RE_STAGE_COUNT_ALIAS = re.compile(rf"""
    \busing \s+ (?P<alias>{_IDENT}) \s* = \s*           # using StagesQ =
    (?:typename \s+)? (?:{_IDENT} \s* :: \s*)* StageCount \s* < \s*   # [ns::]StageCount<
    (?P<count>{_IDENT} | \d+) \s* > \s* ;              # StageCountQ>;
""", re.VERBOSE)


def _stage_count_alias(code, stages):
    """The count a stage text `X::value` names through `using X = StageCount<N>;`, else None."""
    m = re.fullmatch(rf"\s*(?P<alias>{_IDENT})\s*::\s*value\s*", stages or "")
    if m is None:
        return None
    for u in RE_STAGE_COUNT_ALIAS.finditer(code):
        if u.group("alias") == m.group("alias"):
            return u.group("count")
    return None


# `using PipelineStateOuter = typename cutlass::PipelineState<MainloopPipelineOuter::Stages>;`
# (88 FMHA kernel 121-125): a state type of the kernel layer named for its pipeline alias.
RE_STATE_ALIAS = re.compile(rf"""
    \busing \s+ (?P<alias>{_IDENT}) \s* = \s*                        # using PipelineStateOuter =
    (?:typename \s+)? (?:cutlass \s* :: \s*)? PipelineState \s* < \s*  # typename cutlass::PipelineState<
    (?:typename \s+)? (?P<pipeline>{_IDENT}) \s* :: \s* Stages \s* > \s* ;   # MainloopPipelineOuter::Stages>;
""", re.VERBOSE)


# `using MainloopPipelineTMAState = typename MainloopPipelineTMA::PipelineState;` (SM100 mixed
# TMA / cp.async collective 158, 161): a collective's state type of one of its pipelines; and the
# kernel layer's `using MainloopPipelineTMAState = typename CollectiveMainloop::MainloopPipelineTMAState;`
# (kernel 195, 197) that takes it (_collective_state_aliases).
RE_PIPELINE_STATE_USING = re.compile(rf"""
    \busing \s+ (?P<alias>{_IDENT}) \s* = \s* (?:typename \s+)?   # using MainloopPipelineTMAState = typename
    (?P<pipeline>{_IDENT}) \s* :: \s* PipelineState \s* ;        # MainloopPipelineTMA::PipelineState;
""", re.VERBOSE)
RE_COLLECTIVE_STATE_USING = re.compile(rf"""
    \busing \s+ (?P<alias>{_IDENT}) \s* = \s* (?:typename \s+)?   # using MainloopPipelineTMAState = typename
    CollectiveMainloop \s* :: \s* (?P<name>{_IDENT}) \s* ;         # CollectiveMainloop::MainloopPipelineTMAState;
""", re.VERBOSE)


def _collective_state_aliases(csrc, ksrc, kernel_layer):
    """Add to kernel_layer["state_aliases"] each kernel-layer state type taken from the collective
    (`using A = typename CollectiveMainloop::B;` with the collective's `using B = typename
    P::PipelineState;`): {alias A, pipeline P, line}. An alias whose name already gives its
    pipeline (`MainloopPipelineState` of `MainloopPipeline`: the interpreter's name rule,
    `pipelineOfStateType`) is left to that rule, so those parses stay as they were."""
    states = {m.group("alias"): m.group("pipeline") for m in RE_PIPELINE_STATE_USING.finditer(csrc.code)}
    have = {a["alias"] for a in kernel_layer.get("state_aliases", [])}
    for m in RE_COLLECTIVE_STATE_USING.finditer(ksrc.code):
        alias, pipeline = m.group("alias"), states.get(m.group("name"))
        if pipeline is None or alias in have or re.sub(r"(Pipeline)State$", r"\1", alias) == pipeline:
            continue
        kernel_layer.setdefault("state_aliases", []).append({"alias": alias, "pipeline": pipeline, "line": ksrc.line(m.start())})
        have.add(alias)


RE_CONDITIONAL_T = re.compile(r"^\s*(?:typename\s+)?(?:std::)?conditional_t\s*<")
RE_LAST_CLASS = re.compile(rf"({_IDENT})\s*(?:<|$)")


def _conditional_choice(rhs):
    """`std::conditional_t<C, A, B>` (FA3 mainloop 283-286): {"cond": C as an expression tree,
    "then": A's class or alias name, "else": B's}, which sim/interpret.js resolves; else None."""
    m = RE_CONDITIONAL_T.match(rhs)
    text = rhs.strip()
    if m is None or not text.endswith(">"):
        return None
    parts = programs_cpp.split_top(text[text.index("<") + 1:-1], ",", angles=True)
    if len(parts) != 3:
        return None
    names = []
    for part in parts[1:]:
        head = re.sub(r"^\s*typename\s+", "", part).strip()
        head = head[:head.index("<")] if "<" in head else head
        found = RE_LAST_CLASS.search(head.split("::")[-1])
        names.append(found.group(1) if found else head)
    return {"cond": programs_cpp.parse_expr(parts[0].strip()), "then": names[0], "else": names[1]}


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
        return list(as_list(entry["class"])), entry["stages"]
    if len(parts) >= 2 and RE_QUALIFIED_PIPELINE.fullmatch(last) and not RE_NOT_PIPELINE.search(last):
        return ["::".join(parts[-2:])], None
    return [], None


def operand_from_name(name):
    """smem_A -> A, smem_q -> Q, smem_vt -> Vt, smem_k_new -> K_new, smem_dO -> dO
    (parse_core.operand_name after the smem_ / s / shared prefix)."""
    base = re.sub(r"^(?:smem|s|shared)_?", "", name) or name
    return operand_name(base)


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
    for alias, name, _ in typed_decls(code, start, end, aliases):
        yield alias, name


def typed_decls(code, start, end, aliases):
    """Yield (alias, name, offset of name) for declarations in code[start:end] typed by an alias."""
    if not aliases:
        return
    pattern = _typed_decl_pattern(frozenset(aliases))
    for m in pattern.finditer(code, start, end):
        a = m.start("alias")
        if a > 0 and (_is_ident_char(code[a - 1]) or code[a - 1] == "."):
            continue   # the tail of a longer name, or a member
        if m.group("alias") in aliases and m.group("name") not in CPP_KEYWORDS:
            yield m.group("alias"), m.group("name"), m.start("name")


MAX_ALIAS_ALTERNATION = 64


@functools.lru_cache(maxsize=64)
def _typed_decl_pattern(aliases):
    """A declaration pattern that starts with one of a file's (few) alias names, so the regex
    engine looks for those literals instead of trying at every identifier; many aliases (a
    generated or hostile file) fall back to RE_TYPED_NAME, which checks the alias afterwards."""
    if len(aliases) > MAX_ALIAS_ALTERNATION:
        return RE_TYPED_NAME
    names = "|".join(sorted(map(re.escape, aliases), key=lambda a: (-len(a), a)))
    return re.compile(rf"(?P<alias>{names})\b(?:\s+const)?(?:\s*[&*]+\s*|\s+)"
                      rf"(?P<name>{_IDENT})\s*(?=[,)=;{{(\[])")


CPP_KEYWORDS = frozenset({"const", "return", "operator", "typename", "template", "auto", "struct",
                          "class", "void", "int", "bool", "if", "else", "for", "while", "new"})

# `[cute::|std::]tuple<A, B, ...> name` : a tuple of pipelines (SM100 mma(tuple<...> pipelines)).
RE_TUPLE_TYPE = re.compile(r"tuple(?<![\w.>]tuple)\s*<")
RE_DECLARED_AFTER_TYPE = re.compile(rf"\s*(?:const\s*)?[&*]*\s*(?:const\s+)?(?P<name>{_IDENT})\s*(?=[,)=;{{(\[])")
# auto [a, b] = pipelines;   (structured binding of a tuple of pipelines)
RE_STRUCTURED_BINDING = re.compile(rf"""
    auto(?<!\wauto) \s* [&*]* \s* \[ (?P<names>[^\[\];{{}}()]*) \] \s* = \s* (?P<src>{_IDENT}) \s* ;
""", re.VERBOSE)
# auto pipeline_ab = get<0>(pipelines);
RE_GET_ELEMENT = re.compile(rf"""
    auto(?<!\wauto) \s* [&*]* \s* (?P<name>{_IDENT}) \s* = \s* (?:(?:cute|std)\s*::\s*)?
    get \s* < \s* (?P<index>\d+) \s* > \s* \( \s* (?P<src>{_IDENT}) \s* \) \s* ;
""", re.VERBOSE)
# A barrier variable assigned from a pipeline: `[Type*] tma_barrier = pipeline.producer_get_barrier(...)`
RE_BARRIER_ASSIGN = re.compile(rf"(?<![\w.>])(?P<name>{_IDENT})\s*=\s*$")
# An assignment `[Type] name = rhs` (for the stage a value was read from: read_stage = smem_pipe_read.index())
RE_ASSIGNMENT = re.compile(rf"(?<![\w.>])(?P<name>{_IDENT})\s*=(?!=)(?P<rhs>[^;{{}}=]{{0,400}})")
# Identifiers that are not member names (x.index() yields x only)
RE_PLAIN_IDENT = re.compile(rf"(?<![\w.])(?<!->)(?<!::){_IDENT}")
# A name used as a value: not a member (x.y), not a receiver (x.f(), x->f())
RE_VALUE_REF = re.compile(rf"(?<![\w.])(?<!->)(?<!::)({_IDENT})\b(?!\s*(?:\.|->|::|\())")


def _last_name(receiver):
    """The last member name of a receiver expression: params.pipeline_q -> pipeline_q."""
    return receiver.replace("->", ".").rsplit(".", 1)[-1].strip()


def _norm_name(name):
    """mainloop_pipeline / MainloopPipeline -> mainlooppipeline (name matching)."""
    return name.replace("_", "").lower()


class FunctionContext:
    """Names visible in one function: pipeline objects (params, locals, tuple elements, members),
    named lambdas and load helpers."""

    def __init__(self, src, fn, aliases, members):
        self.src, self.fn = src, fn
        self.aliases = aliases            # alias -> pipeline entry
        self.members = members            # name -> object (file-level members)
        self.names = {}                   # name -> {"aliases": [...], "kind", "pos"}
        self.tuples = {}                  # name -> [alias | None, ...]
        self.lambdas = {}                 # pos -> {"name", "params", "open", "close", "line", "pos"}
        self.lambda_defs = {}             # name -> [pos, ...] (rising)
        self.helpers = {}                 # var -> {"operand", "pipeline", "tma", "line"}
        self.named_barriers = _collect_named_barriers(src, fn["open"], fn["close"])
        self._memo = {}
        self._collect()
        self.lambda_spans = sorted((lam["open"], lam["close"]) for lam in self.lambdas.values())
        self.lambda_opens = [a for a, _ in self.lambda_spans]

    def _declare(self, name, aliases, kind, pos):
        if name not in self.names and aliases:
            self.names[name] = {"aliases": list(aliases), "kind": kind, "pos": pos}

    def _collect(self):
        code, fn, src = self.src.code, self.fn, self.src
        pstart, pend = fn["params"]
        body_lo, body_end = fn["open"], fn["close"]
        # pend + 1: the `)` closing the list lets the last parameter's name be seen as one
        for (lo, hi), kind in (((pstart, pend + 1), "parameter"), ((body_lo, body_end), "local")):
            for alias, name, pos in typed_decls(code, lo, hi, self.aliases):
                self._declare(name, [alias], kind, pos)
            for m in RE_TUPLE_TYPE.finditer(code, lo, hi):
                close = scan_angle(code, m.end() - 1)
                if close is None or close > hi:
                    continue
                elems = []
                for s, e in split_top_level(code, m.end(), close - 1):
                    tm = RE_TYPE_HEAD.match(code, s, e)
                    last = tm.group("name").split("::")[-1].strip() if tm else ""
                    elems.append(last if last in self.aliases else None)
                dm = RE_DECLARED_AFTER_TYPE.match(code, close, hi)
                if dm and any(elems):
                    self.tuples[dm.group("name")] = elems
        for m in RE_STRUCTURED_BINDING.finditer(code, body_lo, body_end):
            elems = self.tuples.get(m.group("src"))
            names = [n.strip() for n in m.group("names").split(",")]
            for i, name in enumerate(names):
                if not re.fullmatch(_IDENT, name):
                    continue
                alias = elems[i] if elems and i < len(elems) else self._by_name(name)[0]
                if alias:
                    self._declare(name, [alias], "tuple", m.start("names") + m.group("names").find(name))
        for m in RE_GET_ELEMENT.finditer(code, body_lo, body_end):
            elems = self.tuples.get(m.group("src"))
            i = int(m.group("index"))
            alias = elems[i] if elems and i < len(elems) else None
            if elems is not None:
                alias = alias or self._by_name(m.group("name"))[0]
                if alias:
                    self._declare(m.group("name"), [alias], "tuple", m.start("name"))
        for m in RE_AUTO_LOCAL.finditer(code, body_lo, body_end):
            # A pipeline passed along (conditional_return(pipeline_v, pipeline_vt)), not the
            # result of a call on it (auto token = pipeline.producer_try_acquire(...)).
            refs = [n for n in RE_VALUE_REF.findall(m.group("init")) if n in self.names]
            if refs and m.group("name") not in self.names:
                seen = []
                for r in refs:
                    for a in self.names[r]["aliases"]:
                        if a not in seen:
                            seen.append(a)
                self._declare(m.group("name"), seen, "local", m.start("name"))
        for m in RE_LOAD_HELPER.finditer(code, body_lo, body_end):
            tma = " ".join(m.group("tma").split())
            om = RE_TMA_OPERAND.search(tma.replace(" ", "").rstrip("_"))
            self.helpers[m.group("var")] = {
                "operand": om.group("operand") if om else None,
                "pipeline": m.group("pipe"),
                "tma": tma,
                "line": src.line(m.start()),
                "type": m.group("type"),
            }
        for m in RE_LAMBDA.finditer(code, body_lo, body_end):
            paren = m.end() - 1
            pclose = src.brackets.close_of(paren)
            if pclose is None:
                continue
            params = []
            for s, e in split_top_level(code, paren + 1, pclose):
                words = RE_IDENT.findall(code, s, e)
                if words:
                    params.append(words[-1])
            brace = code.find("{", pclose, min(len(code), pclose + 400))
            head = code[pclose + 1:brace] if brace >= 0 else ""
            if brace < 0 or RE_LAMBDA_TAIL.fullmatch(head) is None:
                continue
            bclose = src.brackets.close_of(brace)
            if bclose is None or bclose > body_end:
                continue
            # Keyed by position: one name may be defined again in another block.
            self.lambdas[m.start()] = {"name": m.group("name"), "params": params, "open": brace,
                                       "close": bclose, "line": src.line(m.start()), "pos": m.start()}
            self.lambda_defs.setdefault(m.group("name"), []).append(m.start())

    def _by_name(self, last):
        """(alias, candidates) by name: mainloop_pipeline <-> MainloopPipeline, pipeline_k -> ...K."""
        norm = _norm_name(last)
        exact = [a for a in self.aliases if _norm_name(a) == norm]
        if len(exact) == 1:
            return exact[0], exact
        suffix = re.sub(r"^(?:mainloop_)?pipeline_?", "", last, flags=re.I)
        if suffix and suffix != last:
            matches = [a for a in self.aliases if a.lower().endswith(suffix.lower())
                       and not a.lower().endswith("new" + suffix.lower())]
            exact = [a for a in matches if a.lower().endswith("pipeline" + suffix.lower())]
            pick = exact or matches
            if len(pick) == 1:
                return pick[0], pick
        real = [a for a, p in self.aliases.items()]
        if last.lower() in ("pipeline", "mainloop_pipeline") and len(real) == 1:
            return real[0], real
        return None, []

    def resolve(self, receiver):
        """Resolution of a receiver: {"alias", "cands", "object", "kind"} (alias None when unknown)."""
        res = self._memo.get(receiver)
        if res is None:
            res = self._memo[receiver] = self._resolve(receiver)
        return res

    def _resolve(self, receiver):
        """resolve() without the memo."""
        last = _last_name(receiver).lstrip("*&").strip()
        if last in self.names:
            decl = self.names[last]
            return _resolved(decl["aliases"], last, decl["kind"], decl["pos"])
        if last in self.helpers:
            return self.resolve(self.helpers[last]["pipeline"])
        if last in self.members:
            mem = self.members[last]
            return _resolved([mem["alias"]], last, "member", mem["pos"])
        alias, cands = self._by_name(last)
        if alias:
            return _resolved(cands, last, "named", None)
        return UNRESOLVED


UNRESOLVED = {"alias": None, "cands": [], "object": None, "kind": None, "pos": None}


def _resolved(cands, name, kind, pos):
    """A resolution record for an object of one or more candidate aliases."""
    return {"alias": cands[0], "cands": list(cands), "object": name, "kind": kind, "pos": pos}


RE_LAMBDA_TAIL = re.compile(r"[\s\w&*<>,:()\-]*")


class _OpScanner:
    """Finds the ops of one span (a function body or a lambda body), skipping nested named
    lambda bodies; ops on a lambda's parameter are left for its call sites to resolve."""

    def __init__(self, src, ctx, buffers, unit):
        self.src, self.ctx, self.buffers, self.unit = src, ctx, buffers, unit
        self.code = src.code

    def op(self, kind, pos, receiver, call_open=None, res=None, **extra):
        """One op record (private fields start with `_`)."""
        src = self.src
        end_hint = close = None
        if call_open is not None:
            close = src.brackets.close_of(call_open)
            end_hint = close + 1 if close is not None else None
        start, end = src.statement(pos, end_hint)
        res = res or UNRESOLVED
        op = {
            "op": kind, "line": src.line(pos), "end_line": src.line(max(pos, end - 1)),
            "receiver": receiver, "pipeline": res["alias"], "buffer": None, "operand": None,
            "text": src.snippet(start, end), "_pos": pos, "_key": (pos,),
            "_args": [(call_open + 1, close)] if close is not None else [],
            "_res": res,
        }
        if len(res["cands"]) > 1:
            op["pipeline_candidates"] = res["cands"]
        op.update(extra)
        return op

    def scan(self, lo, hi, params=()):
        """Ops in code[lo:hi] outside nested lambda bodies, in source order: each recogniser of
        OP_RECOGNIZERS in turn adds the ops of its construct."""
        span = _Span(self, lo, hi, params)
        for _construct, recognise in OP_RECOGNIZERS:
            recognise(span)
        span.ops.sort(key=lambda o: (o["_pos"], o["op"]))
        return span.ops


class _Span:
    """One scan of code[lo:hi]: what the recognisers read (the source, the function's context,
    the lambda parameters) and what they add to (ops, and the acquires and barrier assignments
    the pipeline-call recogniser finds for the copy recogniser after it)."""

    def __init__(self, scanner, lo, hi, params):
        self.scanner, self.src, self.ctx, self.code = scanner, scanner.src, scanner.ctx, scanner.code
        self.buffers, self.unit = scanner.buffers, scanner.unit
        self.lo, self.hi, self.params = lo, hi, params
        opens = self.ctx.lambda_opens
        self.skip = _SpanUnion(self.ctx.lambda_spans[bisect.bisect_right(opens, lo):bisect.bisect_left(opens, hi)])
        self.ops = []
        self.barrier_assigns = []   # (pos, name, res): nearest preceding assignment wins
        self.barrier_pos = []
        self.acquires = []          # (pos, res) of ACQUIRE_OPS
        self.acquire_pos = []

    def add(self, kind, pos, receiver, call_open=None, res=None, **extra):
        """Append an op unless pos lies in a nested lambda body; return it (or None)."""
        if self.skip.contains(pos):
            return None
        o = self.scanner.op(kind, pos, receiver, call_open, res, **extra)
        self.ops.append(o)
        return o

    def resolve(self, recv):
        """A receiver's pipeline; a lambda parameter is left for its call sites (`param`)."""
        last = _last_name(recv)
        if last in self.params:
            return dict(UNRESOLVED, param=self.params.index(last))
        return self.ctx.resolve(recv)

    def has(self, word):
        """A recogniser runs only when its literal occurs in the span (a C-speed find)."""
        return self.code.find(word, self.lo, self.hi) >= 0


def _nearest(positions, records, pos, name=None):
    """The last record before pos (with that name when given), or None."""
    k = bisect.bisect_left(positions, pos) - 1
    while k >= 0:
        rec = records[k]
        if name is None or rec[1] == name:
            return rec
        k -= 1
    return None


def _scan_pipeline_calls(span):
    """recv.producer_acquire(...) and the other pipeline member calls; records the acquires and
    `auto* b = pipeline.producer_get_barrier(...)` assignments that later TMA copies use."""
    code, lo, hi = span.code, span.lo, span.hi
    for m in RE_PIPE_OP.finditer(code, lo, hi) if span.has("producer_") or span.has("consumer_") else ():
        rstart, recv = _receiver_before(code, m.start())
        if not recv:
            continue
        res = span.resolve(recv)
        o = span.add(m.group("op"), rstart, recv, m.end() - 1, res)
        if o is not None and m.group("op") == "producer_get_barrier":
            am = RE_BARRIER_ASSIGN.search(code, max(lo, rstart - 200), rstart)
            if am:
                span.barrier_assigns.append((rstart, am.group("name"), res))
    span.barrier_pos = [p for p, _, _ in span.barrier_assigns]
    span.acquires = [(o["_pos"], o["_res"]) for o in span.ops if o["op"] in ACQUIRE_OPS]
    span.acquire_pos = [p for p, _ in span.acquires]


class _CopyCall:
    """One copy(...) call: the match, its parentheses and its first argument (span and text)."""

    def __init__(self, m, paren, close, first_start, first_end, first):
        self.m, self.paren, self.close = m, paren, close
        self.first_start, self.first_end, self.first = first_start, first_end, first


def _scan_copies(span):
    """copy(...) calls, each classified by the first of COPY_RECOGNIZERS that claims it."""
    code, src = span.code, span.src
    for m in RE_COPY_CALL.finditer(code, span.lo, span.hi) if span.has("copy") else ():
        paren = m.end() - 1
        close = src.brackets.close_of(paren)
        if close is None or span.skip.contains(m.start()):
            continue
        first_start, first_end = split_top_level(code, paren + 1, close, src.brackets, 1)[0]
        first = " ".join(code[first_start:min(first_end, first_start + MAX_ARG_CHARS)].split())
        call = _CopyCall(m, paren, close, first_start, first_end, first)
        for _construct, recognise in COPY_RECOGNIZERS:
            if recognise(span, call):
                break


def _copy_tma(span, call):
    """copy(X.with(barrier...), ...): a TMA load (or a TMA store, by X's name)."""
    code, src, m, paren = span.code, span.src, call.m, call.paren
    tm = RE_TMA_WITH.match(code, call.first_start, call.first_end)
    if not tm:
        return False
    recv = " ".join(tm.group("recv").split())
    compact = re.sub(r"\s+", "", recv).rstrip("_")
    if RE_TMA_STORE_NAME.search(compact):
        om = RE_TMA_STORE_NAME.search(compact)
        span.add("tma_store", m.start(), recv, paren, operand=operand_name(om.group("operand")),
                 buffer=_buffer_for(om.group("operand"), span.buffers))
        return True
    om = RE_TMA_OPERAND.search(compact)
    operand = om.group("operand") if om else None
    with_open = tm.end() - 1
    with_close = src.brackets.close_of(with_open) or call.first_end
    barrier = None
    bm = RE_PIPE_OP.search(code, with_open, with_close)
    if bm:
        _, brecv = _receiver_before(code, bm.start())
        res = span.resolve(brecv)
    else:
        first_arg = split_top_level(code, with_open + 1, with_close, src.brackets, 1)[0]
        names = RE_BARRIER_NAME.findall(code, first_arg[0], first_arg[1])
        assign = _nearest(span.barrier_pos, span.barrier_assigns, m.start(), names[-1]) if names else None
        if assign:
            res = assign[2]
        elif names:
            res, barrier = UNRESOLVED, names[-1]
        else:
            rec = _nearest(span.acquire_pos, span.acquires, m.start())
            res = rec[1] if rec else UNRESOLVED
    extra = {"barrier": barrier} if barrier else {}
    span.add("tma_load", m.start(), recv, paren, res, operand=operand_name(operand),
             buffer=_buffer_for(operand, span.buffers), **extra)
    return True


def _copy_static_atom(span, call):
    """SM90_BULK_COPY_G2S::copy(gmem, mbar, smem, bytes) and the other static copies of a named
    atom (cute/arch/copy_sm90_tma.hpp:1439, 1474, 980): a load, a store or a reduction by the
    atom's name (RE_LOAD_ATOM / RE_STORE_ATOM / RE_REDUCE_ATOM). A load's barrier is the argument
    that names one (`tma_barrier`, `&full_barrier`), resolved as in _copy_tma. Inside a function
    named `copy` the call is an atom dispatching to another (cute's own SM90_TMA_LOAD::copy), not
    a kernel's copy, and is no op; so is one inside `copy_*` (the Copy_Traits' copy_unpack,
    cute/atom/copy_traits_sm90_tma.hpp:579)."""
    code, src, m = span.code, span.src, call.m
    atom = _call_qualifier(code, m.start())
    fname = span.ctx.fn["name"]
    if not atom or m.group("fn") != "copy" or fname == "copy" or fname.startswith("copy_"):
        return False
    if RE_REDUCE_ATOM.fullmatch(atom):
        span.add("bulk_reduce", m.start(), f"{atom}::copy", call.paren, atom=atom)
        return True
    if RE_STORE_ATOM.fullmatch(atom):
        span.add("tma_store", m.start(), f"{atom}::copy", call.paren, atom=atom)
        return True
    if not RE_LOAD_ATOM.fullmatch(atom):
        return False
    barrier, res = None, UNRESOLVED
    names = []
    for s, e in split_top_level(code, call.paren + 1, call.close, src.brackets):
        names.extend(RE_BARRIER_NAME.findall(code, s, min(e, s + MAX_ARG_CHARS)))
    assign = _nearest(span.barrier_pos, span.barrier_assigns, m.start(), names[-1]) if names else None
    if assign:
        res = assign[2]
    elif names:
        barrier = names[-1]
    else:
        rec = _nearest(span.acquire_pos, span.acquires, m.start())
        res = rec[1] if rec else UNRESOLVED
    extra = {"barrier": barrier} if barrier else {}
    span.add("tma_load", m.start(), f"{atom}::copy", call.paren, res, atom=atom, **extra)
    return True


def _copy_tma_atom_store(span, call):
    """copy(params.tma_red_dq, tDQsDQ(...), tDQgDQ(...)) (88_hopper_fmha's backward mainloop,
    fmha_collective_bwd_tma_warpspecialized.hpp:560) and cute::copy(tma_params.tma_O,
    thr_tma.partition_S(sOutputBuf), thr_tma.partition_D(my_tma_gO)) (FlashMLA's
    splitkv_mla.cuh:652): a TMA atom copied without `.with(barrier)` is never a load (a load
    must name its barrier), so it stores, or reduces when the atom's name says `red`, unless
    CuTe's partition names say global -> shared (then it is no store). The
    operand is the source partition's (tDQsDQ -> DQ), else the atom's name (tma_O -> O)."""
    am = RE_TMA_ATOM_ARG.fullmatch(call.first)
    if not am:
        return False
    code = span.code
    spans = split_top_level(code, call.paren + 1, call.close, span.src.brackets)
    if len(spans) < 3:
        return False
    pm = RE_PARTITION.search(code, spans[-2][0], min(spans[-2][1], spans[-2][0] + MAX_ARG_CHARS))
    dm = RE_PARTITION.search(code, spans[-1][0], min(spans[-1][1], spans[-1][0] + MAX_ARG_CHARS))
    if (pm and pm.group("space") == "g") or (dm and dm.group("space") == "s"):
        # gmem -> smem through a prepared atom (sm103_blockscaled_mma_array_warpspecialized.hpp:1054
        # `copy(tma_copy_traits_a, group_modes<0,2>(tAgA(...)), tAsA(_,write_stage))`): a load,
        # left to the partition-copy recogniser
        return False
    operand = pm.group("operand") if pm else am.group("operand")
    kind = "bulk_reduce" if am.group("red") else "tma_store"
    span.add(kind, call.m.start(), am.group("recv"), call.paren, operand=operand_name(operand),
             buffer=_buffer_for(operand, span.buffers))
    return True


def _copy_tma_store_arg(span, call):
    """copy(params.tma_store_d, ...): a TMA store named by its first argument."""
    sm = RE_TMA_STORE_ARG.fullmatch(call.first)
    if not sm:
        return False
    om = RE_TMA_STORE_NAME.search(sm.group("recv").replace(" ", "").rstrip("_"))
    span.add("tma_store", call.m.start(), sm.group("recv"), call.paren,
             operand=operand_name(om.group("operand")) if om else None,
             buffer=_buffer_for(om.group("operand") if om else None, span.buffers))
    return True


def _copy_bulk_reduce(span, call):
    """copy(SM90_BULK_REDUCE_ADD..., ...): a bulk reduction."""
    if not RE_BULK_REDUCE.search(call.first):
        return False
    span.add("bulk_reduce", call.m.start(), call.first, call.paren)
    return True


def _copy_tmem_load(span, call):
    """copy(tiled_t2r, ...): a TMEM load (SM100)."""
    if not RE_TMEM_LOAD_COPY.fullmatch(call.first):
        return False
    span.add("tmem_load", call.m.start(), call.first, call.paren)
    return True


def _copy_gmem(span, call):
    """copy(gmem_tiled_copy_a, tAgA, tAsA): cp.async into a stage (stores and reads skipped)."""
    code, src, m, paren = span.code, span.src, call.m, call.paren
    gm = RE_GMEM_COPY.fullmatch(code, call.first_start, call.first_end)
    if not gm:
        return False
    spans = split_top_level(code, paren + 1, call.close, src.brackets)
    if len(spans) >= 3 and RE_GLOBAL_PARTITION.match(code, *spans[-1]):
        return True   # smem -> gmem: a store, never labelled cp_async
    if len(spans) >= 3 and (RE_SHARED_PARTITION.match(code, *spans[-2]) or RE_REGISTER_PARTITION.match(code, *spans[-1])):
        return True   # smem -> registers: a read of the stage, not a copy into it
    operand = gm.group("operand") or gm.group("operand2")
    rec = _nearest(span.acquire_pos, span.acquires, m.start())
    span.add("cp_async", m.start(), " ".join(gm.group("recv").split()), paren,
             rec[1] if rec else UNRESOLVED, operand=operand_name(operand),
             buffer=_buffer_for(operand, span.buffers))
    return True


def _copy_partition(span, call):
    """Any other tiled copy from a global partition into a shared one (CuTe naming:
    tSFAgSFA -> tSFAsSFA, the SM100 scale-factor loads) after a producer acquire."""
    code, m = span.code, call.m
    rec = _nearest(span.acquire_pos, span.acquires, m.start())
    if rec is None:
        return False
    spans = split_top_level(code, call.paren + 1, call.close, span.src.brackets)
    if len(spans) >= 3:
        g = RE_PARTITION.search(code, spans[-2][0], min(spans[-2][1], spans[-2][0] + MAX_ARG_CHARS))
        d = RE_PARTITION.search(code, spans[-1][0], min(spans[-1][1], spans[-1][0] + MAX_ARG_CHARS))
        if g and d and g.group("space") == "g" and d.group("space") == "s":
            operand = d.group("operand")
            span.add("cp_async", m.start(), call.first, call.paren, rec[1], operand=operand_name(operand),
                     buffer=_buffer_for(operand, span.buffers))
    return True


# A raw cp.async call (cutlass/arch/memory_sm80.h: `cp_async<SizeInBytes, CacheOp>(smem_ptr,
# global_ptr, pred_guard)` and `cp_async_zfill<...>(...)`, the first argument the shared
# destination), e.g. 77 decode's Q (sm100_fmha_load_cpasync_warpspecialized.hpp 208-210:
# `cutlass::arch::cp_async_zfill<16, cutlass::arch::CacheOperation::Always>(dst_ptr, src_ptr,
# guard)`). cp_async_fence / cp_async_wait end in another word, so `\b` keeps them out; a member
# call (`x.cp_async(`) is not one. The template arguments are skipped by RAW_CP_ASYNC_TARGS.
RE_RAW_CP_ASYNC = re.compile(r"(?<![\w.>])cp_async(?:_zfill)?\b\s*(?=[<(])")
RAW_CP_ASYNC_TARGS = 200     # the longest template-argument text of a raw cp.async call read
MAX_DEF_HOPS = 4             # local definitions followed back from a raw cp.async's destination
# A local definition or assignment `name = ...` (not ==, not a member `x.name =`).
RE_LOCAL_DEF = re.compile(rf"(?<![\w.>])(?P<name>{_IDENT})\s*=(?!=)")
# Shared memory in a destination's definitions: a CuTe shared partition (tQsQ, RE_PARTITION with
# space `s`) or a shared-storage member (`shared_tensors.smem_lse`, `storage.smem_q`).
RE_SMEM_NAME = re.compile(r"\bsmem_(?P<operand>[A-Za-z][A-Za-z0-9]*)")


def _raw_cp_async_paren(code, pos, hi):
    """The offset of the `(` of a raw cp.async call whose name ends at pos (its `<...>` skipped
    by a depth count over <> and (), as `sizeof(int)` may sit inside), or None."""
    i = pos
    while i < hi and code[i].isspace():
        i += 1
    if i < hi and code[i] == "<":
        depth, stop = 0, min(hi, i + RAW_CP_ASYNC_TARGS)
        while i < stop:
            ch = code[i]
            depth += ch in "<("
            depth -= ch in ">)"
            i += 1
            if depth == 0:
                break
        else:
            return None
        while i < hi and code[i].isspace():
            i += 1
    return i if i < hi and code[i] == "(" else None


def _local_defs(span):
    """{name: [(pos, rhs_lo, rhs_hi)]} of the span's `name = ...` statements, in order (one pass)."""
    defs = {}
    for m in RE_LOCAL_DEF.finditer(span.code, span.lo, span.hi):
        end = span.src.statement(m.start())[1]
        defs.setdefault(m.group("name"), []).append((m.start(), m.end(), min(end, m.end() + MAX_ARG_CHARS)))
    return defs


def _dest_texts(span, defs, lo, hi, pos):
    """The destination's text code[lo:hi] and the right-hand sides of the local definitions it
    reads, followed back MAX_DEF_HOPS times (each the nearest definition before the reader)."""
    code, texts, seen = span.code, [], set()
    frontier = [(lo, hi, pos)]
    for _hop in range(MAX_DEF_HOPS + 1):
        nxt = []
        for a, b, at in frontier:
            texts.append(code[a:b])
            for name in dict.fromkeys(re.findall(_IDENT, code[a:b])):
                cands = [d for d in defs.get(name, ()) if d[0] < at]
                if cands and (name, cands[-1][0]) not in seen:
                    seen.add((name, cands[-1][0]))
                    nxt.append((cands[-1][1], cands[-1][2], cands[-1][0]))
        frontier = nxt
    return texts


def _scan_raw_cp_async(span):
    """cutlass::arch::cp_async_zfill<16, ...>(dst, src, guard) and cp_async<...>(...): a cp.async
    copy into the stage the role acquired when its destination is shared memory indexed by that
    acquire's state. The destination (first argument) is followed back through the span's local
    definitions (`Vec* dst_ptr = &dst(i);` <- `auto dst = recast<Vec>(tQsQ(_, _, _, _,
    state.index()));`, 77 decode load_cpasync 199, 205) until the texts read `S.index()`, S the
    first argument of the nearest preceding producer_acquire (`pipeline_q.producer_acquire(state)`,
    193), and name shared memory (RE_PARTITION `tQsQ`, RE_SMEM_NAME `smem_lse`). A call that does
    not is no op (the commit that follows then stops the role, named)."""
    if not span.has("cp_async") or not span.acquires:
        return
    code, src = span.code, span.src
    defs = None
    for m in RE_RAW_CP_ASYNC.finditer(code, span.lo, span.hi):
        rec = _nearest(span.acquire_pos, span.acquires, m.start())
        paren = _raw_cp_async_paren(code, m.end(), span.hi)
        close = src.brackets.close_of(paren) if paren is not None else None
        if rec is None or close is None:
            continue
        acq = next((o for o in span.ops if o["_pos"] == rec[0] and o["op"] in ACQUIRE_OPS and o["_args"]), None)
        if acq is None:
            continue
        state = code[acq["_args"][0][0]:acq["_args"][0][1]].split(",")[0].strip()
        if not re.fullmatch(_IDENT, state):
            continue
        first_lo, first_hi = split_top_level(code, paren + 1, close, src.brackets, 1)[0]
        defs = _local_defs(span) if defs is None else defs
        texts = _dest_texts(span, defs, first_lo, min(first_hi, first_lo + MAX_ARG_CHARS), m.start())
        reads_stage = re.compile(rf"\b{re.escape(state)}\s*\.\s*index\s*\(\s*\)")
        if not any(reads_stage.search(t) for t in texts):
            continue
        operand = None
        for t in texts:
            pm = next((p for p in RE_PARTITION.finditer(t) if p.group("space") == "s"), None)
            sm = RE_SMEM_NAME.search(t)
            if pm or sm:
                operand = pm.group("operand") if pm else sm.group("operand")
                break
        if operand is None:
            continue
        span.add("cp_async", m.start(), m.group(0).strip(), paren, rec[1], operand=operand_name(operand),
                 buffer=_buffer_for(operand, span.buffers))


def _scan_helper_loads(span):
    """helper.method(...) on a load helper (FA3's `load_Q = ...`): a TMA load through it."""
    ctx = span.ctx
    for m in RE_MEMBER_CALL.finditer(span.code, span.lo, span.hi) if ctx.helpers else ():
        var = m.group("var")
        helper = ctx.helpers.get(var)
        if helper is None or m.group("method") in HELPER_SETUP_METHODS:
            continue
        span.add("tma_load", m.start(), f"{var}.{m.group('method')}", m.end() - 1,
                 ctx.resolve(helper["pipeline"]), operand=operand_name(helper["operand"]),
                 buffer=_buffer_for(helper["operand"], span.buffers),
                 via={"helper": var, "tma": helper["tma"], "line": helper["line"]})


def _scan_gemms(span):
    """gemm(tiled_mma, ...) / cute::gemm<...>(mma, ...): an MMA when its first argument names one."""
    code, src, hi = span.code, span.src, span.hi
    for m in RE_GEMM_CALL.finditer(code, span.lo, hi) if span.has("gemm") else ():
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
        span.add("mma", m.start(), first, pos, unit=span.unit)


def _scan_softmax(span):
    """softmax.method(...) (any case, as a whole identifier): a softmax step."""
    code, lo, hi = span.code, span.lo, span.hi
    for m in RE_SOFTMAX_WORD.finditer(code, lo, hi):   # case-insensitive: no find() guard
        start, end = m.start(), m.end()
        if start > lo and (_is_ident_char(code[start - 1]) or code[start - 1] in ".>"):
            continue
        while end < hi and _is_ident_char(code[end]):
            end += 1
        tail = RE_MEMBER_CALL_TAIL.match(code, end, hi)
        if tail:
            span.add("softmax", start, f"{code[start:end]}.{tail.group('call')}", tail.end() - 1)


def _scan_order_ops(span):
    """Order barriers between consumer warpgroups: barrier.wait() / .arrive(), FA3's helpers."""
    for m in RE_ORDER_OP.finditer(span.code, span.lo, span.hi) if span.has("barrier") else ():
        if m.group("fn"):
            kind = "order_wait" if m.group("fcall") == "sync" else "order_arrive"
            recv = m.group("fn")
        else:
            kind = "order_wait" if m.group("call") == "wait" else "order_arrive"
            recv = m.group("recv")
        span.add(kind, m.start(), recv, m.end() - 1)


def _scan_barrier_ops(span):
    """Standalone barriers: recv.barrier_X.wait() / .arrive()."""
    for m in RE_BARRIER_OP.finditer(span.code, span.lo, span.hi) if span.has("barrier_") else ():
        rstart, recv = _receiver_before(span.code, m.start("dot"))
        kind = "barrier_wait" if m.group("call") in ("wait", "try_wait") else "barrier_arrive"
        span.add(kind, rstart, recv, m.end() - 1, barrier=f"barrier_{m.group('name')}")


def _scan_free_calls(span):
    """The free functions of FREE_CALL_RECOGNIZERS (fences, TMA-store groups, named barriers)."""
    code, src = span.code, span.src
    for kind, pattern, word in FREE_CALL_RECOGNIZERS:
        for m in pattern.finditer(code, span.lo, span.hi) if span.has(word) else ():
            paren = m.end() - 1
            extra = {}
            if kind == "named_barrier_sync":
                recv = "NamedBarrier::" + m.group("call")
            if m.groupdict().get("count") is not None:
                extra["count"] = _int_or_text(m.group("count"))
            op_kind = kind
            if kind in ("named_barrier_sync", "named_barrier_arrive"):
                op_kind = "named_barrier_arrive" if m.group("call") == "arrive" else "named_barrier_sync"
                close = src.brackets.close_of(paren)
                if close is not None:
                    args = split_top_level(code, paren + 1, close, src.brackets, 2)
                    texts = [" ".join(code[s:min(e, s + MAX_ARG_CHARS)].split()) for s, e in args]
                    if len(texts) >= 2:
                        extra["count"], extra["barrier_id"] = texts[0], texts[1]
                    elif texts and texts[0]:
                        extra["count"] = texts[0]
            else:
                recv = "".join(code[m.start():paren].split())
            span.add(op_kind, m.start(), recv, paren, **extra)


def _scan_sched_calls(span):
    """scheduler.fetch_next_work(...) / advance_to_next_work(...): the tile scheduler (CLC)."""
    code, src, ctx = span.code, span.src, span.ctx
    for m in RE_SCHED_CALL.finditer(code, span.lo, span.hi) if span.has("_next_work") else ():
        dot = _member_dot_before(code, m.start())
        if dot is None:
            continue
        rstart, recv = _receiver_before(code, dot)
        paren = m.end() - 1
        close = src.brackets.close_of(paren)
        res = UNRESOLVED
        if close is not None:
            for s, e in split_top_level(code, paren + 1, close, src.brackets):
                arg = " ".join(code[s:min(e, s + MAX_ARG_CHARS)].split())
                if re.fullmatch(_IDENT, arg) and arg in ctx.names:
                    res = ctx.resolve(arg)
                    break
        kind = "fetch_next_work" if m.group("call") == "fetch_next_work" else "clc_query"
        span.add(kind, rstart, f"{recv}.{m.group('call')}", paren, res)


def _scan_named_barrier_objects(span):
    """b.arrive() / b.sync() on a NamedBarrier object declared in the function."""
    ctx = span.ctx
    for m in RE_NAMED_BARRIER_OBJ_CALL.finditer(span.code, span.lo, span.hi) if ctx.named_barriers else ():
        decl = ctx.named_barriers.get(m.group("var"))
        if decl is None:
            continue
        kind = "named_barrier_arrive" if m.group("call") == "arrive" else "named_barrier_sync"
        span.add(kind, m.start(), f"{m.group('var')}.{m.group('call')}", m.end() - 1,
                 count=decl["count"], barrier_id=decl["barrier_id"])


# The recognisers of one span, in the order they run: (construct, function of a _Span). Each
# adds the ops of its construct; the order matters only in that pipeline calls come first (the
# copy recogniser reads their acquires and barrier assignments). Ops are sorted by position at
# the end, so a new construct is one function and one row here.
OP_RECOGNIZERS = (
    ("pipeline member calls", _scan_pipeline_calls),
    ("copy calls", _scan_copies),
    ("raw cp.async calls into an acquired stage", _scan_raw_cp_async),
    ("load-helper calls", _scan_helper_loads),
    ("gemm calls", _scan_gemms),
    ("softmax steps", _scan_softmax),
    ("order barriers", _scan_order_ops),
    ("standalone barriers", _scan_barrier_ops),
    ("free calls", _scan_free_calls),
    ("scheduler calls", _scan_sched_calls),
    ("named-barrier objects", _scan_named_barrier_objects),
    # Last: it gives a barrier to the copies and commits the rows above made ops of.
    ("raw mbarriers (parse_mbarrier.py)", parse_mbarrier.scan_span),
)

# What a copy(...) call is, tried in order until one claims it (returns True): (kind, function
# of a _Span and a _CopyCall). A call none claims is not an op.
COPY_RECOGNIZERS = (
    ("TMA load or store through .with(...)", _copy_tma),
    ("static copy of a named atom (ATOM::copy)", _copy_static_atom),
    ("TMA store named by its first argument", _copy_tma_store_arg),
    ("TMA store or reduction through an atom without .with(...)", _copy_tma_atom_store),
    ("bulk reduction", _copy_bulk_reduce),
    ("TMEM load", _copy_tmem_load),
    ("cp.async through a gmem tiled copy", _copy_gmem),
    ("gmem -> smem partition copy after an acquire", _copy_partition),
)


def _member_dot_before(code, pos):
    """Offset of the `.` or `->` just before pos (white space and `template` allowed), or None."""
    i = pos - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    if i >= 7 and code[i - 7:i + 1] == "template":
        i -= 8
        while i >= 0 and code[i].isspace():
            i -= 1
    if i >= 0 and code[i] == ".":
        return i
    if i >= 1 and code[i - 1:i + 1] == "->":
        return i - 1
    return None


def _int_or_text(text):
    """An int for a decimal literal, else the text with white space collapsed."""
    t = " ".join(text.split())
    return int(t) if t.isdigit() else t


ACQUIRE_OPS = ("producer_acquire", "producer_get_barrier", "producer_acquire_bytes")

# TMA stores: copy(params.tma_store_d, ...) ; the operand comes from the name (tma_store_d -> D)
RE_TMA_STORE_NAME = re.compile(r"tma_store_?(?P<operand>[A-Za-z]\w*)?$")
RE_TMA_STORE_ARG = re.compile(rf"(?P<recv>(?:{_IDENT}\s*(?:\.|->)\s*)*\w*tma_store\w*)")
# Bulk reductions: copy(SM90_BULK_REDUCE_ADD{}, ...) / a tiled copy named *bulk_reduce* / *tma_reduce*
RE_BULK_REDUCE = re.compile(r"BULK_REDUCE|bulk_reduce|tma_reduce", re.IGNORECASE)
# Static copies of a named atom (ATOM::copy(...)), by the atom's name: cute/arch/copy_sm90_tma.hpp's
# SM90_BULK_COPY_G2S / SM90_TMA_LOAD_2D (loads), SM90_BULK_COPY_S2G / SM90_TMA_STORE_2D (stores),
# SM90_BULK_REDUCE_ADD / SM90_TMA_REDUCE_ADD_2D (reductions); matched whole (fullmatch).
RE_LOAD_ATOM = re.compile(r"SM\d{2,3}\w*_(?:BULK_COPY_G2S|TMA_LOAD)\w*")
RE_STORE_ATOM = re.compile(r"SM\d{2,3}\w*_(?:BULK_COPY_S2G|TMA_STORE)\w*")
RE_REDUCE_ATOM = re.compile(r"SM\d{2,3}\w*_(?:BULK|TMA)_REDUCE\w*")
# A TMA atom as a copy's first argument, without .with(...): params.tma_red_dq, tma_params.tma_O
# (`red` / `reduce` after tma_: a reduction; a tma_load_* name is not a store and not matched;
# CuTe's tutorial 05_mma_tma_epi_sm100.cu:450 names its atom tma_atom_D: operand D).
RE_TMA_ATOM_ARG = re.compile(rf"""
    (?P<recv> (?:{_IDENT}\s*(?:\.|->)\s*)*
      (?P<name> tma_ (?!load) (?:atom_)? (?P<red>red(?:uce)?_)? (?P<operand>[A-Za-z]\w*?) ) ) _?
""", re.VERBOSE)
# TMEM -> register loads of the SM100 epilogue: copy(tiled_t2r, ...) / copy(tiled_tmem_load, ...)
RE_TMEM_LOAD_COPY = re.compile(rf"(?:{_IDENT}\s*(?:\.|->)\s*)*\w*(?:t2r|tmem_load)\w*")

# Free calls recognised by name: (op kind, pattern). `count` is a template argument (N). Each
# pattern starts with its literal name and checks the character before it with a look-behind
# placed after the name (`x(?<![\w.>]x)`): a leading look-behind would cost a try at every offset.
# A qualified call (cute::tma_store_arrive()) matches; a member call (.x(), ->x()) does not.
def _free_call(name, tail=r"\s*\("):
    """A pattern for a free call of `name` (not a member, not the tail of a longer name)."""
    return re.compile(rf"(?P<recv>{name})(?<![\w.>]{name}){tail}")


RE_TMA_STORE_ARRIVE = _free_call("tma_store_arrive")
RE_TMA_STORE_WAIT = _free_call("tma_store_wait", r"\s*<(?P<count>[^<>;{}()]*)>\s*\(")
RE_WARPGROUP_WAIT = _free_call("warpgroup_wait", r"\s*<(?P<count>[^<>;{}()]*)>\s*\(")
RE_WARPGROUP_ARRIVE = _free_call("warpgroup_arrive")
RE_UMMA_ARRIVE = _free_call("umma_arrive", r"\w*\s*\(")    # umma_arrive, umma_arrive_multicast_2x1SM, ...
RE_NAMED_BARRIER_CALL = _free_call("NamedBarrier", r"\s*::\s*(?P<call>sync|arrive_and_wait|arrive)\s*\(")
FREE_CALL_RECOGNIZERS = (   # (op kind, pattern, the literal the pattern needs)
    ("tma_store_arrive", RE_TMA_STORE_ARRIVE, "tma_store_arrive"),
    ("tma_store_wait", RE_TMA_STORE_WAIT, "tma_store_wait"),
    ("warpgroup_wait", RE_WARPGROUP_WAIT, "warpgroup_wait"),
    ("warpgroup_arrive", RE_WARPGROUP_ARRIVE, "warpgroup_arrive"),
    ("umma_arrive", RE_UMMA_ARRIVE, "umma_arrive"),
    ("named_barrier_sync", RE_NAMED_BARRIER_CALL, "NamedBarrier"),   # or _arrive, by the call
)
# scheduler.fetch_next_work(work, clc_pipeline, state) / scheduler.advance_to_next_work(clc_pipeline,
# state); the `.` / `->` before the name is checked by hand (see FREE_CALL_RECOGNIZERS).
RE_SCHED_CALL = re.compile(r"(?P<call>fetch_next_work|advance_to_next_work)(?![\w])\s*\(")
# arch::NamedBarrier name(count, id);  then name.arrive() / name.arrive_and_wait() / name.sync()
RE_NAMED_BARRIER_DECL = re.compile(rf"""
    NamedBarrier(?<![\w.>]NamedBarrier) \s+ (?P<var>{_IDENT}) \s* [({{]
""", re.VERBOSE)
RE_NAMED_BARRIER_OBJ_CALL = re.compile(rf"""
    (?<![\w.>]) (?P<var>{_IDENT}) \s* \. \s* (?P<call>arrive_and_wait|arrive|sync) \s* \(
""", re.VERBOSE)


def _collect_named_barriers(src, lo, hi):
    """NamedBarrier objects declared in code[lo:hi]: var -> {"count", "barrier_id"} texts."""
    out = {}
    code = src.code
    for m in RE_NAMED_BARRIER_DECL.finditer(code, lo, hi):
        open_pos = m.end() - 1
        close = src.brackets.close_of(open_pos)
        if close is None:
            continue
        texts = [" ".join(code[s:min(e, s + MAX_ARG_CHARS)].split())
                 for s, e in split_top_level(code, open_pos + 1, close, src.brackets, 2)]
        out[m.group("var")] = {"count": texts[0] if texts else "",
                               "barrier_id": texts[1] if len(texts) > 1 else ""}
    return out


MAX_EXPANSION_DEPTH = 3      # lambdas/helpers called from lambdas/helpers ... deeper are not expanded
MAX_EXPANDED_OPS = 50000     # ops that expansion may add to one file (keeps huge inputs linear)


def find_function_ops(src, fn, ctx, buffers, unit, budget):
    """The ops of one function: its own, and each named lambda's at every call site (with via).

    A call `name(...)` runs the nearest preceding definition of the lambda `name` (outside its
    own body); a call inside another lambda's body counts where that lambda is called. An
    uncalled lambda contributes nothing. budget (a one-item list) bounds the ops that expansion
    may add to the file, so nested call sites cannot multiply without limit.
    """
    scanner = _OpScanner(src, ctx, buffers, unit)
    code = src.code
    lam_ops = {key: scanner.scan(lam["open"], lam["close"], lam["params"])
               for key, lam in ctx.lambdas.items()}
    sites = []   # (call pos, lambda key, paren, close), rising
    if ctx.lambdas:
        for m in RE_NAMED_CALL.finditer(code, fn["open"], fn["close"]):
            defs = ctx.lambda_defs.get(m.group("name"))
            if not defs:
                continue
            k = bisect.bisect_left(defs, m.start()) - 1
            while k >= 0 and ctx.lambdas[defs[k]]["open"] <= m.start() <= ctx.lambdas[defs[k]]["close"]:
                k -= 1   # a call inside the lambda's own body is not a call of itself
            if k < 0:
                continue
            paren = m.end() - 1
            close = src.brackets.close_of(paren)
            if close is not None:
                sites.append((m.start(), defs[k], paren, close))
    site_pos = [s[0] for s in sites]
    inside = _SpanUnion((lam["open"], lam["close"]) for lam in ctx.lambdas.values())

    def expand(key, pos, paren, close, depth, outer_params=()):
        lam = ctx.lambdas[key]
        args = [" ".join(code[s:min(e, s + MAX_ARG_CHARS)].split())
                for s, e in split_top_level(code, paren + 1, close, src.brackets, len(lam["params"]) or None)]
        inner = []
        if depth < MAX_EXPANSION_DEPTH:
            lo_k = bisect.bisect_right(site_pos, lam["open"])
            hi_k = bisect.bisect_left(site_pos, lam["close"])
            for spos, skey, sparen, sclose in sites[lo_k:hi_k]:
                if skey != key and budget[0] > 0:
                    inner.extend(expand(skey, spos, sparen, sclose, depth + 1, lam["params"]))
        # Each parameter's name -> the identifiers of the argument the call passes for it.
        binds = {p: frozenset(RE_PLAIN_IDENT.findall(args[i])) if i < len(args) else frozenset()
                 for i, p in enumerate(lam["params"])}
        out = []
        for o in sorted(lam_ops[key] + inner, key=lambda x: x["_key"]):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            o = _copy_op(o)
            if "param" in o["_res"]:
                idx = o["_res"]["param"]
                recv = args[idx] if idx < len(args) else ""
                o["receiver"] = recv
                if recv in outer_params:   # passed on from the enclosing lambda's parameter
                    o["_res"] = dict(UNRESOLVED, param=outer_params.index(recv))
                else:
                    _set_res(o, ctx.resolve(recv))
            o["_key"] = (pos,) + o["_key"]
            # The call's arguments stand for the lambda's parameters: a name the body spells as a
            # parameter (smem_pipe_read in `pipeline.consumer_wait(smem_pipe_read, ...)`) is the
            # call site's argument instead (FA3 bwd: consumer_wait(pipeline_do, smem_pipe_read_do_cur)).
            o["_shadows"] = o.get("_shadows", ()) + ((len(o["_args"]), binds),)
            o["_args"] = o["_args"] + [(paren + 1, close)]
            o.setdefault("via", {"lambda": lam["name"], "line": src.line(pos)})
            out.append(o)
        return out

    ops = scanner.scan(fn["open"], fn["close"])
    # Each lambda's own ops (not yet placed at a call site): the lambda's program reads them
    # (programs_cpp.lambda_programs); the op inventory below is not changed by them.
    ctx.lambda_ops = lam_ops
    for pos, key, paren, close in sites:
        if inside.contains(pos):
            continue   # a call inside another lambda counts where that lambda is called
        if budget[0] <= 0:
            break
        ops.extend(expand(key, pos, paren, close, 0))
    ops.sort(key=lambda o: (o["_key"], o["op"]))
    return ops


def _copy_op(op):
    """A copy of an op record deep enough to change its resolution, key and via."""
    o = dict(op)
    if "via" in o:
        o["via"] = dict(o["via"])
    return o


def _set_res(op, res):
    """Give an op a new resolution (pipeline, candidates)."""
    op["_res"] = res
    op["pipeline"] = res["alias"]
    op.pop("pipeline_candidates", None)
    if len(res["cands"]) > 1:
        op["pipeline_candidates"] = res["cands"]


WAIT_OPS = ("consumer_wait", "consumer_try_wait")


class _Assignments:
    """Every `name = rhs` in the file, for the stage a value was read from (built on first use)."""

    def __init__(self, src):
        self.src = src
        self._by_name = None

    def names_before(self, name, lo, pos):
        """Plain identifiers of the nearest assignment to name in [lo, pos), or an empty set."""
        if self._by_name is None:
            self._by_name = {}
            for m in RE_ASSIGNMENT.finditer(self.src.code):
                self._by_name.setdefault(m.group("name"), []).append(
                    (m.start(), frozenset(RE_PLAIN_IDENT.findall(m.group("rhs")))))
        lst = self._by_name.get(name)
        if not lst:
            return frozenset()
        k = bisect.bisect_left(lst, (pos,)) - 1
        if k >= 0 and lst[k][0] >= lo:
            return lst[k][1]
        return frozenset()


MAX_DATAFLOW_NAMES = 64
MAX_WAIT_LOOKBACK = 64       # waits an MMA looks back over (keeps a file of a million waits linear)


def _pair_mmas_with_waits(src, ops, assignments, lo):
    """Give each MMA the pipeline(s) and line(s) of the consumer wait(s) whose stage it reads.

    The MMA's argument names are widened through the nearest preceding assignments (two steps:
    `tCrB(_,_,k_block,read_stage)` <- `read_stage = smem_pipe_read.index()`); a wait matches when
    its state argument is among them. Per pipeline object the nearest matching `consumer_wait`
    wins over a `consumer_try_wait` (that one peeks at the next stage). Several matched objects
    give `pipelines` / `wait_lines`; no match falls back to the nearest preceding wait.
    """
    code = src.code
    waits = []
    for op in ops:
        if op["op"] in WAIT_OPS:
            recv = set(RE_IDENT.findall(op["receiver"]))
            waits.append((op, _arg_names(code, op) - recv))
        elif op["op"] == "mma" and waits:
            names = set(_arg_names(code, op))
            frontier = set(names)
            for _ in range(2):
                grown = set()
                for n in frontier:
                    grown |= assignments.names_before(n, op.get("_lo", lo), op["_pos"])
                frontier = grown - names
                names |= grown
                if len(names) > MAX_DATAFLOW_NAMES or not frontier:
                    break
            chosen = {}   # identity -> wait op
            order = []
            for w, state in reversed(waits[-MAX_WAIT_LOOKBACK:]):
                if not (state & names) or not w["pipeline"]:
                    continue
                ident = w.get("object") or w["pipeline"]
                have = chosen.get(ident)
                if have is None:
                    chosen[ident] = w
                    order.append(ident)
                elif have["op"] != "consumer_wait" and w["op"] == "consumer_wait":
                    chosen[ident] = w
            if not chosen:
                waited = next((w for w, _ in reversed(waits) if w["op"] == "consumer_wait"), waits[-1][0])
                if waited["pipeline"]:
                    _take_wait(op, waited)
                continue
            picks = [chosen[i] for i in order]
            _take_wait(op, picks[0])
            if len(picks) > 1:
                picks.sort(key=lambda w: w["_key"])
                op["pipelines"] = [w["pipeline"] for w in picks]
                op["wait_lines"] = [w["line"] for w in picks]
                op["objects"] = [w.get("object") or w["pipeline"] for w in picks]


def _take_wait(op, waited):
    """An MMA reads the stage of this wait."""
    op["pipeline"] = waited["pipeline"]
    op["wait_line"] = waited["line"]
    op["_res"] = waited["_res"]
    if waited.get("pipeline_candidates"):
        op["pipeline_candidates"] = waited["pipeline_candidates"]


def _arg_names(code, op):
    """Plain identifiers in the first MAX_ARG_CHARS characters of an op's call arguments.

    Spans run from the op's own call outwards through the lambda calls that expanded it; at such
    a call site each of the lambda's parameter names gathered so far is replaced by the names of
    the argument the call passes for it (the call's other arguments are not the op's).
    """
    names = set()
    shadows = dict(op.get("_shadows", ()))
    for i, (start, end) in enumerate(op["_args"]):
        binds = shadows.get(i)
        if binds is None:
            names.update(RE_PLAIN_IDENT.findall(code, start, min(end, start + MAX_ARG_CHARS)))
            continue
        for param in names & binds.keys():
            names.discard(param)
            names |= binds[param]
    return names


# Methods of a load helper object that prepare rather than load.
HELPER_SETUP_METHODS = frozenset({"init_state", "init_g", "get_slice", "partition_S", "partition_D"})


def _buffer_for(operand, buffers):
    """The buffer whose operand matches (case-insensitively; V_new falls back to V)."""
    if not operand:
        return None
    want = operand.rstrip("_").lower()
    for cand in (want, want.split("_")[0]):
        for b in buffers:
            if b["operand"].lower() == cand:
                return b["name"]
    return None


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


# ----------------------------------------------------------------------------------------------
# Kernel layer
# ----------------------------------------------------------------------------------------------


def parse_kernel_layer(src, fns=None):
    """Warpgroup roles, counts, order barriers, schedule and collective calls of a kernel layer,
    and the program of its `operator()` with the variables its role branches test."""
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
    out["order_barriers"].extend(find_order_barriers(src))
    _sm100_facts(src, out)
    _kernel_program(src, fns, out)
    tags = [(m.group(), m.start()) for m in RE_KERNEL_TAG.finditer(code)]
    for tag, pos in tags:
        if out["schedule"] == "sm100":
            break
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


def find_order_barriers(src):
    """The file's order-barrier aliases (`using MathWarpGroupOrderBarrier = cutlass::
    OrderedSequenceBarrier<StagesPerMathWarpGroup, NumMmaWarpGroups>;`, pingpong kernel 155-156;
    77 FMHA mainloop `OrderBarrierSoftmax`): alias, class, line and the template `args` as
    expression trees."""
    out = []
    for m in RE_ORDER_BARRIER.finditer(src.code):
        alias = m.group("alias")
        if alias.endswith(("Storage", "Params")):
            continue
        cls = re.search(rf"({_IDENT})\s*(?:<|$)", m.group("rhs").strip())
        entry = {"alias": alias, "class": cls.group(1) if cls else m.group("rhs").strip(),
                 "line": src.line(m.start())}
        targs = m.group("rhs").strip()
        if cls and targs.endswith(">") and "<" in targs:
            inner = targs[targs.index("<") + 1:-1]
            entry["args"] = [programs_cpp.parse_expr(a) for a in programs_cpp.split_top_level_commas(inner)]
        out.append(entry)
    return out


# `static constexpr int NumMmaWarpGroups = 2;` (pingpong 132) and `static const int
# NumWarpsEpilogue = 1;` (77 FMHA kernel 76).
RE_INT_CONSTEXPR = re.compile(rf"\bstatic\s+(?:constexpr\s+(?:const\s+)?|const\s+)(?:u?int\w*|size_t|unsigned|int)\s+(?P<name>{_IDENT})\s*=\s*(?P<value>\d+)\s*[uU]?\s*;")
RE_ROLE_VAR = re.compile(rf"(?P<name>{_IDENT})\s*=\s*(?:[^;{{}}]{{0,200}}?\?\s*)?(?:static_cast\s*<\s*)?(?P<enum>WarpGroupRole|ProducerWarpRole|WarpCategory)\s*[>(]")
# A variable declared with a role enum's type, whatever its initializer: an immediately invoked
# lambda (`WarpCategory warp_category = [&] () CUTLASS_LAMBDA_FUNC_INLINE { ... }();`,
# sm100_gemm_tma_warpspecialized_mma_transform.hpp 412-425) or a `?:` over the enum's members
# (`WarpCategory warp_category = (...) ? WarpCategory::Epilogue : ...`, sm103_blockscaled_gemm_tma_warpspecialized.hpp 438).
# Only the SM100 kernels' WarpCategory: the SM90 layers' WarpGroupRole chosen by `?:` on the
# warpgroup index (sm90_gemm_warpspecialized_pingpong.hpp 295) is read as that index (below).
RE_ROLE_VAR_TYPED = re.compile(rf"\b(?P<enum>WarpCategory)\s+(?P<name>{_IDENT})\s*=(?!=)")
RE_ANY_ROLE_ENUM = re.compile(rf"enum\s+class\s+(?P<name>{_IDENT})\s*(?::\s*{_IDENT}\s*)?\{{(?P<body>[^{{}}]*)\}}")
# A function of the file mapping the warp index to a role enum (77_blackwell_fmha
# sm100_fmha_fwd_kernel_tma_warpspecialized.hpp 63-71 `static constexpr WarpRole
# warp_idx_to_WarpRole(int warp_idx)`), and a variable it initialises (261 `auto role =
# warp_idx_to_WarpRole(warp_idx);`).
# Also a device function (77 `sm100_fmha_bwd_kernel_tma_warpspecialized.hpp` 93-95 `CUTLASS_DEVICE
# WarpRole warp_idx_to_role(int warp_idx)`, its role read from the nibbles of `kWarpAssignment`).
RE_ROLE_FUNCTION = re.compile(rf"\b(?:constexpr|CUTLASS_DEVICE|CUTLASS_HOST_DEVICE)\s+(?:typename\s+)?(?:{_IDENT}::)*(?P<enum>{_IDENT})\s+(?P<fn>{_IDENT})\s*\(\s*(?:const\s+)?int\s+{_IDENT}\s*\)")


# An integer role variable: the warpgroup index (FA3 hopper/flash_fwd_kernel_sm90.h 208 `int
# warp_group_idx = cutlass::canonical_warp_group_idx();`, its branch `if (warp_group_idx == 0)`
# at 326). The interpreter binds it per warpgroup of the kernel's threads (NumLoadWarpGroups +
# NumMmaWarpGroups warpgroups, `MaxThreadsPerBlock`, 74-76) and splits a group per warp where
# its warps run different programs (docs/programs.md "FlashAttention-3 forward"). CUTLASS's own
# kernel layers call it unqualified and test it through a role enum chosen on it
# (sm90_gemm_warpspecialized_cooperative.hpp 288-290 `int warp_group_idx =
# canonical_warp_group_idx();` `WarpGroupRole warp_group_role = warp_group_idx <
# NumLoadWarpGroups ? WarpGroupRole::Producer : WarpGroupRole::Consumer;`).
RE_WARP_GROUP_VAR = re.compile(rf"""\bint\s+(?:const\s+)?(?P<name>{_IDENT})\s*=\s*
    (?P<call>(?:(?:cutlass|flash)\s*::\s*)?canonical_warp_group_idx(?:_nosync)?)\s*\(\s*\)\s*;""", re.VERBOSE)


def _warp_group_role_vars(src):
    """The integer warpgroup-index role variables of a kernel layer that an `if` tests."""
    code, out = src.code, []
    for m in RE_WARP_GROUP_VAR.finditer(code):
        name = m.group("name")
        test = (re.search(rf"\bif\s*\([^;{{}}]*\b{name}\b", code)
                or re.search(rf"=\s*{name}\b[^;{{}}?]*\?", code))   # `role = warp_group_idx < N ? A : B`
        if test is None or any(v["name"] == name for v in out):
            continue
        out.append({"name": name, "kind": "warp_group_index", "call": re.sub(r"\s+", "", m.group("call")),
                    "line": src.line(m.start("name")), "test_line": src.line(test.start()),
                    "load_warpgroups": "NumLoadWarpGroups", "mma_warpgroups": "NumMmaWarpGroups"})
    return out


RE_RETURN = re.compile(r"\breturn\b(?P<expr>[^;{}]*);")


def _returned_members(src, fn, enum, members):
    """The members of `enum` a role variable initialised by the warp-to-role function `fn` can
    hold: those its definitions return (`return WarpRole::Softmax0;`), in the enum's order. A
    definition that forwards to a function of the same name (77 decode kernel 97-99 `return
    KernelSchedule::warp_idx_to_WarpRole(warp_idx);`) adds nothing; one returning anything else
    keeps every member. 77 decode's schedule (60-67) never returns WarpRole::Epilogue
    (NumWarpsEpilogue = 0, 71: the correction warp stores O), so no warp runs that branch."""
    code, brackets, returned = src.code, src.brackets, set()
    for m in re.finditer(rf"\b{re.escape(fn)}\s*\(\s*(?:const\s+)?int\s+{_IDENT}\s*\)\s*(?:const\s*)?\{{", code):
        close = brackets.close_of(m.end() - 1)
        if close is None:
            return members
        for r in RE_RETURN.finditer(code, m.end(), close):
            expr = "".join(r.group("expr").split())
            mm = re.fullmatch(rf"(?:{_IDENT}::)*{re.escape(enum)}::(?P<m>{_IDENT})", expr)
            if mm and mm.group("m") in members:
                returned.add(mm.group("m"))
            elif not re.fullmatch(rf"(?:{_IDENT}::)*{re.escape(fn)}\(\w*\)", expr):
                return members
    return [x for x in members if x in returned] if returned else members


def _enum_values(body):
    """The values of an enum's members in order, as C++ gives them (the first 0, each next one
    more than the last, an initializer a decimal literal), or None when an initializer is no
    literal: `MMA = 0, Sched = 1, ...` (sm100_gemm_array_tma_warpspecialized.hpp 251-257)."""
    out, last = [], -1
    for part in body.split(","):
        name, _, init = part.partition("=")
        if not re.fullmatch(_IDENT, name.strip()):
            continue
        init = init.strip()
        if init and not init.isdigit():
            return None
        last = int(init) if init else last + 1
        out.append(last)
    return out


def _kernel_program(src, fns, out):
    """out["program"]: the program of the kernel layer's device `operator()` (programs_cpp), and
    out["role_vars"]: each variable its role branches compare, with the enum's members in order
    (`auto warp_group_role = WarpGroupRole(canonical_warp_group_idx());`)."""
    code = src.code
    enums = {}
    values = {}
    for m in RE_ANY_ROLE_ENUM.finditer(code):
        members = [part.split("=")[0].strip() for part in m.group("body").split(",")]
        enums.setdefault(m.group("name"), ([x for x in members if re.fullmatch(_IDENT, x)], src.line(m.start())))
        values.setdefault(m.group("name"), _enum_values(m.group("body")))
    role_vars = []
    for m in sorted([*RE_ROLE_VAR.finditer(code), *RE_ROLE_VAR_TYPED.finditer(code)], key=lambda m: m.start()):
        enum = m.group("enum")
        if enum in enums and all(v["name"] != m.group("name") for v in role_vars):
            role_vars.append({"name": m.group("name"), "enum": enum, "members": enums[enum][0],
                              "line": src.line(m.start()), "enum_line": enums[enum][1]})
            if values[enum] is not None:
                role_vars[-1]["values"] = values[enum]
    role_fns = {}
    for m in RE_ROLE_FUNCTION.finditer(code):
        if m.group("enum") in enums:
            role_fns.setdefault(m.group("fn"), m.group("enum"))
    for fn, enum in role_fns.items():
        members = _returned_members(src, fn, enum, enums[enum][0])
        for m in re.finditer(rf"(?P<name>{_IDENT})\s*=\s*{re.escape(fn)}\s*\(", code):
            if all(v["name"] != m.group("name") for v in role_vars):
                role_vars.append({"name": m.group("name"), "enum": enum, "members": members,
                                  "line": src.line(m.start()), "enum_line": enums[enum][1]})
    if not role_vars:
        role_vars = _warp_group_role_vars(src)
        # With a warpgroup-index role variable, the layer's role enums, so a role chosen through
        # one (`WarpGroupRole warp_group_role = warp_group_idx < NumLoadWarpGroups ?
        # WarpGroupRole::Producer : WarpGroupRole::Consumer;`, sm90_gemm_warpspecialized_cooperative.hpp
        # 276-279, 290) compares as the enum's members.
        if role_vars and enums:
            out["enums"] = [{"name": k, "members": v[0], "line": v[1]} for k, v in sorted(enums.items())]
    out["role_vars"] = role_vars
    # The kernel layer's own pipeline aliases (`using AccumulatorPipeline = cutlass::PipelineUmmaAsync<...>`):
    # the class of a pipeline the collective takes as a template parameter (docs/programs.md).
    out["pipelines"] = [dict({"alias": p["alias"], "class": p["class"], "line": p["line"]}, **({"stages": p["stages"]} if re.fullmatch(r"\d+", p["stages"]) else {}))
                        for p in find_pipelines(src)]
    states = [{"alias": m.group("alias"), "pipeline": m.group("pipeline"), "line": src.line(m.start())}
              for m in RE_STATE_ALIAS.finditer(code)]
    if states:
        out["state_aliases"] = states
    out["constants"] = [{"name": m.group("name"), "value": int(m.group("value")), "line": src.line(m.start("name"))}
                        for m in RE_INT_CONSTEXPR.finditer(code)]
    out["program"] = None
    if fns is None:
        fns = _shallow_functions(src, find_scopes(src)[1])
    for fn in fns:
        if fn["name"] == "operator()" and fn["device"]:
            out["program"] = programs_cpp.function_program(src, fn, [], kernel=True)
            break


def _sm100_facts(src, out):
    """SM100 kernel layers: WarpCategory roles with warp numbers, schedule "sm100", accumulator
    stages, CTA pair (2-SM) and CLC facts, where the source states them."""
    code = src.code
    m = RE_WARP_CATEGORY.search(code) if "WarpCategory" in code else None
    if m is None:
        return
    members = []
    offset = m.start("body")
    for part in m.group("body").split(","):
        name, _, value = part.partition("=")
        name_pos = offset + len(name) - len(name.lstrip())
        offset += len(part) + 1
        name, value = name.strip(), " ".join(value.split())
        if not re.fullmatch(_IDENT, name):
            continue
        members.append([name, int(value) if value.isdigit() else None, src.line(name_pos)])
    # Enumerators without a value continue from the previous one.
    for i, mem in enumerate(members):
        if mem[1] is None:
            mem[1] = members[i - 1][1] + 1 if i and members[i - 1][1] is not None else (0 if not i else None)
    firsts = sorted(v for _, v, _ in members if v is not None)
    roles = []
    for name, value, line in members:
        if value is None:
            warps = "?"
        else:
            later = [v for v in firsts if v > value]
            warps = list(range(value, later[0])) if later else f"{value}+"
        roles.append({"name": name, "warps": warps, "line": line})
    out["warp_roles"] = roles
    out["warp_roles_line"] = src.line(m.start())
    out["schedule"], out["schedule_line"] = "sm100", src.line(m.start())
    tag = RE_KERNEL_TAG_ANY.search(code)
    if tag:
        out["schedule_tag"] = tag.group()
    acc = RE_ACC_STAGES.search(code)
    out["accumulator_stages"], out["accumulator_stages_line"] = None, None
    if acc:
        value = " ".join(acc.group("value").split())
        im = RE_INT_LITERAL.match(value)
        out["accumulator_stages"] = int(im.group("value")) if im else value[:MAX_TEXT_CHARS]
        out["accumulator_stages_line"] = src.line(acc.start())
    out["cta_pair"] = _cta_pair(code)
    out["clc"] = bool(RE_CLC.search(code))


RE_WARP_CATEGORY = re.compile(rf"""
    \benum \s+ (?:class|struct) \s+ WarpCategory \s* (?::\s*{_QUALIFIED}\s*)? \{{ (?P<body>[^{{}}]*) \}}
""", re.VERBOSE)
RE_KERNEL_TAG_ANY = re.compile(r"\bKernel\w*WarpSpecialized\w*|\bKernel\w*Sm10\d\w*")
# AccumulatorPipelineStageCount = <expr>;  (the stages of the TMEM accumulator pipeline)
RE_ACC_STAGES = re.compile(r"AccumulatorPipelineStageCount(?<!\wAccumulatorPipelineStageCount)"
                           r"\s*=(?!=)\s*(?P<value>[^;{}]{1,200});")
RE_CLC = re.compile(r"\bPipelineCLCFetchAsync\b|\bCLCPipeline\b")
# 2-SM (CTA pair) MMA atoms and tags: SM100_MMA_F16BF16_2x1SM_SS, KernelTmaWarpSpecialized2SmSm100
RE_2SM = re.compile(r"2x1SM|2Sm|2SM")
RE_1SM = re.compile(r"(?<!2x)1S[Mm]")


def _cta_pair(code):
    """True when only 2-SM atoms/tags are named, False when only 1-SM ones, else None."""
    two, one = bool(RE_2SM.search(code)), bool(RE_1SM.search(code))
    if two and not one:
        return True
    if one and not two:
        return False
    return None


def looks_like_kernel_layer(src):
    """A kernel layer names the WarpGroupRole / WarpCategory enum, calls collective_mainloop.mma/load,
    or maps the warp index to a role enum of its own that a variable takes (a whole kernel in one
    class: 77's `sm100_fmha_bwd_kernel_tma_warpspecialized.hpp` 86-95, `auto role =
    warp_idx_to_role(warp_idx);` 1515, its roles calling the class's own load / mma / compute)."""
    code = src.code   # each pattern needs its literal: test that first (a cheap substring search)
    return ("Role" in code and bool(RE_ROLE_ENUM.search(code))) or \
        ("WarpCategory" in code and bool(RE_WARP_CATEGORY.search(code))) or \
        ("mainloop" in code and bool(RE_MAINLOOP_CALL.search(code))) or _own_role_function(src)


def _own_role_function(src):
    """A function of the file from the warp index to an `enum class` of the file (RE_ROLE_FUNCTION)
    whose result a variable takes."""
    code = src.code
    if "enum" not in code or "warp_idx" not in code:
        return False
    enums = {m.group("name") for m in RE_ANY_ROLE_ENUM.finditer(code)}
    for m in RE_ROLE_FUNCTION.finditer(code):
        if m.group("enum") in enums and re.search(rf"{_IDENT}\s*=\s*{re.escape(m.group('fn'))}\s*\(", code):
            return True
    return False


# ----------------------------------------------------------------------------------------------
# Whole file
# ----------------------------------------------------------------------------------------------


# What the code says of its architecture when neither the file name nor an ArchTag does (a .cu /
# .cuh kernel that drives the hardware directly), in order: a `__CUDA_ARCH__ >= N` guard, then
# the instructions only one architecture has (tcgen05 / UMMA / TMEM on SM100, WGMMA on SM90).
RE_DIRECTIVE_LINE = re.compile(r"^[ \t]*#[^\n]*", re.M)        # a preprocessor line (comments are not)
RE_CUDA_ARCH_GUARD = re.compile(r"__CUDA_ARCH__\s*>=?\s*(?P<num>\d{3,4})\b")
ARCH_EVIDENCE = (
    ("sm100", re.compile(r"\btcgen05\b|\bSM100_MMA_\w+|\bUMMA::|\bumma_arrive\w*|\bTmemAllocator\w*|\btmem_\w+")),
    ("sm90", re.compile(r"\bwgmma\b|\bSM90_64x\w+|\bGMMA::|\bwarpgroup_arrive\b|\bwarpgroup_wait\b")),
)


def arch_of(src, path):
    """sm90 / sm100 / ... from the file name, else an ArchTag, else a __CUDA_ARCH__ guard or the
    instructions the code uses (ARCH_EVIDENCE)."""
    m = RE_ARCH_NAME.search(Path(path).name)
    if m:
        return f"sm{m.group('num')}"
    m = RE_ARCH_TAG.search(src.code)
    if m:
        return f"sm{m.group('num') or m.group('num2')}"
    if "__CUDA_ARCH__" in src.text:
        for line in RE_DIRECTIVE_LINE.finditer(src.text):
            m = RE_CUDA_ARCH_GUARD.search(line.group())
            if m:
                return f"sm{int(m.group('num')) // 10}"
    # prose keeps string literals (inline asm) and blanks comments.
    for arch, pattern in ARCH_EVIDENCE:
        if pattern.search(src.prose):
            return arch
    return "unknown"


def parse_text(text, path="<text>", display=None, read_warnings=(), compose=False):
    """Parse one source text into the JSON model (kind may be 'unknown'); never raises on text.
    compose: also read the collectives it composes (parse_header; docs/programs.md "Composed
    collectives")."""
    src = Source(text, path, display)
    src.warnings.extend(read_warnings)
    structs, fns = find_scopes(src)
    fns = _shallow_functions(src, fns)
    pipelines = find_pipelines(src)
    composed = _composed_collectives(src, pipelines) if compose else []
    # The aliases whose programs join (a composed file with an op): a load helper of one is a call.
    joined = frozenset(e["alias"] for e, sub in composed if sub is not None and any(f["ops"] for f in sub["functions"]))
    buffers = find_buffers(src, structs)
    arch = arch_of(src, path)
    unit = mma_unit(src, arch) if "gemm" in src.code else "mma"   # no gemm call: no MMA op
    aliases = {p["alias"]: p for p in pipelines}
    members = find_member_objects(src, fns, aliases)
    kept = []
    budget = [MAX_EXPANDED_OPS]
    for fn in fns:
        ctx = FunctionContext(src, fn, aliases, members)
        ops = find_function_ops(src, fn, ctx, buffers, unit, budget)
        # Keep device functions and any function that performs ops.
        if not ops and not fn["device"]:
            continue
        kept.append((fn, ctx, ops))
    # An op inside a nested function definition would be listed twice; keep the innermost.
    _drop_outer_duplicates(kept)
    _expand_helpers(src, kept, structs, budget)
    if budget[0] <= 0:
        src.warnings.append(f"{src.display}: more than {MAX_EXPANDED_OPS} ops from lambda and "
                            "helper call sites; the rest are not listed")
    assignments = _Assignments(src)
    functions = []
    programs = []
    objects = _ObjectRegistry(aliases)
    for name, mem in sorted(members.items(), key=lambda kv: kv[1]["pos"]):
        objects.declare(name, [mem["alias"]], "member", src.line(mem["pos"]))
    for fn, ctx, ops in kept:
        for name, decl in ctx.names.items():
            objects.declare(name, decl["aliases"], decl["kind"], src.line(decl["pos"]))
    kept_names = frozenset(fn["name"] for fn, _ctx, _ops in kept)
    for fn, ctx, ops in kept:
        for op in ops:
            res = op["_res"]
            if res["alias"] and res["object"] and res["kind"] == "named":
                objects.declare(res["object"], res["cands"], "named", op["line"])
        for op in ops:
            _name_object(op, objects)
        _pair_mmas_with_waits(src, ops, assignments, fn["open"])
        for op in ops:
            _name_object(op, objects, mma_only=True)
        _warn_ops(src, ops)
        params = {}
        for alias, name in typed_names(src.code, fn["params"][0], fn["params"][1] + 1, aliases):
            params[name] = alias
        lambdas = []
        for key, lam in sorted(ctx.lambdas.items()):
            if not fn["open"] < lam["pos"] < fn["close"]:
                continue
            lam_ops = [_copy_op(o) for o in getattr(ctx, "lambda_ops", {}).get(key, ())]
            for op in lam_ops:
                _name_object(op, objects)
            lambdas.append(dict(lam, ops=lam_ops))
        calls = frozenset(v for v, h in ctx.helpers.items() if h.get("type") in joined)
        programs.append(programs_cpp.function_program(src, fn, ops, kept_names, lambdas, composed=calls))
        functions.append({
            "name": fn["name"], "role": role_of(ops), "line": fn["line"], "end_line": fn["end_line"],
            "device": fn["device"], "pipeline_params": params, "ops": [_public(o) for o in ops],
        })
    is_kernel_layer = looks_like_kernel_layer(src)
    has_ops = any(f["ops"] for f in functions)
    kind = "unknown"
    if is_kernel_layer:
        kind = "kernel_layer"
    elif has_ops and is_epilogue(functions, src.path):
        kind = "epilogue"
    elif has_ops or pipelines:
        kind = "mainloop"
    elif RE_DRIVER.search(src.code):
        kind = "driver"
    for p in pipelines:
        p["used"] = any(o["pipeline"] == p["alias"] or p["alias"] in o.get("pipeline_candidates", [])
                        or p["alias"] in o.get("pipelines", [])
                        for f in functions for o in f["ops"])
    _warn_file(src, kind, pipelines, functions)
    # Raw mbarrier rings (parse_mbarrier.py): pipelines of class "mbarrier_ring", after the
    # type aliases; their ops already name them.
    rings, ring_objects = parse_mbarrier.ring_facts(src, functions)
    pipelines.extend(rings)
    model = {
        "schema_version": SCHEMA_VERSION,
        "language": "cpp",
        "tool": {"name": TOOL_NAME, "version": __version__},
        "source": {"path": src.display, "lines": src.lines.count},
        "kind": kind,
        "arch": arch,
        "pipelines": pipelines,
        "pipeline_objects": sorted(objects.entries() + ring_objects, key=lambda e: (e["line"], e["name"])),
        "buffers": buffers,
        "functions": functions,
        "constants": find_constants(src, programs),
        "shapes": find_shapes(src),
        "order_barriers": find_order_barriers(src),
        "kernel_layer": parse_kernel_layer(src, fns) if is_kernel_layer else None,
        "programs": {"functions": programs},
        "warnings": _dedupe(src.warnings),
    }
    if model["kernel_layer"] is not None and whole_kernel(model):
        model["kernel_layer"]["whole_kernel"] = True
    # tile, cluster, dtypes, stages (parse_tile.py; docs/json.md "Kernel parameters").
    model.update(parse_tile.kernel_params(src))
    if compose:
        model["collectives"] = []
        for entry, sub in composed:
            if sub is None:
                model["warnings"].append(entry["unread"])
            else:
                _join_collective(model, entry, sub)
    return model


# Ops that make a collective without any MMA an epilogue: it stores D (TMA stores and their
# commit), whatever else it does (loads C, syncs named barriers, reads TMEM).
EPILOGUE_OPS = frozenset({"tma_store", "tma_store_arrive", "tma_store_wait"})


def is_epilogue(functions, path):
    """True for a collective that issues no MMA and stores D (TMA stores) or is an epilogue by
    its path (`epilogue` in a directory or the file name: the no-smem epilogues store from
    registers): sm90/sm100 epilogue collectives, 77's FMHA epilogues. Its kind is "epilogue"."""
    ops = [o["op"] for f in functions for o in f["ops"]]
    if "mma" in ops:
        return False
    return any(op in EPILOGUE_OPS for op in ops) or "epilogue" in str(path).replace("\\", "/").lower()


def _dedupe(items):
    """Items in first-seen order without repeats (an op expanded at several call sites warns once)."""
    seen = set()
    out = []
    for w in items:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


PRIVATE_OP_FIELDS = ("_pos", "_key", "_args", "_res", "_lo", "_shadows", "_helpers")


def _public(op):
    """An op without its private (underscore) fields."""
    for k in PRIVATE_OP_FIELDS:
        op.pop(k, None)
    return op


class _ObjectRegistry:
    """pipeline_objects: one entry per (name, alias); a name on two aliases is spelled `name@Alias`."""

    def __init__(self, aliases):
        self.aliases = aliases
        self.by_key = {}
        self.order = []

    def declare(self, name, cands, kind, line):
        """Record an object (first declaration wins its kind and line)."""
        alias = cands[0] if cands else None
        key = (name, alias)
        if key in self.by_key:
            return
        p = self.aliases.get(alias) or {}
        entry = {"name": name, "alias": alias, "class": p.get("class"),
                 "stages": p.get("stages") or None, "line": line, "kind": kind}
        if len(cands) > 1:
            entry["candidates"] = list(cands)
        self.by_key[key] = entry
        self.order.append(key)

    def name_of(self, name, alias):
        """The published name of an object (unique in the file)."""
        if (name, alias) not in self.by_key:
            self.declare(name, [alias], "named", 1)
        clash = sum(1 for n, _ in self.order if n == name) > 1
        return f"{name}@{alias}" if clash else name

    def entries(self):
        """The objects sorted by line, then name."""
        out = []
        for key in self.order:
            e = dict(self.by_key[key])
            e["name"] = self.name_of(*key)
            out.append(e)
        out.sort(key=lambda e: (e["line"], e["name"]))
        return out


def _name_object(op, objects, mma_only=False):
    """Set op.object from its resolution (MMAs get theirs from the wait they read)."""
    if mma_only and op["op"] != "mma":
        return
    res = op["_res"]
    if op["pipeline"] and res.get("object"):
        op["object"] = objects.name_of(res["object"], res["alias"])
    elif op["pipeline"] and op["op"] != "mma":
        op["object"] = op["pipeline"]   # resolved without an object name: the alias stands for it
    else:
        op.pop("object", None)


# Every warning the parser emits, as (kind, a phrase only that warning holds). docs/parser.md
# section documents each kind; tests/test_scan_tree.py checks which kinds the CUTLASS tree gives.
WARNING_KINDS = (
    ("unresolved-clc-pipeline", "fetch_next_work: its pipeline argument"),
    ("unresolved-receiver", "not resolved to a pipeline alias"),
    ("load-without-barrier", "no pipeline barrier or acquire found"),
    ("cp-async-without-pipeline", "has no preceding producer_acquire"),
    ("pipelines-without-ops", "but no op on any of them"),
    ("barrier-never-waited", "is arrived on but never waited on"),
    ("kernel-layer-as-main-file", "is a kernel layer, not a collective mainloop"),
    ("mbarrier-unresolved", "not an element of a ring indexed in this file"),      # parse_mbarrier.py
    ("mbarrier-ring-stages", "its stage count is not spelled in this file"),       # parse_mbarrier.py
    ("mbarrier-ring-budget", "mbarrier rings; the rest are not listed"),            # parse_mbarrier.py
    ("not-utf8", "not valid UTF-8"),
    ("nesting-too-deep", "in other functions are not parsed"),
    ("expansion-budget", "ops from lambda and helper call sites"),
)


def warning_kind(warning):
    """The kind of a warning string (see WARNING_KINDS), or "other"."""
    for kind, phrase in WARNING_KINDS:
        if phrase in warning:
            return kind
    return "other"


def _warn_ops(src, ops):
    """Nothing silent: a pipeline call on an unresolved receiver, a load with no barrier."""
    for op in ops:
        where = op["_pos"]
        if op["op"] in PIPELINE_MEMBER_OPS and op["pipeline"] is None:
            src.warn(where, f"{op['op']}: receiver '{op['receiver']}' not resolved to a pipeline alias")
        elif op["op"] == "tma_load" and op["pipeline"] is None and not op.get("barrier"):
            src.warn(where, f"tma_load of '{op['receiver']}': no pipeline barrier or acquire found")
        elif op["op"] == "cp_async" and op["pipeline"] is None and not src.cp_async_warned:
            src.cp_async_warned = True
            src.warn(where, f"cp_async of '{op['receiver']}' (and any later one in this file) has no "
                     "preceding producer_acquire: cp.async stages kept with cp_async_fence / "
                     "cp_async_wait are not modelled")
        elif op["op"] == "fetch_next_work" and op["pipeline"] is None and "pipeline" in op["text"]:
            src.warn(where, "fetch_next_work: its pipeline argument is not resolved to a pipeline alias")


def _warn_file(src, kind, pipelines, functions):
    """File-level warnings: pipeline types and no ops; a standalone barrier arrived on, never waited."""
    ops = [o for f in functions for o in f["ops"]]
    real = [p for p in pipelines if not p.get("template_parameter")]
    if kind in ("mainloop", "epilogue") and real and not any(o["pipeline"] for o in ops):
        src.warnings.append(f"{src.display}:{real[0]['line']}: pipeline types "
                            f"({', '.join(p['alias'] for p in real)}) but no op on any of them")
    waited = {o.get("barrier") for o in ops if o["op"] == "barrier_wait"}
    arrived = {}
    for o in ops:
        if o["op"] == "barrier_arrive" and o.get("barrier") and o["barrier"] not in waited:
            arrived.setdefault(o["barrier"], o["line"])
    for name, line in sorted(arrived.items(), key=lambda kv: kv[1]):
        src.warnings.append(f"{src.display}:{line}: barrier '{name}' is arrived on but never "
                            "waited on in this file")


def _drop_outer_duplicates(kept):
    """When a function's body contains another kept function, ops inside the inner one belong to it."""
    spans = sorted((fn["open"], fn["close"]) for fn, _, _ in kept)
    for fn, ctx, ops in kept:
        inner = [(a, b) for a, b in spans[bisect.bisect_right(spans, (fn["open"], fn["close"])):
                                          bisect.bisect_left(spans, (fn["close"],))]
                 if fn["open"] < a and b < fn["close"]]
        if inner:
            union = _SpanUnion(inner)
            ops[:] = [o for o in ops if not union.contains(o["_key"][0])]


# A call of a same-file helper: `h(`, `this->h(`, `Owner::h(` and templated `h<true, KTraits>(`
# (the `<...>` is matched by scan_angle). `cute::gemm(tiled_mma, ...)` is CuTe's gemm, not a
# same-file `gemm` helper: a qualified call counts only when its qualifier names the helper's
# own struct (_call_qualifier reads the qualifier backwards).
RE_THIS_CALL = re.compile(rf"(?:(?<![\w.>])|(?<=this->))(?P<name>{_IDENT})\s*(?P<open>[(<])")


def _call_qualifier(code, pos):
    """The identifier before `::` just before pos (`cute` in `cute::gemm(`), '' if unqualified."""
    i = pos - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    if i < 1 or code[i - 1:i + 1] != "::":
        return ""
    i -= 2
    while i >= 0 and code[i].isspace():
        i -= 1
    end = i + 1
    while i >= 0 and _is_ident_char(code[i]):
        i -= 1
    return code[i + 1:end]


def _expand_helpers(src, kept, structs, budget):
    """A call of another function of this file (same struct) lists that function's ops at the
    call site, with via.helper; its parameters resolve to the caller's arguments."""
    code = src.code
    by_name = {}
    for entry in kept:
        by_name.setdefault(entry[0]["name"], []).append(entry)
    helpers = {n: e[0] for n, e in by_name.items() if len(e) == 1 and e[0][2]}
    if not helpers:
        return
    enclosing = _EnclosingStructs(structs)
    owner, owner_name = {}, {}
    for fn, _, _ in sorted(kept, key=lambda e: e[0]["open"]):
        s = enclosing.at(fn["open"])
        owner[id(fn)] = s["open"] if s else None
        owner_name[id(fn)] = s["name"] if s else None
    own_ops = {id(fn): list(ops) for fn, _, ops in kept}
    param_names = {}
    memo = {}

    def params_of(fn):
        if id(fn) not in param_names:
            names = []
            for s, e in split_top_level(code, *fn["params"]):
                head = code[s:e].split("=")[0]
                words = RE_IDENT.findall(head)
                names.append(words[-1] if words else "")
            param_names[id(fn)] = names
        return param_names[id(fn)]

    def expanded(entry, depth):
        fn, ctx, _ = entry
        key = id(fn)
        if key in memo:
            return memo[key]
        memo[key] = own_ops[key]            # a recursive call sees the unexpanded ops
        if depth >= MAX_EXPANSION_DEPTH:
            return own_ops[key]
        lam_spans = _SpanUnion((l["open"], l["close"]) for l in ctx.lambdas.values())
        added = []
        shadowed = set()   # call positions whose own mma op the helper's ops replace
        for m in RE_THIS_CALL.finditer(code, fn["open"], fn["close"]):
            target = helpers.get(m.group("name"))
            if target is None or target[0] is fn or lam_spans.contains(m.start()):
                continue
            tfn = target[0]
            if owner.get(id(tfn)) != owner.get(id(fn)) or fn["open"] < tfn["open"] < fn["close"] \
                    or tfn["open"] < fn["open"] < tfn["close"]:
                continue
            qual = _call_qualifier(code, m.start())
            if qual and qual != owner_name.get(id(tfn)):
                continue   # cute::gemm(...), flash::gemm(...): another namespace's function
            paren = m.end() - 1
            if m.group("open") == "<":   # load_kv<true, KTraits>(...), gemm<true, -1>(...)
                end = scan_angle(code, paren)
                paren = RE_SPACES.match(code, end).end() if end is not None else None
                if paren is None or paren >= fn["close"] or code[paren] != "(":
                    continue
            close = src.brackets.close_of(paren)
            if close is None:
                continue
            tparams = params_of(tfn)
            args = [" ".join(code[s:min(e, s + MAX_ARG_CHARS)].split())
                    for s, e in split_top_level(code, paren + 1, close, src.brackets)]
            inner = expanded(target, depth + 1)
            if any(o["op"] == "mma" for o in inner):
                # gemm<true, -1>(tiled_mma, ...) calling this file's own gemm helper: its MMAs
                # are the helper's, not a second one at the call.
                shadowed.add(m.start())
            for o in inner:
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                o = _copy_op(o)
                res = o["_res"]
                if res.get("kind") == "parameter" and res.get("object") in tparams:
                    i = tparams.index(res["object"])
                    if i < len(args) and args[i]:
                        new = ctx.resolve(args[i])
                        if new["alias"]:
                            o["receiver"] = args[i] if o["op"] in PIPELINE_MEMBER_OPS else o["receiver"]
                            _set_res(o, new)
                o["_key"] = (m.start(),) + o["_key"]
                o["_args"] = o["_args"] + [(paren + 1, close)]
                o.setdefault("_lo", tfn["open"])
                o.setdefault("via", {"helper": tfn["name"], "line": src.line(m.start())})
                # The helpers the op was expanded through, the one called here first (programs_cpp
                # leaves an op of a kept helper in that helper's program, even when its `via` names a
                # lambda inside it: 77's correction_rescale, whose tmem_load is in its lambda copy_in).
                o["_helpers"] = (tfn["name"],) + tuple(o.get("_helpers", ()))
                added.append(o)
        own = [o for o in own_ops[key] if not (o["op"] == "mma" and o["_key"][0] in shadowed)]
        result = sorted(own + added, key=lambda o: (o["_key"], o["op"]))
        memo[key] = result
        return result

    results = {id(e[0]): expanded(e, 0) for e in kept}
    for fn, ctx, ops in kept:
        ops[:] = results[id(fn)]


def find_member_objects(src, fns, aliases):
    """Pipeline-typed declarations outside every function: struct members (name -> alias, pos)."""
    if not aliases:
        return {}
    spans = _SpanUnion([(fn["open"], fn["close"]) for fn in fns] +
                       [(fn["params"][0] - 1, fn["params"][1] + 1) for fn in fns])
    members = {}
    code = src.code
    for alias, name, pos in typed_decls(code, 0, len(code), aliases):
        if spans.contains(pos):
            continue
        after = RE_SPACES.match(code, pos + len(name)).end()
        if after < len(code) and code[after] == "(":
            continue   # a function declaration returning a pipeline
        members.setdefault(name, {"alias": alias, "pos": pos})
    return members


def mma_unit(src, arch):
    """wgmma on SM90, umma (tcgen05) on SM100/101/103/110, mma elsewhere; an unknown arch is
    read from the text (warpgroup_arrive / GMMA -> wgmma, tcgen05 / UMMA -> umma)."""
    m = re.match(r"sm(\d+)", arch)
    if m:
        num = int(m.group(1))
        if num == 90:
            return "wgmma"
        if num in (100, 101, 103, 110):
            return "umma"
        return "mma"
    if RE_UMMA_HINT.search(src.code):
        return "umma"
    if RE_WGMMA_HINT.search(src.code):
        return "wgmma"
    return "mma"


RE_UMMA_HINT = re.compile(r"\btcgen05|\bUMMA\b|\bumma_arrive|\bSM100_MMA_")
RE_WGMMA_HINT = re.compile(r"\bwarpgroup_arrive\b|\bGMMA\b|\bSM90_64x")

# constexpr constants the schedule needs: K_PIPE_MMAS, stage counts
# FlashAttention-3's compile-time protocol flags (hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp): the
# attention model derives Transpose_V and the scheduler barrier from them (docs/models/attention.md).
FA3_BUILD_FLAGS = ("Is_FP8", "Transpose_V", "UseSchedulerBarrier", "NumMmaWarpGroups", "LargeHeadDimV",
                   "RescaleOBeforeGemm")
RE_CONSTANT = re.compile(rf"""
    constexpr(?<!\wconstexpr) \s+ (?:(?:static|const|inline)\s+)* {_QUALIFIED} \s+
    (?P<name>K_PIPE_\w+|\w*Stages?|\w*StageCount\w*|\w*Stages[A-Z]\w*|{"|".join(FA3_BUILD_FLAGS)}) \s* =(?!=) \s*
    (?P<value>[^;{{}}]{{1,200}}) ;
""", re.VERBOSE)


# A shape the source writes as integer literals: a template parameter's default (77 FMHA mainloop
# 61: `class ThreadShape = Shape<_2, _1, _1>`) or an alias (`using ClusterShape = Shape<_1,_1,_1>;`).
RE_SHAPE_LITERAL = re.compile(rf"\b(?:(?:class|typename)\s+(?P<param>{_IDENT})|using\s+(?P<alias>{_IDENT}))\s*=\s*(?:cute::)?Shape\s*<(?P<dims>\s*(?:cute::)?_\d+(?:\s*,\s*(?:cute::)?_\d+){{0,3}}\s*)>")


def find_shapes(src):
    """Shapes written as literals: [{name, dims: [int], line}], first definition of each name."""
    out, seen = [], set()
    if "Shape" not in src.code:
        return out
    for m in RE_SHAPE_LITERAL.finditer(src.code):
        name = m.group("param") or m.group("alias")
        if name in seen:
            continue
        seen.add(name)
        dims = [int(d.strip().split("_")[-1]) for d in m.group("dims").split(",")]
        out.append({"name": name, "dims": dims, "line": src.line(m.start())})
    return out


# `static const int kOuterLoads = 1;` (88 FMHA collective 77; the backward's 64: 2): the outer-pipeline
# loads per consumer warpgroup and tile, which the kernel layer reads as `CollectiveMainloop::kOuterLoads`
# to advance its consumers' Q states (88 FMHA kernel 348-361, 388-405).
RE_OUTER_LOADS = re.compile(r"\bstatic\s+const(?:expr)?\s+int\s+(?P<name>kOuterLoads)\s*=\s*(?P<value>\d+)\s*;")
# `static constexpr bool kIsPersistent = false;` (88 FMHA backward 57; the forward's is a kernel
# option, RE_OPTION_CONSTANT): 0 or 1, read by the interpreter's FMHA_INDIVIDUAL_SCHEDULER.
RE_PERSISTENT_LITERAL = re.compile(r"\bstatic\s+constexpr\s+bool\s+(?P<name>kIsPersistent)\s*=\s*(?P<value>true|false)\s*;")


# `static constexpr bool kIsPersistent = find_option_t<Tag::kIsPersistent, false_type, Options...>::value;`
# (88 FMHA collective 69-70): a flag of the kernel options, kept as text (the interpreter's
# FIND_OPTION_DEFAULTS reads its default); any name, since the option text says what it is.
RE_OPTION_CONSTANT = re.compile(r"""
    \bstatic \s+ constexpr \s+ bool \s+ (?P<name>\w+) \s* = \s*
    (?P<value>find_option_t \s* < [^;{}<>]* (?:<[^;{}<>]*>[^;{}<>]*)* > \s* :: \s* value) \s* ;   # one level of <...> inside
""", re.VERBOSE)


# `static int constexpr SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2;` and `static constexpr int
# SFVecSize = TiledMma::SFVecSize;` (sm103_blockscaled_mma_warpspecialized.hpp 151, 129): an int
# constant of any name, kept (with its expression tree) only when a program reads it (CONSTANT_EXPRS).
RE_INT_CONSTANT_EXPR = re.compile(rf"\bstatic\s+(?:constexpr\s+int|int\s+constexpr)\s+(?P<name>{_IDENT})\s*=(?!=)\s*(?P<value>[^;{{}}]{{1,200}});")


def _read_names(tree, out):
    """The names an expression or program tree reads (["id", name] anywhere in it), into out."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            if len(x) == 2 and x[0] == "id" and isinstance(x[1], str):
                out.add(x[1])
            else:
                stack.extend(x)
    return out


def _read_int_constants(src, programs, seen):
    """CONSTANT_EXPRS: the file's `static constexpr int` constants (RE_INT_CONSTANT_EXPR) that its
    programs read, or that such a constant's expression reads, each with its expression tree
    (`expr`), in source order; names already in seen are skipped."""
    found = [m for m in RE_INT_CONSTANT_EXPR.finditer(src.code) if m.group("name") not in seen]
    if not found:
        return []
    exprs = {}
    for m in found:
        exprs.setdefault(m.group("name"), (m, programs_cpp.parse_expr(" ".join(m.group("value").split()))))
    read, todo = set(), list(_read_names(programs, set()) & set(exprs))
    while todo:
        name = todo.pop()
        if name not in read:
            read.add(name)
            todo.extend(_read_names(exprs[name][1], set()) & set(exprs))
    out = []
    for name in sorted(read, key=lambda n: exprs[n][0].start()):
        m, tree = exprs[name]
        value = " ".join(m.group("value").split())
        im = RE_INT_LITERAL.match(value)
        out.append({"name": name, "value": int(im.group("value")) if im else value[:MAX_TEXT_CHARS],
                    "line": src.line(m.start("name")), "expr": tree})
    return out


def find_constants(src, programs=None):
    """Literal (and, as text, other) constexpr values named K_PIPE_*, *Stages*, *StageCount*, or
    FA3_BUILD_FLAGS; 88 FMHA's `kOuterLoads` (RE_OUTER_LOADS), its option flags (RE_OPTION_CONSTANT) and
    the backward's literal `kIsPersistent` (RE_PERSISTENT_LITERAL); with programs, the int
    constants they read (CONSTANT_EXPRS, _read_int_constants)."""
    out = []
    seen = set()
    for m in RE_OUTER_LOADS.finditer(src.code):
        if m.group("name") not in seen:
            seen.add(m.group("name"))
            out.append({"name": m.group("name"), "value": int(m.group("value")), "line": src.line(m.start("name"))})
    if "constexpr" not in src.code:
        return out
    for m in RE_PERSISTENT_LITERAL.finditer(src.code):
        if m.group("name") not in seen:
            seen.add(m.group("name"))
            out.append({"name": m.group("name"), "value": 1 if m.group("value") == "true" else 0, "line": src.line(m.start("name"))})
    for m in RE_CONSTANT.finditer(src.code):
        name = m.group("name")
        if name in seen:
            continue
        seen.add(name)
        value = " ".join(m.group("value").split())
        im = RE_INT_LITERAL.match(value)
        out.append({"name": name, "value": int(im.group("value")) if im else value[:MAX_TEXT_CHARS],
                    "line": src.line(m.start("name"))})
    if "find_option_t" in src.code:
        for m in RE_OPTION_CONSTANT.finditer(src.code):
            if m.group("name") not in seen:
                seen.add(m.group("name"))
                out.append({"name": m.group("name"), "value": " ".join(m.group("value").split())[:MAX_TEXT_CHARS],
                            "line": src.line(m.start("name"))})
    if programs is not None:
        out.extend(_read_int_constants(src, programs, seen))
    return out


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


# Op kinds that make a file a user of the pipeline API on their own. An MMA, a softmax step, a
# warpgroup / UMMA fence, a named barrier or a TMEM load alone does not (cute's arch headers and
# the tutorials are full of them); a file that has them also has one of these or an alias.
ACCEPTING_OPS = PIPELINE_MEMBER_OPS | {"tma_load", "tma_store", "cp_async", "barrier_wait",
                                       "barrier_arrive", "order_wait", "order_arrive"}


def has_pipeline_api(model):
    """True when the model holds a pipeline alias or a pipeline-API op (the tool has something to show)."""
    return bool(model["pipelines"]) or any(o["op"] in ACCEPTING_OPS
                                           for f in model["functions"] for o in f["ops"])


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


def whole_kernel(model):
    """A kernel layer that is a whole kernel in one file: functions of its own besides operator()
    hold the ops (77's `sm100_fmha_bwd_kernel_tma_warpspecialized.hpp`: load, mma, compute,
    reduce), so there is no mainloop header to pass with it (WHOLE_KERNEL, docs/programs.md)."""
    return any(f["ops"] and f["name"] != "operator()" for f in model.get("functions") or [])


KERNEL_LAYER_AS_MAINLOOP = ("is a kernel layer, not a collective mainloop: its ops are the kernel's "
                            "own; pass the mainloop header first and this one as --kernel-layer")


def parse_header(path, kernel_layer=None):
    """Parse a C++ mainloop (or kernel-layer) file, optionally with a kernel layer; raise VizError.

    parse_file (parse_core's, re-exported here) is the entry point: it sends a CuTe DSL file to
    parse_dsl and everything else here."""
    path = Path(path)
    text, warns = read_source(path)
    model = parse_text(text, path, display_path(path), warns, compose=True)
    _check_accepted(path, model, text)
    if model["kind"] == "kernel_layer" and not model["kernel_layer"].get("whole_kernel"):
        model["warnings"].append(f"{display_path(path)}: {KERNEL_LAYER_AS_MAINLOOP}")
    if kernel_layer is not None:
        ktext, kwarns = read_source(kernel_layer)
        ksrc = Source(ktext, kernel_layer, display_path(kernel_layer))
        if not looks_like_kernel_layer(ksrc):
            raise ParseError(kernel_layer, "not a CUTLASS kernel layer (no WarpGroupRole / WarpCategory "
                             "enum or collective_mainloop calls)")
        model["kernel_layer"] = parse_kernel_layer(ksrc)
        _collective_state_aliases(Source(text, path, display_path(path)), ksrc, model["kernel_layer"])
        model["warnings"].extend(kwarns)
    return model


# A collective the file composes from another collective (77 FMHA mainloop 180: `using Load =
# Sm100FmhaLoadTmaWarpspecialized<...>;`, defined in the file it includes at 42: `#include
# "collective/sm100_fmha_load_tma_warpspecialized.hpp"`).
RE_USING_TEMPLATE = re.compile(rf"\busing\s+(?P<alias>{_IDENT})\s*=\s*(?:typename\s+)?(?:{_IDENT}::)*(?P<cls>{_IDENT})\s*<")
RE_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"(?P<rel>[^"\n]{1,200})"', re.MULTILINE)
MAX_COMPOSED = 4   # composed collective classes read per file
INCLUDE_UP = 3     # a quoted include is looked for next to the file and up to this many folders up


def _composed_collectives(src, pipelines):
    """[(entry, sub)]: each collective src composes, `using A = C<...>` with C a `struct` / `class`
    of a file the text includes by a quoted path (looked for next to the file, then up to
    INCLUDE_UP folders up), and that file's parse (None when it cannot be read: entry["unread"]
    says why). parse_text joins their functions' programs as `A::f`, with `owner` A and the file's
    `path`, so `A a; a.f(...)` runs the composed collective's own program (docs/programs.md
    "Composed collectives"). Each entry also has the facts its objects are built from: the
    alias's template arguments `targs` (expression trees), the class's `tparams`, `members`,
    `construct` (programs_cpp.class_facts) and the file's `enums` (`enum class LoadKind {...}`,
    fmha_collective_load.hpp 39-42)."""
    path, text, code = src.path, src.text, src.code
    includes = [m.group("rel") for m in RE_QUOTED_INCLUDE.finditer(text)]
    found = []
    pipes = {p["alias"] for p in pipelines}
    # Each class is looked for once (its definition here, then in the includes): a file of
    # thousands of aliases of a few classes (cute/atom/mma_traits_sm90_gmma_sparse_ext.hpp: 5,152
    # of 5) took minutes when every alias searched the whole text and the includes again.
    looked = {}
    for m in RE_USING_TEMPLATE.finditer(code):
        cls = m.group("cls")
        if m.group("alias") in pipes:
            continue   # a pipeline class (77 MLA's PipelineTmaAsyncMla): its ops are the pipeline's, not a collective's
        if cls not in looked:
            # At most MAX_COMPOSED classes; more aliases of one class (88's backward: six of
            # CollectiveLoadTma, 239-270) are free, their file parsed once.
            full = len({e["class"] for e, _t, _a in found}) >= MAX_COMPOSED
            defined_here = re.search(rf"\b(?:struct|class)\s+{re.escape(cls)}\b", code) is not None
            looked[cls] = None if full or defined_here else _include_defining(path, includes, cls)
        target = looked[cls]
        if target is None or any(f["alias"] == m.group("alias") for f, _t, _a in found):
            continue
        targs = _angle_args(code, m.end())
        found.append(({"alias": m.group("alias"), "class": cls, "path": display_path(target),
                       "line": src.line(m.start())}, target, targs))
    out, parsed = [], {}
    for entry, target, targs in found:
        if target in parsed:
            out.append((dict(entry, **{k: v for k, v in parsed[target][0].items() if k not in entry and k != "targs"},
                             targs=[programs_cpp.parse_expr(t) for t in programs_cpp.split_top(targs, ",", angles=True)]), parsed[target][1]))
            continue
        try:
            ctext, cwarns = read_source(target)
        except VizError as exc:
            out.append((dict(entry, unread=f"{src.display}:{entry['line']}: the composed collective "
                                           f"{entry['class']} ({entry['path']}) was not read: {exc}"), None))
            continue
        csrc = Source(ctext, target, entry["path"])
        facts = programs_cpp.class_facts(csrc, entry["class"])
        if facts is not None:
            entry.update(facts, targs=[programs_cpp.parse_expr(t) for t in programs_cpp.split_top(targs, ",", angles=True)])
            entry["enums"] = [{"name": e.group("name"), "members": [x.split("=")[0].strip() for x in e.group("body").split(",") if x.strip()]}
                              for e in RE_ANY_ROLE_ENUM.finditer(csrc.code)]
        out.append((entry, parse_text(ctext, target, entry["path"], cwarns)))
        parsed[target] = out[-1]
    return out


def _angle_args(code, pos, limit=2000):
    """The text between the `<` just before pos and its matching `>` (nested <>, () counted), or ""."""
    depth, i, hi = 1, pos, min(len(code), pos + limit)
    while i < hi:
        ch = code[i]
        depth += ch in "<(" and 1 or ch in ">)" and -1 or 0
        if depth == 0:
            return code[pos:i]
        if ch in ";{}":
            return ""
        i += 1
    return ""


def _join_collective(model, entry, sub):
    """Add a parsed collective's programs to model as `alias::f` (owner, path); False when it has no op."""
    if not any(f["ops"] for f in sub["functions"]):
        return False   # no protocol op: nothing of it is a step
    for prog in sub["programs"]["functions"]:
        prog = dict(prog, name=entry["alias"] + "::" + prog["name"], owner=entry["alias"], path=entry["path"])
        model["programs"]["functions"].append(prog)
    model["warnings"].extend(w for w in sub["warnings"] if w not in model["warnings"])
    model["collectives"].append(entry)
    return True


def add_epilogue(model, path):
    """Join the epilogue collective at path to a C++ model as the kernel layer's `CollectiveEpilogue`
    (viz.py / kernel-viz-parse --epilogue-collective): `epilogue.store(...)` then runs its own program
    (docs/programs.md "Composed collectives"); raise VizError on a file that cannot be read or
    holds no protocol op."""
    if model.get("language") != "cpp":
        raise InputError(path, "--epilogue-collective applies to C++ headers")
    path = Path(path)
    text, warns = read_source(path)
    sub = parse_text(text, path, display_path(path), warns)
    entry = {"alias": "CollectiveEpilogue", "class": "CollectiveEpilogue", "path": display_path(path), "line": None}
    model.setdefault("collectives", [])
    if not _join_collective(model, entry, sub):
        raise ParseError(path, "no pipeline op in this epilogue collective")


def _include_defining(path, includes, cls):
    """The first quoted include, next to path or up to INCLUDE_UP folders up, whose text defines
    `struct cls` / `class cls`; None when no include does."""
    base = Path(path).resolve().parent
    pattern = re.compile(rf"\b(?:struct|class)\s+{re.escape(cls)}\s*(?:final\s*)?[:{{]")
    for rel in includes:
        # A file near the root has fewer than INCLUDE_UP folders above it.
        for up in range(min(INCLUDE_UP, len(base.parents)) + 1):
            cand = base.parents[up - 1] / rel if up else base / rel
            try:
                if cand.is_file() and cand.stat().st_size <= parse_core.MAX_FILE_BYTES and pattern.search(cand.read_text(errors="replace")):
                    return cand
            except OSError:
                continue
    return None


def attach_params(model, path):
    """Give the model the tile / cluster / dtypes / stages facts a translation unit or example
    driver spells (--params-from; a mainloop's are template parameters), each with its `file`.
    Facts the file does not mention keep the model's own; raise ParseError when it has none."""
    text, warns = read_source(path)
    shown = display_path(path)
    facts = parse_tile.kernel_params(Source(text, path, shown))
    if all(fact is None for fact in facts.values()):
        raise ParseError(path, "no TileShape, ClusterShape, Element* or StageCount found (--params-from)")
    for key, fact in facts.items():
        if fact is not None:
            for one in fact.values() if key == "dtypes" else (fact,):
                one["file"] = shown
            model[key] = fact
    model["warnings"].extend(warns)
    return model


def _check_accepted(path, model, text):
    """Raise unless a single parse shows this model: a driver or a file without the pipeline API
    is refused (the scan lists exactly the files this accepts)."""
    if model["kind"] == "driver" or (not has_pipeline_api(model) and RE_DRIVER.search(text)):
        cands = driver_candidates(path)
        notes = [f"candidate mainloop: {display_path(c)}" for c in cands]
        where = "; candidates listed below" if cands else \
            "; no CUTLASS include tree found above it to list candidates"
        raise DriverFileError(path, "example driver: the pipeline API lives in the collective mainloop "
                              "the CollectiveBuilder resolves to (pass that header)" + where, notes=notes)
    if not has_pipeline_api(model) and model["kind"] != "kernel_layer":
        raise ParseError(path, f"no CUTLASS pipeline API found in {path}")


# ----------------------------------------------------------------------------------------------
# Scan: this front end's part (the walk, the rows and the pool are parse_core's)
# ----------------------------------------------------------------------------------------------

# A single parse accepts a file with a pipeline alias, an op of ACCEPTING_OPS or a kernel-layer
# enum / collective call, and each of those recognisers needs one of these words in the text.
# So this cheap test is a superset of what parse_header accepts (tests/test_scan_tree.py checks
# it on the whole CUTLASS 4.2 tree).
RE_SCAN_PREFILTER = re.compile(r"""
    Pipeline                                  # an alias or a template parameter
  | producer_ | consumer_                     # pipeline member calls
  | (?:\.|->) \s* with \s* \(                # a TMA copy: X.with( / X->with(
  | tma_load | tma_store                      # load helpers, TMA stores
  | gmem_tiled_copy | gmem_copy | gmem_to_smem  # cp.async copies
  | barrier_                                  # standalone barriers, FA3's warp_scheduler_barrier_*
  | order_barrier                             # order barriers
  | (?:\.|->) \s* (?:wait|try_wait|arrive\w*|init) \s* \(   # raw mbarriers (parse_mbarrier.RE_MEMBER)
  | WarpGroupRole | ProducerWarpRole | WarpCategory | mainloop \s* \.   # kernel layers
""", re.VERBOSE)


def scan_model(text, path, display, warns):
    """The model of a C++ file for --scan (parse_core.scan_file), or None when a single parse
    (parse_header) would refuse it."""
    if not RE_SCAN_PREFILTER.search(text):
        return None
    model = parse_text(text, path, display, warns)
    try:
        _check_accepted(path, model, text)
    except VizError:
        return None
    if model["kind"] == "kernel_layer" and not model["kernel_layer"].get("whole_kernel"):
        model["warnings"].append(f"{model['source']['path']}: {KERNEL_LAYER_AS_MAINLOOP}")
    return model


# ----------------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------------

EPILOG = """examples:
  %(prog)s sm90_mma_tma_gmma_ss_warpspecialized.hpp --pretty
  %(prog)s include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp \\
      --kernel-layer sm90_gemm_tma_warpspecialized_pingpong.hpp
  %(prog)s --scan $CUTLASS_PATH/include
  %(prog)s --scan $CUTLASS_PATH/include --json
  %(prog)s --scan $CUTLASS_PATH/include --jobs 1     # in this process, no workers
  %(prog)s --scan $CUTLASS_PATH/include --fit        # and which schedule model fits (needs node)

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
    ap.add_argument("--epilogue-collective", metavar="E", help="the epilogue collective the kernel layer instantiates "
                    "(its store then runs its own program)")
    ap.add_argument("--params-from", metavar="TU", help="translation unit or example driver whose literal "
                    "TileShape, ClusterShape, Element* and StageCount replace the file's (docs/json.md)")
    ap.add_argument("--pretty", action="store_true", help="indent the JSON")
    ap.add_argument("--scan", metavar="DIR", help="summarise every header under DIR that uses the pipeline API")
    ap.add_argument("--json", action="store_true", help="with --scan: JSON lines instead of a table")
    ap.add_argument("--jobs", type=_jobs_count, default=None, metavar="N",
                    help="with --scan: parse in N worker processes (default: one per core; "
                         "1 parses in this process); the output is the same for every N")
    ap.add_argument("--fit", action="store_true",
                    help="with --scan: add the schedule model each file fits, or why none "
                         "(schedule.js's fitModel, run once under node)")
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return ap


# The --scan table's columns, in order: (header, the row's value as text). The JSON lines hold
# the same keys (plus `fit` with --fit).
SCAN_COLUMNS = (
    ("path", lambda r: r["path"]),
    ("file", lambda r: r["file_kind"]),
    ("kind", lambda r: r["kind"]),
    ("arch", lambda r: r["arch"]),
    ("pipelines", lambda r: ",".join(r["pipeline_classes"]) or "-"),
    ("objects", lambda r: str(r["pipeline_objects"])),
    ("producers", lambda r: str(r["producers"])),
    ("consumers", lambda r: str(r["consumers"])),
    ("ops", lambda r: str(r["ops"])),
    ("warnings", lambda r: str(r["warnings"])),
)
# With --fit: the model, or "none: <reason>".
FIT_COLUMN = ("model", lambda r: r["fit"]["model"] or "none: " + r["fit"]["reason"])

# Prints fitModel(structure) of each structure on stdin as [{model, reason}].
NODE_FIT_SCRIPT = (
    "const K=require(process.argv[1]);"
    "const all=JSON.parse(require('fs').readFileSync(0,'utf8'));"
    "process.stdout.write(JSON.stringify(all.map((s)=>{const f=K.fitModel(s);return {model:f.model,reason:f.reason};})));"
)


def fit_rows(rows):
    """Add `fit` ({model, reason}, schedule.js's fitModel) to scan rows carrying `_model`, with
    one node process; InputError when node is missing or fails."""
    import shutil
    import subprocess
    import pagekit
    node = shutil.which("node")
    if node is None:
        raise InputError("node", "not found on PATH: --fit asks schedule.js's fitModel (run under node)")
    models = [r.pop("_model") for r in rows]
    proc = subprocess.run([node, "-e", NODE_FIT_SCRIPT, str(pagekit.asset_path("schedule.js"))],
                          input=json.dumps(models), capture_output=True, text=True)
    if proc.returncode != 0:
        raise InputError("schedule.js", (proc.stderr.strip().splitlines() or ["fitModel failed"])[-1])
    for row, fit in zip(rows, json.loads(proc.stdout)):
        row["fit"] = fit
    return rows


def print_scan_row(row, columns, as_json):
    """One --scan row: JSON with sorted keys, or the table's tab-separated columns."""
    if as_json:
        print(json.dumps(row, sort_keys=True))
    else:
        print("\t".join(value(row) for _name, value in columns))


def _jobs_count(text):
    """argparse type of --jobs: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


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
        jobs = args.jobs if args.jobs is not None else default_jobs()
        columns = SCAN_COLUMNS + ((FIT_COLUMN,) if args.fit else ())
        if not args.json:
            print("\t".join(name for name, _value in columns))
        # closing(): an early end (a closed pipe, Ctrl-C) stops the scan's workers right here.
        with contextlib.closing(scan(args.scan, jobs, with_models=args.fit)) as found:
            # With --fit the rows wait for one fitModel run over all of them; else they stream.
            pending = []
            for row in found:
                rows += 1
                if args.fit:
                    pending.append(row)
                else:
                    print_scan_row(row, columns, args.json)
            for row in fit_rows(pending) if args.fit else ():
                print_scan_row(row, columns, args.json)
        if not args.json:
            print(f"{rows} files use the pipeline API", file=sys.stderr)
        return 0
    if not args.file:
        ap.error("FILE or --scan DIR is required")
    path = locate(args.file)
    klayer = locate(args.kernel_layer) if args.kernel_layer else None
    model = parse_file(path, klayer)
    if args.epilogue_collective:
        add_epilogue(model, locate(args.epilogue_collective))
    if args.params_from:
        attach_params(model, locate(args.params_from))
    print_warnings(model)
    sys.stdout.write(dump_json(model, args.pretty) + "\n")
    return 0


parse_core.register_front_end("parse_cutlass", sys.modules[__name__])

if __name__ == "__main__":
    sys.exit(main())
