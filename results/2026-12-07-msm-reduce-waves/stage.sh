#!/usr/bin/env bash
# Stages device-call.sh's binaries on the dev VM from this checkout's build/ (HEAD, committed):
# build-ab/gt (prooflab, prooflab_gpu_bench, gpu_msm_test, gpu_ntt_test, gpu_backend_test) and
# build-ab/lib (toml++, libpython), stripped, tarred as build-carry/msm-waves.tar.xz. Then move
# the other results/ folders out of the tree (the device tool's 64 MiB) and run device-call.sh
# with carry ["build-carry", "build-peer"].
#   bash results/2026-12-07-msm-reduce-waves/stage.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
git diff --quiet -- gpu core harness || { echo "stage.sh: gpu/, core/ or harness/ has uncommitted changes" >&2; exit 1; }
T="prooflab prooflab_gpu_bench gpu_msm_test gpu_g2_msm_test gpu_ntt_test gpu_backend_test"
cmake --build build --target $T
rm -rf build-ab build-carry && mkdir -p build-ab/gt build-ab/lib build-carry
cp build/bin/prooflab build/bench/prooflab_gpu_bench build/tests/gpu_msm_test build/tests/gpu_g2_msm_test build/tests/gpu_ntt_test \
  build/tests/gpu_backend_test build-ab/gt/
git rev-parse HEAD > build-ab/gt/COMMIT
for lib in $(ldd build-ab/gt/prooflab | awk '/libtomlplusplus|libpython/ {print $3}'); do cp -L "$lib" build-ab/lib/; done
strip -s build-ab/gt/* 2>/dev/null || true
tar -cJf build-carry/msm-waves.tar.xz build-ab
du -sh build-carry/msm-waves.tar.xz
