"""Ask schedule.js (under Node) what it decides, so Python tests never restate a simulator rule."""

import json
import os
import re
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


def node_script(script, structure, knobs=None, timeout=300):
    """Run a Node script with the project root as argv[1], the knobs' JSON as argv[2] and the
    structure's JSON on stdin; its stdout parsed as JSON."""
    proc = subprocess.run([node(), "-e", script, str(ROOT), json.dumps(knobs or {})], input=json.dumps(structure),
                          capture_output=True, text=True, timeout=timeout, check=True)
    return json.loads(proc.stdout)


PAGE_STRUCTURE = r"""
const W = require(process.argv[1] + "/assets/waveform.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const packed = input.script ? JSON.parse(input.script) : null;
process.stdout.write(JSON.stringify(W.withPrograms(input.parsed, packed)));
"""
RE_MODEL_ELEMENT = re.compile(r'<script type="application/json" id="model">([^<]*)</script>')
RE_PROGRAMS_SCRIPT = re.compile(r'<script type="text/plain" class="kv-code" data-name="programs" data-json="KV_PROGRAMS">([A-Za-z0-9+/=]*)</script>')


def page_structure(page):
    """The structure a waveform page simulates: its model element's `parsed` with the packed
    parts put back by the page's own withPrograms (assets/waveform.js) under Node."""
    import render_waveform
    model = json.loads(RE_MODEL_ELEMENT.search(page).group(1))
    found = RE_PROGRAMS_SCRIPT.search(page)
    script = render_waveform.unpack_js(found.group(1)) if found else ""
    proc = subprocess.run([node(), "-e", PAGE_STRUCTURE, str(ROOT)], input=json.dumps({"script": script, "parsed": model["parsed"]}),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)


PROGRAM_SWEEP = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js");
const { mulberry32, randInt } = require(root + "/tests/js/prng.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const rand = mulberry32(input.seed), bad = [];
let runs = 0;
for (let i = 0; i < input.runs; i++) {
  const knobs = { model: "program" };
  Object.keys(input.ranges).sort().forEach((k) => { knobs[k] = randInt(rand, input.ranges[k][0], input.ranges[k][1]); });
  Object.assign(knobs, input.fixed);
  const r = S.simulate(input.structure, knobs);
  runs++;
  if (r.error || r.deadlock || r.verdict.stopped.length || r.verdict.hazards.length || !(r.total > 0)) {
    bad.push({ knobs, error: r.error, deadlock: r.deadlock && r.deadlock.message, stopped: r.verdict.stopped, hazards: r.verdict.hazards.length });
  }
}
process.stdout.write(JSON.stringify({ runs, badCount: bad.length, bad: bad.slice(0, 3) }));
"""


def program_sweep(structure, ranges, seed, runs, fixed=None):
    """Seeded random settings of the program model (each knob uniform in its [lo, hi] of ranges,
    then the knobs of fixed, e.g. {"flags": {...}}): {runs, badCount, bad}, a run being bad when
    it errs, deadlocks, stops a role, reports a hazard or draws nothing. The real kernels run on
    hardware, so their own programs must not."""
    proc = subprocess.run([node(), "-e", PROGRAM_SWEEP, str(ROOT)],
                          input=json.dumps({"structure": structure, "ranges": ranges, "seed": seed, "runs": runs,
                                          "fixed": fixed or {}}),
                          capture_output=True, text=True, timeout=600, check=True)
    return json.loads(proc.stdout)


PROGRAM_RUN = r"""
const root = process.argv[1];
const S = require(root + "/schedule.js"), I = require(root + "/sim/interpret.js");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const r = I.run(input.structure, input.knobs, S.engine, {});
if (r.error) { process.stdout.write(JSON.stringify({ error: r.error })); process.exit(0); }
const out = {
  roles: r.roles.map((x) => x.name), groups: r.roles.map((x) => x.mmaGroup), idle: r.idle, stopped: r.stopped,
  total: r.total, deadlock: r.deadlock, flags: r.flags, lanes: r.lanes.map((l) => l.id), hazards: r.hazards,
  blocks: S.blocksOf(r.columns).map((b) => ({ lane: b.lane, kind: b.kind, reason: b.reason, start: b.start, end: b.end,
    tile: b.tile, k: b.k, stage: b.stage, lines: b.lines }))
};
if (input.simulate) out.simDeadlock = S.simulate(input.structure, Object.assign({ model: "program" }, input.knobs)).deadlock;
process.stdout.write(JSON.stringify(out));
"""


def program_run(structure, knobs, simulate=False):
    """sim/interpret.js run() of a parsed structure (docs/programs.md): {roles, groups (mmaGroup),
    idle, stopped, total, deadlock, flags, lanes, hazards, blocks: [{lane, kind, reason, start,
    end, tile, k, stage, lines (line numbers)}]}, or {error}; with simulate, also simDeadlock (the
    deadlock schedule.js simulate() reports for the program model)."""
    proc = subprocess.run([node(), "-e", PROGRAM_RUN, str(ROOT)],
                          input=json.dumps({"structure": structure, "knobs": knobs, "simulate": simulate}),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(proc.stdout)


def program_steps(nodes, out=None):
    """Every step of a program tree, depth first (loop init / body / step, if then / else)."""
    out = [] if out is None else out
    for n in nodes:
        out.append(n)
        for key in ("init", "body", "step", "then", "else"):
            program_steps(n.get(key) or [], out)
    return out


def lane_blocks(out, lane, kind=None):
    """The blocks of a program_run result on one lane (and of one kind)."""
    return [b for b in out["blocks"] if b["lane"] == lane and (kind is None or b["kind"] == kind)]
