#!/usr/bin/env bash
# Stages the device calls' binaries on the dev VM from this checkout's build/ (HEAD, committed):
# build-ab/gt (prooflab, gpu_ntt_test, gpu_backend_test, gpu_msm_test) and build-ab/lib (toml++,
# libpython), stripped, tarred as build-carry/coset-h.tar.xz. Then move the other results/ folders
# out of the tree (the device tool's 64 MiB) and run device-call-2.sh with carry build-carry.
# (Call 1 also built build-ab/fold36 from ../2026-12-06-batch-add-group-tables/fold36.diff; that
# change is committed since, so HEAD's prooflab has it.)
#   bash results/2026-12-07-coset-lagrange-h/stage.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
git diff --quiet -- gpu core harness || { echo "stage.sh: gpu/, core/ or harness/ has uncommitted changes" >&2; exit 1; }
cmake --build build --target prooflab gpu_ntt_test gpu_backend_test gpu_msm_test
rm -rf build-ab build-carry && mkdir -p build-ab/gt build-ab/lib build-carry
cp build/bin/prooflab build/tests/gpu_ntt_test build/tests/gpu_backend_test build/tests/gpu_msm_test build-ab/gt/
git rev-parse HEAD > build-ab/gt/COMMIT
for lib in $(ldd build-ab/gt/prooflab | awk '/libtomlplusplus|libpython/ {print $3}'); do cp -L "$lib" build-ab/lib/; done
strip -s build-ab/gt/* 2>/dev/null || true
tar -cJf build-carry/coset-h.tar.xz build-ab
du -sh build-carry/coset-h.tar.xz
