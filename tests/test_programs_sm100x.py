"""CUTLASS 4.2's SM100 transform and array GEMMs run from their own programs on the installed
package (docs/programs.md "SM100 transform and array GEMMs"): the mixed-input transform GEMM runs
to its end (its transform warpgroup's own named barrier is no step, NAMED_BARRIER_OWN); the
blockwise-scaling and SM103 kernels' roles are read from their typed `WarpCategory` declarations
and their `while (k_tile_count > 0)` loads run once per k-tile until the next stop, named (the
blockwise-scaling kernel runs complete with its scale k-blocks bound: tests/test_programs_scaled.py)."""

import json

import pytest

import parse_cutlass
from node_util import program_run, program_steps, program_sweep, lane_blocks

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
MIXED = (C + "sm100_mma_warpspecialized_mixed_input.hpp", K + "sm100_gemm_tma_warpspecialized_mixed_input_transform.hpp")
BLOCKWISE = (C + "sm100_mma_warpspecialized_blockwise_scaling.hpp", K + "sm100_gemm_tma_warpspecialized_mma_transform.hpp")
SM103 = (C + "sm103_blockscaled_mma_warpspecialized.hpp", K + "sm103_blockscaled_gemm_tma_warpspecialized.hpp")
SMALL = {"stages": 2, "outputTiles": 1, "kTiles": 2, "accStages": 1, "tmaLatency": 3, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "mathLatency": 1, "epilogueLatency": 1}


@pytest.fixture(scope="module")
def parsed(cutlass):
    """The parse of a (collective, kernel layer) pair, cached per pair."""
    memo = {}

    def get(pair):
        if pair not in memo:
            memo[pair] = parse_cutlass.parse_header(cutlass(pair[0]), cutlass(pair[1]))
        return memo[pair]
    return get


def kinds(out, lane):
    """The kinds of a lane's blocks with their first line, in start order."""
    return [(b["kind"], b["lines"][0]) for b in sorted(lane_blocks(out, lane), key=lambda b: (b["start"], b["end"]))]


def test_the_transform_barrier_keeps_its_object_id(parsed):
    """`transform_bar.sync()` (1028) takes its id from the object's declaration (994)."""
    (fn,) = [f for f in parsed(MIXED)["programs"]["functions"] if f["name"] == "transform"]
    stack, syncs = list(fn["body"]), []
    while stack:
        n = stack.pop()
        if n["node"] == "op" and n["op"] == "named_barrier_sync":
            syncs.append(n)
        for key in ("init", "body", "step", "then", "else"):
            stack.extend(n.get(key) or [])
    assert [(n["line"], n["barrier_id"], n["count"]) for n in syncs] == [
        (1028, "cutlass::arch::ReservedNamedBarriers::TransformBarrier", "NumTransformationThreads")]


def test_the_mixed_input_gemm_runs_to_its_end_at_the_defaults(parsed):
    """simulate(..., {model: "program"}) at the program model's default knobs: no error, stop,
    deadlock or hazard (program_sweep with no random knob is that one run)."""
    out = program_sweep(parsed(MIXED), {}, seed=1, runs=1)
    assert (out["runs"], out["badCount"]) == (1, 0), out["bad"]
    roles = program_run(parsed(MIXED), SMALL)["roles"]
    assert roles == ["MMA", "MainloopLoad", "Epilogue", "Transformation", "MainloopLoadB"]


def test_each_roles_ops_per_k_tile_follow_the_source(parsed):
    """One tile of two k-tiles: load A (788) and B (869) per k-tile; the transform waits on
    Load2Transform (1013), dequantizes (the register loop 1034-1037: math at 1035) per k-tile;
    the MMA waits on Load2Mma (1202) and Transform2Mma (1203), then its UMMA (1213); the epilogue
    waits on the accumulator (1027), loads TMEM and stores (1045)."""
    out = program_run(parsed(MIXED), SMALL)
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert kinds(out, "role:MainloopLoad") == [("issue", 788)] * 2
    assert kinds(out, "role:MainloopLoadB") == [("issue", 869)] * 2
    assert kinds(out, "role:Transformation") == [("wait", 1013), ("math", 1035), ("math", 1035)]
    assert [k for k in kinds(out, "role:MMA") if k[0] == "umma"] == [("umma", 1213)] * 2
    assert kinds(out, "role:MMA")[:2] == [("wait", 1202), ("wait", 1203)]
    assert kinds(out, "role:Epilogue") == [("wait", 1027), ("tmem_load", 1045), ("store", 1045)]


def test_the_transform_is_its_own_hand_off(parsed):
    """A -> transform -> MMA: each k-tile's UMMA starts after the transform's dequantize of it
    (Transform2MmaPipeline, collective 255-258), and the MMA's first wait is on that ring."""
    out = program_run(parsed(MIXED), dict(SMALL, mathLatency=4))
    maths = lane_blocks(out, "role:Transformation", "math")
    mmas = lane_blocks(out, "role:MMA", "umma")
    assert len(maths) == len(mmas) == 2
    assert all(m["start"] >= d["end"] for m, d in zip(mmas, maths))
    waits = [b for b in lane_blocks(out, "role:MMA", "wait") if b["lines"] == [1203]]
    assert waits and waits[0]["reason"] == "Transform2MmaPipeline"


