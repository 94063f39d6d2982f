"""CUTLASS 4.2's SM100-family GEMMs beyond one ring run complete from their own programs on the
installed package (docs/programs.md "SM103 block-scaled GEMM"). The SM103 block-scaled GEMM: its
scale-factor buffers per k-tile, `SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2`, is read from
the collective (`CONSTANT_EXPRS`) with `TiledMma::SFVecSize` the `sfVecSize` knob (default 16, as
CUTLASS's examples/89 builds it: `SF_VEC_SIZE`); its MMA takes its three pipelines as a tuple
(`TUPLE_GET`) and its two loads share the parameter name `pipeline` (`OBJECT_ALIAS_SUFFIX`)."""

import json

import pytest

import parse_cutlass
from node_util import node_script, program_run, program_steps, program_sweep, lane_blocks

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
SM103 = (C + "sm103_blockscaled_mma_warpspecialized.hpp", K + "sm103_blockscaled_gemm_tma_warpspecialized.hpp")
KNOBS = {"stages": 4, "outputTiles": 2, "kTiles": 3, "accStages": 2, "tmaLatency": 3, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "mathLatency": 1, "epilogueLatency": 1}
# The eight `cute::gemm` calls of one k-tile (collective 1154-1250: MMA 0 to MMA 7).
UMMA_LINES = [1154, 1167, 1185, 1199, 1210, 1227, 1240, 1250]


@pytest.fixture(scope="module")
def sm103(cutlass):
    return parse_cutlass.parse_header(cutlass(SM103[0]), cutlass(SM103[1]))


def lines(out, lane, kind):
    """The first source line of each block of one kind on a lane, in start order."""
    return [b["lines"][0] for b in sorted(lane_blocks(out, lane, kind), key=lambda b: (b["start"], b["end"]))]


def test_the_source_leaves_the_vector_size_to_its_instantiation(cutlass, sm103):
    """The facts SF_VEC_SIZE and CONSTANT_EXPRS read: the collective takes SFVecSize from its MMA
    atom (129) and derives the SF buffers per k-tile from it (151); the builder picks the size from
    the schedule tag (sm1xx_common.inl 144, 157: the Vs16 tags are 16); examples/89 builds the Vs16
    tag (134). The parse gives both constants with their trees, in source order."""
    text = cutlass(SM103[0]).read_text().splitlines()
    assert "static constexpr int SFVecSize = TiledMma::SFVecSize;" in text[128]
    assert "static int constexpr SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2;" in text[150]
    assert "constexpr int MmasPerSfBuffer = 8 / SF_BUFFERS_PER_TILE_K;" in text[1117]
    common = cutlass("include/cutlass/gemm/collective/builders/sm1xx_common.inl").read_text().splitlines()
    assert "KernelTmaWarpSpecialized1SmBlockScaledMxNvf4UltraVs16Sm103>" in common[143] and "return 16;" in common[156]
    example = cutlass("examples/89_sm103_fp4_ultra_gemm/89_sm103_fp4_ultra_gemm.cu").read_text().splitlines()
    assert "KernelTmaWarpSpecialized1SmBlockScaledMxNvf4UltraVs16Sm103" in example[133]
    got = [(c["name"], c["value"], c["line"], c["expr"]) for c in sm103["constants"] if "expr" in c]
    assert got == [("SFVecSize", "TiledMma::SFVecSize", 129, ["id", "TiledMma::SFVecSize"]),
                   ("SF_BUFFERS_PER_TILE_K", "SFVecSize == 16 ? 4 : 2", 151,
                    ["?:", ["bin", "==", ["id", "SFVecSize"], ["n", 16]], ["n", 4], ["n", 2]])]


def test_without_the_vector_size_both_sf_loops_stop_named(sm103):
    """KernelInterpret.run without sfVecSize (the program model always passes it): the MMA stops at
    the SF lambda's test (1121) and the SF load at its buffer loop (995), both naming the constant."""
    out = program_run(sm103, KNOBS)
    stops = {s["role"]: s for s in out["stopped"]}
    assert sorted(stops) == ["MMA", "MainloopSFLoad"]
    assert stops["MMA"]["line"] == 1121 and "SF_BUFFERS_PER_TILE_K" in stops["MMA"]["reason"]
    assert stops["MainloopSFLoad"]["line"] == 995 and "SF_BUFFERS_PER_TILE_K" in stops["MainloopSFLoad"]["reason"]


