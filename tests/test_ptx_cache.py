"""tests/compiled/ptx_cache.py: a location-independent cache key, and reuse across checkouts.

Two copies of the cache module (two "checkouts") and two CUTLASS roots with the same headers share
one cache folder; a fake nvcc (a Python script written here) records each call. No real nvcc runs.
"""

import importlib.util
import shutil
import sys
import textwrap

import pytest

from node_util import ROOT

COMPILED = ROOT / "tests" / "compiled"
NVCC_VERSION = "fake nvcc, release 0.0\n"

FAKE_NVCC = textwrap.dedent('''\
    #!{python}
    """A stand-in nvcc: appends its call to the log, writes a PTX naming its include roots."""
    import sys
    args = sys.argv[1:]
    if args == ["--version"]:
        print({version!r}, end="")
        sys.exit(0)
    with open({log!r}, "a") as f:
        f.write(" ".join(args) + "\\n")
    incs = [a[2:] for a in args if a.startswith("-I")]
    tu, out = [a for a in args if a.endswith(".cu")][0], args[args.index("-o") + 1]
    with open(out, "w") as f:
        f.write("\\t.loc 1 5 1\\n\\tbar.sync 0;\\n")
        f.write('\\t.file 1 "%s/cutlass/pipeline.hpp"\\n' % incs[0])
        f.write('\\t.file 2 "%s"\\n' % tu)
        f.write('\\t.file 3 "/usr/local/cuda/include/sm_30_intrinsics.hpp"\\n')
''')


def load_copy(folder, name):
    """A copy of ptx_cache (with the units' .cu / .cuh) in `folder`, imported as its own module."""
    folder.mkdir()
    for p in list(COMPILED.glob("*.cu")) + list(COMPILED.glob("*.cuh")) + [COMPILED / "ptx_cache.py"]:
        shutil.copy(p, folder / p.name)
    spec = importlib.util.spec_from_file_location(name, folder / "ptx_cache.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fake_root(path):
    """A CUTLASS-like root: include/cutlass/version.h and one header."""
    inc = path / "include" / "cutlass"
    inc.mkdir(parents=True)
    (inc / "version.h").write_text("#define CUTLASS_MAJOR 4\n#define CUTLASS_MINOR 2\n#define CUTLASS_PATCH 0\n")
    (inc / "pipeline.hpp").write_text("// pipeline v1\n")
    return path


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """(checkout a, checkout b, root a, root b, fake nvcc, its call log)."""
    monkeypatch.setenv("KLV_PTX_CACHE", str(tmp_path / "cache"))
    log = tmp_path / "calls.log"
    nvcc = tmp_path / "nvcc"
    nvcc.write_text(FAKE_NVCC.format(python=sys.executable, version=NVCC_VERSION, log=str(log)))
    nvcc.chmod(0o755)
    a, b = load_copy(tmp_path / "a", "ptx_cache_a"), load_copy(tmp_path / "b", "ptx_cache_b")
    return a, b, fake_root(tmp_path / "ra"), fake_root(tmp_path / "rb"), str(nvcc), log


def calls(log):
    """How many times the fake nvcc compiled."""
    return len(log.read_text().splitlines()) if log.is_file() else 0


def test_key_ignores_where_the_files_are(setup):
    """The same TU and headers at other paths give the same key; one changed header byte does not."""
    a, b, ra, rb, _, _ = setup
    unit_a, unit_b = a.UNITS_BY_NAME["sm90_gemm_pingpong"], b.UNITS_BY_NAME["sm90_gemm_pingpong"]
    key = a.cache_key(unit_a, ra, NVCC_VERSION)
    assert b.cache_key(unit_b, rb, NVCC_VERSION) == key
    (rb / "include" / "cutlass" / "pipeline.hpp").write_text("// pipeline v2\n")
    b._TREE_DIGESTS.clear()
    assert b.cache_key(unit_b, rb, NVCC_VERSION) != key
    assert a.cache_key(unit_a, ra, "another nvcc\n") != key


def test_other_checkout_reuses_the_ptx_with_its_own_paths(setup):
    """Checkout b reuses a's compile; its copy's .file paths are under b's roots, CUDA's unchanged."""
    a, b, ra, rb, nvcc, log = setup
    path_a, _, cached_a = a.build(a.UNITS_BY_NAME["sm90_gemm_pingpong"], ra, nvcc)
    assert (cached_a, calls(log)) == (False, 1)
    path_b, _, cached_b = b.build(b.UNITS_BY_NAME["sm90_gemm_pingpong"], rb, nvcc)
    assert (cached_b, calls(log)) == (True, 1)
    text_a, text_b = path_a.read_text(), path_b.read_text()
    assert f'"{ra}/include/cutlass/pipeline.hpp"' in text_a
    assert f'"{rb}/include/cutlass/pipeline.hpp"' in text_b
    assert f'"{b.HERE}/sm90_gemm_pingpong.cu"' in text_b and str(a.HERE) not in text_b
    assert '"/usr/local/cuda/include/sm_30_intrinsics.hpp"' in text_b
    assert text_a.splitlines()[:2] == text_b.splitlines()[:2]     # the code is the same
    # a's own roots get the compiled file itself, not a copy
    assert a.build(a.UNITS_BY_NAME["sm90_gemm_pingpong"], ra, nvcc)[0] == path_a


def test_changed_header_recompiles(setup):
    """A different header revision under b's root never reuses a's PTX."""
    a, b, ra, rb, nvcc, log = setup
    a.build(a.UNITS_BY_NAME["sm90_gemm_pingpong"], ra, nvcc)
    (rb / "include" / "cutlass" / "pipeline.hpp").write_text("// pipeline v2\n")
    _, _, cached = b.build(b.UNITS_BY_NAME["sm90_gemm_pingpong"], rb, nvcc)
    assert (cached, calls(log)) == (False, 2)


def test_localize_touches_only_file_paths():
    """localize rewrites the root prefix of .file paths only, the longest root first."""
    sys.path.insert(0, str(COMPILED))
    import ptx_cache
    text = ('\tmov.u32 %r1, 0; // "/old/x"\n\t.file 1 "/old/inc/a.h"\n'
            '\t.file 2 "/old/inc/tests/b.cuh", 1, 2\n\t.file 3 "/oldish/c.h"\n')
    got = ptx_cache.localize(text, {"cutlass": "/old/inc", "tests": "/old/inc/tests"},
                             {"cutlass": "/new", "tests": "/t"})
    assert got == ('\tmov.u32 %r1, 0; // "/old/x"\n\t.file 1 "/new/a.h"\n'
                   '\t.file 2 "/t/b.cuh", 1, 2\n\t.file 3 "/oldish/c.h"\n')
