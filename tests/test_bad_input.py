"""The bad-input matrix through both CLIs, and interrupted writes.

Every case: exit status 2 (or 0 plus a warning where a result is still useful), exactly one
`error: PATH...` line on stderr naming the file and the problem (plus `  note:` lines only for
the driver's candidate list), never a traceback, nothing on stdout, and no output or temporary
file left behind. tests/test_parser_fixtures.py covers the first few shapes through the default
invocation; this file adds the rest and checks viz.py with an explicit -o too.
"""

import os
import subprocess
import sys

import pytest

import pagekit
import parse_core
import parse_cutlass
import viz
from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
MAINLOOP = FIXTURES / "fa3_style_mainloop.hpp"
DRIVER = "examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu"
PINGPONG = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"
TOOLS = ("parse_cutlass.py", "viz.py")


def run(tool, *args, cwd):
    """Run one CLI in a subprocess; a hang fails the test instead of blocking it."""
    return subprocess.run([sys.executable, str(ROOT / tool), *map(str, args)], capture_output=True,
                          text=True, timeout=60, cwd=cwd)


def assert_refused(proc, path, problem, notes=False):
    """Exit 2, one error line naming path and problem, no traceback, nothing on stdout."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    first, *rest = proc.stderr.splitlines()
    assert first.startswith(f"error: {path}") and problem in first, first
    if notes:
        assert rest and all(line.startswith("  note: ") for line in rest), rest
    else:
        assert rest == [], proc.stderr
    assert proc.stdout == ""


def listing(directory):
    """Names in a directory (temporary files included: they start with a dot)."""
    return sorted(p.name for p in directory.iterdir())


def make_case(tmp_path, case):
    """Create the input of one matrix case under tmp_path/in; return its path."""
    d = tmp_path / "in"
    d.mkdir()
    target = d / "input.hpp"
    if case == "missing":
        return target
    if case == "directory":
        target.mkdir()
    elif case == "empty":
        target.write_text("\n  \n")
    elif case == "binary":
        target.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    elif case == "too large":
        with open(target, "wb") as handle:   # sparse: 50 MB apparent size, no disk use
            handle.truncate(50 * 1024 * 1024)
    elif case == "not cutlass":
        target.write_text("#include <vector>\nint main() { std::vector<int> v; return v.size(); }\n")
    return target


CASES = {
    # case: the problem named on the error line
    "missing": "no such file",
    "directory": "is a directory",
    "empty": "empty file",
    "binary": "binary file",
    "too large": "file too large",
    "not cutlass": "no CUTLASS pipeline API found",
}


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_refused_with_one_line(tmp_path, tool, case):
    target = make_case(tmp_path, case)
    out = tmp_path / "out"
    out.mkdir()
    args = [target] + (["-o", out / "page.html"] if tool == "viz.py" else [])
    proc = run(tool, *args, cwd=out)
    assert_refused(proc, target, CASES[case])
    assert listing(out) == []


def test_too_large_is_refused_before_reading(tmp_path, monkeypatch):
    """The 16 MiB limit is checked on the open file's size: no byte of a 50 MB file is read."""
    target = make_case(tmp_path, "too large")
    reads = []
    real_open = open

    class Spy:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def fileno(self):
            return self.handle.fileno()

        def read(self, n=-1):
            reads.append(n)
            return self.handle.read(n)

    monkeypatch.setattr(parse_core, "open", lambda p, mode="r": Spy(real_open(p, mode)), raising=False)
    with pytest.raises(parse_cutlass.InputError) as err:
        parse_cutlass.read_source(target)
    assert "file too large (52428800 bytes; the limit is 16777216)" in str(err.value)
    assert reads == []


@pytest.mark.parametrize("tool", TOOLS)
def test_fifo_and_device_are_refused_unread(tmp_path, tool):
    """A FIFO would block on open and /dev/zero never ends: both are refused before reading."""
    fifo = tmp_path / "pipe.hpp"
    os.mkfifo(fifo)
    for target in (fifo, "/dev/zero"):
        assert_refused(run(tool, target, cwd=tmp_path), target, "not a regular file")


@pytest.mark.parametrize("tool", TOOLS)
def test_non_utf8_is_decoded_with_a_warning(tmp_path, tool):
    header = tmp_path / "latin1.hpp"
    header.write_bytes(MAINLOOP.read_bytes().replace(b"// ", b"// caf\xe9 ", 1))
    args = [header] + (["-o", tmp_path / "page.html"] if tool == "viz.py" else [])
    proc = run(tool, *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("warning: ")]
    assert len(warnings) == 1 and str(header) in warnings[0] and "not valid UTF-8" in warnings[0]
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_driver_cu_lists_candidate_mainloops(cutlass_root, tmp_path, tool):
    driver = cutlass_root / DRIVER
    args = [driver] + (["-o", tmp_path / "page.html"] if tool == "viz.py" else [])
    proc = run(tool, *args, cwd=tmp_path)
    assert_refused(proc, driver, "example driver", notes=True)
    assert "  note: candidate mainloop: include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp" \
        in proc.stderr.splitlines()
    assert listing(tmp_path) == []


