// Checks of a run over several devices on its own TIMELINE, shared by the CPU backend's
// emulated devices (engine_devices_test.cpp) and the CUDA backend's real ones
// (gpu_backend_test.cpp): lock holders per device, the shared queue's (job, partition)
// order, and summary.json's per-device busy figures recomputed from the rows.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "engine_timeline_util.hpp"

namespace prooflab::test {

// The most GPU phases (GPU_START..GPU_END) in flight at once on each device.
inline std::map<int, int> max_lock_holders_per_device(const std::vector<Row>& rows) {
  std::map<int, std::vector<Row>> by_device;
  for (const auto& r : rows)
    if (r.event == "GPU_START" || r.event == "GPU_END") by_device[r.device].push_back(r);
  std::map<int, int> out;
  for (const auto& [device, sub] : by_device)
    out[device] = max_concurrent(sub, "GPU_START", "GPU_END");
  return out;
}

// Every GPU_PICKUP took the smallest (job, partition) of those waiting: queued (GPU_QUEUE)
// before it and picked up after it, on whichever device. Both events are recorded under the
// queue's lock, so their times order them; a tie at one microsecond is left undecided.
inline void expect_queue_order(const std::vector<Row>& rows) {
  std::map<std::pair<int, int>, std::int64_t> queued, picked;
  for (const auto& r : rows) {
    if (r.event == "GPU_QUEUE") queued[{r.job, r.partition}] = r.t;
    if (r.event == "GPU_PICKUP") picked[{r.job, r.partition}] = r.t;
  }
  ASSERT_EQ(queued.size(), picked.size())
      << "a partition queued but never picked up (or the reverse)";
  for (const auto& [key, t] : picked) {
    for (const auto& [other, tq] : queued) {
      if (other == key || !(tq < t) || !(picked.at(other) > t)) continue;
      EXPECT_LT(key, other) << "job " << key.first << " partition " << key.second
                            << " was picked up at " << t << " while job " << other.first
                            << " partition " << other.second << " (smaller) had waited since "
                            << tq;
    }
  }
}

// The length of the union of [start, end) spans within [lo, hi], by a sweep over their
// boundaries (not the engine's sort-and-merge).
inline std::int64_t covered(const std::vector<std::pair<std::int64_t, std::int64_t>>& spans,
                            std::int64_t lo, std::int64_t hi) {
  std::vector<std::pair<std::int64_t, int>> edges;
  for (auto [s, e] : spans) {
    s = std::clamp(s, lo, hi);
    e = std::clamp(e, lo, hi);
    if (e > s) {
      edges.emplace_back(s, +1);
      edges.emplace_back(e, -1);
    }
  }
  std::sort(edges.begin(), edges.end());
  std::int64_t total = 0, last = lo;
  int depth = 0;
  for (const auto& [t, d] : edges) {
    if (depth > 0) total += t - last;
    depth += d;
    last = t;
  }
  return total;
}

// summary.json's busy block against the TIMELINE: the window (first JOB_SUBMIT .. last
// JOB_DONE/JOB_FAILED), per device the GPU phases and the covered lock-held time, their share
// of the window and the mean over the `devices` devices.
inline void expect_device_busy_matches_timeline(const std::vector<Row>& rows,
                                                const nlohmann::json& summary, int devices) {
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& r : rows) {
    if (r.event == "JOB_SUBMIT") lo = std::min(lo, r.t);
    if (r.event == "JOB_DONE" || r.event == "JOB_FAILED") hi = std::max(hi, r.t);
  }
  ASSERT_LT(lo, INT64_MAX);
  ASSERT_EQ(summary["busy_window_us"]["start"].get<std::int64_t>(), lo);
  ASSERT_EQ(summary["busy_window_us"]["end"].get<std::int64_t>(), hi);
  const auto gpu = intervals(rows, "GPU_START", "GPU_END");
  ASSERT_EQ(summary["devices"].size(), static_cast<std::size_t>(devices));
  double sum = 0;
  for (int d = 0; d < devices; ++d) {
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (const auto& i : gpu)
      if (i.device == d) spans.emplace_back(i.start, i.end);
    const auto& dev = summary["devices"][std::to_string(d)];
    SCOPED_TRACE("device " + std::to_string(d));
    EXPECT_EQ(dev["gpu_phases"].get<std::size_t>(), spans.size());
    const std::int64_t busy = covered(spans, lo, hi);
    EXPECT_EQ(dev["gpu_busy_us"].get<std::int64_t>(), busy);
    const double share = static_cast<double>(busy) / static_cast<double>(hi - lo);
    EXPECT_DOUBLE_EQ(dev["gpu_busy"].get<double>(), share);
    sum += share;
  }
  EXPECT_DOUBLE_EQ(summary["gpu_busy"].get<double>(), sum / devices);
}

}  // namespace prooflab::test
