// One stage of one partition as a scope that writes the stage's three records together, from
// the stage table (stages.hpp): its TIMELINE start and end events, its StageListener range
// (NVTX in the CUDA build) and its stages.csv duration. The duration is the end event's time
// less the start's (or, for a GPU sub-stage, the duration the backend measured, which its end
// event carries), so timeline.csv and stages.csv cannot disagree.
//
// A scope left without end() — the stage threw — closes its range and records neither its
// end event nor its duration: the TIMELINE shows a stage that began and never ended.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/trace/stage_listener.hpp"
#include "core/trace/stages_csv.hpp"
#include "core/trace/timeline.hpp"

namespace prooflab::trace {

class StageScope {
 public:
  // Begins `stage` now: records its start event, if it has one, and opens its range. row (if
  // set) receives the duration at end().
  StageScope(TimelineRecorder& tl, Stage stage, const StageTag& tag, StageRow* row);
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;
  ~StageScope() = default;  // the range closes; no end event, no duration

  // Ends it: closes the range, records the end event (with `detail`, or the duration where
  // the table says so) and writes the duration. Returns the end event's time.
  std::int64_t end(std::string_view detail = {});
  // Ends a GPU sub-stage with the duration the backend measured (end detail dur_us=).
  std::int64_t end_reported(std::int64_t dur_us);
  // Ends this stage and begins `next` at the same instant; where next's start event is this
  // stage's end event (LOCK_WAIT ends at GPU_START), it is recorded once.
  StageScope end_and_begin(Stage next);
  // Begins `part`, the first part of this stage: it starts at this stage's start (no start
  // event of its own), so its duration is its end event's time less this stage's start.
  StageScope begin_first_part(Stage part) const;

  Stage stage() const { return stage_; }
  std::int64_t start_us() const { return start_us_; }
  bool ended() const { return ended_; }

 private:
  // Begins `stage` at `start_us`, whose start event is already recorded.
  StageScope(TimelineRecorder& tl, Stage stage, const StageTag& tag, StageRow* row, std::int64_t start_us);
  std::int64_t finish(std::int64_t end_us, std::int64_t dur_us);

  TimelineRecorder& tl_;
  Stage stage_;
  StageTag tag_;
  StageRow* row_;
  StageRange range_;
  std::int64_t start_us_ = 0;
  bool ended_ = false;
};

}  // namespace prooflab::trace
