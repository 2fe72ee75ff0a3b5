// G1 multi-scalar multiplication and batch addition on the device (issue 5): Pippenger with
// signed window digits sorted by bucket on the GPU, bucket accumulation without atomics on
// points, parallel bucket reduction, window sums combined on the host. docs/gpu.md, "MSM".
//
// C++17-clean (kernels and the .cu benchmark include it). Points use core's byte layout:
// G1AffineRaw is curve::G1Affine (x, y in Montgomery form, (0, 0) = infinity), G1XyzzRaw is
// curve::Xyzz<G1Curve> (X, Y, ZZ, ZZZ; ZZ = 0 = infinity); scalars are msm::Scalar
// (canonical, little-endian, 8 × 32-bit words, < r). gpu/msm/msm_host.hpp converts.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gpu/memory/device_allocator.hpp"

namespace prooflab::gpu::msm {

struct G1AffineRaw {
  std::uint32_t x[12], y[12];
};
struct G1XyzzRaw {
  std::uint32_t x[12], y[12], zz[12], zzz[12];
};
static_assert(sizeof(G1AffineRaw) == 96 && sizeof(G1XyzzRaw) == 192, "core's layouts");

struct MsmOptions {
  // c, the widest window: W = ceil(256 / c) windows of at most c bits (DigitPlan: the plain
  // mode shares the bits evenly); 0 = chosen from n (plan_window_bits).
  unsigned window_bits = 0;
  unsigned entries_per_thread = 0;  // bucket-accumulation chunk; 0 = chosen from the work
  unsigned accumulate_min_blocks = 0;  // register cap of the accumulation kernel; 0 = default
  // The reduction's least segment (buckets per thread), a power of two; 0 = 16, or 32 with
  // kReduceWaveOff. Shorter segments shorten each thread's chain of 2L dependent additions but
  // add the (lo−1)·R term's ~1.65(c − 2) steps per segment.
  unsigned min_segment = 0;
  // Threads one wave of the reduction kernel holds. The segment (any length from min_segment
  // to a whole window) is the one that minimises the waves its threads take times each one's
  // chain of additions (plan.cpp set_reduce_segment): a part-full wave takes about as long as a
  // full one. 0 = kDefaultReduceWave; kReduceWaveOff: a power-of-two segment for ~2^16 threads
  // (the plan before sessions 23-24, the benchmark's A/B).
  unsigned reduce_wave = 0;
  // Host scalars (run_host_scalars): the pieces they go up in, each piece's digits, sort and
  // accumulation running while the next one is copied; 0 = planned (plan_scalar_pieces), 1 =
  // all of them uploaded before the MSM starts. At most kMaxScalarPieces.
  unsigned scalar_pieces = 0;
  // Host scalars in more than one piece: piece k + 1's digits and sort on a second stream while
  // piece k accumulates, into a second set of the sort's buffers (4 words per entry of the
  // largest piece more: ~1.5 GB at 2^24), the planned pieces growing (plan_scalar_pieces).
  // MsmShape's sort phase is then what the main stream waited for them, upload and digits 0.
  // Measured on an H100 at 2^24: −2.1 ms (results/2026-12-07-msm-reduce-waves).
  bool sort_ahead = true;
  // sort_ahead's side stream at the device's highest priority, so that its sort blocks take
  // the SMs' slots as the accumulation's blocks retire (at the default priority they wait
  // behind its remaining blocks: the main stream still waited 4.2 ms at 2^24). Not measured yet.
  bool sort_ahead_priority = false;
  // The accumulation's chunk for the nearest whole number of its kernel's waves (kWaveSms SMs ×
  // its blocks per SM × 128 threads) instead of ~2^18 chunks (5.17 waves of 3 blocks on 132
  // SMs), where that is more than one wave and entries_per_thread is 0 (−1.6 ms, same results).
  bool fill_accumulate_waves = true;
};
constexpr unsigned kMaxScalarPieces = 64;
// The SMs the plan's waves are counted for: the H100's and H200's. On other devices the work
// still fills whole waves of this size, so whole numbers of theirs only where theirs divide it.
constexpr unsigned kWaveSms = 132;
// The reduction kernel's wave: 2 blocks of 128 threads per SM at its 255 registers (G1 and G2).
constexpr unsigned kDefaultReduceWave = kWaveSms * 2 * 128;
constexpr unsigned kReduceWaveOff = 0xffffffffu;

// What one call did, for the benchmark and the TIMELINE's sub-stages.
struct MsmShape {
  unsigned window_bits = 0, windows = 0;
  unsigned wide_windows = 0;       // windows of window_bits bits; the rest have one less (DigitPlan)
  std::size_t buckets = 0;         // per bucket set (2^(c-1))
  unsigned bucket_sets = 0;        // windows, or 1 in the fixed-base mode
  std::size_t reduced_buckets = 0;  // those the reduction adds: Σ over the sets of DigitPlan::reach
  std::size_t entries = 0;         // n × windows digit entries sorted
  std::size_t chunks = 0;          // accumulation threads
  std::size_t scratch_bytes = 0;   // device memory taken from the allocator
  unsigned pieces = 1;             // pieces the scalars came in (MsmOptions::scalar_pieces)
  std::uint32_t segment = 0;       // buckets per reduction thread (RunPlan::segment)
  // Time per phase (CUDA events; host time for the last), filled when a shape is asked for,
  // each summed over the pieces: upload (the stream waiting for host scalars: the part of
  // their copy not overlapped; it includes the buckets' clear, which comes first), digits,
  // sort (with sort_ahead: what the stream waited for, the clear included), accumulate,
  // fixup, reduce, window sums + copy, host combine.
  static constexpr int kPhases = 8;
  static constexpr const char* kPhaseNames[kPhases] = {"upload", "digits", "sort", "accumulate", "fixup",
                                                       "reduce", "window_sums", "combine"};
  double phase_ms[kPhases] = {};
};

// The window width used for n points (c with ceil(256/c) windows; larger for larger n).
unsigned plan_window_bits(std::size_t n);
// Device bytes one call for n points needs beyond bases and scalars.
std::size_t scratch_bytes(std::size_t n, const MsmOptions& opts = {});
// The same for the fixed-base mode over a table of n points built at its planned width.
std::size_t fixed_base_scratch_bytes(std::size_t n);

class FixedBaseTable;  // fixed_base.hpp
class GroupTable;      // group_table.hpp
namespace run_detail {
struct DeviceScalars;  // pippenger_run.hpp
}

class Msm {
 public:
  explicit Msm(memory::DeviceAllocator& alloc) : alloc_(alloc) {}

