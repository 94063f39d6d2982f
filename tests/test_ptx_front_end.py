"""ptx_programs.py as a front end: stage rings, trip counts, elect.sync, and viz.py / parse_cutlass.py
on PTX (docs/ptx-front-end.md). Small PTX texts written here, then the SM90 pingpong and cooperative
units' PTX (tests/compiled/ptx_cache.py, skipped without nvcc as test_ptx_programs.py is)."""

import json
import subprocess
import sys

import jsonschema
import pytest

import ptx_programs
from node_util import ROOT
from test_ptx_programs import _no_nvcc, kernel, ptx_cache, real, walk  # noqa: F401  (real: the units' models fixture)

# A 4-stage ring: the producer (warp 0) waits on empty (smem+32+8*s), arrives with expect_tx on
# full (smem+8*s) and loads with complete_tx there; the consumer (warp 1) waits on full and
# arrives on empty. Each keeps its own stage counter (wraps at 4) and phase (flipped on wrap).
RING = """
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.eq.s32 %p1, %r2, 0;
	mov.u32 %r20, 0;
	mov.u32 %r21, 1;
	mov.u32 %r30, 0;
	mov.u32 %r31, 0;
	mov.u32 %r40, %r9;
	@%p1 bra $L__BB0_2;
$L__BB0_1:
	shl.b32 %r32, %r30, 3;
	mov.u32 %r33, smem;
	add.s32 %r34, %r33, %r32;
	mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r34], %r31;
	add.s32 %r35, %r34, 32;
	mbarrier.arrive.shared::cta.b64 _, [%r35];
	add.s32 %r36, %r30, 1;
	setp.eq.s32 %p6, %r36, 4;
	selp.b32 %r30, 0, %r36, %p6;
	selp.u32 %r37, 1, 0, %p6;
	xor.b32 %r31, %r31, %r37;
	add.s32 %r40, %r40, -1;
	setp.gt.s32 %p7, %r40, 0;
	@%p7 bra $L__BB0_1;
	bra.uni $L__BB0_3;
$L__BB0_2:
	shl.b32 %r22, %r20, 3;
	mov.u32 %r23, smem;
	add.s32 %r24, %r23, %r22;
	add.s32 %r25, %r24, 32;
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r25], %r21;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r24], 4096;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r8], [%rd4, {%r4, %r5}], [%r24];
	add.s32 %r26, %r20, 1;
	setp.eq.s32 %p3, %r26, 4;
	selp.b32 %r20, 0, %r26, %p3;
	selp.u32 %r27, 1, 0, %p3;
	xor.b32 %r21, %r21, %r27;
	add.s32 %r28, %r28, 1;
	setp.lt.s32 %p4, %r28, %r29;
	@%p4 bra $L__BB0_2;
$L__BB0_3:
	ret;
"""


def ops_of(model, role):
    """The op nodes of one role's program."""
    (prog,) = [p for p in model["programs"] if p["name"] == role]
    return [n for n in walk(prog["body"]) if n["node"] == "op"]


def test_ring_stages_slots_and_steps():
    """One ring of 4 stages: full is the array the TMA completes, empty the other; each barrier op
    gets its parser op kind; nothing about the ring is left unresolved."""
    m = ptx_programs.read_programs(kernel(RING, "64, 1, 1"))
    (ring,) = m["rings"]
    assert ring["stages"] == 4 and ring["pairing"] == "tx" and ring["phase_flips"] is True
    assert [(a["base"], a["slot"]) for a in ring["arrays"]] == [("smem+0", "full"), ("smem+32", "empty")]
    assert ring["roles"] == {"wg0.w0": ["producer_acquire", "producer_commit", "tma_load"],
                             "wg0.w1": ["consumer_release", "consumer_wait"]}
    assert [(n["op"], n.get("op_kind")) for n in ops_of(m, "wg0.w1")] == [
        ("mbarrier_wait", "consumer_wait"), ("mbarrier_arrive", "consumer_release")]
    kinds = {w["kind"] for w in m["warnings"]}
    assert not kinds & {"ring_stages", "ring_pairing", "ring_phase", "unresolved_stage"}


