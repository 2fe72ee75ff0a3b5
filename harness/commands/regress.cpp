// `prooflab regress --baseline FILE [INPUT ...]`: compare measured figures with a committed
// baseline and exit non-zero only on a regression that is both clear and larger than the
// metric's tolerance (docs/regress.md). Exit status: 0 no regression (or --update done),
// 1 regression, 2 error (bad baseline, a measurement that failed, missing tools), 3 every metric
// skipped (nothing compared).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/stats/sample.hpp"
#include "core/trace/run_directory.hpp"
#include "harness/commands/command_line.hpp"
#include "harness/commands/commands.hpp"
#include "harness/provenance.hpp"
#include "harness/regress/regress_baseline.hpp"
#include "harness/regress/regress_compare.hpp"
#include "harness/regress/regress_host.hpp"
#include "harness/regress/regress_measure.hpp"
#include "harness/regress/regress_outputs.hpp"
#include "harness/regress/regress_process.hpp"
#include "harness/commands/workload.hpp"
#ifdef PROOFLAB_HAVE_CUDA
#include "gpu/device_info.hpp"
#endif

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Exit status when every selected metric was skipped: distinct from 0 (no regression), 1
// (regression) and 2 (error), so CI can tell "measured nothing" from "passed".
constexpr int kExitNothingCompared = 3;

struct Options {
  std::string baseline;
  std::vector<std::string> inputs;
  std::string measure;  // empty: instructions, or none when inputs are given
  std::vector<std::string> metric_filters;
  std::string against_build;
  std::string json_out, junit_out, markdown_out, history_file;
  bool update = false;
  std::string reason;
  unsigned jobs = 2;
  bool keep_temp = false, verbose = false, no_confirm = false;
  std::string python;
};

// Whether a CUDA device is usable here; `why` says why not.
bool cuda_device_available(std::string& why) {
#ifdef PROOFLAB_HAVE_CUDA
  const auto devices = gpu::list_devices(&why);
  if (devices.empty()) {
    why = "no CUDA device: " + why;
    return false;
  }
  return true;
#else
  why = "this build has no CUDA backend (nvcc was not found or PROOFLAB_CUDA=OFF)";
  return false;
#endif
}

bool matches(const std::string& name, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (!f.empty() && f.back() == '*' ? name.rfind(f.substr(0, f.size() - 1), 0) == 0 : name == f)
      return true;
  }
  return false;
}

std::string capture(const std::vector<std::string>& argv, const fs::path& tmp,
                    const std::string& tag) {
  ChildSpec spec;
  spec.argv = argv;
  spec.stdout_path = tmp / (tag + ".out");
  try {
    if (run_child(spec) != 0) return "";
  } catch (const std::exception&) {
    return "";
  }
  auto s = read_text_file(spec.stdout_path);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string who(const fs::path& tmp) {
  const std::string src = PROOFLAB_SOURCE_DIR;
  const auto name = capture({"git", "-C", src, "config", "user.name"}, tmp, "git-name");
  const auto email = capture({"git", "-C", src, "config", "user.email"}, tmp, "git-email");
  if (!name.empty()) return email.empty() ? name : name + " <" + email + ">";
  const char* user = std::getenv("USER");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string(user ? user : "unknown") + "@" + host;
}

std::string python_interpreter(const Options& o) {
  if (!o.python.empty()) return o.python;
  if (const char* p = std::getenv("PROOFLAB_PYTHON"); p && *p) return p;
  const fs::path venv = fs::path(PROOFLAB_SOURCE_DIR) / ".venv/bin/python";
  if (fs::exists(venv)) return venv.string();
  return "python3";
}

json toolchain_json(const Toolchain& t, const std::string& valgrind) {
  json j = {{"compiler", t.compiler}, {"flags", t.flags}, {"libc", t.libc}};
  if (!valgrind.empty()) j["valgrind"] = valgrind;
  return j;
}

// Instruction counts are comparable when compiler, flags and C library are the same. The
// valgrind version is recorded but does not enter: callgrind's Ir is the guest's instruction
// count, which does not depend on the tool's version.
std::string toolchain_difference(const json& baseline, const json& now) {
  std::string diff;
  for (const char* key : {"compiler", "flags", "libc"}) {
    const std::string b = baseline.value(key, ""), n = now.value(key, "");
    if (b != n)
      diff +=
          std::string(diff.empty() ? "" : "; ") + key + ": baseline '" + b + "', now '" + n + "'";
  }
  return diff;
}

std::string host_difference(const json& baseline, const json& now) {
  std::string diff;
  if (baseline.value("cpu_model", "") != now.value("cpu_model", ""))
    diff = "cpu_model: baseline '" + baseline.value("cpu_model", "") + "', now '" +
           now.value("cpu_model", "") + "'";
  if (baseline.value("cores", 0) != now.value("cores", 0))
    diff += std::string(diff.empty() ? "" : "; ") + "cores: baseline " +
            std::to_string(baseline.value("cores", 0)) + ", now " +
            std::to_string(now.value("cores", 0));
  return diff;
}

std::string fmt_value(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "-";
  char buf[64];
  if (unit == "instructions" || std::fabs(*v) >= 1e6)
    std::snprintf(buf, sizeof buf, "%.0f", *v);
  else
    std::snprintf(buf, sizeof buf, "%.4g", *v);
  return std::string(buf) + (unit == "instructions" ? "" : " " + unit);
}

std::string fmt_pct(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100.0 * *v);
  return buf;
}

