"""Python-level tests of the waveform page: markers, JSON embedding and escaping, determinism, knobs."""

import copy
import html
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pagekit  # noqa: E402
import node_util  # noqa: E402
import render_waveform as rw  # noqa: E402
from docs_util import docs_page  # noqa: E402

# The canonical example; KV_EXAMPLE_JSON points the tests at another parsed structure.
EXAMPLE = Path(os.environ.get("KV_EXAMPLE_JSON", ROOT / "examples" / "sm90_gemm_pingpong.json"))
FA3_EXAMPLE = ROOT / "examples" / "fa3_fwd.json"
FMHA_COLLECTIVE = "examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp"
RE_MODEL = re.compile(r'<script type="application/json" id="model">(?P<json>[^<]*)</script>')


@pytest.fixture(scope="module")
def parsed():
    """The canonical parsed structure."""
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def model_of(page):
    """Return the JSON model embedded in a rendered page."""
    found = RE_MODEL.findall(page)
    assert len(found) == 1, "exactly one model element"
    return json.loads(found[0])


RE_PACKED = re.compile(r'<script type="text/plain" class="kv-code" data-name="(\w+)"(?: data-json="\w+")?>([A-Za-z0-9+/=]*)</script>')


def page_scripts(page):
    """[(name, text)] of the page's packed scripts, in the order the start-up script runs them."""
    return [(name, rw.unpack_js(packed)) for name, packed in RE_PACKED.findall(page)]


def test_all_markers_filled_and_assets_inlined(parsed):
    page = rw.render(parsed)
    assert "@@" not in page
    assert page.count('id="model"') == 1
    for asset, probe in [
        (rw.THEME_CSS_ASSET, "--kind-wait-hatch"),
        (rw.WAVEFORM_CSS_ASSET, ".kv-tooltip"),
        (rw.COMMON_CSS_ASSET, ".kc-overlay"),
        (rw.BOOT_JS_ASSET, "DecompressionStream"),
    ]:
        assert probe in pagekit.read_asset(asset)
        assert page.count(probe) >= 1, asset
    # Scripts come after the model; the simulator, exporter and shared module before the page script.
    scripts = page_scripts(page)
    # The simulator's timeline builder and engine run before schedule.js, which binds them at its top.
    assert [name for name, _ in scripts] == ["perf", "interpret", "timeline", "engine", "schedule", "trace_export", "common",
                                             "programs", "waveform"]
    probes = ("var KernelPerf", "var KernelInterpret", "var KernelTimeline", "var KernelEngine", "var KernelSchedule",
              "var KernelExport", "var KVCommon", '{"functions":', "var KVWave")
    assert len(probes) == len(scripts)
    for (name, text), probe in zip(scripts, probes):
        assert probe in text, name
    assert page.index('id="model"') < page.index('class="kv-code"') < page.index("DecompressionStream")


def test_template_markers_occur_once():
    template = pagekit.read_asset(rw.TEMPLATE_ASSET)
    for marker in re.findall(r"/\*@@[A-Z_]+@@\*/|@@[A-Z_]+@@", template):
        assert template.count(marker) == 1, marker


def test_model_round_trips(parsed):
    page = rw.render(parsed)
    model = model_of(page)
    assert model["parsed"] == rw.without_packed(parsed)
    # The function list and the role programs travel packed (render_waveform.PACKED_KEYS).
    assert parsed["functions"] and "programs" in parsed and parsed["kernel_layer"]["program"] is not None
    assert not set(rw.PACKED_KEYS) & set(model["parsed"]) and "program" not in model["parsed"]["kernel_layer"]
    assert {k: v for k, v in parsed.items() if k not in rw.PACKED_KEYS + ("kernel_layer",)} == \
        {k: v for k, v in model["parsed"].items() if k != "kernel_layer"}
    # The page's withPrograms over the model element and the packed script is the structure again.
    assert node_util.page_structure(page) == parsed
    assert model["initialKnobs"] == rw.initial_knobs(parsed)
    assert model["hashKeys"] == ([[flag[2:], name] for flag, name in rw.KNOB_FLAGS] +
                                 [[flag[2:], name] for flag, name, _kind in rw.UNIT_FLAGS])


