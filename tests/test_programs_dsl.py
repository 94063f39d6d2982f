"""The CuTe DSL front end of the role programs (programs_dsl.py, docs/programs.md "CuTe DSL front
end"): expressions equal to program_expr's trees, one fixture per construct, FA4's kernels with
pinned lines (flash-attn-4 4.0.0b36, located at test time as tests/test_parser_dsl.py does).

CUTLASS 4.2's CuTe DSL dense GEMM examples are not tested here: the nvidia-cutlass 4.2.0.0 wheel
ships only notebooks and an ffi example under cutlass_library/source/examples/python/CuTeDSL.
"""

import ast
import json

import pytest

import parse_cutlass
import parse_dsl
import programs_dsl
from conftest import ROOT
from program_expr import parse_expr
from test_parser_dsl import contract_schema, fa4_dir

FIXTURE = ROOT / "tests" / "fixtures" / "programs_dsl" / "constructs.py"


def py_expr(text, local_names=("a", "b", "c", "s", "p", "x", "y", "z", "w", "k", "n", "m", "t", "i")):
    """The tree programs_dsl gives a Python expression."""
    src = parse_dsl.SourceText(text, "<expr>")
    node = ast.parse(text, mode="eval").body
    return programs_dsl.ExprReader(src, set(local_names)).expr(node)


@pytest.mark.parametrize("python, c", [
    ("a + b * 3", "a + b * 3"),
    ("a // 2 - -b", "a / 2 - -b"),
    ("not a and b or c", "!a && b || c"),
    ("x == 0 if c else y", "c ? x == 0 : y"),
    ("k < n <= m", "k < n && n <= m"),
    ("~x % 4 << 1 ^ y & z | w", "~x % 4 << 1 ^ y & z | w"),
    ("s.index", "s.index"),
    ("p.consumer_wait(s, t)", "p.consumer_wait(s, t)"),
    ("a[i + 1]", "a[i + 1]"),
    ("min(a, 3)", "min(a, 3)"),
    ("True", "true"),
    ("a is not b", "a != b"),
])
def test_expressions_are_program_expr_trees(python, c):
    assert py_expr(python) == parse_expr(c)


def test_expressions_the_dsl_adds():
    # A dotted name on a module is one name (C++ keeps `cute::arch::warp_idx` the same way).
    assert py_expr("cute.arch.warp_idx()") == ["call", "cute.arch.warp_idx", []]
    assert py_expr("cutlass.Float32") == ["id", "cutlass.Float32"]
    assert py_expr("f(a, num=2)") == ["call", "f", [["id", "a"], ["kw", "num", ["n", 2]]]]
    assert py_expr("a, b") == ["call", "tuple", [["id", "a"], ["id", "b"]]]
    # Not read: no C spelling, or no value the interpreter computes.
    for text in ("a ** 2", "None", "'K'", "1.5", "[x for x in a for y in b]"):
        assert py_expr(text) == ["?", text]
    # `in` and one-`for` comprehensions (docs/programs.md "FlashAttention-4 SM100 backward and latent attention").
    assert py_expr("a in b") == ["bin", "in", ["id", "a"], ["id", "b"]]
    assert py_expr("tuple(w for w, f in xs if f)") == ["comp", ["id", "w"], ["w", "f"], ["id", "xs"], [["id", "f"]]]
    # `*name` in a call is spliced by the interpreter (`self.mma(*mma_args, ...)`, FA4 bwd_sm90 844);
    # any other starred argument is not read.
    assert py_expr("f(*a)") == ["call", "f", [["star", ["id", "a"]]]]
    assert py_expr("f(*a.b)") == ["call", "f", [["?", "*a.b"]]]


def test_deep_expressions_are_bounded():
    tree = py_expr("-" * 150 + "a")
    depth = 0
    while tree[0] == "un":
        tree, depth = tree[2], depth + 1
    assert tree[0] == "?" and depth <= 70


def parsed(path):
    return parse_cutlass.parse_file(path)


def fixture_model():
    return parsed(FIXTURE)


def only(nodes, kind):
    return [n for n in nodes if n["node"] == kind]


