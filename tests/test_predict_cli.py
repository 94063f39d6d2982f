"""viz.py's cycles flags (issue 21 part 4, docs/performance.md): --gpu, --gpu-file, --clock-mhz,
--tile, --dtype, --problem, --print-prediction, --sweep; bad input is one stderr line and exit 2."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import render_waveform as rw  # noqa: E402
import viz  # noqa: E402

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run(*args):
    """Run viz.py on the bundled example; return (status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), *args], capture_output=True, text=True, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def test_unit_flags_come_from_the_knob_table_and_do_not_clash():
    flags = [flag for flag, _name in rw.KNOB_FLAGS] + [flag for flag, _name, _kind in rw.UNIT_FLAGS]
    assert len(flags) == len(set(flags))
    assert {"--gpu", "--tile", "--problem", "--cluster", "--batch", "--heads", "--seqlen", "--causal",
            "--clock-mhz"} <= set(flags)
    args = viz.build_arg_parser().parse_args(["--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--causal",
                                              "--clock-mhz", "1500", "--dtype", "fp8"])
    assert viz.knob_overrides(args) == {"gpu": "h100-sxm", "problem": "4096x4096x4096", "causal": True,
                                        "clockMHz": 1500, "dtype": "fp8"}


@needs_node
def test_print_prediction_is_one_line_with_the_worked_figures():
    code, out, err = run("--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--print-prediction")
    assert code == 0, err
    assert out.count("\n") == 1
    assert "tile 128x128x64 bf16" in out and "1024 tiles, 8 waves" in out
    m = re.search(r"\(([\d]+) cycles at 1830 MHz\), ([\d.]+) TFLOPS", out)
    assert m, out
    # 8 tiles x 64 k-tiles x 512 cycles busy, so at least 262144 cycles and at most 989.4 TFLOPS.
    assert int(m.group(1)) >= 262144 and float(m.group(2)) <= 989.4
    assert out.rstrip().endswith("bottleneck tensor-core")
    # A locked clock: same cycles of MMA, fewer TFLOPS.
    code, slow, err = run("--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--clock-mhz", "1000", "--print-prediction")
    assert code == 0, err
    assert float(re.search(r"([\d.]+) TFLOPS", slow).group(1)) < float(m.group(2))


@needs_node
def test_sweep_prints_a_table_of_the_prediction_per_value():
    code, out, err = run("--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--mem-latency", "1500", "--sweep", "stages=2..6")
    assert code == 0, err
    rows = out.strip().splitlines()
    assert rows[0].split()[0] == "stages" and len(rows) == 6
    assert [r.split()[-1] for r in rows[1:]] == ["tma-latency"] * 3 + ["tensor-core"] * 2


