// The host side of one device Pippenger MSM and one batch addition, generic over the group:
// the phases of pippenger.cuh launched in order on one stream (kernels overloaded on the
// bucket type, msm_kernels.hpp), scratch from the budgeted allocator, the window sums
// combined on the host with core's arithmetic (core_points.hpp). Msm (msm.cpp) runs it for
// G1, fixed_base.cpp for G1's fixed-base mode, g2_msm.cpp for G2. C++20 host code, included
// by those three .cpp files only.
#pragma once

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
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

// Sums each of `sets` sets of set_len > 0 device points (in, one set after the other) to one
// point on the device, in rounds of kSumPerBlock points per block (plan.hpp; at least one
// round): a buffer of the sets' sums.
template <class Bucket>
memory::DeviceBuffer<Bucket> sum_on_device(memory::DeviceAllocator& alloc, const Bucket* in, std::size_t set_len,
                                           std::size_t sets, cudaStream_t stream, const char* stage) {
  memory::DeviceBuffer<Bucket> a;  // frees are stream-ordered: after the kernels reading them
  const Bucket* cur = in;
  do {
    const std::size_t per_set = (set_len + kSumPerBlock - 1) / kSumPerBlock;
    auto next = scratch<Bucket>(alloc, sets * per_set, stream, stage);
    kernels::sum_points(cur, set_len, kSumPerBlock, sets, next.get(), stream);
    a = std::move(next);
    cur = a.get();
    set_len = per_set;
  } while (set_len > 1);
  return a;
}

// The same, returned to the host.
template <class Bucket>
Bucket reduce_to_one(memory::DeviceAllocator& alloc, const Bucket* in, std::size_t count,
                     cudaStream_t stream, const char* stage) {
  const auto sum = sum_on_device(alloc, in, count, 1, stream, stage);
  Bucket out;
  check_cuda(cudaMemcpyAsync(&out, sum.get(), sizeof out, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(msm sum)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm sum)");
  return out;
}

// The scalars of one run on the device: every point's (8 words each) at d_scalars, the pieces
// the run works through (one, [0, n), for scalars already there), and for host scalars the
// event after which piece k's copy is there (recorded on a copy stream; empty: nothing to wait
// for).
struct DeviceScalars {
  const std::uint32_t* d_scalars = nullptr;
  std::vector<ScalarPiece> pieces;
  std::vector<cudaEvent_t> ready;
};

// One set of the sort's buffers: keys and values, each double-buffered, and CUB's temporary.
struct SortBuffers {
  SortBuffers(memory::DeviceAllocator& alloc, std::size_t entries, std::size_t temp_bytes, cudaStream_t s,
              const char* stage)
      : keys0(scratch<std::uint32_t>(alloc, entries, s, stage)),
        keys1(scratch<std::uint32_t>(alloc, entries, s, stage)),
        vals0(scratch<std::uint32_t>(alloc, entries, s, stage)),
        vals1(scratch<std::uint32_t>(alloc, entries, s, stage)),
        temp(scratch<std::uint8_t>(alloc, temp_bytes, s, stage)) {}
  memory::DeviceBuffer<std::uint32_t> keys0, keys1, vals0, vals1;
  memory::DeviceBuffer<std::uint8_t> temp;
};

// The side stream of sort_ahead and its events: sorted(k) after piece k's sort on it, done(k)
// on the main stream after piece k's fix-up. Its destructor waits for its work.
class SideStream {
 public:
  // high: the device's highest stream priority (MsmOptions::sort_ahead_priority).
  SideStream(std::size_t events, bool high) : events_(events + 1, nullptr) {
    int least = 0, greatest = 0;
    if (high) check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    check_cuda(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, high ? greatest : 0),
               "cudaStreamCreate(msm sort ahead)");
    for (auto& e : events_) check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~SideStream() {
    cudaStreamSynchronize(stream);
    for (auto& e : events_) cudaEventDestroy(e);
    cudaStreamDestroy(stream);
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
  // The side stream's work starts after what `main` has queued (the buffers' allocation).
  void after(cudaStream_t main) { wait_on(stream, events_.back(), main); }
  void record_sorted(std::size_t k) { check_cuda(cudaEventRecord(events_[2 * k], stream), "cudaEventRecord"); }
  void wait_sorted(std::size_t k, cudaStream_t s) {
    check_cuda(cudaStreamWaitEvent(s, events_[2 * k]), "cudaStreamWaitEvent(msm sorted)");
  }
  void record_done(std::size_t k, cudaStream_t main) { wait_on(stream, events_[2 * k + 1], main); }
  cudaStream_t stream = nullptr;

 private:
  static void wait_on(cudaStream_t waiter, cudaEvent_t e, cudaStream_t s) {
    check_cuda(cudaEventRecord(e, s), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(waiter, e), "cudaStreamWaitEvent");
  }
  std::vector<cudaEvent_t> events_;
};

// The phases of MsmShape::kPhaseNames.
enum Phase : int { kUpload, kDigits, kSort, kAccumulate, kFixup, kReduce, kWindowSums, kCombine };
static_assert(kCombine + 1 == MsmShape::kPhases, "one Phase per MsmShape::kPhaseNames entry");

// Events between the phases when the caller asked for a shape (else no-ops): mark(phase) ends an
// interval of `phase` that began at the previous mark (a phase comes once per piece).
class PhaseClock {
 public:
  PhaseClock(bool on, cudaStream_t s) : on_(on), stream_(s) {
    if (on_) record(kUpload);  // the start: no interval ends here
  }
  ~PhaseClock() {
    for (const auto& m : marks_) cudaEventDestroy(m.event);
  }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  void mark(Phase phase) {
    if (on_) record(phase);
  }
  // After the stream is synchronised: ms[phase] = the sum of its intervals (others untouched).
  void read(double* ms) const {
    for (std::size_t i = 1; i < marks_.size(); ++i) {
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, marks_[i - 1].event, marks_[i].event), "cudaEventElapsedTime");
      ms[marks_[i].phase] += t;
    }
  }

 private:
  struct Mark {
    cudaEvent_t event;
    Phase phase;
  };
  void record(Phase phase) {
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate(msm phase)");
    marks_.push_back({e, phase});
    check_cuda(cudaEventRecord(e, stream_), "cudaEventRecord");
  }
  bool on_;
  cudaStream_t stream_;
  std::vector<Mark> marks_;
};

