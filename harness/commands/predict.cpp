// `prooflab predict RUN_OR_LOG [--set knob=value ...] [--axes knob=v1,v2 ...] [--waterfall OUT]`: the
// pipeline model (docs/model.md) calibrated on a run directory or a reference log, its predicted
// throughput, latency, GPU/kernel busy, peak host memory and binding resource per setting, by
// prooflab_analysis.model.predict.predict_command in the embedded interpreter
// (harness/embedded_python.hpp), as `prooflab report` does.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/commands/commands.hpp"
#include "harness/embedded_python.hpp"

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/stl.h>
#endif

namespace prooflab::harness {
namespace {

struct PredictOptions {
  std::string path, waterfall, runs, bandwidth_run, fit = "empirical", threads = "auto";
  std::vector<std::string> sets, axes;
  int reps = 3, seed = 0, cores = 0;
};

#ifdef PROOFLAB_HAVE_PYTHON
namespace py = pybind11;

void run_predict(const PredictOptions& o) {
  start_embedded_python(true);
  std::string error;
  try {
    py::module_ predict = import_venv_module("prooflab_analysis.model.predict");
    auto optional = [](const std::string& s) { return s.empty() ? py::object(py::none()) : py::object(py::str(s)); };
    const std::string text = py::str(predict.attr("predict_command")(
        o.path, o.sets, o.axes, py::arg("waterfall") = optional(o.waterfall), py::arg("runs_dir") = optional(o.runs),
        py::arg("bandwidth_run") = optional(o.bandwidth_run), py::arg("reps") = o.reps, py::arg("seed") = o.seed,
        py::arg("fit") = o.fit, py::arg("threads") = o.threads, py::arg("cores") = o.cores > 0 ? py::object(py::int_(o.cores)) : py::object(py::none())));
    std::cout << text << "\n";
  } catch (py::error_already_set& e) {
    error = e.matches(PyExc_KeyboardInterrupt) ? std::string("interrupted") : describe_python_error(e);
  }
  if (!error.empty()) throw std::runtime_error("predict: " + error);
}
#else
void run_predict(const PredictOptions& o) {
  throw std::runtime_error(
      "this prooflab was built without Python embedding: run `make deps` and rebuild, or run "
      ".venv/bin/python -m prooflab_analysis predict " + o.path);
}
#endif

}  // namespace

void add_predict_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("predict", "Predict throughput, latency, utilisation and memory of other settings "
                                            "from one measured run or log (the pipeline model, docs/model.md)");
  auto o = std::make_shared<PredictOptions>();
  cmd->add_option("path", o->path, "run directory or reference log to calibrate on")->required();
  cmd->add_option("--set", o->sets, "knob=value of every predicted setting (repeatable)");
  cmd->add_option("--axes", o->axes, "knob=v1,v2: an axis of settings to predict (repeatable: the product)");
  cmd->add_option("--waterfall", o->waterfall, "write the predicted waterfall(s) to OUT.png/.svg (OUT-<k> per setting)");
  cmd->add_option("--runs", o->runs, "write each predicted run as a run directory under DIR");
  cmd->add_option("--bandwidth-run", o->bandwidth_run, "the same workload at another concurrency (fits the bandwidth slowdown)");
  cmd->add_option("--reps", o->reps, "simulations per setting (default 3)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "seed of the first simulation");
  cmd->add_option("--fit", o->fit, "stage distributions: empirical | lognormal")->check(CLI::IsMember({"empirical", "lognormal"}));
  cmd->add_option("--threads", o->threads,
                  "pool stages' effective threads: auto (measured where the run recorded per-pool CPU time, else "
                  "fitted) | measured | fitted (from the timeline) | table (pool sizes)")
      ->check(CLI::IsMember({"auto", "measured", "fitted", "table"}));
  cmd->add_option("--cores", o->cores, "the host's cores (default: run.json host.cores; needed for a log)");
  cmd->callback([o] { run_predict(*o); });
}

}  // namespace prooflab::harness