@pytest.mark.parametrize("vs,buffers", [(16, 4), (32, 2)])
def test_each_role_follows_the_source_per_k_tile(sm103, vs, buffers):
    """Two tiles of three k-tiles, no stop, deadlock or hazard: the AB load copies three buffers per
    k-tile (917), the SF load SF_BUFFERS_PER_TILE_K (1006: 4 at Vs 16, 2 at 32), the MMA issues the
    k-tile's eight UMMAs in order (1154-1250: MMAs = 8 x k-tiles x tiles) and the epilogue one TMEM
    load and store per tile (1057). The loads would issue nothing without OBJECT_ALIAS_SUFFIX and
    the MMA would stop at 1122 without TUPLE_GET."""
    out = program_run(sm103, dict(KNOBS, sfVecSize=vs))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == ["MMA", "MainloopABLoad", "MainloopSFLoad", "Epilogue"]
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    assert lines(out, "role:MainloopABLoad", "issue") == [917] * (3 * k * tiles)
    assert lines(out, "role:MainloopSFLoad", "issue") == [1006] * (buffers * k * tiles)
    assert lines(out, "role:MMA", "umma") == UMMA_LINES * (k * tiles)
    assert lines(out, "role:Epilogue", "tmem_load") == [1057] * tiles
    assert lines(out, "role:Epilogue", "store") == [1057] * tiles


def test_the_mma_takes_its_pipelines_from_the_tuple(sm103):
    """TUPLE_GET: `auto pipeline_sf = get<1>(pipelines);` (1081) is the kernel's mainloop_sf_pipeline
    (make_tuple at kernel 903). A copy whose mma() reads part 3 of the three-part tuple stops the
    MMA at the SF wait (1122), naming the pipeline object."""
    mutated = json.loads(json.dumps(sm103))
    (mma,) = [f for f in mutated["programs"]["functions"] if f["name"] == "mma"]
    (let,) = [n for n in program_steps(mma["body"]) if n.get("node") == "let" and n.get("names") == ["pipeline_sf"]]
    assert let["line"] == 1081 and let["expr"] == ["call", "get", [["id", "pipelines"]], "1"]
    let["expr"] = ["call", "get", [["id", "pipelines"]], "3"]
    stops = {s["role"]: s for s in program_run(mutated, dict(KNOBS, sfVecSize=16))["stopped"]}
    assert stops["MMA"]["line"] == 1122 and "`pipeline_sf`" in stops["MMA"]["reason"]


def test_the_default_run_is_complete_and_states_its_assumption(sm103):
    """At the program model's defaults the kernel runs complete; the page offers sfVecSize (the run
    reads it) and states its default; a value other than 16 or 32 is the default, said."""
    out = program_sweep(sm103, {}, seed=1, runs=1)
    assert (out["runs"], out["badCount"]) == (1, 0), out["bad"]
    script = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(input, { model: "program" }, { events: false });
const odd = S.simulate(input, { model: "program", sfVecSize: 20 }, { events: false });
const specs = S.knobsFor("program", input).map((k) => k.name);
process.stdout.write(JSON.stringify({ knob: r.knobs.sfVecSize, offered: specs.includes("sfVecSize"),
  assumption: r.fit.assumptions.filter((a) => /SFVecSize/.test(a)), odd: odd.knobs.sfVecSize, messages: odd.messages }));
"""
    got = node_script(script, sm103)
    assert got["knob"] == 16 and got["offered"] and got["odd"] == 16
    assert got["messages"] == ["sfVecSize: 20 is not one of 16, 32; using 16"]
    assert len(got["assumption"]) == 1 and "default 16" in got["assumption"][0]


def test_seeded_settings_run_without_deadlock_stop_or_hazard(sm103):
    """60 seeded settings (stages 2-6, tiles 1-3, k-tiles 1-5, accumulator stages 1-3, latencies
    random) at both vector sizes: the real kernel runs on hardware, so its own program must not stop."""
    for vs in (16, 32):
        out = program_sweep(sm103, {"stages": [2, 6], "outputTiles": [1, 3], "kTiles": [1, 5], "accStages": [1, 3],
                                    "tmaLatency": [0, 9], "ummaLatency": [0, 7], "tmemLoadLatency": [0, 5]},
                            seed=103 + vs, runs=30, fixed={"sfVecSize": vs})
        assert (out["runs"], out["badCount"]) == (30, 0), out["bad"][:3]
