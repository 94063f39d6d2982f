"""SM100 (issue 13, parser half): every sm100_* collective and kernel layer of CUTLASS 4.2, and
an SM100-style kernel-layer fixture of our own with literal facts."""

import pytest

import parse_cutlass
from conftest import ROOT

COLLECTIVE = "include/cutlass/gemm/collective/"
KERNEL = "include/cutlass/gemm/kernel/"
MAINLOOP = COLLECTIVE + "sm100_mma_warpspecialized.hpp"
LAYER = KERNEL + "sm100_gemm_tma_warpspecialized.hpp"
EPILOGUE = "include/cutlass/epilogue/collective/sm100_epilogue_tma_warpspecialized.hpp"
CP_ASYNC = ("sm100_mma_cpasync_warpspecialized.hpp",)   # loads with cp.async only


def fn(model, name):
    return next(f for f in model["functions"] if f["name"] == name)


@pytest.fixture(scope="module")
def pair(cutlass, validate):
    return validate(parse_cutlass.parse_file(cutlass(MAINLOOP), cutlass(LAYER)))


def test_mainloop_producer_tma_loads_through_pointer_receivers(pair):
    load = fn(pair, "load")
    tma = [(o["line"], o["receiver"], o["operand"], o["buffer"], o["pipeline"], o["object"])
           for o in load["ops"] if o["op"] == "tma_load"]
    assert tma == [(617, "observed_tma_load_a_", "A", "smem_A", "MainloopPipeline", "mainloop_pipeline"),
                   (618, "observed_tma_load_b_", "B", "smem_B", "MainloopPipeline", "mainloop_pipeline")]
    assert load["role"] == "producer"


def test_mainloop_mma_resolves_the_tuple_of_pipelines(pair):
    mma = fn(pair, "mma")
    got = [(o["op"], o["line"], o["pipeline"], o.get("object")) for o in mma["ops"]]
    assert got == [
        ("consumer_try_wait", 668, "MainloopPipeline", "mainloop_pipeline"),
        ("producer_acquire", 675, "AccumulatorPipeline", "accumulator_pipeline"),
        ("consumer_wait", 681, "MainloopPipeline", "mainloop_pipeline"),
        ("consumer_try_wait", 693, "MainloopPipeline", "mainloop_pipeline"),
        ("mma", 699, "MainloopPipeline", "mainloop_pipeline"),
        ("consumer_release", 705, "MainloopPipeline", "mainloop_pipeline")]
    (umma,) = [o for o in mma["ops"] if o["op"] == "mma"]
    assert umma["unit"] == "umma" and umma["wait_line"] == 681
    objs = {o["name"]: o for o in pair["pipeline_objects"]}
    assert objs["accumulator_pipeline"]["kind"] == "tuple"
    assert {p["alias"]: p["used"] for p in pair["pipelines"]} == {"MainloopPipeline": True, "AccumulatorPipeline": True}
    assert not pair["warnings"]


def test_kernel_layer_warp_roles_schedule_and_facts(pair):
    kl = pair["kernel_layer"]
    assert kl["schedule"] == "sm100" and kl["schedule_line"] == 235
    assert kl["warp_roles"] == [
        {"name": "MMA", "warps": [0], "line": 236}, {"name": "Sched", "warps": [1], "line": 237},
        {"name": "MainloopLoad", "warps": [2], "line": 238}, {"name": "EpilogueLoad", "warps": [3], "line": 239},
        {"name": "Epilogue", "warps": "4+", "line": 240}]
    assert kl["schedule_tag"] == "KernelTmaWarpSpecializedSm100"
    # Not literal in the kernel layer: the text, with its line; the 2-SM choice is a template
    # argument (Allocator1Sm / Allocator2Sm both named), so cta_pair is unknown.
    assert (kl["accumulator_stages"], kl["accumulator_stages_line"]) == (
        "DispatchPolicy::Schedule::AccumulatorPipelineStageCount", 119)
    assert kl["cta_pair"] is None and kl["clc"] is True


def test_kernel_layer_own_pipelines_ops(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(LAYER)))
    classes = {p["alias"]: p["class"] for p in m["pipelines"]}
    assert classes["AccumulatorPipeline"] == "PipelineUmmaAsync"
    assert classes["CLCPipeline"] == "PipelineCLCFetchAsync"
    assert classes["CLCThrottlePipeline"] == "PipelineAsync"
    assert {"MainloopPipeline", "EpiLoadPipeline", "EpiStorePipeline"} <= set(classes)
    ops = [(o["op"], o["line"], o.get("object")) for o in fn(m, "operator()")["ops"]]
    assert ("producer_acquire", 632, "clc_throttle_pipeline") in ops
    assert ("consumer_wait", 692, "clc_throttle_pipeline") in ops
    assert ("clc_query", 697, "clc_pipeline") in ops
    assert [line for op, line, obj in ops if op == "fetch_next_work" and obj == "clc_pipeline"] == [
        664, 701, 741, 819, 877]
    assert ("producer_commit", 770, "accumulator_pipeline") in ops
    objs = {o["name"]: (o["alias"], o["kind"]) for o in m["pipeline_objects"]}
    assert objs["clc_pipeline"] == ("CLCPipeline", "local")
    assert objs["accumulator_pipeline"] == ("AccumulatorPipeline", "local")


