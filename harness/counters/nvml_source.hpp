// The `nvml` source: per GPU, NVML's utilisation, device memory in use, SM clock and power
// draw (docs/counters.md), written as sources `nvml0`, `nvml1`, ... (NVML's device index).
//
// libnvidia-ml.so.1 comes with the NVIDIA driver, not with the CUDA toolkit, and the build
// machines have no nvml.h: the library is dlopen'ed at start and the few entry points are
// declared in the .cpp, so this source builds everywhere (CPU-only builds included) and says
// why it did not run where there is no driver or no GPU.
#pragma once

#include <string>
#include <vector>

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

  struct Api;  // the resolved entry points (defined in the .cpp)

 private:
  struct Device {
    void* handle = nullptr;  // nvmlDevice_t
    std::string source;      // "nvml<index>", the counters.csv source of its rows
    bool util = false, mem = false, clock = false, power = false;
  };
  void fail(std::string why);

  std::vector<std::string> candidates_;
  void* lib_ = nullptr;
  Api* api_ = nullptr;
  bool initialised_ = false;
  std::vector<Device> devices_;
  SourceStatus status_ = SourceStatus::unavailable("not started");
};

}  // namespace prooflab::harness::counters
