// `prooflab slurm-task TASKS.json`: what one array task of the Slurm executor runs (hidden
// from --help; harness/experiment/slurm_executor.cpp writes TASKS.json and the batch script). Array
// task i runs runs[i] of the file: it re-reads the experiment file, finds the run in the
// plan by its order and checks that it is still the run that was submitted (same directory,
// same config), then runs it with the experiment's Runner (the engine or the [runner]
// command) into <out_root>/<experiment>/<run_dir>, exactly as the local executor would.
// The exit status is 0 only for a complete run, so sacct tells failed tasks apart; scancel's
// SIGTERM ends the run "interrupted".
#include <atomic>
#include <csignal>
#include <cstdlib>

#include "core/io/input_file.hpp"
#include "harness/commands/commands.hpp"
#include "harness/experiment/executor.hpp"
#include "harness/experiment/experiment_spec.hpp"

namespace prooflab::harness {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

std::string text_key(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    throw std::runtime_error(where + ": key '" + key + "' missing or not a string");
  return it->get<std::string>();
}

void run_task(const fs::path& file, std::optional<std::size_t> index_option) {
  const std::string where = file.string();
  json tasks;
  try {
    tasks = json::parse(io::read_input_file(file, "Slurm task file", io::kMaxJsonBytes));
  } catch (const json::exception& e) {
    throw std::runtime_error(where + ": not JSON (" + e.what() + ")");
  }
  if (!tasks.is_object() || !tasks.contains("runs") || !tasks["runs"].is_array())
    throw std::runtime_error(where + ": no 'runs' array");
  std::size_t index = 0;
  if (index_option) {
    index = *index_option;
  } else {
    const char* env = std::getenv("SLURM_ARRAY_TASK_ID");
    if (env == nullptr)
      throw std::runtime_error(
          "SLURM_ARRAY_TASK_ID is not set: not a Slurm array task (give "
          "--index to run one task by hand)");
    try {
      std::size_t used = 0;
      index = std::stoul(env, &used);
      if (used != std::string(env).size()) throw std::invalid_argument(env);
    } catch (const std::exception&) {
      throw std::runtime_error(std::string("SLURM_ARRAY_TASK_ID '") + env + "' is not a number");
    }
  }
  if (index >= tasks["runs"].size())
    throw std::runtime_error(where + ": task " + std::to_string(index) + " but the file has " +
                             std::to_string(tasks["runs"].size()) + " runs");
  const std::string at = where + ": runs[" + std::to_string(index) + "]";
  const json& entry = tasks["runs"][index];
  const PlannedRun submitted = planned_run_from_json(entry, at);

  ExperimentSpec spec = parse_experiment_file(text_key(tasks, "source", where));
  if (!tasks.contains("reps") || !tasks["reps"].is_number_unsigned() ||
      tasks["reps"].get<std::uint64_t>() < 1 || tasks["reps"].get<std::uint64_t>() > kMaxReps)
    throw std::runtime_error(where + ": key 'reps' missing or not in 1.." +
                             std::to_string(kMaxReps));
  spec.reps = tasks["reps"].get<std::uint32_t>();
  const ExperimentPlan plan = make_plan(std::move(spec));
  if (plan.spec.name != text_key(tasks, "experiment", where) ||
      submitted.order >= plan.runs.size() || !(plan.runs[submitted.order] == submitted) ||
      !entry.contains("config") || plan.arm_of(submitted).recorded_config() != entry["config"])
    throw std::runtime_error(at + ": run " + submitted.run_dir + " is not in " + plan.spec.source +
                             " as it was submitted (the experiment file changed since); run "
                             "`prooflab matrix` again to resubmit from the file as it is now");

  const fs::path out_root = text_key(tasks, "out_root", where);
  const fs::path run_dir = out_root / plan.spec.name / submitted.run_dir;
  fs::remove_all(run_dir);  // what an earlier attempt left must not mix with this run's files
  const auto runner = make_experiment_runner(plan.spec, text_key(tasks, "param_dir", where));
  g_stop = false;
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  const RunResult result = runner->run(
      RunRequest{plan.config_of(submitted), out_root, plan.spec.name + "/" + submitted.run_dir,
                 &g_stop, &plan.arm_of(submitted), plan.spec.name, plan.cell_of(submitted).id,
                 plan.variant_of(submitted).name, submitted.rep});
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  std::printf("%s: %s%s%s\n", run_dir.c_str(), result.status.c_str(),
              result.reason.empty() ? "" : ": ", result.reason.c_str());
  if (result.status != "complete")
    throw std::runtime_error("run " + submitted.run_dir + " ended " + result.status);
}

}  // namespace

void add_slurm_task_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("slurm-task", "One array task of `matrix --executor slurm`");
  cmd->group("");  // internal: the batch script runs it
  struct Options {
    std::string file;
    std::optional<std::size_t> index;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("tasks", o->file, "the task file the submission wrote")->required();
  cmd->add_option("--index", o->index, "which task (default: SLURM_ARRAY_TASK_ID)");
  cmd->callback([o] { run_task(o->file, o->index); });
}

}  // namespace prooflab::harness
