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
};

namespace {
std::atomic<std::uint64_t> next_generation{1};
}

TimelineRecorder::TimelineRecorder(const std::filesystem::path& path)
    : epoch_ns_(monotonic_ns()), generation_(next_generation.fetch_add(1)) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  std::fputs("t_us,event,job,partition,worker,device,detail\n", file_);
  std::fflush(file_);
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
  // One cached ring per thread for the most recent recorder; a new recorder (a new run in
  // the same process) registers a fresh ring on first use.
  thread_local std::uint64_t cached_generation = 0;
  thread_local Ring* cached = nullptr;
  if (cached_generation != generation_) {
    auto ring = std::make_unique<Ring>();
    cached = ring.get();
    std::lock_guard lock(rings_mutex_);
    rings_.push_back(std::move(ring));
    cached_generation = generation_;
  }
  return *cached;
}

std::int64_t TimelineRecorder::record(Event e, int job, int partition, int worker, int device,
                                      std::string_view detail) {
  const std::int64_t t = now_us();
  if (!file_) return t;
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

void TimelineRecorder::write_row(const EventRecord& r) {
  char buf[256];
  int len = std::snprintf(buf, sizeof buf, "%lld,%s,", static_cast<long long>(r.t_us), event_name(r.event));
  for (const std::int32_t v : {r.job, r.partition, r.worker, r.device}) {
    if (v >= 0) len += std::snprintf(buf + len, sizeof buf - len, "%d", v);
    buf[len++] = ',';
  }
  len += std::snprintf(buf + len, sizeof buf - len, "%s\n", r.detail.data());
  std::fwrite(buf, 1, static_cast<std::size_t>(len), file_);
}

void TimelineRecorder::flush() { drain(false); }

void TimelineRecorder::drain(bool last) {
  std::lock_guard file_lock(file_mutex_);
  if (!file_) return;
  std::vector<Ring*> rings;
  {
    std::lock_guard lock(rings_mutex_);
    for (auto& r : rings_) rings.push_back(r.get());
  }
  RecordSink* const sink = record_sink_.load(std::memory_order_acquire);
  std::vector<EventRecord> drained;  // for the sink only
  for (Ring* ring : rings) {
    const std::size_t head = ring->head.load(std::memory_order_acquire);
    std::size_t tail = ring->tail.load(std::memory_order_relaxed);
    for (; tail != head; ++tail) {
      const EventRecord& r = ring->slots[tail % Ring::kCapacity];
      write_row(r);
      if (sink) drained.push_back(r);
    }
    ring->tail.store(tail, std::memory_order_release);
  }
  std::fflush(file_);
  if (sink) sink->deliver(drained, last);
}

void TimelineRecorder::close() {
  if (flusher_.joinable()) {
    stop_.store(true);
    wake_.notify_all();
    flusher_.join();
  }
  drain(/*last=*/true);
  std::lock_guard lock(file_mutex_);
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
}

}  // namespace prooflab::trace
