#!/usr/bin/env bash
# Nsight Compute on the NTT pass kernels, on the device machine: the three passes of one 2^K
# forward transform, for the default plan and for the first `variants` row (the plan without
# the pass changes), so that pipe use, issue slots and stall reasons of the two can be
# compared; then the Fr multiplication ceiling kernel (fr_mul). Needs an ncu that reads the counters
# (device/H200.md: Firecracker machines). Clocks are left alone (--clock-control none).
#   [BIN=build-gpu-device] [K=24] OUT=dir bash gpu/scripts/ntt_profile.sh
# Writes $OUT/ncu_<plan>.txt (the sections) and $OUT/ncu_<plan>_raw.csv (every metric).
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-build-gpu-device}
K=${K:-24}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[ -n "$NCU" ] || { echo "ntt_profile: no ncu on this machine" >&2; exit 1; }
BENCH=$BIN/prooflab_gpu_bench
[ -x "$BENCH" ] || BENCH=$BIN/bench/prooflab_gpu_bench
rc=0
for plan in ntt variants fr_mul; do
  # The first three ntt_pass launches of the group are the first row's warm-up transform.
  kernel=ntt_pass count=3 group=$plan
  [ "$plan" = fr_mul ] && kernel=fr_mul count=1 group=ntt
  "$NCU" --clock-control none --target-processes all -k "regex:$kernel" --launch-count $count \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section Occupancy --section LaunchStats \
    --section MemoryWorkloadAnalysis -o "/tmp/ncu_$plan" -f \
    "$BENCH" --only "$group" --ntt-log "$K" --reps 7 --json "/tmp/ncu_$plan.json" >"$OUT/ncu_${plan}_run.txt" 2>&1 || rc=1
  "$NCU" --import "/tmp/ncu_$plan.ncu-rep" --page details >"$OUT/ncu_$plan.txt" 2>&1 || rc=1
  "$NCU" --import "/tmp/ncu_$plan.ncu-rep" --page raw --csv >"$OUT/ncu_${plan}_raw.csv" 2>&1 || rc=1
done
exit $rc
