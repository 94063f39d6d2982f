"""CUTLASS 4.2's array (ptr-array / grouped) GEMMs in the program model, on the installed package
(docs/programs.md "Array (ptr-array and grouped) GEMMs"). The SM90 array mainloop runs complete
under both array kernel layers at the default flags (the ptr-array instantiation): its scheduler,
built in an immediately invoked lambda, is the static persistent one (IIFE_TYPE), each role's
warp index is its first warp (ROLE_WARP), a work tile's batch is its own index (WORK_BATCH).
The grouped GEMM's scheduler (and SM100's array kernel's, grouped or CLC) hands its work tiles
through a pipeline the run does not model, so there every role stops at the scheduler, named
(GROUP_SCHEDULER)."""

import json
import re

import pytest

import parse_cutlass
from node_util import node, program_run, lane_blocks
import subprocess

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
MAINLOOP = C + "sm90_mma_array_tma_gmma_ss_warpspecialized.hpp"
COOP = K + "sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
PING = K + "sm90_gemm_array_tma_warpspecialized_pingpong.hpp"
SM100 = (C + "sm100_mma_array_warpspecialized.hpp", K + "sm100_gemm_array_tma_warpspecialized.hpp")
KNOBS = {"stages": 4, "outputTiles": 4, "kTiles": 3, "kPipeMmas": 1, "accStages": 2}
ROLES = ["Producer.Mainloop", "Producer.Scheduler", "Consumer0", "Consumer1"]
GROUP_FLAGS = {"cute::is_same_v<SchedulerTag, GroupScheduler>": 1, "IsGroupedGemmKernel": 1}


@pytest.fixture(scope="module")
def coop(cutlass):
    return parse_cutlass.parse_header(cutlass(MAINLOOP), cutlass(COOP))


@pytest.fixture(scope="module")
def ping(cutlass):
    return parse_cutlass.parse_header(cutlass(MAINLOOP), cutlass(PING))


def blocks(out, lane, kind):
    """(tile, k) of each block of one kind on a lane, in (tile, k) order."""
    return sorted((b["tile"], b["k"]) for b in lane_blocks(out, lane, kind))


def scheduler_let(structure):
    return next(n for n in structure["kernel_layer"]["program"]["body"]
                if n.get("node") == "let" and n["names"] == ["scheduler"])


def test_the_source_builds_its_scheduler_in_a_lambda(cutlass, coop, ping):
    """The facts IIFE_TYPE and GROUP_SCHEDULER read: both arms of the lambda construct
    TileScheduler (cooperative 456-464), whose tag is void unless the kernel is grouped (126,
    137-145); the parse gives the let that type."""
    text = cutlass(COOP).read_text().splitlines()
    assert "auto scheduler = [&] () {" in text[455]
    assert "return TileScheduler{params.scheduler, shared_storage.scheduler_response};" in text[458]
    assert "return TileScheduler{params.scheduler};" in text[461]
    assert "static constexpr bool IsGroupedGemmKernel = !cute::is_same_v<InternalStrideA, StrideA>;" in text[125]
    for s in (coop, ping):
        let = scheduler_let(s)
        assert let["type"] == "TileScheduler" and let.get("iife") is True and let["expr"] is None


def test_the_role_enums_carry_their_values(coop, cutlass):
    """ROLE_WARP reads the enums' values (parse `values`, C++'s): SM90's warpgroup and producer
    warp roles, SM100's warp categories (`Epilogue = 4`, 256)."""
    assert [(v["name"], v["values"]) for v in coop["kernel_layer"]["role_vars"]] == [
        ("warp_group_role", [0, 1, 2]), ("producer_warp_role", [0, 1, 2, 3])]
    sm100 = parse_cutlass.parse_header(cutlass(SM100[0]), cutlass(SM100[1]))
    assert [(v["name"], v["values"]) for v in sm100["kernel_layer"]["role_vars"]] == [("warp_category", [0, 1, 2, 3, 4])]


@pytest.mark.parametrize("layer", ["coop", "ping"])
def test_the_ptr_array_gemm_runs_complete(request, layer):
    """At the default flags (the ptr-array GEMM: the static persistent scheduler) every role runs
    to its end with no stop, deadlock or hazard. The producer copies one TMA transaction per k-tile
    (collective 435) of each of the CTA's outputTiles tiles; the cooperative consumers share each
    tile's WGMMAs (prologue 544, then the main loop 587: one per k-tile), the pingpong consumers
    take alternate tiles (Consumer1 starts one tile on, kernel 610-629)."""
    s = request.getfixturevalue(layer)
    out = program_run(s, KNOBS)
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    assert out["roles"] == ROLES
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    every = [(t, i) for t in range(tiles) for i in range(k)]
    assert blocks(out, "role:Producer.Mainloop", "issue") == every
    assert [b["lines"][0] for b in lane_blocks(out, "role:Producer.Mainloop", "issue")] == [435] * (tiles * k)
    if layer == "coop":
        assert blocks(out, "role:Consumer0", "wgmma") == every == blocks(out, "role:Consumer1", "wgmma")
        assert out["groups"][2:] == [2, 2]
    else:
        assert blocks(out, "role:Consumer0", "wgmma") == [(t, i) for t in range(0, tiles, 2) for i in range(k)]
        assert blocks(out, "role:Consumer1", "wgmma") == [(t, i) for t in range(1, tiles, 2) for i in range(k)]
    assert out["flags"]["cute::is_same_v<SchedulerTag, GroupScheduler>"] == 0


