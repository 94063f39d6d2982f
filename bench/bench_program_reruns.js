// Benchmark: the program model's re-runs, as the page makes them (a setting, then six latency
// changes of the same structure), with the structure kept (what a structure object keeps across
// runs: prepared programs and discovered roles, docs/programs.md "Performance") against a fresh
// parse of the same example for every run (nothing kept): the baseline, in the same process.
// Prints the CPU time of each; figures go in docs/benchmarks.md. Not a test.
//   node bench/bench_program_reruns.js [--rounds N]
"use strict";
const path = require("path"), fs = require("fs");
const root = path.join(__dirname, "..");
const S = require(path.join(root, "schedule.js"));

const CASES = [["fa3_fwd.json", {}], ["sm100_fmha_fwd.json", {}], ["fa4_fwd_sm100.json", {}], ["sm90_gemm_pingpong.json", {}],
  ["fa3_fwd.json", { stages: 2, outputTiles: 4, kvBlocks: 30, mathLatency: 0 }]];
const rounds = Number((process.argv.indexOf("--rounds") >= 0 && process.argv[process.argv.indexOf("--rounds") + 1]) || 2);

function cpuMs(fn) {
  const t0 = process.cpuUsage();
  fn();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / 1000;
}

/** CPU ms of the six latency changes after the first setting (the first run warms either way). */
function sequence(text, extra, keep) {
  let structure = JSON.parse(text);
  const times = [];
  for (let i = 0; i < 7; i++) {
    if (!keep) structure = JSON.parse(text);
    const knobs = Object.assign({ model: "program" }, extra, i ? { tmaLatency: 2 + i } : {});
    const t = cpuMs(() => S.simulate(structure, knobs, { events: false }));
    if (i) times.push(t);
  }
  return times.reduce((a, b) => a + b, 0) / times.length;
}

for (const [name, extra] of CASES) {
  const text = fs.readFileSync(path.join(root, "examples", name), "utf8");
  let kept = Infinity, fresh = Infinity;
  for (let r = 0; r < rounds; r++) {   // alternate, best of rounds
    fresh = Math.min(fresh, sequence(text, extra, false));
    kept = Math.min(kept, sequence(text, extra, true));
  }
  console.log(`${name} ${JSON.stringify(extra)}: a latency change ${kept.toFixed(0)} ms CPU kept, ${fresh.toFixed(0)} ms fresh; ratio ${(fresh / kept).toFixed(2)}`);
}
