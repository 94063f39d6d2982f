"""Raw mbarrier rings (parse_mbarrier.py, docs/parser.md "Raw mbarrier rings"): kernels that drive
their mbarriers themselves, read from fixtures written for this project in the style of DeepGEMM
and FlashMLA (tests/fixtures/raw_mbarrier_*.cuh), from mutated copies of them, and, when
DEEPGEMM_PATH / FLASHMLA_PATH name a checkout (or a bare git directory), from the real kernels."""

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
import viz  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
GEMM = FIXTURES / "raw_mbarrier_ring_gemm.cuh"
ATTN = FIXTURES / "raw_mbarrier_plan_attn.cuh"


def rings(model):
    """{alias: pipeline entry} of the model's mbarrier rings."""
    return {p["alias"]: p for p in model["pipelines"] if p["class"] == "mbarrier_ring"}


def ops(model):
    """Every op of the model, in function order."""
    return [o for f in model["functions"] for o in f["ops"]]


def line_of(path, needle, nth=0):
    """1-based line of the nth occurrence of needle in a fixture."""
    hits = [i + 1 for i, text in enumerate(Path(path).read_text().splitlines()) if needle in text]
    return hits[nth]


def test_deepgemm_style_ring_pair(validate):
    m = validate(parse_cutlass.parse_file(GEMM))
    assert m["warnings"] == []
    r = rings(m)
    assert sorted(r) == ["free_bars", "ready_bars"]
    ready, free = r["ready_bars"], r["free_bars"]
    assert ready["stages"] == free["stages"] == "kStageCount"
    assert ready["line"] == line_of(GEMM, "auto ready_bars")
    assert ready["ring"]["stages_from"] == "init loop"
    assert ready["ring"]["stages_line"] == line_of(GEMM, "for (uint32_t s = 0; s < kStageCount")
    assert (ready["ring"]["role"], ready["ring"]["partner"], ready["ring"]["role_from"]) == ("full", "free_bars", "name")
    assert (free["ring"]["role"], free["ring"]["partner"]) == ("empty", "ready_bars")
    assert ready["ring"]["phase"] == ["lap"] and free["ring"]["phase"] == ["lap ^ 1"]
    by = [(o["op"], o["line"], o.get("pipeline"), o.get("phase"), o.get("bytes"), o.get("stage")) for o in ops(m)
          if o.get("pipeline") in r]
    assert by == [
        ("barrier_wait", line_of(GEMM, "free_bars[slot]->wait"), "free_bars", "lap ^ 1", None, "slot"),
        ("tma_load", line_of(GEMM, "tma::copy"), "ready_bars", None, None, "slot"),
        ("tma_load", line_of(GEMM, "tma::copy", 1), "ready_bars", None, None, "slot"),
        # `auto& landing = *ready_bars[slot];` then `landing.arrive_and_expect_tx(...)`
        ("barrier_arrive", line_of(GEMM, "landing.arrive_and_expect_tx"), "ready_bars", None, "kBytesA + kBytesB", "slot"),
        ("barrier_wait", line_of(GEMM, "ready_bars[slot]->wait"), "ready_bars", "lap", None, "slot"),
        # the `release` lambda's arrive, at its call site
        ("barrier_arrive", line_of(GEMM, "free_bars[s]->arrive()"), "free_bars", None, None, "s"),
    ]
    release = [o for o in ops(m) if o.get("via", {}).get("lambda") == "release"]
    assert [o["via"]["line"] for o in release] == [line_of(GEMM, "release(slot);")]
    mma = [o for o in ops(m) if o["op"] == "mma"]
    assert [(o["line"], o["unit"], o["receiver"]) for o in mma] == [(line_of(GEMM, "WGMMA::wgmma"), "wgmma", "WGMMA::wgmma")]
    objects = {o["name"]: o for o in m["pipeline_objects"]}
    assert objects["ready_bars"]["kind"] == "mbarrier_ring" and objects["ready_bars"]["stages"] == "kStageCount"


