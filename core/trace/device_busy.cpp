#include "core/trace/device_busy.hpp"

#include <algorithm>

namespace prooflab::trace {

std::int64_t union_length(std::vector<Span> spans, Span window) {
  for (auto& s : spans) {
    s.start = std::clamp(s.start, window.start, std::max(window.start, window.end));
    s.end = std::clamp(s.end, window.start, std::max(window.start, window.end));
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

void DeviceSpans::add(int device, Span s) {
  std::lock_guard lock(mutex_);
  spans_[device].push_back(s);
}

std::map<int, std::vector<Span>> DeviceSpans::snapshot() const {
  std::lock_guard lock(mutex_);
  return spans_;
}

namespace {

nlohmann::json mean_of(const nlohmann::json& devices, const char* key) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto& [_, d] : devices.items()) {
    if (!d[key].is_number()) return nullptr;
    sum += d[key].get<double>();
    ++n;
  }
  return n ? nlohmann::json(sum / static_cast<double>(n)) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json device_busy_summary(const std::map<int, std::vector<Span>>& held_us, int devices,
                                   std::optional<Span> window_us,
                                   const std::string& no_kernels_reason) {
  nlohmann::json out, per_device = nlohmann::json::object();
  const std::int64_t wall = window_us ? window_us->end - window_us->start : 0;
  for (int d = 0; d < devices; ++d) {
    const auto it = held_us.find(d);
    const std::vector<Span> spans = it == held_us.end() ? std::vector<Span>{} : it->second;
    nlohmann::json dev = {
        {"gpu_phases", spans.size()}, {"kernel_busy_us", nullptr}, {"kernel_busy", nullptr}};
    if (window_us) {
      const std::int64_t busy = union_length(spans, *window_us);
      dev["gpu_busy_us"] = busy;
      dev["gpu_busy"] = wall > 0
                            ? nlohmann::json(static_cast<double>(busy) / static_cast<double>(wall))
                            : nlohmann::json(nullptr);
    } else {
      dev["gpu_busy_us"] = nullptr;
      dev["gpu_busy"] = nullptr;
    }
    per_device[std::to_string(d)] = dev;
  }
  out["busy_window_us"] = window_us
                              ? nlohmann::json{{"start", window_us->start}, {"end", window_us->end}}
                              : nlohmann::json(nullptr);
  out["devices"] = per_device;
  out["gpu_busy"] = mean_of(per_device, "gpu_busy");
  out["kernel_busy"] = nullptr;
  out["kernel_busy_source"] = no_kernels_reason;
  return out;
}

void add_kernel_busy(nlohmann::json& summary, const std::map<int, std::vector<Span>>& kernels_ns) {
  const nlohmann::json& w = summary.at("busy_window_us");
  if (w.is_null()) return;  // no window: nothing ran
  const Span window_ns{w.at("start").get<std::int64_t>() * 1000,
                       w.at("end").get<std::int64_t>() * 1000};
  const std::int64_t wall_ns = window_ns.end - window_ns.start;
  for (auto& [key, dev] : summary.at("devices").items()) {
    const auto it = kernels_ns.find(std::stoi(key));
    const std::int64_t busy_ns = it == kernels_ns.end() ? 0 : union_length(it->second, window_ns);
    dev["kernel_busy_us"] = static_cast<double>(busy_ns) / 1e3;
    dev["kernel_busy"] =
        wall_ns > 0 ? nlohmann::json(static_cast<double>(busy_ns) / static_cast<double>(wall_ns))
                    : nlohmann::json(nullptr);
  }
  summary["kernel_busy"] = mean_of(summary.at("devices"), "kernel_busy");
  summary["kernel_busy_source"] = "cupti";
}

}  // namespace prooflab::trace
