"""Ask schedule.js (under Node) what it decides, so Python tests never restate a simulator rule."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Prints fitModel(s) and simulate(s, {}).knobs of each structure given on stdin.
NODE_FIT = r"""
const KS = require(process.argv[1]);
const structures = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(structures.map((s) => {
  const r = KS.simulate(s, {});
  return { fit: KS.fitModel(s), knobs: r.knobs, deadlock: r.deadlock !== null, total: r.total };
})));
"""


def node():
    """The node executable; skips locally and fails under CI when it is missing."""
    exe = shutil.which("node")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("node is missing and CI is set")
        pytest.skip("node is not installed")
    return exe


def fits(structures):
    """[{fit, knobs, deadlock, total}] of schedule.js for each structure (one Node process)."""
    proc = subprocess.run([node(), "-e", NODE_FIT, str(ROOT / "schedule.js")], input=json.dumps(structures),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


def fit_model(structure):
    """fitModel(structure).model of schedule.js: the model the page and the exports start in."""
    return fits([structure])[0]["fit"]["model"]
