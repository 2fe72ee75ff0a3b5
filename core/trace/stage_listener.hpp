// An observer of engine stages as they begin and end: the hook through which the CUDA build
// opens NVTX ranges (gpu/observe/nvtx_ranges.hpp) without core/ depending on CUDA. The
// engine reaches it through its TimelineRecorder; when none is set a StageRange is one
// pointer test, so an uninstrumented run pays nothing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace prooflab::trace {

// Every span the engine brackets. The TIMELINE has events for most of them; kLockWait,
// kEpilogue and the GPU sub-stages' starts exist only here.
enum class Stage : std::uint8_t {
  kSynthesize,  // SYNTH_START..SYNTH_END
  kPrepMsm,     // PREP_MSM_START..PREP_MSM_END
  kPrestage,    // PRESTAGE_START..PRESTAGE_END (two_lock)
  kLockWait,    // LOCK_WAIT_START..GPU_START
  kGpuPhase,    // GPU_START..GPU_END: the GPU lock held
  kNttH,        // GPU sub-stages, inside kGpuPhase
  kBatchAdd,
  kTailMsm,
  kBG2Msm,    // B_G2_MSM_START..B_G2_MSM_END
  kEpilogue,  // proof assembly after b_g2_msm is joined
  kDealloc,   // DEALLOC_START..DEALLOC_END
};
inline constexpr int kStageCount = 11;

constexpr const char* stage_name(Stage s) {
  switch (s) {
    case Stage::kSynthesize:
      return "synthesize";
    case Stage::kPrepMsm:
      return "prep_msm";
    case Stage::kPrestage:
      return "prestage";
    case Stage::kLockWait:
      return "lock_wait";
    case Stage::kGpuPhase:
      return "gpu_phase";
    case Stage::kNttH:
      return "ntt_h";
    case Stage::kBatchAdd:
      return "batch_add";
    case Stage::kTailMsm:
      return "tail_msm";
    case Stage::kBG2Msm:
      return "b_g2_msm";
    case Stage::kEpilogue:
      return "epilogue";
    case Stage::kDealloc:
      return "dealloc";
  }
  return "unknown";
}

// The GPU sub-stage a backend reports by name as it ends (backend.hpp's SubstageCallback:
// "ntt_h", "batch_add", "tail_msm"). Any other name is a backend's bug, and an error naming
// it — never silently counted as another stage.
inline Stage gpu_substage(std::string_view name) {
  for (const Stage s : {Stage::kNttH, Stage::kBatchAdd, Stage::kTailMsm})
    if (name == stage_name(s)) return s;
  throw std::logic_error("a backend reported the GPU sub-stage '" + std::string(name) +
                         "': not one of ntt_h, batch_add, tail_msm");
}

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
