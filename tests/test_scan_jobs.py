"""`--scan --jobs N`: the process pool gives the output of `--jobs 1` byte for byte (on the
installed CUTLASS 4.2 `include/` and on a temporary tree with files that fail), a worker's
failure on one file gives that file's row or error as `--jobs 1` does, and Ctrl-C leaves no
worker behind.
"""

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import parse_cutlass

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "parse_cutlass.py")]
HANG_BOUND_S = 300          # a hang guard for one scan, not a speed assertion (about 5 s of CPU)
STALL_S = 900               # a stalled worker's parse: far longer than the hang bound
# A mainloop and a kernel layer: both accepted by a single parse, so both give rows.
MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
KERNEL_LAYER = "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"

# The fault-injection tests patch parse_text in this process; only a forked worker inherits it.
needs_fork = pytest.mark.skipif(multiprocessing.get_start_method() != "fork",
                                reason="fault injection needs forked workers (they inherit the patch)")


def run_scan(directory, *args):
    """(stdout, stderr, status) of `parse_cutlass.py --scan directory args...`."""
    proc = subprocess.run(CLI + ["--scan", str(directory), *args], capture_output=True, text=True,
                          timeout=HANG_BOUND_S, cwd=ROOT)
    return proc.stdout, proc.stderr, proc.returncode


def test_jobs_2_json_equals_jobs_1_on_the_include_tree(cutlass_root):
    one = run_scan(cutlass_root / "include", "--json", "--jobs", "1")
    two = run_scan(cutlass_root / "include", "--json", "--jobs", "2")
    assert one[2] == 0, one[1]
    assert one[0].count("\n") > 80        # the whole tree, not an empty listing
    assert two == one


@pytest.fixture(scope="module")
def gemm_jobs_1(cutlass_root):
    """(directory, run_scan output with --jobs 1) for include/cutlass/gemm (~270 files)."""
    directory = cutlass_root / "include" / "cutlass" / "gemm"
    return directory, run_scan(directory, "--jobs", "1")


def test_jobs_2_table_equals_jobs_1_on_gemm(gemm_jobs_1):
    directory, one = gemm_jobs_1
    two = run_scan(directory, "--jobs", "2")
    assert one[2] == 0, one[1]
    assert one[0].count("\n") > 40
    assert two == one                     # stdout, the count line on stderr, the status


def test_default_jobs_is_one_per_core(cutlass_root):
    assert parse_cutlass.default_jobs() == (os.cpu_count() or 1)
    directory = cutlass_root / "include" / "cutlass" / "gemm" / "collective"
    assert run_scan(directory) == run_scan(directory, "--jobs", "1")


@pytest.fixture
def failing_tree(tmp_path, cutlass):
    """A tree of accepted files and files a scan skips (binary, empty, not UTF-8, bad Python)."""
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "b" / "c").mkdir(parents=True)
    shutil.copy(cutlass(MAINLOOP), tree / "a" / "mainloop.hpp")
    shutil.copy(cutlass(KERNEL_LAYER), tree / "b" / "kernel.hpp")
    mangled = cutlass(MAINLOOP).read_bytes().replace(b"// ", b"// \xff", 1)
    (tree / "b" / "c" / "latin1.hpp").write_bytes(mangled)                   # a row with a warning
    (tree / "a" / "binary.hpp").write_bytes(b"Pipeline\0\0\0")                  # skipped: binary
    (tree / "a" / "empty.h").write_text("  \n")                                 # skipped: empty
    (tree / "b" / "broken.py").write_text("Pipeline.create(\n  def (:\n")       # skipped: syntax
    (tree / "b" / "words.cuh").write_text("// Pipeline producer_acquire\n")     # skipped: no API
    return tree


def test_jobs_2_equals_jobs_1_on_a_tree_with_failing_files(failing_tree):
    for mode in ((), ("--json",)):
        one = run_scan(failing_tree, *mode, "--jobs", "1")
        two = run_scan(failing_tree, *mode, "--jobs", "2")
        assert one[2] == 0, one[1]
        assert two == one, mode
    listed = [line.split("\t")[0] for line in run_scan(failing_tree, "--jobs", "2")[0].splitlines()]
    assert listed == ["path", "a/mainloop.hpp", "b/kernel.hpp", "b/c/latin1.hpp"]   # the header, then a directory's files first


def _patched_parse(monkeypatch, name, action):
    """Make parse_text run action(path) first for the file called name."""
    original = parse_cutlass.parse_text

    def patched(text, path="<text>", display=None, read_warnings=()):
        if Path(path).name == name:
            action(path)
        return original(text, path, display, read_warnings)
    monkeypatch.setattr(parse_cutlass, "parse_text", patched)


