"""Role programs (docs/programs.md): the C++ front end reads the real CUTLASS 4.2 headers into
program trees, and sim/interpret.js runs them equal to the hand-written GEMM model, follows the
code where the two part, and reports a header changed at test time (never committed)."""

import json
import subprocess

import pytest

import parse_cutlass
from node_util import ROOT, node, program_steps as steps

COLLECTIVE = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
KERNELS = {
    "pingpong": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "cooperative": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
    "basic": "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp",
}
KNOBS = {"stages": 4, "outputTiles": 4, "kTiles": 5, "tmaLatency": 4, "wgmmaLatency": 2,
         "epilogueLatency": 3, "kPipeMmas": 1}




def program(model, name):
    (prog,) = [p for p in model["programs"]["functions"] if p["name"] == name]
    return prog


def at(prog, line, node):
    """The steps of kind node at a source line."""
    return [s for s in steps(prog["body"]) if s["line"] == line and s["node"] == node]


@pytest.fixture(scope="module")
def parsed(cutlass):
    return {kind: parse_cutlass.parse_header(cutlass(COLLECTIVE), cutlass(path)) for kind, path in KERNELS.items()}


def test_collective_programs_are_the_code(parsed, validate):
    model = validate(parsed["pingpong"])
    assert model["schema_version"] == 3
    load = program(model, "load")
    (loop,) = at(load, 372, "loop")
    assert loop["cond"] == ["bin", ">", ["id", "k_tile_count"], ["n", 0]] and loop["unroll"] == "no_unroll"
    assert loop["step"][0]["op"] == "--" and loop["step"][0]["name"] == "k_tile_count"
    body = [(s["node"], s["line"], s.get("op"), s.get("state") or s.get("name")) for s in loop["body"]
            if s["node"] in ("op", "set")]
    assert body == [("op", 374, "producer_acquire", "smem_pipe_write"), ("op", 381, "producer_get_barrier", "smem_pipe_write"),
                    ("op", 384, "tma_load", None), ("op", 385, "tma_load", None),
                    ("set", 386, "++", "k_tile_iter"), ("set", 389, "++", "smem_pipe_write")]
    (guard,) = at(load, 322, "if")
    assert guard["cond"] == ["id", "lane_predicate"] and not guard["constexpr"]
    mma = program(model, "mma")
    params = {p["name"]: p["ref"] for p in mma["params"]}
    assert params["pipeline"] is False and params["smem_pipe_read"] is False and params["accum"] is True
    (release_copy,) = at(mma, 477, "let")
    assert release_copy["names"] == ["smem_pipe_release"] and release_copy["expr"] == ["id", "smem_pipe_read"]
    (count,) = at(mma, 480, "let")
    assert count["expr"] == ["call", "min", [["id", "K_PIPE_MMAS"], ["id", "k_tile_count"]]]
    (kblocks,) = at(mma, 494, "loop")
    assert kblocks["unroll"] == "unroll" and [s["op"] for s in kblocks["body"] if s["node"] == "op"] == ["mma"]
    # `tiled_mma.accumulate_ = GMMA::ScaleOut::One;` (497): a member set, no step of the schedule.
    (scale,) = [s for s in kblocks["body"] if s["node"] == "set"]
    assert scale["name"] == "tiled_mma" and scale["member"] == "accumulate_" and scale["line"] == 497
    (prologue,) = at(mma, 509, "loop")
    assert prologue["unroll"] == "unroll"
    (mainloop,) = at(mma, 529, "loop")
    order = [(s["line"], s["op"]) for s in mainloop["body"] if s["node"] == "op"]
    assert order == [(532, "consumer_try_wait"), (533, "consumer_wait"), (541, "warpgroup_arrive"), (543, "mma"),
                     (547, "warpgroup_wait"), (551, "consumer_release")]
    (tail_advance,) = at(program(model, "mma_tail"), 568, "set")
    assert tail_advance["op"] == "advance" and tail_advance["expr"] == ["id", "k_tile_count"]


