// perf PMUs as sysfs describes them (/sys/bus/event_source/devices/<pmu>/{type, cpumask,
// format/*, events/*}), turned into perf_event_attr configs. Pure functions on a sysfs
// root so that tests run them on a fixture tree.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace prooflab::harness::counters {

// A format field, e.g. "config:0-7,32-35" or "config1:0-63" or "config:21".
struct FormatField {
  int word = 0;                                 // 0 = config, 1 = config1, 2 = config2
  std::vector<std::pair<int, int>> bit_ranges;  // [lo, hi], low bits of the value first
};
// Throws std::invalid_argument naming the text.
FormatField parse_format_field(std::string_view text);
// Scatters value into configs according to the field.
void apply_format_field(const FormatField& f, std::uint64_t value,
                        std::array<std::uint64_t, 3>& configs);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Throws std::invalid_argument naming the text.
std::vector<int> parse_cpu_list(std::string_view text);

struct PmuEvent {
  std::string pmu, event;
  std::uint32_t type = 0;
  std::array<std::uint64_t, 3> config{};  // config, config1, config2
  double scale = 1.0;                     // events/<event>.scale (1 when absent)
  std::string unit;                       // events/<event>.unit ("MiB", ...; empty when absent)
  std::vector<int> cpus;                  // cpumask: one CPU per socket/die for uncore PMUs
};

// The PMU names under <sysfs_root>/bus/event_source/devices, sorted.
std::vector<std::string> list_pmus(const std::filesystem::path& sysfs_root);

// The event names under <sysfs_root>/bus/event_source/devices/<pmu>/events (their .scale and
// .unit files left out), sorted; empty when there is no such directory.
std::vector<std::string> list_pmu_events(const std::filesystem::path& sysfs_root,
                                         const std::string& pmu);

// Resolves <pmu>/events/<event> ("event=0x04,umask=0x03") through <pmu>/format/*.
// nullopt when the PMU has no such event; throws std::runtime_error (naming the file and
// its content) when a file that exists does not parse.
std::optional<PmuEvent> resolve_pmu_event(const std::filesystem::path& sysfs_root,
                                          const std::string& pmu, const std::string& event);

// Bytes per unit of a perf scale unit ("MiB" -> 2^20, "MB" -> 1e6, "B" -> 1); nullopt
// for a unit that is not a byte count (or no unit: the count is of events, not bytes).
std::optional<double> bytes_per_unit(std::string_view unit);

}  // namespace prooflab::harness::counters
