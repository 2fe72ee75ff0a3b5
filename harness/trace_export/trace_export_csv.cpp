#include "harness/trace_export/trace_export_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace prooflab::harness::trace_export {

namespace fs = std::filesystem;

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  for (;;) {
    std::string f;
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) throw std::invalid_argument("unterminated quoted field");
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f += line[i++];
      }
      if (i < line.size() && line[i] != ',')
        throw std::invalid_argument("text after a closing quote");
    } else {
      while (i < line.size() && line[i] != ',') {
        if (line[i] == '"') throw std::invalid_argument("quote inside an unquoted field");
        f += line[i++];
      }
    }
    fields.push_back(std::move(f));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

namespace {

bool parse_int(const std::string& s, std::int64_t& v) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_float(const std::string& s, double& v) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

// Why the field does not fit its column, or "".
std::string check_field(const CsvColumn& col, const std::string& f) {
  if (f.empty()) return col.required ? "empty required field" : "";
  if (col.kind == CsvColumn::kInt) {
    std::int64_t v = 0;
    if (!parse_int(f, v)) return "'" + f + "' is not an integer";
    if (col.non_negative && v < 0) return "'" + f + "' is negative";
  } else if (col.kind == CsvColumn::kFloat) {
    double v = 0;
    if (!parse_float(f, v)) return "'" + f + "' is not a number";
    if (col.non_negative && v < 0) return "'" + f + "' is negative";
  }
  return "";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw RunFormatError(p.string() + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::int64_t as_int(const std::string& f) {
  std::int64_t v = kEmpty;
  if (!f.empty()) parse_int(f, v);
  return v;
}

double as_float(const std::string& f) {
  double v = 0;
  parse_float(f, v);
  return v;
}

bool is_event_name(const std::string& s) {
  if (s.empty() || !(s[0] >= 'A' && s[0] <= 'Z')) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

constexpr CsvColumn kTimelineSchema[] = {
    {CsvColumn::kInt, "t_us", true, true},    {CsvColumn::kString, "event", true},
    {CsvColumn::kInt, "job", false, true},    {CsvColumn::kInt, "partition", false, true},
    {CsvColumn::kInt, "worker", false, true}, {CsvColumn::kInt, "device", false, true},
    {CsvColumn::kString, "detail"},
};
constexpr CsvColumn kCuptiSchema[] = {
    {CsvColumn::kString, "kind", true},       {CsvColumn::kInt, "device", true, true},
    {CsvColumn::kInt, "stream", false, true}, {CsvColumn::kString, "name"},
    {CsvColumn::kFloat, "start_us", true},    {CsvColumn::kFloat, "end_us", true},
    {CsvColumn::kInt, "bytes", false, true},  {CsvColumn::kInt, "correlation"},
};
constexpr CsvColumn kCountersSchema[] = {
    {CsvColumn::kInt, "t_us", true, true}, {CsvColumn::kString, "source", true},
    {CsvColumn::kString, "metric", true},  {CsvColumn::kFloat, "value", true},
    {CsvColumn::kString, "unit"},
};

}  // namespace

std::vector<CsvRow> read_csv_strict(const fs::path& path, std::span<const CsvColumn> schema,
                                    bool run_complete, std::vector<std::string>& warnings) {
  const std::string text = read_file(path);
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string::npos;
    if (last) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = nl + 1;
  }
  const bool ends_with_newline = !text.empty() && text.back() == '\n';
  auto error = [&](std::size_t line_no, const std::string& what) {
    return RunFormatError(path.string() + ":" + std::to_string(line_no) + ": " + what +
                          " in line '" +
                          (line_no - 1 < lines.size() ? lines[line_no - 1] : std::string()) + "'");
  };
  if (lines.empty()) throw RunFormatError(path.string() + ": empty file (no header line)");

  std::vector<std::string> header;
  try {
    header = split_csv_line(lines[0]);
  } catch (const std::invalid_argument& e) {
    throw error(1, std::string("header: ") + e.what());
  }
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < header.size(); ++i)
    if (!index.emplace(header[i], i).second) throw error(1, "duplicate column '" + header[i] + "'");
  std::vector<std::size_t> where;
  for (const auto& col : schema) {
    const auto it = index.find(col.name);
    if (it == index.end()) throw error(1, std::string("missing column '") + col.name + "'");
    where.push_back(it->second);
  }

  std::vector<CsvRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t line_no = i + 1;
    const bool cut_candidate = i + 1 == lines.size() && !ends_with_newline;
    try {
      if (lines[i].empty()) throw error(line_no, "blank line");
      std::vector<std::string> fields;
      try {
        fields = split_csv_line(lines[i]);
      } catch (const std::invalid_argument& e) {
        throw error(line_no, e.what());
      }
      if (fields.size() != header.size())
        throw error(line_no, std::to_string(fields.size()) + " fields where the header has " +
                                 std::to_string(header.size()));
      CsvRow row{line_no, {}};
      for (std::size_t c = 0; c < schema.size(); ++c) {
        const std::string& f = fields[where[c]];
        if (const std::string why = check_field(schema[c], f); !why.empty())
          throw error(line_no, std::string("column ") + schema[c].name + ": " + why);
        row.fields.push_back(f);
      }
      rows.push_back(std::move(row));
    } catch (const RunFormatError& e) {
      if (cut_candidate && !run_complete) {
        warnings.push_back(path.string() + ":" + std::to_string(line_no) +
                           ": dropped the cut-off last line of a run that did not complete ('" +
                           lines[i] + "')");
        continue;
      }
      throw;
    }
  }
  return rows;
}

