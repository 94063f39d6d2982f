"""The kernel's tile shape, cluster shape, element types and stage count, read from C++ source.

parse_cutlass.parse_text calls kernel_params(src) on every file; the result is four facts of the
JSON model (`tile`, `cluster`, `dtypes`, `stages`; docs/json.md "Kernel parameters"), each null
when the file does not mention it. A fact is literal (numbers) when the file spells it
(`using TileShape = Shape<_128,_128,_64>;`, CUTLASS 4.2's examples/48_hopper_warp_specialized_gemm
line 110) and not literal (numbers null) when the file only names it: a template parameter
(`class TileShape_`, sm90_mma_tma_gmma_ss_warpspecialized.hpp line 58) or an alias of another type
(`using TileShape = typename CollectiveMainloop::TileShape;`, the kernel layers). The simulator
uses only literal facts (docs/performance.md "Where the tile, dtype and cluster come from").

Every pattern runs on the blanked code (comments, string bodies and preprocessor lines are
spaces), so a commented-out alias or a macro never matches; line numbers come from the same
offsets. Standard library only.
"""

import re

_IDENT = r"[A-Za-z_]\w*"

# Alias names of each shape fact, in order of preference (the first name found wins; a literal
# definition wins over a non-literal one). Counted over CUTLASS 4.2's examples/ and include/:
# TileShape 25 definitions, MmaTileShape_MNK 13, MmaTileShape 13, ThreadBlockShape 6,
# MmaTileMNK 4; ClusterShape 52, ClusterShape_MNK 12, ClusterShapeMNK 5. FlashAttention-3's
# mainloop names its template parameter TileShape_MNK_ (mainloop_fwd_sm90_tma_gmma_ws.hpp line 31).
SHAPE_NAMES = {
    "tile": ("TileShape", "MmaTileShape", "MmaTileShape_MNK", "TileShape_MNK", "ThreadBlockShape",
             "MmaTileMNK"),
    "cluster": ("ClusterShape", "ClusterShape_MNK", "ClusterShapeMNK"),
}

# Element-type aliases and the operand each one names. `Element` alone is the attention
# examples' one type for Q, K and V (tests/compiled/sm90_fmha_fwd.cu, 88_hopper_fmha).
ELEMENT_ROLES = (
    ("ElementA", ("a",)), ("ElementB", ("b",)), ("ElementC", ("c",)), ("ElementD", ("d",)),
    ("ElementAccumulator", ("accumulator",)), ("Element", ("a", "b")),
)

# Spelled element types -> the dtype names of sim/perf.js (DTYPE_BYTES), after dropping a
# cutlass:: / cute:: qualifier. `float` stays fp32 here: the SM90 collective builder runs float
# operands as TF32 (sm90_gmma_builder.inl line 239, ElementAMma = conditional_t<is_same_v<
# ElementA, float>, tfloat32_t, ElementA>); sim/perf.js's unitParams applies that rule.
TYPE_DTYPES = {
    "bfloat16_t": "bf16", "__nv_bfloat16": "bf16",
    "half_t": "fp16", "__half": "fp16", "half": "fp16",
    "float_e4m3_t": "fp8", "float_e5m2_t": "fp8", "__nv_fp8_e4m3": "fp8", "__nv_fp8_e5m2": "fp8",
    "tfloat32_t": "tf32", "float": "fp32", "float_e2m1_t": "fp4",
}
# Block-scaled wrappers name the data type as their argument (72_blackwell_narrow_precision_gemm:
# `using ElementA = cutlass::nv_float4_t<cutlass::float_e2m1_t>;`).
RE_SCALED_TYPE = re.compile(r"^(?:cutlass::|cute::)?(?:nv_float4_t|mx_float\d+_t)\s*<(?P<inner>[^<>]+)>$")
RE_QUALIFIER = re.compile(r"^(?:::)?(?:cutlass|cute)\s*::\s*")