def test_flashmla_style_plan_barriers(validate):
    m = validate(parse_cutlass.parse_file(ATTN))
    r = rings(m)
    assert sorted(r) == ["bar_kv_empty", "bar_kv_full", "bar_s_done", "tile_bars"]
    assert r["bar_kv_full"]["stages"] == "kNumBufs" and r["bar_kv_full"]["ring"]["stages_from"] == "array extent"
    assert r["bar_kv_full"]["line"] == r["bar_kv_empty"]["line"] == line_of(ATTN, "TMABarrier bar_kv_full[")
    assert r["bar_kv_empty"]["text"] == "TMABarrier bar_kv_empty[kNumBufs]"
    assert (r["bar_kv_full"]["ring"]["role"], r["bar_kv_full"]["ring"]["partner"]) == ("full", "bar_kv_empty")
    assert r["bar_s_done"]["ring"]["role"] is None and r["bar_s_done"]["ring"]["partner"] is None
    assert r["tile_bars"]["stages"] == "kNumTiles"
    # The MMA commits name their ring; the single barrier keeps pipeline null, without a warning.
    commits = [(o["line"], o.get("pipeline"), o.get("stage")) for o in ops(m) if o["op"] == "umma_arrive"]
    assert commits == [(line_of(ATTN, "umma_arrive_noelect"), "bar_kv_empty", "buf"),
                       (line_of(ATTN, "umma_arrive_multicast_2x1SM"), "bar_s_done", "buf")]
    single = [(o["op"], o["pipeline"], o.get("bytes"), o.get("phase")) for o in ops(m) if o.get("barrier") == "bar_q_loaded"]
    assert single == [("tma_load", None, None, None), ("barrier_arrive", None, "64 * 576 * 2", None),
                      ("barrier_wait", None, None, "0")]
    assert {(o["line"], o["unit"]) for o in ops(m) if o["op"] == "mma"} == {
        (line_of(ATTN, "ku::utcmma_ss(mma"), "umma"), (line_of(ATTN, "ku::utcmma_ss(params"), "umma")}
    # `barrier->wait(phase)` on a pointer parameter: listed, not tied to a ring, and said so.
    line = line_of(ATTN, "barrier->wait(phase)")
    assert m["warnings"] == [f"{m['source']['path']}:{line}: barrier_wait on mbarrier 'barrier': not an element of "
                             "a ring indexed in this file nor a barrier initialised here (a pointer or "
                             "parameter; its ring is not followed)"]
    assert parse_cutlass.warning_kind(m["warnings"][0]) == "mbarrier-unresolved"
    assert any(o["op"] == "barrier_wait" and o["barrier"] == "barrier" and o["pipeline"] is None for o in ops(m))


def parse_mutated(path, old, new, count=1):
    """The model of a fixture with `old` replaced by `new` (the replacement must happen)."""
    text = path.read_text()
    assert text.count(old) >= count, old
    return parse_cutlass.parse_text(text.replace(old, new), path, path.name)


def test_no_init_loop_no_stage_count_and_a_warning():
    m = parse_mutated(GEMM, "for (uint32_t s = 0; s < kStageCount; ++ s) {", "{ uint32_t s = 0;")
    r = rings(m)
    assert r["ready_bars"]["stages"] == "" and r["ready_bars"]["ring"]["stages_from"] is None
    warned = [w for w in m["warnings"] if "mbarrier ring 'ready_bars': its stage count is not spelled" in w]
    assert [parse_cutlass.warning_kind(w) for w in warned] == ["mbarrier-ring-stages"]


def test_index_modulo_gives_the_stage_count():
    m = parse_mutated(GEMM, "for (uint32_t s = 0; s < kStageCount; ++ s) {", "{ uint32_t s = 0;")
    m = parse_cutlass.parse_text(GEMM.read_text()
                                 .replace("for (uint32_t s = 0; s < kStageCount; ++ s) {", "{ uint32_t s = 0;")
                                 .replace("ready_bars[slot]->wait(lap)", "ready_bars[kt % kStageCount]->wait(lap)"),
                                 GEMM, GEMM.name)
    ring = rings(m)["ready_bars"]
    assert ring["stages"] == "kStageCount" and ring["ring"]["stages_from"] == "index modulo"
    assert ring["ring"]["stages_line"] == line_of(GEMM, "ready_bars[slot]->wait")


def test_wait_without_phase_is_no_op():
    m = parse_mutated(GEMM, "free_bars[slot]->wait(lap ^ 1);", "free_bars[slot]->wait();")
    assert not any(o["op"] == "barrier_wait" and o.get("pipeline") == "free_bars" for o in ops(m))


