// The one way the CUDA backend takes device memory: stream-ordered allocations
// (cudaMallocFromPoolAsync) from a memory pool of its own, under a byte budget, with the
// current and peak use recorded so that VRAM is accounted per run (the engine's `gpu_mem`
// knob and its out-of-memory handling rely on it).
//
// Accounting is of requested bytes: an allocation that would take the total over the budget
// throws DeviceOutOfMemory (naming the stage, the request, what is in use and the budget)
// before the pool is asked; a pool that cannot deliver throws the same type. A free is
// credited when it is issued; the pool itself only reuses the block once the stream that
// freed it reaches the free, so the pool's physical footprint (reserved_high(), from
// cudaMemPoolAttrReservedMemHigh) can briefly exceed the accounted peak across streams.
// Thread-safe.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace prooflab::gpu::memory {

class DeviceOutOfMemory : public std::runtime_error {
 public:
  DeviceOutOfMemory(std::string stage, std::uint64_t requested, std::uint64_t in_use,
                    std::uint64_t budget, const std::string& detail);
  const std::string& stage() const { return stage_; }
  std::uint64_t requested() const { return requested_; }
  std::uint64_t in_use() const { return in_use_; }
  std::uint64_t budget() const { return budget_; }

 private:
  std::string stage_;
  std::uint64_t requested_, in_use_, budget_;
};

struct AllocatorStats {
  std::uint64_t budget = 0, in_use = 0, peak = 0;
  std::uint64_t allocations = 0;    // successful allocate() calls
  std::uint64_t reserved_high = 0;  // the pool's physical high-water mark
};

class DeviceAllocator {
 public:
  static constexpr std::uint64_t kUnlimited = ~std::uint64_t{0};

  // A pool on `device` with at most budget_bytes handed out at any time.
  explicit DeviceAllocator(std::uint64_t budget_bytes = kUnlimited, int device = 0);
  ~DeviceAllocator();
  DeviceAllocator(const DeviceAllocator&) = delete;
  DeviceAllocator& operator=(const DeviceAllocator&) = delete;

  // bytes of device memory, usable on `stream` from now on (stream order), 256-byte aligned.
  // `stage` names the caller in errors and should be a short literal ("ntt_scratch").
  void* allocate(std::size_t bytes, cudaStream_t stream, const char* stage);
  // Returns memory from allocate(); it is reused once `stream` reaches this point.
  void deallocate(void* ptr, cudaStream_t stream);

  AllocatorStats stats() const;
  std::uint64_t budget() const { return budget_; }
  std::uint64_t in_use() const;
  std::uint64_t peak() const;
  void reset_peak();  // peak := in_use (per-run accounting)
  int device() const { return device_; }
  // Hands the pool's cached free memory back to the driver down to keep_bytes reserved
  // (cudaMemPoolTrimTo): what the reference's two-lock fallback path does between partitions.
  // Blocks in use, and freed blocks whose stream has not reached the free, stay reserved.
  void trim(std::size_t keep_bytes = 0);

 private:
  int device_;
  std::uint64_t budget_;
  cudaMemPool_t pool_ = nullptr;
  mutable std::mutex mu_;
  std::unordered_map<void*, std::uint64_t> sizes_;
  std::uint64_t in_use_ = 0, peak_ = 0, allocations_ = 0;
};

// An owning device array of T from a DeviceAllocator, freed in stream order on destruction.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceAllocator& alloc, std::size_t count, cudaStream_t stream, const char* stage)
      : alloc_(&alloc), stream_(stream), count_(count) {
    if (count)
      ptr_ = static_cast<T*>(alloc.allocate(count * sizeof(T), stream, stage));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      alloc_ = std::exchange(o.alloc_, nullptr);
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      stream_ = o.stream_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  cudaStream_t stream() const { return stream_; }
  // Free on another stream than the one it was allocated on (the last one that used it).
  void set_stream(cudaStream_t s) { stream_ = s; }
  void reset() {
    if (ptr_ && alloc_) alloc_->deallocate(ptr_, stream_);
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  DeviceAllocator* alloc_ = nullptr;
  T* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace prooflab::gpu::memory
