#!/usr/bin/env bash
# Session 17 device call 2: tails_beside_h (the batch additions and tail MSMs on the lane's
# side streams while H runs). Device tests of the build (the backend's phase cases, among them
# TailsBesideHGiveTheCpuBackendsSums and BG2OnTheDeviceCountsItsQueryAndRefusesAKeyThatWouldStream;
# the estimate cases), the GPU phase at 2^22 (off / on / off / on, CUPTI on the first pair) and
# 2^24 (off / on / on without overlap_batch_add), and --check of "on" at both sizes.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c2.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
B=build-ab/new/prooflab
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-ab/new/COMMIT build-ab/new/DIRTY $OUT/
log tests
timeout 240 build-ab/new/gpu_backend_test --gtest_filter='*CudaBackendPhase*:CudaBackend.*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_backend_test.log | head -20
BASE="--circuit porep-like --reps 5 --pin-uploads --fixed-base-h"
i=0
for v in off on off on; do
  i=$((i+1)); extra="--overlap-batch-add"; [ $v = on ] && extra="$extra --tails-beside-h"
  cup="--no-cupti"; [ $i -le 2 ] && cup=""
  log p22 $v $i; timeout 60 $B gpu-phase $BASE $extra $cup --constraints 4194304 --out $OUT/p22_${v}_$i > $OUT/p22_${v}_$i.log 2>&1
done
for v in off on onseq; do
  extra="--overlap-batch-add"; [ $v = on ] && extra="$extra --tails-beside-h"; [ $v = onseq ] && extra="--tails-beside-h"
  log p24 $v; timeout 90 $B gpu-phase $BASE $extra --no-cupti --constraints 16777216 --out $OUT/p24_$v > $OUT/p24_$v.log 2>&1
done
log check
timeout 60 $B gpu-phase $BASE --overlap-batch-add --tails-beside-h --reps 1 --constraints 4194304 --check --no-cupti --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 100 $B gpu-phase $BASE --overlap-batch-add --tails-beside-h --reps 1 --constraints 16777216 --check --no-cupti --out $OUT/c24 > $OUT/c24.log 2>&1
log summary
for f in $OUT/p2*.log $OUT/c2*.log; do echo "-- $f"; grep -E "median of|check vs|^  (batch_add|ntt_h|tail_msm) " $f; done
log done
cd $OUT && for d in p22_off_1 p22_on_2; do [ -f $d/cupti.csv ] && xz -9 $d/cupti.csv; done; tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