std::string detail_value(const std::string& detail, const std::string& key) {
  std::size_t pos = 0;
  while (pos <= detail.size()) {
    std::size_t end = detail.find(';', pos);
    if (end == std::string::npos) end = detail.size();
    const std::string kv = detail.substr(pos, end - pos);
    const auto eq = kv.find('=');
    if (eq != std::string::npos && kv.substr(0, eq) == key) return kv.substr(eq + 1);
    pos = end + 1;
  }
  return "";
}

std::vector<CounterSample> read_counters_csv(const fs::path& path, bool run_complete,
                                             std::vector<std::string>& warnings) {
  std::vector<CounterSample> out;
  for (auto& r : read_csv_strict(path, kCountersSchema, run_complete, warnings)) {
    CounterSample s;
    s.t_us = as_int(r.fields[0]);
    s.source = r.fields[1];
    s.metric = r.fields[2];
    s.value = as_float(r.fields[3]);
    s.unit = r.fields[4];
    s.line = r.line;
    out.push_back(std::move(s));
  }
  return out;
}

RunTables load_run_tables(const fs::path& dir) {
  RunTables t;
  t.dir = dir;
  const fs::path run_json = dir / "run.json", timeline = dir / "timeline.csv",
                 cupti = dir / "cupti.csv", counters = dir / "counters.csv";
  if (!fs::is_directory(dir)) throw RunFormatError(dir.string() + ": not a directory");
  if (!fs::exists(run_json) && !fs::exists(timeline))
    throw RunFormatError(dir.string() +
                         ": not a run directory (neither run.json nor timeline.csv)");
  if (fs::exists(run_json)) {
    try {
      t.meta = nlohmann::json::parse(read_file(run_json));
    } catch (const nlohmann::json::exception& e) {
      throw RunFormatError(run_json.string() + ": not valid JSON: " + e.what());
    }
    if (!t.meta.is_object()) throw RunFormatError(run_json.string() + ": not a JSON object");
  }
  const bool complete = t.meta.is_object() && t.meta.value("status", "") == "complete";

  if ((t.has_timeline = fs::exists(timeline))) {
    for (auto& r : read_csv_strict(timeline, kTimelineSchema, complete, t.warnings)) {
      TimelineEvent e;
      e.t_us = as_int(r.fields[0]);
      e.event = r.fields[1];
      if (!is_event_name(e.event))
        throw RunFormatError(timeline.string() + ":" + std::to_string(r.line) + ": event '" +
                             e.event + "' is not an upper-case event name");
      e.job = static_cast<int>(as_int(r.fields[2]));
      e.partition = static_cast<int>(as_int(r.fields[3]));
      e.worker = static_cast<int>(as_int(r.fields[4]));
      e.device = static_cast<int>(as_int(r.fields[5]));
      e.detail = r.fields[6];
      e.line = r.line;
      t.timeline.push_back(std::move(e));
    }
  }
  if ((t.has_cupti = fs::exists(cupti))) {
    static const char* const kKinds[] = {"KERNEL", "MEMCPY", "MEMSET", "SYNC", "MARKER"};
    for (auto& r : read_csv_strict(cupti, kCuptiSchema, complete, t.warnings)) {
      CuptiRecord c;
      c.kind = r.fields[0];
      bool known = false;
      for (const char* k : kKinds) known = known || c.kind == k;
      if (!known)
        throw RunFormatError(cupti.string() + ":" + std::to_string(r.line) + ": kind '" + c.kind +
                             "' is not one of KERNEL, MEMCPY, MEMSET, SYNC, MARKER");
      c.device = static_cast<int>(as_int(r.fields[1]));
      c.stream = as_int(r.fields[2]);
      c.name = r.fields[3];
      c.start_us = as_float(r.fields[4]);
      c.end_us = as_float(r.fields[5]);
      if (c.end_us < c.start_us)
        throw RunFormatError(cupti.string() + ":" + std::to_string(r.line) + ": end_us " +
                             r.fields[5] + " is before start_us " + r.fields[4]);
      c.bytes = as_int(r.fields[6]);
      c.correlation = as_int(r.fields[7]);
      c.line = r.line;
      t.cupti.push_back(std::move(c));
    }
  }
  if ((t.has_counters = fs::exists(counters)))
    t.counters = read_counters_csv(counters, complete, t.warnings);
  return t;
}

}  // namespace prooflab::harness::trace_export
