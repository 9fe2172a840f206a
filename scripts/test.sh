#!/usr/bin/env bash
# The README's second command (and CI's): install what is needed, build warning-free, run every
# test, then run the tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

echo "== build (warnings are errors) and test"
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_WERROR=ON
./build/gpuplan catalog check
ctest --test-dir build --output-on-failure -j "$(nproc)"

echo "== build and test under ASan + UBSan"
bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DGPUPLAN_SANITIZE=ON -DGPUPLAN_WERROR=ON
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
