"""FlashAttention-4's CuTe DSL SM100 backward (flash_attn/cute/flash_bwd_sm100.py) and SM100 latent
attention forward (flash_fwd_mla_sm100.py), installed, read by programs_dsl.py and run by
sim/interpret.js (docs/programs.md "FlashAttention-4 SM100 backward and latent attention"): the
rules that take the backward's roles through their tile loops, m-blocks and dK / dV epilogue to
their end (it runs complete), latent attention's stops named with their lines, and the
DSL_ASSERT_EQUALS rule on a fixture of our own (tests/fixtures/dsl/toy_assert_epilogue.py)."""

import json
import subprocess

import pytest

import parse_cutlass
from conftest import ROOT
from test_parser_dsl import fa4_dir
from node_util import node, node_script

# Runs the program model on the structure (stdin) with the knobs of argv[2]; prints the roles,
# the stops, the deadlock message and the flags.
RUN = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
process.stdout.write(JSON.stringify({ error: r.error || null, roles: r.verdict.roles, stopped: r.verdict.stopped,
  deadlock: r.deadlock ? r.deadlock.message : null, flags: r.verdict.flags, lanes: r.lanes.map((l) => l.label) }));
"""

# The tile loops of the backward's roles (`while work_tile.is_valid_tile`): load 2038, mma 2708,
# compute 3476, reduce 4106; every role stopped there before DSL_SCHEDULER_CREATE.
BWD_TILE_LOOPS = {2038, 2708, 3476, 4106}


@pytest.fixture(scope="module")
def bwd():
    return parse_cutlass.parse_file(fa4_dir() / "flash_bwd_sm100.py")


@pytest.fixture(scope="module")
def mla():
    return parse_cutlass.parse_file(fa4_dir() / "flash_fwd_mla_sm100.py")


def run(structure, **knobs):
    return node_script(RUN, structure, knobs)


def stops(r):
    return {s["role"]: (s["line"], s["reason"]) for s in r["stopped"]}


# The compute's dK / dV epilogue: `__call__`'s `self.use_tma_store = not (self.qhead_per_kvhead == 1
# and mCuSeqlensK is not None)` (701) is read (CALL_NONE_TESTS: the parameter's None-ness is the flag
# `mCuSeqlensK is not None`, off), so the compute takes the TMA epilogue (3877, 3898, 3918; before,
# the flag was off and the run took the other branch, then skipped the `self.epilogue_dKV(...)` call
# of 3878 without a word: DSL_SELF_CALL_SETS). Its `for epi_stage in range_constexpr(num_epi_stages)`
# (4840) counts `cute.size(tdKVgdKV.shape[1])` of a TMA partition (4815, not modelled), which the
# source asserts equals self.num_epi_stages (4817; DSL_ASSERT_EQUALS binds it), itself from dK's
# element width (621-630: DSL_TENSOR_DTYPES, the elementBits knob, 16 as interface.py passes it):
# max(1, (128 // 2) // gcd(128 // (16 // 8), 128 // 2)) = 1 stage. The compute stopped there before.
OLD_EPILOGUE_STOP = 4840


def complete(r):
    """Every role ran to its end: no stop and no deadlock."""
    return not r["stopped"] and not r["deadlock"]


def test_enum_members_are_values(bwd):
    """programs_dsl.enum_members: `class CtaSchedule(enum.Enum)` (69-74), members by enum.auto()
    from 1 in order."""
    enums = bwd["kernel_layer"]["role_vars"][0]["enums"]
    assert {k: v["value"] for k, v in enums.items()} == {
        "CtaSchedule.ONE_CTA": 1, "CtaSchedule.TWO_CTA_PIPELINED": 2, "CtaSchedule.TWO_CTA_SERIAL": 3}


def test_constructor_chain_and_setup_attributes(bwd):
    """`self.cta_schedule` is the constructor's if/elif/else chain (142-147) as one conditional;
    `self.Q_stage` comes from `_setup_attributes` (429), which `__call__` runs at 757."""
    attrs = bwd["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]
    chain = attrs["self.cta_schedule"]
    assert [a["line"] for a in chain] == [142]
    tree = chain[0]["expr"]
    assert tree[0] == "?:" and tree[2] == ["id", "CtaSchedule.ONE_CTA"] and tree[3][0] == "?:"
    assert [a["line"] for a in attrs["self.Q_stage"]] == [429]
    # CALL_NONE_TESTS: `__call__`'s `self.use_tma_store = not (self.qhead_per_kvhead == 1 and mCuSeqlensK
    # is not None)` (701) reads its parameter only through a None test: read. An assignment that reads
    # a local otherwise stays out (`self.shared_storage = SharedStorage`, 1144, a class `__call__` defines).
    assert [a["line"] for a in attrs["self.use_tma_store"]] == [701]
    assert "self.shared_storage" not in attrs
    # CALL_ELEMENT_TYPES: `self.dk_dtype = mdK.element_type` (695) reads the parameter only for its
    # element type (DSL_TENSOR_DTYPES gives its width): read.
    assert attrs["self.dk_dtype"] == [{"expr": ["member", ["id", "mdK"], "element_type"], "line": 695}]


def test_backward_roles_enter_their_tile_loops(bwd):
    """With the partial of `self.tile_scheduler_cls.create` (1688) read as the scheduler, no role
    stops at its tile loop, and the load takes the one-CTA path (the `CtaSchedule.TWO_CTA_SERIAL`
    prologue, 2206-2315, is not taken). DSL_WARP_ROLES: each warp of a constructor tuple is dry-run
    on its own, and adjacent warps of one warpgroup whose runs agree are one role."""
    r = run(bwd)
    assert r["error"] is None
    # The reduce warps are two roles: warp 0 is the TMA warp (`is_tma_warp = warp_idx == 0`, 4070) that
    # issues the dQ reduce-adds (4260), warps 1-3 only pass the reduce barrier (4270). (Before
    # DSL_WARP_ROLES warp 1 ran with warp 0, as a second TMA warp: the prologue's `warp_idx == 2` test
    # cuts 0-1 from 2.) The compute warps 4-11 are four roles: per warpgroup (`wg_idx`, 4757: warps 4-7
    # are WG 1, 8-11 WG 0) its leader warp (`leader_warp = warp_idx % 4 == 0`, 4759), which issues the
    # dK / dV TMA stores (4883), and its other three warps.
    assert r["roles"] == ["reduce.warp0", "reduce.warp1", "compute.warp4", "compute.warp5", "compute.warp8",
                          "compute.warp9", "mma.warp12", "load.warp13"]
    st = stops(r)
    assert not {line for line, _ in st.values()} & BWD_TILE_LOOPS
    assert r["flags"]["self.cta_schedule"] == 1 and r["flags"]["self.use_2cta_instrs"] == 0


def test_cluster_of_one_cta_and_the_leader_block(bwd):
    """DSL_CLUSTER_LAYOUT: `__call__`'s `self.num_mcast_ctas_b = cute.size(self.cluster_layout_vmnk
    .shape[1])` (772, in `__call__`'s `launch` lines) is 1, so `pipeline_Q`'s arrival counts are known
    and the load passes its commit at 2328 (it stopped there before) into the m-block loop;
    DSL_BLOCK_IDX: `is_leader_cta` (1329-1331) holds, so the MMA passes 2934 (a stop before) and
    its participant (`pipeline_Q.make_consumer()`, 2677) waits Q at 2945, issues S (2950) and dP
    (2959) and waits `pipeline_S_P.empty` at 2965 (the dV GEMM's), which the compute releases;
    DSL_TMA_ASYNC_SIGNAL and the bulk LSE copy (`mbar_ptr=`, 2333) let the compute pass
    `pipeline_LSE` (3566), where it waited before. DSL_TMEM_COPIES then binds the compute's stage
    loop (3638) and DSL_ASSERT_EQUALS its epilogue's (4840), so at the default knobs every role runs
    to its end."""
    attrs = bwd["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]
    assert [a["line"] for a in attrs["self.num_mcast_ctas_b"]] == [772]
    launch = bwd["kernel_layer"]["role_vars"][0]["constructor"]["launch"]
    assert launch[0] <= 772 <= launch[1]
    r = run(bwd)
    st = stops(r)
    assert 2328 not in {line for line, _ in st.values()} and 2934 not in {line for line, _ in st.values()}
    assert complete(r) and r["error"] is None


# Blocks of a run per lane, in order: (lane label, kind) (the MMA's first m-block up to the stop).
BLOCKS = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
const c = r.columns, L = r.lanes.map((l) => l.label), out = [];
for (let j = 0; j < c.n; j++) out.push([L[c.lane[j]], c.kinds[c.kind[j]], c.start[j]]);
process.stdout.write(JSON.stringify(out));
"""


def test_mma_issues_s_then_dp_and_the_load_fills_q_twice(bwd):
    """The MMA lane begins with two `umma` blocks (S = K Q^T at 2950, then dP = V dO^T at 2959, each
    after its raw `sync_object_empty.wait`, DSL_RAW_BARRIER_OPS); at the default knobs (4 m-blocks,
    one tile: SingleTileScheduler) it issues 5 GEMMs per m-block (S, dP, dV, dK, dQ: 20), the reduce
    warp 4 reduce-adds per m-block (16), and the Q and LSE rings' two stages fill twice each (the
    prologue's K + Q, 2321-2328, and the loop's Q of each further m-block, 2380-2382; the bulk LSE
    copies of 2333 and 2388)."""
    blocks = node_script(BLOCKS, bwd)
    mma = [k for lane, k, _ in blocks if lane == "mma.warp12"]
    assert mma[:3] == ["wait", "umma", "umma"] and mma.count("umma") == 20
    assert sum(1 for lane, k, _ in blocks if lane == "reduce.warp0" and k == "reduce") == 16
    fills = sorted(lane for lane, k, _ in blocks if k == "filling")
    assert fills == ["pipeline_LSE stage 0"] * 2 + ["pipeline_LSE stage 1"] * 2 + ["pipeline_Q stage 0"] * 2 + \
        ["pipeline_Q stage 1"] * 2 + ["pipeline_dO stage 0"] * 4 + ["pipeline_dPsum stage 0"] * 4


def test_a_two_cta_cluster_layout_is_not_guessed(bwd, tmp_path):
    """A mutated copy whose constructor makes the cluster two CTAs (`self.cluster_shape_mn = (2, 1)`):
    the cluster layout is not of size 1, so `num_mcast_ctas_b` is not known and the load stops at
    its first `pipeline_Q` commit again (2328), naming the arrival counts."""
    src = (fa4_dir() / "flash_bwd_sm100.py").read_text()
    old = "self.cluster_shape_mn = (cluster_size, 1)"
    assert src.count(old) == 1
    path = tmp_path / "flash_bwd_sm100.py"
    path.write_text(src.replace(old, "self.cluster_shape_mn = (2, 1)"))
    st = stops(run(parse_cutlass.parse_file(path)))
    assert st["load.warp13"] == (2328, "the arrival counts of `pipeline_Q` are not known")


def test_backward_without_the_scheduler_partial_stops_at_the_tile_loops(bwd, tmp_path):
    """A mutated copy whose scheduler partial binds another callable: every role stops at its tile
    loop again (the rule reads the scheduler class's create, nothing else)."""
    src = (fa4_dir() / "flash_bwd_sm100.py").read_text()
    old = "TileSchedulerCls = partial(self.tile_scheduler_cls.create, tile_sched_params)"
    assert src.count(old) == 1
    path = tmp_path / "flash_bwd_sm100.py"
    path.write_text(src.replace(old, "TileSchedulerCls = partial(self.make_scheduler, tile_sched_params)"))
    r = run(parse_cutlass.parse_file(path))
    assert r["stopped"] and {s["line"] for s in r["stopped"]} <= BWD_TILE_LOOPS


def test_latent_attention_warp_list_is_read(mla):
    """`self.empty_warp_ids = tuple(w for w, active in [...] if active)` (161-167) is a
    comprehension tree; the roles pass the empty-warp loops that index it (1100-1109) and the
    `warp_idx in self.softmax_warp_indices` branch (1232)."""
    tree = mla["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]["self.empty_warp_ids"][0]["expr"]
    assert tree[0] == "comp" and tree[2] == ["w", "active"] and tree[4] == [["id", "active"]]
    # At a setting its constructor accepts (DSL_CONSTRUCTOR_ASSERTS; tests/test_programs_fa4_mla.py
    # has where the roles get to): no role stops at those lines; two stop at the CTA-pair test.
    r = run(mla, flags={"pack_gqa": 1, "use_cpasync_load_KV": 1})
    st = stops(r)
    assert r["roles"] and not any(line in (1101, 1232) for line, _ in st.values())
    assert st["empty.warp10"][0] == 1096 and "block_idx_in_cluster" in st["empty.warp10"][1]


# Evaluates comprehension and membership trees (programs_dsl's forms) in a DSL context.
EVAL = r"""
const I = require(process.argv[1] + '/sim/interpret.js'), S = require(process.argv[1] + '/schedule.js');
const ctx = new I.Context({ kernel_layer: { program: { body: [] }, role_vars: [{ name: 'warp_idx', kind: 'warp_index',
  members: [0], spans: [[0, null]], branches: [] }] } }, {}, S.engine);
const out = (v) => (v instanceof I.Unknown ? 'unknown: ' + v.why : v && v.items ? v.items : v);
process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map((e) => out(I.evalExpr(e, {}, ctx, true)))));
"""


def test_comprehensions_and_membership_evaluate():
    """DSL_COMPREHENSIONS: a tuple item unpacks to the names and a condition filters it (the
    latent-attention warp list's shape, with the relay warp's flag on and the scheduler warp's
    off); DSL_MEMBERSHIP: `in` / `not in` of a number in a tuple; over a value the run does not
    know, both are Unknown with their reason (never a guess)."""
    def n(v):
        return ["n", v]

    def tup(*xs):
        return ["call", "tuple", list(xs)]
    trees = [
        ["comp", ["id", "w"], ["w", "active"], ["call", "list", [tup(n(11), n(1)), tup(n(10), n(0)),
                                                                 tup(n(9), ["un", "!", n(0)])]], [["id", "active"]]],
        ["comp", ["bin", "*", ["id", "x"], n(2)], ["x"], tup(n(1), n(2), n(3)), [["bin", "!=", ["id", "x"], n(2)]]],
        ["comp", ["id", "x"], ["x"], ["id", "xs"], []],
        ["bin", "in", n(2), tup(n(1), n(2))], ["bin", "not in", n(2), tup(n(1), n(2))],
        ["bin", "in", n(5), ["id", "xs"]],
    ]
    proc = subprocess.run([node(), "-e", EVAL, str(ROOT), json.dumps(trees)], capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(proc.stdout) == [
        [11, 9], [2, 6], "unknown: a comprehension over a value that is not a known tuple", 1, 0,
        "unknown: `in` of a value that is not a known tuple of numbers"]


# Lines of each role's blocks in order, per lane ("kind@line+line"), at the knobs of argv[2].
ORDER = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
const by = {};
S.blocksOf(r.columns).forEach((b) => {
  if (!/^role:/.test(b.lane)) return;
  (by[b.lane.slice(5)] = by[b.lane.slice(5)] || []).push(b.kind + "@" + b.lines.map((l) => l.line).join("+"));
});
process.stdout.write(JSON.stringify({ by, stopped: r.verdict.stopped, deadlock: r.deadlock ? r.deadlock.message : null }));
"""

# The compute's `num_stages = cute.size(tScS_t2r, mode=[1])` (3630): the mode-1 size of a TMEM load
# partition (copy_utils.make_tmem_copy over thr_mma_S.partition_C, 3332-3357), 2 by DSL_TMEM_COPIES.
# Some tests below still write that value in (the source's comment, ((32, 1), 2, 1, 1), 3357) so that
# their other mutations are what they test.
NUM_STAGES = "num_stages = cute.size(tScS_t2r, mode=[1])"


def mutated(tmp_path, *pairs):
    """A parse of a copy of flash_bwd_sm100.py with each (old, new) replaced (old occurring once)."""
    src = (fa4_dir() / "flash_bwd_sm100.py").read_text()
    for old, new in pairs:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    path = tmp_path / "flash_bwd_sm100.py"
    path.write_text(src)
    return parse_cutlass.parse_file(path)


def test_setup_if_tree_gives_the_dq_reduce_columns(bwd):
    """programs_dsl._attr_tree: `_setup_attributes`'s `if self.cta_schedule == TWO_CTA_SERIAL` /
    `else` (437-458), each arm an `if` / `else` assigning `self.dQ_reduce_ncol`, `self.sdQaccum_stage`
    and `self.dQ_reduce_ncol_t2r`, is one nested conditional per attribute (the `assert` of 447 is
    skipped); `self.sdQaccum_stage = 64 // self.dQ_reduce_ncol` (457) reads the path's own value."""
    attrs = bwd["kernel_layer"]["role_vars"][0]["constructor"]["attrs"]
    for name in ("self.dQ_reduce_ncol", "self.sdQaccum_stage", "self.dQ_reduce_ncol_t2r"):
        assert [a["line"] for a in attrs[name]] == [437], name
    tree = attrs["self.dQ_reduce_ncol"][0]["expr"]
    assert tree[0] == "?:" and tree[1] == ["bin", "==", ["member", ["id", "self"], "cta_schedule"],
                                           ["id", "CtaSchedule.TWO_CTA_SERIAL"]]
    assert tree[3] == ["?:", ["member", ["id", "self"], "use_2cta_instrs"],
                       ["?:", ["member", ["id", "self"], "deterministic"], ["n", 16], ["n", 8]], ["n", 32]]