def test_kernel_layer_program_and_roles(parsed, validate):
    kl = validate(parsed["pingpong"])["kernel_layer"]
    assert [(v["name"], v["enum"], v["members"]) for v in kl["role_vars"]] == [
        ("warp_group_role", "WarpGroupRole", ["Producer", "Consumer0", "Consumer1"]),
        ("producer_warp_role", "ProducerWarpRole", ["Mainloop", "Warp1", "Epilogue", "MainloopAux"])]
    consts = {c["name"]: (c["value"], c["line"]) for c in kl["constants"]}
    assert consts["NumMmaWarpGroups"] == (2, 132) and consts["StagesPerMathWarpGroup"] == (2, 154)
    order = {b["alias"]: b.get("args") for b in kl["order_barriers"]}
    assert order["MathWarpGroupOrderBarrier"] == [["id", "StagesPerMathWarpGroup"], ["id", "NumMmaWarpGroups"]]
    prog = kl["program"]
    assert prog["name"] == "operator()" and "incomplete" not in prog
    (consumer_loop,) = at(prog, 836, "loop")
    calls = [(s["line"], s.get("receiver"), s.get("name")) for s in steps(consumer_loop["body"]) if s["node"] == "call"]
    assert (847, "math_wg_order_barrier", "wait") in calls and (849, "collective_mainloop", "mma") in calls
    assert (935, "scheduler", "advance_to_next_work") in calls


def run_node(script, *args, stdin=None):
    proc = subprocess.run([node(), "-e", script, str(ROOT), *args], input=stdin, capture_output=True, text=True,
                          timeout=300, check=True)
    return json.loads(proc.stdout)


