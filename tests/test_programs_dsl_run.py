"""FlashAttention-4's CuTe DSL SM90 forward (flash_attn/cute/flash_fwd_sm90.py, installed) run by
sim/interpret.js from its own programs (docs/programs.md "FlashAttention-4 SM90 forward (CuTe
DSL)"): its roles and rings, the order of each math warpgroup's ops by source line, the named
warp-scheduler barriers that take turns, no deadlock on seeded random settings, and the
comparison with the hand-written attention model."""


import json
import re

import pytest

import parse_cutlass
from conftest import ROOT
from test_parser_dsl import fa4_dir
from node_util import node_script, program_sweep

# Runs the interpreter on the structure (stdin) with the knobs of argv[2]; prints the roles, the
# lanes, every block's lane, kind, times and first source line, the stops, the deadlock, the flags.
RUN = r"""
const S = require(process.argv[1] + '/schedule.js');
const I = require(process.argv[1] + '/sim/interpret.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const knobs = Object.assign({ model: 'program' }, JSON.parse(process.argv[2]));
const r = S.simulate(st, knobs);
const c = r.columns, blocks = [];
for (let li = 0; li < r.lanes.length; li++) {
  for (let id = c.laneStart[li]; id < c.laneStart[li + 1]; id++) {
    const lines = c.lines[id] >= 0 ? c.linesTable[c.lines[id]] : [];
    blocks.push({ lane: r.lanes[li].label, kind: c.kinds[c.kind[id]], start: c.start[id], end: c.end[id],
      reason: c.reason[id] >= 0 ? c.reasons[c.reason[id]] : null, line: lines && lines.length ? lines[0].line : null,
      path: lines && lines.length ? lines[0].path : null });
  }
}
process.stdout.write(JSON.stringify({ total: r.total, lanes: r.lanes.map((l) => l.label), roles: r.verdict.roles,
  stopped: r.verdict.stopped, deadlock: r.deadlock, flags: r.verdict.flags, hazards: r.verdict.hazards,
  barriers: r.barriers.map((b) => b.name), blocks: blocks }));
"""

@pytest.fixture(scope="module")
def fa4():
    return parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm90.py")


def run(structure, **knobs):
    return node_script(RUN, structure, knobs)


def lines_of(out, lane, kinds=None):
    return [(b["kind"], b["line"]) for b in out["blocks"] if b["lane"] == lane and b["kind"] != "wait"
            and (kinds is None or b["kind"] in kinds)]


def test_roles_and_rings(fa4):
    """warp_idx == 0 (448) and < 4 (585) give the producer warp 0 (warps 1-3 reach no op:
    is_load_warp, 670, is false for them); the math warps (else, 609) are one role per
    warpgroup, since their programs branch on canonical_warp_group_idx (1488, 1533, 1543).
    The rings are the three PipelineTmaAsync objects of 464, 484, 492: Q with 1 stage (its
    literal num_stages=1), K and V with the stages knob (self.num_stages)."""
    out = run(fa4, stages=3, outputTiles=1, kvBlocks=2)
    assert out["roles"] == ["producer.warp0", "consumer.WG1", "consumer.WG2"]
    assert out["lanes"] == ["producer.warp0", "pipeline_q stage 0", "pipeline_k stage 0", "pipeline_k stage 1",
                            "pipeline_k stage 2", "pipeline_v stage 0", "pipeline_v stage 1", "pipeline_v stage 2",
                            "consumer.WG1", "consumer.WG2"]
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []
    # The default compile-time path: TMA loads, intra-warpgroup overlap, the scheduler barrier.
    for flag in ("self.use_tma_KV", "self.use_tma_Q", "self.intra_wg_overlap", "self.use_scheduler_barrier"):
        assert out["flags"][flag] == 1, flag
    assert out["flags"]["self.is_causal"] == 0 and out["flags"]["self.use_block_sparsity"] == 0
    # The named barriers: the two warp-scheduler ids (1533: WG1 - 1 + wg) and the epilogue's (flash_fwd.py 351).
    assert {"WarpSchedulerWG1", "WarpSchedulerWG1+1", "Epilogue"} <= set(out["barriers"])


def test_producer_order_by_source_line(fa4):
    """The load warp (load(), 644-919, intra_wg_overlap branch 833-871): K0 (794), Q (798), then per
    further block K(i) (847) and V(i-1) (858 via load_KV 935), and the last V (868)."""
    out = run(fa4, stages=4, outputTiles=1, kvBlocks=3)
    issues = [b for b in out["blocks"] if b["lane"] == "producer.warp0" and b["kind"] == "issue"]
    assert [b["line"] for b in issues] == [935, 798, 935, 935, 935, 935, 935]
    fills = [(b["lane"], b["start"]) for b in out["blocks"] if b["kind"] == "filling"]
    order = [lane.split(" ")[0] for lane, _ in sorted(fills, key=lambda x: x[1])]
    assert order == ["pipeline_k", "pipeline_q", "pipeline_k", "pipeline_v", "pipeline_k", "pipeline_v", "pipeline_v"]


