// Busy time from recorded intervals: the length of the union of a device's spans within a
// window, and that length over the window's. It defines summary.json's gpu_busy (the engine's
// GPU_START..GPU_END lock-held spans) and kernel_busy (CUPTI KERNEL rows), with
// analysis/prooflab_analysis/stats.py's union_us / busy_fraction as the documented definition
// (docs/architecture.md "Statistics"; tests/python/test_stats_agree.py pins the two together).
//
// Overlapping spans count once (kernels of concurrent streams, two workers' phases), which is
// why busy is a union and not a sum; a per-kernel *sum* (gpu-phase's table) answers a
// different question, the share of kernel time each kernel takes.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace prooflab::stats {

struct Span {
  std::int64_t start = 0, end = 0;
};

// Length of the union of `spans`, each clipped to `window` (empty or reversed spans add
// nothing; touching spans merge).
std::int64_t union_length(std::vector<Span> spans, Span window);

// union_length over the window's length; nullopt for an empty or reversed window.
std::optional<double> busy_fraction(std::vector<Span> spans, Span window);

}  // namespace prooflab::stats
