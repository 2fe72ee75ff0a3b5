// The Runner of prooflab's own engine: one `prooflab batch` per run, without its per-proof
// lines and Batch Summary (the experiment shows its own progress).
#include "harness/batch_runner.hpp"
#include "harness/experiment/runner.hpp"

namespace prooflab::harness {

namespace {

class EngineRunner final : public Runner {
 public:
  explicit EngineRunner(std::filesystem::path param_dir) : param_dir_(std::move(param_dir)) {}

  RunResult run(const RunRequest& rq) override {
    BatchRunOptions b;
    b.out_parent = rq.out_parent;
    b.run_id = rq.run_id;
    b.param_dir = param_dir_;
    b.print_jobs = false;
    b.print_summary = false;
    b.stop = rq.stop;
    const auto outcome = run_batch_to_directory(rq.config, b);
    return RunResult{outcome.status, outcome.summary, ""};
  }

 private:
  std::filesystem::path param_dir_;
};

}  // namespace

std::unique_ptr<Runner> make_engine_runner(std::filesystem::path param_dir) {
  return std::make_unique<EngineRunner>(std::move(param_dir));
}

}  // namespace prooflab::harness