  // Σ scalars[i]·bases[i] over n device-resident points and scalars. Scratch comes from the
  // allocator under `stage` (DeviceOutOfMemory names it); the call synchronises `stream` to
  // return the sum to the host.
  G1XyzzRaw run(const G1AffineRaw* d_bases, const std::uint32_t* d_scalars, std::size_t n,
                cudaStream_t stream, const MsmOptions& opts = {}, const char* stage = "msm",
                MsmShape* shape = nullptr) {
    return run_indexed(d_bases, nullptr, d_scalars, n, stream, opts, stage, shape);
  }
  // Σ scalars[i]·bases[d_index[i]] for i < n: a subset of resident points (the prover's
  // tails: the bases whose scalar is neither 0 nor 1) without gathering them first.
  // d_index nullptr: bases[i], as run().
  G1XyzzRaw run_indexed(const G1AffineRaw* d_bases, const std::uint32_t* d_index,
                        const std::uint32_t* d_scalars, std::size_t n, cudaStream_t stream,
                        const MsmOptions& opts = {}, const char* stage = "msm",
                        MsmShape* shape = nullptr);

  // Σ scalars[i]·P_i over the n = table.points() bases the table was built from (fixed-base
  // mode, fixed_base.hpp): scalars on the device, opts.window_bits 0 or the table's.
  G1XyzzRaw run_fixed_base(const FixedBaseTable& table, const std::uint32_t* d_scalars,
                           cudaStream_t stream, const MsmOptions& opts = {}, const char* stage = "msm",
                           MsmShape* shape = nullptr);

