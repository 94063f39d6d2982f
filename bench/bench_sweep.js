// A grid of 1,000 predictions of the canonical GEMM (examples/sm90_gemm_pingpong.json) at
// realistic problem sizes, timed in one run with one worker (this thread, as --jobs 1) and with
// every core (sim/sweep.js's runGrid, one worker thread per core), then the ratio; the two
// outputs are compared byte for byte. Also the slowest settings, with the k-tiles their busiest
// CTA runs. A benchmark, not a test (docs/benchmarks.md keeps its figures).
// Usage: node bench/bench_sweep.js [--jobs N]
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");
const sweep = require(path.join(__dirname, "..", "sim", "sweep.js"));

const ROOT = path.join(__dirname, "..");
const STRUCTURE = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "sm90_gemm_pingpong.json"), "utf8"));

/** The grid: 2 problems x 5 tiles x 2 schedules x 5 stage counts x 10 fixed TMA latencies = 1,000 settings. */
const AXES = [
  { knob: "problem", values: ["4096x4096x4096", "8192x8192x4096"] },
  { knob: "tile", values: ["128x128x64", "128x256x64", "256x128x64", "128x192x64", "64x256x64"] },
  { knob: "schedule", values: ["pingpong", "cooperative"] },
  { knob: "stages", values: [2, 3, 4, 5, 6] },
  { knob: "memLatency", values: [0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250] }
];
const BASE = { gpu: "h100-sxm" };

function seconds(t0) { return Number(process.hrtime.bigint() - t0) / 1e9; }

/** CPU seconds (user + system, every thread of the process) since process.cpuUsage() gave c0. */
function cpuSeconds(c0) { const d = process.cpuUsage(c0); return (d.user + d.system) / 1e6; }

async function main(argv) {
  const at = argv.indexOf("--jobs");
  const cores = at >= 0 ? Number(argv[at + 1]) : os.cpus().length;
  const job = { structure: STRUCTURE, base: BASE, axes: AXES.map((a) => a.knob), settings: sweep.gridSettings(AXES), gpus: null };
  const n = job.settings.length;
  const load0 = os.loadavg().map((x) => x.toFixed(2)).join(" ");

  // One worker: this thread, setting by setting (runGrid's --jobs 1 path is this loop), each timed.
  const each = [];
  // Per setting: CPU time (only this thread runs here), which a loaded machine does not inflate.
  let t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
  const one = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    const out = sweep.predictSetting(job.structure, job.base, job.axes, job.settings[i], i, null);
    if (out.error) throw new Error(out.error);
    each.push({ i: i, s: cpuSeconds(c) });
    one.push(out.line);
  }
  const oneS = seconds(t0), oneCpu = cpuSeconds(c0);

  t0 = process.hrtime.bigint();
  c0 = process.cpuUsage();
  const all = await sweep.runGrid(job, cores);
  const allS = seconds(t0), allCpu = cpuSeconds(c0);
  if (all.error) throw new Error(all.error);

  const identical = all.lines.join("\n") === one.join("\n");
  console.log("grid: " + n + " settings of " + path.join("examples", "sm90_gemm_pingpong.json") + " on h100-sxm (" +
    AXES.map((a) => a.knob + " x" + a.values.length).join(", ") + ")");
  console.log("load average before: " + load0);
  console.log("1 worker:           " + oneS.toFixed(2) + " s wall, " + oneCpu.toFixed(2) + " s CPU (" + (1000 * oneS / n).toFixed(1) + " ms per setting)");
  console.log(cores + " workers (cores " + os.cpus().length + "): " + allS.toFixed(2) + " s wall, " + allCpu.toFixed(2) + " s CPU (all threads)");
  console.log("ratio (1 / " + cores + "):     " + (oneS / allS).toFixed(2) + "x; output identical: " + (identical ? "yes" : "NO"));
  console.log("load average after:  " + os.loadavg().map((x) => x.toFixed(2)).join(" "));
  console.log("slowest settings (1 worker, CPU time):");
  each.sort((a, b) => b.s - a.s).slice(0, 6).forEach((e) => {
    const row = JSON.parse(one[e.i]);
    console.log("  " + (1000 * e.s).toFixed(1) + " ms  " + job.axes.map((k, j) => k + "=" + job.settings[e.i][j]).join(" ") +
      "  (k-tiles of the busiest CTA " + row.knobs.outputTiles * row.knobs.kTiles + ", min stages " + row.stagesToHide.stages + ")");
  });
  return identical ? 0 : 1;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
