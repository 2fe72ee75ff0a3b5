// Msm::run and Msm::sum_selected for G1 (pippenger_run.hpp: the phases of pippenger.cuh in
// order on one stream, scratch from the budgeted allocator, the window sums combined on the
// host with core's arithmetic — Horner: W·c doublings, microseconds on the CPU, milliseconds
// for one device thread), and the streamed variants.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/pippenger_run.hpp"

namespace prooflab::gpu::msm {
namespace {

static_assert(sizeof(curve::G1Affine) == sizeof(Affine32) && sizeof(Affine32) == sizeof(G1AffineRaw));
static_assert(sizeof(Xyzz32) == sizeof(G1XyzzRaw));

using run_detail::scratch;

G1XyzzRaw as_raw(const Xyzz32& p) {
  G1XyzzRaw r;
  std::memcpy(&r, &p, sizeof r);
  return r;
}

}  // namespace

G1XyzzRaw Msm::run_indexed(const G1AffineRaw* d_bases, const std::uint32_t* d_index,
                           const std::uint32_t* d_scalars, std::size_t n, cudaStream_t stream,
                           const MsmOptions& opts, const char* stage, MsmShape* shape) {
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  return run_detail::run_pippenger<curve::G1Curve, Xyzz32, G1XyzzRaw>(
      alloc_, d_bases, d_index, d_scalars, n, stream, opts, kDefaultAccumulateMinBlocks, stage, shape);
}

// Runs fn(device batch, first, len) over the batches of host points [0, n): batch b + 1 is
// copied on a side stream into the other of two device buffers while fn works on batch b. fn
// must have finished with its buffer when it returns (run() and sum_selected() synchronise).
template <class Fn>
void Msm::for_each_batch(const G1AffineRaw* h_bases, std::size_t n, std::size_t batch,
                         cudaStream_t stream, const char* stage, Fn&& fn) {
  if (batch == 0) throw std::invalid_argument("gpu msm: streamed bases in batches of 0 points");
  if (n == 0) return;
  batch = std::min(batch, n);
  const std::size_t batches = (n + batch - 1) / batch;
  memory::DeviceBuffer<G1AffineRaw> buf[2] = {scratch<G1AffineRaw>(alloc_, batch, stream, stage),
                                              scratch<G1AffineRaw>(alloc_, batches > 1 ? batch : 1,
                                                                   stream, stage)};
  CopyStream& side = copy_stream();
  cudaStream_t copy = side.stream;
  cudaEvent_t* ready = side.ready;
  // The buffers go back to the pool when this call returns: the copies into them must be done.
  const auto cleanup = [&] { cudaStreamSynchronize(copy); };
  try {
    // The buffers come from the pool in `stream`'s order: make that visible to the copy stream.
    check_cuda(cudaEventRecord(ready[0], stream), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(copy, ready[0]), "cudaStreamWaitEvent");
    const auto upload = [&](std::size_t b) {
      const std::size_t first = b * batch, len = std::min(batch, n - first);
      check_cuda(cudaMemcpyAsync(buf[b % 2].get(), h_bases + first, len * sizeof(G1AffineRaw),
                                 cudaMemcpyHostToDevice, copy),
                 "cudaMemcpyAsync(msm streamed bases)");
      check_cuda(cudaEventRecord(ready[b % 2], copy), "cudaEventRecord");
    };
    upload(0);
    for (std::size_t b = 0; b < batches; ++b) {
      // Buffer (b + 1) % 2 was last read by fn for batch b − 1, which has returned.
      if (b + 1 < batches) upload(b + 1);
      check_cuda(cudaStreamWaitEvent(stream, ready[b % 2]), "cudaStreamWaitEvent");
      const std::size_t first = b * batch;
      fn(buf[b % 2].get(), first, std::min(batch, n - first));
    }
  } catch (...) {
    cleanup();
    throw;
  }
  cleanup();
}

Msm::CopyStream::CopyStream() {
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate(msm copy)");
  try {
    for (auto& e : ready)
      check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate(msm copy)");
  } catch (...) {
    for (auto& e : ready)
      if (e) cudaEventDestroy(e);
    cudaStreamDestroy(stream);
    throw;
  }
}

Msm::CopyStream::~CopyStream() {
  cudaStreamSynchronize(stream);
  for (auto& e : ready)
    if (e) cudaEventDestroy(e);
  cudaStreamDestroy(stream);
}

Msm::CopyStream& Msm::copy_stream() {
  if (!copy_) copy_ = std::make_unique<CopyStream>();
  return *copy_;
}

G1XyzzRaw Msm::run_streamed(const G1AffineRaw* h_bases, const std::uint32_t* d_scalars,
                            std::size_t n, std::size_t batch, cudaStream_t stream,
                            const MsmOptions& opts, const char* stage) {
  auto sum = curve::Xyzz<curve::G1Curve>::infinity();
  for_each_batch(h_bases, n, batch, stream, stage,
                 [&](const G1AffineRaw* d, std::size_t first, std::size_t len) {
                   sum = sum.add(to_core(run(d, d_scalars + 8 * first, len, stream, opts, stage)));
                 });
  return to_raw(sum);
}

G1XyzzRaw Msm::sum_selected_streamed(const G1AffineRaw* h_bases, const std::uint64_t* d_bitmap,
                                     std::size_t n, std::size_t batch, cudaStream_t stream,
                                     const char* stage) {
  batch = (batch + 63) / 64 * 64;  // each batch starts on a bitmap word
  auto sum = curve::Xyzz<curve::G1Curve>::infinity();
  for_each_batch(h_bases, n, batch, stream, stage,
                 [&](const G1AffineRaw* d, std::size_t first, std::size_t len) {
                   sum = sum.add(to_core(sum_selected(d, d_bitmap + first / 64, len, stream, stage)));
                 });
  return to_raw(sum);
}

G1XyzzRaw Msm::sum_selected(const G1AffineRaw* d_bases, const std::uint64_t* d_bitmap,
                            std::size_t n, cudaStream_t stream, const char* stage) {
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  const Xyzz32 s = run_detail::sum_selected_on_device<Xyzz32>(
      alloc_, reinterpret_cast<const Affine32*>(d_bases), d_bitmap, n, stream, stage);
  return as_raw(s);
}

}  // namespace prooflab::gpu::msm
