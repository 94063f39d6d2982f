// A kernel of the installed flash-attn-4 (flash_attn/cute/<name>) parsed at run time by the
// project's Python front end (parse_cutlass.parse_file), never a stored copy: {structure}, or
// {missing: why} when flash-attn-4 or a Python to parse with is not there. The venv's Python,
// else python3 on the PATH. Used by tests/js/program_units_bwd.test.js and bench/bench_predict_bwd.js.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const childProcess = require("node:child_process");

const ROOT = path.join(__dirname, "..", "..");

const PARSE = String.raw`
import importlib.util, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import parse_cutlass
spec = importlib.util.find_spec("flash_attn")
found = [Path(loc) / "cute" / sys.argv[2] for loc in (spec.submodule_search_locations or [])] if spec else []
found = [p for p in found if p.is_file()]
if not found:
    print(json.dumps({"missing": "flash-attn-4 is not installed (pip install --no-deps flash-attn-4)"}))
else:
    print(json.dumps({"structure": parse_cutlass.parse_file(found[0])}))
`;

function parseInstalled(name) {
  const venv = path.join(ROOT, ".venv", "bin", "python");
  const python = fs.existsSync(venv) ? venv : "python3";
  const r = childProcess.spawnSync(python, ["-c", PARSE, ROOT, name], { encoding: "utf8", maxBuffer: 1 << 28, timeout: 300000 });
  if (r.error || r.status !== 0) return { missing: "no Python to parse with (" + (r.error ? r.error.message : r.stderr.trim().split("\n").pop()) + ")" };
  return JSON.parse(r.stdout);
}

module.exports = { parseInstalled };