def test_kernel_layer_as_mainloop(cutlass_root, tmp_path):
    """parse_cutlass: a result (kind kernel_layer) plus a warning. viz.py's pages are drawn from
    a mainloop's pipelines, so it refuses (exit 2) and says how to pass the file instead;
    `viz.py --print-json` still prints the parsed layer."""
    layer = cutlass_root / PINGPONG
    proc = run("parse_cutlass.py", layer, cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [f"warning: include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp: "
                                        f"{parse_cutlass.KERNEL_LAYER_AS_MAINLOOP}"]
    for mode in ("waveform", "graph"):
        proc = run("viz.py", layer, "--mode", mode, "-o", tmp_path / "page.html", cwd=tmp_path)
        assert_refused(proc, layer, "is a kernel layer, not a collective mainloop")
        assert "--kernel-layer" in proc.stderr
    assert listing(tmp_path) == []
    proc = run("viz.py", layer, "--print-json", cwd=tmp_path)
    assert proc.returncode == 0 and '"kind": "kernel_layer"' in proc.stdout


def test_mainloop_given_as_kernel_layer(tmp_path):
    for tool in TOOLS:
        proc = run(tool, MAINLOOP, "--kernel-layer", MAINLOOP, cwd=tmp_path)
        assert_refused(proc, MAINLOOP, "not a CUTLASS kernel layer")
    assert listing(tmp_path) == []


@pytest.mark.parametrize("where", ["under a file", "in /proc", "missing directory", "a directory"])
def test_unwritable_output_path(tmp_path, where):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory\n")
    out = {"under a file": blocker / "page.html", "in /proc": "/proc/kernel_viz_page.html",
           "missing directory": tmp_path / "no" / "page.html", "a directory": tmp_path}[where]
    proc = run("viz.py", MAINLOOP, "-o", out, cwd=tmp_path)
    problem = {"under a file": "not a directory", "in /proc": "cannot write",
               "missing directory": "output directory does not exist",
               "a directory": "output path is a directory"}[where]
    assert_refused(proc, out, problem)
    assert listing(tmp_path) == ["file.txt"]
    assert blocker.read_text() == "not a directory\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_output_directory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        proc = run("viz.py", MAINLOOP, "-o", ro / "page.html", cwd=tmp_path)
        assert_refused(proc, ro / "page.html", "cannot write")
        assert listing(ro) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("which", ["header", "kernel layer", "via symlink"])
def test_output_equal_to_an_input_is_refused(cutlass_root, tmp_path, which):
    header = tmp_path / "mainloop.hpp"
    header.write_bytes((cutlass_root / "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp").read_bytes())
    layer = tmp_path / "layer.hpp"
    layer.write_bytes((cutlass_root / PINGPONG).read_bytes())
    out = {"header": header, "kernel layer": layer, "via symlink": tmp_path / "link.html"}[which]
    if which == "via symlink":
        out.symlink_to(header)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = run("viz.py", header, "--kernel-layer", layer, "-o", out, cwd=tmp_path)
    assert_refused(proc, out, "same as an input file")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# ---------------------------------------------------------------- interrupted writes


def fail_while_writing(monkeypatch, exc):
    """Make pagekit's temporary-file write put half of the data on disk, then raise exc
    (a full disk, or Ctrl-C in the middle of the write)."""
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:len(data) // 2])
            self.handle.flush()
            raise exc

    monkeypatch.setattr(pagekit.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))


def test_write_atomic_failing_midway_keeps_the_old_file(tmp_path, monkeypatch):
    page = tmp_path / "page.html"
    page.write_text("old page\n")
    fail_while_writing(monkeypatch, OSError(28, "No space left on device"))
    with pytest.raises(OSError):
        pagekit.write_atomic(page, "new page " * 1000)
    assert page.read_text() == "old page\n"
    assert listing(tmp_path) == ["page.html"]


def test_write_atomic_failing_at_rename_keeps_the_old_file(tmp_path, monkeypatch):
    page = tmp_path / "page.html"
    page.write_text("old page\n")

    def refuse(src, dst):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(pagekit.os, "replace", refuse)
    with pytest.raises(OSError):
        pagekit.write_atomic(page, "new page")
    assert page.read_text() == "old page\n"
    assert listing(tmp_path) == ["page.html"]


@pytest.mark.parametrize("stage", ["render", "write", "rename"])
def test_keyboard_interrupt_during_viz_leaves_nothing_half_written(tmp_path, monkeypatch, capsys, stage):
    page = tmp_path / "page.html"
    page.write_text("old page\n")

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    if stage == "render":
        monkeypatch.setattr(viz, "render", interrupt)
    elif stage == "write":
        fail_while_writing(monkeypatch, KeyboardInterrupt())
    else:
        monkeypatch.setattr(pagekit.os, "replace", interrupt)
    assert viz.main([str(MAINLOOP), "-o", str(page)]) == 130
    assert capsys.readouterr().err.splitlines()[-1] == "error: interrupted"
    assert page.read_text() == "old page\n"
    assert listing(tmp_path) == ["page.html"]


def test_output_to_stdout_dash_and_device_and_symlink(tmp_path):
    """`-o -` and `-o /dev/stdout` write the page to standard output; a symlinked output path
    replaces the file it points to and stays a symlink (never the link or device node itself)."""
    dash = subprocess.run([sys.executable, str(ROOT / "viz.py"), "-o", "-"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert dash.returncode == 0, dash.stderr
    assert dash.stdout.startswith("<!DOCTYPE html>") and list(tmp_path.iterdir()) == []
    with open(tmp_path / "captured.html", "wb") as sink:
        dev = subprocess.run([sys.executable, str(ROOT / "viz.py"), "-o", "/dev/stdout"], stdout=sink,
                             stderr=subprocess.PIPE, timeout=120, cwd=tmp_path)
    assert dev.returncode == 0, dev.stderr
    assert os.path.islink("/dev/stdout")
    assert (tmp_path / "captured.html").read_text().startswith("<!DOCTYPE html>")
    target = tmp_path / "real.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), "-o", str(link)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")
