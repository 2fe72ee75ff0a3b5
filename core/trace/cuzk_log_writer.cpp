#include "core/trace/cuzk_log_writer.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <limits>
#include <string_view>

namespace prooflab::trace {
namespace {

// Whole milliseconds, truncated as Rust's as_millis() and std::chrono::duration_cast do.
std::int64_t whole_ms(std::int64_t us) { return us / 1000; }

// The value of `key` in a record's "k=v;k=v" detail; empty when absent.
std::string_view detail_field(const EventRecord& r, std::string_view key) {
  const std::string_view detail(r.detail.data());
  std::size_t pos = 0;
  while (pos < detail.size()) {
    const std::size_t end = std::min(detail.find(';', pos), detail.size());
    const std::string_view item = detail.substr(pos, end - pos);
    if (item.size() > key.size() && item.starts_with(key) && item[key.size()] == '=')
      return item.substr(key.size() + 1);
    pos = end + 1;
  }
  return {};
}

std::int64_t detail_int(const EventRecord& r, std::string_view key) {
  const std::string_view text = detail_field(r, key);
  std::int64_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return (ec == std::errc() && end == text.data() + text.size()) ? v : -1;
}

std::string format(const char* fmt, auto... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, fmt, args...);
  return std::string(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

long long ll(std::int64_t v) { return static_cast<long long>(v); }

// One line, whole, in one write(2) (a partial write to a pipe or terminal goes on with the
// rest). The log is a by-product of the run: a failing stderr does not stop it.
void write_line(int fd, const std::string& line) {
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// RFC 3339 in UTC with microseconds, as tracing-subscriber's default timer prints it.
std::string utc_time(std::int64_t realtime_ns) {
  const time_t secs = static_cast<time_t>(realtime_ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return format("%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, ll((realtime_ns % 1'000'000'000) / 1000));
}

std::int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

constexpr const char* kTarget = "prooflab::engine";

}  // namespace

std::string CuzkLogWriter::job_id(int job) { return "job-" + std::to_string(job); }

CuzkLogWriter::CuzkLogWriter(int fd, const std::string& run_id, const CuzkLogLayout& layout, std::int64_t epoch_ns)
    : fd_(fd), layout_(layout), realtime_epoch_ns_(realtime_ns() - (monotonic_ns() - epoch_ns)) {
  write_line(fd_, "RUN_ID=" + run_id + "\n");
  const std::string now = utc_time(realtime_ns());
  for (std::uint32_t d = 0; d < layout_.devices; ++d)
    for (std::uint32_t w = 0; w < layout_.workers_per_device; ++w)
      write_line(fd_, format("%s  INFO %s: pipeline GPU worker started worker_id=%u gpu=%u sub_id=%u\n", now.c_str(),
                             kTarget, d * layout_.workers_per_device + w, d, w));
}

void CuzkLogWriter::deliver(std::span<const EventRecord> records, bool last) noexcept {
  std::lock_guard lock(mutex_);
  for (const EventRecord& r : records) {
    newest_us_ = std::max(newest_us_, r.t_us);
    take(r);
  }
  write_ready(last ? std::numeric_limits<std::int64_t>::max() : newest_us_ - kHoldBackUs);
}

std::int64_t CuzkLogWriter::gpu_compute_ms(int job) const {
  std::lock_guard lock(mutex_);
  const auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : whole_ms(it->second.gpu_us);
}

int CuzkLogWriter::engine_worker(const EventRecord& r) const {
  if (r.worker < 0 || r.device < 0) return -1;
  return r.device * static_cast<int>(layout_.workers_per_device) + r.worker;
}

void CuzkLogWriter::take(const EventRecord& r) {
  if (r.job < 0) return;  // throttle on/off: no reference line
  if (r.partition < 0) return take_job_event(r);
  take_partition_event(r, partitions_[{r.job, r.partition}]);
}

void CuzkLogWriter::take_partition_event(const EventRecord& r, PartitionTimes& p) {
  const std::string part = "partition=" + std::to_string(r.partition);
  if (r.worker >= 0) p.worker = engine_worker(r);
  const std::string on_worker = "worker=" + std::to_string(p.worker) + "," + part;
  const std::int64_t t = r.t_us;
  auto cuda = [&](std::int64_t at, const std::string& body) { emit(at, "CUZK_TIMING: " + body + "\n"); };
  // The GPU call opens where cuzk's GPU_START is written: before the lock wait (and before
  // pre-staging under two_lock).
  auto entry = [&] { return layout_.two_lock ? p.prestage_start : p.lock_wait_start; };
  auto lock_line = [&] {
    if (entry() != kUnset && p.lock_wait_start != kUnset && p.gpu_start != kUnset)
      cuda(p.gpu_start, format("pre_lock_cpu_ms=%lld mutex_wait_ms=%lld", ll(whole_ms(p.lock_wait_start - entry())),
                               ll(whole_ms(p.gpu_start - p.lock_wait_start))));
  };
  auto held_line = [&] {
    if (entry() != kUnset && p.gpu_start != kUnset && p.gpu_end != kUnset)
      cuda(p.gpu_end, format("mutex_held_ms=%lld total_start_fn_ms=%lld", ll(whole_ms(p.gpu_end - p.gpu_start)),
                             ll(whole_ms(p.gpu_end - entry()))));
  };
  auto tail_line = [&] {
    if (p.ntt_h_us != kUnset && p.batch_add_us != kUnset && p.tail_msm_us != kUnset)
      cuda(p.tail_msm_at, format("gpu_tid=0 tail_msm_ms=%lld gpu_total_ms=%lld", ll(whole_ms(p.tail_msm_us)),
                                 ll(whole_ms(p.ntt_h_us + p.batch_add_us + p.tail_msm_us))));
  };
  // cuzk's GPU_END: after b_g2_msm is joined, for a GPU call that ran to its end (TAIL_MSM).
  auto reference_gpu_end = [&] {
    if (p.gpu_end_written || entry() == kUnset || p.gpu_end == kUnset || p.b_g2_end == kUnset ||
        p.tail_msm_us == kUnset)
      return;
    p.gpu_end_written = true;
    const std::int64_t end = std::max(p.gpu_end, p.b_g2_end);
    const std::int64_t span = end - entry();
    timeline_line(end, "GPU_END", r.job, on_worker + format(",gpu_ms=%lld", ll(whole_ms(span))));
    JobTimes& job = jobs_[r.job];
    job.gpu_us += span;
    ++job.gpu_ends;
    maybe_proof_assembled(r.job);
  };
  auto paired = [&](std::int64_t& start, std::int64_t& end, bool is_end, const char* key) {
    (is_end ? end : start) = t;
    if (start != kUnset && end != kUnset) cuda(end, format("%s=%lld", key, ll(whole_ms(end - start))));
  };

  switch (r.event) {
    case Event::kSynthStart:
      timeline_line(t, "SYNTH_START", r.job, part);
      break;
    case Event::kSynthEnd: {
      const std::int64_t synth_us = detail_int(r, "synth_us");
      if (synth_us < 0) break;  // the engine always writes it
      timeline_line(t, "SYNTH_END", r.job, part + format(",synth_ms=%lld", ll(whole_ms(synth_us))));
      JobTimes& job = jobs_[r.job];
      job.synth_us += synth_us;
      ++job.synth_ends;
      maybe_proof_assembled(r.job);
      break;
    }
    case Event::kGpuQueue:
      timeline_line(t, "GPU_QUEUE", r.job, part);
      break;
    case Event::kGpuPickup:
      timeline_line(t, "GPU_PICKUP", r.job, on_worker);
      break;
    case Event::kPrepMsmStart:
    case Event::kPrepMsmEnd:
      paired(p.prep_start, p.prep_end, r.event == Event::kPrepMsmEnd, "prep_msm_ms");
      break;
    case Event::kPrestageStart:
      p.prestage_start = t;
      if (layout_.two_lock) timeline_line(t, "GPU_START", r.job, on_worker);
      lock_line();
      held_line();
      reference_gpu_end();
      break;
    case Event::kPrestageEnd: {
      const std::string_view setup = detail_field(r, "prestage");
      if (!setup.empty()) cuda(t, "prestage_setup=" + std::string(setup));
      break;
    }
    case Event::kLockWaitStart:
      p.lock_wait_start = t;
      if (!layout_.two_lock) timeline_line(t, "GPU_START", r.job, on_worker);
      lock_line();
      held_line();
      reference_gpu_end();
      break;
    case Event::kGpuStart:
      p.gpu_start = t;
      lock_line();
      held_line();
      break;
    case Event::kNttH:
      p.ntt_h_us = detail_int(r, "dur_us");
      cuda(t, format("gpu_tid=0 ntt_msm_h_ms=%lld", ll(whole_ms(p.ntt_h_us))));
      tail_line();
      break;
    case Event::kBatchAdd:
      p.batch_add_us = detail_int(r, "dur_us");
      cuda(t, format("gpu_tid=0 batch_add_ms=%lld", ll(whole_ms(p.batch_add_us))));
      tail_line();
      break;
    case Event::kTailMsm:
      p.tail_msm_us = detail_int(r, "dur_us");
      p.tail_msm_at = t;
      tail_line();
      reference_gpu_end();
      break;
    case Event::kGpuEnd:
      p.gpu_end = t;
      held_line();
      reference_gpu_end();
      break;
    case Event::kBG2MsmStart:
    case Event::kBG2MsmEnd:
      (r.event == Event::kBG2MsmEnd ? p.b_g2_end : p.b_g2_start) = t;
      if (p.b_g2_start != kUnset && p.b_g2_end != kUnset)
        cuda(p.b_g2_end, format("b_g2_msm_ms=%lld num_circuits=1", ll(whole_ms(p.b_g2_end - p.b_g2_start))));
      if (r.event == Event::kBG2MsmEnd) reference_gpu_end();
      break;
    case Event::kDeallocStart:
    case Event::kDeallocEnd:
      paired(p.dealloc_start, p.dealloc_end, r.event == Event::kDeallocEnd, "async_dealloc_ms");
      break;
    default:
      break;
  }
}

void CuzkLogWriter::take_job_event(const EventRecord& r) {
  JobTimes& job = jobs_[r.job];
  switch (r.event) {
    case Event::kJobSubmit:
      job.submit = r.t_us;
      maybe_proof_assembled(r.job);
      break;
    case Event::kJobDone:
      job.done = r.t_us;
      maybe_proof_assembled(r.job);
      break;
    case Event::kJobFailed:
      tracing_line(r.t_us, "ERROR",
                   "proof failed job_id=" + job_id(r.job) + " error=" + std::string(detail_field(r, "reason")));
      break;
    default:
      break;
  }
}

void CuzkLogWriter::maybe_proof_assembled(int job_number) {
  JobTimes& job = jobs_[job_number];
  if (job.assembled_written || job.submit == kUnset || job.done == kUnset ||
      job.synth_ends < layout_.partitions || job.gpu_ends < layout_.partitions)
    return;
  job.assembled_written = true;
  tracing_line(job.done, "INFO",
               format("Phase 7: all partitions complete, proof assembled job_id=%s total_ms=%lld synth_ms=%lld "
                      "gpu_ms=%lld",
                      job_id(job_number).c_str(), ll(whole_ms(job.done - job.submit)), ll(whole_ms(job.synth_us)),
                      ll(whole_ms(job.gpu_us))));
}

void CuzkLogWriter::timeline_line(std::int64_t t_us, const char* event, int job, const std::string& detail) {
  emit(t_us, format("TIMELINE,%lld,%s,%s,%s\n", ll(whole_ms(t_us)), event, job_id(job).c_str(), detail.c_str()));
}

void CuzkLogWriter::tracing_line(std::int64_t t_us, const char* level, const std::string& message_and_fields) {
  emit(t_us, utc_time(realtime_epoch_ns_ + t_us * 1000) + format(" %5s %s: ", level, kTarget) + message_and_fields +
                 "\n");
}

void CuzkLogWriter::emit(std::int64_t t_us, std::string line) {
  pending_.push_back({{t_us, next_seq_++}, std::move(line)});
}

void CuzkLogWriter::write_ready(std::int64_t before_us) {
  std::sort(pending_.begin(), pending_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto ready = std::find_if(pending_.begin(), pending_.end(), [&](const auto& l) { return l.first.first >= before_us; });
  for (auto it = pending_.begin(); it != ready; ++it) write_line(fd_, it->second);
  pending_.erase(pending_.begin(), ready);
}

}  // namespace prooflab::trace
