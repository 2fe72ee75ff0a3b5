// harness/backend_factory: the `backend` key picks the engine's backend; a backend the build
// or the machine lacks is a clear error naming the key (or, with CUDA built but no device,
// the CUDA runtime's reason). Runs in every build, with or without CUDA and a GPU.
#include <gtest/gtest.h>

#include <string>

#include "core/engine/config.hpp"
#include "harness/backend_factory.hpp"

namespace {

using namespace prooflab;

TEST(BackendFactory, CpuBackendTakesDevicesAndVramLimit) {
  engine::EngineConfig cfg;
  cfg.devices = 2;
  cfg.vram_limit = 1ull << 30;
  const auto cpu = harness::make_backend(cfg);
  EXPECT_EQ(cpu->name(), "cpu");
  EXPECT_EQ(cpu->num_devices(), 2);
  EXPECT_EQ(cpu->vram_budget(1), 1ull << 30);
  EXPECT_TRUE(harness::gpu_metadata(cfg).is_null());
}

TEST(BackendFactory, UnknownBackendNamesTheKey) {
  engine::EngineConfig cfg;
  cfg.backend = "opencl";  // set() rejects it; a config filled in by code reaches the factory
  try {
    harness::make_backend(cfg);
    FAIL();
  } catch (const engine::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("config key 'backend': 'opencl'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(cfg.set("backend", "cuda"));
}

TEST(BackendFactory, CudaNeedsACudaBuildAndADevice) {
  engine::EngineConfig cfg;
  cfg.set("backend", "cuda");
  if (!harness::build_has_cuda()) {
    try {
      harness::make_backend(cfg);
      FAIL();
    } catch (const engine::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()),
                "config key 'backend': 'cuda' needs a build with CUDA (nvcc was not found or "
                "PROOFLAB_CUDA=OFF)");
    }
    EXPECT_TRUE(harness::gpu_metadata(cfg).contains("error"));
    return;
  }
  try {
    const auto cuda = harness::make_backend(cfg);
    EXPECT_EQ(cuda->name(), "cuda");  // a GPU is visible
    const auto meta = harness::gpu_metadata(cfg);
    EXPECT_TRUE(meta.contains("name") && meta.contains("sms") && meta.contains("mem_bytes") &&
                meta.contains("driver"))
        << meta.dump();
  } catch (const engine::ConfigError& e) {
    FAIL() << "a missing device is not a config error: " << e.what();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("backend 'cuda': no usable CUDA device"), std::string::npos)
        << e.what();
    EXPECT_TRUE(harness::gpu_metadata(cfg).contains("error"));
  }
}

}  // namespace