def test_past_the_tmem_partition_one_tile_runs_to_its_end(bwd, tmp_path):
    """DSL_TMEM_COPIES binds `num_stages = cute.size(tScS_t2r, mode=[1])` (3630) to 2, the source's
    comment `((32, 1), 2, 1, 1)` (3357): tile_m 128 over a copy of Repetition(32) x num_wg 2 columns.
    One tile of 2 m-blocks of the installed file runs to its end: DSL_SELF_BARRIERS reads `self.compute_sync_barrier` (252-255) at 3678 / 3692 / 3723
    (before: "the named barrier's id is not known"), and DSL_TENSOR_SHAPES binds the reduce's
    stage loop (4229) to `cute.size(tdQrdQ, mode=[1])` = tile_hdim / dQ_reduce_ncol = 128 / 32 = 4.
    Each role's blocks, by line: the MMA's GEMMs in the code's order (S 2950, dP 2959, dV 2966; the
    loop's S 2997, dK 3015, dQ 3020, dP 3028, dV 3035; the tail's dK 3068, dQ 3074), the reduce's 4
    reduce-adds per m-block (4260) on the TMA warp, its other warps on the reduce barrier (4270)."""
    assert bwd["programs"] and NUM_STAGES in (fa4_dir() / "flash_bwd_sm100.py").read_text()
    r = node_script(ORDER, bwd, {"outputTiles": 1, "qBlocks": 2})
    assert complete(r), (r["stopped"], r["deadlock"])
    by = r["by"]
    assert by["mma.warp12"] == ["wait@2945"] + ["umma@%d" % n for n in (2950, 2959, 2966, 2997, 3015, 3020, 3028,
                                                                       3035, 3068, 3074)] + ["wait@1819"]
    # Its last block: `tmem_alloc_barrier.arrive_and_wait()` (1819) before `tmem.free`, which the compute and
    # reduce warps pass after their loops (`tmem_alloc_barrier.arrive()`, 1874, 1895; `TmemPtr`, 1398-1402).
    assert by["reduce.warp0"] == ["wait@4209"] + ["reduce@4260"] * 8   # the dQ reduce-adds (DSL_BULK_REDUCE)
    assert by["reduce.warp1"] == ["wait@4209"] + ["wait@4270"] * 8
    assert by["load.warp13"] == ["issue@2324+2327", "issue@2333", "issue@2349+2354", "issue@2362",
                                 "issue@2387", "issue@2393", "issue@2409", "issue@2417"]
    # Per m-block two exp stages (3647) and two dS stages (3732), after the LSE / S_P / dPsum / dP waits.
    assert [b for b in by["compute.warp4"] if b.startswith("math")] == ["math@3647", "math@3647", "math@3732",
                                                                        "math@3732"] * 2