def test_blocks_per_kind_for_small_knobs(parsed):
    out = program_run(parsed(MIXED), dict(SMALL, outputTiles=2, kTiles=3))
    count = {}
    for b in out["blocks"]:
        if b["lane"].startswith("role:") and b["kind"] != "wait":
            count[(b["lane"], b["kind"])] = count.get((b["lane"], b["kind"]), 0) + 1
    assert count == {("role:MainloopLoad", "issue"): 6, ("role:MainloopLoadB", "issue"): 6,
                     ("role:Transformation", "math"): 6, ("role:MMA", "umma"): 6,
                     ("role:Epilogue", "tmem_load"): 2, ("role:Epilogue", "store"): 2}


def test_a_lambda_or_ternary_warp_category_is_the_role_variable(parsed):
    """`WarpCategory warp_category = [&] () ... { ... }();` (MMA-transform kernel 412-425) and
    `WarpCategory warp_category = (...) ? WarpCategory::Epilogue : ...` (SM103 kernel 438)."""
    (bw,) = parsed(BLOCKWISE)["kernel_layer"]["role_vars"]
    assert (bw["name"], bw["line"], bw["members"]) == (
        "warp_category", 412, ["MMA", "Sched", "MainloopABLoad", "EpilogueLoad", "Epilogue", "MainloopSFLoad", "Unused"])
    (s3,) = parsed(SM103)["kernel_layer"]["role_vars"]
    assert (s3["name"], s3["line"]) == ("warp_category", 438)


def test_the_blockwise_while_loop_loads_once_per_k_tile_up_to_the_next_stops(parsed):
    """`while (k_tile_count > 0)` (collective 852, `--k_tile_count` at 869) is bound: its
    count is the kernel's `k_tile_count - k_tile_prologue` with `min(MainloopABPipeline::Stages,
    k_tile_count)` (kernel 658) the stages knob. Without the scaleKBlocks knob (the program model
    passes it: tests/test_programs_scaled.py) the load role does not stop; it fills every stage
    (copy at 865) until the MMA, stopped at its loop over scale k-blocks (1047), releases none;
    the scale-factor load runs (COMMIT_ARRIVE_OPS, below) and the epilogue stops at its loop over
    `ScaleKsPerTile` (1182)."""
    out = program_run(parsed(BLOCKWISE), dict(SMALL, stages=3, kTiles=4))
    assert sorted((s["role"], s["line"]) for s in out["stopped"]) == [("Epilogue", 1182), ("MMA", 1047)]
    assert kinds(out, "role:MainloopABLoad") == [("issue", 865)] * 3


def test_a_noinc_cpasync_commit_arrives_when_the_copies_land(parsed, cutlass):
    """COMMIT_ARRIVE_OPS: `producer_commit(state, cutlass::arch::cpasync_barrier_arrive_noinc)`
    (collective 969) is `cp.async.mbarrier.arrive.noinc` (arch/barrier.h 745-760), counted in the
    SF ring's producer count (`NumMainloopSFProducerThreadEvents = 64`: "1 arrival and 1 arrival
    through cp.async.mbarrier" per thread, collective 212-213): the phase completes when the
    copies land. The SF load warp then copies (965) once per k-tile, each after its two register
    loops of predicates (952, 959); before, it stopped at its first copy."""
    text = cutlass(BLOCKWISE[0]).read_text().splitlines()
    assert "cutlass::arch::cpasync_barrier_arrive_noinc);" in text[968]
    assert "static constexpr int NumMainloopSFProducerThreadEvents = 64;" in text[212]
    out = program_run(parsed(BLOCKWISE), dict(SMALL, stages=3, kTiles=4))
    assert "MainloopSFLoad" not in {s["role"] for s in out["stopped"]}
    assert kinds(out, "role:MainloopSFLoad") == [("math", 952), ("math", 959), ("issue", 965)] * 4
    # The same program with the arrive op renamed (no landing arrive) stops at the copy, named.
    mutated = json.loads(json.dumps(parsed(BLOCKWISE)))
    for fn in mutated["programs"]["functions"]:
        for n in program_steps(fn["body"]):
            if n.get("op") == "producer_commit" and n.get("arrive") == "cpasync_barrier_arrive_noinc":
                n["arrive"] = "some_other_arrive"
    stops = {s["role"]: s for s in program_run(mutated, dict(SMALL, stages=3, kTiles=4))["stopped"]}
    assert stops["MainloopSFLoad"]["line"] == 965 and "no `cpasync_barrier_arrive`" in stops["MainloopSFLoad"]["reason"]
