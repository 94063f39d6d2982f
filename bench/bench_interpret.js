// Benchmark: the role-program interpreter (sim/interpret.js) against the hand-written GEMM model
// (schedule.js runGemm) on the same settings and the same parsed structure (CUTLASS 4.2's SM90
// collective with the pingpong kernel layer, parsed at run time). Prints blocks, the best of N
// wall times of each and their ratio; figures go in docs/benchmarks.md. Not a test.
//   node bench/bench_interpret.js [--runs N]
"use strict";
const path = require("path");
const { execFileSync } = require("child_process");
const S = require(path.join(__dirname, "..", "schedule.js"));
const I = require(path.join(__dirname, "..", "sim", "interpret.js"));

function structure() {
  const py = process.env.PYTHON || path.join(__dirname, "..", ".venv", "bin", "python");
  const code = "import json, parse_cutlass as pc\n" +
    "root = next(r for r in pc.cutlass_roots() if (r / 'include').is_dir())\n" +
    "g = root / 'include/cutlass/gemm'\n" +
    "print(json.dumps(pc.parse_header(g / 'collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp', g / 'kernel/sm90_gemm_tma_warpspecialized_pingpong.hpp')))";
  return JSON.parse(execFileSync(py, ["-c", code], { cwd: path.join(__dirname, ".."), maxBuffer: 1 << 28 }).toString());
}

function best(runs, fn) {
  let t = Infinity, out = null;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    out = fn();
    t = Math.min(t, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms: t, out };
}

const runs = Number((process.argv.indexOf("--runs") >= 0 && process.argv[process.argv.indexOf("--runs") + 1]) || 3);
const st = structure();
for (const [O, K] of [[20, 1000], [200, 1000]]) {
  const knobs = { stages: 4, outputTiles: O, kTiles: K, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3, kPipeMmas: 1 };
  const hand = best(runs, () => S.simulate(st, Object.assign({ model: "gemm", consumerWGs: 2, schedule: "pingpong" }, knobs), { events: false }));
  const prog = best(runs, () => S.simulate(st, Object.assign({ model: "program" }, knobs), { events: false }));
  const nh = hand.out.columns.n, np = prog.out.columns.n;
  console.log(`O=${O} K=${K}: gemm model ${nh} blocks ${hand.ms.toFixed(0)} ms; program model ${np} blocks ${prog.ms.toFixed(0)} ms; ratio ${(prog.ms / hand.ms).toFixed(2)}`);
}
