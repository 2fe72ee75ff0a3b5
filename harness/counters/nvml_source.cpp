#include "harness/counters/nvml_source.hpp"

namespace prooflab::harness::counters {

NvmlSource::NvmlSource(std::vector<std::string> library_candidates)
    : candidates_(std::move(library_candidates)) {}

NvmlSource::~NvmlSource() { stop(); }

void NvmlSource::fail(std::string why) { status_ = SourceStatus::unavailable(std::move(why)); }

SourceStatus NvmlSource::start(std::int64_t) {
  if (std::string why = nvml_.open(candidates_); !why.empty()) {
    fail(why);
    return status_;
  }
  std::vector<NvmlLibrary::Indexed> found;
  std::string notes;
  if (std::string why = nvml_.devices(found, &notes); !why.empty()) {
    stop();
    fail(why);
    return status_;
  }

  // Probe every metric once: what a device does not support is left out (and said), what it
  // does is read every round.
  std::string used;
  for (const auto& [index, h] : found) {
    Device d;
    d.handle = h;
    d.source = "nvml" + std::to_string(index);
    std::string metrics;
    auto probe = [&](bool& flag, const char* metric, const char* call, NvmlLibrary::Probe p) {
      flag = p.ok();
      if (flag)
        metrics += (metrics.empty() ? "" : ", ") + std::string(metric);
      else
        notes += "; " + d.source + " " + metric + ": " + call + ": " + nvml_.error(p.rc);
    };
    probe(d.util, "gpu_util", "nvmlDeviceGetUtilizationRates", nvml_.utilization_percent(h));
    probe(d.mem, "gpu_mem_used", "nvmlDeviceGetMemoryInfo", nvml_.memory_used_bytes(h));
    probe(d.clock, "sm_clock", "nvmlDeviceGetClockInfo(SM)", nvml_.sm_clock_mhz(h));
    probe(d.power, "power", "nvmlDeviceGetPowerUsage", nvml_.power_watts(h));
    if (metrics.empty()) continue;
    const std::string dev_name = nvml_.device_name(h), uuid = nvml_.device_uuid(h);
    used += (used.empty() ? "" : ", ") + d.source + (dev_name.empty() ? "" : " " + dev_name) +
            " (" + metrics + (uuid.empty() ? "" : "; " + uuid) + ")";
    devices_.push_back(std::move(d));
  }
  if (devices_.empty()) {
    const std::string why = "no NVML metric readable" + notes;
    stop();
    fail(why);
    return status_;
  }
  status_ = SourceStatus::available(
      "NVML (libnvidia-ml), every round: " + used +
      "; gpu_util is NVML's share of its last sample period (1/6 s to 1 s) with a kernel running, "
      "not kernel busy" +
      notes);
  return status_;
}

void NvmlSource::sample(std::int64_t, std::vector<Reading>& out) {
  if (!status_.used) return;
  for (const Device& d : devices_) {
    const NvmlLibrary::Device h = d.handle;
    auto take = [&](bool enabled, const char* metric, const char* unit, const char* call,
                    NvmlLibrary::Probe p) {
      if (!enabled || !status_.used) return;
      if (p.ok()) {
        out.push_back({metric, p.value, unit, d.source.c_str()});
      } else if (!p.not_supported()) {  // GPU lost, driver gone, ...
        fail("stopped mid-run: " + d.source + " " + call + ": " + nvml_.error(p.rc));
      }
    };
    take(d.util, "gpu_util", "%", "nvmlDeviceGetUtilizationRates", nvml_.utilization_percent(h));
    take(d.mem, "gpu_mem_used", "B", "nvmlDeviceGetMemoryInfo", nvml_.memory_used_bytes(h));
    take(d.clock, "sm_clock", "MHz", "nvmlDeviceGetClockInfo(SM)", nvml_.sm_clock_mhz(h));
    take(d.power, "power", "W", "nvmlDeviceGetPowerUsage", nvml_.power_watts(h));
  }
}

void NvmlSource::stop() {
  devices_.clear();
  nvml_.close();
}

}  // namespace prooflab::harness::counters