def test_json_cannot_break_out_of_its_script(parsed):
    nasty = copy.deepcopy(parsed)
    evil = "x</script><script>alert(1)</script><!-- & \u2028 \u2029 caf\u00e9 >"
    fn = next(f for f in nasty["functions"] if f.get("ops"))
    fn["ops"][0]["text"] = evil
    nasty["source"]["path"] = "a</script>b.hpp"
    page = rw.render(nasty)
    raw = RE_MODEL.findall(page)
    assert len(raw) == 1
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in raw[0]
    assert raw[0].isascii()
    model = json.loads(raw[0])
    assert model["parsed"] == rw.without_packed(nasty)
    # The path also appears in the header, escaped as HTML text.
    assert "a&lt;/script&gt;b.hpp" in page
    assert page.lower().count("</script>") == 12  # model, GPU table, 9 packed scripts, start-up script


def test_header_text_is_escaped(parsed):
    title = '<b onclick="x">T&amp;"\'</b>'
    page = rw.render(parsed, title=title)
    escaped = html.escape(title, quote=True)
    assert f"<title>{escaped}</title>" in page
    assert f"<h1>{escaped}</h1>" in page
    assert "<b onclick" not in page


def test_header_facts_from_structure(parsed):
    facts = rw.header_facts(parsed)
    page = rw.render(parsed)
    pipe = parsed["pipelines"][0]
    assert pipe["class"] in facts["pipeline"] and pipe["stages"] in facts["pipeline"]
    for fn in parsed["functions"]:
        if fn["role"] in ("producer", "consumer"):
            assert f'{fn["name"]} (lines {fn["line"]}-{fn["end_line"]})' in facts[fn["role"]]
    assert parsed["kernel_layer"]["schedule"] in facts["schedule"]
    for value in facts.values():
        assert html.escape(value, quote=True) in page


def test_header_facts_with_alternatives_and_no_kernel_layer(parsed):
    odd = copy.deepcopy(parsed)
    odd["pipelines"][0]["class"] = ["PipelineTmaAsyncNoCluster", "PipelineTmaAsync"]
    odd["pipelines"][0]["stages"] = ["kStages"]
    odd.pop("kernel_layer")
    facts = rw.header_facts(odd)
    assert facts["pipeline"].startswith("(PipelineTmaAsyncNoCluster | PipelineTmaAsync)<kStages>")
    assert facts["kernel"] == odd["source"]["path"]
    assert "no kernel layer" in facts["schedule"]
    rw.render(odd)


def test_render_is_deterministic_and_path_free(parsed, tmp_path):
    first, second = rw.render(parsed), rw.render(copy.deepcopy(parsed))
    assert first == second
    assert str(ROOT) not in first
    assert str(tmp_path) not in first
    out = tmp_path / "page.html"
    pagekit.write_atomic(out, first)
    data = out.read_bytes()
    assert data.isascii()
    assert data.decode("ascii") == first.encode("ascii", "xmlcharrefreplace").decode("ascii")


def test_assets_are_ascii_and_offline():
    for asset in (rw.TEMPLATE_ASSET, rw.THEME_CSS_ASSET, rw.WAVEFORM_CSS_ASSET, rw.WAVEFORM_JS_ASSET,
                  rw.COMMON_CSS_ASSET, rw.COMMON_JS_ASSET, rw.BOOT_JS_ASSET) + rw.WAVE_MODULE_ASSETS:
        # The SVG export names its XML namespace (never fetched), and downloads/PNG export point
        # an element at a Blob URL made on the page (URL.createObjectURL): both stay offline.
        text = pagekit.read_asset(asset).replace("http://www.w3.org/2000/svg", "")
        text = re.sub(r"\b(createObjectURL|revokeObjectURL)\(|\.(href|src) = url;", "", text)
        assert text.isascii(), asset
        # Nothing that could load from the network: no external src/href, url(), @import or fetches.
        assert not re.search(r"\b(src|href)\s*=", text, re.I), asset
        assert not re.search(r"url\(|@import|fetch\(|XMLHttpRequest|https?://", text, re.I), asset


