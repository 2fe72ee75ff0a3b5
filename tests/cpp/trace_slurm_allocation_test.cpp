// run.json's `slurm` block from the variables slurmd sets.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/trace/slurm_allocation.hpp"

namespace prooflab::trace {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(SlurmAllocation, OutsideSlurmThereIsNone) {
  EXPECT_TRUE(slurm_allocation(env_of({})).is_null());
  EXPECT_TRUE(slurm_allocation(env_of({{"SLURMD_NODENAME", "n1"}})).is_null());
  EXPECT_TRUE(slurm_allocation(env_of({{"SLURM_JOB_ID", ""}})).is_null());
}

TEST(SlurmAllocation, ArrayTaskRecordsJobTaskAndNode) {
  const auto j = slurm_allocation(env_of({{"SLURM_JOB_ID", "1043"},
                                          {"SLURM_ARRAY_JOB_ID", "1040"},
                                          {"SLURM_ARRAY_TASK_ID", "3"},
                                          {"SLURMD_NODENAME", "gpu07"}}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"job_id":"1043","array_job_id":"1040",)"
                                     R"("array_task_id":"3","node":"gpu07"})"));
}

TEST(SlurmAllocation, PlainJobHasNoArrayKeys) {
  const auto j = slurm_allocation(env_of({{"SLURM_JOB_ID", "77"}, {"SLURMD_NODENAME", "n2"}}));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"job_id":"77","node":"n2"})"));
  EXPECT_TRUE(slurm_allocation(env_of({{"SLURM_JOB_ID", "77"}}))["node"].is_null());
}

}  // namespace
}  // namespace prooflab::trace
