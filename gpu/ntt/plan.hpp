// Planning a transform: which passes (stages per pass, sets per block), which tables, which
// buffers. Host code, independent of where the tables live: the device path (ntt.cpp) and
// the host simulator of the tests build their passes with the same functions.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/ntt/pass.cuh"

namespace prooflab::gpu::ntt {

// The largest block the kernel supports: 2^12 elements, 128 KiB of shared memory.
inline constexpr unsigned kMaxLogBlockElems = 12;
inline constexpr unsigned kMaxThreads = 512;  // 80 registers per thread (ptxas) fit 512 threads
// Sizes the tables (and the 32-bit index arithmetic) support.
inline constexpr unsigned kMaxLogN = 27;

// Zero in log_block_elems, threads or blocks_per_sm means "as tuned for this size"
// (tuned_plan); explicit values are kept.
struct PlanOptions {
  unsigned log_block_elems = 0;  // elements per block, log2 (shared memory = 32·2^this bytes)
  unsigned threads = 0;          // threads per block (a power of two, at most kMaxThreads)
  std::vector<unsigned> stages;  // stages per pass, summing to log n; empty = automatic
  // Coupling twiddles after the first pass from the direct table where it reaches or the
  // pass tables (later_pass_tables); false: the later passes build them from the two-level
  // table.
  bool direct_coupling = true;
  bool paired_stages = true;     // two stages per shared-memory round trip (pass_stage_pair)
  // Blocks of up to 256 threads per SM the kernel is compiled for: 3 (80 registers) or 4 (64
  // registers, some spilled; needs log_block_elems <= 10 so that four blocks' shared memory
  // fits). Blocks of 512 threads always use the one-block kernel.
  unsigned blocks_per_sm = 0;
  // pass_stage_pair's group order: twiddle-major (whole warps skip the multiplications by 1)
  // when the block has at least this many sets side by side, else position-major.
  unsigned twiddle_major_min_sets = 1;
  // A pass reads its coupling twiddles from the domain's pass table where the domain has one
  // for this pass's t and s (TablesView::pass_tables): the first pass (t = 0) instead of
  // building them, a later one instead of reading the direct table at scattered indices.
  bool first_pass_table = true;
  bool later_pass_tables = true;
};

// The block shape measured fastest on the H200 for 2^log_n (results/2026-11-30-gpu-ntt-h200.md,
// "Session 3"): from 2^20 to 2^25, 2^9-element blocks of 128 threads built for four 256-thread
// blocks' worth of warps per SM (64 registers; 2^24: 4.29 ms against 4.41 with the 2^11
// blocks, 2^22: 1.03 against 1.16); elsewhere 2^11-element blocks of 256 threads, three per
// SM (2^26: 18.9 ms against 19.1).
PlanOptions tuned_plan(unsigned log_n);
// opt with its zero fields taken from tuned_plan(log_n); blocks_per_sm 4 only where the
// block size allows it.
PlanOptions resolve_plan(unsigned log_n, PlanOptions opt);

struct PassShape {
  unsigned s = 0, log_c = 0;  // stages; log2 of the sets per block
};

// Automatic: one pass up to 2^log_block_elems; otherwise ceil(log n / log_block_elems)
// passes of near-equal size, the larger ones first, each block as wide (C sets) as fits.
// Throws std::invalid_argument for options the kernel cannot run, naming the option.
std::vector<PassShape> plan_shapes(unsigned log_n, const PlanOptions& opt);

// Pointers to every table of one domain (on the device, or on the host for the simulator).
struct TablesView {
  unsigned log_n = 0, radix_log = 0;
  const Fr32* radix_fwd = nullptr;      // ω_{2^radix_log}^i, i < 2^(radix_log-1)
  const Fr32* radix_inv = nullptr;      // the same for ω^-1
  PowerTable partial_fwd, partial_inv;  // ω^e, ω^-e (e < n)
  CouplingTable coupling;               // ω^(j·2^log_step), j < 2^log_size (both directions)
  // pass_twiddle(partial_fwd / partial_inv, log_n, t, s, g) for g < 2^(log_n - t): the
  // coupling twiddles of a pass of s stages from stage t, one per element of a 2^(log_n - t)
  // block (fwd null: none). Where a Domain has them: tables.hpp, pass_table_shapes.
  struct PassTable {
    const Fr32* fwd = nullptr;
    const Fr32* inv = nullptr;
    unsigned t = 0, s = 0;
  };
  static constexpr unsigned kMaxPassTables = 2;  // a plan of up to three passes: all but the last
  PassTable pass_tables[kMaxPassTables];
  PowerTable coset;                     // g^i                 coset NTT input
  PowerTable coset_inv;                 // n^-1·g^-i           coset iNTT output
  PowerTable intt_to_coset;             // n^-1·g^i            iNTT output made coset NTT input
  PowerTable h_final;                   // n^-1·g^-i·Z(g)^-1   Groth16 H, Montgomery output
  PowerTable h_final_canonical;         // same ·R^-1          Groth16 H, canonical output
  Fr32 n_inv;                           // 1/n (Montgomery)
};

enum class Order { kNatural, kBitReversed };

// What one transform does beyond the DIF passes themselves (all inputs in natural order).
struct TransformSpec {
  bool inverse = false;
  std::uint32_t in_mode = kInNone;
  PowerTable in_table;
  std::uint32_t out_mode = kOutNone;
  PowerTable out_table;
  Fr32 out_scalar{};
  Order order = Order::kNatural;
};

TransformSpec forward_spec(const TablesView& t, Order order = Order::kNatural);
TransformSpec inverse_spec(const TablesView& t, Order order = Order::kNatural);
TransformSpec coset_forward_spec(const TablesView& t, Order order = Order::kNatural);
TransformSpec coset_inverse_spec(const TablesView& t, Order order = Order::kNatural);
// Groth16 H (see h.hpp): a, b, c go through h_to_coset_inverse then a plain forward transform
// (that pair is intt followed by coset_ntt with the 1/n and g^i scalings merged into one
// table); then h_final takes a, b, c at once (a·b - c) and returns the H coefficients.
TransformSpec h_to_coset_inverse_spec(const TablesView& t);
TransformSpec h_final_spec(const TablesView& t, bool canonical_output);

// The buffers of one transform. The first pass reads `in` (and in_b, in_c for a·b - c), the
// last writes `out`; passes in between work in place on `work`. With two or more passes
// `work` must differ from `out` (it may equal `in`, in_b or in_c, which are then destroyed);
// a single pass ignores `work` and may run in place (in == out).
struct TransformBuffers {
  const Fr32* in = nullptr;
  const Fr32* in_b = nullptr;
  const Fr32* in_c = nullptr;
  Fr32* work = nullptr;
  Fr32* out = nullptr;
};

std::vector<PassArgs> make_passes(const TransformSpec& spec, const TablesView& tables,
                                  const TransformBuffers& buffers, const PlanOptions& opt);

}  // namespace prooflab::gpu::ntt
