#!/usr/bin/env bash
# Re-measures results/2026-11-30-phase11-h200-small with exact pool sizes (issue 16, item 1:
# the old binaries gave gpu_threads = N only N - 1 threads). Same experiment file, same
# sizes: porep-like 2^20 x 4 partitions, 8 proofs, 4 in flight, gw = 2, CUDA backend, 4
# interleaved repetitions per arm after one warm-up (~6-8 minutes on the lent H200 with 16
# cores, including the 2^20 parameter setup).
#
# Usage (repository root on the device machine, binaries staged by
# gpu/scripts/stage_device_bins.sh into build-gpu-device/):
#   bash gpu/scripts/phase11_small_rerun.sh [BIN_DIR]
# Writes $OUT/phase11-interventions-small-gpu/ (the experiment directory: index.csv,
# experiment.json, runs) and $OUT/matrix.log. Render the report on the dev VM:
#   .venv/bin/python -m prooflab_analysis report <that directory>
set -eu
cd "$(dirname "$0")/../.."
BIN=${1:-build-gpu-device}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi -L | tee "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"
"$BIN/prooflab" matrix experiments/phase11-interventions-small-gpu.toml --out "$OUT" \
  --param-dir "$OUT/params" 2>&1 | tee "$OUT/matrix.log"
# The parameters are 100+ MB and regenerated from their seed: do not carry them back.
rm -rf "$OUT/params"
