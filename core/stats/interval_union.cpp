#include "core/stats/interval_union.hpp"

#include <algorithm>

namespace prooflab::stats {

std::int64_t union_length(std::vector<Span> spans, Span window) {
  const std::int64_t hi = std::max(window.start, window.end);
  for (auto& s : spans) {
    s.start = std::clamp(s.start, window.start, hi);
    s.end = std::clamp(s.end, window.start, hi);
  }
  std::erase_if(spans, [](const Span& s) { return s.end <= s.start; });
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.start < b.start; });
  std::int64_t total = 0, block_start = 0, block_end = 0;
  bool open = false;
  for (const auto& s : spans) {
    if (open && s.start <= block_end) {
      block_end = std::max(block_end, s.end);
      continue;
    }
    if (open) total += block_end - block_start;
    block_start = s.start;
    block_end = s.end;
    open = true;
  }
  if (open) total += block_end - block_start;
  return total;
}

std::optional<double> busy_fraction(std::vector<Span> spans, Span window) {
  const std::int64_t wall = window.end - window.start;
  if (wall <= 0) return std::nullopt;
  return static_cast<double>(union_length(std::move(spans), window)) / static_cast<double>(wall);
}

}  // namespace prooflab::stats
