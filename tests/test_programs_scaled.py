"""CUTLASS 4.2's SM100 blockwise-scaling GEMM runs complete from its own programs on the installed
package (docs/programs.md "SM100 transform and array GEMMs", `SCALE_K_BLOCKS`, `MODE_CONSTANTS`):
the collective's ScaleKsPerTile, a ratio of template shapes the source leaves to its
instantiation, is the program model's `scaleKBlocks` knob (default 1, stated on the page); the MMA
fills one accumulator stage per scale k-block and the epilogue scales each. Its FastF32 (9xBF16
emulated) GEMM too (`FASTF32_BUILDER`, `FRAGMENT_CALLS`): the dispatch policy's band count and
promotion interval are its only builder's, and StagesPerTile is the k-blocks knob."""

import json

import pytest

import parse_cutlass
from node_util import node_script, program_run, program_steps, program_sweep, lane_blocks

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
BLOCKWISE = (C + "sm100_mma_warpspecialized_blockwise_scaling.hpp", K + "sm100_gemm_tma_warpspecialized_mma_transform.hpp")
SMALL = {"stages": 2, "outputTiles": 1, "kTiles": 2, "accStages": 1, "tmaLatency": 3, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "mathLatency": 1, "epilogueLatency": 1}


@pytest.fixture(scope="module")
def blockwise(cutlass):
    return parse_cutlass.parse_header(cutlass(BLOCKWISE[0]), cutlass(BLOCKWISE[1]))


def lines(out, lane, kind):
    return [b["lines"][0] for b in lane_blocks(out, lane, kind)]


def test_the_source_leaves_the_scale_k_blocks_to_its_instantiation(cutlass):
    """The facts SCALE_K_BLOCKS and MODE_CONSTANTS read: ScaleKsPerTile is TileShape K over the
    scale layout's K granularity (137-138, LayoutSFA a template parameter's, 117); mma_init tiles
    the fragments' k mode by K_BLOCK_MMAS_PER_SCALE_K (142, 767-781), so mode 3 of tCrA is
    ScaleKsPerTile, the trip count of mma()'s loop (1047); the epilogue's loop is over
    ScaleKsPerTile itself (1182). CUTLASS's own examples (81) set the granularity K to the tile's K."""
    text = cutlass(BLOCKWISE[0]).read_text().splitlines()
    assert "ScaleGranularityK = size<1, 0>(LayoutSFA{});" in text[136]
    assert "ScaleKsPerTile = size<2>(TileShape{}) / ScaleGranularityK;" in text[137]
    assert "K_BLOCK_MMAS_PER_SCALE_K = ScaleGranularityK / size<2>(typename TiledMma::AtomShape_MNK{});" in text[141]
    assert "Int<K_BLOCK_MMAS_PER_SCALE_K>{}," in text[768] and "Int<K_BLOCK_MMAS_PER_SCALE_K>{}," in text[773]
    assert "flat_divide(tCrA_," in text[776] and "mma_tile_shape_A)(_,_,_,_0{},_0{},_0{},_,_);" in text[777]
    assert "(MMA,MMA_M,MMA_K_PER_SCALE,MMA_K_REST,PIPE)" in text[777]
    assert "scale_k_iter < size<3>(tCrA)" in text[1046] and "k_block < ScaleKsPerTile" in text[1181]
    example = cutlass("examples/81_blackwell_gemm_blockwise/81_blackwell_gemm_groupwise.cu").read_text()
    assert "using MmaTileShape_MNK = Shape<_256,_128,_128>;" in example and "constexpr int ScaleGranularityK = 128;" in example


def test_without_the_knob_the_scale_loops_stop_named(blockwise):
    """KernelInterpret.run without scaleKBlocks (the program model always passes it): the MMA stops at
    its loop over `size<3>(tCrA)` (1047) and the epilogue at its loop over ScaleKsPerTile (1182)."""
    out = program_run(blockwise, SMALL)
    stops = {s["role"]: s for s in out["stopped"]}
    assert sorted((r, s["line"]) for r, s in stops.items()) == [("Epilogue", 1182), ("MMA", 1047)]
    assert all("trip count" in s["reason"] for s in stops.values())


@pytest.mark.parametrize("sk", [1, 2, 3])
def test_each_scale_k_block_is_one_accumulator_stage(blockwise, sk):
    """Two tiles of three k-tiles: the loads copy A and B (865) and the scale factors (965) per
    k-tile; the MMA issues one UMMA per scale k-block (1060: the k-block loop of 1058 over
    K_BLOCK_MMAS_PER_SCALE_K, MMAs only, is one issue), each into an accumulator stage it acquires
    (1048) and commits; the epilogue waits for the scale factors per k-tile (1166) and loads TMEM
    (1201) per scale k-block, then stores once per tile (the kernel's epilogue, 1026)."""
    out = program_run(blockwise, dict(SMALL, outputTiles=2, kTiles=3, scaleKBlocks=sk))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert lines(out, "role:MainloopABLoad", "issue") == [865] * 6
    assert lines(out, "role:MainloopSFLoad", "issue") == [965] * 6
    assert lines(out, "role:MMA", "umma") == [1060] * (6 * sk)
    assert lines(out, "role:Epilogue", "tmem_load") == [1201] * (6 * sk)
    assert lines(out, "role:Epilogue", "epilogue") == [1026] * 2
    acc = [b for b in lane_blocks(out, "role:MMA", "wait") if b["lines"] == [1048]]
    assert acc and all(b["reason"] == "acc" for b in acc)


