"""FlashAttention-4's CuTe DSL SM90 forward (flash_attn/cute/flash_fwd_sm90.py, installed) run by
sim/interpret.js from its own programs (docs/programs.md "FlashAttention-4 SM90 forward (CuTe
DSL)"): its roles and rings, the order of each math warpgroup's ops by source line, the named
warp-scheduler barriers that take turns, no deadlock on seeded random settings, and the
comparison with the hand-written attention model."""


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
