"""The SM90 RS mainloops' role programs (docs/programs.md "The SM90 RS mainloops"): the real CUTLASS
4.2 collectives `sm90_mma_tma_gmma_rs_warpspecialized.hpp` (pingpong kernel layer) and
`sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp` (cooperative) run complete, one WGMMA job
per k-block with its waits and releases where the code puts them; a header changed at test time
(never committed) is followed: a release moved one k-block earlier is a hazard the run reports,
a k-block loop over a tensor that is no MMA fragment stops the role named."""

import pytest

import parse_cutlass
from node_util import program_sweep, program_run, program_steps as steps

RS = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized.hpp"
MIXED = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp"
KERNELS = {
    "rs": (RS, "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"),
    "mixed": (MIXED, "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp"),
}
KNOBS = {"stages": 4, "outputTiles": 3, "kTiles": 5, "tmaLatency": 4, "wgmmaLatency": 2,
         "epilogueLatency": 3, "kPipeMmas": 1, "consumerWGs": 2}




@pytest.fixture(scope="module")
def parsed(cutlass):
    return {kind: parse_cutlass.parse_header(cutlass(c), cutlass(k)) for kind, (c, k) in KERNELS.items()}




def interpret(structure, **knobs):
    r = program_run(structure, dict(KNOBS, **knobs))
    if "error" in r:
        return r
    r["deadlock"] = r["deadlock"] and r["deadlock"]["message"]
    r["mmas"] = [[str(b["lane"]), b["tile"], b["stage"]] for b in r["blocks"] if b["kind"] == "wgmma"]
    return r


def test_the_rs_mma_ops_are_read_in_order(parsed):
    mma = [p for p in parsed["rs"]["programs"]["functions"] if p["name"] == "mma"][0]
    ops = [(s["line"], s["op"]) for s in steps(mma["body"]) if s["node"] == "op" and s["op"] not in ("warpgroup_arrive", "consumer_try_wait")]
    # First k-tile (600-643), mainloop (648-690) with its k-block loop (660), last k-tile (694-726).
    assert ops == [(602, "consumer_wait"), (622, "mma"), (629, "warpgroup_wait"), (633, "mma"), (639, "consumer_wait"),
                   (642, "warpgroup_wait"), (665, "consumer_wait"), (679, "mma"), (681, "warpgroup_wait"),
                   (684, "consumer_release"), (711, "mma"), (714, "warpgroup_wait"), (717, "consumer_release"), (724, "mma")]
    # Each MMA's operands are read: B's fourth coordinate is the stage (`tCrB(_,_,k_block,read_stage)`, 679).
    (m679,) = [s for s in steps(mma["body"]) if s["node"] == "op" and s["line"] == 679]
    assert m679["args"][2] == ["call", "tCrB", [["id", "_"], ["id", "_"], ["id", "k_block"], ["id", "read_stage"]]]
    lets = {s["names"][0]: s for s in steps(mma["body"]) if s["node"] == "let"}
    assert lets["tCrB"]["expr"][2] == "make_fragment_B" and lets["tCrA"]["expr"][2] == "partition_fragment_A"


@pytest.mark.parametrize("kind", sorted(KERNELS))
@pytest.mark.parametrize("k_blocks", [None, 3, 6])
def test_runs_complete_one_wgmma_per_k_block(parsed, kind, k_blocks):
    knobs = {} if k_blocks is None else {"kBlocks": k_blocks}
    out = interpret(parsed[kind], **knobs)
    assert out["roles"] == ["Producer.Mainloop", "Consumer0", "Consumer1"]
    assert out["groups"] == {"rs": [None, 1, 1], "mixed": [None, 2, 2]}[kind]
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    kb, kt, stages = k_blocks or 4, KNOBS["kTiles"], KNOBS["stages"]
    for role in ("Consumer0", "Consumer1"):
        mine = [(t, s) for lane, t, s in out["mmas"] if role in lane]
        tiles = sorted({t for t, _ in mine})
        assert tiles == ({"rs": [0, 2] if role == "Consumer0" else [1], "mixed": [0, 1, 2]}[kind])
        # Every k-tile is kBlocks WGMMAs on one stage: the producer's (tile * K + k)-th fill, in ring order.
        assert mine == [(t, (t * kt + k) % stages) for t in tiles for k in range(kt) for _ in range(kb)]


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_a_seeded_sweep_has_no_deadlock_or_hazard(parsed, kind):
    out = program_sweep(parsed[kind], {"stages": [2, 8], "outputTiles": [1, 6], "kTiles": [1, 9], "tmaLatency": [0, 11],
                                        "wgmmaLatency": [1, 6], "epilogueLatency": [0, 5]}, 23, 150)
    assert out["runs"] == 150 and out["badCount"] == 0, out["bad"]


def mutated(cutlass, tmp_path, edit):
    """The real RS collective with edit(lines) applied, in a temporary folder (never committed)."""
    lines = cutlass(RS).read_text().split("\n")
    edit(lines)
    path = tmp_path / "sm90_mma_tma_gmma_rs_warpspecialized.hpp"
    path.write_text("\n".join(lines))
    return parse_cutlass.parse_header(path, cutlass(KERNELS["rs"][1]))


def test_a_release_one_k_block_earlier_is_a_hazard(cutlass, tmp_path):
    def edit(lines):
        assert lines[681].strip() == "if (k_block == 1) {"
        lines[681] = lines[681].replace("k_block == 1", "k_block == 0")
    out = interpret(mutated(cutlass, tmp_path, edit), stages=2, tmaLatency=0, wgmmaLatency=4)
    # After warpgroup_wait<2> at k-block 0 the previous k-tile's last WGMMA (633, 679) may still run.
    assert out["stopped"] == [] and out["hazards"]
    assert {h["mmaLine"] for h in out["hazards"]} <= {633, 679} and {h["copyLine"] for h in out["hazards"]} == {467}


def test_a_k_block_loop_over_no_mma_fragment_stops_the_consumer(cutlass, tmp_path):
    def edit(lines):
        assert "k_block < size<2>(tCrA); ++k_block" in lines[659]
        lines[659] = lines[659].replace("size<2>(tCrA)", "size<2>(tCsA_copy_view)")
    out = interpret(mutated(cutlass, tmp_path, edit))
    stops = {s["role"]: s for s in out["stopped"]}
    # Consumer0 stops there; Consumer1 then waits on its turn of the order barrier, which never comes.
    assert "Consumer0" in stops and all(s["line"] == 660 for s in stops.values())
    assert stops["Consumer0"]["line"] == 660 and "trip count" in stops["Consumer0"]["reason"]