def test_inlined_asset_may_not_close_its_element(parsed, tmp_path, monkeypatch):
    bad = tmp_path / "bad.js"
    bad.write_text("var s = '</script>';\n", encoding="utf-8")
    monkeypatch.setattr(rw, "WAVEFORM_JS_ASSET", str(bad))
    with pytest.raises(pagekit.AssetError, match="break out"):
        rw.render(parsed)


def test_missing_marker_is_a_packaging_error(parsed, tmp_path, monkeypatch):
    template = pagekit.read_asset(rw.TEMPLATE_ASSET).replace("@@WAVEFORM_JS_GZ@@", "")
    bad = tmp_path / "template.html"
    bad.write_text(template, encoding="utf-8")
    monkeypatch.setattr(rw, "TEMPLATE_ASSET", str(bad))
    with pytest.raises(pagekit.AssetError, match="WAVEFORM_JS"):
        rw.render(parsed)


def test_knob_flags_come_from_the_table_in_schedule_js():
    # One source (issue 9): the flags, hash keys and words are schedule.js's KNOB_TABLE, read here.
    table = rw.read_knob_table()
    assert rw.KNOB_FLAGS == tuple((k["flag"], k["name"]) for k in table["knobs"])
    assert ("--k-pipe-mmas", "kPipeMmas") in rw.KNOB_FLAGS and ("--transpose-v", "transposeV") in rw.KNOB_FLAGS
    assert rw.KNOB_CHOICES["schedule"] == ("pingpong", "cooperative")
    assert rw.KNOB_CHOICES["transposeV"] == ("on", "off") and "transposeV" in rw.BOOLEAN_KNOBS
    assert all(flag.startswith("--") for flag, _name in rw.KNOB_FLAGS)
    template = pagekit.read_asset(rw.TEMPLATE_ASSET)
    assert 'id="knob-model"' in template and 'id="knob-controls"' in template
    assert set(rw.KNOB_CHOICES) <= rw.KNOB_NAMES and rw.BOOLEAN_KNOBS <= rw.KNOB_NAMES


def test_a_broken_knob_table_is_a_packaging_error(tmp_path):
    good = pagekit.read_asset(rw.SCHEDULE_JS_ASSET)
    for bad_text in (good.replace(rw.KNOB_TABLE_MARKERS[1], ""), good.replace('"--tiles"', "'--tiles'")):
        bad = tmp_path / "schedule.js"
        bad.write_text(bad_text, encoding="utf-8")
        with pytest.raises(pagekit.AssetError, match="knob table"):
            rw.read_knob_table(str(bad))


# Prints, per model, knobsFor's names and types, and defaultModel of each structure given on stdin.
NODE_KNOBS = r"""
const KS = require(process.argv[1]);
const structures = JSON.parse(require("fs").readFileSync(0, "utf8"));
const specs = {};
for (const m of KS.MODEL_NAMES) specs[m] = KS.knobsFor(m).map((s) => [s.name, s.type]);
process.stdout.write(JSON.stringify({models: KS.MODEL_NAMES, specs, defaults: structures.map(KS.defaultModel),
  table: KS.KNOB_TABLE}));
"""


