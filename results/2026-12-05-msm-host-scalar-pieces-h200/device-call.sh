#!/usr/bin/env bash
# Host scalars in pieces (issue 24 item 3, MSM 2^24 <= 100 ms beside sppark): the device tests
# of the pieces, sppark's MSM, then prooflab_gpu_bench's msm group at 2^16..2^24 (--quick: the
# rows msm and msm_fixed_base in their planned pieces, and the upload_first variants, one piece,
# at 2^20 and 2^24: the A/B in this call). ~480 s. Binaries: build-ab/pieces/{gpu_msm_test,
# prooflab_gpu_bench} of the commit in build-ab/pieces/COMMIT, stripped, with build-peer/ (the
# sppark peer), carried as build-carry/pieces.tar.xz (see README.md, "How to run it").
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/pieces.tar.xz
B=build-ab/pieces
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
cp $B/COMMIT $OUT/
log tests
timeout 150 $B/gpu_msm_test --gtest_filter='GpuMsm.HostScalars*:GpuMsm.FixedBase*:GpuMsm.RandomInputsEverySizeClass:GpuMsm.StreamedBasesEqualResident' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
grep -E "^\[  PASSED|^\[  FAILED|^\[       OK|rc=" $OUT/gpu_msm_test.log
log sppark
timeout 120 build-peer/sppark_side_by_side --json $OUT/sppark.json > $OUT/bench.log 2>&1
log bench
timeout 220 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/ours.json >> $OUT/bench.log 2>&1
grep -E "^msm|^sppark msm" $OUT/bench.log | cut -c1-220
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
