#!/usr/bin/env python3
"""Breadth corpus: what a new user gets from `viz.py FILE` on every protocol file of real repositories.

    python3 bench/breadth_corpus.py NAME=DIR [NAME=DIR ...] [--jobs N] [--json OUT] [--timeout S]

Each DIR is a checkout kept outside this repository (FlashInfer, FlashMLA, DeepGEMM, quack,
TransformerEngine, CUTLASS main, FlashAttention: docs/breadth.md says which commits). A file is a
**candidate** when its text, read by no front end of ours, shows an asynchronous protocol
(`PROTOCOL_MARKERS`: a barrier wait or arrive and an async copy or tensor-core MMA). Every
candidate is given to `viz.py FILE -o PAGE` as a user would, in its own process with a time
limit, and then, when a page was written, its structure (the same parse) to schedule.js, which
says which model the page starts in and how its run ends. Outcomes (`outcome()`):

- `schedule`: the page starts in a hand-written model, or in the program model and every role
  ran to its end;
- `partial`: the page starts in the program model and some roles stop, named with their lines
  (the page draws the rest; roles that wait for a stopped one then deadlock, and the page says
  why);
- `deadlock`: no role stopped and the page's run deadlocks at the page's own starting knobs;
- `no model`: the page is written but offers no model (it lists what was parsed), or its model's
  run draws no role (the page says why: "the program could not run: ...");
- `refused`: viz.py exits 2 with one line on stderr (its reason is tallied);
- `crash`: any other exit, a traceback, or the time limit: a defect of ours.

Prints a table per repository (a schedule cell says how many of its pages run the program model)
and the refusal reasons; `--json OUT` writes one object per file.
Not a test: the repositories are third-party and not installed by the project.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import parse_core  # noqa: E402
import parse_cutlass  # noqa: E402, F401  (registers the C++ front end)
import parse_dsl  # noqa: E402, F401  (registers the DSL front end)

# A candidate shows both a barrier step and an async copy or MMA. The patterns are words of the
# CUDA / CUTLASS / CuTe DSL APIs, not of our parser, so the denominator does not depend on it.
PROTOCOL_MARKERS = {
    "barrier": re.compile(r"\b(?:producer_acquire|consumer_wait|consumer_release|producer_commit|"
                          r"arrive_and_expect_tx|try_wait|wait_parity|mbarrier_\w+|mbarrier\.\w+|"
                          r"ClusterTransactionBarrier|ClusterBarrier|NamedBarrier)\b"),
    "async": re.compile(r"\b(?:wgmma\w*|tcgen05\w*|utcmma\w*|UMMA\w*|SM90_TMA_\w+|SM100_TMA_\w+|"
                        r"cp_async_bulk\w*|make_tma_copy\w*|tma_load\w*|warpgroup_arrive|"
                        r"gemm|copy_bulk\w*|CopyBulkTensorTileG2SOp\w*)\b"),
}
MAX_CHARS = 4_000_000   # viz.py refuses larger inputs; such a file is no candidate here

NODE_RUN = r"""
const S = require(process.argv[1]);
const st = JSON.parse(require("fs").readFileSync(0, "utf8"));
const model = S.pageModel(st);
let out = { model: model };
if (model !== null) {
  const r = S.simulate(st, { model: model }, { events: false });
  const v = r.verdict || {};
  out.error = r.error || null;
  out.deadlock = r.deadlock ? String(r.deadlock.message || "deadlock") : null;
  out.stopped = (v.stopped || []).map((s) => s.role + "@" + s.line);
  out.roles = (v.roles || []).length;
  out.blocks = r.columns ? r.columns.n : 0;
  out.summary = v.summary || null;
}
process.stdout.write(JSON.stringify(out));
"""


def candidates(base):
    """The candidate files under base, sorted: a scanned suffix and both marker classes."""
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fname in sorted(filenames):
            path = Path(dirpath) / fname
            if not fname.endswith(parse_core.SCAN_SUFFIXES) or path.is_symlink():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if len(text) <= MAX_CHARS and all(p.search(text) for p in PROTOCOL_MARKERS.values()):
                out.append(path)
    return out


def reason_class(line, path):
    """A refusal's reason without the file's path and position, for the tally."""
    text = line.strip().replace(str(path), "FILE")
    text = re.sub(r"^(?:error:\s*)?FILE(?::\d+)*:\s*", "", text)
    return re.sub(r"`[^`]*`|\b\d+\b", "_", text)[:120]


def run_viz(path, timeout):
    """viz.py on one file as a user runs it: (exit status or 'timeout', stderr, page written)."""
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        try:
            proc = subprocess.run([sys.executable, str(ROOT / "viz.py"), str(path), "-o", str(page)],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout", "", False
        return proc.returncode, proc.stderr, page.is_file()


def run_schedule(path, timeout):
    """schedule.js on the file's structure: the page's model and how its run ends."""
    structure = parse_core.parse_file(path)
    try:
        proc = subprocess.run(["node", "-e", NODE_RUN, str(ROOT / "schedule.js")], input=json.dumps(structure),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    if proc.returncode != 0:
        return {"node_error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout)


def outcome(path, status, stderr, page, sched):
    """One file's outcome (the module docstring's list) and its detail."""
    if status == "timeout" or "Traceback" in stderr or status not in (0, 2) or (status == 0 and not page):
        return "crash", (stderr.strip().splitlines() or [str(status)])[-1][:160]
    if status == 2:
        return "refused", reason_class((stderr.strip().splitlines() or [""])[0], path)
    if sched.get("timeout") or sched.get("node_error"):
        return "crash", sched.get("node_error") or "schedule.js timed out"
    if sched["model"] is None:
        return "no model", ""
    if sched.get("error"):
        return "no model", sched["error"][:160]
    if sched["model"] == "program" and not sched.get("roles"):   # its run drew no role ("the program could not run: ...")
        return "no model", (sched.get("summary") or "no role runs")[:160]
    if sched.get("stopped"):   # a deadlock after a stop is the stop's consequence: the page says so
        return "partial", ", ".join(sched["stopped"][:6])
    if sched.get("deadlock"):
        return "deadlock", sched["deadlock"][:160]
    return "schedule", sched["model"]


def one(item):
    """The record of one candidate (run in a worker)."""
    repo, base, path, timeout = item
    status, stderr, page = run_viz(path, timeout)
    sched = run_schedule(path, timeout) if status == 0 and page else {}
    kind, detail = outcome(path, status, stderr, page, sched)
    return {"repo": repo, "file": path.relative_to(base).as_posix(), "outcome": kind, "detail": detail,
            "model": sched.get("model"), "blocks": sched.get("blocks", 0)}


OUTCOMES = ("schedule", "partial", "deadlock", "no model", "refused", "crash")


def summary(records):
    """The Markdown table: one row per repository and a total."""
    repos = sorted({r["repo"] for r in records})
    head = "| repository | candidates | " + " | ".join(OUTCOMES) + " |\n|---|---" + "|---" * len(OUTCOMES) + "|"
    lines = [head]
    for repo in repos + ["all"]:
        rs = [r for r in records if repo == "all" or r["repo"] == repo]
        c = Counter(r["outcome"] for r in rs)
        own = sum(r["outcome"] == "schedule" and r["model"] == "program" for r in rs)
        cells = [f"{c[o]} ({own} program)" if o == "schedule" else str(c[o]) for o in OUTCOMES]
        lines.append(f"| {repo} | {len(rs)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", metavar="NAME=DIR", help="a checkout and the name to report it under")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: one per core)")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per viz.py or schedule.js run")
    ap.add_argument("--json", metavar="OUT", help="write one JSON object per candidate to OUT")
    args = ap.parse_args(argv)
    items = []
    for spec in args.repos:
        name, _, where = spec.partition("=")
        base = Path(where or name)
        if not base.is_dir():
            ap.error(f"{base}: not a directory")
        items += [(name, base, p, args.timeout) for p in candidates(base)]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        records = list(pool.map(one, items))
    if args.json:
        Path(args.json).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    print(summary(records))
    print()
    for kind in ("refused", "crash", "deadlock"):
        tally = Counter(r["detail"] for r in records if r["outcome"] == kind)
        for text, n in tally.most_common(12):
            print(f"{kind:8} {n:4}  {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
