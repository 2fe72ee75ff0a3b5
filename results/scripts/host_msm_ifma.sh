#!/usr/bin/env bash
# The 8-lane IFMA MSM adder on a second CPU (the lent H200 host's Xeon), from binaries built
# on the development machine and carried in $CARRY (default build-devcarry/, made by
# `bash results/scripts/stage_host_bins.sh`):
#   1. correctness there: field_fp_x8_test, msm_cpu_test, poly_ntt_test, groth16_prove_test
#   2. BM_msm_g1 / BM_msm_g2 (IFMA adder) against the _scalar rows in the same run, one
#      thread and pool; BM_ntt (8-lane Fr butterflies)
#   3. prove-stage scaling of the porep-like circuit, 2^12..2^20 (issue 3)
# Writes everything into ${OUT:-./out}/host-msm.tar.gz (one file: the device tool returns few).
set -uo pipefail
# shellcheck source=results/scripts/host_env.sh
source "$(dirname "$0")/host_env.sh"
{ lscpu | head -20; grep -o -w 'avx512ifma\|avx512f' /proc/cpuinfo | sort | uniq -c; cat "$CARRY/COMMIT"; } > "$OUT/host.txt"

for t in field_fp_x8_test msm_cpu_test poly_ntt_test groth16_prove_test; do
  "$CARRY/$t" > "$OUT/$t.log" 2>&1 && echo "PASS $t" || echo "FAIL $t"
done | tee "$OUT/tests.txt"

"$CARRY/prooflab_bench" --benchmark_filter='BM_g1_add_mixed$|BM_g2_add_mixed$|BM_msm_g1(_scalar)?/(12|16|18|20)/|BM_msm_g1_mt/(16|18|20|22)/|BM_msm_g2(_scalar)?/(12|16)/|BM_msm_g2_mt/(16|18)/|BM_ntt(_mt)?/(16|20)$' \
  --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
  --benchmark_out="$OUT/msm_bench.json" --benchmark_out_format=json > "$OUT/msm_bench.txt" 2>&1
grep -E "median" "$OUT/msm_bench.txt"

for log in 12 14 16 18 20; do
  echo "== porep-like 2^$log"
  "$CARRY/prooflab" prove --circuit porep-like --constraints $((1 << log)) --partitions 2 \
    --out /tmp/prooflab-proof-$log 2>&1 || echo "FAILED 2^$log"
done > "$OUT/prove_scaling.log"
grep -E "^partition 1|constraints/s" "$OUT/prove_scaling.log"
tar -czf "$FINAL/host-msm.tar.gz" -C "$OUT" .
echo "host measurements done"
