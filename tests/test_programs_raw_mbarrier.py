"""Raw-mbarrier kernels run from their own `__global__` program (docs/programs.md "Raw mbarrier
kernels (DeepGEMM)"): on fixtures written for this project in the style of DeepGEMM's SM90
BF16 GEMM (tests/fixtures/raw_mbarrier_gemm_sm90.cuh) and FP8 1D1D GEMM
(tests/fixtures/raw_mbarrier_fp8_gemm_sm90.cuh), on mutated copies of them, and, when
DEEPGEMM_PATH names a DeepGEMM checkout or bare git directory, on the real
deep_gemm/include/deep_gemm/impls/sm90_bf16_gemm.cuh and sm90_fp8_gemm_1d1d.cuh; when FLASHMLA_PATH
names a FlashMLA checkout, the stop of its SM90 decode (csrc/sm90/decode/dense/splitkv_mla.cuh)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import node_util  # noqa: E402
import parse_cutlass  # noqa: E402
from node_util import lane_blocks, program_run, program_steps  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "raw_mbarrier_gemm_sm90.cuh"
FP8 = ROOT / "tests" / "fixtures" / "raw_mbarrier_fp8_gemm_sm90.cuh"
TOY = ROOT / "tests" / "fixtures" / "raw_mbarrier_ring_gemm.cuh"
REAL = "deep_gemm/include/deep_gemm/impls/sm90_bf16_gemm.cuh"
REAL_FP8 = "deep_gemm/include/deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh"
REAL_MLA = "csrc/sm90/decode/dense/splitkv_mla.cuh"
KNOBS = {"stages": 4, "outputTiles": 2, "kTiles": 3, "tmaLatency": 4, "wgmmaLatency": 1, "epilogueLatency": 3,
         "storeLatency": 2, "consumerWGs": 2}

# Every ring op the roles run, with its stage and parity as evaluated and its arrival count.
TRACE = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js"), I = require(root + "/sim/interpret.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const log = [];
Object.keys(I.MBAR_OPS).forEach(function (op) {
  const f = I.MBAR_OPS[op];
  I.MBAR_OPS[op] = function (rr, node, env) {
    const stage = node.index ? rr.eval(node.index, env, false) : null;
    const parity = op === "barrier_wait" ? rr.eval(node.args[0], env, false) : null;
    const c = f(rr, node, env);
    if (!rr.run.dry) log.push({ role: rr.role.name, op: op, line: node.line, stage: stage, parity: parity,
      count: op === "barrier_arrive" && c ? c.count : null, tile: rr.currentTile() });
    return c;
  };
});
const r = I.run(input.structure, input.knobs, S.engine, {});
process.stdout.write(JSON.stringify({ log: log, error: r.error || null, deadlock: r.deadlock && r.deadlock.message,
  stopped: r.stopped || [], barriers: (r.barriers || []).map((b) => [b.name, b.expected]) }));
"""


