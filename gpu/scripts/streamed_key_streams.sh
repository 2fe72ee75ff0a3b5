#!/usr/bin/env bash
# How many CUDA streams a run uses with the key resident and with the key streamed from host
# memory (issue 16 item 4: the streamed-key path once made a stream per streamed MSM, 284 in
# one run; docs/gpu.md says it now keeps one side stream per lane). Two small CUDA batches
# (porep-like 2^20 x 2 partitions, 4 proofs, 2 in flight, gw = 2, CUPTI on): one with no
# VRAM limit (key resident), one with vram_limit = 500MiB (the 2^20 key, ~384 MiB of G1
# queries, plus a partition's ~250 MiB exceed it: streamed). Prints, per run, whether the
# key was streamed (the batch log says) and the distinct stream ids of cupti.csv's KERNEL and
# MEMCPY rows, and packs the run directories and logs into $OUT/streamed-key-runs.tar.xz. First,
# `prooflab gpu-phase` with the same limit says whether that budget streams the key (its "key:"
# line; the batch takes the same decision, CudaBackend::streams_key).
# Usage (device machine, repository root): BIN=build-gpu-min bash gpu/scripts/streamed_key_streams.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-build-gpu-min}
OUT=${OUT:-$PWD/device-out}
RUNS=/tmp/prooflab-streamed
mkdir -p "$OUT" "$RUNS" /tmp/prooflab-params
export LD_LIBRARY_PATH="$PWD/$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
count_streams() { awk -F, 'NR > 1 && ($1 == "KERNEL" || $1 == "MEMCPY") && $3 != "" {print $3}' "$1" | sort -u | wc -l; }
{
for arm in resident:0 streamed:500MiB; do
  name=${arm%%:*} limit=${arm##*:}
  "$BIN/prooflab" gpu-phase --constraints 1048576 --reps 2 --vram-limit "$limit" --out "$RUNS/gpu-phase-$name" \
    >"$RUNS/gpu-phase-$name.log" 2>&1
  echo "gpu-phase $name (vram_limit $limit): exit $?; $(grep '^key:' "$RUNS/gpu-phase-$name.log")"
  echo "  distinct streams: $(count_streams "$RUNS/gpu-phase-$name/cupti.csv")"
done
for arm in resident:0 streamed:500MiB; do
  name=${arm%%:*} limit=${arm##*:}
  set_limit=()
  [ "$limit" != 0 ] && set_limit=(--set "vram_limit=$limit")
  "$BIN/prooflab" batch --set backend=cuda --set circuit=porep-like --set constraints=1048576 \
    --set partitions=2 --set gpu_workers_per_device=2 --count 4 --concurrency 2 "${set_limit[@]}" \
    --out "$RUNS" --run-id "$name" --param-dir /tmp/prooflab-params --force >"$RUNS/batch-$name.log" 2>&1
  echo "batch $name: exit $?; $(tail -1 "$RUNS/$name/summary.json" >/dev/null 2>&1 && grep -o '"s_per_proof":[^,]*' "$RUNS/$name/summary.json")"
  echo "  distinct streams: $(count_streams "$RUNS/$name/cupti.csv")"
done
} 2>&1 | tee "$OUT/streamed-key-streams.txt"
tar -cJf "$OUT/streamed-key-runs.tar.xz" -C "$RUNS" --exclude=proofs .
