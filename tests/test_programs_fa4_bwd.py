"""FlashAttention-4's CuTe DSL SM90 backward (flash_attn/cute/flash_bwd_sm90.py, installed) read
by programs_dsl.py and run by sim/interpret.js from its own role programs (docs/programs.md
"FlashAttention-4 SM90 backward (CuTe DSL)"): the producer's Q / LSE and dO / dPsum loads on
pipeline_Q and pipeline_dO, each MMA warpgroup's five GEMMs per m-block in the code's order with
their waits and releases, the dQ warp's accumulation through bulk reduce-adds, and the dK / dV
epilogue; the m-block loop's trip count is the qBlocks knob. Variants the run does not follow stop
their roles, named with their lines."""


import pytest

import parse_cutlass
from conftest import ROOT
from test_parser_dsl import fa4_dir
from node_util import node_script, program_sweep

# stdin: the structure; argv[2]: knobs. Prints the simulate() facts the tests read, the drawn
# blocks per role lane ([kind, reason, every source line]) and, per role, the op lines its dry run
# executes in program order (dslRoles' trace: every op node the role reaches, fused copies once,
# an MMA with wg_wait >= 0 twice: the job, then its wait_group).
RUN = r"""
const S = require(process.argv[1] + '/schedule.js'), I = require(process.argv[1] + '/sim/interpret.js');
const st = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const r = S.simulate(st, Object.assign({ model: 'program' }, JSON.parse(process.argv[2])));
const by = {};
for (const b of r.blocks) if (b.lane.startsWith('role:')) (by[b.lane.slice(5)] = by[b.lane.slice(5)] || []).push([b.kind, b.reason, b.lines.map((l) => l.line)]);
const ctx = new I.Context(st, r.knobs, S.engine), trace = {};
I.enumerateRoles(ctx).forEach((role) => { trace[role.name] = role.trace; });
process.stdout.write(JSON.stringify({ error: r.error || null, roles: r.verdict.roles, lanes: r.lanes.map((l) => l.label),
  stopped: r.verdict.stopped, deadlock: r.deadlock && r.deadlock.message, hazards: r.verdict.hazards, total: r.total,
  barriers: r.barriers.map((b) => [b.name, b.kind, b.expected]), by: by, trace: trace, mmaWaits: r.verdict.mmaWaits,
  knobs: S.knobsFor('program', st).map((k) => k.name) }));
"""


@pytest.fixture(scope="module")
def bwd():
    return parse_cutlass.parse_file(fa4_dir() / "flash_bwd_sm90.py")


def run(structure, **knobs):
    return node_script(RUN, structure, knobs)


def test_the_front_end_keeps_what_the_run_reads(bwd):
    """`consumer_state_Q, consumer_state_dO = mma_one_m_block_all(...)` (1387) is a let whose
    names only the next iteration reads: kept, since it calls a program; `self.mma(*mma_args,
    is_dQ_wg=True)` (844) passes the tuple of 805 starred; `epi_barrier` (1672), the receiver of
    the epilogue's named-barrier ops, keeps its let."""
    fns = {f["name"]: f for f in bwd["programs"]["functions"]}

    def steps(nodes):
        for n in nodes:
            yield n
            for key in ("init", "body", "step", "then", "else"):
                yield from steps(n.get(key) or [])
    mma = list(steps(fns["mma"]["body"]))
    call = [n for n in mma if n["node"] == "let" and n["line"] == 1387]
    assert call and call[0]["names"] == ["consumer_state_Q", "consumer_state_dO"] and call[0]["function"] == "mma_one_m_block"
    kernel = list(steps(bwd["kernel_layer"]["program"]["body"]))
    mma_calls = [n for n in kernel if n["node"] == "call" and n["name"] == "mma"]
    assert [n["args"][0] for n in mma_calls] == [["star", ["id", "mma_args"]]] * 3
    assert any(n["node"] == "let" and n["names"] == ["mma_args"] for n in kernel)
    epi = list(steps(fns["epilogue_dKV"]["body"]))
    assert any(n["node"] == "let" and n["names"] == ["epi_barrier"] and n["line"] == 1672 for n in epi)


