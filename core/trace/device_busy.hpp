// summary.json's per-device utilisation (docs/run-directory.md, "summary.json"): for each
// device, the length of the union of its spans within the run window (first JOB_SUBMIT ..
// last JOB_DONE/JOB_FAILED), over the window's length. GPU busy takes the engine's
// lock-held spans (GPU_START..GPU_END), kernel busy the CUPTI KERNEL rows. It is the
// definition of prooflab_analysis.metrics.gpu_busy / kernel_busy, so a report computed from
// timeline.csv and cupti.csv gives the same per-device numbers (tests/cpp/
// engine_devices_test.cpp recomputes them from timeline.csv).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace prooflab::trace {

struct Span {
  std::int64_t start = 0, end = 0;
};

// Length of the union of `spans`, each clipped to `window` (empty or reversed spans add
// nothing; touching spans merge).
std::int64_t union_length(std::vector<Span> spans, Span window);

// Spans per device, collected from several threads.
class DeviceSpans {
 public:
  void add(int device, Span s);
  std::map<int, std::vector<Span>> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<int, std::vector<Span>> spans_;
};

// The block summary.json carries, for `devices` devices 0..devices-1 (µs on the run epoch):
//   busy_window_us {start, end}                      (null without a window: no job ran)
//   devices {"<d>": {gpu_phases, gpu_busy_us, gpu_busy, kernel_busy_us, kernel_busy}}
//   gpu_busy      mean of the devices' gpu_busy
//   kernel_busy   mean of the devices' kernel_busy; null until add_kernel_busy
//   kernel_busy_source  "cupti", or why there is none
// `held_us`: each device's GPU_START..GPU_END spans.
nlohmann::json device_busy_summary(const std::map<int, std::vector<Span>>& held_us, int devices,
                                   std::optional<Span> window_us,
                                   const std::string& no_kernels_reason);

// Fills kernel_busy_us / kernel_busy per device and the mean into a summary made by
// device_busy_summary, from CUPTI kernel spans in ns on the run epoch (a device without
// kernels is 0); kernel_busy_source becomes "cupti".
void add_kernel_busy(nlohmann::json& summary, const std::map<int, std::vector<Span>>& kernels_ns);

}  // namespace prooflab::trace
