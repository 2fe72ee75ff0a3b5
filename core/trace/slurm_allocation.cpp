#include "core/trace/slurm_allocation.hpp"

#include <cstdlib>

namespace prooflab::trace {

nlohmann::json slurm_allocation(const EnvLookup& env) {
  const char* job = env("SLURM_JOB_ID");
  if (job == nullptr || *job == '\0') return nullptr;
  nlohmann::json out = {{"job_id", job}};
  const char* array_job = env("SLURM_ARRAY_JOB_ID");
  const char* task = env("SLURM_ARRAY_TASK_ID");
  if (array_job && *array_job && task && *task) {
    out["array_job_id"] = array_job;
    out["array_task_id"] = task;
  }
  const char* node = env("SLURMD_NODENAME");
  out["node"] = node && *node ? nlohmann::json(node) : nlohmann::json(nullptr);
  return out;
}

nlohmann::json slurm_allocation() {
  return slurm_allocation([](const char* name) { return std::getenv(name); });
}

}  // namespace prooflab::trace
