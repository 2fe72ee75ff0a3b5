// The counter flags of the commands that run batches (`prooflab batch`, and the
// experiment runners): --counters, --counter-period-ms, --probe-bytes, --probe-ring-bytes.
// Header-only so that the counters library itself does not depend on CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "core/text/parse.hpp"
#include "harness/counters/options.hpp"

namespace prooflab::harness::counters {

struct CounterFlags {
  std::string sources = "all";
  std::uint32_t period_ms = 100;
  std::string probe_bytes = "4MiB", probe_ring_bytes = "auto";

  // Validated options; throws CounterOptionError naming the flag.
  CounterOptions to_options() const {
    CounterOptions o;
    o.selection = sources;
    o.sources = parse_counter_selection(sources);
    o.period_ms = period_ms;
    auto bytes = [](const char* flag, const std::string& value) {
      try {
        return text::parse_bytes(value);
      } catch (const text::ParseError&) {
        throw CounterOptionError(std::string(flag) + ": bad value '" + value +
                                 "' (accepted: a byte count such as 65536, 4MiB, 1GiB)");
      }
    };
    o.probe_bytes = bytes("--probe-bytes", probe_bytes);
    o.probe_ring_bytes =
        probe_ring_bytes == "auto" ? 0 : bytes("--probe-ring-bytes", probe_ring_bytes);
    o.validate();
    return o;
  }
};

inline void add_counter_flags(CLI::App* cmd, CounterFlags& f) {
  cmd->add_option("--counters", f.sources,
                  "counter sources: all | off | a list of probe,proc,likwid,perf_uncore,nvml,"
                  "gpu_energy,host_energy,host_memory "
                  "(docs/counters.md)")
      ->capture_default_str();
  cmd->add_option("--counter-period-ms", f.period_ms, "counter sampling period in ms (1..60000)")
      ->capture_default_str();
  cmd->add_option("--probe-bytes", f.probe_bytes, "bandwidth probe: bytes read+written per sample")
      ->capture_default_str();
  cmd->add_option("--probe-ring-bytes", f.probe_ring_bytes,
                  "bandwidth probe: ring it walks through (auto = 2 x last-level cache)")
      ->capture_default_str();
}

}  // namespace prooflab::harness::counters
