// stages.csv of docs/run-directory.md: one row per partition. The columns are one table
// (stages_csv.cpp) whose stage durations take their names from the stage table
// (stages.hpp); the header, the rows and the readers' list of integer columns all come from it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/trace/stages.hpp"

namespace prooflab::trace {

struct StageRow {
  int job = 0, partition = 0, worker = -1, device = -1;
  bool ok = true;
  // Each stage's duration, µs, by Stage (written by StageScope); empty where it did not run.
  std::array<std::optional<std::int64_t>, kStageCount> stage_us{};
  // Spans that are not stages: GPU_QUEUE..GPU_PICKUP, the sum of the GPU sub-stages, and
  // two_lock's fallback synchronise + trim inside the compute lock.
  std::optional<std::int64_t> queue_us, gpu_total_us, pre_destructor_us;
  std::uint64_t host_bytes = 0, vram_peak_bytes = 0;
  // The partition's host buffers by kind, as charged to the host budget: a, b, c; the witness
  // (input + aux assignment); prep_msm's bitmaps and tails. host_bytes is their sum.
  std::uint64_t abc_bytes = 0, aux_bytes = 0, density_bytes = 0;
  std::string prestage = "empty";

  std::optional<std::int64_t>& us(Stage s) { return stage_us[static_cast<std::size_t>(s)]; }
  const std::optional<std::int64_t>& us(Stage s) const { return stage_us[static_cast<std::size_t>(s)]; }
};

// "job,partition,...\n".
std::string stages_csv_header();
// One row, "\n"-terminated; an empty duration is an empty field.
std::string stages_csv_line(const StageRow& row);
// The columns whose values are integers (the others are text: status, prestage).
std::vector<std::string> stages_csv_integer_columns();

}  // namespace prooflab::trace