def trace(structure, **knobs):
    """The ring ops of a run, in the order the roles ran them (TRACE)."""
    proc = subprocess.run([node_util.node(), "-e", TRACE, str(ROOT)],
                          input=json.dumps({"structure": structure, "knobs": dict(KNOBS, **knobs)}),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def line_of(path, needle, nth=0):
    """1-based line of the nth occurrence of needle in a file."""
    return [i + 1 for i, t in enumerate(Path(path).read_text().splitlines()) if needle in t][nth]


@pytest.fixture(scope="module")
def fixture():
    return parse_cutlass.parse_file(FIXTURE)


@pytest.fixture(scope="module")
def fp8():
    return parse_cutlass.parse_file(FP8)


def mutated(tmp_path, old, new, source=FIXTURE):
    """A fixture with one edit, parsed (the edit must apply)."""
    text = source.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / source.name
    path.write_text(text.replace(old, new))
    return parse_cutlass.parse_file(path)


def per_role(log, role, tile=0):
    """(op, line, stage, parity, count) of one role's ops on one output tile."""
    return [(e["op"], e["line"], e["stage"], e["parity"], e["count"]) for e in log if e["role"] == role and e["tile"] == tile]


def test_front_end_reads_the_kernel_as_a_program(fixture, validate):
    validate(fixture)
    assert fixture["warnings"] == [] and fixture["kernel_layer"] is None
    prog = fixture["programs"]["functions"][0]
    assert prog["global"] is True
    steps = program_steps(prog["body"])
    lets = {n["names"][0]: n for n in steps if n["node"] == "let"}
    line = line_of(FIXTURE, "uint32_t stage_idx = 0, phase = 0;")
    assert (lets["stage_idx"]["expr"], lets["phase"]["expr"], lets["phase"]["line"]) == (["n", 0], ["n", 0], line)
    loops = [n for n in steps if n["node"] == "loop" and n["kind"] == "for" and "advance_pipeline" in n["text"]]
    assert len(loops) == 2 and all(lp["step"][0]["lambda"] == "advance_pipeline@" + str(line_of(FIXTURE, "auto advance_pipeline"))
                                   for lp in loops)
    waits = [(n["line"], n["ring"], n["index"], n["args"]) for n in steps if n["node"] == "op" and n["op"] == "barrier_wait"]
    assert waits == [(line_of(FIXTURE, "empty_barriers[stage_idx]->wait"), "empty_barriers", ["id", "stage_idx"],
                      [["bin", "^", ["id", "phase"], ["n", 1]]]),
                     (line_of(FIXTURE, "full_barriers[stage_idx]->wait"), "full_barriers", ["id", "stage_idx"], [["id", "phase"]])]
    lambdas = {lam["name"]: lam for lam in prog["lambdas"]}
    adv = lambdas["advance_pipeline"]["body"]
    assert [(n["name"], n["op"]) for n in adv] == [("k_block_idx", "++"), ("stage_idx", "="), ("phase", "^=")]
    guard = lambdas["release"]["body"][0]
    assert guard["node"] == "if" and guard["cond"] == ["bin", "==", ["id", "lane_idx"], ["n", 0]]
    assert guard["then"][0]["op"] == "barrier_arrive" and guard["then"][0]["method"] == "arrive"
    rings = {p["alias"]: p["ring"] for p in fixture["pipelines"]}
    assert rings["full_barriers"]["init"] == "1"
    assert rings["empty_barriers"]["init"] == "kNumTMAMulticast * kNumMathThreads / 32"
    assert rings["empty_barriers"]["init_line"] == line_of(FIXTURE, "empty_barriers[s]->init")


def test_roles_are_the_warps_that_reach_ops(fixture):
    out = program_run(fixture, KNOBS)
    assert out["roles"] == ["Consumer.WG0", "Consumer.WG1", "Producer.WG2.warp2"] and out["idle"] == []
    assert out["stopped"] == [] and out["deadlock"] is None
    one = program_run(fixture, dict(KNOBS, consumerWGs=1))
    assert one["roles"] == ["Consumer.WG0", "Producer.WG1.warp2"]


def test_op_order_along_the_k_tiles(fixture):
    got = trace(fixture)
    assert got["error"] is None and got["stopped"] == [] and got["deadlock"] is None
    L = lambda needle: line_of(FIXTURE, needle)  # noqa: E731
    wait_e, copy_a, copy_b = L("empty_barriers[stage_idx]->wait"), L("tma::copy"), L("tma::copy<BLOCK_K, BLOCK_N")
    expect, wait_f, mma, release = L("arrive_and_expect_tx"), L("full_barriers[stage_idx]->wait"), L("WGMMA::wgmma"), L("empty_barriers[s]->arrive()")
    # One k-tile of the producer: wait for the consumers' release (parity phase ^ 1), the two copies
    # onto the stage's full barrier (consecutive copies are one step, fused: both lines), one arrival
    # (the elected thread) with the transaction.
    producer = per_role(got["log"], "Producer.WG2.warp2")
    assert producer[:3] == [("barrier_wait", wait_e, 0, 1, None), ("tma_load", copy_a, 0, None, None),
                            ("barrier_arrive", expect, 0, None, 1)]
    assert copy_b == copy_a + 1
    assert [e[2] for e in producer if e[0] == "barrier_wait"] == [0, 1, 2]
    # The next tile goes on around the ring: stage 3, then stage 0 with the phase flipped.
    second = per_role(got["log"], "Producer.WG2.warp2", tile=1)
    assert [(e[2], e[3]) for e in second if e[0] == "barrier_wait"] == [(3, 1), (0, 0), (1, 0)]
    for wg in ("Consumer.WG0", "Consumer.WG1"):
        ops = per_role(got["log"], wg)
        # Wait for the stage's data (parity phase), BLOCK_K / WGMMA::K = 4 WGMMAs, then one arrival
        # per warp of the warpgroup (`lane_idx == 0 ? ... : void()`).
        assert ops[:6] == [("barrier_wait", wait_f, 0, 0, None)] + [("mma", mma, None, None, None)] * 4 + \
            [("barrier_arrive", release, 0, None, 4)]
        assert [(e[2], e[3]) for e in per_role(got["log"], wg, tile=1) if e[0] == "barrier_wait"] == [(3, 0), (0, 1), (1, 1)]
    # full: init(1) plus the transaction; empty: init(kNumTMAMulticast * kNumMathThreads / 32), one per math warp.
    assert dict(got["barriers"])["full_barriers.full[0]"] == 2 and dict(got["barriers"])["full_barriers.empty[0]"] == 8
    assert dict(trace(fixture, consumerWGs=1)["barriers"])["full_barriers.empty[0]"] == 4


def test_blocks_per_kind_for_small_knobs(fixture):
    out = program_run(fixture, dict(KNOBS, stages=2, outputTiles=1, kTiles=3))
    count = {}
    for b in out["blocks"]:
        key = (b["lane"], b["kind"])
        count[key] = count.get(key, 0) + 1
    assert count[("role:Producer.WG2.warp2", "issue")] == 3     # one transaction per k-tile
    assert count[("full_barriers.stage0", "filling")] == 2 and count[("full_barriers.stage1", "filling")] == 1
    for wg in ("role:Consumer.WG0", "role:Consumer.WG1"):
        assert count[(wg, "wgmma")] == 12                        # 3 k-tiles x 4 WGMMAs
    assert count[("role:Consumer.WG0", "store")] == 1            # the first warp's threads store D
    assert ("role:Consumer.WG1", "store") not in count
    assert out["total"] > 0 and out["stopped"] == [] and out["deadlock"] is None and out["hazards"] == []


def test_a_sweep_runs_without_deadlock_or_stop(fixture):
    got = node_util.program_sweep(fixture, {"stages": [1, 8], "outputTiles": [1, 4], "kTiles": [1, 9], "tmaLatency": [0, 9],
                                            "wgmmaLatency": [1, 5], "storeLatency": [0, 4], "consumerWGs": [1, 2]}, 11, 40)
    assert got["badCount"] == 0, got["bad"]


def test_the_stage_count_is_the_code_s(fixture):
    # kNumStages = kNumStages_ / kMerge with kMerge 2 from 10 stages with one math warpgroup.
    out = program_run(fixture, dict(KNOBS, stages=10, consumerWGs=1))
    assert [x for x in out["lanes"] if x.startswith("full_barriers.stage")] == [f"full_barriers.stage{s}" for s in range(5)]
    assert len([x for x in program_run(fixture, dict(KNOBS, stages=10))["lanes"] if x.startswith("full_barriers.stage")]) == 10


@pytest.mark.parametrize("old,new", [
    ("empty_barriers[stage_idx]->wait(phase ^ 1)", "empty_barriers[stage_idx]->wait(phase)"),   # waits for a release never made
    ("landing.arrive_and_expect_tx(kBytesA + kBytesB);", ""),                                  # the full barrier misses its arrival
    ("empty_barriers[s]->init(kNumTMAMulticast * kNumMathThreads / 32)", "empty_barriers[s]->init(kNumMathThreads / 16)"),
], ids=["no_parity_flip", "no_expect_tx", "double_empty_count"])
def test_a_broken_protocol_deadlocks(tmp_path, old, new):
    out = program_run(mutated(tmp_path, old, new), KNOBS)
    assert out["stopped"] == [] and out["deadlock"] is not None, out["total"]


def test_an_arrive_under_a_thread_test_stops_named(tmp_path):
    m = mutated(tmp_path, "lane_idx == 0 ? empty_barriers[s]->arrive() : void();", "lane_idx < 2 ? empty_barriers[s]->arrive() : void();")
    out = program_run(m, KNOBS)
    line = line_of(FIXTURE, "empty_barriers[s]->arrive()")
    assert {(s["line"], s["reason"]) for s in out["stopped"]} == {(line, "the arrivals under `lane_idx < 2 ? empty_barriers[s]->arrive() : void()` are not counted")}


def test_no_role_names_the_dry_runs_stop(tmp_path):
    """When every warp's dry run stops before its first op (as DeepGEMM's FP8 1D1D GEMM did while
    its k loops' trip count read a template parameter with no value, 210 and 268), the run says
    where, not only that no role reaches a step: the first warp that stopped (warp 0, a math warp,
    at its k loop)."""
    text = FIXTURE.read_text()
    loop = "k_block_idx < num_total_k_blocks; advance_pipeline(k_block_idx)"
    assert text.count(loop) == 2
    path = tmp_path / FIXTURE.name
    path.write_text(text.replace(loop, "k_block_idx < kUnboundBlocks; advance_pipeline(k_block_idx)"))
    out = program_run(parse_cutlass.parse_file(path), KNOBS)
    math_loop = line_of(path, "k_block_idx < kUnboundBlocks", nth=1)
    assert out["error"] == ("no role of the kernel layer reaches a step: the dry runs stopped first (warp 0 at line "
                            f"{math_loop}: the trip count of `for (uint32_t k_block_idx = 0; k_block_idx < kUnboundBlocks; "
                            "advance_pipeline(k_block_idx))` is not bound)"), out


# ------------------------------------------------------------------------------------------------
# The FP8 1D1D style: a K-block template parameter, CUTE_TIE_DECL of a tuple-returning lambda,
# scale-factor copies, the FP8 WGMMA atom, a per-warpgroup named barrier, a reduce-add store
# ------------------------------------------------------------------------------------------------


def test_fp8_front_end_reads_the_tie_and_the_value_lambda(fp8, validate):
    validate(fp8)
    assert fp8["warnings"] == []
    prog = fp8["programs"]["functions"][0]
    assert prog["aliases"]["WGMMA"] == "mma::sm90::FP8MMASelector<BLOCK_N>::type"
    steps = program_steps(prog["body"])
    tie = line_of(FP8, "CUTE_TIE_DECL(ring_at(iter ++), stage_idx, phase);")
    lam = "ring_at@" + str(line_of(FP8, "const auto ring_at"))
    # The binding reads the counter's value, then the counter steps (`iter ++`).
    at = [i for i, n in enumerate(steps) if n.get("line") == tie]
    assert [steps[i] for i in at[:2]] == [
        {"node": "let", "names": ["stage_idx", "phase"], "type": "auto", "expr": ["call", "ring_at", [["id", "iter"]]],
         "lambda": lam, "line": tie}, {"node": "set", "name": "iter", "op": "++", "line": tie}]
    ring_at = {x["key"]: x for x in prog["lambdas"]}[lam]
    # The braced return of a tuple-returning lambda is the tuple of its items.
    assert ring_at["body"] == [{"node": "return", "line": line_of(FP8, "return {n % kNumStages"), "expr": [
        "call", "cute::make_tuple", [["bin", "%", ["id", "n"], ["id", "kNumStages"]],
                                     ["bin", "&", ["bin", "/", ["id", "n"], ["id", "kNumStages"]], ["n", 1]]]]}]


def test_fp8_ring_ops_along_the_k_tiles(fp8):
    got = trace(fp8)
    assert got["error"] is None and got["stopped"] == [] and got["deadlock"] is None
    L = lambda needle: line_of(FP8, needle)  # noqa: E731
    wait_e, copy_sa, expect = L("empty_barriers[stage_idx]->wait"), L("tma::copy<BLOCK_M, BLOCK_K, 0>"), L("arrive_and_expect_tx")
    wait_f, mma, release = L("full_barriers[stage_idx]->wait"), L("WGMMA::wgmma"), L("empty_barriers[s]->arrive()")
    # The lane-0 TMA warp (warp_idx == kNumMathThreads / 32) loads; its four copies (two scale
    # factors, A, B) are one step; stage and parity come from the one counter through ring_at.
    producer = per_role(got["log"], "Producer.WG2.warp0")
    assert producer[:3] == [("barrier_wait", wait_e, 0, 1, None), ("tma_load", copy_sa, 0, None, None),
                            ("barrier_arrive", expect, 0, None, 1)]
    assert [(e[2], e[3]) for e in per_role(got["log"], "Producer.WG2.warp0", tile=1) if e[0] == "barrier_wait"] == \
        [(3, 1), (0, 0), (1, 0)]
    for wg in ("Consumer.WG0", "Consumer.WG1"):
        # BLOCK_K 128 over the FP8 atom's K 32: four WGMMAs; `threadIdx.x % 32` is the lane, so the
        # release under `lane_idx == 0` is one arrival per warp.
        assert per_role(got["log"], wg)[:6] == [("barrier_wait", wait_f, 0, 0, None)] + [("mma", mma, None, None, None)] * 4 + \
            [("barrier_arrive", release, 0, None, 4)]
        assert [(e[2], e[3]) for e in per_role(got["log"], wg, tile=1) if e[0] == "barrier_wait"] == [(3, 0), (0, 1), (1, 1)]
    # The math warps' trip count is ceil_div(shape_k, BLOCK_K): kTiles k-blocks per tile.
    assert len([e for e in got["log"] if e["role"] == "Consumer.WG0" and e["op"] == "barrier_wait"]) == KNOBS["outputTiles"] * KNOBS["kTiles"]


def test_fp8_roles_stores_and_named_barriers(fp8):
    out = program_run(fp8, dict(KNOBS, outputTiles=1, reduceLatency=2))
    assert out["roles"] == ["Consumer.WG0", "Consumer.WG1", "Producer.WG2.warp0"] and out["stopped"] == []
    # Each math warpgroup's first warp stores D with the reduce-add TMA store: one reduce block each.
    assert [b["lines"] for b in lane_blocks(out, "role:Consumer.WG1", "reduce")] == [[line_of(FP8, "SM90_TMA_REDUCE_ADD_2D::copy")]]
    assert program_run(fp8, dict(KNOBS, consumerWGs=1))["roles"] == ["Consumer.WG0", "Producer.WG1.warp0"]


def test_named_barrier_waits_read_their_number(fixture):
    # `NamedBarrier::sync(kStoreThreads, 0)` of both math warpgroups: the wait of the first to arrive reads `named barrier 0`.
    out = program_run(fixture, dict(KNOBS, wgmmaLatency=3))
    reasons = {b["reason"] for b in out["blocks"] if b["kind"] == "wait" and b["lines"] == [line_of(FIXTURE, "NamedBarrier::sync", nth=0)]}
    assert reasons == {"named barrier 0"}


def test_fp8_sweep(fp8):
    got = node_util.program_sweep(fp8, {"stages": [1, 8], "outputTiles": [1, 4], "kTiles": [1, 9], "tmaLatency": [0, 9],
                                        "wgmmaLatency": [1, 5], "storeLatency": [0, 4], "consumerWGs": [1, 2]}, 13, 30)
    assert got["badCount"] == 0, got["bad"]


def test_fp8_a_counter_stepped_twice_deadlocks(tmp_path):
    # The math warps' binding steps the counter twice: they wait on every other stage, whose data
    # the producer fills in order, so the producer waits for a release that never comes.
    m = mutated(tmp_path, "                CUTE_TIE_DECL(ring_at(iter ++), stage_idx, phase);\n                full_barriers",
                "                CUTE_TIE_DECL(ring_at(iter ++), stage_idx, phase);\n                ++ iter;\n                full_barriers", FP8)
    out = program_run(m, KNOBS)
    assert out["stopped"] == [] and out["deadlock"] is not None


def test_a_warpgroup_index_role_variable_stops_named(tmp_path):
    """Roles from a warpgroup index with no warp index (FlashMLA's SM90 decode, splitkv_mla.cuh
    975) are not laid out: the run's error names the variable and its line."""
    m = mutated(tmp_path, "const uint32_t warp_idx = __shfl_sync(0xffffffff, threadIdx.x / 32, 0);",
                "const uint32_t warp_idx = threadIdx.x / 128;")
    out = program_run(m, KNOBS)
    line = line_of(FIXTURE, "const uint32_t warp_idx = __shfl_sync")
    assert out["error"] == ("no role of the kernel layer reaches a step: the kernel's roles come from the warpgroup index "
                            f"`warp_idx` (line {line}), not a warp index (`threadIdx.x / 32`): not modelled yet")


COVERS = r"""
const root = process.argv[1];
const I = require(root + "/sim/interpret.js"), S = require(root + "/schedule.js");
const sts = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(sts.map((st) => {
  const r = S.simulate(st, { model: "program" });
  return { covers: I.mbarCovers(st), total: r.verdict ? r.verdict.total : null, error: r.error || null };
})));
"""


def test_the_program_model_covers_it_and_not_the_toy_ring(fixture):
    proc = subprocess.run([node_util.node(), "-e", COVERS, str(ROOT)], input=json.dumps([fixture, parse_cutlass.parse_file(TOY)]),
                          capture_output=True, text=True, timeout=300, check=True)
    ours, toy = json.loads(proc.stdout)
    assert ours["covers"] is None and ours["total"] > 0
    # The toy ring kernel names its threads kMathThreads: its warp count is not known, no model runs it.
    assert toy["covers"] == "the kernel names neither kNumTMAThreads nor kNumMathThreads: its warp count is not known"


# ------------------------------------------------------------------------------------------------
# The real kernel (local only): DEEPGEMM_PATH names a checkout or a bare git directory
# ------------------------------------------------------------------------------------------------


def checkout_file(tmp_path_factory, var, rel):
    """The parse of rel in the checkout or bare git directory that the environment variable var
    names (skipped when it names none or lacks the file)."""
    root = os.environ.get(var)
    if not root:
        pytest.skip(f"{var} is not set (a checkout or bare git directory)")
    root = Path(root)
    if (root / rel).is_file():
        return parse_cutlass.parse_file(root / rel)
    got = subprocess.run(["git", f"--git-dir={root}", "show", f"HEAD:{rel}"], capture_output=True, timeout=60)
    if got.returncode != 0:
        pytest.skip(f"{var}={root} has no {rel}")
    path = tmp_path_factory.mktemp(var.lower()) / Path(rel).name
    path.write_bytes(got.stdout)
    return parse_cutlass.parse_file(path)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    return checkout_file(tmp_path_factory, "DEEPGEMM_PATH", REAL)


@pytest.fixture(scope="module")
def real_fp8(tmp_path_factory):
    return checkout_file(tmp_path_factory, "DEEPGEMM_PATH", REAL_FP8)


def test_real_sm90_bf16_gemm_runs(real):
    got = trace(real)
    assert got["error"] is None and got["stopped"] == [] and got["deadlock"] is None
    producer = per_role(got["log"], "Producer.WG2.warp2")
    # DeepGEMM@54e2261 sm90_bf16_gemm.cuh: 169 empty wait, 187 / 193 the K-major copies, 198 expect-tx.
    assert producer[:4] == [("barrier_wait", 169, 0, 1, None), ("tma_load", 187, 0, None, None),
                            ("tma_load", 193, 0, None, None), ("barrier_arrive", 198, 0, None, 1)]
    for wg in ("Consumer.WG0", "Consumer.WG1"):
        # 249 full wait, 266 four WGMMAs (BLOCK_K 64 / WGMMA::K 16), 235 one arrival per warp.
        assert per_role(got["log"], wg)[:6] == [("barrier_wait", 249, 0, 0, None)] + [("mma", 266, None, None, None)] * 4 + \
            [("barrier_arrive", 235, 0, None, 4)]
    assert dict(got["barriers"])["full_barriers.empty[0]"] == 8
    out = program_run(real, dict(KNOBS, stages=10, consumerWGs=1))   # kDoMergeStages: 10 stages merge into 5 (48-57)
    assert len([x for x in out["lanes"] if x.startswith("full_barriers.stage")]) == 5 and out["deadlock"] is None


def test_real_sm90_bf16_gemm_sweep(real):
    got = node_util.program_sweep(real, {"stages": [1, 12], "outputTiles": [1, 4], "kTiles": [1, 9], "tmaLatency": [0, 9],
                                         "wgmmaLatency": [1, 5], "storeLatency": [0, 4], "consumerWGs": [1, 2]}, 5, 40)
    assert got["badCount"] == 0, got["bad"]


def test_real_sm90_fp8_gemm_1d1d_runs(real_fp8):
    got = trace(real_fp8)
    assert got["error"] is None and got["stopped"] == [] and got["deadlock"] is None
    # DeepGEMM@54e2261 sm90_fp8_gemm_1d1d.cuh: 175 the TMA warp is warp kNumMathThreads / 32 (warp 0
    # of its warpgroup); 212 the binding of get_pipeline(iter_idx ++) (165-166), 213 the empty wait,
    # 221-224 the SFA, SFB, A, B copies (one step), 225 expect-tx.
    producer = per_role(got["log"], "Producer.WG2.warp0")
    assert producer[:3] == [("barrier_wait", 213, 0, 1, None), ("tma_load", 221, 0, None, None), ("barrier_arrive", 225, 0, None, 1)]
    assert [(e[2], e[3]) for e in per_role(got["log"], "Producer.WG2.warp0", tile=1) if e[0] == "barrier_wait"] == [(3, 1), (0, 0), (1, 0)]
    for wg in ("Consumer.WG0", "Consumer.WG1"):
        # 271 full wait, 292 four WGMMAs (BLOCK_K 128 / FP8MMA's K 32), 260 one arrival per warp.
        assert per_role(got["log"], wg)[:6] == [("barrier_wait", 271, 0, 0, None)] + [("mma", 292, None, None, None)] * 4 + \
            [("barrier_arrive", 260, 0, None, 4)]
    assert dict(got["barriers"])["full_barriers.empty[0]"] == 8
    out = program_run(real_fp8, dict(KNOBS, outputTiles=1, reduceLatency=2))
    assert out["roles"] == ["Consumer.WG0", "Consumer.WG1", "Producer.WG2.warp0"]
    # 332-336: the first warp of each math warpgroup stores D (the reduce-add store, 333).
    assert [b["lines"][:1] for b in lane_blocks(out, "role:Consumer.WG0", "reduce")] == [[333]]


def test_real_sm90_fp8_gemm_1d1d_sweep(real_fp8):
    got = node_util.program_sweep(real_fp8, {"stages": [1, 12], "outputTiles": [1, 4], "kTiles": [1, 9], "tmaLatency": [0, 9],
                                             "wgmmaLatency": [1, 5], "storeLatency": [0, 4], "consumerWGs": [1, 2]}, 7, 30)
    assert got["badCount"] == 0, got["bad"]


@pytest.fixture(scope="module")
def real_mla(tmp_path_factory):
    return checkout_file(tmp_path_factory, "FLASHMLA_PATH", REAL_MLA)


def test_real_flashmla_sm90_decode_stops_at_its_warpgroup_index(real_mla):
    # FlashMLA@9241ae3 splitkv_mla.cuh 975: `const int warpgroup_idx = threadIdx.x / 128;`.
    out = program_run(real_mla, KNOBS)
    assert out["error"] == ("no role of the kernel layer reaches a step: the kernel's roles come from the warpgroup index "
                            "`warpgroup_idx` (line 975), not a warp index (`threadIdx.x / 32`): not modelled yet")
