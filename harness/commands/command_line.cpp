#include "harness/commands/command_line.hpp"

#include <exception>
#include <iostream>

#include "harness/commands/commands.hpp"
#include "harness/version.hpp"

namespace prooflab::harness {

int run_command_line(const std::vector<std::string>& args, bool rethrow) {
  CLI::App app{"prooflab: a benchmarking harness for GPU Groth16 provers (BLS12-381)"};
  app.name("prooflab");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text);
  add_demo_command(app);
  add_devices_command(app);
  add_knobs_command(app);
  add_setup_command(app);
  add_prove_command(app);
  add_verify_command(app);
  add_batch_command(app);
  add_trace_command(app);
  add_matrix_command(app);
  add_slurm_task_command(app);
  add_sweep_command(app);
  add_workload_command(app);
  add_regress_command(app);
  add_report_command(app);
  add_predict_command(app);
  add_gpu_phase_command(app);
  // CLI11 parses a reversed vector (its own convention for parse(std::vector)).
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (rethrow) throw CommandLineError(e.what());
    return app.exit(e);
  } catch (const CommandExit& e) {
    return e.status();
  } catch (const std::exception& e) {
    if (rethrow) throw;
    std::cerr << "prooflab: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace prooflab::harness
