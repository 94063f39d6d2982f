"""The CuTe DSL (Python) front end: FlashAttention-4's kernels, our own fixtures, hostile input.

FA4 comes from `pip install --no-deps flash-attn-4==4.0.0b36` (scripts/test.sh, pyproject's test
extra); line numbers below are pinned to that release so a regression fails.
"""

import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import parse_cutlass
import parse_dsl
import node_util  # noqa: E402
import render_waveform
from conftest import ROOT
from docs_util import docs_section

FIXTURES = ROOT / "tests" / "fixtures" / "dsl"
FA4_VERSION = "4.0.0b36"


def fa4_dir():
    """flash_attn/cute of the installed flash-attn-4 (skip locally, fail in CI when absent)."""
    spec = importlib.util.find_spec("flash_attn")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        cute = Path(loc) / "cute"
        if (cute / "flash_fwd_sm90.py").is_file():
            return cute
    reason = f"flash-attn-4=={FA4_VERSION} is not installed (pip install --no-deps flash-attn-4)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def fa4(name):
    """The parsed model of one FA4 kernel file."""
    return parse_cutlass.parse_file(fa4_dir() / name)


def all_ops(model):
    """Every op of every function."""
    return [op for fn in model["functions"] for op in fn["ops"]]


def fn_named(model, name):
    """The function of a model with that name."""
    return next(fn for fn in model["functions"] if fn["name"] == name)


def kinds(fn):
    """(op, pipeline, line) of a function's ops, in order."""
    return [(o["op"], o["pipeline"], o["line"]) for o in fn["ops"]]


PIPELINE_KINDS = ("producer_acquire", "producer_try_acquire", "producer_commit", "producer_tail",
                  "producer_get_barrier", "consumer_wait", "consumer_try_wait", "consumer_release")


def check_contract(model):
    """The v2 contract every DSL model keeps (CONTRACT.md)."""
    assert model["schema_version"] == 3 and model["language"] == "cute-dsl"
    names = {o["name"] for o in model["pipeline_objects"]}
    assert names == {p["alias"] for p in model["pipelines"]}
    assert all(o["kind"] in ("created", "mbarrier_ring") for o in model["pipeline_objects"])   # rings: parse_mbarrier.py
    for fn in model["functions"]:
        assert fn["role"] in ("producer", "consumer", "both", "other") and fn["ops"]
        for op in fn["ops"]:
            assert op["pipeline"] == op.get("object")   # no `object` key when the op names no pipeline
            assert op["pipeline"] is None or op["pipeline"] in names
            assert len(op["text"]) <= parse_cutlass.MAX_TEXT_CHARS
            assert op["line"] <= op["end_line"]
            if "via" in op:
                assert ("helper" in op["via"]) != ("lambda" in op["via"])
                assert fn["line"] <= op["via"]["line"] <= fn["end_line"]
    for w in model["warnings"]:
        assert re.match(r"^[^:]+:\d+: ", w), w
    json.dumps(model)


# ----------------------------------------------------------------------------------------------
# FlashAttention-4
# ----------------------------------------------------------------------------------------------


def test_fa4_fwd_sm90_pipelines_roles_and_ops():
    m = fa4("flash_fwd_sm90.py")
    check_contract(m)
    assert m["source"]["path"] == "flash_attn/cute/flash_fwd_sm90.py" and m["arch"] == "sm90"
    assert [(p["alias"], p["class"], p["stages"], p["line"]) for p in m["pipelines"]] == [
        ("pipeline_q", ["PipelineTmaAsync", "PipelineCpAsync"], "1", 464),
        ("pipeline_k", ["PipelineTmaAsync", "PipelineCpAsync"], "self.num_stages", 484),
        ("pipeline_v", ["PipelineTmaAsync", "PipelineCpAsync"], "self.num_stages", 492)]
    assert {p["alias"]: p["operands"] for p in m["pipelines"]} == \
        {"pipeline_q": ["Q"], "pipeline_k": ["K"], "pipeline_v": ["V"]}
    producer = fn_named(m, "kernel[warp_idx < 4]")
    consumer = fn_named(m, "kernel[not (warp_idx < 4)]")
    assert (producer["role"], producer["line"]) == ("producer", 585)
    assert (consumer["role"], consumer["line"]) == ("consumer", 609)
    # The producer, in the caller's order: K0 (through partial(self.load_KV, ...)), Q, V0, ...
    assert kinds(producer)[:10] == [
        ("producer_acquire", "pipeline_k", 791), ("tma_load", "pipeline_k", 935),
        ("producer_commit", "pipeline_k", 939), ("producer_acquire", "pipeline_q", 797),
        ("tma_load", "pipeline_q", 798), ("producer_acquire", "pipeline_q", 801),
        ("producer_commit", "pipeline_q", 806), ("producer_acquire", "pipeline_v", 811),
        ("tma_load", "pipeline_v", 935), ("producer_commit", "pipeline_v", 939)]
    assert kinds(producer)[-1] == ("producer_tail", "pipeline_v", 919)
    load_k = producer["ops"][1]
    assert load_k["operand"] == "K" and load_k["buffer"] == "sK"
    assert load_k["via"]["helper"] == "load" and load_k["via"]["line"] == 587
    assert load_k["via"]["chain"] == [["load_KV", 794, "load_K"]]
    # Every pipeline call is attributed; the MMAs read the stage of the wait before them.
    assert not [o for o in all_ops(m) if o["op"] in PIPELINE_KINDS and o["pipeline"] is None]
    mmas = sorted({(o["line"], o["pipeline"], o["receiver"], o["unit"]) for o in all_ops(m) if o["op"] == "mma"})
    assert mmas == [(1296, "pipeline_k", "tiled_mma_qk", "wgmma"), (1350, "pipeline_v", "tiled_mma_pv", "wgmma"),
                    (1377, "pipeline_k", "tiled_mma_qk", "wgmma"), (1412, "pipeline_v", "tiled_mma_pv", "wgmma"),
                    (1441, "pipeline_k", "tiled_mma_qk", "wgmma"), (1447, "pipeline_v", "tiled_mma_pv", "wgmma")]
    waits = collections.Counter((o["op"], o["pipeline"]) for o in consumer["ops"])
    assert waits[("consumer_wait", "pipeline_q")] == 1 and waits[("consumer_release", "pipeline_q")] == 2
    assert {o["count"] for o in consumer["ops"] if o["op"] == "warpgroup_wait"} == {0, 1}
    assert {o["op"] for o in consumer["ops"]} >= {"order_wait", "order_arrive", "softmax"}
    assert m["warnings"] == ["flash_attn/cute/flash_fwd_sm90.py:894: pipeline_k passed to "
                             "produce_block_sparse_loads, which is not defined in this file: its "
                             "pipeline ops are not listed"]
    roles = m["kernel_layer"]["warp_roles"]
    assert [(r["name"], r["warps"], r["line"]) for r in roles] == [
        ("warp_idx == 0", [0], 448), ("producer", [0, 1, 2, 3], 585),
        ("consumer", "not (warp_idx < 4)", 609)]


