"""The parser's shared core (parse_core.py): the operand spelling, the dispatcher by file kind,
and that the front ends import the core, never each other."""

import json
import subprocess
import sys
import textwrap

import pytest

import parse_core
import parse_cutlass
import parse_dsl
from conftest import ROOT

# A backward mainloop in CUTLASS style, written for this test: dO's buffer and TMA load, and a
# member-style load name with a trailing underscore.
BWD_MAINLOOP = textwrap.dedent("""\
    struct CollectiveMainloopBwd {
      using MainloopPipeline = cutlass::PipelineTmaAsync<2>;
      struct SharedStorage {
        cute::array_aligned<Element, cute::cosize_v<SmemLayoutdO>> smem_dO;
        cute::array_aligned<Element, cute::cosize_v<SmemLayoutQ>> smem_q;
      };
      CUTLASS_DEVICE void load(Params const& params, MainloopPipeline pipeline_do, PipelineState state) {
        pipeline_do.producer_acquire(state);
        copy(params.tma_load_dO.with(*pipeline_do.producer_get_barrier(state)), tdOgdO, tdOsdO);
        copy(params.tma_load_q_.with(*pipeline_do.producer_get_barrier(state)), tQgQ, tQsQ);
      }
    };
""")


@pytest.mark.parametrize("raw, want", [
    ("a", "A"), ("K", "K"), ("vt", "Vt"), ("V_new", "V_new"), ("a_", "A"), ("q__", "Q"),
    ("dO", "dO"), ("dQ", "dQ"), ("dPsum", "dPsum"), ("dO_", "dO"),
    ("do", "Do"),       # all lower case: not guessed to be a gradient
    ("d", "D"), ("D", "D"), ("DO", "DO"), ("_", "_"), ("", None), (None, None),
])
def test_operand_name(raw, want):
    assert parse_core.operand_name(raw) == want


def test_the_cpp_front_end_spells_gradients_as_the_dsl_one_does():
    model = parse_cutlass.parse_text(BWD_MAINLOOP, "bwd.hpp")
    assert [(b["name"], b["operand"]) for b in model["buffers"]] == [("smem_dO", "dO"), ("smem_q", "Q")]
    loads = [(o["operand"], o["buffer"]) for f in model["functions"] for o in f["ops"] if o["op"] == "tma_load"]
    assert loads == [("dO", "smem_dO"), ("Q", "smem_q")]


def test_the_dsl_front_end_spells_operands_with_the_core_rule():
    assert parse_dsl.operand_of_atom("tma_atom_dO") == "dO"
    assert parse_dsl.operand_of_atom("self.tma_load_K_fn") == "K"
    assert parse_dsl.operand_of_atom("tma_atom_q") == "Q"


@pytest.mark.parametrize("name, language", [
    ("flash_fwd.py", "cute-dsl"), ("k.hpp", "cpp"), ("k.cuh", "cpp"), ("k.cu", "cpp"),
    ("k.h", "cpp"), ("noext", "cpp"), ("notes.txt", "cpp"), (".py", "cute-dsl"),
])
def test_front_end_by_file_kind(name, language):
    assert parse_core.front_end_for(name)[0] == language


def test_scan_suffixes_are_the_front_ends_endings():
    assert sorted(parse_core.SCAN_SUFFIXES) == sorted(
        [".py", ".hpp", ".h", ".cuh", ".cu", ".inl", ".hxx", ".hh"])


def test_parse_file_dispatches(tmp_path):
    cpp = tmp_path / "bwd.hpp"
    cpp.write_text(BWD_MAINLOOP)
    assert parse_core.parse_file(cpp)["language"] == "cpp"
    dsl = tmp_path / "kernel.py"
    dsl.write_text("import cutlass\n")
    with pytest.raises(parse_core.ParseError, match="no CuTe DSL pipeline objects"):
        parse_core.parse_file(dsl)
    with pytest.raises(parse_core.InputError, match="--kernel-layer applies to C.. headers"):
        parse_core.parse_file(dsl, cpp)


