#!/usr/bin/env bash
# CPU-side measurements on a many-core host (the lent H200's 16-core Xeon), from binaries
# built on the development machine and carried in $CARRY (default build-devcarry/, made by
# `bash results/scripts/stage_host_bins.sh`):
#   1. prove-stage scaling of the porep-like circuit, 2^12..2^20 constraints (issue 3)
#   2. MSM and NTT benchmarks, single- and multi-threaded (issue 3)
#   3. recording cost: the same engine batch with the TIMELINE on and off (issue 4)
# Writes logs and JSON into ${OUT:-./out}/host.tar.gz (one file: the device tool returns few).
# Usage: bash results/scripts/host_cpu_measurements.sh
set -uo pipefail
# shellcheck source=results/scripts/host_env.sh
source "$(dirname "$0")/host_env.sh"
lscpu | head -20 > "$OUT/host_lscpu.txt"

# 1. prove scaling: one partition per size after setup; prints per-stage times.
for log in 12 14 16 18 20; do
  n=$((1 << log))
  echo "== porep-like 2^$log" >> "$OUT/prove_scaling.log"
  "$CARRY/prooflab" prove --circuit porep-like --constraints $n --partitions 2 \
    --out /tmp/prooflab-proof-$log >> "$OUT/prove_scaling.log" 2>&1 || echo "FAILED 2^$log" >> "$OUT/prove_scaling.log"
done

# 2. MSM / NTT benchmarks.
"$CARRY/prooflab_bench" --benchmark_filter='BM_(msm_g1|msm_g1_mt|ntt|ntt_mt|batch_add_g1|g1_add_mixed)' \
  --benchmark_min_time=0.2 --benchmark_out="$OUT/msm_ntt_bench.json" --benchmark_out_format=json \
  > "$OUT/msm_ntt_bench.txt" 2>&1

# 3. Recording cost, interleaved repetitions of on/off.
"$CARRY/prooflab_bench" --benchmark_filter='BM_(engine_batch|timeline_record)' --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true --benchmark_out="$OUT/recording_cost.json" \
  --benchmark_out_format=json > "$OUT/recording_cost.txt" 2>&1
tar -czf "$FINAL/host.tar.gz" -C "$OUT" .
tail -25 "$OUT/prove_scaling.log"; grep -E "BM_(engine|timeline)" "$OUT/recording_cost.txt" | grep -E "median|mean" 
echo "host measurements done"
