#!/usr/bin/env bash
# The README's first command: install what is needed, build the gpuplan binary (only it: the tests,
# benchmarks, man page and completions wait for scripts/test.sh or a full build), and price the
# 8-GPU example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_ASAN_TWIN=OFF >/dev/null
cmake --build build -j "$(nproc)" --target gpuplan
./build/gpuplan quote examples/a100-8gpu-training.yaml "$@"
