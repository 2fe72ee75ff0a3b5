// The `host_energy` source: the host's RAPL energy counters through the perf `power` PMU
// (<sysfs>/bus/event_source/devices/power: energy-pkg, energy-ram, energy-psys, energy-cores,
// energy-gpu, whichever the CPU and kernel expose), in J since sampling started, as rows
// `host_energy,energy_pkg,<J>,J`, `host_energy,energy_psys,...` every round. Each event is
// counted on every CPU of the PMU's cpumask (one per package or die) and summed.
//
// Scale and unit come from sysfs (events/<event>.scale, .unit: "Joules"); an event whose file
// does not parse or whose unit is not Joules is left out and named in the reason. The count
// read from perf is the kernel's 64-bit sum: the kernel reads the 32-bit RAPL MSR often enough
// to see each of its wraps and adds the scaled differences (Linux arch/x86/events/rapl.c,
// RAPL_CNTR_WIDTH 32, counts of 2^-32 J), so the count user space sees wraps only at 2^64,
// after 2^32 J (~50 days at 1 kW); differences are taken modulo 2^64 all the same.
//
// Which events measure what differs by platform (psys: the whole platform where it exists;
// pkg: the CPU packages; ram: their DRAM; cores and gpu: parts of pkg): the energy summary
// picks from them (energy_summary.hpp), this source records every one it can open.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/counters/perf_event_counter.hpp"
#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class PerfPowerEnergySource final : public CounterSource {
 public:
  // counters: how events are opened and read (the kernel's by default; tests pass recorded
  // counts).
  explicit PerfPowerEnergySource(std::filesystem::path sysfs_root = "/sys",
                                 std::unique_ptr<PerfCounters> counters = nullptr);
  ~PerfPowerEnergySource() override;
  const char* name() const override { return "host_energy"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

 private:
  struct Counter {
    int handle = -1;
    int cpu = 0;
    std::uint64_t last = 0;
  };
  struct Event {
    std::string event;   // "energy-pkg"
    std::string metric;  // "energy_pkg", the counters.csv metric
    double joules_per_count = 0;
    std::vector<Counter> counters;
    std::uint64_t counts = 0;  // since start, over all its CPUs
  };
  // Opens ev on every CPU of its cpumask and reads the baseline; "" or why not.
  std::string open_event(const PmuEvent& ev, Event& out);
  void close_event(Event& e);

  std::filesystem::path root_;
  std::unique_ptr<PerfCounters> counters_;
  std::vector<Event> events_;
  SourceStatus status_ = SourceStatus::unavailable("not started");
};

}  // namespace prooflab::harness::counters
