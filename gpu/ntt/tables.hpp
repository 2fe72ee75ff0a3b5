// The twiddle and scaling tables of one NTT size, computed on the host with core/field's Fr
// (so they are the CPU's values, bit for bit) into one contiguous array that the device
// Domain uploads in a single copy and the host simulator uses directly.
//
// Sizes for n = 2^k: the radix tables hold 2^(min(k,12)-1) entries each; every power table is
// two-level (lo: 2^ceil(k/2) entries, hi: 2^floor(k/2)), so all of them take ~6 MB at 2^27;
// the direct coupling table ω^(j·2^(k-L)), j < 2^L with L = min(k, coupling_log_size), adds
// 8 MB (L = 18), enough for every pass after the first of the automatic plans up to 2^27.
#pragma once

#include <cstddef>
#include <vector>

#include "gpu/ntt/plan.hpp"

namespace prooflab::gpu::ntt {

struct HostTables {
  unsigned log_n = 0;
  std::vector<Fr32> data;
  // The view with every pointer relative to `base` (data.data() on the host, the device copy
  // of data on the device).
  TablesView view(const Fr32* base) const;

  // Offsets into data (elements), filled by build_tables.
  unsigned radix_log = 0, split = 0;
  std::size_t radix_fwd = 0, radix_inv = 0, coupling = 0;
  unsigned coupling_log_size = 0;
  struct Pair {
    std::size_t lo = 0, hi = 0;
  } partial_fwd, partial_inv, coset, coset_inv, intt_to_coset, h_final, h_final_canonical;
  Fr32 n_inv{};
};

inline constexpr unsigned kCouplingLogSize = 18;

// Throws std::invalid_argument when log_n is outside [1, kMaxLogN] or coupling_log_size is 0.
// A smaller coupling_log_size lets the tests reach the direct table's shifted indices with
// small transforms.
HostTables build_tables(unsigned log_n, unsigned coupling_log_size = kCouplingLogSize);

}  // namespace prooflab::gpu::ntt
