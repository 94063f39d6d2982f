#!/usr/bin/env bash
# Make an nvcc available to tests/test_compiled_truth.py (it compiles CUTLASS translation units to
# PTX; no GPU needed). Called by scripts/test.sh after the virtualenv exists; safe to run again.
#   1. nvcc already found (KLV_NVCC, PATH, /usr/local/cuda/bin, or the venv's wheel): nothing to do.
#   2. Else install NVIDIA's CUDA compiler wheels into .venv: nvidia-cuda-nvcc (which pulls in
#      nvidia-nvvm for cicc, nvidia-cuda-runtime and nvidia-cuda-crt for the CUDA headers) and
#      nvidia-cuda-cccl (libcu++ / cuda/std, which CUTLASS includes). They unpack under
#      site-packages/nvidia/cu13/, where tests/compiled/ptx_cache.py finds bin/nvcc. CUDA 13 is
#      the first major with sm_100a and what the docs' figures were measured with.
#   3. nvcc runs the host compiler to preprocess: install g++ with apt-get when missing (as root).
# A failed install is reported on stderr and does not stop the test run: the compiled-truth tests
# then skip with the reason, or fail under CI unless KLV_NO_NVCC=1 (docs/compiled-truth.md).
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

found() { "$PY" -c 'import sys; sys.path.insert(0, "tests/compiled"); import ptx_cache; sys.exit(ptx_cache.find_nvcc() is None)'; }

if ! found; then
  echo "install_nvcc.sh: no nvcc; installing nvidia-cuda-nvcc 13 and nvidia-cuda-cccl into .venv" >&2
  "$PY" -m pip install -q --disable-pip-version-check 'nvidia-cuda-nvcc>=13,<14' 'nvidia-cuda-cccl>=13,<14' \
    || echo "install_nvcc.sh: pip could not install nvcc; the compiled-truth tests will skip (fail under CI)" >&2
fi
if found && ! command -v g++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "install_nvcc.sh: installing g++ (nvcc's host compiler) with apt-get" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null; } \
      || echo "install_nvcc.sh: apt-get could not install g++" >&2
  else
    echo "install_nvcc.sh: nvcc needs g++; install it with: sudo apt-get install g++" >&2
  fi
fi
exit 0
