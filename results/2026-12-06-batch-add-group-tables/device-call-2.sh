#!/usr/bin/env bash
# Issue 24 item 3, device call 2 (~6 min): the batch addition over group tables with one
# addition site (fd33a1d; call 1's two sites diverged), and the tails' reductions at
# min_segment 16 (build "seg16": seg16.diff, not committed), A/B'd in this call:
#   gpu-phase at 2^24 and 2^22 with --batch-add-tables off / pairs / quads (build gt) and quads
#   with seg16 and with fold36 (fold36.diff: the fixed-base window from the measured reduction
#   cost, c = 22 at 2^24 and 20 at 2^22 instead of 24 and 22), twice in turn; the bench's batch_add rows; --check of quads (gt, 2^24) and of
#   seg16 (2^22, 2^24). Carry: build-carry/group-tables.tar.xz (build-ab/gt, build-ab/seg16, build-ab/lib).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/group-tables.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
FINAL=$OUT; OUT=$FINAL/w; mkdir -p $OUT  # packed into all.tar after every step: a call cut short keeps what ran
pack() { tar -cf $FINAL/all.tar -C $OUT .; }
log() { pack 2>/dev/null; echo "== $* $(date -u +%H:%M:%S)"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
for b in gt seg16 fold36; do cp build-ab/$b/COMMIT $OUT/COMMIT-$b; done
B=build-ab/gt
# QUICK=1 (a short call): no device tests (call 1 ran them on the two-site version; the bench and
# the 2^22 --check still compare sums) and no 2^24 --check.
if [ -z "${QUICK:-}" ]; then
log tests
timeout 120 $B/gpu_msm_test --gtest_filter='*GroupTables*:*HostScalars*' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
timeout 150 $B/gpu_backend_test --gtest_filter='*GroupTables*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
for t in msm backend; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_${t}_test.log; done
fi
log bench
timeout 150 $B/prooflab_gpu_bench --only msm --max-log 24 --quick --json $OUT/bench.json > $OUT/bench.log 2>&1
grep -E "^batch_add" $OUT/bench.log | cut -c1-200
OPTS="gpu-phase --circuit porep-like --pin-uploads --fixed-base-h --tails-beside-h --no-cupti"
phase_round() {  # $1: the round
  for v in off pairs quads seg16 fold36; do
    b=gt; t=$v; case $v in seg16|fold36) b=$v; t=quads;; esac
    log p24 $v $1
    timeout 70 build-ab/$b/prooflab $OPTS --batch-add-tables $t --reps 5 --constraints 16777216 --out $OUT/p24-$v-$1 > $OUT/p24-$v-$1.log 2>&1
    grep -E "median of" $OUT/p24-$v-$1.log
    log p22 $v $1
    timeout 40 build-ab/$b/prooflab $OPTS --batch-add-tables $t --reps 7 --constraints 4194304 --out $OUT/p22-$v-$1 > $OUT/p22-$v-$1.log 2>&1
    grep -E "median of" $OUT/p22-$v-$1.log
  done
}
check() {  # $1: build, $2: constraints, $3: guard (s); quads, the sums against the CPU backend's
  log check $1 $2
  timeout $3 build-ab/$1/prooflab $OPTS --batch-add-tables quads --reps 1 --constraints $2 --check --out $OUT/c$2-$1 > $OUT/c$2-$1.log 2>&1
  grep -hE "check vs|median of" $OUT/c$2-$1.log
}
# The 2^22 checks right after the first round: a call cut short keeps them.
phase_round 1
check seg16 4194304 40
check fold36 4194304 40
[ "${ROUNDS:-1 2}" = "1 2" ] && phase_round 2
if [ -z "${QUICK:-}" ]; then
  check seg16 16777216 100
  check fold36 16777216 100
fi
log done
pack && rm -rf $OUT
