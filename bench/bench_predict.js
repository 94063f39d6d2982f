// How well the steady-state bound of sim/perf.js predicts, and the simulated schedule of the
// kernel's own program (the program model in cycles, on the bundled example parses): for public
// results (each with its source), print the predicted TFLOPS, the reported TFLOPS and their
// ratio. Both are computed from single-operation figures only (sim/gpus.json); nothing here is
// fitted to these results.
// Usage: node bench/bench_predict.js [--json]   (not part of the test suite; no timing)
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const KP = require(path.join(__dirname, "..", "sim", "perf.js"));
const KS = require(path.join(__dirname, "..", "schedule.js"));
const KA = require(path.join(__dirname, "..", "sim", "model_attention.js"));

/** FA3's own tile for a head dimension (tile_size_fwd_sm90, non-causal BF16: sim/model_attention.js fa3Tile). */
function fa3OwnTile(headdim) { const t = KA.fa3Tile("bf16", headdim); return t.kBlockM + "x" + t.kBlockN; }

/** A bundled example's parse (examples/NAME.json) for the program model. */
function example(name) { return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "examples", name + ".json"), "utf8")); }

/** The program model's knobs of an attention case in the FA3 paper's shape (fa3Shape's). */
function attentionKnobs(c, gpu, tile) {
  const s = c.config;
  return { gpu: gpu, batch: s.batch, heads: s.heads, seqlen: s.seqlen, headdim: s.headdim, tile: tile };
}

const TABLE = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "sim", "gpus.json"), "utf8"));

/** The FA3 paper's forward benchmark shapes: batch x seqlen = 16k and heads x headdim = 2048. */
function fa3Shape(headdim, seqlen) {
  return { batch: 16384 / seqlen, heads: 2048 / headdim, seqlen: seqlen, headdim: headdim, blockM: 128, blockN: 128, dtype: "bf16" };
}

/** A square BF16 GEMM of side n with an m x n x 64 CTA tile and `stages` stages (predictGemm's input). */
function gemmShape(side, m, n, stages) {
  return { tile: { m: m, n: n, k: 64 }, problem: { m: side, n: side, k: side }, dtype: "bf16", stages: stages };
}

const FAST_CU = "pranjalssh/fast.cu README.md (commit 38eb642, 'Matrix multiplication of square bf16 matrices, accumulated in fp32'; the worklog 'Outperforming cuBLAS on H100'): ";

const FA3_FIGURE = "FlashAttention-3 (Shah et al., arXiv 2407.08608), figure 'Attention forward speed, head dim D (H100 80GB SXM5)', FA3 bar at 16k, as transcribed by subtext.edge.nugit.net";

/**
 * Public results. kind: "attention" (predictAttention) or "gemm" (predictGemm). `caveat` says how
 * far the configuration is known.
 */
const CASES = [
  { label: "FA3 fwd BF16 hdim 128, seqlen 16k (H100 SXM)", kind: "attention", gpu: "h100-sxm", config: fa3Shape(128, 16384), reported: 648,
    source: FA3_FIGURE.replace("D", "128"), caveat: "mask not stated in the transcription (taken as the non-causal panel); FA3's own block shape differs from the 128x128 used here", program: { example: "fa3_fwd", tile: fa3OwnTile(128), what: "FA3 forward program, FA3's own hdim-128 tile " + fa3OwnTile(128) } },
  { label: "FA3 fwd BF16 hdim 128, seqlen 16k (H100, pytorch/benchmark)", kind: "attention", gpu: "h100-sxm", config: fa3Shape(128, 16384), reported: 620.73,
    source: "pytorch/benchmark commit ff65cb6 ('Fix dimension order for FlashAttention-3'), flash_v3-tflops for (1, 16, 16384, 128)", caveat: "H100 variant (SXM or PCIe) not stated in the commit message; taken as SXM", program: { example: "fa3_fwd", tile: fa3OwnTile(128), what: "FA3 forward program, FA3's own hdim-128 tile " + fa3OwnTile(128) } },
  { label: "FA3 fwd BF16 hdim 64, seqlen 16k (H100 SXM)", kind: "attention", gpu: "h100-sxm", config: fa3Shape(64, 16384), reported: 497,
    source: FA3_FIGURE.replace("D", "64"), caveat: "as for hdim 128", program: { example: "fa3_fwd", tile: fa3OwnTile(64), what: "FA3 forward program, FA3's own hdim-64 tile " + fa3OwnTile(64) } },
  { label: "FA3 fwd BF16 hdim 256, seqlen 16k (H100 SXM)", kind: "attention", gpu: "h100-sxm", config: fa3Shape(256, 16384), reported: 642,
    source: FA3_FIGURE.replace("D", "256"), caveat: "as for hdim 128", program: { example: "fa3_fwd", tile: fa3OwnTile(256), what: "FA3 forward program, FA3's own hdim-256 tile " + fa3OwnTile(256) } },
  { label: "FA4 fwd BF16 'up to' (B200)", kind: "attention", gpu: "b200", config: fa3Shape(128, 16384), reported: 1605,
    source: "Together AI, 'FlashAttention-4' blog post: 'On B200 with BF16, it reaches up to 1605 TFLOPs/s (71% utilization)'", caveat: "configuration of the peak not stated in the stored excerpt; compared against hdim 128, seqlen 16k", program: { example: "sm100_fmha_fwd", tile: "256x128", what: "CUTLASS 77's SM100 FMHA forward program (FA4's own SM100 program does not run its tile loop yet), its driver's 256x128 tile" } },
  { label: "cuBLAS BF16 GEMM 4096^3 (H100), as 128x256x64, 4 stages", kind: "gemm", gpu: "h100-sxm", config: gemmShape(4096, 128, 256, 4), reported: 716,
    source: FAST_CU + "'N=4096 ... cuBLAS: 716 TFLOPs'", caveat: "cuBLAS's kernel choice (tile, stages, cluster) is not reported; 128x256x64 with 4 stages is an assumption. H100 variant not stated (taken as SXM)", program: { example: "sm90_gemm_cooperative", what: "CUTLASS 4.2 cooperative GEMM program" } },
  { label: "cuBLAS BF16 GEMM 4096^3 (H100), as 128x128x64, 4 stages", kind: "gemm", gpu: "h100-sxm", config: gemmShape(4096, 128, 128, 4), reported: 716,
    source: FAST_CU + "'N=4096 ... cuBLAS: 716 TFLOPs'", caveat: "as above, with the project's default tile", program: { example: "sm90_gemm_pingpong", what: "CUTLASS 4.2 pingpong GEMM program" } },
  { label: "cuBLAS BF16 GEMM 8192^3 (H100), as 128x256x64, 4 stages", kind: "gemm", gpu: "h100-sxm", config: gemmShape(8192, 128, 256, 4), reported: 795,
    source: FAST_CU + "'N=8192 ... cuBLAS: 795 TFLOPs'", caveat: "as for 4096^3", program: { example: "sm90_gemm_cooperative", what: "CUTLASS 4.2 cooperative GEMM program" } },
  { label: "fast.cu BF16 GEMM 4096^3 (H100), 128x256x64, 3 stages", kind: "gemm", gpu: "h100-sxm", config: gemmShape(4096, 128, 256, 3), reported: 763,
    source: FAST_CU + "'N=4096 Kernel: 763 TFLOPs'; examples/matmul/matmul_12.cuh sets BM = 128, BN = 256, BK = 64, QSIZE = 3", caveat: "the README does not say which kernel file gives 763 (taken as the last, matmul_12); its 2 consumer WGs, cluster multicast and Hilbert-curve schedule are not modelled", program: { example: "sm90_gemm_cooperative", what: "CUTLASS 4.2 cooperative GEMM program (fast.cu's own kernel is not parsed)" } }
];

