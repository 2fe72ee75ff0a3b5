#!/usr/bin/env bash
# Session 16 device call 1: Fr's reduction products written as wide products (IMAD.WIDE.U32 +
# IADD3.X) instead of mad.lo.cc/madc.hi.cc pairs that ptxas splits into IMAD.X + IMAD.HI.U32.X.
# Three prooflab_gpu_bench builds of the same tree (build-ab/base = 1d6cf9e, wy = the odd
# accumulator's products wide, wxy = both accumulators'), the device tests of wxy, and sppark,
# in two sittings with the builds' order reversed in the second.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/ab.tar.xz
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-peer/PEERS $OUT/
log tests
timeout 60 build-ab/wxy-tests/gpu_field_test > $OUT/gpu_field_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_field_test.log
timeout 200 build-ab/wxy-tests/gpu_ntt_test --gtest_filter='*EveryTransformMatchesCpu*:*FirstPassTable*:*OtherPlans*:-Huge/*' > $OUT/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_ntt_test.log
tail -n 2 $OUT/gpu_field_test.log; tail -n 3 $OUT/gpu_ntt_test.log
for sit in 1 2; do
  log sppark $sit
  timeout 150 build-peer/sppark_side_by_side --max-log 24 --json $OUT/sppark_$sit.json > $OUT/sppark_$sit.log 2>&1
  order="base wy wxy"; [ $sit = 2 ] && order="wxy wy base"
  for v in $order; do
    log $v $sit
    timeout 150 build-ab/$v/prooflab_gpu_bench --only ntt --max-log 24 --json $OUT/${v}_$sit.json > $OUT/${v}_$sit.log 2>&1
  done
done
log summary
for sit in 1 2; do
  grep -E "ntt NR 2\^24" $OUT/sppark_$sit.log | cut -c1-120
  for v in base wy wxy; do
    echo "-- $v $sit"; grep -E "^(fr_mul|fp_mul|fp_sqr|ntt |coset_ntt)" $OUT/${v}_$sit.log | grep -vE "^ntt +.* NN" | cut -c1-110
  done
done
log done
