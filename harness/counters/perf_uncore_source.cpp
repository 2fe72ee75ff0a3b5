#include "harness/counters/perf_uncore_source.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/counters/perf_event_counter.hpp"

namespace prooflab::harness::counters {

namespace {

struct EventPair {
  const char* pmu_prefix;
  const char* read_event;
  const char* write_event;
};
// Order matters: "uncore_imc_free_running" also starts with "uncore_imc".
constexpr EventPair kKnownPairs[] = {
    {"uncore_imc_free_running", "data_read", "data_write"},
    {"uncore_imc", "cas_count_read", "cas_count_write"},
};
constexpr const char* kUndecodedPrefixes[] = {"amd_df", "amd_umc"};

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

const EventPair* pair_for(const std::string& pmu) {
  for (const auto& p : kKnownPairs)
    if (starts_with(pmu, p.pmu_prefix)) return &p;
  return nullptr;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

}  // namespace

PerfUncoreSource::~PerfUncoreSource() { stop(); }

std::string PerfUncoreSource::open_event(const PmuEvent& ev) {
  const auto per_unit = bytes_per_unit(ev.unit);
  if (!per_unit)
    return ev.pmu + "/" + ev.event + "/ counts '" +
           (ev.unit.empty() ? "events (no unit)" : ev.unit) + "', not bytes";
  for (const int cpu : ev.cpus) {
    std::string why;
    const int fd = open_perf_event(ev, cpu, &why);
    if (fd < 0) return why;
    Counter c;
    c.fd = fd;
    c.bytes_per_count = ev.scale * *per_unit;
    counters_.push_back(c);
  }
  return "";
}

bool PerfUncoreSource::read_bytes(double& bytes) {
  bytes = 0;
  for (auto& c : counters_) {
    std::uint64_t v = 0;
    if (::read(c.fd, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return false;
    // Free-running counters may be narrower than 64 bits; a wrap shows as v < last.
    const std::uint64_t delta = v >= c.last ? v - c.last : 0;
    bytes += static_cast<double>(delta) * c.bytes_per_count;
    c.last = v;
  }
  return true;
}

SourceStatus PerfUncoreSource::start(std::int64_t now_ns) {
  const auto pmus = list_pmus(root_);
  std::vector<std::string> tried, undecoded;
  std::string first_error;
  std::vector<std::string> opened;
  for (const auto& pmu : pmus) {
    for (const char* p : kUndecodedPrefixes)
      if (starts_with(pmu, p)) undecoded.push_back(pmu);
    const EventPair* pair = pair_for(pmu);
    if (!pair) continue;
    tried.push_back(pmu);
    // Both events of a PMU or neither: read bytes alone would pass for read+write.
    const std::size_t before = counters_.size();
    std::string err;
    for (const char* event : {pair->read_event, pair->write_event}) {
      try {
        const auto ev = resolve_pmu_event(root_, pmu, event);
        err = ev ? open_event(*ev) : pmu + " has no event " + event;
      } catch (const std::exception& e) {
        err = e.what();
      }
      if (!err.empty()) break;
    }
    if (err.empty()) {
      opened.push_back(pmu);
      continue;
    }
    for (std::size_t i = before; i < counters_.size(); ++i) ::close(counters_[i].fd);
    counters_.resize(before);
    if (first_error.empty()) first_error = err;
  }
  const auto devices = (root_ / "bus/event_source/devices").string();
  if (opened.empty()) {
    stop();
    if (tried.empty()) {
      std::string why = "no memory-controller PMU (uncore_imc*, uncore_imc_free_running*) under " +
                        devices + " (present: " + join(pmus) + ")";
      if (!undecoded.empty())
        why += "; " + join(undecoded) + " present, but they name no DRAM events in sysfs";
      status_ = SourceStatus::unavailable(why);
    } else {
      status_ = SourceStatus::unavailable(first_error);
    }
    return status_;
  }
  double ignored = 0;
  if (!read_bytes(ignored)) {
    const int err = errno;
    stop();
    status_ = SourceStatus::unavailable(std::string("reading the uncore counters failed: ") +
                                        std::strerror(err));
    return status_;
  }
  last_ns_ = now_ns;
  std::string what = "DRAM read+write bytes from " + join(opened) + " (" +
                     std::to_string(counters_.size()) + " counters)";
  if (!first_error.empty()) what += "; not opened: " + first_error;
  status_ = SourceStatus::available(what);
  return status_;
}

void PerfUncoreSource::sample(std::int64_t now_ns, std::vector<Reading>& out) {
  double bytes = 0;
  if (!read_bytes(bytes)) {
    status_ = SourceStatus::unavailable(
        std::string("reading the uncore counters failed mid-run: ") + std::strerror(errno));
    return;
  }
  const double dt = static_cast<double>(now_ns - last_ns_) * 1e-9;
  last_ns_ = now_ns;
  if (dt > 0) out.push_back({"dram_bandwidth", bytes / dt * 1e-9, "GB/s"});
}

void PerfUncoreSource::stop() {
  for (auto& c : counters_)
    if (c.fd >= 0) ::close(c.fd);
  counters_.clear();
}

}  // namespace prooflab::harness::counters