def test_math_warpgroup_order_by_source_line(fa4):
    """Each math warpgroup (mma(), 942-1275): the first half block (first_half_block_overlap:
    QK 1296, online softmax 1308), per further KV block (mma_one_n_block_intrawg_overlap: QK
    1441, PV 1447, online softmax 1459, rescale_O 1477), the last half block (PV 1350), then
    finalize (1251), rescale_O (1252) and the epilogue (1257)."""
    out = run(fa4, stages=4, outputTiles=1, kvBlocks=3)
    want = [("wgmma", 1296), ("exp", 1308),
            ("wgmma", 1441), ("wgmma", 1447), ("exp", 1459), ("math", 1477),
            ("wgmma", 1441), ("wgmma", 1447), ("exp", 1459), ("math", 1477),
            ("wgmma", 1350), ("math", 1251), ("math", 1252), ("epilogue", 1257)]
    for wg in ("consumer.WG1", "consumer.WG2"):
        assert lines_of(out, wg) == want, wg


def test_warp_scheduler_barrier_takes_turns(fa4):
    """The scheduler barrier (1531-1552, mma_init 1487-1494): WG1 arrives on its own barrier
    first, so WG1 issues each block's QK first; WG2 syncs on WarpSchedulerWG1 + 1 (1533) until
    WG1's arrive (1448). With TMA-bound loads (L 8, two stages) WG2 waits there; with the flag
    off (knobs.flags) it never does."""
    knobs = dict(stages=2, outputTiles=1, kvBlocks=5, tmaLatency=8, wgmmaLatency=1, softmaxLatency=1, mathLatency=0,
                 epilogueLatency=0)
    out = run(fa4, **knobs)
    qk = {wg: [b["start"] for b in out["blocks"] if b["lane"] == wg and b["kind"] == "wgmma" and b["line"] == 1441]
          for wg in ("consumer.WG1", "consumer.WG2")}
    assert len(qk["consumer.WG1"]) == 4 and all(a < b for a, b in zip(qk["consumer.WG1"], qk["consumer.WG2"]))
    turns = [b for b in out["blocks"] if b["kind"] == "wait" and b["reason"] == "WarpSchedulerWG1+1"]
    assert turns and {b["lane"] for b in turns} == {"consumer.WG2"}
    off = run(fa4, flags={"self.use_scheduler_barrier": 0}, **knobs)
    assert off["flags"]["self.use_scheduler_barrier"] == 0
    assert not [b for b in off["blocks"] if b["kind"] == "wait" and str(b["reason"]).startswith("WarpScheduler")]
    assert off["deadlock"] is None and off["stopped"] == []


def test_random_settings_never_deadlock_the_real_kernel(fa4):
    """FA4 runs on hardware: under exact barrier semantics its own program must finish with no
    deadlock or stop for any latencies, sizes and 1-3 math warpgroups."""
    out = program_sweep(fa4, {"stages": [1, 6], "outputTiles": [1, 5], "kvBlocks": [1, 7], "tmaLatency": [0, 12],
                              "wgmmaLatency": [1, 8], "softmaxLatency": [1, 8], "mathLatency": [0, 4],
                              "epilogueLatency": [0, 6], "consumerWGs": [1, 3]}, seed=19, runs=150)
    assert out["runs"] == 150
    assert out["badCount"] == 0, out["bad"]


def test_paged_kv_without_tma_stops_named(fa4):
    """The cp.async path (use_tma_KV off: PipelineCpAsync, 501-518) is not in PIPELINE_CLASSES:
    the roles stop at their first op on it, named, instead of running past it."""
    out = run(fa4, outputTiles=1, kvBlocks=2, flags={"self.use_tma_KV": 0})
    assert out["stopped"], out
    assert all("PipelineCpAsync" in s["reason"] for s in out["stopped"]), out["stopped"]


