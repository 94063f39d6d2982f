"""CUTLASS 4.2's SM100-family GEMMs beyond one ring run complete from their own programs on the
installed package (docs/programs.md "SM103 block-scaled GEMM"). The SM103 block-scaled GEMM: its
scale-factor buffers per k-tile, `SF_BUFFERS_PER_TILE_K = SFVecSize == 16 ? 4 : 2`, is read from
the collective (`CONSTANT_EXPRS`) with `TiledMma::SFVecSize` the `sfVecSize` knob (default 16, as
CUTLASS's examples/89 builds it: `SF_VEC_SIZE`); its MMA takes its three pipelines as a tuple
(`TUPLE_GET`) and its two loads share the parameter name `pipeline` (`OBJECT_ALIAS_SUFFIX`).
The SM100 sparse GEMM (docs/programs.md "SM100 sparse and cp.async GEMMs"): its ring's class
`PipelineTmaSparseUmmaAsync` runs by `PipelineTmaUmmaAsync`'s rule (`PIPELINE_CLASSES`) and its
`UtccpReuseCnt` is the `utccpReuse` knob (`UTCCP_REUSE`); the SM100 cp.async GEMM: its k residue
is 0 (`RUNTIME_CONDITIONS`)."""

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


# The SM100 sparse GEMM (docs/programs.md "SM100 sparse and cp.async GEMMs"): its mainloop ring is a
# PipelineTmaSparseUmmaAsync (PIPELINE_CLASSES: PipelineTmaUmmaAsync's rule), and its metadata reuse
# `UtccpReuseCnt` is the utccpReuse knob (UTCCP_REUSE, default 2 as CUTLASS's examples/83 builds it).
SPARSE = (C + "sm100_sparse_mma_warpspecialized.hpp", K + "sm100_sparse_gemm_tma_warpspecialized.hpp")
CPASYNC = (C + "sm100_mma_cpasync_warpspecialized.hpp", K + "sm100_gemm_cpasync_warpspecialized.hpp")
SWEEP = {"stages": [2, 6], "outputTiles": [1, 3], "kTiles": [1, 5], "accStages": [1, 3],
         "tmaLatency": [0, 9], "ummaLatency": [0, 7], "tmemLoadLatency": [0, 5]}


@pytest.fixture(scope="module")
def sparse(cutlass):
    return parse_cutlass.parse_header(cutlass(SPARSE[0]), cutlass(SPARSE[1]))


@pytest.fixture(scope="module")
def cpasync(cutlass):
    return parse_cutlass.parse_header(cutlass(CPASYNC[0]), cutlass(CPASYNC[1]))


def mutated(cutlass, tmp_path, pair, old, new):
    """The pair parsed with one text of its collective replaced (a copy in tmp_path, never committed)."""
    text = cutlass(pair[0]).read_text()
    assert text.count(old) == 1, old
    copy = tmp_path / pair[0].rsplit("/", 1)[1]
    copy.write_text(text.replace(old, new))
    return parse_cutlass.parse_header(copy, cutlass(pair[1]))


