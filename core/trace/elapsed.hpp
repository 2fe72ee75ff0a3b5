// Wall time since a point on the steady clock, in seconds: the one helper every stage timer,
// progress line and benchmark of the project uses.
#pragma once

#include <chrono>

namespace prooflab::trace {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace prooflab::trace