def test_fixture_kernel_roles_and_producer_loop(validate):
    m = validate(fixture_model())
    kl = m["kernel_layer"]
    prog = kl["program"]
    assert (prog["name"], prog["class"], prog["line"], prog["end_line"]) == ("kernel", "Constructs", 18, 34)
    # `unused` is read by nothing: dropped; warp_idx and pipe are read.
    assert [n["names"] for n in only(prog["body"], "let")] == [["warp_idx"], ["pipe"]]
    role_if = only(prog["body"], "if")[0]
    assert role_if["line"] == 22 and role_if["constexpr"] is False
    assert role_if["cond"] == ["bin", "==", ["id", "warp_idx"], ["member", ["id", "self"], "tma_warp_id"]]
    loop = only(role_if["then"], "loop")[0]
    assert (loop["kind"], loop["line"], loop["end_line"], loop["unroll"]) == ("for", 24, 29, "no_unroll")
    assert loop["init"] == [{"node": "let", "names": ["k"], "expr": ["n", 0], "line": 24}]
    assert loop["cond"] == ["bin", "<", ["id", "k"], ["id", "k_tiles"]]
    assert loop["step"] == [{"node": "set", "name": "k", "op": "+=", "expr": ["n", 1], "line": 24}]
    # The barrier is evaluated before the copy that takes it (evaluation order).
    assert [(n["node"], n.get("op"), n["line"], n.get("state")) for n in loop["body"]] == [
        ("op", "producer_acquire", 25, "state"), ("op", "producer_get_barrier", 27, "state"),
        ("op", "tma_load", 26, None), ("op", "producer_commit", 28, "state"),
        ("set", "advance", 29, None)]
    assert all(n.get("object") == "pipe" for n in only(loop["body"], "op"))
    # elif / else, and the helper call resolved to its program.
    elif_ = role_if["else"][0]
    assert (elif_["node"], elif_["line"], elif_["text"]) == ("if", 31, "elif warp_idx < 4")
    assert elif_["then"] == [{"node": "call", "name": "consume", "receiver": "self", "function": "consume",
                              "args": [["id", "pipe"], ["id", "sA"], ["id", "k_tiles"]], "line": 32}]
    assert elif_["else"][0]["name"] == "cute.arch.setmaxregister_decrease"
    # The warp-index role variable: the branches, and the warps they tell apart.
    assert kl["role_vars"] == [{
        "name": "warp_idx", "kind": "warp_index", "line": 19,
        "expr": ["call", "cute.arch.make_warp_uniform", [["call", "cute.arch.warp_idx", []]]],
        "members": [0, 4, 5], "spans": [[0, 3], [4, 4], [5, None]],
        "branches": [
            {"line": 22, "test": "warp_idx == self.tma_warp_id", "warps": [4], "role": "tma"},
            {"line": 31, "test": "warp_idx < 4", "warps": [0, 1, 2, 3], "role": "consumer"},
            {"line": 34, "test": "not (warp_idx < 4)", "warps": "not (warp_idx < 4)",
             "role": "not (warp_idx < 4)"}],
        # The constructor's attributes, as the run reads `self.x` (programs_dsl.constructor).
        "constructor": {"params": {}, "attrs": {
            "self.num_stages": [{"expr": ["n", 3], "line": 13}], "self.tma_warp_id": [{"expr": ["n", 4], "line": 14}],
            "self.use_q": [{"expr": ["n", 1], "line": 15}]}}}]


