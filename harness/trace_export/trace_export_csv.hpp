// Strict readers of a run directory's CSV files (docs/run-directory.md) for `prooflab
// trace`: timeline.csv, cupti.csv, counters.csv and run.json, typed, with the same rules
// as the analysis package's loaders. A malformed file is an error naming the file, the
// line and its content; the one tolerated defect is the cut-off last line of a run whose
// run.json does not say "complete" (a killed run), which is dropped with a warning.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::harness::trace_export {

class RunFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// RFC 4180 fields of one line (no embedded newlines). Throws std::invalid_argument on a
// stray or unterminated quote.
std::vector<std::string> split_csv_line(const std::string& line);

struct CsvColumn {
  enum Kind { kInt, kFloat, kString } kind;
  const char* name;
  bool required = false;  // an empty field is an error
  bool non_negative = false;
};

struct CsvRow {
  std::size_t line = 0;             // 1-based line number in the file
  std::vector<std::string> fields;  // in schema order (extra columns dropped)
};

// Reads `path` against the schema: every schema column must be in the header (extras are
// accepted), every row must have the header's field count, typed fields must parse.
// run_complete: whether run.json says "complete" (see above).
std::vector<CsvRow> read_csv_strict(const std::filesystem::path& path,
                                    std::span<const CsvColumn> schema, bool run_complete,
                                    std::vector<std::string>& warnings);

constexpr int kEmpty = -1;  // an empty integer field

struct TimelineEvent {
  std::int64_t t_us = 0;
  std::string event;
  int job = kEmpty, partition = kEmpty, worker = kEmpty, device = kEmpty;
  std::string detail;
  std::size_t line = 0;
};

struct CuptiRecord {
  std::string kind;  // KERNEL | MEMCPY | MEMSET | SYNC | MARKER
  int device = 0;
  std::int64_t stream = kEmpty;
  std::string name;
  double start_us = 0, end_us = 0;
  std::int64_t bytes = kEmpty, correlation = kEmpty;
  std::size_t line = 0;
};

struct CounterSample {
  std::int64_t t_us = 0;
  std::string source, metric;
  double value = 0;
  std::string unit;
  std::size_t line = 0;
};

// counters.csv alone (the energy summary of a finished batch reads it back).
std::vector<CounterSample> read_counters_csv(const std::filesystem::path& path, bool run_complete,
                                             std::vector<std::string>& warnings);

struct RunTables {
  std::filesystem::path dir;
  nlohmann::json meta;  // run.json, or null when absent
  std::vector<TimelineEvent> timeline;
  std::vector<CuptiRecord> cupti;
  std::vector<CounterSample> counters;
  bool has_timeline = false, has_cupti = false, has_counters = false;
  std::vector<std::string> warnings;
};

// Loads run.json and the three CSV files of a run directory (each optional, but run.json
// or timeline.csv must exist). Throws RunFormatError.
RunTables load_run_tables(const std::filesystem::path& dir);

// "k=v;k=v" -> the value of key, or "" when absent.
std::string detail_value(const std::string& detail, const std::string& key);

}  // namespace prooflab::harness::trace_export
