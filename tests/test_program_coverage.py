"""docs/coverage.md's inventory of real kernels and the program model: each row is re-parsed
from the installed packages and run (scripts/program_coverage.py); its page model, status, stops
and first reason must be what the table says. A kernel that starts to run complete, stops
somewhere new or falls into a deadlock fails here until the page says so."""

import importlib.util
import re

import pytest

from docs_util import docs_section
from node_util import ROOT, node

RE_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| (?P<fit>\w+) \| (?P<status>[\w ]+?) \| (?P<where>[^|]*?) \| (?P<why>(?:[^|\\]|\\.)*?) \|$", re.M)


def _coverage():
    spec = importlib.util.spec_from_file_location("program_coverage", ROOT / "scripts" / "program_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_lists_every_kernel_of_the_script():
    rows = [m.groupdict() for m in RE_ROW.finditer(docs_section("program-coverage"))]
    cov = _coverage()
    assert [r["file"] for r in rows] == [cov.label(e) for e in cov.KERNELS]
    assert {r["status"] for r in rows} <= {"complete", "stops", "deadlock", "no program"}
    assert "deadlock" not in {r["status"] for r in rows}, "a real kernel deadlocks at its own settings"


def test_every_row_is_what_the_kernel_does_now(cutlass_root):
    cov = _coverage()
    if cov.flash_attn_root() is None:
        pytest.skip("flash-attn-4 is not installed")
    want = {m.group("file"): m.groupdict() for m in RE_ROW.finditer(docs_section("program-coverage"))}
    wrong = []
    for got in cov.rows(node()):
        w = want[got["file"]]
        if (w["fit"], w["status"], w["where"].strip(), w["why"].strip()) != (got["fit"], got["status"], got["where"], got["why"]):
            wrong.append(f"{got['file']}: table {w['fit']} {w['status']} {w['where']!r} {w['why']!r}; now {got['fit']} {got['status']} "
                         f"{got['where']!r} {got['why']!r}")
    assert not wrong, "\n".join(wrong)
