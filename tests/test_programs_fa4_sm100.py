"""FlashAttention-4's CuTe DSL SM100 forward (flash_attn/cute/flash_fwd_sm100.py, installed) read
by programs_dsl.py and run by sim/interpret.js (docs/programs.md "FlashAttention-4 SM100 forward
(CuTe DSL)"): the roles from the constructor's warp-id tuples, the constructor's attributes at
their defaults, the rings with their compile-time classes and stage counts, and, where the run
does not go on yet, each role stopped with its line (never a silent run past what is not read)."""


import pytest

import parse_cutlass
from conftest import ROOT
from test_parser_dsl import fa4_dir
from node_util import node_script, program_sweep

# Runs the program model on the structure (stdin) with the knobs of argv[2]; prints the roles,
# lanes, stops, deadlock, flags and named barriers.
RUN = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
process.stdout.write(JSON.stringify({ error: r.error || null, lanes: r.lanes.map((l) => l.label), roles: r.verdict.roles,
  stopped: r.verdict.stopped, deadlock: r.deadlock, flags: r.verdict.flags, flagsText: r.verdict.flagsText,
  barriers: r.barriers.map((b) => b.name), total: r.total }));
"""


@pytest.fixture(scope="module")
def fa4():
    return parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm100.py")


def run(structure, **knobs):
    return node_script(RUN, structure, knobs)


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


def test_every_role_runs_its_tile_loop(fa4):
    """Every role passes the TMEM-pointer barrier (985-993) and runs its tile loop to the end:
    process_work_tile is 1 without split-KV or varlen Q (3616-3629), the MMA's CTA count is 1
    (974-978), advance_to_next_work moves to the CTA's next tile (1734, ...): no stop, no deadlock."""
    out = run(fa4, stages=3, outputTiles=2, kvBlocks=2)
    assert "TmemPtr" in out["barriers"]
    assert out["stopped"] == [] and out["deadlock"] is None


# Per role, the lines of its drawn non-wait blocks in order (stdin: the structure; argv[2]: knobs).
BLOCKS = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
const by = {};
for (const b of r.blocks) if (b.lane.startsWith('role:') && b.kind !== 'wait') (by[b.lane.slice(5)] = by[b.lane.slice(5)] || []).push([b.kind, b.lines[0].line]);
process.stdout.write(JSON.stringify({ by: by, mmaWaits: r.verdict.mmaWaits, hazards: r.verdict.hazards || [] }));
"""


def blocks(structure, **knobs):
    return node_script(BLOCKS, structure, knobs)


@pytest.mark.parametrize("kv", [1, 3])
def test_per_role_op_order_by_source_line(fa4, kv):
    """One tile, kv KV blocks. Load: K0 (load_KV 3514), Q0 and Q1 (load_Q 3441), V0, then K, V per
    further block (1649-1690). MMA: S = Q K for both stages (1959), per further block PV of the
    stage (1995) then its next S (2029), and the last PVs (2061), which commit O (2075). Softmax
    (softmax_step): row max 2669, subtract 2689, exp2 2700, row sum 2733 per block. Correction:
    the rescale (2896) per further block and stage, then the epilogue (3229) per stage; the
    epilogue warp stores each stage (3365)."""
    out = blocks(fa4, stages=3, outputTiles=1, kvBlocks=kv)
    by = {role: [line for _kind, line in b] for role, b in out["by"].items()}
    assert by["load.warp14"] == [3514, 3441, 3441, 3514] + [3514, 3514] * (kv - 1)
    assert by["mma.warp12"] == [1959, 1959] + [1995, 2029] * 2 * (kv - 1) + [2061, 2061]
    for sm in ("softmax0.warp0", "softmax1.warp4"):
        assert by[sm] == [2669, 2689, 2700, 2733] * kv
    assert by["correction.warp8"] == [2896] * 2 * (kv - 1) + [3229, 3229]
    assert by["epilogue.warp13"] == [3365, 3365]
    assert [k for k, _line in out["by"]["mma.warp12"]] == ["umma"] * len(by["mma.warp12"])


def test_the_mma_warp_waits_for_s_to_p_and_o(fa4):
    """The MMA warp's waits: the KV/Q TMA, and pipeline_s_p_o (the S/P/O coupling: softmax's P
    written and correction's O rescaled, one PipelineUmmaAsync whose empty barrier expects the
    256 threads of softmax_correction_threads_cluster, 1028, 1073)."""
    out = blocks(fa4, stages=3, outputTiles=2, kvBlocks=3)
    waits = out["mmaWaits"]["mma.warp12"]
    assert waits.get("pipeline_s_p_o", 0) > 0 and waits.get("tma", 0) > 0
    assert out["hazards"] == []


def test_seeded_sweep_never_deadlocks(fa4):
    """FA4 runs on hardware: its own program must finish with no deadlock, stop or hazard."""
    out = program_sweep(fa4, {"stages": [2, 6], "outputTiles": [1, 4], "kvBlocks": [1, 6], "tmaLatency": [0, 9],
                              "ummaLatency": [1, 5], "tmemLoadLatency": [0, 5], "storeLatency": [0, 5],
                              "softmaxLatency": [0, 8], "mathLatency": [0, 4]}, seed=4, runs=40)
    assert out["runs"] == 40
    assert out["badCount"] == 0, out["bad"]


def test_the_rescale_vote_is_a_marked_run_time_choice(fa4):
    """`should_rescale = vote_ballot_sync(scale < 1.0)` is data, not a compile-time flag: the
    verdict marks it "(run time)"; every block rescales by default, and 0 skips the rescales."""
    on = run(fa4)
    assert "vote_ballot_sync (run time) on" in on["flagsText"]
    # A setting is said with its value (`self.q_stage = q_stage`, 2), a compile-time one, not a run-time choice.
    assert "self.q_stage = 2" in on["flagsText"] and "self.q_stage (run time)" not in on["flagsText"]
    off = run(fa4, flags={"vote_ballot_sync": 0})
    assert "vote_ballot_sync (run time) off" in off["flagsText"]
    assert off["stopped"] == [] and off["deadlock"] is None and off["total"] <= on["total"]


# The names of the program model's knobs for the structure (schedule.js knobsFor).
KNOBS_FOR = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(S.knobsFor('program', st).map((k) => k.name)));
"""


