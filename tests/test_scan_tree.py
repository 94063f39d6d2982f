"""The whole installed CUTLASS 4.2 tree (include/ and examples/): every source file parses in
bounded time, every accepted model validates against the schema, and `--scan` lists exactly the
files a single parse accepts, with the row that parse gives.

Each file is parsed once: parse_text is memoised by file for the duration of the test (scan
and parse_file name the file differently; the memo puts the caller's name back), so the test
costs one parse of the tree (about 30 s of CPU).
"""

import copy
import signal
import time

import pytest

import parse_cutlass
from docs_util import docs_section

SUFFIXES = parse_cutlass.SCAN_SUFFIXES
PER_FILE_BOUND_S = 60     # a hang guard, not a speed assertion (the largest header takes ~3 s)


@pytest.fixture(scope="module")
def tree(cutlass_root):
    """(rows of scan(root), {display path: single-parse model or None}) for the whole tree."""
    original = parse_cutlass.parse_text
    cache = {}

    def memo(text, path="<text>", display=None, read_warnings=(), **options):
        # Keyed by file: scan names a file relative to the directory scanned, parse_file
        # relative to the tree root, so a hit under another name gets that name back. Options
        # (`compose`) are part of the key and passed through.
        key = (str(path), tuple(read_warnings), tuple(sorted(options.items())))
        if key not in cache:
            cache[key] = (display, original(text, path, display, read_warnings, **options))
        old, model = cache[key]
        model = copy.deepcopy(model)
        if display != old:
            model["source"]["path"] = display
            model["warnings"] = [display + w[len(old):] if w.startswith(old + ":") else w
                                 for w in model["warnings"]]
        return model

    parse_cutlass.parse_text = memo
    try:
        singles = {}
        slow = []
        for sub in ("include", "examples"):
            for path in sorted((cutlass_root / sub).rglob("*")):
                if not path.is_file() or not path.name.endswith(SUFFIXES):
                    continue
                rel = path.relative_to(cutlass_root).as_posix()
                started = time.monotonic()
                try:
                    singles[rel] = parse_cutlass.parse_file(path)
                except parse_cutlass.VizError:
                    singles[rel] = None
                if time.monotonic() - started > PER_FILE_BOUND_S:
                    slow.append(rel)
        rows = [r for sub in ("include", "examples") for r in
                _prefixed(parse_cutlass.scan(cutlass_root / sub), sub)]
    finally:
        parse_cutlass.parse_text = original
    assert not slow, slow
    return rows, singles


def _prefixed(rows, sub):
    """Scan rows of a subdirectory, with paths made relative to the tree root again."""
    for row in rows:
        row = dict(row)
        row["path"] = f"{sub}/{row['path']}"
        yield row


def test_tree_size(tree):
    rows, singles = tree
    assert len(singles) > 1000
    assert len(rows) > 100


def test_every_accepted_model_validates(tree, validate):
    _, singles = tree
    for rel, model in singles.items():
        if model is not None:
            validate(model)


def test_scan_rows_equal_single_file_parses(tree):
    rows, singles = tree
    want = {}
    for rel, model in singles.items():
        if model is not None:
            row = parse_cutlass.scan_row(model)
            row["path"] = rel
            want[rel] = row
    got = {r["path"]: r for r in rows}
    assert sorted(got) == sorted(want), (sorted(set(want) - set(got))[:10], sorted(set(got) - set(want))[:10])
    for rel in want:
        assert got[rel] == want[rel], rel


def test_scan_reads_every_source_kind(tree):
    rows, _ = tree
    kinds = {r["file_kind"] for r in rows}
    assert {"hpp", "cu"} <= kinds, kinds
    assert {".hpp", ".h", ".cuh", ".cu", ".inl"} <= set(SUFFIXES)


def test_cutlass2_pipelined_mma_is_not_a_pipeline(tree):
    _, singles = tree
    for rel in ("include/cutlass/conv/kernel/default_conv2d_fprop.h",
                "include/cutlass/gemm/kernel/default_gemm_complex.h"):
        model = singles[rel]
        assert model is None or not model["pipelines"], rel


# The warnings the installed tree gives are genuine limits, each documented in the docs' parser
# section (docs/parser.md, by kind name): a kernel layer parsed as the main file, pipeline types whose ops are in
# another file, cp.async stages kept without a pipeline class.
TREE_WARNING_KINDS = {"kernel-layer-as-main-file", "pipelines-without-ops", "cp-async-without-pipeline"}


def test_warnings_on_the_tree_are_the_documented_limits(tree):
    _, singles = tree
    warnings = [w for m in singles.values() if m for w in m["warnings"]]
    kinds = {}
    for w in warnings:
        kinds.setdefault(parse_cutlass.warning_kind(w), []).append(w)
    assert set(kinds) <= TREE_WARNING_KINDS, {k: v[:3] for k, v in kinds.items() if k not in TREE_WARNING_KINDS}
    parser_section = docs_section("parser")
    for kind, _ in parse_cutlass.WARNING_KINDS:
        assert f"`{kind}`" in parser_section, kind
    counts = ", ".join(f"{len(kinds.get(k, []))} `{k}`" for k in sorted(TREE_WARNING_KINDS))
    flat = " ".join(parser_section.split())
    assert f"{len(warnings)} warnings on the whole tree ({counts})" in flat, (len(warnings), counts)
    accepted = sum(m is not None for m in singles.values())
    assert f"{len(singles)} files, {accepted} accepted" in flat, (len(singles), accepted)
