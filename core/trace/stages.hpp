// The stages the engine times, named one way: one table gives each stage its name (NVTX
// ranges and categories), the TIMELINE events that bracket it and its stages.csv column.
// StageScope (stage_scope.hpp) writes all three from this table, stages_csv.hpp derives the
// file's columns from it, and a GPU sub-stage reaches the engine as a Stage, never as text
// (before, an unknown sub-stage name was counted as tail_msm).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/trace/events.hpp"

namespace prooflab::trace {

enum class Stage : std::uint8_t {
  kSynthesize, kPrepMsm, kPrestage, kLockWait, kGpuPhase,
  kNttH, kBatchAdd, kTailMsm,  // GPU sub-stages, inside kGpuPhase, in this order
  kBG2Msm, kEpilogue, kDealloc,
  kWitness,  // synthesis's first part, inside kSynthesize: the witness, before A·w, B·w, C·w
};
inline constexpr int kStageCount = 12;

struct StageInfo {
  Stage stage;
  const char* name;
  // The TIMELINE events at its start and end; none where the TIMELINE has no such event
  // (a sub-stage starts where the previous one ended; the epilogue's start is inside
  // FINALIZE_START..FINALIZE_END, after b_g2_msm is joined).
  std::optional<Event> start;
  Event end;
  const char* csv_column;  // its duration in stages.csv, µs
  // The end event's detail is `dur_us=<duration the backend measured>` (GPU sub-stages) or
  // `<csv_column>=<duration>` (SYNTH_END's synth_us, the reference's synth_ms).
  enum class EndDetail : std::uint8_t { kNone, kReportedDuration, kDuration } end_detail = EndDetail::kNone;
};

inline constexpr std::array<StageInfo, kStageCount> kStages = {{
    {Stage::kSynthesize, "synthesize", Event::kSynthStart, Event::kSynthEnd, "synth_us",
     StageInfo::EndDetail::kDuration},
    {Stage::kPrepMsm, "prep_msm", Event::kPrepMsmStart, Event::kPrepMsmEnd, "prep_msm_us"},
    {Stage::kPrestage, "prestage", Event::kPrestageStart, Event::kPrestageEnd, "prestage_us"},
    // Its end is the GPU phase's start: GPU_START is recorded once, when the lock is held.
    {Stage::kLockWait, "lock_wait", Event::kLockWaitStart, Event::kGpuStart, "lock_wait_us"},
    {Stage::kGpuPhase, "gpu_phase", Event::kGpuStart, Event::kGpuEnd, "lock_held_us"},
    {Stage::kNttH, "ntt_h", std::nullopt, Event::kNttH, "ntt_h_us", StageInfo::EndDetail::kReportedDuration},
    {Stage::kBatchAdd, "batch_add", std::nullopt, Event::kBatchAdd, "batch_add_us",
     StageInfo::EndDetail::kReportedDuration},
    {Stage::kTailMsm, "tail_msm", std::nullopt, Event::kTailMsm, "tail_msm_us",
     StageInfo::EndDetail::kReportedDuration},
    {Stage::kBG2Msm, "b_g2_msm", Event::kBG2MsmStart, Event::kBG2MsmEnd, "b_g2_msm_us"},
    {Stage::kEpilogue, "epilogue", std::nullopt, Event::kFinalizeEnd, "epilogue_us"},
    {Stage::kDealloc, "dealloc", Event::kDeallocStart, Event::kDeallocEnd, "dealloc_us"},
    // Begins at SYNTH_START; the rest of synthesis (the sparse products, which the throttle
    // pauses) is WITNESS_END..SYNTH_END.
    {Stage::kWitness, "witness", std::nullopt, Event::kWitnessEnd, "witness_us"},
}};

constexpr bool table_in_enum_order() {
  for (int i = 0; i < kStageCount; ++i)
    if (static_cast<int>(kStages[i].stage) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kStages must list the stages in the enum's order");

constexpr const StageInfo& stage_info(Stage s) { return kStages[static_cast<std::size_t>(s)]; }
constexpr const char* stage_name(Stage s) { return stage_info(s).name; }

constexpr bool is_gpu_substage(Stage s) {
  return s == Stage::kNttH || s == Stage::kBatchAdd || s == Stage::kTailMsm;
}

// What a backend reports as each GPU sub-stage ends: the sub-stage and the duration it
// measured (µs). The one progress callback of the prover (groth16::gpu_phase) and of the
// engine's backends (Backend::run_gpu_phase).
using SubstageHook = std::function<void(Stage substage, std::int64_t dur_us)>;

// The sub-stage a backend reported, checked: any other stage is a backend's bug, and an error
// naming it.
inline Stage checked_gpu_substage(Stage s) {
  if (!is_gpu_substage(s))
    throw std::logic_error(std::string("a backend reported the GPU sub-stage '") + stage_name(s) +
                           "': not one of ntt_h, batch_add, tail_msm");
  return s;
}

}  // namespace prooflab::trace
