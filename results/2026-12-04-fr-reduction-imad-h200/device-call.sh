#!/usr/bin/env bash
# Session 16 device call 3: Fr's two reduction shortcuts (the m·1 and m·(2^32-1) products as
# additions) against plain multiply-adds, which take fewer instructions. Three
# prooflab_gpu_bench builds of 7348063's tree (base; nofr2 = m·(2^32-1) as IMADs; nofr12 = both
# as IMADs) and sppark, in two sittings with the builds' order reversed in the second.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c3.tar.xz
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-peer/PEERS $OUT/
for sit in 1 2; do
  log sppark $sit
  timeout 150 build-peer/sppark_side_by_side --max-log 24 --json $OUT/sppark_$sit.json > $OUT/sppark_$sit.log 2>&1
  order="base nofr2 nofr12"; [ $sit = 2 ] && order="nofr12 nofr2 base"
  for v in $order; do
    log $v $sit
    timeout 150 build-ab/$v/prooflab_gpu_bench --only ntt --max-log 24 --json $OUT/${v}_$sit.json > $OUT/${v}_$sit.log 2>&1
  done
done
log summary
for sit in 1 2; do
  grep -E "ntt NR 2\^24" $OUT/sppark_$sit.log | cut -c1-120
  for v in base nofr2 nofr12; do
    echo "-- $v $sit"; grep -E "^(fr_mul|fp_mul|fp_sqr|ntt |coset_ntt)" $OUT/${v}_$sit.log | grep -vE "^ntt +.* NN" | cut -c1-110
  done
done
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
