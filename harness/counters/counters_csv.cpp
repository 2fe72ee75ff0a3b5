#include "harness/counters/counters_csv.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace prooflab::harness::counters {

namespace {

// Source, metric and unit names are ours (no ',' or '"'), but quote per RFC 4180 anyway.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string format_counter_value(double v) {
  if (!std::isfinite(v)) return "";
  char buf[48];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

CountersCsv::CountersCsv(const std::filesystem::path& path) {
  file_ = std::fopen(path.c_str(), "we");
  if (!file_)
    throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  std::fputs("t_us,source,metric,value,unit\n", file_);
  std::fflush(file_);
}

CountersCsv::~CountersCsv() {
  if (file_) std::fclose(file_);
}

bool CountersCsv::append(std::int64_t t_us, std::string_view source, std::string_view metric,
                         double value, std::string_view unit) {
  const std::string v = format_counter_value(value);
  if (v.empty()) return false;
  const std::string line = std::to_string(t_us) + "," + csv_field(source) + "," +
                           csv_field(metric) + "," + v + "," + csv_field(unit) + "\n";
  std::fputs(line.c_str(), file_);
  ++rows_;
  return true;
}

void CountersCsv::flush() { std::fflush(file_); }

}  // namespace prooflab::harness::counters
