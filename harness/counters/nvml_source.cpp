#include "harness/counters/nvml_source.hpp"

#include <dlfcn.h>

#include <memory>

#include "core/trace/dynamic_library.hpp"

namespace prooflab::harness::counters {
namespace {

// The NVML ABI used here, declared from the NVML API Reference Guide
// (https://docs.nvidia.com/deploy/nvml-api/: "Initialization and Cleanup", "Device Queries",
// "Device Structs", "Error reporting"), because no nvml.h is installed where we build:
//   nvmlReturn_t          enum nvmlReturn_enum, an int: NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED
//   = 3 nvmlDevice_t          an opaque pointer (struct nvmlDevice_st*) nvmlUtilization_t     {
//   unsigned int gpu; unsigned int memory; }           percent nvmlMemory_t (v1)     { unsigned
//   long long total; free; used; }            bytes nvmlClockType_t       enum, an int:
//   NVML_CLOCK_SM = 1                      MHz nvmlDeviceGetPowerUsage milliwatts
// nvml.h maps nvmlInit, nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex to the _v2 entry
// points resolved below (the unversioned ones are kept for old binaries).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr int NVML_CLOCK_SM = 1;

}  // namespace

struct NvmlSource::Api {
  nvmlReturn_t (*Init)() = nullptr;
  nvmlReturn_t (*Shutdown)() = nullptr;
  nvmlReturn_t (*DeviceGetCount)(unsigned int*) = nullptr;
  nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t, unsigned int*) = nullptr;
  const char* (*ErrorString)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char*, unsigned int) = nullptr;  // optional

  std::string error(nvmlReturn_t r) const {
    const char* s = ErrorString ? ErrorString(r) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(r);
  }
};

namespace {

// One metric of one device: its reading, or the NVML return code.
struct Probe {
  nvmlReturn_t rc;
  double value;
};

Probe read_util(const NvmlSource::Api& api, nvmlDevice_t d) {
  nvmlUtilization_t u{};
  const nvmlReturn_t rc = api.DeviceGetUtilizationRates(d, &u);
  return {rc, static_cast<double>(u.gpu)};
}
Probe read_mem(const NvmlSource::Api& api, nvmlDevice_t d) {
  nvmlMemory_t m{};
  const nvmlReturn_t rc = api.DeviceGetMemoryInfo(d, &m);
  return {rc, static_cast<double>(m.used)};
}
Probe read_clock(const NvmlSource::Api& api, nvmlDevice_t d) {
  unsigned int mhz = 0;
  const nvmlReturn_t rc = api.DeviceGetClockInfo(d, NVML_CLOCK_SM, &mhz);
  return {rc, static_cast<double>(mhz)};
}
Probe read_power(const NvmlSource::Api& api, nvmlDevice_t d) {
  unsigned int mw = 0;
  const nvmlReturn_t rc = api.DeviceGetPowerUsage(d, &mw);
  return {rc, static_cast<double>(mw) / 1000.0};
}

}  // namespace

NvmlSource::NvmlSource(std::vector<std::string> library_candidates)
    : candidates_(std::move(library_candidates)) {}

NvmlSource::~NvmlSource() { stop(); }

void NvmlSource::fail(std::string why) { status_ = SourceStatus::unavailable(std::move(why)); }