@needs_fork
def test_a_worker_that_dies_still_gives_the_files_row(failing_tree, tmp_path, monkeypatch):
    want = list(parse_cutlass.scan(failing_tree, jobs=1))
    parent = os.getpid()
    marker = tmp_path / "worker-died"

    def die_in_a_worker(path):
        if os.getpid() != parent:          # a worker: record it, then die without a word
            marker.write_text(str(os.getpid()))
            os._exit(3)
    _patched_parse(monkeypatch, "kernel.hpp", die_in_a_worker)
    got = list(parse_cutlass.scan(failing_tree, jobs=2))
    assert marker.exists()                 # the file really was parsed in a worker, which died
    assert got == want
    assert "b/kernel.hpp" in [r["path"] for r in got]


@needs_fork
def test_a_parse_error_in_a_worker_is_the_one_line_error_of_jobs_1(failing_tree, monkeypatch, capsys):
    def refuse(path):
        raise parse_cutlass.ParseError(path, "refused by the test", line=7)
    _patched_parse(monkeypatch, "latin1.hpp", refuse)
    statuses, outputs = [], []
    for jobs in ("1", "2"):
        statuses.append(parse_cutlass.main(["--scan", str(failing_tree), "--jobs", jobs]))
        outputs.append(capsys.readouterr())
    assert statuses == [2, 2]
    assert outputs[1] == outputs[0]
    assert outputs[0].out.splitlines()[0].startswith("path\t")                 # the header row
    assert outputs[0].out.splitlines()[1].startswith("a/mainloop.hpp\t")      # rows before it
    assert outputs[0].err == f"error: {failing_tree / 'b' / 'c' / 'latin1.hpp'}:7: refused by the test\n"


@needs_fork
def test_a_bug_in_a_worker_raises_as_with_jobs_1(failing_tree, monkeypatch):
    def crash(path):
        raise ZeroDivisionError("a parser bug")
    _patched_parse(monkeypatch, "kernel.hpp", crash)
    for jobs in (1, 2):
        got = []
        with pytest.raises(ZeroDivisionError, match="a parser bug"):
            for row in parse_cutlass.scan(failing_tree, jobs=jobs):
                got.append(row["path"])
        assert got == ["a/mainloop.hpp"], jobs     # the rows before the file, then its error


def _session_members(sid):
    """(pid, state) of every process in session sid, from /proc."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()   # state ppid pgrp session ...
        if int(fields[3]) == sid:
            out.append((int(entry.name), fields[0]))
    return out


def _wait_for_workers(proc):
    """The pids of proc's two workers, once both have started (proc leads its own session)."""
    deadline = time.monotonic() + HANG_BOUND_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        workers = [pid for pid, _ in _session_members(proc.pid) if pid != proc.pid]
        if len(workers) >= 2:
            return workers
        time.sleep(0.02)
    raise AssertionError("the scan started no workers")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_the_scan_and_leaves_no_worker(cutlass_root):
    # A session of its own, as a terminal gives: Ctrl-C is SIGINT to the whole process group.
    proc = subprocess.Popen(CLI + ["--scan", str(cutlass_root / "include"), "--jobs", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)
    try:
        _wait_for_workers(proc)
        time.sleep(0.5)                                 # well inside the ~2.5 s scan
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_BOUND_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert err == "error: interrupted\n"               # no worker's KeyboardInterrupt traceback
    assert _session_members(proc.pid) == []            # every worker ended and was reaped


@needs_fork
def test_an_early_end_terminates_a_busy_worker(failing_tree, monkeypatch):
    parent = os.getpid()

    def stall_in_a_worker(path):
        if os.getpid() != parent:
            time.sleep(STALL_S)
    _patched_parse(monkeypatch, "kernel.hpp", stall_in_a_worker)
    rows = parse_cutlass.scan(failing_tree, jobs=2)
    assert next(rows)["path"] == "a/mainloop.hpp"      # the pool is running; kernel.hpp stalls
    closer = threading.Thread(target=rows.close, daemon=True)   # what a closed pipe does
    closer.start()
    closer.join(HANG_BOUND_S)
    assert not closer.is_alive(), "closing the scan waited for the stalled worker"
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_sigint_that_reaches_only_a_worker_is_ignored(gemm_jobs_1):
    # Only the parent decides to stop (it handles Ctrl-C): a worker interrupted on its own
    # neither ends the scan nor prints a traceback, whether it is parsing or idle.
    directory, one = gemm_jobs_1
    proc = subprocess.Popen(CLI + ["--scan", str(directory), "--jobs", "2"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)
    try:
        workers = _wait_for_workers(proc)
        os.kill(workers[0], signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_BOUND_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (out, err, proc.returncode) == one


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_bad_jobs_is_a_usage_error(tmp_path, value):
    out, err, status = run_scan(tmp_path, "--jobs", value)
    assert status == 2
    assert out == ""
    assert err.splitlines()[-1].endswith(f"argument --jobs: expected a whole number >= 1, got {value!r}")
    assert "Traceback" not in err
