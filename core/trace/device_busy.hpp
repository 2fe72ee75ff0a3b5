// summary.json's per-device utilisation (docs/run-directory.md, "summary.json"): for each
// device, the busy fraction of its spans within the run window (first JOB_SUBMIT ..
// last JOB_DONE/JOB_FAILED; core/stats/interval_union.hpp). GPU busy takes the engine's
// lock-held spans (GPU_START..GPU_END), kernel busy the CUPTI KERNEL rows. It is the
// definition of prooflab_analysis.metrics.gpu_busy / kernel_busy (over stats.busy_fraction), so a report computed from
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

#include "core/stats/interval_union.hpp"

namespace prooflab::trace {

// Spans per device, collected from several threads.
class DeviceSpans {
 public:
  void add(int device, stats::Span s);
  std::map<int, std::vector<stats::Span>> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<int, std::vector<stats::Span>> spans_;
};

// The block summary.json carries, for `devices` devices 0..devices-1 (µs on the run epoch):
//   busy_window_us {start, end}                      (null without a window: no job ran)
//   devices {"<d>": {gpu_phases, gpu_busy_us, gpu_busy, kernel_busy_us, kernel_busy}}
//   gpu_busy      mean of the devices' gpu_busy
//   kernel_busy   mean of the devices' kernel_busy; null until add_kernel_busy
//   kernel_busy_source  "cupti", or why there is none
// `held_us`: each device's GPU_START..GPU_END spans.
nlohmann::json device_busy_summary(const std::map<int, std::vector<stats::Span>>& held_us, int devices,
                                   std::optional<stats::Span> window_us,
                                   const std::string& no_kernels_reason);

// Fills kernel_busy_us / kernel_busy per device and the mean into a summary made by
// device_busy_summary, from CUPTI kernel spans in ns on the run epoch (a device without
// kernels is 0); kernel_busy_source becomes "cupti".
void add_kernel_busy(nlohmann::json& summary, const std::map<int, std::vector<stats::Span>>& kernels_ns);

}  // namespace prooflab::trace
