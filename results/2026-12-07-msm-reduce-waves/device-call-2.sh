#!/usr/bin/env bash
# Issue 24 item 3, device calls 2-5 (~2 min): the plan of the commit staged (see README).
# Correctness first (gpu_msm_test, gpu_g2_msm_test, gpu_backend_test whole; the bench's
# checks at 2^20 / 2^22; gpu-phase --check at 2^22), then sppark and our MSM rows in the same
# call, then the GPU phase at 2^24. Carry: build-carry (stage.sh, which also stages
# gpu_g2_msm_test) and build-peer.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/msm-waves.tar.xz
ln -sfn ../lib build-ab/gt/lib
export LD_LIBRARY_PATH=$PWD/build-ab/lib
B=build-ab/gt
log() { echo "== $* $(date -u +%T) t=${SECONDS}s"; }
cp $B/COMMIT $OUT/COMMIT
log tests
for t in msm g2_msm backend; do
  timeout 150 $B/gpu_${t}_test > /tmp/gpu_${t}_test.log 2>&1; echo "rc=$?" >> /tmp/gpu_${t}_test.log
done
{ tail -n 4 /tmp/gpu_*_test.log; grep -h -B3 -A12 "Failure" /tmp/gpu_*_test.log | head -n 120; } > $OUT/tests.log
grep -hE "^\[  PASSED|^\[  FAILED|rc=" /tmp/gpu_*_test.log
log sppark
timeout 90 build-peer/sppark_side_by_side --json /tmp/sppark.json > $OUT/sppark.log 2>&1
grep -E "^sppark msm" $OUT/sppark.log
log bench
timeout 200 $B/prooflab_gpu_bench --only msm --max-log 24 --json $OUT/bench.json > $OUT/bench.log 2>&1
grep -E "^msm" $OUT/bench.log | grep -E "2\^24" | cut -c1-110
OPTS="gpu-phase --circuit porep-like --pin-uploads --fixed-base-h --tails-beside-h --batch-add-tables quads --no-cupti"
log phase
timeout 90 $B/prooflab $OPTS --reps 1 --constraints 4194304 --check --out /tmp/c22 > $OUT/phase-c22.log 2>&1
timeout 60 $B/prooflab $OPTS --reps 5 --constraints 16777216 --out /tmp/p24 > $OUT/phase-p24.log 2>&1
grep -hE "check vs|median of" $OUT/phase-c22.log $OUT/phase-p24.log
log done
