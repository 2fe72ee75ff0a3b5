#include "harness/experiment/command_spec.hpp"

namespace prooflab::harness {

std::vector<const CommandText*> CommandSpec::templates() const {
  std::vector<const CommandText*> out;
  for (const CommandText* t : {&setup, &ready_command, &ready_log, &run, &teardown})
    if (!t->empty()) out.push_back(t);
  for (const auto& l : logs) out.push_back(&l);
  for (const auto& v : versions) out.push_back(&v);
  if (!config.empty()) out.push_back(&config);
  return out;
}

const char* runner_keys() {
  return "kind, setup, ready_command, ready_log, ready_pattern, ready_timeout_s, run, "
         "run_timeout_s, teardown, teardown_timeout_s, logs, versions, config, partitions";
}

std::vector<std::string> builtin_placeholders(const CommandSpec& spec) {
  std::vector<std::string> out = {"count",      "concurrency", "run_dir", "run_id",
                                  "experiment", "cell",        "variant", "rep"};
  if (!spec.config.empty()) out.push_back("config");
  return out;
}

}  // namespace prooflab::harness
