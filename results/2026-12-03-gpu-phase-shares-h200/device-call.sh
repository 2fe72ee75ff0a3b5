#!/usr/bin/env bash
# Session 13 device call 2: gpu_backend_test at the final HEAD (build-gpu-device/COMMIT), the 2^24 GPU phase at 4dd79eb (mid)
# and the final HEAD (build-gpu-device/COMMIT) (new: batch additions in equal shares), interleaved, and new with --pin-uploads;
# then the MSM benchmark (--quick) beside sppark.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c2/bins.tar.xz
export LD_LIBRARY_PATH=$PWD/build-gpu-device/lib
B=build-gpu-device M=build-gpu-mid
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
log gpu_backend_test
timeout 200 $B/gpu_backend_test > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
G="gpu-phase --circuit porep-like --constraints 16777216 --reps 5"
for v in mid new mid2 new2 newpin; do
  log gp24 $v
  case $v in
    mid) timeout 150 $M/prooflab $G --out $OUT/gp24-$v ;;
    new) timeout 150 $B/prooflab $G --check --out $OUT/gp24-$v ;;
    mid2) timeout 150 $M/prooflab $G --no-cupti --out $OUT/gp24-$v ;;
    new2) timeout 150 $B/prooflab $G --no-cupti --out $OUT/gp24-$v ;;
    newpin) timeout 150 $B/prooflab $G --pin-uploads --check --out $OUT/gp24-$v ;;
  esac > $OUT/gp24-$v.log 2>&1
  xz -T0 $OUT/gp24-$v/cupti.csv 2>/dev/null
done
log sppark
timeout 120 build-peer/sppark_side_by_side --json $OUT/sppark.json > $OUT/bench.log 2>&1
log bench
timeout 150 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/ours.json >> $OUT/bench.log 2>&1
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
