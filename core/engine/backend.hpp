// The backend interface of the GPU phase (DESIGN.md §1 stage 3): device memory (allocate /
// upload / free / synchronise / pool trim) and the compute (NTT/H, batch additions, tail
// MSMs). The CPU backend implements it with an emulated device; the CUDA backend with the
// real one. The engine's lock policies only ever talk to this interface, so every policy
// runs — and is tested — without a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/groth16/keys.hpp"
#include "core/groth16/prover.hpp"
#include "core/trace/stages.hpp"

namespace prooflab::engine {

// Out of device memory: names the stage, the request and the budget.
class OutOfDeviceMemory : public std::runtime_error {
 public:
  OutOfDeviceMemory(int device, const std::string& stage, std::uint64_t request,
                    std::uint64_t used, std::uint64_t budget)
      : std::runtime_error("out of device memory on device " + std::to_string(device) + " in " +
                           stage + ": requested " + std::to_string(request) + " bytes with " +
                           std::to_string(used) + " of " + std::to_string(budget) + " in use"),
        request_(request) {}
  std::uint64_t request() const { return request_; }

 private:
  std::uint64_t request_;
};

// Host memory page-locked for a device's uploads (Backend::pin_uploads); unlocked when
// destroyed.
class PinnedHost {
 public:
  virtual ~PinnedHost() = default;
  virtual std::uint64_t bytes() const = 0;  // page-locked bytes
};

// A partition's inputs resident on a device (a, b, c of the QAP, MSM scratch). Freed —
// and its memory returned to the device — when destroyed.
class DeviceBuffers {
 public:
  virtual ~DeviceBuffers() = default;
  virtual std::uint64_t bytes() const = 0;
};

// A query's plan that run_prep_msm leaves on a device for a call made after the staged
// buffers are freed (B_G2's, for run_b_g2_msm with b_g2_msm = gpu). Freed when destroyed.
class DevicePlan {
 public:
  virtual ~DevicePlan() = default;
  virtual std::uint64_t bytes() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual int num_devices() const = 0;
  virtual std::uint64_t vram_budget(int device) const = 0;
  virtual std::uint64_t vram_used(int device) const = 0;
  // The device's high-water mark of accounted memory since the last reset_vram_peak (which
  // sets it to the memory in use): scratch taken and freed inside run_gpu_phase included.
  virtual std::uint64_t vram_peak(int device) const = 0;
  virtual void reset_vram_peak(int device) = 0;
  // Device memory a partition of this size needs (inputs + scratch).
  virtual std::uint64_t partition_vram_bytes(std::size_t domain_size) const = 0;

  // Allocates the partition's device memory and uploads a, b, c. Throws OutOfDeviceMemory.
  // When part.products_on_device is set (sparse_products = gpu) a, b, c are not on the host:
  // the backend uploads the witness instead (and, once per device and system, the matrices)
  // and run_gpu_phase computes a, b, c into the staged buffers before H; a backend that
  // cannot throws std::logic_error naming itself and the key (EngineConfig::validate already
  // refuses sparse_products = gpu without backend = cuda).
  virtual std::unique_ptr<DeviceBuffers> stage(int device, const groth16::SynthesizedPartition& part,
                                               const char* stage_name) = 0;
  // Device-global operations, as CUDA's are: they wait for all work in flight on the device
  // (other workers' uploads and kernels included).
  virtual void synchronize(int device) = 0;
  virtual void trim_pool(int device) = 0;

  // The GPU phase on staged buffers: H (NTT), MSM of H, batch additions and tail MSMs of L,
  // A and B_G1; on_substage is called as ntt_h, batch_add and tail_msm end, in this order.
  virtual groth16::GpuPhaseSums run_gpu_phase(int device, const groth16::ProvingKey& pk,
                                              DeviceBuffers& buffers, const groth16::MsmPlan& plan,
                                              const trace::SubstageHook& on_substage) = 0;