def test_fa4_fwd_sm100_pipelines_and_roles():
    m = fa4("flash_fwd_sm100.py")
    check_contract(m)
    stages = {p["alias"]: (p["stages"], p["line"]) for p in m["pipelines"]}
    assert stages == {
        "pipeline_q": ("self.q_stage", 1032), "pipeline_kv": ("self.kv_stage", 1051),
        "pipeline_s_p_o": ("self.s_p_o_stage", 1073), "pipeline_p_lastsplit": ("self.s_p_o_stage", 1081),
        "pipeline_o_acc": ("self.s_p_o_stage", 1091), "pipeline_s0_s1_sequence": ("2", 1104),
        "pipeline_sm_stats": ("self.s_p_o_stage", 1111), "pipeline_o_epi": ("self.q_stage", 1124),
        "pipeline_load_epi": ("1", 1142), "pipeline@1252": ("self.sched_stages", 1252),
        "pipeline@1271": ("self.sched_stages", 1271)}
    assert [(f["name"], f["line"]) for f in m["functions"]] == [
        ("kernel[load]", 1313), ("kernel[mma]", 1342), ("kernel[epilogue]", 1378),
        ("kernel[softmax]", 1398), ("kernel[correction]", 1447)]
    assert not [o for o in all_ops(m) if o["op"] in PIPELINE_KINDS and o["pipeline"] is None]
    loads = sorted({(o["line"], o.get("operand"), o["pipeline"]) for o in all_ops(m) if o["op"] == "tma_load"})
    assert loads == [(3441, "Q", "pipeline_q"), (3514, "K", "pipeline_kv"), (3514, "V", "pipeline_kv")]
    mmas = sorted({(o["line"], o["pipeline"], o["unit"]) for o in all_ops(m) if o["op"] == "mma"})
    assert [line for line, _, _ in mmas] == [1959, 1995, 2029, 2061, 2109, 2112, 2131, 2140]
    assert {(p, u) for _, p, u in mmas} == {("pipeline_kv", "umma")}
    # FA4's wrappers and sync objects map to the ops they perform.
    by_call = collections.Counter((o["op"], o.get("call")) for o in all_ops(m))
    assert by_call[("producer_commit", "producer_commit_w_index")] > 0
    assert by_call[("producer_commit", "sync_object_full.arrive_cp_async_mbarrier")] > 0
    roles = {r["name"]: r["warps"] for r in m["kernel_layer"]["warp_roles"]}
    assert roles["mma"] == [12] and roles["load"].startswith("warp_idx >= self.load_warp_ids[0]")


