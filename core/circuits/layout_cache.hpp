// Layouts (the structure a circuit picks for a target size) are found by counting dry runs;
// the engine makes one circuit per partition, so the result is kept per target.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

namespace prooflab::circuits {

template <class Layout>
class LayoutCache {
 public:
  template <class Compute>
  Layout get(std::uint64_t target, Compute&& compute) {
    {
      std::lock_guard lock(mutex_);
      if (auto it = cache_.find(target); it != cache_.end()) return it->second;
    }
    Layout layout = compute(target);  // outside the lock: may take a while, may throw
    std::lock_guard lock(mutex_);
    return cache_.emplace(target, layout).first->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::uint64_t, Layout> cache_;
};

}  // namespace prooflab::circuits
