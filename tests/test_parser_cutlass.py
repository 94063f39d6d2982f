"""Parser tests on the real CUTLASS 4.2 headers of the installed nvidia-cutlass package."""

import json
import subprocess
import sys

import pytest

import parse_cutlass
from conftest import CANONICAL, ROOT, lines_of, ops_of

COLLECTIVE = "include/cutlass/gemm/collective/"
KERNEL = "include/cutlass/gemm/kernel/"
PINGPONG = KERNEL + "sm90_gemm_tma_warpspecialized_pingpong.hpp"
COOPERATIVE = KERNEL + "sm90_gemm_tma_warpspecialized_cooperative.hpp"
BASIC = KERNEL + "sm90_gemm_tma_warpspecialized.hpp"
FMHA = "examples/88_hopper_fmha/collective/"


@pytest.fixture(scope="module")
def canonical(cutlass, validate):
    return validate(parse_cutlass.parse_file(cutlass(CANONICAL), cutlass(PINGPONG)))


def function(model, name):
    return next(f for f in model["functions"] if f["name"] == name)


def test_canonical_pipeline_alias(canonical):
    assert canonical["kind"] == "mainloop"
    assert canonical["arch"] == "sm90"
    assert canonical["source"] == {"path": CANONICAL, "lines": 584}
    (pipe,) = canonical["pipelines"]
    assert pipe["alias"] == "MainloopPipeline"
    assert pipe["class"] == "PipelineTmaAsync"
    assert pipe["stages"] == "DispatchPolicy::Stages"
    assert pipe["line"] == 111


def test_canonical_buffers(canonical):
    bufs = {(b["name"], b["operand"], b["layout"], b["line"]) for b in canonical["buffers"]}
    assert bufs == {("smem_A", "A", "SmemLayoutA", 156), ("smem_B", "B", "SmemLayoutB", 157)}
    assert all(b["struct"] == "TensorStorage" for b in canonical["buffers"])


def test_canonical_producer_load(canonical):
    load = function(canonical, "load")
    assert load["role"] == "producer"
    assert (load["line"], load["end_line"]) == (310, 392)
    assert lines_of(canonical, "load", "producer_acquire") == [374]
    tma = [o for o in load["ops"] if o["op"] == "tma_load"]
    assert [(o["line"], o["operand"], o["buffer"]) for o in tma] == [(384, "A", "smem_A"), (385, "B", "smem_B")]
    assert tma[0]["receiver"] == "mainloop_params.tma_load_a"
    assert tma[0]["pipeline"] == "MainloopPipeline"
    assert tma[0]["text"].startswith("copy(mainloop_params.tma_load_a.with(*tma_barrier, mcast_mask_a)")
    acquire = load["ops"][0]
    assert acquire == {
        "op": "producer_acquire", "line": 374, "end_line": 374, "receiver": "pipeline",
        "pipeline": "MainloopPipeline", "buffer": None, "operand": None,
        "text": "pipeline.producer_acquire(smem_pipe_write);", "object": "pipeline"}


def test_canonical_consumer_mma(canonical):
    mma = function(canonical, "mma")
    assert mma["role"] == "consumer"
    assert lines_of(canonical, "mma", "consumer_wait") == [487, 513, 533]
    assert lines_of(canonical, "mma", "consumer_try_wait") == [486, 512, 532]
    assert lines_of(canonical, "mma", "mma") == [496, 518, 543]
    assert lines_of(canonical, "mma", "consumer_release") == [551]
    # consumer_release in a comment-free source order after the last mma
    kinds = [k for k, _ in ops_of(canonical, "mma")]
    assert kinds[-1] == "consumer_release"
    assert all(o["pipeline"] == "MainloopPipeline" and o["object"] == "pipeline"
               for o in mma["ops"] if not o["op"].startswith("warpgroup_"))
    # WGMMA issue/wait around the MMAs: warpgroup_arrive before each, warpgroup_wait<K_PIPE_MMAS>
    # before the release (the count is the template argument's text when not a literal).
    assert lines_of(canonical, "mma", "warpgroup_arrive") == [490, 516, 541]
    waits = [o for o in mma["ops"] if o["op"] == "warpgroup_wait"]
    assert [(o["line"], o["count"]) for o in waits] == [(547, "K_PIPE_MMAS")]
    assert [o["count"] for o in function(canonical, "mma_tail")["ops"] if o["op"] == "warpgroup_wait"] == [0]
    assert {o["unit"] for o in mma["ops"] if o["op"] == "mma"} == {"wgmma"}
    assert [o["wait_line"] for o in mma["ops"] if o["op"] == "mma"] == [487, 513, 533]
    assert {"name": "K_PIPE_MMAS", "value": 1, "line": 264} in canonical["constants"]
    assert lines_of(canonical, "mma_tail", "consumer_release") == [574]
    assert lines_of(canonical, "load_tail", "producer_tail") == [407]


