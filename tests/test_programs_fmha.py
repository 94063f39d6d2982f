"""The Blackwell attention forward of CUTLASS 4.2's example 77 run from its own programs
(docs/programs.md "Blackwell attention forward (CUTLASS 77)"): the kernel layer's warp-role
function, the mainloop with its composed Load collective, the epilogue given with --epilogue-collective;
nine pipelines, the softmax order barrier, and the MMA warp's interleaving, each checked against
the installed source's lines."""

import json
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node, program_sweep, program_run, lane_blocks

EX = "examples/77_blackwell_fmha/"
MAINLOOP = EX + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"
KERNEL = EX + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"
EPILOGUE = EX + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"
KNOBS = {"stages": 3, "outputTiles": 2, "kvBlocks": 3, "tmaLatency": 4, "ummaLatency": 2, "accStages": 2,
         "tmemLoadLatency": 1, "storeLatency": 1, "softmaxLatency": 3, "mathLatency": 1, "epilogueLatency": 2}



def interpret(structure, **knobs):
    return program_run(structure, dict(KNOBS, **knobs))


@pytest.fixture(scope="module")
def fmha(cutlass):
    model = parse_cutlass.parse_header(cutlass(MAINLOOP), cutlass(KERNEL))
    with_epilogue = json.loads(json.dumps(model))
    parse_cutlass.add_epilogue(with_epilogue, cutlass(EPILOGUE))
    return {"plain": model, "epilogue": with_epilogue}


def test_the_parse_gives_roles_collectives_shapes_and_the_order_barrier(fmha, validate):
    model = validate(fmha["epilogue"])
    (role,) = model["kernel_layer"]["role_vars"]
    # `auto role = warp_idx_to_WarpRole(warp_idx);` (261), enum WarpRole at 53.
    assert role["name"] == "role" and role["enum"] == "WarpRole" and role["line"] == 261 and role["enum_line"] == 53
    assert role["members"] == ["Softmax0", "Softmax1", "Correction", "MMA", "Load", "Epilogue", "Empty"]
    # `using Load = Sm100FmhaLoadTmaWarpspecialized<` (180), defined in the file included at 42.
    (load, epi) = model["collectives"]
    assert (load["alias"], load["class"], load["line"]) == ("Load", "Sm100FmhaLoadTmaWarpspecialized", 180)
    assert load["path"].endswith("sm100_fmha_load_tma_warpspecialized.hpp")
    assert epi["alias"] == "CollectiveEpilogue" and epi["path"].endswith("sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp")
    names = [p["name"] for p in model["programs"]["functions"]]
    assert "Load::load" in names and "CollectiveEpilogue::store" in names
    (loadfn,) = [p for p in model["programs"]["functions"] if p["name"] == "Load::load"]
    assert loadfn["owner"] == "Load" and loadfn["path"] == load["path"]
    assert {"name": "ThreadShape", "dims": [2, 1, 1], "line": 61} in model["shapes"]
    (order,) = model["order_barriers"]
    assert order["alias"] == "OrderBarrierSoftmax" and order["args"] == [["n", 1], ["n", 2]] and order["line"] == 170


def test_a_helper_call_is_a_call_step_not_a_copy_of_its_ops(fmha):
    """softmax() calls softmax_step<false>(...) at 739: a `call` step; softmax_step's own program
    holds its consumer_wait (565) with its state, its register loops and its order-barrier calls."""
    progs = {p["name"]: p for p in fmha["plain"]["programs"]["functions"]}

    def walk(nodes):
        for n in nodes:
            yield n
            for key in ("body", "then", "else", "init", "step"):
                yield from walk(n.get(key) or [])
    softmax = list(walk(progs["softmax"]["body"]))
    assert [n["line"] for n in softmax if n["node"] == "call" and n["name"] == "softmax_step"] == [739, 757]
    assert not any(n.get("via", {}).get("helper") == "softmax_step" for n in softmax)
    step = list(walk(progs["softmax_step"]["body"]))
    (wait,) = [n for n in step if n["node"] == "op" and n["line"] == 565]
    assert wait["op"] == "consumer_wait" and wait["state"] == "pipeline_s_consumer_state"
    assert [(n["line"], n["name"]) for n in step if n["node"] == "call" and n.get("receiver") == "order_s"] == \
        [(622, "wait"), (647, "arrive")]


