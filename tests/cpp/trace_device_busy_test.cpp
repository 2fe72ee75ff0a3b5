// summary.json's per-device busy figures (core/trace/device_busy.hpp) on spans whose union is
// known by hand.
#include "core/trace/device_busy.hpp"

#include <gtest/gtest.h>

namespace {

using prooflab::trace::add_kernel_busy;
using prooflab::trace::device_busy_summary;
using prooflab::stats::Span;

TEST(DeviceBusySummary, PerDeviceShareOfTheWindowAndTheirMean) {
  // Window 100..300 (200 µs). Device 0: [100,150) ∪ [140,200) = 100 → 0.5. Device 1: [250,400)
  // clipped to [250,300) = 50 → 0.25. Device 2: nothing → 0.
  const auto s = device_busy_summary({{0, {{100, 150}, {140, 200}}}, {1, {{250, 400}}}}, 3,
                                     Span{100, 300}, "no kernels here");
  EXPECT_EQ(s["busy_window_us"]["start"], 100);
  EXPECT_EQ(s["busy_window_us"]["end"], 300);
  EXPECT_EQ(s["devices"]["0"]["gpu_phases"], 2);
  EXPECT_EQ(s["devices"]["0"]["gpu_busy_us"], 100);
  EXPECT_DOUBLE_EQ(s["devices"]["0"]["gpu_busy"].get<double>(), 0.5);
  EXPECT_EQ(s["devices"]["1"]["gpu_busy_us"], 50);
  EXPECT_DOUBLE_EQ(s["devices"]["1"]["gpu_busy"].get<double>(), 0.25);
  EXPECT_EQ(s["devices"]["2"]["gpu_phases"], 0);
  EXPECT_DOUBLE_EQ(s["devices"]["2"]["gpu_busy"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["gpu_busy"].get<double>(), 0.25);
  EXPECT_TRUE(s["kernel_busy"].is_null());
  EXPECT_TRUE(s["devices"]["1"]["kernel_busy"].is_null());
  EXPECT_EQ(s["kernel_busy_source"], "no kernels here");
}

TEST(DeviceBusySummary, KernelBusyFromNanosecondSpans) {
  auto s = device_busy_summary({{0, {{100, 300}}}}, 2, Span{100, 300}, "not yet");
  // Device 0: [100.5, 150.5) µs ∪ [120, 160) µs = 59.5 µs of 200 → 0.2975; device 1: none → 0.
  add_kernel_busy(s, {{0, {{100500, 150500}, {120000, 160000}}}});
  EXPECT_DOUBLE_EQ(s["devices"]["0"]["kernel_busy_us"].get<double>(), 59.5);
  EXPECT_DOUBLE_EQ(s["devices"]["0"]["kernel_busy"].get<double>(), 0.2975);
  EXPECT_DOUBLE_EQ(s["devices"]["1"]["kernel_busy"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["kernel_busy"].get<double>(), 0.2975 / 2);
  EXPECT_EQ(s["kernel_busy_source"], "cupti");
}

TEST(DeviceBusySummary, WithoutAWindowEveryFigureIsNull) {
  auto s = device_busy_summary({}, 1, std::nullopt, "none");
  EXPECT_TRUE(s["busy_window_us"].is_null());
  EXPECT_TRUE(s["devices"]["0"]["gpu_busy"].is_null());
  EXPECT_TRUE(s["gpu_busy"].is_null());
  add_kernel_busy(s, {{0, {{0, 10}}}});
  EXPECT_TRUE(s["kernel_busy"].is_null());
}

}  // namespace
