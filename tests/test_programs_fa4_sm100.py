"""FlashAttention-4's CuTe DSL SM100 forward (flash_attn/cute/flash_fwd_sm100.py, installed) read
by programs_dsl.py and run by sim/interpret.js (docs/programs.md "FlashAttention-4 SM100 forward
(CuTe DSL)"): the roles from the constructor's warp-id tuples, the constructor's attributes at
their defaults, the rings with their compile-time classes and stage counts, and, where the run
does not go on yet, each role stopped with its line (never a silent run past what is not read)."""

import json
import subprocess

import pytest

import parse_cutlass
from conftest import ROOT
from test_parser_dsl import fa4_dir
from node_util import node

# Runs the program model on the structure (stdin) with the knobs of argv[2]; prints the roles,
# lanes, stops, deadlock, flags and named barriers.
RUN = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
process.stdout.write(JSON.stringify({ error: r.error || null, lanes: r.lanes.map((l) => l.label), roles: r.verdict.roles,
  stopped: r.verdict.stopped, deadlock: r.deadlock, flags: r.verdict.flags, barriers: r.barriers.map((b) => b.name) }));
"""


@pytest.fixture(scope="module")
def fa4():
    return parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm100.py")


def run(structure, **knobs):
    proc = subprocess.run([node(), "-e", RUN, str(ROOT), json.dumps(knobs)], input=json.dumps(structure),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def test_warp_id_tuples_cut_the_roles(fa4):
    """The constructor's warp-id tuples (312-318: softmax0 0-3, softmax1 4-7, correction 8-11,
    mma 12, epilogue 13, load 14, empty 15), each its unconditional assignment (the q_stage == 1
    and paged-KV reassignments, 341-354, are other variants), cut the warp index into one span per
    role, and the kernel has their 16 warps."""
    var = fa4["kernel_layer"]["role_vars"][0]
    assert var["name"] == "warp_idx" and var["warps"] == 16
    ids = {k: v["warps"] for k, v in var["warp_ids"].items()}
    assert ids == {"self.softmax0_warp_ids": [0, 1, 2, 3], "self.softmax1_warp_ids": [4, 5, 6, 7],
                   "self.correction_warp_ids": [8, 9, 10, 11], "self.mma_warp_id": [12],
                   "self.epilogue_warp_ids": [13], "self.load_warp_ids": [14], "self.empty_warp_ids": [15]}
    assert var["spans"][:8] == [[0, 0], [1, 3], [4, 7], [8, 11], [12, 12], [13, 13], [14, 14], [15, 15]]


def test_constructor_attributes_at_their_defaults(fa4):
    """programs_dsl.constructor: `self.q_stage = q_stage` with the default 2 (157, 183); the
    self-referencing `self.split_P_arrive` keeps both assignments in order (189-190)."""
    ctor = fa4["kernel_layer"]["role_vars"][0]["constructor"]
    assert ctor["params"]["q_stage"] == ["n", 2] and ctor["params"]["use_s_ping_pong"] == ["n", 0]
    assert ctor["attrs"]["self.q_stage"] == [{"expr": ["id", "q_stage"], "line": 183}]
    assert [a["line"] for a in ctor["attrs"]["self.split_P_arrive"]] == [189, 190]


def test_roles_rings_and_flags(fa4):
    """Roles: softmax0 (warps 0-3: warp 0's extra `warp_idx == 0` branch, 964, holds no op, so it
    merges with 1-3), softmax1, correction, mma, epilogue. Rings: the compile-time classes of
    1031-1126 with their stage counts: Q q_stage (2), KV the stages knob (self.kv_stage),
    S/P/O, P-lastsplit, O and the statistics s_p_o_stage (= q_stage without S ping-pong, 339),
    O-epi q_stage. The variants read as flags at their defaults: q_stage 2, no S ping-pong,
    no CLC scheduler (use_clc_scheduler=False, 165), no 2-CTA MMA."""
    out = run(fa4, stages=3, outputTiles=1, kvBlocks=2)
    assert out["error"] is None
    assert out["roles"] == ["softmax0.warp0", "softmax1.warp4", "correction.warp8", "mma.warp12", "epilogue.warp13",
                            "load.warp14"]
    stages = {}
    for lane in out["lanes"]:
        if " stage " in lane:
            ring, _, s = lane.partition(" stage ")
            stages[ring] = max(stages.get(ring, 0), int(s) + 1)
    assert stages["pipeline_q"] == 2 and stages["pipeline_kv"] == 3
    for ring in ("pipeline_s_p_o", "pipeline_p_lastsplit", "pipeline_o_acc", "pipeline_sm_stats", "pipeline_o_epi"):
        assert stages[ring] == 2, ring
    flags = out["flags"]
    assert flags["self.q_stage"] == 2 and flags["self.use_s_ping_pong"] == 0
    assert flags["self.use_clc_scheduler"] == 0 and flags["self.use_2cta_instrs"] == 0
    assert flags["self.use_tma_Q"] == 1 and flags["self.use_tma_KV"] == 1 and flags["self.use_tma_O"] == 1
    assert flags["head_dim"] == 128


def test_tmem_barrier_passes_and_roles_stop_named(fa4):
    """Every role passes the TMEM-pointer barrier (985-993: 13 warps, the mma warp and the
    softmax and correction warpgroups, counted in warps) and gets its static tile scheduler
    (1287); the run then stops each role, named with its line, at the first condition of its
    tile loop it does not read yet (tile_scheduler.py's process_work_tile, the MMA warp's
    mma_tile_coord_v): no deadlock and no silent run past them."""
    out = run(fa4, stages=3, outputTiles=1, kvBlocks=2)
    assert "TmemPtr" in out["barriers"]
    stops = {s["role"]: s["line"] for s in out["stopped"]}
    assert stops == {"softmax0.warp0": 2406, "softmax1.warp4": 2406, "correction.warp8": 2859, "mma.warp12": 1897,
                     "epilogue.warp13": 3340, "load.warp14": 1649}
    assert all("not modelled" in s["reason"] for s in out["stopped"])
    assert out["deadlock"] is None or out["deadlock"].get("afterStopped")
