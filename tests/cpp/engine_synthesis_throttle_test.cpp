// The synthesis throttle alone (core/engine/synthesis_throttle.hpp): while a b_g2_msm runs,
// synthesis's hook does not return; THROTTLE_ON/OFF bracket the b_g2_msm runs, once for
// overlapping ones; with the throttle off there is no hook and no event. Expectations come
// from the recorded order of events.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/synthesis_throttle.hpp"
#include "engine_timeline_util.hpp"

namespace prooflab::engine {
namespace {

namespace fs = std::filesystem;

fs::path timeline_path(const char* name) {
  return fs::temp_directory_path() / ("prooflab_throttle_" + std::string(name) + std::to_string(::getpid()) + ".csv");
}

std::vector<std::string> events(const fs::path& p) {
  std::vector<std::string> out;
  for (const auto& r : test::read_timeline(p)) out.push_back(r.event);
  fs::remove(p);
  return out;
}

TEST(SynthesisThrottle, OffGivesNoHookAndNoEvents) {
  const auto path = timeline_path("off");
  {
    trace::TimelineRecorder tl(path);
    SynthesisThrottle throttle(false, tl);
    EXPECT_EQ(throttle.hook(), nullptr);
    const SynthesisThrottle::Running running(throttle);
  }
  EXPECT_TRUE(events(path).empty());
}

TEST(SynthesisThrottle, OverlappingRunsAreBracketedOnce) {
  const auto path = timeline_path("on");
  {
    trace::TimelineRecorder tl(path);
    SynthesisThrottle throttle(true, tl);
    std::optional<SynthesisThrottle::Running> first(std::in_place, throttle);
    {
      const SynthesisThrottle::Running second(throttle);
      tl.record(trace::Event::kBG2MsmEnd);  // marks: the second ends, the first still runs
    }
    tl.record(trace::Event::kBG2MsmEnd);
    first.reset();
  }
  EXPECT_EQ(events(path), (std::vector<std::string>{"THROTTLE_ON", "B_G2_MSM_END", "B_G2_MSM_END", "THROTTLE_OFF"}));
}

TEST(SynthesisThrottle, SynthesisWaitsWhileAB2G2MsmRuns) {
  const auto path = timeline_path("wait");
  trace::TimelineRecorder tl(path);
  SynthesisThrottle throttle(true, tl);
  ASSERT_NE(throttle.hook(), nullptr);
  std::mutex m;
  std::vector<std::string> order;
  auto note = [&](const char* what) {
    std::lock_guard lock(m);
    order.emplace_back(what);
  };
  std::optional<SynthesisThrottle::Running> running(std::in_place, throttle);
  std::thread synthesis([&] {
    throttle.hook()->between_chunks();
    note("synthesis went on");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // room to go on, were it allowed
  note("b_g2_msm ends");
  running.reset();
  synthesis.join();
  EXPECT_EQ(order, (std::vector<std::string>{"b_g2_msm ends", "synthesis went on"}));
  throttle.hook()->between_chunks();  // nothing runs: returns at once
  tl.close();
  fs::remove(path);
}

}  // namespace
}  // namespace prooflab::engine
