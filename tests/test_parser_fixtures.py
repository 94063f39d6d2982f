"""Parser tests on this project's own fixtures (tests/fixtures/*.hpp paired with *.json) and on
small texts: blanking invariants, comments and strings never producing ops, error handling."""

import json
import subprocess
import sys

import pytest

import parse_cutlass
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


def run_cli(*args, stdin=None, cwd=None):
    """Run a CLI in a subprocess (so a hang or traceback is visible), return the result."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          timeout=60, input=stdin, cwd=cwd)


# ---------------------------------------------------------------- blanking pass


BLANK_CASES = [
    "int a; // pipeline.producer_acquire(s);\nint b;\n",
    "/* multi\nline\ncomment */ x(); /* unterminated\n\n",
    'auto s = "a \\" quoted // not a comment"; f(\'"\', \'\\\'\');\n',
    'auto r = R"xy(raw ) " still raw\n)xy"; g();\n',
    "int n = 1'000'000; char c = 'x';\n",
    "#define X(a) \\\n  a.producer_acquire(b)\n#if 0\nint y;\n#endif\n",
    "// line comment continued \\\n   still comment\nz();\n",
    "\n\n\n",
    "",
]


@pytest.mark.parametrize("text", BLANK_CASES)
def test_blanking_preserves_length_and_newlines(text):
    code, prose = parse_cutlass.blank_source(text)
    assert len(code) == len(prose) == len(text)
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    assert [i for i, c in enumerate(code) if c == "\n"] == newlines
    assert [i for i, c in enumerate(prose) if c == "\n"] == newlines


def test_blanking_removes_comments_strings_and_directives():
    code, prose = parse_cutlass.blank_source(BLANK_CASES[0] + BLANK_CASES[2] + BLANK_CASES[3] + BLANK_CASES[5])
    assert "producer_acquire" not in code
    assert "quoted" not in code and "still raw" not in code
    assert "quoted" in prose          # prose keeps string literals for statement texts
    assert "pipeline" not in prose    # but not comments or directives
    assert 'g();' in code and "f('" in code


def test_digit_separator_is_not_a_char_literal():
    code, _ = parse_cutlass.blank_source("int n = 1'000'000; p.producer_acquire(s);\n")
    assert "producer_acquire" in code


# ---------------------------------------------------------------- comments and strings never produce ops


def test_comments_and_strings_never_produce_ops():
    text = """
