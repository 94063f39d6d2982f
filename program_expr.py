"""program_expr.py: C++ expressions of a role program as small JSON trees.

The role programs (docs/programs.md) carry every condition, trip count and assignment as an
expression tree that sim/interpret.js evaluates; this module reads the C++ spelling of one into
that tree. It is a Pratt parser over a token list: linear in the text, bounded in depth, and it
never raises on text (what it cannot read becomes `["?", text]`, which the interpreter treats as
unknown and reports).

Trees (JSON arrays, first item the node's kind):
  ["n", 3]                      integer literal (suffixes u, l dropped; true / false are 1 / 0)
  ["id", "k_tile_count"]        a name, qualification kept (`WarpGroupRole::Producer`)
  ["un", "!", e]                unary ! - + ~ (`not` is `!`); `*e` and `&e` are e itself
  ["bin", "+", a, b]            binary + - * / % << >> < > <= >= == != & ^ | && || (`and`, `or`)
  ["?:", c, a, b]               conditional
  ["call", "min", [args], "T"]  a free call, with its template arguments' text when written
  ["mcall", obj, "index", [args], "T"]   a member call obj.name(args) (or obj->name)
  ["member", obj, "M_idx"]      a member read
  ["struct", [names], [values]] an aggregate `T x = {a, b}` of a struct the file defines (programs_cpp)
  ["index", obj, e]             obj[e]
  ["decltype", e, "value"]      `decltype(x)::value`: a static member of the type of a name x (a
                                lambda's `auto` parameter: FA3 mainloop 1259); decltype of any other
                                expression is not read
  ["?", "text"]                 not read
"""

import re

MAX_DEPTH = 64          # nesting deeper than this is not read (["?", text])
MAX_EXPR_CHARS = 400    # longer texts are not read

RE_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<num>(?:0[xX][0-9a-fA-F']+|\d[\d']*)(?:[uUlL]{0,3})(?![\w.]))
  | (?P<ident>(?:::)?[A-Za-z_]\w*(?:\s*::\s*(?:template\s+)?[A-Za-z_]\w*)*)
  | (?P<op>&&|\|\||==|!=|<=|>=|<<|>>|->|\+\+|--|[-+*/%<>!?:.,()\[\]{}&|^~=])
