#include "harness/regress/regress_measure.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "core/stats/sample.hpp"
#include "harness/regress/regress_host.hpp"
#include "harness/regress/regress_process.hpp"

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double median_of(const std::vector<double>& v) {
  const auto m = stats::median(v, "regress samples");
  if (!m) throw std::logic_error("median of nothing");
  return *m;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

// The `totals:` line of a callgrind output file: instructions executed while instrumentation
// was on (the workload's counted region).
double callgrind_total(const fs::path& out_file) {
  std::ifstream in(out_file);
  if (!in) throw std::runtime_error("callgrind wrote no output file " + out_file.string());
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("totals:", 0) == 0) {
      std::istringstream s(line.substr(7));
      double v = -1;
      s >> v;
      if (v >= 0) return v;
    }
  }
  throw std::runtime_error(out_file.string() + " has no 'totals:' line");
}

struct CallgrindJob {
  std::string metric, arm;  // arm: "now" | "baseline_build"
  fs::path exe, out_file, stdout_path, stderr_path;
  std::vector<std::string> args;
  pid_t pid = -1;
};

// The result hash printed by `prooflab workload --json`.
std::string workload_hash(const fs::path& stdout_path) {
  std::ifstream in(stdout_path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;
    const auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("result_hash")) return j["result_hash"].get<std::string>();
  }
  return "";
}

std::vector<double> workload_seconds(const fs::path& stdout_path, const std::string& field) {
  std::vector<double> out;
  std::ifstream in(stdout_path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;
    const auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains(field) && j[field].is_number())
      out.push_back(j[field].get<double>());
  }
  return out;
}

// One arm of a wall-clock repetition: runs it and returns its figures (one, or one per
// matching run of an experiment); appends where it wrote to `outputs`.
std::vector<double> run_wallclock_once(const Metric& m, const MeasureContext& ctx,
                                       const fs::path& exe, const std::string& arm,
                                       unsigned index, std::vector<std::string>& outputs) {
  const std::string run_id = ctx.pass + "-" + arm + "-" + std::to_string(index);
  const fs::path out_dir = ctx.tmp / ("wallclock-" + m.name) / ctx.pass / arm;
  const fs::path param_dir = ctx.tmp / ("params-" + arm);
  fs::create_directories(out_dir);
  auto substitute = [&](const std::string& a) {
    return replace_all(
        replace_all(replace_all(replace_all(a, "{out}", out_dir.string()), "{run_id}", run_id),
                    "{source_dir}", ctx.source_dir),
        "{param_dir}", param_dir.string());
  };
  ChildSpec spec;
  // `program` other than prooflab is a path in the same build directory as the arm's prooflab
  // (bin/prooflab -> <build>/bench/prooflab_gpu_bench).
  spec.argv = {m.program == "prooflab" ? exe.string()
                                       : (exe.parent_path().parent_path() / m.program).string()};
  if (m.source == "workload") {
    spec.argv.insert(spec.argv.end(), {"workload", m.workload, "--n", std::to_string(m.n),
                                       "--repeat", std::to_string(m.repeat_per_process), "--json"});
  } else {
    for (const auto& a : m.command) spec.argv.push_back(substitute(a));
  }
  spec.stdout_path = out_dir / (run_id + ".stdout");
  spec.stderr_path = out_dir / (run_id + ".stderr");
  // The baseline build is never slowed by the injection switch; this build keeps it.
  if (arm == "baseline_build") spec.unset_env.push_back("PROOFLAB_INJECT_SLOWDOWN");
  if (ctx.verbose) {
    std::string line;
    for (const auto& a : spec.argv) line += a + " ";
    std::fprintf(stderr, "regress: %s\n", line.c_str());
  }
  outputs.push_back(m.source == "command" ? substitute(m.result_dir) : spec.stdout_path.string());
  double cpu_seconds = 0;
  const int rc = run_child(spec, &cpu_seconds);
  if (rc != 0)
    throw std::runtime_error("metric '" + m.name + "': " + exe.string() + " exited with status " +
                             std::to_string(rc) + " (" + arm + " run " + std::to_string(index) +
                             "); stderr ends:\n" + tail_of_file(spec.stderr_path) +
                             "stdout ends:\n" + tail_of_file(spec.stdout_path));
  if (m.source == "workload") {
    const auto secs = workload_seconds(spec.stdout_path, m.field);
    if (secs.empty())
      throw std::runtime_error("metric '" + m.name + "': no " + m.field + " in " +
                               spec.stdout_path.string());
    return {median_of(secs)};
  }
  // The CPU time the command used (all its threads): unlike its wall time, not inflated by
  // other processes taking turns on the same cores.
  if (m.key == "rusage.cpu_s") return {cpu_seconds};
  const fs::path result = substitute(m.result_dir);
  const Inputs in = read_inputs({result.string()});
  // One figure per invocation, the median of what it produced: the runs (or benchmark
  // samples) of one invocation follow each other in one process and share its moment on the
  // machine, so they are not independent samples. Counting them as such made an A/A
  // comparison "regressed" at p < 0.001 (results/2026-11-30-regress-false-alarms.md).
  if (!m.benchmark.empty()) {
    const auto it = in.gbench.find(m.benchmark);
    if (it == in.gbench.end())
      throw std::runtime_error("metric '" + m.name + "': " + result.string() +
                               " has no benchmark '" + m.benchmark + "'");
    return {median_of(bench_samples(it->second, m.field, "metric '" + m.name + "'"))};
  }
  std::vector<double> out;
  for (const auto& run : in.runs) {
    if (!m.cell.empty() && run.cell != m.cell) continue;
    if (!m.variant.empty() && run.variant != m.variant) continue;
    const auto v = summary_value(run.summary, m.key);
    if (!v)
      throw std::runtime_error("metric '" + m.name + "': " + (run.dir / "summary.json").string() +
                               " has no number '" + m.key + "'");
    out.push_back(*v);
  }
  if (out.empty())
    throw std::runtime_error("metric '" + m.name + "': " + result.string() +
                             " holds no complete run" +
                             (m.cell.empty() ? "" : " of cell '" + m.cell + "'") +
                             (m.variant.empty() ? "" : " and variant '" + m.variant + "'"));
  return {median_of(out)};
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cur += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

json read_json_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(p.string() + ": not JSON: " + e.what());
  }
}

