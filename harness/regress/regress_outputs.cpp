#include "harness/regress/regress_outputs.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/regress/regress_compare.hpp"
#include "harness/regress/regress_process.hpp"

namespace prooflab::harness {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

std::string pct(const json& v) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100.0 * v.get<double>());
  return buf;
}

std::string value(const json& v, const std::string& unit) {
  if (!v.is_number()) return "-";
  char buf[64];
  const double x = v.get<double>();
  if (unit == "instructions" || std::fabs(x) >= 1e6)
    std::snprintf(buf, sizeof buf, "%.0f", x);
  else
    std::snprintf(buf, sizeof buf, "%.4g", x);
  return std::string(buf) + (unit == "instructions" ? "" : " " + unit);
}

std::string interval(const json& row) {
  if (row.value("kind", "") == "deterministic" && row["change"].is_number()) return "exact";
  const auto& i = row["interval"];
  if (!i.is_array() || i.size() != 2) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%+.2f, %+.2f] %%", 100.0 * i[0].get<double>(),
                100.0 * i[1].get<double>());
  return buf;
}

std::string row_detail(const json& row) {
  std::string s = row.value("method", "");
  for (const char* key : {"detail", "note"}) {
    const std::string v = row.value(key, "");
    if (!v.empty()) s += (s.empty() ? "" : "; ") + v;
  }
  return s;
}

std::string outcome(const json& report) {
  if (report.value("regressions", 0) > 0)
    return std::to_string(report.value("regressions", 0)) + " regression(s)";
  if (report.value("nothing_compared", false)) return "NOTHING COMPARED: every metric was skipped";
  return "no regression";
}

}  // namespace

std::string junit_xml(const json& report) {
  const auto& rows = report.at("rows");
  std::size_t failures = 0, skipped = 0;
  for (const auto& r : rows) {
    const std::string v = r.value("verdict", "");
    failures += v == kRegression;
    skipped += v == kSkipped || v == kIncomparable;
  }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites>\n<testsuite name=\"prooflab regress\" tests=\"" << rows.size()
    << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << skipped
    << "\" timestamp=\"" << xml_escape(report.value("date", "")) << "\">\n";
  x << "  <properties>\n";
  for (const char* key : {"baseline_file", "commit", "wallclock_mode"})
    if (report.contains(key) && report[key].is_string())
      x << "    <property name=\"" << key << "\" value=\"" << xml_escape(report[key].get<std::string>())
        << "\"/>\n";
  x << "  </properties>\n";
  for (const auto& r : rows) {
    const std::string verdict = r.value("verdict", "");
    const std::string unit = r.value("unit", "");
    const std::string summary = verdict + ": baseline " + value(r["baseline"], unit) + ", now " +
                                value(r["now"], unit) + ", change " + pct(r["change"]) +
                                ", interval " + interval(r);
    x << "  <testcase classname=\"regress." << xml_escape(r.value("kind", "")) << "\" name=\""
      << xml_escape(r.value("metric", "")) << "\" time=\"0\">\n";
    if (verdict == kRegression)
      x << "    <failure message=\"" << xml_escape(summary) << "\">" << xml_escape(row_detail(r))
        << "</failure>\n";
    else if (verdict == kSkipped || verdict == kIncomparable)
      x << "    <skipped message=\"" << xml_escape(verdict + ": " + r.value("note", "")) << "\"/>\n";
    x << "    <system-out>" << xml_escape(summary + "\n" + row_detail(r)) << "</system-out>\n";
    x << "  </testcase>\n";
  }
  x << "</testsuite>\n</testsuites>\n";
  return x.str();
}

std::string markdown_summary(const json& report) {
  std::ostringstream md;
  md << "### prooflab regress: " << outcome(report) << "\n\n";
  md << "Baseline `" << report.value("baseline_file", "") << "`, commit `"
     << report.value("commit", "").substr(0, 12) << "`" << (report.value("dirty", false) ? " (dirty)" : "")
     << ", wall-clock mode " << report.value("wallclock_mode", "") << ", " << report.value("date", "")
     << ".\n\n";
  md << "| metric | baseline | now | change | interval | verdict |\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& r : report.at("rows")) {
    const std::string unit = r.value("unit", "");
    const std::string verdict = r.value("verdict", "");
    md << "| `" << r.value("metric", "") << "` | " << value(r["baseline"], unit) << " | "
       << value(r["now"], unit) << " | " << pct(r["change"]) << " | " << interval(r) << " | "
       << (verdict == kRegression ? "**" + verdict + "**" : verdict) << " |\n";
  }
  md << "\n";
  for (const auto& r : report.at("rows")) {
    std::string d = row_detail(r);
    for (auto& c : d)
      if (c == '\n' || c == '|') c = ' ';
    md << "- `" << r.value("metric", "") << "`: " << d << "\n";
  }
  return md.str();
}

void append_history(const fs::path& file, const json& report) {
  json history = {{"format", "prooflab-regress-history"}, {"version", 1}, {"entries", json::array()}};
  if (fs::exists(file)) {
    history = json::parse(read_text_file(file), nullptr, false);
    if (!history.is_object() || history.value("format", "") != "prooflab-regress-history" ||
        !history.contains("entries") || !history["entries"].is_array())
      throw std::runtime_error("--history " + file.string() +
                               ": not a prooflab regress history (format "
                               "\"prooflab-regress-history\" with an \"entries\" list)");
  }
  json entry = {{"commit", report.value("commit", "")},
                {"dirty", report.value("dirty", false)},
                {"date", report.value("date", "")},
                {"baseline_file", report.value("baseline_file", "")},
                {"wallclock_mode", report.value("wallclock_mode", "")},
                {"host", report.contains("host") ? report["host"].value("now", json::object()) : json::object()},
                {"load", report.contains("load") ? report["load"] : json(nullptr)},
                {"metrics", json::array()}};
  for (const auto& r : report.at("rows"))
    entry["metrics"].push_back({{"metric", r.value("metric", "")},
                                {"unit", r.value("unit", "")},
                                {"kind", r.value("kind", "")},
                                {"now", r["now"]},
                                {"baseline", r["baseline"]},
                                {"change", r["change"]},
                                {"interval", r["interval"]},
                                {"verdict", r.value("verdict", "")},
                                {"samples", r.contains("samples") ? r["samples"].value("now", json::array())
                                                                  : json::array()}});
  history["entries"].push_back(entry);
  // Written beside and renamed over: a crash never leaves half a history.
  const fs::path tmp = file.string() + ".tmp";
  write_text(tmp, history.dump(1) + "\n");
  fs::rename(tmp, file);
}

void write_text(const fs::path& file, const std::string& text) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  std::ofstream f(file);
  f << text;
  f.flush();
  if (!f) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace prooflab::harness