def test_ring_with_a_register_stage_count_is_a_warning():
    """A counter that wraps at a register (not a constant) keeps its ring, with no stage count."""
    m = ptx_programs.read_programs(kernel(RING.replace("setp.eq.s32 %p3, %r26, 4;", "setp.eq.s32 %p3, %r26, %r19;")
                                          .replace("setp.eq.s32 %p6, %r36, 4;", "setp.eq.s32 %p6, %r36, %r19;"),
                                          "64, 1, 1"))
    (ring,) = m["rings"]
    assert ring["stages"] is None and ring["stage_bound"] == "%r19"
    assert "ring_stages" in {w["kind"] for w in m["warnings"]}


# The producer keeps its stage in a copy of the counter, as nvcc does in the SM100 load warp's
# k-loop (`mov.u32 %r2132, %r2135` before the loop and at its end).
COPIED = RING.replace("$L__BB0_2:\n\tshl.b32 %r22, %r20, 3;",
                      "\tmov.u32 %r50, %r20;\n$L__BB0_2:\n\tshl.b32 %r22, %r50, 3;") \
             .replace("\tadd.s32 %r26, %r20, 1;", "\tadd.s32 %r26, %r50, 1;") \
             .replace("\tadd.s32 %r28, %r28, 1;", "\tmov.u32 %r50, %r20;\n\tadd.s32 %r28, %r28, 1;")


def test_a_copied_stage_counter_is_the_counter():
    """A barrier address indexed by a register whose every definition copies one stage counter
    is in that counter's ring (Rings.copied_counter); a copy of a register that is no counter is
    not, and says so."""
    assert COPIED != RING and COPIED.count("mov.u32 %r50, %r20;") == 2
    m = ptx_programs.read_programs(kernel(COPIED, "64, 1, 1"))
    (ring,) = m["rings"]
    assert ring["stages"] == 4 and ring["pairing"] == "tx"
    assert ring["roles"] == {"wg0.w0": ["producer_acquire", "producer_commit", "tma_load"],
                             "wg0.w1": ["consumer_release", "consumer_wait"]}
    assert "unresolved_stage" not in {w["kind"] for w in m["warnings"]}
    # the copy's source is a register that never wraps: the producer's barriers are no ring
    m2 = ptx_programs.read_programs(kernel(COPIED.replace("mov.u32 %r50, %r20;", "mov.u32 %r50, %r9;"), "64, 1, 1"))
    assert "unresolved_stage" in {w["kind"] for w in m2["warnings"]}
    assert all("wg0.w0" not in r["roles"] for r in m2["rings"])


# The producer's commit is CUTLASS's PipelineCLCFetchAsync step: an asm block whose own `.reg`
# remAddr32 is the full barrier mapped to a CTA under a predicate (`@p mapa`), arrived on with the
# response's 16 bytes under the same predicate; then try_cancel completes on the full barrier.
CLC = RING.replace(
    "\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r24], 4096;\n"
    "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r8], [%rd4, {%r4, %r5}], [%r24];\n",
    "\t{\n\t.reg .pred p;\n\t.reg .b32 remAddr32;\n\tsetp.eq.u32 p, %r3, 1;\n"
    "\t@p mapa.shared::cluster.u32  remAddr32, %r24, %r8;\n"
    "\t@p mbarrier.arrive.expect_tx.shared::cluster.b64  _, [remAddr32], 16;\n\t}\n"
    "\tclusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
    "[%r9], [%r24];\n")


