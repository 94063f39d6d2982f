"""The kernel parameters read from the source (issue 21 part 2; docs/json.md "Kernel parameters",
docs/performance.md "Where the tile, dtype and cluster come from"): parse_tile.py on C++,
parse_dsl.kernel_params on the CuTe DSL, parse_cutlass.attach_params (--params-from), and the
cycles run's order knob > source > rule > default."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import parse_cutlass  # noqa: E402
import parse_dsl  # noqa: E402
import parse_tile  # noqa: E402
from test_parser_dsl import fa4_dir  # noqa: E402

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

EX48 = "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"
EX70 = "examples/70_blackwell_gemm/70_blackwell_fp8_gemm.cu"
EX72 = "examples/72_blackwell_narrow_precision_gemm/72a_blackwell_nvfp4_bf16_gemm.cu"
MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
PINGPONG = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"

# A driver written for this test (no CUTLASS text).
DRIVER = """\
// using TileShape = Shape<_8,_8,_8>;   a comment never matches
using ElementA = cutlass::bfloat16_t;
using ElementB = cutlass::bfloat16_t;
using ElementC = cutlass::half_t;
using ElementD = ElementC;
using ElementAccumulator = float;
using TileShape = cute::Shape<cute::_128, Int<256>, _64>;
using ClusterShape = Shape<_2,_1,_1>;
using Mainloop = typename CollectiveBuilder<Arch, Op, ElementA, ElementB, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCount<4>, KernelTmaWarpSpecializedPingpong>::CollectiveOp;
"""


def params(text):
    """kernel_params of a C++ text."""
    return parse_tile.kernel_params(parse_cutlass.Source(text, "t.cu"))


def file_line(path, line):
    """One line of a file (1-based)."""
    return path.read_text(encoding="utf-8").splitlines()[line - 1]


# ---------------------------------------------------------------- C++ patterns on our own text


def test_a_driver_gives_literal_tile_cluster_dtypes_and_stages():
    p = params(DRIVER)
    assert p["tile"] == {"m": 128, "n": 256, "k": 64, "line": 7, "source": "TileShape",
                         "text": "cute::Shape<cute::_128, Int<256>, _64>", "literal": True}
    assert (p["cluster"]["m"], p["cluster"]["n"], p["cluster"]["k"], p["cluster"]["line"]) == (2, 1, 1, 8)
    d = p["dtypes"]
    assert {r: d[r]["dtype"] for r in d} == {"a": "bf16", "b": "bf16", "c": "fp16", "d": "fp16", "accumulator": "fp32"}
    assert d["d"] == {"dtype": "fp16", "type": "ElementC", "line": 5, "source": "ElementD"}
    assert p["stages"] == {"value": 4, "line": 10, "source": "StageCount", "text": "StageCount<4>"}


def test_template_parameters_and_aliases_are_named_not_literal():
    text = ("template <int Stages, class ClusterShape_, class TileShape_, class ElementA_>\n"
            "struct M {\n  using TileShape = TileShape_;\n  static constexpr int kStages = 2;\n"
            "  using ElementB = typename X::ElementB;\n};\n")
    p = params(text)
    assert p["tile"] == {"m": None, "n": None, "k": None, "line": 1, "source": "template parameter TileShape_",
                         "text": "TileShape_", "literal": False}
    assert p["cluster"]["source"] == "template parameter ClusterShape_" and p["cluster"]["literal"] is False
    assert p["stages"] == {"value": None, "line": 1, "source": "template parameter Stages", "text": "Stages"}
    assert p["dtypes"]["a"]["source"] == "template parameter ElementA_" and p["dtypes"]["a"]["dtype"] is None
    assert p["dtypes"]["b"] == {"dtype": None, "type": "typename X::ElementB", "line": 5, "source": "ElementB"}


def test_a_static_member_named_stages_is_not_a_template_parameter():
    p = params("struct P {\n  constexpr static int Stages = 2;\n};\n")
    assert p == {"tile": None, "cluster": None, "dtypes": None, "stages": None}


def test_a_literal_definition_wins_and_the_preferred_name_first():
    text = ("template <class TileShape_> struct A {};\nusing MmaTileShape = Shape<_64,_64,_64>;\n"
            "using TileShape = Shape<_128,_128,_64>;\nusing TileShape = Shape<_8,_8,_8>;\n")
    tile = params(text)["tile"]
    assert (tile["m"], tile["line"], tile["source"]) == (128, 3, "TileShape")


def test_shape_dims_and_type_dtypes():
    assert parse_tile.shape_dims("Shape<_128,_128>") == [128, 128, None]
    assert parse_tile.shape_dims("Shape<Int<kBlockM>, _128, _64>") is None
    assert parse_tile.shape_dims("Shape<_1,_1,_1,_1>") is None
    assert parse_tile.type_dtype("cutlass::nv_float4_t<cutlass::float_e2m1_t>") == "fp4"
    assert parse_tile.type_dtype("cute::float_e5m2_t") == "fp8"
    assert parse_tile.type_dtype("double") is None


def test_hostile_template_openers_stay_linear():
    text = "template <" * 50000 + "class TileShape_>\n"
    start = time.perf_counter()
    params(text)
    assert time.perf_counter() - start < 20   # a generous hang bound, not a speed claim


# ---------------------------------------------------------------- the real CUTLASS 4.2 sources


def test_cutlass_example_48_gives_its_tile_at_line_110(cutlass):
    path = cutlass(EX48)
    model = {"warnings": []}
    parse_cutlass.attach_params(model, path)
    tile, cluster = model["tile"], model["cluster"]
    assert (tile["m"], tile["n"], tile["k"], tile["line"]) == (128, 128, 32, 110)
    assert "using TileShape" in file_line(path, 110) and tile["file"].endswith("48_hopper_warp_specialized_gemm.cu")
    assert (cluster["m"], cluster["n"], cluster["line"]) == (4, 2, 111) and "ClusterShape" in file_line(path, 111)
    assert model["dtypes"]["a"]["dtype"] == "fp32" and "ElementA" in file_line(path, model["dtypes"]["a"]["line"])
    assert model["stages"]["value"] == "auto" and "StageCountAuto" in file_line(path, model["stages"]["line"])


def test_cutlass_blackwell_examples_give_mma_tile_and_narrow_dtypes(cutlass):
    p70 = params(cutlass(EX70).read_text())
    assert (p70["tile"]["source"], p70["tile"]["m"], p70["tile"]["n"], p70["tile"]["k"]) == ("MmaTileShape_MNK", 256, 128, 64)
    assert p70["dtypes"]["a"]["dtype"] == "fp8" and p70["dtypes"]["d"]["dtype"] == "fp8"
    p72 = params(cutlass(EX72).read_text())
    assert p72["dtypes"]["a"]["dtype"] == "fp4" and p72["dtypes"]["d"]["dtype"] == "bf16"


def test_the_mainloop_and_kernel_layer_name_the_tile_without_a_literal(cutlass, validate):
    model = validate(parse_cutlass.parse_file(cutlass(MAINLOOP)))
    assert model["tile"]["literal"] is False and model["tile"]["source"] == "template parameter TileShape_"
    assert "class TileShape_" in file_line(cutlass(MAINLOOP), model["tile"]["line"])
    assert model["stages"]["source"] == "template parameter Stages"
    layer = parse_tile.kernel_params(parse_cutlass.Source(cutlass(PINGPONG).read_text(), "k.hpp"))
    assert layer["tile"]["text"] == "typename CollectiveMainloop::TileShape" and layer["tile"]["m"] is None


def test_params_from_cli_and_its_one_line_error(cutlass, tmp_path, validate):
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), str(cutlass(MAINLOOP)),
                           "--params-from", str(cutlass(EX48))], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    model = validate(json.loads(proc.stdout))
    assert model["tile"]["literal"] is True and model["tile"]["line"] == 110
    empty = tmp_path / "empty.cu"
    empty.write_text("int main() { return 0; }\n")
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), str(cutlass(MAINLOOP)),
                           "--params-from", str(empty)], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--params-from" in proc.stderr


# ---------------------------------------------------------------- the CuTe DSL


def test_dsl_defaults_of_init_parameters(tmp_path):
    text = ("class K:\n    def __init__(self, dtype, head_dim: int, tile_m: int = 64,\n"
            "                 tile_n: int = 96, num_stages: int = 3):\n"
            "        self.cluster_shape_mn = (2, 1)\n")
    tree = parse_dsl.parse_tree(text, "k.py")
    index = parse_dsl.ModuleIndex(tree, parse_dsl.SourceText(text, "k.py"))
    p = parse_dsl.kernel_params(tree, index, tmp_path / "k.py")
    assert p["tile"] == {"m": 64, "n": 96, "k": None, "line": 2, "literal": True,
                         "source": "default of parameters tile_m, tile_n of K.__init__", "text": "tile_m=64, tile_n=96"}
    assert p["stages"]["value"] == 3 and p["stages"]["line"] == 3
    assert (p["cluster"]["m"], p["cluster"]["n"], p["cluster"]["line"]) == (2, 1, 4)
    assert p["dtypes"] is None


def test_dsl_without_literal_defaults_gives_no_tile(tmp_path):
    text = "class K:\n    def __init__(self, tile_m, tile_n=128):\n        pass\n"
    tree = parse_dsl.parse_tree(text, "k.py")
    index = parse_dsl.ModuleIndex(tree, parse_dsl.SourceText(text, "k.py"))
    assert parse_dsl.kernel_params(tree, index, tmp_path / "k.py")["tile"] is None


def test_fa4_sm90_tile_is_its_base_class_default():
    model = parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm90.py")
    tile = model["tile"]
    assert (tile["m"], tile["n"], tile["file"]) == (128, 128, "flash_attn/cute/flash_fwd.py")
    assert "tile_m: int = 128" in file_line(fa4_dir() / "flash_fwd.py", tile["line"])
    assert "FlashAttentionForwardBase.__init__" in tile["source"]
    assert "self.cluster_shape_mn = (1, 1)" in file_line(fa4_dir() / "flash_fwd_sm90.py", model["cluster"]["line"])


def test_fa4_sm100_tile_is_its_own_default():
    model = parse_cutlass.parse_file(fa4_dir() / "flash_fwd_sm100.py")
    assert model["tile"]["m"] == 128 and "file" not in model["tile"]
    assert "m_block_size: int = 128" in file_line(fa4_dir() / "flash_fwd_sm100.py", model["tile"]["line"])


# ---------------------------------------------------------------- the cycles run's order


def simulate(structure, knobs):
    """schedule.js simulate() in Node; the result's units.inputs and units.sources."""
    script = ("const K=require(process.argv[1]);const a=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "const r=K.simulate(a.s,a.k);process.stdout.write(JSON.stringify({error:r.error,units:r.units}));")
    proc = subprocess.run([NODE, "-e", script, str(ROOT / "schedule.js")], input=json.dumps({"s": structure, "k": knobs}),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@needs_node
def test_knob_beats_source_beats_default():
    structure = json.loads((ROOT / "examples" / "sm90_gemm_pingpong.json").read_text())
    base = {"gpu": "h100-sxm", "problem": "4096x4096x4096"}
    r = simulate(structure, base)
    assert r["units"]["sources"]["tile"] == "default" and r["units"]["inputs"]["tile"] == "128x128x64"
    facts = params(DRIVER)
    for key in ("tile", "cluster", "dtypes"):
        facts[key] = json.loads(json.dumps(facts[key]))
    structure.update({k: facts[k] for k in ("tile", "cluster", "dtypes")})
    structure["tile"]["file"] = "driver.cu"
    r = simulate(structure, base)
    assert r["error"] is None
    assert r["units"]["inputs"]["tile"] == "128x256x64" and r["units"]["inputs"]["cluster"] == "2x1"
    assert r["units"]["sources"]["tile"] == "source: TileShape, line 7 of driver.cu"
    assert r["units"]["sources"]["cluster"] == "source: ClusterShape, line 8"
    assert r["units"]["sources"]["dtype"] == "source: ElementA, line 2"
    r = simulate(structure, dict(base, tile="64x128x64", dtype="fp8", cluster="1x1"))
    assert r["units"]["inputs"]["tile"] == "64x128x64" and r["units"]["inputs"]["dtype"] == "fp8"
    assert {r["units"]["sources"][k] for k in ("tile", "dtype", "cluster")} == {"knob"}
    # A non-literal fact (the mainloop's template parameter) falls through to the default.
    structure["tile"] = {"m": None, "n": None, "k": None, "line": 58, "source": "template parameter TileShape_",
                         "text": "TileShape_", "literal": False}
    assert simulate(structure, base)["units"]["sources"]["tile"] == "default"


@needs_node
def test_float_operands_run_as_tf32_and_fa3_keeps_its_rule():
    structure = json.loads((ROOT / "examples" / "sm90_gemm_pingpong.json").read_text())
    structure["dtypes"] = {"a": {"dtype": "fp32", "type": "float", "line": 3, "source": "ElementA"},
                           "b": {"dtype": "fp32", "type": "float", "line": 4, "source": "ElementB"}}
    r = simulate(structure, {"gpu": "h100-sxm"})
    assert r["units"]["inputs"]["dtype"] == "tf32" and "TF32" in r["units"]["sources"]["dtype"]
    structure["dtypes"]["b"]["dtype"] = "bf16"   # mixed operands: not modelled, the default
    assert simulate(structure, {"gpu": "h100-sxm"})["units"]["sources"]["dtype"] == "default"
    fa3 = json.loads((ROOT / "examples" / "fa3_fwd.json").read_text())
    r = simulate(fa3, {"gpu": "h100-sxm"})
    assert r["units"]["sources"]["tile"] == "FA3 tile_size_fwd_sm90 (dtype, headDim)"
    assert r["units"]["sources"]["dtype"] == "knob (FA3 build)"


@needs_node
def test_the_output_dtype_is_the_sources_element_d_and_prices_the_epilogue():
    """An FP8 GEMM writing BF16 (ElementD) stores 2 bytes per element, not the operands' 1: the
    epilogue latency (perf.js epilogueCycles: smem store + TMA store of m x n output bytes) doubles."""
    structure = json.loads((ROOT / "examples" / "sm90_gemm_pingpong.json").read_text())
    fp8 = {"dtype": "fp8", "type": "cutlass::float_e4m3_t", "line": 3, "source": "ElementA"}
    structure["dtypes"] = {"a": fp8, "b": dict(fp8, line=4, source="ElementB")}
    knobs = {"gpu": "h100-sxm", "tile": "128x128x128"}
    same = simulate(structure, knobs)["units"]
    assert same["inputs"]["outDtype"] == "fp8" and same["sources"]["outDtype"].startswith("the operands' dtype")
    structure["dtypes"]["d"] = {"dtype": "bf16", "type": "cutlass::bfloat16_t", "line": 6, "source": "ElementD"}
    wide = simulate(structure, knobs)["units"]
    assert wide["inputs"]["outDtype"] == "bf16" and wide["sources"]["outDtype"] == "source: ElementD, line 6"
    # 128 x 128 x 2 B over 128 B/clk smem + the same over 13.868 B/clk/SM HBM (H100 SXM) vs 1 B
    assert "32768 B" in wide["derivation"]["epilogueLatency"] and "16384 B" in same["derivation"]["epilogueLatency"]
    # ElementC when there is no ElementD (`using ElementD = ElementC` is resolved by the parser)
    del structure["dtypes"]["d"]
    structure["dtypes"]["c"] = {"dtype": "fp32", "type": "float", "line": 5, "source": "ElementC"}
    assert simulate(structure, knobs)["units"]["inputs"]["outDtype"] == "fp32"
