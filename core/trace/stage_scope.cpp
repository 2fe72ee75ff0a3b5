#include "core/trace/stage_scope.hpp"

#include <cassert>
#include <string>

namespace prooflab::trace {

StageScope::StageScope(TimelineRecorder& tl, Stage stage, const StageTag& tag, StageRow* row)
    : tl_(tl), stage_(stage), tag_(tag), row_(row) {
  const StageInfo& info = stage_info(stage);
  start_us_ = info.start ? tl_.record(*info.start, tag.job, tag.partition, tag.worker, tag.device) : tl_.now_us();
  range_ = StageRange(tl_.stage_listener(), stage, tag);
}

StageScope::StageScope(TimelineRecorder& tl, Stage stage, const StageTag& tag, StageRow* row,
                       std::int64_t start_us)
    : tl_(tl),
      stage_(stage),
      tag_(tag),
      row_(row),
      range_(tl.stage_listener(), stage, tag),
      start_us_(start_us) {}

std::int64_t StageScope::finish(std::int64_t end_us, std::int64_t dur_us) {
  ended_ = true;
  if (row_) row_->us(stage_) = dur_us;
  return end_us;
}

std::int64_t StageScope::end(std::string_view detail) {
  assert(!ended_);
  const StageInfo& info = stage_info(stage_);
  assert(info.end_detail != StageInfo::EndDetail::kReportedDuration);  // end_reported
  range_.end();
  if (info.end_detail == StageInfo::EndDetail::kDuration) {
    assert(detail.empty());
    const std::int64_t t = tl_.now_us();
    const std::string d = std::string(info.csv_column) + "=" + std::to_string(t - start_us_);
    tl_.record_at(t, info.end, tag_.job, tag_.partition, tag_.worker, tag_.device, d);
    return finish(t, t - start_us_);
  }
  const std::int64_t t = tl_.record(info.end, tag_.job, tag_.partition, tag_.worker, tag_.device, detail);
  return finish(t, t - start_us_);
}

std::int64_t StageScope::end_reported(std::int64_t dur_us) {
  assert(!ended_);
  const StageInfo& info = stage_info(stage_);
  assert(info.end_detail == StageInfo::EndDetail::kReportedDuration);
  range_.end();
  const std::int64_t t = tl_.record(info.end, tag_.job, tag_.partition, tag_.worker, tag_.device,
                                    "dur_us=" + std::to_string(dur_us));
  return finish(t, dur_us);
}

StageScope StageScope::end_and_begin(Stage next) {
  const std::int64_t t = end();
  const StageInfo& n = stage_info(next);
  if (n.start && *n.start == stage_info(stage_).end) return StageScope(tl_, next, tag_, row_, t);
  return StageScope(tl_, next, tag_, row_);
}

StageScope StageScope::begin_first_part(Stage part) const {
  assert(!stage_info(part).start);
  return StageScope(tl_, part, tag_, row_, start_us_);
}

}  // namespace prooflab::trace