""", re.VERBOSE)

BINARY = {"||": 1, "or": 1, "&&": 2, "and": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
          "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10,
          "%": 10}
WORD_OPS = {"or": "||", "and": "&&", "not": "!"}
CLOSERS = {"(": ")", "[": "]", "{": "}"}


class _Unread(Exception):
    """The text is not an expression this parser reads."""


def tokens(text):
    """[(kind, value)] of text; raises _Unread on a character no token matches."""
    out, pos, n = [], 0, len(text)
    while pos < n:
        m = RE_TOKEN.match(text, pos)
        if m is None:
            raise _Unread(text)
        kind = m.lastgroup
        if kind != "space":
            value = m.group()
            if kind == "ident":
                value = re.sub(r"\s+", "", value).replace("::template", "::")
                if value in WORD_OPS:
                    kind, value = "op", WORD_OPS[value]
            out.append((kind, value))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, toks):
        self.t, self.i, self.depth = toks, 0, 0

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else (None, None)

    def take(self, value=None):
        kind, v = self.peek()
        if kind is None or (value is not None and v != value):
            raise _Unread(value)
        self.i += 1
        return v

    def expr(self, min_prec=0):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Unread("depth")
        left = self.unary()
        while True:
            kind, v = self.peek()
            if kind == "op" and v == "?" and min_prec == 0:
                self.i += 1
                a = self.expr(0)
                self.take(":")
                b = self.expr(0)
                left = ["?:", left, a, b]
                continue
            prec = BINARY.get(v) if kind == "op" else None
            if prec is None or prec < min_prec:
                break
            self.i += 1
            right = self.expr(prec + 1)
            left = ["bin", v, left, right]
        self.depth -= 1
        return left

    def unary(self):
        kind, v = self.peek()
        if kind == "op" and v in ("!", "-", "+", "~"):
            self.i += 1
            return ["un", v, self.unary()]
        if kind == "op" and v in ("*", "&"):
            self.i += 1
            return self.unary()
        return self.postfix(self.primary())

    def args(self, closer):
        out = []
        if self.peek()[1] == closer:
            self.i += 1
            return out
        while True:
            out.append(self.expr(0))
            v = self.take()
            if v == closer:
                return out
            if v != ",":
                raise _Unread(v)

    def template_args(self):
        """Text of `<...>` at the cursor when it closes and a call, brace or :: follows; else None."""
        depth, j = 0, self.i
        parts = []
        while j < len(self.t):
            kind, v = self.t[j]
            if v == "<":
                depth += 1
            elif v == ">":
                depth -= 1
            elif v == ">>":
                depth -= 2
            elif v in (";", "{", "}") or (v in ("&&", "||") and depth == 1):
                return None
            parts.append(v)
            j += 1
            if depth <= 0:
                break
        if depth != 0 or j >= len(self.t) or self.t[j][1] not in ("(", "{"):
            return None
        self.i = j
        return "".join(parts[1:-1]) if parts[-1] == ">" else "".join(parts[1:])[:-1]

    def primary(self):
        kind, v = self.peek()
        if kind == "num":
            self.i += 1
            digits = v.replace("'", "").rstrip("uUlL")
            return ["n", int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)]
        if kind == "ident" and v == "typename" and self.peek(1)[0] == "ident":
            self.i += 1                  # `typename T{}`: the type's construction
            kind, v = self.peek()
        if kind == "ident" and v == "decltype":
            return self.decltype_member()
        if kind == "ident" and v in ("is_constant", "cute::is_constant") and self.peek(1)[1] == "<":
            return self.is_constant()
        if kind == "ident":
            self.i += 1
            if v in ("true", "false"):
                return ["n", 1 if v == "true" else 0]
            targs = self.template_args() if self.peek()[1] == "<" else None
            nxt = self.peek()[1]
            if nxt in ("(", "{"):
                self.i += 1
                call = ["call", v, self.args(CLOSERS[nxt])]
                if targs is not None:
                    call.append(targs)
                return call
            if targs is not None:
                return ["id", f"{v}<{targs}>"]
            return ["id", v]
        if kind == "op" and v == "(":
            self.i += 1
            e = self.expr(0)
            self.take(")")
            return e
        raise _Unread(v)

    def decltype_member(self):
        """`decltype(x)::m` at the cursor, x a name (["decltype", ["id", x], m]); else _Unread."""
        self.take("decltype")
        self.take("(")
        kind, name = self.peek()
        if kind != "ident" or self.peek(1)[1] != ")":
            raise _Unread("decltype")
        self.i += 2
        kind, member = self.peek()
        if kind != "ident" or not re.fullmatch(r"::[A-Za-z_]\w*", member):
            raise _Unread("decltype")   # `decltype(x)` alone is a type, not a value
        self.i += 1
        return ["decltype", ["id", name], member[2:]]

    def is_constant(self):
        """`is_constant<N, decltype(e)>::value` at the cursor (cute/numeric/integral_constant.hpp
        104-118: true when e's type is an integral constant of value N): ["is_constant", N, e]."""
        self.i += 1
        self.take("<")
        kind, n = self.peek()
        if kind != "num":
            raise _Unread("is_constant")
        self.i += 1
        self.take(",")
        self.take("decltype")
        self.take("(")
        e = self.expr(0)
        self.take(")")
        self.take(">")
        if self.take() != "::value":
            raise _Unread("is_constant")
        return ["is_constant", int(n.replace("'", "").rstrip("uUlL"), 0), e]

    def postfix(self, e):
        while True:
            kind, v = self.peek()
            if kind == "op" and v in (".", "->"):
                self.i += 1
                name = self.take()
                if name == "template":   # obj.template f<T>(...)
                    name = self.take()
                if not re.fullmatch(r"[A-Za-z_]\w*", name or ""):
                    raise _Unread(name)
                targs = self.template_args() if self.peek()[1] == "<" else None
                if self.peek()[1] == "(":
                    self.i += 1
                    e = ["mcall", e, name, self.args(")")]
                    if targs is not None:
                        e.append(targs)
                else:
                    e = ["member", e, name]
            elif kind == "op" and v == "[":
                self.i += 1
                idx = self.expr(0)
                self.take("]")
                e = ["index", e, idx]
            elif kind == "op" and v in ("++", "--"):
                self.i += 1
                e = ["post", v, e]
            else:
                return e


def parse_expr(text):
    """The expression tree of text (["?", text] when it is not read)."""
    text = " ".join(text.split())
    if not text:
        return ["?", ""]
    if len(text) > MAX_EXPR_CHARS:
        return ["?", text[:MAX_EXPR_CHARS - 3] + "..."]
    try:
        p = _Parser(tokens(text))
        e = p.expr(0)
        if p.i != len(p.t):
            raise _Unread(text)
        return e
    except (_Unread, RecursionError, ValueError):
        return ["?", text]


def names_in(e, out=None):
    """The ["id"] names an expression reads (a set)."""
    out = set() if out is None else out
    if isinstance(e, list) and e:
        if e[0] == "id":
            out.add(e[1])
        else:
            # A call's template argument that is one name (`get<wg_dim>(wg_coord)`, 88 FMHA kernel 364) reads it.
            if e[0] == "call" and len(e) > 3 and isinstance(e[3], str) and re.fullmatch(r"[A-Za-z_]\w*", e[3]):
                out.add(e[3])
            for x in e[1:]:
                if isinstance(x, list):
                    if x and isinstance(x[0], str):
                        names_in(x, out)
                    else:
                        for y in x:
                            names_in(y, out)
    return out
