#include "gpu/memory/device_allocator.hpp"

#include <algorithm>
#include <sstream>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::memory {
namespace {

std::string oom_message(const std::string& stage, std::uint64_t requested, std::uint64_t in_use,
                        std::uint64_t budget, const std::string& detail) {
  std::ostringstream os;
  os << "device out of memory in stage '" << stage << "': requested " << requested
     << " bytes with " << in_use << " bytes in use, budget ";
  if (budget == DeviceAllocator::kUnlimited)
    os << "unlimited";
  else
    os << budget << " bytes";
  if (!detail.empty()) os << " (" << detail << ")";
  return os.str();
}

}  // namespace

DeviceOutOfMemory::DeviceOutOfMemory(std::string stage, std::uint64_t requested,
                                     std::uint64_t in_use, std::uint64_t budget,
                                     const std::string& detail)
    : std::runtime_error(oom_message(stage, requested, in_use, budget, detail)),
      stage_(std::move(stage)),
      requested_(requested),
      in_use_(in_use),
      budget_(budget) {}

DeviceAllocator::DeviceAllocator(std::uint64_t budget_bytes, int device)
    : device_(device), budget_(budget_bytes) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  check_cuda(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate");
  // Keep freed memory in the pool between calls (the default threshold 0 would hand it back
  // to the driver at every synchronisation and make the next allocation pay again).
  std::uint64_t threshold = ~std::uint64_t{0};
  check_cuda(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold),
             "cudaMemPoolSetAttribute(ReleaseThreshold)");
}

DeviceAllocator::~DeviceAllocator() {
  // Outstanding blocks are the owner's bug; the pool (and its memory) goes away regardless
  // once the device is idle.
  cudaDeviceSynchronize();
  if (pool_) cudaMemPoolDestroy(pool_);
}

void* DeviceAllocator::allocate(std::size_t bytes, cudaStream_t stream, const char* stage) {
  if (bytes == 0) return nullptr;
  {
    std::lock_guard lock(mu_);
    if (budget_ != kUnlimited && (bytes > budget_ || in_use_ > budget_ - bytes))
      throw DeviceOutOfMemory(stage, bytes, in_use_, budget_, "over the budget");
    in_use_ += bytes;  // reserve before the pool call so concurrent callers see it
  }
  void* ptr = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(&ptr, bytes, pool_, stream);
  std::lock_guard lock(mu_);
  if (err != cudaSuccess) {
    in_use_ -= bytes;
    cudaGetLastError();
    throw DeviceOutOfMemory(stage, bytes, in_use_, budget_,
                            std::string("cudaMallocFromPoolAsync: ") + cudaGetErrorString(err));
  }
  sizes_.emplace(ptr, bytes);
  peak_ = std::max(peak_, in_use_);
  ++allocations_;
  return ptr;
}

void DeviceAllocator::deallocate(void* ptr, cudaStream_t stream) {
  if (!ptr) return;
  {
    std::lock_guard lock(mu_);
    const auto it = sizes_.find(ptr);
    if (it == sizes_.end())
      throw std::invalid_argument("DeviceAllocator::deallocate: pointer not from this allocator");
    in_use_ -= it->second;
    sizes_.erase(it);
  }
  check_cuda(cudaFreeAsync(ptr, stream), "cudaFreeAsync");
}

AllocatorStats DeviceAllocator::stats() const {
  AllocatorStats s;
  {
    std::lock_guard lock(mu_);
    s.budget = budget_;
    s.in_use = in_use_;
    s.peak = peak_;
    s.allocations = allocations_;
  }
  std::uint64_t high = 0;
  if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemHigh, &high) == cudaSuccess)
    s.reserved_high = high;
  else
    cudaGetLastError();
  return s;
}

std::uint64_t DeviceAllocator::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

std::uint64_t DeviceAllocator::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}

void DeviceAllocator::reset_peak() {
  std::lock_guard lock(mu_);
  peak_ = in_use_;
}

void DeviceAllocator::trim(std::size_t keep_bytes) {
  check_cuda(cudaMemPoolTrimTo(pool_, keep_bytes), "cudaMemPoolTrimTo");
}

}  // namespace prooflab::gpu::memory