def test_a_second_tile_per_cta_deadlocks_as_the_source_says(tmp_path):
    """The MMA's `producer_phase_acc` "is only consistent across one work tile per CTA" (the
    constructor's comment and `assert not is_persistent`, 191-193), and the code runs one:
    `__call__`'s SingleTileScheduler (922-927, `self.tile_scheduler_cls`, 959; DSL_SCHEDULER_CLASSES),
    so outputTiles 2 still draws one tile, to its end. On a mutated copy whose last arm is
    StaticPersistentTileScheduler (a CTA strides over tiles), the phase flips M + 1 times per tile,
    so with 2 m-blocks the second tile waits `pipeline_dP.empty` at phase 0 (2957), which no role
    releases on one CTA (the compute releases dP only with use_2cta_instrs, 3815-3818). The run
    follows the code; it does not paper over it. (While the compute stopped at its epilogue, 4840,
    the run never reached that wait; now it does.)"""
    st = mutated(tmp_path, (NUM_STAGES, "num_stages = 2"))
    r = node_script(ORDER, st, {"outputTiles": 2, "qBlocks": 2})
    assert complete(r), (r["stopped"], r["deadlock"])
    st = mutated(tmp_path, (NUM_STAGES, "num_stages = 2"), ("        else:\n            TileScheduler = SingleTileScheduler\n",
                                                            "        else:\n            TileScheduler = StaticPersistentTileScheduler\n"))
    r = node_script(ORDER, st, {"outputTiles": 2, "qBlocks": 2})
    assert not r["stopped"]
    assert "role:mma.warp12 waits on pipeline_dP.empty[0] (phase 0) at line 2957" in r["deadlock"]