# The names of the program model's knobs for the structure (schedule.js knobsFor).
KNOBS_FOR = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(S.knobsFor('program', st).map((k) => k.name)));
"""


def _line_of(src, text):
    """The 1-based line of the one occurrence of text in src."""
    assert src.count(text) == 1, text
    return src[:src.index(text)].count("\n") + 1


def test_the_single_tile_scheduler_runs_one_tile_per_cta(fa4):
    """DSL_SCHEDULER_CLASSES: `__call__` picks SingleTileScheduler without varlen, causal or local
    (`TileScheduler = SingleTileScheduler if const_expr(not self.is_causal or self.is_local) else
    ...`, 317-325) and passes it to the kernel's `TileScheduler: cutlass.Constexpr[Callable]` (395,
    441): programs_dsl.kernel_args reads that tree. Its advance_to_next_work ends the work
    (tile_scheduler.py 325-327), so a CTA runs one tile whatever outputTiles says, and the page
    offers no outputTiles knob (before: four tiles per CTA at the defaults)."""
    src = (fa4_dir() / "flash_fwd_sm90.py").read_text()
    arg = fa4["kernel_layer"]["role_vars"][0]["constructor"]["kernel_args"]["TileScheduler"]
    assert arg["line"] == _line_of(src, "if const_expr(mCuSeqlensQ is not None or mSeqUsedQ is not None):")
    leaves = set(re.findall(r'"id", "(\w+Scheduler)"', json.dumps(arg["expr"])))
    assert leaves == {"SingleTileVarlenScheduler", "SingleTileScheduler", "SingleTileLPTScheduler"}
    specs = node_script(KNOBS_FOR, fa4)
    assert "outputTiles" not in specs and "kvBlocks" in specs
    one, three = run(fa4, stages=2, outputTiles=1, kvBlocks=2), run(fa4, stages=2, outputTiles=3, kvBlocks=2)
    assert one["stopped"] == [] and one["deadlock"] is None
    assert one["total"] == three["total"] and one["blocks"] == three["blocks"]
    # One Q load (798) and one epilogue per math warpgroup: one tile.
    assert [b["line"] for b in one["blocks"] if b["lane"] == "producer.warp0" and b["kind"] == "issue"].count(798) == 1
    assert [b["kind"] for b in one["blocks"] if b["lane"] == "consumer.WG1"].count("epilogue") == 1


def test_a_persistent_scheduler_runs_the_tile_count_again(tmp_path):
    """Negative case on a mutated copy: with StaticPersistentTileScheduler in the non-causal arm (a
    "strided" class: `_tile_idx += grid_dim`, tile_scheduler.py 429-434) the run reads outputTiles
    again: three tiles take longer than one, with three Q loads; with a class DSL_SCHEDULER_CLASSES
    does not list, every role stops at its create (679, 1006), naming it."""
    src = (fa4_dir() / "flash_fwd_sm90.py").read_text()
    arm = "                SingleTileScheduler\n                if const_expr(not self.is_causal or self.is_local)"
    assert src.count(arm) == 1
    for sibling in ("flash_fwd.py",):
        (tmp_path / sibling).write_text((fa4_dir() / sibling).read_text())
    path = tmp_path / "flash_fwd_sm90.py"
    path.write_text(src.replace(arm, arm.replace("SingleTileScheduler", "StaticPersistentTileScheduler")))
    st = parse_cutlass.parse_file(path)
    assert "outputTiles" in node_script(KNOBS_FOR, st)
    one, three = run(st, stages=2, outputTiles=1, kvBlocks=2), run(st, stages=2, outputTiles=3, kvBlocks=2)
    assert three["stopped"] == [] and three["deadlock"] is None and three["total"] > one["total"]
    assert [b["line"] for b in three["blocks"] if b["lane"] == "producer.warp0" and b["kind"] == "issue"].count(798) == 3
    path.write_text(src.replace(arm, arm.replace("SingleTileScheduler", "MyTileScheduler")))
    out = run(parse_cutlass.parse_file(path), stages=2, outputTiles=1, kvBlocks=2)
    lines = {s["line"] for s in out["stopped"]}
    # The load warp's create (679) and the math warpgroups' (1006), told apart by their indent.
    creates = {_line_of(src, "\n" + " " * n + "tile_scheduler = TileSchedulerCls()") + 1 for n in (12, 8)}
    assert lines and lines <= creates, out["stopped"]
    assert all("tile scheduler class `TileScheduler` is not known" in s["reason"] for s in out["stopped"])


CALL_SRC = '''
class K:
    def __call__(self, mCu, n):
        other = n + 1
        if const_expr(mCu is not None):
            Sched = VarlenSched
        else:
            Sched = PlainSched if const_expr(self.a) else LptSched
        Picked = Sched
        if other > 2:
            Bad = A
        else:
            Bad = B
        Looped = A
        for i in range(n):
            Looped = B
        self.kernel(Sched, Bad, Looped, other).launch()

    def kernel(self, TileScheduler: cutlass.Constexpr[Callable], B2: cutlass.Constexpr, L2: cutlass.Constexpr, O2: Int32):
        pass
'''


def test_call_locals_and_kernel_args_on_a_fixture():
    """programs_dsl.call_locals / kernel_args on a fixture of our own: an `if` tree whose tests read
    only `__call__`'s parameters and `self` gives the local's conditional value; a lone alias of a
    local that reads another local is dropped (`Picked = Sched`); a tree testing another local
    (`other`) is not read; a local a loop reassigns is dropped; only Constexpr parameters bound to a
    known local are kernel_args (O2 is an Int32)."""
    import ast
    import parse_dsl
    import programs_dsl
    tree = ast.parse(CALL_SRC)
    call, kernel = tree.body[0].body
    src = parse_dsl.SourceText(CALL_SRC, "k.py")
    got = programs_dsl.call_locals(src, call, 10 ** 6)
    assert sorted(got) == ["Sched"]
    assert got["Sched"]["line"] == 5 and set(re.findall(r'"id", "(\w+Sched)"', json.dumps(got["Sched"]["expr"]))) == {
        "VarlenSched", "PlainSched", "LptSched"}
    assert programs_dsl.kernel_args(src, call, kernel) == {"TileScheduler": got["Sched"]}