def test_roles_rings_and_knobs(bwd):
    """Roles: the producer warp 0 (`self.load`, 767), the dQ warp 1 (`self.dQaccum_store`, 793:
    its own lane), and one role per MMA warpgroup (`self.mma`, 844; num_wg_mma = 384 // 128 - 1 = 2,
    97-104). Rings: pipeline_Q and pipeline_dO (PipelineTmaAsync, 694, 702) with the code's
    Q_stage / dO_stage of 2 (60-61), each empty barrier released by both warpgroups. The run
    reads qBlocks (the m-block loop), not kvBlocks or the stage knob."""
    out = run(bwd, qBlocks=2, outputTiles=1)
    assert out["error"] is None
    assert out["roles"] == ["producer.warp0", "producer.warp1", "consumer.WG1", "consumer.WG2"]
    assert [lane for lane in out["lanes"] if " stage " in lane] == [
        "pipeline_Q stage 0", "pipeline_Q stage 1", "pipeline_dO stage 0", "pipeline_dO stage 1"]
    bars = {name: (kind, expected) for name, kind, expected in out["barriers"]}
    assert bars["pipeline_Q.empty[0]"] == ("empty", 2) and bars["pipeline_dO.empty[1]"] == ("empty", 2)
    assert "qBlocks" in out["knobs"] and "kvBlocks" not in out["knobs"] and "stages" not in out["knobs"]
    assert out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []


def mblock_ops():
    """The op lines of one m-block of mma_one_m_block (1515-1648) at the default flags."""
    return [1524, 1524, 1525,            # Q: consumer_try_wait, consumer_wait; S = Q K^T (wg_wait=-1)
            1530, 1529, 1532, 1532,      # dO: try_wait, wait; dP = dO V^T, wait_group(1)
            1564, 1585,                  # wait_group(0) before dS; PdS barrier (P in smem)
            1592, 1600,                  # dV += P^T dO; PdS barrier (dS in smem)
            1604, 1604, 1605,            # dQ = dS K, wait_group(1); release dO
            1609, 1609,                  # dK += dS^T Q, wait_group(1)
            1617, 1626,                  # dQEmptyWG sync, dQFullWG arrive (the dQ hand-off)
            1631, 1632]                  # wait_group(0); release Q


@pytest.mark.parametrize("m", [1, 3])
def test_per_role_op_order_by_source_line(bwd, m):
    """One tile, m Q blocks. Producer: acquire Q (960), K + Q (963-964), LSE (967), acquire dO
    (973), V + dO + dPsum (976-978), then per further block Q + LSE (983-985) and dO + dPsum
    (991-993). dQ warp per block: for each warpgroup's chunk wait_group + dQEmpty arrive (1871,
    1874), then for each dQFull sync, commit (1897, 1908); the final wait_group (1955). Each
    MMA warpgroup per block: mblock_ops; then the epilogue (1708-1723), whose TMA stores (1714,
    1722) only warp 4 (WG1) issues, and WG1's last wait_group (1472)."""
    out = run(bwd, qBlocks=m, outputTiles=1)
    assert out["stopped"] == [] and out["deadlock"] is None
    tr = out["trace"]
    assert tr["producer.warp0"] == [960, 963, 963, 967, 973, 976, 976] + [983, 984, 991, 992] * (m - 1)
    assert tr["producer.warp1"] == [1871, 1874, 1871, 1874, 1897, 1908, 1897, 1908] * m + [1955]
    epi = [1708, 1709, 1712, 1714, 1715, 1716, 1717, 1720, 1722, 1723]
    assert tr["consumer.WG1"] == mblock_ops() * m + epi + [1472]
    assert tr["consumer.WG2"] == mblock_ops() * m + [n for n in epi if n not in (1714, 1715, 1722, 1723)]
    by = out["by"]
    # The five GEMMs per m-block, in the code's order: S, dP, dV, dQ, dK (each WG its own jobs).
    for wg in ("consumer.WG1", "consumer.WG2"):
        assert [lines[0] for kind, _r, lines in by[wg] if kind == "wgmma"] == [1525, 1532, 1592, 1604, 1609] * m
    assert [lines for kind, _r, lines in by["consumer.WG1"] if kind == "store"] == [[1714], [1722]]
    assert not [b for b in by["consumer.WG2"] if b[0] == "store"]
    # The dQ accumulation: one bulk reduce-add (1903, a `reduce` block, DSL_BULK_REDUCE) per
    # warpgroup chunk per m-block, on its own lane; no store block there.
    assert [lines for kind, _r, lines in by["producer.warp1"] if kind == "reduce"] == [[1903]] * 2 * m
    assert not [b for b in by["producer.warp1"] if b[0] == "store"]
    issues = [lines for kind, _r, lines in by["producer.warp0"] if kind == "issue"]
    assert issues == [[963, 964], [967], [976, 977, 978]] + [[984, 985], [992, 993]] * (m - 1)


