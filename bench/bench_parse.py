#!/usr/bin/env python3
"""Parser benchmark: prints figures and ratios against baselines run in the same process.

    python3 bench/bench_parse.py [--repeat N]

1. One header, parse to JSON, whole process (`python3 parse_cutlass.py HEADER`) versus the
   floor: `python3 -c "open(HEADER).read()"` (interpreter start plus reading the same file).
2. `parse_cutlass.py --scan` over the whole include/ tree of nvidia-cutlass 4.2.0.0.
3. In-process parse_text() on pathological texts of about 5 MB each (tests/pathological_inputs.py:
   generic shapes and near-matches of every RE_* pattern), and on the real header repeated to
   the same size (the baseline). `--pathological-only` runs just this part.
Needs nvidia-cutlass==4.2.0.0 installed (pip install -e '.[test]'). Not part of the tests.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import parse_cutlass  # noqa: E402
import pathological_inputs  # noqa: E402

CANONICAL = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
FIVE_MB = 5 * 1024 * 1024


# Byte-compiled modules are what an installed console script runs; let Python write them.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd, repeat):
    """Median wall time (s) of running cmd `repeat` times (after one warm-up run)."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV, cwd=ROOT)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=ENV, cwd=ROOT)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def timed(fn):
    """(seconds, result) of one call."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def pathological_texts():
    """Name -> ~5 MB text built to stress each construct (tests/pathological_inputs.py)."""
    out = dict(pathological_inputs.generic_texts(FIVE_MB))
    for name in pathological_inputs.NEAR_MATCH_SAMPLES:
        out[f"near-matches of {name}"] = pathological_inputs.near_match_text(name, FIVE_MB)
    return out


def main():
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--pathological-only", action="store_true", help="only part 3 (5 MB inputs)")
    args = ap.parse_args()
    roots = [r for r in parse_cutlass.cutlass_roots() if (r / CANONICAL).is_file()]
    if not roots:
        raise SystemExit("bench_parse: install nvidia-cutlass==4.2.0.0 first")
    root = roots[0]
    header = root / CANONICAL
    print(f"python {sys.version.split()[0]}, header {CANONICAL} ({header.stat().st_size} bytes)")

    if args.pathological_only:
        return pathological(header)
    floor = wall([sys.executable, "-c", f"open({str(header)!r}).read()"], args.repeat)
    script = wall([sys.executable, str(ROOT / "parse_cutlass.py"), str(header)], args.repeat)
    module = wall([sys.executable, "-m", "parse_cutlass", str(header)], args.repeat)
    print(f"1. one header to JSON, whole process; floor (python -c read) {floor * 1000:.0f} ms")
    print(f"   python -m parse_cutlass (byte-compiled, as the console script): {module * 1000:.0f} ms, "
          f"ratio {module / floor:.2f}x (target <= 2x)")
    print(f"   python parse_cutlass.py (source compiled on every run): {script * 1000:.0f} ms, "
          f"ratio {script / floor:.2f}x")
    # The same comparison through the `python3` found on PATH, as a user types it (on machines
    # where that is a version-manager shim, its own start-up is part of both sides).
    path_python = shutil.which("python3")
    if path_python and os.path.realpath(path_python) != os.path.realpath(sys.executable):
        shim_floor = wall([path_python, "-c", f"open({str(header)!r}).read()"], args.repeat)
        shim_script = wall([path_python, str(ROOT / "parse_cutlass.py"), str(header)], args.repeat)
        print(f"   via `python3` on PATH ({path_python}): floor {shim_floor * 1000:.0f} ms, "
              f"parse_cutlass.py {shim_script * 1000:.0f} ms, ratio {shim_script / shim_floor:.2f}x")

    scan = wall([sys.executable, str(ROOT / "parse_cutlass.py"), "--scan", str(root / "include")],
                max(1, args.repeat // 2))
    count = sum(1 for _ in (root / "include").rglob("*.h*"))
    print(f"2. --scan include/ ({count} headers): {scan:.2f} s (target < 3 s)")

    pathological(header)


def pathological(header):
    """Part 3: parse_text on ~5 MB pathological texts against the real header repeated."""
    text = header.read_text()
    baseline_text = (text * (FIVE_MB // len(text) + 1))[:FIVE_MB]
    base_s, _ = timed(lambda: parse_cutlass.parse_text(baseline_text, "baseline.hpp"))
    print(f"3. parse_text on 5 MB: real header repeated {base_s:.2f} s (baseline)")
    slowest = ("", 0.0)
    for name, body in pathological_texts().items():
        secs, _ = timed(lambda: parse_cutlass.parse_text(body, "x.hpp"))
        slowest = max(slowest, (name, secs), key=lambda item: item[1])
        print(f"   {name:28s} {secs:6.2f} s  ({secs / base_s:.2f}x baseline)")
    print(f"   slowest pathological input: {slowest[0]} at {slowest[1]:.2f} s "
          f"({slowest[1] / base_s:.2f}x baseline; target <= 3x)")


if __name__ == "__main__":
    main()
