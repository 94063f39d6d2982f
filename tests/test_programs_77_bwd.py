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


def test_every_role_runs_to_its_end(bwd, source):
    """The roles run their own programs over the file's rings to their ends, no stop, no deadlock.
    Reduce's dQ chunk loop (1473) runs size<2>(tTR_cDQ) = TileShapeDQK / 32 times
    (TMEM_LOAD_PARTITIONS: a `SM100_TMEM_LOAD_32dp32b32x` copy of 32 columns, 1430; the tileDQK
    knob, default 128: 4 chunks), each a TMA reduce-add (1493) on `pipeline_reduce_tma_store`, a
    PipelineTmaStore whose ops are no step (TMA_STORE_PIPELINES), by the thread `lane_predicate`
    elects (1457, 1474); Compute passes its warp test around the TMEM free (1812, INERT_RECEIVERS).
    Per m-block the Mma issues 5 GEMMs (S, dP, dV, dK, dQ) and the Reduce 4 reduce-adds."""
    assert "for (int i = 0; i < size<2>(tTR_cDQ); i++) {" in source[1472]
    assert "auto load_op = SM100_TMEM_LOAD_32dp32b32x{};" in source[1429]
    assert "using TileShapeDQK = decltype(get<2>(TileShape{}));" in source[66]
    assert "if (warp_idx % kNumComputeWarps == 0) {" in source[1811]
    assert "int lane_predicate = (threadIdx.x % (kNumReduceWarps * NumThreadsPerWarp)) == 0;" in source[1456]
    out = run(bwd, qBlocks=2)
    assert out["error"] is None and out["roles"] == ["Load", "Mma", "Compute", "Reduce"]
    assert out["stopped"] == [] and out["deadlock"] is None
    k = out["kinds"]
    assert k["Mma:umma"] == 10 and k["Reduce:reduce"] == 8 and k["Reduce:tmem_load"] == 2
    more = run(bwd, qBlocks=4)
    assert more["stopped"] == [] and more["deadlock"] is None
    assert more["kinds"]["Mma:umma"] == 20 and more["kinds"]["Reduce:reduce"] == 16
    # iter_count (1726) is the qBlocks knob (TRIP_KNOBS): more m-blocks, more loads.
    assert more["kinds"]["Load:issue"] > k["Load:issue"]
    # A head dim of 64 is 2 chunks of 32 columns per m-block.
    assert run(bwd, qBlocks=2, tileDQK=64)["kinds"]["Reduce:reduce"] == 4
    # A knob that is no multiple of the atom's 32 columns leaves the chunk loop unbound, named.
    odd = run(bwd, qBlocks=2, tileDQK=48)
    assert [(r, line) for r, line, _ in odd["stopped"]] == [("Reduce", 1473)]


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


UNITS = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(st, { model: "program", gpu: "b200", batch: 1, heads: 16, seqlen: 4096 });
process.stdout.write(JSON.stringify({ error: r.error, unpriced: r.units && r.units.unpriced, tflops: r.tflops,
  problem: r.units && r.units.inputs.problem }));
"""


def test_in_cycles_the_unpriced_dk_dv_write_is_said(bwd):
    """The backward in cycles (B200, 1 x 16 heads x 4096): a backward census (qBlocks), and the run
    draws no epilogue or store block for the tile's dK / dV, so their write-out is not priced:
    `units.unpriced` says so (the page's "Not priced" line, viz.py's prediction line), rather
    than a figure that looks complete."""
    out = node_util.node_script(UNITS, bwd)
    assert out["error"] is None and out["problem"] == "1 x 16 heads x 4096 backward" and out["tflops"] > 0
    assert out["unpriced"] == ["the tile's dK and dV (2 x n x d): the run draws no epilogue or store block for them, "
                               "so their write-out is not priced"]
