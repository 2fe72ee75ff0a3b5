// CPU time of threads (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid): what a pool or an
// engine thread has used, so that the pipeline model can measure each pool stage's effective
// threads (CPU time / wall time) instead of fitting them (docs/model.md). Read at the end of
// a thread's life or of a run, never per task: each read is one clock_gettime.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

namespace prooflab::parallel {

// CPU seconds the calling thread has used so far.
double this_thread_cpu_seconds();
// CPU seconds a live thread of this process has used so far. Throws std::system_error when
// its clock cannot be read (the thread has ended).
double thread_cpu_seconds(pthread_t thread);

// CPU seconds of threads summed as each one ends (add_this_thread, its last call).
class CpuTally {
 public:
  void add_this_thread() { ns_.fetch_add(static_cast<std::int64_t>(this_thread_cpu_seconds() * 1e9)); }
  double seconds() const { return static_cast<double>(ns_.load()) / 1e9; }

 private:
  std::atomic<std::int64_t> ns_{0};
};

}  // namespace prooflab::parallel
