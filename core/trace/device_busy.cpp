#include "core/trace/device_busy.hpp"

#include "core/stats/sample.hpp"

namespace prooflab::trace {

void DeviceSpans::add(int device, stats::Span s) {
  std::lock_guard lock(mutex_);
  spans_[device].push_back(s);
}

std::map<int, std::vector<stats::Span>> DeviceSpans::snapshot() const {
  std::lock_guard lock(mutex_);
  return spans_;
}

namespace {

// The mean over the devices of a per-device figure; null when a device has none.
nlohmann::json mean_of(const nlohmann::json& devices, const char* key) {
  std::vector<double> values;
  for (const auto& [_, d] : devices.items()) {
    if (!d[key].is_number()) return nullptr;
    values.push_back(d[key].get<double>());
  }
  const auto m = stats::mean(values, std::string("summary.json devices' ") + key);
  return m ? nlohmann::json(*m) : nlohmann::json(nullptr);
}

nlohmann::json or_null(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json device_busy_summary(const std::map<int, std::vector<stats::Span>>& held_us, int devices,
                                   std::optional<stats::Span> window_us,
                                   const std::string& no_kernels_reason) {
  nlohmann::json out, per_device = nlohmann::json::object();
  for (int d = 0; d < devices; ++d) {
    const auto it = held_us.find(d);
    const std::vector<stats::Span> spans = it == held_us.end() ? std::vector<stats::Span>{} : it->second;
    nlohmann::json dev = {
        {"gpu_phases", spans.size()}, {"kernel_busy_us", nullptr}, {"kernel_busy", nullptr}};
    if (window_us) {
      dev["gpu_busy_us"] = stats::union_length(spans, *window_us);
      dev["gpu_busy"] = or_null(stats::busy_fraction(spans, *window_us));
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

void add_kernel_busy(nlohmann::json& summary, const std::map<int, std::vector<stats::Span>>& kernels_ns) {
  const nlohmann::json& w = summary.at("busy_window_us");
  if (w.is_null()) return;  // no window: nothing ran
  const stats::Span window_ns{w.at("start").get<std::int64_t>() * 1000,
                              w.at("end").get<std::int64_t>() * 1000};
  for (auto& [key, dev] : summary.at("devices").items()) {
    const auto it = kernels_ns.find(std::stoi(key));
    const std::vector<stats::Span> spans =
        it == kernels_ns.end() ? std::vector<stats::Span>{} : it->second;
    dev["kernel_busy_us"] = static_cast<double>(stats::union_length(spans, window_ns)) / 1e3;
    dev["kernel_busy"] = or_null(stats::busy_fraction(spans, window_ns));
  }
  summary["kernel_busy"] = mean_of(summary.at("devices"), "kernel_busy");
  summary["kernel_busy_source"] = "cupti";
}

}  // namespace prooflab::trace