def test_an_unknown_self_barrier_or_reduce_width_still_stops(tmp_path):
    """Negative cases on mutated copies: a `self.compute_sync_barrier` whose id the run does not know
    stops the compute at 3678, naming it; a `tdQrdQ_shape` whose second mode the run cannot evaluate (`... // self.pick_ncol()`, 4223-4226) is no
    known shape, so the reduce's stage loop is not bound (4229)."""
    st = mutated(tmp_path, (NUM_STAGES, "num_stages = 2"),
                 ("barrier_id=int(NamedBarrierBwdSm100.Compute)", "barrier_id=self.compute_barrier_id"))
    assert stops(run(st))["compute.warp4"] == (3678, "the named barrier's id is not known")
    st = mutated(tmp_path, (NUM_STAGES, "num_stages = 2"), ("self.tile_hdim // self.cta_group_size // self.dQ_reduce_ncol,",
                                                            "self.tile_hdim // self.cta_group_size // self.pick_ncol(),"))
    st_ = stops(run(st, outputTiles=1))
    assert st_["reduce.warp0"][0] == 4229 and "is not bound" in st_["reduce.warp0"][1]


def test_the_tmem_copy_width_sets_the_compute_stages(tmp_path):
    """DSL_TMEM_COPIES follows the source: a copy atom of Repetition(64) (a mutated copy) covers
    tile_m 128 in one copy of 64 x 2 columns, so each m-block has one exp stage (3647) and one dS
    stage (3732); an atom the rule does not read (Repetition(n) of a name) leaves the loop unbound,
    stopped at 3638."""
    old = "tcgen05.copy.Ld32x32bOp(tcgen05.copy.Repetition(32)), Float32\n            )\n            tmem_store_atom = cute.make_copy_atom(\n                tcgen05.copy.St32x32bOp(tcgen05.copy.Repetition(16))"
    st = mutated(tmp_path, (old, old.replace("Repetition(32)", "Repetition(64)", 1)))
    r = node_script(ORDER, st, {"outputTiles": 1, "qBlocks": 2})
    assert complete(r), (r["stopped"], r["deadlock"])
    assert [b for b in r["by"]["compute.warp4"] if b.startswith("math")] == ["math@3647", "math@3732"] * 2
    st = mutated(tmp_path, (old, old.replace("Repetition(32)", "Repetition(self.unknown_rep)", 1)))
    r = node_script(ORDER, st, {"outputTiles": 1, "qBlocks": 2})
    # (one stop per compute warpgroup: warps 4-7 and 8-11 are roles of their own, DSL_WARP_ROLES)
    assert [(s["role"], s["line"]) for s in r["stopped"]] == [("compute.warp4", 3638), ("compute.warp8", 3638)]


