// The G2 MSM and batch addition: pippenger_run.hpp's driver with G2 buckets.
#include "gpu/msm/g2_msm.hpp"

#include "core/curve/g2.hpp"
#include "gpu/msm/pippenger_run.hpp"

namespace prooflab::gpu::msm {
namespace {

static_assert(sizeof(curve::G2Affine) == sizeof(G2Affine32) && sizeof(G2Affine32) == sizeof(G2AffineRaw));
static_assert(sizeof(curve::G2Xyzz) == sizeof(G2Xyzz32) && sizeof(G2Xyzz32) == sizeof(G2XyzzRaw));

G2XyzzRaw g2_infinity() { return xyzz_to_raw<G2XyzzRaw>(curve::G2Xyzz::infinity()); }

}  // namespace

std::size_t g2_scratch_bytes(std::size_t n, const MsmOptions& opts) {
  return scratch_bytes_for(n, opts, sizeof(G2Xyzz32));
}

G2XyzzRaw g2_run_indexed(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                         const std::uint32_t* d_index, const std::uint32_t* d_scalars,
                         std::size_t n, cudaStream_t stream, const MsmOptions& opts,
                         const char* stage, MsmShape* shape) {
  if (n == 0) return g2_infinity();
  return run_detail::run_pippenger<curve::G2Curve, G2Xyzz32, G2XyzzRaw>(
      alloc, d_bases, d_index, run_detail::resident_scalars(d_scalars, n), n, stream, opts,
      kG2DefaultAccumulateMinBlocks, stage,
      shape);
}

G2XyzzRaw g2_sum_selected(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                          const std::uint64_t* d_bitmap, std::size_t n, cudaStream_t stream,
                          const char* stage) {
  if (n == 0) return g2_infinity();
  const G2Xyzz32 s = run_detail::sum_selected_on_device<G2Xyzz32>(
      alloc, reinterpret_cast<const G2Affine32*>(d_bases), d_bitmap, n, stream, stage);
  G2XyzzRaw r;
  std::memcpy(&r, &s, sizeof r);
  return r;
}

}  // namespace prooflab::gpu::msm
