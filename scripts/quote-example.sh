#!/usr/bin/env bash
# The README's first command: install what is needed, build, and price the 8-GPU example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_ASAN_TWIN=OFF
./build/gpuplan quote examples/a100-8gpu-training.yaml "$@"
