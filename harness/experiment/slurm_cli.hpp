// The Slurm commands the Slurm executor runs (sbatch, squeue, sacct) as argument vectors, and
// readers of their output. Pure text in, text out, so the formats are tested on output
// captured from a real slurmctld (tests/cpp/slurm_cli_test.cpp); harness/experiment/slurm_executor.cpp
// runs them.
//
// Formats read (Slurm 22.05; the fields are asked for by name, so later versions agree):
//   sbatch --parsable          "<job id>" or "<job id>;<cluster>"
//   squeue -h -r -o %F|%K|%T|%N|%r   one line per array task (-r: pending tasks one by one)
//   sacct -n -P -X -o JobID,State,ExitCode,NodeList,ElapsedRaw   one line per allocation;
//     JobID "<array job>_<task>"; tasks that never started share one line "<array job>_[4-9%2]"
//     (pending, or cancelled before they ran); State "CANCELLED by <uid>" for a cancelled job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace prooflab::harness {

class SlurmOutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What sbatch is asked for, beside the script (docs/slurm.md).
struct SlurmSubmitOptions {
  std::string partition, gres, time;  // empty: the cluster's default
  std::uint32_t array_parallel = 0;   // at most this many tasks at once (--array=...%N); 0: no cap
  std::string pin_node;               // every task on this node (--nodelist), "" to let Slurm pick
  std::vector<std::string> extra;     // further sbatch arguments, as given
};

// "0-<tasks-1>" or "0-<tasks-1>%<parallel>". tasks must be > 0.
std::string array_range(std::size_t tasks, std::uint32_t parallel);

// sbatch --parsable --array=... --job-name=NAME --output=OUTPUT [--partition ...] SCRIPT.
std::vector<std::string> sbatch_command(const SlurmSubmitOptions& o, std::size_t tasks,
                                        const std::string& job_name, const std::string& output,
                                        const std::string& script);
// The job id sbatch --parsable printed. Throws SlurmOutputError quoting the text otherwise.
std::string parse_sbatch_job_id(const std::string& out);

// One array task as squeue or sacct shows it.
struct SlurmTask {
  std::string array_job;   // the array's job id
  std::uint64_t task = 0;  // index in the array
  std::string state;       // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string node;        // "" while pending
  std::string detail;      // squeue: the reason it waits; sacct: the exit code "3:0"
  std::optional<std::uint64_t> elapsed_s;  // sacct only
};

// squeue of these jobs' tasks, each on its own line.
std::vector<std::string> squeue_command(const std::vector<std::string>& job_ids);
std::vector<SlurmTask> parse_squeue(const std::string& out);
// squeue -j of one job that slurmctld has forgotten (finished before MinJobAge) fails with
// "slurm_load_jobs error: Invalid job id specified" (of several, it prints nothing): the job
// has no task queued.
bool squeue_job_unknown(int exit_code, const std::string& err);

// sacct of these jobs' allocations (no steps).
std::vector<std::string> sacct_command(const std::vector<std::string>& job_ids);
// One entry per array task (a shared "12_[4-9]" line gives one per task in it); lines of jobs
// that are not arrays are left out.
std::vector<SlurmTask> parse_sacct(const std::string& out);

// Whether a state is one a task ends in (sacct's BOOT_FAIL, CANCELLED, COMPLETED, DEADLINE,
// FAILED, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, TIMEOUT). Just after a task leaves squeue,
// sacct may still show it PENDING or RUNNING: slurmctld reports to slurmdbd a moment later.
bool slurm_state_ended(const std::string& state);

// `text` quoted for /bin/sh.
std::string shell_quote(const std::string& text);
// The argument vector as one /bin/sh command line.
std::string shell_command(const std::vector<std::string>& argv);

}  // namespace prooflab::harness
