#!/usr/bin/env bash
# The CUDA backend's checks and timings on the device machine, in one call (expected 3-5 minutes; the per-step limits add up to 9):
#   nvidia-smi -L; the GPU test binaries; compute-sanitizer memcheck and racecheck on a small
#   filter; prooflab_gpu_bench. Logs, JSON and a summary go to $OUT (6 files); the last lines
#   printed are PASS/FAIL per step and an overall verdict.
#
# Usage (from the repository root on the device machine):
#   [STEPS=tests,sanitize,bench] [BENCH_ARGS="--only msm"] bash gpu/scripts/device_run.sh [BIN_DIR]
# STEPS picks what runs (default tests,sanitize,bench; add huge for the 2^27 NTT checks, a few
# minutes); BENCH_ARGS go to prooflab_gpu_bench.
# BIN_DIR holds gpu_field_test, gpu_ntt_test, gpu_device_test and prooflab_gpu_bench, either
# directly (what gpu/scripts/stage_device_bins.sh makes: build-gpu-device/) or as a CMake build
# directory (tests/ and bench/ below it). Default: build-gpu-device, else build-gpu.
# The binaries are built on the development machine and carried: they need only libgmp,
# libstdc++ and glibc (CUDA runtime linked statically, GoogleTest statically), all present
# on the device image. If prooflab_gpu_bench is missing it is compiled here with nvcc and g++
# (the tests cannot be: the image has no GoogleTest).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
declare -a VERDICTS=()
FAILED=0

note() { echo "$*" | tee -a "$SUMMARY"; }
verdict() {  # name rc [detail]
  local name=$1 rc=$2 detail=${3:-}
  if [ "$rc" -eq 0 ]; then VERDICTS+=("PASS  $name $detail"); else VERDICTS+=("FAIL  $name (exit $rc) $detail"); FAILED=1; fi
}

BIN=${1:-}
if [ -z "$BIN" ]; then
  if [ -d build-gpu-device ]; then BIN=build-gpu-device; else BIN=build-gpu; fi