def test_fa4_bwd_sm90():
    m = fa4("flash_bwd_sm90.py")
    check_contract(m)
    assert [(p["alias"], p["stages"], p["line"]) for p in m["pipelines"]] == [
        ("pipeline_Q", "self.Q_stage", 694), ("pipeline_dO", "self.dO_stage", 702)]
    assert [(f["name"], f["role"]) for f in m["functions"]] == [
        ("kernel[warp_idx < 4]", "producer"), ("kernel[not (warp_idx < 4)]", "consumer")]
    assert not [o for o in all_ops(m) if o["op"] in PIPELINE_KINDS and o["pipeline"] is None]
    loads = sorted({(o["line"], o.get("operand"), o["pipeline"]) for o in all_ops(m)
                    if o["op"] == "tma_load" and o.get("operand")})
    assert loads == [(963, "K", "pipeline_Q"), (964, "Q", "pipeline_Q"), (976, "V", "pipeline_dO"),
                     (977, "dO", "pipeline_dO"), (984, "Q", "pipeline_Q"), (992, "dO", "pipeline_dO")]
    mmas = sorted({(o["line"], o["pipeline"], o["receiver"]) for o in all_ops(m) if o["op"] == "mma"})
    assert mmas[:2] == [(1525, "pipeline_Q", "tiled_mma_SdP"), (1532, "pipeline_dO", "tiled_mma_SdP")]
    assert len(mmas) == 9
    # self.mma(*mma_args, is_dQ_wg=...) is followed at each of its three call sites.
    consumer = m["functions"][1]
    assert sorted({o["via"]["line"] for o in consumer["ops"]}) == [844, 850, 853]


def test_fa4_bwd_sm100():
    m = fa4("flash_bwd_sm100.py")
    check_contract(m)
    stages = {p["alias"]: p["stages"] for p in m["pipelines"]}
    assert stages == {"pipeline_S_P": "1", "pipeline_dP": "1", "pipeline_dKV": "2", "pipeline_dQ": "1",
                      "pipeline_dS": "1", "pipeline_P": "1", "pipeline_LSE": "self.Q_stage",
                      "pipeline_dPsum": "self.dO_stage", "pipeline_Q": "self.Q_stage",
                      "pipeline_Qt": "self.Q_stage", "pipeline_Kt": "self.single_stage",
                      "pipeline_dO": "self.dO_stage"}
    assert [f["name"] for f in m["functions"]] == ["kernel[load]", "kernel[mma]", "kernel[compute]",
                                                  "kernel[reduce]"]
    assert not [o for o in all_ops(m) if o["op"] in PIPELINE_KINDS and o["pipeline"] is None]
    # pipeline_Qt = pipeline_Q in one arm, created in the other: named like the receiver, both listed.
    qt = [o for o in all_ops(m) if o["receiver"] == "pipeline_Qt"]
    assert qt and all(o["pipeline"] == "pipeline_Qt" and o["pipeline_candidates"] == ["pipeline_Qt", "pipeline_Q"]
                      for o in qt)
    assert sum(o["op"] == "mma" for o in all_ops(m)) >= 27
    assert (2758, "pipeline_Q") in {(o["line"], o["pipeline"]) for o in all_ops(m) if o["op"] == "mma"}


def test_fa4_scan_lists_the_kernels():
    rows = {r["path"]: r for r in parse_cutlass.scan(fa4_dir())}
    for name in ("flash_fwd_sm90.py", "flash_fwd_sm100.py", "flash_bwd_sm90.py", "flash_bwd_sm100.py"):
        assert rows[name]["kind"] == "mainloop" and rows[name]["ops"] > 0
    # Scan = parse: every row is a file a single parse accepts, with the same row, and nothing
    # a single parse accepts is missing. FA4's pipeline.py creates pipelines inside its classes
    # and has no @cute.kernel: it is listed, with that warning, as a single parse gives it.
    for name, row in rows.items():
        model = parse_cutlass.parse_file(fa4_dir() / name)
        assert parse_cutlass.scan_row(model)["ops"] == row["ops"], name
    if "pipeline.py" in rows:
        assert rows["pipeline.py"]["warnings"] >= 1
        assert any("no @cute.kernel" in w for w in parse_cutlass.parse_file(fa4_dir() / "pipeline.py")["warnings"])
    for path in sorted(fa4_dir().glob("*.py")):
        if path.name not in rows:
            with pytest.raises(parse_cutlass.VizError):
                parse_cutlass.parse_file(path)


# ----------------------------------------------------------------------------------------------
# Fixtures: one per call style
# ----------------------------------------------------------------------------------------------


def fixture(name):
    """The parsed model of one of our fixtures."""
    return parse_cutlass.parse_file(FIXTURES / name)


def test_fixture_classic_calls_hopper_gemm():
    m = fixture("hopper_gemm_classic.py")
    check_contract(m)
    assert m["arch"] == "sm90" and m["warnings"] == []
    assert [(p["alias"], p["class"], p["stages"], p["line"], p["operands"]) for p in m["pipelines"]] == [
        ("mainloop_pipeline", "PipelineTmaAsync", "self.ab_stage", 26, ["A", "B"])]
    assert [(b["name"], b["operand"], b["line"], b["struct"]) for b in m["buffers"]] == [
        ("sA", "A", 22, "SharedStorage"), ("sB", "B", 23, "SharedStorage")]
    prod, cons = m["functions"]
    assert (prod["name"], prod["role"]) == ("kernel[tma]", "producer")
    assert (cons["name"], cons["role"]) == ("kernel[not tma]", "consumer")
    assert kinds(prod) == [
        ("producer_acquire", "mainloop_pipeline", 39), ("tma_load", "mainloop_pipeline", 40),
        ("producer_get_barrier", "mainloop_pipeline", 41), ("tma_load", "mainloop_pipeline", 42),
        ("producer_get_barrier", "mainloop_pipeline", 43), ("producer_commit", "mainloop_pipeline", 44),
        ("producer_tail", "mainloop_pipeline", 46)]
    assert [o.get("operand") for o in prod["ops"] if o["op"] == "tma_load"] == ["A", "B"]
    assert [o["op"] for o in cons["ops"]] == [
        "consumer_try_wait", "consumer_wait", "warpgroup_arrive", "mma", "warpgroup_commit",
        "warpgroup_wait", "consumer_release", "warpgroup_wait"]
    mma = cons["ops"][3]
    assert (mma["line"], mma["pipeline"], mma["wait_line"], mma["unit"]) == (54, "mainloop_pipeline", 52, "wgmma")
    assert [o.get("count") for o in cons["ops"] if o["op"] == "warpgroup_wait"] == [1, 0]
    assert m["kernel_layer"]["warp_roles"][0] == {
        "name": "tma", "warps": [0], "line": 36, "function": "kernel[tma]", "test": "warp_idx == self.tma_warp_id"}
    assert {"name": "self.ab_stage", "value": 4, "line": 11} in m["constants"]


