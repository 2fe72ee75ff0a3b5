// `prooflab sweep --c 5,10,20 --j 5,10,15 [--pairs]`: a concurrency sweep as an ad-hoc
// experiment. Without --pairs the cells are every (c, j) with j <= c (a batch cannot have
// more proofs in flight than it has proofs); with --pairs the i-th c goes with the i-th j.
// The experiment's name (default: from the c and j lists) makes a re-run of the same
// command resume it.
#include <algorithm>
#include <set>

#include "harness/commands/commands.hpp"
#include "harness/config_file.hpp"
#include "harness/experiment/directory_names.hpp"
#include "harness/experiment/experiment_cli.hpp"
#include "harness/experiment/experiment_spec.hpp"
#include "harness/commands/sweep_name.hpp"

namespace prooflab::harness {

namespace {

std::string joined(const std::vector<std::uint32_t>& v, const char* sep) {
  std::string out;
  for (const auto x : v) out += (out.empty() ? "" : sep) + std::to_string(x);
  return out;
}

std::vector<std::string> texts(const std::vector<std::uint32_t>& v) {
  std::vector<std::string> out;
  for (const auto x : v) out.push_back(std::to_string(x));
  return out;
}

}  // namespace

std::string default_sweep_name(const std::vector<std::uint32_t>& c, const std::vector<std::uint32_t>& j,
                               bool pairs) {
  return "sweep-c" + joined(c, "-") + "-j" + joined(j, "-") + (pairs ? "-pairs" : "");
}

void add_sweep_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("sweep", "Concurrency sweep: batches at several (c, j) as one experiment");
  struct Options {
    std::vector<std::uint32_t> c, j;
    bool pairs = false;
    std::string config_file, name;
    std::vector<std::string> sets;
    std::uint32_t reps = 3, warmup = 0;
    std::uint64_t seed = 0;
    ExperimentCommandOptions common;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--c,--count", o->c, "proof counts c, comma-separated")
      ->required()
      ->delimiter(',')
      ->check(config_key_check("count"));
  cmd->add_option("--j,--concurrency", o->j, "concurrencies j, comma-separated")
      ->required()
      ->delimiter(',')
      ->check(config_key_check("concurrency"));
  cmd->add_flag("--pairs", o->pairs, "pair the i-th c with the i-th j instead of every j <= c");
  cmd->add_option("--config", o->config_file, "engine config (TOML) every run starts from");
  cmd->add_option("--set", o->sets, "override a config key: --set lock_policy=two_lock");
  cmd->add_option("--reps", o->reps, "repetitions per cell")
      ->capture_default_str()
      ->check(CLI::Range(1u, kMaxReps));
  cmd->add_option("--warmup", o->warmup, "warm-up runs per cell")
      ->capture_default_str()
      ->check(CLI::Range(0u, kMaxWarmup));
  cmd->add_option("--seed", o->seed, "shuffle seed of the run order")->capture_default_str();
  cmd->add_option("--name", o->name, "experiment name (default: sweep-c<list>-j<list>)");
  add_experiment_options(cmd, o->common);
  cmd->callback([o] {
    ExperimentSpec spec;
    spec.source = "prooflab sweep";
    spec.name = o->name.empty() ? default_sweep_name(o->c, o->j, o->pairs) : o->name;
    if (!is_safe_name(spec.name))
      throw engine::ConfigError("--name '" + spec.name +
                                "': not a directory name (use letters, digits, . _ + -)");
    spec.description = "concurrency sweep: c=" + joined(o->c, ",") + " j=" + joined(o->j, ",") +
                       (o->pairs ? " (pairs)" : " (every j <= c)");
    if (!o->config_file.empty()) apply_config_file(spec.base, o->config_file);
    for (const auto& s : o->sets) {
      const std::string key = s.substr(0, s.find('='));
      if (key == "count" || key == "concurrency")
        throw engine::ConfigError("--set " + key + ": c and j are the sweep's axes (--c, --j)");
    }
    apply_overrides(spec.base, o->sets);
    spec.reps = o->reps;
    spec.warmup = o->warmup;
    spec.seed = o->seed;
    for (const auto* list : {&o->c, &o->j}) {
      if (std::set<std::uint32_t>(list->begin(), list->end()).size() != list->size())
        throw engine::ConfigError(std::string(list == &o->c ? "--c" : "--j") +
                                  ": a value appears twice");
    }
    if (o->pairs) {
      if (o->c.size() != o->j.size())
        throw engine::ConfigError("--pairs: --c has " + std::to_string(o->c.size()) +
                                  " values but --j has " + std::to_string(o->j.size()));
      Axis axis{"cj", {"count", "concurrency"}, {}, 0};
      for (std::size_t i = 0; i < o->c.size(); ++i)
        axis.points.push_back({std::to_string(o->c[i]), std::to_string(o->j[i])});
      spec.axes.push_back(std::move(axis));
    } else {
      Axis c{"count", {"count"}, {}, 0}, j{"concurrency", {"concurrency"}, {}, 0};
      for (const auto& t : texts(o->c)) c.points.push_back({t});
      for (const auto& t : texts(o->j)) j.points.push_back({t});
      spec.axes.push_back(std::move(c));
      spec.axes.push_back(std::move(j));
      for (const auto c_value : o->c) {
        std::vector<std::string> above;
        for (const auto j_value : o->j)
          if (j_value > c_value) above.push_back(std::to_string(j_value));
        if (!above.empty())
          spec.exclusions.push_back(
              {{{"count", {std::to_string(c_value)}}, {"concurrency", above}}, {}, 0});
      }
    }
    spec.variants.push_back({"baseline", {}, 0});
    const auto executor = make_local_executor(o->common.param_dir);
    execute_experiment_command(make_plan(std::move(spec)), o->common, *executor);
  });
}

}  // namespace prooflab::harness