double time_to_ns(double v, const std::string& unit, const std::string& where) {
  if (unit == "ns") return v;
  if (unit == "us") return v * 1e3;
  if (unit == "ms") return v * 1e6;
  if (unit == "s") return v * 1e9;
  throw std::runtime_error(where + ": unknown time_unit '" + unit + "'");
}

}  // namespace

std::string benchmark_key(const json& b) {
  // prooflab_gpu_bench: one entry per case, its samples in samples_ms; the key names the case.
  if (b.contains("samples_ms"))
    return b.value("name", "") + "/" + std::to_string(b.value("log_n", 0)) + "/" +
           b.value("variant", "");
  // Google Benchmark: one entry per repetition, all with the same run_name.
  return b.value("run_name", b.value("name", ""));
}

std::vector<double> bench_samples(const std::vector<json>& entries, const std::string& field,
                                  const std::string& where) {
  std::vector<double> out;
  for (const auto& b : entries) {
    if (!b.contains(field)) throw std::runtime_error(where + " has no '" + field + "'");
    const auto& v = b[field];
    if (v.is_array()) {
      for (const auto& x : v)
        if (x.is_number()) out.push_back(x.get<double>());
    } else if (!v.is_number()) {
      throw std::runtime_error(where + ": '" + field + "' is not a number");
    } else if (field == "cpu_time" || field == "real_time") {
      out.push_back(time_to_ns(v.get<double>(), b.value("time_unit", "ns"), where));
    } else {
      out.push_back(v.get<double>());
    }
  }
  return out;
}

std::optional<double> summary_value(const json& summary, const std::string& dotted_key) {
  const json* cur = &summary;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted_key.find('.', start);
    const std::string part =
        dotted_key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(part)) return std::nullopt;
    cur = &(*cur)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (!cur->is_number()) return std::nullopt;
  return cur->get<double>();
}

std::string valgrind_version() {
  TempDir tmp("prooflab-valgrind");
  ChildSpec spec;
  spec.argv = {"valgrind", "--version"};
  spec.stdout_path = tmp.path() / "out";
  int rc = -1;
  try {
    rc = run_child(spec);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " -- instruction counts need valgrind (Debian package 'valgrind', "
                             "listed in .ci/install-deps)");
  }
  if (rc != 0)
    throw std::runtime_error("valgrind --version exited with status " + std::to_string(rc));
  auto v = read_text_file(spec.stdout_path);
  while (!v.empty() && (v.back() == '\n' || v.back() == '\r')) v.pop_back();
  return v;
}

