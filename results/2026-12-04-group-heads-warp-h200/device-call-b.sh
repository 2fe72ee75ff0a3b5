#!/usr/bin/env bash
# Session 16 device call 10: the checks call 9 lost (--reps given twice): the new build's 2^22
# and 2^24 GPU phases against the CPU backend, and one verified 10 x 2^22 batch with b_g2_msm on
# the device (experiments/h200-2e22-group-heads-check.toml).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/c7.tar.xz
cp build-ab/lib/* build-ab/new/ 2>/dev/null; mkdir -p build-ab/new/lib && cp build-ab/lib/* build-ab/new/lib/
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
OPTS="--circuit porep-like --reps 1 --pin-uploads --fixed-base-h --overlap-batch-add --no-cupti --check"
log c22; timeout 60 build-ab/new/prooflab gpu-phase $OPTS --constraints 4194304 --out $OUT/c22 > $OUT/c22.log 2>&1; echo "rc=$?" >> $OUT/c22.log
log c24; timeout 90 build-ab/new/prooflab gpu-phase $OPTS --constraints 16777216 --out $OUT/c24 > $OUT/c24.log 2>&1; echo "rc=$?" >> $OUT/c24.log
grep -E "check vs|rc=" $OUT/c22.log $OUT/c24.log
echo "$(cat build-ab/base/COMMIT) + group_heads_warp (uncommitted)" > build-ab/new/COMMIT
WORK=/tmp/m-gh OUT=$OUT/gh BIN=build-ab/new bash gpu/scripts/device_matrices.sh experiments/h200-2e22-group-heads-check.toml:280
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
