"""The attention model of schedule.js on parsed structures: the committed FA3-style fixture is
current, and CUTLASS 88_hopper_fmha's collective (parsed live) simulates as attention."""

import json
import shutil
import subprocess
import sys

import pytest

import parse_cutlass
from conftest import ROOT

FIXTURE_HEADER = "tests/fixtures/fa3_style_mainloop.hpp"
FIXTURE_PARSED = ROOT / "tests/fixtures/fa3_style_mainloop.parsed.json"
FMHA_COLLECTIVE = "examples/88_hopper_fmha/collective/fmha_collective_tma_warpspecialized.hpp"

# Runs schedule.js on the structure read from stdin, once per refinement setting, and prints a
# JSON summary per run (model, lanes, totals, verdict, the lines of the first block of each kind).
NODE_SCRIPT = r"""
const KS = require(process.argv[1]);
const structure = JSON.parse(require("fs").readFileSync(0, "utf8"));
const stages = Number(process.argv[2]);
const extra = JSON.parse(process.argv[3] || "{}");
const out = { defaultModel: KS.defaultModel(structure), runs: [] };
for (const [intra, ping] of [[false, false], [true, false], [false, true], [true, true]]) {
  const r = KS.simulate(structure, Object.assign({ stages, kvBlocks: 6, outputTiles: 3, intraWGOverlap: intra, interWGPingpong: ping }, extra));
  const lines = {};
  for (const b of r.blocks) {
    const key = b.kind === "wait" ? "wait:" + b.reason : b.operand && b.kind !== "transpose" ? b.kind + ":" + b.operand : b.kind;
    if (!(key in lines)) lines[key] = b.lines.map((ref) => ref.line);
  }
  out.runs.push({ intra, ping, model: r.model, error: r.error, messages: r.messages, total: r.total,
    lanes: r.lanes.map((l) => l.id), verdict: r.verdict, lines, deadlock: r.deadlock,
    barriers: r.barriers.map((b) => ({ name: b.name, kind: b.kind, lines: b.lines })) });
}
process.stdout.write(JSON.stringify(out));
"""


def run_node(structure, stages, extra=None):
    """Simulate a structure with schedule.js under Node; skips when Node is missing (not in CI)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = subprocess.run([node, "-e", NODE_SCRIPT, str(ROOT / "schedule.js"), str(stages), json.dumps(extra or {})],
                          input=json.dumps(structure),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(proc.stdout)


def test_fa3_style_parsed_fixture_is_current():
    """tests/js reads the committed parse; regenerate with the command in the message if this fails."""
    proc = subprocess.run([sys.executable, "parse_cutlass.py", FIXTURE_HEADER, "--pretty"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout == FIXTURE_PARSED.read_text(), (
        f"stale: run `python3 parse_cutlass.py {FIXTURE_HEADER} --pretty > {FIXTURE_PARSED.relative_to(ROOT)}`")


def test_fmha88_collective_simulates_as_attention(cutlass):
    """88's one MainloopPipeline carries K and V alternately: kv_stage lanes, attention model."""
    structure = parse_cutlass.parse_file(cutlass(FMHA_COLLECTIVE))
    # K and V share the ring, so 4 stages hold what 2 stages per pipeline hold in FA3. (With 2
    # shared stages the run is load-bound and both refinements together lose: see the README.)
    out = run_node(structure, 4)
    assert out["defaultModel"] == "attention"
    by_mode = {(run["intra"], run["ping"]): run for run in out["runs"]}
    for run in out["runs"]:
        assert run["error"] is None and run["model"] == "attention"
        assert run["lanes"] == ["producer", "q_stage0", "kv_stage0", "kv_stage1", "kv_stage2", "kv_stage3",
                                "consumer0", "consumer0_softmax", "consumer1", "consumer1_softmax"]
        # Lines come from 88's compute(): the QK^T and PV GEMMs, softmax.step, the Q pipeline wait.
        assert 406 in run["lines"]["gemm0"] and 427 in run["lines"]["gemm1"]
        assert 416 in run["lines"]["softmax"]
        assert run["lines"]["wait:q"] == [379]
        assert run["lines"]["issue:Q"] == [272, 278, 293]
        assert run["lines"]["issue:K"] == [275, 299] and run["lines"]["issue:V"] == [289, 300]
    off, on = by_mode[(False, False)], by_mode[(True, True)]
    assert on["total"] < off["total"]
    assert on["verdict"]["tensorCoreUtilization"] > off["verdict"]["tensorCoreUtilization"]
    # The inter-WG pingpong's scheduler barriers cite 88's order wait and arrive.
    sched = [b for b in by_mode[(False, True)]["barriers"] if b["name"].startswith("WarpScheduler")]
    assert len(sched) == 2
    assert sorted(sched[0]["lines"]["wait"] + sched[0]["lines"]["arrive"])[:2] == [400, 408]
    assert all(run["deadlock"] is None for run in out["runs"])


def test_fa3_forward_example_simulates_with_vt_lanes():
    """The committed FA3 forward parse has K, V and Vt pipelines: an FP8 build (Transpose_V =
    Is_FP8 && !V_colmajor) draws vt_stage lanes and transposes; the BF16 default does not."""
    fa3 = json.loads((ROOT / "examples/fa3_fwd.json").read_text())
    assert all("vt_stage0" not in run["lanes"] for run in run_node(fa3, 2)["runs"])
    out = run_node(fa3, 2, {"dtype": "fp8"})
    assert out["defaultModel"] == "attention"
    for run in out["runs"]:
        assert run["error"] is None
        assert "vt_stage0" in run["lanes"] and "k_stage0" in run["lanes"] and "v_stage0" in run["lanes"]
        assert run["lines"]["transpose"] == [781, 782, 786, 790]
        assert run["lines"]["epilogue"] == [444]
