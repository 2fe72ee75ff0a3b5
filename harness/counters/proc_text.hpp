// Parsers for the /proc text formats the `proc` source reads, as pure functions on the
// file's text so that tests run them on fixtures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace prooflab::harness::counters {

// Sum over CPUs of the x86 "TLB:" row of /proc/interrupts
//   "TLB:   32583   10779   TLB shootdowns"
// (one count per CPU column, then the description). nullopt when there is no such row
// (not x86) or a count does not parse.
std::optional<std::uint64_t> parse_tlb_shootdowns(std::string_view interrupts);

struct FaultCounts {
  std::uint64_t minor = 0, major = 0;
};
// minflt and majflt (fields 10 and 12) of /proc/<pid>/stat; the whole process, all threads.
// The command name (field 2) is in parentheses and may itself hold spaces and ')', so the
// fields are counted from the last ')'.
std::optional<FaultCounts> parse_stat_faults(std::string_view stat);

// Resident pages (field 2) of /proc/<pid>/statm.
std::optional<std::uint64_t> parse_statm_resident_pages(std::string_view statm);

// The whole text of a (/proc) file, read with one open and a few reads (the size of a
// /proc file is unknown in advance). nullopt with errno set when it cannot be opened.
std::optional<std::string> read_small_file(const std::string& path);

}  // namespace prooflab::harness::counters
