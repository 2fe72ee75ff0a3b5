#include "gpu/msm_plan/device_plan.hpp"

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/msm_plan/plan_kernels.hpp"
#include "gpu/prefix_sum.hpp"

namespace prooflab::gpu::msm_plan {

void make_device_plans(memory::DeviceAllocator& alloc, const QueryView* queries, std::size_t count,
                       DeviceQueryPlan* out, cudaStream_t stream, const char* stage) {
  using memory::DeviceBuffer;
  // Per query: tails, ones_count, tail_count, tail_end (one 32-bit word each per word).
  std::vector<DeviceBuffer<std::uint32_t>> words(count);
  std::size_t temp_bytes = 1;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t w = queries[i].words();
    if (w) temp_bytes = std::max({temp_bytes, gpu::inclusive_sum_temp_bytes(w), sum_temp_bytes(w)});
  }
  DeviceBuffer<unsigned char> temp(alloc, temp_bytes, stream, stage);
  DeviceBuffer<std::uint32_t> totals(alloc, 2 * std::max<std::size_t>(count, 1), stream, stage);
  check_cuda(cudaMemsetAsync(totals.get(), 0, totals.bytes(), stream), "cudaMemsetAsync(prep_msm counts)");
  for (std::size_t i = 0; i < count; ++i) {
    const QueryView& q = queries[i];
    const std::size_t w = q.words();
    out[i].size = q.size;
    out[i].ones = DeviceBuffer<std::uint64_t>(alloc, w / 2, stream, stage);
    if (w == 0) continue;
    words[i] = DeviceBuffer<std::uint32_t>(alloc, 4 * w, stream, stage);
    std::uint32_t* base = words[i].get();
    ClassifyArgs args;
    args.query = q;
    args.ones = reinterpret_cast<std::uint32_t*>(out[i].ones.get());
    args.tails = base;
    args.ones_count = base + w;
    args.tail_count = base + 2 * w;
    launch_classify_words(args, stream);
    std::uint32_t* tail_end = base + 3 * w;
    gpu::inclusive_sum(args.tail_count, tail_end, w, temp.get(), temp_bytes, stream);
    sum(args.ones_count, totals.get() + 2 * i, w, temp.get(), temp_bytes, stream);
    check_cuda(cudaMemcpyAsync(totals.get() + 2 * i + 1, tail_end + w - 1, sizeof(std::uint32_t),
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync(prep_msm tail count)");
  }
  std::vector<std::uint32_t> host(totals.size());
  check_cuda(cudaMemcpyAsync(host.data(), totals.get(), totals.bytes(), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(prep_msm counts)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(prep_msm counts)");
  for (std::size_t i = 0; i < count; ++i) {
    DeviceQueryPlan& p = out[i];
    p.num_ones = host[2 * i];
    p.num_tails = host[2 * i + 1];
    p.zeros = p.size - p.num_ones - p.num_tails;
    p.tail_index = DeviceBuffer<std::uint32_t>(alloc, p.num_tails, stream, stage);
    p.tail_scalars = DeviceBuffer<field::Fr32>(alloc, p.num_tails, stream, stage);
    if (p.num_tails == 0) continue;
    const std::size_t w = queries[i].words();
    ScatterArgs args;
    args.query = queries[i];
    args.tails = words[i].get();
    args.tail_end = words[i].get() + 3 * w;
    args.tail_index = p.tail_index.get();
    args.tail_scalars = p.tail_scalars.get();
    launch_scatter_tails(args, stream);
  }
}

}  // namespace prooflab::gpu::msm_plan
