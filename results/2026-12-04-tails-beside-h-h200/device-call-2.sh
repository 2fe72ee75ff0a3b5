#!/usr/bin/env bash
# Session 17 device call 3: tails_beside_h with H's streams at the device's greatest stream
# priority (a temporary build, "prio": the lane's stream and the HComputer's side streams made
# with cudaStreamCreateWithPriority; not committed) against the committed behaviour ("new",
# default priorities), at 2^24 and 2^22, with and without overlap_batch_add; then --check of
# the committed build's tails_beside_h at 2^22 and 2^24 (call 1's checks did not start:
# --reps given twice), after the device tests of 9652318 / 254a32b's phase cases. build-ab/new:
# prooflab, gpu_backend_test and prooflab_gpu_bench of HEAD (the bench's msm_variant rows at
# 2^17 / 2^19 with min_segment 0 / 8 / 16); build-ab/prio: prooflab with prio.diff applied.
# Run in session 19 (2026-12-06) after results/2026-12-05-msm-pieces-fused-products-h200's call,
# from the same archive: build-ab/fused (HEAD 041c6f9) is "new" here, build-ab/prio beside it.
set -u
cd "$(dirname "$0")/../.."
[ -x build-ab/prio/prooflab ] || tar -xJf build-carry/msm-ab.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
log tests
timeout 200 build-ab/fused/gpu_backend_test --gtest_filter='*TailsBesideH*:*OverlapBatchAdd*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_backend_test.log
OPTS="--circuit porep-like --pin-uploads --fixed-base-h --no-cupti"
for b in fused prio; do
  for v in on onseq; do
    extra="--tails-beside-h"; [ $v = on ] && extra="$extra --overlap-batch-add"
    log p24 $b $v; timeout 90 build-ab/$b/prooflab gpu-phase $OPTS $extra --reps 5 --constraints 16777216 --out $OUT/p24_${b}_$v > $OUT/p24_${b}_$v.log 2>&1
    log p22 $b $v; timeout 60 build-ab/$b/prooflab gpu-phase $OPTS $extra --reps 7 --constraints 4194304 --out $OUT/p22_${b}_$v > $OUT/p22_${b}_$v.log 2>&1
  done
done
log bench msm
timeout 150 build-ab/fused/prooflab_gpu_bench --only msm --max-log 20 --json $OUT/bench_msm.json > $OUT/bench_msm.log 2>&1
grep -E "^msm" $OUT/bench_msm.log | cut -c1-120
log check
timeout 60 build-ab/fused/prooflab gpu-phase $OPTS --overlap-batch-add --tails-beside-h --reps 1 --constraints 4194304 --check --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 120 build-ab/fused/prooflab gpu-phase $OPTS --overlap-batch-add --tails-beside-h --reps 1 --constraints 16777216 --check --out $OUT/c24 > $OUT/c24.log 2>&1
log summary
for f in $OUT/p2*.log $OUT/c2*.log; do echo "-- $f"; grep -E "median of|check vs|^  (batch_add|ntt_h|tail_msm) " $f; done
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
