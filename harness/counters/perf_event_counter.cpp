#include "harness/counters/perf_event_counter.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/counters/proc_text.hpp"

namespace prooflab::harness::counters {

int open_perf_event(const PmuEvent& ev, int cpu, std::string* why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = ev.type;
  attr.config = ev.config[0];
  attr.config1 = ev.config[1];
  attr.config2 = ev.config[2];
  const long fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) return static_cast<int>(fd);
  const int err = errno;
  *why = "perf_event_open(" + ev.pmu + "/" + ev.event + "/, cpu " + std::to_string(cpu) +
         ") failed: " + std::strerror(err) + " (errno " + std::to_string(err) + ")";
  if (err == EACCES || err == EPERM) {
    const auto paranoid = read_small_file("/proc/sys/kernel/perf_event_paranoid");
    if (paranoid)
      *why += "; kernel.perf_event_paranoid=" +
              std::string(paranoid->substr(0, paranoid->find('\n'))) +
              " (system-wide events need <= 0 or CAP_PERFMON)";
  }
  return -1;
}

bool KernelPerfCounters::read(int handle, std::uint64_t& count) {
  return ::read(handle, &count, sizeof count) == static_cast<ssize_t>(sizeof count);
}

void KernelPerfCounters::close(int handle) { ::close(handle); }

}  // namespace prooflab::harness::counters
