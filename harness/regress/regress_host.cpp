#include "harness/regress/regress_host.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/trace/run_directory.hpp"

namespace prooflab::harness {

using nlohmann::json;

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

json measuring_conditions(double load_1m_before) {
  const json host = trace::host_info();
  return {{"cpu_model", host.value("cpu_model", "unknown")},
          {"cores", host.value("cores", 0)},
          {"load_1m_before", load_1m_before},
          {"load_1m_after", load_average_1m()}};
}

namespace {

// "" when quiet, else why not.
std::string busy(const json& c, const char* when) {
  const double cores = std::max(1.0, c.value("cores", 1.0));
  const double load = std::max(c.value("load_1m_before", -1.0), c.value("load_1m_after", -1.0));
  if (load < 0) return std::string(when) + ": load unknown";
  if (load / cores <= kQuietLoadPerCore) return "";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: load %.2f on %.0f cores (a quiet host has at most %.2f per core)",
                when, load, cores, kQuietLoadPerCore);
  return buf;
}

}  // namespace

std::string why_incomparable(const json& stored, const json& now) {
  if (!stored.is_object() || !stored.contains("cpu_model") || !stored.contains("load_1m_before"))
    return "the stored figures carry no CPU model and load (recorded before regress kept them): "
           "re-record them with --update on a quiet host, or give --against-build";
  std::string why;
  auto add = [&](const std::string& s) {
    if (!s.empty()) why += (why.empty() ? "" : "; ") + s;
  };
  if (stored.value("cpu_model", "") != now.value("cpu_model", ""))
    add("CPU model: stored '" + stored.value("cpu_model", "") + "', now '" + now.value("cpu_model", "") + "'");
  if (stored.value("cores", 0) != now.value("cores", 0))
    add("cores: stored " + std::to_string(stored.value("cores", 0)) + ", now " +
        std::to_string(now.value("cores", 0)));
  add(busy(stored, "stored"));
  add(busy(now, "now"));
  return why;
}

bool running_under_ci() {
  const char* v = std::getenv("CI");
  if (v == nullptr) return false;
  const std::string value(v);
  return !value.empty() && value != "0" && value != "false";
}

}  // namespace prooflab::harness
