#!/usr/bin/env bash
# Issue 24 item 3, one device call (~9 min): the MSM's host scalars in pieces (dd37f93, a9cf2ea),
# the fused products of mul_diff (30772c5) and the pair tables (ada6486, knob pair_tables). Order: correctness first (device tests, the
# checks inside the bench rows and gpu-phase --check), then the A/B in this call:
#   build-ab/pieces = a9cf2ea (pieces, no mul_diff) and build-ab/fused = HEAD (pieces + mul_diff),
#   each with prooflab_gpu_bench and prooflab; the bench's upload_first rows (one piece) are the
#   A/B of the pieces inside each bench run. sppark's MSM beside them (build-peer/).
# Carry: build-carry/msm-ab.tar.xz (README.md, "How to run it") and build-peer.
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/msm-ab.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
for b in pieces fused; do cp build-ab/$b/COMMIT $OUT/COMMIT-$b; done
F=build-ab/fused
log tests
timeout 60 $F/gpu_field_test > $OUT/gpu_field_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_field_test.log
timeout 150 $F/gpu_msm_test > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 150 $F/gpu_backend_test --gtest_filter='*EqualsTheCpuBackendsSumsExactly*:*FixedBaseHGivesTheCpuBackendsSums*:*TailsBesideH*:*PairTables*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
for t in field msm backend; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_${t}_test.log; done
log sppark
timeout 90 build-peer/sppark_side_by_side --json $OUT/sppark.json > $OUT/sppark.log 2>&1
grep -E "^sppark msm" $OUT/sppark.log
for b in fused pieces; do
  log bench $b
  timeout 150 build-ab/$b/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/bench-$b.json > $OUT/bench-$b.log 2>&1
  grep -E "^msm" $OUT/bench-$b.log | cut -c1-200
done
OPTS="gpu-phase --circuit porep-like --pin-uploads --fixed-base-h --tails-beside-h --no-cupti"
# fused = HEAD; pairs = HEAD with --pair-tables; pieces = a9cf2ea (the same flags, no pair tables).
for round in 1 2; do
  for v in fused pairs pieces; do
    b=$v; extra=""; [ $v = pairs ] && { b=fused; extra="--pair-tables"; }
    log p24 $v $round
    timeout 60 build-ab/$b/prooflab $OPTS $extra --reps 5 --constraints 16777216 --out $OUT/p24-$v-$round > $OUT/p24-$v-$round.log 2>&1
    grep -E "median of" $OUT/p24-$v-$round.log
  done
done
log check
timeout 60 $F/prooflab $OPTS --pair-tables --reps 1 --constraints 4194304 --check --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 120 $F/prooflab $OPTS --pair-tables --reps 1 --constraints 16777216 --check --out $OUT/c24 > $OUT/c24.log 2>&1
grep -hE "check vs|median of" $OUT/c22.log $OUT/c24.log
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