RE_USING = re.compile(rf"""
    \busing \s+ (?P<name>{_IDENT}) \s* = \s*   # using TileShape =
    (?P<rhs> [^;{{}}]{{1,300}} ) ;             # the type, up to its ;
""", re.VERBOSE)
RE_TEMPLATE_OPEN = re.compile(r"\btemplate\s*<")
MAX_TEMPLATE_CHARS = 4000   # a template parameter list longer than this is not read
# A template parameter named like a fact (`class TileShape_,`, `int Stages,`), inside a list.
RE_TEMPLATE_PARAM = re.compile(rf"""
    \b (?P<kind> class | typename | int ) \s+ (?P<name>{_IDENT}) \s* (?= [,>=] )
""", re.VERBOSE)
# A literal shape: Shape<_128,_128,_64>, cute::Shape<Int<128>, ...>.
RE_SHAPE = re.compile(r"^(?:(?:::)?cute\s*::\s*)?Shape\s*<(?P<args>.*)>$", re.DOTALL)
RE_STATIC_INT = re.compile(r"^(?:(?:::)?cute\s*::\s*)?(?:_(?P<u>\d+)|(?:Int|C)\s*<\s*(?P<i>\d+)\s*>)$")
# The stage count of a CollectiveBuilder: StageCount<4>, StageCountAuto, StageCountAutoCarveout<..>.
RE_STAGE_COUNT = re.compile(r"\bStageCount(?P<auto>Auto\w*)?\b(?:\s*<\s*(?P<n>\d+)\s*>)?")
STAGE_PARAMS = ("Stages", "Stages_", "kStages")
RE_MAIN = re.compile(r"\bint\s+main\s*\(")
# A literal shape passed as a call's first argument: CUTLASS 4.2's example 77 driver
# (77_blackwell_fmha.cu 950) hands its tile to a lambda, `run(Shape<_256, _128, HeadDim>{}, ...)`,
# where `using HeadDim = _128;` (946) sits in the same function (_64 at 979, _32 at 1009).
RE_SHAPE_ARG = re.compile(rf"""
    \b (?P<callee>{_IDENT}) \s* \( \s*                          # run(
    (?P<shape> (?:(?:::)?cute\s*::\s*)? Shape \s* < [^<>;{{}}()]{{1,200}} > ) \s* \{{ \s* \}}   # Shape<_256, _128, HeadDim>{{}}
""", re.VERBOSE)


def _one_line(text):
    """White space collapsed."""
    return " ".join(text.split())


