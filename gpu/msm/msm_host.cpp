#include "gpu/msm/msm_host.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/core_points.hpp"
#include "gpu/msm/fixed_base.hpp"
#include "gpu/msm/group_table.hpp"

namespace prooflab::gpu::msm {
namespace {

template <class T>
memory::DeviceBuffer<T> upload(memory::DeviceAllocator& alloc, std::span<const T> host,
                               cudaStream_t stream, const char* stage) {
  memory::DeviceBuffer<T> buf(alloc, host.empty() ? 1 : host.size(), stream, stage);
  if (!host.empty())
    check_cuda(cudaMemcpyAsync(buf.get(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice,
                               stream),
               "cudaMemcpyAsync(msm upload)");
  return buf;
}

}  // namespace

curve::Xyzz<curve::G1Curve> to_core(const G1XyzzRaw& p) { return xyzz_from_raw<curve::G1Curve>(p); }

G1XyzzRaw to_raw(const curve::Xyzz<curve::G1Curve>& p) { return xyzz_to_raw<G1XyzzRaw>(p); }

curve::G1Jacobian to_jacobian(const G1XyzzRaw& p) { return to_core(p).to_jacobian(); }

curve::G2Jacobian to_jacobian(const G2XyzzRaw& p) {
  return xyzz_from_raw<curve::G2Curve>(p).to_jacobian();
}

curve::G1Jacobian msm(Msm& engine, const G1AffineRaw* d_bases,
                      std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                      const MsmOptions& opts, const char* stage) {
  static_assert(sizeof(prooflab::msm::Scalar) == 32);
  auto d_scalars = upload(engine.allocator(), scalars, stream, stage);
  return to_jacobian(engine.run(d_bases, reinterpret_cast<const std::uint32_t*>(d_scalars.get()),
                                scalars.size(), stream, opts, stage));
}

curve::G1Jacobian msm_indexed(Msm& engine, const G1AffineRaw* d_bases,
                              std::span<const std::uint32_t> index,
                              std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                              const MsmOptions& opts, const char* stage) {
  if (index.size() != scalars.size())
    throw std::invalid_argument("gpu msm: " + std::to_string(index.size()) + " indices and " +
                                std::to_string(scalars.size()) + " scalars");
  auto d_index = upload(engine.allocator(), index, stream, stage);
  auto d_scalars = upload(engine.allocator(), scalars, stream, stage);
  return to_jacobian(engine.run_indexed(d_bases, d_index.get(),
                                        reinterpret_cast<const std::uint32_t*>(d_scalars.get()),
                                        scalars.size(), stream, opts, stage));
}

curve::G1Jacobian msm_streamed(Msm& engine, std::span<const curve::G1Affine> bases,
                               std::span<const prooflab::msm::Scalar> scalars, std::size_t batch,
                               cudaStream_t stream, const char* stage) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("gpu msm: " + std::to_string(bases.size()) + " bases and " +
                                std::to_string(scalars.size()) + " scalars");
  auto d_scalars = upload(engine.allocator(), scalars, stream, stage);
  return to_jacobian(engine.run_streamed(reinterpret_cast<const G1AffineRaw*>(bases.data()),
                                         reinterpret_cast<const std::uint32_t*>(d_scalars.get()),
                                         scalars.size(), batch, stream, {}, stage));
}

curve::G1Jacobian msm_fixed_base(Msm& engine, const FixedBaseTable& table,
                                 std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                                 const MsmOptions& opts, const char* stage) {
  if (table.points() != scalars.size())
    throw std::invalid_argument("gpu msm: a fixed-base table of " + std::to_string(table.points()) +
                                " points and " + std::to_string(scalars.size()) + " scalars");
  auto d_scalars = upload(engine.allocator(), scalars, stream, stage);
  return to_jacobian(engine.run_fixed_base(table, reinterpret_cast<const std::uint32_t*>(d_scalars.get()),
                                           stream, opts, stage));
}

curve::G1Jacobian msm_from_host(memory::DeviceAllocator& alloc,
                                std::span<const curve::G1Affine> bases,
                                std::span<const prooflab::msm::Scalar> scalars, cudaStream_t stream,
                                const MsmOptions& opts) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("gpu msm: " + std::to_string(bases.size()) + " bases and " +
                                std::to_string(scalars.size()) + " scalars");
  DeviceBases d(alloc, bases, stream);
  Msm engine(alloc);
  return msm(engine, d.data(), scalars, stream, opts);
}

