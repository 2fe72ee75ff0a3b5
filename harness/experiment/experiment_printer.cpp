#include "harness/experiment/experiment_printer.hpp"

#include <algorithm>
#include <string>

#include "harness/experiment/command_invocation.hpp"
#include "harness/provenance.hpp"

namespace prooflab::harness {

namespace {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string settings_text(const std::vector<Setting>& settings) {
  std::string out;
  for (const auto& s : settings) out += (out.empty() ? "" : " ") + s.key + "=" + s.value;
  return out.empty() ? "(no overrides)" : out;
}

std::string state_text(const RunOnDisk& d, bool keep_failed) {
  if (!d.exists()) return "pending";
  if (d.conflicts()) return "CONFLICT (" + d.differences.front() + ")";
  if (run_is_done(d, keep_failed)) return d.status + ", skip";
  return d.status + ", redo";
}

// Each arm's commands, environment and overlay as its first run would have them.
void print_commands(const ExperimentPlan& plan, const std::filesystem::path& exp_dir,
                    std::FILE* out) {
  std::fprintf(out, "commands (each arm's first run):\n");
  for (std::size_t a = 0; a < plan.matrix.arms.size(); ++a) {
    const auto it = std::find_if(plan.runs.begin(), plan.runs.end(),
                                 [&](const PlannedRun& r) { return r.arm == a; });
    if (it == plan.runs.end()) continue;
    const auto inv = make_invocation(
        plan.spec.command, plan.arm_of(*it),
        RunContext{std::filesystem::absolute(exp_dir / it->run_dir),
                   plan.spec.name + "/" + it->run_dir, plan.spec.name, plan.cell_of(*it).id,
                   plan.variant_of(*it).name, it->rep});
    std::fprintf(out, "  %s %s:\n", plan.cell_of(*it).id.c_str(), plan.variant_of(*it).name.c_str());
    auto line = [&](const char* what, const std::string& text) {
      if (!text.empty()) std::fprintf(out, "    %-9s %s\n", what, text.c_str());
    };
    std::string env, overlay;
    for (const auto& [k, v] : inv.env) env += (env.empty() ? "" : " ") + k + "=" + v;
    for (const auto& [k, v] : inv.overlay) overlay += (overlay.empty() ? "" : "; ") + k + " = " + v;
    line("env", env);
    line("overlay", overlay.empty() ? "" : inv.config_base.string() + " + " + overlay);
    line("setup", inv.setup);
    line("ready", inv.ready_command.empty()
                      ? (inv.ready_log.empty() ? "" : "'" + plan.spec.command.ready_pattern + "' in " + inv.ready_log)
                      : inv.ready_command);
    line("run", inv.run);
    line("teardown", inv.teardown);
  }
}

}  // namespace

void print_plan(const ExperimentPlan& plan, const std::filesystem::path& exp_dir,
                const std::vector<RunOnDisk>& on_disk, bool keep_failed, std::FILE* out) {
  const auto& spec = plan.spec;
  std::size_t warmups = 0, done = 0;
  for (const auto& r : plan.runs) {
    warmups += r.warmup ? 1 : 0;
    done += run_is_done(on_disk.at(r.order), keep_failed) ? 1 : 0;
  }
  std::string axes;
  for (const auto& a : spec.axes) axes += (axes.empty() ? "" : ", ") + a.name;
  std::string variants;
  for (const auto& v : spec.variants) variants += (variants.empty() ? "" : ", ") + v.name;

  std::fprintf(out, "experiment %s (%s)\n", spec.name.c_str(), spec.source.c_str());
  if (!spec.description.empty()) std::fprintf(out, "  %s\n", spec.description.c_str());
  std::fprintf(out, "  directory: %s\n", exp_dir.c_str());
  std::fprintf(out, "  cells: %zu (axes: %s); variants: %zu (%s)\n", plan.matrix.cells.size(),
               axes.empty() ? "none" : axes.c_str(), spec.variants.size(), variants.c_str());
  std::fprintf(out, "  reps: %u per arm; warm-up: %u per cell; order: %s, seed %llu\n", spec.reps,
               spec.warmup,
               spec.shuffle ? "interleaved rounds, shuffled" : "interleaved rounds, fixed",
               static_cast<unsigned long long>(spec.seed));
  std::fprintf(
      out, "  runs: %zu (%zu warm-up + %zu measured); arms: %zu of %zu (%zu excluded); done: %zu\n",
      plan.runs.size(), warmups, plan.runs.size() - warmups, plan.matrix.arms.size(),
      plan.matrix.product_arms, plan.matrix.product_arms - plan.matrix.arms.size(), done);
  if (spec.command.enabled) {
    std::string base;
    for (const auto& k : spec.base_knobs) base += (base.empty() ? "" : " ") + k.key + "=" + k.value;
    std::fprintf(out, "  runner: command; base: %s\n", base.empty() ? "(none)" : base.c_str());
  } else {
    std::string base;
    const nlohmann::json base_json = spec.base.to_json();
    for (auto it = base_json.begin(); it != base_json.end(); ++it) {
      const bool on_axis = std::any_of(spec.axes.begin(), spec.axes.end(), [&](const Axis& a) {
        return std::find(a.keys.begin(), a.keys.end(), it.key()) != a.keys.end();
      });
      if (!on_axis)
        base += (base.empty() ? "" : " ") + it.key() + "=" + config_value_text(spec.base, it.key());
    }
    std::fprintf(out, "  base (axes aside): %s\n", base.c_str());
  }

  std::size_t cw = 4, vw = 7;
  for (const auto& c : plan.matrix.cells) cw = std::max(cw, c.id.size());
  for (const auto& v : spec.variants) vw = std::max(vw, v.name.size());
  std::fprintf(out, "cells:\n");
  for (const auto& c : plan.matrix.cells) {
    std::string values;
    for (const auto& [k, v] : c.values) values += (values.empty() ? "" : " ") + k + "=" + v;
    std::fprintf(out, "  %s  %s\n", pad(c.id, cw).c_str(),
                 values.empty() ? "(base)" : values.c_str());
  }
  std::fprintf(out, "variants:\n");
  for (const auto& v : spec.variants)
    std::fprintf(out, "  %s  %s\n", pad(v.name, vw).c_str(), settings_text(v.overrides).c_str());
  if (spec.command.enabled) print_commands(plan, exp_dir, out);
  std::fprintf(out, "runs:\n  %s  %s  %s  %s  %s\n", pad("order", 5).c_str(),
               pad("cell", cw).c_str(), pad("variant", vw).c_str(), pad("rep", 9).c_str(),
               "run_dir (state)");
  for (const auto& r : plan.runs) {
    const std::string rep = r.warmup ? "warm-up " + std::to_string(r.rep) : std::to_string(r.rep);
    std::fprintf(out, "  %5zu  %s  %s  %s  %s (%s)\n", r.order, pad(plan.cell_of(r).id, cw).c_str(),
                 pad(plan.variant_of(r).name, vw).c_str(), pad(rep, 9).c_str(), r.run_dir.c_str(),
                 state_text(on_disk.at(r.order), keep_failed).c_str());
  }
}

void print_outcome(const ExperimentPlan& plan, const ExperimentOutcome& o, std::FILE* out) {
  std::fprintf(
      out,
      "\nexperiment %s: %s; %zu runs: %zu complete, %zu failed, %zu interrupted, %zu not run "
      "(%zu were complete before, %zu ran now)\n",
      plan.spec.name.c_str(), o.status.c_str(), o.total, o.complete, o.failed, o.interrupted,
      o.pending, o.skipped, o.executed);
  std::fprintf(out, "index: %s\n", o.index.c_str());
  std::fprintf(out, "report: %s report %s\n", invoked_program().c_str(), o.dir.c_str());
  if (o.status == "submitted")
    std::fprintf(out,
                 "%zu runs are queued or running in Slurm; run the same command again to follow "
                 "them (it submits nothing twice and resubmits the runs that did not complete)\n",
                 o.queued);
  else if (o.status != "complete")
    std::fprintf(
        out,
        "resume: run the same command again; it skips the complete runs and redoes the rest\n");
  std::fflush(out);
}

}  // namespace prooflab::harness
