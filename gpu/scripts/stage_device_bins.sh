#!/usr/bin/env bash
# Builds the GPU test and benchmark binaries on the development machine and copies them into
# build-gpu-device/ (ignored by git; ~48 MB with lib/), the one folder to carry to the device machine:
#   bash gpu/scripts/stage_device_bins.sh [BUILD_DIR]    (default build-gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-gpu}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPROOFLAB_BENCH=OFF -DPROOFLAB_GPU_MSM_CAP_VARIANTS=ON
fi
grep -q '^PROOFLAB_GPU_MSM_CAP_VARIANTS:BOOL=ON' "$BUILD/CMakeCache.txt" ||
  echo "note: $BUILD has PROOFLAB_GPU_MSM_CAP_VARIANTS off: the benchmark skips its msm_variant acc_blocks rows" >&2
# Every GPU test binary (tests/cpp/gpu_*_test.cpp), the benchmark and the prooflab binary
# (batch --set backend=cuda, gpu-phase, matrix), stripped.
TESTS=$(cd tests/cpp && ls gpu_*_test.cpp | sed 's/\.cpp$//')
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TESTS prooflab_gpu_bench imad_probe prooflab -j2
rm -rf build-gpu-device
mkdir -p build-gpu-device/lib
for t in $TESTS; do cp "$BUILD/tests/$t" build-gpu-device/; done
cp "$BUILD"/bench/prooflab_gpu_bench "$BUILD"/bench/imad_probe "$BUILD"/bin/prooflab build-gpu-device/
strip -s build-gpu-device/gpu_* build-gpu-device/prooflab* build-gpu-device/imad_probe
# prooflab links toml++ and the project venv's libpython (for `report`, not used there):
# carried in lib/, so run it there with LD_LIBRARY_PATH=$PWD/build-gpu-device/lib.
for lib in $(ldd build-gpu-device/prooflab | awk '/libtomlplusplus|libpython/ {print $3}'); do
  cp -L "$lib" build-gpu-device/lib/
done
# What the device image must provide: nothing beyond these (checked here).
for b in build-gpu-device/gpu_* build-gpu-device/prooflab_gpu_bench; do
  extra=$(ldd "$b" | awk '{print $1}' | grep -vE '^(linux-vdso|/lib64/ld-linux|libgmp\.so|libstdc\+\+|libm\.so|libgcc_s|libc\.so|libdl|libpthread|librt)' || true)
  [ -z "$extra" ] || { echo "$b needs libraries the device image may lack: $extra" >&2; exit 1; }
done
git rev-parse HEAD >build-gpu-device/COMMIT
ls -la build-gpu-device build-gpu-device/lib
du -sh build-gpu-device  # the carry limit is 64 MiB
