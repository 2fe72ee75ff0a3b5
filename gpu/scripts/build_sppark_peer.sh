#!/usr/bin/env bash
# Builds the peer timing driver gpu/bench/peers/sppark_side_by_side.cu against checkouts of
# supranational/sppark and supranational/blst that the caller provides (neither is part of this
# repository or of its default build: issue 24 item 3 keeps the comparison driver out of it).
#
#   SPPARK=/path/to/sppark BLST=/path/to/blst bash gpu/scripts/build_sppark_peer.sh [OUT_DIR]
#
# Builds blst's libblst.a in a copy under OUT_DIR (portable: ADX chosen at run time, since the
# device host's CPU is not this one), then the driver with nvcc for sm_90 (H200). Writes
# OUT_DIR/sppark_side_by_side (default OUT_DIR build-peer) and OUT_DIR/PEERS (the two commits).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-build-peer}
: "${SPPARK:?set SPPARK to a checkout of supranational/sppark}"
: "${BLST:?set BLST to a checkout of supranational/blst}"
for d in "$SPPARK/msm/pippenger.cuh" "$SPPARK/ntt/ntt.cuh" "$BLST/build.sh" "$BLST/bindings/blst.h"; do
  [ -f "$d" ] || { echo "build_sppark_peer: $d not found (SPPARK=$SPPARK BLST=$BLST)" >&2; exit 1; }
done
command -v nvcc >/dev/null || { echo "build_sppark_peer: nvcc not on PATH" >&2; exit 1; }
mkdir -p "$OUT/blst"
(cd "$OUT/blst" && bash "$(realpath "$BLST")/build.sh" -D__BLST_PORTABLE__ >/dev/null)
nvcc -O3 -std=c++17 -arch=sm_90 -DFEATURE_BLS12_381 \
  -I"$SPPARK" -I"$BLST/src" \
  gpu/bench/peers/sppark_side_by_side.cu "$SPPARK/util/all_gpus.cpp" \
  "$OUT/blst/libblst.a" -o "$OUT/sppark_side_by_side"
{
  echo "sppark $(git -C "$SPPARK" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "blst $(git -C "$BLST" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "driver $(git rev-parse HEAD)"
} >"$OUT/PEERS"
ls -la "$OUT/sppark_side_by_side"
