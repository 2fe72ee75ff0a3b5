// The default executor: every run in this process, one after another (run_experiment).
#include "harness/experiment/executor.hpp"

namespace prooflab::harness {

std::unique_ptr<Runner> make_experiment_runner(const ExperimentSpec& spec,
                                               const std::filesystem::path& param_dir) {
  return spec.command.enabled ? make_command_runner(spec.command, counters::CounterOptions{})
                              : make_engine_runner(param_dir);
}

namespace {

class LocalExecutor final : public Executor {
 public:
  explicit LocalExecutor(std::filesystem::path param_dir) : param_dir_(std::move(param_dir)) {}

  ExperimentOutcome execute(const ExperimentPlan& plan, RunnerOptions opts) override {
    const std::unique_ptr<Runner> runner = make_experiment_runner(plan.spec, param_dir_);
    opts.execute = [&runner](const RunRequest& rq) { return runner->run(rq); };
    return run_experiment(plan, opts);
  }

 private:
  std::filesystem::path param_dir_;
};

}  // namespace

std::unique_ptr<Executor> make_local_executor(std::filesystem::path param_dir) {
  return std::make_unique<LocalExecutor>(std::move(param_dir));
}

}  // namespace prooflab::harness
