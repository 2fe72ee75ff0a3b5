// The split-finalize task runner (core/engine/finalizer.hpp): tasks run off the submitting
// thread, in order on one thread, and drain() waits for all of them.
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/finalizer.hpp"

namespace {

TEST(Finalizer, RunsTasksOffTheCallerAndDrainWaitsForAll) {
  prooflab::engine::Finalizer finalizer(1);
  std::mutex m;
  std::vector<int> order;
  std::vector<std::string> threads;
  for (int i = 0; i < 5; ++i)
    finalizer.submit([&, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof name);
      std::lock_guard lock(m);
      order.push_back(i);
      threads.emplace_back(name);
    });
  // submit() returned at once: the tasks take 25 ms between them.
  EXPECT_GE(finalizer.pending(), 4u);
  finalizer.drain();
  EXPECT_EQ(finalizer.pending(), 0u);
  EXPECT_EQ(finalizer.peak_pending(), 5u);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const auto& t : threads) EXPECT_EQ(t, "finalizer");
}

}  // namespace
