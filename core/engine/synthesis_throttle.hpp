// Intervention I3 (config key throttle): synthesis yields between chunks of rows while any
// b_g2_msm runs, so the G2 MSM gets the cores (the reference checks an atomic every 64 chunks
// of 8192 rows and yields). THROTTLE_ON is recorded when the first concurrent b_g2_msm
// begins, THROTTLE_OFF when the last one ends; with the throttle off neither is, and
// synthesis gets no hook.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "core/r1cs/evaluate.hpp"
#include "core/trace/timeline.hpp"

namespace prooflab::engine {

class SynthesisThrottle final : private r1cs::ChunkHook {
 public:
  // How long synthesis sleeps between its checks of the flag.
  static constexpr auto kYield = std::chrono::microseconds(200);

  SynthesisThrottle(bool enabled, trace::TimelineRecorder& tl) : enabled_(enabled), tl_(tl) {}

  // The hook synthesis calls between chunks; null when the throttle is off.
  r1cs::ChunkHook* hook() { return enabled_ ? this : nullptr; }

  // Marks one b_g2_msm running for its lifetime.
  class Running {
   public:
    explicit Running(SynthesisThrottle& t) : t_(t) {
      if (t_.running_.fetch_add(1) == 0 && t_.enabled_) t_.tl_.record(trace::Event::kThrottleOn);
    }
    ~Running() {
      if (t_.running_.fetch_sub(1) == 1 && t_.enabled_) t_.tl_.record(trace::Event::kThrottleOff);
    }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    SynthesisThrottle& t_;
  };

 private:
  void between_chunks() override {
    while (running_.load(std::memory_order_relaxed) > 0) std::this_thread::sleep_for(kYield);
  }

  const bool enabled_;
  trace::TimelineRecorder& tl_;
  std::atomic<int> running_{0};
};

}  // namespace prooflab::engine