curve::G1Jacobian sum_selected(Msm& engine, const G1AffineRaw* d_bases, std::size_t n,
                               std::span<const std::uint64_t> bitmap, cudaStream_t stream,
                               const char* stage, const GroupTable* table) {
  if (bitmap.size() * 64 < n)
    throw std::invalid_argument("gpu batch_add: bitmap of " + std::to_string(bitmap.size()) +
                                " words for " + std::to_string(n) + " bases");
  if (table && table->points() != n)
    throw std::invalid_argument("gpu batch_add: a group table of " + std::to_string(table->points()) +
                                " bases for " + std::to_string(n));
  auto d_bitmap = upload(engine.allocator(), bitmap, stream, stage);
  return to_jacobian(table ? engine.sum_selected_grouped(d_bases, *table, d_bitmap.get(), stream, stage)
                           : engine.sum_selected(d_bases, d_bitmap.get(), n, stream, stage));
}

curve::G1Jacobian sum_selected_streamed(Msm& engine, std::span<const curve::G1Affine> bases,
                                        std::span<const std::uint64_t> bitmap, std::size_t batch,
                                        cudaStream_t stream, const char* stage) {
  if (bitmap.size() * 64 < bases.size())
    throw std::invalid_argument("gpu batch_add: bitmap of " + std::to_string(bitmap.size()) +
                                " words for " + std::to_string(bases.size()) + " bases");
  auto d_bitmap = upload(engine.allocator(), bitmap, stream, stage);
  return to_jacobian(engine.sum_selected_streamed(reinterpret_cast<const G1AffineRaw*>(bases.data()),
                                                  d_bitmap.get(), bases.size(), batch, stream,
                                                  stage));
}

curve::G2Jacobian g2_msm_indexed(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                                 std::span<const std::uint32_t> index,
                                 std::span<const prooflab::msm::Scalar> scalars,
                                 cudaStream_t stream, const MsmOptions& opts, const char* stage) {
  if (!index.empty() && index.size() != scalars.size())
    throw std::invalid_argument("gpu g2 msm: " + std::to_string(index.size()) + " indices and " +
                                std::to_string(scalars.size()) + " scalars");
  auto d_index = upload(alloc, index, stream, stage);
  auto d_scalars = upload(alloc, scalars, stream, stage);
  return to_jacobian(g2_run_indexed(alloc, d_bases, index.empty() ? nullptr : d_index.get(),
                                    reinterpret_cast<const std::uint32_t*>(d_scalars.get()),
                                    scalars.size(), stream, opts, stage));
}

curve::G2Jacobian g2_msm_from_host(memory::DeviceAllocator& alloc,
                                   std::span<const curve::G2Affine> bases,
                                   std::span<const prooflab::msm::Scalar> scalars,
                                   cudaStream_t stream, const MsmOptions& opts) {
  if (bases.size() != scalars.size())
    throw std::invalid_argument("gpu g2 msm: " + std::to_string(bases.size()) + " bases and " +
                                std::to_string(scalars.size()) + " scalars");
  G2DeviceBases d(alloc, bases, stream);
  return g2_msm_indexed(alloc, d.data(), {}, scalars, stream, opts);
}

curve::G2Jacobian g2_sum_selected(memory::DeviceAllocator& alloc, const G2AffineRaw* d_bases,
                                  std::size_t n, std::span<const std::uint64_t> bitmap,
                                  cudaStream_t stream, const char* stage) {
  if (bitmap.size() * 64 < n)
    throw std::invalid_argument("gpu g2 batch_add: bitmap of " + std::to_string(bitmap.size()) +
                                " words for " + std::to_string(n) + " bases");
  auto d_bitmap = upload(alloc, bitmap, stream, stage);
  return to_jacobian(g2_sum_selected(alloc, d_bases, d_bitmap.get(), n, stream, stage));
}

}  // namespace prooflab::gpu::msm