def test_the_dq_hand_off_counts_warps(bwd):
    """dQEmptyWG0 + i and dQFullWG0 + i (1617, 1626, 1874, 1897) have 128 + 32 threads: one MMA
    warpgroup and the dQ warp, counted in warps (5 arrivals: 4 + 1); PdS and Epilogue (1267,
    1672) are the two warpgroups' (2). The dQ warp waits only on the dQFull barriers (the first
    warpgroup's at least: the second's chunk may be written while the first is reduced)."""
    out = run(bwd, qBlocks=3, outputTiles=2)
    bars = {name: expected for name, kind, expected in out["barriers"] if kind == "named"}
    assert bars == {"dQEmptyWG0": 5, "dQEmptyWG0+1": 5, "dQFullWG0": 5, "dQFullWG0+1": 5, "PdS": 2, "Epilogue": 2}
    waits = {r for kind, r, _lines in out["by"]["producer.warp1"] if kind == "wait"}
    assert "dQFullWG0" in waits and waits <= {"dQFullWG0", "dQFullWG0+1"}
    assert out["mmaWaits"]["consumer.WG1"].get("tma", 0) > 0


def test_seeded_sweep_never_deadlocks(bwd):
    """FA4's backward runs on hardware: its own program must finish with no deadlock, stop or
    hazard, for 1-3 MMA warpgroups, 1-4 tiles, 1-7 Q blocks and random latencies."""
    out = program_sweep(bwd, {"outputTiles": [1, 4], "qBlocks": [1, 7], "consumerWGs": [1, 3], "tmaLatency": [0, 9],
                              "wgmmaLatency": [0, 7], "storeLatency": [0, 6], "reduceLatency": [0, 6], "mathLatency": [0, 5],
                              "epilogueLatency": [0, 9]}, seed=20, runs=60)
    assert out["runs"] == 60
    assert out["badCount"] == 0, out["bad"]


def test_variants_stop_named(bwd):
    """What the run does not follow stops the role at its line, never a silent run: causal
    masking (get_m_block_min_max depends on n_block, block_info.py 86-95: the producer's m-block
    loop, 982), block sparsity (`if process_tile` on get_total_q_block_count_bwd, 957, 1370,
    1861: every role stops, none is dropped)."""
    causal = run(bwd, qBlocks=3, flags={"self.is_causal": 1})
    assert {(s["role"], s["line"]) for s in causal["stopped"]} >= {("producer.warp0", 982)}
    sparse = run(bwd, qBlocks=3, flags={"self.use_block_sparsity": 1})
    assert sorted(s["role"] for s in sparse["stopped"]) == ["consumer.WG1", "consumer.WG2", "producer.warp0",
                                                             "producer.warp1"]
    assert {s["line"] for s in sparse["stopped"]} == {957, 1370, 1861}
    assert all("get_total_q_block_count_bwd" in s["reason"] for s in sparse["stopped"])


