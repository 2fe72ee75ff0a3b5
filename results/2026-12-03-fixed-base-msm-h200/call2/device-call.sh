#!/usr/bin/env bash
# Session 14 device call 2 (after the window-sum rounds and the batched table inversion): the fixed-base MSM mode (gpu/msm/fixed_base.hpp) — its device
# tests, the MSM benchmark beside sppark, and the 2^24 GPU phase with and without
# --fixed-base-h (both --pin-uploads), interleaved.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c5/bins.tar.xz
export LD_LIBRARY_PATH=$PWD/build-gpu-device/lib
B=build-gpu-device
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp $B/COMMIT $OUT/
log tests
timeout 150 $B/gpu_msm_test --gtest_filter='GpuMsm.FixedBase*:GpuMsm.RandomInputsEverySizeClass' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 200 $B/gpu_backend_test --gtest_filter='*FixedBase*:*EqualsTheCpuBackendsSumsExactly*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
tail -n 3 $OUT/gpu_msm_test.log; tail -n 3 $OUT/gpu_backend_test.log
log sppark
timeout 120 build-peer/sppark_side_by_side --json $OUT/sppark.json > $OUT/bench.log 2>&1
log bench
timeout 200 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/ours.json >> $OUT/bench.log 2>&1
grep -E "^msm|^sppark msm" $OUT/bench.log | cut -c1-200
G="gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --pin-uploads"
for v in fb plain fb2 plain2; do
  log gp24 $v
  case $v in
    fb) timeout 150 $B/prooflab $G --fixed-base-h --check --out $OUT/gp24-$v ;;
    plain) timeout 150 $B/prooflab $G --check --out $OUT/gp24-$v ;;
    fb2) timeout 150 $B/prooflab $G --fixed-base-h --no-cupti --out $OUT/gp24-$v ;;
    plain2) timeout 150 $B/prooflab $G --no-cupti --out $OUT/gp24-$v ;;
  esac > $OUT/gp24-$v.log 2>&1
  xz -T0 $OUT/gp24-$v/cupti.csv 2>/dev/null
  grep -E "median of|check|warm-up" $OUT/gp24-$v.log
done
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