def run_schedule_js(structures):
    """Ask schedule.js (under Node) for knobsFor of every model and defaultModel of each structure."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing and CI is set")
        pytest.skip("node is not installed")
    proc = subprocess.run([node, "-e", NODE_KNOBS, str(ROOT / rw.SCHEDULE_JS_ASSET)], input=json.dumps(structures),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(proc.stdout)


def test_every_flagged_knob_is_a_simulator_knob_and_back():
    js = run_schedule_js([])
    assert tuple(js["models"]) == rw.MODELS
    assert js["table"] == rw.read_knob_table(), "the JSON Python reads is the table schedule.js uses"
    simulator = {name: kind for specs in js["specs"].values() for name, kind in specs}
    # Every simulator knob has a flag (so a hash key and a page control).
    assert set(simulator) == rw.KNOB_NAMES - {"model"}
    assert {n for n, kind in simulator.items() if kind == "flag"} == rw.BOOLEAN_KNOBS
    assert {n for n, kind in simulator.items() if kind == "choice"} == set(rw.KNOB_CHOICES) - {"model"} - rw.BOOLEAN_KNOBS


def _example(name):
    return json.loads((ROOT / name).read_text(encoding="utf-8"))


def test_python_restates_no_fit_rule():
    # The model and the knobs the source fixes are schedule.js's (fitModel, sourceKnobs); the
    # Python renderer that used to restate them (and disagreed on 19 of 82 real structures) is gone.
    assert not hasattr(rw, "structure_model")
    assert "kernel_layer" not in inspect.getsource(rw.initial_knobs).split('"""')[2]


def _with_layer(parsed, **layer):
    out = copy.deepcopy(parsed)
    out["kernel_layer"] = dict(out.get("kernel_layer") or {}, **layer)
    return out


@pytest.mark.parametrize(
    "layer, expected",
    [
        ({"schedule": "pingpong", "num_mma_warpgroups": None}, {"consumerWGs": 2, "schedule": "pingpong"}),
        ({"schedule": "cooperative", "num_mma_warpgroups": None}, {"consumerWGs": 2, "schedule": "cooperative"}),
        ({"schedule": "basic", "num_mma_warpgroups": None}, {"consumerWGs": 1, "schedule": "pingpong"}),
        ({"schedule": None, "num_mma_warpgroups": None}, {"consumerWGs": 1, "schedule": "pingpong"}),
        ({"schedule": "cooperative", "num_mma_warpgroups": 1}, {"consumerWGs": 1, "schedule": "cooperative"}),
        ({"schedule": "basic", "num_mma_warpgroups": 2}, {"consumerWGs": 2, "schedule": "pingpong"}),
        ({"schedule": "pingpong", "num_mma_warpgroups": True}, {"consumerWGs": 2, "schedule": "pingpong"}),
    ],
)
def test_starting_knobs_from_kernel_layer(parsed, layer, expected):
    # schedule.js's gemm sourceKnobs: the knobs the page and `node schedule.js export` start with.
    knobs = node_util.fits([_with_layer(parsed, **layer)])[0]["knobs"]
    assert {k: knobs[k] for k in expected} == expected


def test_starting_knobs_without_kernel_layer(parsed):
    mainloop_only = copy.deepcopy(parsed)
    mainloop_only.pop("kernel_layer", None)
    knobs = node_util.fits([mainloop_only])[0]["knobs"]
    assert (knobs["consumerWGs"], knobs["schedule"]) == (2, "pingpong")  # the model's defaults
    assert rw.initial_knobs(mainloop_only, None) == {}
    assert rw.initial_knobs(mainloop_only, {"stages": 3}) == {"stages": 3}


def test_initial_knobs_are_the_overrides(parsed):
    base = _with_layer(parsed, schedule="pingpong", num_mma_warpgroups=2)
    knobs = rw.initial_knobs(base, {"consumerWGs": 1, "schedule": "cooperative", "stages": 6, "kTiles": None})
    assert knobs == {"consumerWGs": 1, "schedule": "cooperative", "stages": 6}
    with pytest.raises(ValueError, match="unknown knob"):
        rw.initial_knobs(base, {"bogus": 1})


def test_render_embeds_overridden_knobs(parsed):
    model = model_of(rw.render(parsed, {"stages": 7, "tmaLatency": 9}))
    assert model["initialKnobs"] == {"stages": 7, "tmaLatency": 9}


@pytest.fixture(scope="module")
def fa3():
    """FA3's parsed forward mainloop with its kernel layer (no schedule tag, symbolic warpgroups)."""
    return json.loads(FA3_EXAMPLE.read_text(encoding="utf-8"))


