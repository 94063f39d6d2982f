"""ptx_programs.py: role programs read from PTX (docs/ptx-front-end.md).

Small PTX texts written here for each construct, then the SM90 pingpong and cooperative GEMM
units' real PTX (tests/compiled/ptx_cache.py, skipped without nvcc as test_compiled_truth.py is).
"""

import json
import subprocess
import sys

import pytest

import ptx_programs
from node_util import ROOT

sys.path.insert(0, str(ROOT / "tests" / "compiled"))
import ptx_cache  # noqa: E402
from test_compiled_truth import MAINLOOP, _no_nvcc  # noqa: E402

COLLECTIVE = MAINLOOP + "sm90_mma_tma_gmma_ss_warpspecialized.hpp"


def kernel(body, ntid="256, 1, 1"):
    """A PTX text with one .entry around `body`."""
    return (".version 8.5\n.target sm_90a\n.address_size 64\n\n"
            f".visible .entry k(\n\t.param .u64 k_param_0\n)\n.maxntid {ntid}\n{{\n"
            "\t.reg .pred %p<9>;\n\t.reg .b32 %r<30>;\n" + body + "\n}\n")


WAIT = """
	{
	.reg .pred       P1;
	LAB_WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 P1, [%r9], %r8, %r7;
	@P1 bra DONE;
	bra     LAB_WAIT;
	DONE:
	}
"""


def walk(nodes):
    """Every node of a body, nested ones included, in order."""
    for n in nodes:
        yield n
        for k in ("body", "then", "else"):
            yield from walk(n.get(k) or ())


def loops_of(body):
    """The loop nodes of a body, outermost first."""
    return [n for n in walk(body) if n["node"] == "loop"]


def test_loop_and_spin_wait():
    """A counted loop is a loop node; the asm LAB_WAIT retry is one op marked spin, no loop."""
    m = ptx_programs.read_programs(kernel("""
	mov.u32 %r1, 0;
$L__BB0_1:
""" + WAIT + """
	wgmma.wait_group.sync.aligned 1;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 8;
	@%p1 bra $L__BB0_1;
	ret;
"""))
    (prog,) = m["programs"]
    (loop,) = loops_of(prog["body"])
    ops = [n for n in loop["body"] if n["node"] == "op"]
    assert [o["op"] for o in ops] == ["mbarrier_wait", "wgmma_wait"]
    assert ops[0]["spin"] is True and ops[0]["barrier"] == "%r9" and ops[0]["parity"] == "%r8"
    assert ops[1]["count"] == 1
    assert [lp["spin"] for lp in m["loops"]] == [False, True]
    # the mbarrier's address is an undefined register here: not a ring, and said so
    assert m["language"] == "ptx" and [w["kind"] for w in m["warnings"]] == ["unresolved_stage"]
    assert m["loops"][0]["trip"]["value"] == 8 and m["loops"][0]["trip"]["step"] == 1


def test_nested_loops():
    """Two back edges, the inner loop's header inside the outer loop: nested loop nodes."""
    m = ptx_programs.read_programs(kernel("""
	mov.u32 %r1, 0;
$L__BB0_1:
	mov.u32 %r2, 0;
$L__BB0_2:
	wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, p, 1, 1, 0, 0;
	add.s32 %r2, %r2, 1;
	setp.lt.s32 %p2, %r2, 4;
	@%p2 bra $L__BB0_2;
	wgmma.commit_group.sync.aligned;
	add.s32 %r1, %r1, 1;
	setp.lt.s32 %p1, %r1, 8;
	@%p1 bra $L__BB0_1;
	ret;
"""))
    outer = loops_of(m["programs"][0]["body"])[0]
    inner = [n for n in outer["body"] if n["node"] == "loop"]
    assert len(inner) == 1
    assert [n["op"] for n in inner[0]["body"] if n["node"] == "op"] == ["wgmma"]
    assert [n["op"] for n in outer["body"] if n["node"] == "op"] == ["wgmma_commit"]
    assert [lp["parent"] for lp in m["loops"]] == [None, m["loops"][0]["ptx_line"]]


ROLE_BRANCH = """
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	setp.eq.s32 %p1, %r2, 0;
	@%p1 bra $L__BB0_2;
$L__BB0_1:
	wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, p, 1, 1, 0, 0;
	setp.lt.s32 %p3, %r5, 8;
	@%p3 bra $L__BB0_1;
	bra.uni $L__BB0_3;
$L__BB0_2:
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd4, {%r4, %r5}], [%r6];
	setp.lt.s32 %p4, %r5, 8;
	@%p4 bra $L__BB0_2;
$L__BB0_3:
	bar.sync 1, 256;
	ret;
"""


