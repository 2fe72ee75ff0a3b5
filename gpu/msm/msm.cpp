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
#include "gpu/msm/group_table.hpp"
#include "gpu/msm/pippenger_run.hpp"
#include "gpu/msm/plan.hpp"

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
      alloc_, d_bases, d_index, run_detail::resident_scalars(d_scalars, n), n, stream, opts,
      kDefaultAccumulateMinBlocks, stage, shape);
}

G1XyzzRaw Msm::run_host_scalars(const G1AffineRaw* d_bases, const std::uint32_t* h_scalars, std::size_t n,
                                cudaStream_t stream, const MsmOptions& opts, const char* stage, MsmShape* shape) {
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  return with_host_scalars(h_scalars, n, stream, opts, stage, [&](const run_detail::DeviceScalars& sc) {
    return run_detail::run_pippenger<curve::G1Curve, Xyzz32, G1XyzzRaw>(
        alloc_, d_bases, nullptr, sc, n, stream, opts, kDefaultAccumulateMinBlocks, stage, shape);
  });
}

G1XyzzRaw Msm::with_host_scalars(const std::uint32_t* h_scalars, std::size_t n, cudaStream_t stream,
                                 const MsmOptions& opts, const char* stage,
                                 const std::function<G1XyzzRaw(const run_detail::DeviceScalars&)>& run) {
  run_detail::DeviceScalars sc;
  sc.pieces = plan_scalar_pieces(n, opts.scalar_pieces, opts.sort_ahead);
  make_run_plan(n, opts);  // the options' errors before any copy (the run makes it again)
  auto d_scalars = scratch<std::uint32_t>(alloc_, 8 * n, stream, stage);
  sc.d_scalars = d_scalars.get();
  CopyStream& side = copy_stream();
  // The copies write into scratch the pool gave in `stream`'s order, and the buffer goes back
  // to the pool when this call returns: they start after that point and must be done by then.
  const auto cleanup = [&] { cudaStreamSynchronize(side.stream); };
  try {
    const cudaEvent_t allocated = side.ready(sc.pieces.size());
    check_cuda(cudaEventRecord(allocated, stream), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(side.stream, allocated), "cudaStreamWaitEvent");
    for (std::size_t k = 0; k < sc.pieces.size(); ++k) {
      const ScalarPiece& piece = sc.pieces[k];
      check_cuda(cudaMemcpyAsync(d_scalars.get() + 8 * piece.first, h_scalars + 8 * piece.first,
                                 piece.len * 32, cudaMemcpyHostToDevice, side.stream),
                 "cudaMemcpyAsync(msm host scalars)");
      sc.ready.push_back(side.ready(k));
      check_cuda(cudaEventRecord(sc.ready.back(), side.stream), "cudaEventRecord");
    }
    const G1XyzzRaw sum = run(sc);
    cleanup();
    return sum;
  } catch (...) {
    cleanup();
    throw;
  }
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
  const cudaEvent_t ready[2] = {side.ready(0), side.ready(1)};
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
}

Msm::CopyStream::~CopyStream() {
  cudaStreamSynchronize(stream);
  for (auto& e : events_) cudaEventDestroy(e);
  cudaStreamDestroy(stream);
}

cudaEvent_t Msm::CopyStream::ready(std::size_t i) {
  while (events_.size() <= i) {
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate(msm copy)");
    events_.push_back(e);
  }
  return events_[i];
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

G1XyzzRaw Msm::sum_selected_grouped(const G1AffineRaw* d_bases, const GroupTable& table,
                                    const std::uint64_t* d_bitmap, cudaStream_t stream, const char* stage) {
  const std::size_t n = table.points();
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  // A table of one point has no groups: its data is null, and single bits give the same sum.
  const Xyzz32 s = run_detail::sum_selected_on_device<Xyzz32>(
      alloc_, reinterpret_cast<const Affine32*>(d_bases), d_bitmap, n, stream, stage,
      reinterpret_cast<const Affine32*>(table.data()), table.data() ? table.group() : 1);
  return as_raw(s);
}

}  // namespace prooflab::gpu::msm
