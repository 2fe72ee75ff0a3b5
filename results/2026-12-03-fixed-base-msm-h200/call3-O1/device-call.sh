#!/usr/bin/env bash
# Session 14 device call 4: the fixed-base table's kernel built at cicc -O1 — its tests and the
# table's build time and MSM rows (bench --quick) against call 2's -O3 build.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c7/bins.tar.xz
B=build-gpu-device
cp $B/COMMIT $OUT/
timeout 150 $B/gpu_msm_test --gtest_filter='GpuMsm.FixedBase*' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 200 $B/gpu_backend_test --gtest_filter='*FixedBase*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
tail -n 3 $OUT/gpu_msm_test.log; tail -n 3 $OUT/gpu_backend_test.log
timeout 200 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/ours.json > $OUT/bench.log 2>&1
grep -E "^msm" $OUT/bench.log | cut -c1-230
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