  // The same two with the scalars in host memory (n × 8 words): they go up on this Msm's copy
  // stream in opts.scalar_pieces pieces (plan_scalar_pieces) into scratch (n × 32 bytes more),
  // and each piece's digits, sort and accumulation run while the next is copied, adding into
  // the same buckets; one reduction at the end. The copies overlap the work only from
  // page-locked memory (cudaMallocHost / cudaHostRegister); h_scalars must stay valid and
  // unchanged until the call returns.
  G1XyzzRaw run_host_scalars(const G1AffineRaw* d_bases, const std::uint32_t* h_scalars, std::size_t n,
                             cudaStream_t stream, const MsmOptions& opts = {}, const char* stage = "msm",
                             MsmShape* shape = nullptr);
  G1XyzzRaw run_fixed_base_host_scalars(const FixedBaseTable& table, const std::uint32_t* h_scalars,
                                        cudaStream_t stream, const MsmOptions& opts = {},
                                        const char* stage = "msm", MsmShape* shape = nullptr);

  // Σ scalars[i]·bases[i] with the bases in host memory, for keys that do not fit the
  // device: they go up in batches of `batch` points into two device buffers, the next batch
  // copied on a side stream while the current one's MSM runs (the copy overlaps only when
  // h_bases is pinned: cudaMallocHost / cudaHostRegister). Scalars are on the device.
  G1XyzzRaw run_streamed(const G1AffineRaw* h_bases, const std::uint32_t* d_scalars, std::size_t n,
                         std::size_t batch, cudaStream_t stream, const MsmOptions& opts = {},
                         const char* stage = "msm");

  // Σ bases[i] over the bits set in d_bitmap (n bits, little-endian 64-bit words): the
  // reference's batch addition for scalars equal to one. Synchronises `stream`.
  G1XyzzRaw sum_selected(const G1AffineRaw* d_bases, const std::uint64_t* d_bitmap, std::size_t n,
                         cudaStream_t stream, const char* stage = "batch_add");
  // The same over the bases' group table (group_table.hpp; n = table.points(), d_bases the
  // bases it was built from): one addition per group of bits with any set.
  G1XyzzRaw sum_selected_grouped(const G1AffineRaw* d_bases, const GroupTable& table, const std::uint64_t* d_bitmap,
                                 cudaStream_t stream, const char* stage = "batch_add");
  // The same with the bases in host memory, streamed as run_streamed does (batch rounded up
  // to a multiple of 64); the bitmap is on the device.
  G1XyzzRaw sum_selected_streamed(const G1AffineRaw* h_bases, const std::uint64_t* d_bitmap,
                                  std::size_t n, std::size_t batch, cudaStream_t stream,
                                  const char* stage = "batch_add");

  memory::DeviceAllocator& allocator() const { return alloc_; }

 private:
  // Uploads h_scalars (n points) in the pieces opts plans into device scratch on the copy
  // stream and returns run(the device scalars): what both host-scalar calls share.
  G1XyzzRaw with_host_scalars(const std::uint32_t* h_scalars, std::size_t n, cudaStream_t stream,
                              const MsmOptions& opts, const char* stage,
                              const std::function<G1XyzzRaw(const run_detail::DeviceScalars&)>& run);

  template <class Fn>
  void for_each_batch(const G1AffineRaw* h_bases, std::size_t n, std::size_t batch,
                      cudaStream_t stream, const char* stage, Fn&& fn);

  // The side stream (and its events) of every streamed or host-scalar call of this Msm: made
  // by the first such call and kept, so a run uses a fixed set of streams (one copy stream per
  // lane) instead of one new stream per streamed MSM (284 in one run: an unreadable waterfall).
  struct CopyStream {
    cudaStream_t stream = nullptr;
    CopyStream();
    ~CopyStream();
    // Event i (made when first asked for): the streamed batches use 0 and 1, host scalars one
    // per piece.
    cudaEvent_t ready(std::size_t i);
    CopyStream(const CopyStream&) = delete;
    CopyStream& operator=(const CopyStream&) = delete;

   private:
    std::vector<cudaEvent_t> events_;
  };
  CopyStream& copy_stream();

  memory::DeviceAllocator& alloc_;
  std::unique_ptr<CopyStream> copy_;
};

}  // namespace prooflab::gpu::msm