def test_clc_response_ring_with_a_guarded_mapa():
    """An address an asm block defines under the predicate its use runs under (`@p mapa` then
    `@p mbarrier.arrive.expect_tx`) is followed, an asm `.reg` name is a register, and
    clusterlaunchcontrol.try_cancel completes the full barrier (a fill, as a TMA load): one ring,
    paired by its transaction bytes. Under another predicate the address stays unresolved."""
    assert CLC != RING
    m = ptx_programs.read_programs(kernel(CLC, "64, 1, 1"))
    (ring,) = m["rings"]
    assert ring["stages"] == 4 and ring["pairing"] == "tx"
    assert ring["roles"] == {"wg0.w0": ["clc_try_cancel", "producer_acquire", "producer_commit"],
                             "wg0.w1": ["consumer_release", "consumer_wait"]}
    (clc,) = [n for n in ops_of(m, "wg0.w0") if n["op"] == "clc_try_cancel"]
    assert (clc["barrier"], clc["slot"], clc.get("op_kind")) == ("%r24", "full", None)
    other = CLC.replace("\t@p mapa.shared", "\t@!p mapa.shared")
    m2 = ptx_programs.read_programs(kernel(other, "64, 1, 1"))
    assert [b["base"] for b in m2["barriers"]] == ["remAddr32+0"]
    assert "unresolved_stage" in {w["kind"] for w in m2["warnings"]}


def test_peer_bit_mask_keeps_the_slot():
    """`and` with 0xFEFFFFF8 (the 2-SM TMA's `& Sm100MmaPeerBitMask`, 8-aligned) is the same
    barrier slot; a mask that clears a slot bit (0xFFFFFFE7) is not."""
    masked = RING.replace("[%rd4, {%r4, %r5}], [%r24];", "[%rd4, {%r4, %r5}], [%r41];") \
                 .replace("\tmbarrier.arrive.expect_tx", "\tand.b32 %r41, %r24, -16777224;\n\tmbarrier.arrive.expect_tx")
    assert masked.count("%r41") == 2
    (ring,) = ptx_programs.read_programs(kernel(masked, "64, 1, 1"))["rings"]
    assert "tma_load" in ring["roles"]["wg0.w0"]
    m = ptx_programs.read_programs(kernel(masked.replace("-16777224", "-25"), "64, 1, 1"))
    assert all("tma_load" not in r["roles"].get("wg0.w0", ()) for r in m["rings"])


def test_trip_counts():
    """The producer's loop counts up to the register %r29 (its knob); the consumer's counts down
    from %r9 to 0, so its trip count is the induction's value on entry."""
    m = ptx_programs.read_programs(kernel(RING, "64, 1, 1"))
    trips = {lp["ptx_line"]: lp["trip"] for lp in m["loops"] if not lp["spin"]}
    got = sorted((t["register"], t["step"], t["name"]) for t in trips.values())
    assert got == [("%r29", 1, "%r29"), ("%r9", -1, "%r9")]


def test_trip_count_named_from_the_source_line(tmp_path):
    """With a .loc before the compare, the knob is named by that source line's text."""
    src = tmp_path / "k.cu"
    src.write_text("// header\n  for (int k = 0; k < k_tiles; ++k) {\n")
    body = RING.replace("\tsetp.lt.s32 %p4, %r28, %r29;", "\t.loc 1 2 3\n\tsetp.lt.s32 %p4, %r28, %r29;")
    m = ptx_programs.read_programs(kernel(body, "64, 1, 1") + f'\t.file 1 "{src}"\n')
    (trip,) = [lp["trip"] for lp in m["loops"] if lp["trip"] and lp["trip"]["register"] == "%r29"]
    assert trip["name"] == "for (int k = 0; k < k_tiles; ++k) {" and trip["line"] == 2


ELECT = """
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	mov.u32 %r182, 0;
	{
	.reg .b32 %rx;
	.reg .pred %px;
	elect.sync %rx|%px, -1;
	@%px mov.s32 %r182, 1;
	}
	setp.eq.s32 %p1, %r182, 0;
	@%p1 bra $L__BB0_2;
	mbarrier.arrive.shared::cta.b64 _, [smem];
$L__BB0_2:
	ret;
"""