std::map<std::string, Measurement> measure_instructions(const std::vector<const Metric*>& metrics,
                                                        const MeasureContext& ctx) {
  std::vector<CallgrindJob> jobs;
  const fs::path dir = ctx.tmp / "callgrind";
  fs::create_directories(dir);
  for (const Metric* m : metrics) {
    for (const std::string arm : {"now", "baseline_build"}) {
      if (arm == "baseline_build" && !ctx.against_has_workload) continue;
      CallgrindJob j;
      j.metric = m->name;
      j.arm = arm;
      j.exe = arm == "now" ? ctx.self_exe : ctx.against_exe;
      const std::string stem = m->workload + "." + arm;
      j.out_file = dir / (stem + ".callgrind.out");
      j.stdout_path = dir / (stem + ".stdout");
      j.stderr_path = dir / (stem + ".stderr");
      // --instr-atstart=no: nothing is counted until the workload's
      // CALLGRIND_START_INSTRUMENTATION, so start-up, input generation, setup and the result
      // check stay out of the count.
      j.args = {"valgrind",           "--tool=callgrind",
                "--instr-atstart=no", "--callgrind-out-file=" + j.out_file.string(),
                j.exe.string(),       "workload",
                m->workload,          "--n",
                std::to_string(m->n), "--json"};
      jobs.push_back(std::move(j));
    }
  }
  std::map<std::string, Measurement> out;
  std::size_t next = 0, running = 0, done = 0;
  std::vector<std::size_t> active;
  while (done < jobs.size()) {
    while (running < std::max(1u, ctx.jobs) && next < jobs.size()) {
      auto& j = jobs[next];
      ChildSpec spec{j.args, j.stdout_path, j.stderr_path, {}, {}, {}};
      if (j.arm == "baseline_build") spec.unset_env.push_back("PROOFLAB_INJECT_SLOWDOWN");
      if (ctx.verbose)
        std::fprintf(stderr, "regress: callgrind %s (%s)\n", j.metric.c_str(), j.arm.c_str());
      j.pid = spawn_child(spec);
      active.push_back(next);
      ++next;
      ++running;
    }
    // Wait for the oldest active job (order of completion does not matter: results are keyed).
    const std::size_t idx = active.front();
    active.erase(active.begin());
    auto& j = jobs[idx];
    const int rc = wait_child(j.pid);
    --running;
    ++done;
    if (rc != 0) {
      for (const std::size_t other : active)
        wait_child(jobs[other].pid);  // leave no valgrind behind
      throw std::runtime_error("metric '" + j.metric + "': valgrind/workload exited with status " +
                               std::to_string(rc) + " (" + j.exe.string() + "); stderr ends:\n" +
                               tail_of_file(j.stderr_path));
    }
    auto& m = out[j.metric];
    const double count = callgrind_total(j.out_file);
    if (j.arm == "now") {
      m.measured = true;
      m.now = {count};
      m.result_hash = workload_hash(j.stdout_path);
    } else {
      m.baseline_build = {count};
      m.baseline_build_result_hash = workload_hash(j.stdout_path);
    }
  }
  for (auto& [name, m] : out) {
    m.method = m.baseline_build.empty() ? "callgrind Ir, exact, vs stored"
                                        : "callgrind Ir, exact, vs baseline build";
  }
  return out;
}

Measurement measure_wallclock(const Metric& m, const MeasureContext& ctx) {
  Measurement r;
  const double load_before = load_average_1m();
  const bool interleave =
      !ctx.against_exe.empty() && (m.source != "workload" || ctx.against_has_workload);
  const unsigned total = m.warmup + m.repetitions;
  for (unsigned i = 0; i < total; ++i) {
    // A B, B A, A B, ...: each arm goes first half of the time.
    std::vector<std::string> order = {"now"};
    if (interleave)
      order = (i % 2 == 0) ? std::vector<std::string>{"baseline_build", "now"}
                           : std::vector<std::string>{"now", "baseline_build"};
    for (const auto& arm : order) {
      const auto v = run_wallclock_once(m, ctx, arm == "now" ? ctx.self_exe : ctx.against_exe,
                                        arm, i, r.outputs);
      if (i < m.warmup) continue;
      auto& dest = arm == "now" ? r.now : r.baseline_build;
      dest.insert(dest.end(), v.begin(), v.end());
    }
    if (ctx.verbose)
      std::fprintf(stderr, "regress: %s repetition %u/%u done%s\n", m.name.c_str(), i + 1, total,
                   i < m.warmup ? " (warm-up, discarded)" : "");
  }
  r.measured = true;
  r.conditions = measuring_conditions(load_before);
  const std::string what = m.source == "workload"
                               ? m.field + ", median of " + std::to_string(m.repeat_per_process) +
                                     " kernel runs per process"
                           : m.key == "rusage.cpu_s" ? "CPU time per invocation"
                           : !m.benchmark.empty()    ? m.field + ", median per invocation"
                                                  : "summary " + m.key + ", median per invocation";
  const std::string samples = std::to_string(r.now.size()) +
                              (interleave ? "+" + std::to_string(r.baseline_build.size()) : "") +
                              " samples from " + std::to_string(m.repetitions) +
                              (interleave ? "+" + std::to_string(m.repetitions) : "") + " runs";
  if (interleave)
    r.method = "interleaved A/B vs baseline build, " + samples + " (" + what + ")";
  else
    r.method = "vs stored figures, " + samples + " (" + what + ")";
  if (!ctx.against_exe.empty() && !interleave)
    r.note = "the baseline build has no `workload` command: compared with the stored figures";
  return r;
}