def test_the_default_run_is_complete_and_states_its_assumption(blockwise):
    """At the program model's defaults (scaleKBlocks 1) the kernel runs complete; the page offers
    the knob (the run reads it) and its fit lists the assumed value. A plain SM100 GEMM reads no
    scale k-blocks and states nothing of them."""
    out = program_sweep(blockwise, {}, seed=1, runs=1)
    assert (out["runs"], out["badCount"]) == (1, 0), out["bad"]
    script = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(input, { model: "program" }, { events: false });
const specs = S.knobsFor("program", input).map((k) => k.name);
process.stdout.write(JSON.stringify({ knob: r.knobs.scaleKBlocks, offered: specs.includes("scaleKBlocks"),
  assumption: r.fit.assumptions.filter((a) => /ScaleKsPerTile/.test(a)) }));
"""
    got = node_script(script, blockwise)
    assert got["knob"] == 1 and got["offered"]
    assert len(got["assumption"]) == 1 and "default 1" in got["assumption"][0]


def test_seeded_settings_run_without_deadlock_stop_or_hazard(blockwise):
    """80 seeded settings (stages 2-6, tiles 1-3, k-tiles 1-5, scale k-blocks 1-4, accumulator
    stages 1-3, latencies random): the real kernel runs on hardware, so its own program must not stop."""
    out = program_sweep(blockwise, {"stages": [2, 6], "outputTiles": [1, 3], "kTiles": [1, 5], "scaleKBlocks": [1, 4],
                                    "accStages": [1, 3], "tmaLatency": [0, 9], "ummaLatency": [0, 7],
                                    "tmemLoadLatency": [0, 5], "mathLatency": [0, 5]}, seed=20, runs=80)
    assert (out["runs"], out["badCount"]) == (80, 0), out["bad"][:3]


def test_another_divide_of_the_fragment_is_no_scale_mode(blockwise):
    """MODE_CONSTANTS reads the exact initializer: a copy whose tCrA is tiled otherwise stops the MMA
    at 1047 again, named, while the epilogue's loop over ScaleKsPerTile stays bound."""
    mutated = json.loads(json.dumps(blockwise))
    for fn in mutated["programs"]["functions"]:
        for n in program_steps(fn["body"]):
            if n.get("node") == "let" and n.get("names") == ["tCrA"] and n["expr"][0] == "?":
                n["expr"] = ["?", n["expr"][1].replace("_0{},_0{},_0{}", "_0{},_0{},_")]
    out = program_run(mutated, dict(SMALL, scaleKBlocks=1))
    assert [(s["role"], s["line"]) for s in out["stopped"]] == [("MMA", 1047)]


# FastF32 (9xBF16 emulated): docs/programs.md "SM100 transform and array GEMMs", FASTF32_BUILDER,
# FRAGMENT_CALLS. The dispatch policy's NumBandsToCompute / AccPromotionInterval are set by the one
# builder that makes it; StagesPerTile is then the k-blocks knob.
EMULATED = (C + "sm100_mma_warpspecialized_emulated.hpp", K + "sm100_gemm_tma_warpspecialized_input_transform.hpp")
BUILDER_9XBF16 = C + "builders/sm100_9xBF16_umma_builder.inl"
# The nine cute::gemm of one k-block: band 5 (835), 4 (844, 846), 3 (854, 856, 857), 2 (865, 866), 1 (873).
BAND_GEMMS = [835, 844, 846, 854, 856, 857, 865, 866, 873]


@pytest.fixture(scope="module")
def emulated(cutlass):
    return parse_cutlass.parse_header(cutlass(EMULATED[0]), cutlass(EMULATED[1]))


