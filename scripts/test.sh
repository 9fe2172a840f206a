#!/usr/bin/env bash
# The README's second command (and CI's): install what is needed, build warning-free, and run
# every test twice: against the Release build, and against the same code instrumented with
# AddressSanitizer + UndefinedBehaviorSanitizer (Debug). One tree builds both (GPUPLAN_ASAN_TWIN):
# the test objects, compiled without either, are compiled once and linked into both test
# executables, and one ctest run keeps both cores busy to the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

echo "== build (warnings are errors), plain and under ASan + UBSan"
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_WERROR=ON -DGPUPLAN_ASAN_TWIN=ON
./build/gpuplan catalog check

echo "== test, plain and under ASan + UBSan (asan.*)"
# The options reach only the instrumented processes: the plain ones have no sanitizer runtime.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build --output-on-failure -j "$(nproc)"