Inputs read_inputs(const std::vector<std::string>& paths) {
  Inputs in;
  for (const auto& p : paths) {
    const fs::path path(p);
    if (fs::is_directory(path) && fs::exists(path / "index.csv")) {
      std::ifstream csv(path / "index.csv");
      std::string header_line;
      std::getline(csv, header_line);
      const auto header = split_csv_line(header_line);
      auto col = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
          throw std::runtime_error((path / "index.csv").string() + ": no column '" + name + "'");
        return static_cast<std::size_t>(it - header.begin());
      };
      const auto c_cell = col("cell"), c_variant = col("variant"), c_dir = col("run_dir"),
                 c_status = col("status");
      int line_no = 1;
      for (std::string line; std::getline(csv, line);) {
        ++line_no;
        if (line.empty()) continue;
        const auto f = split_csv_line(line);
        if (f.size() < header.size())
          throw std::runtime_error((path / "index.csv").string() + ":" + std::to_string(line_no) +
                                   ": fewer fields than the header: " + line);
        if (f[c_status] != "complete") continue;
        const fs::path summary = path / f[c_dir] / "summary.json";
        if (!fs::exists(summary)) continue;
        in.runs.push_back({path / f[c_dir], f[c_cell], f[c_variant], read_json_file(summary)});
      }
      in.run_sources.push_back(p);
    } else if (fs::is_directory(path)) {
      if (!fs::exists(path / "summary.json"))
        throw std::runtime_error(p +
                                 ": a directory without summary.json or index.csv (not a finished "
                                 "run or an experiment)");
      in.runs.push_back({path, "", "", read_json_file(path / "summary.json")});
      in.run_sources.push_back(p);
    } else {
      const auto j = read_json_file(path);
      if (j.is_object() && j.contains("benchmarks") && j["benchmarks"].is_array()) {
        for (const auto& b : j["benchmarks"]) {
          if (b.value("run_type", "iteration") != "iteration") continue;  // skip aggregates
          in.gbench[benchmark_key(b)].push_back(b);
        }
        in.gbench_files.push_back(p);
      } else if (j.is_object() && j.contains("s_per_proof")) {
        in.runs.push_back({path.parent_path(), "", "", j});
        in.run_sources.push_back(p);
      } else {
        throw std::runtime_error(
            p +
            ": neither Google Benchmark JSON (\"benchmarks\"), a summary.json, "
            "a run directory nor an experiment directory (index.csv)");
      }
    }
  }
  return in;
}

Measurement measurement_from_inputs(const Metric& m, const Inputs& in) {
  Measurement r;
  if (m.source == "gbench") {
    const auto it = in.gbench.find(m.benchmark);
    if (it == in.gbench.end()) {
      r.skipped = in.gbench_files.empty() ? "no benchmark JSON given"
                                          : "benchmark '" + m.benchmark + "' not in the given JSON";
      return r;
    }
    r.now = bench_samples(it->second, m.field, "benchmark '" + m.benchmark + "'");
    r.measured = true;
    r.method = "benchmark JSON, " + std::to_string(r.now.size()) + " samples, vs stored";
    return r;
  }
  if (m.source == "run") {
    for (const auto& run : in.runs) {
      if (!m.cell.empty() && run.cell != m.cell) continue;
      if (!m.variant.empty() && run.variant != m.variant) continue;
      if (const auto v = summary_value(run.summary, m.key)) r.now.push_back(*v);
    }
    if (r.now.empty()) {
      r.skipped = in.run_sources.empty() ? "no run or experiment directory given"
                                         : "no complete run with summary key '" + m.key + "'";
      return r;
    }
    r.measured = true;
    r.method = "run summaries, " + std::to_string(r.now.size()) + " runs, vs stored";
    return r;
  }
  r.skipped = "not measured from inputs";
  return r;
}

}  // namespace prooflab::harness
