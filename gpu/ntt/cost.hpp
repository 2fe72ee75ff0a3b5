// The work model of a planned transform: Fr multiplications and bytes through device
// memory, from which docs/gpu.md predicts times and the benchmark prints its model column.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/ntt/pass.cuh"

namespace prooflab::gpu::ntt {

struct TransformCost {
  double fr_muls = 0;     // Montgomery multiplications
  double dram_bytes = 0;  // compulsory bytes: every pass reads and writes each element once
  unsigned passes = 0;
};

// Butterfly multiplications of one pass as the kernel issues them (per warp: a skipped
// twiddle ω^0 saves time only where a whole warp skips it, see PassArgs::twiddle_major).
inline double butterfly_muls(const PassArgs& p) {
  const double n = static_cast<double>(1ull << p.log_n);
  if (!p.paired_stages) return (p.s - 1) * n / 2;  // the last stage of a pass has twiddle 1
  double muls = 0;
  std::uint32_t u = 0;
  for (; u + 1 < p.s; u += 2) {
    const std::uint32_t q_log = p.s - u - 2;
    const double groups = n / 4;
    if (q_log == 0)
      muls += groups;  // j = 0 everywhere: only ω_4 on one butterfly
    else if (p.twiddle_major)
      muls += 4 * groups - 3 * groups / double(1u << q_log);
    else
      muls += 4 * groups;
  }
  return muls;  // an odd s leaves the last stage alone: twiddle 1
}

inline TransformCost estimate_cost(const std::vector<PassArgs>& passes) {
  TransformCost c;
  for (const auto& p : passes) {
    const double n = static_cast<double>(1ull << p.log_n);
    c.fr_muls += butterfly_muls(p);
    // Coupling twiddle: apply, plus build from the two-level table unless read directly (a
    // pass table: 32 bytes per entry, 2^(k-t) entries read by 2^t blocks each, once from DRAM).
    if (!p.last) c.fr_muls += p.coupling.powers || p.pass_coupling ? n : 2 * n;
    if (p.pass_coupling) c.dram_bytes += 32.0 * double(1ull << (p.log_n - p.t));
    if (p.in_mode == kInTable) c.fr_muls += 2 * n;
    if (p.in_mode == kInPointwise) c.fr_muls += n;
    if (p.last && p.out_mode == kOutScalar) c.fr_muls += n;
    if (p.last && p.out_mode == kOutTable) c.fr_muls += 2 * n;
    c.dram_bytes += 64 * n + (p.in_mode == kInPointwise ? 64 * n : 0);
    ++c.passes;
  }
  return c;
}

// 32-bit multiply-adds per Fr Montgomery multiplication (mont32.cuh): 2·8² for a·b, 2·8²
// for m·p, 8 for the m's.
inline constexpr double kImadPerFrMul = 4 * 64 + 8;

}  // namespace prooflab::gpu::ntt