def test_canonical_kernel_layer_pingpong(canonical):
    kl = canonical["kernel_layer"]
    assert kl["source"]["path"] == PINGPONG
    assert kl["schedule"] == "pingpong"
    assert kl["warpgroup_roles"] == ["Producer", "Consumer0", "Consumer1"]
    assert kl["producer_warp_roles"] == ["Mainloop", "Warp1", "Epilogue", "MainloopAux"]
    assert (kl["num_load_warpgroups"], kl["num_mma_warpgroups"]) == (1, 2)
    assert {(b["alias"], b["line"]) for b in kl["order_barriers"]} == {
        ("LoadWarpOrderBarrier", 151), ("MathWarpGroupOrderBarrier", 155)}
    calls = {(c["receiver"], c["call"], c["line"]) for c in kl["calls"]}
    assert ("collective_mainloop", "mma", 849) in calls
    assert ("math_wg_order_barrier", "wait", 847) in calls
    assert ("collective_epilogue", "store", 886) in calls


def test_kernel_layers_cooperative_and_basic(cutlass, validate):
    coop = validate(parse_cutlass.parse_file(cutlass(COOPERATIVE)))
    kl = coop["kernel_layer"]
    assert coop["kind"] == "kernel_layer"
    assert kl["schedule"] == "cooperative"
    assert kl["warpgroup_roles"] == ["Producer", "Consumer0", "Consumer1"]
    assert kl["num_load_warpgroups"] == 1
    assert kl["num_mma_warpgroups"] == "NumMMAThreads / NumThreadsPerWarpGroup"
    assert [b["alias"] for b in kl["order_barriers"]] == ["LoadWarpOrderBarrier"]
    basic = validate(parse_cutlass.parse_file(cutlass(BASIC)))["kernel_layer"]
    assert basic["schedule"] == "basic"
    assert basic["warpgroup_roles"] == ["Producer", "Consumer"]
    assert (basic["num_load_warpgroups"], basic["num_mma_warpgroups"]) == (1, 1)
    assert basic["schedule_tag"] == "KernelTmaWarpSpecialized"


def test_fp8_variant(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(COLLECTIVE + "sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp")))
    assert [(p["alias"], p["class"], p["line"]) for p in m["pipelines"]] == [("MainloopPipeline", "PipelineTmaAsync", 113)]
    assert lines_of(m, "load", "producer_acquire") == [372]
    assert lines_of(m, "load", "tma_load") == [382, 383]
    assert lines_of(m, "mma", "consumer_wait") == [492, 523]
    assert lines_of(m, "mma", "mma") == [504, 541]
    assert lines_of(m, "mma", "consumer_release") == [552]