def test_the_sparse_pipeline_forwards_to_the_tma_umma_pipeline(cutlass):
    """The facts PIPELINE_CLASSES.PipelineTmaSparseUmmaAsync reads (sm100_pipeline.hpp): it wraps a
    PipelineTmaUmmaAsync (1190) and forwards the ops the kernel and collective call (1260-1302); its
    own producer_acquire waits the empty barrier and has the leader expect the A/B bytes, plus the
    metadata's with load_e (1312-1322); it has no producer_commit. The collective copies E on the
    acquired stage's barrier exactly when load_e (784, 803-807)."""
    text = cutlass("include/cutlass/pipeline/sm100_pipeline.hpp").read_text().splitlines()
    assert text[1184].strip() == "class PipelineTmaSparseUmmaAsync {"
    assert text[1189].strip() == "using Impl = PipelineTmaUmmaAsync<Stages, ClusterShape, AtomThrShape_MNK>;"
    body = "\n".join(text[1184:1324])
    for call in ("impl_.producer_try_acquire(state, skip_wait)", "impl_.producer_tail(state)", "impl_.producer_get_barrier(state)",
                 "impl_.consumer_try_wait(state, skip_wait)", "impl_.consumer_wait(state, barrier_token)", "impl_.consumer_release(state)"):
        assert body.count(call) == 1, call
    assert "producer_commit" not in body
    assert text[1314].strip() == "empty_barrier_ptr_[stage].wait(phase);"
    assert "load_e ? params_metadata_.transaction_bytes + params_metadata_.metadata_transaction_bytes" in text[1316]
    assert text[1319].strip() == "full_barrier_ptr_[stage].arrive_and_expect_tx(bytes_now);"
    coll = cutlass(SPARSE[0]).read_text().splitlines()
    assert coll[783].strip() == "bool load_e = iter % UtccpReuseCnt == 0;"
    assert coll[802].strip() == "if (load_e) {" and "observed_tma_load_e_->with(*tma_barrier" in coll[804]


def test_the_source_leaves_the_metadata_reuse_to_its_instantiation(cutlass):
    """UTCCP_REUSE's facts: `UtccpReuseCnt` is 1 or 2 from the tile's K and the metadata atom's K
    (collective 186-188); the F16 atom's K is (16, 2, 4) = 128 (sm1xx_sparse_config.inl 122, 134);
    examples/83 builds half_t A (91) with tile K 64 (118): 128 / 64 = 2."""
    coll = cutlass(SPARSE[0]).read_text().splitlines()
    assert "static constexpr int UtccpReuseCnt = ((size<2>(TileShape{}) / typename SparseConfig::TensorEAtomK{}) == 0) ?" in coll[185]
    assert "typename SparseConfig::TensorEAtomK{} / size<2>(TileShape{}) : 1;" in coll[186]
    config = cutlass("include/cutlass/gemm/collective/builders/sm1xx_sparse_config.inl").read_text().splitlines()
    assert "using TensorEAtom_MMA_F16 =  Layout<Shape <Shape <  _8, _2,   _8>, Shape <_16,   _2, _4>>," in config[121]
    assert "using TensorEAtomK = Int<size<1>(TensorEAtom{})>;" in config[133]
    example = cutlass("examples/83_blackwell_sparse_gemm/83_blackwell_sparse_gemm.cu").read_text().splitlines()
    assert "ElementA    = half_t;" in example[90] and "using MmaTileShape_MNK = Shape<_256,_128,_64>;" in example[117]


@pytest.mark.parametrize("reuse", [1, 2])
def test_the_sparse_gemm_follows_the_source_per_k_tile(sparse, reuse):
    """Two tiles of three k-tiles, no stop, deadlock or hazard: the load copies A and B every k-tile
    (799-800, one issue) and E on the same stage when `iter % UtccpReuseCnt == 0` (805: k-tiles 0, 1, 2
    at reuse 1, 0 and 2 at 2, per tile: `iter` restarts in each load call, 775); the MMA issues one
    UMMA per k-tile (914, its k-block loop one issue) after waiting for the stage (877), and the
    epilogue loads and stores each tile (951). E lands in the stage's transaction: no UMMA starts
    before its stage's E copy has landed."""
    out = program_run(sparse, dict(KNOBS, utccpReuse=reuse))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == ["MMA", "MainloopLoad", "Epilogue"]
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    loads = sorted(lane_blocks(out, "role:MainloopLoad", "issue"), key=lambda b: b["start"])
    assert [b["lines"] for b in loads if b["lines"] == [799, 800]] == [[799, 800]] * (k * tiles)
    e_copies = [(b["tile"], b["k"]) for b in loads if b["lines"] == [805]]
    assert e_copies == [(t, i) for t in range(tiles) for i in range(k) if i % reuse == 0]
    assert lines(out, "role:MMA", "umma") == [914] * (k * tiles)
    assert lines(out, "role:Epilogue", "tmem_load") == [951] * tiles and lines(out, "role:Epilogue", "store") == [951] * tiles
    landed = {}
    for b in out["blocks"]:
        if b["kind"] == "filling" and b["lines"] == [805]:
            landed[(b["tile"], b["k"])] = b["end"]
    for b in lane_blocks(out, "role:MMA", "umma"):
        if (b["tile"], b["k"]) in landed:
            assert b["start"] >= landed[(b["tile"], b["k"])], b


