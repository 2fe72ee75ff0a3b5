// The one thread-pool type of prooflab. It is always passed in as an argument (never a
// hidden global), because its size is an experimental knob: `gpu_threads` sizes the
// "groth16 pool" that b_g2_msm runs on, `synth_threads` the synthesis pool.
//
// A pool of n threads means exactly n threads do its work, whoever calls it: submit() runs
// the task on a worker, never on the caller; parallel_for called from outside the pool
// hands every chunk to the workers and waits, and called from inside a pool task (nested
// use) the calling worker takes chunks too, with at most n - 1 others. Nested use never
// deadlocks: if every other worker is busy the calling worker does all chunks itself.
// Where a measurement wants the work on the calling thread (instruction counts, the
// calling thread's CPU clock), construct the pool with kOnCaller: it has no threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace prooflab::parallel {

// Tag for a pool without threads of its own: all its work runs on the thread that calls it.
struct OnCaller {};
inline constexpr OnCaller kOnCaller{};

class ThreadPool {
 public:
  // `threads` worker threads; 0 means one per hardware thread. Workers carry `name` as
  // their OS thread name (first 15 characters), so top, perf and tests can tell pools apart.
  explicit ThreadPool(unsigned threads = 0, std::string name = "pool");
  ThreadPool(OnCaller, std::string name);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that do the pool's work: its workers, or 1 (the caller) for a kOnCaller pool.
  unsigned size() const { return workers_.empty() ? 1u : static_cast<unsigned>(workers_.size()); }
  const std::string& name() const { return name_; }
  // True on one of this pool's worker threads.
  bool on_worker() const;
  // CPU seconds its workers have used since they started (thread_cpu.hpp; one clock read per
  // worker). 0 for a kOnCaller pool: its work is on its callers' clocks.
  double cpu_seconds() const;

  // Calls fn(begin, end) over [0, n) split into chunks of at least min_chunk items, on the
  // pool's threads (see the header comment); returns when all chunks are done. The first
  // exception thrown by a chunk is rethrown here (the remaining chunks still run).
  void parallel_for(std::size_t n, std::size_t min_chunk,
                    const std::function<void(std::size_t, std::size_t)>& fn);

  // Runs fn on a worker (on the caller for a kOnCaller pool) and returns its future.
  template <class Fn>
  auto submit(Fn&& fn) -> std::future<decltype(fn())> {
    using R = decltype(fn());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<Fn>(fn));
    auto fut = task->get_future();
    if (workers_.empty()) {
      (*task)();
    } else {
      enqueue([task] { (*task)(); });
    }
    return fut;
  }

 private:
  void enqueue(std::function<void()> job);
  void worker_loop();

  std::string name_;
  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> queue_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace prooflab::parallel