@needs_node
def test_gpu_file_supplies_the_presets(tmp_path):
    table = json.loads((ROOT / "sim" / "gpus.json").read_text(encoding="utf-8"))
    mine = {"schema_version": 1, "gpus": {"my-h100": table["gpus"]["h100-sxm"]}}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(mine), encoding="utf-8")
    code, out, err = run("--gpu-file", str(path), "--gpu", "my-h100", "--problem", "4096x4096x4096", "--print-prediction")
    assert code == 0, err
    assert "bottleneck tensor-core" in out
    code, _out, err = run("--gpu-file", str(path), "--gpu", "h100-sxm", "--print-prediction")
    assert code == 2 and "unknown GPU 'h100-sxm'" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--gpu", "nope", "--print-prediction"], "unknown GPU 'nope'"),
    (["--print-prediction"], "a GPU preset is needed"),
    (["--gpu", "h100-sxm", "--tile", "128x128", "--print-prediction"], "tile expects MxNxK"),
    (["--gpu", "h100-sxm", "--sweep", "stages", "--print-prediction"], "--sweep expects"),
])
def test_bad_prediction_input_is_one_line_and_exit_2(args, message):
    if NODE is None and "unknown GPU" not in message and "GPU preset" not in message:
        pytest.skip("node is not installed")
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_without_node_print_prediction_says_so(monkeypatch, capsys):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    assert viz.main(["--gpu", "h100-sxm", "--print-prediction"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "node" in err and "not found" in err


@needs_node
def test_params_from_gives_the_tile_and_a_flag_overrides_it(cutlass):
    ex48 = str(cutlass("examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"))
    head = ["include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp", "--params-from", ex48,
            "--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--print-prediction"]
    code, out, err = run(*head)
    assert code == 0, err
    assert "tile 128x128x32 tf32" in out and "1024 tiles" in out
    code, out, err = run(*head, "--tile", "128x256x64", "--dtype", "bf16")
    assert code == 0, err
    assert "tile 128x256x64 bf16" in out and "512 tiles" in out
    code, out, err = run("--params-from", ex48, "--gpu", "h100-sxm", "--print-prediction")
    assert code == 2 and err.count("\n") == 1 and "need a HEADER" in err


FMHA77 = "examples/77_blackwell_fmha/"


def test_params_from_reads_77s_tile_from_its_run_argument(cutlass):
    """77's driver passes `Shape<_256, _128, HeadDim>{}` to its `run` lambda (no TileShape alias):
    m x n is 256x128 in every call; the head dim differs per instantiation (each `using HeadDim`),
    so k is no number and the source text names each one with its line."""
    import parse_cutlass
    import parse_tile
    path = cutlass(FMHA77 + "77_blackwell_fmha.cu")
    text = path.read_text()
    tile = parse_tile.kernel_params(parse_cutlass.Source(text, path, path.name))["tile"]
    lines = text.splitlines()
    assert (tile["m"], tile["n"], tile["k"], tile["literal"]) == (256, 128, None, True)
    assert "run(Shape<_256, _128, HeadDim>{}" in lines[tile["line"] - 1]
    heads = re.findall(r"HeadDim = (\d+) \(line (\d+)\)", tile["source"])
    assert [h for h, _ in heads] == ["128", "64", "32"]
    for dim, line in heads:
        assert lines[int(line) - 1].strip() == f"using HeadDim = _{dim};"


@needs_node
def test_77_prediction_takes_the_driver_tile(cutlass):
    args = [str(cutlass(FMHA77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp")),
            "--kernel-layer", str(cutlass(FMHA77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp")),
            "--epilogue-collective", str(cutlass(FMHA77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp")),
            "--model", "program", "--gpu", "b200", "--batch", "1", "--heads", "2", "--seqlen", "2048", "--print-prediction"]
    code, plain, err = run(*args)
    assert code == 0, err
    assert "tile 128x128" in plain   # the default: TileShape_ is a template parameter of the mainloop
    code, out, err = run(*args, "--params-from", str(cutlass(FMHA77 + "77_blackwell_fmha.cu")))
    assert code == 0, err
    assert "tile 256x128" in out and "(16 tiles" in out


@needs_node
def test_fa4_sm90_backward_prediction_is_charged_per_m_block():
    """FA4's SM90 backward (the installed flash_bwd_sm90.py) in cycles: the program model's
    attention-backward census (docs/performance.md "The attention backward"): its tile_m x tile_n
    64x128, one CTA tile per K / V n-block (2048 / 128 x 16 heads = 256 tiles on 132 SMs: 2
    waves), under the peak, its largest idle share the MMA warpgroups' waits on `PdS` (the tensor
    core idles 11.5%: WG1's dK / dV stores at their own HBM cost, storeLatency, lengthen the tile's
    tail; the dQ reduce-adds are reduceLatency's); causal halves the m-blocks and the FLOPs."""
    from test_parser_dsl import fa4_dir
    args = [str(fa4_dir() / "flash_bwd_sm90.py"), "--model", "program", "--gpu", "h100-sxm", "--batch", "1", "--heads", "16",
            "--seqlen", "2048", "--print-prediction"]
    code, out, err = run(*args)
    assert code == 0, err
    assert out.count("\n") == 1
    assert "program tile 64x128 bf16, problem 1 x 16 heads x 2048 backward (256 tiles, 2 waves)" in out
    m = re.search(r"\(([\d]+) cycles at 1830 MHz\), ([\d.]+) TFLOPS", out)
    assert m, out
    # 2 tiles x 32 m-blocks x 10 WGMMA jobs x 256 cycles busy: at least 163840 cycles; 10 s^2 d x 16
    # heads = 85.9 GFLOP, so at most 85.9e9 / (163840 / 1830 MHz) = 959.4 TFLOPS.
    assert int(m.group(1)) >= 163840 and float(m.group(2)) <= 959.5
    assert out.rstrip().endswith("bottleneck PdS")
    code, causal, err = run(*args, "--causal")
    assert code == 0, err
    assert "2048 causal backward (256 tiles" in causal
    assert int(re.search(r"\(([\d]+) cycles", causal).group(1)) < int(m.group(1))


def test_sweep_table_names_why_a_stage_count_is_null():
    """A null "stages to hide" with the model's reason shows -N and the reason under the table;
    one reason shared by two rows is listed once."""
    def row(value, stages, why=None):
        hide = {"stages": stages, "tmaCycles": 700}
        if why:
            hide["why"] = why
        return {"sweep": {"knobs": ["stages"], "values": [value]}, "time": {"cycles": 1000, "us": 0.5},
                "tflops": 100.0, "peakFraction": 0.1, "bottleneck": "tensor-core", "stagesToHide": hide}
    text = viz.sweep_table([row(2, None, "the run deadlocks"), row(3, 4), row(4, None, "the run deadlocks"),
                            row(5, None, "a role stopped")])
    lines = text.splitlines()
    assert [ln.split()[5] for ln in lines[1:5]] == ["-1", "4", "-1", "-2"]
    assert lines[5:] == ["hide -1: the run deadlocks", "hide -2: a role stopped"]
