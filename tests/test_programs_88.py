"""CUTLASS 4.2's example 88 Hopper FMHA kernels (forward and backward collectives on
fmha_kernel_tma_warpspecialized.hpp) in the program model (docs/programs.md "CUTLASS 88 Hopper
FMHA"): the kernel layer's pipeline aliases named through `CollectiveMainloop::` are the
collective's rings, the roles are the block's warpgroups, and each run stops, named, at the
first construct not modelled yet (the load helpers' own programs; the backward's dQ reducer's
loop). Every fact is checked against the installed source's lines."""

import pytest

import parse_cutlass
from node_util import program_run

EX = "examples/88_hopper_fmha/"
FWD = EX + "collective/fmha_collective_tma_warpspecialized.hpp"
BWD = EX + "collective/fmha_collective_bwd_tma_warpspecialized.hpp"
KERNEL = EX + "kernel/fmha_kernel_tma_warpspecialized.hpp"
KNOBS = {"stages": 3, "outputTiles": 2, "kvBlocks": 3, "tmaLatency": 4, "wgmmaLatency": 2, "epilogueLatency": 1}


@pytest.fixture(scope="module")
def fwd(cutlass):
    return parse_cutlass.parse_header(cutlass(FWD), cutlass(KERNEL))


@pytest.fixture(scope="module")
def bwd(cutlass):
    return parse_cutlass.parse_header(cutlass(BWD), cutlass(KERNEL))


def test_the_parse_names_the_kernel_aliases_state_types_and_stage_counts(fwd, bwd):
    kl = fwd["kernel_layer"]
    pipes = {p["alias"]: p for p in kl["pipelines"]}
    # `using MainloopPipelineOuter = typename CollectiveMainloop::MainloopPipelineQ;` (64-65) and the
    # reducer's `cutlass::PipelineAsync<2>` (66), its literal stage count kept.
    assert pipes["MainloopPipelineOuter"]["class"] == "CollectiveMainloop::MainloopPipelineQ"
    assert pipes["MainloopPipelineInner"]["class"] == "CollectiveMainloop::MainloopPipeline"
    assert (pipes["MainloopPipelineReducer"]["class"], pipes["MainloopPipelineReducer"]["stages"]) == ("PipelineAsync", "2")
    # `using PipelineStateOuter = typename cutlass::PipelineState<MainloopPipelineOuter::Stages>;` (121-125).
    assert kl["state_aliases"] == [{"alias": "PipelineStateInner", "pipeline": "MainloopPipelineInner", "line": 121},
                                   {"alias": "PipelineStateOuter", "pipeline": "MainloopPipelineOuter", "line": 123},
                                   {"alias": "PipelineStateReducer", "pipeline": "MainloopPipelineReducer", "line": 125}]
    # `PipelineTmaAsync<StagesQ::value>` (119) of `using StagesQ = StageCount<StageCountQ>;` (78).
    counts = {p["alias"]: p.get("stage_count") for p in fwd["pipelines"]}
    assert counts["MainloopPipeline"] == "StageCount" and counts["MainloopPipelineQ"] == "StageCountQ"
    # `static const int kOuterLoads = 1;` (forward 77), `= 2` (backward 64).
    assert {"name": "kOuterLoads", "value": 1, "line": 77} in fwd["constants"]
    assert {"name": "kOuterLoads", "value": 2, "line": 64} in bwd["constants"]


def test_the_forward_roles_rings_and_stop(fwd):
    out = program_run(fwd, KNOBS)
    # Warpgroups: 1 load + NumMmaWarpGroups = 2 (find_option default Int<2>, collective 73; kernel
    # 58-59, 128): Consumer2 and Consumer3 hold no warpgroup. kLoadsQSeparately is off (kernel 55),
    # so the MaybeLoadQ warp (311) runs nothing; reduce() is a no-op in the forward (337).
    assert out["roles"] == ["Producer.LoadKV", "Consumer0", "Consumer1"]
    assert "Consumer2" in out["idle"] and "Consumer3" in out["idle"]
    assert out["flags"].get("kLoadsQSeparately") == 0
    # One ring per collective alias, under the collective's name (the kernel's MainloopPipelineOuter /
    # Inner are those rings): StageCount = Int<5> (74), StageCountQ = Int<NumMmaWarpGroups> = 2 (75).
    stages = [l for l in out["lanes"] if ".stage" in l]
    assert stages == [f"MainloopPipeline.stage{i}" for i in range(5)] + ["MainloopPipelineQ.stage0", "MainloopPipelineQ.stage1"]
    # The load warp stops at its first helper copy (`load_k.template step<false>(...)`, 275, of the
    # helper declared at 265), named; the consumers then wait for Q at 379.
    (stop,) = out["stopped"]
    assert (stop["role"], stop["line"]) == ("Producer.LoadKV", 275)
    assert "load helper `load_k` (declared at line 265)" in stop["reason"]
    assert "MainloopPipelineQ.full[0] (phase 0) at line 379" in out["deadlock"]["message"]


def test_the_backward_has_its_reducer_as_its_own_role(bwd):
    out = program_run(bwd, KNOBS)
    # The dQ reducer (kernel 325-333, warp Reducer = 0 of the producer warpgroup) is a role with its
    # own lane; NumMmaWarpGroups = 2 (bwd collective 60).
    assert out["roles"] == ["Producer.LoadKV", "Producer.Reducer", "Consumer0", "Consumer1"]
    assert "role:Producer.Reducer" in out["lanes"]
    # StageCount = 2 * 2 (62), StageCountQ = 2 * NumMmaWarpGroups (61), the reducer's PipelineAsync<2> (kernel 66).
    for ring, n in (("MainloopPipeline", 4), ("MainloopPipelineQ", 4), ("MainloopPipelineReducer", 2)):
        assert [l for l in out["lanes"] if l.startswith(ring + ".stage")] == [f"{ring}.stage{i}" for i in range(n)]
    stops = {s["role"]: (s["line"], s["reason"]) for s in out["stopped"]}
    # Both stop at their `while (inner_tile_count > 0)` (414; 539), whose count the loop's own body
    # does not bound: the load's decrements happen in the helpers' step (fmha_collective_load.hpp 136).
    assert stops["Producer.LoadKV"][0] == 414 and stops["Producer.Reducer"][0] == 539
    assert all("trip count" in r for _, r in stops.values())
    # The consumers wait for K at 597 (`pipeline_outer.consumer_wait(smem_pipe_read_outer)`).
    assert "MainloopPipelineQ.full[0] (phase 0) at line 597" in out["deadlock"]["message"]


def test_no_ring_is_keyed_by_a_kernel_alias(fwd, bwd):
    """The kernel's `MainloopPipelineOuter pipeline_outer(...)` (243) is the collective's Q ring: no
    lane, stop or wait names the kernel-layer alias."""
    for model in (fwd, bwd):
        out = program_run(model, KNOBS)
        assert not any("MainloopPipelineOuter" in l or "MainloopPipelineInner" in l for l in out["lanes"])
        assert not any("not modelled yet" in s["reason"] for s in out["stopped"])