# A fresh interpreter runs CODE, then prints the names of the modules it holds as its last
# stderr line (sys.modules: -X importtime misses importlib.import_module, the dispatcher's way).
MODULES_AFTER = """
import json, runpy, sys
sys.argv = {argv!r}
try:
    {run}
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules(run, argv=("-c",)):
    """The modules loaded after `run` (one statement) in a fresh interpreter."""
    code = MODULES_AFTER.format(argv=list(argv), run=run)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.splitlines()[-1])


def test_the_dsl_front_end_does_not_import_the_cpp_one():
    names = _modules("import parse_dsl")
    assert "parse_core" in names and "parse_cutlass" not in names


def test_the_cpp_front_end_does_not_import_the_dsl_one():
    names = _modules("import parse_cutlass")
    assert "parse_core" in names and "parse_dsl" not in names


def test_a_dsl_parse_imports_the_dsl_front_end_once_needed():
    fa3 = str(ROOT / "tests" / "fixtures" / "fa3_style_mainloop.hpp")
    assert "parse_dsl" not in _modules(f"import parse_core; parse_core.parse_file({fa3!r})")
    dsl = next(str(p) for p in sorted((ROOT / "tests" / "fixtures" / "dsl").glob("*.py")))
    names = _modules(f"import parse_core; parse_core.parse_file({dsl!r})")
    assert "parse_dsl" in names and "parse_cutlass" not in names


def test_the_cli_run_as_a_script_is_not_imported_a_second_time():
    """`python3 parse_cutlass.py FILE` parses with the __main__ module it is, not with a copy."""
    script = str(ROOT / "parse_cutlass.py")
    fixture = str(ROOT / "tests" / "fixtures" / "fa3_style_mainloop.hpp")
    names = _modules(f"runpy.run_path({script!r}, run_name='__main__')", (script, fixture))
    assert "parse_core" in names and "parse_cutlass" not in names


# A consumer with two named-barrier calls, written for this test.
NAMED_BARRIERS = textwrap.dedent("""\
    struct M {
      using MainloopPipeline = cutlass::PipelineTmaAsync<2>;
      CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState state) {
        pipeline.consumer_wait(state);
        cutlass::arch::NamedBarrier::arrive(256, 1);
        cutlass::arch::NamedBarrier::sync(256, 2);
        pipeline.consumer_release(state);
      }
    };
""")


def _ops(text):
    """(op, receiver) of every op of a C++ text."""
    model = parse_cutlass.parse_text(text, "m.hpp")
    return [(o["op"], o["receiver"]) for f in model["functions"] for o in f["ops"]]


def test_a_named_barrier_sync_after_an_arrive_has_its_own_receiver():
    """Each free call is read on its own (the loop before the table reused the arrive's receiver)."""
    assert _ops(NAMED_BARRIERS) == [("consumer_wait", "pipeline"), ("named_barrier_arrive", "NamedBarrier::arrive"),
                                    ("named_barrier_sync", "NamedBarrier::sync"), ("consumer_release", "pipeline")]


def test_the_scan_is_the_recogniser_table(monkeypatch):
    """Dropping a row of OP_RECOGNIZERS drops exactly its construct's ops."""
    names = [name for name, _ in parse_cutlass.OP_RECOGNIZERS]
    assert names[0] == "pipeline member calls" and len(set(names)) == len(names)
    monkeypatch.setattr(parse_cutlass, "OP_RECOGNIZERS",
                        tuple(row for row in parse_cutlass.OP_RECOGNIZERS if row[0] != "free calls"))
    assert _ops(NAMED_BARRIERS) == [("consumer_wait", "pipeline"), ("consumer_release", "pipeline")]


def test_a_copy_is_claimed_by_the_first_copy_recogniser(monkeypatch):
    """BWD_MAINLOOP's copies are TMA loads; without that row no other row claims them."""
    assert [op for op, _ in _ops(BWD_MAINLOOP)].count("tma_load") == 2
    monkeypatch.setattr(parse_cutlass, "COPY_RECOGNIZERS", parse_cutlass.COPY_RECOGNIZERS[1:])
    assert "tma_load" not in [op for op, _ in _ops(BWD_MAINLOOP)]
