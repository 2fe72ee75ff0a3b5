// A pool of n threads means exactly n threads doing its work (issue 16, item 1): the old
// pool started n - 1 workers and ran a pool of 1 on the caller, so `gpu_threads = 1` ran
// b_g2_msm on the GPU worker and every `gpu_threads = N` gave N - 1 threads.
//
// Each chunk below waits until `expected` distinct threads have entered a chunk (or a
// timeout passes), so a pool with fewer threads cannot finish with `expected` of them and
// a pool with more would show more: the count is exact, not a lower bound by luck.
#include <gtest/gtest.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <future>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel/thread_pool.hpp"

namespace {

using prooflab::parallel::kOnCaller;
using prooflab::parallel::ThreadPool;

// Records the threads that run chunks; each chunk holds its thread until `expected`
// distinct threads have arrived, at most `patience`.
class ThreadCensus {
 public:
  explicit ThreadCensus(std::size_t expected) : expected_(expected) {}
  void arrive() {
    std::unique_lock lock(m_);
    seen_.insert(std::this_thread::get_id());
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::seconds(3), [&] { return seen_.size() >= expected_; });
  }
  std::set<std::thread::id> seen() {
    std::lock_guard lock(m_);
    return seen_;
  }

 private:
  std::size_t expected_;
  std::mutex m_;
  std::condition_variable cv_;
  std::set<std::thread::id> seen_;
};

// parallel_for over 4n items of chunk 1: at least n chunks, so n threads can each hold one.
std::set<std::thread::id> threads_of_parallel_for(ThreadPool& pool, unsigned n) {
  ThreadCensus census(n);
  pool.parallel_for(4 * n, 1, [&](std::size_t, std::size_t) { census.arrive(); });
  return census.seen();
}

class PoolOfN : public ::testing::TestWithParam<unsigned> {};

TEST_P(PoolOfN, ParallelForFromOutsideRunsOnExactlyNPoolThreadsNeverTheCaller) {
  const unsigned n = GetParam();
  ThreadPool pool(n, "census");
  EXPECT_EQ(pool.size(), n);
  const auto seen = threads_of_parallel_for(pool, n);
  EXPECT_EQ(seen.size(), n);
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 0u) << "the caller did pool work";
}

// The engine's b_g2_msm shape: a task submitted to the pool runs a parallel_for on the
// same pool. Both old faults show here: n = 1 ran the task on the caller, n > 1 had n - 1.
TEST_P(PoolOfN, SubmittedTaskWithNestedParallelForUsesExactlyNThreads) {
  const unsigned n = GetParam();
  ThreadPool pool(n, "census");
  const auto caller = std::this_thread::get_id();
  auto fut = pool.submit([&] {
    EXPECT_TRUE(pool.on_worker());
    auto seen = threads_of_parallel_for(pool, n);
    seen.insert(std::this_thread::get_id());  // the task's own thread ran b_g2_msm too
    return seen;
  });
  const auto seen = fut.get();
  EXPECT_EQ(seen.size(), n);
  EXPECT_EQ(seen.count(caller), 0u) << "the submitted task ran on the caller";
}

INSTANTIATE_TEST_SUITE_P(Sizes, PoolOfN, ::testing::Values(1u, 2u, 3u, 5u));

TEST(ThreadPool, ZeroMeansOneWorkerPerHardwareThread) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.size(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(ThreadPool, WorkersCarryThePoolNameAsTheirThreadName) {
  ThreadPool pool(2, "groth16-with-a-long-name");
  const std::string name = pool.submit([] {
                                 char buf[16] = {};
                                 pthread_getname_np(pthread_self(), buf, sizeof buf);
                                 return std::string(buf);
                               }).get();
  EXPECT_EQ(name, std::string("groth16-with-a-long-name").substr(0, 15));
}

TEST(ThreadPool, OnCallerPoolRunsEverythingOnTheCallingThread) {
  ThreadPool pool(kOnCaller, "serial");
  EXPECT_EQ(pool.size(), 1u);
  const auto caller = std::this_thread::get_id();
  std::set<std::thread::id> seen;
  pool.parallel_for(100, 1, [&](std::size_t, std::size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{caller});
  EXPECT_EQ(pool.submit([] { return std::this_thread::get_id(); }).get(), caller);
}

TEST(ThreadPool, EveryItemRunsOnceAndChunkErrorsReachTheCaller) {
  ThreadPool pool(3);
  std::vector<int> hits(10007, 0);
  pool.parallel_for(hits.size(), 16, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) ++hits[i];
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<long>(hits.size()));
  EXPECT_THROW(pool.parallel_for(64, 1,
                                 [](std::size_t b, std::size_t e) {
                                   if (b <= 17 && 17 < e) throw std::runtime_error("item 17");
                                 }),
               std::runtime_error);
}

// Every worker busy in a task that nests a parallel_for: each must finish on its own.
TEST(ThreadPool, NestedParallelForWithAllWorkersBusyCompletes) {
  ThreadPool pool(2);
  std::vector<std::future<std::size_t>> tasks;
  for (int t = 0; t < 4; ++t)
    tasks.push_back(pool.submit([&] {
      std::atomic<std::size_t> sum{0};
      pool.parallel_for(1000, 1, [&](std::size_t b, std::size_t e) { sum += e - b; });
      return sum.load();
    }));
  for (auto& f : tasks) EXPECT_EQ(f.get(), 1000u);
}

}  // namespace
