// What the counter sampler runs and how often: engine-independent knobs of a batch run
// (`prooflab batch --counters ... --counter-period-ms ...`, docs/counters.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::harness::counters {

class CounterOptionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Every source the sampler knows, in the order they appear in run.json.
const std::vector<std::string>& source_names();

struct CounterOptions {
  std::set<std::string> sources = {source_names().begin(), source_names().end()};
  std::string selection = "all";  // as given, for run.json and "switched off" reasons
  std::uint32_t period_ms = 100;
  // Bandwidth probe: bytes read and written per sample, walking through a ring of
  // probe_ring_bytes (0 = twice the last-level cache, within 16..256 MiB) so that its
  // reads come from DRAM rather than from the cache.
  std::uint64_t probe_bytes = 4ull << 20;
  std::uint64_t probe_ring_bytes = 0;
  // The process whose page faults and RSS the proc source reads: 0 = this one; the external
  // runner names its prover's (the setup's or the run command's process).
  int proc_pid = 0;
  // The host_memory source: the engine's charged host bytes (core/engine/host_memory_budget.hpp),
  // which the engine keeps current here while it runs; null where no engine runs in this
  // process (an external prover), and the source then says so.
  const std::atomic<std::uint64_t>* host_charged = nullptr;
  // The likwid helper's initialisation (likwid's access daemon gives up after 10 s).
  double likwid_init_timeout_s = 15.0;

  // Throws CounterOptionError naming the flag and the accepted range.
  void validate() const;
  nlohmann::json to_json() const;  // run.json "counter_sampling"
};

// "all" | "off" | a comma-separated list of source names (e.g. "probe,proc").
// Throws CounterOptionError naming --counters, the bad name and the accepted names.
std::set<std::string> parse_counter_selection(const std::string& text);

}  // namespace prooflab::harness::counters