def test_self_constants_are_every_assignments_literal(tmp_path):
    """SELF_CONSTANTS: `self.x` is a constant only when every assignment to it in the class gives
    the same literal. Before, a literal in one arm won over a computed value in the other (FA4
    sm100 550 `self.ex2_emu_freq = 0`, then 553 `= self._tune.get(...)`), so the run read one
    arm's value as a fact."""
    src = (FIXTURES / "hopper_gemm_classic.py").read_text()
    extra = ("        if flag:\n            self.one_arm = 2\n        else:\n            self.one_arm = f()\n"
             "        self.bumped = 1\n        self.bumped += 1\n        self.unpacked = 3\n        self.unpacked, y = g()\n"
             "        self.twice = 5\n        self.twice = 5\n        self.typed: int = 6\n")
    src = src.replace("        self.num_dma_warp_groups = 1\n", "        self.num_dma_warp_groups = 1\n" + extra, 1)
    path = tmp_path / "gemm_constants.py"
    path.write_text(src)
    consts = {c["name"]: c["value"] for c in parse_cutlass.parse_file(path)["constants"]}
    assert consts["self.ab_stage"] == 4 and consts["self.twice"] == 5 and consts["self.typed"] == 6
    assert not {"self.one_arm", "self.bumped", "self.unpacked"} & set(consts)


def test_fixture_participants_blackwell_gemm():
    m = fixture("blackwell_gemm_participants.py")
    check_contract(m)
    assert m["arch"] == "sm100"
    assert [(o["name"], o["stages"], o.get("participants")) for o in m["pipeline_objects"]] == [
        ("ab_producer, ab_consumer", "self.num_ab_stage", ["ab_producer", "ab_consumer"]),
        ("acc_pipeline", "self.num_acc_stage", None)]
    ab = "ab_producer, ab_consumer"
    tma, mma, epi = m["functions"]
    assert kinds(tma) == [("producer_acquire", ab, 39), ("tma_load", ab, 40), ("tma_load", ab, 41),
                          ("producer_tail", ab, 42)]
    assert [o["call"] for o in tma["ops"] if o["op"] != "tma_load"] == ["acquire_and_advance", "tail"]
    assert kinds(mma) == [("producer_acquire", "acc_pipeline", 46), ("consumer_wait", ab, 48),
                          ("mma", ab, 49), ("consumer_release", ab, 50),
                          ("producer_commit", "acc_pipeline", 51)]
    assert mma["ops"][3]["call"] == "handle.release" and mma["ops"][2]["unit"] == "umma"
    # `warp_idx < self.mma_warp_id` bounds the epilogue warps: it does not name the role.
    assert (epi["name"], epi["role"]) == ("kernel[warp_idx < self.mma_warp_id]", "consumer")
    barrier = epi["ops"][1]
    assert (barrier["op"], barrier["barrier_id"], barrier["count"]) == ("named_barrier_sync", "1", "128")
    roles = m["kernel_layer"]["warp_roles"]
    assert [(r["name"], r["warps"]) for r in roles] == [("tma", [5]), ("mma", [4]), ("consumer", [0, 1, 2, 3])]


def test_fixture_partial_helpers_attention():
    m = fixture("attention_partial_helpers.py")
    check_contract(m)
    assert m["warnings"] == []
    prod, cons = m["functions"]
    assert kinds(prod) == [
        ("producer_acquire", "pipeline_q", 43), ("tma_load", "pipeline_q", 44),
        ("producer_acquire", "pipeline_k", 46), ("tma_load", "pipeline_k", 55),
        ("producer_commit", "pipeline_k", 56), ("producer_acquire", "pipeline_v", 48),
        ("tma_load", "pipeline_v", 55), ("producer_commit", "pipeline_v", 56),
        ("producer_tail", "pipeline_v", 51)]
    assert prod["ops"][3]["via"] == {"helper": "load", "line": 27, "chain": [["load_KV", 47, "load_K"]]}
    assert [o.get("operand") for o in prod["ops"] if o["op"] == "tma_load"] == ["Q", "K", "V"]
    assert [o["buffer"] for o in prod["ops"] if o["op"] == "tma_load"] == ["sQ", "sK", "sV"]
    assert kinds(cons) == [
        ("consumer_wait", "pipeline_q", 65), ("consumer_wait", "pipeline_k", 67),
        ("consumer_try_wait", "pipeline_k", 67), ("mma", "pipeline_k", 68),
        ("warpgroup_wait", None, 69), ("consumer_release", "pipeline_k", 70),
        ("consumer_wait", "pipeline_v", 71), ("mma", "pipeline_v", 72),
        ("consumer_release", "pipeline_v", 63), ("consumer_release", "pipeline_q", 75)]
    # gemm_S[stage](...) from a list of partials; the lambda's release is listed at its call (73).
    assert [o["receiver"] for o in cons["ops"] if o["op"] == "mma"] == ["tiled_mma_qk", "tiled_mma_pv"]
    release = cons["ops"][8]
    assert release["via"] == {"helper": "mma", "line": 30, "chain": [["release_v", 73]]}