RUN = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js"), I = require(root + "/sim/interpret.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = I.run(input.structure, input.knobs, S.engine, {});
const names = {}; r.barriers.forEach((b) => { names[b.id] = b.name; });
const blocks = S.blocksOf(r.columns);
process.stdout.write(JSON.stringify({
  roles: r.roles.map((x) => x.name), stopped: r.stopped, total: r.total, hazards: r.hazards,
  deadlock: r.deadlock, flags: r.flags,
  releases: r.barrierEvents().filter((e) => e.type === "arrive" && /\.empty\[/.test(names[e.barrier])).map((e) => e.t),
  wgmmaEnds: blocks.filter((b) => b.kind === "wgmma").map((b) => b.end),
  gemm: S.simulate(input.structure, Object.assign({ model: "gemm", consumerWGs: 2, schedule: "pingpong" }, input.knobs)).deadlock
}));
"""


def interpret(structure, **knobs):
    return run_node(RUN, stdin=json.dumps({"structure": structure, "knobs": dict(KNOBS, **knobs)}))


@pytest.mark.parametrize("kind", sorted(KERNELS))
def test_interpreter_equals_the_gemm_model(parsed, tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(parsed[kind]))
    fixed = json.dumps({"outputTiles": 1} if kind == "basic" else {})
    proc = subprocess.run([node(), str(ROOT / "tests" / "js" / "interpret_diff.js"), str(path), kind, "11", "150", fixed],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["runs"] == 150
    assert out["mismatches"] == [], out["mismatches"][:3]
    assert out["stopped"] == []


def test_roles_of_the_pingpong_kernel(parsed):
    out = interpret(parsed["pingpong"])
    assert out["roles"] == ["Producer.Mainloop", "Consumer0", "Consumer1"]
    assert out["stopped"] == [] and out["hazards"] == [] and out["deadlock"] is None
    # The unread compile-time conditions are flags named by their text, off (the collective's
    # multicast tests, load 317-318: a 1x1 cluster).
    assert out["flags"] == {"IsSchedDynamicPersistent": 0, "CollectiveEpilogue::RequiresTransactionBytes": 0,
                            "IsMainloopAuxiliaryLoadNeeded": 0,
                            "cute::is_same_v<GmemTiledCopyA, SM90_TMA_LOAD_MULTICAST>": 0,
                            "cute::is_same_v<GmemTiledCopyB, SM90_TMA_LOAD_MULTICAST>": 0}


def test_k_pipe_mmas_zero_follows_the_code(parsed):
    """mma() peels its first k-tile but prologue_mma_count = min(K_PIPE_MMAS, k) does not count it
    at 0: the WG waits on K + 1 k-tiles, the last one never loaded (docs/programs.md)."""
    out = interpret(parsed["pingpong"], kPipeMmas=0, outputTiles=2)
    assert out["gemm"] is None
    assert out["deadlock"] is not None
    waits = {(w["lane"], w["line"]) for w in out["deadlock"]["waiting"]}
    assert any(line == 533 for _, line in waits), waits


def mutated(cutlass, tmp_path, edit):
    """The real collective with edit(lines) applied, in a temporary folder (never committed)."""
    lines = cutlass(COLLECTIVE).read_text().split("\n")
    edit(lines)
    path = tmp_path / "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
    path.write_text("\n".join(lines))
    return parse_cutlass.parse_header(path, cutlass(KERNELS["pingpong"]))


def test_release_before_the_gemm_is_a_hazard(cutlass, tmp_path, parsed):
    def edit(lines):
        assert "pipeline.consumer_release(smem_pipe_release);" in lines[550] and "cute::gemm" in lines[542]
        lines[542] = lines[550].strip() + " " + lines[542].strip()
        lines[550] = ""   # same line numbers
    out = interpret(mutated(cutlass, tmp_path, edit))
    assert out["hazards"], "the refill of a stage its WGMMA still reads is not reported"
    first = out["hazards"][0]
    assert first["copyLine"] in (384, 385) and first["mmaLine"] in (496, 518, 543)
    assert f"line {first['copyLine']}" in first["message"] and f"line {first['mmaLine']}" in first["message"]
    assert interpret(parsed["pingpong"])["hazards"] == []


def test_warpgroup_wait_zero_moves_every_release(cutlass, tmp_path, parsed):
    def edit(lines):
        assert "warpgroup_wait<K_PIPE_MMAS>();" in lines[546]
        lines[546] = lines[546].replace("warpgroup_wait<K_PIPE_MMAS>()", "warpgroup_wait<0>()")
    knobs = {"stages": 2, "tmaLatency": 10}
    changed = interpret(mutated(cutlass, tmp_path, edit), **knobs)
    original = interpret(parsed["pingpong"], **knobs)
    ends = set(changed["wgmmaEnds"])
    assert changed["releases"] and all(t in ends for t in changed["releases"])
    assert any(t not in set(original["wgmmaEnds"]) for t in original["releases"])


TABLES = r"""
const I = require(process.argv[1] + "/sim/interpret.js");
process.stdout.write(JSON.stringify({symbols: I.SYMBOL_KNOBS, trips: I.TRIP_KNOBS, runtime: I.RUNTIME_CHOICES,
  scheduler: I.SCHEDULER_STATIC, epilogue: I.EPILOGUE_CALLS, pipelines: I.PIPELINE_CLASSES, ops: Object.keys(I.OP_SEMANTICS),
  masks: I.MASK_TRIP_COUNTS, conditions: I.RUNTIME_CONDITIONS, collectives: I.COLLECTIVE_TYPES, opaque: I.OPAQUE_LATENCY,
  register: I.REGISTER_LOOP_OPS, tiles: Object.fromEntries(I.TILE_COUNT_RULES.map((r) => [r.name, 1]))}));
"""


def test_every_interpreter_rule_is_documented():
    """Each entry of the interpreter's tables is named on docs/programs.md (a new rule without its
    documentation fails here)."""
    doc = (ROOT / "docs" / "programs.md").read_text()
    tables = run_node(TABLES)
    for table in ("symbols", "trips", "runtime", "scheduler", "epilogue", "pipelines", "masks", "conditions",
                  "collectives", "opaque", "register", "tiles"):
        for key, value in tables[table].items():
            short = key.split("::")[-1]
            assert any(f"`{name}{tail}" in doc for name in (key, short) for tail in ("`", "()`", "(")), (table, key)
    for op in tables["ops"]:
        if not op.startswith("__"):
            assert f"`{op}" in doc, op


# --- SM100 (docs/programs.md "The SM100 GEMM") -------------------------------------------------

SM100_COLLECTIVE = "include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp"
SM100_KERNEL = "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"
SM100_KNOBS = {"stages": 4, "accStages": 2, "outputTiles": 4, "kTiles": 4, "tmaLatency": 4, "ummaLatency": 2,
               "tmemLoadLatency": 3, "storeLatency": 3}


@pytest.fixture(scope="module")
def sm100(cutlass):
    """The SM100 collective with its kernel layer, as installed (the front end reads its do-while
    tile loops, the WarpCategory set through ?:, the IsParticipant aggregate and the kernel
    layer's pipeline aliases)."""
    return parse_cutlass.parse_header(cutlass(SM100_COLLECTIVE), cutlass(SM100_KERNEL))


def test_sm100_kernel_layer_program_is_read(sm100):
    """The constructs of the SM100 kernel layer the reader once stopped at: `do { } while (c);`
    (line 624 on), the role variable assigned through ?: (418-419), the IsParticipant aggregate
    (448-454) and `using AccumulatorPipeline = cutlass::PipelineUmmaAsync<...>` (169)."""
    kl = sm100["kernel_layer"]
    assert [(v["name"], v["members"], v["line"]) for v in kl["role_vars"]] == [
        ("warp_category", ["MMA", "Sched", "MainloopLoad", "EpilogueLoad", "Epilogue"], 418)]
    assert "incomplete" not in kl["program"]
    assert {p["alias"]: p["class"] for p in kl["pipelines"]}["AccumulatorPipeline"] == "PipelineUmmaAsync"
    (loop,) = at(kl["program"], 624, "loop")
    assert loop["kind"] == "do" and loop["cond"] == ["mcall", ["id", "work_tile_info"], "is_valid", []]
    (participant,) = [s for s in steps(kl["program"]["body"]) if s["node"] == "let" and s["names"] == ["is_participant"]]
    assert participant["expr"][0] == "struct" and participant["expr"][1] == ["mma", "sched", "main_load", "epi_load", "epilogue"]


def test_sm100_roles_and_insight(sm100):
    out = interpret(sm100, **SM100_KNOBS)
    assert out["roles"] == ["MMA", "MainloopLoad", "Epilogue"]
    assert out["stopped"] == [] and out["deadlock"] is None
    assert out["total"] == 43   # docs/models/blackwell.md: 1 + L + O*K*U + T + St at the defaults
    assert interpret(sm100, **dict(SM100_KNOBS, accStages=1))["total"] == 52


def test_sm100_interpreter_equals_the_blackwell_model(sm100, tmp_path):
    path = tmp_path / "sm100.json"
    path.write_text(json.dumps(sm100))
    proc = subprocess.run([node(), str(ROOT / "tests" / "js" / "interpret_diff.js"), str(path), "blackwell", "11", "150"],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["runs"] == 150
    assert out["mismatches"] == [], out["mismatches"][:3]
    assert out["stopped"] == []


def test_sm100_clc_scheduler_runs_complete(sm100):
    """With IsSchedDynamicPersistent on (the CLC scheduler of the default build), the Sched role
    queries through the CLC pipeline (SCHEDULER_PIPELINE, CLC_QUERY; tests/test_programs_sm100_gemms.py
    has the protocol): every role, Sched included, runs to its end. A run without the scheduler
    stages knob makes no ring, and Sched stops at the CLC pipeline's class as before, named."""
    out = interpret(sm100, **dict(SM100_KNOBS, flags={"IsSchedDynamicPersistent": 1}, schedStages=2, clcLatency=2))
    assert "Sched" in out["roles"] and out["stopped"] == [] and out["deadlock"] is None
    bare = interpret(sm100, **dict(SM100_KNOBS, flags={"IsSchedDynamicPersistent": 1}))
    assert any(s["role"] == "Sched" and "PipelineCLCFetchAsync" in s["reason"] for s in bare["stopped"]), bare["stopped"]


BLOCKWISE = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"


def test_copies_split_by_branches_are_one_transaction(cutlass):
    """The FP8 blockwise-scaling mainloop copies A and B (582, 583) each under its own
    `if (lane_predicate)`: one transaction per stage (docs/programs.md `tma_load`). Counted as two
    arrivals, the second flipped the full barrier's phase again and the run deadlocked at step 8."""
    st = parse_cutlass.parse_header(cutlass(BLOCKWISE), cutlass(KERNELS["cooperative"]))
    script = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(st, { model: "program", stages: 4, outputTiles: 3, kTiles: 6, tmaLatency: 4 }, { events: false });
const issues = r.blocks.filter((b) => b.kind === "issue" && String(b.lane) === "role:Producer.Mainloop");
process.stdout.write(JSON.stringify({ deadlock: r.deadlock, stopped: r.verdict.stopped, total: r.total,
  issues: issues.map((b) => [b.tile, b.k, b.stage, b.lines.map((l) => l.line), b.lines.map((l) => l.path)]),
  mmas: r.blocks.filter((b) => b.kind === "wgmma" && String(b.lane) === "role:Consumer0").length }));
"""
    out = run_node(script, stdin=json.dumps(st))
    assert out["deadlock"] is None and out["stopped"] == []
    assert out["mmas"] == 3 * 6
    # two copies per k-tile, both with the k and stage of their acquire, in line order
    assert len(out["issues"]) == 2 * 3 * 6
    firsts, seconds = out["issues"][0::2], out["issues"][1::2]
    assert [x[:3] for x in firsts] == [x[:3] for x in seconds]
    assert {tuple(x[3]) for x in firsts} == {(582,)} and {tuple(x[3]) for x in seconds} == {(583,)}
    assert [x[1] for x in firsts[:6]] == list(range(6))
    # each block names the collective's file (docs/programs.md "Source refs")
    assert {p for x in out["issues"] for p in x[4]} == {st["source"]["path"]}