// Σ scalars[i]·bases[index ? index[i] : i] for i < n (n > 0), as core's curve::Xyzz<Curve>
// in its raw layout Raw. Bucket: XyzzPoint over Curve's field. folded: d_bases is a fixed-base
// table of W·n points for opts.window_bits (DigitPlan; d_index must be nullptr). Phases 1-4 run
// once per piece of the scalars (after its copy, where sc.ready says so) into one set of
// buckets, the later pieces' runs seeded with the buckets' sums so far; phases 5-6 once.
template <class Curve, class Bucket, class Raw>
Raw run_pippenger(memory::DeviceAllocator& alloc, const void* d_bases, const std::uint32_t* d_index,
                  const DeviceScalars& sc, std::size_t n, cudaStream_t stream,
                  const MsmOptions& opts, unsigned default_min_blocks, const char* stage,
                  MsmShape* shape, bool folded = false) {
  using Affine = typename Bucket::Affine;
  const RunPlan p = make_run_plan(n, opts, default_min_blocks, folded);
  MsmOptions po = opts;
  po.window_bits = p.digits.c;  // every piece at the whole call's width: one set of buckets
  std::vector<RunPlan> plans;
  std::size_t big = 0;  // the piece with the most entries sizes the sort's and the chunks' scratch
  for (const ScalarPiece& piece : sc.pieces) {
    plans.push_back(make_run_plan(piece.len, po, default_min_blocks, folded));
    if (plans.back().entries > plans[big].entries) big = plans.size() - 1;
  }
  const RunPlan& most = plans[big];
  const std::size_t temp_bytes = kernels::sort_temp_bytes(most.entries, most.end_bit);
  // With sort_ahead, two sets of the sort's buffers: piece k + 1's digits and sort (on a side
  // stream) run beside piece k's accumulation, piece k + 2 reuses piece k's set once that is done.
  const bool ahead = opts.sort_ahead && sc.pieces.size() > 1;
  std::vector<SortBuffers> sorts;
  for (int s = 0; s < (ahead ? 2 : 1); ++s) sorts.emplace_back(alloc, most.entries, temp_bytes, stream, stage);
  memory::DeviceBuffer<Bucket> buckets, heads, tails, groups;
  std::size_t chunks = 0;
  PhaseClock clock(shape != nullptr, stream);
  // Declared after the buffers: destroyed (its work finished) before they go back to the pool.
  std::optional<SideStream> side;
  if (ahead) side.emplace(2 * sc.pieces.size(), opts.sort_ahead_priority);
  // Phases 1-2 of piece k on stream s into its set of buffers: the sorted set's selector.
  std::vector<int> sel(sc.pieces.size(), 0);
  const auto sort_piece = [&](std::size_t k, cudaStream_t s, bool timed) {
    const ScalarPiece& piece = sc.pieces[k];
    const RunPlan& q = plans[k];
    SortBuffers& b = sorts[k % sorts.size()];
    if (!sc.ready.empty()) check_cuda(cudaStreamWaitEvent(s, sc.ready[k]), "cudaStreamWaitEvent(msm scalars)");
    if (timed) clock.mark(kUpload);
    kernels::digits(q.digits, sc.d_scalars + 8 * piece.first, piece.len, folded ? n : piece.len, b.keys0.get(),
                    b.vals0.get(), s);
    if (timed) clock.mark(kDigits);
    sel[k] = kernels::sort_pairs(b.keys0.get(), b.keys1.get(), b.vals0.get(), b.vals1.get(), q.entries, q.end_bit,
                                 b.temp.get(), temp_bytes, s);
    if (timed) clock.mark(kSort);
  };
  if (ahead) {
    side->after(stream);
    sort_piece(0, side->stream, false);
    side->record_sorted(0);
    sort_piece(1, side->stream, false);
    side->record_sorted(1);
  }
  // The buckets at infinity on this stream, after the side stream's start: with sort_ahead
  // the clear (phase 0) runs beside piece 0's copy, digits and sort.
  buckets = scratch<Bucket>(alloc, p.bucket_count(), stream, stage);
  heads = scratch<Bucket>(alloc, most.chunks, stream, stage);
  tails = scratch<Bucket>(alloc, most.chunks, stream, stage);
  groups = scratch<Bucket>(alloc, most.fixup_groups(), stream, stage);
  kernels::clear_buckets(buckets.get(), p.bucket_count(), stream);
  for (std::size_t k = 0; k < sc.pieces.size(); ++k) {
    const ScalarPiece& piece = sc.pieces[k];
    const RunPlan& q = plans[k];
    if (ahead) {
      side->wait_sorted(k, stream);
      clock.mark(kSort);  // what this stream waited of piece k's upload, digits and sort
    } else {
      sort_piece(k, stream, true);
      if (k + 1 == sc.pieces.size()) sorts[0].temp.reset();
    }
    // The piece's points: its scalars' bases (or index entries) from piece.first on; in the
    // folded mode the table from its point piece.first on, with the table's n as the stride.
    const void* bases = d_index ? d_bases : static_cast<const Affine*>(d_bases) + piece.first;
    const std::uint32_t* index = d_index ? d_index + piece.first : nullptr;
    const SortBuffers& b = sorts[k % sorts.size()];
    const ChunkArgs<Bucket> ca =
        chunk_args(q, sel[k] ? b.keys1.get() : b.keys0.get(), sel[k] ? b.vals1.get() : b.vals0.get(), bases, index,
                   buckets.get(), heads.get(), tails.get(), groups.get(), /*seeded=*/k > 0);
    kernels::accumulate(ca, q.chunks, q.accumulate_min_blocks, stream);
    clock.mark(kAccumulate);
    kernels::group_heads(ca, q.fixup_groups(), stream);
    kernels::fixup(ca, q.chunks, stream);
    clock.mark(kFixup);
    chunks += q.chunks;
    if (ahead && k + 2 < sc.pieces.size()) {  // piece k's buffers are free once its fix-up ran
      side->record_done(k, stream);
      sort_piece(k + 2, side->stream, false);
      side->record_sorted(k + 2);
    }
  }
  sorts.clear();
  heads.reset();
  tails.reset();
  groups.reset();

  auto segs = scratch<Bucket>(alloc, p.segment_sums(), stream, stage);
  const ReduceArgs<Bucket> ra = reduce_args(p, buckets.get(), segs.get());
  kernels::reduce(ra, p.reduce_threads(), stream);
  clock.mark(kReduce);
  buckets.reset();
  // Each window's segments summed in rounds over many blocks (sum_on_device).
  const std::uint32_t sets = p.digits.bucket_sets();
  const auto window_sums = sum_on_device(alloc, segs.get(), p.segments, sets, stream, stage);
  std::vector<Raw> host(sets);
  check_cuda(cudaMemcpyAsync(host.data(), window_sums.get(), host.size() * sizeof(Bucket),
                             cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(msm window sums)");
  clock.mark(kWindowSums);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(msm)");
  const auto t_host = std::chrono::steady_clock::now();
  const Raw result =
      folded ? host[0] : xyzz_to_raw<Raw>(combine_window_sums<Curve>(std::span<const Raw>(host), p.digits));
  if (shape) {
    std::fill(std::begin(shape->phase_ms), std::end(shape->phase_ms), 0.0);
    clock.read(shape->phase_ms);
    shape->phase_ms[kCombine] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_host).count();
    shape->window_bits = p.digits.c;
    shape->windows = p.digits.windows;
    shape->wide_windows = p.digits.wide;
    shape->buckets = p.digits.buckets;
    shape->bucket_sets = p.digits.bucket_sets();
    shape->reduced_buckets = 0;
    for (std::uint32_t s = 0; s < p.digits.bucket_sets(); ++s) shape->reduced_buckets += p.digits.reach(s);
    shape->entries = p.entries;
    shape->chunks = chunks;
    shape->pieces = static_cast<unsigned>(sc.pieces.size());
    shape->segment = p.segment;
    shape->scratch_bytes = scratch_bytes_for(n, opts, sizeof(Bucket), folded, !sc.ready.empty());
  }
  return result;
}

// The scalars of a call whose scalars are all on the device already: one piece, no waiting.
inline DeviceScalars resident_scalars(const std::uint32_t* d_scalars, std::size_t n) {
  return {d_scalars, {{0, n}}, {}};
}

// Σ bases[i] over the bits set in d_bitmap (n > 0 bits, n < 2^32): the words' counts and their
// inclusive sums, the total read back, then equal shares of the selected units per thread
// (batch_add_shares) and the partial sums reduced on the device. d_table: a group table of the
// bases in groups of `group` bits (group_table.hpp); group 1: single bits, no table.
template <class Bucket>
Bucket sum_selected_on_device(memory::DeviceAllocator& alloc, const typename Bucket::Affine* d_bases,
                              const std::uint64_t* d_bitmap, std::size_t n, cudaStream_t stream,
                              const char* stage, const typename Bucket::Affine* d_table = nullptr,
                              std::uint32_t group = 1) {
  if (n >= (std::size_t{1} << 32))
    throw std::invalid_argument("gpu batch_add: " + std::to_string(n) + " bases exceed 2^32");
  const std::size_t words = (n + 63) / 64;
  auto counts = scratch<std::uint32_t>(alloc, words, stream, stage);
  auto ends = scratch<std::uint32_t>(alloc, words, stream, stage);
  const std::size_t temp_bytes = inclusive_sum_temp_bytes(words);
  auto temp = scratch<std::uint8_t>(alloc, temp_bytes, stream, stage);
  kernels::bitmap_counts(d_bitmap, n, group, counts.get(), stream);
  inclusive_sum(counts.get(), ends.get(), words, temp.get(), temp_bytes, stream);
  std::uint32_t total = 0;
  check_cuda(cudaMemcpyAsync(&total, ends.get() + words - 1, sizeof total, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync(batch_add total)");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(batch_add total)");
  if (total == 0) return Bucket::infinity();
  const BatchAddShares sh = batch_add_shares(total);
  auto partial = scratch<Bucket>(alloc, sh.threads, stream, stage);
  kernels::bitmap_sum(d_bases, d_bitmap, n, ends.get(), sh.share, total, sh.threads, partial.get(), stream, d_table,
                      group);
  return reduce_to_one(alloc, partial.get(), sh.threads, stream, stage);
}

}  // namespace prooflab::gpu::msm::run_detail
