#!/usr/bin/env bash
# Issue 24 items 1 and 3, device call 2 (~5 min): the end-to-end A/B of h_basis = coset_fold_c
# against monomial, experiments/h200-2e22-h-basis-ab.toml (its header has the prediction), with
# call 1's build-ab/gt (21002ca). Carry: build-carry/coset-h.tar.xz (stage.sh).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/coset-h.tar.xz
ln -sfn ../lib build-ab/gt/lib
WORK=/tmp/m-hb OUT=$OUT/hb BIN=build-ab/gt bash gpu/scripts/device_matrices.sh experiments/h200-2e22-h-basis-ab.toml:${GUARD:-330}
