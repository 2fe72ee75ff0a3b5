// C++20 convenience over gpu/msm/msm.hpp and g2_msm.hpp: core types in, core types out
// (tests, the CUDA engine backend). Each call uploads what it is given and synchronises the
// stream.
#pragma once

#include <span>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/xyzz.hpp"
#include "core/msm/msm.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/g2_msm.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::gpu::msm {

curve::G1Jacobian to_jacobian(const G1XyzzRaw& p);
curve::Xyzz<curve::G1Curve> to_core(const G1XyzzRaw& p);
G1XyzzRaw to_raw(const curve::Xyzz<curve::G1Curve>& p);

curve::G2Jacobian to_jacobian(const G2XyzzRaw& p);

template <class Curve>
struct RawAffineOf;
template <>
struct RawAffineOf<curve::G1Curve> {
  using type = G1AffineRaw;
};
template <>
struct RawAffineOf<curve::G2Curve> {
  using type = G2AffineRaw;
};

// Points uploaded once and kept on the device (a proving key's query).
template <class Curve>
class DeviceBasesOf {
 public:
  using Raw = typename RawAffineOf<Curve>::type;
  DeviceBasesOf(memory::DeviceAllocator& alloc, std::span<const curve::Affine<Curve>> points,
                cudaStream_t stream, const char* stage = "bases")
      : buf_(alloc, points.empty() ? 1 : points.size(), stream, stage) {
    static_assert(sizeof(curve::Affine<Curve>) == sizeof(Raw));
    if (!points.empty())
      check_cuda(cudaMemcpyAsync(buf_.get(), points.data(), points.size_bytes(),
                                 cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync(msm bases)");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm bases)");
    count_ = points.size();
  }
  const Raw* data() const { return buf_.get(); }
  std::size_t size() const { return count_; }

 private:
  memory::DeviceBuffer<Raw> buf_;
  std::size_t count_ = 0;
};
using DeviceBases = DeviceBasesOf<curve::G1Curve>;
using G2DeviceBases = DeviceBasesOf<curve::G2Curve>;

// Σ scalars[i]·bases[i]; scalars are uploaded from host memory on every call.
curve::G1Jacobian msm(Msm& engine, const G1AffineRaw* d_bases,
                      std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                      const MsmOptions& opts = {}, const char* stage = "msm");
// Σ scalars[i]·d_bases[index[i]]; index and scalars are uploaded on every call.
curve::G1Jacobian msm_indexed(Msm& engine, const G1AffineRaw* d_bases,
                              std::span<const std::uint32_t> index,
                              std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                              const MsmOptions& opts = {}, const char* stage = "msm");
// Σ scalars[i]·P_i over the table's bases (fixed-base mode, Msm::run_fixed_base); scalars uploaded.
curve::G1Jacobian msm_fixed_base(Msm& engine, const FixedBaseTable& table,
                                 std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                                 const MsmOptions& opts = {}, const char* stage = "msm");
// Bases in host memory (streamed in batches, Msm::run_streamed); scalars uploaded.
curve::G1Jacobian msm_streamed(Msm& engine, std::span<const curve::G1Affine> bases,
                               std::span<const prooflab::msm::Scalar> scalars, std::size_t batch,
                               cudaStream_t stream, const char* stage = "msm");
// Both uploaded, for tests.
curve::G1Jacobian msm_from_host(memory::DeviceAllocator& alloc,
                                std::span<const curve::G1Affine> bases,
                                std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                                const MsmOptions& opts = {});
// Σ of the bases whose bit is set (core's QueryPlan::ones layout); the bitmap is uploaded.
// table: the bases' group table (n = table->points(); Msm::sum_selected_grouped), or nullptr.
curve::G1Jacobian sum_selected(Msm& engine, const G1AffineRaw* d_bases, std::size_t n,
                               std::span<const std::uint64_t> bitmap, cudaStream_t stream,
                               const char* stage = "batch_add", const GroupTable* table = nullptr);
// The same with the bases in host memory, streamed in batches (Msm::sum_selected_streamed).
curve::G1Jacobian sum_selected_streamed(Msm& engine, std::span<const curve::G1Affine> bases,
                                        std::span<const std::uint64_t> bitmap, std::size_t batch,
                                        cudaStream_t stream, const char* stage = "batch_add");

// G2: Σ scalars[i]·d_bases[index[i]] (index empty: d_bases[i]); index and scalars uploaded.
curve::G2Jacobian g2_msm_indexed(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                                 std::span<const std::uint32_t> index,
                                 std::span<const prooflab::msm::Scalar> scalars,
                                 cudaStream_t stream, const MsmOptions& opts = {},
                                 const char* stage = "g2_msm");
// G2, both uploaded, for tests.
curve::G2Jacobian g2_msm_from_host(memory::DeviceAllocator& alloc,
                                   std::span<const curve::G2Affine> bases,
                                   std::span<const prooflab::msm::Scalar> scalars,
                                   cudaStream_t stream, const MsmOptions& opts = {});
// G2: Σ of the bases whose bit is set; the bitmap is uploaded.
curve::G2Jacobian g2_sum_selected(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                                  std::size_t n, std::span<const std::uint64_t> bitmap,
                                  cudaStream_t stream, const char* stage = "g2_batch_add");

}  // namespace prooflab::gpu::msm
