#!/usr/bin/env bash
# Session 16 device call 6: compute-sanitizer over the issue-24 kernels that had none yet
# (docs/gpu.md "Left open"): the G2 MSM, prep_msm on the device (gpu/msm_plan), the sparse
# products, the fixed-base table and MSM, and the GPU phase with overlap_batch_add. memcheck
# (out-of-bounds and misaligned accesses, leaks of device allocations) and racecheck (shared
# memory hazards) on small cases, each step under its own timeout.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c6.tar.xz
B=build-ab
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/machine.txt; $CS --version >> $OUT/machine.txt 2>&1
cp $B/COMMIT $OUT/
step() {  # name limit tool test filter
  local name=$1 limit=$2 tool=$3 test=$4 filter=$5
  log $name
  timeout --signal=INT --kill-after=10 $limit $CS --tool $tool --error-exitcode 99 $B/$test --gtest_filter="$filter" > $OUT/$name.log 2>&1
  local rc=$?
  echo "rc=$rc" >> $OUT/$name.log
  echo "$name rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|\[  PASSED  \]|\[  FAILED  \]' $OUT/$name.log | tr '\n' ' ')"
}
step mc_g2 100 memcheck gpu_g2_msm_test 'GpuG2Msm.EdgeCases:GpuG2Msm.SumSelected:GpuG2Msm.IndexedSubsetOfResidentPoints:GpuG2Msm.OverBudgetNamesTheStage'
step rc_g2 80 racecheck gpu_g2_msm_test 'GpuG2Msm.EdgeCases:GpuG2Msm.SumSelected'
step mc_plan 60 memcheck gpu_msm_plan_test 'GpuMsmPlan.WordEdgesEqualPrepMsm:GpuMsmPlan.PorepLikeEqualsPrepMsm:GpuMsmPlan.OverTheBudgetNamesTheStage'
step rc_plan 55 racecheck gpu_msm_plan_test 'GpuMsmPlan.WordEdgesEqualPrepMsm:GpuMsmPlan.PorepLikeEqualsPrepMsm'
step mc_sparse 40 memcheck gpu_sparse_products_test 'GpuSparseProducts.PorepLikeEqualsTheHost:GpuSparseProducts.MatricesOverTheBudgetNameTheStage'
step rc_sparse 35 racecheck gpu_sparse_products_test 'GpuSparseProducts.PorepLikeEqualsTheHost'
step mc_fixed 60 memcheck gpu_msm_test 'GpuMsm.FixedBaseTableAndMsm:GpuMsm.SumSelected'
step rc_fixed 45 racecheck gpu_msm_test 'GpuMsm.FixedBaseTableAndMsm'
step mc_overlap 55 memcheck gpu_backend_test '*OverlapBatchAdd*/porep_1024'
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