def test_role_branch_on_warpgroup():
    """`%tid.x >> 7 == 0` splits warpgroup 0 (the TMA loop) from warpgroup 1 (the wgmma loop)."""
    m = ptx_programs.read_programs(kernel(ROLE_BRANCH))
    roles = {p["name"]: p for p in m["programs"]}
    assert sorted(roles) == ["wg0", "wg1"]
    assert roles["wg0"]["warps"] == [0, 1, 2, 3]
    mine = {name: [n["op"] for n in walk(p["body"]) if n["node"] == "op"] for name, p in roles.items()}
    assert mine == {"wg0": ["tma_load", "bar_sync"], "wg1": ["wgmma", "bar_sync"]}
    (bar,) = [n for n in walk(roles["wg1"]["body"]) if n.get("op") == "bar_sync"]
    assert (bar["barrier"], bar["count"]) == (1, 256)
    assert [n["barrier"] for n in walk(roles["wg0"]["body"]) if n.get("op") == "tma_load"] == ["%r6"]


def test_register_hints_per_role():
    """`setmaxnreg` in each branch is that role's hint (the producer lowers, the math warpgroup
    raises); a role reaching both directions is warned."""
    text = ROLE_BRANCH.replace("$L__BB0_1:\n", "\tsetmaxnreg.inc.sync.aligned.u32 232;\n$L__BB0_1:\n", 1) \
        .replace("$L__BB0_2:\n", "$L__BB0_2:\n\tsetmaxnreg.dec.sync.aligned.u32 40;\n", 1)
    m = ptx_programs.read_programs(kernel(text))
    hints = {p["name"]: [(h["direction"], h["count"]) for h in p["registers"]] for p in m["programs"]}
    assert hints == {"wg0": [("dec", 40)], "wg1": [("inc", 232)]}
    assert not [w for w in m["warnings"] if w["kind"] == "register_hints"]
    both = text.replace("\tbar.sync 1, 256;", "\tsetmaxnreg.dec.sync.aligned.u32 24;\n\tbar.sync 1, 256;")
    m = ptx_programs.read_programs(kernel(both))
    assert {p["name"]: len(p["registers"]) for p in m["programs"]} == {"wg0": 2, "wg1": 2}
    assert [w["message"] for w in m["warnings"] if w["kind"] == "register_hints"] == [
        "role wg1 both raises and lowers its registers (setmaxnreg .inc and .dec)"]
    assert all(p["registers"] == [] for p in ptx_programs.read_programs(kernel(ROLE_BRANCH))["programs"])


def test_role_branch_by_div_and_warp():
    """div by 32 gives warps: warp 1 alone takes the branch."""
    m = ptx_programs.read_programs(kernel(ROLE_BRANCH.replace("shr.u32 %r2, %r1, 7", "div.u32 %r2, %r1, 32")
                                          .replace("setp.eq.s32 %p1, %r2, 0", "setp.eq.s32 %p1, %r2, 1")))
    assert [p["name"] for p in m["programs"]] == ["wg0.w0+w2+w3,wg1.w0+w1+w2+w3", "wg0.w1"]


def test_predicated_if():
    """A forward `@%p bra` over one op is an if node whose then holds the op."""
    m = ptx_programs.read_programs(kernel("""
	setp.ne.s32 %p1, %r5, 0;
	@%p1 bra $L__BB0_2;
	mbarrier.arrive.shared::cta.b64 %rd1, [%r4];
$L__BB0_2:
	ret;
"""))
    (node,) = [n for n in m["programs"][0]["body"] if n["node"] == "if"]
    assert node["cond"] == ["un", "!", ["id", "%p1"]]
    assert [n["op"] for n in node["then"]] == ["mbarrier_arrive"]
    assert node["then"][0]["barrier"] == "%r4"


def test_unresolved_role_predicate_is_reported():
    """A predicate on %tid.x through a register defined twice is a warning, not a split."""
    body = ROLE_BRANCH.replace("shr.u32 %r2, %r1, 7;", "shr.u32 %r2, %r1, 7;\n\t@%p5 mov.u32 %r2, 3;")
    m = ptx_programs.read_programs(kernel(body))
    assert [p["name"] for p in m["programs"]] == ["wg0-1"]
    assert [w["kind"] for w in m["warnings"] if w["kind"].startswith("unresolved_role")] == ["unresolved_role_predicate"]


