// sim/sweep.js (docs/performance.md "Sweeps and grids"): the grid syntax of repeated --sweep
// flags, the grid's order, stagesToHide, and worker parity (--jobs N prints the bytes --jobs 1
// prints). Small grids only; the one time bound is a generous hang bound.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const childProcess = require("node:child_process");

const ROOT = path.join(__dirname, "..", "..");
const sweep = require(path.join(ROOT, "sim", "sweep.js"));
const KS = require(path.join(ROOT, "schedule.js"));
const STRUCTURE = path.join(ROOT, "examples", "sm90_gemm_pingpong.json");
const GEMM = require(STRUCTURE);
const BASE = ["--structure", STRUCTURE, "--knob", "gpu=h100-sxm", "--knob", "problem=4096x4096x4096", "--knob", "memLatency=1500"];

/** Generous: a grid of a dozen small settings takes well under a second even on a loaded machine. */
const HANG_MS = 120000;

function cli(args) {
  const r = childProcess.spawnSync(process.execPath, [path.join(ROOT, "schedule.js"), "predict"].concat(args), { encoding: "utf8", timeout: HANG_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function rows(stdout) { return stdout.trim().split("\n").map((l) => JSON.parse(l)); }

test("an axis: a..b integers or a comma list; names are knobs or their flag words", () => {
  const names = sweep.knobNames();
  assert.deepEqual(sweep.parseAxis("stages=2..5", names), { knob: "stages", values: [2, 3, 4, 5] });
  assert.deepEqual(sweep.parseAxis("consumers=1..2", names), { knob: "consumerWGs", values: [1, 2] });
  assert.deepEqual(sweep.parseAxis("tile=128x128x64,128x256x64", names), { knob: "tile", values: ["128x128x64", "128x256x64"] });
  assert.deepEqual(sweep.parseAxis("mem-latency=0,1500", names), { knob: "memLatency", values: [0, 1500] });
  for (const bad of ["stages=8..2", "stages=", "stages=2,,3", "nope=1..2", "=1", "stages"]) assert.ok(sweep.parseAxis(bad, names).error, bad);
});

test("the grid's order: the first --sweep varies slowest", () => {
  const g = sweep.gridSettings([{ knob: "a", values: [1, 2] }, { knob: "b", values: ["x", "y", "z"] }]);
  assert.deepEqual(g, [[1, "x"], [1, "y"], [1, "z"], [2, "x"], [2, "y"], [2, "z"]]);
  assert.deepEqual(sweep.gridSettings([]), [[]]);
});

test("a grid prints one line per setting in the grid's order, each the prediction of that setting", () => {
  const r = cli(BASE.concat(["--sweep", "stages=2..4", "--sweep", "schedule=pingpong,cooperative", "--jobs", "1"]));
  assert.equal(r.code, 0, r.stderr);
  const got = rows(r.stdout);
  assert.equal(got.length, 6);
  assert.deepEqual(got.map((p) => p.sweep.values), [[2, "pingpong"], [2, "cooperative"], [3, "pingpong"], [3, "cooperative"], [4, "pingpong"], [4, "cooperative"]]);
  assert.deepEqual(got.map((p) => p.sweep.index), [0, 1, 2, 3, 4, 5]);
  got.forEach((p) => {
    assert.deepEqual(p.sweep.knobs, ["stages", "schedule"]);
    assert.equal(p.sweep.knob, undefined, "the one-axis {knob, value} only for one axis");
    assert.deepEqual([p.knobs.stages, p.knobs.schedule], p.sweep.values);
    const direct = KS.simulate(GEMM, { gpu: "h100-sxm", problem: "4096x4096x4096", memLatency: 1500, stages: p.sweep.values[0], schedule: p.sweep.values[1] }, { events: false });
    assert.deepEqual([p.time, p.tflops, p.bottleneck], [direct.time, direct.tflops, direct.bottleneck]);
  });
  // The worked example of docs/performance.md: TMA 1831 cycles, hidden from 5 stages.
  assert.deepEqual(got[0].stagesToHide, { stages: 5, tmaCycles: 1831, tmaUs: 1831 / got[0].units.clockMHz });
  const one = rows(cli(BASE.concat(["--sweep", "stages=2..3"])).stdout);
  assert.deepEqual(one.map((p) => [p.sweep.knob, p.sweep.value, p.sweep.values]), [["stages", 2, [2]], ["stages", 3, [3]]]);
});

test("worker parity: --jobs 2 and --jobs 3 print exactly the bytes of --jobs 1", () => {
  const grid = ["--sweep", "tile=128x128x64,128x256x64", "--sweep", "stages=2..4", "--sweep", "consumers=1..2"];
  const one = cli(BASE.concat(grid, ["--jobs", "1"]));
  assert.equal(one.code, 0, one.stderr);
  assert.equal(rows(one.stdout).length, 12);
  for (const jobs of ["2", "3"]) {
    const many = cli(BASE.concat(grid, ["--jobs", jobs]));
    assert.equal(many.code, 0, many.stderr);
    assert.equal(many.stdout, one.stdout, "--jobs " + jobs);
  }
});

test("runGrid in workers: the grid's lines in order; the first failing setting in the grid's order, whatever the jobs", async () => {
  const job = { structure: GEMM, base: { gpu: "h100-sxm", problem: "4096x4096x4096" }, axes: ["stages"], settings: sweep.gridSettings([{ knob: "stages", values: [2, 3, 4, 5, 6, 7, 8, 9, 10] }]), gpus: null };
  const one = await sweep.runGrid(job, 1);
  const two = await sweep.runGrid(job, 2);
  assert.equal(one.lines.length, 9);
  assert.deepEqual(two.lines, one.lines);
  // Settings 5 and 9 of the grid are bad (a tile that is not MxNxK); the first of them is said.
  const bad = Object.assign({}, job, { axes: ["tile"], settings: ["128x128x64", "128x128x64", "128x128x64", "128x128x64", "128x128x64", "zz", "128x128x64", "128x128x64", "128x128x64", "yy"].map((t) => [t]) });
  for (const jobs of [1, 2, 3]) {
    const r = await sweep.runGrid(bad, jobs);
    assert.match(r.error, /^tile=zz: /, "jobs " + jobs);
  }
});

test("bad grids: one line on stderr, exit 2, nothing on stdout", () => {
  for (const bad of [["--sweep", "stages=2..3", "--sweep", "stages=4,5"], ["--sweep", "stages=2..3", "--knob", "stages=4"],
    ["--sweep", "nope=1,2"], ["--sweep", "stages=1..5000", "--sweep", "tile=128x128x64,128x256x64,64x64x64"], ["--jobs", "0"], ["--jobs", "x"],
    ["--sweep", "tile=128x128x64,bad"]]) {
    const e = cli(BASE.concat(bad));
    assert.equal(e.code, 2, bad.join(" "));
    assert.equal(e.stdout, "", bad.join(" "));
    assert.equal(e.stderr.trim().split("\n").length, 1, e.stderr);
  }
});