def test_the_grouped_gemm_stops_at_its_scheduler(coop, ping):
    """With the grouped flags every role stops at the scheduler's declaration (456, 465), naming
    the Scheduler warp's advance_to_next_work(pipeline, state) (cooperative 615, pingpong 653)."""
    for s, decl, call in ((coop, 456, 615), (ping, 465, 653)):
        out = program_run(s, dict(KNOBS, flags=GROUP_FLAGS))
        assert [x["role"] for x in out["stopped"]] == ROLES
        assert {x["line"] for x in out["stopped"]} == {scheduler_let(s)["line"]}
        assert all("line %d" % call in x["reason"] and "not modelled" in x["reason"] for x in out["stopped"])


def test_sm100_array_stops_at_its_group_scheduler(cutlass):
    """SM100's array kernel with IsSchedDynamicPersistent off calls the group scheduler's
    `auto [w, inc] = scheduler.advance_to_next_work(clc_pipeline, state)` (859): each role stops at
    the scheduler (686), named. With it on (the CLC scheduler: its advance returns the state, 828)
    the rule does not apply: the Sched role stops at the CLC pipeline's class (852), as the SM100
    GEMM's does, and the others run, the epilogue past its warp test (1055, ROLE_WARP)."""
    text = cutlass(SM100[1]).read_text().splitlines()
    assert "auto [next_work_tile_info, increment_pipe] = scheduler.advance_to_next_work(clc_pipeline, clc_pipe_producer_state);" in text[858]
    assert "clc_pipe_producer_state = scheduler.advance_to_next_work(clc_pipeline, clc_pipe_producer_state);" in text[827]
    s = parse_cutlass.parse_header(cutlass(SM100[0]), cutlass(SM100[1]))
    out = program_run(s, KNOBS)
    assert sorted(x["role"] for x in out["stopped"]) == ["Epilogue", "MMA", "MainloopLoad", "Sched"]
    assert {x["line"] for x in out["stopped"]} == {686}
    assert all("line 859" in x["reason"] for x in out["stopped"])
    on = program_run(s, dict(KNOBS, flags={"IsSchedDynamicPersistent": 1}))
    assert [(x["role"], x["line"]) for x in on["stopped"]] == [("Sched", 852)]
    assert "PipelineCLCFetchAsync" in on["stopped"][0]["reason"] and on["deadlock"] is None
    tiles, k = KNOBS["outputTiles"], KNOBS["kTiles"]
    assert len(lane_blocks(on, "role:MainloopLoad", "issue")) == tiles * k == len(lane_blocks(on, "role:MMA", "umma"))


ROLE_WARP_SCRIPT = r"""
const I = require(process.argv[1] + "/sim/interpret.js"), E = require(process.argv[1] + "/sim/interpret/expr.js");
const rv = [{ name: "warp_category", enum: "WarpCategory", members: ["MMA", "Sched", "MainloopLoad", "EpilogueLoad", "Epilogue"], values: [0, 1, 2, 3, 4] }];
const kernel = [
  { node: "let", names: ["warp_idx"], type: "int", expr: ["call", "canonical_warp_idx_sync", []] },
  { node: "let", names: ["warp_category"], type: "WarpCategory", expr: ["?:", ["bin", "<", ["id", "warp_idx"],
    ["call", "static_cast", [["id", "WarpCategory::Epilogue"]], "int"]], ["call", "WarpCategory", [["id", "warp_idx"]]], ["id", "WarpCategory::Epilogue"]] }];
const out = {};
rv[0].members.forEach((m) => {
  const ctx = { roleVars: rv, roleVarNames: { warp_category: true }, enums: { WarpCategory: rv[0].members }, kernel, knobs: {},
    roleBinding: { warp_category: new E.EnumValue("WarpCategory::" + m) }, constants: {}, unknownNames: {}, shapes: {}, functions: {}, flags: {} };
  // SM100 array kernel 1043: auto warp_idx_in_epi = canonical_warp_idx_sync() - static_cast<int>(WarpCategory::Epilogue);
  const v = I.evalExpr(["bin", "-", ["call", "canonical_warp_idx_sync", []], ["call", "static_cast", [["id", "WarpCategory::Epilogue"]], "int"]], {}, ctx, false);
  out[m] = typeof v === "number" ? v : null;
});
process.stdout.write(JSON.stringify(out));
"""


