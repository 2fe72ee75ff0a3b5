// PairTable's build (one kernel: pair_table.cuh); the batch addition over it is
// Msm::sum_selected_pairs (msm.cpp).
#include "gpu/msm/pair_table.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/msm/pair_table_kernels.hpp"
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

}  // namespace prooflab::gpu::msm