def test_the_sparse_ring_is_its_class_rule(cutlass, tmp_path):
    """PIPELINE_CLASSES: a copy whose mainloop ring is of another (unmodelled) class stops the load
    at its acquire (787) and the MMA at its wait (877), naming the class, as before the rule."""
    out = program_run(mutated(cutlass, tmp_path, SPARSE, "using MainloopPipeline = cutlass::PipelineTmaSparseUmmaAsync<",
                              "using MainloopPipeline = cutlass::PipelineTmaSparseUmmaAsyncX<"), dict(KNOBS, utccpReuse=2))
    stops = {s["role"]: s for s in out["stopped"]}
    assert stops["MainloopLoad"]["line"] == 787 and stops["MMA"]["line"] == 877
    assert all("PipelineTmaSparseUmmaAsyncX is not modelled" in s["reason"] for s in stops.values())


def test_the_sparse_default_run_is_complete_and_states_its_assumption(sparse):
    """At the program model's defaults the kernel runs complete; the page offers utccpReuse and
    states its default; a value above 2 is clamped, said. Without the knob
    (KernelInterpret.run alone) the load stops at its E test, not silently."""
    out = program_sweep(sparse, {}, seed=1, runs=1)
    assert (out["runs"], out["badCount"]) == (1, 0), out["bad"]
    script = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(input, { model: "program" }, { events: false });
const odd = S.simulate(input, { model: "program", utccpReuse: 3 }, { events: false });
const specs = S.knobsFor("program", input).map((k) => k.name);
process.stdout.write(JSON.stringify({ knob: r.knobs.utccpReuse, offered: specs.includes("utccpReuse"),
  assumption: r.fit.assumptions.filter((a) => /UtccpReuseCnt/.test(a)), odd: odd.knobs.utccpReuse, messages: odd.messages }));
"""
    got = node_script(script, sparse)
    assert got["knob"] == 2 and got["offered"] and got["odd"] == 2
    assert got["messages"] == ["utccpReuse: 3 is above the maximum; clamped to 2"]
    assert len(got["assumption"]) == 1 and "default 2" in got["assumption"][0]
    stops = program_run(sparse, KNOBS)["stopped"]
    assert [(s["role"], s["line"]) for s in stops] == [("MainloopLoad", 803)]
    assert "`UtccpReuseCnt` is the utccpReuse knob" in stops[0]["reason"]


def test_the_sparse_seeded_settings_run_without_deadlock_stop_or_hazard(sparse):
    """60 seeded settings at both reuse counts: the real kernel's own program must not stop."""
    for reuse in (1, 2):
        out = program_sweep(sparse, SWEEP, seed=83 + reuse, runs=30, fixed={"utccpReuse": reuse})
        assert (out["runs"], out["badCount"]) == (30, 0), out["bad"][:3]


def test_the_cpasync_gemm_follows_the_source_per_k_tile(cpasync):
    """The SM100 cp.async GEMM: with K a multiple of BLK_K (RUNTIME_CONDITIONS, as the SM90
    multistage mainloop's residue tests) `k_residue` (423) is 0, so the predicated first k-tile
    (468-498) is skipped and every k-tile is the main loop's: acquire (509), the A and B cp.async
    copies (513-514, one issue) and a commit that lands with them (516, cpasync_barrier_arrive).
    The MMA issues one UMMA per k-tile (570), the epilogue loads and stores each tile (752)."""
    out = program_run(cpasync, KNOBS)
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == ["MMA", "Epilogue", "MainloopLoad"]
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    issues = lane_blocks(out, "role:MainloopLoad", "issue")
    assert [b["lines"] for b in issues] == [[513, 514]] * (k * tiles)
    assert lines(out, "role:MMA", "umma") == [570] * (k * tiles)
    assert lines(out, "role:Epilogue", "tmem_load") == [752] * tiles and lines(out, "role:Epilogue", "store") == [752] * tiles


