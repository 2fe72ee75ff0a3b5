// PairTable's build (one kernel: pair_table.cuh) and Msm::sum_selected_pairs (the batch
// addition of pippenger_run.hpp over the table).
#include "gpu/msm/pair_table.hpp"

#include <cstring>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/pair_table_kernels.hpp"
#include "gpu/msm/pippenger_run.hpp"
#include "gpu/stream_timing.hpp"

namespace prooflab::gpu::msm {

PairTable::PairTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n, cudaStream_t stream,
                     const char* stage)
    : n_(n) {
  if (n / 2 == 0) return;
  table_ = memory::DeviceBuffer<G1AffineRaw>(alloc, n / 2, stream, stage);
  build_ms_ = timed_on_stream(stream, "pair table", [&] {
    kernels::pair_table(reinterpret_cast<const Affine32*>(d_bases), n / 2, reinterpret_cast<Affine32*>(table_.get()),
                        stream);
  });
}

G1XyzzRaw Msm::sum_selected_pairs(const G1AffineRaw* d_bases, const PairTable& pairs, const std::uint64_t* d_bitmap,
                                  cudaStream_t stream, const char* stage) {
  const std::size_t n = pairs.points();
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  // A table of one point has no pairs: its data is null, which selects single bits (the same sum).
  const Xyzz32 s = run_detail::sum_selected_on_device<Xyzz32>(
      alloc_, reinterpret_cast<const Affine32*>(d_bases), d_bitmap, n, stream, stage,
      reinterpret_cast<const Affine32*>(pairs.data()));
  G1XyzzRaw r;
  static_assert(sizeof r == sizeof s);
  std::memcpy(&r, &s, sizeof r);
  return r;
}

}  // namespace prooflab::gpu::msm
