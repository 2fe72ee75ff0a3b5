#include "harness/counters/energy_perf_power_source.hpp"

#include <cerrno>
#include <cstring>

namespace prooflab::harness::counters {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPmu = "power";
constexpr const char* kEnergyPrefix = "energy-";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

// "energy-pkg" -> "energy_pkg": counters.csv metrics are identifiers.
std::string metric_of(const std::string& event) {
  std::string m = event;
  for (char& c : m)
    if (c == '-') c = '_';
  return m;
}

}  // namespace

PerfPowerEnergySource::PerfPowerEnergySource(fs::path sysfs_root,
                                             std::unique_ptr<PerfCounters> counters)
    : root_(std::move(sysfs_root)),
      counters_(counters ? std::move(counters) : std::make_unique<KernelPerfCounters>()) {}

PerfPowerEnergySource::~PerfPowerEnergySource() { stop(); }

void PerfPowerEnergySource::close_event(Event& e) {
  for (const Counter& c : e.counters) counters_->close(c.handle);
  e.counters.clear();
}

std::string PerfPowerEnergySource::open_event(const PmuEvent& ev, Event& out) {
  out.event = ev.event;
  out.metric = metric_of(ev.event);
  out.joules_per_count = ev.scale;
  for (const int cpu : ev.cpus) {
    std::string why;
    Counter c;
    c.cpu = cpu;
    c.handle = counters_->open(ev, cpu, &why);
    if (c.handle < 0) {
      close_event(out);
      return why;
    }
    out.counters.push_back(c);
    if (!counters_->read(c.handle, out.counters.back().last)) {
      const int err = errno;
      close_event(out);
      return "reading " + std::string(kPmu) + "/" + ev.event + "/ on cpu " + std::to_string(cpu) +
             " failed: " + std::strerror(err);
    }
  }
  return "";
}

SourceStatus PerfPowerEnergySource::start(std::int64_t) {
  const fs::path devices = root_ / "bus/event_source/devices";
  if (!fs::is_directory(devices / kPmu)) {
    status_ = SourceStatus::unavailable(
        "no power PMU (RAPL energy counters) under " + devices.string() +
        " (present: " + join(list_pmus(root_)) + ")");
    return status_;
  }
  std::vector<std::string> names;
  for (const auto& e : list_pmu_events(root_, kPmu))
    if (e.rfind(kEnergyPrefix, 0) == 0) names.push_back(e);
  if (names.empty()) {
    status_ = SourceStatus::unavailable("the power PMU names no energy-* event under " +
                                        (devices / kPmu / "events").string());
    return status_;
  }
  std::vector<std::string> not_used;
  std::string used;
  for (const auto& name : names) {
    std::optional<PmuEvent> ev;
    try {
      ev = resolve_pmu_event(root_, kPmu, name);
    } catch (const std::exception& e) {
      not_used.push_back(e.what());
      continue;
    }
    if (!ev) continue;
    if (ev->unit != "Joules") {
      not_used.push_back(std::string(kPmu) + "/" + name + "/ counts '" +
                         (ev->unit.empty() ? "events (no unit)" : ev->unit) + "', not Joules");
      continue;
    }
    Event e;
    if (std::string why = open_event(*ev, e); !why.empty()) {
      not_used.push_back(why);
      continue;
    }
    std::string cpus;
    for (const Counter& c : e.counters) cpus += (cpus.empty() ? "" : " ") + std::to_string(c.cpu);
    used += (used.empty() ? "" : ", ") + e.metric + " (cpu " + cpus + ")";
    events_.push_back(std::move(e));
  }
  std::string notes;
  for (const auto& n : not_used) notes += (notes.empty() ? "" : "; ") + n;
  if (events_.empty()) {
    status_ = SourceStatus::unavailable("no energy event of the power PMU opened: " + notes);
    return status_;
  }
  status_ = SourceStatus::available(
      "RAPL energy from the perf power PMU, J since sampling started, every round: " + used +
      (notes.empty() ? "" : "; not used: " + notes));
  return status_;
}

void PerfPowerEnergySource::sample(std::int64_t, std::vector<Reading>& out) {
  if (!status_.used) return;
  for (Event& e : events_) {
    for (Counter& c : e.counters) {
      std::uint64_t now = 0;
      if (!counters_->read(c.handle, now)) {
        const int err = errno;
        status_ = SourceStatus::unavailable("stopped mid-run: reading " + std::string(kPmu) + "/" +
                                            e.event + "/ on cpu " + std::to_string(c.cpu) +
                                            " failed: " + std::strerror(err));
        return;
      }
      e.counts += now - c.last;  // modulo 2^64: the kernel's count wraps there
      c.last = now;
    }
  }
  for (const Event& e : events_)
    out.push_back({e.metric.c_str(), static_cast<double>(e.counts) * e.joules_per_count, "J"});
}

void PerfPowerEnergySource::stop() {
  for (Event& e : events_) close_event(e);
  events_.clear();
}

}  // namespace prooflab::harness::counters
