#include <cub/device/device_reduce.cuh>

#include "gpu/cuda_check.hpp"
#include "gpu/msm_plan/plan_kernels.hpp"

namespace prooflab::gpu::msm_plan {
namespace {

__global__ void __launch_bounds__(kPlanThreads) classify_words_kernel(ClassifyArgs args) {
  classify_word(args, std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x);
}

__global__ void __launch_bounds__(kPlanThreads) scatter_tails_kernel(ScatterArgs args) {
  scatter_word_tails(args, std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x);
}

unsigned blocks_for(std::uint64_t words) {
  return static_cast<unsigned>((words + kPlanThreads - 1) / kPlanThreads);
}

}  // namespace

void launch_classify_words(const ClassifyArgs& args, cudaStream_t stream) {
  const std::uint64_t words = args.query.words();
  if (words == 0) return;
  classify_words_kernel<<<blocks_for(words), kPlanThreads, 0, stream>>>(args);
  check_launch("msm_plan classify_words_kernel");
}

void launch_scatter_tails(const ScatterArgs& args, cudaStream_t stream) {
  const std::uint64_t words = args.query.words();
  if (words == 0) return;
  scatter_tails_kernel<<<blocks_for(words), kPlanThreads, 0, stream>>>(args);
  check_launch("msm_plan scatter_tails_kernel");
}

std::size_t sum_temp_bytes(std::size_t count) {
  std::size_t bytes = 0;
  check_cuda(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                    static_cast<std::uint32_t*>(nullptr), static_cast<int>(count)),
             "cub::DeviceReduce::Sum (temp size)");
  return bytes;
}

void sum(const std::uint32_t* in, std::uint32_t* out, std::size_t count, void* temp,
         std::size_t temp_bytes, cudaStream_t stream) {
  check_cuda(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<int>(count), stream),
             "cub::DeviceReduce::Sum");
}

}  // namespace prooflab::gpu::msm_plan
