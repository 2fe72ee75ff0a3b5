// The `probe` source: a software memory-bandwidth probe for machines without PMU access.
// Every sample it reads and writes `bytes` of a private ring buffer on the sampler thread
// and reports the GB/s it achieved (metric `bandwidth`). Alone on an idle machine that is
// the single-core streaming rate; when the prover saturates the memory system the probe's
// rate drops, so the series shows contention over time without any hardware counter.
//
// The ring is larger than the last-level cache and each sample continues where the last one
// stopped, so the probe's lines were evicted since it last touched them and its traffic goes
// to DRAM. The rate is bytes / the thread's CPU time over the timed loop: a probe preempted
// by the prover's threads would otherwise report CPU contention as memory contention.
//
// Cost: one loop of `bytes` per period on one core (docs/counters.md and
// results/2026-11-30-probe-cost.md give the measured throughput cost).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "harness/counters/source.hpp"

namespace prooflab::harness::counters {

// The last-level cache size from sysfs (cpu0's highest cache index), 0 when unknown.
std::uint64_t last_level_cache_bytes();

class BandwidthProbe final : public CounterSource {
 public:
  // ring_bytes 0: twice the last-level cache, clamped to 16..256 MiB, at least `bytes`.
  BandwidthProbe(std::uint64_t bytes, std::uint64_t ring_bytes);
  ~BandwidthProbe() override;
  const char* name() const override { return "probe"; }
  SourceStatus start(std::int64_t now_ns) override;
  void sample(std::int64_t now_ns, std::vector<Reading>& out) override;
  SourceStatus status() const override { return status_; }
  void stop() override;

  // One timed pass over the next `bytes` of the ring; returns GB/s (read + write bytes over
  // the thread's CPU time). Public for the cost benchmark.
  double run_once();
  std::uint64_t ring_bytes() const { return ring_words_ * sizeof(std::uint64_t); }

 private:
  std::uint64_t bytes_, requested_ring_;
  std::uint64_t* ring_ = nullptr;
  std::size_t ring_words_ = 0, cursor_ = 0;
  SourceStatus status_;
};

}  // namespace prooflab::harness::counters
