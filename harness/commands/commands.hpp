// Each `prooflab` subcommand registers itself on the CLI11 app and runs when selected.
#pragma once

#include <CLI/CLI.hpp>

namespace prooflab::harness {

void add_demo_command(CLI::App& app);
void add_devices_command(CLI::App& app);
void add_knobs_command(CLI::App& app);
void add_setup_command(CLI::App& app);
void add_prove_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_batch_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_matrix_command(CLI::App& app);
void add_slurm_task_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_workload_command(CLI::App& app);
void add_regress_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_gpu_phase_command(CLI::App& app);

}  // namespace prooflab::harness
