// Human-readable output of the experiment commands: the plan (`--dry-run`) and the closing
// lines that say where the index is and how to report it.
#pragma once

#include <cstdio>
#include <filesystem>
#include <vector>

#include "harness/experiment/experiment_resume.hpp"
#include "harness/experiment/experiment_runner.hpp"
#include "harness/experiment/experiment_schedule.hpp"

namespace prooflab::harness {

// The plan: settings, cells, variants, then every run in order with its directory and what
// is on disk for it (pending / complete / redo ...). on_disk is indexed by order.
void print_plan(const ExperimentPlan& plan, const std::filesystem::path& exp_dir,
                const std::vector<RunOnDisk>& on_disk, bool keep_failed, std::FILE* out);

void print_outcome(const ExperimentPlan& plan, const ExperimentOutcome& outcome, std::FILE* out);

}  // namespace prooflab::harness
