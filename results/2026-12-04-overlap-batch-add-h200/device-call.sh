#!/usr/bin/env bash
# Session 16 device call 2: overlap_batch_add. The backend's device tests (the new
# OverlapBatchAddGivesTheCpuBackendsSums among them), then the 2^24 GPU phase with the knob off
# and on, each checked against the CPU backend once with CUPTI and timed once more without it.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c2.tar.xz
B=build-ab
export LD_LIBRARY_PATH=$PWD/$B/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp $B/COMMIT $B/DIRTY $OUT/
log tests
timeout 300 $B/gpu_backend_test --gtest_filter='*CudaBackendPhase*:*PartitionEstimate*:*TailsRunAtOnce*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED  \]|rc=" $OUT/gpu_backend_test.log | head -20
GP="$B/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --pin-uploads --fixed-base-h"
log off-check; timeout 150 $GP --check --out $OUT/off > $OUT/off.log 2>&1; echo "rc=$?" >> $OUT/off.log
log on-check;  timeout 150 $GP --check --overlap-batch-add --out $OUT/on > $OUT/on.log 2>&1; echo "rc=$?" >> $OUT/on.log
log on-2;      timeout 120 $GP --no-cupti --overlap-batch-add --out $OUT/on2 > $OUT/on2.log 2>&1; echo "rc=$?" >> $OUT/on2.log
log off-2;     timeout 120 $GP --no-cupti --out $OUT/off2 > $OUT/off2.log 2>&1; echo "rc=$?" >> $OUT/off2.log
log summary
for r in off on on2 off2; do echo "-- $r"; grep -E "rep [1-5]:|median of|check vs|^  (batch_add|ntt_h|tail_msm)|rc=" $OUT/$r.log; done
log done
cd $OUT && for d in off on on2 off2; do [ -f $d/cupti.csv ] && xz -9 $d/cupti.csv; done; tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
