#!/usr/bin/env bash
# Session 14 device call 3: fixed_base_h off vs on, porep-like 10 x 2^22 (experiments/h200-2e22-fixed-base-ab.toml).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c5/bins.tar.xz
WORK=/tmp/m-fb OUT=$OUT/fb BIN=build-gpu-device bash gpu/scripts/device_matrices.sh experiments/h200-2e22-fixed-base-ab.toml:420
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