def test_starting_knobs_for_attention_ignore_the_missing_schedule(fa3):
    # FA3's kernel layer has schedule "unknown" and num_mma_warpgroups an expression: nothing is
    # forced, so the attention defaults (2 consumer WGs) stand; an integer count is taken.
    assert fa3["kernel_layer"]["schedule"] == "unknown"
    got = node_util.fits([fa3, _with_layer(fa3, num_mma_warpgroups=1), _with_layer(fa3, schedule="pingpong")])
    assert [g["knobs"]["consumerWGs"] for g in got] == [2, 1, 2]
    assert rw.initial_knobs(fa3) == {}


def test_initial_knobs_attention_overrides(fa3, parsed):
    knobs = rw.initial_knobs(fa3, {"kvBlocks": 6, "intraWGOverlap": "on", "interWGPingpong": False,
                                   "gemm0Latency": 3, "softmaxLatency": None})
    assert knobs == {"kvBlocks": 6, "intraWGOverlap": True, "interWGPingpong": False, "gemm0Latency": 3}
    with pytest.raises(ValueError, match="on or off"):
        rw.initial_knobs(fa3, {"intraWGOverlap": "maybe"})


def test_cli_knob_flags_reach_the_page(fa3, tmp_path):
    import viz
    ap = viz.build_arg_parser()
    args = ap.parse_args(["--model", "attention", "--kv-blocks", "6", "--gemm0", "3", "--softmax", "4",
                          "--gemm1", "5", "--intra-overlap", "on", "--inter-pingpong", "off", "--consumers", "2"])
    assert (args.model, args.kvBlocks, args.gemm0Latency, args.softmaxLatency, args.gemm1Latency) == ("attention", 6, 3, 4, 5)
    assert (args.intraWGOverlap, args.interWGPingpong) == ("on", "off")
    args.mode = "waveform"
    model = model_of(viz.render(fa3, args))
    assert model["initialKnobs"] == {"model": "attention", "kvBlocks": 6, "gemm0Latency": 3, "softmaxLatency": 4,
                                     "gemm1Latency": 5, "intraWGOverlap": True, "interWGPingpong": False,
                                     "consumerWGs": 2}
    for bad in (["--model", "flash"], ["--intra-overlap", "yes"], ["--kv-blocks", "many"]):
        with pytest.raises(SystemExit) as exc:
            ap.parse_args(bad)
        assert exc.value.code == 2, bad


def test_render_embeds_attention_knobs(fa3):
    model = model_of(rw.render(fa3, {"intraWGOverlap": True, "interWGPingpong": True, "kvBlocks": 6}))
    assert model["initialKnobs"] == {"intraWGOverlap": True, "interWGPingpong": True, "kvBlocks": 6}
    assert ["model", "model"] in model["hashKeys"] and ["intra-overlap", "intraWGOverlap"] in model["hashKeys"]


def test_header_facts_list_both_role_functions_and_used_pipelines():
    """FA3's load warp (role both) appears as producer and consumer; every used pipeline is named."""
    fa3 = json.loads((ROOT / "examples" / "fa3_fwd.json").read_text())
    facts = rw.header_facts(fa3)
    assert facts["producer"].startswith("load (lines 591-891) (both)")
    assert "load (lines 591-891) (both)" in facts["consumer"] and "mma (lines" in facts["consumer"]
    for alias in ("MainloopPipelineK", "MainloopPipelineV", "MainloopPipelineVt"):
        assert alias in facts["pipeline"]
    # the unused intermediate alias `PipelineTmaAsync` (line 283) is not shown
    assert "line 283" not in facts["pipeline"]


def test_a_file_without_pipeline_ops_says_so_on_stderr_and_the_page(tmp_path):
    header = tmp_path / "decl_only.hpp"
    header.write_text("#pragma once\nstruct M {\n  using MainloopPipeline = cutlass::PipelineTmaAsync<4>;\n"
                      "  void f() {}\n};\n", encoding="utf-8")
    out = tmp_path / "decl_only.html"
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), str(header), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "no pipeline operation was found" in proc.stderr
    page = out.read_text(encoding="utf-8")
    assert 'id="structure"' in page  # the page's structure-only section (filled by waveform.js)