/** Predicted TFLOPS of one case: {bound, serial?, bottleneck}. */
function predict(c) {
  const gpu = KP.gpuFrom(TABLE, c.gpu);
  if (c.kind === "gemm") {
    const p = KP.predictGemm(c.config, gpu);
    return { bound: p.tflops, serial: null, bottleneck: p.bottleneck };
  }
  const a = KP.predictAttention(c.config, gpu);
  return { bound: a.overlapped.tflops, serial: a.serial.tflops, bottleneck: a.bottleneck };
}

/** The program model in cycles on the case's example parse: {tflops, bottleneck, what} or null. */
function schedule(c) {
  if (!c.program) return null;
  const cfg = c.config, knobs = c.kind === "gemm" ?
    { gpu: c.gpu, problem: [cfg.problem.m, cfg.problem.n, cfg.problem.k].join("x"), tile: [cfg.tile.m, cfg.tile.n, cfg.tile.k].join("x"), stages: cfg.stages } :
    attentionKnobs(c, c.gpu, c.program.tile);
  const r = KS.simulate(example(c.program.example), Object.assign({ model: "program" }, knobs), { events: false });
  if (r.error || !r.tflops) return { tflops: null, bottleneck: r.error || (r.deadlock ? "deadlock" : "no time"), what: c.program.what };
  return { tflops: r.tflops, bottleneck: r.bottleneck, what: c.program.what };
}

function fmt(x, digits) { return x === null ? "-" : x.toFixed(digits); }

function main(argv) {
  const rows = CASES.map((c) => {
    const p = predict(c), sc = schedule(c);
    return {
      scheduled: sc ? sc.tflops : null, ratioScheduled: sc && sc.tflops ? sc.tflops / c.reported : null,
      scheduleBottleneck: sc ? sc.bottleneck : null, program: sc ? sc.what : null,
      label: c.label, reported: c.reported,
      predicted: p.bound, ratio: p.bound / c.reported,
      predictedSerial: p.serial, ratioSerial: p.serial === null ? null : p.serial / c.reported,
      bottleneck: p.bottleneck, source: c.source, caveat: c.caveat
    };
  });
  if (argv.indexOf("--json") >= 0) {
    process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
    return 0;
  }
  const lines = ["| configuration | reported TFLOPS | bound (overlapped) | ratio | bound (serial softmax) | ratio | bottleneck | schedule (program model) | ratio | its bottleneck |",
    "|---|---|---|---|---|---|---|---|---|---|"];
  rows.forEach((r) => {
    lines.push("| " + [r.label, fmt(r.reported, 1), fmt(r.predicted, 1), fmt(r.ratio, 2), fmt(r.predictedSerial, 1), fmt(r.ratioSerial, 2), r.bottleneck,
      fmt(r.scheduled, 1), fmt(r.ratioScheduled, 2), r.scheduleBottleneck || "-"].join(" | ") + " |");
  });
  lines.push("");
  rows.forEach((r, i) => lines.push((i + 1) + ". " + r.label + ": " + r.source + ". Caveat: " + r.caveat + "." + (r.program ? " Schedule: " + r.program + "." : "")));
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

process.exitCode = main(process.argv.slice(2));