def test_elect_branch_is_one_elected_lane():
    """A branch on elect.sync's predicate splits no role and is no unresolved_role_predicate."""
    m = ptx_programs.read_programs(kernel(ELECT))
    assert [p["name"] for p in m["programs"]] == ["wg0-1"]
    assert "unresolved_role_predicate" not in {w["kind"] for w in m["warnings"]}
    (node,) = [n for n in walk(m["programs"][0]["body"]) if n["node"] == "if"]
    assert node["lanes"] == "one_elected"
    # without elect.sync (an op outside EVAL_OPS on %tid.x), the same shape is unresolved
    loaded = ELECT.replace("elect.sync %rx|%px, -1;", "popc.b32 %r182, %r1;")
    m2 = ptx_programs.read_programs(kernel(loaded))
    assert "unresolved_role_predicate" in {w["kind"] for w in m2["warnings"]}


# ---------------------------------------------------------------- the real units

@pytest.mark.parametrize("unit,stages", [("sm90_gemm_pingpong", 8), ("sm90_gemm_cooperative", 6)])
def test_real_mainloop_and_epilogue_load_rings(real, unit, stages):  # noqa: F811
    """The mainloop ring (full at smem+0, empty after it) and the epilogue-load ring (4 stages),
    each with the producer's acquire/commit and the math warpgroups' wait/release."""
    rings = real[unit]["rings"]
    main = rings[0]
    assert main["stages"] == stages and [a["slot"] for a in main["arrays"]] == ["full", "empty"]
    assert main["roles"] == {"wg0.w0": ["producer_acquire", "producer_commit", "tma_load"],
                             "wg1-2": ["consumer_release", "consumer_wait"]}
    (epi,) = [r for r in rings[1:] if r["stages"] == 4]
    assert {a["slot"] for a in epi["arrays"]} == {"full", "empty"}
    assert set(epi["roles"]["wg1-2"]) == {"consumer_release", "consumer_wait"}


SM100_UNITS = ("sm100_gemm_1sm", "sm100_gemm_2sm", "sm100_gemm_blockscaled", "sm100_fmha_fwd")


@pytest.fixture(scope="module")
def sm100_all():
    """{unit: model} of the SM100 units (tests/compiled/sm100_*.cu)."""
    nvcc, root = ptx_cache.find_nvcc(), ptx_cache.cutlass_root()
    if nvcc is None or root is None:
        _no_nvcc("no nvcc" if nvcc is None else "no CUTLASS headers")
    out = {}
    for name, (path, _, _) in ptx_cache.build_all([ptx_cache.UNITS_BY_NAME[n] for n in SM100_UNITS],
                                                  root, nvcc).items():
        if isinstance(path, Exception):
            pytest.fail(str(path))
        out[name] = ptx_programs.read_programs(path.read_text())
    return out


@pytest.fixture(scope="module")
def sm100(sm100_all):
    """The SM100 1-SM GEMM unit's model (tests/compiled/sm100_gemm_1sm.cu)."""
    return sm100_all["sm100_gemm_1sm"]


@pytest.mark.parametrize("unit", SM100_UNITS)
def test_real_sm100_protocol_instructions_all_have_classes(sm100_all, unit):
    """No SM100 unit has an `unknown_protocol` opcode: tcgen05.wait::ld / ::st are tmem_wait,
    clusterlaunchcontrol.query_cancel.* clc_query_cancel (the GEMMs' CLC scheduler), and
    bar.warp.sync (__syncwarp) is known and unclassed."""
    model = sm100_all[unit]
    assert [w["message"] for w in model["warnings"] if w["kind"] == "unknown_protocol"] == []
    ops = {n["op"] for p in model["programs"] for n in walk(p["body"]) if n["node"] == "op"}
    assert "tmem_wait" in ops
    assert ("clc_query_cancel" in ops) == unit.startswith("sm100_gemm")


KERNEL_SM100 = "sm100_gemm_tma_warpspecialized.hpp"