SourceStatus NvmlSource::start(std::int64_t) {
  std::string tried;
  for (const auto& name : candidates_) {
    lib_ = trace::open_library(name, &tried);
    if (lib_) break;
  }
  if (!lib_) {
    stop();
    fail("NVML library not found (" + tried + "); libnvidia-ml.so.1 comes with the NVIDIA driver");
    return status_;
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  auto sym = [&](auto& fn, const char* n, bool required) {
    trace::resolve_symbol(lib_, fn, n, required, &missing);
  };
  sym(api->Init, "nvmlInit_v2", true);
  sym(api->Shutdown, "nvmlShutdown", true);
  sym(api->DeviceGetCount, "nvmlDeviceGetCount_v2", true);
  sym(api->DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", true);
  sym(api->DeviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates", true);
  sym(api->DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo", true);
  sym(api->DeviceGetClockInfo, "nvmlDeviceGetClockInfo", true);
  sym(api->DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage", true);
  sym(api->ErrorString, "nvmlErrorString", true);
  sym(api->DeviceGetName, "nvmlDeviceGetName", false);
  api_ = api.release();
  if (!missing.empty()) {
    stop();
    fail("the NVML library lacks " + missing);
    return status_;
  }
  nvmlReturn_t rc = api_->Init();
  if (rc != NVML_SUCCESS) {
    const std::string why = "nvmlInit_v2: " + api_->error(rc);
    stop();
    fail(why);
    return status_;
  }
  initialised_ = true;
  unsigned int count = 0;
  rc = api_->DeviceGetCount(&count);
  if (rc != NVML_SUCCESS || count == 0) {
    const std::string why =
        rc != NVML_SUCCESS ? "nvmlDeviceGetCount_v2: " + api_->error(rc) : "NVML sees no GPU";
    stop();
    fail(why);
    return status_;
  }

  // Probe every metric once: what a device does not support is left out (and said), what it
  // does is read every round.
  std::string used, notes;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    rc = api_->DeviceGetHandleByIndex(i, &h);
    const std::string source = "nvml" + std::to_string(i);
    if (rc != NVML_SUCCESS) {
      notes += "; " + source + ": nvmlDeviceGetHandleByIndex_v2: " + api_->error(rc);
      continue;
    }
    Device d;
    d.handle = h;
    d.source = source;
    std::string metrics;
    auto probe = [&](bool& flag, const char* metric, const char* call, Probe p) {
      flag = p.rc == NVML_SUCCESS;
      if (flag)
        metrics += (metrics.empty() ? "" : ", ") + std::string(metric);
      else
        notes += "; " + source + " " + metric + ": " + call + ": " + api_->error(p.rc);
    };
    probe(d.util, "gpu_util", "nvmlDeviceGetUtilizationRates", read_util(*api_, h));
    probe(d.mem, "gpu_mem_used", "nvmlDeviceGetMemoryInfo", read_mem(*api_, h));
    probe(d.clock, "sm_clock", "nvmlDeviceGetClockInfo(SM)", read_clock(*api_, h));
    probe(d.power, "power", "nvmlDeviceGetPowerUsage", read_power(*api_, h));
    if (metrics.empty()) continue;
    char dev_name[96] = "";
    if (api_->DeviceGetName && api_->DeviceGetName(h, dev_name, sizeof dev_name) != NVML_SUCCESS)
      dev_name[0] = '\0';
    used += (used.empty() ? "" : ", ") + source +
            (dev_name[0] ? std::string(" ") + dev_name : std::string()) + " (" + metrics + ")";
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
  const Api& api = *api_;
  for (const Device& d : devices_) {
    const auto h = static_cast<nvmlDevice_t>(d.handle);
    auto take = [&](bool enabled, const char* metric, const char* unit, const char* call, Probe p) {
      if (!enabled || !status_.used) return;
      if (p.rc == NVML_SUCCESS) {
        out.push_back({metric, p.value, unit, d.source.c_str()});
      } else if (p.rc != NVML_ERROR_NOT_SUPPORTED) {  // GPU lost, driver gone, ...
        fail("stopped mid-run: " + d.source + " " + call + ": " + api.error(p.rc));
      }
    };
    take(d.util, "gpu_util", "%", "nvmlDeviceGetUtilizationRates", read_util(api, h));
    take(d.mem, "gpu_mem_used", "B", "nvmlDeviceGetMemoryInfo", read_mem(api, h));
    take(d.clock, "sm_clock", "MHz", "nvmlDeviceGetClockInfo(SM)", read_clock(api, h));
    take(d.power, "power", "W", "nvmlDeviceGetPowerUsage", read_power(api, h));
  }
}

void NvmlSource::stop() {
  if (initialised_ && api_) api_->Shutdown();
  initialised_ = false;
  devices_.clear();
  delete api_;
  api_ = nullptr;
  if (lib_) dlclose(lib_);
  lib_ = nullptr;
}

}  // namespace prooflab::harness::counters
