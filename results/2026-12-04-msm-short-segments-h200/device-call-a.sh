#!/usr/bin/env bash
# Session 16 device call 5: the reduction's least segment 32 -> 4 (gpu/msm/plan.cpp). Device
# tests of the new build, then prooflab_gpu_bench --only msm (base, new, base, new), then the
# 2^22 and 2^24 GPU phases (porep-like, every option on) for base and new.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c5.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-ab/base/COMMIT $OUT/
log tests
timeout 200 build-ab/seg4/gpu_msm_test > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 200 build-ab/seg4/gpu_backend_test --gtest_filter='*CudaBackendPhase*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|rc=" $OUT/gpu_msm_test.log $OUT/gpu_backend_test.log | head
for v in base seg4 base seg4; do
  i=$((${i:-0}+1)); log bench $v $i
  timeout 120 build-ab/$v/prooflab_gpu_bench --only msm --max-log 24 --json $OUT/bench_${v}_$i.json > $OUT/bench_${v}_$i.log 2>&1
done
OPTS="--circuit porep-like --reps 5 --pin-uploads --fixed-base-h --overlap-batch-add --no-cupti"
for v in base seg4; do
  log phase22 $v; timeout 60 build-ab/$v/prooflab gpu-phase $OPTS --constraints 4194304 --out $OUT/p22_$v > $OUT/p22_$v.log 2>&1
  log phase24 $v; timeout 80 build-ab/$v/prooflab gpu-phase $OPTS --constraints 16777216 --out $OUT/p24_$v > $OUT/p24_$v.log 2>&1
done
log check22; timeout 60 build-ab/seg4/prooflab gpu-phase --circuit porep-like --reps 1 --pin-uploads --fixed-base-h --overlap-batch-add --constraints 4194304 --check --out $OUT/p22_check > $OUT/p22_check.log 2>&1
log summary
for f in $OUT/bench_*.log; do echo "-- $f"; grep -E "^msm " $f | cut -c1-150; done
for f in $OUT/p2*.log; do echo "-- $f"; grep -E "median of|^  (batch_add|ntt_h|tail_msm)|check vs" $f; done
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
