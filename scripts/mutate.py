#!/usr/bin/env python3
"""A small mutation run: does a fast subset of the tests notice single-line bugs?

    python3 scripts/mutate.py            # every mutant of MUTANTS (about 5 minutes on 2 cores)
    python3 scripts/mutate.py --list     # the mutants, numbered, without running anything
    python3 scripts/mutate.py --only 1,7 # some of them

The repository is copied once to a temporary directory (without .git, .venv, node_modules).
First the unmutated copy must pass every test subset used below (else a score means nothing);
then each mutant in turn is applied to its file in the copy (one exact text, found exactly once
on one line, replaced), the fast tests of that file run (TESTS; pytest -x, node --test), and the
file is restored. A mutant is killed when the tests fail or time out (TIMEOUT_S), survives when
they pass. Prints one line per mutant and the score. Not part of CI: it takes minutes, and a
survivor is a question for a person (a missing test, or a mutant that changes nothing).
Runs pytest with this interpreter (use the project's .venv) and node from PATH. Exit status: 0
after a run, 2 when a mutant's text is not in its file exactly once or the baseline fails.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 600          # a mutant that makes the tests hang (an endless loop) counts as killed
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", ".pytest_cache",
                                     "artifacts", "*.pyc")

# The fast tests run against a mutant of each file: the file's own unit tests, the tests written
# against earlier survivors, the simulator's goldens. None needs Chromium.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
NODE = ["node", "--test"]
TESTS = {
    "parse_cutlass.py": [PYTEST + ["tests/test_mutant_survivors.py", "tests/test_parser_fixtures.py",
                                   "tests/test_parser_breadth.py", "tests/test_parser_cutlass.py"]],
    "parse_dsl.py": [PYTEST + ["tests/test_mutant_survivors.py", "tests/test_parser_dsl.py"]],
    "parse_core.py": [PYTEST + ["tests/test_mutant_survivors.py", "tests/test_parser_fixtures.py",
                                "tests/test_parser_dsl.py", "tests/test_parser_core.py"]],
    "sim/model_gemm.js": [NODE + ["tests/js/mutants.test.js", "tests/js/schedule.test.js", "tests/js/golden.test.js",
                            "tests/js/model_choice.test.js"]],
}

# (file, original text, mutated text, what it models). Operator swaps, boundary changes and
# dropped branches, each on one line; the original must occur exactly once in its file.
MUTANTS = [
    ("parse_cutlass.py", r'''| (?P<string> " (?:[^"\\\n]|\\.)* "? )''', r'''| (?P<string> " (?:[^"\\\n])* "? )''',
     "string lexeme without its escape branch"),
    ("parse_cutlass.py", "return bisect.bisect_right(self.starts, offset)",
     "return bisect.bisect_left(self.starts, offset)", "line index: bisect_left for bisect_right"),
    ("parse_cutlass.py", "if raw:", "if False:", "raw string literals: branch dropped"),
    ("parse_cutlass.py", "and text[i + 1].isalnum()", "or text[i + 1].isalnum()",
     "digit separator: `and` -> `or`"),
    ("parse_cutlass.py", '(0 if text.endswith("\\n") or not text else 1)', '(0 if text.endswith("\\n") else 1)',
     "line count of an empty text: branch dropped"),
    ("parse_cutlass.py", 'return bool(model["pipelines"]) or any(', 'return bool(model["pipelines"]) and any(',
     "has_pipeline_api: `or` -> `and`"),
    ("parse_core.py", 'return "both" if prod and cons', 'return "both" if prod or cons',
     "role_of: `and` -> `or`"),
    ("parse_cutlass.py", "if len(text) > MAX_TEXT_CHARS:", "if len(text) >= MAX_TEXT_CHARS:",
     "statement text trimmed at exactly 160 characters"),
    ("parse_dsl.py", "return list(range(value + 1))", "return list(range(value))",
     "warp_idx <= N read as < N"),
    ("parse_dsl.py", "hi = value - (1 if isinstance(op, ast.Lt) else 0)", "hi = value - 1",
     "range test: <= upper bound read as <"),
    ("parse_dsl.py", "lo = value + (1 if isinstance(op, ast.Gt) else 0)", "lo = value",
     "range test: > lower bound read as >="),
    ("parse_dsl.py", "if isinstance(value, int) and 0 <= value <= 64:", "if isinstance(value, int) and 0 < value <= 64:",
     "warp index 0 refused"),
    ("parse_dsl.py", "if len(text) > MAX_PYTHON_CHARS:", "if len(text) >= MAX_PYTHON_CHARS:",
     "a Python file of exactly the size limit refused"),
    ("sim/model_gemm.js", "if (k < P) { k++; step = K_WAIT; break; }", "if (k <= P) { k++; step = K_WAIT; break; }",
     "GEMM: lagged release boundary k == K_PIPE_MMAS"),
    ("sim/model_gemm.js", "kt = K - P;", "kt = K - P + 1;", "GEMM: mma_tail releases one k-tile too few"),
    ("sim/model_gemm.js", "var P = Math.min(KP, K)", "var P = Math.max(KP, K)", "GEMM: min -> max of K_PIPE_MMAS and K"),
    ("sim/model_gemm.js", "if (knobs.kPipeMmas >= knobs.stages) {", "if (knobs.kPipeMmas > knobs.stages) {",
     "knob check: K_PIPE_MMAS == stages not reported"),
    ("sim/model_gemm.js", "return eng.wait(ring.empty[s], ((g / S | 0) & 1) ^ 1, null, EMPTY, o, k, s, acquireLine);",
     "return eng.wait(ring.empty[s], (g / S | 0) & 1, null, EMPTY, o, k, s, acquireLine);",
     "GEMM producer_acquire: parity not flipped"),
    ("sim/model_gemm.js", "tileStep = pingpong ? 2 : 1", "tileStep = 1", "pingpong: each WG takes every tile"),
    ("sim/model_gemm.js", "var cooperative = C === 2 && knobs.schedule === \"cooperative\";",
     "var cooperative = knobs.schedule === \"cooperative\";", "cooperative without two consumer WGs"),
]

RE_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)
RE_NODE_FAILED = re.compile(r"^not ok \d+ - (.*?)(?: # TODO.*)?$", re.MULTILINE)


def check_mutants(mutants):
    """Raise SystemExit(2) unless every mutant's original is on one line, exactly once in its file."""
    for n, (name, old, new, _) in enumerate(mutants, 1):
        text = (ROOT / name).read_text(encoding="utf-8")
        count = text.count(old)
        if "\n" in old or "\n" in new or count != 1 or old == new:
            raise SystemExit(f"mutate.py: mutant {n} ({name}): its text occurs {count} times "
                             "(must be exactly once, on one line)")


