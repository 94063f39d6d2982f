"""CUTLASS 4.2's example 77 attention backward, a whole kernel in one file
(examples/77_blackwell_fmha/kernel/sm100_fmha_bwd_kernel_tma_warpspecialized.hpp), in the program
model (docs/programs.md "CUTLASS 77 attention backward"): its roles come from its own warp-to-role
function, its operator() calls the class's own load / mma / compute / reduce (WHOLE_KERNEL), its
states are typed through `decltype` of the pipeline objects (DECLTYPE_PIPELINES). Every fact is
checked against the installed source's lines; changed copies go to temporary folders only."""

import pytest

import parse_cutlass
import node_util

KERNEL = "examples/77_blackwell_fmha/kernel/sm100_fmha_bwd_kernel_tma_warpspecialized.hpp"

RUN = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(st, Object.assign({ model: "program" }, JSON.parse(process.argv[2])));
const c = r.columns, kinds = {};
for (let i = 0; c && i < c.n; i++) { const k = r.lanes[c.lane[i]].label + ":" + c.kinds[c.kind[i]]; kinds[k] = (kinds[k] || 0) + 1; }
process.stdout.write(JSON.stringify({ error: r.error, total: r.total, roles: r.verdict.roles,
  stopped: r.verdict.stopped.map((s) => [s.role, s.line, s.reason]), deadlock: r.deadlock && r.deadlock.message, kinds }));
"""


@pytest.fixture(scope="module")
def source(cutlass):
    return cutlass(KERNEL).read_text().splitlines()


@pytest.fixture(scope="module")
def bwd(cutlass):
    return parse_cutlass.parse_header(cutlass(KERNEL))


def run(structure, **knobs):
    return node_util.node_script(RUN, structure, knobs)


def test_the_file_is_a_whole_kernel_with_its_own_roles(bwd, source):
    """WHOLE_KERNEL: `CUTLASS_DEVICE WarpRole warp_idx_to_role(int warp_idx)` (93) maps the warp
    index to the file's enum (86-88) and `auto role = warp_idx_to_role(warp_idx);` (1515) takes it:
    a kernel layer whose own functions hold the ops, so no "pass the mainloop header" warning."""
    assert "CUTLASS_DEVICE WarpRole warp_idx_to_role(int warp_idx) {" in source[92]
    assert "auto role = warp_idx_to_role(warp_idx);" in source[1514]
    assert bwd["kind"] == "kernel_layer"
    assert bwd["kernel_layer"]["role_vars"][0]["members"] == ["Empty", "Load", "Mma", "Compute", "Reduce"]
    assert not any("is a kernel layer, not a collective mainloop" in w for w in bwd["warnings"])
    # The long calls' arguments are read one by one (1733-1745: 17 arguments).
    calls = [n for n in node_util.program_steps(bwd["kernel_layer"]["program"]["body"]) if n.get("node") == "call" and n.get("name") == "load"]
    assert calls and len(calls[0]["args"]) == 17 and calls[0]["args"][9] == ["id", "pipeline_load_mma_q"]


def test_load_mma_and_compute_run_and_the_reduce_stops_named(bwd, source):
    """The roles run their own programs over the file's rings; Reduce stops at its dQ chunk loop
    (1473), Compute, after its m-blocks, at the warp test before its TMEM free (1812); a deadlock
    that follows is said to come from a stop."""
    assert "for (int i = 0; i < size<2>(tTR_cDQ); i++) {" in source[1472]
    assert "if (warp_idx % kNumComputeWarps == 0) {" in source[1811]
    out = run(bwd, qBlocks=2)
    assert out["error"] is None and out["roles"] == ["Load", "Mma", "Compute", "Reduce"]
    assert [(r, line) for r, line, _ in out["stopped"]] == [("Compute", 1812), ("Reduce", 1473)]
    assert "is not bound" in out["stopped"][1][2]
    assert out["deadlock"] is None   # the others ran to their ends
    more = run(bwd, qBlocks=4)
    # With more m-blocks the dQ ring fills and the Mma waits for the stopped Reduce, said as such.
    assert [(r, line) for r, line, _ in more["stopped"]] == [("Reduce", 1473)]
    assert more["deadlock"].startswith("after Reduce stopped at line 1473 (not modelled)")
    k = out["kinds"]
    assert k.get("Load:issue", 0) > 0 and k.get("Mma:umma", 0) > 0
    # iter_count (1726) is the qBlocks knob (TRIP_KNOBS): more m-blocks, more loads.
    assert more["kinds"]["Load:issue"] > k["Load:issue"]


def test_a_state_of_another_rings_stage_count_stops_named(cutlass, tmp_path, source):
    """A consumer state typed by a ring of more stages than the one it waits on (changed at test
    time) reaches a stage that ring does not have: the role stops, named, and simulate returns."""
    old = "typename decltype(pipeline_load_mma_do)::PipelineState pipeline_load_mma_do_consumer_state;"
    assert old in source[1686]
    text = "\n".join(source).replace(old, old.replace("decltype(pipeline_load_mma_do)", "decltype(pipeline_load_mma_q)"), 1)
    path = tmp_path / "sm100_fmha_bwd_kernel_tma_warpspecialized.hpp"
    path.write_text(text + "\n")
    out = run(parse_cutlass.parse_header(path), qBlocks=3)
    assert out["error"] is None
    assert any("the op's stage is not one of its ring's stages" in why for _r, _l, why in out["stopped"])
