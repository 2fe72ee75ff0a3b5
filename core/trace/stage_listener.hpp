// An observer of engine stages as they begin and end: the hook through which the CUDA build
// opens NVTX ranges (gpu/observe/nvtx_ranges.hpp) without core/ depending on CUDA. The
// engine reaches it through its TimelineRecorder; when none is set a StageRange is one
// pointer test, so an uninstrumented run pays nothing.
#pragma once

#include <cstdint>
#include <utility>

#include "core/trace/stages.hpp"

namespace prooflab::trace {

// Who a stage belongs to; -1 = not applicable (as the TIMELINE's empty fields).
struct StageTag {
  int job = -1, partition = -1, worker = -1, device = -1;
};

class StageListener {
 public:
  virtual ~StageListener() = default;
  // Called on the thread where the stage begins. The returned handle is passed to
  // stage_end, which may run on another thread; stages of one thread need not nest.
  virtual std::uint64_t stage_begin(Stage stage, const StageTag& tag) noexcept = 0;
  virtual void stage_end(Stage stage, std::uint64_t handle) noexcept = 0;
};

// One stage as a scope: begun at construction, ended by end() or the destructor. With a
// null listener it does nothing.
class StageRange {
 public:
  StageRange() = default;
  StageRange(StageListener* listener, Stage stage, const StageTag& tag)
      : listener_(listener), stage_(stage) {
    if (listener_) handle_ = listener_->stage_begin(stage, tag);
  }
  StageRange(StageRange&& o) noexcept
      : listener_(std::exchange(o.listener_, nullptr)), stage_(o.stage_), handle_(o.handle_) {}
  StageRange& operator=(StageRange&& o) noexcept {
    if (this != &o) {
      end();
      listener_ = std::exchange(o.listener_, nullptr);
      stage_ = o.stage_;
      handle_ = o.handle_;
    }
    return *this;
  }
  StageRange(const StageRange&) = delete;
  StageRange& operator=(const StageRange&) = delete;
  ~StageRange() { end(); }

  void end() noexcept {
    if (listener_) std::exchange(listener_, nullptr)->stage_end(stage_, handle_);
  }

 private:
  StageListener* listener_ = nullptr;
  Stage stage_ = Stage::kSynthesize;
  std::uint64_t handle_ = 0;
};

}  // namespace prooflab::trace
