#include "core/parallel/thread_pool.hpp"

#include <pthread.h>

#include "core/parallel/thread_cpu.hpp"

namespace prooflab::parallel {

namespace {
// The pool whose worker the current thread is (null elsewhere): tells nested use apart.
thread_local const ThreadPool* current_pool = nullptr;
}  // namespace

ThreadPool::ThreadPool(unsigned threads, std::string name) : name_(std::move(name)) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::ThreadPool(OnCaller, std::string name) : name_(std::move(name)) {}

bool ThreadPool::on_worker() const { return current_pool == this; }

double ThreadPool::cpu_seconds() const {
  double total = 0;
  // const_cast: native_handle is not const, and reading a thread's clock changes nothing.
  for (const std::thread& t : workers_) total += thread_cpu_seconds(const_cast<std::thread&>(t).native_handle());
  return total;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::enqueue(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void ThreadPool::worker_loop() {
  current_pool = this;
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

namespace {

// Shared by the caller and the helper jobs of one parallel_for; helpers that start after
// the loop finished find no chunk left and return without touching the caller's frame.
struct ForState {
  std::size_t n, chunk, chunks;
  std::function<void(std::size_t, std::size_t)> fn;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex mutex;
  std::condition_variable cv;
  std::exception_ptr error;

  void run_chunks() {
    for (;;) {
      const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) return;
      const std::size_t begin = c * chunk, end = std::min(n, begin + chunk);
      try {
        fn(begin, end);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
      }
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
        std::lock_guard lock(mutex);
        cv.notify_all();
      }
    }
  }
};

}  // namespace

void ThreadPool::parallel_for(std::size_t n, std::size_t min_chunk,
                              const std::function<void(std::size_t, std::size_t)>& fn) {
  if (n == 0) return;
  min_chunk = std::max<std::size_t>(1, min_chunk);
  const std::size_t threads = size();
  // A few chunks per thread balance uneven chunk costs without much claiming overhead.
  std::size_t chunk = std::max(min_chunk, (n + 4 * threads - 1) / (4 * threads));
  const std::size_t chunks = (n + chunk - 1) / chunk;
  const bool nested = on_worker();
  if (workers_.empty() || (nested && (chunks == 1 || workers_.size() == 1))) {
    fn(0, n);
    return;
  }
  auto state = std::make_shared<ForState>();
  state->n = n;
  state->chunk = chunk;
  state->chunks = chunks;
  state->fn = fn;
  // Outside callers only wait, so the pool's threads are the only ones doing the work.
  const std::size_t helpers =
      nested ? std::min(workers_.size() - 1, chunks - 1) : std::min(workers_.size(), chunks);
  for (std::size_t i = 0; i < helpers; ++i) enqueue([state] { state->run_chunks(); });
  if (nested) state->run_chunks();
  {
    std::unique_lock lock(state->mutex);
    state->cv.wait(lock, [&] { return state->done.load(std::memory_order_acquire) == chunks; });
  }
  if (state->error) std::rethrow_exception(state->error);
}

}  // namespace prooflab::parallel