def test_the_cpasync_residue_test_is_read_by_its_text(cutlass, tmp_path, cpasync):
    """The rule is the residue test as the source writes it (468): a copy that writes it otherwise
    stops the load there, naming the unknown problem K (the structured binding of 413)."""
    text = cutlass(CPASYNC[0]).read_text().splitlines()
    assert text[412].strip() == "auto [M,N,K,L] = problem_shape_MNKL;"
    assert text[422].strip() == "auto k_residue    = K - size<1>(gB_in) * size<2>(gA_in);"
    assert text[467].strip() == "if (k_residue != 0 && k_tile_count > 0)  {"
    out = program_run(mutated(cutlass, tmp_path, CPASYNC, "if (k_residue != 0 && k_tile_count > 0)",
                              "if (k_residue != 0 && 0 < k_tile_count)"), KNOBS)
    assert [(s["role"], s["line"]) for s in out["stopped"]] == [("MainloopLoad", 468)]
    assert "part of a structured binding" in out["stopped"][0]["reason"]


def test_the_cpasync_seeded_settings_run_without_deadlock_stop_or_hazard(cpasync):
    """30 seeded settings: the real kernel's own program must not stop."""
    out = program_sweep(cpasync, SWEEP, seed=100, runs=30)
    assert (out["runs"], out["badCount"]) == (30, 0), out["bad"][:3]


MIXED = (C + "sm100_mma_mixed_tma_cpasync_warpspecialized.hpp", K + "sm100_gemm_mixed_tma_cpasync_warpspecialized.hpp")


@pytest.fixture(scope="module")
def mixed(cutlass):
    return parse_cutlass.parse_header(cutlass(MIXED[0]), cutlass(MIXED[1]))


def test_the_mixed_gemm_states_are_its_collective_aliases(mixed):
    """The kernel layer's `using MainloopPipelineTMAState = typename CollectiveMainloop::
    MainloopPipelineTMAState;` (195, 197) of the collective's `using MainloopPipelineTMAState =
    typename MainloopPipelineTMA::PipelineState;` (158, 161) are state aliases of those pipelines;
    the SM100 GEMM's `MainloopPipelineState`, which its name already reads, is not listed."""
    assert mixed["kernel_layer"]["state_aliases"] == [
        {"alias": "MainloopPipelineTMAState", "pipeline": "MainloopPipelineTMA", "line": 195},
        {"alias": "MainloopPipelineCpAsyncState", "pipeline": "MainloopPipelineCpAsync", "line": 197}]


def test_the_sm100_gemm_parse_lists_no_state_alias(cutlass):
    """The name rule's aliases stay out of the parse (the bundled examples' parses are unchanged)."""
    dense = parse_cutlass.parse_header(cutlass(C + "sm100_mma_warpspecialized.hpp"), cutlass(K + "sm100_gemm_tma_warpspecialized.hpp"))
    assert "state_aliases" not in dense["kernel_layer"]


# The mixed kernel's scheduler: with IsSchedDynamicPersistent off (the run's default) the group
# scheduler, on the CLC scheduler; both hand their tiles through its CLCPipeline, a ring of the run
# (SCHEDULER_PIPELINE, docs/programs.md "Tile schedulers that hand work through a pipeline").
SCHED_KNOBS = dict(KNOBS, schedStages=2, clcLatency=3)
DYNAMIC = dict(SCHED_KNOBS, flags={"IsSchedDynamicPersistent": 1})
MIXED_ROLES = ["MMA", "Sched", "MainloopLoadTMA", "Epilogue", "MainloopLoadCpAsync"]
# Each reader's `auto [next_work_tile_info, increment_pipe] = scheduler.fetch_next_work(...)`.
MIXED_FETCH = {"MainloopLoadTMA": 707, "MainloopLoadCpAsync": 753, "MMA": 842, "Epilogue": 943}


