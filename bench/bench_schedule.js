// Benchmark of schedule.js: simulate about 1,000,000 blocks (the result's columns, which the page
// draws from), then materialise the v1 block objects once (what tests, JSON dumps and exports
// read), and compare with plain allocation measured in the same process.
// Usage: node bench/bench_schedule.js [repeats]   (not part of the test suite)
"use strict";

const path = require("node:path");
const KS = require(path.join(__dirname, "..", "schedule.js"));

/** Wall-time target for one 1M-block simulate() (the page re-simulates on slider moves). */
const TARGET_MS = 1000;

/** Knobs giving just over 1,000,000 blocks with the default latencies (pingpong, 2 WGs). */
const BENCH_KNOBS = { outputTiles: 500, kTiles: 500 };

const repeats = Math.max(1, Number(process.argv[2]) || 5);

/**
 * Milliseconds taken by fn() (wall, and CPU time of the process: user + system, all threads,
 * which GC helper threads add to; on a shared machine CPU time varies less than wall time), and
 * its result.
 */
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

const simulateMs = [];
const simulateCpuMs = [];
const materialiseMs = [];
const baselineMs = [];
const baselineCpuMs = [];
let blockCount = 0;
let totalSteps = 0;
// Keep only numbers between runs: a live million-block result would slow the next run's GC.
for (let i = 0; i < repeats; i++) {
  let sim = timed(() => KS.simulate(null, BENCH_KNOBS));
  if (sim.result.error) throw new Error(sim.result.error);
  blockCount = sim.result.columns.n;
  totalSteps = sim.result.total;
  simulateMs.push(sim.ms);
  simulateCpuMs.push(sim.cpuMs);
  const result = sim.result;
  sim = null;
  materialiseMs.push(timed(() => result.blocks.length).ms);
  const base = timed(() => allocateBlocks(blockCount).length);
  baselineMs.push(base.ms);
  baselineCpuMs.push(base.cpuMs);
}

const first = simulateMs[0]; // includes JIT warm-up, like the page's first render
const med = median(simulateMs);
const base = median(baselineMs);
console.log(`node ${process.version}, knobs ${JSON.stringify(BENCH_KNOBS)} (other knobs default), ${repeats} runs`);
console.log(`blocks: ${blockCount} (estimate ${KS.estimateBlockCount(BENCH_KNOBS)}, cap ${KS.MAX_BLOCKS}), total ${totalSteps} steps`);
console.log(`simulate: first ${first.toFixed(1)} ms, median ${med.toFixed(1)} ms, ` +
  `min ${Math.min(...simulateMs).toFixed(1)} ms, max ${Math.max(...simulateMs).toFixed(1)} ms, ` +
  `${Math.round(blockCount / (med / 1000)).toLocaleString("en-US")} blocks/s`);
console.log(`materialise result.blocks once (${blockCount} v1 block objects, not done by the page): median ${median(materialiseMs).toFixed(1)} ms`);
console.log(`baseline (allocate ${blockCount} plain block-shaped objects): median ${base.toFixed(1)} ms`);
console.log(`ratio simulate/baseline: ${(med / base).toFixed(2)}x`);
console.log(`CPU time: simulate median ${median(simulateCpuMs).toFixed(1)} ms, baseline median ${median(baselineCpuMs).toFixed(1)} ms ` +
  `(ratio ${(median(simulateCpuMs) / median(baselineCpuMs)).toFixed(2)}x); load average ${require("node:os").loadavg()[0].toFixed(1)}`);
console.log(`target < ${TARGET_MS} ms: ${med < TARGET_MS ? "met" : "MISSED"}`);

// Attention model: FA3-style with both refinements on, about 1,000,000 blocks.
const ATTENTION_KNOBS = { model: "attention", outputTiles: 240, kvBlocks: 300, intraWGOverlap: true, interWGPingpong: true };
const attentionMs = [];
const attentionCpuMs = [];
let attentionBlocks = 0;
for (let i = 0; i < repeats; i++) {
  let sim = timed(() => KS.simulate(null, ATTENTION_KNOBS));
  if (sim.result.error) throw new Error(sim.result.error);
  attentionBlocks = sim.result.columns.n;
  attentionMs.push(sim.ms);
  attentionCpuMs.push(sim.cpuMs);
  sim = null;
}
const attMed = median(attentionMs);
console.log(`attention ${JSON.stringify(ATTENTION_KNOBS)}: ${attentionBlocks} blocks ` +
  `(estimate ${KS.estimateBlockCount(ATTENTION_KNOBS)}), first ${attentionMs[0].toFixed(1)} ms, ` +
  `median ${attMed.toFixed(1)} ms (CPU ${median(attentionCpuMs).toFixed(1)} ms), ${Math.round(attentionBlocks / (attMed / 1000)).toLocaleString("en-US")} blocks/s, ` +
  `target < ${TARGET_MS} ms: ${attMed < TARGET_MS ? "met" : "MISSED"}`);

// Blackwell model (SM100 UMMA GEMM, 1-SM, defaults otherwise): about 1,000,000 blocks.
const BLACKWELL_KNOBS = { model: "blackwell", outputTiles: 500, kTiles: 500 };
const blackwellMs = [];
let blackwellBlocks = 0;
for (let i = 0; i < repeats; i++) {
  let sim = timed(() => KS.simulate(null, BLACKWELL_KNOBS));
  if (sim.result.error) throw new Error(sim.result.error);
  blackwellBlocks = sim.result.columns.n;
  blackwellMs.push(sim.ms);
  sim = null;
}
const bwMed = median(blackwellMs);
console.log(`blackwell ${JSON.stringify(BLACKWELL_KNOBS)}: ${blackwellBlocks} blocks ` +
  `(estimate ${KS.estimateBlockCount(BLACKWELL_KNOBS)}), first ${blackwellMs[0].toFixed(1)} ms, ` +
  `median ${bwMed.toFixed(1)} ms, ${Math.round(blackwellBlocks / (bwMed / 1000)).toLocaleString("en-US")} blocks/s, ` +
  `target < ${TARGET_MS} ms: ${bwMed < TARGET_MS ? "met" : "MISSED"}`);
