// The dealloc policies alone (core/engine/deallocator.hpp). Each free records when it begins
// and ends; the expectations come from that order: inline runs on the caller before run()
// returns, async lets frees run at once, serialized never has two at once, and drain() waits
// for every free.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/engine/deallocator.hpp"

namespace prooflab::engine {
namespace {

using namespace std::chrono_literals;

struct Recorder {
  std::mutex m;
  std::vector<int> order;  // +i: free i began, -i: it ended (i from 1)
  void add(int v) {
    std::lock_guard lock(m);
    order.push_back(v);
  }
  // The most frees between their begin and end at once.
  int most_at_once() {
    std::lock_guard lock(m);
    int now = 0, most = 0;
    for (int v : order) most = std::max(most, now += v > 0 ? 1 : -1);
    return most;
  }
};

TEST(InlineDeallocator, FreesOnTheCallerBeforeRunReturns) {
  const auto d = make_deallocator(DeallocPolicy::kInline);
  Recorder r;
  std::thread::id ran_on;
  d->run([&] {
    ran_on = std::this_thread::get_id();
    r.add(1);
    r.add(-1);
  });
  r.add(2);  // after run() returned
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(r.order, (std::vector<int>{1, -1, 2}));
  d->drain();
}

TEST(AsyncDeallocator, FreesRunAtOnceOffTheCaller) {
  const auto d = make_deallocator(DeallocPolicy::kAsync);
  Recorder r;
  // The first free ends only once the second has begun, and the second begins only once the
  // first has: both at once, whichever thread the scheduler starts first (on a loaded host
  // the second could otherwise run to its end before the first began).
  std::promise<void> first_began, second_began;
  auto first_began_f = first_began.get_future();
  auto second_began_f = second_began.get_future();
  std::atomic<bool> waited_in_vain{false};
  std::thread::id caller = std::this_thread::get_id(), first_on;
  d->run([&] {
    first_on = std::this_thread::get_id();
    r.add(1);
    first_began.set_value();
    if (second_began_f.wait_for(10s) != std::future_status::ready) waited_in_vain = true;
    r.add(-1);
  });
  d->run([&] {
    if (first_began_f.wait_for(10s) != std::future_status::ready) waited_in_vain = true;
    r.add(2);
    second_began.set_value();
    r.add(-2);
  });
  d->drain();
  EXPECT_FALSE(waited_in_vain) << "the second free did not start while the first ran";
  EXPECT_NE(first_on, caller);
  EXPECT_EQ(r.most_at_once(), 2);
  EXPECT_EQ(r.order.size(), 4u) << "drain() returned before every free ended";
}

TEST(SerializedDeallocator, NeverTwoAtOnceAndDrainWaitsForAll) {
  const auto d = make_deallocator(DeallocPolicy::kSerialized);
  Recorder r;
  constexpr int kFrees = 16;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> on_caller{0};
  for (int i = 1; i <= kFrees; ++i)
    d->run([&, i] {
      if (std::this_thread::get_id() == caller) ++on_caller;
      r.add(i);
      std::this_thread::sleep_for(1ms);  // room for a second free to slip in, were it allowed
      r.add(-i);
    });
  d->drain();
  EXPECT_EQ(on_caller, 0);
  ASSERT_EQ(r.order.size(), 2u * kFrees) << "drain() returned before every free ended";
  EXPECT_EQ(r.most_at_once(), 1);
  for (std::size_t k = 0; k < r.order.size(); k += 2) EXPECT_EQ(r.order[k], -r.order[k + 1]);
}

}  // namespace
}  // namespace prooflab::engine
