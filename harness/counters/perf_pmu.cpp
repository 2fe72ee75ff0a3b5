#include "harness/counters/perf_pmu.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "harness/counters/proc_text.hpp"

namespace prooflab::harness::counters {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && s[b] == ' ') ++b;
  return s.substr(b);
}

// Decimal or 0x-hex unsigned; nullopt when the whole text is not a number.
std::optional<std::uint64_t> parse_number(std::string_view t) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

int parse_int(std::string_view t, std::string_view whole) {
  const auto v = parse_number(t);
  if (!v || *v > 1'000'000)
    throw std::invalid_argument("not a number '" + std::string(t) + "' in '" + std::string(whole) +
                                "'");
  return static_cast<int>(*v);
}

}  // namespace

FormatField parse_format_field(std::string_view text) {
  const std::string whole = trim(std::string(text));
  const auto colon = whole.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("format field without ':': '" + whole + "'");
  const std::string word = whole.substr(0, colon);
  FormatField f;
  if (word == "config")
    f.word = 0;
  else if (word == "config1")
    f.word = 1;
  else if (word == "config2")
    f.word = 2;
  else
    throw std::invalid_argument("format field of unknown word '" + word + "': '" + whole + "'");
  std::string_view bits = std::string_view(whole).substr(colon + 1);
  while (!bits.empty()) {
    const auto comma = bits.find(',');
    const std::string_view part = bits.substr(0, comma);
    const auto dash = part.find('-');
    const int lo = parse_int(part.substr(0, dash), whole);
    const int hi = dash == std::string_view::npos ? lo : parse_int(part.substr(dash + 1), whole);
    if (lo > hi || hi > 63)
      throw std::invalid_argument("bad bit range '" + std::string(part) + "' in '" + whole + "'");
    f.bit_ranges.emplace_back(lo, hi);
    if (comma == std::string_view::npos) break;
    bits.remove_prefix(comma + 1);
  }
  if (f.bit_ranges.empty())
    throw std::invalid_argument("format field without bits: '" + whole + "'");
  return f;
}

void apply_format_field(const FormatField& f, std::uint64_t value,
                        std::array<std::uint64_t, 3>& configs) {
  int shift = 0;
  for (const auto& [lo, hi] : f.bit_ranges) {
    const int width = hi - lo + 1;
    const std::uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
    const std::uint64_t part = shift >= 64 ? 0 : (value >> shift) & mask;
    configs[f.word] |= part << lo;
    shift += width;
  }
}

std::vector<int> parse_cpu_list(std::string_view text) {
  const std::string whole = trim(std::string(text));
  std::vector<int> cpus;
  std::string_view rest = whole;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const auto dash = part.find('-');
    const int lo = parse_int(part.substr(0, dash), whole);
    const int hi = dash == std::string_view::npos ? lo : parse_int(part.substr(dash + 1), whole);
    if (lo > hi)
      throw std::invalid_argument("bad CPU range '" + std::string(part) + "' in '" + whole + "'");
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return cpus;
}

std::vector<std::string> list_pmus(const fs::path& sysfs_root) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sysfs_root / "bus/event_source/devices", ec))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_pmu_events(const fs::path& sysfs_root, const std::string& pmu) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e :
       fs::directory_iterator(sysfs_root / "bus/event_source/devices" / pmu / "events", ec)) {
    const std::string name = e.path().filename().string();
    const auto dot = name.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
    if (ext != ".scale" && ext != ".unit" && ext != ".per-pkg" && ext != ".snapshot")
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<PmuEvent> resolve_pmu_event(const fs::path& sysfs_root, const std::string& pmu,
                                          const std::string& event) {
  const fs::path dir = sysfs_root / "bus/event_source/devices" / pmu;
  const auto spec = read_small_file((dir / "events" / event).string());
  if (!spec) return std::nullopt;
  auto fail = [](const fs::path& p, const std::string& content, const std::string& why) {
    return std::runtime_error(p.string() + ": " + why + " (content: '" + trim(content) + "')");
  };
  PmuEvent ev;
  ev.pmu = pmu;
  ev.event = event;
  const auto type_text = read_small_file((dir / "type").string());
  if (!type_text) throw std::runtime_error((dir / "type").string() + ": cannot read");
  const auto type = parse_number(trim(*type_text));
  if (!type) throw fail(dir / "type", *type_text, "not a number");
  ev.type = static_cast<std::uint32_t>(*type);

  // "event=0x04,umask=0x03" ; a term without '=' is a flag worth 1.
  const std::string spec_text = trim(*spec);
  std::string_view terms = spec_text;
  while (!terms.empty()) {
    const auto comma = terms.find(',');
    const std::string_view term = terms.substr(0, comma);
    const auto eq = term.find('=');
    const std::string key(term.substr(0, eq));
    std::uint64_t value = 1;
    if (eq != std::string_view::npos) {
      const auto v = parse_number(term.substr(eq + 1));
      if (!v) throw fail(dir / "events" / event, *spec, "value of '" + key + "' is not a number");
      value = *v;
    }
    const auto format = read_small_file((dir / "format" / key).string());
    if (!format)
      throw fail(dir / "events" / event, *spec, "term '" + key + "' has no format/" + key);
    try {
      apply_format_field(parse_format_field(*format), value, ev.config);
    } catch (const std::invalid_argument& e) {
      throw fail(dir / "format" / key, *format, e.what());
    }
    if (comma == std::string_view::npos) break;
    terms.remove_prefix(comma + 1);
  }

  if (const auto scale = read_small_file((dir / "events" / (event + ".scale")).string())) {
    try {
      std::size_t used = 0;
      const std::string s = trim(*scale);
      ev.scale = std::stod(s, &used);
      if (used != s.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw fail(dir / "events" / (event + ".scale"), *scale, "not a number");
    }
  }
  if (const auto unit = read_small_file((dir / "events" / (event + ".unit")).string()))
    ev.unit = trim(*unit);
  if (const auto mask = read_small_file((dir / "cpumask").string())) {
    try {
      ev.cpus = parse_cpu_list(*mask);
    } catch (const std::invalid_argument& e) {
      throw fail(dir / "cpumask", *mask, e.what());
    }
  }
  if (ev.cpus.empty()) ev.cpus.push_back(0);
  return ev;
}

std::optional<double> bytes_per_unit(std::string_view unit) {
  if (unit == "B" || unit == "Bytes" || unit == "bytes") return 1.0;
  if (unit == "KiB") return 1024.0;
  if (unit == "MiB") return 1024.0 * 1024.0;
  if (unit == "GiB") return 1024.0 * 1024.0 * 1024.0;
  if (unit == "KB" || unit == "kB") return 1e3;
  if (unit == "MB") return 1e6;
  if (unit == "GB") return 1e9;
  return std::nullopt;
}

}  // namespace prooflab::harness::counters
