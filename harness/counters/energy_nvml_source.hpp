// The `gpu_energy` source: the energy each GPU has used since sampling started, in J, as
// counters.csv rows `gpu_energy<d>,energy,<J>,J` (d: NVML's device index), every round.
//
// Per device, the best NVML offers:
//   counter  nvmlDeviceGetTotalEnergyConsumption, mJ since the driver was loaded (Volta and
//            later): the row is (reading - reading at start) / 1000. The count is 64 bits of
//            mJ and does not wrap in practice (2^64 mJ is 1.8e13 kJ); a reading below the
//            previous one means the driver was reloaded or the GPU reset, and stops the source.
//   power    where the counter is not supported: nvmlDeviceGetPowerUsage read every round and
//            integrated by the trapezoid rule over the round times (the TIMELINE clock). It
//            misses what happens between rounds, and NVML averages power over 1 s on Ampere
//            and later, so it lags; run.json's reason says which method each device used.
// A failing read mid-run (GPU lost, driver gone) stops the source; the run's energy summary
// then has no GPU figure rather than a partial one (energy_summary.hpp).
#pragma once

#include <string>
#include <vector>

#include "harness/counters/nvml_library.hpp"
#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class NvmlEnergySource final : public CounterSource {
 public:
  // library_candidates: the names tried with dlopen, in order (tests point it at a fake).
  explicit NvmlEnergySource(std::vector<std::string> library_candidates = {"libnvidia-ml.so.1"});
  ~NvmlEnergySource() override;
  NvmlEnergySource(const NvmlEnergySource&) = delete;
  NvmlEnergySource& operator=(const NvmlEnergySource&) = delete;

  const char* name() const override { return "gpu_energy"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

 private:
  struct Device {
    NvmlLibrary::Device handle = nullptr;
    std::string source;  // "gpu_energy<index>"
    bool from_counter = true;
    std::uint64_t first_mj = 0, last_mj = 0;  // counter
    double last_w = 0;                         // power
    std::int64_t last_ns = 0;
    double joules = 0;  // since start
  };
  // Advances d to now_ns; "" or why it cannot (for "stopped mid-run: ...").
  std::string advance(Device& d, std::int64_t now_ns);

  std::vector<std::string> candidates_;
  NvmlLibrary nvml_;
  std::vector<Device> devices_;
  SourceStatus status_ = SourceStatus::unavailable("not started");
};

}  // namespace prooflab::harness::counters
