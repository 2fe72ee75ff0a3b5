#!/usr/bin/env bash
# Issue 24 items 1 and 3, device call 2 (~6 min): the device tests at the staged commit
# (CudaBackendPhase.CosetLagrange* now with coset_fold_c and sparse_products on the device;
# GpuNtt.ComputeHMatchesCpu with every basis), then the end-to-end A/B of h_basis = coset_fold_c
# against monomial, experiments/h200-2e22-h-basis-ab.toml (its header has the prediction).
# Carry: build-carry/coset-h.tar.xz (stage.sh). GUARD: the matrix's time guard (s).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/coset-h.tar.xz
ln -sfn ../lib build-ab/gt/lib
export LD_LIBRARY_PATH=$PWD/build-ab/lib
B=build-ab/gt
mkdir -p $OUT/tests
cp $B/COMMIT $OUT/tests/COMMIT
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > $OUT/tests/machine.txt
echo "== tests $(date -u +%T) t=${SECONDS}s"
timeout 90 $B/gpu_ntt_test --gtest_filter='*ComputeHMatchesCpu*' > $OUT/tests/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/tests/gpu_ntt_test.log
timeout 120 $B/gpu_backend_test --gtest_filter='*CosetLagrange*' > $OUT/tests/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/tests/gpu_backend_test.log
for t in ntt backend; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/tests/gpu_${t}_test.log; done
echo "== matrix $(date -u +%T) t=${SECONDS}s"
WORK=/tmp/m-hb OUT=$OUT/hb BIN=$B bash gpu/scripts/device_matrices.sh experiments/h200-2e22-h-basis-ab.toml:${GUARD:-330}
echo "== done $(date -u +%T) t=${SECONDS}s"