def test_multistage_cp_async(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(COLLECTIVE + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp")))
    assert [(p["class"], p["line"]) for p in m["pipelines"]] == [("PipelineAsync", 111)]
    load = function(m, "load")
    assert load["role"] == "producer"
    cp = [(o["line"], o["operand"], o["buffer"], o["receiver"]) for o in load["ops"] if o["op"] == "cp_async"]
    assert cp == [(271, "A", "smem_A", "gmem_tiled_copy_a"), (281, "B", "smem_B", "gmem_tiled_copy_b"),
                  (305, "A", "smem_A", "gmem_tiled_copy_a"), (306, "B", "smem_B", "gmem_tiled_copy_b")]
    assert lines_of(m, "load", "producer_commit") == [291, 310]
    assert not any(o["op"] == "tma_load" for o in load["ops"])


# sm90_mma_tma_gmma_ss.hpp is the non-warp-specialized SM90 mainloop: one operator() both
# issues the TMA loads and runs the GMMAs, so it has a single function of role "both".
NOT_WARP_SPECIALIZED = {"sm90_mma_tma_gmma_ss.hpp"}


def test_every_sm90_collective_has_pipeline_producer_consumer(cutlass_root, validate):
    files = sorted((cutlass_root / COLLECTIVE).glob("sm90_*.hpp"))
    assert len(files) >= 14
    for path in files:
        m = validate(parse_cutlass.parse_file(path))
        roles = [f["role"] for f in m["functions"]]
        assert m["pipelines"], path.name
        if path.name in NOT_WARP_SPECIALIZED:
            assert roles.count("both") == 1 and "producer" not in roles and "consumer" not in roles, path.name
            both = next(f for f in m["functions"] if f["role"] == "both")
            kinds = {o["op"] for o in both["ops"]}
            assert {"producer_acquire", "tma_load", "consumer_wait", "mma", "consumer_release"} <= kinds
            continue
        assert "producer" in roles and "consumer" in roles, (path.name, roles)
        assert not m["warnings"], (path.name, m["warnings"])
        ops = {o["op"] for f in m["functions"] for o in f["ops"]}
        assert {"producer_acquire", "consumer_wait", "mma", "consumer_release"} <= ops, path.name
        assert ops & {"tma_load", "cp_async"}, path.name
        # Every stage buffer is found (array_aligned or, in the sparse and mixed-input
        # collectives, ArrayEngine), so every A/B load names the buffer it fills.
        assert {"smem_A", "smem_B"} <= {b["name"] for b in m["buffers"]}, path.name
        loads = [o for f in m["functions"] for o in f["ops"] if o["op"] in ("tma_load", "cp_async")]
        assert all(o["buffer"] == "smem_" + o["operand"] for o in loads if o["operand"] in ("A", "B")), \
            (path.name, [(o["line"], o["operand"], o["buffer"]) for o in loads])


def test_fmha_collective_several_pipelines(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(FMHA + "fmha_collective_tma_warpspecialized.hpp")))
    pipes = {p["alias"]: (p["class"], p["stages"], p["line"]) for p in m["pipelines"]
             if not p.get("template_parameter")}
    assert pipes == {"MainloopPipeline": ("PipelineTmaAsync", "Stages::value", 118),
                     "MainloopPipelineQ": ("PipelineTmaAsync", "StagesQ::value", 119)}
    # compute()'s `template <..., class MainloopPipelineReducer, ...>` is reported as such.
    assert [(p["alias"], p["line"]) for p in m["pipelines"] if p.get("template_parameter")] == \
        [("MainloopPipelineReducer", 331)]
    assert {b["name"] for b in m["buffers"]} == {"smem_q", "smem_k", "smem_v"}
    load = function(m, "load_kv_maybe_q")
    assert load["role"] == "producer"
    loads = [(o["line"], o["operand"], o["pipeline"], o["buffer"]) for o in load["ops"] if o["op"] == "tma_load"]
    assert (272, "Q", "MainloopPipelineQ", "smem_q") in loads
    assert (275, "K", "MainloopPipeline", "smem_k") in loads
    assert (289, "V", "MainloopPipeline", "smem_v") in loads
    compute = function(m, "compute")
    assert compute["role"] == "consumer"
    waits = [(o["line"], o["pipeline"]) for o in compute["ops"] if o["op"] == "consumer_wait"]
    assert waits[0] == (379, "MainloopPipelineQ")
    assert (399, "MainloopPipeline") in waits
    mmas = [(o["line"], o["receiver"]) for o in compute["ops"] if o["op"] == "mma"]
    assert (406, "tiled_mma_qk") in mmas and (427, "tiled_mma_pv") in mmas
    # The commented-out release at line 517 is not an op.
    assert 517 not in [o["line"] for o in compute["ops"]]
    assert [o["line"] for o in compute["ops"] if o["op"] == "order_wait"][:1] == [400]


def test_fmha_load_helper_template_pipeline(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(FMHA + "fmha_collective_load.hpp")))
    (pipe,) = m["pipelines"]
    assert pipe["alias"] == "Pipeline" and pipe.get("template_parameter")
    step = function(m, "step")
    assert step["role"] == "producer"
    assert [(o["op"], o["line"]) for o in step["ops"]] == [
        ("producer_acquire", 124), ("producer_get_barrier", 126), ("tma_load", 129), ("tma_load", 131)]
    assert all(o["pipeline"] == "Pipeline" for o in step["ops"])


def test_driver_file_lists_candidates(cutlass_root):
    driver = cutlass_root / "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), str(driver)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    first, *notes = proc.stderr.splitlines()
    assert "48_hopper_warp_specialized_gemm.cu" in first
    assert "collective mainloop" in first and "CollectiveBuilder" in first
    assert "Traceback" not in proc.stderr
    assert f"  note: candidate mainloop: {CANONICAL}" in notes


