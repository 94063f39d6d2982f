"""CUTLASS 4.2's SM100 mixed-input GEMM (a transform warpgroup between the loads and the MMA) run
from its own programs (docs/programs.md "SM100 mixed-input transform GEMM"): load A -> transform
warpgroup on PipelineTmaTransformAsync, transformed A -> MMA on PipelineUmmaConsumerAsync, B -> MMA
on PipelineTmaUmmaAsync. The transform warpgroup's own named barrier is no step, so the real
source runs to the end, as a copy without that line (in a temporary folder) does."""

import pytest

import parse_cutlass
from node_util import program_sweep, program_run, lane_blocks, program_steps as walk

COLLECTIVE = "include/cutlass/gemm/collective/sm100_mma_warpspecialized_mixed_input.hpp"
KERNEL = "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized_mixed_input_transform.hpp"
KNOBS = {"stages": 3, "outputTiles": 2, "kTiles": 3, "accStages": 2, "tmaLatency": 4, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "mathLatency": 1, "epilogueLatency": 2}
BARRIER_LINE = 1028   # `transform_bar.sync();` in transform()



def interpret(structure, **knobs):
    return program_run(structure, dict(KNOBS, **knobs), simulate=True)


@pytest.fixture(scope="module")
def real(cutlass):
    return parse_cutlass.parse_header(cutlass(COLLECTIVE), cutlass(KERNEL))


@pytest.fixture(scope="module")
def unbarriered(cutlass, tmp_path_factory):
    """The collective with `transform_bar.sync();` (1028) blanked, same line numbers."""
    lines = cutlass(COLLECTIVE).read_text().split("\n")
    assert lines[BARRIER_LINE - 1].strip() == "transform_bar.sync();"
    lines[BARRIER_LINE - 1] = ""
    path = tmp_path_factory.mktemp("transform") / "sm100_mma_warpspecialized_mixed_input.hpp"
    path.write_text("\n".join(lines))
    return parse_cutlass.parse_header(path, cutlass(KERNEL))


def test_the_parse_gives_the_roles_the_pipelines_and_the_barrier(real, validate):
    model = validate(real)
    (role,) = model["kernel_layer"]["role_vars"]
    # `WarpCategory warp_category = ...` (kernel 409), enum at 227.
    assert (role["name"], role["line"], role["enum_line"]) == ("warp_category", 409, 227)
    assert role["members"] == ["MMA", "Sched", "MainloopLoad", "EpilogueLoad", "Epilogue", "Transformation", "MainloopLoadB"]
    classes = {p["alias"]: (p["class"], p["line"]) for p in model["pipelines"]}
    assert classes == {"Load2TransformPipeline": ("PipelineTmaTransformAsync", 244), "Load2MmaPipeline": ("PipelineTmaUmmaAsync", 249),
                       "Transform2MmaPipeline": ("PipelineUmmaConsumerAsync", 255), "Mma2AccumPipeline": ("PipelineUmmaAsync", 260)}
    (transform,) = [p for p in model["programs"]["functions"] if p["name"] == "transform"]
    (sync,) = [n for n in walk(transform["body"]) if n["node"] == "op" and n["op"] == "named_barrier_sync"]
    # `cutlass::arch::NamedBarrier transform_bar(NumTransformationThreads, ...)` (994), synced at 1028.
    assert (sync["line"], sync["count"]) == (BARRIER_LINE, "NumTransformationThreads")


def test_the_transform_warpgroups_own_barrier_is_no_step(real, unbarriered):
    """The transform warpgroup's NamedBarrier (994: 128 threads, id TransformBarrier) is reached
    by the Transformation role alone, so it is among the role's own threads (NAMED_BARRIER_OWN,
    docs/programs.md "SM100 transform and array GEMMs"): the real source runs to the end, block
    for block as the copy without line 1028."""
    out = interpret(real)
    assert out["roles"] == ["MMA", "MainloopLoad", "Epilogue", "Transformation", "MainloopLoadB"]
    assert out["idle"] == ["Sched", "EpilogueLoad"]
    assert out["stopped"] == [] and out["deadlock"] is None and out["simDeadlock"] is None
    assert out["blocks"] == interpret(unbarriered)["blocks"]


