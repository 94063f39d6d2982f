"""CUTLASS 4.2's example 77 MLA forward (77_blackwell_mla_fwd.cu) run from its own programs
(docs/programs.md "MLA forward (CUTLASS 77)"): the forward kernel layer with the MLA mainloop, its
composed MLA Load collective and the forward epilogue; K and V share one two-stage
PipelineTmaAsyncMla ring whose V stages are acquired with producer_acquire_bytes. Each rule is
checked against the installed source's lines; mutated copies go to temporary folders only."""

import json
import shutil
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node, program_sweep, program_run, lane_blocks, program_steps as walk

EX = "examples/77_blackwell_fmha/"
MAINLOOP = EX + "collective/sm100_fmha_mla_fwd_mainloop_tma_warpspecialized.hpp"
LOAD = EX + "collective/sm100_fmha_mla_load_tma_warpspecialized.hpp"
KERNEL = EX + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"
EPILOGUE = EX + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"
KNOBS = {"stages": 3, "outputTiles": 1, "kvBlocks": 3, "tmaLatency": 4, "ummaLatency": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "softmaxLatency": 3, "mathLatency": 1, "epilogueLatency": 2}



def interpret(structure, **knobs):
    return program_run(structure, dict(KNOBS, **knobs))


def parse(cutlass, mainloop):
    model = parse_cutlass.parse_header(mainloop, cutlass(KERNEL))
    parse_cutlass.add_epilogue(model, cutlass(EPILOGUE))
    return model


@pytest.fixture(scope="module")
def mla(cutlass):
    return parse(cutlass, cutlass(MAINLOOP))


def mutated(cutlass, tmp_path, edit):
    """The MLA mainloop with edit(lines) applied, next to a copy of the Load collective it includes
    (`#include "collective/sm100_fmha_mla_load_tma_warpspecialized.hpp"`), in a temporary folder."""
    lines = cutlass(MAINLOOP).read_text().split("\n")
    edit(lines)
    folder = tmp_path / "collective"
    folder.mkdir()
    shutil.copy(cutlass(LOAD), folder / "sm100_fmha_mla_load_tma_warpspecialized.hpp")
    path = folder / "sm100_fmha_mla_fwd_mainloop_tma_warpspecialized.hpp"
    path.write_text("\n".join(lines))
    return parse(cutlass, path)


def test_the_parse_gives_the_mla_load_and_its_pipeline(mla, validate):
    model = validate(mla)
    (load, epi) = model["collectives"]
    # `using Load = Sm100MlaFwdLoadTmaWarpspecialized<` (mainloop 198).
    assert (load["alias"], load["class"], load["line"]) == ("Load", "Sm100MlaFwdLoadTmaWarpspecialized", 198)
    assert load["path"].endswith("sm100_fmha_mla_load_tma_warpspecialized.hpp")
    assert epi["alias"] == "CollectiveEpilogue"
    (kv,) = [p for p in model["pipelines"] if p["alias"] == "PipelineKV"]
    # `using PipelineKV = cutlass::PipelineTmaAsyncMla< StageCountKV, ...>;` (172-175).
    assert (kv["class"], kv["stages"], kv["line"]) == ("PipelineTmaAsyncMla", "StageCountKV", 172)
    consts = {c["name"]: c["value"] for c in model["constants"]}
    assert (consts["StageCountK"], consts["StageCountV"], consts["StageCountKV"]) == (1, 1, "StageCountK + StageCountV")
    (loadfn,) = [p for p in model["programs"]["functions"] if p["name"] == "Load::load"]
    acquires = [(n["line"], n.get("state")) for n in walk(loadfn["body"]) if n["node"] == "op" and n["op"] == "producer_acquire_bytes"]
    # V1 (283) and Vi (307): `pipeline_kv.producer_acquire_bytes(pipeline_kv_producer_state, TransactionBytesLoadV)`.
    assert acquires == [(283, "pipeline_kv_producer_state"), (307, "pipeline_kv_producer_state")]


def test_six_roles_and_the_codes_ring_sizes_run_to_the_end(mla):
    out = interpret(mla)
    assert out["deadlock"] is None and out["stopped"] == [] and out["hazards"] == []
    assert out["roles"] == ["Softmax0", "Softmax1", "Correction", "MMA", "Load", "Epilogue"]
    rings = sorted({lane.rsplit(".stage", 1)[0] for lane in out["lanes"] if ".stage" in lane})
    stages = {r: sum(1 for lane in out["lanes"] if lane.startswith(r + ".stage")) for r in rings}
    # StageCountKV = StageCountK + StageCountV = 2 (77-79; static_assert at 81): not the stages knob.
    assert stages == {"PipelineQ": 2, "PipelineKV": 2, "pipeline_mma_s0": 1, "pipeline_mma_s1": 1,
                      "pipeline_s0_corr": 1, "pipeline_s1_corr": 1, "PipelineO": 2, "PipelineE": 2}


def test_the_load_warp_interleaves_k_and_v_on_one_ring(mla):
    """Q0 (256), K0 (265), Q1 (273), V0 (286, after producer_acquire_bytes at 283), then per further
    KV block Ki (299) and Vi (310): K on stage 0 and V on stage 1 of the two-stage KV ring."""
    out = interpret(mla)
    assert [b["lines"][0] for b in lane_blocks(out, "role:Load", "issue")] == [256, 265, 273, 286] + [299, 310] * 2
    fills = {s: [b["lines"][0] for b in lane_blocks(out, "PipelineKV.stage%d" % s, "filling")] for s in (0, 1)}
    assert fills == {0: [265, 299, 299], 1: [286, 310, 310]}


