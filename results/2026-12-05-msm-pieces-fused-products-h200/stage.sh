#!/usr/bin/env bash
# Stages device-call.sh's binaries on the dev VM: build-ab/pieces from BASE (default a9cf2ea:
# the pieces without mul_diff), built in a git worktree, and build-ab/fused from this checkout's
# build/ (HEAD), stripped, with prooflab's libraries in build-ab/lib; tarred as
# build-carry/msm-ab.tar.xz. ~8 min on the 2-vCPU VM the first time (ccache helps).
#   bash results/2026-12-05-msm-pieces-fused-products-h200/stage.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${BASE:-a9cf2ea}
WT=${WT:-/tmp/prooflab-base-$BASE}
[ -d "$WT" ] || git worktree add --detach "$WT" "$BASE"
[ -f "$WT/build/build.ninja" ] ||
  (cd "$WT" && cmake --preset release -DPython_EXECUTABLE="$OLDPWD/.venv/bin/python" >/dev/null)
cmake --build "$WT/build" --target prooflab_gpu_bench prooflab
cmake --build build --target prooflab_gpu_bench prooflab gpu_field_test gpu_msm_test gpu_backend_test
rm -rf build-ab && mkdir -p build-ab/pieces build-ab/fused build-ab/lib build-carry
cp "$WT/build/bench/prooflab_gpu_bench" "$WT/build/bin/prooflab" build-ab/pieces/
cp build/bench/prooflab_gpu_bench build/bin/prooflab build/tests/gpu_field_test build/tests/gpu_msm_test \
  build/tests/gpu_backend_test build-ab/fused/
strip -s build-ab/pieces/* build-ab/fused/*
git -C "$WT" rev-parse HEAD > build-ab/pieces/COMMIT
git rev-parse HEAD > build-ab/fused/COMMIT
for lib in $(ldd build-ab/fused/prooflab | awk '/libtomlplusplus|libpython/ {print $3}'); do cp -L "$lib" build-ab/lib/; done
tar -cJf build-carry/msm-ab.tar.xz build-ab
du -sh build-ab build-carry/msm-ab.tar.xz
