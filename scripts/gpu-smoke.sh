#!/usr/bin/env bash
# The real-NVML check of issue 4, for a machine with an NVIDIA GPU: probe, snapshot, the static
# acceptance checks and 60 s of NVML sampling, each output kept under OUT (default ./gpu-smoke).
# On a fresh machine run `bash scripts/install-deps.sh` first.
# Run it from the repository root after `bash scripts/build.sh` (it builds if the binary is
# missing). Needs root for /dev/kmsg; everything else works as a user.
set -uo pipefail

out="${1:-${OUT:-gpu-smoke}}"
bin="${GPUPLAN_BIN:-build/gpuplan}"
mkdir -p "$out"
[ -x "$bin" ] || bash scripts/build.sh >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log" >&2; exit 2; }

run() {  # run NAME CMD…: stdout to NAME.out, stderr to NAME.err, exit status to NAME.rc
  local name="$1"; shift
  echo "== $name: $*" >&2
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
}

run nvidia-smi-q nvidia-smi -q
run topo nvidia-smi topo -m
run snapshot "$bin" snapshot "$out/snapshot.tar.gz"
run accept "$bin" accept --format json --evidence "$out/evidence"
run accept-offline "$bin" accept --root "$out/snapshot.tar.gz" --format json
run diagnose "$bin" diagnose --sample 60 --interval 1 --format json
tar -xzf "$out/snapshot.tar.gz" -C "$out" gpuplan/nvml.json 2>/dev/null
for f in snapshot accept accept-offline diagnose; do
  echo "--- $f (exit $(cat "$out/$f.rc"))"
  head -c 4000 "$out/$f.out"
  head -c 2000 "$out/$f.err"
done
