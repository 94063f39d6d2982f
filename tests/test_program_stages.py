"""Stages needed to hide the load in the program model (docs/performance.md "Stages needed to hide
the load"), on real kernels parsed at test time: CUTLASS 4.2's SM90 TMA GEMM programs (equal to the
hand-written GEMM model's minStagesToHideTma: a differential test), FlashAttention-4's CuTe DSL
SM90 forward (the installed flash-attn-4) and CUTLASS 77's Blackwell attention forward. The figure
is also checked against the blocks of the runs at S and S - 1, read here without the simulator's
own late-wait test."""

import json
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node, program_run
from test_parser_dsl import fa4_dir

COLLECTIVE = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
KERNELS = {
    "pingpong": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "cooperative": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
}
EX = "examples/77_blackwell_fmha/"
FMHA = (EX + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp",
        EX + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp",
        EX + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp")
ATTENTION_KNOBS = {"outputTiles": 2, "kvBlocks": 6, "tmaLatency": 12, "wgmmaLatency": 2, "ummaLatency": 2,
                   "softmaxLatency": 2, "mathLatency": 1, "epilogueLatency": 2, "storeLatency": 1, "tmemLoadLatency": 1}

# For each {structure, knobs} of stdin: the program model's and (with `gemm`) the GEMM model's
# figure and reason, each run's total, and the bottleneck's reason in a cycles run.
NODE_STAGES = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(input.map((c) => {
  const p = S.simulate(c.structure, Object.assign({ model: "program" }, c.knobs), { events: false });
  const out = { error: p.error, knobs: p.knobs, stages: p.verdict.minStagesToHideTma, why: (p.notes || {}).minStagesToHideTma, total: p.total,
    summary: p.verdict.summary, bottleneckWhy: p.units ? p.units.bottleneckWhy : null,
    line: (p.view.verdict || []).filter((e) => e.format === "stages").map((e) => e.label)[0] };
  if (c.gemm) {
    const g = S.simulate(c.structure, Object.assign({ model: "gemm" }, c.knobs), { events: false });
    out.gemm = { stages: g.verdict.minStagesToHideTma, total: g.total };
  }
  return out;
})));
"""


def stages(cases):
    """NODE_STAGES over cases [{structure, knobs, gemm?}] in one Node process."""
    proc = subprocess.run([node(), "-e", NODE_STAGES, str(ROOT)], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def gemm(cutlass):
    return {kind: parse_cutlass.parse_header(cutlass(COLLECTIVE), cutlass(path)) for kind, path in KERNELS.items()}


@pytest.fixture(scope="module")
def fa4():
    return parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm90.py")


@pytest.fixture(scope="module")
def fmha(cutlass):
    model = parse_cutlass.parse_header(cutlass(FMHA[0]), cutlass(FMHA[1]))
    parse_cutlass.add_epilogue(model, cutlass(FMHA[2]))
    return model


def late_waits(out):
    """The runs' waits on a load ring (`tma`) of an MMA-issuing lane (one with a wgmma / umma block)
    that start after step 0 and end at t after the first MMA began, each with whether an MMA block
    spans t: (covered with start <= t <= end, covered with start < t <= end)."""
    mma = [b for b in out["blocks"] if b["kind"] in ("wgmma", "umma")]
    issuers = {b["lane"] for b in mma}
    first = min(b["start"] for b in mma)
    waits = [b for b in out["blocks"] if b["kind"] == "wait" and b["reason"] == "tma" and b["lane"] in issuers
             and b["start"] > 0 and b["end"] > first]
    return [(any(m["start"] <= w["end"] <= m["end"] for m in mma), any(m["start"] < w["end"] <= m["end"] for m in mma))
            for w in waits]


def check_against_blocks(structure, knobs, hidden_from):
    """knobs: a simulate() result's (every program knob). At S = hidden_from every such wait ends while an MMA runs (a necessary condition of "hidden");
    at S - 1, when it runs without a deadlock, one ends with no MMA running (one of "late")."""
    at = program_run(structure, dict(knobs, stages=hidden_from))
    assert at["deadlock"] is None and at["stopped"] == []
    assert all(covered for covered, _ in late_waits(at))
    if hidden_from > 1:
        below = program_run(structure, dict(knobs, stages=hidden_from - 1))
        if below["deadlock"] is None:
            assert any(not strictly for _, strictly in late_waits(below)), "S - 1 has no late load wait"


GEMM_SETTINGS = [
    {"stages": 2, "outputTiles": 3, "kTiles": 8, "tmaLatency": 20, "wgmmaLatency": 2, "epilogueLatency": 3, "kPipeMmas": 1},
    {"stages": 4, "outputTiles": 2, "kTiles": 6, "tmaLatency": 9, "wgmmaLatency": 3, "epilogueLatency": 0, "kPipeMmas": 1},
    {"stages": 6, "outputTiles": 4, "kTiles": 10, "tmaLatency": 31, "wgmmaLatency": 4, "epilogueLatency": 6, "kPipeMmas": 1},
    {"stages": 3, "outputTiles": 1, "kTiles": 3, "tmaLatency": 0, "wgmmaLatency": 1, "epilogueLatency": 2, "kPipeMmas": 1},
]


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_the_gemm_programs_figure_is_the_hand_models(gemm, kind):
    """A differential test: the same run (equal totals), the same minimum stage count."""
    got = stages([{"structure": gemm[kind], "knobs": k, "gemm": True} for k in GEMM_SETTINGS])
    figures = [g["stages"] for g in got]
    assert [g["total"] for g in got] == [g["gemm"]["total"] for g in got]
    assert figures == [g["gemm"]["stages"] for g in got]
    # Not one answer for every setting: the load's latency moves it.
    assert len(set(figures)) >= 2 and all(isinstance(s, int) for s in figures)
    assert got[0]["line"] == "Stages needed to hide the load"
    check_against_blocks(gemm[kind], got[0]["knobs"], figures[0])


def test_fa4_sm90_forward_needs_two_kv_stages_on_h100(fa4):
    """The source's default num_stages is 1 (flash_fwd.py 53): on H100 SXM each KV block waits for
    its load, tma-latency bound; from 2 stages the load is hidden and the run is tensor-core bound."""
    problem = {"gpu": "h100-sxm", "batch": 1, "heads": 2, "seqlen": 2048}
    one, two = stages([{"structure": fa4, "knobs": dict(problem, stages=1)}, {"structure": fa4, "knobs": dict(problem, stages=2)}])
    assert one["error"] is None and one["stages"] == two["stages"] == 2
    assert "tma-latency" in one["bottleneckWhy"] and "hidden from 2 stages" in one["bottleneckWhy"]
    assert "tma-latency" not in two["bottleneckWhy"].split(";")[0]
    assert "load hidden from 2 stages (have 1)" in one["summary"]
    # In steps, with a slow load: the same answer from every starting count, and the blocks agree.
    got = stages([{"structure": fa4, "knobs": dict(ATTENTION_KNOBS, stages=s)} for s in (1, 2, 5)])
    assert [g["stages"] for g in got] == [3, 3, 3]
    check_against_blocks(fa4, got[0]["knobs"], 3)


def test_77_forward_figure_and_its_deadlocking_stage_count(fmha):
    """77 with one KV stage deadlocks (the MMA warp holds V_{i-1} while it waits for K_i): that
    stage count is never the answer; the figure's run hides every load, the one below does not."""
    one_tile = dict(ATTENTION_KNOBS, outputTiles=1)
    got, dead = stages([{"structure": fmha, "knobs": dict(one_tile, stages=3)}, {"structure": fmha, "knobs": dict(one_tile, stages=1)}])
    assert got["error"] is None and got["stages"] == 4
    check_against_blocks(fmha, got["knobs"], 4)
    assert dead["stages"] is None and dead["why"] == "the run deadlocks"
    # On B200 with 77's own 256x128 tile: 3 KV stages (77's default) hide the load.
    (b200,) = stages([{"structure": fmha, "knobs": {"gpu": "b200", "tile": "256x128", "batch": 1, "heads": 2, "seqlen": 2048, "stages": 2}}])
    assert b200["stages"] == 3 and "hidden from 3 stages" in b200["bottleneckWhy"]


