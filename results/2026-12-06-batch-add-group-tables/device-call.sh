#!/usr/bin/env bash
# Issue 24 item 3, one device call (~5 min): the batch additions over group tables (pairs and
# groups of 4, knob batch_add_tables). Correctness first (the device tests of the tables, the
# bench's sums against batch_add's, gpu-phase --check with quads at 2^22 and 2^24), then the
# A/B in one binary: gpu-phase at 2^24 with --batch-add-tables off / pairs / quads, twice in turn.
# Carry: build-carry/group-tables.tar.xz (build-ab/gt: prooflab, prooflab_gpu_bench,
# gpu_msm_test, gpu_backend_test of this commit, stripped; build-ab/lib: toml++ and libpython).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/group-tables.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
log() { echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
B=build-ab/gt
cp $B/COMMIT $OUT/
log tests
timeout 120 $B/gpu_msm_test --gtest_filter='*GroupTables*:*SumSelected*' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 150 $B/gpu_backend_test --gtest_filter='*GroupTables*:*ResidentBytes*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
for t in msm backend; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_${t}_test.log; done
log bench
timeout 150 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/bench.json > $OUT/bench.log 2>&1
grep -E "^(msm_fixed_base |batch_add)" $OUT/bench.log | cut -c1-220
OPTS="gpu-phase --circuit porep-like --pin-uploads --fixed-base-h --tails-beside-h --no-cupti"
for round in 1 2; do
  for v in off pairs quads; do
    log p24 $v $round
    timeout 70 $B/prooflab $OPTS --batch-add-tables $v --reps 5 --constraints 16777216 --out $OUT/p24-$v-$round > $OUT/p24-$v-$round.log 2>&1
    grep -E "^key:|median of" $OUT/p24-$v-$round.log
  done
done
log check
timeout 60 $B/prooflab $OPTS --batch-add-tables quads --reps 1 --constraints 4194304 --check --out $OUT/c22 > $OUT/c22.log 2>&1
timeout 120 $B/prooflab $OPTS --batch-add-tables quads --reps 1 --constraints 16777216 --check --out $OUT/c24 > $OUT/c24.log 2>&1
grep -hE "check vs|median of" $OUT/c22.log $OUT/c24.log
log done
cd $OUT && tar -cf all.tar --exclude=all.tar . && find . -mindepth 1 ! -name all.tar -delete