def _split_args(text):
    """Top-level comma-separated parts of a template argument list."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def template_lists(code):
    """(start, end) of each `template <...>` parameter list: its angle brackets matched by depth
    (parentheses count too, so `(a > b)` in a default does not close it), bounded per list. A
    `template <` inside a list already scanned is skipped (the outer list holds its parameters),
    so every character is scanned at most once: linear on any text."""
    done = 0
    for m in RE_TEMPLATE_OPEN.finditer(code):
        if m.start() < done:
            continue
        depth, i, end = 1, m.end(), min(len(code), m.end() + MAX_TEMPLATE_CHARS)
        while i < end:
            ch = code[i]
            if ch in "<(":
                depth += 1
            elif ch in ">)":
                depth -= 1
                if depth == 0:
                    yield m.end(), i + 1
                    break
            elif ch in ";{}":
                break
            i += 1
        done = i


def shape_dims(rhs):
    """[m, n, k] of a literal Shape<...> type (k None for a 2-D shape), else None."""
    m = RE_SHAPE.match(_one_line(rhs))
    if not m:
        return None
    dims = []
    for part in _split_args(m.group("args")):
        im = RE_STATIC_INT.match(part)
        if not im:
            return None
        dims.append(int(im.group("u") or im.group("i")))
    if len(dims) not in (2, 3):
        return None
    return dims + [None] * (3 - len(dims))


def type_dtype(text):
    """The sim/perf.js dtype of a spelled element type (bf16, fp8, ...), else None."""
    t = _one_line(text)
    scaled = RE_SCALED_TYPE.match(t)
    if scaled:
        t = scaled.group("inner").strip()
    return TYPE_DTYPES.get(RE_QUALIFIER.sub("", t))


def _shape_fact(name, dims, line, text, literal):
    """One tile / cluster fact."""
    m, n, k = dims if dims else (None, None, None)
    return {"m": m, "n": n, "k": k, "line": line, "source": name, "text": text[:160], "literal": literal}


def _better(old, new, names):
    """True when fact `new` should replace `old`: literal first, then the earlier name of the table."""
    if old is None:
        return True
    if old["literal"] != new["literal"]:
        return new["literal"]
    rank = {n: i for i, n in enumerate(names)}
    return rank[new["_name"]] < rank[old["_name"]]


def _argument_tile(src, code):
    """The tile of a file with no TileShape alias that passes literal shapes as call arguments
    (RE_SHAPE_ARG): literal when every such call's m and n agree. A third argument that names an
    alias (`HeadDim`) takes the nearest `using HeadDim = _N;` before the call; k is a number only
    when every call agrees on it, and the source text lists each call's k with its line, so a
    reader sees which instantiations there are rather than one chosen among them."""
    calls = []
    for m in RE_SHAPE_ARG.finditer(code):
        shape = _one_line(m.group("shape"))
        args = _split_args(RE_SHAPE.match(shape).group("args")) if RE_SHAPE.match(shape) else []
        if len(args) != 3 or not all(RE_STATIC_INT.match(a) for a in args[:2]):
            continue
        dims = [int(RE_STATIC_INT.match(a).group("u") or RE_STATIC_INT.match(a).group("i")) for a in args[:2]]
        k_text, k, k_line = args[2], None, src.line(m.start("shape"))
        km = RE_STATIC_INT.match(k_text)
        if km:
            k = int(km.group("u") or km.group("i"))
        elif re.fullmatch(_IDENT, k_text):
            alias = None
            for u in RE_USING.finditer(code, 0, m.start()):
                if u.group("name") == k_text:
                    alias = u
            am = RE_STATIC_INT.match(_one_line(alias.group("rhs"))) if alias else None
            if am:
                k, k_line = int(am.group("u") or am.group("i")), src.line(alias.start("name"))
        calls.append({"dims": dims, "k": k, "k_text": k_text, "k_line": k_line, "line": src.line(m.start("shape")),
                      "callee": m.group("callee"), "shape": shape})
    if not calls or any(c["dims"] != calls[0]["dims"] for c in calls):
        return None
    first = calls[0]
    ks = sorted({c["k"] for c in calls}, key=lambda x: (x is None, x or 0))
    k = ks[0] if len(ks) == 1 else None
    seen = []
    for c in calls:
        item = f"{c['k_text']} = {c['k'] if c['k'] is not None else '?'} (line {c['k_line']})"
        if item not in seen:
            seen.append(item)
    each = ", ".join(seen)
    source = (f"{first['callee']}({first['shape']}{{}}) argument, m x n the same in all {len(calls)} calls"
              + (f"; k not one value: {each}" if k is None else ""))
    fact = _shape_fact(source, [first["dims"][0], first["dims"][1], k], first["line"], first["shape"], True)
    fact["_name"] = "argument"
    return fact


def kernel_params(src):
    """{tile, cluster, dtypes, stages} of one C++ source (parse_cutlass.Source: .code, .line()).

    tile / cluster: {m, n, k, line, source, text, literal} (the first preferred alias; numbers
    null when not literal); dtypes: {operand: {dtype, type, line, source}} for the Element*
    aliases (dtype null when the type is not one of TYPE_DTYPES); stages: {value, line, source,
    text} (value an int, "auto", or null for a template parameter)."""
    code = src.code
    best = {"tile": None, "cluster": None}
    dtypes = {}
    element_rank = {}
    stages = None
    # Template parameters first: a `using TileShape = TileShape_;` then keeps the parameter's line.
    params = (m for lo, hi in template_lists(code) for m in RE_TEMPLATE_PARAM.finditer(code, lo, hi))
    for m in params:
        name, kind = m.group("name"), m.group("kind")
        line = src.line(m.start("name"))
        bare = name[:-1] if name.endswith("_") else name
        if kind != "int":
            for fact, names in SHAPE_NAMES.items():
                if bare in names:
                    new = _shape_fact("template parameter " + name, None, line, name, False)
                    new["_name"] = bare
                    if _better(best[fact], new, names):
                        best[fact] = new
            for rank, (alias, roles) in enumerate(ELEMENT_ROLES):
                if bare == alias:
                    for role in roles:
                        if role not in dtypes:
                            dtypes[role] = {"dtype": None, "type": name, "line": line,
                                            "source": "template parameter " + name}
                            element_rank[role] = rank
        elif name in STAGE_PARAMS and stages is None:
            stages = {"value": None, "line": line, "source": "template parameter " + name, "text": name}
    for m in RE_USING.finditer(code):
        name, rhs = m.group("name"), m.group("rhs")
        line = src.line(m.start("name"))
        for fact, names in SHAPE_NAMES.items():
            if name in names:
                dims = shape_dims(rhs)
                new = _shape_fact(name, dims, line, _one_line(rhs), dims is not None)
                new["_name"] = name
                if _better(best[fact], new, names):
                    best[fact] = new
        for rank, (alias, roles) in enumerate(ELEMENT_ROLES):
            if name != alias:
                continue
            text = _one_line(rhs)
            dtype = type_dtype(text)
            # `using ElementD = ElementC;`: the earlier alias's dtype (one level).
            ref = next((r for a, rs in ELEMENT_ROLES if a == text for r in rs), None)
            if dtype is None and ref in dtypes:
                dtype = dtypes[ref]["dtype"]
            for role in roles:
                # A specific alias (ElementA) wins over `Element`; the first definition of each.
                if role in dtypes and element_rank[role] <= rank:
                    continue
                dtypes[role] = {"dtype": dtype, "type": text[:160], "line": line, "source": name}
                element_rank[role] = rank
    # The first StageCount with a literal count or Auto (StageCount<kStages> is not literal).
    sm = next((x for x in RE_STAGE_COUNT.finditer(code) if x.group("auto") or x.group("n")), None)
    if sm:
        stages = {"value": "auto" if sm.group("auto") else int(sm.group("n")),
                  "line": src.line(sm.start()), "source": "StageCount", "text": _one_line(sm.group(0))}
    # Only in a program's driver (one with `main(`): a header's `Shape<_1,_1,_1>{}` argument is no tile.
    if (best["tile"] is None or not best["tile"]["literal"]) and RE_MAIN.search(code):
        best["tile"] = _argument_tile(src, code) or best["tile"]
    for fact in best.values():
        if fact is not None:
            del fact["_name"]
    return {"tile": best["tile"], "cluster": best["cluster"], "dtypes": dtypes or None, "stages": stages}
