// FixedBaseTable (the table's build: the bases copied as window 0, then one thread per point
// makes its other windows) and Msm::run_fixed_base (pippenger_run.hpp in its folded mode).
#include "gpu/msm/fixed_base.hpp"

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/fixed_base_kernels.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/pippenger_run.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu/stream_timing.hpp"

namespace prooflab::gpu::msm {
namespace {

// The width, checked: a valid window and W·n < 2^31 entries (the sort's and the values' limit).
unsigned checked_window_bits(std::size_t n, unsigned window_bits) {
  const unsigned c = window_bits ? window_bits : plan_fixed_base_window_bits(n);
  if (c < kMinWindowBits || c > kMaxWindowBits)
    throw std::invalid_argument("gpu fixed-base table: window_bits " + std::to_string(c) + " outside [" +
                                std::to_string(kMinWindowBits) + ", " + std::to_string(kMaxWindowBits) + "]");
  const unsigned windows = make_digit_plan(c, true).windows;
  if (n * windows >= (std::size_t{1} << 31))
    throw std::invalid_argument("gpu fixed-base table: " + std::to_string(n) + " points × " +
                                std::to_string(windows) + " windows (c = " + std::to_string(c) +
                                ") exceed 2^31 table entries");
  return c;
}

}  // namespace

unsigned FixedBaseTable::planned_window_bits(std::size_t n) { return checked_window_bits(n, 0); }

std::size_t FixedBaseTable::bytes(std::size_t n, unsigned window_bits) {
  const unsigned c = checked_window_bits(n, window_bits);
  return n * make_digit_plan(c, true).windows * sizeof(G1AffineRaw);
}

FixedBaseTable::FixedBaseTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n,
                               unsigned window_bits, cudaStream_t stream, const char* stage)
    : c_(checked_window_bits(n, window_bits)), windows_(make_digit_plan(c_, true).windows), n_(n) {
  if (n == 0) return;
  table_ = memory::DeviceBuffer<G1AffineRaw>(alloc, n * windows_, stream, stage);
  build_ms_ = timed_on_stream(stream, "fixed-base table", [&] {
    check_cuda(cudaMemcpyAsync(table_.get(), d_bases, n * sizeof(G1AffineRaw), cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync(fixed-base window 0)");
    kernels::fixed_base_table(reinterpret_cast<Affine32*>(table_.get()), n, c_, windows_, stream);
  });
}

namespace {

// The table's width in opts (0 or the table's own, else std::invalid_argument).
MsmOptions at_table_width(const FixedBaseTable& table, const MsmOptions& opts) {
  if (opts.window_bits != 0 && opts.window_bits != table.window_bits())
    throw std::invalid_argument("gpu msm: window_bits " + std::to_string(opts.window_bits) +
                                " differs from the fixed-base table's " + std::to_string(table.window_bits()));
  MsmOptions o = opts;
  o.window_bits = table.window_bits();
  return o;
}

G1XyzzRaw run_folded(memory::DeviceAllocator& alloc, const FixedBaseTable& table,
                     const run_detail::DeviceScalars& sc, cudaStream_t stream, const MsmOptions& opts,
                     const char* stage, MsmShape* shape) {
  return run_detail::run_pippenger<curve::G1Curve, Xyzz32, G1XyzzRaw>(
      alloc, table.data(), nullptr, sc, table.points(), stream, opts, kDefaultAccumulateMinBlocks, stage, shape,
      /*folded=*/true);
}

}  // namespace

G1XyzzRaw Msm::run_fixed_base(const FixedBaseTable& table, const std::uint32_t* d_scalars, cudaStream_t stream,
                              const MsmOptions& opts, const char* stage, MsmShape* shape) {
  const MsmOptions o = at_table_width(table, opts);
  if (table.points() == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  return run_folded(alloc_, table, run_detail::resident_scalars(d_scalars, table.points()), stream, o, stage,
                    shape);
}

G1XyzzRaw Msm::run_fixed_base_host_scalars(const FixedBaseTable& table, const std::uint32_t* h_scalars,
                                           cudaStream_t stream, const MsmOptions& opts, const char* stage,
                                           MsmShape* shape) {
  const MsmOptions o = at_table_width(table, opts);
  if (table.points() == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  return with_host_scalars(h_scalars, table.points(), stream, o, stage, [&](const run_detail::DeviceScalars& sc) {
    return run_folded(alloc_, table, sc, stream, o, stage, shape);
  });
}

}  // namespace prooflab::gpu::msm