# The compute's TMA epilogue (`epilogue_dK_or_dV_tma`, 4711-4917), called for dV (3898, "V") then dK (3918, "K").
EPI_STAGES = "            num_epi_stages = cute.size(tdKVgdKV.shape[1])\n"


def epilogue_blocks(by, role):
    """The role's blocks from its last dS stage (3732) on: its epilogue's, by line."""
    blocks = by[role]
    last = max(i for i, b in enumerate(blocks) if b == "math@3732")
    return blocks[last + 1:]


def test_the_epilogue_runs_by_line(bwd):
    """DSL_ASSERT_EQUALS binds the stage loop of 4840 to `self.num_epi_stages` (4817), 1 at 16-bit dK
    (DSL_TENSOR_DTYPES; the page states the assumption, SOURCE_KNOB_ASSUMPTIONS elementBits). Per
    warpgroup (DSL_WARP_ROLES) the leader warp (4 for WG 1, 8 for WG 0) copies its half of dV, then of
    dK, with one TMA store each (4883), after the 128-thread barrier (4878) and before its arrive on
    the 160-thread one (4894); the other three warps wait for it there (4900: DSL_BARRIER_COUNTS, the
    one id at 128 then 160 threads). Then every role runs to its end and the MMA frees TMEM (1819)."""
    r = node_script(ORDER, bwd, {"outputTiles": 1, "qBlocks": 2})
    assert complete(r), (r["stopped"], r["deadlock"])
    for leader, others in (("compute.warp4", "compute.warp5"), ("compute.warp8", "compute.warp9")):
        assert epilogue_blocks(r["by"], leader) == ["store@4883", "store@4883"]
        assert epilogue_blocks(r["by"], others) == ["wait@4900", "wait@4900"]
    # A compute role's whole order, by line, at these knobs: per m-block the LSE / S_P waits (3566, 3574),
    # two exp stages (3647), the dPsum / dP waits (3709-3710, when they wait), two dS stages (3732); then
    # the epilogue (dV, then dK).
    m_blocks = ["wait@3566", "wait@3574", "math@3647", "math@3647", "math@3732", "math@3732",
                "wait@3574", "math@3647", "math@3647", "wait@3709", "wait@3710", "math@3732", "math@3732"]
    assert r["by"]["compute.warp4"] == m_blocks + ["store@4883", "store@4883"]
    assert r["by"]["compute.warp5"] == m_blocks + ["wait@4900", "wait@4900"]
    fit = node_script(FIT, bwd)
    assert any("dK dtype 16-bit (assumed, as FA4's interface.py" in a for a in fit)


