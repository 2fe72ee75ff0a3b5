// The NTT pass kernel: load this block's sets into shared memory, run s DIF stages there,
// write back with the coupling twiddles (or, in the last pass, the output scaling and the
// folded bit reversal). All index arithmetic lives in pass.cuh.
#include "gpu/ntt/ntt_kernel.hpp"

#include <mutex>
#include <string>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::ntt {
namespace {

// Three instantiations: up to 256 threads with room for three 64 KiB blocks per SM (the
// default plan; the bound keeps ptxas at <= 85 registers), the same for four blocks (64
// registers, a few spilled), and up to 512 threads for the 2^12-element blocks.
template <unsigned kBound, unsigned kMinBlocks>
__global__ void __launch_bounds__(kBound, kMinBlocks) ntt_pass_kernel(const __grid_constant__ PassArgs p) {
  extern __shared__ uint4 tile[];
  const Tile sh{tile, tile + (1u << p.log_elems())};
  pass_load(p, blockIdx.x, threadIdx.x, sh);
  __syncthreads();
  pass_stages(p, [&](auto&& step) { step(threadIdx.x, sh); }, [] { __syncthreads(); });
  pass_store(p, blockIdx.x, threadIdx.x, sh);
}

}  // namespace

void launch_pass(const PassArgs& p, cudaStream_t stream) {
  constexpr auto kSmall = ntt_pass_kernel<256, 3>;
  constexpr auto kSmallFour = ntt_pass_kernel<256, 4>;
  constexpr auto kLarge = ntt_pass_kernel<kMaxThreads, 1>;
  static std::once_flag attr_once;
  std::call_once(attr_once, [&] {
    for (auto* k : {kSmall, kSmallFour, kLarge})
      check_cuda(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int{32} << kMaxLogBlockElems),
                 "cudaFuncSetAttribute(ntt_pass_kernel, MaxDynamicSharedMemorySize)");
  });
  const std::size_t shared = std::size_t{32} << p.log_elems();
  if (p.threads <= 256 && p.blocks_per_sm == 4)
    kSmallFour<<<p.blocks(), p.threads, shared, stream>>>(p);
  else if (p.threads <= 256)
    kSmall<<<p.blocks(), p.threads, shared, stream>>>(p);
  else
    kLarge<<<p.blocks(), p.threads, shared, stream>>>(p);
  check_launch("ntt_pass_kernel");
}

void launch_passes(const std::vector<PassArgs>& passes, cudaStream_t stream) {
  for (const auto& p : passes) launch_pass(p, stream);
}

}  // namespace prooflab::gpu::ntt
