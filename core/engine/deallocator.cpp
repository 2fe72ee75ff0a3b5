#include "core/engine/deallocator.hpp"

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace prooflab::engine {
namespace {

class InlineDeallocator final : public Deallocator {
 public:
  void run(std::function<void()> free_partition) override { free_partition(); }
  void drain() override {}
};

// A detached thread per free: the reference frees on a thread of its own per partition, and
// the TIMELINE's rings are per thread (core/trace/timeline.hpp frees the ring of a thread
// that has exited).
class AsyncDeallocator : public Deallocator {
 public:
  ~AsyncDeallocator() override { drain(); }

  void run(std::function<void()> free_partition) override {
    {
      std::lock_guard lock(count_mutex_);
      ++in_flight_;
    }
    std::thread([this, f = std::move(free_partition)] {
      free_on_this_thread(f);
      std::lock_guard lock(count_mutex_);
      if (--in_flight_ == 0) idle_.notify_all();
    }).detach();
  }

  void drain() override {
    std::unique_lock lock(count_mutex_);
    idle_.wait(lock, [&] { return in_flight_ == 0; });
  }

 protected:
  virtual void free_on_this_thread(const std::function<void()>& f) { f(); }

 private:
  std::mutex count_mutex_;
  std::condition_variable idle_;
  int in_flight_ = 0;
};

class SerializedDeallocator final : public AsyncDeallocator {
 public:
  ~SerializedDeallocator() override { drain(); }  // before serial_ goes

 protected:
  void free_on_this_thread(const std::function<void()>& f) override {
    std::lock_guard one_at_a_time(serial_);
    f();
  }

 private:
  std::mutex serial_;
};

}  // namespace

std::unique_ptr<Deallocator> make_deallocator(DeallocPolicy policy) {
  switch (policy) {
    case DeallocPolicy::kInline:
      return std::make_unique<InlineDeallocator>();
    case DeallocPolicy::kAsync:
      return std::make_unique<AsyncDeallocator>();
    case DeallocPolicy::kSerialized:
      return std::make_unique<SerializedDeallocator>();
  }
  throw std::logic_error("make_deallocator: unknown dealloc policy");
}

}  // namespace prooflab::engine
