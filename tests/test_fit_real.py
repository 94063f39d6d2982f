"""docs/fit.md's table of real files: each is re-parsed from the installed packages and fitted by
schedule.js; the model, the reason's first words and "no deadlock at the source's settings" must
be what the table says. A fit rule loosened (a GEMM page for an attention kernel, a false
deadlock) or tightened (a kernel that used to fit now refused) fails here first."""

import importlib.util
import re
from pathlib import Path

import pytest

import node_util
import parse_cutlass
from docs_util import docs_section

RE_ROW = re.compile(r"^\| `(?P<file>[^`]+)` \| (?P<model>\w+(?: DEADLOCK)?) \| (?P<why>[^|]*)\|$", re.M)


def _rows():
    return [m.groupdict() for m in RE_ROW.finditer(docs_section("fit-table"))]


def _flash_attn_root():
    spec = importlib.util.find_spec("flash_attn")
    locs = list(spec.submodule_search_locations or []) if spec else []
    return Path(locs[0]).parent if locs else None


def _locate(rel, cutlass_root):
    """A table path: relative to CUTLASS's source tree, or to the directory holding flash_attn."""
    if rel.startswith("flash_attn/"):
        root = _flash_attn_root()
        if root is None:
            pytest.skip("flash-attn-4 is not installed")
        return root / rel
    return cutlass_root / rel


def test_the_table_is_whole():
    rows = _rows()
    assert len(rows) >= 80
    assert not [r for r in rows if "DEADLOCK" in r["model"]], "no fitted real file deadlocks at its own settings"
    assert {r["model"] for r in rows} == {"gemm", "attention", "blackwell", "none"}


def test_real_files_get_the_documented_fit(cutlass_root):
    rows = _rows()
    structures = []
    for row in rows:
        parts = [p.strip() for p in row["file"].split(" + ")]
        main = _locate(parts[0], cutlass_root)
        layer = _locate(parts[1], cutlass_root) if len(parts) > 1 else None
        structures.append(parse_cutlass.parse_file(main, layer))
    got = node_util.fits(structures)
    wrong = []
    for row, g in zip(rows, got):
        model = g["fit"]["model"] or "none"
        want_model = row["model"].split()[0]
        why = row["why"].strip()
        if model != want_model or (why and not g["fit"]["reason"].startswith(why)) or (g["fit"]["model"] and g["deadlock"]):
            wrong.append(f"{row['file']}: table {row['model']} {why!r}, now {model} {g['fit']['reason'][:90]!r}"
                         f"{' DEADLOCK' if g['deadlock'] else ''}")
    assert not wrong, "\n".join(wrong)
