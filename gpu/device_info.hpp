// What CUDA devices this process can see: the facts run.json records and the test suite
// uses to decide whether GPU tests run or skip.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace prooflab::gpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  std::uint64_t memory_bytes = 0;
  int clock_khz = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;
  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as NVML writes it (nvmlDeviceGetUUID): `index` is
  // the CUDA ordinal, which CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER may make differ from
  // NVML's index (counters.csv's nvml<d>); the UUID identifies the device on both sides.
  std::string uuid;
};

// The visible devices. Empty (never an exception) when there is no GPU or no driver; then
// `why_none` says why, in the CUDA runtime's words.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

}  // namespace prooflab::gpu
