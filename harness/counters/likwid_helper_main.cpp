// prooflab-likwid-helper: runs likwid's MEM group for the `likwid` counter source in a
// process of its own. likwid is loaded with dlopen (the build does not depend on it), and it
// runs out of process because liblikwid ends the process on some failures: with its access
// daemon unable to start it waits 10 s and calls exit(), which inside prooflab would end
// the run.
//
// Protocol (one line each way): the helper prints "ok <metric name> <threads>" or
// "error <reason>" on stdout after initialising; then every "r" line on stdin is answered
// with "v <MB/s>" (the metric summed over the measured hardware threads) or "error <reason>";
// EOF on stdin stops the counters and ends the helper. `--skip-preflight` goes on to
// perfmon_init even when the fast checks failed (to test the parent's timeout path). Everything
// likwid prints goes to stderr, which the parent keeps for its reasons.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Likwid {
  void* lib = nullptr;
  int (*topology_init)() = nullptr;
  int (*numa_init)() = nullptr;
  void (*affinity_init)() = nullptr;
  void (*perfmon_init_maps)() = nullptr;
  int (*perfmon_init)(int, const int*) = nullptr;
  int (*perfmon_addEventSet)(const char*) = nullptr;
  int (*perfmon_setupCounters)(int) = nullptr;
  int (*perfmon_startCounters)() = nullptr;
  int (*perfmon_stopCounters)() = nullptr;
  int (*perfmon_readCounters)() = nullptr;
  int (*perfmon_getNumberOfMetrics)(int) = nullptr;
  char* (*perfmon_getMetricName)(int, int) = nullptr;
  double (*perfmon_getLastMetric)(int, int, int) = nullptr;
  void (*perfmon_finalize)() = nullptr;
};

FILE* g_proto = nullptr;

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(g_proto, "error %s\n", why.c_str());
  std::fflush(g_proto);
  std::_Exit(0);
}

template <class F>
void bind(Likwid& l, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(l.lib, name));
  if (!fn) fail(std::string("liblikwid lacks the symbol ") + name + " (a likwid other than 5.x?)");
}

// Runs fn with stderr captured; returns what it printed (and passes it on to stderr).
template <class F>
std::string capture_stderr(F&& fn) {
  int p[2];
  if (pipe(p) != 0) {
    fn();
    return "";
  }
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(p[1], 2);
  close(p[1]);
  fn();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  close(p[0]);
  std::fputs(text.c_str(), stderr);
  return text;
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // --skip-preflight: go on to perfmon_init despite the checks (tests of the failure path).
  const bool skip_preflight = argc > 1 && std::strcmp(argv[1], "--skip-preflight") == 0;
  // Keep the protocol on the original stdout; likwid's own printf output goes to stderr.
  const int proto_fd = dup(1);
  dup2(2, 1);
  g_proto = fdopen(proto_fd, "w");
  if (!g_proto) return 2;

  Likwid l;
  for (const char* name : {"liblikwid.so.5", "liblikwid.so"}) {
    l.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (l.lib) break;
  }
  if (!l.lib)
    fail(std::string("liblikwid not found (") + dlerror() +
         "); it comes with the Debian package likwid");
  bind(l, l.topology_init, "topology_init");
  bind(l, l.numa_init, "numa_init");
  bind(l, l.affinity_init, "affinity_init");
  bind(l, l.perfmon_init_maps, "perfmon_init_maps");
  bind(l, l.perfmon_init, "perfmon_init");
  bind(l, l.perfmon_addEventSet, "perfmon_addEventSet");
  bind(l, l.perfmon_setupCounters, "perfmon_setupCounters");
  bind(l, l.perfmon_startCounters, "perfmon_startCounters");
  bind(l, l.perfmon_stopCounters, "perfmon_stopCounters");
  bind(l, l.perfmon_readCounters, "perfmon_readCounters");
  bind(l, l.perfmon_getNumberOfMetrics, "perfmon_getNumberOfMetrics");
  bind(l, l.perfmon_getMetricName, "perfmon_getMetricName");
  bind(l, l.perfmon_getLastMetric, "perfmon_getLastMetric");
  bind(l, l.perfmon_finalize, "perfmon_finalize");

  if (const int r = l.topology_init(); r != 0)
    fail("likwid topology_init failed (" + std::to_string(r) + ")");
  l.numa_init();
  l.affinity_init();

  // Checks that fail fast, before perfmon_init (which can wait 10 s and exit): likwid's
  // table of supported CPUs, and the MSR device through which it (or its access daemon)
  // programs the memory-controller counters.
  std::vector<std::string> problems;
  const std::string maps = one_line(capture_stderr([&] { l.perfmon_init_maps(); }));
  if (maps.find("ERROR") != std::string::npos) problems.push_back("likwid: " + maps);
  struct stat st {};
  if (::stat("/dev/cpu/0/msr", &st) != 0)
    problems.push_back(std::string("no access to MSRs: /dev/cpu/0/msr: ") + std::strerror(errno) +
                       " (msr driver not loaded, or a VM that does not expose MSRs)");
  if (!problems.empty() && !skip_preflight) {
    std::string why;
    for (const auto& p : problems) why += (why.empty() ? "" : "; ") + p;
    fail(why);
  }

  // Every online hardware thread; likwid counts a socket's uncore on one of them and
  // reports 0 for the others, so the sum over threads is the machine's bandwidth.
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus(static_cast<std::size_t>(n > 0 ? n : 1));
  for (std::size_t i = 0; i < cpus.size(); ++i) cpus[i] = static_cast<int>(i);
  if (const int r = l.perfmon_init(static_cast<int>(cpus.size()), cpus.data()); r < 0)
    fail("likwid perfmon_init failed (" + std::to_string(r) + ")");
  const int gid = l.perfmon_addEventSet("MEM");
  if (gid < 0)
    fail("likwid has no MEM group on this CPU (perfmon_addEventSet: " + std::to_string(gid) + ")");
  int metric = -1;
  std::string names;
  for (int i = 0; i < l.perfmon_getNumberOfMetrics(gid); ++i) {
    const char* name = l.perfmon_getMetricName(gid, i);
    if (!name) continue;
    names += std::string(names.empty() ? "" : ", ") + name;
    if (metric < 0 && std::strstr(name, "Memory bandwidth")) metric = i;
  }
  if (metric < 0) fail("likwid's MEM group has no 'Memory bandwidth' metric (has: " + names + ")");
  if (const int r = l.perfmon_setupCounters(gid); r < 0)
    fail("likwid perfmon_setupCounters(MEM) failed (" + std::to_string(r) + ")");
  if (const int r = l.perfmon_startCounters(); r < 0)
    fail("likwid perfmon_startCounters failed (" + std::to_string(r) + ")");
  std::fprintf(g_proto, "ok %s|%zu\n", one_line(l.perfmon_getMetricName(gid, metric)).c_str(),
               cpus.size());
  std::fflush(g_proto);

  for (std::string line; std::getline(std::cin, line);) {
    if (line != "r") continue;
    if (const int r = l.perfmon_readCounters(); r < 0) {
      std::fprintf(g_proto, "error likwid perfmon_readCounters failed (%d)\n", r);
    } else {
      double mbytes_per_s = 0;
      for (std::size_t t = 0; t < cpus.size(); ++t)
        mbytes_per_s += l.perfmon_getLastMetric(gid, metric, static_cast<int>(t));
      std::fprintf(g_proto, "v %.6f\n", mbytes_per_s);
    }
    std::fflush(g_proto);
  }
  l.perfmon_stopCounters();
  l.perfmon_finalize();
  std::_Exit(0);
}
