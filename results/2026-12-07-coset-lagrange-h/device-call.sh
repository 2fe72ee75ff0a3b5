#!/usr/bin/env bash
# Issue 24 item 3, one device call (up to LIMIT = 480 s): h_basis = coset (six transforms, the
# MSM over the n coset values) and coset_fold_c (C folded into the key: no C·w, four transforms)
# A/B'd against the monomial key in the GPU phase at 2^24 and 2^22 (all with quads), twice in
# turn, after the device tests; then, while time is left, the one-site group tables (fd33a1d,
# never measured: off / pairs) and fold36 (the fixed-base window from the reduction's measured
# cost) in two rounds; --check of quads with coset_fold_c and coset at 2^22, coset_fold_c on
# fold36 at 2^22 and on gt at 2^24.
# Carry: build-carry/coset-h.tar.xz (stage.sh).
set -u
cd "$(dirname "$0")/../.."
tar -xJf build-carry/coset-h.tar.xz
export LD_LIBRARY_PATH=$PWD/build-ab/lib
FINAL=$OUT; OUT=$FINAL/w; mkdir -p $OUT  # packed into all.tar after every step: a call cut short keeps what ran
pack() { tar -cf $FINAL/all.tar -C $OUT .; }
log() { pack 2>/dev/null; echo "== $* $(date -u +%H:%M:%S) t=${SECONDS}s"; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv > $OUT/machine.txt
for b in gt fold36; do cp build-ab/$b/COMMIT $OUT/COMMIT-$b; done
B=build-ab/gt
log tests
timeout 90 $B/gpu_ntt_test --gtest_filter='*ComputeHOnCoset*:*/GpuNtt.ComputeHMatchesCpu/*' > $OUT/gpu_ntt_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_ntt_test.log
timeout 100 $B/gpu_backend_test --gtest_filter='*CosetLagrange*:*GroupTables*' > $OUT/gpu_backend_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_backend_test.log
timeout 60 $B/gpu_msm_test --gtest_filter='*GroupTables*' > $OUT/gpu_msm_test.log 2>&1; echo "rc=$?" >> $OUT/gpu_msm_test.log
for t in ntt backend msm; do grep -E "^\[  PASSED|^\[  FAILED|rc=" $OUT/gpu_${t}_test.log; done
OPTS="gpu-phase --circuit porep-like --pin-uploads --fixed-base-h --tails-beside-h --no-cupti"
run_phase() {  # $1: variant, $2: round
  local v=$1 b=gt t=$1 h=monomial
  case $v in coset) t=quads; h=coset;; fold) t=quads; h=coset_fold_c;; fold36) b=fold36; t=quads; h=coset_fold_c;; esac
  log p24 $v $2
  timeout 70 build-ab/$b/prooflab $OPTS --batch-add-tables $t --h-basis $h --reps 5 --constraints 16777216 --out $OUT/p24-$v-$2 > $OUT/p24-$v-$2.log 2>&1
  grep -E "median of" $OUT/p24-$v-$2.log
  log p22 $v $2
  timeout 40 build-ab/$b/prooflab $OPTS --batch-add-tables $t --h-basis $h --reps 7 --constraints 4194304 --out $OUT/p22-$v-$2 > $OUT/p22-$v-$2.log 2>&1
  grep -E "median of" $OUT/p22-$v-$2.log
}
check() {  # $1: build, $2: constraints, $3: guard (s), $4: h_basis; quads, the sums against the CPU backend's
  log check $1 $2 $4
  timeout $3 build-ab/$1/prooflab $OPTS --batch-add-tables quads --h-basis $4 --reps 1 --constraints $2 --check --out $OUT/c$2-$1-$4 > $OUT/c$2-$1-$4.log 2>&1
  grep -hE "check vs|median of" $OUT/c$2-$1-$4.log
}
# The A/B that matters most first (monomial v coset, both with quads), in turn, then the 2^22
# check; what follows runs while the call has time left (LIMIT s of the command's, default 480).
LIMIT=${LIMIT:-480}
left() { [ $SECONDS -lt $((LIMIT - $1)) ]; }
run_phase quads 1; run_phase coset 1; run_phase fold 1
check gt 4194304 40 coset_fold_c
check gt 4194304 40 coset
run_phase quads 2; run_phase coset 2; run_phase fold 2
for v in pairs off fold36; do left 60 && run_phase $v 1; done
left 60 && check fold36 4194304 40 coset_fold_c
for v in pairs off fold36; do left 60 && run_phase $v 2; done
left 110 && check gt 16777216 100 coset_fold_c
log done
pack && rm -rf $OUT
