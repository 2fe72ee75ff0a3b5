// The dispatch pacer (cuzk's `max_gpu_queue_depth`, cuzk-core/src/config.rs): a new partition
// starts synthesis only while fewer than `depth` synthesized partitions wait for a GPU worker,
// counting those already being synthesized (they will wait too). So the GPU queue never holds
// more than `depth` partitions, and no memory is spent on partitions the GPUs cannot take yet.
// cuzk reaches the same target with a PI controller that spaces dispatches in time
// (engine.rs, DispatchPacer); this gate keeps the target and leaves out the timing, so its
// effect is a bound a test can check.
#pragma once

#include <cstddef>
#include <cstdint>

namespace prooflab::engine {

class GpuQueuePacer {
 public:
  // depth 0: no pacing (every start admitted).
  explicit GpuQueuePacer(std::uint32_t depth) : depth_(depth) {}
  // waiting: partitions in the GPU queue; synthesizing: started, not yet in the queue.
  bool admits_start(std::size_t waiting, std::size_t synthesizing) const {
    return depth_ == 0 || waiting + synthesizing < depth_;
  }
  std::uint32_t depth() const { return depth_; }

 private:
  std::uint32_t depth_;
};

}  // namespace prooflab::engine
