// Per-thread and per-pool CPU time (core/parallel/thread_cpu.hpp, ThreadPool::cpu_seconds):
// the engine's summary.json cpu_seconds_by_pool is made of these, and the model divides them
// by stage wall time to get each pool stage's effective threads (issue 20).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "core/parallel/thread_cpu.hpp"
#include "core/parallel/thread_pool.hpp"

namespace {

using namespace prooflab::parallel;

// Spins until the calling thread has used `seconds` of CPU; returns what it used.
double spin_for_cpu(double seconds) {
  const double t0 = this_thread_cpu_seconds();
  double used = 0;
  while ((used = this_thread_cpu_seconds() - t0) < seconds) {
  }
  return used;
}

// A pool's CPU time is its tasks' CPU time: at least what each task measured on its own
// thread's clock, and at most that plus the little the workers spend taking tasks.
TEST(ThreadCpu, BusyPoolReportsItsTasksCpuTime) {
  ThreadPool pool(3, "busy");
  const double before = pool.cpu_seconds();
  std::vector<std::future<double>> tasks;
  for (int i = 0; i < 6; ++i) tasks.push_back(pool.submit([] { return spin_for_cpu(0.05); }));
  double measured = 0;
  for (auto& t : tasks) measured += t.get();
  const double pool_cpu = pool.cpu_seconds() - before;
  EXPECT_GE(measured, 6 * 0.05);
  EXPECT_GE(pool_cpu, measured);
  EXPECT_LE(pool_cpu, measured + 0.02);
}

// Waiting workers and sleeping tasks use no CPU.
TEST(ThreadCpu, IdleOrSleepingPoolReportsAboutZero) {
  ThreadPool pool(4, "idle");
  const double before = pool.cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pool.submit([] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }).get();
  EXPECT_LT(pool.cpu_seconds(), 0.01);
  EXPECT_LT(pool.cpu_seconds() - before, 0.005);
}

// A pool without threads counts nothing: its work is on its callers' clocks.
TEST(ThreadCpu, OnCallerPoolReportsZero) {
  ThreadPool pool(kOnCaller, "caller");
  pool.submit([] { spin_for_cpu(0.02); }).get();
  EXPECT_EQ(pool.cpu_seconds(), 0.0);
}

// Threads that add themselves as they end: the tally is their summed CPU time.
TEST(ThreadCpu, TallySumsThreadsAsTheyEnd) {
  CpuTally tally;
  std::vector<double> used(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      used[i] = spin_for_cpu(0.03);
      tally.add_this_thread();
    });
  for (auto& t : threads) t.join();
  const double measured = used[0] + used[1] + used[2];
  EXPECT_GE(tally.seconds(), measured - 1e-9);  // the tally's ns rounding
  EXPECT_LE(tally.seconds(), measured + 0.01);
}

// Another live thread's clock, read from outside, agrees with its own.
TEST(ThreadCpu, AnotherThreadsClockAgreesWithItsOwn) {
  std::promise<double> own;
  std::promise<void> release;
  std::thread t([&] {
    spin_for_cpu(0.03);
    own.set_value(this_thread_cpu_seconds());
    release.get_future().wait();
  });
  const double inside = own.get_future().get();
  const double outside = thread_cpu_seconds(t.native_handle());
  release.set_value();
  t.join();
  EXPECT_GE(outside, inside);
  EXPECT_LE(outside, inside + 0.01);
}

}  // namespace