def test_the_builder_sets_the_fastf32_policy_the_run_reads(cutlass):
    """The facts FASTF32_BUILDER and FRAGMENT_CALLS read: the only builder of the FastF32 dispatch
    policy sets NumBandsToCompute 5, AccPromotionInterval 1 and ScalingFactor 8 (146, 202-203,
    passed at 245-257); the collective copies them (197-199), StagesPerTile divides CtaShapeA_MK's
    MMA_K by the interval (147, 201), the MMA's loop over k-blocks steps by it (809) around band
    `if constexpr`s (834, 843) and the epilogue's loop runs StagesPerTile times (967); mma() reads the
    tCrA that mma_init makes with get_tCrA() (792, 897-909), make_fragment_A of SmemLayoutACompute,
    whose mode 2 is CtaShapeA_MK's MMA_K (236-238)."""
    b = cutlass(BUILDER_9XBF16).read_text().splitlines()
    assert "static constexpr int ScalingFactor = 8;" in b[145]
    assert "static constexpr int NumBandsToCompute = 5;" in b[201] and "static constexpr int AccPromotionInterval = 1;" in b[202]
    assert all(x in "\n".join(b[238:258]) for x in ("NumBandsToCompute,", "ScalingFactor,", "AccPromotionInterval,",
                                                    "MainloopSm100TmaUmmaWarpSpecializedFastF32<"))
    t = cutlass(EMULATED[0]).read_text().splitlines()
    assert "CtaShapeA_MK = decltype(partition_shape_A(TiledMma{}, make_shape(size<0>(TileShape{}), size<2>(TileShape{}))));" in t[146]
    assert "NumBandsToCompute = DispatchPolicy::NumBandsToCompute;" in t[196] and "AccPromotionInterval = DispatchPolicy::AccPromotionInterval;" in t[198]
    assert "StagesPerTile = size<2>(CtaShapeA_MK{}) / DispatchPolicy::AccPromotionInterval;" in t[200]
    assert "append(append(CtaShapeA_MK{}, Int<NumComputeMtxs>{}), Int<DispatchPolicy::Transform2MmaPipelineStageCount>{})" in t[237]
    assert "auto const [tCrA, tCrB] = input_operands;" in t[791]
    assert "k_block < size<2>(tCrA); k_block += DispatchPolicy::AccPromotionInterval" in t[808]
    assert "if constexpr (NumBandsToCompute == 5)" in t[833] and "if constexpr (NumBandsToCompute >= 4)" in t[842]
    assert "auto get_tCrA = [&] () constexpr {" in t[896] and "return tiled_mma.make_fragment_A(sACompute);" in t[899]
    assert "tiled_mma.make_fragment_A(shape(SmemLayoutACompute{}));" in t[902] and "Tensor tCrA = get_tCrA();" in t[908]
    assert "k_block<StagesPerTile" in t[966]
    assert [i + 1 for i, s in enumerate(t[832:878], 832) if "cute::gemm(" in s and "k_block+s" not in s] == BAND_GEMMS


@pytest.mark.parametrize("kb", [1, 2, 3])
def test_each_fastf32_k_block_is_one_accumulator_stage_of_nine_ummas(emulated, kb):
    """Two tiles of three k-tiles: per k-tile the MMA waits for the transform (804), then per
    k-block acquires an accumulator stage (810) and issues the five bands' nine UMMAs (835-873: band
    5 too, NumBandsToCompute 5; the AccPromotionInterval loops run none); the epilogue's accum()
    waits for each (969) and loads it from TMEM (972), StagesPerTile = kBlocks per k-tile, and
    stores once per tile (989)."""
    out = program_run(emulated, dict(SMALL, outputTiles=2, kTiles=3, kBlocks=kb))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert lines(out, "role:MainloopLoad", "issue") == [514] * 6
    assert lines(out, "role:MMA", "umma") == BAND_GEMMS * (6 * kb)
    assert lines(out, "role:Epilogue", "tmem_load") == [972] * (6 * kb)
    assert lines(out, "role:Epilogue", "epilogue") == [989] * 2
    acc = [b for b in lane_blocks(out, "role:MMA", "wait") if b["lines"] == [810]]
    assert acc and all(b["reason"] == "acc" for b in acc)
    assert not any("NumBandsToCompute" in f or "ScalingFactor" in f for f in out["flags"])


def test_without_the_builder_constants_band_five_would_be_a_flag(emulated):
    """The trap FASTF32_BUILDER closes: `NumBandsToCompute == 5` read as an unknown compile-time flag
    is off, and band 5's UMMA (835) is dropped. A copy whose collective names the count otherwise
    (`NumBands`) draws eight UMMAs per k-block and lists the flag; the real one draws nine."""
    mutated = json.loads(json.dumps(emulated))
    for fn in mutated["programs"]["functions"]:
        for n in program_steps(fn["body"]):
            if n.get("node") == "if" and n.get("cond") == ["bin", "==", ["id", "NumBandsToCompute"], ["n", 5]]:
                n["cond"] = ["bin", "==", ["id", "NumBands"], ["n", 5]]
    out = program_run(mutated, dict(SMALL, kTiles=1, kBlocks=1))
    assert lines(out, "role:MMA", "umma") == BAND_GEMMS[1:]
    assert out["flags"].get("NumBands") == 0


def test_fastf32_seeded_settings_run_without_deadlock_stop_or_hazard(emulated):
    """60 seeded settings (stages 2-6, tiles 1-3, k-tiles 1-5, k-blocks 1-4, accumulator stages
    1-3, latencies random), and the program model's defaults."""
    out = program_sweep(emulated, {"stages": [2, 6], "outputTiles": [1, 3], "kTiles": [1, 5], "kBlocks": [1, 4],
                                   "accStages": [1, 3], "tmaLatency": [0, 9], "ummaLatency": [0, 7],
                                   "tmemLoadLatency": [0, 5], "mathLatency": [0, 5]}, seed=21, runs=60)
    assert (out["runs"], out["badCount"]) == (60, 0), out["bad"][:3]
    out = program_sweep(emulated, {}, seed=1, runs=1)
    assert (out["runs"], out["badCount"]) == (1, 0), out["bad"]
