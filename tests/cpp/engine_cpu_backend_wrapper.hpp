// A backend that hands every call to a CPU backend: the base of the tests' backends that
// change one call (a slower or instant GPU phase, counted pins) and keep the rest real.
#pragma once

#include <memory>
#include <string>

#include "core/engine/cpu_backend.hpp"

namespace prooflab::test {

class CpuBackendWrapper : public engine::Backend {
 public:
  explicit CpuBackendWrapper(int devices = 1, std::uint64_t vram_limit = 0, std::uint32_t device_threads = 1)
      : cpu_(devices, vram_limit, device_threads) {}
  std::string name() const override { return cpu_.name(); }
  int num_devices() const override { return cpu_.num_devices(); }
  std::uint64_t vram_budget(int d) const override { return cpu_.vram_budget(d); }
  std::uint64_t vram_used(int d) const override { return cpu_.vram_used(d); }
  std::uint64_t vram_peak(int d) const override { return cpu_.vram_peak(d); }
  void reset_vram_peak(int d) override { cpu_.reset_vram_peak(d); }
  std::uint64_t partition_vram_bytes(std::size_t n) const override { return cpu_.partition_vram_bytes(n); }
  std::unique_ptr<engine::DeviceBuffers> stage(int d, const groth16::SynthesizedPartition& p, const char* s) override {
    return cpu_.stage(d, p, s);
  }
  void synchronize(int d) override { cpu_.synchronize(d); }
  void trim_pool(int d) override { cpu_.trim_pool(d); }
  groth16::GpuPhaseSums run_gpu_phase(int d, const groth16::ProvingKey& pk, engine::DeviceBuffers& b,
                                      const groth16::MsmPlan& plan, const trace::SubstageHook& cb) override {
    return cpu_.run_gpu_phase(d, pk, b, plan, cb);
  }

 protected:
  engine::CpuBackend& cpu() { return cpu_; }

 private:
  engine::CpuBackend cpu_;
};

}  // namespace prooflab::test