def test_attention_facts_for_the_models():
    """What the schedule models read: K/V loads per pipeline, mma classified by pipeline and receiver."""
    m = fixture("attention_partial_helpers.py")
    pipes = {p["alias"]: p["operands"] for p in m["pipelines"]}
    assert pipes == {"pipeline_q": ["Q"], "pipeline_k": ["K"], "pipeline_v": ["V"]}
    assert {b["operand"] for b in m["buffers"]} >= {"K", "V"}
    mma = {o["receiver"]: o["pipeline"] for o in all_ops(m) if o["op"] == "mma"}
    assert mma == {"tiled_mma_qk": "pipeline_k", "tiled_mma_pv": "pipeline_v"}
    # schedule.js's fit (the one rule): K/V pipelines with both GEMMs -> attention.
    assert node_util.fit_model(m) == "attention"
    assert node_util.fit_model(fixture("hopper_gemm_classic.py")) == "gemm"


def test_stage_ops_on_an_unresolved_pipeline_fit_no_hand_model(tmp_path):
    """docs/fit.md step 7 (UNRESOLVED_STAGE_OP): a pipeline handed through a dict leaves the
    consumer's waits and releases on no resolved pipeline (FlashInfer's moe_hopper_fp8 kernel
    does this, docs/breadth.md); the GEMM model fitted such a file and drew a ring it guessed. Now
    no hand-written model fits, with the op and line named, and the page starts in the program
    model, whose roles stop where they are not modelled."""
    src = (FIXTURES / "hopper_gemm_classic.py").read_text()
    arm = "        else:\n            read_state"
    assert arm in src
    path = tmp_path / "dict_pipe.py"
    path.write_text(src.replace(arm, "        else:\n            self.consume(dict(pipe=mainloop_pipeline))\n\n"
                                "    @cute.jit\n    def consume(self, pipes):\n        mainloop_pipeline = pipes[\"pipe\"]\n"
                                "        if True:\n            read_state"))
    m = parse_dsl.parse_file(path)
    assert any("consumer_wait: receiver 'mainloop_pipeline' not resolved" in w for w in m["warnings"])
    fit = node_util.fits([m])[0]["fit"]
    assert fit["model"] is None
    assert "consumer_try_wait (line 57) on `mainloop_pipeline` is on no pipeline the parse resolved" in fit["reason"]
    page = node_util.node_script("const S = require(process.argv[1] + '/schedule.js'); "
                                 "const st = JSON.parse(require('fs').readFileSync(0, 'utf8')); "
                                 "process.stdout.write(JSON.stringify(S.pageModel(st)));", m)
    assert page == "program"
    # The fixture as written (the pipeline in scope) still fits the GEMM model.
    assert node_util.fit_model(fixture("hopper_gemm_classic.py")) == "gemm"


SIBLING_BASE = """\
import cutlass.pipeline as pipeline
from mykernels.pipes import PipelineTmaCpAsync


class GemmBase:
    def make_ab_pipeline(self, tiled_mma):
        group = pipeline.CooperativeGroup(pipeline.Agent.Thread)
        pipeline_cls = pipeline.PipelineTmaAsync if not self.gather_A else PipelineTmaCpAsync
        return pipeline_cls.create(num_stages=self.ab_stage, producer_group=group, consumer_group=group)

    def make_flag(self):
        return self.ab_stage > 2
"""

SIBLING_KERNEL = """\
import cutlass.cute as cute
import cutlass.pipeline as pipeline
from mykernels.gemm_base import GemmBase
from mykernels.pipes import PipelineAsync as MyPipelineAsync


class Gemm(GemmBase):
    def __init__(self):
        self.ab_stage = 4
        self.sched_stage = 2
        self.gather_A = False

    @cute.kernel
    def kernel(self, tiled_mma, k_tiles):
        warp_idx = cute.arch.warp_idx()
        ab_pipeline = self.make_ab_pipeline(tiled_mma)
        sched_pipeline = MyPipelineAsync.create(num_stages=self.sched_stage)
        flag = self.make_flag()
        if warp_idx == 0:
            state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, self.ab_stage)
            for k in cutlass.range(k_tiles):
                ab_pipeline.producer_acquire(state)
                ab_pipeline.producer_commit(state)
                sched_pipeline.producer_acquire(state)
        else:
            state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, self.ab_stage)
            for k in cutlass.range(k_tiles):
                ab_pipeline.consumer_wait(state)
                cute.gemm(tiled_mma, None, None, None, None)
                ab_pipeline.consumer_release(state)
"""


