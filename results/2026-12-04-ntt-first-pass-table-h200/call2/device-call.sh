#!/usr/bin/env bash
# Session 15 device call 2: the pipelined NTT pass kernel — its device tests, then the NTT
# benchmark (tuned plan, pipelined variants) beside sppark in two interleaved sittings.
set -u
cd "$(dirname "$0")/../../.."
tar -xJf build-carry/c2/bins.tar.xz
B=build-gpu-device
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp $B/COMMIT $OUT/; cp build-peer/PEERS $OUT/
log tests
timeout 200 $B/gpu_ntt_test --gtest_filter='*Pipelined*:*EveryTransformMatchesCpu*:*OtherPlans*:-Huge/*' > $OUT/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_ntt_test.log
tail -n 4 $OUT/gpu_ntt_test.log
for sit in 1 2; do
  log sppark $sit
  timeout 150 build-peer/sppark_side_by_side --json $OUT/sppark_$sit.json > $OUT/sppark_$sit.log 2>&1
  log ours $sit
  timeout 200 $B/prooflab_gpu_bench --only ntt,variants --max-log 24 --json $OUT/ours_$sit.json > $OUT/ours_$sit.log 2>&1
  grep -E "ntt NR 2\^24" $OUT/sppark_$sit.log | cut -c1-160
  grep -E "^ntt" $OUT/ours_$sit.log | grep -E "NR" | grep -E "B4( pipelined| first-pass-built)? 2\^2[024]" | cut -c1-120
done
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