def test_fixture_helper_constructs():
    m = fixture_model()
    progs = {p["name"]: p for p in m["programs"]["functions"]}
    assert sorted(progs) == ["consume", "wait_stage"]
    consume = progs["consume"]
    assert consume["params"][-1] == {"name": "phase", "type": "cutlass.Int32", "ref": False, "default": ["n", 0]}
    body = consume["body"]
    # clone, a tuple target (one let of two names), a partial kept because a call names it.
    assert [(n["names"], n["line"]) for n in only(body, "let")] == [
        (["read"], 38), (["release"], 39), (["n", "m"], 40), (["wait_one"], 41)]
    down, unrolled = only(body, "loop")[:2]
    assert down["cond"] == ["bin", ">", ["id", "k"], ["un", "-", ["n", 1]]]
    assert down["step"][0]["expr"] == ["un", "-", ["n", 1]] and "unroll" not in down
    assert down["body"][0] == {"node": "call", "name": "wait_one", "function": "wait_stage",
                               "args": [["id", "read"]], "line": 43}
    ce = down["body"][1]
    assert (ce["constexpr"], ce["cond"], ce["line"]) == (True, ["member", ["id", "self"], "use_q"], 44)
    assert ce["then"] == [{"node": "set", "name": "phase", "op": "^=", "expr": ["n", 1], "line": 45}]
    assert ce["else"][0]["constexpr"] is False and ce["else"][0]["then"] == [{"node": "break", "line": 47}]
    assert ce["else"][0]["else"] == [{"node": "continue", "line": 49}]
    assert down["body"][2] == {"node": "set", "name": "read", "op": "advance", "expr": ["n", 1], "line": 50}
    # range_constexpr unrolls; `with cute.arch.elect_one()` is an if on that call.
    assert unrolled["unroll"] == "unroll" and unrolled["line"] == 51
    elect = unrolled["body"][0]
    assert (elect["node"], elect["cond"], elect["text"]) == ("if", ["call", "cute.arch.elect_one", []],
                                                             "with cute.arch.elect_one()")
    assert elect["then"][0]["op"] == "consumer_release" and elect["then"][0]["state"] == "release"
    wl = only(body, "loop")[2]
    assert (wl["kind"], wl["line"], wl["body"][0]["op"]) == ("while", 55, "-=")
    assert body[-1] == {"node": "return", "line": 57,
                        "expr": ["?:", ["id", "m"], ["id", "phase"], ["bin", "+", ["id", "phase"], ["n", 1]]]}
    # An op in a local function is placed at its call site, with via.
    wait = progs["wait_stage"]["body"]
    assert [(n["op"], n["line"], n.get("via")) for n in wait] == [
        ("consumer_try_wait", 62, {"lambda": "peek", "line": 63}), ("consumer_wait", 64, None)]


def test_fixture_unread_statements_stop_or_count(tmp_path):
    text = FIXTURE.read_text().replace("        while m > 0 or n >= 1:\n",
                                       "        self.x = 1\n        try:\n            pass\n        except E:\n"
                                       "            pass\n        while m > 0 or n >= 1:\n")
    path = tmp_path / "mutated.py"
    path.write_text(text)
    consume = next(p for p in parsed(path)["programs"]["functions"] if p["name"] == "consume")
    assert consume["skipped"] == 1                      # self.x = 1
    assert consume["incomplete"] == {"line": 56, "reason": "`Try` is not read yet"}


def walk(nodes):
    for n in nodes:
        yield n
        for key in ("init", "body", "step", "then", "else"):
            yield from walk(n.get(key) or ())


def test_every_listed_op_is_in_a_program():
    for name in ("flash_fwd_sm90.py", "flash_fwd_sm100.py"):
        m = parsed(fa4_dir() / name)
        listed = {(o["op"], o["line"]) for fn in m["functions"] for o in fn["ops"]}
        progs = m["programs"]["functions"] + [m["kernel_layer"]["program"]]
        placed = {(n["op"], n["line"]) for p in progs for n in walk(p["body"]) if n["node"] == "op"}
        assert placed == listed and len(listed) > 60


def validate_contract(model):
    """FA4's models against the repository schema as test_parser_dsl widens it for DSL ops (its
    programs and role_vars parts are the schema's own)."""
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(model, contract_schema())
    return model