def test_pipelines_from_a_sibling_base_class_factory_and_an_import_alias(tmp_path):
    """docs/dsl.md DSL_SIBLING_FACTORY and DSL_IMPORT_ALIASES (quack's style, our own files written
    here): `self.make_ab_pipeline(...)` of a base class in the sibling module creates the pipeline
    at the caller's line, of both classes its `A if c else B` may create, with the factory's
    stages text and where it is; `MyPipelineAsync.create` of an aliased import is a PipelineAsync,
    with a warning that the module's class is taken by its name. Without the sibling module the
    call is unknown, as before."""
    pkg = tmp_path / "mykernels"
    pkg.mkdir()
    (pkg / "gemm_base.py").write_text(SIBLING_BASE)
    (pkg / "gemm.py").write_text(SIBLING_KERNEL)
    m = parse_dsl.parse_file(pkg / "gemm.py")
    pipes = {p["alias"]: p for p in m["pipelines"]}
    ab = pipes["ab_pipeline"]
    assert ab["class"] == ["PipelineTmaAsync", "PipelineTmaCpAsync"]
    assert (ab["stages"], ab["line"]) == ("self.ab_stage", 16)
    assert ab["factory"]["line"] == 6 and ab["factory"]["method"] == "make_ab_pipeline"
    assert ab["factory"]["file"].endswith("gemm_base.py")
    assert pipes["sched_pipeline"]["class"] == "PipelineAsync" and "factory" not in pipes["sched_pipeline"]
    assert any("gemm.py:17: MyPipelineAsync (mykernels.pipes.PipelineAsync, imported at line 4) is taken as the "
               "CUTLASS PipelineAsync by its name" in w for w in m["warnings"])
    ops = {(o["op"], o["line"]): o.get("object") for f in m["functions"] for o in f["ops"]}
    assert ops[("consumer_wait", 28)] == "ab_pipeline" and ops[("producer_acquire", 24)] == "sched_pipeline"
    # A method of the base that returns no create is no factory (make_flag): no pipeline made.
    assert set(pipes) == {"ab_pipeline", "sched_pipeline"}
    # An alias of CUTLASS's own class is that class, with no warning.
    (pkg / "cutlass_alias.py").write_text(SIBLING_KERNEL.replace("from mykernels.pipes import PipelineAsync",
                                                                 "from cutlass.pipeline import PipelineAsync"))
    m3 = parse_dsl.parse_file(pkg / "cutlass_alias.py")
    assert {p["alias"]: p["class"] for p in m3["pipelines"]}["sched_pipeline"] == "PipelineAsync"
    assert not any("taken as the CUTLASS" in w for w in m3["warnings"])
    # Without the sibling module the factory is unknown: the ops on ab_pipeline are unresolved.
    (pkg / "gemm_base.py").unlink()
    m2 = parse_dsl.parse_file(pkg / "gemm.py")
    assert {p["alias"] for p in m2["pipelines"]} == {"sched_pipeline"}
    assert any("consumer_wait: receiver 'ab_pipeline' not resolved" in w for w in m2["warnings"])


# ----------------------------------------------------------------------------------------------
# Refusals and hostile Python
# ----------------------------------------------------------------------------------------------


