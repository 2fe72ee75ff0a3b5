#!/usr/bin/env bash
# Stages device-call-2.sh's binaries on the dev VM from this checkout's build/ (HEAD): build-ab/gt
# (prooflab, prooflab_gpu_bench, gpu_msm_test, gpu_backend_test), build-ab/seg16 (prooflab built
# with seg16.diff applied), build-ab/fold36 (prooflab with fold36.diff applied; both reverted and
# rebuilt after) and build-ab/lib (toml++, libpython),
# stripped, tarred as build-carry/group-tables.tar.xz (~29 MiB). Then move the other results/
# folders out of the tree (the device tool's 64 MiB) and run device-call-2.sh with carry build-carry.
#   bash results/2026-12-06-batch-add-group-tables/stage.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
here=results/2026-12-06-batch-add-group-tables
git diff --quiet -- gpu || { echo "stage.sh: gpu/ has uncommitted changes" >&2; exit 1; }
cmake --build build --target prooflab prooflab_gpu_bench gpu_msm_test gpu_backend_test
rm -rf build-ab build-carry && mkdir -p build-ab/gt build-ab/seg16 build-ab/fold36 build-ab/lib build-carry
cp build/bin/prooflab build/bench/prooflab_gpu_bench build/tests/gpu_msm_test build/tests/gpu_backend_test build-ab/gt/
git rev-parse HEAD > build-ab/gt/COMMIT
for lib in $(ldd build-ab/gt/prooflab | awk '/libtomlplusplus|libpython/ {print $3}'); do cp -L "$lib" build-ab/lib/; done
for v in seg16 fold36; do
  git apply "$here/$v.diff"
  trap 'git apply -R "$here/'$v'.diff"; cmake --build build --target prooflab' EXIT
  cmake --build build --target prooflab
  cp build/bin/prooflab build-ab/$v/
  (git rev-parse HEAD; echo "+ $here/$v.diff") > build-ab/$v/COMMIT
  git apply -R "$here/$v.diff"
  trap - EXIT
done
cmake --build build --target prooflab
strip -s build-ab/gt/prooflab build-ab/gt/prooflab_gpu_bench build-ab/gt/gpu_msm_test build-ab/gt/gpu_backend_test \
  build-ab/seg16/prooflab build-ab/fold36/prooflab
tar -cJf build-carry/group-tables.tar.xz build-ab
du -sh build-carry/group-tables.tar.xz