def test_six_roles_and_nine_rings_run_to_the_end(fmha):
    out = interpret(fmha["epilogue"])
    assert out["deadlock"] is None and out["stopped"] == [] and out["hazards"] == []
    assert out["roles"] == ["Softmax0", "Softmax1", "Correction", "MMA", "Load", "Epilogue"]
    rings = sorted({lane.rsplit(".stage", 1)[0] for lane in out["lanes"] if ".stage" in lane})
    # PipelineS and PipelineC have two objects each (kernel 320/333, 347/361): a ring per object.
    assert rings == ["PipelineE", "PipelineKV", "PipelineO", "PipelineQ", "pipeline_mma_s0", "pipeline_mma_s1",
                     "pipeline_s0_corr", "pipeline_s1_corr"]
    stages = {r: sum(1 for lane in out["lanes"] if lane.startswith(r + ".stage")) for r in rings}
    # The code's own stage counts: StageCountQ = 2 (76), PipelineS<1> (159), PipelineC<1> (162),
    # PipelineO<2> (165), PipelineE<2> (168); KV's `sizeof(Element_) == 1 ? 4 : 3` is the knob.
    assert stages == {"PipelineQ": 2, "PipelineKV": 3, "pipeline_mma_s0": 1, "pipeline_mma_s1": 1,
                      "pipeline_s0_corr": 1, "pipeline_s1_corr": 1, "PipelineO": 2, "PipelineE": 2}
    assert out["flags"]["is_variable_length_v<tuple_element_t<0, ParamsProblemShape>>"] == 0


def test_the_mma_warp_interleaves_as_the_code_does(fmha):
    """One tile, 3 KV blocks: S0 = Q0 K0 (334), S1 = Q1 K0 (363), O0 += P0 V0 (385), then per KV
    block S0 = Q0 Ki (407), O1 += P1 V(i-1) (427), S1 = Q1 Ki (443), O0 += P0 Vi (462), and the
    last O1 += P1 V (494)."""
    out = interpret(fmha["epilogue"], outputTiles=1)
    mma_lines = [b["lines"][0] for b in lane_blocks(out, "role:MMA", "umma")]
    assert mma_lines == [334, 363, 385] + [407, 427, 443, 462] * 2 + [494]
    waits = {(b["reason"], b["lines"][0]) for b in lane_blocks(out, "role:MMA", "wait")}
    # The MMA warp's waits name their pipeline: S (the softmax's turnaround) and O (the correction's).
    assert ("pipeline_mma_s0", 382) in waits and any(r == "PipelineO" for r, _ in waits)
    assert all(r in ("tma", "pipeline_mma_s0", "pipeline_mma_s1", "PipelineO") for r, _ in waits)


def test_the_second_softmax_waits_its_turn_on_the_order_barrier(fmha):
    """`params_order_s01.group_id = role == WarpRole::Softmax1 ? 1 : 0;` (394): Softmax1 is group 1
    of OrderedSequenceBarrier<1, 2> and waits at 622 for Softmax0's arrive (647) before its exp."""
    out = interpret(fmha["epilogue"], outputTiles=1)
    assert not [b for b in lane_blocks(out, "role:Softmax0", "wait") if b["reason"] == "order"]
    order = [b for b in lane_blocks(out, "role:Softmax1", "wait") if b["reason"] == "order"]
    assert order and all(b["lines"] == [622] for b in order)
    exps = lane_blocks(out, "role:Softmax0", "exp")
    assert exps and all(b["lines"][0] == 625 for b in exps) and all(b["end"] - b["start"] == KNOBS["softmaxLatency"] for b in exps)


def test_the_epilogue_without_its_program_stops_named(fmha):
    """Without --epilogue-collective, `epilogue.store(...)` (612) is handed pipeline_corr_epi: the Epilogue
    role stops there, named, instead of drawing a store that waits on nothing."""
    out = interpret(fmha["plain"], outputTiles=1)
    (stop,) = out["stopped"]
    assert stop["role"] == "Epilogue" and stop["line"] == 612 and "pipeline_corr_epi" in stop["reason"]
    assert not lane_blocks(out, "role:Epilogue", "epilogue")


def test_the_epilogue_stores_after_the_correction_hands_over(fmha):
    out = interpret(fmha["epilogue"], outputTiles=1)
    stores = lane_blocks(out, "role:Epilogue", "store")
    assert [b["lines"][0] for b in stores] == [203, 211]
    # The first store waits for the correction's first final normalisation (its TMEM loads of O).
    loads = [b for b in out["blocks"] if b["lane"] == "role:Correction" and b["kind"] == "tmem_load"]
    assert stores[0]["start"] >= min(b["end"] for b in loads)
    assert lane_blocks(out, "role:Epilogue", "wait")[0]["reason"] == "PipelineE"


