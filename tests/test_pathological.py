"""Linear time on hostile text: every pathological input (tests/pathological_inputs.py) is parsed
in its own subprocess under a generous timeout that only catches a hang (or a quadratic blow-up,
which at these sizes takes minutes). No wall-clock figure is asserted; bench/bench_parse.py
prints the timings."""

import json
import subprocess
import sys

import pytest

import parse_cutlass
import pathological_inputs as P
from conftest import ROOT

HANG_TIMEOUT_S = 60
SIZE = 512 * 1024          # per input; the quadratic cases this guards against took minutes at 1 MB
BIG = 5 * 1024 * 1024      # the single-line and long-statement inputs run at full size

CHILD = """
import json, sys
sys.path[:0] = [{root!r}, {tests!r}]
import parse_cutlass, pathological_inputs as P
kind, name, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = P.generic_texts(size)[name] if kind == "generic" else P.near_match_text(name, size)
model = parse_cutlass.parse_text(text, "pathological.hpp")
json.dump({{"kind": model["kind"], "chars": len(text), "lines": model["source"]["lines"],
           "ops": sum(len(f["ops"]) for f in model["functions"])}}, sys.stdout)
""".format(root=str(ROOT), tests=str(ROOT / "tests"))

FULL_SIZE = {"single line of ops", "long lines", "using without ;", "ops without ;", "braces"}


def parse_in_child(kind, name, size):
    """Parse one generated input in a fresh interpreter; return its summary."""
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, kind, name, str(size)],
                              capture_output=True, text=True, timeout=HANG_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{kind} input {name!r} ({size} chars) did not parse within {HANG_TIMEOUT_S} s")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_every_pattern_has_a_near_match_sample():
    missing = [n for n in P.pattern_names() if n not in P.NEAR_MATCH_SAMPLES]
    assert not missing, f"add a matching sample to tests/pathological_inputs.py for {missing}"
    for name, sample in P.NEAR_MATCH_SAMPLES.items():
        assert P.pattern(name).search(sample), (name, sample)


@pytest.mark.parametrize("name", sorted(P.generic_texts(1)))
def test_generic_shape_parses_in_bounded_time(name):
    size = BIG if name in FULL_SIZE else SIZE
    summary = parse_in_child("generic", name, size)
    assert summary["lines"] >= 1


@pytest.mark.parametrize("name", sorted(P.NEAR_MATCH_SAMPLES))
def test_near_matches_parse_in_bounded_time(name):
    summary = parse_in_child("near", name, SIZE)
    # the frame's pipeline alias is still found (kernel-layer samples make it a layer, store-only
    # samples an epilogue; unbalanced braces in some near-matches may swallow the frame's
    # function, so ops are not required)
    assert summary["kind"] in ("mainloop", "epilogue", "kernel_layer")


def test_five_mb_single_line_file_through_the_cli(tmp_path):
    header = tmp_path / "one_line.hpp"
    header.write_text(P.FRAME_HEAD.replace("\n", " ") + P.fill("p.consumer_wait(s); ", BIG)
                      + P.FRAME_TAIL.replace("\n", " "))
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), str(header)],
                              capture_output=True, text=True, timeout=HANG_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"a 5 MB one-line file did not parse within {HANG_TIMEOUT_S} s")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    model = json.loads(proc.stdout)
    assert model["source"]["lines"] == 1
    assert all(len(o["text"]) <= parse_cutlass.MAX_TEXT_CHARS for f in model["functions"] for o in f["ops"])


@pytest.mark.parametrize("opener", ["<", "(", "[", "{"])
def test_hundred_thousand_unbalanced_openers(opener):
    text = "struct A { void f(P pipeline) { pipeline.producer_acquire(s); } };\n" + opener * 100_000
    model = parse_cutlass.parse_text(text, "unbalanced.hpp")
    assert model["functions"][0]["ops"][0]["op"] == "producer_acquire"


def test_deep_function_nesting_is_bounded_and_warned():
    depth = 1000
    text = "void f(P pipeline) {\n" * depth + "pipeline.consumer_wait(s);\n" + "}\n" * depth
    model = parse_cutlass.parse_text(text, "deep.hpp")
    assert len(model["functions"]) <= parse_cutlass.MAX_FUNCTION_NESTING
    assert any("nested more than" in w for w in model["warnings"])