fi
find_bin() {  # name -> path or empty
  for p in "$BIN/$1" "$BIN/tests/$1" "$BIN/bench/$1"; do [ -x "$p" ] && { echo "$p"; return; }; done
}
STEPS=${STEPS:-tests,sanitize,bench}
want() { case ",$STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
FIELD_TEST=$(find_bin gpu_field_test)
MSM_TEST=$(find_bin gpu_msm_test)
OTHER_TESTS=()
for t in gpu_g2_msm_test gpu_backend_test gpu_msm_plan_test gpu_sparse_products_test gpu_observe_test; do p=$(find_bin $t); [ -n "$p" ] && OTHER_TESTS+=("$p"); done
NTT_TEST=$(find_bin gpu_ntt_test)
DEVICE_TEST=$(find_bin gpu_device_test)
BENCH=$(find_bin prooflab_gpu_bench)
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export PATH="$PATH:/usr/local/cuda/bin"

note "== device_run $(date -u +%FT%TZ) in $PWD, binaries from $BIN"
note "== nvidia-smi -L"
nvidia-smi -L 2>&1 | tee -a "$SUMMARY"
verdict "nvidia-smi -L" "${PIPESTATUS[0]}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,memory.used,memory.total --format=csv 2>&1 | tee -a "$SUMMARY"

if [ -z "$BENCH" ] && command -v nvcc >/dev/null; then
  note "== prooflab_gpu_bench not carried: building it here (nvcc + g++)"
  B=/tmp/prooflab-gpu-bench-build
  mkdir -p "$B"
  (set -e
   for f in gpu/memory/device_allocator.cpp gpu/ntt/plan.cpp gpu/ntt/tables.cpp gpu/ntt/domain.cpp gpu/ntt/ntt.cpp gpu/h/h.cpp; do
     g++ -std=c++20 -O2 -mbmi2 -madx -I. -I/usr/local/cuda/include -c "$f" -o "$B/$(basename "$f").o"
   done
   for f in gpu/device_info.cu gpu/ntt/ntt_kernel.cu gpu/bench/gpu_bench.cu; do
     nvcc -std=c++17 -O3 -arch=sm_90 -I. -c "$f" -o "$B/$(basename "$f").o"
   done
   nvcc -arch=sm_90 "$B"/*.o -o "$B/prooflab_gpu_bench") >"$OUT/gpu_bench.txt" 2>&1
  verdict "build prooflab_gpu_bench on device" $?
  [ -x "$B/prooflab_gpu_bench" ] && BENCH="$B/prooflab_gpu_bench"
fi

run_step() {  # name timeout log cmd...
  local name=$1 limit=$2 log=$3; shift 3
  local t0=$SECONDS
  echo "== $name: $*" >>"$log"
  timeout --signal=INT --kill-after=10 "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  local dt=$((SECONDS - t0))
  [ $rc -eq 124 ] && echo "== $name: TIMED OUT after ${limit}s" >>"$log"
  note "== $name: exit $rc in ${dt}s"
  verdict "$name" $rc "(${dt}s)"
}

TESTS_LOG="$OUT/gpu_tests.log"
: >"$TESTS_LOG"
if [ -n "$MSM_TEST" ]; then
  if want tests; then
    run_step "gpu_msm_test" 300 "$TESTS_LOG" "$MSM_TEST"
  fi
  if want sanitize; then
    MSM_SMALL='GpuMsm.ZeroPointsIsInfinity:GpuMsm.DegenerateInputs:GpuMsm.OverBudgetNamesTheStage'
    run_step "memcheck gpu_msm_test $MSM_SMALL" 120 "$OUT/memcheck.log" \
      "$SANITIZER" --tool memcheck --error-exitcode 3 "$MSM_TEST" --gtest_filter="$MSM_SMALL"
    run_step "racecheck gpu_msm_test GpuMsm.SumSelected (shared-memory tree)" 120 "$OUT/racecheck.log" \
      "$SANITIZER" --tool racecheck --racecheck-report all --error-exitcode 3 "$MSM_TEST" --gtest_filter='GpuMsm.ZeroPointsIsInfinity:GpuMsm.DegenerateInputs'
  fi
fi
if want tests; then
  for t in "${OTHER_TESTS[@]}"; do run_step "$(basename "$t")" 300 "$TESTS_LOG" "$t"; done
fi
if [ -n "$FIELD_TEST" ] && [ -n "$NTT_TEST" ] && [ -n "$DEVICE_TEST" ] && want tests; then
  run_step "gpu_device_test" 20 "$TESTS_LOG" "$DEVICE_TEST"
  run_step "gpu_field_test" 40 "$TESTS_LOG" "$FIELD_TEST"
  run_step "gpu_ntt_test (all but Long, Huge)" 100 "$TESTS_LOG" "$NTT_TEST" --gtest_filter='-Long/*:Huge/*'
  run_step "gpu_ntt_test Long (2^24)" 60 "$TESTS_LOG" "$NTT_TEST" --gtest_filter='Long/*'
  if want huge; then
    run_step "gpu_ntt_test Huge (2^27, ~6 min)" 540 "$TESTS_LOG" "$NTT_TEST" --gtest_filter='Huge/*'
  fi
fi
# Any skipped GPU case on a GPU machine is a failure of the setup, not a pass.
if grep -q "no GPU:" "$TESTS_LOG"; then verdict "GPU cases ran (none skipped)" 1; else verdict "GPU cases ran (none skipped)" 0; fi
if [ -n "$FIELD_TEST" ] && [ -n "$NTT_TEST" ]; then
  if want sanitize; then
    SMALL='Small/*:GpuMemory.*'
    run_step "memcheck gpu_ntt_test $SMALL" 80 "$OUT/memcheck.log" \
      "$SANITIZER" --tool memcheck --error-exitcode 3 "$NTT_TEST" --gtest_filter="$SMALL"
    run_step "memcheck gpu_field_test GpuField.*" 40 "$OUT/memcheck.log" \
      "$SANITIZER" --tool memcheck --error-exitcode 3 "$FIELD_TEST" --gtest_filter='GpuField/*'
    # 2^12: two passes (2^10 is a single block), so the multi-pass kernels are checked.
    RACE='Small/GpuNtt.EveryTransformMatchesCpu/1:Small/GpuNtt.ComputeHMatchesCpu/1'
    run_step "racecheck gpu_ntt_test $RACE" 80 "$OUT/racecheck.log" \
      "$SANITIZER" --tool racecheck --racecheck-report all --error-exitcode 3 "$NTT_TEST" --gtest_filter="$RACE"
  fi
elif want tests; then
  note "== test binaries not found under $BIN (carry build-gpu-device, see docs/gpu.md)"
  verdict "test binaries present" 1
fi

if [ -n "$BENCH" ] && want bench; then
  # shellcheck disable=SC2086
  run_step "prooflab_gpu_bench ${BENCH_ARGS:-}" 240 "$OUT/gpu_bench.txt" "$BENCH" --json "$OUT/gpu_bench.json" ${BENCH_ARGS:-}
  note "== nvidia-smi after the benchmark"
  nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_throttle_reasons.active --format=csv 2>&1 | tee -a "$SUMMARY"
elif want bench; then
  verdict "prooflab_gpu_bench present" 1
fi

echo
echo "== test summary (gtest)"
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]|tests? ran" "$TESTS_LOG" | tee -a "$SUMMARY"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT"/memcheck.log "$OUT"/racecheck.log 2>/dev/null | tee -a "$SUMMARY"
echo "== benchmark table"
[ -f "$OUT/gpu_bench.txt" ] && grep -vE "^==" "$OUT/gpu_bench.txt" | tail -40
echo
for v in "${VERDICTS[@]}"; do note "$v"; done
if [ $FAILED -eq 0 ]; then note "device_run: PASS"; else note "device_run: FAIL"; fi
exit $FAILED
