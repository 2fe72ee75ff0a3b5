#include "harness/counters/bandwidth_probe.hpp"

#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "harness/counters/proc_text.hpp"

namespace prooflab::harness::counters {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

std::int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// sysfs cache sizes read "32768K" (or "1M").
std::uint64_t parse_cache_size(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return 0;
  std::uint64_t mult = 1;
  if (text.back() == 'K') mult = 1024;
  if (text.back() == 'M') mult = kMiB;
  if (mult != 1) text.pop_back();
  try {
    return std::stoull(text) * mult;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
  return buf;
}

// Read-modify-write of every word: the compiler vectorises it; the stores keep it from
// being optimised away (the ring is heap memory other code could read).
void stream_rw(std::uint64_t* p, std::size_t words) {
  for (std::size_t i = 0; i < words; ++i) p[i] += 1;
}

}  // namespace

std::uint64_t last_level_cache_bytes() {
  namespace fs = std::filesystem;
  std::uint64_t best = 0;
  int best_level = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const auto level = read_small_file((entry.path() / "level").string());
    const auto size = read_small_file((entry.path() / "size").string());
    if (!level || !size) continue;
    const int lv = std::atoi(level->c_str());
    if (lv >= best_level) {
      best_level = lv;
      best = parse_cache_size(*size);
    }
  }
  return best;
}

BandwidthProbe::BandwidthProbe(std::uint64_t bytes, std::uint64_t ring_bytes)
    : bytes_(bytes), requested_ring_(ring_bytes) {}

BandwidthProbe::~BandwidthProbe() { stop(); }

SourceStatus BandwidthProbe::start(std::int64_t) {
  std::uint64_t ring = requested_ring_;
  std::string why_size;
  if (ring == 0) {
    const std::uint64_t llc = last_level_cache_bytes();
    ring = std::clamp<std::uint64_t>(2 * llc, 16 * kMiB, 256 * kMiB);
    why_size =
        llc ? " (2 x the " + mib(llc) + " last-level cache)" : " (last-level cache size unknown)";
  }
  ring = std::max(ring, bytes_);
  ring_words_ = ring / sizeof(std::uint64_t);
  ring_ = static_cast<std::uint64_t*>(std::aligned_alloc(64, ring_words_ * sizeof(std::uint64_t)));
  if (!ring_) {
    status_ = SourceStatus::unavailable("cannot allocate the probe's " + mib(ring) + " ring");
    return status_;
  }
  std::memset(ring_, 0, ring_words_ * sizeof(std::uint64_t));  // fault it in now, not in a sample
  cursor_ = 0;
  status_ = SourceStatus::available(mib(bytes_) + " read+write per sample through a " + mib(ring) +
                                    " ring" + why_size + ", GB/s over the probe thread's CPU time");
  return status_;
}

double BandwidthProbe::run_once() {
  const std::size_t words = bytes_ / sizeof(std::uint64_t);
  std::size_t left = words;
  const std::int64_t t0 = thread_cpu_ns();
  while (left > 0) {
    const std::size_t n = std::min(left, ring_words_ - cursor_);
    stream_rw(ring_ + cursor_, n);
    cursor_ = (cursor_ + n) % ring_words_;
    left -= n;
  }
  const std::int64_t dt = std::max<std::int64_t>(thread_cpu_ns() - t0, 1);
  return 2.0 * static_cast<double>(words * sizeof(std::uint64_t)) /
         static_cast<double>(dt);  // bytes/ns = GB/s
}

void BandwidthProbe::sample(std::int64_t, std::vector<Reading>& out) {
  out.push_back({"bandwidth", run_once(), "GB/s"});
}

void BandwidthProbe::stop() {
  std::free(ring_);
  ring_ = nullptr;
}

}  // namespace prooflab::harness::counters
