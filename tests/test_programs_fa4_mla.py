"""FlashAttention-4's CuTe DSL MLA forward (flash_attn/cute/flash_fwd_mla_sm100.py, installed) in
the program model (docs/programs.md "FlashAttention-4 MLA forward"): its pipelines come from a
local factory (`make_pipeline(cls, mbar_ptr, num_stages, producer, consumer)`, DSL_PIPELINE_FACTORY),
its helpers take pipelines through positional partials, and its constructor's defaults are a
setting the constructor itself refuses (DSL_CONSTRUCTOR_ASSERTS). Every fact is checked against
the installed source's lines; changed copies go to temporary folders only."""

import pytest

import parse_cutlass
import node_util
from test_parser_dsl import fa4_dir

MLA = "flash_fwd_mla_sm100.py"

RUN = r"""
const S = require(process.argv[1] + "/schedule.js");
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = S.simulate(st, Object.assign({ model: "program" }, JSON.parse(process.argv[2])));
process.stdout.write(JSON.stringify({ error: r.error, total: r.total, summary: r.verdict.summary,
  stopped: r.verdict.stopped.map((s) => [s.role, s.line]), deadlock: r.deadlock && r.deadlock.message,
  idle: r.verdict.idle, waits: r.deadlock ? r.deadlock.waiting.map((w) => [w.lane.replace("role:", ""), w.barrier, w.line]) : [] }));
"""


@pytest.fixture(scope="module")
def source():
    return (fa4_dir() / MLA).read_text().splitlines()


@pytest.fixture(scope="module")
def mla():
    return parse_cutlass.parse_file(fa4_dir() / MLA)


def test_factory_pipelines_are_each_call_with_its_own_stages_line_and_groups(mla, source):
    """DSL_PIPELINE_FACTORY: each binding of `make_pipeline(...)` (926-935) is its own object,
    created at the binding's line with the caller's stage count and groups; a name bound in both
    arms of `if const_expr(self.use_tma_KV)` is one object of both classes."""
    assert source[925].strip().startswith("def make_pipeline(cls, mbar_ptr, num_stages, producer, consumer")
    assert "pipeline_S        = make_pipeline(UmmaAsync, storage.mbar_ptr_S,        self.num_stages_S," in source[942]
    pipes = {p["alias"]: p for p in mla["pipelines"]}
    s = pipes["pipeline_S"]
    assert (s["class"], s["stages"], s["line"]) == ("PipelineUmmaAsync", "self.num_stages_S", 943)
    assert s["creates"] == [{"line": 943, "class": "PipelineUmmaAsync", "groups": {"producer": "mma_warp", "consumer": "sm_threads_cluster"}}]
    k = pipes["pipeline_K"]
    assert k["class"] == ["PipelineTmaUmma", "PipelineAsyncUmma"] and [c["line"] for c in k["creates"]] == [953, 962]
    assert k["creates"][1]["groups"] == {"producer": "relay_warps_cluster", "consumer": "mma_warp"}
    # Before, every call shared the factory's line (927) and stage text (`num_stages`), and an
    # auto-named `PipelineAsyncUmma@927` object was left over, holding K's and V's stages.
    assert not any("@927" in a for a in pipes) and len({p["line"] for p in mla["pipelines"]}) == len(mla["pipelines"])


def test_the_constructors_defaults_are_refused_by_its_own_asserts(mla, source):
    """DSL_CONSTRUCTOR_ASSERTS: `is_topk_gather = True` and `pack_gqa = False` (68-69) fail
    `assert pack_gqa` under `if is_topk_gather:` (94-95): no kernel to run at the defaults, and
    the run says which assert and which parameters."""
    assert "is_topk_gather: bool = True," in source[67] and "pack_gqa: bool = False," in source[68]
    assert source[93].strip() == "if is_topk_gather:" and source[94].strip() == "assert pack_gqa"
    assert source[106].strip() == "assert use_cpasync_load_KV"
    out = node_util.node_script(RUN, mla, {})
    assert out["total"] == 0 and "the constructor refuses these settings: its assert at line 95 is false" in out["summary"]
    assert "is_topk_gather = 1 (default), pack_gqa = 0 (default)" in out["summary"]
    # The next assert (107) names its own parameter once pack_gqa is given.
    out = node_util.node_script(RUN, mla, {"flags": {"pack_gqa": 1}})
    assert "assert at line 107 is false with is_topk_gather = 1 (default), use_cpasync_load_KV = 0 (default)" in out["summary"]


def test_the_gather_setting_runs_its_roles_to_the_cta_pair(mla, source):
    """With the constructor's own asserts met (pack_gqa, use_cpasync_load_KV), the softmax, load
    and relay roles reach their rings: the factory rings, the partials' pipelines
    (`softmax_step_fn = partial(self.softmax_step, ..., pipeline_S, ...)`, 2706; the load's
    `tma_bar_ptr`, DSL_BARRIER_POINTER). The MMA and warp-10 roles stop, named, at the CTA-pair
    test (`is_leader_cta`, from `cute.arch.block_idx_in_cluster()`, 875-877): a 2-CTA kernel whose
    rings expect both CTAs' arrivals is not modelled on one CTA, so no deadlock is the code's."""
    assert "cta_rank_in_cluster = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())" in source[874]
    out = node_util.node_script(RUN, mla, {"flags": {"pack_gqa": 1, "use_cpasync_load_KV": 1}})
    assert out["error"] is None and out["total"] > 0
    assert sorted(out["stopped"]) == [["empty.warp10", 1096], ["empty.warp9", 2385]]
    assert "roles waiting for it cannot go on" in out["deadlock"]
    waits = {r: (b, line) for r, b, line in out["waits"]}
    assert waits["both.warp0"] == ("pipeline_S.full[0]", 2868) and waits["consumer.warp4"][1] == 3055
