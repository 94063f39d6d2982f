"""CUTLASS 4.2's example 77 decode kernel (77_blackwell_fmha_gen.cu) run from its own programs
(docs/programs.md "The SM90 cp.async multistage GEMM", "Per pipeline"): the gen kernel layer with
the gen mainloop and its composed cp.async Load collective, whose Q is copied by raw
`cp_async_zfill` calls (load_cpasync 208-210). Each rule is checked against the installed
source's lines; mutated copies go to temporary folders only."""

import shutil

import pytest

import parse_cutlass
from node_util import program_sweep, program_run, lane_blocks, program_steps as walk

EX = "examples/77_blackwell_fmha/"
MAINLOOP = EX + "collective/sm100_fmha_gen_mainloop_warpspecialized.hpp"
LOAD = EX + "collective/sm100_fmha_load_cpasync_warpspecialized.hpp"
KERNEL = EX + "kernel/sm100_fmha_gen_kernel_warpspecialized.hpp"
KNOBS = {"stages": 3, "outputTiles": 1, "kvBlocks": 2, "tmaLatency": 4, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "softmaxLatency": 3, "mathLatency": 1, "epilogueLatency": 2}


def interpret(structure, **knobs):
    return program_run(structure, dict(KNOBS, **knobs))


@pytest.fixture(scope="module")
def decode(cutlass):
    return parse_cutlass.parse_header(cutlass(MAINLOOP), cutlass(KERNEL))


def mutated(cutlass, tmp_path, edit):
    """The decode mainloop next to a copy of its cp.async Load collective with edit(lines)
    applied (`#include "collective/sm100_fmha_load_cpasync_warpspecialized.hpp"`)."""
    folder = tmp_path / "collective"
    folder.mkdir()
    lines = cutlass(LOAD).read_text().split("\n")
    edit(lines)
    (folder / "sm100_fmha_load_cpasync_warpspecialized.hpp").write_text("\n".join(lines))
    path = folder / "sm100_fmha_gen_mainloop_warpspecialized.hpp"
    shutil.copy(cutlass(MAINLOOP), path)
    return parse_cutlass.parse_header(path, cutlass(KERNEL))


def copies(structure):
    (load,) = [p for p in structure["programs"]["functions"] if p["name"] == "Load::load"]
    out = []
    for lam in load["lambdas"]:
        out += [(lam["name"], n["line"], n["object"], n["operand"]) for n in walk(lam["body"]) if n.get("op") == "cp_async"]
    return out


def test_the_raw_q_copies_are_cp_async_into_the_acquired_stage(decode, validate):
    """`cutlass::arch::cp_async_zfill<16, ...>(dst_ptr, src_ptr, guard)` (208) writes `&dst(i)`
    (205), `dst = recast<Vec>(tQsQ(_, _, _, _, state.index()))` (199), the stage of
    `pipeline_q.producer_acquire(state)` (193); K and V's masked tiles (300, 334) likewise."""
    validate(decode)
    assert copies(decode) == [("load_q", 208, "pipeline_q", "Q"), ("load_k", 280, "pipeline_kv", "K"),
                              ("load_k", 300, "pipeline_kv", "K"), ("load_v", 313, "pipeline_kv", "V"),
                              ("load_v", 334, "pipeline_kv", "V")]


def test_five_roles_run_to_the_end(decode):
    """WarpRole::Epilogue is never returned by the schedule's warp map (kernel 60-67,
    NumWarpsEpilogue = 0 at 71), so no Epilogue role runs; the other five finish."""
    out = interpret(decode)
    assert out["deadlock"] is None and out["stopped"] == [] and out["hazards"] == []
    assert out["roles"] == ["Softmax0", "Softmax1", "Correction", "MMA", "Load"]
    (role,) = decode["kernel_layer"]["role_vars"]
    assert "Epilogue" not in role["members"] and "Correction" in role["members"]


def test_the_load_warp_order(decode):
    """Q (208), K1 (280), then `mask_tile_count = 2 * trip count` (147-148): per further tile Ki
    (280) and V(i-1) (313), and the last V (369 -> 313); every tile a cache tile (279, 312)."""
    for kv in (1, 2, 3):
        out = interpret(decode, kvBlocks=kv)
        issues = [b["lines"][0] for b in lane_blocks(out, "role:Load", "issue")]
        assert issues == [208, 280] + [280, 313] * (2 * kv - 1) + [313]


def test_the_mma_warp_order(decode):
    """S0 = Q0 K1 (338), S1 (367), O0 = P0 V1 (389), per further block S0 (411), O1 (431),
    S1 (447), O0 (466), and the last O1 (498)."""
    for kv in (1, 3):
        out = interpret(decode, kvBlocks=kv)
        assert [b["lines"][0] for b in lane_blocks(out, "role:MMA", "umma")] == [338, 367, 389] + [411, 431, 447, 466] * (kv - 1) + [498]
    assert interpret(decode, kvBlocks=4)["total"] > interpret(decode, kvBlocks=2)["total"]


def test_a_raw_copy_into_another_tensor_stops_at_the_commit(cutlass, tmp_path):
    """With Q's destination no longer indexed by the acquired state (`state.index()` -> `0`), the
    raw copy is no copy into the stage: the load warp stops at the Q commit (213), named."""
    def edit(lines):
        assert "tQsQ(_, _, _, _, state.index())" in lines[198]
        lines[198] = lines[198].replace("state.index()", "0")
    structure = mutated(cutlass, tmp_path, edit)
    assert [c for c in copies(structure) if c[0] == "load_q"] == []
    (stop,) = [s for s in interpret(structure)["stopped"] if s["role"] == "Load"]
    assert stop["line"] == 213 and stop["reason"].startswith("producer_commit arrives when the stage's cp.async copies land")


def test_random_settings_never_deadlock_the_real_kernel(decode):
    """The decode kernel runs on hardware: its own program finishes with no deadlock, stop or
    hazard for any latencies and KV-block counts."""
    out = program_sweep(decode, {"outputTiles": [1, 3], "kvBlocks": [1, 6], "tmaLatency": [0, 9], "ummaLatency": [1, 5],
                                 "tmemLoadLatency": [0, 5], "storeLatency": [0, 5], "softmaxLatency": [0, 8],
                                 "mathLatency": [0, 4]}, seed=213, runs=60)
    assert out["runs"] == 60
    assert out["badCount"] == 0, out["bad"]
