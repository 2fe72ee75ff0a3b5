#include <cuda_runtime.h>

#include <cstdio>

#include "gpu/device_info.hpp"

namespace prooflab::gpu {
namespace {

std::string format_uuid(const cudaUUID_t& id) {
  const auto* b = reinterpret_cast<const unsigned char*>(id.bytes);
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

}  // namespace

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  std::vector<DeviceInfo> out;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why_none)
      *why_none = err != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err)
                                     : "no CUDA device visible";
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return out;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    d.memory_bytes = prop.totalGlobalMem;
    int clock = 0;
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, i);
    d.clock_khz = clock;
    d.driver_version = driver;
    d.runtime_version = runtime;
    d.uuid = format_uuid(prop.uuid);
    out.push_back(d);
  }
  return out;
}

}  // namespace prooflab::gpu
