#include "harness/counters/options.hpp"

namespace prooflab::harness::counters {

const std::vector<std::string>& source_names() {
  static const std::vector<std::string> names = {"probe",       "proc", "likwid",     "perf_uncore",
                                                  "nvml",        "gpu_energy", "host_energy", "host_memory"};
  return names;
}

namespace {

std::string accepted_names() {
  std::string s = "all, off";
  for (const auto& n : source_names()) s += ", " + n;
  return s;
}

}  // namespace

std::set<std::string> parse_counter_selection(const std::string& text) {
  if (text == "all") return {source_names().begin(), source_names().end()};
  if (text == "off" || text == "none") return {};
  std::set<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    const std::string name =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    bool known = false;
    for (const auto& n : source_names()) known = known || n == name;
    if (!known)
      throw CounterOptionError("--counters: '" + name + "' in '" + text +
                               "' is not a counter source (accepted: " + accepted_names() +
                               ", or a comma-separated list of sources)");
    out.insert(name);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

void CounterOptions::validate() const {
  if (period_ms < 1 || period_ms > 60'000)
    throw CounterOptionError("--counter-period-ms: " + std::to_string(period_ms) +
                             " is out of range (accepted: 1..60000)");
  constexpr std::uint64_t kMiB = 1ull << 20;
  if (probe_bytes < 64 * 1024 || probe_bytes > 1024 * kMiB)
    throw CounterOptionError("--probe-bytes: " + std::to_string(probe_bytes) +
                             " is out of range (accepted: 64KiB..1GiB)");
  if (probe_ring_bytes != 0 && (probe_ring_bytes < probe_bytes || probe_ring_bytes > 4096 * kMiB))
    throw CounterOptionError("--probe-ring-bytes: " + std::to_string(probe_ring_bytes) +
                             " is out of range (accepted: 0 = auto, or --probe-bytes..4GiB)");
  if (!(likwid_init_timeout_s > 0 && likwid_init_timeout_s <= 120))
    throw CounterOptionError("likwid init timeout: " + std::to_string(likwid_init_timeout_s) +
                             " s is out of range (accepted: 0..120 s)");
}

nlohmann::json CounterOptions::to_json() const {
  nlohmann::json j = {{"selection", selection},
          {"sources", std::vector<std::string>(sources.begin(), sources.end())},
          {"period_ms", period_ms},
          {"probe_bytes", probe_bytes},
          {"probe_ring_bytes", probe_ring_bytes}};
  if (proc_pid != 0) j["proc_pid"] = proc_pid;
  return j;
}

}  // namespace prooflab::harness::counters
