#include "core/engine/finalizer.hpp"

#include <algorithm>

namespace prooflab::engine {

void Finalizer::submit(std::function<void()> task) {
  {
    std::lock_guard lock(m_);
    peak_pending_ = std::max(peak_pending_, ++pending_);
  }
  pool_.submit([this, task = std::move(task)] {
    task();
    std::lock_guard lock(m_);
    if (--pending_ == 0) idle_.notify_all();
  });
}

void Finalizer::drain() {
  std::unique_lock lock(m_);
  idle_.wait(lock, [&] { return pending_ == 0; });
}

std::size_t Finalizer::pending() const {
  std::lock_guard lock(m_);
  return pending_;
}

std::size_t Finalizer::peak_pending() const {
  std::lock_guard lock(m_);
  return peak_pending_;
}

}  // namespace prooflab::engine
