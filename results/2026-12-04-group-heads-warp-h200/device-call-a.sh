#!/usr/bin/env bash
# Session 16 device call 9: group_heads by a warp. Device tests of the new build (G1 and G2 MSM,
# the backend's phase cases), the MSM rows base / new / base / new, the GPU phase at 2^22 and
# 2^24 for base and new, and a --check of new at 2^22 and 2^24.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c7.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-ab/base/COMMIT $OUT/
log tests
timeout 120 build-ab/new/gpu_msm_test > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 120 build-ab/new/gpu_g2_msm_test > $OUT/gpu_g2_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_g2_msm_test.log
timeout 150 build-ab/new/gpu_backend_test --gtest_filter='*CudaBackendPhase*:*CudaEngine*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|rc=" $OUT/gpu_*_test.log | head -20
for v in base new base new; do
  i=$((${i:-0}+1)); log bench $v $i
  timeout 90 build-ab/$v/prooflab_gpu_bench --only msm --max-log 24 --json $OUT/bench_${v}_$i.json > $OUT/bench_${v}_$i.log 2>&1
done
OPTS="--circuit porep-like --reps 5 --pin-uploads --fixed-base-h --overlap-batch-add"
for v in base new; do
  log phase22 $v; timeout 60 build-ab/$v/prooflab gpu-phase $OPTS --constraints 4194304 --out $OUT/p22_$v > $OUT/p22_$v.log 2>&1
  log phase24 $v; timeout 80 build-ab/$v/prooflab gpu-phase $OPTS --constraints 16777216 --no-cupti --out $OUT/p24_$v > $OUT/p24_$v.log 2>&1
done
log check; timeout 60 build-ab/new/prooflab gpu-phase $OPTS --reps 1 --constraints 4194304 --check --no-cupti --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 90 build-ab/new/prooflab gpu-phase $OPTS --reps 1 --constraints 16777216 --check --out $OUT/c24 > $OUT/c24.log 2>&1
log summary
for f in $OUT/bench_*.log; do echo "-- $f"; grep -E "^msm " $f | cut -c1-100; done
for f in $OUT/p2*.log $OUT/c2*.log; do echo "-- $f"; grep -E "median of|check vs" $f; grep -E "group_heads" $f | cut -c1-90; done
log done
cd $OUT && for d in p22_base p22_new c24; do [ -f $d/cupti.csv ] && xz -9 $d/cupti.csv; done; tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
