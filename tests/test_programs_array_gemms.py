"""CUTLASS 4.2's array (ptr-array / grouped) GEMMs in the program model, on the installed package
(docs/programs.md "Array (ptr-array and grouped) GEMMs"). The SM90 array mainloop runs complete
under both array kernel layers at the default flags (the ptr-array instantiation): its scheduler,
built in an immediately invoked lambda, is the static persistent one (IIFE_TYPE), each role's
warp index is its first warp (ROLE_WARP), a work tile's batch is its own index (WORK_BATCH).
The SM90 grouped GEMM's scheduler hands its work tiles through a pipeline the run does not
model, so there every role stops at the scheduler, named (GROUP_SCHEDULER). SM100's array
kernel's schedulers (the group scheduler with IsSchedDynamicPersistent off, the CLC scheduler
with it on) hand theirs through the kernel's CLCPipeline, a ring of the run (SCHEDULER_PIPELINE,
SCHED_PIPELINE_CHOICE, SCHED_CONSUMERS, CLC_QUERY, SCHED_THROTTLE): every role runs complete."""

import json
import re

import pytest

import parse_cutlass
from node_util import ROOT, node, program_run, program_steps, lane_blocks
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


# SM100's array kernel: its scheduler hands the work tiles through the kernel's CLCPipeline
# (SCHEDULER_PIPELINE, docs/programs.md "Tile schedulers that hand work through a pipeline").
SM100_KNOBS = dict(KNOBS, schedStages=2, clcLatency=3, tmaLatency=3, ummaLatency=2, tmemLoadLatency=1, storeLatency=1,
                   epilogueLatency=1, mathLatency=1)
CLC = {"IsSchedDynamicPersistent": 1}
# Each consumer role's `auto [next_work_tile_info, increment_pipe] = scheduler.fetch_next_work(...)`.
ARRAY_FETCH = {"MainloopLoad": 792, "MMA": 881, "Epilogue": 1065}


@pytest.fixture(scope="module")
def sm100(cutlass):
    return parse_cutlass.parse_header(cutlass(SM100[0]), cutlass(SM100[1]))


def ordered(out, lane, kind=None):
    """(kind, first line, tile) of each block on a lane (of one kind), in start order."""
    return [(b["kind"], b["lines"][0], b["tile"]) for b in sorted(lane_blocks(out, lane, kind), key=lambda b: (b["start"], b["end"]))]


def mutated_kernel(cutlass, tmp_path, old, new):
    """SM100's array pair with one text of its kernel layer replaced (a copy in tmp_path, never committed)."""
    text = cutlass(SM100[1]).read_text()
    assert text.count(old) == 1, old
    copy = tmp_path / SM100[1].rsplit("/", 1)[1]
    copy.write_text(text.replace(old, new))
    return parse_cutlass.parse_header(cutlass(SM100[0]), copy)


def test_the_source_chooses_the_scheduler_pipeline(cutlass, sm100):
    """The facts SCHED_PIPELINE_CHOICE reads: both SM100 kernel layers choose the scheduler
    pipeline's class on IsSchedDynamicPersistent (array 178-184, mixed 209-211) and the parse keeps
    the two candidates in that order (the condition it does not keep is the table's); the group
    scheduler's advance (859) and the CLC scheduler's (828) are the two arms; the throttle's
    declaration (631) is now kept in the program (KERNEL_OWN_PIPELINES)."""
    text = cutlass(SM100[1]).read_text().splitlines()
    assert "using CLCPipeline = cute::conditional_t<IsSchedDynamicPersistent," in text[177]
    assert "cutlass::PipelineCLCFetchAsync<SchedulerPipelineStageCount, ClusterShape>," in text[178]
    assert "cutlass::PipelineAsync<SchedulerPipelineStageCount>>;" in text[179]
    assert "using CLCThrottlePipeline = cute::conditional_t<IsSchedDynamicPersistent," in text[181]
    assert "auto [next_work_tile_info, increment_pipe] = scheduler.advance_to_next_work(clc_pipeline, clc_pipe_producer_state);" in text[858]
    assert "clc_pipe_producer_state = scheduler.advance_to_next_work(clc_pipeline, clc_pipe_producer_state);" in text[827]
    mixed = cutlass("include/cutlass/gemm/kernel/sm100_gemm_mixed_tma_cpasync_warpspecialized.hpp").read_text().splitlines()
    assert "using CLCPipeline = cute::conditional_t<IsSchedDynamicPersistent," in mixed[208]
    table = json.loads(subprocess.run([node(), "-e", 'process.stdout.write(JSON.stringify(require(process.argv[1] + "/sim/interpret/warps.js").SCHED_PIPELINE_CHOICE))',
                                       str(ROOT)], capture_output=True, text=True, timeout=60, check=True).stdout)
    assert table["flag"] == "IsSchedDynamicPersistent"
    got = {p["alias"]: p["class"] for p in sm100["kernel_layer"]["pipelines"]}
    assert [got["CLCPipeline"], got["CLCThrottlePipeline"]] == table["choices"]
    lets = [n for n in program_steps(sm100["kernel_layer"]["program"]["body"]) if n.get("node") == "let"]
    assert [(n["type"], n["line"]) for n in lets if n["names"] == ["clc_throttle_pipeline"]] == [("CLCThrottlePipeline", 631)]


