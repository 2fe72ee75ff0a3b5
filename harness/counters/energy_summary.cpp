#include "harness/counters/energy_summary.hpp"

#include <map>
#include <optional>
#include <string>

namespace prooflab::harness::counters {
namespace {

using trace_export::CounterSample;

// Shortest span of samples over which a counter that never moves is called silent: energy
// counters advance by at least 2^-32 J (RAPL) or 1 mJ (NVML) many times a second at any load.
constexpr std::int64_t kMinSilentSpanUs = 100'000;

struct Point {
  std::int64_t t_us;
  double joules;
};

// E(t) of a cumulative series, linear between its points.
double energy_at(const std::vector<Point>& pts, std::int64_t t) {
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (pts[i].t_us < t) continue;
    const Point& a = pts[i - 1];
    const Point& b = pts[i];
    if (b.t_us == a.t_us) return b.joules;
    const double f = static_cast<double>(t - a.t_us) / static_cast<double>(b.t_us - a.t_us);
    return a.joules + f * (b.joules - a.joules);
  }
  return pts.back().joules;
}

class Series {
 public:
  Series(std::string name, std::int64_t sampling_start_us)
      : name_(std::move(name)), pts_{{sampling_start_us, 0.0}} {}
  void add(const CounterSample& s) { pts_.push_back({s.t_us, s.value}); }
  // Energy in the window, or nullopt with the reason appended to notes.
  std::optional<double> in_window(const EnergyWindow& w, std::vector<std::string>& notes) const {
    if (w.start_us < pts_.front().t_us) {
      notes.push_back(name_ + ": the run started at t_us=" + std::to_string(w.start_us) +
                      ", before sampling did at t_us=" + std::to_string(pts_.front().t_us));
      return std::nullopt;
    }
    if (pts_.back().t_us < w.end_us) {
      notes.push_back(name_ + ": last sample at t_us=" + std::to_string(pts_.back().t_us) +
                      ", before the end of the run at t_us=" + std::to_string(w.end_us) +
                      " (the source stopped mid-run; run.json counters says why)");
      return std::nullopt;
    }
    // A counter that stays at its baseline over every sample is not a reading of 0 J: no
    // machine draws no power. Seen on the lent H200 host, whose virtualised RAPL exposes
    // energy-psys but never advances it (results/2026-12-01-energy-h200).
    if (pts_.size() > 1 && pts_.back().t_us - pts_.front().t_us >= kMinSilentSpanUs &&
        pts_.back().joules == pts_.front().joules) {
      notes.push_back(name_ + ": the counter did not advance over " +
                      std::to_string((pts_.back().t_us - pts_.front().t_us) / 1000) +
                      " ms of samples (a counter exposed but not counting, e.g. virtualised RAPL): no figure");
      return std::nullopt;
    }
    return energy_at(pts_, w.end_us) - energy_at(pts_, w.start_us);
  }

 private:
  std::string name_;
  std::vector<Point> pts_;
};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

nlohmann::json or_null(std::optional<double> v) { return v ? nlohmann::json(*v) : nullptr; }

std::optional<double> ratio(std::optional<double> num, double den) {
  if (!num || !(den > 0)) return std::nullopt;
  return *num / den;
}

}  // namespace

nlohmann::json energy_summary(const std::vector<CounterSample>& samples, const EnergyWindow& w) {
  std::map<std::string, Series> gpu, host;  // by source / by metric
  for (const auto& s : samples) {
    if (s.unit != "J") continue;
    if (starts_with(s.source, "gpu_energy") && s.metric == "energy")
      gpu.try_emplace(s.source, s.source, w.sampling_start_us).first->second.add(s);
    else if (s.source == "host_energy" && starts_with(s.metric, "energy_"))
      host.try_emplace(s.metric, "host_energy/" + s.metric, w.sampling_start_us).first->second.add(s);
  }
  std::vector<std::string> notes;

  // The sum of the series, or nullopt when there is none or one has no figure.
  auto sum = [&](const std::vector<const Series*>& parts) -> std::optional<double> {
    double total = 0;
    bool complete = !parts.empty();
    for (const Series* p : parts) {
      const auto e = p->in_window(w, notes);
      complete = complete && e.has_value();
      total += e.value_or(0.0);
    }
    return complete ? std::optional<double>(total) : std::nullopt;
  };

  nlohmann::json gpu_sources = nlohmann::json::array();
  std::vector<const Series*> gpu_parts;
  if (gpu.empty()) notes.push_back("no GPU energy recorded (run.json counters.gpu_energy says why)");
  for (const auto& [source, series] : gpu) {
    gpu_sources.push_back(source);
    gpu_parts.push_back(&series);
  }
  const std::optional<double> gpu_j = sum(gpu_parts);

  nlohmann::json host_sources = nlohmann::json::array();
  std::vector<const char*> picked;
  if (host.count("energy_psys")) {
    picked = {"energy_psys"};
  } else if (host.count("energy_pkg")) {
    picked = {"energy_pkg"};
    if (host.count("energy_ram"))
      picked.push_back("energy_ram");
    else
      notes.push_back("host energy is energy_pkg alone: no energy_ram recorded, DRAM not counted");
  } else {
    notes.push_back(host.empty() ? "no host energy recorded (run.json counters.host_energy says why)"
                                 : "host energy recorded without energy_psys or energy_pkg");
  }
  std::vector<const Series*> host_parts;
  for (const char* metric : picked) {
    host_sources.push_back(metric);
    host_parts.push_back(&host.at(metric));
  }
  const std::optional<double> host_j = sum(host_parts);

  std::optional<double> total_j;
  if (gpu_j && host_j) total_j = *gpu_j + *host_j;
  const double window_s = static_cast<double>(w.end_us - w.start_us) * 1e-6;
  const double proofs = static_cast<double>(w.proofs);
  std::optional<double> per_kwh;
  if (total_j && *total_j > 0 && w.proofs > 0) per_kwh = proofs / (*total_j / 3.6e6);
  return {{"window_s", window_s},
          {"proofs", w.proofs},
          {"gpu_j", or_null(gpu_j)},
          {"host_j", or_null(host_j)},
          {"total_j", or_null(total_j)},
          {"gpu_j_per_proof", or_null(ratio(gpu_j, proofs))},
          {"host_j_per_proof", or_null(ratio(host_j, proofs))},
          {"j_per_proof", or_null(ratio(total_j, proofs))},
          {"gpu_avg_power_w", or_null(ratio(gpu_j, window_s))},
          {"host_avg_power_w", or_null(ratio(host_j, window_s))},
          {"avg_power_w", or_null(ratio(total_j, window_s))},
          {"proofs_per_kwh", or_null(per_kwh)},
          {"gpu_sources", gpu_sources},
          {"host_sources", host_sources},
          {"notes", notes}};
}

}  // namespace prooflab::harness::counters
