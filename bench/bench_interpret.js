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
const fs = require("fs");
const example = (name) => JSON.parse(fs.readFileSync(path.join(__dirname, "..", "examples", name), "utf8"));

/** One program-model row against a hand model on the same knobs (hand null: no hand model of that kernel). */
function row(label, structure, knobs, handKnobs) {
  const prog = best(runs, () => S.simulate(structure, Object.assign({ model: "program" }, knobs), { events: false }));
  const np = prog.out.columns.n;
  let text = `${label}: program model ${np} blocks ${prog.ms.toFixed(0)} ms (${(1000 * prog.ms / np).toFixed(2)} us/block)`;
  if (handKnobs) {
    const hand = best(runs, () => S.simulate(structure, Object.assign({}, knobs, handKnobs), { events: false }));
    text += `; ${handKnobs.model} model ${hand.out.columns.n} blocks ${hand.ms.toFixed(0)} ms; ratio ${(prog.ms / hand.ms).toFixed(2)}`;
  }
  console.log(text + (prog.out.deadlock ? " (deadlock!)" : ""));
}
// The other programs: the SM100 GEMM (hand model: Blackwell), FA3's forward (hand model: attention)
// and CUTLASS 77's Blackwell attention forward (no hand model).
row("SM100 GEMM O=100 K=1000", example("sm100_gemm.json"), { stages: 4, outputTiles: 100, kTiles: 1000, accStages: 2 },
  { model: "blackwell", epiSubtiles: 1, ctaPair: false, loadC: false });
row("FA3 O=20 J=1000", example("fa3_fwd.json"), { stages: 2, outputTiles: 20, kvBlocks: 1000, mathLatency: 0 },
  { model: "attention" });
row("77 FMHA O=10 J=1000", example("sm100_fmha_fwd.json"), { stages: 3, outputTiles: 10, kvBlocks: 1000 }, null);
for (const [O, K] of [[20, 1000], [200, 1000]]) {
  const knobs = { stages: 4, outputTiles: O, kTiles: K, tmaLatency: 4, wgmmaLatency: 2, epilogueLatency: 3, kPipeMmas: 1 };
  const hand = best(runs, () => S.simulate(st, Object.assign({ model: "gemm", consumerWGs: 2, schedule: "pingpong" }, knobs), { events: false }));
  const prog = best(runs, () => S.simulate(st, Object.assign({ model: "program" }, knobs), { events: false }));
  const nh = hand.out.columns.n, np = prog.out.columns.n;
  console.log(`O=${O} K=${K}: gemm model ${nh} blocks ${hand.ms.toFixed(0)} ms; program model ${np} blocks ${prog.ms.toFixed(0)} ms; ratio ${(prog.ms / hand.ms).toFixed(2)}`);
}
