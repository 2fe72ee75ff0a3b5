#include "core/trace/peak_rss.hpp"

#include <sys/resource.h>

#include <fstream>

namespace prooflab::trace {
namespace {

std::optional<std::uint64_t> vm_hwm_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    try {
      return std::stoull(line.substr(6)) * 1024;  // "VmHWM:   123456 kB"
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

PeakRss::PeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  reset_ = static_cast<bool>(clear) && vm_hwm_bytes().has_value();
}

std::optional<std::uint64_t> PeakRss::bytes() const {
  if (reset_) return vm_hwm_bytes();
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
}

}  // namespace prooflab::trace
