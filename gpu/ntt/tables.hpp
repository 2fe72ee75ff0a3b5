// The twiddle and scaling tables of one NTT size, computed on the host with core/field's Fr
// (so they are the CPU's values, bit for bit) into one contiguous array that the device
// Domain uploads in a single copy and the host simulator uses directly.
//
// Sizes for n = 2^k: the radix tables hold 2^(min(k,12)-1) entries each; every power table is
// two-level (lo: 2^ceil(k/2) entries, hi: 2^floor(k/2)), so all of them take ~6 MB at 2^27;
// the direct coupling table ω^(j·2^(k-L)), j < 2^L with L = min(k, coupling_log_size), adds
// 8 MB (L = 18), enough for every pass after the first of the automatic plans up to 2^27.
// The first-pass tables (TablesView::first_pass: n entries per direction, 1 GiB at 2^24) are
// built only on request: by the device Domain for the sizes first_pass_table_stages names, on
// the host by build_tables for the simulator.
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
  unsigned first_pass_s = 0;  // first-pass tables at first_fwd, first_inv (n each) when > 0
  std::size_t first_fwd = 0, first_inv = 0;
  struct Pair {
    std::size_t lo = 0, hi = 0;
  } partial_fwd, partial_inv, coset, coset_inv, intt_to_coset, h_final, h_final_canonical;
  Fr32 n_inv{};
};

inline constexpr unsigned kCouplingLogSize = 18;
// The largest size whose Domain builds first-pass tables (2^24: 2 × 512 MiB).
inline constexpr unsigned kFirstPassTableMaxLog = 24;

// Throws std::invalid_argument when log_n is outside [1, kMaxLogN] or coupling_log_size is 0.
// A smaller coupling_log_size lets the tests reach the direct table's shifted indices with
// small transforms. first_pass_s > 0 (< log_n): the first-pass tables of that s too, computed
// on the host with the kernel's own first_pass_twiddle (for the simulator; slow for large n).
HostTables build_tables(unsigned log_n, unsigned coupling_log_size = kCouplingLogSize,
                        unsigned first_pass_s = 0);

// Elements of build_tables(log_n)'s data (without first-pass tables).
std::size_t table_elements(unsigned log_n, unsigned coupling_log_size = kCouplingLogSize);

// The s of the first pass the tuned plan of 2^log_n runs, when that plan has more than one
// pass and kCouplingLogSize < log_n <= kFirstPassTableMaxLog (below, the direct coupling table
// serves the first pass): the first-pass tables a Domain of that size builds; else 0 (none).
unsigned first_pass_table_stages(unsigned log_n);

}  // namespace prooflab::gpu::ntt
