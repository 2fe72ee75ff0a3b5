// The twiddle and scaling tables of one NTT size, computed on the host with core/field's Fr
// (so they are the CPU's values, bit for bit) into one contiguous array that the device
// Domain uploads in a single copy and the host simulator uses directly.
//
// Sizes for n = 2^k: the radix tables hold 2^(min(k,12)-1) entries each; every power table is
// two-level (lo: 2^ceil(k/2) entries, hi: 2^floor(k/2)), so all of them take ~6 MB at 2^27;
// the direct coupling table ω^(j·2^(k-L)), j < 2^L with L = min(k, coupling_log_size), adds
// 8 MB (L = 18), enough for every pass after the first of the automatic plans up to 2^27.
// The pass tables (TablesView::pass_tables: 2^(k-t) entries per direction for a pass from
// stage t; the first pass's 1 GiB at 2^24, a later pass's a few MiB) are built only on
// request: by the device Domain for the passes pass_table_shapes names, on the host by
// build_tables for the simulator.
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
  struct PassTableAt {
    unsigned t = 0, s = 0;
    std::size_t fwd = 0, inv = 0;  // 2^(log_n - t) entries each
  };
  std::vector<PassTableAt> pass_tables;
  struct Pair {
    std::size_t lo = 0, hi = 0;
  } partial_fwd, partial_inv, coset, coset_inv, intt_to_coset, h_final, h_final_canonical;
  Fr32 n_inv{};
};

inline constexpr unsigned kCouplingLogSize = 18;
// The largest size whose Domain builds a first pass's table (2^24: 2 × 512 MiB).
inline constexpr unsigned kFirstPassTableMaxLog = 24;

// A pass (its first stage t, its s stages) that has a pass table.
struct PassTableShape {
  unsigned t = 0, s = 0;
  bool operator==(const PassTableShape&) const = default;
};

// Throws std::invalid_argument when log_n is outside [1, kMaxLogN], coupling_log_size is 0,
// more than TablesView::kMaxPassTables pass tables are asked for or one of them is not a pass
// before the last (t + s < log_n). A smaller coupling_log_size lets the tests reach the direct
// table's shifted indices with small transforms. pass_tables: those tables too, computed on
// the host with the kernel's own pass_twiddle (for the simulator; slow for large n).
HostTables build_tables(unsigned log_n, unsigned coupling_log_size = kCouplingLogSize,
                        const std::vector<PassTableShape>& pass_tables = {});

// Elements of build_tables(log_n)'s data (without pass tables).
std::size_t table_elements(unsigned log_n, unsigned coupling_log_size = kCouplingLogSize);

// The passes of the tuned plan of 2^log_n that a Domain of that size builds tables for: every
// pass but the last, the first only where kCouplingLogSize < log_n <= kFirstPassTableMaxLog
// (below, the direct coupling table serves it without a multiplication; above, its table would
// take 4 GiB at 2^26). Empty for a single pass.
std::vector<PassTableShape> pass_table_shapes(unsigned log_n);

// Entries (per direction) of the pass tables pass_table_shapes(log_n) names.
std::size_t pass_table_entries(unsigned log_n);

}  // namespace prooflab::gpu::ntt