# The program model's assumptions for the structure (stdin), as the page lists them.
FIT = r"""
const S = require(process.argv[1] + '/schedule.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(S.MODELS.program.assumptions(st)));
"""


def test_a_32_bit_dk_has_two_epilogue_stages(bwd):
    """elementBits 32 (a float32 dK): sdK_epi_tile's columns are gcd(128 // 4, 64) = 32 (621-623), so
    `self.num_epi_stages` is 64 // 32 = 2 (630; `num_epi_stages_v` the same, 625-631) and each leader
    warp stores two stages of dV and two of dK (4883), waiting for each stage's bulk group but the last (4891-4893: no blocks)."""
    r = node_script(ORDER, bwd, {"outputTiles": 1, "qBlocks": 2, "elementBits": 32})
    assert complete(r), (r["stopped"], r["deadlock"])
    assert epilogue_blocks(r["by"], "compute.warp4") == ["store@4883"] * 4
    assert epilogue_blocks(r["by"], "compute.warp5") == ["wait@4900"] * 4


def test_a_false_or_unknown_epilogue_assert_is_no_guess(tmp_path):
    """On mutated copies: a stage count written in as 2 makes the assert of the first call's arm
    false at 16-bit dV (4819, dV is stored first: `"V"`, 3898-3916; `self.num_epi_stages_v` is 1): the
    compute stops there, naming the assert and both values, never going on; an assert against a count the run does not know binds nothing, so the loop stays
    unbound (the old stop at 4840)."""
    st = mutated(tmp_path, (EPI_STAGES, "            num_epi_stages = 2\n"))
    st_ = stops(run(st, outputTiles=1, qBlocks=2))
    assert st_["compute.warp4"] == (4819, "the assert at line 4819 is false at this setting: `num_epi_stages` is 2, "
                                          "`self.num_epi_stages_v` is 1")
    old = "assert num_epi_stages == self.num_epi_stages_v, "
    st = mutated(tmp_path, (old, "assert num_epi_stages == self.epi_stage_count, "))
    st_ = stops(run(st, outputTiles=1, qBlocks=2))
    assert st_["compute.warp4"][0] == OLD_EPILOGUE_STOP and "is not bound" in st_["compute.warp4"][1]


