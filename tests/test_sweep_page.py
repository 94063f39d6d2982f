"""viz.py's grid table and the sweep chart page (render_sweep.py, docs/performance.md): a column
per swept knob, the page offline (no http(s)://, no fetch), holding every point, byte-identical
when rendered again (from the rows and from its own embedded model)."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import render_sweep  # noqa: E402
import viz  # noqa: E402

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

GRID = ["--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--mem-latency", "1500",
        "--sweep", "stages=2..6", "--sweep", "schedule=pingpong,cooperative"]


def run(*args):
    """Run viz.py on the bundled example; return (status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), *args], capture_output=True, text=True, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def grid_rows():
    """The JSON lines of the 5 x 2 grid, as viz.py gets them from Node."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    args = viz.build_arg_parser().parse_args(GRID)
    model, _stem = viz.load_bundled_example()
    return viz.run_predict(model, args, args.sweep)


@needs_node
def test_grid_table_has_a_column_per_swept_knob_in_the_grids_order():
    code, out, err = run(*GRID, "--jobs", "2")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split()[:2] == ["stages", "schedule"] and len(lines) == 11
    cells = [line.split() for line in lines[1:]]
    assert [(c[0], c[1]) for c in cells] == [(str(s), w) for s in range(2, 7) for w in ("pingpong", "cooperative")]
    # stages to hide the load and the TMA latency they hide (docs/performance.md's worked example).
    assert {(c[6], c[7]) for c in cells} == {("5", "1831")}
    assert [c[-1] for c in cells] == ["tma-latency"] * 6 + ["tensor-core"] * 4
    code, one, err = run(*GRID, "--jobs", "1")
    assert code == 0 and one == out


def test_the_page_model_holds_every_point_and_the_axes(grid_rows):
    model = render_sweep.sweep_model(grid_rows, "k")
    assert model["axes"] == [{"knob": "stages", "values": [2, 3, 4, 5, 6]}, {"knob": "schedule", "values": ["pingpong", "cooperative"]}]
    assert [p["setting"] for p in model["points"]] == [[s, w] for s in range(2, 7) for w in ("pingpong", "cooperative")]
    assert [p["tflops"] for p in model["points"]] == [r["tflops"] for r in grid_rows]
    geometry = render_sweep.chart_geometry(model)
    assert [line["label"] for line in geometry["lines"]] == ["schedule=pingpong", "schedule=cooperative"]
    assert all(len(line["points"]) == 5 for line in geometry["lines"])
    # More TFLOPS is higher on the page (smaller y); the x ticks follow the stages.
    ys = [p["y"] for p in geometry["lines"][0]["points"]]
    assert ys == sorted(ys, reverse=True) and ys[0] > ys[-1]
    assert [t["label"] for t in geometry["xTicks"]] == ["2", "3", "4", "5", "6"]


def test_the_page_is_offline_holds_the_points_and_rerenders_byte_identically(grid_rows):
    model = render_sweep.sweep_model(grid_rows, "sm90_gemm")
    page = render_sweep.render(model)
    assert not re.search(r"https?://", page) and "fetch" not in page and "<a " not in page
    assert "<script src" not in page and "<link" not in page
    assert page.count("<circle") + page.count('<path class="sw-mark"') >= len(model["points"])
    for p in model["points"]:
        assert f"{p['tflops']:.1f}" in page
    assert page.count("<tr>") == len(model["points"]) + 1
    assert render_sweep.render(render_sweep.sweep_model(grid_rows, "sm90_gemm")) == page
    embedded = render_sweep.model_of_page(page)
    assert embedded == json.loads(json.dumps(model))
    assert render_sweep.render(embedded) == page


def test_bottleneck_marks_and_words_on_the_x_axis(grid_rows):
    rows = [dict(r, sweep={"knobs": ["schedule", "stages"], "values": list(reversed(r["sweep"]["values"]))}) for r in grid_rows]
    model = render_sweep.sweep_model(rows, "k")
    svg = render_sweep.chart_svg(model)
    # Words are evenly spaced in the grid's order; the two bottlenecks of the grid are in the legend.
    assert [t["label"] for t in render_sweep.chart_geometry(model)["xTicks"]] == ["pingpong", "cooperative"]
    assert "bottleneck tma-latency" in svg and "bottleneck tensor-core" in svg
    assert svg.count("<circle") >= 4 and svg.count("<title>") >= len(rows)


@needs_node
def test_sweep_with_output_writes_the_page(tmp_path):
    out = tmp_path / "sweep.html"
    code, table, err = run("--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--sweep", "stages=2..4", "-o", str(out))
    assert code == 0, err
    assert "wrote" in err and out.is_file() and table.splitlines()[0].split()[0] == "stages"
    page = out.read_text(encoding="ascii")
    assert [p["setting"] for p in render_sweep.model_of_page(page)["points"]] == [[2], [3], [4]]
    code, again, err = run("--gpu", "h100-sxm", "--problem", "4096x4096x4096", "--sweep", "stages=2..4", "-o", "-")
    assert code == 0 and again == page


@needs_node
@pytest.mark.parametrize("args, message", [
    (["--gpu", "h100-sxm", "--sweep", "stages=2..3", "--sweep", "stages=4,5"], "swept twice"),
    (["--gpu", "h100-sxm", "--sweep", "bogus=1,2"], "unknown knob"),
    (["--gpu", "h100-sxm", "--sweep", "stages=2..3", "--jobs", "0"], "--jobs"),
])
def test_bad_grids_are_one_line_and_exit_2(args, message):
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
