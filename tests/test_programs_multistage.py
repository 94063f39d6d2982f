"""The cp.async multistage GEMM's role programs (docs/programs.md "The SM90 cp.async multistage
GEMM"): the real CUTLASS 4.2 collective `sm90_mma_multistage_gmma_ss_warpspecialized.hpp` with its
two kernel layers runs, complete, equal block for block to the hand-written GEMM model; a header
changed at test time (never committed) stops the run named where the model no longer holds."""

import json
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node, program_run, program_steps as steps

COLLECTIVE = "include/cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp"
KERNELS = {
    "pingpong": "include/cutlass/gemm/kernel/sm90_gemm_warpspecialized_pingpong.hpp",
    "cooperative": "include/cutlass/gemm/kernel/sm90_gemm_warpspecialized_cooperative.hpp",
}
KNOBS = {"stages": 4, "outputTiles": 3, "kTiles": 5, "tmaLatency": 4, "wgmmaLatency": 2,
         "epilogueLatency": 3, "kPipeMmas": 1, "consumerWGs": 2}




@pytest.fixture(scope="module")
def parsed(cutlass):
    return {kind: parse_cutlass.parse_header(cutlass(COLLECTIVE), cutlass(path)) for kind, path in KERNELS.items()}




def interpret(structure, **knobs):
    r = program_run(structure, dict(KNOBS, **knobs))
    if "error" in r:
        return r
    r["issues"] = [[b["tile"], b["k"], b["stage"]] for b in r["blocks"] if b["kind"] == "issue"]
    r["waits"] = [b["reason"] for b in r["blocks"] if b["kind"] == "wait" and "Consumer" in str(b["lane"])]
    return r


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_roles_are_read_through_the_warpgroup_index(parsed, validate, kind):
    model = validate(parsed[kind])
    kl = model["kernel_layer"]
    (var,) = kl["role_vars"]
    # `int warp_group_idx = canonical_warp_group_idx();` and the enum chosen on it (cooperative 288-290, pingpong 293-295)
    assert var["name"] == "warp_group_idx" and var["kind"] == "warp_group_index"
    assert var["line"] == {"cooperative": 288, "pingpong": 293}[kind]
    (enum,) = [e for e in kl["enums"] if e["name"] == "WarpGroupRole"]
    assert enum["members"] == ["Producer", "Consumer"]
    load = [p for p in model["programs"]["functions"] if p["name"] == "load"][0]
    ops = [(s["line"], s["op"], s.get("arrive")) for s in steps(load["body"]) if s["node"] == "op"]
    assert ops == [(263, "producer_acquire", None), (271, "cp_async", None), (281, "cp_async", None),
                   (291, "producer_commit", "cpasync_barrier_arrive"), (301, "producer_acquire", None),
                   (305, "cp_async", None), (306, "cp_async", None), (310, "producer_commit", "cpasync_barrier_arrive")]


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_runs_complete_with_one_issue_per_k_tile(parsed, kind):
    out = interpret(parsed[kind])
    assert out["roles"] == ["Producer.WG0", "Consumer.WG1", "Consumer.WG2"]
    # Cooperative: both warpgroups share every MMA job (one TiledMma); pingpong: one each.
    assert out["groups"] == ({"cooperative": [None, 2, 2], "pingpong": [None, 1, 1]}[kind])
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    # The A and B copies of a k-tile (first k-tile: the two k-block loops 269-286) are one issue.
    tiles = KNOBS["outputTiles"]
    assert [(t, k) for t, k, _ in out["issues"]] == [(t, k) for t in range(tiles) for k in range(KNOBS["kTiles"])]
    assert set(out["waits"]) <= {"tma", "tensor-core", "order", "epilogue-order"}


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_interpreter_equals_the_gemm_model(parsed, tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(parsed[kind]))
    proc = subprocess.run([node(), str(ROOT / "tests" / "js" / "interpret_diff.js"), str(path), kind, "11", "150"],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["runs"] == 150
    assert out["mismatches"] == [], out["mismatches"][:3]
    assert out["stopped"] == []


def mutated(cutlass, tmp_path, kind, edit):
    """The real collective with edit(lines) applied, in a temporary folder (never committed)."""
    lines = cutlass(COLLECTIVE).read_text().split("\n")
    edit(lines)
    path = tmp_path / "sm90_mma_multistage_gmma_ss_warpspecialized.hpp"
    path.write_text("\n".join(lines))
    return parse_cutlass.parse_header(path, cutlass(KERNELS[kind]))


def test_a_commit_without_the_cp_async_arrive_stops_the_producer(cutlass, tmp_path):
    def edit(lines):
        assert "cpasync_barrier_arrive" in lines[309]
        lines[309] = "      pipeline.producer_commit(smem_pipe_write);"
    out = interpret(mutated(cutlass, tmp_path, "cooperative", edit))
    (stop,) = [s for s in out["stopped"] if s["role"] == "Producer.WG0"]
    assert stop["line"] == 271 and "cpasync_barrier_arrive" in stop["reason"]


def test_a_changed_residue_test_stops_the_producer(cutlass, tmp_path):
    def edit(lines):
        assert "get<1>(tAcA(0,0,k)) >= -get<2>(residue_mnk)" in lines[269]
        lines[269] = lines[269].replace(">= -get<2>(residue_mnk)", "> -get<2>(residue_mnk)")
    out = interpret(mutated(cutlass, tmp_path, "pingpong", edit))
    (stop,) = [s for s in out["stopped"] if s["role"] == "Producer.WG0"]
    assert stop["line"] == 270 and "runtime condition" in stop["reason"]