# Runs the file and the compacted (page) form of the simulator (its files in page order, joined) on
# the same inputs; prints equality.
NODE_COMPACT = r"""
const fs = require("fs"), vm = require("vm");
const [file, compactPath, examples] = process.argv.slice(1);
const A = require(file);
const ctx = vm.createContext({});
vm.runInContext(fs.readFileSync(compactPath, "utf8"), ctx);
const B = ctx.KernelSchedule;
const out = [];
for (const rel of JSON.parse(examples)) {
  const st = JSON.parse(fs.readFileSync(rel, "utf8"));
  for (const knobs of [{}, { schedule: "cooperative", kTiles: 7 }, { intraWGOverlap: true, interWGPingpong: true }]) {
    out.push(JSON.stringify(A.simulate(st, knobs)) === JSON.stringify(B.simulate(st, knobs)));
  }
}
process.stdout.write(JSON.stringify(out));
"""


def test_the_page_inlines_a_compacted_simulator_that_behaves_the_same(tmp_path, parsed):
    """The page inlines schedule.js and waveform.js without whole-line comments and indentation."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    scripts = dict(page_scripts(rw.render(parsed)))
    packing = dict(rw.packing_list())
    sim = (("timeline", packing["TIMELINE_JS"]), ("engine", packing["ENGINE_JS"]), ("schedule", packing["SCHEDULE_JS"]))
    for name, assets in sim:
        source = "".join(pagekit.read_asset(asset) for asset in assets)
        compact = "".join(rw.compact_js(pagekit.read_asset(asset)) for asset in assets)
        assert len(compact) < 0.8 * len(source), assets
        assert compact == scripts[name]
    path = tmp_path / "compact_sim.js"
    path.write_text("\n".join(scripts[name] for name, _ in sim), encoding="utf-8")
    examples = [str(ROOT / "examples" / name) for name in ("sm90_gemm_pingpong.json", "fa3_fwd.json")]
    proc = subprocess.run([node, "-e", NODE_COMPACT, str(ROOT / rw.SCHEDULE_JS_ASSET), str(path), json.dumps(examples)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(proc.stdout) == [True] * 6
    assert rw.compact_js("a();\n  // c\n/* x\n * y */\n  /* z */ b();\n\n") == "a();\n/* z */ b();\n"


def test_docs_code_path_rule_cites_the_parsed_mma_lines(parsed):
    """The details panel's code-path rule (docs/waveform.md) names CUTLASS's three MMA
    statements; they must be the example's parsed consumer MMA lines, in that order."""
    section = docs_page("waveform.md")
    m = re.search(r"first k-tile at `mma` (\d+), the K_PIPE_MMAS prologue loop\s+at (\d+), the steady-state loop at (\d+)", section)
    assert m, "docs/waveform.md no longer states the code-path rule"
    mma_lines = [op["line"] for fn in parsed["functions"] if fn["role"] == "consumer" for op in fn["ops"] if op["op"] == "mma"]
    assert [int(x) for x in m.groups()] == mma_lines


def test_role_programs_travel_packed_as_data(parsed):
    """The function list and the programs leave the model element and come back from a packed
    data part that the start-up script parses as JSON and never runs (data-json): no text of the
    source is ever in a script; the page's withPrograms gives the structure back."""
    nasty = copy.deepcopy(parsed)
    nasty["programs"]["functions"][0]["name"] = "x</script><script>alert(1)</script>\u2028"
    nasty["functions"][0]["name"] = "y</script><!--"
    page = rw.render(nasty)
    assert page.count('data-json="KV_PROGRAMS"') == 1
    assert re.search(r'data-name="programs" data-json="KV_PROGRAMS">', page)
    (text,) = [t for name, t in page_scripts(page) if name == "programs"]
    assert text.isascii() and "<" not in text and ">" not in text and "\u2028" not in text
    assert json.loads(text) == {"functions": nasty["functions"], "programs": nasty["programs"],
                                "kernelProgram": nasty["kernel_layer"]["program"]}
    boot = pagekit.read_asset(rw.BOOT_JS_ASSET)
    assert 'getAttribute("data-json")' in boot and "JSON.parse(text)" in boot