def test_epilogue_accumulator_wait_tmem_load_release_and_store(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(EPILOGUE)))
    store = next(f for f in m["functions"] if f["name"] == "store" and
                 any(o["op"] == "tmem_load" for o in f["ops"]))
    acc = [(o["op"], o["line"]) for o in store["ops"] if o.get("object") == "acc_pipeline"]
    assert ("consumer_wait", 866) in acc and ("consumer_release", 888) in acc
    kinds = [o["op"] for o in store["ops"]]
    assert kinds.index("tmem_load") < kinds.index("tma_store")
    assert not m["warnings"]


def test_every_sm100_collective(cutlass_root, validate):
    files = sorted((cutlass_root / COLLECTIVE).glob("sm10[03]_*.hpp"))
    assert len(files) >= 16
    for path in files:
        m = validate(parse_cutlass.parse_file(path))
        assert m["arch"] in ("sm100", "sm103") and not m["warnings"], (path.name, m["warnings"])
        assert all(p["used"] for p in m["pipelines"]), (path.name, [p["alias"] for p in m["pipelines"] if not p["used"]])
        ops = [o for f in m["functions"] for o in f["ops"]]
        producers = [f for f in m["functions"] if f["role"] in ("producer", "both") and
                     any(o["op"] in ("producer_acquire", "producer_try_acquire") for o in f["ops"]) and
                     f["name"].startswith("load")]
        assert producers, path.name
        for f in producers:   # every producer loads (scale factors and cp.async variants: cp_async)
            assert any(o["op"] in ("tma_load", "cp_async") for o in f["ops"]), (path.name, f["name"])
        if path.name not in CP_ASYNC:   # a TMA load in some producer (mixed: load_tma)
            assert any(o["op"] == "tma_load" for f in producers for o in f["ops"]), path.name
        loads = [o for o in ops if o["op"] in ("tma_load", "cp_async")]
        assert all(o["pipeline"] for o in loads), path.name
        mmas = [o for o in ops if o["op"] == "mma"]
        assert mmas and all(o["unit"] == "umma" and o["pipeline"] for o in mmas), path.name
        # the accumulator pipeline arrives as a tuple element (or get<N>) and is resolved
        # (accumulator_pipeline; mma2accum_pipeline in the emulated collectives)
        acc = [o for o in ops if "accum" in o.get("object", "")]
        if any("Accum" in p["alias"] for p in m["pipelines"]):
            assert acc, path.name


def test_every_sm100_kernel_layer(cutlass_root, validate):
    files = sorted((cutlass_root / KERNEL).glob("sm10[03]_*gemm*.hpp"))
    assert len(files) >= 12
    for path in files:
        m = validate(parse_cutlass.parse_file(path))
        kl = m["kernel_layer"]
        assert m["kind"] == "kernel_layer" and kl["schedule"] == "sm100", path.name
        names = [r["name"] for r in kl["warp_roles"]]
        assert names[:2] == ["MMA", "Sched"] and any("Epilogue" == n for n in names), (path.name, names)
        assert kl["accumulator_stages"] is not None and kl["clc"], path.name
        assert [parse_cutlass.warning_kind(w) for w in m["warnings"]] == ["kernel-layer-as-main-file"], path.name
        aliases = {p["alias"] for p in m["pipelines"]}
        assert {"CLCPipeline", "EpiLoadPipeline", "EpiStorePipeline"} <= aliases, path.name
        # the accumulator pipeline: AccumulatorPipeline, or Mma2AccumPipeline in the transform kernels
        acc = {"AccumulatorPipeline", "Mma2AccumPipeline"} & aliases
        assert len(acc) == 1, path.name
        ops = [o for f in m["functions"] for o in f["ops"]]
        assert any(o["op"] == "fetch_next_work" and o["pipeline"] == "CLCPipeline" for o in ops), path.name


def test_literal_sm100_facts_from_a_fixture(validate):
    m = validate(parse_cutlass.parse_file(ROOT / "tests/fixtures/v2_sm100_kernel.hpp"))
    kl = m["kernel_layer"]
    assert m["arch"] == "sm100"   # from the SM100 atom named in the text
    assert (kl["accumulator_stages"], kl["accumulator_stages_line"]) == (2, 7)
    assert kl["cta_pair"] is True and kl["clc"] is True
    assert [(r["name"], r["warps"]) for r in kl["warp_roles"]] == [
        ("MMA", [0]), ("Sched", [1]), ("MainloopLoad", [2, 3]), ("Epilogue", [4, 5, 6, 7]), ("Spare", "8+")]
    assert m["constants"] == [{"name": "AccumulatorPipelineStageCount", "value": 2, "line": 7},
                              {"name": "SchedulerPipelineStageCount", "value": 3, "line": 8}]


def test_sm90_mmas_are_wgmma(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(COLLECTIVE + "sm90_mma_tma_gmma_ss_warpspecialized.hpp")))
    assert {o["unit"] for f in m["functions"] for o in f["ops"] if o["op"] == "mma"} == {"wgmma"}
    m120 = validate(parse_cutlass.parse_file(cutlass(COLLECTIVE + "sm120_mma_tma.hpp")))
    assert {o["unit"] for f in m120["functions"] for o in f["ops"] if o["op"] == "mma"} == {"mma"}
