// What a planned run's directory holds already, so that re-running an experiment skips the
// runs that finished and redoes the rest. A run counts as done only when its run.json says
// "complete" (written last, by rename, after summary.json) and was made with the planned
// config; a run.json left at "running" (the process was killed) or "interrupted" or
// "failed" is redone.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace prooflab::harness {

struct RunOnDisk {
  // "" when there is no run.json; else its status (complete | failed | interrupted |
  // running), or "unreadable".
  std::string status;
  // "key: <there> there, <planned> planned" for each knob recorded with another value.
  std::vector<std::string> differences;

  bool exists() const { return !status.empty(); }
  bool complete() const { return status == "complete"; }
  // A finished run of another configuration: the experiment changed since it ran.
  bool conflicts() const { return complete() && !differences.empty(); }
};

// planned: the config run.json would record (Arm::recorded_config).
RunOnDisk inspect_run_dir(const std::filesystem::path& dir, const nlohmann::json& planned);

// The index's status for a run.json status: complete | failed | interrupted (a run left
// "running" or unreadable was killed).
std::string index_status(const std::string& run_status);

}  // namespace prooflab::harness
