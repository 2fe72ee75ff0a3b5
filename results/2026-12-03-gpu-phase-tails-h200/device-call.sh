#!/usr/bin/env bash
# Session 13 device call 1: the 2^24 GPU phase before (6bfa458: kernels as d89a2a7), at
# f074170 (fix-up groups, bitmap sums), at 4dd79eb (+ tails at once), and that with --pin-uploads;
# then old and new once more (drift).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c1/bins.tar.xz
export LD_LIBRARY_PATH=$PWD/build-gpu-device/lib
B=build-gpu-device O=build-gpu-old M=build-gpu-mid
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
log gpu_backend_test
timeout 200 $B/gpu_backend_test > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
for v in old mid new pin old2 new2; do
  log gp24 $v
  case $v in
    mid) timeout 150 $M/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --out $OUT/gp24-$v ;;
    old2) timeout 150 $O/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --no-cupti --out $OUT/gp24-$v ;;
    new2) timeout 150 $B/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --no-cupti --out $OUT/gp24-$v ;;
    old) timeout 150 $O/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --out $OUT/gp24-$v ;;
    new) timeout 150 $B/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --check --out $OUT/gp24-$v ;;
    pin) timeout 150 $B/prooflab gpu-phase --circuit porep-like --constraints 16777216 --reps 5 --pin-uploads --out $OUT/gp24-$v ;;
  esac > $OUT/gp24-$v.log 2>&1
  xz -T0 $OUT/gp24-$v/cupti.csv 2>/dev/null
done
log done
# At most 8 files come back: one archive.
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
