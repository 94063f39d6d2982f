"""Shared fixtures: the repository on sys.path, the installed CUTLASS headers, the JSON Schema."""

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import parse_cutlass  # noqa: E402

CANONICAL = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
SCHEMA_PATH = ROOT / "schema" / "kernel_viz.schema.json"


def _missing(reason):
    """Skip locally, but fail in CI: the real-header tests must run there."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must install the test dependencies: pip install -e '.[test]')")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def cutlass_root():
    """The source tree of the installed nvidia-cutlass==4.2.0.0 (include/ and examples/)."""
    for root in parse_cutlass.cutlass_roots():
        if (root / CANONICAL).is_file():
            return root
    _missing("nvidia-cutlass==4.2.0.0 is not installed")


@pytest.fixture(scope="session")
def cutlass(cutlass_root):
    """Path builder under the CUTLASS tree: cutlass('include/...')."""
    def path(rel):
        p = cutlass_root / rel
        assert p.is_file(), f"missing CUTLASS file {rel}"
        return p
    return path


@pytest.fixture(scope="session")
def validate():
    """Validate a parsed model against the repository's JSON Schema."""
    jsonschema = pytest.importorskip("jsonschema") if not os.environ.get("CI") else __import__("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)

    def check(model):
        errors = sorted(validator.iter_errors(model), key=lambda e: list(e.path))
        assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
        return model
    return check


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole run (skips, or fails under CI, when unavailable)."""
    import browser_util
    browser_util.require_browser()
    with browser_util.launch_browser() as b:
        yield b


@pytest.fixture
def open_page(browser):
    """Open pages; after the test, assert none of them erred or touched the network."""
    import browser_util
    opened = []

    def _open(url, **kwargs):
        context, page, watch = browser_util.new_page(browser, url, **kwargs)
        opened.append((context, watch))
        return page

    yield _open
    problems = []
    for context, watch in opened:
        problems += watch.problems()
        context.close()
    assert not problems, problems


def ops_of(model, function):
    """[(op, line)] of one function, by name (the first function with that name)."""
    for f in model["functions"]:
        if f["name"] == function:
            return [(o["op"], o["line"]) for o in f["ops"]]
    raise AssertionError(f"no function {function}: {[f['name'] for f in model['functions']]}")


def lines_of(model, function, op):
    """Lines of every `op` in `function`."""
    return [line for kind, line in ops_of(model, function) if kind == op]