# `warp != 1 || runtime != 0`: nvcc's form of the SM100 kernel layer's `warp_category == Sched
# && is_first_cta_in_cluster` (the or of the negations; %r7 is loaded, no function of %tid.x).
PARTIAL = """
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.s32 %p6, %r2, 1;
	ld.param.u32 %r7, [k_param_0];
	setp.ne.s32 %p7, %r7, 0;
	or.pred %p1, %p6, %p7;
	@%p1 bra $L__BB0_2;
$L__BB0_1:
	wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%f1, %f2}, %rd1, %rd2, p, 1, 1, 0, 0;
	setp.lt.s32 %p3, %r5, 8;
	@%p3 bra $L__BB0_1;
$L__BB0_2:
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd4, {%r4, %r5}], [%r6];
	setp.lt.s32 %p4, %r5, 8;
	@%p4 bra $L__BB0_2;
	ret;
"""


@pytest.mark.parametrize("op", ["or.pred %p1, %p6, %p7", "and.pred %p1, %p8, %p7"])
def test_partly_evaluated_predicate_decides_the_other_warps(op):
    """`or.pred` (`and.pred`) of a warp test and a predicate that is no function of %tid.x: the
    warps for which the warp test alone decides it (true for or, false for and) take one side;
    only warp 1 keeps both, and the warning names it. Before, every warp kept both (one role)."""
    body = PARTIAL.replace("or.pred %p1, %p6, %p7", op)
    if op.startswith("and"):       # warp == 1 && runtime: taken to A; the other warps fall to B
        body = body.replace("setp.ne.s32 %p6, %r2, 1;", "setp.ne.s32 %p6, %r2, 1;\n\tsetp.eq.s32 %p8, %r2, 1;") \
                   .replace("@%p1 bra $L__BB0_2;", "@%p1 bra $L__BB0_1;\n\tbra.uni $L__BB0_2;")
    m = ptx_programs.read_programs(kernel(body, "64, 1, 1"))
    roles = {p["name"]: [n["op"] for n in walk(p["body"]) if n["node"] == "op"] for p in m["programs"]}
    assert roles == {"wg0.w0": ["tma_load"], "wg0.w1": ["wgmma", "tma_load"]}
    (w,) = [w for w in m["warnings"] if w["kind"] == "unresolved_role_predicate"]
    assert "not evaluated for warps 1 " in w["message"]
    # with the warp test unknown too (a second definition), nothing is decided: one role
    both = body.replace("shr.u32 %r2, %r1, 5;", "shr.u32 %r2, %r1, 5;\n\t@%p5 mov.u32 %r2, 3;")
    assert [p["name"] for p in ptx_programs.read_programs(kernel(both, "64, 1, 1"))["programs"]] == ["wg0.w0+w1"]


def test_unknown_protocol_instruction():
    """An mbarrier opcode outside CLASS_RULES is named once, at its first line."""
    m = ptx_programs.read_programs(kernel("\tmbarrier.frobnicate.b64 [%r1];\n\tmbarrier.frobnicate.b64 [%r1];\n\tret;"))
    assert [(w["kind"], w["message"].split()[0]) for w in m["warnings"]] == [("unknown_protocol", "mbarrier.frobnicate.b64")]


def test_irreducible_loop_is_warned():
    """Two entries into a cycle: no loop node, a warning."""
    m = ptx_programs.read_programs(kernel("""
	@%p1 bra $L__BB0_2;
$L__BB0_1:
	bar.sync 0;
$L__BB0_2:
	bar.arrive 1, 64;
	@%p2 bra $L__BB0_1;
	ret;
"""))
    assert "irreducible" in [w["kind"] for w in m["warnings"]]
    assert m["loops"] == []


@pytest.mark.parametrize("text", [
    "", "garbage", ".entry", ".entry k(\n{", ".entry k(\n)\n{\n@%p1 bra nowhere;\n", "{" * 500,
    ".visible .entry k()\n.maxntid 64, 1, 1\n{\n" + "{" * 200 + "bar.sync 0;\n" + "}" * 5,
    kernel("\tbra.uni $L__BB0_9;\n\t}}}}\n\tmov.u32 %r1, ;\n\t@ bra ;\n"),
])
def test_malformed_text_gives_warnings_not_exceptions(text):
    """Hostile text: PtxError (no .entry) or a model with warnings, never another exception."""
    try:
        m = ptx_programs.read_programs(text)
    except ptx_programs.PtxError:
        assert ".entry " not in text
        return
    json.dumps(m)
    assert m["language"] == "ptx"