std::string fmt_interval(const Row& r) {
  if (r.kind == "deterministic" && r.change) return "exact";
  if (!r.ci_low || !r.ci_high) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%+.2f, %+.2f] %%", 100.0 * *r.ci_low, 100.0 * *r.ci_high);
  return buf;
}

void print_table(const std::vector<Row>& rows) {
  const std::vector<std::string> head = {"metric", "baseline", "now",
                                         "change", "interval", "verdict"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows)
    cells.push_back({r.metric, fmt_value(r.baseline, r.unit), fmt_value(r.now, r.unit),
                     fmt_pct(r.change), fmt_interval(r), r.verdict});
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t c = 0; c < v.size(); ++c) {
      const bool left = c == 0 || c == v.size() - 1;
      const std::string pad(width[c] - v[c].size(), ' ');
      s += (c ? "  " : "") + (left ? v[c] + pad : pad + v[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    std::printf("%s\n", s.c_str());
  };
  line(head);
  std::vector<std::string> rule;
  for (auto w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : cells) line(row);
  std::printf("\n");
  for (const auto& r : rows) {
    std::string s = r.metric + ": " + (r.method.empty() ? "" : r.method);
    char tol[48];
    std::snprintf(tol, sizeof tol, "tolerance %.3g %%", 100.0 * r.tolerance);
    s += std::string(r.method.empty() ? "" : "; ") + tol;
    if (!r.detail.empty()) s += "; " + r.detail;
    if (r.p_value) {
      char p[32];
      std::snprintf(p, sizeof p, "; p=%.3g", *r.p_value);
      s += p;
    }
    if (!r.note.empty()) s += "; " + r.note;
    std::printf("  %s\n", s.c_str());
  }
}

double statistic_of(const std::vector<double>& v, const std::string& statistic) {
  const auto value = statistic == "mean" ? stats::mean(v, "regress samples")
                                          : stats::median(v, "regress samples");
  return value.value_or(NAN);
}

// Metrics that inputs bring and a baseline being created or updated does not have yet.
void add_metrics_for_inputs(Baseline& b, const Inputs& in) {
  for (const auto& [name, entries] : in.gbench) {
    // prooflab_gpu_bench entries carry their samples in samples_ms and belong to a GPU.
    const bool gpu = !entries.empty() && entries.front().contains("samples_ms");
    const std::string metric = gpu ? "gpu." + name : "gbench." + name + ".cpu_time";
    if (b.find(metric)) continue;
    Metric m = wallclock_metric(metric, "gbench", gpu ? "ms" : "ns", gpu ? 0.10 : 0.30,
                                gpu ? 0.03 : 0.05);
    m.benchmark = name;
    m.field = gpu ? "samples_ms" : "cpu_time";
    if (gpu) m.device = "cuda";
    b.metrics.push_back(m);
  }
  bool has_run_metric = false;
  for (const auto& m : b.metrics) has_run_metric |= m.source == "run";
  if (!in.runs.empty() && !has_run_metric) {
    Metric m = wallclock_metric("runs.s_per_proof", "run", "s", 0.30, 0.05);
    m.key = "s_per_proof";
    b.metrics.push_back(m);
  }
  // Energy per proof (summary.json `energy`, docs/run-directory.md), where the runs measured it.
  bool has_energy = false;
  for (const auto& r : in.runs) has_energy |= summary_value(r.summary, "energy.j_per_proof").has_value();
  if (has_energy && !b.find("runs.j_per_proof")) {
    Metric m = wallclock_metric("runs.j_per_proof", "run", "J", 0.30, 0.05);
    m.key = "energy.j_per_proof";
    b.metrics.push_back(m);
  }
}

int run_regress(const Options& o) {
  const fs::path baseline_path = o.baseline;
  const bool exists = fs::exists(baseline_path);
  if (!exists && !o.update)
    throw std::runtime_error("baseline " + o.baseline +
                             " does not exist; create it with --update --reason \"...\"");
  if (o.update && o.reason.empty())
    throw std::runtime_error("--update needs --reason \"why the figures change\"");
  const char* injected = std::getenv("PROOFLAB_INJECT_SLOWDOWN");
  const bool injecting = injected && *injected;
  if (o.update && injecting)
    throw std::runtime_error(
        "refusing --update while PROOFLAB_INJECT_SLOWDOWN is set: the figures would be slowed on "
        "purpose");

  std::set<std::string> measure;
  {
    std::string list = o.measure.empty() ? (o.inputs.empty() ? "instructions" : "none") : o.measure;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(',', start), list.size());
      const std::string item = list.substr(start, end - start);
      if (item == "all")
        measure.insert({"instructions", "wallclock"});
      else if (item == "instructions" || item == "wallclock")
        measure.insert(item);
      else if (item != "none")
        throw std::runtime_error("--measure '" + o.measure + "': '" + item +
                                 "' is not instructions | wallclock | all | none");
      start = end + 1;
    }
  }

  Baseline base = exists ? load_baseline(baseline_path) : Baseline{};
  if (!exists) {
    base.description = "prooflab regress baseline (docs/regress.md)";
    // A baseline made from files alone (a GPU bench JSON from the H200) holds only their
    // metrics; one that measures starts with the CPU metrics.
    if (!measure.empty()) base.metrics = default_cpu_metrics();
  }
  const Inputs inputs = read_inputs(o.inputs);
  if (o.update) add_metrics_for_inputs(base, inputs);

  TempDir tmp("prooflab-regress");
  if (o.keep_temp) tmp.keep();

  MeasureContext ctx;
  ctx.self_exe = self_executable();
  ctx.tmp = tmp.path();
  ctx.source_dir = PROOFLAB_SOURCE_DIR;
  ctx.jobs = o.jobs;
  ctx.verbose = o.verbose;
  json against_toolchain;
  if (!o.against_build.empty()) {
    fs::path exe = o.against_build;
    if (fs::is_directory(exe)) exe = exe / "bin" / "prooflab";
    if (!fs::exists(exe))
      throw std::runtime_error("--against-build " + o.against_build + ": no " + exe.string());
    ctx.against_exe = fs::absolute(exe);
    const auto listing = capture({ctx.against_exe.string(), "workload", "--list", "--json"},
                                 tmp.path(), "against-list");
    const auto j = json::parse(listing, nullptr, false);
    ctx.against_has_workload = j.is_object() && j.contains("toolchain");
    if (ctx.against_has_workload) against_toolchain = j["toolchain"];
  }

  const auto tc = this_toolchain();
  const bool counting = measure.count("instructions") > 0;
  const std::string vg = counting ? valgrind_version() : "";
  const json tc_now = toolchain_json(tc, vg);
  const json host_now = trace::host_info();
  const auto prov = provenance();
  const std::string now_date = trace::iso8601_now();

  std::printf("regress: baseline %s", o.baseline.c_str());
  if (exists && base.updated.is_object() && base.updated.contains("commit"))
    std::printf(" (commit %.12s, %s: %s)", base.updated.value("commit", "").c_str(),
                base.updated.value("date", "").c_str(), base.updated.value("reason", "").c_str());
  std::printf("\nregress: this build: commit %.12s%s, %s\n", prov.value("git_commit", "").c_str(),
              prov.value("git_dirty", false) ? " (dirty)" : "", tc.fingerprint().c_str());
  if (injecting)
    std::printf(
        "regress: PROOFLAB_INJECT_SLOWDOWN=%s is set: this build's workloads are slowed on "
        "purpose\n",
        injected);
  if (!ctx.against_exe.empty())
    std::printf("regress: against build %s (%s)\n", ctx.against_exe.c_str(),
                ctx.against_has_workload ? "counts and wall-clock measured on both, interleaved"
                                         : "no `workload` command: wall-clock of commands only");
  else if (measure.count("wallclock"))
    std::printf(
        "regress: no --against-build: wall-clock compared with the stored figures (wide "
        "tolerance)\n");

  // Which metrics run, and why the others do not.
  std::vector<Row> rows;
  std::vector<const Metric*> selected;
  for (const auto& m : base.metrics)
    if (matches(m.name, o.metric_filters)) selected.push_back(&m);
  if (!o.metric_filters.empty() && selected.empty())
    throw std::runtime_error("no metric of " + o.baseline + " matches --metric");
  std::string cuda_why;
  const bool have_cuda = cuda_device_available(cuda_why);

  std::vector<const Metric*> to_count;
  for (const Metric* m : selected)
    if (m->source == "callgrind" && counting && (m->device.empty() || have_cuda))
      to_count.push_back(m);
  const auto counts = measure_instructions(to_count, ctx);
  const std::string tc_diff = exists ? toolchain_difference(base.toolchain, tc_now) : "";
  const std::string host_diff = exists ? host_difference(base.host, host_now) : "";
  if (counting && !tc_diff.empty())
    std::printf(
        "regress: TOOLCHAIN DIFFERS from the baseline's (%s): stored instruction counts are "
        "incomparable%s\n",
        tc_diff.c_str(),
        ctx.against_has_workload ? " (the baseline build's counts are used instead)" : "");
  if (measure.count("wallclock") && ctx.against_exe.empty() && !host_diff.empty())
    std::printf("regress: HOST DIFFERS from the baseline's (%s): stored timings are incomparable\n",
                host_diff.c_str());

  std::map<std::string, Measurement> measured;  // for --update
  std::vector<StatRequest> stat_requests;
  std::map<std::string, std::size_t> row_of;  // metric -> index in rows (placeholders for stats)
  for (const Metric* m : selected) {
    const bool measured_here =
        m->source == "callgrind" || m->source == "workload" || m->source == "command";
    if (!m->device.empty() && !have_cuda && measured_here) {
      rows.push_back(row_without_comparison(*m, kSkipped, "GPU metric: " + cuda_why));
      continue;
    }
    Measurement meas;
    if (m->source == "callgrind") {
      if (!counting) {
        rows.push_back(
            row_without_comparison(*m, kSkipped, "not measured (--measure instructions)"));
        continue;
      }
      meas = counts.at(m->name);
    } else if (m->source == "workload" || m->source == "command") {
      if (!measure.count("wallclock")) {
        rows.push_back(row_without_comparison(*m, kSkipped, "not measured (--measure wallclock)"));
        continue;
      }
      meas = measure_wallclock(*m, ctx);
    } else {
      meas = measurement_from_inputs(*m, inputs);
      if (!meas.measured) {
        rows.push_back(row_without_comparison(*m, kSkipped, meas.skipped));
        continue;
      }
    }
    measured[m->name] = meas;

    if (m->kind == "deterministic") {
      const double now = meas.now.at(0);
      std::string note;
      if (!meas.baseline_build.empty()) {
        rows.push_back(compare_count(*m, meas.baseline_build[0], now, meas.method));
        if (meas.baseline_build_result_hash != meas.result_hash)
          note = "the two builds computed different results (" + meas.baseline_build_result_hash +
                 " vs " + meas.result_hash + ")";
      } else if (!m->value) {
        Row r = row_without_comparison(*m, kSkipped, "no stored figure: record one with --update");
        r.now = now;
        r.method = meas.method;
        rows.push_back(r);
        continue;
      } else if (!tc_diff.empty()) {
        Row r = row_without_comparison(*m, kIncomparable, "toolchain differs: " + tc_diff);
        r.now = now;
        r.method = meas.method;
        rows.push_back(r);
        continue;
      } else {
        rows.push_back(compare_count(*m, *m->value, now, meas.method));
        if (!m->result_hash.empty() && m->result_hash != meas.result_hash)
          note = "the workload's result differs from the baseline's (" + m->result_hash + " vs " +
                 meas.result_hash +
                 "): its inputs or its output changed, so the work may differ too";
      }
      if (!note.empty()) rows.back().note += (rows.back().note.empty() ? "" : "; ") + note;
      continue;
    }

    // Wall-clock: interleaved against the baseline build, or against the stored figures.
    StatRequest q{m, {}, meas.now, 0, meas.method, meas.note, meas.outputs};
    if (meas.conditions.is_object()) {
      char load[96];
      std::snprintf(load, sizeof load, "load %.2f -> %.2f on %d cores",
                    meas.conditions.value("load_1m_before", -1.0),
                    meas.conditions.value("load_1m_after", -1.0), meas.conditions.value("cores", 0));
      q.note += (q.note.empty() ? "" : "; ") + std::string(load);
    }
    if (!meas.baseline_build.empty()) {
      q.baseline = meas.baseline_build;
      q.min_effect = m->tolerance_interleaved;
    } else {
      if (m->values.size() < 2) {
        Row r = row_without_comparison(*m, kSkipped,
                                       "fewer than 2 stored figures: record them with --update");
        r.now = statistic_of(meas.now, m->statistic);
        r.method = meas.method;
        rows.push_back(r);
        continue;
      }
      // A timing measured here is evidence against stored timings only from the same kind
      // of host, quiet both times (regress_host.hpp).
      if (m->source == "workload" || m->source == "command") {
        std::string why = why_incomparable(m->measured_on, meas.conditions);
        if (running_under_ci())
          why = "under CI (the variable CI is set) stored timings are never gated on" +
                (why.empty() ? std::string() : "; and " + why);
        if (!why.empty()) {
          Row r = row_without_comparison(
              *m, kIncomparable, why + " (timed gating belongs in interleaved mode: --against-build)");
          r.now = statistic_of(meas.now, m->statistic);
          r.method = meas.method;
          rows.push_back(r);
          continue;
        }
      }
      q.baseline = m->values;
      q.min_effect = m->tolerance;
    }
    row_of[m->name] = rows.size();
    rows.push_back(Row{});  // filled in by the statistics below
    stat_requests.push_back(q);
  }

  const auto stat_rows =
      compare_samples(stat_requests, python_interpreter(o),
                      (fs::path(PROOFLAB_SOURCE_DIR) / "analysis").string(), tmp.path().string());
  for (std::size_t i = 0; i < stat_requests.size(); ++i)
    rows[row_of.at(stat_requests[i].metric->name)] = stat_rows[i];

  // A timed regression measured here is measured once more, from scratch, and stands only if
  // the second measurement finds it too. Each test alone is wrong about 1 time in 20 at
  // alpha = 0.05 when nothing changed (the false-alarm study saw 1 in 20 on the ci-smoke
  // throughput); two independent ones agree by chance about 1 time in 400, while a real
  // slowdown that the first measurement resolves is found again.
  std::vector<StatRequest> confirm_requests;
  std::vector<std::size_t> confirm_rows_at;
  for (const auto& q : stat_requests) {
    const std::size_t at = row_of.at(q.metric->name);
    const bool timed_here = q.metric->source == "workload" || q.metric->source == "command";
    if (o.no_confirm || !timed_here || rows[at].verdict != kRegression) continue;
    std::printf("regress: %s regressed (%s): measuring it again to confirm\n",
                q.metric->name.c_str(), fmt_pct(rows[at].change).c_str());
    std::fflush(stdout);
    MeasureContext fresh = ctx;  // new output directories and run ids: not a resume
    fresh.pass = "confirmation";
    const Measurement again = measure_wallclock(*q.metric, fresh);
    StatRequest q2 = q;
    q2.now = again.now;
    if (!again.baseline_build.empty()) q2.baseline = again.baseline_build;
    q2.note.clear();
    q2.outputs = again.outputs;
    confirm_requests.push_back(q2);
    confirm_rows_at.push_back(at);
  }
  const auto confirmed =
      compare_samples(confirm_requests, python_interpreter(o),
                      (fs::path(PROOFLAB_SOURCE_DIR) / "analysis").string(), tmp.path().string());
  for (std::size_t i = 0; i < confirmed.size(); ++i) {
    Row& r = rows[confirm_rows_at[i]];
    const Row& c = confirmed[i];
    r.confirmation = row_to_json(c);
    const std::string second = fmt_pct(c.change) + " " + fmt_interval(c) + ", " + c.detail;
    if (c.verdict == kRegression) {
      r.note += std::string(r.note.empty() ? "" : "; ") + "confirmed by a second measurement (" +
                second + ")";
    } else {
      r.verdict = kInconclusive;
      r.detail = "regressed once, not confirmed";
      r.note += std::string(r.note.empty() ? "" : "; ") +
                "a second measurement did not confirm it (" + second + ")";
    }
  }

  std::printf("\n");
  print_table(rows);
  std::size_t regressions = 0, skipped = 0;
  for (const auto& r : rows) {
    regressions += r.verdict == kRegression;
    skipped += r.verdict == kSkipped;
  }
  // Nothing compared is not "no regression": a gate that measured nothing must not pass.
  const bool nothing_compared = !rows.empty() && skipped == rows.size();

  json report = {
      {"baseline_file", o.baseline},
      {"baseline_updated", base.updated},
      {"commit", prov.value("git_commit", "")},
      {"dirty", prov.value("git_dirty", false)},
      {"date", now_date},
      {"toolchain", {{"baseline", base.toolchain}, {"now", tc_now}, {"difference", tc_diff}}},
      {"host", {{"baseline", base.host}, {"now", host_now}, {"difference", host_diff}}},
      {"against_build", ctx.against_exe.empty() ? json(nullptr) : json(ctx.against_exe.string())},
      {"wallclock_mode", ctx.against_exe.empty() ? "stored" : "interleaved"},
      {"injected_slowdown", injecting ? json(injected) : json(nullptr)},
      {"load", {{"load_1m_end", load_average_1m()}, {"cores", host_now.value("cores", 0)}}},
      {"rows", json::array()},
      {"regressions", regressions},
      {"skipped", skipped},
      {"nothing_compared", nothing_compared}};
  for (const auto& r : rows) report["rows"].push_back(row_to_json(r));

  int status = regressions ? 1 : nothing_compared ? kExitNothingCompared : 0;
  if (o.update) {
    std::size_t changed = 0;
    for (auto& m : base.metrics) {
      const auto it = measured.find(m.name);
      if (it == measured.end()) continue;
      const auto& meas = it->second;
      if (m.kind == "deterministic") {
        m.value = meas.now.at(0);
        m.result_hash = meas.result_hash;
      } else {
        m.values = meas.now;
        m.value = statistic_of(meas.now, m.statistic);
        if (meas.conditions.is_object()) m.measured_on = meas.conditions;
      }
      m.commit = prov.value("git_commit", "");
      m.date = now_date;
      ++changed;
    }
    if (!base.updated.empty()) base.history.push_back(base.updated);
    base.updated = {{"commit", prov.value("git_commit", "")},
                    {"dirty", prov.value("git_dirty", false)},
                    {"date", now_date},
                    {"reason", o.reason},
                    {"by", who(tmp.path())},
                    {"command", prov.value("command", "")},
                    {"metrics", changed}};
    if (!to_count.empty()) base.toolchain = tc_now;
    if (measure.count("wallclock") || !inputs.runs.empty() || !inputs.gbench.empty())
      base.host = host_now;
    save_baseline(baseline_path, base);
    std::printf("\nregress: updated %zu metric(s) of %s (reason: %s)\n", changed,
                o.baseline.c_str(), o.reason.c_str());
    report["updated"] = base.updated;
    status = 0;
  } else {
    if (regressions) {
      std::printf("\nregress: %zu regression(s)\n", regressions);
    } else if (nothing_compared) {
      std::printf("\nregress: NOTHING COMPARED: all %zu metric(s) were skipped (reasons above); "
                  "exit status %d\n", skipped, kExitNothingCompared);
    } else {
      std::printf("\nregress: no regression (%zu of %zu metric(s) compared, %zu skipped)\n",
                  rows.size() - skipped, rows.size(), skipped);
    }
  }
  report["exit_status"] = status;
  if (!o.json_out.empty()) write_text(o.json_out, report.dump(2) + "\n");
  if (!o.junit_out.empty()) write_text(o.junit_out, junit_xml(report));
  if (!o.markdown_out.empty()) write_text(o.markdown_out, markdown_summary(report));
  if (!o.history_file.empty()) append_history(o.history_file, report);
  return status;
}

}  // namespace

