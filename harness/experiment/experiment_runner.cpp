#include "harness/experiment/experiment_runner.hpp"

#include <chrono>
#include <stdexcept>

#include "core/trace/elapsed.hpp"
#include "harness/experiment/experiment_index.hpp"
#include "harness/experiment/experiment_progress.hpp"

namespace prooflab::harness {

std::filesystem::path experiment_dir(const ExperimentPlan& plan,
                                     const std::filesystem::path& out_root) {
  return out_root / plan.spec.name;
}

std::vector<RunOnDisk> scan_runs(const ExperimentPlan& plan, const std::filesystem::path& exp_dir) {
  std::vector<RunOnDisk> out;
  out.reserve(plan.runs.size());
  for (const auto& r : plan.runs)
    out.push_back(inspect_run_dir(exp_dir / r.run_dir, plan.arm_of(r).recorded_config()));
  return out;
}

void check_no_conflicts(const ExperimentPlan& plan, const std::filesystem::path& exp_dir,
                        const std::vector<RunOnDisk>& on_disk) {
  std::string list;
  std::size_t n = 0;
  for (const auto& r : plan.runs) {
    const RunOnDisk& d = on_disk.at(r.order);
    if (!d.conflicts()) continue;
    if (++n <= 3) list += "\n  " + (exp_dir / r.run_dir).string() + ": " + d.differences.front();
  }
  if (n == 0) return;
  throw std::runtime_error(
      std::to_string(n) + " complete run(s) in " + exp_dir.string() +
      " were made with another configuration (the experiment changed since they ran):" + list +
      (n > 3 ? "\n  ..." : "") + "\nremove that directory or choose another --out to start afresh");
}

bool run_is_done(const RunOnDisk& on_disk, bool keep_failed) {
  return on_disk.complete() || (keep_failed && on_disk.status == "failed");
}

std::string run_label(const ExperimentPlan& plan, const PlannedRun& run) {
  return plan.cell_of(run).id + " " + plan.variant_of(run).name + " " +
         (run.warmup ? "warm-up " : "rep ") + std::to_string(run.rep);
}

namespace {

std::string outcome_detail(const RunResult& result) {
  const auto& s = result.summary;
  if (!s.is_object()) return "";
  std::string out;
  if (s.contains("s_per_proof") && s["s_per_proof"].is_number()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g s/proof", s["s_per_proof"].get<double>());
    out = buf;
  }
  if (s.contains("failed") && s["failed"].is_number() && s["failed"].get<int>() > 0)
    out += (out.empty() ? "" : ", ") + std::to_string(s["failed"].get<int>()) + " proofs failed";
  return out;
}

}  // namespace

void tally_runs(const ExperimentRecord& record, ExperimentOutcome& out) {
  for (const auto& rec : record.runs()) {
    if (rec.status == "complete")
      ++out.complete;
    else if (rec.status == "failed")
      ++out.failed;
    else if (rec.status == "interrupted")
      ++out.interrupted;
    else
      ++out.pending;
  }
}

ExperimentOutcome run_experiment(const ExperimentPlan& plan, const RunnerOptions& opts) {
  if (!opts.execute) throw std::logic_error("run_experiment: no executor");
  const auto dir = experiment_dir(plan, opts.out_root);
  const auto on_disk = scan_runs(plan, dir);
  check_no_conflicts(plan, dir, on_disk);

  ExperimentRecord record(plan, dir, opts.session, opts.rebuild_record);
  std::size_t already = 0;
  for (const auto& r : plan.runs) {
    const RunOnDisk& d = on_disk[r.order];
    if (d.exists()) record.run(r.order).status = index_status(d.status);
    if (run_is_done(d, opts.keep_failed)) ++already;
  }
  record.write();

  ExperimentOutcome out;
  out.dir = dir;
  out.index = record.index_path();
  out.total = plan.runs.size();
  out.skipped = already;
  ExperimentProgress progress(plan.runs.size(), opts.tty, opts.progress);
  progress.skipped(already);
  bool stopped = false;
  for (const auto& r : plan.runs) {
    if (run_is_done(on_disk[r.order], opts.keep_failed)) continue;
    if ((opts.stop_after_run && opts.stop_after_run->load()) ||
        (opts.stop_now && opts.stop_now->load())) {
      stopped = true;
      break;
    }
    const auto run_dir = dir / r.run_dir;
    // What an earlier attempt left (a killed or failed run) must not mix with the new files.
    std::filesystem::remove_all(run_dir);
    RunRecord& rec = record.run(r.order);
    rec = RunRecord{};
    const std::string label = run_label(plan, r);
    progress.start(label);
    const auto t0 = std::chrono::steady_clock::now();
    RunResult result;
    try {
      result = opts.execute(RunRequest{plan.config_of(r), opts.out_root,
                                       plan.spec.name + "/" + r.run_dir, opts.stop_now,
                                       &plan.arm_of(r), plan.spec.name, plan.cell_of(r).id,
                                       plan.variant_of(r).name, r.rep});
    } catch (const std::exception& e) {
      progress.close();
      const RunOnDisk d = inspect_run_dir(run_dir, plan.arm_of(r).recorded_config());
      rec.status = d.exists() ? index_status(d.status == "complete" ? "failed" : d.status) : "";
      rec.error = e.what();
      record.set_status("failed");
      record.write();
      throw std::runtime_error("run " + r.run_dir + " of experiment " + plan.spec.name + ": " +
                               e.what());
    }
    rec.seconds = trace::seconds_since(t0);
    rec.executed = true;
    rec.status = index_status(result.status);
    rec.error = result.reason;
    ++out.executed;
    record.write();
    progress.finish(label, rec.status, rec.seconds,
                    result.reason.empty() ? outcome_detail(result) : result.reason);
    if (rec.status == "interrupted") {
      stopped = true;
      break;
    }
  }
  progress.close();

  tally_runs(record, out);
  out.status = stopped ? "interrupted" : (out.complete == out.total ? "complete" : "failed");
  record.set_status(out.status);
  record.write();
  return out;
}

}  // namespace prooflab::harness
