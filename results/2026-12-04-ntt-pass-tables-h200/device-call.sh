#!/usr/bin/env bash
# Session 17 device call 1: the later passes' pass tables (coupling twiddles read beside the
# elements instead of from the direct table at scattered indices). Device tests of the new
# build (gpu_ntt_test; gpu_backend_test's phase cases, which also run 93da234's join_side
# refactor for the first time on a device), the NTT rows of base / new / new / base beside
# sppark, and a --check of the new build's 2^22 GPU phase against the CPU backend.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c1.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp build-ab/base/COMMIT build-peer/PEERS $OUT/
log tests
timeout 240 build-ab/new/gpu_ntt_test > $OUT/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_ntt_test.log
timeout 200 build-ab/new/gpu_backend_test --gtest_filter='*CudaBackendPhase*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
grep -E "^\[  PASSED|^\[  FAILED|tests ran|rc=" $OUT/gpu_*_test.log | head -20
log sppark; timeout 150 build-peer/sppark_side_by_side --max-log 24 --json $OUT/sppark.json > $OUT/sppark.log 2>&1
i=0
for v in base new new base; do
  i=$((i+1)); log bench $v $i
  timeout 150 build-ab/$v/prooflab_gpu_bench --only ntt,variants --max-log 26 --json $OUT/${v}_$i.json > $OUT/${v}_$i.log 2>&1
done
log check
timeout 120 build-ab/new/prooflab gpu-phase --circuit porep-like --reps 1 --pin-uploads --fixed-base-h --overlap-batch-add --constraints 4194304 --check --no-cupti --out $OUT/c22 > $OUT/c22.log 2>&1
log summary
grep -E "ntt NR 2\^24" $OUT/sppark.log | cut -c1-120
for i in 1 2 3 4; do f=$(ls $OUT/*_$i.log); echo "-- $f"; grep -E "^(ntt |ntt_variant).* NR " $f | grep -E "later-direct|^ntt " | cut -c1-110; done
grep -E "check vs|PASS|FAIL" $OUT/c22.log | head
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
