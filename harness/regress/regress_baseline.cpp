#include "harness/regress/regress_baseline.hpp"

#include <fstream>
#include <set>
#include <stdexcept>
#include <utility>

#include "harness/commands/workload.hpp"

namespace prooflab::harness {
namespace {

using nlohmann::json;

const std::set<std::string> kKinds = {"deterministic", "wallclock"};
const std::set<std::string> kSources = {"callgrind", "workload", "command", "gbench", "run"};

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

template <class T>
T get(const json& j, const char* key, const std::string& where, const T& fallback, bool required) {
  if (!j.contains(key)) {
    if (required) bad(where, std::string("missing key '") + key + "'");
    return fallback;
  }
  try {
    return j.at(key).get<T>();
  } catch (const json::exception& e) {
    bad(where, std::string("key '") + key + "' has the wrong type (" + j.at(key).dump() +
                   "): " + e.what());
  }
}

}  // namespace

Metric* Baseline::find(const std::string& name) {
  for (auto& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

Metric metric_from_json(const json& j, const std::string& where_file) {
  if (!j.is_object()) bad(where_file, "a metric must be an object, got " + j.dump());
  Metric m;
  m.name = get<std::string>(j, "metric", where_file, "", true);
  const std::string where = where_file + ": metric '" + m.name + "'";
  m.kind = get<std::string>(j, "kind", where, "", true);
  if (!kKinds.count(m.kind)) bad(where, "kind '" + m.kind + "' is not deterministic | wallclock");
  m.source = get<std::string>(j, "source", where, "", true);
  if (!kSources.count(m.source))
    bad(where, "source '" + m.source + "' is not callgrind | workload | command | gbench | run");
  m.unit = get<std::string>(j, "unit", where, "", true);
  const auto direction = get<std::string>(j, "direction", where, "", true);
  if (direction != "lower_is_better" && direction != "higher_is_better")
    bad(where, "direction '" + direction + "' is not lower_is_better | higher_is_better");
  m.higher_is_better = direction == "higher_is_better";
  m.tolerance = get<double>(j, "tolerance", where, 0, true);
  if (!(m.tolerance > 0 && m.tolerance < 1))
    bad(where, "tolerance " + std::to_string(m.tolerance) + " is not in (0, 1)");
  m.tolerance_interleaved = get<double>(j, "tolerance_interleaved", where, m.tolerance, false);
  if (!(m.tolerance_interleaved > 0 && m.tolerance_interleaved < 1))
    bad(where,
        "tolerance_interleaved " + std::to_string(m.tolerance_interleaved) + " is not in (0, 1)");
  m.statistic = get<std::string>(j, "statistic", where, "median", false);
  if (m.statistic != "mean" && m.statistic != "median")
    bad(where, "statistic '" + m.statistic + "' is not mean | median");
  m.device = get<std::string>(j, "device", where, "", false);
  if (!m.device.empty() && m.device != "cuda")
    bad(where, "device '" + m.device + "' is not empty or cuda");
  m.workload =
      get<std::string>(j, "workload", where, "", m.source == "callgrind" || m.source == "workload");
  if (!m.workload.empty()) {
    try {
      workload_spec(m.workload);
    } catch (const std::exception& e) {
      bad(where, e.what());
    }
  }
  m.n = get<std::uint64_t>(j, "n", where, 0, false);
  const bool repeated = m.source == "workload" || m.source == "command";
  m.repetitions = get<unsigned>(j, "repetitions", where, 0, repeated);
  if (repeated && (m.repetitions < 2 || m.repetitions > 1000))
    bad(where, "repetitions " + std::to_string(m.repetitions) + " is not in [2, 1000]");
  m.warmup = get<unsigned>(j, "warmup", where, 0, false);
  m.repeat_per_process = get<unsigned>(j, "repeat_per_process", where, 1, false);
  m.command = get<std::vector<std::string>>(j, "command", where, {}, m.source == "command");
  m.benchmark = get<std::string>(j, "benchmark", where, "", m.source == "gbench");
  m.key = get<std::string>(j, "key", where, "",
                           m.source == "run" || (m.source == "command" && m.benchmark.empty()));
  m.program = get<std::string>(j, "program", where, "prooflab", false);
  if (m.program.empty() || m.program.front() == '/' || m.program.find("..") != std::string::npos)
    bad(where,
        "program '" + m.program + "' is not prooflab or a relative path in the build directory");
  m.result_dir = get<std::string>(j, "result_dir", where, "{out}/{run_id}", false);
  m.field = get<std::string>(j, "field", where,
                             m.source == "workload" ? "kernel_cpu_seconds" : "cpu_time", false);
  if (m.source == "workload" && m.field != "kernel_cpu_seconds" && m.field != "kernel_seconds")
    bad(where,
        "field '" + m.field + "' of a workload metric is not kernel_cpu_seconds | kernel_seconds");
  m.cell = get<std::string>(j, "cell", where, "", false);
  m.variant = get<std::string>(j, "variant", where, "", false);
  if (m.kind == "deterministic" && m.source != "callgrind")
    bad(where, "only callgrind counts are deterministic; source '" + m.source + "' is wallclock");
  if (j.contains("value") && !j.at("value").is_null())
    m.value = get<double>(j, "value", where, 0, true);
  m.values = get<std::vector<double>>(j, "values", where, {}, false);
  m.result_hash = get<std::string>(j, "result_hash", where, "", false);
  m.commit = get<std::string>(j, "commit", where, "", false);
  m.date = get<std::string>(j, "date", where, "", false);
  if (j.contains("measured_on")) {
    if (!j["measured_on"].is_object()) bad(where, "'measured_on' is not an object");
    m.measured_on = j["measured_on"];
  }
  return m;
}

nlohmann::ordered_json metric_to_json(const Metric& m) {
  nlohmann::ordered_json j = {
      {"metric", m.name},
      {"kind", m.kind},
      {"source", m.source},
      {"unit", m.unit},
      {"direction", m.higher_is_better ? "higher_is_better" : "lower_is_better"},
      {"tolerance", m.tolerance}};
  if (m.kind == "wallclock") {
    j["tolerance_interleaved"] = m.tolerance_interleaved;
    j["statistic"] = m.statistic;
  }
  if (!m.device.empty()) j["device"] = m.device;
  if (!m.workload.empty()) j["workload"] = m.workload;
  if (m.n) j["n"] = m.n;
  if (m.repetitions) j["repetitions"] = m.repetitions;
  if (m.warmup) j["warmup"] = m.warmup;
  if (m.source == "workload") j["repeat_per_process"] = m.repeat_per_process;
  if (!m.command.empty()) j["command"] = m.command;
  if (m.source == "command" && m.program != "prooflab") j["program"] = m.program;
  if (m.source == "command") j["result_dir"] = m.result_dir;
  if (!m.key.empty()) j["key"] = m.key;
  if (!m.benchmark.empty()) j["benchmark"] = m.benchmark;
  if (m.source == "gbench" || m.source == "workload" || !m.benchmark.empty()) j["field"] = m.field;
  if (!m.cell.empty()) j["cell"] = m.cell;
  if (!m.variant.empty()) j["variant"] = m.variant;
  // A count is an integer; write it as one.
  if (m.value && m.kind == "deterministic" && *m.value >= 0 && *m.value < 9.0e15 &&
      *m.value == static_cast<double>(static_cast<std::uint64_t>(*m.value)))
    j["value"] = static_cast<std::uint64_t>(*m.value);
  else
    j["value"] = m.value ? nlohmann::ordered_json(*m.value) : nlohmann::ordered_json(nullptr);
  if (m.kind == "wallclock") j["values"] = m.values;
  if (!m.result_hash.empty()) j["result_hash"] = m.result_hash;
  j["commit"] = m.commit;
  j["date"] = m.date;
  if (m.measured_on.is_object()) j["measured_on"] = m.measured_on;
  return j;
}

Baseline load_baseline(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read baseline " + path.string());
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(path.string() + ": not JSON: " + e.what());
  }
  const std::string where = path.string();
  if (get<std::string>(j, "format", where, "", true) != kBaselineFormat)
    bad(where, std::string("format is not '") + kBaselineFormat + "'");
  const int version = get<int>(j, "version", where, 0, true);
  if (version != kBaselineVersion)
    bad(where,
        "version " + std::to_string(version) + " is not " + std::to_string(kBaselineVersion));
  Baseline b;
  b.description = get<std::string>(j, "description", where, "", false);
  b.updated = get<json>(j, "updated", where, json::object(), false);
  b.history = get<json>(j, "history", where, json::array(), false);
  b.toolchain = get<json>(j, "toolchain", where, json::object(), false);
  b.host = get<json>(j, "host", where, json::object(), false);
  const auto metrics = get<json>(j, "metrics", where, json::array(), true);
  if (!metrics.is_array()) bad(where, "metrics must be an array");
  std::set<std::string> seen;
  for (const auto& mj : metrics) {
    b.metrics.push_back(metric_from_json(mj, where));
    if (!seen.insert(b.metrics.back().name).second)
      bad(where, "metric '" + b.metrics.back().name + "' appears twice");
  }
  return b;
}

void save_baseline(const std::filesystem::path& path, const Baseline& b) {
  nlohmann::ordered_json j = {{"format", kBaselineFormat},
                              {"version", kBaselineVersion},
                              {"description", b.description},
                              {"updated", b.updated},
                              {"history", b.history},
                              {"toolchain", b.toolchain},
                              {"host", b.host},
                              {"metrics", nlohmann::ordered_json::array()}};
  for (const auto& m : b.metrics) j["metrics"].push_back(metric_to_json(m));
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const auto tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

Metric wallclock_metric(std::string name, std::string source, std::string unit, double tolerance,
                        double tolerance_interleaved) {
  Metric m;
  m.name = std::move(name);
  m.kind = "wallclock";
  m.source = std::move(source);
  m.unit = std::move(unit);
  m.tolerance = tolerance;
  m.tolerance_interleaved = tolerance_interleaved;
  return m;
}

std::vector<Metric> default_cpu_metrics() {
  std::vector<Metric> out;
  for (const auto& w : workload_specs()) {
    Metric m;
    m.name = "instructions." + std::string(w.name);
    m.kind = "deterministic";
    m.source = "callgrind";
    m.unit = "instructions";
    m.tolerance = 0.01;
    m.workload = std::string(w.name);
    m.n = w.default_n;
    out.push_back(m);
  }
  {
    // Time of the tiny prove, run natively (its thread's CPU time: one thread, so preemption
    // on a shared machine does not count): the timed metric that the injected slowdown
    // reaches, so the statistical path can be shown to catch a 5 % regression.
    Metric m = wallclock_metric("cpu_seconds.prove_tiny", "workload", "s", 0.30, 0.03);
    m.workload = "prove_tiny";
    m.n = workload_spec("prove_tiny").default_n;
    m.repetitions = 16;  // 10 per arm missed one injected 5 % in 10 (two slow processes)
    m.warmup = 1;
    m.repeat_per_process = 5;
    m.field = "kernel_cpu_seconds";
    out.push_back(m);
  }
  // The ci-smoke experiment (experiments/ci-smoke.toml, run by `prooflab matrix`): its
  // throughput, s/proof of the porep-like baseline runs (the median of the `--reps` runs of
  // one invocation is one figure), and the CPU time of a whole invocation. On a shared
  // machine the wall-clock figure moves by tens of per cent with the load of others
  // (docs/regress.md), so against stored figures only a gross slowdown counts; the CPU time
  // is steadier.
  const std::vector<std::string> smoke = {"matrix",      "{source_dir}/experiments/ci-smoke.toml",
                                          "--reps",      "2",
                                          "--out",       "{out}/{run_id}",
                                          "--param-dir", "{param_dir}"};
  {
    Metric m = wallclock_metric("ci-smoke.s_per_proof", "command", "s", 0.90, 0.05);
    m.repetitions = 8;
    m.warmup = 1;  // the first invocation of each arm also generates the parameters
    m.command = smoke;
    m.result_dir = "{out}/{run_id}/ci-smoke";
    m.cell = "porep-like";
    m.variant = "baseline";
    m.key = "s_per_proof";
    out.push_back(m);
  }
  {
    Metric m = wallclock_metric("ci-smoke.cpu_s", "command", "s", 0.30, 0.03);
    m.repetitions = 10;  // ~11 per arm resolve 3 % on the 2-core dev VM (±5 % run to run)
    m.warmup = 1;        // the first invocation of each arm also generates the parameters
    m.command = smoke;
    m.result_dir = "{out}/{run_id}/ci-smoke";
    m.key = "rusage.cpu_s";
    out.push_back(m);
  }
  return out;
}

}  // namespace prooflab::harness
