#!/usr/bin/env bash
# Session 16 device call 7: the same binaries as device-call.sh, wider: memcheck over every test
# of the G2 MSM, prep_msm and sparse-products binaries and the backend's phase cases at 2^10,
# initcheck (reads of device memory nothing wrote) and synccheck (barrier misuse) on small cases.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c6.tar.xz
B=build-ab
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
log() { echo "== $* $(date -u +%H:%M:%S)"; }
cp $B/COMMIT $OUT/
step() {  # name limit tool test filter
  local name=$1 limit=$2 tool=$3 test=$4 filter=$5
  log $name
  timeout --signal=INT --kill-after=10 $limit $CS --tool $tool --error-exitcode 99 $B/$test --gtest_filter="$filter" > $OUT/$name.log 2>&1
  local rc=$?
  echo "rc=$rc" >> $OUT/$name.log
  echo "$name rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|\[  PASSED  \]|\[  FAILED  \]' $OUT/$name.log | tr '\n' ' ')"
}
step mc_g2_all 100 memcheck gpu_g2_msm_test '*'
step mc_plan_all 70 memcheck gpu_msm_plan_test '*'
step mc_sparse_all 50 memcheck gpu_sparse_products_test '*'
step mc_phase 100 memcheck gpu_backend_test '*CudaBackendPhase*/porep_1024'
step ic_g2 30 initcheck gpu_g2_msm_test 'GpuG2Msm.EdgeCases'
step ic_plan 30 initcheck gpu_msm_plan_test 'GpuMsmPlan.WordEdgesEqualPrepMsm'
step ic_fixed 30 initcheck gpu_msm_test 'GpuMsm.FixedBaseTableAndMsm'
step sc_g2 30 synccheck gpu_g2_msm_test 'GpuG2Msm.EdgeCases:GpuG2Msm.SumSelected'
step sc_plan 30 synccheck gpu_msm_plan_test 'GpuMsmPlan.WordEdgesEqualPrepMsm'
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
