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