def test_fa4_sm90_roles_and_producer_loop():
    m = validate_contract(parsed(fa4_dir() / "flash_fwd_sm90.py"))
    kl = m["kernel_layer"]
    var = kl["role_vars"][0]
    assert (var["name"], var["line"], var["members"]) == ("warp_idx", 446, [0, 1, 4])
    assert [(b["line"], b["test"]) for b in var["branches"]] == [
        (448, "warp_idx == 0"), (585, "warp_idx < 4"), (609, "not (warp_idx < 4)")]
    role = next(n for n in kl["program"]["body"] if n["node"] == "if" and n["line"] == 585)
    assert role["cond"] == ["bin", "<", ["id", "warp_idx"], ["n", 4]]
    assert [n.get("function") for n in only(role["then"], "call")] == [None, "load"]
    assert [n.get("function") for n in only(role["else"], "call")][-1] == "mma"
    progs = {p["name"]: p for p in m["programs"]["functions"]}
    assert {"load", "load_KV", "mma", "mma_one_n_block", "mma_one_n_block_intrawg_overlap"} <= set(progs)
    load = list(walk(progs["load"]["body"]))
    tile_loop = next(n for n in load if n["node"] == "loop" and n["kind"] == "while")
    assert (tile_loop["line"], tile_loop["text"]) == (681, "while work_tile.is_valid_tile")
    kv = next(n for n in load if n["node"] == "loop" and n["line"] == 816)
    assert (kv["kind"], kv["unroll"]) == ("for", "no_unroll")
    assert kv["cond"] == ["bin", "<", ["id", "i"], ["bin", "-", ["bin", "-", ["id", "n_block_max"], ["n", 1]],
                                                    ["id", "n_block_min"]]]
    kv_ops = [(n["op"], n.get("object"), n.get("state"), n["line"]) for n in kv["body"] if n["node"] == "op"]
    assert kv_ops == [("producer_acquire", "pipeline_k", "kv_producer_state", 825),
                      ("producer_acquire", "pipeline_v", "kv_producer_state", 831)]
    calls = [(n["name"], n["function"], n["line"]) for n in kv["body"] if n["node"] == "call"]
    assert calls == [("load_K", "load_KV", 826), ("load_V", "load_KV", 832)]
    assert [(n["op"], n["line"]) for n in kv["body"] if n["node"] == "set" and n["name"] == "kv_producer_state"] \
        == [("advance", 837)]
    # The paged-KV branch inside the loop is compile-time.
    paged = next(n for n in kv["body"] if n["node"] == "if")
    assert (paged["line"], paged["constexpr"], paged["cond"]) == (
        823, True, ["un", "!", ["member", ["id", "self"], "use_tma_KV"]])
    tail = next(n for n in load if n["node"] == "op" and n["op"] == "producer_tail")
    assert (tail["line"], tail["object"], tail["state"]) == (919, "pipeline_v", "kv_producer_state")
    # load_KV runs on the pipeline its caller binds: both, by parameter.
    kv_ops = [n for n in walk(progs["load_KV"]["body"]) if n["node"] == "op"]
    assert [(n["op"], n["line"], n["objects"], n["state"]) for n in kv_ops] == [
        ("tma_load", 935, ["pipeline_k", "pipeline_v"], "producer_state"),
        ("producer_commit", 939, ["pipeline_k", "pipeline_v"], "producer_state")]
    assert kv_ops[1]["receiver"] == "pipeline_kv"
    # A helper that advances the caller's state takes it by reference.
    params = {p["name"]: p["ref"] for p in progs["mma_one_n_block"]["params"]}
    assert params["smem_pipe_read"] is True and params["pipeline_k"] is False


def test_fa4_sm100_roles_and_elect_one():
    m = validate_contract(parsed(fa4_dir() / "flash_fwd_sm100.py"))
    var = m["kernel_layer"]["role_vars"][0]
    mma_branch = next(b for b in var["branches"] if b["line"] == 1342)
    assert (mma_branch["test"], mma_branch["warps"], mma_branch["role"]) == ("warp_idx == self.mma_warp_id", [12], "mma")
    assert 12 in var["members"] and [12, 12] in var["spans"]
    mma_if = next(n for n in walk(m["kernel_layer"]["program"]["body"]) if n["node"] == "if" and n["line"] == 1342)
    assert mma_if["cond"] == ["bin", "==", ["id", "warp_idx"], ["member", ["id", "self"], "mma_warp_id"]]
    assert any(n.get("function") == "mma" for n in only(mma_if["then"], "call"))
    load = next(p for p in m["programs"]["functions"] if p["name"] == "load")
    nodes = list(walk(load["body"]))
    kv = next(n for n in nodes if n["node"] == "loop" and n["line"] == 1672)
    assert kv["unroll"] == "no_unroll" and kv["kind"] == "for"
    elect = next(n for n in nodes if n.get("text") == "with cute.arch.elect_one()")
    assert elect["line"] == 1737 and elect["then"][0]["op"] == "consumer_release"


def test_programs_are_deterministic():
    a = json.dumps(parsed(fa4_dir() / "flash_fwd_sm90.py"), sort_keys=True)
    b = json.dumps(parsed(fa4_dir() / "flash_fwd_sm90.py"), sort_keys=True)
    assert a == b
    assert "_call" not in a and "_via" not in a and '"_fn"' not in a
