#!/usr/bin/env bash
# On a machine with NVIDIA GPUs and a driver: the CPU time and peak memory of `gpuplan watch`
# against `nvidia-smi dmon -d 5` over the same minutes, both reading the real NVML every 5 s.
# dmon only prints its readings; watch also keeps the archive (committed every 30 s) and serves
# nothing here (--listen off). Both run at the same time, so they see the same GPUs and load.
#
# Usage: bench/watch_vs_dmon.sh [MINUTES]   (default 10)
# Environment: GPUPLAN_BENCH_DIR (scratch, default /tmp/gpuplan-watch-dmon), GPUPLAN_BENCH_BUILD
# (build directory, default build-bench; gpuplan is built there in Release when missing).
# Prints per-process user + system CPU seconds, CPU milliseconds per 5-second round, peak RSS,
# and `ratio_cpu_vs_dmon: X` (dmon's CPU ÷ watch's).
set -euo pipefail

minutes=${1:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GPUPLAN_BENCH_BUILD:-$root/build-bench}
dir=${GPUPLAN_BENCH_DIR:-/tmp/gpuplan-watch-dmon}
die() { echo "watch_vs_dmon: $*" >&2; exit 1; }

command -v nvidia-smi >/dev/null || die "nvidia-smi not found: this comparison needs a GPU and its driver"
nvidia-smi -L >/dev/null || die "nvidia-smi -L failed: no GPU or no driver loaded"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
if [ ! -x "$build/gpuplan" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$build" --target gpuplan
fi

rm -rf "$dir" && mkdir -p "$dir"
rounds=$((minutes * 60 / 5))
/usr/bin/time -f '%U %S %M' -o "$dir/watch.time" "$build/gpuplan" watch --interval 5s --commit-every 30s \
  --archive "$dir/archive.db" --listen off --kernel-log off --log "$dir/watch.log" --duration "${minutes}m" &
watch_pid=$!
/usr/bin/time -f '%U %S %M' -o "$dir/dmon.time" nvidia-smi dmon -d 5 -c "$rounds" >"$dir/dmon.out" &
dmon_pid=$!
wait "$watch_pid" || die "gpuplan watch failed (see $dir/watch.log)"
wait "$dmon_pid" || die "nvidia-smi dmon failed"

read -r wu ws wm <"$dir/watch.time"
read -r du ds dm <"$dir/dmon.time"
awk -v wu="$wu" -v ws="$ws" -v wm="$wm" -v du="$du" -v ds="$ds" -v dm="$dm" -v n="$rounds" 'BEGIN {
  w = wu + ws; d = du + ds
  printf "rounds: %d (5 s apart)\n", n
  printf "watch_cpu_s: %.2f (user %.2f, sys %.2f)\nwatch_cpu_ms_per_round: %.3f\nwatch_peak_rss_mb: %.1f\n", w, wu, ws, w / n * 1000, wm / 1024
  printf "dmon_cpu_s: %.2f (user %.2f, sys %.2f)\ndmon_cpu_ms_per_round: %.3f\ndmon_peak_rss_mb: %.1f\n", d, du, ds, d / n * 1000, dm / 1024
  printf "ratio_cpu_vs_dmon: %.2f\n", (w > 0 ? d / w : 0)
}'