def test_without_the_barrier_the_three_paths_run_to_the_end(unbarriered):
    out = interpret(unbarriered)
    assert out["deadlock"] is None and out["stopped"] == [] and out["hazards"] == []
    rings = sorted({lane.rsplit(".stage", 1)[0] for lane in out["lanes"] if ".stage" in lane})
    assert {"Load2TransformPipeline", "Load2MmaPipeline", "Transform2MmaPipeline", "Mma2AccumPipeline"} <= set(rings)
    k, tiles = KNOBS["kTiles"], KNOBS["outputTiles"]
    # load_A's copy (788) and load_B's (869) once per k-tile; the MMA (1213) per k-tile.
    assert [b["lines"][0] for b in lane_blocks(out, "role:MainloopLoad", "issue")] == [788] * (k * tiles)
    assert [b["lines"][0] for b in lane_blocks(out, "role:MainloopLoadB", "issue")] == [869] * (k * tiles)
    assert [b["lines"][0] for b in lane_blocks(out, "role:MMA", "umma")] == [1213] * (k * tiles)
    # The dequantize loop (1034-1037) is a register loop, one math block per k-tile.
    assert [b["lines"][0] for b in lane_blocks(out, "role:Transformation", "math")] == [1035] * (k * tiles)


def test_the_mma_reads_a_only_after_the_transform_committed_it(unbarriered):
    """Transform2Mma's producer_commit is a thread arrival (PipelineAsync): the MMA's wait on it
    (1203) ends after the transform's dequantize of that k-tile; its release is a tcgen05 commit,
    so with one stage the transform's next acquire (1015) waits for the MMA to complete."""
    out = interpret(unbarriered, stages=1, kTiles=2, outputTiles=1, ummaLatency=5)
    maths = lane_blocks(out, "role:Transformation", "math")
    mmas = lane_blocks(out, "role:MMA", "umma")
    assert len(maths) == len(mmas) == 2
    assert all(m["start"] >= d["end"] for m, d in zip(mmas, maths))
    acquire = [b for b in lane_blocks(out, "role:Transformation", "wait") if b["lines"] == [1015]]
    assert acquire and acquire[0]["end"] >= mmas[0]["end"]


def test_random_settings_never_deadlock_the_rest_of_the_kernel(unbarriered):
    out = program_sweep(unbarriered, {"stages": [1, 6], "outputTiles": [1, 4], "kTiles": [1, 6], "accStages": [1, 3],
                                      "tmaLatency": [0, 9], "ummaLatency": [1, 5], "tmemLoadLatency": [0, 5],
                                      "storeLatency": [0, 5], "mathLatency": [0, 4]}, seed=244, runs=80)
    assert out["runs"] == 80
    assert out["badCount"] == 0, out["bad"]


def test_stages_matter(unbarriered):
    """One stages knob sizes the load-to-transform, load-to-MMA and transform-to-MMA rings (the
    mixed-input builder's StageCount<N>: all N, sm100_mixed_input_umma_builder.inl 59-63); more
    stages overlap more k-tiles."""
    totals = [interpret(unbarriered, stages=s, kTiles=4)["total"] for s in (1, 2, 4)]
    assert totals[0] > totals[1] > totals[2]
    out = interpret(unbarriered, stages=2)
    stages = {r: sum(1 for lane in out["lanes"] if lane.startswith(r + ".stage"))
              for r in ("Load2TransformPipeline", "Load2MmaPipeline", "Transform2MmaPipeline", "Mma2AccumPipeline")}
    assert stages == {"Load2TransformPipeline": 2, "Load2MmaPipeline": 2, "Transform2MmaPipeline": 2,
                      "Mma2AccumPipeline": KNOBS["accStages"]}