struct M {
  using MainloopPipeline = cutlass::PipelineTmaAsync<4>;
  CUTLASS_DEVICE void load(MainloopPipeline pipeline, State s) {
    // pipeline.producer_acquire(s);
    /* pipeline.producer_commit(s); */
    static_assert(X, "pipeline.consumer_release(s); cute::gemm(tiled_mma, a, b, c);");
    const char* t = "copy(params.tma_load_a.with(*b), x, y);";
    pipeline.producer_acquire(s);
  }
};
"""
    model = parse_cutlass.parse_text(text, "t.hpp")
    (fn,) = [f for f in model["functions"] if f["ops"]]
    assert [(o["op"], o["line"]) for o in fn["ops"]] == [("producer_acquire", 9)]
    assert fn["role"] == "producer"


def test_multiline_statement_line_end_line_and_text():
    text = ("struct M {\n  using P = cutlass::PipelineAsync<S>;\n"
            "  CUTLASS_DEVICE void mma(P pipeline) {\n"
            "    pipeline.consumer_wait(\n        smem_pipe_read,   // why\n        token);\n  }\n};\n")
    model = parse_cutlass.parse_text(text, "t.hpp")
    (op,) = model["functions"][0]["ops"]
    assert (op["op"], op["line"], op["end_line"]) == ("consumer_wait", 4, 6)
    assert op["text"] == "pipeline.consumer_wait( smem_pipe_read, token);"
    assert op["pipeline"] == "P"


def test_statement_text_closes_brackets_opened_before_the_op():
    """An op nested in a call or condition shows its whole statement, not a cut-off prefix."""
    text = ("struct M {\n  using P = cutlass::PipelineTmaAsync<S>;\n"
            "  CUTLASS_DEVICE void f(P pipeline) {\n"
            "    copy(params.tma_load_K.with(*pipeline.producer_get_barrier(w), mask),\n"
            "         tKgK(_, n), tKsK(_, w.index()));\n"
            "    cute::copy(softmax.finalize(v_descale), scores_scale);\n"
            "    if (pipeline.consumer_test_wait(r)) {\n      x = 1;\n    }\n"
            "    for (int i = 0; i < n; ++i) pipeline.consumer_release(r);\n  }\n};\n")
    ops = parse_cutlass.parse_text(text, "t.hpp")["functions"][0]["ops"]
    got = [(o["op"], o["line"], o["end_line"], o["text"]) for o in ops]
    whole_copy = "copy(params.tma_load_K.with(*pipeline.producer_get_barrier(w), mask), tKgK(_, n), tKsK(_, w.index()));"
    assert got == [
        ("tma_load", 4, 5, whole_copy),
        ("producer_get_barrier", 4, 5, whole_copy),
        ("softmax", 6, 6, "cute::copy(softmax.finalize(v_descale), scores_scale);"),
        ("consumer_test_wait", 7, 7, "if (pipeline.consumer_test_wait(r))"),
        ("consumer_release", 10, 10, got[-1][3]),
    ]
    # The for header's `)` closes a bracket opened before the statement's start (after the
    # header's last `;`): the statement still runs on to the op's own `;`.
    assert got[-1][3].endswith(") pipeline.consumer_release(r);")


def test_mma_pairs_with_the_wait_whose_stage_it_reads():
    """FA3-backward shape: after waits on two pipelines, each MMA takes the wait that shares its
    pipeline-state argument; an MMA naming no waited state takes the nearest wait."""
    text = ("struct M {\n  using PQ = cutlass::PipelineTmaAsync<S>;\n"
            "  using PdO = cutlass::PipelineTmaAsync<S>;\n"
            "  CUTLASS_DEVICE void mma(PQ pipeline_q, PdO pipeline_do) {\n"
            "    pipeline_q.consumer_wait(smem_pipe_read, token);\n"
            "    pipeline_do.consumer_wait(smem_pipe_read_do);\n"
            "    gemm(tiled_mma_dv, tP, tdO(_, smem_pipe_read_do.index()), tdV);\n"
            "    gemm(tiled_mma_dk, tdS, tQ(_, smem_pipe_read.index()), tdK);\n"
            "    gemm(tiled_mma_dq, tdS, tK, tdQ);\n  }\n};\n")
    ops = parse_cutlass.parse_text(text, "t.hpp")["functions"][0]["ops"]
    assert [(o["line"], o["pipeline"], o["wait_line"]) for o in ops if o["op"] == "mma"] == [
        (7, "PdO", 6), (8, "PQ", 5), (9, "PdO", 6)]


def test_statement_text_is_trimmed_to_160_chars():
    args = ", ".join(f"argument_{i}" for i in range(40))
    text = f"struct M {{ using P = cutlass::PipelineAsync<2>;\n void f(P pipeline) {{ pipeline.producer_commit({args}); }} }};\n"
    op = parse_cutlass.parse_text(text, "t.hpp")["functions"][0]["ops"][0]
    assert len(op["text"]) == 160 and op["text"].endswith("...")


# ---------------------------------------------------------------- FA3-shaped fixture (our own code)


def test_fa3_style_fixture_matches_expectations(validate):
    model = validate(parse_cutlass.parse_file(FIXTURES / "fa3_style_mainloop.hpp"))
    want = json.loads((FIXTURES / "fa3_style_mainloop.json").read_text())
    assert [[p["alias"], p["class"], p["stages"], p["line"]] for p in model["pipelines"]] == want["pipelines"]
    assert [[b["name"], b["operand"], b["layout"], b["line"], b["struct"]] for b in model["buffers"]] == want["buffers"]
    got = {f["name"]: [f["role"], f["line"], f["end_line"],
                       [[o["op"], o["line"], o["receiver"], o["pipeline"]] for o in f["ops"]]]
           for f in model["functions"] if f["ops"]}
    assert got == want["functions"]


def test_fa3_style_details(validate):
    model = validate(parse_cutlass.parse_file(FIXTURES / "fa3_style_mainloop.hpp"))
    load = next(f for f in model["functions"] if f["name"] == "load")
    v_acquire = next(o for o in load["ops"] if o["receiver"] == "pipeline_v_load")
    # conditional_return<!Transpose_V>(pipeline_v, pipeline_vt): both candidates are reported.
    assert v_acquire["pipeline_candidates"] == ["MainloopPipelineV", "MainloopPipelineVt"]
    q_load = next(o for o in load["ops"] if o["receiver"] == "params.tma_load_Q")
    assert q_load["pipeline"] is None and q_load["barrier"] == "barrier_Q" and q_load["buffer"] == "smem_q"
    mma = next(f for f in model["functions"] if f["name"] == "mma")
    # The lambda's ops count at each call site (88, 94), in the caller's order, each keeping its
    # own line (85) and the pipeline passed in; the definition itself contributes nothing.
    waits = [o for o in mma["ops"] if o["op"] == "consumer_wait"]
    assert [(o["line"], o["via"], o["pipeline"], o["object"]) for o in waits] == [
        (85, {"lambda": "consumer_wait", "line": 88}, "MainloopPipelineK", "pipeline_k"),
        (85, {"lambda": "consumer_wait", "line": 94}, "MainloopPipelineV", "pipeline_v")]
    assert [o["op"] for o in mma["ops"]][:3] == ["consumer_try_wait", "consumer_wait", "mma"]
    assert [o["wait_line"] for o in mma["ops"] if o["op"] == "mma"] == [85, 85]
    # load(): the Q copy (58) runs first; load_K / load_V run at their call sites in the loop.
    load_ops = [(o["op"], o["line"], (o.get("via") or {}).get("line")) for o in load["ops"]]
    assert load_ops[0] == ("tma_load", 58, None)
    assert ("producer_acquire", 40, 62) in load_ops and ("producer_acquire", 46, 63) in load_ops


# ---------------------------------------------------------------- bad input through the CLI


@pytest.mark.parametrize("case", ["missing", "directory", "empty", "binary", "not_cutlass"])
def test_bad_input_exit_2_one_line(tmp_path, case):
    target = tmp_path / "input.hpp"
    if case == "directory":
        target.mkdir()
    elif case == "empty":
        target.write_text("")
    elif case == "binary":
        target.write_bytes(b"\x7fELF\x00\x00\x01binary")
    elif case == "not_cutlass":
        target.write_text("#include <vector>\nint main() { std::vector<int> v; return v.size(); }\n")
    for tool in ("parse_cutlass.py", "viz.py"):
        proc = run_cli(ROOT / tool, target, cwd=tmp_path)
        assert proc.returncode == 2, (tool, case, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1, (tool, case, proc.stderr)
        assert str(target) in lines[0] and "Traceback" not in proc.stderr
        assert proc.stdout == ""
    expected = [] if case == "missing" else ["input.hpp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == expected   # nothing written


def test_no_pipeline_api_message(tmp_path):
    f = tmp_path / "plain.hpp"
    f.write_text("struct A { void f() { int x = 1; } };\n")
    proc = run_cli(ROOT / "parse_cutlass.py", f)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {f}: no CUTLASS pipeline API found in {f}"


def test_non_utf8_is_decoded_with_a_warning(tmp_path):
    f = tmp_path / "latin1.hpp"
    f.write_bytes(b"// caf\xe9\nstruct M { using P = cutlass::PipelineAsync<2>;\n"
                  b"  void f(P pipeline) { pipeline.producer_acquire(s); } };\n")
    proc = run_cli(ROOT / "parse_cutlass.py", f)
    assert proc.returncode == 0
    model = json.loads(proc.stdout)
    assert any("not valid UTF-8" in w for w in model["warnings"])
    assert "not valid UTF-8" in proc.stderr
    assert model["functions"][0]["ops"][0]["line"] == 3


def test_usage_errors_exit_2():
    assert run_cli(ROOT / "parse_cutlass.py").returncode == 2
    assert run_cli(ROOT / "parse_cutlass.py", "--bogus").returncode == 2
    proc = run_cli(ROOT / "viz.py", "--mode", "nope")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_help_and_version():
    for tool, prog in (("parse_cutlass.py", "kernel-viz-parse"), ("viz.py", "kernel-viz")):
        proc = run_cli(ROOT / tool, "--help")
        assert proc.returncode == 0 and "examples:" in proc.stdout
        ver = run_cli(ROOT / tool, "--version")
        assert ver.returncode == 0 and ver.stdout.strip() == f"{prog} {parse_cutlass.__version__}"


def test_main_returns_int_and_prints_json(capsys):
    assert parse_cutlass.main([str(FIXTURES / "fa3_style_mainloop.hpp"), "--pretty"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["schema_version"] == parse_cutlass.SCHEMA_VERSION
    assert out.startswith("{\n  ")


def test_viz_print_json_and_output_rules(tmp_path):
    header = FIXTURES / "fa3_style_mainloop.hpp"
    proc = run_cli(ROOT / "viz.py", header, "--print-json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["kind"] == "mainloop"
    # refusing to overwrite an input
    same = tmp_path / "copy.hpp"
    same.write_text(header.read_text())
    proc = run_cli(ROOT / "viz.py", same, "-o", same)
    assert proc.returncode == 2 and "same as an input" in proc.stderr
    assert same.read_text() == header.read_text()
    # a missing output directory
    proc = run_cli(ROOT / "viz.py", header, "-o", tmp_path / "no" / "such" / "dir" / "x.html")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1


def test_viz_default_renders_bundled_example(tmp_path):
    proc = run_cli(ROOT / "viz.py", "-o", "page.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "page.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "sm90_mma_tma_gmma_ss_warpspecialized.hpp" in html
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]   # no temporary file left


def test_standalone_transaction_barrier_ops():
    """FA3-style Q barrier: arrive_and_expect_tx / arrive in the producer, wait in the consumer;
    order barriers and pipeline tokens named *barrier* are not standalone barrier ops."""
    text = """struct M {
  using P = cutlass::PipelineTmaAsync<2>;
  CUTLASS_DEVICE void load(P pipeline_k, Storage& shared_storage) {
    shared_storage.pipelines.barrier_Q.arrive_and_expect_tx(kBytesQ);
    copy(params.tma_load_Q.with(reinterpret_cast<B&>(shared_storage.pipelines.barrier_Q), 0), g, s);
    pipeline_k.producer_acquire(w);
  }
  CUTLASS_DEVICE void mma(P pipeline_k, Storage& shared_storage) {
    auto &barrier_Q = shared_storage.pipelines.barrier_Q;
    barrier_Q.wait(work_idx % 2);
    auto barrier_token = pipeline_k.consumer_try_wait(r);
    math_wg_order_barrier.wait();
    pipeline_k.consumer_release(r);
  }
};
"""
    model = parse_cutlass.parse_text(text, "t.hpp")
    ops = {f["name"]: [(o["op"], o["line"], o.get("barrier"), o["receiver"]) for o in f["ops"]]
           for f in model["functions"]}
    assert ops["load"][0] == ("barrier_arrive", 4, "barrier_Q", "shared_storage.pipelines.barrier_Q")
    assert ("tma_load", 5, "barrier_Q", "params.tma_load_Q") in ops["load"]
    assert ops["mma"] == [("barrier_wait", 10, "barrier_Q", "barrier_Q"),
                          ("consumer_try_wait", 11, None, "pipeline_k"),
                          ("order_wait", 12, None, "math_wg_order_barrier"),
                          ("consumer_release", 13, None, "pipeline_k")]
    # a barrier op never changes a function's role
    assert [f["role"] for f in model["functions"]] == ["producer", "consumer"]
