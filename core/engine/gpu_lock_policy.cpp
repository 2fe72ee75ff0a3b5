#include "core/engine/gpu_lock_policy.hpp"

#include <stdexcept>
#include <vector>

namespace prooflab::engine {

Prestaged GpuLockPolicy::prestage(Backend&, int, const groth16::SynthesizedPartition&, std::size_t) {
  return {nullptr, "empty"};
}

namespace {

// One mutex per device.
class DeviceMutexes {
 public:
  explicit DeviceMutexes(std::uint32_t devices) : mutexes_(devices) {}
  std::mutex& at(int device) { return mutexes_.at(static_cast<std::size_t>(device)); }

 private:
  std::vector<std::mutex> mutexes_;
};

// single: one GPU mutex per device, held for the whole GPU phase (staging, kernels, free);
// b_g2_msm is joined after the unlock, so it overlaps the next worker's GPU phase.
class SingleLock final : public GpuLockPolicy {
 public:
  explicit SingleLock(std::uint32_t devices) : gpu_(devices) {}
  std::unique_lock<std::mutex> acquire(int device) override { return std::unique_lock(gpu_.at(device)); }

 private:
  DeviceMutexes gpu_;
};

// two_lock (the reference's Phase 10): mem_mtx for VRAM allocation and pre-staging uploads,
// compute_mtx for the kernels. Without pre-staged buffers the worker takes the fallback path
// inside compute_mtx; its allocation races with the other workers' pre-staging (docs/engine.md).
class TwoLock final : public GpuLockPolicy {
 public:
  explicit TwoLock(std::uint32_t devices) : mem_(devices), compute_(devices) {}
  bool prestages() const override { return true; }

  Prestaged prestage(Backend& be, int device, const groth16::SynthesizedPartition& part,
                     std::size_t domain_size) override {
    std::lock_guard mem(mem_.at(device));
    if (be.vram_used(device) + be.partition_vram_bytes(domain_size) > be.vram_budget(device))
      return {nullptr, "skip_vram"};
    try {
      return {be.stage(device, part, "prestage"), "ok"};
    } catch (const OutOfDeviceMemory&) {
      return {nullptr, "fallback"};
    }
  }

  std::unique_lock<std::mutex> acquire(int device) override { return std::unique_lock(compute_.at(device)); }

  bool fallback_in_lock(Backend& be, int device) override {
    be.synchronize(device);
    be.trim_pool(device);
    return true;
  }

 private:
  DeviceMutexes mem_, compute_;
};

// none: no interlock (several devices, or experiments).
class NoLock final : public GpuLockPolicy {
 public:
  std::unique_lock<std::mutex> acquire(int) override { return {}; }
};

}  // namespace

std::unique_ptr<GpuLockPolicy> make_gpu_lock_policy(LockPolicy policy, std::uint32_t devices) {
  switch (policy) {
    case LockPolicy::kSingle:
      return std::make_unique<SingleLock>(devices);
    case LockPolicy::kTwoLock:
      return std::make_unique<TwoLock>(devices);
    case LockPolicy::kNone:
      return std::make_unique<NoLock>();
  }
  throw std::logic_error("make_gpu_lock_policy: unknown lock policy");
}

}  // namespace prooflab::engine
