"""The engine on mutated copies of the real CUTLASS 4.2 mainloop (issue 9, 3): the copies are
written to a temporary folder at test time, never committed."""

import json
import re
import shutil
import subprocess

import pytest

import parse_cutlass
from conftest import ROOT

MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"

# Simulates each structure of stdin's list with the knobs given in argv[2]; prints the results.
NODE = r"""
const KS = require(process.argv[1]);
const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = items.map(([structure, knobs]) => {
  const r = KS.simulate(structure, knobs);
  return { total: r.total, knobs: r.knobs, messages: r.messages, deadlock: r.deadlock,
    blocks: r.blocks.map((b) => [b.lane, b.kind, b.start, b.end, b.tile, b.k, b.stage, b.reason]) };
});
process.stdout.write(JSON.stringify(out));
"""


def simulate(items):
    """[(structure, knobs)] -> results of schedule.js under Node (skips without Node, not in CI)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = subprocess.run([node, "-e", NODE, str(ROOT / "schedule.js")], input=json.dumps(items),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def mutated(cutlass, tmp_path, edit):
    """Parse a copy of the real mainloop with edit(text) -> text applied."""
    text = cutlass(MAINLOOP).read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text, "the mutation must change the header"
    copy = tmp_path / "sm90_mma_tma_gmma_ss_warpspecialized.hpp"
    copy.write_text(changed, encoding="utf-8")
    return parse_cutlass.parse_file(copy)


KNOBS = {"stages": 4, "outputTiles": 3, "kTiles": 6, "tmaLatency": 6, "wgmmaLatency": 2, "epilogueLatency": 2,
         "consumerWGs": 1}


def test_deleting_the_loops_consumer_release_deadlocks_at_the_producer_acquire(cutlass, tmp_path):
    original = parse_cutlass.parse_file(cutlass(MAINLOOP))
    releases = [op for fn in original["functions"] if fn["name"] == "mma" for op in fn["ops"] if op["op"] == "consumer_release"]
    assert [op["line"] for op in releases] == [551]
    acquire = [op["line"] for fn in original["functions"] for op in fn["ops"] if op["op"] == "producer_acquire"]
    lines_removed = lambda text: "\n".join("" if i == 551 else line for i, line in enumerate(text.split("\n"), 1))
    structure = mutated(cutlass, tmp_path, lines_removed)
    good, bad = simulate([[original, KNOBS], [structure, KNOBS]])
    assert good["deadlock"] is None
    assert bad["deadlock"] is not None
    producer = [w for w in bad["deadlock"]["waiting"] if w["lane"] == "producer"]
    assert producer and re.fullmatch(r"MainloopPipeline\.empty\[\d+\]", producer[0]["barrier"])
    assert producer[0]["line"] == acquire[0] == 374
    assert any("no consumer_release after the last mma" in m for m in bad["messages"])


def test_k_pipe_mmas_2_in_the_source_changes_the_schedule_as_the_rules_say(cutlass, tmp_path):
    structure = mutated(cutlass, tmp_path, lambda t: t.replace("static constexpr int K_PIPE_MMAS = 1;",
                                                              "static constexpr int K_PIPE_MMAS = 2;"))
    if not any(c.get("name") == "K_PIPE_MMAS" for c in structure.get("constants") or []):
        pytest.skip("the parser does not record constants yet (CONTRACT.md schema v2 `constants`)")
    original = parse_cutlass.parse_file(cutlass(MAINLOOP))
    from_source, explicit_two, explicit_one = simulate([[structure, KNOBS], [original, dict(KNOBS, kPipeMmas=2)],
                                                        [original, dict(KNOBS, kPipeMmas=1)]])
    assert from_source["knobs"]["kPipeMmas"] == 2
    # The source's 2 gives exactly the schedule of the knob set to 2 (the rules: release of k-tile k
    # after WGMMA k+2 is issued and warpgroup_wait<2> sees WGMMA k complete), not the one of 1.
    assert from_source["blocks"] == explicit_two["blocks"]
    assert from_source["blocks"] != explicit_one["blocks"]
    assert from_source["total"] > explicit_one["total"]
