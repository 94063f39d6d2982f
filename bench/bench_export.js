// Benchmark of trace_export.js: export about 1,000,000 blocks as a Chrome trace and as a VCD,
// streamed to a byte-counting sink as the command line streams to stdout.
// Usage: node bench/bench_export.js [repeats]   (not part of the test suite; figures in docs/benchmarks.md)
"use strict";

const path = require("node:path");
const KS = require(path.join(__dirname, "..", "schedule.js"));
const KE = require(path.join(__dirname, "..", "trace_export.js"));

/** Knobs giving just over 1,000,000 blocks with the default latencies (the schedule benchmark's). */
const BENCH_KNOBS = { outputTiles: 500, kTiles: 500 };
const STRUCTURE = require(path.join(__dirname, "..", "examples", "sm90_gemm_pingpong.json"));

const repeats = Math.max(1, Number(process.argv[2]) || 3);

/** Milliseconds taken by fn(), and its result. */
function timed(fn) {
  const t0 = process.hrtime.bigint();
  const result = fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, result };
}

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A sink that counts the bytes of ASCII chunks (what the command line streams to stdout). */
function counter() {
  const sink = (chunk) => { sink.bytes += chunk.length; };
  sink.bytes = 0;
  return sink;
}

const result = KS.simulate(STRUCTURE, BENCH_KNOBS);
if (result.error) throw new Error(result.error);
const deps = result.blocks.reduce((n, b) => n + b.after.length, 0);
const rows = [];
for (const [name, run] of [
  ["chrome", (sink) => KE.chromeTraceChunks(result, { kernel: "bench" }, sink)],
  ["vcd", (sink) => KE.vcdChunks(result, { kernel: "bench" }, sink)],
]) {
  const times = [];
  let size = 0;
  for (let r = 0; r < repeats; r++) {
    const sink = counter();
    times.push(timed(() => run(sink)).ms);
    size = sink.bytes;
  }
  rows.push({ format: name, blocks: result.blocks.length, dependencies: deps, steps: result.total,
              medianMs: Math.round(median(times)), megabytes: Math.round(size / 1e5) / 10 });
}
console.log("node " + process.version + ", " + repeats + " repeats");
console.table(rows);
