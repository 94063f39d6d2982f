#!/usr/bin/env bash
# Install the test dependencies and run every test: Node (schedule.js), then Python (parser,
# pages, headless Chromium). This is the README's test command and what .ci/run runs.
#   bash scripts/test.sh              # everything
#   bash scripts/test.sh -k parser    # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

# 1. System packages: Debian's Chromium for the browser tests, Node.js (and npm) for the simulator
#    tests, GTKWave for vcd2fst (a real reader of the VCD export).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v vcd2fst >/dev/null 2>&1 || missing+=(gtkwave)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing ${missing[*]} with apt-get" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "test.sh: missing ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
fi

# 2. A local virtualenv with the project and its test extra (pytest, jsonschema, playwright,
#    hypothesis, pywellen for reading the VCD export, nvidia-cutlass==4.2.0.0 for the real
#    CUTLASS headers).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
#    FlashAttention-4's CuTe DSL kernels for the DSL front end's tests (test only, never a runtime
#    dependency): --no-deps, its torch / nvidia-cutlass-dsl requirements are never imported.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps 'flash-attn-4==4.0.0b36'
bash scripts/install_nvcc.sh   # nvcc (PyPI wheels when missing) for tests/test_compiled_truth.py

# 3. npm test dependencies (package-lock.json): speedscope, whose built page reads the Chrome
#    trace export in the browser tests.
npm ci --no-audit --no-fund --loglevel=error

# 4. The simulator and the exports under Node's built-in test runner.
node --test tests/js/

# 5. Everything else (parser on real headers, pages, headless Chromium, examples current).
#    -rs: every skipped test prints its reason (how to run it), e.g. the FlashAttention-3 tests.
.venv/bin/python -m pytest -q -rs "$@"
