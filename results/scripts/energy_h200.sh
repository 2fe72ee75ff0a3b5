#!/usr/bin/env bash
# Energy per proof on the lent H200 (issue 26): two CUDA batches of porep-like 2^20 x 4
# partitions, 16 proofs at concurrency 1 and 4, with every counter source (gpu_energy: NVML's
# total energy counter; host_energy: the perf power PMU), after one short warm-up batch that
# also generates the parameters. Builds nothing: it runs the carried prooflab of
# build-gpu-device/ (bash gpu/scripts/stage_device_bins.sh on the development machine).
# Writes into ${OUT:-./energy-out}: host.txt (what the host exposes), one log per batch (its
# Batch Summary ends with the energy line) and energy-runs.tar.gz (the two run directories).
# Usage (device machine, repository root): bash results/scripts/energy_h200.sh [BIN_DIR]
# Then here: tar -xzf energy-runs.tar.gz -C results/<date>-energy-h200/ and
#   .venv/bin/python -m prooflab_analysis report results/<date>-energy-h200/energy-c16-j4
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build-gpu-device}
OUT=${OUT:-$PWD/energy-out}
RUNS=$(mktemp -d)
PARAMS=/tmp/prooflab-params
mkdir -p "$OUT" "$PARAMS"
export LD_LIBRARY_PATH="$PWD/$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

{
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,driver_version,power.draw,power.limit,clocks.sm,temperature.gpu --format=csv
  echo "== /sys/bus/event_source/devices"; ls /sys/bus/event_source/devices
  echo "== power PMU"; for f in /sys/bus/event_source/devices/power/{type,cpumask} \
    /sys/bus/event_source/devices/power/events/*; do echo "$f: $(cat "$f" 2>&1)"; done
  echo "== kernel.perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"
  echo "== id: $(id)"; lscpu | head -15
} >"$OUT/host.txt" 2>&1

common=(--set backend=cuda --set circuit=porep-like --set constraints=1048576 --set partitions=4
        --counters all --out "$RUNS" --param-dir "$PARAMS")
timeout 300 "$BIN/prooflab" batch --count 2 --concurrency 2 "${common[@]}" --run-id warmup \
  >"$OUT/warmup.log" 2>&1
echo "warm-up exit $?" | tee -a "$OUT/warmup.log"
for j in 1 4; do
  log="$OUT/energy-c16-j$j.log"
  timeout 240 "$BIN/prooflab" batch --count 16 --concurrency "$j" "${common[@]}" \
    --run-id "energy-c16-j$j" >"$log" 2>&1
  echo "exit $?" >>"$log"
done
nvidia-smi --query-gpu=power.draw,clocks.sm --format=csv >>"$OUT/host.txt" 2>&1
tar -czf "$OUT/energy-runs.tar.gz" -C "$RUNS" $(cd "$RUNS" && ls -d energy-c16-j* 2>/dev/null)
for j in 1 4; do
  echo "== c=16 j=$j"; grep -E "^(throughput|energy):|^exit" "$OUT/energy-c16-j$j.log"
  sed -n '/"gpu_energy": {/,/}/p; /"host_energy": {/,/}/p' "$RUNS/energy-c16-j$j/run.json" 2>/dev/null
done
