#include "harness/counters/energy_nvml_source.hpp"

namespace prooflab::harness::counters {

NvmlEnergySource::NvmlEnergySource(std::vector<std::string> library_candidates)
    : candidates_(std::move(library_candidates)) {}

NvmlEnergySource::~NvmlEnergySource() { stop(); }

SourceStatus NvmlEnergySource::start(std::int64_t now_ns) {
  if (std::string why = nvml_.open(candidates_); !why.empty()) {
    status_ = SourceStatus::unavailable(why);
    return status_;
  }
  std::vector<NvmlLibrary::Indexed> found;
  std::string notes;
  if (std::string why = nvml_.devices(found, &notes); !why.empty()) {
    stop();
    status_ = SourceStatus::unavailable(why);
    return status_;
  }
  std::string used;
  for (const auto& [index, h] : found) {
    Device d;
    d.handle = h;
    d.source = "gpu_energy" + std::to_string(index);
    d.last_ns = now_ns;
    const auto counter = nvml_.total_energy_mj(h);
    std::string method;
    if (counter.rc == 0) {
      d.first_mj = d.last_mj = counter.value;
      method = "total energy counter";
    } else {
      const auto power = nvml_.power_watts(h);
      if (!power.ok()) {
        notes += "; " + d.source + ": nvmlDeviceGetTotalEnergyConsumption: " +
                 nvml_.error(counter.rc) + ", nvmlDeviceGetPowerUsage: " + nvml_.error(power.rc);
        continue;
      }
      d.from_counter = false;
      d.last_w = power.value;
      method = "power integrated over the rounds (nvmlDeviceGetTotalEnergyConsumption: " +
               nvml_.error(counter.rc) + ")";
    }
    const std::string dev_name = nvml_.device_name(h);
    used += (used.empty() ? "" : ", ") + d.source + (dev_name.empty() ? "" : " " + dev_name) +
            ": " + method;
    devices_.push_back(std::move(d));
  }
  if (devices_.empty()) {
    const std::string why = "no GPU energy readable" + notes;
    stop();
    status_ = SourceStatus::unavailable(why);
    return status_;
  }
  status_ = SourceStatus::available("NVML, J since sampling started, every round: " + used + notes);
  return status_;
}

std::string NvmlEnergySource::advance(Device& d, std::int64_t now_ns) {
  if (d.from_counter) {
    const auto c = nvml_.total_energy_mj(d.handle);
    if (c.rc != 0) return "nvmlDeviceGetTotalEnergyConsumption: " + nvml_.error(c.rc);
    if (c.value < d.last_mj)
      return "nvmlDeviceGetTotalEnergyConsumption went back from " + std::to_string(d.last_mj) +
             " to " + std::to_string(c.value) + " mJ (driver reloaded or GPU reset)";
    d.last_mj = c.value;
    // Integer difference first: the count since driver load is too large for mJ precision
    // in a double after a few months.
    d.joules = static_cast<double>(c.value - d.first_mj) / 1000.0;
  } else {
    const auto p = nvml_.power_watts(d.handle);
    if (!p.ok()) return "nvmlDeviceGetPowerUsage: " + nvml_.error(p.rc);
    d.joules += 0.5 * (d.last_w + p.value) * static_cast<double>(now_ns - d.last_ns) * 1e-9;
    d.last_w = p.value;
  }
  d.last_ns = now_ns;
  return "";
}

void NvmlEnergySource::sample(std::int64_t now_ns, std::vector<Reading>& out) {
  if (!status_.used) return;
  for (Device& d : devices_) {
    if (const std::string why = advance(d, now_ns); !why.empty()) {
      status_ = SourceStatus::unavailable("stopped mid-run: " + d.source + " " + why);
      return;
    }
  }
  for (const Device& d : devices_) out.push_back({"energy", d.joules, "J", d.source.c_str()});
}

void NvmlEnergySource::stop() {
  devices_.clear();
  nvml_.close();
}

}  // namespace prooflab::harness::counters
