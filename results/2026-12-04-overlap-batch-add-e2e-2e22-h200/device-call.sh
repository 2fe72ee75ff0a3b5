#!/usr/bin/env bash
# Session 16 device call 4: overlap_batch_add off vs on, porep-like 10 x 2^22
# (experiments/h200-2e22-overlap-batch-add-ab.toml).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c4.tar.xz
WORK=/tmp/m-ov OUT=$OUT/ov BIN=build-ab bash gpu/scripts/device_matrices.sh experiments/h200-2e22-overlap-batch-add-ab.toml:480
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