def ring_steps(model):
    """{ring: {(role, op, op_kind, slot, kernel-layer line)}}: each ring op with the innermost
    frame of its inline chain in the SM100 kernel layer."""
    out = {}
    for prog in model["programs"]:
        for n in walk(prog["body"]):
            if n["node"] == "op" and n.get("ring"):
                lines = [ln for f, ln in n.get("chain", ()) if f.endswith(KERNEL_SM100)]
                out.setdefault(n["ring"], set()).add((prog["name"], n["op"], n.get("op_kind"), n.get("slot"),
                                                      lines[0] if lines else None))
    return out


@pytest.mark.parametrize("unit", SM100_UNITS[:3])
def test_real_sm100_mainloop_and_accumulator_rings(sm100_all, unit):
    """SM100 on real PTX (the 1-SM, 2-SM and block-scaled GEMMs): the mainloop ring is the load warp's (warp 2) acquire, expect_tx commit
    and TMA (kernel layer 639, 653) and the MMA warp's (warp 0) wait and tcgen05.commit release
    (762); the accumulator ring is the MMA warp's acquire (762, 788) and tcgen05.commit (770) and
    the epilogue warpgroup's wait and release (911). Before copies of a stage counter were read
    (Rings.copied_counter), the load warp's ops were 4 lone barriers; before a peer-bit mask was
    read as the same slot (PEER_MASK_KEPT), the 2-SM unit's TMA loads were lone barriers."""
    sm100 = sm100_all[unit]
    steps = ring_steps(sm100)
    (main,) = [r for r, st in steps.items() if ("wg0.w2", "tma_load", None, "full", 639) in st]
    assert {("wg0.w2", "mbarrier_wait", "producer_acquire", "empty", 639),
            ("wg0.w2", "mbarrier_expect_tx", "producer_commit", "full", 639),
            ("wg0.w0", "mbarrier_wait", "consumer_wait", "full", 762),
            ("wg0.w0", "umma_commit", "consumer_release", "empty", 762)} <= steps[main]
    (ring,) = [r for r in sm100["rings"] if r["name"] == main]
    assert ring["pairing"] == "tx" and ring["roles"] == {
        "wg0.w0": ["consumer_release", "consumer_wait"], "wg0.w2": ["producer_acquire", "producer_commit", "tma_load"]}
    (acc,) = [r for r, st in steps.items() if ("wg0.w0", "umma_commit", "producer_commit", "full", 770) in st]
    assert {("wg0.w0", "mbarrier_wait", "producer_acquire", "empty", 762),
            ("wg1", "mbarrier_wait", "consumer_wait", "full", 911),
            ("wg1", "mbarrier_arrive", "consumer_release", "empty", 911)} <= steps[acc]
    assert "_ZN7cutlass4smemE+%r" not in json.dumps([b["base"] for b in sm100["barriers"] if "wg0.w2" in b["roles"]])


SM100_GEMMS = SM100_UNITS[:3]
# The kernel layer's warp roles (sm100_gemm_tma_warpspecialized.hpp 235-241: MMA = 0, Sched = 1,
# MainloopLoad = 2, EpilogueLoad = 3, Epilogue = 4 and up) and a kernel-layer line of each one's
# loop: the MMA warp's mma (762), the scheduler's advance_to_next_work (697), the load warp's
# load (639), the epilogue-load warp's collective_epilogue.load (837), the epilogue's store (911).
SM100_ROLE_LINES = {"wg0.w0": 762, "wg0.w1": 697, "wg0.w2": 639, "wg0.w3": 837, "wg1": 911}


