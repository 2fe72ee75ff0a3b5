#include "harness/counters/proc_source.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/counters/proc_text.hpp"

namespace prooflab::harness::counters {

ProcSource::Totals ProcSource::read_totals() const {
  Totals t;
  if (const auto text = read_small_file(root_ + "/interrupts")) t.tlb = parse_tlb_shootdowns(*text);
  if (const auto text = read_small_file(root_ + "/" + process_ + "/stat"))
    if (const auto f = parse_stat_faults(*text)) t.faults = f->minor + f->major;
  if (const auto text = read_small_file(root_ + "/" + process_ + "/statm"))
    if (const auto pages = parse_statm_resident_pages(*text))
      t.rss_bytes = *pages * static_cast<std::uint64_t>(page_size_);
  rusage ru{};
  if (pid_ == 0 && getrusage(RUSAGE_SELF, &ru) == 0)
    t.switches = static_cast<std::uint64_t>(ru.ru_nvcsw) + static_cast<std::uint64_t>(ru.ru_nivcsw);
  return t;
}

SourceStatus ProcSource::start(std::int64_t now_ns) {
  page_size_ = sysconf(_SC_PAGE_SIZE);
  if (!read_small_file(root_ + "/" + process_ + "/stat")) {
    status_ =
        SourceStatus::unavailable("cannot read " + root_ + "/" + process_ + "/stat: " + std::strerror(errno));
    return status_;
  }
  last_ = read_totals();
  last_ns_ = now_ns;
  std::string what;
  auto add = [&](bool ok, const char* metric, const char* from) {
    if (!ok) return;
    what += (what.empty() ? "" : ", ") + std::string(metric) + " (" + from + ")";
  };
  add(last_.tlb.has_value(), "tlb_shootdowns", "/proc/interrupts TLB row, all CPUs");
  const std::string stat = "/proc/" + process_ + "/stat minflt+majflt";
  const std::string statm = "/proc/" + process_ + "/statm";
  add(last_.faults.has_value(), "page_faults", stat.c_str());
  add(last_.switches.has_value(), "context_switches", "getrusage, all threads");
  add(last_.rss_bytes.has_value(), "rss_bytes", statm.c_str());
  if (pid_ != 0 && !what.empty()) what += "; no context_switches (not measured for another process)";
  if (what.empty()) {
    status_ = SourceStatus::unavailable(
        "none of /proc/interrupts, /proc/" + process_ + "/stat, /proc/" + process_ + "/statm parsed");
    return status_;
  }
  if (!last_.tlb) what += "; no TLB row in " + root_ + "/interrupts (not x86?): no tlb_shootdowns";
  status_ = SourceStatus::available(what);
  return status_;
}

void ProcSource::sample(std::int64_t now_ns, std::vector<Reading>& out) {
  const Totals now = read_totals();
  const double dt = static_cast<double>(now_ns - last_ns_) * 1e-9;
  // A counter that went backwards (e.g. a CPU's interrupt column vanished on hot-unplug)
  // gives no rate for this interval rather than a negative one.
  auto rate = [&](const std::optional<std::uint64_t>& a, const std::optional<std::uint64_t>& b,
                  const char* metric) {
    if (a && b && *a >= *b && dt > 0)
      out.push_back({metric, static_cast<double>(*a - *b) / dt, "1/s"});
  };
  rate(now.tlb, last_.tlb, "tlb_shootdowns");
  rate(now.faults, last_.faults, "page_faults");
  rate(now.switches, last_.switches, "context_switches");
  if (now.rss_bytes) out.push_back({"rss_bytes", static_cast<double>(*now.rss_bytes), "B"});
  last_ = now;
  last_ns_ = now_ns;
}

}  // namespace prooflab::harness::counters