def test_the_schedule_follows_the_code(bwd, tmp_path):
    """A copy of the file written at test time with the Q release (1632) taken out: the
    producer's third Q acquire (983, stage 0 again) waits for ever on pipeline_Q's empty
    barrier; with the dO release (1605) moved after the Q release, the run follows it there (1633)
    and still finishes."""
    src = (fa4_dir() / "flash_bwd_sm90.py").read_text().splitlines(keepends=True)
    assert src[1631].strip() == "pipeline_Q.consumer_release(consumer_state_Q)"
    assert src[1604].strip().startswith("pipeline_dO.consumer_release(consumer_state_dO_cur)")
    no_release = src[:1631] + ["            pass\n"] + src[1632:]
    path = tmp_path / "flash_bwd_sm90.py"
    path.write_text("".join(no_release))
    out = run(parse_cutlass.parse_file(path), qBlocks=3, outputTiles=1)
    assert out["stopped"] == [] and out["deadlock"] and "pipeline_Q.empty[0]" in out["deadlock"]
    # Both lines sit at the same depth (the `if const_expr(is_dQ_wg)` arm, 1602-1632).
    moved = src[:1604] + ["            pass\n"] + src[1605:1632] + [src[1604]] + src[1632:]
    path.write_text("".join(moved))
    out = run(parse_cutlass.parse_file(path), qBlocks=1, outputTiles=1)
    assert out["stopped"] == [] and out["deadlock"] is None
    wg = out["trace"]["consumer.WG1"]
    assert wg[wg.index(1631):wg.index(1631) + 3] == [1631, 1632, 1633]


def test_the_single_tile_scheduler_runs_one_tile_per_cta(bwd, tmp_path):
    """DSL_SCHEDULER_CLASSES: `__call__` picks SingleTileScheduler without varlen K or
    `deterministic` (519-524), passed to the kernel's `TileScheduler: cutlass.Constexpr[Callable]`
    (612, 667; programs_dsl.kernel_args): one tile per CTA (tile_scheduler.py 325-327), so
    outputTiles is no knob and 1 or 3 draw the same run. With `deterministic` (knobs.flags) the
    class is SingleTileLPTBwdScheduler, single too (853-856); on a mutated copy with
    StaticPersistentTileScheduler in the last arm, a CTA runs outputTiles tiles again."""
    assert bwd["kernel_layer"]["role_vars"][0]["constructor"]["kernel_args"]["TileScheduler"]["line"] > 0
    one, three = run(bwd, qBlocks=2, outputTiles=1), run(bwd, qBlocks=2, outputTiles=3)
    assert "outputTiles" not in one["knobs"]
    assert one["stopped"] == [] and one["total"] == three["total"] and one["by"] == three["by"]
    det = run(bwd, qBlocks=2, outputTiles=3, flags={"self.deterministic": 1})
    assert det["stopped"] == [] and det["total"] == one["total"]
    src = (fa4_dir() / "flash_bwd_sm90.py").read_text()
    old = "        else:\n            TileScheduler = SingleTileScheduler\n"
    assert src.count(old) == 1
    path = tmp_path / "flash_bwd_sm90.py"
    path.write_text(src.replace(old, old.replace("SingleTileScheduler", "StaticPersistentTileScheduler")))
    st = parse_cutlass.parse_file(path)
    one, three = run(st, qBlocks=2, outputTiles=1), run(st, qBlocks=2, outputTiles=3)
    assert "outputTiles" in one["knobs"] and three["stopped"] == [] and three["total"] > one["total"]