TOY = ROOT / "tests" / "fixtures" / "dsl" / "toy_assert_epilogue.py"


def test_assert_equals_on_a_fixture():
    """DSL_ASSERT_EQUALS on a fixture of our own (tests/fixtures/dsl/toy_assert_epilogue.py): the
    parse keeps `assert num_stages == self.num_epi_stages` (45) and `assert self.tile_n % self.epi_cols
    == 0` (46) as `assert` call nodes (programs_dsl._read_assert); the run binds the unknown
    `num_stages` (44, a TMA partition's mode) to tile_n // epi_cols: 4 stores (50) at the default
    epi_cols 32, 2 at epi_cols 64 (a constructor parameter set by its name). At epi_cols 48 the
    second assert is false (128 % 48 = 32): the epilogue stops at 46, naming it, and its warps are
    one role (DSL_WARP_ROLES: warps of one span that stop at the same line before any op merge)."""
    st = parse_cutlass.parse_file(TOY)
    epi = next(f for f in st["programs"]["functions"] if f["name"] == "epilogue")
    asserts = [n for n in epi["body"] if n["node"] == "call" and n["name"] == "assert"]
    assert [(n["line"], n["args"][0][1]) for n in asserts] == [(45, "=="), (46, "==")]
    for cols, stores in ((32, 4), (64, 2)):
        r = node_script(ORDER, st, {"flags": {"epi_cols": cols}})
        assert complete(r), (r["stopped"], r["deadlock"])
        assert r["by"]["epilogue.warp0"] == ["wait@47"] + ["store@50"] * stores
    r = node_script(ORDER, st, {"flags": {"epi_cols": 48}})
    assert [(s["role"], s["line"], s["reason"]) for s in r["stopped"]] == [
        ("epilogue.warp0", 46, "the assert at line 46 is false at this setting: `self.tile_n % self.epi_cols` is 32, `0` is 0")]


