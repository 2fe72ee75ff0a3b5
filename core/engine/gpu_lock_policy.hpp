// How GPU workers of one device share it (docs/engine.md "Lock policies"; config key
// lock_policy), as the engine's GPU phase asks for it:
//   [prestage() before the lock wait, when prestages()]  acquire()  → GPU_START
//   [fallback_in_lock() when nothing was pre-staged]  stage, kernels, free  → GPU_END, unlock
// One object per run, chosen once from the config (make_gpu_lock_policy); its locks are per
// device, so under a lock the GPU phases of one device never overlap while those of
// different devices do. Policies talk to the device only through Backend, so each runs — and
// is tested alone (tests/cpp/engine_gpu_lock_policy_test.cpp) — without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/engine/backend.hpp"
#include "core/engine/config.hpp"

namespace prooflab::engine {

// What pre-staging left: the staged buffers ("ok"), or none because the device's free memory
// was too small ("skip_vram") or the allocation failed ("fallback"). `outcome` is
// PRESTAGE_END's detail and stages.csv's prestage.
struct Prestaged {
  std::unique_ptr<DeviceBuffers> buffers;
  std::string outcome;
};

class GpuLockPolicy {
 public:
  virtual ~GpuLockPolicy() = default;
  // Whether a worker pre-stages its partition before it waits for the lock (two_lock).
  virtual bool prestages() const { return false; }
  // two_lock: allocate and upload ahead, under the device's memory lock. The others stage
  // nothing ("empty", as stages.csv's prestage of a run without pre-staging).
  virtual Prestaged prestage(Backend& backend, int device, const groth16::SynthesizedPartition& part,
                             std::size_t domain_size);
  // Blocks until the worker may run its GPU phase on `device`; the GPU phase holds the lock
  // returned (empty when the policy has none) until GPU_END.
  virtual std::unique_lock<std::mutex> acquire(int device) = 0;
  // Under the lock, when nothing was pre-staged, before the buffers are staged: two_lock's
  // fallback path (device-global synchronise and pool trim, the reference's pre_destructor).
  // Returns whether it ran; the engine times it into stages.csv's pre_destructor_us.
  virtual bool fallback_in_lock(Backend&, int) { return false; }
};

// The policy of `lock_policy` over devices 0..devices-1.
std::unique_ptr<GpuLockPolicy> make_gpu_lock_policy(LockPolicy policy, std::uint32_t devices);

}  // namespace prooflab::engine