def test_the_static_persistent_scheduler_strides_over_tiles(fa4, tmp_path):
    """DSL_SCHEDULER_CLASSES: the constructor's `if` tree (294-308) gives `self.TileScheduler`
    StaticPersistentTileScheduler at the defaults (`is_static_persistent: bool = True`, 158; no
    varlen, causal, local or CLC), `__call__` aliases it (`TileScheduler = self.TileScheduler`, 730;
    `self.tile_scheduler_cls = TileScheduler`, 768): a "strided" class, so a CTA runs outputTiles
    tiles (two take longer than one). On a mutated copy with `is_static_persistent` False the tree
    gives SingleTileScheduler: one tile per CTA, and outputTiles is no knob any more."""
    attrs = fa4["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]
    assert attrs["self.tile_scheduler_cls"] == [{"expr": ["member", ["id", "self"], "TileScheduler"], "line": 768}]
    assert "StaticPersistentTileScheduler" in str(attrs["self.TileScheduler"][-1]["expr"])
    assert "outputTiles" in node_script(KNOBS_FOR, fa4)
    one, two = run(fa4, stages=3, outputTiles=1, kvBlocks=2), run(fa4, stages=3, outputTiles=2, kvBlocks=2)
    assert two["stopped"] == [] and two["total"] > one["total"]
    src = (fa4_dir() / "flash_fwd_sm100.py").read_text()
    old = "is_static_persistent: bool = True,"
    assert src.count(old) == 1
    path = tmp_path / "flash_fwd_sm100.py"
    path.write_text(src.replace(old, "is_static_persistent: bool = False,"))
    st = parse_cutlass.parse_file(path)
    assert "outputTiles" not in node_script(KNOBS_FOR, st)
    one, three = run(st, stages=3, outputTiles=1, kvBlocks=2), run(st, stages=3, outputTiles=3, kvBlocks=2)
    assert one["stopped"] == [] and one["deadlock"] is None
    assert one["total"] == three["total"] == run(fa4, stages=3, outputTiles=1, kvBlocks=2)["total"]
