#!/usr/bin/env bash
# Issue 24 items 3 and 1, one device call (~7 min): correctness first (gpu_msm_test whole; the
# coset tests of ../2026-12-07-coset-lagrange-h/device-call-2.sh), then sppark's MSM and ours in
# the same call (prooflab_gpu_bench --only msm: the reduction's wave-filled segments against
# the power-of-two ones, `pow2_segments` rows, and the accumulation's chunk for whole waves,
# the upload_first rows), then, in the time left, the h_basis end-to-end A/B
# (experiments/h200-2e22-h-basis-ab.toml). Carry: build-carry (stage.sh) and build-peer.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/msm-waves.tar.xz
ln -sfn ../lib build-ab/gt/lib
export LD_LIBRARY_PATH=$PWD/build-ab/lib
B=build-ab/gt
log() { echo "== $* $(date -u +%T) t=${SECONDS}s"; }
mkdir -p $OUT/tests
cp $B/COMMIT $OUT/COMMIT
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > $OUT/machine.txt
log tests
timeout 60 $B/gpu_msm_test > $OUT/tests/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/tests/gpu_msm_test.log
timeout 90 $B/gpu_ntt_test --gtest_filter='*ComputeHMatchesCpu*' > $OUT/tests/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/tests/gpu_ntt_test.log
timeout 120 $B/gpu_backend_test --gtest_filter='*CosetLagrange*:*EqualsTheCpuBackendsSumsExactly*' > $OUT/tests/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/tests/gpu_backend_test.log
for t in msm ntt backend; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/tests/gpu_${t}_test.log; done
log sppark
timeout 90 build-peer/sppark_side_by_side --json $OUT/sppark.json > $OUT/sppark.log 2>&1
grep -E "^sppark msm" $OUT/sppark.log
log bench
timeout 200 $B/prooflab_gpu_bench --only msm --max-log 24 --json $OUT/bench.json > $OUT/bench.log 2>&1
grep -E "^msm" $OUT/bench.log | grep -E "2\^24" | cut -c1-150
log matrix
left=$((${MATRIX_UNTIL:-560} - SECONDS))
[ $left -gt 120 ] && WORK=/tmp/m-hb OUT=$OUT/hb BIN=$B bash gpu/scripts/device_matrices.sh experiments/h200-2e22-h-basis-ab.toml:$left
log done
