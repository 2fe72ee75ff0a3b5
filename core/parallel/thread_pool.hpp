// The one thread-pool type of prooflab. It is always passed in as an argument (never a
// hidden global), because its size is an experimental knob: `gpu_threads` sizes the
// "groth16 pool" that b_g2_msm and prep_msm run on, `synth_threads` the synthesis pool.
//
// parallel_for lets the calling thread work too and claims chunks from a shared counter,
// so it is safe to call from inside a pool task (nested use never deadlocks: if every
// worker is busy the caller simply does all chunks itself).
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

class ThreadPool {
 public:
  // threads = 0 means one per hardware thread. A pool of size 1 has no workers: everything
  // runs on the calling thread (a pure serial baseline for benchmarks).
  explicit ThreadPool(unsigned threads = 0, std::string name = "pool");
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Total threads that work on a parallel_for: the workers plus the caller.
  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  const std::string& name() const { return name_; }

  // Calls fn(begin, end) over [0, n) split into chunks of at least min_chunk items, on the
  // workers and the calling thread; returns when all chunks are done. The first exception
  // thrown by a chunk is rethrown here (the remaining chunks still run).
  void parallel_for(std::size_t n, std::size_t min_chunk,
                    const std::function<void(std::size_t, std::size_t)>& fn);

  // Runs fn on a worker (on the caller when the pool has none) and returns its future.
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
