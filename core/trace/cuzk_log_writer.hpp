// The reference system's log, written from prooflab's TIMELINE: what cuzk-daemon with
// supraseal-c2 prints on stderr (`prooflab batch --log-format cuzk`, docs/reference-logs.md
// "Writing the reference formats"), so that what reads those logs reads a prooflab run too.
//
// Lines, each in the shape of its source (filecoin-project/curio e0294b0):
//  - `TIMELINE,<offset_ms>,<EVENT>,<job_id>,<detail>` (cuzk-core engine.rs timeline_event):
//    SYNTH_START, SYNTH_END (synth_ms), GPU_QUEUE, GPU_PICKUP, GPU_START, GPU_END (gpu_ms);
//  - `CUZK_TIMING: ...` (supraseal-c2 groth16_cuda.cu): prep_msm_ms, b_g2_msm_ms,
//    pre_lock_cpu_ms + mutex_wait_ms, ntt_msm_h_ms, batch_add_ms, tail_msm_ms + gpu_total_ms,
//    mutex_held_ms + total_start_fn_ms, async_dealloc_ms, prestage_setup (two_lock);
//  - tracing-subscriber lines: `pipeline GPU worker started` (which GPU a worker drives),
//    `Phase 7: all partitions complete, proof assembled` per proof, an ERROR per failed proof;
//  - `RUN_ID=<run id>` first, so a log with several runs splits exactly.
// Every duration is truncated to whole ms, as the sources do (as_millis, duration_cast).
//
// The reference's GPU_START..GPU_END is not prooflab's (DESIGN.md §4): it opens before the
// lock wait (prooflab's LOCK_WAIT_START, PRESTAGE_START under two_lock) and closes after
// b_g2_msm is joined (the later of prooflab's GPU_END and B_G2_MSM_END); gpu_ms is that
// span, as cuzk's gpu_duration. A partition whose GPU phase or b_g2_msm failed gets no
// GPU_END, as in cuzk.
//
// Thread-safe; each line goes out whole in one write(2). Records come in time order per
// thread only, so lines are held back kHoldBackUs behind the newest record and written in
// time order (a record later than that would be written out of order, never lost).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/trace/timeline.hpp"

namespace prooflab::trace {

struct CuzkLogLayout {
  std::uint32_t devices = 1;
  std::uint32_t workers_per_device = 1;  // gw; cuzk numbers workers engine-wide: device·gw + w
  std::uint32_t partitions = 1;          // per proof: when a proof's Phase 7 line is complete
  bool two_lock = false;                 // the GPU call begins at PRESTAGE_START
};

class CuzkLogWriter final : public RecordSink {
 public:
  static constexpr std::int64_t kHoldBackUs = 200'000;

  // Writes the RUN_ID line and one worker-start line per GPU worker at once. `epoch_ns`:
  // the recorder's epoch (CLOCK_MONOTONIC), the origin of the TIMELINE offsets; the tracing
  // lines' UTC times are that epoch on the real-time clock plus the record's time.
  CuzkLogWriter(int fd, const std::string& run_id, const CuzkLogLayout& layout, std::int64_t epoch_ns);

  void deliver(std::span<const EventRecord> records, bool last) noexcept override;

  // The sum of the gpu_ms spans of the job's partitions delivered so far, in ms (cuzk's
  // gpu_compute_ms, which cuzk-bench prints as prove=).
  std::int64_t gpu_compute_ms(int job) const;

  // The job id written for prooflab's job number.
  static std::string job_id(int job);

 private:
  static constexpr std::int64_t kUnset = -1;
  // prooflab's record times (µs) of one partition, as they arrive in any order; a line is
  // written when the last record it needs has arrived.
  struct PartitionTimes {
    std::int64_t prep_start = kUnset, prep_end = kUnset, prestage_start = kUnset, lock_wait_start = kUnset,
                 gpu_start = kUnset, gpu_end = kUnset, b_g2_start = kUnset, b_g2_end = kUnset,
                 dealloc_start = kUnset, dealloc_end = kUnset, tail_msm_at = kUnset;
    std::int64_t ntt_h_us = kUnset, batch_add_us = kUnset, tail_msm_us = kUnset;
    int worker = -1;  // engine-wide
    bool gpu_end_written = false;
  };
  struct JobTimes {
    std::int64_t submit = kUnset, done = kUnset, synth_us = 0, gpu_us = 0;
    std::uint32_t synth_ends = 0, gpu_ends = 0;
    bool assembled_written = false;
  };
  void take(const EventRecord& r);
  void take_partition_event(const EventRecord& r, PartitionTimes& p);
  void take_job_event(const EventRecord& r);
  void maybe_proof_assembled(int job);
  void emit(std::int64_t t_us, std::string line);
  void timeline_line(std::int64_t t_us, const char* event, int job, const std::string& detail);
  void tracing_line(std::int64_t t_us, const char* level, const std::string& message_and_fields);
  void write_ready(std::int64_t before_us);
  int engine_worker(const EventRecord& r) const;

  const int fd_;
  const CuzkLogLayout layout_;
  std::int64_t realtime_epoch_ns_;  // the recorder's epoch on CLOCK_REALTIME
  mutable std::mutex mutex_;
  std::map<std::pair<int, int>, PartitionTimes> partitions_;
  std::map<int, JobTimes> jobs_;
  std::vector<std::pair<std::pair<std::int64_t, std::uint64_t>, std::string>> pending_;  // ((t, seq), line)
  std::uint64_t next_seq_ = 0;
  std::int64_t newest_us_ = 0;
};

}  // namespace prooflab::trace
