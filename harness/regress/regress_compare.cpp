#include "harness/regress/regress_compare.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "harness/regress/regress_process.hpp"

namespace prooflab::harness {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> num(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

Row base_row(const Metric& m) {
  Row r;
  r.metric = m.name;
  r.kind = m.kind;
  r.unit = m.unit;
  r.higher_is_better = m.higher_is_better;
  r.tolerance = m.tolerance;
  return r;
}

}  // namespace

json row_to_json(const Row& r) {
  return {
      {"metric", r.metric},
      {"kind", r.kind},
      {"unit", r.unit},
      {"direction", r.higher_is_better ? "higher_is_better" : "lower_is_better"},
      {"tolerance", r.tolerance},
      {"method", r.method},
      {"baseline", opt(r.baseline)},
      {"now", opt(r.now)},
      {"change", opt(r.change)},
      {"interval", r.ci_low && r.ci_high ? json::array({*r.ci_low, *r.ci_high}) : json(nullptr)},
      {"p_value", opt(r.p_value)},
      {"n_baseline", r.n_baseline},
      {"n_now", r.n_now},
      {"samples", {{"baseline", r.baseline_samples}, {"now", r.now_samples}}},
      {"verdict", r.verdict},
      {"confirmation", r.confirmation},
      {"outputs", r.outputs},
      {"detail", r.detail},
      {"note", r.note}};
}

Row row_without_comparison(const Metric& m, const std::string& verdict, const std::string& why) {
  Row r = base_row(m);
  r.verdict = verdict;
  r.note = why;
  if (m.value) r.baseline = m.value;
  return r;
}

Row compare_count(const Metric& m, double baseline, double now, const std::string& method) {
  Row r = base_row(m);
  r.method = method;
  r.baseline = baseline;
  r.now = now;
  r.n_baseline = r.n_now = 1;
  if (baseline == 0) {
    r.verdict = kInconclusive;
    r.note = "baseline count is 0: relative change undefined";
    return r;
  }
  const double change = (now - baseline) / baseline;
  r.change = change;
  // An exact figure: the interval is the point itself.
  r.ci_low = r.ci_high = change;
  const double worse = m.higher_is_better ? -change : change;
  if (now == baseline) {
    r.verdict = kPass;
    r.detail = "identical";
  } else if (worse > m.tolerance) {
    r.verdict = kRegression;
    r.detail = "beyond tolerance";
  } else if (-worse > m.tolerance) {
    r.verdict = kImproved;
    r.detail = "beyond tolerance";
    r.note =
        "update the baseline (--update --reason ...) so that later regressions are measured from "
        "here";
  } else {
    r.verdict = kPass;
    r.detail = "within tolerance";
  }
  return r;
}

std::vector<Row> compare_samples(const std::vector<StatRequest>& requests,
                                 const std::string& python, const std::string& analysis_dir,
                                 const std::string& tmp_dir) {
  if (requests.empty()) return {};
  json req = {{"comparisons", json::array()}};
  for (const auto& q : requests)
    req["comparisons"].push_back({{"metric", q.metric->name},
                                  {"baseline", q.baseline},
                                  {"current", q.now},
                                  {"higher_is_better", q.metric->higher_is_better},
                                  {"min_effect", q.min_effect},
                                  {"statistic", q.metric->statistic},
                                  {"seed", 0}});
  const std::string in_path = tmp_dir + "/stats-request.json";
  const std::string out_path = tmp_dir + "/stats-response.json";
  const std::string err_path = tmp_dir + "/stats-stderr.txt";
  {
    std::ofstream out(in_path);
    out << req.dump() << "\n";
  }
  ChildSpec spec;
  spec.argv = {python, "-m", "prooflab_analysis.regress_stats"};
  spec.stdin_path = in_path;
  spec.stdout_path = out_path;
  spec.stderr_path = err_path;
  const char* old = std::getenv("PYTHONPATH");
  spec.set_env["PYTHONPATH"] = analysis_dir + (old && *old ? ":" + std::string(old) : "");
  const int rc = run_child(spec);
  if (rc != 0)
    throw std::runtime_error(
        "the wall-clock statistics (" + python +
        " -m prooflab_analysis.regress_stats) exited with status " + std::to_string(rc) +
        "; stderr ends:\n" + tail_of_file(err_path) +
        "(set PROOFLAB_PYTHON to an interpreter with prooflab_analysis, or run make deps)");
  const auto resp = json::parse(read_text_file(out_path));
  const auto& results = resp.at("results");
  if (results.size() != requests.size())
    throw std::runtime_error("regress_stats answered " + std::to_string(results.size()) + " of " +
                             std::to_string(requests.size()) + " comparisons");
  std::vector<Row> rows;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& q = requests[i];
    const auto& c = results[i];
    Row r = base_row(*q.metric);
    r.tolerance = q.min_effect;
    r.method = q.method;
    r.baseline = num(c, "baseline_value");
    r.now = num(c, "variant_value");
    r.change = num(c, "rel_change");
    r.ci_low = num(c, "ci_low");
    r.ci_high = num(c, "ci_high");
    r.p_value = num(c, "p_value");
    r.n_baseline = q.baseline.size();
    r.n_now = q.now.size();
    r.baseline_samples = q.baseline;
    r.now_samples = q.now;
    r.outputs = q.outputs;
    r.detail = c.value("verdict", "");
    std::string note =
        c.contains("note") && c["note"].is_string() ? c["note"].get<std::string>() : "";
    if (r.detail == "regressed") {
      r.verdict = kRegression;
    } else if (r.detail == "improved") {
      r.verdict = kImproved;
    } else if (r.detail == "no detectable change") {
      r.verdict = kPass;
    } else {
      r.verdict = kInconclusive;  // abtest's note says what would resolve it
    }
    if (!q.note.empty()) note = q.note + (note.empty() ? "" : "; " + note);
    r.note = note;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace prooflab::harness