def test_cli(tmp_path):
    """The CLI prints the JSON; a missing file or a text without .entry exits 2 with one line."""
    good = tmp_path / "k.ptx"
    good.write_text(kernel(ROLE_BRANCH))
    out = subprocess.run([sys.executable, str(ROOT / "ptx_programs.py"), str(good)],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["entry"] == "k"
    bad = tmp_path / "bad.ptx"
    bad.write_text("not ptx")
    for path in (bad, tmp_path / "missing.ptx"):
        r = subprocess.run([sys.executable, str(ROOT / "ptx_programs.py"), str(path)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


# ---------------------------------------------------------------- the real units

@pytest.fixture(scope="module")
def real():
    """{unit: model} for the SM90 pingpong and cooperative GEMM units."""
    nvcc, root = ptx_cache.find_nvcc(), ptx_cache.cutlass_root()
    if nvcc is None or root is None:
        _no_nvcc("no nvcc" if nvcc is None else "no CUTLASS headers")
    units = [ptx_cache.UNITS_BY_NAME[n] for n in ("sm90_gemm_pingpong", "sm90_gemm_cooperative")]
    out = {}
    for name, (path, _, _) in ptx_cache.build_all(units, root, nvcc).items():
        if isinstance(path, Exception):
            pytest.fail(str(path))
        out[name] = ptx_programs.read_programs(path.read_text())
    return out


def collective_line(op):
    """The op's innermost frame in the SM90 collective, or None."""
    for f, line in op.get("chain", ()):
        if f.endswith(COLLECTIVE):
            return line
    return None


def loop_with(model, lines):
    """(role, loop) of the innermost loop whose own ops reach all the collective lines."""
    for prog in model["programs"]:
        for lp in reversed(loops_of(prog["body"])):
            own = {collective_line(n) for n in walk(lp["body"]) if n["node"] == "op"}
            if set(lines) <= own:
                return prog, lp
    return None, None


@pytest.mark.parametrize("unit", ["sm90_gemm_pingpong", "sm90_gemm_cooperative"])
def test_producer_k_loop(real, unit):
    """The producer's k-loop holds the acquire wait (374) and both TMA loads (384, 385), and
    only one role runs it."""
    prog, lp = loop_with(real[unit], [374, 384, 385])
    assert lp is not None
    assert prog["name"] == "wg0.w0"
    ops = {(n["op"], collective_line(n)) for n in walk(lp["body"]) if n["node"] == "op"}
    assert {("mbarrier_wait", 374), ("tma_load", 384), ("tma_load", 385)} <= ops


@pytest.mark.parametrize("unit", ["sm90_gemm_pingpong", "sm90_gemm_cooperative"])
def test_consumer_mainloop(real, unit):
    """The consumer's mainloop holds try_wait (533), wgmma (543), wait_group (547) and the
    release arrive (551); the consumer role is both math warpgroups."""
    prog, lp = loop_with(real[unit], [533, 543, 547, 551])
    assert lp is not None
    assert prog["name"] == "wg1-2"
    ops = {(n["op"], collective_line(n)) for n in walk(lp["body"]) if n["node"] == "op"}
    assert {("mbarrier_wait", 533), ("wgmma", 543), ("wgmma_wait", 547), ("mbarrier_arrive", 551)} <= ops
    (wait,) = [n for n in walk(lp["body"]) if n["node"] == "op" and n["op"] == "wgmma_wait"]
    assert wait["count"] == 1      # K_PIPE_MMAS = 1


# Roles from the warpgroup / warp branches (docs/ptx-front-end.md explains each).
ROLES = {
    "sm90_gemm_pingpong": ["wg0.w0", "wg0.w1+w3", "wg0.w2", "wg1-2"],
    "sm90_gemm_cooperative": ["wg0.w0", "wg0.w1+w3", "wg0.w2", "wg1-2"],
}


@pytest.mark.parametrize("unit", sorted(ROLES))
def test_roles_found(real, unit):
    """The role classes the branches on %tid.x give, pinned."""
    assert [p["name"] for p in real[unit]["programs"]] == ROLES[unit]


@pytest.mark.parametrize("unit", sorted(ROLES))
def test_register_hints_of_the_real_roles(real, unit):
    """CUTLASS's kernel layers lower the producer warpgroup to 40 registers and raise the math
    warpgroups to 232 (LoadRegisterRequirement / MmaRegisterRequirement of the SM90 kernel layers)."""
    hints = {p["name"]: {(h["direction"], h["count"]) for h in p["registers"]} for p in real[unit]["programs"]}
    assert hints["wg1-2"] == {("inc", 232)}
    assert all(v == {("dec", 40)} for k, v in hints.items() if k.startswith("wg0"))
