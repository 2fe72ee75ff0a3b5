#!/usr/bin/env bash
# Runs experiment matrices on the device machine with carried binaries, each under a time
# guard, and packs each experiment directory into one archive under $OUT (the device tool
# returns at most 8 files, 16 MiB each, 2 folders deep: run directories do not come back
# as they are). A matrix that runs out of its guard is killed (SIGTERM: the runs it wrote are
# kept, the last one marked interrupted) and packed all the same; `prooflab matrix` on the
# same directory resumes it later.
#
# Usage (repository root on the device machine):
#   BIN=build-gpu-min bash gpu/scripts/device_matrices.sh EXP.toml[:SECONDS] ...
# BIN holds prooflab and lib/ (toml++ and libpython: LD_LIBRARY_PATH), e.g. a copy of
# build-gpu-device/ made by gpu/scripts/stage_device_bins.sh (prooflab and lib/ suffice).
# The parameters go to /tmp/prooflab-params, which outlives a call while the machine stays
# warm, so a second call of the same sizes skips their setup.
# MATRIX_ARGS go to every `prooflab matrix` (e.g. MATRIX_ARGS="--reps 1" for a first look);
# WORK (default /tmp/prooflab-matrices) is where the experiment directories are made.
# Writes $OUT/host.txt, $OUT/<experiment>.log and $OUT/<experiment>.tar.xz (proof bundles
# left out). Unpack here with: tar -xJf <experiment>.tar.xz -C results/<dir>/
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build-gpu-min}
OUT=${OUT:-$PWD/device-out}
PARAMS=/tmp/prooflab-params
WORK=${WORK:-/tmp/prooflab-matrices}  # another WORK runs the same experiment afresh (e.g. other binaries)
mkdir -p "$OUT" "$PARAMS" "$WORK"
export LD_LIBRARY_PATH="$PWD/$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cores: $(nproc)"; free -g | head -2
  echo "binaries: $(cat "$BIN/COMMIT" 2>/dev/null || echo unknown)"
} >>"$OUT/host.txt" 2>&1
for arg in "$@"; do
  exp=${arg%%:*}
  guard=600
  [ "$arg" != "$exp" ] && guard=${arg##*:}
  name=$(basename "$exp" .toml)
  start=$(date +%s)
  echo "== $name (guard ${guard}s) $(date -u +%T)" | tee -a "$OUT/host.txt"
  timeout --signal=TERM --kill-after=20 "$guard" \
    "$BIN/prooflab" matrix "$exp" --out "$WORK" --param-dir "$PARAMS" ${MATRIX_ARGS:-} >"$OUT/$name.log" 2>&1
  rc=$?
  echo "   exit $rc after $(( $(date +%s) - start ))s" | tee -a "$OUT/host.txt"
  tail -3 "$OUT/$name.log" | tee -a "$OUT/host.txt"
  tar -cJf "$OUT/$name.tar.xz" -C "$WORK" --exclude=proofs "$name"
  ls -la "$OUT/$name.tar.xz" | tee -a "$OUT/host.txt"
done
