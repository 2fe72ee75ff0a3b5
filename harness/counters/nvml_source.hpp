// The `nvml` source: per GPU, NVML's utilisation, device memory in use, SM clock and power
// draw (docs/counters.md), written as sources `nvml0`, `nvml1`, ... (NVML's device index).
// The library is loaded by NvmlLibrary (nvml_library.hpp), so this source builds everywhere
// (CPU-only builds included) and says why it did not run where there is no driver or no GPU.
#pragma once

#include <string>
#include <vector>

#include "harness/counters/nvml_library.hpp"
#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class NvmlSource final : public CounterSource {
 public:
  // library_candidates: the names tried with dlopen, in order (tests point it at a fake).
  explicit NvmlSource(std::vector<std::string> library_candidates = {"libnvidia-ml.so.1"});
  ~NvmlSource() override;
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;

  const char* name() const override { return "nvml"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

 private:
  struct Device {
    NvmlLibrary::Device handle = nullptr;
    std::string source;  // "nvml<index>", the counters.csv source of its rows
    bool util = false, mem = false, clock = false, power = false;
  };
  void fail(std::string why);

  std::vector<std::string> candidates_;
  NvmlLibrary nvml_;
  std::vector<Device> devices_;
  SourceStatus status_ = SourceStatus::unavailable("not started");
};

}  // namespace prooflab::harness::counters
