// counters.csv of docs/run-directory.md: `t_us,source,metric,value,unit`, one sample per
// row, each batch of rows flushed as it is written (a killed run keeps its samples).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace prooflab::harness::counters {

// The `value` field: integers without a decimal point, other numbers with 9 significant
// digits. nullopt-like "" for non-finite values (which are not written).
std::string format_counter_value(double v);

class CountersCsv {
 public:
  explicit CountersCsv(
      const std::filesystem::path& path);  // writes the header; throws naming the path
  ~CountersCsv();
  CountersCsv(const CountersCsv&) = delete;
  CountersCsv& operator=(const CountersCsv&) = delete;

  // Skips non-finite values (a rate over a zero interval); returns whether it wrote a row.
  bool append(std::int64_t t_us, std::string_view source, std::string_view metric, double value,
              std::string_view unit);
  void flush();
  std::uint64_t rows() const { return rows_; }

 private:
  std::FILE* file_ = nullptr;
  std::uint64_t rows_ = 0;
};

}  // namespace prooflab::harness::counters
