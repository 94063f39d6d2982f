"""sim/gpus.json: validates against schema/gpus.schema.json, and every figure names its source."""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GPUS_PATH = ROOT / "sim" / "gpus.json"
SCHEMA_PATH = ROOT / "schema" / "gpus.schema.json"
PRESETS = ("h100-sxm", "h100-pcie", "h200", "h20", "b200")


def load(path):
    """Parse a JSON file of the repository."""
    return json.loads(path.read_text(encoding="utf-8"))


def figures(node, path=()):
    """Yield (path, figure) for every dict holding a 'value' key, anywhere in node."""
    if isinstance(node, dict):
        if "value" in node:
            yield path, node
            return
        for key in sorted(node):
            yield from figures(node[key], path + (key,))


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft202012Validator(load(SCHEMA_PATH))


def test_gpus_file_validates(validator):
    errors = sorted(validator.iter_errors(load(GPUS_PATH)), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_presets_present():
    assert set(PRESETS) <= set(load(GPUS_PATH)["gpus"])


def test_every_figure_has_a_source_and_null_ones_a_note():
    found = list(figures(load(GPUS_PATH)["gpus"]))
    assert len(found) > 5 * 15
    for path, fig in found:
        src = fig.get("source") or {}
        assert src.get("title") and src.get("where"), path
        if fig["value"] is None:
            assert fig.get("note"), f"{path}: a null figure must say why"


def test_schema_rejects_a_figure_without_source(validator):
    data = load(GPUS_PATH)
    del data["gpus"]["h100-sxm"]["sms"]["source"]
    assert list(validator.iter_errors(data))


def test_schema_rejects_a_null_figure_without_note(validator):
    data = load(GPUS_PATH)
    data["gpus"]["h100-sxm"]["sms"] = {"value": None, "unit": "SM", "source": {"title": "t", "where": "w"}}
    assert list(validator.iter_errors(data))


def test_tensor_rates_match_their_datasheet_derivation():
    """Each stored rate is datasheet TFLOPS / (SMs x clock), rounded: within 1% of the derivation."""
    for name, gpu in load(GPUS_PATH)["gpus"].items():
        sms, clock = gpu["sms"]["value"], gpu["clockMHz"]["value"]
        for dtype, fig in gpu["tensorFlopPerClockPerSm"].items():
            if fig["value"] is None or fig.get("datasheetTflops") is None:
                continue
            derived = fig["datasheetTflops"] * 1e12 / (sms * clock * 1e6)
            assert abs(derived / fig["value"] - 1) < 0.01, (name, dtype, derived)


MEMORY_FIGURES = (("l2BandwidthGBs",), ("latencyCycles", "unloaded"), ("latencyCycles", "loaded"))


def memory_figures():
    """Yield (gpu, path, figure) for every L2 bandwidth and latency figure of every preset."""
    for name, gpu in sorted(load(GPUS_PATH)["gpus"].items()):
        for path in MEMORY_FIGURES:
            fig = gpu
            for key in path:
                fig = fig[key]
            yield name, path, fig


def test_memory_figures_cite_a_pinned_measurement_and_the_docs_name_them():
    """A filled L2 / latency figure links a commit-pinned file and appears in docs/performance.md."""
    docs = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    filled = 0
    for name, path, fig in memory_figures():
        if fig["value"] is None:
            continue
        filled += 1
        url = fig["source"].get("url", "")
        assert "/blob/" in url and len(url.split("/blob/")[1].split("/")[0]) == 40, (name, path, url)
        assert "row" in fig["source"]["where"], (name, path)
        shown = f"{fig['value']:,}" if fig["value"] >= 1000 and float(fig["value"]).is_integer() else str(fig["value"])
        assert shown in docs or str(fig["value"]) in docs, (name, path, fig["value"])
    assert filled >= 4


def test_latency_figures_say_they_are_load_latencies_not_tma():
    """The unloaded figures are pointer-chasing load latencies: each note must say it is not TMA's."""
    for name, path, fig in memory_figures():
        if path[0] == "latencyCycles" and fig["value"] is not None:
            assert "not a measured TMA latency" in fig["note"], name