@pytest.mark.parametrize("unit", SM100_GEMMS)
def test_real_sm100_gemm_roles_are_the_kernel_layers_warps(sm100_all, unit):
    """Five roles, one per warp category; each runs the loop of its own kernel-layer lines. Warps 1
    and 3 were one role while `warp_category == Sched && is_first_cta_in_cluster` (450) and
    `... == EpilogueLoad && is_epi_load_needed` (452) were unresolved for every warp; now only
    warp 1 (3) keeps both sides there, and the warnings say so."""
    model = sm100_all[unit]
    assert [p["name"] for p in model["programs"]] == list(SM100_ROLE_LINES)
    for prog in model["programs"]:
        in_loops = {ln for lp in walk(prog["body"]) if lp["node"] == "loop" for n in walk(lp["body"])
                    if n["node"] == "op" for f, ln in n.get("chain", ()) if f.endswith(KERNEL_SM100)}
        assert SM100_ROLE_LINES[prog["name"]] in in_loops, prog["name"]
        others = set(SM100_ROLE_LINES.values()) - {SM100_ROLE_LINES[prog["name"]], 762}
        assert not in_loops & others, (prog["name"], in_loops & others)
    unresolved = [w["message"] for w in model["warnings"] if w["kind"] == "unresolved_role_predicate"]
    assert len(unresolved) == 2 and "for warps 1 " in unresolved[0] and "for warps 3 " in unresolved[1]


@pytest.mark.parametrize("unit", SM100_GEMMS)
def test_real_sm100_clc_response_ring(sm100_all, unit):
    """The 2-stage CLC response pipeline (PipelineCLCFetchAsync, SchedulerPipelineStageCount = 2):
    the scheduler warp acquires an empty stage, arrives with expect_tx on the full barrier through
    mapa and issues try_cancel on it (advance_to_next_work, 697), and drains it at the end
    (producer_tail, 721); every role consumes each response in its fetch_next_work (664, 701,
    741, 819, 877). Before, the expect_tx was a lone barrier `0+0` (its asm `.reg` address under
    `@p`) and try_cancel was no barrier op, so the ring was paired by initial parity only."""
    model = sm100_all[unit]
    steps = ring_steps(model)
    (clc,) = [r for r, st in steps.items() if ("wg0.w1", "clc_try_cancel", None, "full", 697) in st]
    want = {("wg0.w1", "mbarrier_wait", "producer_acquire", "empty", 697),
            ("wg0.w1", "mbarrier_expect_tx", "producer_commit", "full", 697),
            ("wg0.w1", "mbarrier_wait", "producer_acquire", "empty", 721),
            ("wg0.w1", "clc_try_cancel", None, "full", 697)}
    for role, line in (("wg0.w2", 664), ("wg0.w1", 701), ("wg0.w0", 741), ("wg0.w3", 819), ("wg1", 877)):
        want |= {(role, "mbarrier_wait", "consumer_wait", "full", line),
                 (role, "mbarrier_arrive", "consumer_release", "empty", line)}
    assert steps[clc] == want
    (ring,) = [r for r in model["rings"] if r["name"] == clc]
    assert ring["stages"] == 2 and ring["pairing"] == "tx" and ring["phase_flips"]
    assert [a["slot"] for a in ring["arrays"]] == ["full", "empty"]
    base = int(ring["arrays"][0]["base"].rpartition("+")[2])
    assert ring["arrays"][1]["base"].endswith(f"+{base + 16}")
    assert not [b for b in model["barriers"] if b["base"] == "0+0"]


@pytest.mark.parametrize("unit", ["sm90_gemm_pingpong", "sm90_gemm_cooperative"])
def test_real_k_loops_have_their_source_trip_counts(real, unit):  # noqa: F811
    """Both k-loops count k_tile_count down; the knob is named by the collective's for line."""
    names = {lp["trip"]["name"] for lp in real[unit]["loops"] if lp["trip"]}
    assert {"for ( ; k_tile_count > 0; --k_tile_count) {", "for ( ; k_tile_count > 0; --k_tile_count)"} <= names


@pytest.mark.parametrize("unit", ["sm90_gemm_pingpong", "sm90_gemm_cooperative"])
def test_real_elect_branches_are_not_unresolved(real, unit):  # noqa: F811
    """The elected-thread branches (prefetch, barrier init) are no unresolved role predicates."""
    assert "unresolved_role_predicate" not in {w["kind"] for w in real[unit]["warnings"]}


# ---------------------------------------------------------------- wiring: viz.py, parse_cutlass.py

