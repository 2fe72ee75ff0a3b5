// GroupTable's build (one kernel: group_table.cuh); the batch addition over it is
// Msm::sum_selected_grouped (msm.cpp).
#include "gpu/msm/group_table.hpp"

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/group_table.cuh"
#include "gpu/msm/group_table_kernels.hpp"
#include "gpu/stream_timing.hpp"

namespace prooflab::gpu::msm {

std::size_t GroupTable::entries(std::size_t n, unsigned group) {
  if (group != 2 && group != 4)
    throw std::invalid_argument("gpu group table: group " + std::to_string(group) + " is not 2 or 4");
  return group_table_entries(n, group);
}

GroupTable::GroupTable(memory::DeviceAllocator& alloc, const G1AffineRaw* d_bases, std::size_t n, unsigned group,
                       cudaStream_t stream, const char* stage)
    : n_(n), group_(group) {
  const std::size_t count = entries(n, group);
  if (count == 0) return;
  table_ = memory::DeviceBuffer<G1AffineRaw>(alloc, count, stream, stage);
  build_ms_ = timed_on_stream(stream, "group table", [&] {
    kernels::group_table(reinterpret_cast<const Affine32*>(d_bases), n, group, count,
                         reinterpret_cast<Affine32*>(table_.get()), stream);
  });
}

}  // namespace prooflab::gpu::msm
