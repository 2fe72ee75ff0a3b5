// The `host_memory` counter source: the host bytes the engine has charged to its budget
// (core/engine/host_memory_budget.hpp: each partition's a, b, c, witness and density as they
// are allocated and released), sampled like every other counter, so counters.csv holds the
// time series whose high-water mark is summary.json's peak_host_charged_bytes. The engine
// keeps the value current in an atomic the batch runner hands to both (CounterOptions::
// host_charged, EngineInputs::host_charged_gauge). Unavailable where no engine runs in this
// process (an external prover's run).
#pragma once

#include <atomic>
#include <cstdint>

#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

class HostMemorySource final : public CounterSource {
 public:
  explicit HostMemorySource(const std::atomic<std::uint64_t>* charged) : charged_(charged) {}
  const char* name() const override { return "host_memory"; }
  SourceStatus start(std::int64_t) override { return status(); }
  void sample(std::int64_t, std::vector<Reading>& out) override {
    out.push_back({"charged_bytes", static_cast<double>(charged_->load(std::memory_order_relaxed)), "B"});
  }
  SourceStatus status() const override {
    if (charged_ == nullptr)
      return SourceStatus::unavailable("no engine in this process: the charged host memory is the engine's own "
                                       "accounting (an external prover's memory is proc's rss_bytes)");
    return SourceStatus::available("the engine's charged host bytes (partition buffers against host_mem_budget)");
  }

 private:
  const std::atomic<std::uint64_t>* charged_;
};

}  // namespace prooflab::harness::counters
