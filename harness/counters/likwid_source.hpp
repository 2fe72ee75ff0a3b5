// The `likwid` source: DRAM bandwidth from likwid's MEM group (metric `dram_bandwidth`,
// GB/s, summed over sockets), through prooflab-likwid-helper, a process of its own (see
// likwid_helper_main.cpp for why). The helper dlopens liblikwid (Debian package `likwid`),
// so neither the build nor a machine without likwid depends on it.
//
// Unavailable, with the helper's reason, when liblikwid is missing, when likwid does not
// know the CPU, when there is no MSR device (VMs, no msr driver), or when likwid fails or
// does not initialise within the timeout (its access daemon waits 10 s before giving up).
#pragma once

#include <sys/types.h>

#include <string>

#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

struct LikwidOptions {
  std::string helper;            // empty: $PROOFLAB_LIKWID_HELPER, else the one built with prooflab
  double init_timeout_s = 15.0;  // helper start-up, including likwid's own daemon timeout
  double sample_timeout_s = 1.0;  // one reading
  bool skip_preflight = false;    // tests: go on to perfmon_init despite the fast checks
};

// Path of the helper LikwidOptions{} runs.
std::string default_likwid_helper();

class LikwidSource final : public CounterSource {
 public:
  explicit LikwidSource(LikwidOptions opts = {}) : opts_(std::move(opts)) {}
  ~LikwidSource() override;
  const char* name() const override { return "likwid"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

 private:
  // Next line from the helper's stdout within timeout_s; "" on EOF/timeout (eof_ set on EOF).
  std::string read_line(double timeout_s);
  void drain_log();
  std::string log_tail() const;
  std::string end_helper();  // stops the helper; returns how it ended

  LikwidOptions opts_;
  SourceStatus status_;
  pid_t pid_ = -1;
  int to_helper_ = -1, from_helper_ = -1, log_ = -1;
  std::string pending_, log_text_;
  bool eof_ = false;
};

}  // namespace prooflab::harness::counters