def test_77_next_tiles_k_waits_behind_its_q(fmha):
    """With two output tiles the Load warp issues the next tile's K after its Q, whose ring has the
    code's own 2 stages (StageCountQ) and frees only as the tile ends: no KV stage count hides that
    wait, so the figure is null with its reason."""
    (got,) = stages([{"structure": fmha, "knobs": dict(ATTENTION_KNOBS, stages=3)}])
    assert got["stages"] is None and got["why"] == "the load stays exposed even with 64 stages"


def test_nulls_say_why(gemm):
    """Too large to search (the GEMM model's bound), and a deadlocking setting."""
    big, dead = stages([{"structure": gemm["pingpong"], "knobs": {"outputTiles": 200, "kTiles": 64}},
                        {"structure": gemm["pingpong"], "knobs": {"stages": 1}}])
    assert big["stages"] is None and big["why"].startswith("not searched above 10000 steps (output tiles x k-tiles = 12800")
    assert dead["stages"] is None and dead["why"] == "the run deadlocks"


def test_not_searched_above_the_block_bound(fmha):
    """A current run of more than MIN_STAGES_SEARCH_BLOCKS blocks is not searched (each probe can
    cost as much as that run): null, with the run's block count in the reason."""
    (big,) = stages([{"structure": fmha, "knobs": dict(ATTENTION_KNOBS, outputTiles=30, kvBlocks=60, stages=3)}])
    assert big["stages"] is None and big["why"].startswith("not searched above 50000 blocks (this run draws ")
    assert int(big["why"].split("draws ")[1].split(";")[0]) > 50000