def test_unindexed_names_make_no_ring():
    text = GEMM.read_text().replace("ready_bars[s]->init(1);", "").replace("free_bars[s]->init(kMathThreads / 32);", "")
    text = text.replace("free_bars[slot]", "free_bar").replace("ready_bars[slot]", "ready_bar").replace("free_bars[s]", "free_bar")
    m = parse_cutlass.parse_text(text, GEMM, GEMM.name)
    assert rings(m) == {}
    # A file that drives no ring is not read by this pass at all (CUTLASS's kernel layers wait on
    # single ClusterBarriers beside their pipeline classes): no barrier op, no warning.
    assert not any(o["op"] in ("barrier_wait", "barrier_arrive") for o in ops(m))
    assert not any("mbarrier" in w for w in m["warnings"])


def test_roles_by_use_when_names_say_nothing():
    text = GEMM.read_text().replace("ready_bars", "stage_mbar_a").replace("free_bars", "stage_mbar_b")
    m = parse_cutlass.parse_text(text, GEMM, GEMM.name)
    r = rings(m)
    assert (r["stage_mbar_a"]["ring"]["role"], r["stage_mbar_a"]["ring"]["partner"], r["stage_mbar_a"]["ring"]["role_from"]) \
        == ("full", "stage_mbar_b", "use")
    assert (r["stage_mbar_b"]["ring"]["role"], r["stage_mbar_b"]["ring"]["partner"]) == ("empty", "stage_mbar_a")


def test_cutlass_pipelines_are_untouched(cutlass):
    """A CUTLASS collective gets no ring: its barriers are its pipeline class's."""
    m = parse_cutlass.parse_file(cutlass("include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"))
    assert rings(m) == {}
    assert not any(o.get("stage") or o.get("phase") for o in ops(m))
    # cutlass/arch/barrier.h initialises arrays it is given (initialize_barrier_array_pair) and
    # drives no ring: still refused.
    with pytest.raises(parse_cutlass.ParseError, match="no CUTLASS pipeline API"):
        parse_cutlass.parse_file(cutlass("include/cutlass/arch/barrier.h"))


def test_scan_lists_the_ring_files(tmp_path):
    for f in (GEMM, ATTN):
        (tmp_path / f.name).write_text(f.read_text())
    out = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert sorted(Path(r["path"]).name for r in rows) == sorted([GEMM.name, ATTN.name])


def test_pipeline_class_implementation_gets_no_ring(cutlass):
    """CUTLASS's own pipeline classes wait on `full_barrier_ptr_[stage].wait(phase)`: that is the
    class the pipeline recognisers read at its users, not a raw ring."""
    path = cutlass("include/cutlass/pipeline/sm90_pipeline.hpp")
    assert "full_barrier_ptr_[stage].wait(phase)" in path.read_text()
    m = parse_cutlass.parse_text(path.read_text(), path, path.name)
    assert rings(m) == {} and not any(o.get("stage") for o in ops(m))


# ------------------------------------------------------------------------------------------------
# The CuTe DSL: cute.arch.mbarrier_*(ptr + stage, ...)
# ------------------------------------------------------------------------------------------------

DSL = FIXTURES / "raw_mbarrier_dsl_ring.py"


def test_dsl_ring_pair(validate):
    import parse_dsl
    m = validate(parse_dsl.parse_file(DSL))
    assert m["warnings"] == []
    r = rings(m)
    assert sorted(r) == ["slot_empty", "slot_full"]
    full = r["slot_full"]
    assert full["stages"] == "self.num_stages" and full["ring"]["stages_from"] == "init loop"
    assert full["ring"]["stages_line"] == line_of(DSL, "for i in range(self.num_stages)")
    assert (full["ring"]["role"], full["ring"]["partner"], full["ring"]["role_from"]) == ("full", "slot_empty", "name")
    got = [(f["name"], o["op"], o["line"], o.get("pipeline"), o.get("phase"), o.get("bytes"), o.get("stage"))
           for f in m["functions"] for o in f["ops"] if o.get("barrier")]
    assert got == [
        ("kernel", "barrier_wait", line_of(DSL, "mbarrier_wait(slot_full"), "slot_full", "phase", None, "stage"),
        ("kernel", "barrier_arrive", line_of(DSL, "mbarrier_arrive(slot_empty"), "slot_empty", None, None, "stage"),
        # a single barrier: listed, no ring
        ("kernel", "barrier_arrive", line_of(DSL, "mbarrier_arrive(done_mbar)"), None, None, None, None),
        ("kernel[warp_idx == 0]", "barrier_wait", line_of(DSL, "mbarrier_wait(slot_empty"), "slot_empty", "phase ^ 1", None, "stage"),
        ("kernel[warp_idx == 0]", "barrier_arrive", line_of(DSL, "arrive_and_expect_tx(bar"), "slot_full", None, "self.tx_bytes", "stage"),
        # `bar = slot_full + stage` then `cute.copy(..., tma_bar_ptr=bar)`: the copy lands on the ring
        ("kernel[warp_idx == 0]", "tma_load", line_of(DSL, "cute.copy(tma_atom_a"), "slot_full", None, None, "stage"),
    ]
    assert {o["name"]: o["kind"] for o in m["pipeline_objects"]} == {"slot_full": "mbarrier_ring", "slot_empty": "mbarrier_ring"}


