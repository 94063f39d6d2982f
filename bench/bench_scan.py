#!/usr/bin/env python3
"""Scan benchmark: `--scan` of nvidia-cutlass 4.2's include/ with --jobs 1 and with the pool.

    python3 bench/bench_scan.py [--repeat N] [--jobs J] [--dir DIR]

Runs `python3 parse_cutlass.py --scan include/ --jobs 1` and `... --jobs J` (J: one per core by
default) as whole processes, alternately, `repeat` times each after one warm-up run of each, and
prints each one's median and best wall time, its median CPU time (the process and its workers), the
ratio of the two walls and the load average before and after, since the machine is shared.
It also checks that both print the same bytes, and measures the parallelism the machine gives
right then: a fixed CPU-bound loop run in one process, then in J processes at once (J x the
work): J x t(1) / t(J) is the number of cores the pool could use (J on an idle machine, about 1
when other jobs hold the other cores), so a ratio can be read against it. Needs nvidia-cutlass==4.2.0.0 installed (or
--dir). Not part of the tests.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import parse_cutlass  # noqa: E402

CANONICAL = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
TARGET_S = 3.0


def include_dir():
    """include/ of the installed nvidia-cutlass (through parse_cutlass.cutlass_roots())."""
    for root in parse_cutlass.cutlass_roots():
        if (root / CANONICAL).is_file():
            return root / "include"
    sys.exit("bench_scan: nvidia-cutlass==4.2.0.0 is not installed (pip install -e '.[test]')")


def run(directory, jobs):
    """(wall s, CPU s of the process and its workers, stdout) of one scan."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(directory),
                           "--jobs", str(jobs)], capture_output=True, check=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


BURN = "sum(i * i for i in range(4_000_000))"   # about 0.3 s of one core


def parallelism(jobs):
    """J x the wall of one CPU-bound loop / the wall of J of them at once (1 .. J)."""
    cmd = [sys.executable, "-c", BURN]

    def batch(n):
        t0 = time.perf_counter()
        procs = [subprocess.Popen(cmd) for _ in range(n)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - t0
    # Best of three each: a disturbed one-process run would inflate the figure beyond J.
    one = min(batch(1) for _ in range(3))
    many = min(batch(jobs) for _ in range(3))
    return jobs * one / many


def main():
    """Print the figures of both scans and their ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each (default 5)")
    ap.add_argument("--jobs", type=int, default=parse_cutlass.default_jobs(),
                    help="workers of the pooled scan (default: one per core)")
    ap.add_argument("--dir", type=Path, help="the tree to scan (default: the installed include/)")
    args = ap.parse_args()
    directory = args.dir or include_dir()
    load0 = os.getloadavg()
    cores0 = parallelism(args.jobs)
    first = {1: run(directory, 1), args.jobs: run(directory, args.jobs)}   # warm-up (page cache)
    walls, cpus = {1: [], args.jobs: []}, {1: [], args.jobs: []}
    for _ in range(args.repeat):
        for jobs in walls:                          # alternate: both see the same load
            wall, cpu, out = run(directory, jobs)
            assert out == first[jobs][2], f"--jobs {jobs}: output changed between runs"
            walls[jobs].append(wall)
            cpus[jobs].append(cpu)
    same = first[1][2] == first[args.jobs][2]
    rows = first[1][2].count(b"\n")
    load1 = os.getloadavg()
    cores1 = parallelism(args.jobs)
    print(f"scan of {directory} ({rows} rows), {os.cpu_count()} cores, "
          f"median of {args.repeat} runs each")
    one, many = statistics.median(walls[1]), statistics.median(walls[args.jobs])
    # The best run is the one other jobs disturbed least (a shared machine only ever adds time).
    best1, best_many = min(walls[1]), min(walls[args.jobs])
    print(f"  --jobs 1: {one:.2f} s wall (best {best1:.2f} s), {statistics.median(cpus[1]):.2f} s CPU")
    print(f"  --jobs {args.jobs}: {many:.2f} s wall (best {best_many:.2f} s), "
          f"{statistics.median(cpus[args.jobs]):.2f} s CPU "
          f"(target < {TARGET_S:.0f} s: {'met' if many < TARGET_S else 'NOT met'} by the median)")
    print(f"  ratio: {one / many:.2f}x faster (best runs: {best1 / best_many:.2f}x); outputs identical: {same}")
    print(f"  load average (1 min) {load0[0]:.2f} before, {load1[0]:.2f} after; cores free for "
          f"{args.jobs} processes: {cores0:.2f} before, {cores1:.2f} after")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
