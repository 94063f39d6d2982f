// Benchmark of schedule.js: simulate about 1,000,000 blocks per model (the result's columns, which
// the page draws from), materialise the v1 block objects once (what tests, JSON dumps and exports
// read, never the page), and allocate as many plain objects as a baseline measured alongside.
// Every case runs in a fresh Node process (as the page's Worker has its own heap), so one case's
// garbage never slows the next one's collections.
// Usage: node bench/bench_schedule.js [repeats]   (not part of the test suite)
"use strict";

const path = require("node:path");
const os = require("node:os");
const { execFileSync } = require("node:child_process");
const KS = require(path.join(__dirname, "..", "schedule.js"));

/** Wall-time target for one 1M-block simulate() (issues 9 and 13). */
const TARGET_MS = 1000;

/** About 1,000,000 blocks each, defaults otherwise. */
const CASES = {
  gemm: { outputTiles: 500, kTiles: 500 },
  attention: { model: "attention", outputTiles: 240, kvBlocks: 300, intraWGOverlap: true, interWGPingpong: true },
  blackwell: { model: "blackwell", outputTiles: 500, kTiles: 500 },
};

/**
 * The page's ~100,000-block slider cases (bench/bench_page.py), as its Worker runs them: the
 * example structures, no barrier events; the slider alternates between two values. Runs 1-2 of a
 * fresh process are reported apart (the JIT warming up, as in a fresh Worker).
 */
const EXAMPLES = path.join(__dirname, "..", "examples");
const SLIDER_CASES = {
  "slider-gemm": { example: "sm90_gemm_pingpong.json", knobs: { outputTiles: 100, kTiles: 200, schedule: "cooperative" }, knob: "kTiles" },
  "slider-attention": { example: "fa3_fwd.json", knobs: { model: "attention", outputTiles: 30, kvBlocks: 200 }, knob: "kvBlocks" },
};
const SLIDER_TARGET_MS = 100;

/** Objects allocated by the baseline: the GEMM case's block count. */
const BASELINE_COUNT = 1001998;

/** Wall and CPU milliseconds of fn() (CPU: user + system of the process, GC threads included) and its result. */
function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const result = fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(c0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

/** Baseline: allocate count plain objects of the block shape (with a one-element after array). */
function allocateBlocks(count) {
  const lines = [];
  const blocks = [];
  for (let i = 0; i < count; i++) {
    blocks.push({ id: i, lane: "consumer0", kind: "wgmma", start: i, end: i + 1, tile: 0, k: i, stage: 0,
      reason: null, lines: lines, after: [i] });
  }
  return blocks;
}

/** Median of a list of numbers. */
function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Child: run one case `what` (a model name, "materialise" or "baseline") and print JSON figures. */
function child(what, repeats) {
  const out = { ms: [], cpuMs: [], blocks: 0, steps: 0 };
  for (let i = 0; i < repeats; i++) {
    let t;
    if (what === "baseline") {
      t = timed(() => allocateBlocks(BASELINE_COUNT).length);
    } else if (SLIDER_CASES[what]) {
      const sc = SLIDER_CASES[what], structure = require(path.join(EXAMPLES, sc.example));
      // The page's knobs: the example's own (e.g. FA3's stages and Transpose_V), then the case's.
      const knobs = Object.assign({}, KS.simulate(structure, {}).knobs, sc.knobs);
      knobs[sc.knob] += i & 1;
      t = timed(() => KS.simulate(structure, knobs, { events: false }));
      if (t.result.error) throw new Error(t.result.error);
      out.blocks = t.result.columns.n;
      out.steps = t.result.total;
    } else if (what === "materialise") {
      let result = KS.simulate(null, CASES.gemm);
      t = timed(() => result.blocks.length);
      result = null;
    } else {
      t = timed(() => KS.simulate(null, CASES[what]));
      if (t.result.error) throw new Error(t.result.error);
      out.blocks = t.result.columns.n;
      out.steps = t.result.total;
    }
    out.ms.push(t.ms);
    out.cpuMs.push(t.cpuMs);
    t = null;
  }
  process.stdout.write(JSON.stringify(out));
}

/** Parent: each case in its own process, then one line per case. */
function main(repeats) {
  console.log(`node ${process.version}, ${repeats} runs per case, each case in a fresh process; load average ${os.loadavg()[0].toFixed(1)}`);
  const figures = {};
  for (const what of ["baseline", "gemm", "attention", "blackwell", "materialise", ...Object.keys(SLIDER_CASES)]) {
    const runs = SLIDER_CASES[what] ? Math.max(repeats, 3) + 8 : repeats;
    const text = execFileSync(process.execPath, [__filename, "--child", what, String(runs)], { encoding: "utf8" });
    figures[what] = JSON.parse(text);
  }
  const base = median(figures.baseline.ms);
  console.log(`baseline: allocate 1,001,998 plain block-shaped objects: median ${base.toFixed(1)} ms`);
  for (const model of Object.keys(CASES)) {
    const f = figures[model];
    const med = median(f.ms);
    console.log(`${model} ${JSON.stringify(CASES[model])}: ${f.blocks} blocks (estimate ` +
      `${KS.estimateBlockCount(CASES[model])}), ${f.steps} steps; simulate first ${f.ms[0].toFixed(1)} ms, ` +
      `median ${med.toFixed(1)} ms (min ${Math.min(...f.ms).toFixed(1)}, max ${Math.max(...f.ms).toFixed(1)}; CPU median ` +
      `${median(f.cpuMs).toFixed(1)} ms), ${(med / base).toFixed(2)}x the baseline, ` +
      `${Math.round(f.blocks / (med / 1000)).toLocaleString("en-US")} blocks/s; target < ${TARGET_MS} ms: ${med < TARGET_MS ? "met" : "MISSED"}`);
  }
  console.log(`materialise result.blocks of the GEMM case once (v1 objects; tests, JSON dumps and exports, never the page): ` +
    `median ${median(figures.materialise.ms).toFixed(1)} ms`);
  for (const what of Object.keys(SLIDER_CASES)) {
    const f = figures[what], warm = f.ms.slice(2), med = median(warm);
    console.log(`${what} (${SLIDER_CASES[what].example}, ${JSON.stringify(SLIDER_CASES[what].knobs)}, no events): ${f.blocks} blocks; ` +
      `runs 1-2 ${f.ms[0].toFixed(1)} / ${f.ms[1].toFixed(1)} ms, then median ${med.toFixed(1)} ms (min ${Math.min(...warm).toFixed(1)}, ` +
      `max ${Math.max(...warm).toFixed(1)}) over ${warm.length} runs; the page's slider target (< ${SLIDER_TARGET_MS} ms input to drawn) ` +
      `also pays the hand-off and the draw: see bench/bench_page.py`);
  }
  console.log(`load average after: ${os.loadavg()[0].toFixed(1)}`);
}

if (process.argv[2] === "--child") child(process.argv[3], Math.max(1, Number(process.argv[4]) || 5));
else main(Math.max(1, Number(process.argv[2]) || 5));
