#!/usr/bin/env python3
"""Which real kernels the program model runs, and where it stops: the table of
docs/coverage.md, from the installed nvidia-cutlass and flash-attn-4 packages.

    python3 scripts/program_coverage.py            # print the table's rows (Markdown)
    python3 scripts/program_coverage.py --json     # one JSON object per kernel

Each kernel is parsed as viz.py parses it (mainloop + kernel layer [+ epilogue collective]; a
CuTe DSL file alone) and run by schedule.js at the program model's default knobs; its status is
`complete` (no role stopped, no deadlock), `stops` (the roles that stopped, each at its line),
`deadlock` (no role stopped and the run deadlocks: a defect to fix, since the knobs are the
source's own) or `no program` (the run cannot start: the reason's first words). The page's
default model (fitModel) is given beside it. tests/test_program_coverage.py checks the table.
Not a test itself: the packages are third-party and located at run time.
"""

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import parse_cutlass  # noqa: E402
import parse_dsl  # noqa: E402

C = "include/cutlass/gemm/collective/"
K = "include/cutlass/gemm/kernel/"
E77 = "examples/77_blackwell_fmha/"
E88 = "examples/88_hopper_fmha/"

# (mainloop or DSL file, kernel layer or None, epilogue collective or None), paths relative to the
# CUTLASS source tree, or to the directory holding flash_attn/ for `flash_attn/...`.
KERNELS = [
    (C + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized_pingpong.hpp", None),
    (C + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized.hpp", None),
    (C + "sm90_mma_tma_gmma_rs_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized_pingpong.hpp", None),
    (C + "sm90_mma_tma_gmma_ss_warpspecialized_fp8.hpp", K + "sm90_gemm_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp", K + "sm90_gemm_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_tma_gmma_rs_warpspecialized_mixed_input.hpp", K + "sm90_gemm_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_array_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_array_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_array_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_array_tma_warpspecialized_pingpong.hpp", None),
    (C + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_warpspecialized_cooperative.hpp", None),
    (C + "sm90_mma_multistage_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_warpspecialized_pingpong.hpp", None),
    (C + "sm90_sparse_mma_tma_gmma_ss_warpspecialized.hpp", K + "sm90_gemm_tma_warpspecialized_cooperative.hpp", None),
    (C + "sm100_mma_warpspecialized.hpp", K + "sm100_gemm_tma_warpspecialized.hpp", None),
    (C + "sm100_blockscaled_mma_warpspecialized.hpp", K + "sm100_gemm_tma_warpspecialized.hpp", None),
    # Each collective with the kernel layer its DispatchPolicy's Schedule selects (dispatch_policy.hpp
    # 1020-1024: blockwise scaling -> KernelTmaWarpSpecializedMmaTransformSm100, mma_transform 73-74;
    # 1119-1129: FastF32 (emulated) -> KernelTmaWarpSpecializedInputTransformSm100, input_transform 69-70).
    (C + "sm100_mma_warpspecialized_blockwise_scaling.hpp", K + "sm100_gemm_tma_warpspecialized_mma_transform.hpp", None),
    (C + "sm100_mma_warpspecialized_mixed_input.hpp", K + "sm100_gemm_tma_warpspecialized_mixed_input_transform.hpp", None),
    (C + "sm100_mma_warpspecialized_emulated.hpp", K + "sm100_gemm_tma_warpspecialized_input_transform.hpp", None),
    (C + "sm100_mma_array_warpspecialized.hpp", K + "sm100_gemm_array_tma_warpspecialized.hpp", None),
    (C + "sm100_mma_cpasync_warpspecialized.hpp", K + "sm100_gemm_cpasync_warpspecialized.hpp", None),
    (C + "sm100_mma_mixed_tma_cpasync_warpspecialized.hpp", K + "sm100_gemm_mixed_tma_cpasync_warpspecialized.hpp", None),
    (C + "sm100_sparse_mma_warpspecialized.hpp", K + "sm100_sparse_gemm_tma_warpspecialized.hpp", None),
    (C + "sm103_blockscaled_mma_warpspecialized.hpp", K + "sm103_blockscaled_gemm_tma_warpspecialized.hpp", None),
    (E77 + "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp", E77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp",
     E77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"),
    (E77 + "collective/sm100_fmha_mla_fwd_mainloop_tma_warpspecialized.hpp", E77 + "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp",
     E77 + "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"),
    (E77 + "collective/sm100_fmha_gen_mainloop_warpspecialized.hpp", E77 + "kernel/sm100_fmha_gen_kernel_warpspecialized.hpp", None),
    (E77 + "kernel/sm100_fmha_bwd_kernel_tma_warpspecialized.hpp", None, None),
    (E88 + "collective/fmha_collective_tma_warpspecialized.hpp", E88 + "kernel/fmha_kernel_tma_warpspecialized.hpp", None),
    (E88 + "collective/fmha_collective_bwd_tma_warpspecialized.hpp", E88 + "kernel/fmha_kernel_tma_warpspecialized.hpp", None),
    ("flash_attn/cute/flash_fwd_sm90.py", None, None),
    ("flash_attn/cute/flash_fwd_sm100.py", None, None),
    ("flash_attn/cute/flash_bwd_sm90.py", None, None),
    ("flash_attn/cute/flash_bwd_sm100.py", None, None),
    ("flash_attn/cute/flash_fwd_mla_sm100.py", None, None),
]

NODE_RUN = r"""
const S = require(process.argv[1]);
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(items.map((st) => {
  const fit = S.simulate(st, {}, { events: false }).fit;
  const r = S.simulate(st, { model: "program" }, { events: false });
  const v = r.verdict || {};
  return { fit: fit && fit.model ? fit.model : "none", error: r.error, deadlock: r.deadlock ? r.deadlock.message : null,
    stopped: (v.stopped || []).map((s) => ({ role: s.role, line: s.line, reason: s.reason })),
    roles: (v.roles || []).length, summary: v.summary || null };
})));
"""


def flash_attn_root():
    """The directory holding flash_attn/ (flash-attn-4, installed --no-deps), or None."""
    spec = importlib.util.find_spec("flash_attn")
    locs = list(spec.submodule_search_locations or []) if spec else []
    return Path(locs[0]).parent if locs else None


def cutlass_root():
    """CUTLASS's source tree of the installed nvidia-cutlass package (include/ and examples/), or None."""
    return next((r for r in parse_cutlass.cutlass_roots() if (r / "include").is_dir() and (r / "examples").is_dir()), None)


def locate(rel, roots):
    """A table path on this machine, or None when its package is not installed."""
    root = roots["flash_attn"] if rel.startswith("flash_attn/") else roots["cutlass"]
    return None if root is None else root / rel


def label(entry):
    """The table's first cell: the files joined by ` + `."""
    return " + ".join(p for p in entry if p)


def parse(entry, roots):
    """The parsed structure of one table entry (as viz.py parses it), or None when not installed."""
    paths = [locate(p, roots) if p else None for p in entry]
    if paths[0] is None:
        return None
    if paths[0].suffix == ".py":
        return parse_dsl.parse_file(paths[0])
    model = parse_cutlass.parse_file(paths[0], paths[1])
    if paths[2] is not None:
        parse_cutlass.add_epilogue(model, paths[2])
    return model


def status(run):
    """(status, where) of one program run: complete / stops / deadlock / no program."""
    if run["error"]:
        return "no program", run["error"].split(":")[0]
    if run["stopped"]:
        return "stops", ", ".join(sorted(f"{s['role']}@{s['line']}" for s in run["stopped"]))
    if run["deadlock"]:
        return "deadlock", run["deadlock"].split(":")[0]
    if run["roles"] == 0:
        return "no program", (run["summary"] or "no roles").split(":", 1)[-1].strip()
    return "complete", ""


WHY_CHARS = 90   # the table's `why`: the first stop's reason, cut at a word


def why(reason):
    """A stop's reason for the table: one line, pipes escaped, at most WHY_CHARS characters."""
    text = " ".join(reason.split()).replace("|", "\\|")
    if len(text) <= WHY_CHARS:
        return text
    return text[:WHY_CHARS].rsplit(" ", 1)[0] + " ..."


def rows(node="node"):
    """[{file, fit, status, where, why, reasons}] for every installed table entry, in table order."""
    roots = {"cutlass": cutlass_root(), "flash_attn": flash_attn_root()}
    entries = [(e, parse(e, roots)) for e in KERNELS]
    entries = [(e, st) for e, st in entries if st is not None]
    proc = subprocess.run([node, "-e", NODE_RUN, str(ROOT / "schedule.js")], input=json.dumps([st for _, st in entries]),
                          capture_output=True, text=True, timeout=600, check=True)
    out = []
    for (entry, _), run in zip(entries, json.loads(proc.stdout)):
        st, where = status(run)
        reasons = sorted(f"{s['role']}@{s['line']}: {s['reason']}" for s in run["stopped"])
        out.append({"file": label(entry), "fit": run["fit"], "status": st, "where": where,
                    "why": why(reasons[0].split(": ", 1)[1]) if reasons else "", "reasons": reasons})
    return out


def table(rs):
    """The Markdown rows of docs/coverage.md's table."""
    return "\n".join(f"| `{r['file']}` | {r['fit']} | {r['status']} | {r['where']} | {r['why']} |" for r in rs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="one JSON object per kernel instead of the table")
    args = ap.parse_args(argv)
    rs = rows()
    if args.json:
        for r in rs:
            print(json.dumps(r, sort_keys=True))
    else:
        print(table(rs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
