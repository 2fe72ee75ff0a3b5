#include "harness/python/fast_csv.hpp"

#include <charconv>
#include <fstream>
#include <iterator>

namespace prooflab::harness::python {
namespace {

// Splits [begin, end) of `text` at commas into `fields` (offsets), returns the count.
std::size_t split_fields(std::string_view text, std::size_t begin, std::size_t end,
                         std::vector<std::pair<std::size_t, std::size_t>>& fields) {
  fields.clear();
  std::size_t start = begin;
  for (std::size_t i = begin; i < end; ++i) {
    if (text[i] == ',') {
      fields.emplace_back(start, i);
      start = i + 1;
    }
  }
  fields.emplace_back(start, end);
  return fields.size();
}

// -?[0-9]+ within ±2^53 into out; false for anything else.
bool parse_exact_integer(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  std::size_t digits_at = s[0] == '-' ? 1 : 0;
  if (digits_at == s.size()) return false;
  for (std::size_t i = digits_at; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  std::uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(s.data() + digits_at, s.data() + s.size(), magnitude);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  if (magnitude > static_cast<std::uint64_t>(kMaxExactInteger)) return false;
  out = digits_at ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

}  // namespace

std::variant<FastCsv, FastCsvDeclined> read_csv_fast(const std::filesystem::path& path,
                                                     const std::set<std::string>& int_columns) {
  FastCsv csv;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return FastCsvDeclined{"cannot open " + path.string()};
    csv.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string_view text = csv.text;
  if (text.empty()) return FastCsvDeclined{"empty file"};
  if (text.back() != '\n') return FastCsvDeclined{"no newline at the end (possibly cut off)"};
  if (text.starts_with("\xEF\xBB\xBF")) return FastCsvDeclined{"byte-order mark"};
  // Quoting, NULs and lone carriage returns are the slow path's business.
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '"') return FastCsvDeclined{"quoted fields"};
    if (ch == '\0') return FastCsvDeclined{"NUL byte"};
    if (ch == '\r' && text[i + 1] != '\n') return FastCsvDeclined{"carriage return inside a line"};
  }

  // Line boundaries, without the terminator (and a '\r' before it).
  std::vector<std::pair<std::size_t, std::size_t>> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = text.find('\n', start);
    std::size_t end = nl;
    if (end > start && text[end - 1] == '\r') --end;
    lines.emplace_back(start, end);
    start = nl + 1;
  }
  if (lines.size() < 2) return FastCsvDeclined{"no data rows"};

  std::vector<std::pair<std::size_t, std::size_t>> fields;
  const std::size_t n_fields = split_fields(text, lines[0].first, lines[0].second, fields);
  std::set<std::string> seen;
  for (const auto& [b, e] : fields) {
    csv.header.emplace_back(text.substr(b, e - b));
    if (!seen.insert(csv.header.back()).second) return FastCsvDeclined{"repeated header column"};
  }
  csv.rows = lines.size() - 1;
  for (const auto& name : csv.header) {
    if (int_columns.contains(name)) {
      IntColumn c;
      c.values.resize(csv.rows);
      c.missing.resize(csv.rows);
      csv.columns.emplace_back(std::move(c));
    } else {
      TextColumn c;
      c.begin.resize(csv.rows);
      c.end.resize(csv.rows);
      csv.columns.emplace_back(std::move(c));
    }
  }

  for (std::size_t row = 0; row < csv.rows; ++row) {
    const auto [b, e] = lines[row + 1];
    if (b == e) return FastCsvDeclined{"blank line at row " + std::to_string(row + 1)};
    if (split_fields(text, b, e, fields) != n_fields)
      return FastCsvDeclined{"field count differs from the header at row " + std::to_string(row + 1)};
    for (std::size_t col = 0; col < n_fields; ++col) {
      const auto [fb, fe] = fields[col];
      if (auto* ints = std::get_if<IntColumn>(&csv.columns[col])) {
        if (fb == fe) {
          ints->missing[row] = 1;
        } else if (!parse_exact_integer(text.substr(fb, fe - fb), ints->values[row])) {
          return FastCsvDeclined{"column '" + csv.header[col] + "' row " + std::to_string(row + 1) +
                                 " is not a plain integer within 2^53"};
        }
      } else {
        auto& texts = std::get<TextColumn>(csv.columns[col]);
        texts.begin[row] = fb;
        texts.end[row] = fe;
      }
    }
  }
  return csv;
}

}  // namespace prooflab::harness::python