def test_dsl_without_rings_is_still_refused(tmp_path):
    import parse_dsl
    text = DSL.read_text().replace("slot_full + i", "slot_full").replace("slot_empty + i", "slot_empty")
    text = text.replace("slot_full + stage", "slot_full").replace("slot_empty + stage", "slot_empty")
    path = tmp_path / "no_ring.py"
    path.write_text(text)
    with pytest.raises(parse_cutlass.ParseError, match="no CuTe DSL pipeline objects"):
        parse_dsl.parse_file(path)


def test_dsl_fa4_mla_part_barriers(validate):
    """FA4's MLA forward keeps a raw ring beside its pipelines (mbar_KV_part + stage offsets)."""
    import parse_dsl
    from test_parser_dsl import fa4_dir
    path = fa4_dir() / "flash_fwd_mla_1cta_kb64_sm100.py"
    if not path.is_file():
        pytest.skip(f"{path} is not in this flash-attn-4")
    m = validate(parse_dsl.parse_file(path))
    ring = rings(m)["mbar_KV_part"]
    assert ring["stages"] == "self.num_latent_part_mbars * self.num_stages_KV"
    assert ring["ring"]["stages_from"] == "init loop" and ring["ring"]["role"] == "full"
    assert {o["op"] for o in ops(m) if o.get("pipeline") == "mbar_KV_part"} >= {"barrier_wait", "barrier_arrive"}


# ------------------------------------------------------------------------------------------------
# The page: no model claims a schedule for these kernels
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [GEMM, ATTN], ids=lambda p: p.name)
def test_no_schedule_model_fits(path):
    got = node_util.fits([parse_cutlass.parse_file(path)])[0]
    assert got["fit"]["model"] is None and got["total"] == 0, got["fit"]


