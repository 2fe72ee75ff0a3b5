// The host side of one device Pippenger MSM and one batch addition, generic over the group:
// the phases of pippenger.cuh launched in order on one stream (kernels overloaded on the
// bucket type, msm_kernels.hpp), scratch from the budgeted allocator, the window sums
// combined on the host with core's arithmetic (core_points.hpp). Msm (msm.cpp) runs it for
// G1, fixed_base.cpp for G1's fixed-base mode, g2_msm.cpp for G2. C++20 host code, included
// by those three .cpp files only.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/msm/core_points.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/msm_kernels.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu/prefix_sum.hpp"

namespace prooflab::gpu::msm::run_detail {

template <class T>
memory::DeviceBuffer<T> scratch(memory::DeviceAllocator& alloc, std::size_t count, cudaStream_t s,
                                const char* stage) {
  return memory::DeviceBuffer<T>(alloc, count ? count : 1, s, stage);
}

// Sums `count` > 0 device points to one on the device, in rounds of 512 per block (at least
// one round): a buffer holding the sum.
template <class Bucket>
memory::DeviceBuffer<Bucket> sum_on_device(memory::DeviceAllocator& alloc, const Bucket* in, std::size_t count,
                                           cudaStream_t stream, const char* stage) {
  constexpr std::size_t kPerBlock = 512;
  memory::DeviceBuffer<Bucket> a;  // frees are stream-ordered: after the kernels reading them
  const Bucket* cur = in;
  do {
    const std::size_t blocks = (count + kPerBlock - 1) / kPerBlock;
    auto next = scratch<Bucket>(alloc, blocks, stream, stage);
    kernels::sum_points(cur, count, kPerBlock, blocks, next.get(), stream);
    a = std::move(next);
    cur = a.get();
    count = blocks;
  } while (count > 1);
  return a;
}

// The same, returned to the host.
template <class Bucket>
Bucket reduce_to_one(memory::DeviceAllocator& alloc, const Bucket* in, std::size_t count,
                     cudaStream_t stream, const char* stage) {
  const auto sum = sum_on_device(alloc, in, count, stream, stage);
  Bucket out;
  check_cuda(cudaMemcpyAsync(&out, sum.get(), sizeof out, cudaMemcpyDeviceToHost, stream),
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

// Σ scalars[i]·bases[index ? index[i] : i] for i < n (n > 0), as core's curve::Xyzz<Curve>
// in its raw layout Raw. Bucket: XyzzPoint over Curve's field. folded: d_bases is a fixed-base
// table of W·n points for opts.window_bits (DigitPlan; d_index must be nullptr).
template <class Curve, class Bucket, class Raw>
Raw run_pippenger(memory::DeviceAllocator& alloc, const void* d_bases, const std::uint32_t* d_index,
                  const std::uint32_t* d_scalars, std::size_t n, cudaStream_t stream,
                  const MsmOptions& opts, unsigned default_min_blocks, const char* stage,
                  MsmShape* shape, bool folded = false) {
  const RunPlan p = make_run_plan(n, opts, default_min_blocks, folded);
  const std::size_t temp_bytes = kernels::sort_temp_bytes(p.entries, p.end_bit);
  auto keys0 = scratch<std::uint32_t>(alloc, p.entries, stream, stage);
  auto keys1 = scratch<std::uint32_t>(alloc, p.entries, stream, stage);
  auto vals0 = scratch<std::uint32_t>(alloc, p.entries, stream, stage);
  auto vals1 = scratch<std::uint32_t>(alloc, p.entries, stream, stage);
  auto temp = scratch<std::uint8_t>(alloc, temp_bytes, stream, stage);
  PhaseClock clock(shape != nullptr, stream);
  kernels::digits(p.digits, d_scalars, n, keys0.get(), vals0.get(), stream);
  clock.mark();
  const int sel = kernels::sort_pairs(keys0.get(), keys1.get(), vals0.get(), vals1.get(), p.entries,
                                      p.end_bit, temp.get(), temp_bytes, stream);
  clock.mark();
  temp.reset();
  auto buckets = scratch<Bucket>(alloc, p.bucket_count(), stream, stage);
  auto heads = scratch<Bucket>(alloc, p.chunks, stream, stage);
  auto tails = scratch<Bucket>(alloc, p.chunks, stream, stage);
  auto groups = scratch<Bucket>(alloc, p.fixup_groups(), stream, stage);
  check_cuda(cudaMemsetAsync(buckets.get(), 0, p.bucket_count() * sizeof(Bucket), stream),
             "cudaMemsetAsync(msm buckets)");  // ZZ = 0: every bucket starts at infinity
  const ChunkArgs<Bucket> ca =
      chunk_args(p, sel ? keys1.get() : keys0.get(), sel ? vals1.get() : vals0.get(), d_bases,
                 d_index, buckets.get(), heads.get(), tails.get(), groups.get());
  kernels::accumulate(ca, p.chunks, p.accumulate_min_blocks, stream);
  clock.mark();
  kernels::group_heads(ca, p.fixup_groups(), stream);
  kernels::fixup(ca, p.chunks, stream);
  clock.mark();
  keys0.reset();
  keys1.reset();
  vals0.reset();
  vals1.reset();
  heads.reset();
  tails.reset();
  groups.reset();

  auto segs = scratch<Bucket>(alloc, p.reduce_threads(), stream, stage);
  ReduceArgs<Bucket> ra{buckets.get(), p.digits.buckets, p.segment, p.segments, segs.get()};
  kernels::reduce(ra, p.reduce_threads(), stream);
  clock.mark();
  buckets.reset();
  // One block per window adds its segments; a single bucket set (fixed-base mode: all 2^16 or
  // so segments in one) is summed in rounds over many blocks instead (one block took 7 ms at
  // 2^24 on the H200).
  const std::uint32_t sets = p.digits.bucket_sets();
  memory::DeviceBuffer<Bucket> window_sums;
  if (sets == 1) {
    window_sums = sum_on_device(alloc, segs.get(), p.reduce_threads(), stream, stage);
  } else {
    window_sums = scratch<Bucket>(alloc, sets, stream, stage);
    kernels::sum_points(segs.get(), p.reduce_threads(), p.segments, sets, window_sums.get(), stream);
  }
  std::vector<Raw> host(sets);
  check_cuda(cudaMemcpyAsync(host.data(), window_sums.get(), host.size() * sizeof(Bucket),
                             cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(msm window sums)");
  clock.mark();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm)");
  const auto t_host = std::chrono::steady_clock::now();
  const Raw result =
      folded ? host[0] : xyzz_to_raw<Raw>(combine_window_sums<Curve>(std::span<const Raw>(host), p.digits.c));
  if (shape) {
    clock.read(shape->phase_ms, MsmShape::kPhases - 1);
    shape->phase_ms[MsmShape::kPhases - 1] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_host).count();
    shape->window_bits = p.digits.c;
    shape->windows = p.digits.windows;
    shape->buckets = p.digits.buckets;
    shape->bucket_sets = p.digits.bucket_sets();
    shape->entries = p.entries;
    shape->chunks = p.chunks;
    shape->scratch_bytes = scratch_bytes_for(n, opts, sizeof(Bucket), folded);
  }
  return result;
}

// Σ bases[i] over the bits set in d_bitmap (n > 0 bits, n < 2^32): the words' counts and their
// inclusive sums, the total read back, then equal shares of the selected bases per thread
// (batch_add_shares) and the partial sums reduced on the device.
template <class Bucket>
Bucket sum_selected_on_device(memory::DeviceAllocator& alloc, const typename Bucket::Affine* d_bases,
                              const std::uint64_t* d_bitmap, std::size_t n, cudaStream_t stream,
                              const char* stage) {
  if (n >= (std::size_t{1} << 32))
    throw std::invalid_argument("gpu batch_add: " + std::to_string(n) + " bases exceed 2^32");
  const std::size_t words = (n + 63) / 64;
  auto counts = scratch<std::uint32_t>(alloc, words, stream, stage);
  auto ends = scratch<std::uint32_t>(alloc, words, stream, stage);
  const std::size_t temp_bytes = inclusive_sum_temp_bytes(words);
  auto temp = scratch<std::uint8_t>(alloc, temp_bytes, stream, stage);
  kernels::bitmap_counts(d_bitmap, n, counts.get(), stream);
  inclusive_sum(counts.get(), ends.get(), words, temp.get(), temp_bytes, stream);
  std::uint32_t total = 0;
  check_cuda(cudaMemcpyAsync(&total, ends.get() + words - 1, sizeof total, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(batch_add total)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(batch_add total)");
  if (total == 0) return Bucket::infinity();
  const BatchAddShares sh = batch_add_shares(total);
  auto partial = scratch<Bucket>(alloc, sh.threads, stream, stage);
  kernels::bitmap_sum(d_bases, d_bitmap, n, ends.get(), sh.share, total, sh.threads, partial.get(), stream);
  return reduce_to_one(alloc, partial.get(), sh.threads, stream, stage);
}

}  // namespace prooflab::gpu::msm::run_detail