def sched_blocks(out, lane, kind):
    """(first line, tile) of each block of one kind on a lane, in start order."""
    return [(b["lines"][0], b["tile"]) for b in sorted(lane_blocks(out, lane, kind), key=lambda b: (b["start"], b["end"]))]


@pytest.mark.parametrize("knobs", [SCHED_KNOBS, DYNAMIC], ids=["group", "clc"])
def test_the_mixed_gemm_runs_every_role(mixed, knobs):
    """Two tiles of three k-tiles, both schedulers: the TMA load copies A (540) and the cp.async
    load B (631) every k-tile (its `if (k_residue != 0)`, 620, false: RUNTIME_CONDITIONS), the MMA
    waits on both rings (722, 723) and issues one UMMA per k-tile (732), the epilogue loads and
    stores each tile (969); every role, Sched included, runs to its end with no stop, deadlock or
    hazard, each reader's scheduler waits at its own fetch."""
    out = program_run(mixed, knobs)
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == MIXED_ROLES
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    assert lines(out, "role:MainloopLoadTMA", "issue") == [540] * (k * tiles)
    assert lines(out, "role:MainloopLoadCpAsync", "issue") == [631] * (k * tiles)
    assert lines(out, "role:MMA", "umma") == [732] * (k * tiles)
    assert lines(out, "role:Epilogue", "tmem_load") == [969] * tiles and lines(out, "role:Epilogue", "store") == [969] * tiles
    for role, line in MIXED_FETCH.items():
        assert {b["lines"][0] for b in lane_blocks(out, "role:" + role, "wait") if b["reason"] in ("clc", "CLCPipeline")} <= {line}


def test_the_mixed_gemm_clc_scheduler_queries_each_tile(cutlass, mixed):
    """The CLC arm (782): one query per tile, a `clc` block of clcLatency, tiles 1..T (the last
    the invalid tile that ends every loop); the kernel has no throttle pipeline (so no throttle
    wait), and the MMA and epilogue, which fetch at the top of their loops, wait for the first
    response (`clc`, 842 and 943). The group arm (813, the default flags) writes its tiles with no
    latency: the Sched's only blocks are its acquires."""
    assert "throttle" not in cutlass(MIXED[1]).read_text()
    out = program_run(mixed, dict(DYNAMIC, outputTiles=4, clcLatency=4))
    assert [(line, t) for line, t in sched_blocks(out, "role:Sched", "clc")] == [(782, t) for t in range(1, 5)]
    assert all(b["end"] - b["start"] == 4 for b in lane_blocks(out, "role:Sched", "clc"))
    for role in ("MMA", "Epilogue"):
        assert (MIXED_FETCH[role], 0) in [(b["lines"][0], b["tile"]) for b in lane_blocks(out, "role:" + role, "wait") if b["reason"] == "clc"]
    group = program_run(mixed, dict(SCHED_KNOBS, outputTiles=4, schedStages=1))
    assert group["stopped"] == [] and {b["kind"] for b in lane_blocks(group, "role:Sched")} == {"wait"}
    assert {b["lines"][0] for b in lane_blocks(group, "role:Sched")} == {813}


@pytest.mark.parametrize("flags", [{}, {"IsSchedDynamicPersistent": 1}], ids=["group", "clc"])
def test_the_mixed_gemm_seeded_settings_run_clean(mixed, flags):
    """30 seeded settings per scheduler (scheduler stages 1-8, CLC latency 0-9): no error,
    deadlock, stop or hazard."""
    out = program_sweep(mixed, dict(SWEEP, schedStages=[1, 8], clcLatency=[0, 9]), seed=31, runs=30, fixed={"flags": flags})
    assert (out["runs"], out["badCount"]) == (30, 0), out["bad"][:3]


SM100_GEMM = (C + "sm100_mma_warpspecialized.hpp", K + "sm100_gemm_tma_warpspecialized.hpp")
# The SM100 GEMM's readers' fetches, its Sched's throttle wait and query (kernel layer 664-877).
GEMM_FETCH = {"MainloopLoad": 664, "MMA": 741, "Epilogue": 877}


