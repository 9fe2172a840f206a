#!/usr/bin/env bash
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Builds every libFuzzer target (fuzz/README.md) with clang in build-fuzz and runs each (or the
# TARGETs named, e.g. "kernel_log") for SECONDS (60 by default) over a scratch copy of its
# corpus: the checked-in fuzz/corpus/ is never written. Prints each target's runs, coverage and
# result; exits 1 when any target crashed, hung, or ran out of memory, naming the reproducer
# (replay it with: build-fuzz/fuzz/fuzz_<name> REPRODUCER). FUZZ_JOBS=N runs N targets at once.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --fuzz
seconds=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-1}
build=build-fuzz

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DGPUPLAN_FUZZ=ON -DBUILD_TESTING=OFF \
  "${launcher[@]}" >/dev/null
cmake --build "$build" --target fuzz_all

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cpp; do
    n=$(basename "$f" _fuzz.cpp)
    targets+=("$n")
  done
fi

runs_dir="$build/runs"
rm -rf "$runs_dir"
mkdir -p "$runs_dir"

# One target: its scratch corpus, artifacts and log under build-fuzz/runs/<name>/.
run_one() {
  local name=$1 dir="$runs_dir/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -R "fuzz/corpus/$name/." "$dir/corpus/"
  set +e
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$dir/log" 2>&1
  echo $? >"$dir/rc"
  set -e
}

running=0
for name in "${targets[@]}"; do
  if [ ! -d "fuzz/corpus/$name" ]; then
    echo "fuzz.sh: no target $name (fuzz/corpus/$name)" >&2
    exit 2
  fi
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

failed=0
printf '%-16s %10s %8s  %s\n' target runs coverage result
for name in "${targets[@]}"; do
  dir="$runs_dir/$name"
  rc=$(cat "$dir/rc")
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/log" | tail -1 | awk '{print $2}')
  cov=$(grep -oE 'cov: [0-9]+' "$dir/log" | tail -1 | awk '{print $2}')
  result=ok
  if [ "$rc" != 0 ]; then
    failed=1
    artifact=$(find "$dir/artifacts" -type f | head -1)
    result="FAILED (exit $rc): ${artifact:-no reproducer written}; log $dir/log"
  fi
  printf '%-16s %10s %8s  %s\n' "$name" "${runs:-?}" "${cov:-?}" "$result"
done
exit "$failed"
