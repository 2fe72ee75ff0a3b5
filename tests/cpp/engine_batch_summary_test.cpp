// summary.json's analysis of the job reports (core/engine/batch_summary.hpp), on reports made
// up here with figures worked out by hand (docs/run-directory.md "summary.json").
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/engine/batch_summary.hpp"

namespace prooflab::engine {
namespace {

BatchFigures ten_seconds() {
  BatchFigures f;
  f.count = 4;
  f.start_us = 1'000'000;
  f.end_us = 11'000'000;
  f.timeline_events = 123;
  f.peak_rss_bytes = 4096;
  f.peak_rss_scope = "run";
  f.peak_host_charged_bytes = 10;
  f.host_mem_budget_bytes = 20;
  f.partition_footprint_bytes = 5;
  f.partition_vram_bytes = 7;
  f.vram_budget_bytes = {{0, 64}};
  f.gpu_held_us = {{0, {{1'000'000, 3'000'000}, {2'000'000, 6'000'000}}}};
  f.devices = 1;
  f.busy_window_us = stats::Span{1'000'000, 11'000'000};
  f.completed_window_us = stats::Span{1'000'000, 9'000'000};  // the last job to end failed
  f.no_kernels_reason = "the cpu backend runs no CUDA kernels";
  f.cpu_seconds_by_pool = {{"synthesis0", 1.5}, {"groth16", 0.25}, {"engine", 0.0}};
  return f;
}

TEST(BatchSummary, FiguresOfTheCompletedJobs) {
  const std::vector<JobReport> reports = {{0, true, "", 2.0, 0.5, 1.5},
                                          {1, false, "partition 0 failed", 9.0, 0.0, 9.0},
                                          {2, true, "", 4.0, 1.0, 3.0},
                                          {3, true, "", 3.0, 0.5, 2.5}};
  const auto s = batch_summary(reports, ten_seconds());
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["completed"], 3);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["interrupted"], false);
  EXPECT_DOUBLE_EQ(s["total_s"].get<double>(), 10.0);
  // Wall 2, 4, 3 s and prove 1.5, 3, 2.5 s: the failed job's 9 s count nowhere.
  EXPECT_DOUBLE_EQ(s["wall_s"]["avg"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(s["wall_s"]["min"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s["wall_s"]["max"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(s["prove_s"]["avg"].get<double>(), 7.0 / 3);
  // 3 completed in the 8 s from the first submit to the last completed JOB_DONE, not in total_s.
  EXPECT_DOUBLE_EQ(s["completed_window_s"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(s["throughput_proofs_per_min"].get<double>(), 22.5);
  EXPECT_DOUBLE_EQ(s["s_per_proof"].get<double>(), 8.0 / 3);
  // Sorted 2, 3, 4: p50 = 3; p95 at h = 2 · 0.95 = 1.9: 3 + 0.9 · (4 − 3).
  EXPECT_DOUBLE_EQ(s["latency_s"]["p50"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(s["latency_s"]["p95"].get<double>(), 3.9);
  EXPECT_EQ(s["timeline_events"], 123);
  EXPECT_EQ(s["peak_rss_bytes"], 4096);
  EXPECT_EQ(s["peak_rss_scope"], "run");
  EXPECT_EQ(s["peak_host_charged_bytes"], 10);
  EXPECT_EQ(s["host_mem_budget_bytes"], 20);
  EXPECT_EQ(s["partition_footprint_bytes"], 5);
  EXPECT_EQ(s["partition_vram_bytes"], 7);
  EXPECT_EQ(s["devices"]["0"]["vram_budget_bytes"], 64);
  // Held 1..6 s of the 10 s window (two overlapping spans), per device and as the mean.
  EXPECT_DOUBLE_EQ(s["devices"]["0"]["gpu_busy"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["gpu_busy"].get<double>(), 0.5);
  EXPECT_EQ(s["kernel_busy_source"], "the cpu backend runs no CUDA kernels");
  EXPECT_EQ(s["cpu_seconds_by_pool"], (nlohmann::json{{"engine", 0.0}, {"groth16", 0.25}, {"synthesis0", 1.5}}));
  // The keys of docs/run-directory.md, no more.
  std::set<std::string> keys;
  for (const auto& [k, _] : s.items()) keys.insert(k);
  EXPECT_EQ(keys, (std::set<std::string>{"count", "completed", "failed", "interrupted", "total_s", "completed_window_s", "wall_s",
                                         "prove_s", "throughput_proofs_per_min", "s_per_proof", "latency_s",
                                         "timeline_events", "peak_rss_bytes", "peak_rss_scope",
                                         "peak_host_charged_bytes", "host_mem_budget_bytes",
                                         "partition_footprint_bytes", "partition_vram_bytes", "busy_window_us", "devices", "gpu_busy",
                                         "kernel_busy", "kernel_busy_source", "cpu_seconds_by_pool"}));
}

TEST(BatchSummary, NoCompletedJobGivesNullsNotZeros) {
  BatchFigures f = ten_seconds();
  f.interrupted = true;
  f.peak_rss_bytes.reset();
  f.busy_window_us.reset();
  f.completed_window_us.reset();
  const auto s = batch_summary({{0, false, "x", 1.0, 0.0, 1.0}}, f);
  EXPECT_EQ(s["completed"], 0);
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["interrupted"], true);
  EXPECT_TRUE(s["wall_s"]["avg"].is_null());
  EXPECT_TRUE(s["prove_s"]["max"].is_null());
  EXPECT_TRUE(s["s_per_proof"].is_null());
  EXPECT_TRUE(s["completed_window_s"].is_null());
  EXPECT_TRUE(s["latency_s"]["p95"].is_null());
  EXPECT_DOUBLE_EQ(s["throughput_proofs_per_min"].get<double>(), 0.0);
  EXPECT_TRUE(s["peak_rss_bytes"].is_null());
  EXPECT_TRUE(s["busy_window_us"].is_null());
}

}  // namespace
}  // namespace prooflab::engine
