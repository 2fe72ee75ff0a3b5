// A run directory (docs/run-directory.md): run.json written at the start with status
// "running" and rewritten at the end, stages.csv appended one row per partition,
// proofs/ for the proof bundles, summary.json written last. A run that is killed keeps
// every row already written; its run.json still says "running", which readers treat as
// interrupted. SIGINT/SIGTERM are caught by the harness and end the run as "interrupted".
// On a full disk every file keeps what it held before the fault: stages.csv complete rows
// (RowFile), JSON files whole or unchanged (io::write_file_atomically), and the run ends
// "failed" with the reason in run.json's "error".
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/trace/row_file.hpp"
#include "core/trace/stages_csv.hpp"

namespace prooflab::trace {

// The host as run.json describes it.
nlohmann::json host_info();
std::string iso8601_now();

class RunDirectory {
 public:
  // Creates dir (and proofs/), writes run.json with status "running". metadata holds
  // run_id, git_commit, git_dirty, command, config, gpu, counters.
  RunDirectory(std::filesystem::path dir, nlohmann::json metadata);
  ~RunDirectory();

  const std::filesystem::path& path() const { return dir_; }
  std::filesystem::path timeline_path() const { return dir_ / "timeline.csv"; }
  std::filesystem::path proofs_dir() const { return dir_ / "proofs"; }

  // A row that cannot be written is counted, not thrown (it runs on dealloc threads):
  // stages_error() says so and the run must end failed.
  void append_stage_row(const StageRow& row);
  std::string stages_error();
  // Sets one top-level key of run.json and rewrites it (e.g. `counters` once the counter
  // sources have started); finish() keeps it.
  void set_metadata(const std::string& key, const nlohmann::json& value);
  // Writes summary.json (unless null), then run.json with the final status and end time
  // (last: a run reads as finished only once both are there). What could not be written
  // (`errors`, plus a summary.json that fails here, which is appended to them) turns the
  // status into "failed" and goes into run.json's "error". Returns the status recorded;
  // throws when not even run.json can be rewritten (it then still says "running", which
  // readers take as interrupted).
  std::string finish(const std::string& status, const nlohmann::json& summary,
                     std::vector<std::string>* errors = nullptr);

 private:
  void write_run_json();

  std::filesystem::path dir_;
  nlohmann::json meta_;
  std::mutex mutex_;
  std::unique_ptr<RowFile> stages_;
};

}  // namespace prooflab::trace
