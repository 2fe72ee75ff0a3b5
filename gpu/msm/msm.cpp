// Msm::run and Msm::sum_selected: the phases of pippenger.cuh in order on one stream, scratch
// from the budgeted allocator, the window sums combined on the host with core's arithmetic
// (Horner: W·c doublings, microseconds on the CPU, milliseconds for one device thread).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm/msm_kernels.hpp"
#include "gpu/msm/plan.hpp"

namespace prooflab::gpu::msm {
namespace {

static_assert(sizeof(curve::G1Affine) == sizeof(Affine32) && sizeof(Affine32) == sizeof(G1AffineRaw));
static_assert(sizeof(Xyzz32) == sizeof(G1XyzzRaw));

G1XyzzRaw as_raw(const Xyzz32& p) {
  G1XyzzRaw r;
  std::memcpy(&r, &p, sizeof r);
  return r;
}

template <class T>
memory::DeviceBuffer<T> scratch(memory::DeviceAllocator& alloc, std::size_t count, cudaStream_t s,
                                const char* stage) {
  return memory::DeviceBuffer<T>(alloc, count ? count : 1, s, stage);
}

// Sums `count` device points to one, in rounds of 512 per block; returns it to the host.
Xyzz32 reduce_to_one(memory::DeviceAllocator& alloc, const Xyzz32* in, std::size_t count,
                     cudaStream_t stream, const char* stage) {
  constexpr std::size_t kPerBlock = 512;
  memory::DeviceBuffer<Xyzz32> a;  // frees are stream-ordered: after the kernels reading them
  const Xyzz32* cur = in;
  while (count > 1) {
    const std::size_t blocks = (count + kPerBlock - 1) / kPerBlock;
    auto next = scratch<Xyzz32>(alloc, blocks, stream, stage);
    kernels::sum_points(cur, count, kPerBlock, blocks, next.get(), stream);
    a = std::move(next);
    cur = a.get();
    count = blocks;
  }
  Xyzz32 out;
  check_cuda(cudaMemcpyAsync(&out, cur, sizeof out, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(msm sum)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm sum)");
  return out;
}

// Events between the phases when the caller asked for a shape (else no-ops).
class PhaseClock {
 public:
  PhaseClock(bool on, cudaStream_t s) : on_(on), stream_(s) {
    if (!on_) return;
    for (auto& e : ev_) check_cuda(cudaEventCreate(&e), "cudaEventCreate(msm phase)");
    mark();
  }
  ~PhaseClock() {
    if (on_)
      for (auto& e : ev_) cudaEventDestroy(e);
  }
  void mark() {
    if (on_ && used_ < kEvents) check_cuda(cudaEventRecord(ev_[used_++], stream_), "cudaEventRecord");
  }
  // After the stream is synchronised: the intervals between consecutive marks.
  void read(double* ms, int count) const {
    for (int i = 0; on_ && i < count && i + 1 < used_; ++i) {
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, ev_[i], ev_[i + 1]), "cudaEventElapsedTime");
      ms[i] = t;
    }
  }

 private:
  static constexpr int kEvents = MsmShape::kPhases;  // the last phase is host time
  bool on_;
  cudaStream_t stream_;
  cudaEvent_t ev_[kEvents] = {};
  int used_ = 0;
};

}  // namespace

