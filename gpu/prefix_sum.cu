#include "gpu/prefix_sum.hpp"

#include <cub/device/device_scan.cuh>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu {

std::size_t inclusive_sum_temp_bytes(std::size_t count) {
  std::size_t bytes = 0;
  check_cuda(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                           static_cast<std::uint32_t*>(nullptr), static_cast<int>(count)),
             "cub::DeviceScan::InclusiveSum (temp size)");
  return bytes;
}

void inclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::size_t count, void* temp,
                   std::size_t temp_bytes, cudaStream_t stream) {
  check_cuda(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, static_cast<int>(count), stream),
             "cub::DeviceScan::InclusiveSum");
}

}  // namespace prooflab::gpu
