#!/usr/bin/env bash
# Session 15 device call 1: the NTT's first-pass table — device tests of the NTT and of the
# backend's budget, then the NTT benchmark beside sppark in two interleaved sittings (with the
# first pass building its twiddles as variant rows), then the 2^24 GPU phase.
set -u
cd "$(dirname "$0")/../../.."
tar -xJf build-carry/c1/bins.tar.xz
export LD_LIBRARY_PATH=$PWD/build-gpu-device/lib
B=build-gpu-device
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp $B/COMMIT $OUT/; cp build-peer/PEERS $OUT/
log tests
timeout 240 $B/gpu_ntt_test --gtest_filter='-Huge/*' > $OUT/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_ntt_test.log
timeout 200 $B/gpu_backend_test --gtest_filter='*PartitionEstimate*:*StreamsTheKey*:*EqualsTheCpuBackendsSumsExactly*:*FixedBaseH*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
tail -n 4 $OUT/gpu_ntt_test.log; tail -n 4 $OUT/gpu_backend_test.log
for sit in 1 2; do
  log sppark $sit
  timeout 150 build-peer/sppark_side_by_side --json $OUT/sppark_$sit.json > $OUT/sppark_$sit.log 2>&1
  log ours $sit
  timeout 200 $B/prooflab_gpu_bench --only ntt,h,variants --max-log 24 --json $OUT/ours_$sit.json > $OUT/ours_$sit.log 2>&1
  grep -E "ntt" $OUT/sppark_$sit.log | cut -c1-160
  grep -E "^(ntt|compute_h)" $OUT/ours_$sit.log | grep -E " NR|first-pass|compute_h" | cut -c1-200
done
G="gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --pin-uploads --fixed-base-h"
log gp24 check
timeout 150 $B/prooflab $G --check --out $OUT/gp24 > $OUT/gp24.log 2>&1
xz -T0 $OUT/gp24/cupti.csv 2>/dev/null
grep -E "median of|check|warm-up" $OUT/gp24.log
log gp24 again
timeout 150 $B/prooflab $G --no-cupti --out $OUT/gp24b > $OUT/gp24b.log 2>&1
grep -E "median of|check|warm-up" $OUT/gp24b.log
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