def test_sm100_array_group_scheduler_hands_tiles_through_its_ring(sm100):
    """IsSchedDynamicPersistent off (the grouped GEMM's group scheduler): every role runs to its end
    with no stop, deadlock or hazard; the ring has schedStages lanes; the Sched role acquires a
    stage per tile it writes (its waits at 859, for tiles past the ring's depth) and the others
    each read every tile through it: with one stage the Sched writes tile t + 1 only once the
    slowest reader (the epilogue) has read tile t. Each role runs outputTiles tiles (0..T-1): the
    invalid tile T the Sched writes last ends their loops."""
    for tiles in (3, 5):
        out = program_run(sm100, dict(SM100_KNOBS, outputTiles=tiles, schedStages=1))
        assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
        assert out["roles"] == ["MMA", "Sched", "MainloopLoad", "Epilogue"]
        assert [l for l in out["lanes"] if l.startswith("CLCPipeline")] == ["CLCPipeline.stage0"]
        sched = ordered(out, "role:Sched")
        assert {(k, line) for k, line, _ in sched} == {("wait", 859)} and [t for _, _, t in sched] == list(range(2, tiles + 1))
        assert sorted({b["tile"] for b in lane_blocks(out, "role:MMA", "umma")}) == list(range(tiles))
        assert [t for _, _, t in ordered(out, "role:Epilogue", "store")] == list(range(tiles))
        for role, line in ARRAY_FETCH.items():   # a reader's wait for a response is at its own fetch
            assert {b["lines"][0] for b in lane_blocks(out, "role:" + role, "wait") if b["reason"] == "CLCPipeline"} <= {line}
    deep = program_run(sm100, dict(SM100_KNOBS, schedStages=8))
    assert [l for l in deep["lanes"] if l.startswith("CLCPipeline")] == ["CLCPipeline.stage%d" % i for i in range(8)]
    assert deep["stopped"] == [] and lane_blocks(deep, "role:Sched") == []   # 8 stages: the Sched never waits


def test_sm100_array_a_reader_that_never_releases_deadlocks(cutlass, tmp_path):
    """SCHED_CONSUMERS counts every reader: a copy whose epilogue does not fetch (and so never
    releases a response stage) leaves the Sched's acquire of a stage the epilogue read waiting
    for ever: the run deadlocks (the roles do not stop)."""
    text = cutlass(SM100[1]).read_text().splitlines(keepends=True)
    start = ARRAY_FETCH["Epilogue"] - 1
    assert "scheduler.fetch_next_work(" in text[start]
    end = next(i for i in range(start, start + 8) if text[i].strip().endswith(");"))
    copy = tmp_path / SM100[1].rsplit("/", 1)[1]
    copy.write_text("".join(text[:start]) + "        auto next_work_tile_info = work_tile_info; bool increment_pipe = false;\n" +
                    "".join(text[end + 1:]))
    s = parse_cutlass.parse_header(cutlass(SM100[0]), copy)
    out = program_run(s, SM100_KNOBS)
    assert out["deadlock"] is not None and out["stopped"] == []
    waiting = {w["lane"]: (w["barrier"], w["line"]) for w in out["deadlock"]["waiting"]}
    assert waiting["role:Sched"][0].startswith("CLCPipeline.empty[") and waiting["role:Sched"][1] == 859