def test_scan_cli_json_and_table(cutlass_root, tmp_path):
    """The CLI's --scan (the whole tree is tests/test_scan_tree.py's): JSON lines and the table."""
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan",
                           str(cutlass_root / "include" / "cutlass" / "gemm" / "collective"), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {r["path"]: r for r in map(json.loads, proc.stdout.splitlines())}
    row = rows["sm90_mma_tma_gmma_ss_warpspecialized.hpp"]
    assert row == {"path": "sm90_mma_tma_gmma_ss_warpspecialized.hpp",
                   "kind": "mainloop", "arch": "sm90", "file_kind": "hpp", "pipeline_classes": ["PipelineTmaAsync"],
                   "pipeline_objects": 1, "producers": 2, "consumers": 2, "ops": 21, "warnings": 0}
    assert rows["sm100_mma_warpspecialized.hpp"]["pipeline_classes"] == ["PipelineTmaUmmaAsync", "template parameter"]
    assert len(rows) >= 39
    # the SM80 collectives use cp.async without a pipeline class but are still listed; SM70's
    # two-stage mainloop copies gmem -> registers -> smem (no cp.async, no pipeline API): not listed
    assert rows["sm80_mma_multistage.hpp"]["pipeline_classes"] == []
    assert "sm70_mma_twostage.hpp" not in rows
    # kernel layers (copied: the scan of a small directory), a .cu driver is not listed
    for rel in (PINGPONG, KERNEL + "sm100_gemm_tma_warpspecialized.hpp",
                "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"):
        (tmp_path / rel.rsplit("/", 1)[1]).write_bytes((cutlass_root / rel).read_bytes())
    table = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(tmp_path)],
                           capture_output=True, text=True, timeout=120)
    assert table.returncode == 0
    lines = [ln.split("\t") for ln in table.stdout.splitlines()]
    # A header row names the columns (issue 23 §7): arch and pipeline objects among them.
    assert lines[0] == ["path", "file", "kind", "arch", "pipelines", "objects", "producers", "consumers", "ops", "warnings"]
    assert [ln[:4] for ln in lines[1:]] == [["sm100_gemm_tma_warpspecialized.hpp", "hpp", "kernel_layer", "sm100"],
                                           ["sm90_gemm_tma_warpspecialized_pingpong.hpp", "hpp", "kernel_layer", "sm90"]]
    assert all(len(ln) == len(lines[0]) for ln in lines)
    assert table.stderr.strip() == "2 files use the pipeline API"


def test_scan_fit_column_and_epilogue_kind(cutlass_root, tmp_path):
    """--fit adds the model each file fits, or why none (schedule.js's fitModel through node);
    an epilogue collective is kind epilogue, not mainloop (issue 23 §7)."""
    import node_util
    node_util.node()
    for rel in (CANONICAL, "include/cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp",
                "include/cutlass/gemm/collective/sm90_mma_tma_gmma_rs_warpspecialized.hpp"):
        (tmp_path / rel.rsplit("/", 1)[1]).write_bytes((cutlass_root / rel).read_bytes())
    table = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(tmp_path), "--fit"],
                           capture_output=True, text=True, timeout=120)
    assert table.returncode == 0, table.stderr
    rows = [ln.split("\t") for ln in table.stdout.splitlines()]
    assert rows[0][-1] == "model"
    got = {r[0]: (r[2], r[-1]) for r in rows[1:]}
    assert got["sm90_mma_tma_gmma_ss_warpspecialized.hpp"] == ("mainloop", "gemm")
    kind, model = got["sm90_epilogue_tma_warpspecialized.hpp"]
    assert kind == "epilogue" and model.startswith("none: an epilogue collective")
    assert got["sm90_mma_tma_gmma_rs_warpspecialized.hpp"][1].startswith("none: mma() releases its stages")
    js = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(tmp_path), "--fit", "--json"],
                        capture_output=True, text=True, timeout=120)
    fits = {r["path"]: r["fit"] for r in map(json.loads, js.stdout.splitlines())}
    assert fits["sm90_mma_tma_gmma_ss_warpspecialized.hpp"]["model"] == "gemm"
    assert all("_model" not in line for line in js.stdout.splitlines())


def test_lookup_by_name_under_installed_package(cutlass_root):
    assert parse_cutlass.locate("sm90_mma_tma_gmma_ss_warpspecialized.hpp") == cutlass_root / CANONICAL
    assert parse_cutlass.locate("cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp") == \
        cutlass_root / PINGPONG


def test_cutlass_path_env_lookup(tmp_path, monkeypatch):
    tree = tmp_path / "mycutlass" / "include" / "cutlass"
    tree.mkdir(parents=True)
    (tree / "my_mainloop.hpp").write_text("void f(P pipeline) { pipeline.producer_acquire(s); }\n")
    monkeypatch.setenv("CUTLASS_PATH", str(tmp_path / "mycutlass"))
    assert parse_cutlass.locate("my_mainloop.hpp") == tree / "my_mainloop.hpp"
    with pytest.raises(parse_cutlass.InputError) as err:
        parse_cutlass.locate("no_such_header_anywhere.hpp")
    assert "no such file" in str(err.value)


def test_kernel_layer_as_main_file(cutlass, validate):
    m = validate(parse_cutlass.parse_file(cutlass(PINGPONG)))
    assert m["kind"] == "kernel_layer"
    assert m["kernel_layer"]["schedule"] == "pingpong"
