// The TIMELINE event names of docs/run-directory.md (DESIGN.md §4).
#pragma once

#include <cstdint>

namespace prooflab::trace {

enum class Event : std::uint8_t {
  kJobSubmit, kSynthStart, kSynthEnd, kGpuQueue, kGpuPickup, kLockWaitStart,
  kPrestageStart, kPrestageEnd, kGpuStart, kNttH, kBatchAdd, kTailMsm, kGpuEnd,
  kPrepMsmStart, kPrepMsmEnd, kBG2MsmStart, kBG2MsmEnd, kDeallocStart, kDeallocEnd,
  kThrottleOn, kThrottleOff, kProofDone, kJobDone, kJobFailed,
  kEarlyFree, kFinalizeStart, kFinalizeEnd, kWitnessEnd, kHostPin, kHostUnpin,
};

constexpr const char* event_name(Event e) {
  switch (e) {
    case Event::kJobSubmit: return "JOB_SUBMIT";
    case Event::kSynthStart: return "SYNTH_START";
    case Event::kSynthEnd: return "SYNTH_END";
    case Event::kGpuQueue: return "GPU_QUEUE";
    case Event::kGpuPickup: return "GPU_PICKUP";
    case Event::kLockWaitStart: return "LOCK_WAIT_START";
    case Event::kPrestageStart: return "PRESTAGE_START";
    case Event::kPrestageEnd: return "PRESTAGE_END";
    case Event::kGpuStart: return "GPU_START";
    case Event::kNttH: return "NTT_H";
    case Event::kBatchAdd: return "BATCH_ADD";
    case Event::kTailMsm: return "TAIL_MSM";
    case Event::kGpuEnd: return "GPU_END";
    case Event::kPrepMsmStart: return "PREP_MSM_START";
    case Event::kPrepMsmEnd: return "PREP_MSM_END";
    case Event::kBG2MsmStart: return "B_G2_MSM_START";
    case Event::kBG2MsmEnd: return "B_G2_MSM_END";
    case Event::kDeallocStart: return "DEALLOC_START";
    case Event::kDeallocEnd: return "DEALLOC_END";
    case Event::kThrottleOn: return "THROTTLE_ON";
    case Event::kThrottleOff: return "THROTTLE_OFF";
    case Event::kProofDone: return "PROOF_DONE";
    case Event::kJobDone: return "JOB_DONE";
    case Event::kJobFailed: return "JOB_FAILED";
    case Event::kEarlyFree: return "EARLY_FREE";
    case Event::kFinalizeStart: return "FINALIZE_START";
    case Event::kFinalizeEnd: return "FINALIZE_END";
    case Event::kWitnessEnd: return "WITNESS_END";
    case Event::kHostPin: return "HOST_PIN";
    case Event::kHostUnpin: return "HOST_UNPIN";
  }
  return "UNKNOWN";
}

}  // namespace prooflab::trace