def test_sm100_array_clc_scheduler_queries_and_throttles(sm100):
    """IsSchedDynamicPersistent on (the CLC scheduler): no stop, deadlock or hazard. The Sched role
    queries once per tile (a `clc` block of clcLatency at 828, tiles 1..T: the last answer is the
    invalid tile that ends every loop), each query after the throttle's wait (823) for the load to
    have started the previous tile (its throttle commit, 755-756, before that tile's copies): the
    query for tile t starts no earlier than the load's last copy of tile t-2. The readers' waits
    for a response are `clc` at their fetch lines."""
    tiles = 4
    out = program_run(sm100, dict(SM100_KNOBS, flags=CLC, clcLatency=5))
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    queries = [b for b in sorted(lane_blocks(out, "role:Sched", "clc"), key=lambda b: b["start"])]
    assert [(b["lines"][0], b["tile"], b["end"] - b["start"]) for b in queries] == [(828, t, 5) for t in range(1, tiles + 1)]
    assert {b["lines"][0] for b in lane_blocks(out, "role:Sched", "wait") if b["reason"] == "CLCThrottlePipeline"} <= {823}
    last_copy = {}
    for b in lane_blocks(out, "role:MainloopLoad", "issue"):
        last_copy[b["tile"]] = max(last_copy.get(b["tile"], b["end"]), b["end"])
    assert all(q["start"] >= last_copy[q["tile"] - 2] for q in queries[1:])
    assert [b["lines"][0] for b in lane_blocks(out, "role:Sched", "wait") if b["reason"] == "CLCThrottlePipeline"] == [823]
    for role, line in ARRAY_FETCH.items():
        assert {b["lines"][0] for b in lane_blocks(out, "role:" + role, "wait") if b["reason"] == "clc"} <= {line}
    assert {b["reason"] for b in lane_blocks(out, "role:MMA", "wait") if b["lines"][0] == 881} == {"clc"}
    assert len(lane_blocks(out, "role:MainloopLoad", "issue")) == tiles * KNOBS["kTiles"] == len(lane_blocks(out, "role:MMA", "umma"))


def test_sm100_array_without_the_throttle_commit_deadlocks(cutlass, tmp_path):
    """The throttle is modelled, not skipped: a copy whose load never commits its throttle stage
    (756 removed) leaves the Sched waiting at its throttle (823) before its first query."""
    s = mutated_kernel(cutlass, tmp_path, "            clc_throttle_pipeline.producer_commit(clc_pipe_throttle_producer_state);\n", "")
    out = program_run(s, dict(SM100_KNOBS, flags=CLC))
    assert out["deadlock"] is not None and out["stopped"] == []
    waiting = {w["lane"]: (w["barrier"], w["line"]) for w in out["deadlock"]["waiting"]}
    assert waiting["role:Sched"] == ("CLCThrottlePipeline.full[0]", 822)   # 823, one line up in the copy
    assert all(waiting["role:" + r][0] == "CLCPipeline.full[0]" for r in ARRAY_FETCH)


OFFERED_SCRIPT = r"""
const S = require(process.argv[1] + "/schedule.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
for (const [name, flags] of [["group", {}], ["clc", { IsSchedDynamicPersistent: 1 }]]) {
  const r = S.simulate(input.array, { model: "program", flags }, { events: false });
  out[name] = { stopped: r.verdict.stopped.length, deadlock: r.deadlock !== null, tiles: r.verdict.tilesPerCta,
    offered: S.knobsFor("program", input.array).map((k) => k.name).filter((k) => k === "schedStages" || k === "clcLatency"),
    assumption: r.fit.assumptions.filter((a) => /SchedulerPipelineStageCount/.test(a)) };
}
const plain = S.simulate(input.ptr, { model: "program" }, { events: false });
out.ptr = plain.fit.assumptions.filter((a) => /SchedulerPipelineStageCount/.test(a)).length;
process.stdout.write(JSON.stringify(out));
"""


def test_the_program_model_offers_the_scheduler_knobs_and_states_the_stage_count(sm100, coop):
    """schedule.js simulate at its defaults: both arms run complete with outputTiles tiles per CTA
    (TILES_PER_CTA); the page offers `schedStages` (and `clcLatency` with the CLC arm: knobsFor
    without flags runs the group arm, which reads no CLC latency) and states the stage count's
    assumption (SOURCE_KNOB_ASSUMPTIONS, default 2, the grouped build's 8 named); a kernel with no
    such ring (the SM90 ptr-array GEMM) states none."""
    from node_util import node_script
    got = node_script(OFFERED_SCRIPT, {"array": sm100, "ptr": coop})
    for arm in ("group", "clc"):
        assert got[arm]["stopped"] == 0 and not got[arm]["deadlock"] and got[arm]["tiles"] == 4
        assert len(got[arm]["assumption"]) == 1 and "default 2" in got[arm]["assumption"][0] and "8 for a grouped GEMM" in got[arm]["assumption"][0]
    assert got["group"]["offered"] == ["schedStages"]
    assert got["ptr"] == 0


@pytest.mark.parametrize("flags", [{}, CLC], ids=["group", "clc"])
def test_sm100_array_seeded_settings_run_clean(sm100, flags):
    """30 seeded settings per arm (scheduler stages 1-8, CLC latency 0-9): no error, deadlock,
    stop or hazard."""
    from node_util import program_sweep
    got = program_sweep(sm100, {"stages": [2, 6], "outputTiles": [1, 6], "kTiles": [1, 5], "accStages": [1, 3], "schedStages": [1, 8],
                                "clcLatency": [0, 9], "tmaLatency": [0, 9], "ummaLatency": [0, 7]}, seed=23, runs=30, fixed={"flags": flags})
    assert got["runs"] == 30 and got["badCount"] == 0, got["bad"][:3]


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