@pytest.fixture(scope="module")
def gemm(cutlass):
    return parse_cutlass.parse_header(cutlass(SM100_GEMM[0]), cutlass(SM100_GEMM[1]))


def test_the_sm100_gemm_clc_scheduler_runs_complete(cutlass, gemm):
    """The SM100 GEMM's CLC scheduler (IsSchedDynamicPersistent on; `using CLCPipeline =
    cutlass::PipelineCLCFetchAsync<...>`, 172): no stop, deadlock or hazard. Per tile the Sched
    role waits on the throttle (692) for the load's commit (632-633), queries (697: a `clc` block of
    clcLatency, tiles 1..T) and reads its own response (701); the CLC ring and the throttle have
    schedStages stages each (lanes); every reader's response wait is `clc` at its fetch. At the
    default flags (the static scheduler) no ring is made: its lanes are the throttle's alone, as
    before (tests/test_programs.py pins its equivalence with the Blackwell model)."""
    text = cutlass(SM100_GEMM[1]).read_text().splitlines()
    assert "using CLCPipeline = cutlass::PipelineCLCFetchAsync<SchedulerPipelineStageCount, ClusterShape>;" in text[171]
    assert "using CLCThrottlePipeline = cutlass::PipelineAsync<SchedulerPipelineStageCount>;" in text[174]
    out = program_run(gemm, dict(DYNAMIC, outputTiles=4, schedStages=3, clcLatency=5))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == ["MMA", "Sched", "MainloopLoad", "Epilogue"]
    assert [l for l in out["lanes"] if l.startswith("CLC")] == ["CLCThrottlePipeline.stage%d" % i for i in range(3)] + \
        ["CLCPipeline.stage%d" % i for i in range(3)]
    assert sched_blocks(out, "role:Sched", "clc") == [(697, t) for t in range(1, 5)]
    assert {b["lines"][0] for b in lane_blocks(out, "role:Sched", "wait") if b["reason"] == "CLCThrottlePipeline"} <= {692}
    for role, line in GEMM_FETCH.items():
        assert {b["lines"][0] for b in lane_blocks(out, "role:" + role, "wait") if b["reason"] == "clc"} <= {line}
    assert len(lane_blocks(out, "role:MMA", "umma")) == 4 * KNOBS["kTiles"]
    static = program_run(gemm, SCHED_KNOBS)
    assert static["stopped"] == [] and "role:Sched" not in static["lanes"]
    assert [l for l in static["lanes"] if l.startswith("CLC")] == ["CLCThrottlePipeline.stage%d" % i for i in range(KNOBS["stages"])]


def test_the_sm100_gemm_clc_seeded_settings_run_clean(gemm):
    """30 seeded settings of the CLC scheduler: no error, deadlock, stop or hazard."""
    out = program_sweep(gemm, dict(SWEEP, schedStages=[1, 8], clcLatency=[0, 9]), seed=37, runs=30,
                        fixed={"flags": {"IsSchedDynamicPersistent": 1}})
    assert (out["runs"], out["badCount"]) == (30, 0), out["bad"][:3]


def test_the_mixed_gemm_mma_stops_without_the_alias(cutlass, tmp_path):
    """A copy whose collective does not write the TMA state as its pipeline's PipelineState leaves
    the kernel's `MainloopPipelineTMAState mainloop_pipe_tma_consumer_state;` (627) no state: the MMA
    stops at its first wait (722), named, as before the rule."""
    out = program_run(mutated(cutlass, tmp_path, MIXED, "using MainloopPipelineTMAState = typename MainloopPipelineTMA::PipelineState;",
                              "using MainloopPipelineTMAState = typename MainloopPipelineTMA::PipelineStateX;"), DYNAMIC)
    stops = {s["role"]: s for s in out["stopped"]}
    assert stops["MMA"]["line"] == 722 and "consumer_wait on a state the program does not follow" in stops["MMA"]["reason"]
