#!/usr/bin/env bash
# Builds the GPU test and benchmark binaries on the development machine and copies them into
# build-gpu-device/ (ignored by git; ~7 MB), the one folder to carry to the device machine:
#   bash gpu/scripts/stage_device_bins.sh [BUILD_DIR]    (default build-gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-gpu}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DPROOFLAB_BENCH=OFF
fi
# Every GPU test binary (tests/cpp/gpu_*_test.cpp) and the benchmark.
TESTS=$(cd tests/cpp && ls gpu_*_test.cpp | sed 's/\.cpp$//')
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TESTS prooflab_gpu_bench -j2
mkdir -p build-gpu-device
for t in $TESTS; do cp "$BUILD/tests/$t" build-gpu-device/; done
cp "$BUILD"/bench/prooflab_gpu_bench build-gpu-device/
# What the device image must provide: nothing beyond these (checked here).
for b in build-gpu-device/*; do
  extra=$(ldd "$b" | awk '{print $1}' | grep -vE '^(linux-vdso|/lib64/ld-linux|libgmp\.so|libstdc\+\+|libm\.so|libgcc_s|libc\.so|libdl|libpthread|librt)' || true)
  [ -z "$extra" ] || { echo "$b needs libraries the device image may lack: $extra" >&2; exit 1; }
done
git rev-parse HEAD >build-gpu-device/COMMIT
ls -la build-gpu-device