def run_tests(copy, name):
    """(killed, what failed first, seconds) of the test subset of file name in the copy."""
    t0 = time.monotonic()
    for cmd in TESTS[name]:
        try:
            proc = subprocess.run(cmd, cwd=copy, capture_output=True, text=True, timeout=TIMEOUT_S,
                                  env={k: v for k, v in os.environ.items() if k != "CI"})
        except subprocess.TimeoutExpired:
            return True, f"timed out after {TIMEOUT_S} s", time.monotonic() - t0
        if proc.returncode != 0:
            out = proc.stdout + proc.stderr
            failed = RE_PYTEST_FAILED.findall(out) or [f for f in RE_NODE_FAILED.findall(out) if f]
            return True, failed[0] if failed else f"exit status {proc.returncode}", time.monotonic() - t0
    return False, "", time.monotonic() - t0


def main(argv=None):
    """Run the mutants (or list them); print one line each and the score."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--only", metavar="N,M", help="run only these mutants (1-based numbers)")
    args = ap.parse_args(argv)
    check_mutants(MUTANTS)
    chosen = list(enumerate(MUTANTS, 1))
    if args.only:
        wanted = {int(x) for x in args.only.split(",") if x.strip()}
        chosen = [(n, m) for n, m in chosen if n in wanted]
    if args.list:
        for n, (name, old, new, what) in chosen:
            print(f"{n:2d} {name}: {what}\n     - {old}\n     + {new}")
        return 0
    with tempfile.TemporaryDirectory(prefix="kviz-mutate-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=COPY_IGNORE)
        for name in sorted({m[0] for _, m in chosen}):
            failed, what, secs = run_tests(copy, name)
            if failed:
                print(f"mutate.py: the unmutated copy fails the tests of {name} ({what}); no score", file=sys.stderr)
                return 2
            print(f"baseline {name}: tests pass ({secs:.1f} s)")
        killed = []
        for n, (name, old, new, what) in chosen:
            path = copy / name
            original = path.read_text(encoding="utf-8")
            path.write_text(original.replace(old, new, 1), encoding="utf-8")
            try:
                dead, by, secs = run_tests(copy, name)
            finally:
                path.write_text(original, encoding="utf-8")
            if dead:
                killed.append(n)
            verdict = f"killed by {by}" if dead else "SURVIVED"
            print(f"{n:2d} {name}: {what}: {verdict} ({secs:.1f} s)", flush=True)
        survivors = [n for n, _ in chosen if n not in killed]
        print(f"score: {len(killed)}/{len(chosen)} killed ({100 * len(killed) / len(chosen):.0f}%)"
              + (f"; survived: {', '.join(map(str, survivors))}" if survivors else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
