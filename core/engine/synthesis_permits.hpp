// Partition-worker permits with the reference's Phase-12 backpressure (cuzk-project.md,
// "Partition permit held through send"): a partition worker takes a permit before it starts
// a synthesis and gives it back only once the synthesized partition is in the GPU queue. The
// queue admits at most `lookahead` waiting partitions; a worker whose partition is ready
// waits, permit held, for room. Hence at any time
//   synthesizing (or ready, not yet queued) <= partition_workers,
//   waiting in the GPU queue                <= lookahead,
// and the synthesized data in flight ahead of the GPUs is bounded by their sum. The pacer
// (gpu_queue_pacer.hpp) may further hold back starts.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "core/engine/gpu_queue_pacer.hpp"

namespace prooflab::engine {

class SynthesisPermits {
 public:
  SynthesisPermits(std::uint32_t partition_workers, std::uint32_t lookahead, GpuQueuePacer pacer)
      : workers_(partition_workers), lookahead_(lookahead), pacer_(pacer) {}

  // Blocks until a permit is free and the pacer admits a start; takes the permit.
  void begin_synthesis() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return synthesizing_ < workers_ && pacer_.admits_start(waiting_, synthesizing_); });
    ++synthesizing_;
  }
  // The partition is ready: blocks until the GPU queue has room, then counts it as waiting
  // and returns the permit. The caller puts it in the queue next.
  void hand_to_gpu_queue() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return waiting_ < lookahead_; });
    ++waiting_;
    --synthesizing_;
    cv_.notify_all();
  }
  // The synthesis failed: the permit goes back, nothing was queued.
  void abandon_synthesis() {
    std::lock_guard lock(m_);
    --synthesizing_;
    cv_.notify_all();
  }
  // A GPU worker took a partition from the queue.
  void picked_up() {
    std::lock_guard lock(m_);
    --waiting_;
    cv_.notify_all();
  }

  std::size_t waiting() const {
    std::lock_guard lock(m_);
    return waiting_;
  }
  std::size_t synthesizing() const {
    std::lock_guard lock(m_);
    return synthesizing_;
  }

 private:
  const std::uint32_t workers_, lookahead_;
  const GpuQueuePacer pacer_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::size_t synthesizing_ = 0, waiting_ = 0;
};

}  // namespace prooflab::engine
