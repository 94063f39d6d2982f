"""Tests written to kill the survivors of a mutation spot-check of the parsers (issue 22, part 4).

Each test names the single-line mutant it kills; scripts/mutate.py applies these mutants (and
others) to a copy of the repository and checks that the tests below fail on them.
"""

import pytest

import parse_cutlass
import parse_dsl

# An escaped backslash closes the string: `"C:\\"` is C, colon, one backslash. A lexeme without
# its escape branch ends the string at the first backslash, reads the closing quote as an opening
# one and blanks the rest of the line, op included.
ESCAPED_BACKSLASH = """struct M {
  using P = cutlass::PipelineTmaAsync<4>;
  CUTLASS_DEVICE void load(P pipeline, State s) {
    log("C:\\\\"); pipeline.producer_acquire(s);
    log('\\\\'); pipeline.producer_commit(s);
    log("say \\"hi\\""); pipeline.consumer_wait(s);
  }
};
"""


def test_an_op_after_a_string_ending_in_an_escaped_backslash_is_kept():
    # Kills: RE_LEXEME's string / char alternative without `|\\.` (the escape branch).
    assert '"C:\\\\"' in ESCAPED_BACKSLASH          # the C++ text really is "C:\\"
    model = parse_cutlass.parse_text(ESCAPED_BACKSLASH, "t.hpp")
    ops = [(o["op"], o["line"]) for f in model["functions"] for o in f["ops"]]
    assert ops == [("producer_acquire", 4), ("producer_commit", 5), ("consumer_wait", 6)]


def test_blanking_ends_the_string_at_its_closing_quote():
    code, _ = parse_cutlass.blank_source('log("C:\\\\"); x(); f(\'\\\\\'); y();\n')
    assert code == 'log("    "); x(); f(\'  \'); y();\n'


def test_line_index_at_the_first_column_of_a_line():
    # Kills: bisect_left for bisect_right in LineIndex.line (a line's first offset would give the
    # previous line, offset 0 line 0).
    index = parse_cutlass.LineIndex("ab\ncd\n\nef")
    assert [index.line(i) for i in range(10)] == [1, 1, 1, 2, 2, 2, 3, 4, 4, 4]


def test_an_op_at_column_0_has_its_own_line():
    text = ("struct M {\nusing P = cutlass::PipelineAsync<2>;\nCUTLASS_DEVICE void f(P pipeline) {\n"
            "pipeline.producer_acquire(s);\n  pipeline.producer_commit(s);\n}\n};\n")
    model = parse_cutlass.parse_text(text, "t.hpp")
    (fn,) = model["functions"]
    assert (fn["line"], [(o["op"], o["line"]) for o in fn["ops"]]) == \
        (3, [("producer_acquire", 4), ("producer_commit", 5)])
    assert model["pipelines"][0]["line"] == 2


# CuTe DSL role branches: `<=` includes its bound, `<` does not; a range test both ways.
DSL_BRANCHES = """import cutlass.cute as cute
import cutlass.pipeline as pipeline


class K:
    def __init__(self):
        self.last_load_warp = 5

    @cute.kernel
    def kernel(self):
        warp_idx = cute.arch.warp_idx()
        p = pipeline.PipelineAsync.create(num_stages=2)
        if warp_idx <= 3:
            p.producer_acquire(None)
        if warp_idx < 2:
            p.producer_commit(None)
        if warp_idx > 3 and warp_idx <= self.last_load_warp:
            p.consumer_wait(None)
        if warp_idx >= 6 and warp_idx < 8:
            p.consumer_release(None)
        if warp_idx <= self.last_load_warp:
            p.producer_acquire(None)
"""


@pytest.mark.parametrize("line, warps", [
    (13, [0, 1, 2, 3]),     # warp_idx <= 3 (kills `<=` read as `<`: one warp too few)
    (15, [0, 1]),           # warp_idx < 2
    (17, [4, 5]),           # warp_idx > 3 and warp_idx <= self.last_load_warp
    (19, [6, 7]),           # warp_idx >= 6 and warp_idx < 8
    (21, [0, 1, 2, 3, 4, 5]),   # warp_idx <= self.last_load_warp (a class constant)
])
def test_dsl_warp_index_bounds(line, warps):
    model = parse_dsl.parse_text(DSL_BRANCHES, "k.py", "k.py")
    roles = {r["line"]: r["warps"] for r in model["kernel_layer"]["warp_roles"]}
    assert roles[line] == warps, roles


# ----------------------------------------------------------------------------------------------
# Survivors of scripts/mutate.py's first run (docs/testing.md), killed here.
# ----------------------------------------------------------------------------------------------


def test_prefixed_char_literals_are_not_digit_separators():
    # Kills: `and` -> `or` in _is_digit_separator (L'"' read as a separator: the `"` would open a
    # string that blanks the rest of the line).
    text = "auto c = L'\"'; auto d = u8'x'; p.producer_acquire(s); int n = 1'000;\n"
    code, _ = parse_cutlass.blank_source(text)
    assert code == "auto c = L' '; auto d = u8' '; p.producer_acquire(s); int n = 1'000;\n"


@pytest.mark.parametrize("text, lines", [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\n\n", 2)])
def test_line_count_as_wc_counts(text, lines):
    # Kills: dropping `or not text` (an empty text would count one line).
    assert parse_cutlass.LineIndex(text).count == lines


STATEMENT_HEAD = "pipeline.producer_commit("


@pytest.mark.parametrize("length, trimmed", [(159, False), (160, False), (161, True)])
def test_statement_text_is_trimmed_only_beyond_the_limit(length, trimmed):
    # Kills: `>` -> `>=` in Source.snippet (a text of exactly MAX_TEXT_CHARS would lose its end).
    args = "a" * (length - len(STATEMENT_HEAD) - 2)
    statement = f"{STATEMENT_HEAD}{args});"
    assert len(statement) == length
    text = f"struct M {{ using P = cutlass::PipelineAsync<2>;\n void f(P pipeline) {{ {statement} }} }};\n"
    (op,) = parse_cutlass.parse_text(text, "t.hpp")["functions"][0]["ops"]
    limit = parse_cutlass.MAX_TEXT_CHARS
    assert limit == 160
    if trimmed:
        assert op["text"] == statement[:limit - 3] + "..."
    else:
        assert op["text"] == statement


def test_a_python_file_of_exactly_the_size_limit_is_parsed(tmp_path):
    # Kills: `>` -> `>=` in parse_dsl.parse_file's size check.
    head = DSL_BRANCHES + "#"
    path = tmp_path / "at_limit.py"
    path.write_text(head + "x" * (parse_dsl.MAX_PYTHON_CHARS - len(head) - 1) + "\n")
    assert len(path.read_text()) == parse_dsl.MAX_PYTHON_CHARS
    model = parse_dsl.parse_file(path)
    assert [r["line"] for r in model["kernel_layer"]["warp_roles"]] == [13, 15, 17, 19, 21]
    path.write_text(head + "x" * (parse_dsl.MAX_PYTHON_CHARS - len(head)) + "\n")
    with pytest.raises(parse_cutlass.InputError, match="Python file too large"):
        parse_dsl.parse_file(path)
