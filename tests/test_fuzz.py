"""Property-based fuzzing of the parser, seeded with mutations of the real nvidia-cutlass headers.

Property: for any mutated text, parse_text() returns a model that validates against the JSON
Schema, and parse_file() either returns one or raises a parse_cutlass.VizError (one line in the
CLI); no other exception escapes.

CI runs a short, derandomized run (stable across runs). A longer random run:
    FUZZ_EXAMPLES=3000 python -m pytest tests/test_fuzz.py -q
(FUZZ_EXAMPLES set turns derandomization off; hypothesis prints the failing input's seed.)
"""

import os

import pytest

import parse_cutlass

hypothesis = pytest.importorskip("hypothesis") if not os.environ.get("CI") else __import__("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SEED_HEADERS = [
    "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp",
    "include/cutlass/gemm/collective/sm90_mma_multistage_gmma_ss_warpspecialized.hpp",
    "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp",
    "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp",
    "examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp",
    "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu",
]
TOKENS = [b"{", b"}", b"<", b">", b"(", b")", b";", b"//", b"/*", b"*/", b'"', b"'", b'R"(', b')"',
          b"\\", b"\n", b"#if 0\n", b"#endif\n", b"using X = ", b"template <", b"pipeline.",
          b"producer_acquire(", b"consumer_wait(", b"copy(", b"gemm(", b"\xff", b"\xe9", b"\r",
          b"\x00"]
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))


@pytest.fixture(scope="module")
def seeds(cutlass_root):
    """The seed headers' bytes (the FA3-style fixture too)."""
    out = [(cutlass_root / rel).read_bytes() for rel in SEED_HEADERS]
    out.append((parse_cutlass.Path(__file__).parent / "fixtures" / "fa3_style_mainloop.hpp").read_bytes())
    return out


def mutation():
    """One mutation: a function (data, other) -> data."""
    pos = st.floats(0, 1)
    span = st.integers(1, 4000)

    def at(data, f):
        return int(f * len(data))

    delete = st.tuples(pos, span).map(lambda a: lambda d, o: d[:at(d, a[0])] + d[at(d, a[0]) + a[1]:])
    duplicate = st.tuples(pos, span).map(
        lambda a: lambda d, o: d[:at(d, a[0])] + d[at(d, a[0]):at(d, a[0]) + a[1]] * 2 + d[at(d, a[0]) + a[1]:])
    truncate = pos.map(lambda f: lambda d, o: d[:at(d, f)])
    insert = st.tuples(pos, st.sampled_from(TOKENS), st.integers(1, 50)).map(
        lambda a: lambda d, o: d[:at(d, a[0])] + a[1] * a[2] + d[at(d, a[0]):])
    delete_lines = st.tuples(pos, st.integers(1, 30)).map(lambda a: lambda d, o: _delete_lines(d, a[0], a[1]))
    splice = st.tuples(pos, pos).map(lambda a: lambda d, o: d[:at(d, a[0])] + o[at(o, a[1]):])
    flip = st.tuples(pos, st.integers(0, 255)).map(
        lambda a: lambda d, o: d[:at(d, a[0])] + bytes([a[1]]) + d[at(d, a[0]) + 1:])
    return st.one_of(delete, duplicate, truncate, insert, delete_lines, splice, flip)


def _delete_lines(data, f, count):
    """Delete count lines starting at the line holding offset f*len."""
    lines = data.split(b"\n")
    start = int(f * len(lines))
    return b"\n".join(lines[:start] + lines[start + count:])


def decode(data):
    """What read_source does with bytes (replacement decoding), without the file system."""
    return data.decode("utf-8", errors="replace")


@settings(max_examples=FUZZ_EXAMPLES or 40, deadline=None, derandomize=not FUZZ_EXAMPLES,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture], print_blob=True)
@given(which=st.integers(0, 6), other=st.integers(0, 6), edits=st.lists(mutation(), min_size=1, max_size=6))
def test_mutated_headers_parse_to_valid_models(seeds, validate, tmp_path_factory, which, other, edits):
    data = seeds[which]
    for edit in edits:
        data = edit(data, seeds[other])
    model = parse_cutlass.parse_text(decode(data), "fuzzed.hpp")
    validate(model)
    # Through the file path too: a result or one of our errors, nothing else.
    path = tmp_path_factory.mktemp("fuzz") / "fuzzed.hpp"
    path.write_bytes(data)
    try:
        validate(parse_cutlass.parse_file(path))
    except parse_cutlass.VizError as err:
        assert "\n" not in str(err)