  // CPU seconds used so far by each host thread pool the backend computes on, by a name
  // unique in the run ("device0", ...: summary.json's cpu_seconds_by_pool); none where the
  // device computes (CUDA).
  virtual std::map<std::string, double> pool_cpu_seconds() const { return {}; }

  // prep_msm on the device (config prep_msm = gpu, which needs sparse_products = gpu: stage()
  // has uploaded the witness): the plans of L, A, B_G1 and B_G2 made from the staged witness.
  // L's, A's and B_G1's stay on the device with `staged` (run_gpu_phase uses them instead of
  // plan's vectors; they go with the buffers); B_G2's, with b_g2_on_device, is returned for
  // run_b_g2_msm, else downloaded into plan.b_g2 (ones, tail_index, tail_scalars: its
  // tail_bases are for the host to gather, groth16::gather_tail_bases) and null returned.
  // plan gets every query's zeros and num_ones; the G1 queries' vectors stay empty. Before
  // run_gpu_phase, which frees the witness
  // (docs/engine.md, "prep_msm on the device"). A backend without it keeps this default,
  // which throws std::logic_error naming the backend and the key (EngineConfig::validate
  // already refuses prep_msm = gpu without backend = cuda).
  virtual std::unique_ptr<DevicePlan> run_prep_msm(int /*device*/, const groth16::ProvingKey& /*pk*/,
                                                   const r1cs::R1cs& /*cs*/, DeviceBuffers& /*staged*/,
                                                   bool /*b_g2_on_device*/, groth16::MsmPlan& /*plan*/) {
    throw std::logic_error("backend '" + name() +
                           "' has no device prep_msm: config key 'prep_msm' = gpu needs backend = cuda");
  }

  // pin_uploads = on: page-locks the host vectors the partition's GPU work will upload —
  // what stage() uploads for `part` (the witness when its products run on the device, else
  // a, b, c) and, when `plan` is given (prep_msm = cpu), the bitmaps and tails of its queries
  // that run_gpu_phase and run_b_g2_msm upload — so that those copies, inside the GPU lock or
  // the pre-staging, run at the link's speed instead of through the driver's pageable bounce
  // buffers. The engine calls it before the GPU lock and destroys the result (which unlocks
  // them) after the lock is released; `part` and `plan` must not change in between. A backend
  // without page-locking keeps this default, which throws std::logic_error naming the backend
  // and the key (EngineConfig::validate already refuses it without backend = cuda).
  virtual std::unique_ptr<PinnedHost> pin_uploads(int /*device*/, const groth16::SynthesizedPartition& /*part*/,
                                                  const groth16::MsmPlan* /*plan*/) {
    throw std::logic_error("backend '" + name() +
                           "' cannot page-lock host memory: config key 'pin_uploads' = on needs backend = cuda");
  }

  // b_g2_msm on the device (config b_g2_msm = gpu): Σ over plan.b_g2 of pk.b_g2, its batch
  // addition and tail MSM, as groth16::b_g2_msm computes it on the host; b_g2_plan (from
  // run_prep_msm, prep_msm = gpu) replaces plan.b_g2 when given. The engine calls it
  // inside the GPU phase (docs/engine.md, "b_g2_msm on the device"). A backend without a
  // device G2 MSM keeps this default, which throws std::logic_error naming the backend
  // (EngineConfig::validate already refuses b_g2_msm = gpu without backend = cuda).
  virtual curve::G2Jacobian run_b_g2_msm(int /*device*/, const groth16::ProvingKey& /*pk*/,
                                         const groth16::MsmPlan& /*plan*/,
                                         const DevicePlan* /*b_g2_plan*/) {
    throw std::logic_error("backend '" + name() +
                           "' has no device G2 MSM: config key 'b_g2_msm' = gpu needs backend = cuda");
  }
};

}  // namespace prooflab::engine
