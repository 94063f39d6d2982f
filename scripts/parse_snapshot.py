#!/usr/bin/env python3
"""Snapshot what the parser CLI prints for every source we can reach, to check a refactor.

    python3 scripts/parse_snapshot.py /tmp/before      # before the change
    python3 scripts/parse_snapshot.py /tmp/after       # after it
    python3 scripts/parse_snapshot.py --compare /tmp/before /tmp/after

Each snapshot file holds one `parse_cutlass.main(argv)` call: its stdout, its stderr and its exit
status, byte for byte. The calls: every file under tests/fixtures/ (C++ and CuTe DSL); every
scanned file under the installed CUTLASS trees (parse_cutlass.cutlass_roots()); the mainloop and
kernel-layer pairs of scripts/make_examples.py; flash_attn/cute/*.py of an installed
flash-attn-4; `--scan` of each CUTLASS include/ with --jobs 1, as a table and as JSON lines; and
`python3 parse_cutlass.py FILE` run as a script (the __main__ path) on one file of each kind.
--compare names every file that differs or is missing on either side and exits 1 if any does.
Not a test: the installed trees are third-party and the snapshots are written outside the repo.
"""

import argparse
import contextlib
import importlib.util
import io
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import parse_cutlass  # noqa: E402

SUFFIXES = (".hpp", ".h", ".cuh", ".cu", ".inl", ".hxx", ".hh", ".py")
PAIRS = (   # scripts/make_examples.py's mainloop + kernel-layer pairs, relative to a CUTLASS root
    ("include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp",
     "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp"),
    ("include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp",
     "include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp"),
    ("include/cutlass/gemm/collective/sm100_mma_warpspecialized.hpp",
     "include/cutlass/gemm/kernel/sm100_gemm_tma_warpspecialized.hpp"),
)


def run_main(argv):
    """stdout, stderr and exit status of one in-process parse_cutlass.main(argv), as bytes."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = parse_cutlass.main(argv)
        except SystemExit as exc:   # argparse errors
            rc = exc.code
    return (f"{out.getvalue()}\n--- stderr\n{err.getvalue()}\n--- rc {rc}\n").encode()


def run_script(argv):
    """The same, with parse_cutlass.py run as a script in a fresh interpreter."""
    proc = subprocess.run([sys.executable, str(ROOT / "parse_cutlass.py")] + argv, cwd=ROOT,
                          capture_output=True)
    return proc.stdout + b"\n--- stderr\n" + proc.stderr + f"\n--- rc {proc.returncode}\n".encode()


def sources(base):
    """Files under base with a parsed suffix, sorted."""
    return sorted(p for p in Path(base).rglob("*") if p.is_file() and p.name.endswith(SUFFIXES))


def calls():
    """(snapshot name, function, argv) of every call, in a stable order."""
    out = []
    for p in sources(ROOT / "tests" / "fixtures"):
        rel = p.relative_to(ROOT).as_posix()
        out.append((f"fixtures/{rel}", run_main, [str(p)]))
    for i, root in enumerate(parse_cutlass.cutlass_roots()):
        for p in sources(root):
            out.append((f"cutlass{i}/{p.relative_to(root).as_posix()}", run_main, [str(p)]))
        for n, (main, kernel) in enumerate(PAIRS):
            if (root / main).is_file():
                out.append((f"cutlass{i}-pairs/{n}", run_main, [str(root / main), "--kernel-layer",
                                                                str(root / kernel)]))
        if (root / "include").is_dir():
            inc = str(root / "include")
            out.append((f"cutlass{i}-scan/table", run_main, ["--scan", inc, "--jobs", "1"]))
            out.append((f"cutlass{i}-scan/json", run_main, ["--scan", inc, "--jobs", "1", "--json"]))
            script_file = root / PAIRS[0][0]
            out.append((f"cutlass{i}-script/hpp", run_script, [str(script_file)]))
    spec = importlib.util.find_spec("flash_attn")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        cute = Path(loc) / "cute"
        for p in sorted(cute.glob("*.py")):
            out.append((f"flash_attn/{p.name}", run_main, [str(p)]))
        if (cute / "flash_fwd_sm90.py").is_file():
            out.append(("flash_attn-script/flash_fwd_sm90.py", run_script, [str(cute / "flash_fwd_sm90.py")]))
    for p in sources(ROOT / "tests" / "fixtures")[:1]:
        out.append(("fixtures-script/first", run_script, [str(p)]))
    return out


def snapshot(outdir):
    """Write one file per call under outdir."""
    outdir = Path(outdir)
    n = 0
    for name, fn, argv in calls():
        dest = outdir / (name + ".out")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(fn(argv))
        n += 1
    print(f"{n} snapshots in {outdir}")


def compare(a, b):
    """Exit status 1 and the names of the files that differ between two snapshot directories."""
    a, b = Path(a), Path(b)
    names = sorted({p.relative_to(a) for p in a.rglob("*.out")} | {p.relative_to(b) for p in b.rglob("*.out")})
    bad = 0
    for name in names:
        pa, pb = a / name, b / name
        if not pa.is_file() or not pb.is_file():
            print(f"only in {'the second' if pb.is_file() else 'the first'}: {name}")
            bad += 1
        elif pa.read_bytes() != pb.read_bytes():
            print(f"differs: {name}")
            bad += 1
    print(f"{len(names) - bad} of {len(names)} identical")
    return 1 if bad else 0


def main(argv=None):
    """Snapshot or compare."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--compare", action="store_true", help="compare two snapshot directories")
    args = ap.parse_args(argv)
    if args.compare:
        if len(args.dirs) != 2:
            ap.error("--compare takes two directories")
        return compare(*args.dirs)
    if len(args.dirs) != 1:
        ap.error("give one output directory")
    snapshot(args.dirs[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