def run(*args, env=None):
    """Run a CLI of the project; (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=env, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


def test_print_json_is_a_valid_structure(tmp_path):
    """parse_cutlass.py kernel.ptx prints schema-3 JSON, language ptx, the ring as a pipeline."""
    f = tmp_path / "ring.ptx"
    f.write_text(kernel(RING, "64, 1, 1"))
    rc, out, err = run(ROOT / "parse_cutlass.py", f)
    assert rc == 0, err
    model = json.loads(out)
    schema = json.loads((ROOT / "schema" / "kernel_viz.schema.json").read_text())
    jsonschema.validate(model, schema)
    assert model["language"] == "ptx" and model["arch"] == "sm90"
    assert [(p["alias"], p["stages"]) for p in model["pipelines"]] == [("ring0", "4")]
    assert {f["name"]: f["role"] for f in model["functions"]} == {"wg0.w0": "producer", "wg0.w1": "consumer"}
    assert model["warnings"][0].endswith(ptx_programs.NO_SCHEDULE)
    assert any("warning: " in ln and "no schedule is modelled" in ln for ln in err.splitlines())


def test_viz_writes_the_graph_page_and_says_no_schedule(tmp_path):
    """viz.py kernel.ptx writes the graph page titled as parse only; predictions are refused."""
    f = tmp_path / "ring.ptx"
    f.write_text(kernel(RING, "64, 1, 1"))
    out = tmp_path / "page.html"
    rc, _, err = run(ROOT / "viz.py", f, "-o", out)
    assert rc == 0, err
    html = out.read_text()
    assert "ring (PTX) - parse only: no schedule is modelled for PTX input yet" in html
    assert "no schedule is modelled for PTX input yet" in err
    rc, _, err = run(ROOT / "viz.py", f, "--print-prediction")
    assert rc == 2 and len(err.strip().splitlines()) == 1


def test_bad_ptx_and_bad_nvcc_exit_2(tmp_path):
    """A PTX without .entry, --nvcc without nvcc, and a failing nvcc: one stderr line, exit 2."""
    bad = tmp_path / "bad.ptx"
    bad.write_text("not ptx")
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")
    fake = tmp_path / "nvcc"
    fake.write_text("#!/bin/sh\necho 'nvcc fatal   : Unknown option' >&2\nexit 1\n")
    fake.chmod(0o755)
    import os
    for args, env in (((bad, "-o", tmp_path / "x.html"), None),
                      ((cu, "--nvcc=-arch=sm_90a", "-o", tmp_path / "x.html"),
                       dict(os.environ, KLV_NVCC=str(tmp_path / "missing"))),
                      ((cu, "--nvcc=-bogus", "-o", tmp_path / "x.html"), dict(os.environ, KLV_NVCC=str(fake)))):
        rc, _, err = run(ROOT / "viz.py", *args, env=env)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not (tmp_path / "x.html").exists()


def test_nvcc_compiles_then_reads_the_ptx(tmp_path):
    """--nvcc ARGS runs nvcc ARGS -lineinfo -ptx FILE -o OUT (a fake nvcc here) and reads OUT."""
    import os
    ptx = tmp_path / "made.ptx"
    ptx.write_text(kernel(RING, "64, 1, 1"))
    log = tmp_path / "args"
    fake = tmp_path / "nvcc"
    fake.write_text(f"#!/bin/sh\necho \"$@\" > {log}\nwhile [ $# -gt 1 ]; do shift; done\ncp {ptx} \"$1\"\n")
    fake.chmod(0o755)
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k() {}\n")
    rc, out, err = run(ROOT / "viz.py", cu, "--nvcc=-arch=sm_90a -std=c++17", "--print-json",
                       env=dict(os.environ, KLV_NVCC=str(fake)))
    assert rc == 0, err
    assert json.loads(out)["pipelines"][0]["stages"] == "4"
    assert log.read_text().split()[:4] == ["-arch=sm_90a", "-std=c++17", "-lineinfo", "-ptx"]
