// Where a finished partition's host buffers are freed (docs/engine.md "Host memory and
// dealloc"; config key dealloc_policy), chosen once from the config (make_deallocator):
//   inline      on the calling thread, before run() returns;
//   async       on a detached thread of its own, concurrently with every other free (the
//               reference's async dealloc: concurrent munmap()s, TLB-shootdown storms);
//   serialized  detached too, but one free at a time (intervention I1, one `dealloc` mutex).
// Each is tested alone in tests/cpp/engine_deallocator_test.cpp.
#pragma once

#include <functional>
#include <memory>

#include "core/engine/config.hpp"

namespace prooflab::engine {

class Deallocator {
 public:
  virtual ~Deallocator() = default;
  // Runs `free_partition` (it must not throw) as the policy says.
  virtual void run(std::function<void()> free_partition) = 0;
  // Waits until every free started so far has finished.
  virtual void drain() = 0;
};

std::unique_ptr<Deallocator> make_deallocator(DeallocPolicy policy);

}  // namespace prooflab::engine
