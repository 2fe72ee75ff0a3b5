// The CPU backend: the GPU phase computed by the CPU prover (core/groth16) on a pool of
// device_threads threads, device memory emulated by EmulatedDevice (real host buffers,
// charged against vram_limit).
#pragma once

#include <memory>
#include <vector>

#include "core/engine/backend.hpp"
#include "core/engine/emulated_device.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::engine {

class CpuBackend final : public Backend {
 public:
  // vram_limit 0 gives each emulated device 16 GiB (the reference's card).
  CpuBackend(int devices, std::uint64_t vram_limit, unsigned device_threads);

  std::string name() const override { return "cpu"; }
  int num_devices() const override { return static_cast<int>(devices_.size()); }
  std::uint64_t vram_budget(int device) const override { return devices_.at(device)->capacity(); }
  std::uint64_t vram_used(int device) const override { return devices_.at(device)->used(); }
  std::uint64_t vram_peak(int device) const override { return devices_.at(device)->peak(); }
  void reset_vram_peak(int device) override { devices_.at(device)->reset_peak(); }
  std::uint64_t partition_vram_bytes(std::size_t domain_size) const override;

  std::unique_ptr<DeviceBuffers> stage(int device, const groth16::SynthesizedPartition& part,
                                       const char* stage_name) override;
  void synchronize(int device) override;
  void trim_pool(int device) override;
  groth16::GpuPhaseSums run_gpu_phase(int device, const groth16::ProvingKey& pk,
                                      DeviceBuffers& buffers, const groth16::MsmPlan& plan,
                                      const trace::SubstageHook& on_substage) override;
  std::map<std::string, double> pool_cpu_seconds() const override;

  static constexpr std::uint64_t kDefaultVram = 16ull << 30;

 private:
  std::vector<std::unique_ptr<EmulatedDevice>> devices_;
  std::vector<std::unique_ptr<parallel::ThreadPool>> pools_;  // one "GPU" per device
};

}  // namespace prooflab::engine
