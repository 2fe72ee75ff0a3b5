// libnvidia-ml.so.1, dlopen'ed: the one place that loads NVML, resolves the entry points the
// counter sources use (`nvml`, `gpu_energy`), initialises it and lists the devices.
//
// The library comes with the NVIDIA driver, not with the CUDA toolkit, and the build machines
// have no nvml.h: the ABI is declared in the .cpp from the NVML API reference, so every build
// (CPU-only included) has it and a machine without the driver gets a reason, not a crash.
// nvmlInit_v2 / nvmlShutdown are reference counted by NVML, so several sources may each hold
// an NvmlLibrary at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prooflab::harness::counters {

class NvmlLibrary {
 public:
  struct Api;  // the resolved entry points (defined in the .cpp)
  using Device = void*;  // nvmlDevice_t

  NvmlLibrary() = default;
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // dlopens the first loadable candidate, resolves the entry points and calls nvmlInit_v2.
  // Returns "" or why not ("NVML library not found (...)", "the NVML library lacks ...",
  // "nvmlInit_v2: Driver Not Loaded"); on failure nothing stays open.
  std::string open(const std::vector<std::string>& candidates);
  // nvmlShutdown and dlclose; idempotent.
  void close();

  // After a successful open(): the devices NVML sees, by index. Returns "" or why not
  // ("nvmlDeviceGetCount_v2: ...", "NVML sees no GPU"); a device whose handle cannot be taken
  // is left out and named in *notes ("; nvml<i>: ...").
  struct Indexed {
    unsigned index;
    Device handle;
  };
  std::string devices(std::vector<Indexed>& out, std::string* notes) const;
  std::string device_name(Device d) const;  // "" when NVML does not say
  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form gpu::DeviceInfo::uuid gives the same
  // device from CUDA: NVML's index (PCI order, every GPU) need not be the CUDA ordinal
  // (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER), the UUID matches them. "" when NVML does not say.
  std::string device_uuid(Device d) const;

  // One query of one device: NVML's return code and the value in the unit named.
  struct Probe {
    int rc;
    double value;
    bool ok() const { return rc == 0; }
    bool not_supported() const { return rc == 3; }  // NVML_ERROR_NOT_SUPPORTED
  };
  Probe utilization_percent(Device d) const;
  Probe memory_used_bytes(Device d) const;
  Probe sm_clock_mhz(Device d) const;
  Probe power_watts(Device d) const;  // nvmlDeviceGetPowerUsage, mW / 1000
  // nvmlDeviceGetTotalEnergyConsumption: mJ since the driver was last loaded (Volta and
  // later), as the raw 64-bit count. Not supported (rc 3) when the library lacks the entry
  // point (drivers before 410).
  struct Count {
    int rc;
    std::uint64_t value;
  };
  Count total_energy_mj(Device d) const;

  std::string error(int rc) const;  // nvmlErrorString

 private:
  void* lib_ = nullptr;
  Api* api_ = nullptr;
  bool initialised_ = false;
};

}  // namespace prooflab::harness::counters
