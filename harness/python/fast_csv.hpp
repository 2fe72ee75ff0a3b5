// A fast reader for the run directory's CSV files (docs/run-directory.md) on their common,
// plain form: no quoting, `\n` line ends, every line complete. It parses the integer
// columns it is told about into int64 + missing flags and keeps the others as text.
//
// It never decides that a file is malformed: anything outside the plain form (a quote, a
// field-count mismatch, a non-integer in an integer column, a cut-off last line, ...) makes
// it *decline* with a reason, and prooflab_analysis then reads the file with its pure-Python
// loader, which names the file, the line and the content in its error. So both paths give
// the same frame for every file the fast path accepts, and the same error for every other.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace prooflab::harness::python {

struct IntColumn {
  std::vector<std::int64_t> values;  // 0 where missing
  std::vector<std::uint8_t> missing;  // 1 where the field was empty
};

struct TextColumn {
  std::vector<std::size_t> begin, end;  // each field's bytes in FastCsv::text
};

struct FastCsv {
  std::string_view field(const TextColumn& c, std::size_t row) const {
    return std::string_view(text).substr(c.begin[row], c.end[row] - c.begin[row]);
  }
  std::string text;  // the whole file
  std::vector<std::string> header;
  std::vector<std::variant<IntColumn, TextColumn>> columns;  // in header order
  std::size_t rows = 0;
};

struct FastCsvDeclined {
  std::string reason;
};

// Integers the fast path accepts: -?[0-9]+ with magnitude at most 2^53, so that a value is
// the same whether pandas held it as int64 or, in a column with empty fields, as float64.
inline constexpr std::int64_t kMaxExactInteger = std::int64_t{1} << 53;

// The parsed file, or FastCsvDeclined naming why the plain form does not apply.
std::variant<FastCsv, FastCsvDeclined> read_csv_fast(const std::filesystem::path& path,
                                                     const std::set<std::string>& int_columns);

}  // namespace prooflab::harness::python