G1XyzzRaw Msm::run_indexed(const G1AffineRaw* d_bases, const std::uint32_t* d_index,
                           const std::uint32_t* d_scalars, std::size_t n, cudaStream_t stream,
                           const MsmOptions& opts, const char* stage, MsmShape* shape) {
  if (n == 0) return to_raw(curve::Xyzz<curve::G1Curve>::infinity());
  const RunPlan p = make_run_plan(n, opts);
  const std::size_t temp_bytes = kernels::sort_temp_bytes(p.entries, p.end_bit);
  auto keys0 = scratch<std::uint32_t>(alloc_, p.entries, stream, stage);
  auto keys1 = scratch<std::uint32_t>(alloc_, p.entries, stream, stage);
  auto vals0 = scratch<std::uint32_t>(alloc_, p.entries, stream, stage);
  auto vals1 = scratch<std::uint32_t>(alloc_, p.entries, stream, stage);
  auto temp = scratch<std::uint8_t>(alloc_, temp_bytes, stream, stage);
  PhaseClock clock(shape != nullptr, stream);
  kernels::digits(p.digits, d_scalars, n, keys0.get(), vals0.get(), stream);
  clock.mark();
  const int sel = kernels::sort_pairs(keys0.get(), keys1.get(), vals0.get(), vals1.get(), p.entries,
                                      p.end_bit, temp.get(), temp_bytes, stream);
  clock.mark();
  temp.reset();
  auto buckets = scratch<Xyzz32>(alloc_, p.bucket_count(), stream, stage);
  auto heads = scratch<Xyzz32>(alloc_, p.chunks, stream, stage);
  auto tails = scratch<Xyzz32>(alloc_, p.chunks, stream, stage);
  check_cuda(cudaMemsetAsync(buckets.get(), 0, p.bucket_count() * sizeof(Xyzz32), stream),
             "cudaMemsetAsync(msm buckets)");  // ZZ = 0: every bucket starts at infinity
  const ChunkArgs ca = chunk_args(p, sel ? keys1.get() : keys0.get(), sel ? vals1.get() : vals0.get(),
                                  d_bases, d_index, buckets.get(), heads.get(), tails.get());
  kernels::accumulate(ca, p.chunks, p.accumulate_min_blocks, stream);
  clock.mark();
  kernels::fixup(ca, p.chunks, stream);
  clock.mark();
  keys0.reset();
  keys1.reset();
  vals0.reset();
  vals1.reset();
  heads.reset();
  tails.reset();

  auto segs = scratch<Xyzz32>(alloc_, p.reduce_threads(), stream, stage);
  ReduceArgs ra{buckets.get(), p.digits.buckets, p.segment, p.segments, segs.get()};
  kernels::reduce(ra, p.reduce_threads(), stream);
  clock.mark();
  buckets.reset();
  auto window_sums = scratch<Xyzz32>(alloc_, p.digits.windows, stream, stage);
  kernels::sum_points(segs.get(), p.reduce_threads(), p.segments, p.digits.windows,
                      window_sums.get(), stream);
  std::vector<G1XyzzRaw> host(p.digits.windows);
  check_cuda(cudaMemcpyAsync(host.data(), window_sums.get(), host.size() * sizeof(Xyzz32),
                             cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(msm window sums)");
  clock.mark();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm)");
  const auto t_host = std::chrono::steady_clock::now();
  const G1XyzzRaw result = to_raw(combine_windows(host, p.digits.c));
  if (shape) {
    clock.read(shape->phase_ms, MsmShape::kPhases - 1);
    shape->phase_ms[MsmShape::kPhases - 1] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_host).count();
    shape->window_bits = p.digits.c;
    shape->windows = p.digits.windows;
    shape->buckets = p.digits.buckets;
    shape->entries = p.entries;
    shape->chunks = p.chunks;
    shape->scratch_bytes = scratch_bytes(n, opts);
  }
  return result;
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
  constexpr std::size_t kMaxThreads = std::size_t{1} << 16;
  const std::size_t words = (n + 63) / 64;
  const std::size_t per_thread = (words + kMaxThreads - 1) / kMaxThreads;
  const std::size_t threads = (words + per_thread - 1) / per_thread;
  auto partial = scratch<Xyzz32>(alloc_, threads, stream, stage);
  kernels::bitmap_sum(reinterpret_cast<const Affine32*>(d_bases), d_bitmap, n, per_thread, threads,
                      partial.get(), stream);
  return as_raw(reduce_to_one(alloc_, partial.get(), threads, stream, stage));
}

}  // namespace prooflab::gpu::msm
