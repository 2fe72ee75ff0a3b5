// Shared by the tests of gpu/: skip a test cleanly, with the CUDA runtime's reason, where no
// GPU is present.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpu/device_info.hpp"

#define PROOFLAB_REQUIRE_GPU()                                  \
  do {                                                          \
    std::string why_no_gpu;                                     \
    if (prooflab::gpu::list_devices(&why_no_gpu).empty())       \
      GTEST_SKIP() << "no GPU: " << why_no_gpu;                 \
  } while (0)
