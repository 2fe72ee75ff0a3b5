#!/usr/bin/env bash
# Session 16 device call 11: the fix-up's partial groups by prefix and suffix sums. Device tests
# of the new build, then the GPU phase at 2^22 (CUPTI) and 2^24 (no CUPTI) for base (1932841) and
# new, then --check of new at both sizes.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c8.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
log tests
timeout 60 build-ab/new/gpu_msm_test > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 60 build-ab/new/gpu_g2_msm_test > $OUT/gpu_g2_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_g2_msm_test.log
timeout 90 build-ab/new/gpu_backend_test --gtest_filter='*CudaBackendPhase*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|rc=" $OUT/gpu_*_test.log | head -20
OPTS="--circuit porep-like --pin-uploads --fixed-base-h --overlap-batch-add"
for v in base new; do
  log p22 $v; timeout 40 build-ab/$v/prooflab gpu-phase $OPTS --reps 5 --constraints 4194304 --out $OUT/p22_$v > $OUT/p22_$v.log 2>&1
  log p24 $v; timeout 60 build-ab/$v/prooflab gpu-phase $OPTS --reps 5 --no-cupti --constraints 16777216 --out $OUT/p24_$v > $OUT/p24_$v.log 2>&1
done
log check
timeout 40 build-ab/new/prooflab gpu-phase $OPTS --reps 1 --no-cupti --check --constraints 4194304 --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 70 build-ab/new/prooflab gpu-phase $OPTS --reps 1 --check --constraints 16777216 --out $OUT/c24 > $OUT/c24.log 2>&1
log summary
for f in $OUT/p2*.log $OUT/c2*.log; do echo "-- $f"; grep -E "median of|check vs" $f; grep -E " (fixup|group_heads)_kernel" $f | cut -c1-90; done
log done
cd $OUT && for d in p22_base p22_new c24; do [ -f $d/cupti.csv ] && xz -9 $d/cupti.csv; done; tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
