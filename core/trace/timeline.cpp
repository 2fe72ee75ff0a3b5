#include "core/trace/timeline.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace prooflab::trace {

std::int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A single-producer single-consumer ring: the owning thread writes, the flusher reads.
struct TimelineRecorder::Ring {
  static constexpr std::size_t kCapacity = 4096;
  std::array<EventRecord, kCapacity> slots;
  alignas(64) std::atomic<std::size_t> head{0};  // next slot to write (producer)
  alignas(64) std::atomic<std::size_t> tail{0};  // next slot to read (consumer)
  // Set by the producer after its last write (thread exit, or a newer recorder): once the
  // flusher has drained it, nobody writes to this ring again.
  std::atomic<bool> retired{false};
};

namespace {
std::atomic<std::uint64_t> next_generation{1};
}

// This thread's ring. Shared with the recorder, so neither outlives the other's use of it:
// a thread that exits retires its ring, and a recorder destroyed first leaves the ring to
// the thread until it exits.
struct TimelineRecorder::ThreadRing {
  std::uint64_t generation = 0;
  std::shared_ptr<Ring> ring;
  void retire() {
    if (ring) ring->retired.store(true, std::memory_order_release);
    ring.reset();
  }
  ~ThreadRing() { retire(); }
};

TimelineRecorder::TimelineRecorder(const std::filesystem::path& path)
    : epoch_ns_(monotonic_ns()), generation_(next_generation.fetch_add(1)) {
  if (path.empty()) return;
  file_ = std::make_unique<RowFile>(path, "t_us,event,job,partition,worker,device,detail\n");
  enabled_ = true;
  flusher_ = std::thread([this] {
    std::unique_lock lock(wake_mutex_);
    while (!stop_.load()) {
      wake_.wait_for(lock, std::chrono::milliseconds(20));
      lock.unlock();
      flush();
      lock.lock();
    }
  });
}

TimelineRecorder::~TimelineRecorder() { close(); }

TimelineRecorder::Ring& TimelineRecorder::ring_for_this_thread() {
  // One ring per thread for the most recent recorder; a new recorder (a new run in the same
  // process) retires the old one and registers a fresh ring on first use.
  thread_local ThreadRing mine;
  if (mine.generation != generation_) {
    mine.retire();
    mine.ring = std::make_shared<Ring>();
    mine.generation = generation_;
    std::lock_guard lock(rings_mutex_);
    rings_.push_back(mine.ring);
  }
  return *mine.ring;
}

std::int64_t TimelineRecorder::record_at(std::int64_t t, Event e, int job, int partition, int worker,
                                         int device, std::string_view detail) {
  if (!enabled_.load(std::memory_order_relaxed)) return t;
  Ring& ring = ring_for_this_thread();
  const std::size_t head = ring.head.load(std::memory_order_relaxed);
  // Full ring (the flusher fell >4096 events behind this thread): wait for it.
  while (head - ring.tail.load(std::memory_order_acquire) >= Ring::kCapacity) {
    wake_.notify_one();
    std::this_thread::yield();
  }
  EventRecord& r = ring.slots[head % Ring::kCapacity];
  r.t_us = t;
  r.event = e;
  r.job = job;
  r.partition = partition;
  r.worker = worker;
  r.device = device;
  const std::size_t n = std::min(detail.size(), r.detail.size() - 1);
  if (n) std::memcpy(r.detail.data(), detail.data(), n);  // an empty view may hold nullptr
  r.detail[n] = '\0';
  ring.head.store(head + 1, std::memory_order_release);
  recorded_.fetch_add(1, std::memory_order_relaxed);
  return t;
}

void TimelineRecorder::append_row(std::string& out, const EventRecord& r) {
  char buf[256];
  int len = std::snprintf(buf, sizeof buf, "%lld,%s,", static_cast<long long>(r.t_us), event_name(r.event));
  for (const std::int32_t v : {r.job, r.partition, r.worker, r.device}) {
    if (v >= 0) len += std::snprintf(buf + len, sizeof buf - len, "%d", v);
    buf[len++] = ',';
  }
  len += std::snprintf(buf + len, sizeof buf - len, "%s\n", r.detail.data());
  out.append(buf, static_cast<std::size_t>(len));
}

void TimelineRecorder::flush() { drain(false); }

void TimelineRecorder::drain(bool last) {
  std::lock_guard file_lock(file_mutex_);
  if (!file_) return;
  std::vector<std::shared_ptr<Ring>> rings;
  {
    std::lock_guard lock(rings_mutex_);
    rings = rings_;
  }
  RecordSink* const sink = record_sink_.load(std::memory_order_acquire);
  std::vector<EventRecord> drained;  // for the sink only
  std::vector<const Ring*> drained_for_good;
  std::string rows;
  for (const auto& ring : rings) {
    // retired before head: a retired ring's head is final, so draining to it empties it.
    const bool retired = ring->retired.load(std::memory_order_acquire);
    const std::size_t head = ring->head.load(std::memory_order_acquire);
    std::size_t tail = ring->tail.load(std::memory_order_relaxed);
    for (; tail != head; ++tail) {
      const EventRecord& r = ring->slots[tail % Ring::kCapacity];
      append_row(rows, r);
      if (sink) drained.push_back(r);
    }
    ring->tail.store(tail, std::memory_order_release);
    if (retired) drained_for_good.push_back(ring.get());
  }
  if (!drained_for_good.empty()) {
    std::lock_guard lock(rings_mutex_);
    std::erase_if(rings_, [&](const std::shared_ptr<Ring>& r) {
      return std::find(drained_for_good.begin(), drained_for_good.end(), r.get()) !=
             drained_for_good.end();
    });
  }
  if (!rows.empty()) file_->append(rows);  // a failure is kept in file_ (write_error)
  if (sink) sink->deliver(drained, last);
}

std::size_t TimelineRecorder::rings_in_use() {
  std::lock_guard lock(rings_mutex_);
  return rings_.size();
}

void TimelineRecorder::close() {
  enabled_.store(false);
  if (flusher_.joinable()) {
    stop_.store(true);
    wake_.notify_all();
    flusher_.join();
  }
  drain(/*last=*/true);
  std::lock_guard lock(file_mutex_);
  if (file_) {
    closed_error_ = file_->error();
    file_.reset();
  }
}

std::string TimelineRecorder::write_error() {
  std::lock_guard lock(file_mutex_);
  return file_ ? file_->error() : closed_error_;
}

}  // namespace prooflab::trace
