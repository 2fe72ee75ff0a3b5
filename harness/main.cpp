#include <exception>
#include <iostream>

#include "harness/commands.hpp"
#include "harness/provenance.hpp"
#include "harness/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"prooflab: a benchmarking harness for GPU Groth16 provers (BLS12-381)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", prooflab::harness::version_text);
  prooflab::harness::add_demo_command(app);
  prooflab::harness::add_devices_command(app);
  prooflab::harness::add_knobs_command(app);
  prooflab::harness::add_setup_command(app);
  prooflab::harness::add_prove_command(app);
  prooflab::harness::add_verify_command(app);
  prooflab::harness::add_batch_command(app);
  prooflab::harness::add_trace_command(app);
  prooflab::harness::add_run_command(app);
  prooflab::harness::add_matrix_command(app);
  prooflab::harness::add_slurm_task_command(app);
  prooflab::harness::add_sweep_command(app);
  prooflab::harness::add_workload_command(app);
  prooflab::harness::add_regress_command(app);
  prooflab::harness::add_report_command(app);
  prooflab::harness::add_predict_command(app);
  prooflab::harness::add_gpu_phase_command(app);
  prooflab::harness::remember_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "prooflab: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
