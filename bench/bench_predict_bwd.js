// Predicted vs reported TFLOPS of attention backward (docs/performance.md section 4, "The
// backward"): the program model in cycles on FA4's SM90 backward (flash_attn/cute/flash_bwd_sm90.py
// of the installed flash-attn-4, parsed at run time by the project's Python front end) against
// the FA3 paper's backward figure. Nothing is fitted to the reported figures.
//
//   node bench/bench_predict_bwd.js        (needs the venv's Python with flash-attn-4 installed)
"use strict";

const path = require("node:path");

const ROOT = path.join(__dirname, "..");
const KS = require(path.join(ROOT, "schedule.js"));

const SOURCE = "figure 'Attention backward speed, head dim 128 (H100 80GB SXM5)' of Shah et al., FlashAttention-3 (arXiv 2407.08608), " +
  "FA3 bar, as transcribed by subtext.edge.nugit.net";
const CAVEAT = "FA3's measured kernel is its C++ Hopper backward, not FA4's CuTe DSL SM90 port modelled here (the same five GEMMs per m-block " +
  "and dQ accumulation); FA3's own backward tile is not checked; the mask is taken as non-causal";
/** The FA3 paper's shapes: batch x seqlen = 16k, heads x headdim = 2048 (16 heads at hdim 128). */
const CASES = [{ seqlen: 2048, reported: 501 }, { seqlen: 16384, reported: 561 }];

const { parseInstalled } = require(path.join(ROOT, "tests", "js", "installed_flash_attn.js"));

function main() {
  const got = parseInstalled("flash_bwd_sm90.py");
  if (got.missing) {
    process.stderr.write("bench_predict_bwd: cannot parse flash_bwd_sm90.py: " + got.missing + "\n");
    return 2;
  }
  const st = got.structure;
  const lines = ["| configuration | reported TFLOPS | schedule (program model) | ratio | its bottleneck | cycles |", "|---|---|---|---|---|---|"];
  CASES.forEach((c) => {
    const batch = 16384 / c.seqlen;
    const res = KS.simulate(st, { model: "program", gpu: "h100-sxm", batch: batch, heads: 16, seqlen: c.seqlen }, { events: false });
    if (res.error || !res.tflops) throw new Error("seqlen " + c.seqlen + ": " + (res.error || "no time"));
    lines.push("| FA3 bwd BF16 hdim 128, " + batch + " x 16 heads x " + c.seqlen + " (H100 SXM) | " + c.reported.toFixed(1) + " | " + res.tflops.toFixed(1) + " | " +
      (res.tflops / c.reported).toFixed(2) + " | " + res.bottleneck + " | " + res.time.cycles + " |");
  });
  lines.push("", "Source: " + SOURCE + ". Caveat: " + CAVEAT + ".");
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

process.exitCode = main();