def test_string_literals_compare_by_text():
    """DSL_STRING_LITERALS: `K_or_V == "K"` with the caller's `"K"` holds, with `"V"` it does not; a
    literal with an escape is not read (Unknown), and a long run of quotes is no work for the check."""
    def s(t):
        return ["?", t]
    trees = [["bin", "==", s('"K"'), s('"K"')], ["bin", "==", s('"K"'), s("'V'")], ["bin", "!=", s('"K"'), s('"V"')],
             ["bin", "==", s('"a\\"b"'), s('"a"')], ["bin", "==", s('"' * 5000), s('"')]]
    proc = subprocess.run([node(), "-e", EVAL, str(ROOT), json.dumps(trees)], capture_output=True, text=True,
                          timeout=120, check=True)
    out = json.loads(proc.stdout)
    assert out[:3] == [1, 0, 1] and all(str(v).startswith("unknown") for v in out[3:])


def test_the_complete_run_is_priced_on_b200(bwd, tmp_path):
    """Now that it runs complete, the prediction in cycles (`schedule.js predict --knob gpu=b200`)
    prices every latency class the run reads: the epilogue's TMA stores (storeLatency) among them,
    nothing unpriced."""
    path = tmp_path / "bwd.json"
    path.write_text(json.dumps(bwd))
    proc = subprocess.run([node(), str(ROOT / "schedule.js"), "predict", "--structure", str(path), "--knob", "gpu=b200"],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["deadlock"] is None and out["units"]["unpriced"] == []
    assert out["units"]["sources"]["storeLatency"] == "gpu" and out["time"]["cycles"] > 0