def test_sm100_warp_index_is_the_roles_first_warp(cutlass):
    """ROLE_WARP on SM100's form (kernel 486-488: `warp_idx < static_cast<int>(WarpCategory::Epilogue)
    ? WarpCategory(warp_idx) : WarpCategory::Epilogue`): each category's first warp is its value,
    so the epilogue's `warp_idx_in_epi` (1043) is 0 for the role's program and its tensor-map
    update test (1055) holds."""
    text = cutlass(SM100[1]).read_text().splitlines()
    assert "auto warp_idx_in_epi = canonical_warp_idx_sync() - static_cast<int>(WarpCategory::Epilogue);" in text[1042]
    from node_util import ROOT
    got = json.loads(subprocess.run([node(), "-e", ROLE_WARP_SCRIPT, str(ROOT)], capture_output=True, text=True,
                                    timeout=60, check=True).stdout)
    assert got == {"MMA": -4, "Sched": -3, "MainloopLoad": -2, "EpilogueLoad": -1, "Epilogue": 0}


def test_without_the_enum_values_the_consumers_stop_at_the_warp_test(coop):
    """The check that fails if ROLE_WARP is broken: without the enums' values the consumers'
    `if (warp_idx_in_warp_group == 0)` (899, the epilogue's tensor-map update) is not evaluated
    and both stop there, as before."""
    s = json.loads(json.dumps(coop))
    for v in s["kernel_layer"]["role_vars"]:
        v.pop("values")
    out = program_run(s, KNOBS)
    assert [(x["role"], x["line"]) for x in out["stopped"]] == [("Consumer0", 899), ("Consumer1", 899)]
    assert all("canonical_warp_idx_sync" in x["reason"] for x in out["stopped"])


def test_a_lambda_of_two_types_is_no_scheduler(cutlass, tmp_path):
    """IIFE_TYPE needs every return to construct one type: a copy whose second arm constructs
    another type leaves the let unread, and every role stops at the first work test (586) as
    before the rule."""
    text = cutlass(COOP).read_text()
    mutated = text.replace("return TileScheduler{params.scheduler};", "return OtherScheduler{params.scheduler};", 1)
    assert mutated != text
    path = tmp_path / "sm90_gemm_array_tma_warpspecialized_cooperative.hpp"
    path.write_text(mutated)
    s = parse_cutlass.parse_header(cutlass(MAINLOOP), path)
    assert scheduler_let(s)["type"] == "auto"
    out = program_run(s, KNOBS)
    assert [(x["role"], x["line"]) for x in out["stopped"]] == [(r, 586) for r in ROLES]
    assert all(re.search(r"`\.is_valid\(\)` is not evaluated", x["reason"]) for x in out["stopped"])


SIMULATE = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify([1, 3].map((t) => {
  const r = S.simulate(st, { model: "program", outputTiles: t });
  return { tiles: r.verdict.tilesPerCta, rule: r.verdict.tilesPerCtaRule, stopped: r.verdict.stopped.length,
    deadlock: r.deadlock !== null, total: r.total };
})));
"""


@pytest.mark.parametrize("layer", ["coop", "ping"])
def test_tiles_per_cta_is_the_persistent_schedulers(request, layer):
    """TILES_PER_CTA: the ptr-array scheduler (PersistentTileSchedulerSm90, the static persistent
    one) runs the outputTiles knob's tiles per CTA, by the hook's last rule; the program model's
    own run (schedule.js simulate, default knobs) has no stop or deadlock."""
    from node_util import node_script
    got = node_script(SIMULATE, request.getfixturevalue(layer))
    assert [g["tiles"] for g in got] == [1, 3]
    assert all(g["stopped"] == 0 and not g["deadlock"] and g["total"] > 0 for g in got)
    assert got[0]["rule"] == got[1]["rule"] and "outputTiles" in got[0]["rule"]


@pytest.mark.parametrize("layer", ["coop", "ping"])
def test_seeded_settings_run_clean(request, layer):
    """30 seeded settings (stages 2-8, tiles 1-6, k-tiles 1-8, latencies 0-6): no error, deadlock,
    stop or hazard, and something drawn."""
    from node_util import program_sweep
    got = program_sweep(request.getfixturevalue(layer), {"stages": [2, 8], "outputTiles": [1, 6], "kTiles": [1, 8],
                        "tmaLatency": [0, 6], "wgmmaLatency": [0, 6], "epilogueLatency": [0, 6]}, seed=19, runs=30)
    assert got["runs"] == 30 and got["badCount"] == 0, got["bad"]
