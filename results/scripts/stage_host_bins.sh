#!/usr/bin/env bash
# Copies the CPU binaries that results/scripts/host_msm_ifma.sh runs, and the shared
# libraries the device image lacks, into build-devcarry/ (ignored by git; carry it):
#   bash results/scripts/stage_host_bins.sh [BUILD_DIR]    (default build, a Release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
cmake --build "$BUILD" --target prooflab prooflab_bench field_fp_x8_test msm_cpu_test poly_ntt_test groth16_prove_test -j2
rm -rf build-devcarry
mkdir -p build-devcarry/lib
cp "$BUILD"/bin/prooflab "$BUILD"/bench/prooflab_bench build-devcarry/
for t in field_fp_x8_test msm_cpu_test poly_ntt_test groth16_prove_test; do cp "$BUILD/tests/$t" build-devcarry/; done
strip -s build-devcarry/prooflab* build-devcarry/*_test
for lib in $(ldd build-devcarry/prooflab build-devcarry/prooflab_bench | awk '/libtomlplusplus|libpython|libbenchmark|libgmp/ {print $3}' | sort -u); do
  cp -L "$lib" build-devcarry/lib/
done
git rev-parse HEAD >build-devcarry/COMMIT
du -sh build-devcarry  # the carry limit is 64 MiB
