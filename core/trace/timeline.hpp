// The TIMELINE recorder: timeline.csv of docs/run-directory.md, microseconds since the run
// epoch on CLOCK_MONOTONIC (the clock CUPTI is told to use).
//
// Recording is cheap by construction: each thread appends to its own single-producer ring
// (no lock, no allocation on the hot path); a background thread drains the rings every
// 20 ms into the file and flushes it, so a killed run loses at most the last 20 ms.
// Per-thread order is kept, which gives the per-worker time order the analysis relies on.
// A ring lives as long as its thread: the engine starts a thread per asynchronous dealloc,
// so the flusher frees the ring of a thread that has exited once it has drained it
// (otherwise each partition would leave ~0.5 MB behind).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/trace/events.hpp"
#include "core/trace/row_file.hpp"
#include "core/trace/stage_listener.hpp"

namespace prooflab::trace {

// µs on CLOCK_MONOTONIC since the given epoch (ns on the same clock).
std::int64_t monotonic_ns();

struct EventRecord {
  std::int64_t t_us;
  std::int32_t job, partition, worker, device;  // -1 = empty field
  Event event;
  std::array<char, 87> detail;  // "k=v;k=v", NUL-terminated, truncated if longer
};

// A second consumer of the recorded events (the cuzk-format log of `batch --log-format
// cuzk`, core/trace/cuzk_log_writer.hpp). The recorder's flush hands it every record it
// drained, off the recording threads: in time order per thread, not across threads.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Called under the recorder's file lock; `last` on the final flush of close().
  virtual void deliver(std::span<const EventRecord> records, bool last) noexcept = 0;
};

class TimelineRecorder {
 public:
  // path empty: recording disabled (record() returns at once; now_us() still works).
  explicit TimelineRecorder(const std::filesystem::path& path);
  ~TimelineRecorder();
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  std::int64_t epoch_ns() const { return epoch_ns_; }
  std::int64_t now_us() const { return (monotonic_ns() - epoch_ns_) / 1000; }

  // Returns the timestamp it recorded (so callers can compute durations consistently).
  std::int64_t record(Event e, int job = -1, int partition = -1, int worker = -1, int device = -1,
                      std::string_view detail = {}) {
    return record_at(now_us(), e, job, partition, worker, device, detail);
  }
  // The same at a time this thread read from now_us() just before (so a detail can carry a
  // duration that ends exactly at the event); returns t_us.
  std::int64_t record_at(std::int64_t t_us, Event e, int job = -1, int partition = -1, int worker = -1,
                         int device = -1, std::string_view detail = {});

  // Drains every ring into the file and flushes it; the background thread calls it.
  void flush();
  // Final flush and close; idempotent.
  void close();
  // Why timeline.csv stopped short (a full disk: RowFile), or empty.
  std::string write_error();

  std::uint64_t events_recorded() const { return recorded_.load(std::memory_order_relaxed); }
  // Rings registered and not yet freed: one per live recording thread, plus the rings of
  // threads that exited since the last flush.
  std::size_t rings_in_use();

  // The observer of engine stages (NVTX ranges in the CUDA build); null = none. Set it
  // before the engine runs; it must outlive the run. Independent of enabled().
  void set_stage_listener(StageListener* l) { stage_listener_.store(l, std::memory_order_release); }
  StageListener* stage_listener() const { return stage_listener_.load(std::memory_order_acquire); }

  // Every drained record also goes to `sink` (null = none); only while enabled(). Set it
  // before the engine runs; it must outlive close().
  void set_record_sink(RecordSink* sink) { record_sink_.store(sink, std::memory_order_release); }

 private:
  struct Ring;
  struct ThreadRing;
  Ring& ring_for_this_thread();
  static void append_row(std::string& out, const EventRecord& r);
  void drain(bool last);

  std::unique_ptr<RowFile> file_;  // null once closed, or when recording is off
  std::atomic<bool> enabled_{false};  // false again once closed: record() then drops
  std::string closed_error_;  // write_error() after close()
  std::int64_t epoch_ns_;
  std::uint64_t generation_;
  std::mutex rings_mutex_, file_mutex_;
  std::vector<std::shared_ptr<Ring>> rings_;
  std::atomic<std::uint64_t> recorded_{0};
  std::atomic<StageListener*> stage_listener_{nullptr};
  std::atomic<RecordSink*> record_sink_{nullptr};
  std::atomic<bool> stop_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::thread flusher_;
};

}  // namespace prooflab::trace
