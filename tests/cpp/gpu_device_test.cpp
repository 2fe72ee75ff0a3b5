// Runs on the device machine; elsewhere every case skips with the runtime's reason.
#include <gtest/gtest.h>

#include "gpu/device_info.hpp"

namespace {

TEST(GpuDevice, ListsDevicesOrSaysWhyNot) {
  std::string why;
  const auto devices = prooflab::gpu::list_devices(&why);
  if (devices.empty()) GTEST_SKIP() << "no GPU: " << why;
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GT(d.driver_version, 0);
  }
}

}  // namespace