void add_regress_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("regress", "Compare measured figures with a committed baseline");
  auto o = std::make_shared<Options>();
  cmd->add_option("--baseline", o->baseline, "baseline JSON (results/baselines/cpu.json)")
      ->required();
  cmd->add_option("inputs", o->inputs,
                  "Google Benchmark JSON, run directories, experiment directories");
  cmd->add_option(
      "--measure", o->measure,
      "what to measure now: instructions,wallclock | all | none (default: instructions, "
      "or none when inputs are given)");
  cmd->add_option("--metric", o->metric_filters, "only these metrics (repeatable; NAME or PREFIX*)")
      ->allow_extra_args(false);  // one name per --metric, so that inputs after it stay inputs
  cmd->add_option(
      "--against-build", o->against_build,
      "a build of the baseline commit (DIR with bin/prooflab): wall-clock runs interleaved A/B");
  cmd->add_option("--json", o->json_out, "write the table as JSON to this file");
  cmd->add_option("--junit", o->junit_out, "write JUnit XML to this file (one testcase per metric)");
  cmd->add_option("--markdown", o->markdown_out,
                  "write a markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)");
  cmd->add_option("--history", o->history_file,
                  "append this check's figures to a per-commit history JSON (results/regress-history/)");
  cmd->add_flag("--update", o->update,
                "rewrite the measured figures in the baseline (needs --reason)");
  cmd->add_option("--reason", o->reason,
                  "why the baseline changes (recorded with commit and date)");
  cmd->add_option("--jobs", o->jobs, "callgrind runs at once")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--python", o->python,
                  "interpreter with prooflab_analysis (default: .venv/bin/python)");
  cmd->add_flag("--keep-temp", o->keep_temp,
                "keep the scratch directory (callgrind outputs, run directories)");
  cmd->add_flag("--verbose", o->verbose, "print every command run");
  cmd->add_flag("--no-confirm", o->no_confirm,
                "fail on one timed measurement (default: a timed regression is measured again and "
                "must be found twice)");
  cmd->callback([o] {
    int status = 2;
    try {
      status = run_regress(*o);
    } catch (const std::exception& e) {
      std::fflush(stdout);
      std::fprintf(stderr, "prooflab regress: error: %s\n", e.what());
      status = 2;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    if (status != 0) throw CommandExit(status);  // the exit status, without another message
  });
}

}  // namespace prooflab::harness
