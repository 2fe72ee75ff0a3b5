// A planned run survives its JSON form (what a Slurm array task reads), and a damaged entry
// is an error that names where and which key.
#include <gtest/gtest.h>

#include "harness/experiment/planned_run.hpp"

namespace prooflab::harness {
namespace {

TEST(PlannedRun, JsonRoundTrip) {
  const PlannedRun warm{0, 2, 0, true, "n1024_tiny/baseline/warmup-0"};
  const PlannedRun rep{17, 5, 3, false, "n1024_porep-like/I1/3"};
  for (const auto& r : {warm, rep}) EXPECT_EQ(planned_run_from_json(planned_run_json(r), "x"), r);
  EXPECT_EQ(planned_run_json(rep),
            nlohmann::json::parse(R"({"order":17,"arm":5,"rep":3,"warmup":false,)"
                                  R"("run_dir":"n1024_porep-like/I1/3"})"));
}

std::string error_of(const nlohmann::json& j) {
  try {
    planned_run_from_json(j, "tasks-1.json: runs[2]");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(PlannedRun, DamagedEntriesNameTheKey) {
  auto good = planned_run_json({4, 1, 2, false, "c/v/2"});
  EXPECT_EQ(error_of(good), "");
  EXPECT_EQ(error_of(nlohmann::json::array()), "tasks-1.json: runs[2]: not a JSON object");
  auto j = good;
  j.erase("order");
  EXPECT_EQ(error_of(j), "tasks-1.json: runs[2]: key 'order' missing");
  j = good;
  j["arm"] = -1;
  EXPECT_EQ(error_of(j).rfind("tasks-1.json: runs[2]: key 'arm': -1 is not an integer", 0), 0u);
  j = good;
  j["rep"] = 1ull << 33;
  EXPECT_NE(error_of(j).find("key 'rep'"), std::string::npos);
  j = good;
  j["warmup"] = "no";
  EXPECT_NE(error_of(j).find("key 'warmup'"), std::string::npos);
  j = good;
  j["run_dir"] = "";
  EXPECT_NE(error_of(j).find("key 'run_dir'"), std::string::npos);
}

}  // namespace
}  // namespace prooflab::harness