def test_the_mma_warp_interleaves_as_the_code_does(mla):
    """S0 = Q0 K0 (352), S1 = Q1 K0 (381), O0 = P0 V0 (403), then per further KV block S0 = Q0 Ki
    (425), O1 += P1 V(i-1) (445), S1 = Q1 Ki (461), O0 += P0 Vi (480), and the last O1 (512)."""
    for kv in (1, 3):
        out = interpret(mla, kvBlocks=kv)
        mma_lines = [b["lines"][0] for b in lane_blocks(out, "role:MMA", "umma")]
        assert mma_lines == [352, 381, 403] + [425, 445, 461, 480] * (kv - 1) + [512]
    waits = {b["reason"] for b in lane_blocks(out, "role:MMA", "wait")}
    assert waits <= {"tma", "pipeline_mma_s0", "pipeline_mma_s1", "PipelineO"} and "tma" in waits


def test_a_kv_release_is_a_tcgen05_commit(mla):
    """consumer_release is umma_arrive (pipeline_mla.hpp 240): the K stage released at 387 is
    refilled (299) only once the MMAs issued before the release (352, 381) have completed."""
    out = interpret(mla, kvBlocks=2, tmaLatency=1, ummaLatency=5)
    (s1,) = [b for b in lane_blocks(out, "role:MMA", "umma") if b["lines"][0] == 381]
    refill = [b for b in lane_blocks(out, "PipelineKV.stage0", "filling") if b["lines"][0] == 299]
    assert refill and refill[0]["start"] >= s1["end"]


def test_a_release_moved_before_the_mma_that_reads_the_stage_is_a_hazard(cutlass, tmp_path, mla):
    """With K0's release (387) moved before S1 = Q1 K0 (381), its commit covers only S0's MMA, so
    the load warp refills K while S1 still reads it: the run reports the hazard."""
    def edit(lines):
        assert "pipeline_kv.consumer_release(pipeline_kv_release_state);" in lines[386] and "gemm_zero_acc" in lines[380]
        lines[380] = lines[386].strip() + " " + lines[380].strip()
        lines[386] = ""   # same line numbers
    knobs = {"kvBlocks": 3, "tmaLatency": 1, "ummaLatency": 6}
    assert interpret(mla, **knobs)["hazards"] == []
    hazards = interpret(mutated(cutlass, tmp_path, edit), **knobs)["hazards"]
    assert hazards, "the refill of a KV stage an MMA still reads is not reported"
    assert any(h["message"].endswith("while the MMA of line 381 still reads it (until step %d)" % h["mmaEnd"]) for h in hazards)


def test_producer_acquire_bytes_on_a_class_without_it_stops_named(cutlass, tmp_path):
    """producer_acquire_bytes is PipelineTmaAsyncMla's own (pipeline_mla.hpp 177-201): on
    PipelineTmaUmmaAsync, which has no such method, the load warp stops at 283, named."""
    def edit(lines):
        assert "cutlass::PipelineTmaAsyncMla<" in lines[171]
        lines[171] = lines[171].replace("PipelineTmaAsyncMla", "PipelineTmaUmmaAsync")
    out = interpret(mutated(cutlass, tmp_path, edit))
    (stop,) = [s for s in out["stopped"] if s["role"] == "Load"]
    assert stop["line"] == 283 and stop["reason"] == "producer_acquire_bytes on PipelineTmaUmmaAsync, which does not define it"


def test_random_settings_never_deadlock_the_real_kernel(mla):
    """The MLA forward runs on hardware: under exact barrier semantics its own program finishes
    with no deadlock, stop or hazard for any latencies and sizes."""
    out = program_sweep(mla, {"outputTiles": [1, 4], "kvBlocks": [1, 6], "tmaLatency": [0, 9], "ummaLatency": [1, 5],
                              "tmemLoadLatency": [0, 5], "storeLatency": [0, 5], "softmaxLatency": [0, 8],
                              "mathLatency": [0, 4]}, seed=172, runs=80)
    assert out["runs"] == 80
    assert out["badCount"] == 0, out["bad"]


KNOBS_FOR = r"""
const S = require(process.argv[1] + "/schedule.js");
const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(S.knobsFor("program", s).map((k) => k.name)));
"""


def test_the_stage_count_is_the_codes_and_kv_blocks_matter(mla):
    """Every ring's stage count is the code's (KV 2, not the knob), so the page offers no stages
    slider and any stages value gives the same run; the KV-block count and the latencies matter."""
    proc = subprocess.run([node(), "-e", KNOBS_FOR, str(ROOT)], input=json.dumps(mla),
                          capture_output=True, text=True, timeout=300, check=True)
    names = json.loads(proc.stdout)
    assert "stages" not in names and {"kvBlocks", "tmaLatency", "ummaLatency", "softmaxLatency"} <= set(names)
    totals = {s: interpret(mla, stages=s)["total"] for s in (1, 6)}
    assert totals[1] == totals[6]
    assert interpret(mla, kvBlocks=4)["total"] > interpret(mla, kvBlocks=2)["total"]