def test_random_settings_never_deadlock_the_real_kernel(fmha):
    """CUTLASS's persistent 77 kernel runs on hardware: under exact barrier semantics its own
    program must finish with no deadlock, stop or hazard for any latencies and sizes. (This caught
    a reference parameter bound through `is_softmax_0 ? a : b`, kernel 461, being copied.)"""
    out = program_sweep(fmha["epilogue"], {"stages": [2, 6], "outputTiles": [1, 5], "kvBlocks": [1, 6],
                                           "tmaLatency": [0, 9], "ummaLatency": [1, 5], "tmemLoadLatency": [0, 5],
                                           "storeLatency": [0, 5], "softmaxLatency": [0, 8], "mathLatency": [0, 4]},
                        seed=77, runs=120)
    assert out["runs"] == 120
    assert out["badCount"] == 0, out["bad"]


def test_one_kv_stage_deadlocks_as_the_code_would(fmha):
    """K and V share one ring (StageCountKV is 3 or 4 in the code, mainloop 77): with a single stage
    the MMA warp waits for K1 (403) while the load warp waits for that stage to be freed (280),
    which needs V0's PV to be released first. The run says so with both lines."""
    out = interpret(fmha["epilogue"], stages=1, outputTiles=1, kvBlocks=2)
    waiting = {w["lane"]: (w["barrier"], w["line"]) for w in out["deadlock"]["waiting"]}
    assert waiting["role:MMA"] == ("PipelineKV.full[0]", 403)
    assert waiting["role:Load"] == ("PipelineKV.empty[0]", 280)


def test_knobs_are_those_the_program_reads(fmha):
    """The page's sliders are the knobs the run reads: KV blocks and the register loops, not
    k-tiles or accumulator stages (every ring's stage count but KV's is the code's literal)."""
    proc = subprocess.run([node(), "-e", "const S = require(process.argv[1] + '/schedule.js');"
                           "const s = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                           "process.stdout.write(JSON.stringify(S.knobsFor('program', s).map((k) => k.name)));", str(ROOT)],
                          input=json.dumps(fmha["epilogue"]), capture_output=True, text=True, timeout=300, check=True)
    names = json.loads(proc.stdout)
    assert {"stages", "outputTiles", "kvBlocks", "tmaLatency", "ummaLatency", "softmaxLatency", "mathLatency",
            "tmemLoadLatency", "storeLatency"} <= set(names)
    assert not {"kTiles", "accStages", "wgmmaLatency", "kPipeMmas"} & set(names)


SIM = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(input.structure, input.knobs);
process.stdout.write(JSON.stringify({ deadlock: r.deadlock, deadlockKnobs: r.deadlockKnobs, summary: r.verdict.summary }));
"""


def test_a_deadlock_after_a_stop_is_not_called_the_codes(fmha):
    """Without the epilogue's program the Epilogue role stops (612) and, past PipelineE's two
    stages, the correction waits for it for ever: the result says the run stopped there, names the
    stopped role, and searches no knob (it is not the code's protocol that deadlocks)."""
    proc = subprocess.run([node(), "-e", SIM, str(ROOT)],
                          input=json.dumps({"structure": fmha["plain"], "knobs": {"model": "program", "outputTiles": 4}}),
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    (stop,) = out["deadlock"]["afterStopped"]
    assert stop["role"] == "Epilogue" and stop["line"] == 612
    assert out["deadlock"]["message"].startswith("after Epilogue stopped at line 612 (not modelled)")
    assert out["deadlockKnobs"] is None
    assert out["summary"] == out["deadlock"]["message"]


def test_role_bindings_that_reach_no_step_are_listed(fmha):
    """The kernel's `WarpRole::Empty` warp (15, kernel 71) reaches no step: it has no lane, and the
    verdict says so instead of leaving it out silently."""
    proc = subprocess.run([node(), "-e", "const S = require(process.argv[1] + '/schedule.js');"
                           "const s = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                           "const r = S.simulate(s, {model: 'program', outputTiles: 1});"
                           "process.stdout.write(JSON.stringify([r.verdict.idle, r.verdict.idleText]));", str(ROOT)],
                          input=json.dumps(fmha["epilogue"]), capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(proc.stdout) == [["Empty"], "Empty"]
