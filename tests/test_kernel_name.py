"""The kernel name is one rule: render_waveform.kernel_stem (both pages' titles) and
trace_export.js's kernelName (the export file names) agree on every structure we have."""

import json
import subprocess
from pathlib import Path

import pytest

import parse_cutlass
import render_waveform
from node_util import node

ROOT = Path(__file__).resolve().parent.parent

# Prints kernelName(s) of each structure given on stdin.
NODE_NAMES = r"""
const KE = require(process.argv[1]);
const structures = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(structures.map((s) => KE.kernelName(s))));
"""

# Edge cases of the rule, each with the name it gives.
EDGES = [
    ({"source": {"path": "include/cutlass/gemm/collective/sm90_mma.hpp"}}, "sm90_mma"),
    ({"source": {"path": "C:\\src\\flash_fwd_sm90.py"}}, "flash_fwd_sm90"),
    ({"source": {"path": "a/b.c.hpp"}}, "b.c"),
    ({"source": {"path": "noext"}}, "noext"),
    ({"source": {"path": "dir/.hidden"}}, "kernel"),
    ({"source": {"path": "dir/"}}, "kernel"),
    ({"source": {"path": ""}}, "kernel"),
    ({"source": {"path": 7}}, "kernel"),
    ({"source": {"path": True}}, "kernel"),
    ({"source": {}}, "kernel"),
    ({}, "kernel"),
    # a parsed kernel layer names the kernel (pingpong and cooperative pages of one mainloop differ)
    ({"source": {"path": "m/mainloop.hpp"}, "kernel_layer": {"source": {"path": "k/layer.hpp"}}}, "layer"),
    ({"source": {"path": "m/mainloop.hpp"}, "kernel_layer": {"source": {}}}, "mainloop"),
    ({"source": {"path": "m/mainloop.hpp"}, "kernel_layer": None}, "mainloop"),
]


def structures():
    """(label, structure) of every example, every JSON fixture with a source and every parsed fixture."""
    out = []
    for path in sorted((ROOT / "examples").glob("*.json")):
        out.append((f"examples/{path.name}", json.loads(path.read_text(encoding="utf-8"))))
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "source" in data:
            out.append((path.relative_to(ROOT).as_posix(), data))
    for path in sorted((ROOT / "tests" / "fixtures").rglob("*")):
        if path.suffix in (".hpp", ".h", ".py"):
            try:
                model = parse_cutlass.parse_file(path)
            except parse_cutlass.VizError:
                model = parse_cutlass.parse_text(path.read_text(encoding="utf-8"), path) \
                    if path.suffix != ".py" else None
            if model is not None:
                out.append((f"parsed {path.relative_to(ROOT).as_posix()}", model))
    return out


def js_names(items):
    """kernelName of each structure, from trace_export.js under Node (one process)."""
    proc = subprocess.run([node(), "-e", NODE_NAMES, str(ROOT / "trace_export.js")], input=json.dumps(items),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def test_the_rule_on_its_edge_cases():
    assert [render_waveform.kernel_stem(s) for s, _ in EDGES] == [want for _, want in EDGES]
    assert js_names([s for s, _ in EDGES]) == [want for _, want in EDGES]


def test_python_and_js_agree_on_every_example_and_fixture():
    items = structures()
    assert len(items) >= 20 and any(label.startswith("examples/") for label, _ in items)
    js = js_names([s for _, s in items])
    py = [render_waveform.kernel_stem(s) for _, s in items]
    assert [(label, name) for (label, _), name in zip(items, py)] == \
        [(label, name) for (label, _), name in zip(items, js)]
    assert "kernel" not in py   # every one of them has a real source path


@pytest.mark.parametrize("example, name", [("sm90_gemm_pingpong", "sm90_gemm_tma_warpspecialized_pingpong"),
                                           ("sm90_gemm_cooperative", "sm90_gemm_tma_warpspecialized_cooperative"),
                                           ("fa3_fwd", "flash_fwd_kernel_sm90"),
                                           ("fa4_fwd_sm90", "flash_fwd_sm90")])
def test_the_page_title_names_the_file_the_exports_name(example, name):
    model = json.loads((ROOT / "examples" / f"{example}.json").read_text(encoding="utf-8"))
    assert render_waveform.default_title(model) == f"{name} - logical pipeline schedule"
