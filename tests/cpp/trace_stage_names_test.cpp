// The GPU sub-stage names a backend reports (core/trace/stage_listener.hpp gpu_substage):
// the three known ones map to their stages; any other name is an error that quotes it.
// (Before, the engine counted every unknown name as tail_msm.)
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/trace/stage_listener.hpp"

namespace prooflab::trace {
namespace {

TEST(GpuSubstage, TheThreeNamesMapToTheirStages) {
  EXPECT_EQ(gpu_substage("ntt_h"), Stage::kNttH);
  EXPECT_EQ(gpu_substage("batch_add"), Stage::kBatchAdd);
  EXPECT_EQ(gpu_substage("tail_msm"), Stage::kTailMsm);
}

TEST(GpuSubstage, AnyOtherNameIsAnErrorQuotingIt) {
  for (const char* bad : {"tail", "TAIL_MSM", "", "b_g2_msm", "gpu_phase"}) {
    try {
      gpu_substage(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("ntt_h, batch_add, tail_msm"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace prooflab::trace