def run_cli(*args, timeout=60):
    """Run the parse CLI in a subprocess."""
    return subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def assert_one_line_refusal(proc, fragment):
    """Exit 2, one stderr line containing fragment, no traceback, nothing on stdout."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_syntax_error_is_one_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import cutlass\n\ndef kernel(:\n    pass\n")
    assert_one_line_refusal(run_cli(bad), "bad.py:3: Python syntax error")


def test_no_pipeline_objects_is_one_line(tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("import cutlass.cute as cute\n\n@cute.kernel\ndef k(x):\n    cute.copy(x, x, x)\n")
    assert_one_line_refusal(run_cli(plain), "no CuTe DSL pipeline objects")


def test_kernel_layer_option_refused_for_python():
    proc = run_cli(FIXTURES / "hopper_gemm_classic.py", "--kernel-layer", FIXTURES / "hopper_gemm_classic.py")
    assert_one_line_refusal(proc, "--kernel-layer applies to C++ headers")


@pytest.mark.parametrize("case", ["parens", "indent", "binop", "calls", "helpers"])
def test_deep_nesting_is_bounded(tmp_path, case):
    path = tmp_path / f"{case}.py"
    head = "import cutlass.pipeline as pipeline\n"
    if case == "parens":
        body = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    elif case == "indent":
        body = "".join("    " * i + "if x:\n" for i in range(300)) + "    " * 300 + "pass\n"
    elif case == "binop":
        body = "x = " + " + ".join(["a"] * 200000) + "\n"
    elif case == "calls":
        body = "x = " + "f(" * 3000 + ")" * 3000 + "\n"
    else:   # helpers calling each other in a long chain, each many times: the walk stays bounded
        body = ("class K:\n    @cute.kernel\n    def kernel(self):\n"
                "        p = pipeline.PipelineAsync.create(num_stages=2)\n"
                "        self.h0(p)\n")
        for i in range(60):
            body += f"    def h{i}(self, p):\n" + "".join(f"        self.h{i + 1}(p)\n" for _ in range(8))
        body += "    def h60(self, p):\n        p.producer_acquire(s)\n"
        head += "import cutlass.cute as cute\n"
    path.write_text(head + body)
    proc = run_cli(path, timeout=120)
    if case == "helpers":
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
        assert "not followed" in proc.stderr or "budget" in proc.stderr
    else:
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_five_megabyte_python_is_refused(tmp_path):
    path = tmp_path / "huge.py"
    line = "    p.producer_acquire(s); p.producer_commit(s); x = [1, 2, 3] + [4, 5, 6]\n"
    path.write_text("import cutlass.pipeline as pipeline\n" + line * (5 * 1024 * 1024 // len(line)))
    assert path.stat().st_size > 5 * 1000 * 1000
    assert_one_line_refusal(run_cli(path), f"the limit of the CuTe DSL front end is {parse_dsl.MAX_PYTHON_CHARS}")


def test_op_count_is_capped(tmp_path):
    path = tmp_path / "many.py"
    lines = ["import cutlass.pipeline as pipeline", "import cutlass.cute as cute", "",
             "@cute.kernel", "def kernel(s):",
             "    p = pipeline.PipelineAsync.create(num_stages=2)"]
    lines += ["    p.producer_acquire(s); p.producer_commit(s)"] * (parse_dsl.MAX_OPS_PER_FUNCTION // 2 + 50)
    path.write_text("\n".join(lines) + "\n")
    proc = run_cli(path, timeout=240)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    model = json.loads(proc.stdout)
    assert len(model["functions"][0]["ops"]) == parse_dsl.MAX_OPS_PER_FUNCTION
    assert any("ops in kernel: the rest are not listed" in w for w in model["warnings"])


def test_nul_bytes_and_binary_are_refused(tmp_path):
    path = tmp_path / "bin.py"
    path.write_bytes(b"import x\n\0\0\0")
    assert_one_line_refusal(run_cli(path), "binary file")


# ----------------------------------------------------------------------------------------------
# Docs: every recognised name is documented in the DSL section (docs/dsl.md)
# ----------------------------------------------------------------------------------------------


def test_docs_name_every_recognised_name():
    section = docs_section("dsl")
    names = set(parse_dsl.PIPELINE_METHODS) | set(parse_dsl.PRODUCER_PARTICIPANT_OPS) | \
        set(parse_dsl.CONSUMER_PARTICIPANT_OPS) | set(parse_dsl.NAMED_BARRIER_OPS) | \
        set(parse_dsl.ORDER_HELPERS) | {f"{a}.{b}" for a, b in parse_dsl.FREE_FUNCTION_OPS}
    missing = sorted(n for n in names if f"`{n}" not in section)
    assert not missing, f"docs section dsl does not name: {missing}"
    for kind in set(parse_dsl.FREE_FUNCTION_OPS.values()) | set(parse_dsl.TMA_STORE_METHODS.values()):
        assert f"`{kind}`" in section, kind
    for limit in (f"{parse_dsl.MAX_HELPER_DEPTH}", f"{parse_dsl.MAX_OPS_PER_FUNCTION}"):
        assert limit in section


# ----------------------------------------------------------------------------------------------
# One recogniser each (tests/fixtures/dsl/recognisers.py)
# ----------------------------------------------------------------------------------------------


def test_recognisers():
    m = fixture("recognisers.py")
    check_contract(m)
    objects = {o["name"]: (o["class"], o["stages"], o["line"]) for o in m["pipeline_objects"]}
    # Created in a helper's `return` (15): named by the caller's binding, at its line (20,
    # DSL_PIPELINE_FACTORY); passed as a keyword: kw@line.
    assert objects == {"acc_pipeline": ("PipelineUmmaAsync", "2", 20),
                       "store_pipeline": ("PipelineTmaStore", "4", 21),
                       "pipeline@23": ("PipelineAsync", "3", 23), "other": ("PipelineAsync", "1", 24)}
    load, epi = m["functions"]
    assert [(o["op"], o["pipeline"], o.get("call")) for o in load["ops"]] == [
        ("producer_acquire", "acc_pipeline", "sync_object_empty.wait"),
        ("umma_arrive", "acc_pipeline", None),
        ("producer_commit", "acc_pipeline", "sync_object_full.arrive"),
        ("producer_commit", "acc_pipeline", None),
        ("order_wait", None, None), ("order_arrive", None, None)]
    assert load["ops"][3]["pipeline_candidates"] == ["acc_pipeline", "other"]
    assert [(o["op"], o["pipeline"], o["line"]) for o in epi["ops"]] == [
        ("consumer_wait", "acc_pipeline", 35), ("named_barrier_sync", None, 36),
        ("tma_store", None, 37), ("tma_store_arrive", None, 38), ("tma_store_wait", None, 39),
        ("tma_store_arrive", "store_pipeline", 40), ("tma_store_wait", "store_pipeline", 41),
        ("named_barrier_sync", None, 42), ("producer_acquire", None, 44),
        ("consumer_release", "acc_pipeline", 51), ("consumer_release", "acc_pipeline", 47)]
    assert (epi["ops"][1]["barrier_id"], epi["ops"][1]["count"]) == ("3", "256")   # self.epi_barrier
    assert (epi["ops"][7]["barrier_id"], epi["ops"][7]["count"]) == ("2", "128")
    assert epi["ops"][4]["count"] == 0 and epi["ops"][2]["operand"] == "C"
    assert epi["ops"][9]["via"] == {"helper": "recurse", "line": 46}
    roles = m["kernel_layer"]["warp_roles"]
    assert [(r["name"], r["warps"], r["test"]) for r in roles] == [
        ("load", [4, 5], "warp_idx >= self.load_warp_ids[0] and warp_idx <= self.load_warp_ids[-1]"),
        ("epilogue", "warp_idx >= self.load_warp_ids[0]", "is_epilogue_warp")]
    assert [w.split(": ", 1)[1] for w in m["warnings"]] == [
        "pipeline@23 passed to make_scheduler, which is not defined in this file: its pipeline ops are not listed",
        "producer_acquire: receiver 'unknown_pipe' not resolved to a pipeline object created in this file",
        "producer_tail: receiver 'sched' not resolved to a pipeline object created in this file (not listed)",
        "recurse: helper calls nested more than 6 deep (or recursive) are not followed"]


def contract_schema():
    """The v1 JSON Schema widened by CONTRACT.md's schema_version 2 additions (until the parser
    helper's v2 schema lands): language, pipeline_objects, new op kinds and fields."""
    schema = json.loads((ROOT / "schema" / "kernel_viz.schema.json").read_text(encoding="utf-8"))
    schema["properties"]["schema_version"] = {"enum": [1, 2, 3]}
    schema["properties"]["language"] = {"enum": ["cpp", "cute-dsl"]}
    schema["properties"]["pipeline_objects"] = {"type": "array", "items": {
        "type": "object", "required": ["name", "alias", "class", "stages", "line", "kind"],
        "properties": {"name": {"type": "string"}, "alias": {"type": ["string", "null"]},
                       "stages": {"type": ["string", "null"]}, "line": {"$ref": "#/$defs/line"},
                       "kind": {"enum": ["parameter", "member", "local", "tuple", "created"]}}}}
    schema["properties"]["constants"] = {"type": "array", "items": {
        "type": "object", "required": ["name", "value", "line"]}}
    ops = schema["$defs"]["op"]["properties"]
    ops["op"]["enum"] += ["tma_store", "tma_store_arrive", "tma_store_wait", "named_barrier_sync",
                          "named_barrier_arrive", "warpgroup_wait", "warpgroup_arrive", "umma_arrive",
                          "warpgroup_commit"]   # warpgroup_commit: parse_dsl's addition
    ops["object"] = {"type": ["string", "null"]}
    ops["unit"] = {"enum": ["wgmma", "umma", "mma"]}
    ops["count"] = {"type": ["integer", "string", "null"]}
    return schema


