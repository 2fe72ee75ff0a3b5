// The NTT pass kernel: load this block's sets into shared memory, run s DIF stages there,
// write back with the coupling twiddles (or, in the last pass, the output scaling and the
// folded bit reversal). All index arithmetic lives in pass.cuh.
#include "gpu/ntt/ntt_kernel.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <string>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::ntt {
namespace {

// Builds by launch bound: up to 256 threads with room for three 64 KiB blocks per SM (the
// bound keeps ptxas at <= 85 registers), the same for four blocks (64 registers, a few
// spilled), and up to 512 threads for the 2^12-element blocks; each with paired stages or
// single ones (pass_stages).
template <unsigned kBound, unsigned kMinBlocks, bool kPaired>
__global__ void __launch_bounds__(kBound, kMinBlocks)
    ntt_pass_kernel(const __grid_constant__ PassArgs p) {
  extern __shared__ uint4 tile[];
  const Tile sh{tile, tile + (1u << p.log_elems())};
  pass_load(p, blockIdx.x, threadIdx.x, sh);
  __syncthreads();
  pass_stages<kPaired>(
      p, [&](auto&& step) { step(threadIdx.x, sh); }, [] { __syncthreads(); });
  pass_store(p, blockIdx.x, threadIdx.x, sh);
}

__global__ void pass_table_kernel(const PowerTable partial, std::uint32_t log_n, std::uint32_t t,
                                  std::uint32_t s, Fr32* out) {
  const std::uint32_t size = 1u << (log_n - t);
  for (std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < size; g += gridDim.x * blockDim.x)
    store_elem(out, g, pass_twiddle(partial, log_n, t, s, g));
}

using PassKernel = void (*)(PassArgs);

template <bool kPaired>
PassKernel pick(const PassArgs& p) {
  if (p.threads > 256) return ntt_pass_kernel<kMaxThreads, 1, kPaired>;
  return p.blocks_per_sm == 4 ? ntt_pass_kernel<256, 4, kPaired> : ntt_pass_kernel<256, 3, kPaired>;
}

// The kernels' opt-in to more than 48 KiB of dynamic shared memory, once per device: the
// attribute belongs to the function in the current device's context, so a second GPU
// launching without its own call fails (bitsandbytes-foundation/bitsandbytes#1952 hit the
// same).
void allow_large_tiles_on_current_device() {
  static std::mutex mutex;
  static std::set<int> done;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard lock(mutex);
  if (done.count(device)) return;
  for (PassKernel k : {ntt_pass_kernel<256, 3, true>, ntt_pass_kernel<256, 4, true>,
                       ntt_pass_kernel<kMaxThreads, 1, true>, ntt_pass_kernel<256, 3, false>,
                       ntt_pass_kernel<256, 4, false>, ntt_pass_kernel<kMaxThreads, 1, false>})
    check_cuda(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int{32} << kMaxLogBlockElems),
               "cudaFuncSetAttribute(ntt_pass_kernel, MaxDynamicSharedMemorySize)");
  done.insert(device);
}

}  // namespace

void launch_pass(const PassArgs& p, cudaStream_t stream) {
  allow_large_tiles_on_current_device();
  const std::size_t shared = std::size_t{32} << p.log_elems();
  const PassKernel k = p.paired_stages ? pick<true>(p) : pick<false>(p);
  k<<<p.blocks(), p.threads, shared, stream>>>(p);
  check_launch("ntt_pass_kernel");
}

void launch_passes(const std::vector<PassArgs>& passes, cudaStream_t stream) {
  for (const auto& p : passes) launch_pass(p, stream);
}

void launch_pass_table(const PowerTable& partial, unsigned log_n, unsigned t, unsigned s, Fr32* out,
                       cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const std::size_t size = std::size_t{1} << (log_n - t);
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((size + kThreads - 1) / kThreads, 4096));
  pass_table_kernel<<<blocks, kThreads, 0, stream>>>(partial, log_n, t, s, out);
  check_launch("pass_table_kernel");
}

}  // namespace prooflab::gpu::ntt