def test_viz_writes_the_no_model_page_and_graph_with_the_rings(tmp_path, capsys):
    wave, graph = tmp_path / "w.html", tmp_path / "g.html"
    assert viz.main([str(GEMM), "-o", str(wave)]) == 0
    assert viz.main([str(GEMM), "--mode", "graph", "-o", str(graph)]) == 0
    for page in (wave, graph):
        html = page.read_text()
        assert "mbarrier_ring" in html and "ready_bars" in html
    assert viz.main([str(GEMM), "--print-json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert sorted(rings(printed)) == ["free_bars", "ready_bars"]


def test_browser_no_model_page_lists_the_rings(open_page, tmp_path):
    out = tmp_path / "ring_waveform.html"
    assert viz.main([str(GEMM), "-o", str(out)]) == 0
    page = open_page(out.as_uri())
    assert page.get_attribute("#verdict", "data-state") == "no-model"
    assert "Total" not in page.inner_text("#verdict")
    text = page.inner_text("#structure")
    assert f"ready_bars = mbarrier_ring<kStageCount> (line {line_of(GEMM, 'auto ready_bars')})" in text
    assert page.is_hidden("#wave")


# ------------------------------------------------------------------------------------------------
# The real kernels (local only): DEEPGEMM_PATH / FLASHMLA_PATH name a checkout or a bare git dir
# ------------------------------------------------------------------------------------------------


def real_file(var, rel, tmp_path):
    """A real source from the checkout (or bare git directory, read at HEAD) $var names, else skip."""
    root = os.environ.get(var)
    if not root:
        pytest.skip(f"{var} is not set (a DeepGEMM / FlashMLA checkout or bare git directory)")
    root = Path(root)
    if (root / rel).is_file():
        return root / rel
    out = subprocess.run(["git", f"--git-dir={root}", "show", f"HEAD:{rel}"], capture_output=True, timeout=60)
    if out.returncode != 0:
        pytest.skip(f"{var}={root} has no {rel}")
    path = tmp_path / Path(rel).name
    path.write_bytes(out.stdout)
    return path


def test_real_deepgemm_sm90_fp8_gemm_1d1d(tmp_path, validate):
    m = validate(parse_cutlass.parse_file(real_file(
        "DEEPGEMM_PATH", "deep_gemm/include/deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh", tmp_path)))
    r = rings(m)
    assert sorted(r) == ["empty_barriers", "full_barriers"]
    assert r["full_barriers"]["stages"] == "kNumStages" and r["full_barriers"]["ring"]["stages_from"] == "init loop"
    assert (r["full_barriers"]["ring"]["role"], r["full_barriers"]["ring"]["partner"]) == ("full", "empty_barriers")
    assert r["empty_barriers"]["ring"]["phase"] == ["phase ^ 1"]
    kinds = {o["op"] for o in ops(m) if o.get("pipeline") == "full_barriers"}
    assert kinds == {"tma_load", "barrier_arrive", "barrier_wait"}
    assert any(o.get("via", {}).get("lambda") == "empty_barrier_arrive" and o["pipeline"] == "empty_barriers"
               for o in ops(m))
    assert node_util.fits([m])[0]["fit"]["model"] is None


def test_real_deepgemm_sm100_tmem_rings(tmp_path, validate):
    m = validate(parse_cutlass.parse_file(real_file(
        "DEEPGEMM_PATH", "deep_gemm/include/deep_gemm/impls/sm100_fp8_fp4_gemm_1d1d.cuh", tmp_path)))
    r = rings(m)
    assert {"full_barriers", "empty_barriers", "tmem_full_barriers", "tmem_empty_barriers"} <= set(r)
    assert r["tmem_full_barriers"]["stages"] == "kNumEpilogueStages"
    assert any(o["op"] == "umma_arrive" and o.get("pipeline") == "tmem_full_barriers" for o in ops(m))


def test_real_flashmla_sm90_dense_decode(tmp_path, validate):
    m = validate(parse_cutlass.parse_file(real_file(
        "FLASHMLA_PATH", "csrc/sm90/decode/dense/splitkv_mla.cuh", tmp_path)))
    r = rings(m)
    assert sorted(r) == ["barriers_K0", "barriers_K1"]
    assert r["barriers_K0"]["stages"] == r["barriers_K1"]["stages"] == "9"
    assert r["barriers_K1"]["used"] is False   # only passed to helpers as a pointer
    assert sum("on mbarrier 'barrier': not an element of a ring" in w for w in m["warnings"]) == 4


def test_real_flashmla_sm100_decode(tmp_path, validate):
    m = validate(parse_cutlass.parse_file(real_file(
        "FLASHMLA_PATH", "csrc/sm100/decode/head64/kernel.cuh", tmp_path)))
    r = rings(m)
    assert (r["bar_raw_ready"]["ring"]["role"], r["bar_raw_ready"]["ring"]["partner"]) == ("full", "bar_raw_free")
    assert r["bar_raw_ready"]["stages"] == "NUM_BUFS"
    assert r["bar_valid_coord_scale_free"]["stages"] == "NUM_INDEX_BUFS"
    assert any(o["op"] == "tma_load" and o.get("pipeline") == "bar_raw_ready" for o in ops(m))


def test_many_rings_stay_linear_and_bounded():
    """20,000 distinct ring names: at most MAX_RINGS listed, with a warning, and no quadratic pass
    (a generous hang bound, not a timing)."""
    import time
    import parse_mbarrier
    text = "__global__ void k() {\n" + "".join(f"  bar_{i}[s].wait(p);\n" for i in range(20000)) + "}\n"
    t0 = time.monotonic()
    m = parse_cutlass.parse_text(text, "many.cuh")
    assert time.monotonic() - t0 < 120
    assert len(rings(m)) == parse_mbarrier.MAX_RINGS
    assert f"many.cuh: more than {parse_mbarrier.MAX_RINGS} mbarrier rings; the rest are not listed " \
        "(their ops keep their ring's name)" in m["warnings"]
    assert parse_cutlass.warning_kind(m["warnings"][-1]) in ("mbarrier-ring-budget", "mbarrier-ring-stages")
    assert sum(parse_cutlass.warning_kind(w) == "mbarrier-ring-budget" for w in m["warnings"]) == 1
