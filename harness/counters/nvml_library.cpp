#include "harness/counters/nvml_library.hpp"

#include <dlfcn.h>

#include <memory>

#include "core/trace/dynamic_library.hpp"

namespace prooflab::harness::counters {
namespace {

// The NVML ABI used here, declared from the NVML API Reference Guide
// (https://docs.nvidia.com/deploy/nvml-api/: "Initialization and Cleanup", "Device Queries",
// "Device Structs", "Error reporting"), because no nvml.h is installed where we build:
//   nvmlReturn_t       enum nvmlReturn_enum, an int: NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3
//   nvmlDevice_t       an opaque pointer (struct nvmlDevice_st*)
//   nvmlUtilization_t  { unsigned int gpu; unsigned int memory; }           percent
//   nvmlMemory_t (v1)  { unsigned long long total; free; used; }            bytes
//   nvmlClockType_t    enum, an int: NVML_CLOCK_SM = 1                      MHz
//   nvmlDeviceGetPowerUsage(device, unsigned int*)                          milliwatts
//   nvmlDeviceGetTotalEnergyConsumption(device, unsigned long long*)        millijoules since
//                      the driver was last reloaded (Volta and later)
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

nvmlDevice_t dev(NvmlLibrary::Device d) { return static_cast<nvmlDevice_t>(d); }

}  // namespace

struct NvmlLibrary::Api {
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
  nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char*, unsigned int) = nullptr;  // optional
  nvmlReturn_t (*DeviceGetTotalEnergyConsumption)(nvmlDevice_t,
                                                  unsigned long long*) = nullptr;  // optional
};

NvmlLibrary::~NvmlLibrary() { close(); }

std::string NvmlLibrary::open(const std::vector<std::string>& candidates) {
  close();
  std::string tried;
  for (const auto& name : candidates) {
    lib_ = trace::open_library(name, &tried);
    if (lib_) break;
  }
  if (!lib_)
    return "NVML library not found (" + tried +
           "); libnvidia-ml.so.1 comes with the NVIDIA driver";
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
  sym(api->DeviceGetUUID, "nvmlDeviceGetUUID", false);
  sym(api->DeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption", false);
  api_ = api.release();
  if (!missing.empty()) {
    close();
    return "the NVML library lacks " + missing;
  }
  const nvmlReturn_t rc = api_->Init();
  if (rc != NVML_SUCCESS) {
    const std::string why = "nvmlInit_v2: " + error(rc);
    close();
    return why;
  }
  initialised_ = true;
  return "";
}

void NvmlLibrary::close() {
  if (initialised_ && api_) api_->Shutdown();
  initialised_ = false;
  delete api_;
  api_ = nullptr;
  if (lib_) dlclose(lib_);
  lib_ = nullptr;
}

std::string NvmlLibrary::devices(std::vector<Indexed>& out, std::string* notes) const {
  out.clear();
  unsigned int count = 0;
  const nvmlReturn_t rc = api_->DeviceGetCount(&count);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetCount_v2: " + error(rc);
  if (count == 0) return "NVML sees no GPU";
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    const nvmlReturn_t r = api_->DeviceGetHandleByIndex(i, &h);
    if (r != NVML_SUCCESS) {
      *notes += "; nvml" + std::to_string(i) + ": nvmlDeviceGetHandleByIndex_v2: " + error(r);
      continue;
    }
    out.push_back({i, h});
  }
  return "";
}

std::string NvmlLibrary::device_name(Device d) const {
  char name[96] = "";
  if (!api_->DeviceGetName || api_->DeviceGetName(dev(d), name, sizeof name) != NVML_SUCCESS)
    return "";
  return name;
}

std::string NvmlLibrary::device_uuid(Device d) const {
  char uuid[96] = "";  // NVML_DEVICE_UUID_V2_BUFFER_SIZE is 96
  if (!api_->DeviceGetUUID || api_->DeviceGetUUID(dev(d), uuid, sizeof uuid) != NVML_SUCCESS) return "";
  return uuid;
}

NvmlLibrary::Probe NvmlLibrary::utilization_percent(Device d) const {
  nvmlUtilization_t u{};
  const nvmlReturn_t rc = api_->DeviceGetUtilizationRates(dev(d), &u);
  return {rc, static_cast<double>(u.gpu)};
}

NvmlLibrary::Probe NvmlLibrary::memory_used_bytes(Device d) const {
  nvmlMemory_t m{};
  const nvmlReturn_t rc = api_->DeviceGetMemoryInfo(dev(d), &m);
  return {rc, static_cast<double>(m.used)};
}

NvmlLibrary::Probe NvmlLibrary::sm_clock_mhz(Device d) const {
  unsigned int mhz = 0;
  const nvmlReturn_t rc = api_->DeviceGetClockInfo(dev(d), NVML_CLOCK_SM, &mhz);
  return {rc, static_cast<double>(mhz)};
}

NvmlLibrary::Probe NvmlLibrary::power_watts(Device d) const {
  unsigned int mw = 0;
  const nvmlReturn_t rc = api_->DeviceGetPowerUsage(dev(d), &mw);
  return {rc, static_cast<double>(mw) / 1000.0};
}

NvmlLibrary::Count NvmlLibrary::total_energy_mj(Device d) const {
  if (!api_->DeviceGetTotalEnergyConsumption) return {NVML_ERROR_NOT_SUPPORTED, 0};
  unsigned long long mj = 0;
  const nvmlReturn_t rc = api_->DeviceGetTotalEnergyConsumption(dev(d), &mj);
  return {rc, static_cast<std::uint64_t>(mj)};
}

std::string NvmlLibrary::error(int rc) const {
  const char* s = api_ && api_->ErrorString ? api_->ErrorString(rc) : nullptr;
  return s ? std::string(s) : "NVML error " + std::to_string(rc);
}

}  // namespace prooflab::harness::counters
