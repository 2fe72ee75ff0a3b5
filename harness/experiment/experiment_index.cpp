#include "harness/experiment/experiment_index.hpp"

#include <map>
#include <stdexcept>

#include "core/io/atomic_file.hpp"
#include "core/io/input_file.hpp"
#include "core/text/parse.hpp"
#include "core/trace/run_directory.hpp"

namespace prooflab::harness {

namespace {

// experiment.json grows by one entry per run and per session; far beyond any real plan.
constexpr std::uintmax_t kMaxRecordBytes = 256ull << 20;

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string index_csv(const ExperimentPlan& plan, const std::vector<RunRecord>& runs) {
  std::string out = "experiment,cell,variant,rep,order,run_dir,status";
  for (const auto& c : plan.matrix.columns) out += "," + csv_field(c);
  out += "\n";
  for (const auto& r : plan.runs) {
    const RunRecord& rec = runs.at(r.order);
    if (r.warmup || rec.status.empty()) continue;
    out += csv_field(plan.spec.name) + "," + csv_field(plan.cell_of(r).id) + "," +
           csv_field(plan.variant_of(r).name) + "," + std::to_string(r.rep) + "," +
           std::to_string(r.order) + "," + csv_field(r.run_dir) + "," + rec.status;
    for (const auto& c : plan.matrix.columns)
      out += "," + csv_field(plan.arm_of(r).value(c));
    out += "\n";
  }
  return out;
}

nlohmann::json plan_json(const ExperimentPlan& plan) {
  const auto& spec = plan.spec;
  nlohmann::json axes = nlohmann::json::array(), variants = nlohmann::json::array(),
                 exclusions = nlohmann::json::array(), cells = nlohmann::json::array(),
                 arms = nlohmann::json::array();
  for (const auto& a : spec.axes)
    axes.push_back({{"name", a.name}, {"keys", a.keys}, {"points", a.points}});
  for (const auto& v : spec.variants) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& s : v.overrides) o[s.key] = s.value;
    variants.push_back({{"name", v.name}, {"overrides", o}});
  }
  for (const auto& e : spec.exclusions) {
    nlohmann::json match = nlohmann::json::object();
    for (const auto& [k, vals] : e.match) match[k] = vals;
    exclusions.push_back({{"match", match}, {"variants", e.variants}});
  }
  for (const auto& c : plan.matrix.cells) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [k, v] : c.values) values[k] = v;
    cells.push_back({{"id", c.id}, {"values", values}});
  }
  for (const auto& a : plan.matrix.arms)
    arms.push_back({{"cell", plan.matrix.cells[a.cell].id},
                    {"variant", spec.variants[a.variant].name},
                    {"config", a.recorded_config()}});
  return {{"experiment", spec.name},
          {"description", spec.description},
          {"source", spec.source},
          {"reps", spec.reps},
          {"warmup", spec.warmup},
          {"seed", spec.seed},
          {"shuffle", spec.shuffle},
          {"base", spec.base.to_json()},
          {"axes", axes},
          {"variants", variants},
          {"exclusions", exclusions},
          {"cells", cells},
          {"arms", arms},
          {"index_columns", plan.matrix.columns}};
}

ExperimentRecord::ExperimentRecord(const ExperimentPlan& plan, std::filesystem::path dir,
                                   nlohmann::json session, bool rebuild_unreadable)
    : plan_(plan), dir_(std::move(dir)), session_(std::move(session)), runs_(plan.runs.size()) {
  session_["start_time"] = trace::iso8601_now();
  session_["end_time"] = nullptr;
  const auto file = dir_ / "experiment.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  try {
    const auto old = nlohmann::json::parse(io::read_input_file(file, "experiment record", kMaxRecordBytes));
    if (!old.is_object() || !old.contains("sessions") || !old["sessions"].is_array() ||
        !old.contains("runs") || !old["runs"].is_array())
      throw std::runtime_error("not an experiment record (no 'sessions' and 'runs' arrays)");
    std::map<std::string, double> seconds;
    for (const auto& r : old["runs"])
      if (r.is_object() && r.contains("seconds") && r["seconds"].is_number() &&
          r.contains("run_dir") && r["run_dir"].is_string())
        seconds[r["run_dir"].get<std::string>()] = r["seconds"].get<double>();
    earlier_sessions_ = old["sessions"];
    for (const auto& r : plan_.runs)
      if (auto it = seconds.find(r.run_dir); it != seconds.end()) runs_[r.order].seconds = it->second;
  } catch (const std::exception& e) {
    if (!rebuild_unreadable)
      throw std::runtime_error(
          file.string() + " is unreadable (" + text::excerpt(e.what()) +
          "); move it away, or pass --force to rebuild it from the run directories (its "
          "session history is lost)");
    earlier_sessions_ = nlohmann::json::array();
  }
}

void ExperimentRecord::write() const {
  std::filesystem::create_directories(dir_);
  io::write_file_atomically(index_path(), {index_csv(plan_, runs_)});

  nlohmann::json j = plan_json(plan_);
  nlohmann::json session = session_;
  std::size_t executed = 0;
  for (const auto& r : runs_) executed += r.executed ? 1 : 0;
  session["runs_executed"] = executed;
  session["status"] = status_;
  if (status_ != "running") session["end_time"] = trace::iso8601_now();
  nlohmann::json sessions = earlier_sessions_;
  sessions.push_back(session);
  j["status"] = status_;
  j["start_time"] = sessions.front().value("start_time", session["start_time"].get<std::string>());
  j["end_time"] = session["end_time"];
  for (const char* k : {"command", "git_commit", "git_dirty"})
    if (session_.contains(k)) j[k] = session_[k];
  j["sessions"] = sessions;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : plan_.runs) {
    const RunRecord& rec = runs_.at(r.order);
    nlohmann::json o = {{"order", r.order},
                        {"arm", r.arm},
                        {"cell", plan_.cell_of(r).id},
                        {"variant", plan_.variant_of(r).name},
                        {"rep", r.rep},
                        {"warmup", r.warmup},
                        {"run_dir", r.run_dir},
                        {"status", rec.status.empty() ? "pending" : rec.status}};
    if (rec.seconds >= 0) o["seconds"] = rec.seconds;
    if (!rec.error.empty()) o["error"] = rec.error;
    runs.push_back(std::move(o));
  }
  j["runs"] = runs;
  io::write_file_atomically(dir_ / "experiment.json", {j.dump(2) + "\n"});
}

}  // namespace prooflab::harness
