"""FlashAttention-3's SM90 forward (hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp with
hopper/flash_fwd_kernel_sm90.h) run by sim/interpret.js from its own programs
(docs/programs.md "FlashAttention-3 forward"): the warpgroup-index roles, the math warpgroups'
op order by line, the named barriers with their symbolic ids, no deadlock or stop on seeded
random settings. The CI tests read examples/fa3_fwd.json; the parse tests need a checkout
(FLASH_ATTENTION_PATH), like tests/test_parser_fa3.py."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import parse_cutlass
import program_expr
from conftest import ROOT
from node_util import node, program_sweep
from test_programs_dsl_run import RUN, lines_of

FA3 = json.loads((ROOT / "examples" / "fa3_fwd.json").read_text())

def run(structure, **knobs):
    proc = subprocess.run([node(), "-e", RUN, str(ROOT), json.dumps(knobs)], input=json.dumps(structure),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def test_roles():
    """warp_group_idx (kernel 208) bound per warpgroup: WG0 branches to the producer (326), whose
    warps 1-3 return (SingleProducerWarp, 336-338), so warp 0 alone is a role; each MMA warpgroup
    is one role (its four warps reach the same ops)."""
    out = run(FA3, stages=2, outputTiles=1, kvBlocks=3)
    assert out["roles"] == ["Producer.WG0.warp0", "Consumer.WG1", "Consumer.WG2"]
    assert out["stopped"] == []


COMPARE = r"""
const S = require(process.argv[1] + '/schedule.js');
const s = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const rows = [[2, 2, 4, 4, 2, 2, 3], [2, 2, 4, 4, 4, 8, 3], [4, 3, 6, 8, 3, 3, 2], [1, 1, 3, 2, 2, 2, 1]];
process.stdout.write(JSON.stringify({ offered: S.offeredModels(s), rows: rows.map(([S_, O, J, L, W, X, E]) => {
  const p = S.simulate(s, { model: 'program', stages: S_, outputTiles: O, kvBlocks: J, tmaLatency: L, wgmmaLatency: W,
    softmaxLatency: X, epilogueLatency: E, mathLatency: 0 });
  const a = S.simulate(s, { model: 'attention', stages: S_, outputTiles: O, kvBlocks: J, tmaLatency: L, gemm0Latency: W,
    gemm1Latency: W, softmaxLatency: X, epilogueLatency: E });
  return [p.total, a.total, p.deadlock, p.verdict.stopped.length];
}) }));
"""


def test_the_page_offers_the_program_beside_the_attention_model_and_the_totals_are_equal():
    """FA3's page offers its own program beside the hand attention model; on the rows of
    docs/programs.md "FlashAttention-3 forward" both finish on the same step."""
    proc = subprocess.run([node(), "-e", COMPARE, str(ROOT)], input=json.dumps(FA3),
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["offered"] == ["gemm", "attention", "blackwell", "program"]
    assert out["rows"] == [[77, 77, None, 0], [148, 148, None, 0], [238, 238, None, 0], [36, 36, None, 0]]


def test_math_warpgroup_op_order():
    """Each math warpgroup runs mma() with IntraWGOverlap: the first QK (1141), max_get_scale
    (1152) and online_softmax (1155), then per further KV block fwd_step (the lambda at 1170,
    called at 1226): QK (1177), PV (1182), max_get_scale (1194), online_softmax (1196),
    rescale_o (1205); the last PV (1240), finalize (1242), rescale_o (1250), the epilogue (444).
    WG1 and WG2 differ in where finalize's block falls against the last PV, which the tensor
    core runs in turn."""
    out = run(FA3, stages=2, outputTiles=1, kvBlocks=3)
    step = [("wgmma", 1177), ("wgmma", 1182), ("math", 1194), ("exp", 1196), ("math", 1205)]
    head = [("wgmma", 1141), ("math", 1152), ("exp", 1155)] + step + step
    for wg in ("Consumer.WG1", "Consumer.WG2"):
        got = lines_of(out, wg)
        assert got[:len(head)] == head
        assert sorted(got[len(head):]) == sorted([("wgmma", 1240), ("math", 1242), ("math", 1250), ("epilogue", 444)])


def test_named_barriers_have_symbolic_ids():
    """The scheduler barriers' ids `WarpSchedulerWG1 - 1 + canonical_warp_group_idx_nosync()`
    (917) and `WarpSchedulerWG1 + next_WG` (929) are evaluated per role: WG1 syncs on
    WarpSchedulerWG1, WG2 on WarpSchedulerWG1+1; QueryEmpty (815, 938) and barrier_Q / barrier_O."""
    out = run(FA3, stages=2, outputTiles=2, kvBlocks=3)
    for name in ("FwdNamedBarriers::QueryEmpty", "FwdNamedBarriers::WarpSchedulerWG1",
                 "FwdNamedBarriers::WarpSchedulerWG1+1", "barrier_Q", "barrier_O"):
        assert name in out["barriers"]


def test_math_warpgroup_op_order_without_intra_wg_overlap():
    """With IntraWGOverlap off each math warpgroup runs fwd_step (the lambda at 1258) per KV block:
    the first call passes `cute::true_type{}` as is_first_iter (1308), the later ones
    `cute::false_type{}` (1326), so `decltype(is_first_iter_type)::value` (1259) skips rescale_o
    (1292, `if constexpr (!Is_first_iter)`) only in the first: QK (1265), max_get_scale (1283),
    online_softmax (1285), [rescale_o (1292)], PV (1297); then finalize (1340), rescale_o (1346),
    the epilogue (444)."""
    out = run(FA3, stages=2, outputTiles=1, kvBlocks=3, flags={"IntraWGOverlap": 0})
    assert out["stopped"] == []
    first = [("wgmma", 1265), ("math", 1283), ("exp", 1285), ("wgmma", 1297)]
    later = [("wgmma", 1265), ("math", 1283), ("exp", 1285), ("math", 1292), ("wgmma", 1297)]
    for wg in ("Consumer.WG1", "Consumer.WG2"):
        assert lines_of(out, wg) == first + later + later + [("math", 1340), ("math", 1346), ("epilogue", 444)]


EVAL = r"""
const I = require(process.argv[1] + '/sim/interpret.js'), S = require(process.argv[1] + '/schedule.js');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const ctx = new I.Context({ kernel_layer: { program: { body: [] } }, constants: [{ name: "kFour", value: 4 }] }, { flags: { Is_local: 1 } }, S.engine);
process.stdout.write(JSON.stringify(cases.map(([x, e]) => {
  const env = x ? { v: { v: I.evalExpr(x, {}, ctx, false) } } : {};
  const r = I.evalExpr(e, env, ctx, false);
  return I.isUnknown(r) ? "unknown" : r;
})));
"""


def test_integral_constant_values_and_decltype_value():
    """A value of an integral-constant type carries its compile-time value and
    `decltype(v)::value` reads it (the constructions of INTEGRAL_CONSTANTS, sim/interpret/expr.js);
    in a test or arithmetic it is that value. A plain number has no such type (unknown), and
    decltype of anything but a name is not read (77's `decltype(stage == _0{})::value`)."""
    dv = program_expr.parse_expr("decltype(v)::value")
    assert dv == ["decltype", ["id", "v"], "value"]
    assert program_expr.parse_expr("decltype(stage == _0{})::value")[0] == "?"
    assert program_expr.parse_expr("decltype(v)")[0] == "?"
    texts = {"cute::true_type{}": 1, "std::true_type{}": 1, "cute::false_type{}": 0, "std::false_type{}": 0,
             "cute::bool_constant<Is_local>{}": 1, "cute::bool_constant<!Is_local>{}": 0,
             "std::bool_constant<false>{}": 0, "cute::Int<4>{}": 4, "cute::Int<kFour>{}": 4,
             "std::integral_constant<int, 3>{}": 3, "std::integral_constant<bool, true>{}": 1,
             "3": "unknown", "cute::Int<kUnknown>{}": "unknown"}
    cases = [[program_expr.parse_expr(t), dv] for t in texts]
    cases += [[program_expr.parse_expr("cute::false_type{}"), program_expr.parse_expr("!v")],
              [program_expr.parse_expr("cute::Int<4>{}"), program_expr.parse_expr("v + 1")]]
    proc = subprocess.run([node(), "-e", EVAL, str(ROOT)], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(proc.stdout) == list(texts.values()) + [1, 5]


def test_seeded_random_settings_finish():
    """60 seeded random settings (2-3 math warpgroups) end with no deadlock and no stop."""
    got = program_sweep(FA3, {"stages": [1, 6], "outputTiles": [1, 4], "kvBlocks": [1, 6], "tmaLatency": [0, 12],
                              "wgmmaLatency": [1, 8], "softmaxLatency": [1, 8], "mathLatency": [0, 4],
                              "epilogueLatency": [0, 6], "consumerWGs": [2, 3]}, seed=23, runs=60)
    assert got["runs"] == 60 and got["badCount"] == 0, got["bad"]


def test_seeded_random_settings_finish_without_intra_wg_overlap():
    """The same with IntraWGOverlap off (fwd_step of 1258, its scheduler barrier on with exactly
    two math warpgroups, 352-355): the whole kernel, every role, ends with no deadlock, stop or hazard."""
    got = program_sweep(FA3, {"stages": [1, 6], "outputTiles": [1, 4], "kvBlocks": [1, 6], "tmaLatency": [0, 12],
                              "wgmmaLatency": [1, 8], "softmaxLatency": [1, 8], "mathLatency": [0, 4],
                              "epilogueLatency": [0, 6], "consumerWGs": [2, 3]}, seed=29, runs=60,
                        fixed={"flags": {"IntraWGOverlap": 0}})
    assert got["runs"] == 60 and got["badCount"] == 0, got["bad"]


def checkout():
    path = os.environ.get("FLASH_ATTENTION_PATH")
    if not path or not (Path(path) / "hopper" / "mainloop_fwd_sm90_tma_gmma_ws.hpp").is_file():
        pytest.skip("FLASH_ATTENTION_PATH does not point at a FlashAttention checkout")
    return Path(path) / "hopper"


def test_lambdas_are_programs_and_the_inventory_is_kept():
    """mma()'s lambdas are programs of their own (fwd_step at 1170 and 1258, consumer_wait at
    1053) and their call sites are call steps; the parse's op inventory equals the committed one."""
    root = checkout()
    m = parse_cutlass.parse_file(root / "mainloop_fwd_sm90_tma_gmma_ws.hpp", root / "flash_fwd_kernel_sm90.h")
    mma = [p for p in m["programs"]["functions"] if p["name"] == "mma"][0]
    keys = [lam["key"] for lam in mma["lambdas"]]
    assert "fwd_step@1170" in keys and "fwd_step@1258" in keys and "consumer_wait@1053" in keys
    fwd = [lam for lam in mma["lambdas"] if lam["key"] == "fwd_step@1170"][0]
    calls = []

    def walk(nodes):
        for n in nodes:
            if n["node"] == "call" and n.get("lambda"):
                calls.append((n["line"], n["lambda"]))
            for k in ("then", "else", "body"):
                walk(n.get(k) or [])
    walk(fwd["body"])
    assert (1175, "consumer_wait@1053") in calls and (1180, "consumer_wait@1053") in calls
    assert [f["ops"] for f in m["functions"]] == [f["ops"] for f in FA3["functions"]]
    assert m["kernel_layer"]["role_vars"][0]["name"] == "warp_group_idx"


def test_the_verdict_says_what_each_math_warpgroup_waits_for():
    """FA3's roles have no MMA group (each warpgroup issues its own GEMMs): the MMA-issuing roles
    are those whose lanes hold WGMMA blocks, and the verdict lists their waits."""
    proc = subprocess.run([node(), "-e", "const S = require(process.argv[1] + '/schedule.js');"
                           "const s = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                           "process.stdout.write(JSON.stringify(S.simulate(s, {model: 'program'}).verdict.mmaWaits));", str(ROOT)],
                          input=json.dumps(FA3), capture_output=True, text=True, timeout=300, check=True)
    waits = json.loads(proc.stdout)
    assert sorted(waits) == ["Consumer.WG1", "Consumer.WG2"]
    assert all(w.get("tensor-core", 0) > 0 for w in waits.values())


@pytest.mark.parametrize("overlap, seed", [(True, "11"), (False, "13")], ids=["intra_wg_overlap", "no_intra_wg_overlap"])
def test_interpreter_equals_the_attention_model_block_for_block(overlap, seed):
    """150 seeded settings (stages 1-6, tiles 1-4, KV blocks 1-6, 2-3 math warpgroups, every
    latency random), with FA3's IntraWGOverlap on and off: the interpreted schedule equals
    runAttention's block for block, total and deadlock, with the lane mapping and the drawing
    differences of tests/js/interpret_diff.js (docs/programs.md "FlashAttention-3 forward"). Off,
    it is FA3's own fwd_step of 1258 against runAttention's non-overlap path, with
    UseSchedulerBarrier as FA3 derives it (352-355: on with exactly two math warpgroups, off with
    three)."""
    checkout()
    proc = subprocess.run([node(), str(ROOT / "tests" / "js" / "interpret_diff.js"), str(ROOT / "examples" / "fa3_fwd.json"),
                           "attention", seed, "150", json.dumps({"intraWGOverlap": overlap})],
                          capture_output=True, text=True, timeout=600, check=True)
    out = json.loads(proc.stdout)
    assert out["runs"] == 150
    assert out["stopped"] == []
    assert out["mismatches"] == [], out["mismatches"][:3]
