// A digest of the program model's full results (simulate(..., {model: "program"}), JSON of every
// field) on seeded knob settings of each bundled example and of the SM90 GEMM and FA4 parses (made
// at run time, as bench_interpret.js does): run it before and after an interpreter change, the
// printed digests must be identical. Not a test (it asserts nothing by itself).
//   node bench/digest_interpret.js [--runs N]
"use strict";
const path = require("path"), fs = require("fs"), crypto = require("crypto");
const { execFileSync } = require("child_process");
const root = path.join(__dirname, "..");
const S = require(path.join(root, "schedule.js"));
const { mulberry32, randInt } = require(path.join(root, "tests", "js", "prng.js"));

/** The parses the examples do not hold: SM90 pingpong and cooperative, FA4's forwards (when installed). */
function parsed() {
  const py = process.env.PYTHON || path.join(root, ".venv", "bin", "python");
  const code = "import json, importlib.util, parse_cutlass as pc\nfrom pathlib import Path\nout = {}\n" +
    "r = next(r for r in pc.cutlass_roots() if (r / 'include').is_dir())\ng = r / 'include/cutlass/gemm'\n" +
    "c = g / 'collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp'\n" +
    "for n in ('pingpong', 'cooperative'): out['sm90_' + n + '_parsed'] = pc.parse_header(c, g / ('kernel/sm90_gemm_tma_warpspecialized_' + n + '.hpp'))\n" +
    "spec = importlib.util.find_spec('flash_attn')\n" +
    "for loc in (list(spec.submodule_search_locations or []) if spec else []):\n" +
    "    cute = Path(loc) / 'cute'\n" +
    "    for f in ('flash_fwd_sm100.py', 'flash_fwd_sm90.py'):\n" +
    "        if (cute / f).is_file(): out['fa4_' + f[10:-3] + '_parsed'] = pc.parse_file(cute / f)\n" +
    "print(json.dumps(out))";
  return JSON.parse(execFileSync(py, ["-c", code], { cwd: root, maxBuffer: 1 << 28 }).toString());
}

const runs = Number((process.argv.indexOf("--runs") >= 0 && process.argv[process.argv.indexOf("--runs") + 1]) || 50);
const structures = {};
fs.readdirSync(path.join(root, "examples")).filter((f) => f.endsWith(".json")).sort().forEach((f) => {
  structures[f] = JSON.parse(fs.readFileSync(path.join(root, "examples", f), "utf8"));
});
Object.assign(structures, parsed());
// Each knob uniform in [lo, hi]; every seventh setting has 2 stages, every 25th many k-tiles / KV blocks.
const RANGES = { stages: [1, 6], outputTiles: [1, 6], kTiles: [1, 12], kvBlocks: [1, 10], tmaLatency: [0, 9],
  wgmmaLatency: [0, 7], epilogueLatency: [0, 9], kPipeMmas: [0, 3], accStages: [1, 3], ummaLatency: [0, 7],
  tmemLoadLatency: [0, 5], storeLatency: [0, 6], softmaxLatency: [0, 8], mathLatency: [0, 5] };
const all = crypto.createHash("sha256");
Object.keys(structures).forEach((name) => {
  const rand = mulberry32(12345), h = crypto.createHash("sha256");
  for (let i = 0; i < runs; i++) {
    const knobs = { model: "program" };
    Object.keys(RANGES).forEach((k) => { knobs[k] = randInt(rand, RANGES[k][0], RANGES[k][1]); });
    if (i % 7 === 3) knobs.stages = 2;
    // Every 25th setting is long (the dry runs' settle tests, every 1,024 steps, then take part).
    if (i % 25 === 24) { knobs.kTiles = 1500 + i; knobs.kvBlocks = 1200 + i; }
    h.update(JSON.stringify(S.simulate(structures[name], knobs, i % 2 ? { events: false } : undefined)));
  }
  const d = h.digest("hex").slice(0, 16);
  all.update(d);
  console.log(name.padEnd(28), d);
});
console.log("all".padEnd(28), all.digest("hex").slice(0, 16));
