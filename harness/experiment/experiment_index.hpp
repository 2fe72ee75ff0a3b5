// The records of an experiment directory, rewritten after every run so that an interrupted
// experiment keeps what it did:
//   index.csv        one row per measured run that has a directory (warm-ups left out), the
//                    analysis's input (docs/run-directory.md, "Experiment index")
//   experiment.json  the expanded plan (cells, arms with their configs, the ordered runs and
//                    their states), the seed, and one entry per session (command, git
//                    commit, start/end)
// Both are written to a temporary file and renamed, so a reader never sees half of one.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/experiment/experiment_schedule.hpp"

namespace prooflab::harness {

struct RunRecord {
  std::string status;     // complete | failed | interrupted; "" = not run (pending)
  double seconds = -1;    // wall time of the run (from an earlier session's record if it ran then)
  std::string error;      // what the executor threw, if it did
  bool executed = false;  // ran in this session
};

class ExperimentRecord {
 public:
  // Takes the earlier sessions and run times from an existing experiment.json. An unreadable
  // one (not JSON, or not the record's shape) throws naming the file, unless
  // rebuild_unreadable: then it is replaced and its history lost. `session` holds command,
  // git_commit, git_dirty.
  ExperimentRecord(const ExperimentPlan& plan, std::filesystem::path dir, nlohmann::json session,
                   bool rebuild_unreadable = false);

  RunRecord& run(std::size_t order) { return runs_.at(order); }
  const std::vector<RunRecord>& runs() const { return runs_; }
  void set_status(const std::string& status) { status_ = status; }
  // Rewrites index.csv and experiment.json.
  void write() const;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path index_path() const { return dir_ / "index.csv"; }

 private:
  const ExperimentPlan& plan_;
  std::filesystem::path dir_;
  nlohmann::json earlier_sessions_ = nlohmann::json::array();
  nlohmann::json session_;
  std::string status_ = "running";
  std::vector<RunRecord> runs_;
};

// index.csv's text: header `experiment,cell,variant,rep,order,run_dir,status,<columns>`, one
// row per measured run with a status, in schedule order.
std::string index_csv(const ExperimentPlan& plan, const std::vector<RunRecord>& runs);
nlohmann::json plan_json(const ExperimentPlan& plan);

}  // namespace prooflab::harness
