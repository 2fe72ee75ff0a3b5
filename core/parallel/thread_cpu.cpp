#include "core/parallel/thread_cpu.hpp"

#include <time.h>

#include <system_error>

namespace prooflab::parallel {
namespace {

double clock_seconds(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) throw std::system_error(errno, std::generic_category(), "clock_gettime");
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

double this_thread_cpu_seconds() { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

double thread_cpu_seconds(pthread_t thread) {
  clockid_t clock{};
  if (const int err = pthread_getcpuclockid(thread, &clock); err != 0)
    throw std::system_error(err, std::generic_category(), "pthread_getcpuclockid");
  return clock_seconds(clock);
}

}  // namespace prooflab::parallel