@pytest.mark.parametrize("name", ["hopper_gemm_classic.py", "blackwell_gemm_participants.py",
                                  "attention_partial_helpers.py", "recognisers.py"])
def test_fixture_models_validate_against_the_contract(name):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(fixture(name), contract_schema())


@pytest.mark.parametrize("name", ["flash_fwd_sm90.py", "flash_fwd_sm100.py", "flash_bwd_sm90.py",
                                  "flash_bwd_sm100.py"])
def test_fa4_models_validate_against_the_contract(name):
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(fa4(name), contract_schema())


def test_viz_renders_a_dsl_kernel(tmp_path):
    import viz
    out = tmp_path / "page.html"
    assert viz.main([str(FIXTURES / "attention_partial_helpers.py"), "-o", str(out)]) == 0
    page = out.read_text(encoding="ascii")
    assert "cute-dsl" in page and "kernel[warp_idx \\u003c 4]" in page
    assert node_util.fit_model(fa4("flash_fwd_sm90.py")) == "attention"


def test_file_without_kernel_is_listed_per_function(tmp_path):
    path = tmp_path / "nokernel.py"
    path.write_text("import cutlass.pipeline as pipeline\n\n"
                    "def setup(s):\n    p = pipeline.PipelineAsync.create(num_stages=2)\n"
                    "    p.producer_acquire(s)\n")
    m = parse_cutlass.parse_file(path)
    assert m["kernel_layer"] is None
    assert [(f["name"], [(o["op"], o["pipeline"]) for o in f["ops"]]) for f in m["functions"]] == [
        ("setup", [("producer_acquire", "p")])]
    assert m["warnings"][-1].endswith("no @cute.kernel function: each function is listed on its own, "
                                      "without role branches")


@pytest.mark.parametrize("name", ["flash_fwd_sm90.py", "flash_fwd_sm100.py", "flash_bwd_sm90.py", "flash_bwd_sm100.py"])
def test_fa4_kernels_validate_against_the_schema(name, validate):
    """Every FA4 kernel's parse is valid JSON of the schema: an op that names no pipeline object
    has no `object` key (it was null, which the schema's `object: str?` refuses)."""
    m = validate(fa4(name))
    assert all("object" not in op or isinstance(op["object"], str) for op in all_ops(m))
