// The Slurm executor (docs/slurm.md). A session:
//   1. reads what earlier sessions submitted (<experiment>/slurm/jobs.json), asks squeue which
//      of those array tasks are still pending or running and sacct how the others ended;
//   2. keeps the complete runs (their run.json says so), leaves alone the runs whose task is
//      still queued, and submits every other run (never run, failed, timed out, cancelled,
//      lost with its node) as one new job array, in schedule order;
//   3. unless --no-wait, polls squeue until no task of the experiment is queued, reporting
//      each run as its task leaves the queue, and rewrites index.csv / experiment.json.
// A run is never submitted twice: a queued task keeps its run, and the run directory, not
// the scheduler, says whether a run is done.
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/io/input_file.hpp"
#include "core/trace/elapsed.hpp"
#include "harness/experiment/executor.hpp"
#include "harness/experiment/experiment_progress.hpp"
#include "harness/process.hpp"

namespace prooflab::harness {

namespace fs = std::filesystem;
using nlohmann::json;

bool has_slurm_submissions(const fs::path& exp_dir) {
  std::error_code ec;
  return fs::exists(exp_dir / "slurm" / "jobs.json", ec);
}

namespace {

constexpr double kCommandTimeoutS = 120;

struct CommandOutput {
  int exit_code = 0;
  std::string out, err;
};

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs a Slurm client command; its output goes through files in the slurm directory (the
// Process contract) and is read back.
CommandOutput run_command(const std::vector<std::string>& argv, const fs::path& sdir) {
  const auto out = sdir / ".command.stdout", err = sdir / ".command.stderr";
  fs::remove(out);
  fs::remove(err);
  Process p(ProcessSpec{shell_command(argv), {}, out, err});
  if (p.wait(std::chrono::duration<double>(kCommandTimeoutS)) != WaitEnd::exited) {
    p.end_group(std::chrono::seconds(2));
    throw std::runtime_error(argv.front() + " did not answer within " +
                             std::to_string(static_cast<int>(kCommandTimeoutS)) +
                             " s: " + shell_command(argv));
  }
  return {p.exit_code(), read_whole(out), read_whole(err)};
}

std::string first_line(const std::string& text) {
  const auto e = text.find('\n');
  return text.substr(0, e);
}

std::runtime_error command_failed(const std::vector<std::string>& argv, const CommandOutput& r) {
  return std::runtime_error(argv.front() + " failed (exit " + std::to_string(r.exit_code) +
                            "): " + first_line(r.err.empty() ? r.out : r.err) +
                            "\n  command: " + shell_command(argv));
}

// A command that must succeed: its stdout, else an error with what it printed on stderr.
std::string checked(const std::vector<std::string>& argv, const fs::path& sdir) {
  const auto r = run_command(argv, sdir);
  if (r.exit_code != 0) throw command_failed(argv, r);
  return r.out;
}

// One array job of an earlier (or this) session: task i ran the run of plan order orders[i].
struct Submission {
  std::string job_id;
  std::string tasks_file;
  std::vector<std::size_t> orders;
};

struct SlurmState {
  std::vector<Submission> jobs;
  SlurmSubmitOptions submit;  // what the last submission asked sbatch for
};

std::string string_key(const json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    throw std::runtime_error(where + ": key '" + key + "' missing or not a string");
  return it->get<std::string>();
}

SlurmState read_state(const fs::path& file, std::size_t planned_runs) {
  SlurmState s;
  std::error_code ec;
  if (!fs::exists(file, ec)) return s;
  json j;
  try {
    j = json::parse(io::read_input_file(file, "Slurm record", io::kMaxJsonBytes));
  } catch (const json::exception& e) {
    throw std::runtime_error(file.string() + ": not JSON (" + e.what() + ")");
  }
  const std::string where = file.string();
  if (!j.is_object() || !j.contains("jobs") || !j["jobs"].is_array())
    throw std::runtime_error(where + ": no 'jobs' array");
  for (std::size_t i = 0; i < j["jobs"].size(); ++i) {
    const json& e = j["jobs"][i];
    const std::string at = where + ": jobs[" + std::to_string(i) + "]";
    if (!e.is_object()) throw std::runtime_error(at + ": not an object");
    Submission sub{string_key(e, "job_id", at), string_key(e, "tasks_file", at), {}};
    if (!e.contains("orders") || !e["orders"].is_array())
      throw std::runtime_error(at + ": key 'orders' missing or not an array");
    for (const auto& o : e["orders"]) {
      if (!o.is_number_unsigned() || o.get<std::size_t>() >= planned_runs)
        throw std::runtime_error(at + ": orders: " + o.dump() + " is not a run of the plan (0.." +
                                 std::to_string(planned_runs - 1) + ")");
      sub.orders.push_back(o.get<std::size_t>());
    }
    s.jobs.push_back(std::move(sub));
  }
  if (j.contains("submit") && j["submit"].is_object()) {
    const json& o = j["submit"];
    s.submit.partition = o.value("partition", "");
    s.submit.gres = o.value("gres", "");
    s.submit.time = o.value("time", "");
    s.submit.pin_node = o.value("pin_node", "");
    s.submit.array_parallel = o.value("array_parallel", 0u);
  }
  return s;
}

void write_state(const fs::path& file, const SlurmState& s) {
  json jobs = json::array();
  for (const auto& sub : s.jobs)
    jobs.push_back(
        {{"job_id", sub.job_id}, {"tasks_file", sub.tasks_file}, {"orders", sub.orders}});
  const json j = {{"jobs", jobs},
                  {"submit",
                   {{"partition", s.submit.partition},
                    {"gres", s.submit.gres},
                    {"time", s.submit.time},
                    {"pin_node", s.submit.pin_node},
                    {"array_parallel", s.submit.array_parallel}}}};
  io::write_file_atomically(file, {j.dump(2), "\n"});
}

// This session's options where given, the last submission's for the rest: a plain
// `prooflab matrix` resubmits to the partition (gres, time limit, node) it used before.
SlurmSubmitOptions merged(const SlurmSubmitOptions& now, const SlurmSubmitOptions& before) {
  SlurmSubmitOptions o = now;
  if (o.partition.empty()) o.partition = before.partition;
  if (o.gres.empty()) o.gres = before.gres;
  if (o.time.empty()) o.time = before.time;
  if (o.pin_node.empty()) o.pin_node = before.pin_node;
  if (o.array_parallel == 0) o.array_parallel = before.array_parallel;
  return o;
}

using TaskKey = std::pair<std::string, std::uint64_t>;  // (array job, task)

// "CANCELLED in job 12_3 on node1 after 0:07".
std::string describe(const SlurmTask& t) {
  std::string out = t.state + " in job " + t.array_job + "_" + std::to_string(t.task);
  if (!t.node.empty()) out += " on " + t.node;
  if (t.elapsed_s)
    out += " after " + ExperimentProgress::duration(static_cast<double>(*t.elapsed_s));
  if ((t.state == "FAILED" || t.state == "OUT_OF_MEMORY") && !t.detail.empty())
    out += " (exit " + t.detail + ")";
  return out;
}

class SlurmExecutor final : public Executor {
 public:
  explicit SlurmExecutor(SlurmExecutorOptions o) : o_(std::move(o)) {}

  ExperimentOutcome execute(const ExperimentPlan& plan, RunnerOptions opts) override;

 private:
  // The jobs' tasks squeue still shows, by (job, task).
  std::map<TaskKey, SlurmTask> queued(const std::vector<std::string>& job_ids) const;
  // How the jobs' tasks ended, by (job, task); empty (with a note) when sacct has nothing.
  std::map<TaskKey, SlurmTask> accounted(const std::vector<std::string>& job_ids,
                                         ExperimentProgress& progress);
  Submission submit(const ExperimentPlan& plan, const RunnerOptions& opts,
                    const std::vector<const PlannedRun*>& runs, std::size_t number,
                    const SlurmSubmitOptions& submit) const;

  SlurmExecutorOptions o_;
  fs::path sdir_;
  bool sacct_noted_ = false;
};

std::map<TaskKey, SlurmTask> SlurmExecutor::queued(const std::vector<std::string>& ids) const {
  std::map<TaskKey, SlurmTask> out;
  if (ids.empty()) return out;
  const auto argv = squeue_command(ids);
  const auto r = run_command(argv, sdir_);
  if (squeue_job_unknown(r.exit_code, r.err)) return out;
  if (r.exit_code != 0) throw command_failed(argv, r);
  for (auto& t : parse_squeue(r.out)) out[{t.array_job, t.task}] = t;
  return out;
}

std::map<TaskKey, SlurmTask> SlurmExecutor::accounted(const std::vector<std::string>& ids,
                                                      ExperimentProgress& progress) {
  std::map<TaskKey, SlurmTask> out;
  if (ids.empty()) return out;
  const auto r = run_command(sacct_command(ids), sdir_);
  if (r.exit_code != 0) {
    // A cluster without accounting ("Slurm accounting storage is disabled"): the runs still
    // resume (their directories decide), only the reason a task ended is unknown.
    if (!sacct_noted_)
      progress.note("slurm: sacct failed (" + first_line(r.err.empty() ? r.out : r.err) +
                    "); why tasks ended is not known");
    sacct_noted_ = true;
    return out;
  }
  for (auto& t : parse_sacct(r.out)) out[{t.array_job, t.task}] = t;
  return out;
}

Submission SlurmExecutor::submit(const ExperimentPlan& plan, const RunnerOptions& opts,
                                 const std::vector<const PlannedRun*>& runs, std::size_t number,
                                 const SlurmSubmitOptions& submit) const {
  const std::string stem = "tasks-" + std::to_string(number);
  const fs::path tasks_file = sdir_ / (stem + ".json"), script = sdir_ / (stem + ".sh");
  json list = json::array();
  Submission sub{"", tasks_file.filename().string(), {}};
  for (const PlannedRun* r : runs) {
    json e = planned_run_json(*r);
    e["config"] = plan.arm_of(*r).recorded_config();
    list.push_back(std::move(e));
    sub.orders.push_back(r->order);
  }
  const json tasks = {
      {"experiment", plan.spec.name},
      {"source", fs::absolute(plan.spec.source).string()},
      {"reps", plan.spec.reps},
      {"out_root", fs::absolute(opts.out_root).string()},
      {"param_dir", o_.param_dir.empty() ? "" : fs::absolute(o_.param_dir).string()},
      {"runs", list}};
  io::write_file_atomically(tasks_file, {tasks.dump(2), "\n"});
  const fs::path binary =
      o_.task_binary.empty() ? fs::read_symlink("/proc/self/exe") : fs::absolute(o_.task_binary);
  io::write_file_atomically(
      script, {"#!/bin/sh\n# prooflab experiment ", plan.spec.name,
               ": array task i runs runs[i] of ", tasks_file.filename().string(), "\nexec ",
               shell_command({binary.string(), "slurm-task", tasks_file.string()}), "\n"});
  const auto argv = sbatch_command(submit, runs.size(), "prooflab-" + plan.spec.name,
                                   (sdir_ / "%A_%a.out").string(), script.string());
  sub.job_id = parse_sbatch_job_id(checked(argv, sdir_));
  return sub;
}

ExperimentOutcome SlurmExecutor::execute(const ExperimentPlan& plan, RunnerOptions opts) {
  const fs::path dir = experiment_dir(plan, opts.out_root);
  sdir_ = dir / "slurm";
  const auto on_disk = scan_runs(plan, dir);
  check_no_conflicts(plan, dir, on_disk);
  fs::create_directories(sdir_);
  const fs::path state_file = sdir_ / "jobs.json";
  SlurmState state = read_state(state_file, plan.runs.size());

  opts.session["executor"] = "slurm";
  ExperimentRecord record(plan, dir, opts.session, opts.rebuild_record);
  ExperimentProgress progress(plan.runs.size(), opts.tty, opts.progress);

  std::vector<std::string> ids;
  for (const auto& sub : state.jobs) ids.push_back(sub.job_id);
  const auto queue = queued(ids);
  // Which run each task was for; a later submission of a run overrides the earlier one.
  std::map<std::size_t, TaskKey> task_of;
  std::map<std::size_t, TaskKey> in_flight;
  for (const auto& sub : state.jobs)
    for (std::size_t i = 0; i < sub.orders.size(); ++i) {
      const TaskKey key{sub.job_id, i};
      task_of[sub.orders[i]] = key;
      if (queue.count(key)) in_flight[sub.orders[i]] = key;
    }
  const auto acct = accounted(ids, progress);

  std::size_t done = 0;
  std::vector<const PlannedRun*> to_submit;
  std::map<std::string, std::size_t> why;  // sacct state of the runs submitted again
  for (const auto& r : plan.runs) {
    const RunOnDisk& d = on_disk[r.order];
    if (run_is_done(d, opts.keep_failed)) {
      record.run(r.order).status = index_status(d.status);
      ++done;
      continue;
    }
    if (in_flight.count(r.order)) continue;  // its task is still queued: not a second time
    const auto t = task_of.find(r.order);
    if (t != task_of.end()) {
      const auto a = acct.find(t->second);
      ++why[a != acct.end() ? a->second.state : "no record"];
    }
    to_submit.push_back(&r);
  }
  progress.skipped(done);
  if (!in_flight.empty())
    progress.note("slurm: " + std::to_string(in_flight.size()) +
                  " runs still queued or running from earlier submissions");

  if (!to_submit.empty()) {
    std::string reasons;
    for (const auto& [s, n] : why)
      reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + s;
    for (const PlannedRun* r : to_submit) {
      // What an earlier attempt left must not mix with the new files.
      fs::remove_all(dir / r->run_dir);
      record.run(r->order) = RunRecord{};
    }
    const SlurmSubmitOptions submit_opts = merged(o_.submit, state.submit);
    Submission sub = submit(plan, opts, to_submit, state.jobs.size() + 1, submit_opts);
    state.jobs.push_back(sub);
    state.submit = submit_opts;
    write_state(state_file, state);
    for (std::size_t i = 0; i < sub.orders.size(); ++i) in_flight[sub.orders[i]] = {sub.job_id, i};
    progress.note("slurm: submitted job " + sub.job_id + ": " + std::to_string(sub.orders.size()) +
                  " runs (array " + array_range(sub.orders.size(), submit_opts.array_parallel) +
                  ")" + (reasons.empty() ? "" : "; submitted again: " + reasons));
  }
  record.write();

  ExperimentOutcome out;
  out.dir = dir;
  out.index = record.index_path();
  out.total = plan.runs.size();
  out.skipped = done;
  bool stopped = false;
  std::string last_summary;
  // When squeue first showed each run's task started, and on which node.
  std::map<std::size_t, std::pair<std::chrono::steady_clock::time_point, std::string>> seen_running;
  const auto t0 = std::chrono::steady_clock::now();
  while (o_.wait && !in_flight.empty()) {
    // Sleep in small steps so that Ctrl-C is answered at once.
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o_.poll_s);
    while (std::chrono::steady_clock::now() < until && !stopped) {
      stopped = (opts.stop_after_run && opts.stop_after_run->load()) ||
                (opts.stop_now && opts.stop_now->load());
      if (!stopped) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (stopped) break;
    std::set<std::string> live_ids;
    for (const auto& [order, key] : in_flight) live_ids.insert(key.first);
    const auto now_queued = queued({live_ids.begin(), live_ids.end()});
    std::vector<std::size_t> finished;
    std::size_t running = 0;
    for (const auto& [order, key] : in_flight) {
      const auto q = now_queued.find(key);
      if (q == now_queued.end()) {
        finished.push_back(order);
      } else if (q->second.state != "PENDING") {
        ++running;
        seen_running.try_emplace(order, std::chrono::steady_clock::now(), q->second.node);
      }
    }
    if (!finished.empty()) {
      const auto ended = accounted({live_ids.begin(), live_ids.end()}, progress);
      for (const std::size_t order : finished) {
        const PlannedRun& r = plan.runs[order];
        const RunOnDisk d = inspect_run_dir(dir / r.run_dir, plan.arm_of(r).recorded_config());
        RunRecord& rec = record.run(order);
        rec.status = d.exists() ? index_status(d.status) : "";  // never started
        rec.executed = true;
        const TaskKey key = in_flight[order];
        const auto a = ended.find(key);
        const auto seen = seen_running.find(order);
        std::string detail;
        if (a != ended.end() && slurm_state_ended(a->second.state)) {
          detail = describe(a->second);
          if (a->second.elapsed_s) rec.seconds = static_cast<double>(*a->second.elapsed_s);
        } else {
          // sacct has not caught up yet: what squeue showed.
          detail = "job " + key.first + "_" + std::to_string(key.second);
          if (seen != seen_running.end()) {
            if (!seen->second.second.empty()) detail += " on " + seen->second.second;
            rec.seconds = trace::seconds_since(seen->second.first);
          }
        }
        if (rec.status != "complete") rec.error = detail;
        ++out.executed;
        progress.finish(run_label(plan, r), rec.status.empty() ? "not run" : rec.status,
                        rec.seconds < 0 ? 0 : rec.seconds, detail);
        in_flight.erase(order);
      }
      record.write();
    }
    const std::string summary = "slurm: " + std::to_string(running) + " running, " +
                                std::to_string(in_flight.size() - running) + " pending";
    if (summary != last_summary && !in_flight.empty()) progress.note(summary);
    last_summary = summary;
  }
  progress.close();
  if (stopped)
    std::fprintf(opts.progress,
                 "stopped waiting after %s; the queued runs stay in Slurm (scancel them to stop "
                 "them)\n",
                 ExperimentProgress::duration(trace::seconds_since(t0)).c_str());

  tally_runs(record, out);
  out.queued = in_flight.size();
  out.status =
      !in_flight.empty() ? "submitted" : (out.complete == out.total ? "complete" : "failed");
  record.set_status(out.status);
  record.write();
  return out;
}

}  // namespace

std::unique_ptr<Executor> make_slurm_executor(SlurmExecutorOptions options) {
  return std::make_unique<SlurmExecutor>(std::move(options));
}

}  // namespace prooflab::harness
