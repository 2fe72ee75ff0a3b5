// The lock policies alone (core/engine/gpu_lock_policy.hpp), driven through the engine's
// sequence (prestage → acquire → [fallback, stage] → compute → release) by test workers on a
// backend that records every upload and compute as it begins and ends. Expectations come from
// the order of the recorded events, not from timing: a wait only gives a broken policy the
// chance to show itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/gpu_lock_policy.hpp"

namespace prooflab::engine {
namespace {

using namespace std::chrono_literals;

enum class Kind { kUploadBegin, kUploadEnd, kComputeBegin, kComputeEnd, kSynchronize, kTrim };

struct Ev {
  int worker;
  Kind kind;
};

thread_local int current_worker = -1;

class Log {
 public:
  void add(Kind k) {
    std::lock_guard lock(m_);
    events_.push_back({current_worker, k});
  }
  std::vector<Ev> events() {
    std::lock_guard lock(m_);
    return events_;
  }
  // Position of the n-th (0-based) event of this worker and kind.
  std::size_t at(int worker, Kind k, int n = 0) {
    const auto ev = events();
    for (std::size_t i = 0; i < ev.size(); ++i)
      if (ev[i].worker == worker && ev[i].kind == k && n-- == 0) return i;
    ADD_FAILURE() << "event " << static_cast<int>(k) << " of worker " << worker << " missing";
    return 0;
  }

 private:
  std::mutex m_;
  std::vector<Ev> events_;
};

class Buffers final : public DeviceBuffers {
 public:
  explicit Buffers(std::atomic<std::uint64_t>& used) : used_(used) { used_ += 100; }
  ~Buffers() override { used_ -= 100; }
  std::uint64_t bytes() const override { return 100; }

 private:
  std::atomic<std::uint64_t>& used_;
};

// Devices of room for `budget` bytes each (the accounting is shared: the tests use one device
// at a time for memory); a partition needs 100.
class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(Log& log, std::uint64_t budget = 1000) : log_(log), budget_(budget) {}
  std::string name() const override { return "recording"; }
  int num_devices() const override { return 2; }
  std::uint64_t vram_budget(int) const override { return budget_; }
  std::uint64_t vram_used(int) const override { return used_; }
  std::uint64_t vram_peak(int) const override { return used_; }
  void reset_vram_peak(int) override {}
  std::uint64_t partition_vram_bytes(std::size_t) const override { return 100; }
  std::unique_ptr<DeviceBuffers> stage(int device, const groth16::SynthesizedPartition&, const char* stage) override {
    if (fail_allocation) throw OutOfDeviceMemory(device, stage, 100, used_, budget_);
    log_.add(Kind::kUploadBegin);
    std::this_thread::sleep_for(1ms);
    log_.add(Kind::kUploadEnd);
    return std::make_unique<Buffers>(used_);
  }
  void synchronize(int) override { log_.add(Kind::kSynchronize); }
  void trim_pool(int) override { log_.add(Kind::kTrim); }
  groth16::GpuPhaseSums run_gpu_phase(int, const groth16::ProvingKey&, DeviceBuffers&, const groth16::MsmPlan&,
                                      const trace::SubstageHook&) override {
    throw std::logic_error("not used: the test computes itself");
  }
  bool fail_allocation = false;

 private:
  Log& log_;
  std::uint64_t budget_;
  std::atomic<std::uint64_t> used_{0};
};

const groth16::SynthesizedPartition kPartition;

// The engine's GPU-phase sequence for one partition on `device`; `while_computing` runs
// between COMPUTE begin and end, the lock held.
void gpu_phase(GpuLockPolicy& policy, Backend& be, Log& log, int device,
               const std::function<void()>& while_computing = [] {}) {
  std::unique_ptr<DeviceBuffers> buffers;
  if (policy.prestages()) buffers = policy.prestage(be, device, kPartition, 16).buffers;
  const auto held = policy.acquire(device);
  if (!buffers) {
    policy.fallback_in_lock(be, device);
    buffers = be.stage(device, kPartition, "gpu_phase");
  }
  log.add(Kind::kComputeBegin);
  while_computing();
  log.add(Kind::kComputeEnd);
  buffers.reset();  // device memory back before the lock goes, as in the engine
}

// Worker 1 computes on device 0 while worker 2 runs `second` on another thread; worker 1 ends
// its compute once worker 2 signals `reached` or after `patience`. Returns whether it signalled.
bool while_one_computes(GpuLockPolicy& policy, Backend& be, Log& log,
                        const std::function<void(std::promise<void>&)>& second,
                        std::chrono::milliseconds patience) {
  std::promise<void> reached;
  auto reached_f = reached.get_future();
  std::thread other;
  bool signalled = false;
  current_worker = 1;
  gpu_phase(policy, be, log, 0, [&] {
    other = std::thread([&] {
      current_worker = 2;
      second(reached);
    });
    signalled = reached_f.wait_for(patience) == std::future_status::ready;
  });
  other.join();
  return signalled;
}

bool overlap(Log& log, int a, Kind a_begin, Kind a_end, int b, Kind b_begin, Kind b_end) {
  return log.at(a, a_begin) < log.at(b, b_end) && log.at(b, b_begin) < log.at(a, a_end);
}

TEST(TwoLockPolicy, UploadOfWorker2OverlapsComputeOfWorker1) {
  Log log;
  RecordingBackend be(log);
  const auto policy = make_gpu_lock_policy(LockPolicy::kTwoLock, 1);
  ASSERT_TRUE(policy->prestages());
  const bool uploaded = while_one_computes(*policy, be, log, [&](std::promise<void>& reached) {
    auto pre = policy->prestage(be, 0, kPartition, 16);  // mem_mtx only
    EXPECT_EQ(pre.outcome, "ok");
    reached.set_value();
    const auto held = policy->acquire(0);  // compute_mtx: after worker 1
    log.add(Kind::kComputeBegin);
    log.add(Kind::kComputeEnd);
  }, 10s);
  EXPECT_TRUE(uploaded) << "pre-staging waited for the other worker's compute";
  EXPECT_TRUE(overlap(log, 2, Kind::kUploadBegin, Kind::kUploadEnd, 1, Kind::kComputeBegin, Kind::kComputeEnd));
  // The computes themselves never overlap.
  EXPECT_GT(log.at(2, Kind::kComputeBegin), log.at(1, Kind::kComputeEnd));
}

TEST(SingleLockPolicy, UploadOfWorker2NeverOverlapsComputeOfWorker1) {
  Log log;
  RecordingBackend be(log);
  const auto policy = make_gpu_lock_policy(LockPolicy::kSingle, 1);
  EXPECT_FALSE(policy->prestages());
  EXPECT_EQ(policy->prestage(be, 0, kPartition, 16).outcome, "empty");
  const bool uploaded = while_one_computes(*policy, be, log, [&](std::promise<void>& reached) {
    gpu_phase(*policy, be, log, 0, [&] { reached.set_value(); });
  }, 200ms);
  EXPECT_FALSE(uploaded) << "worker 2 ran its GPU phase while worker 1 held the lock";
  EXPECT_GT(log.at(2, Kind::kUploadBegin), log.at(1, Kind::kComputeEnd));
}

// Many workers, many phases: from the recorded order alone, no compute overlaps another, and
// under single no upload overlaps another worker's compute either.
void expect_exclusive(LockPolicy kind, bool uploads_exclusive) {
  Log log;
  RecordingBackend be(log, 100 * 4);
  const auto policy = make_gpu_lock_policy(kind, 1);
  constexpr int kWorkers = 4, kPhases = 20;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w)
    workers.emplace_back([&, w] {
      current_worker = w;
      for (int i = 0; i < kPhases; ++i) gpu_phase(*policy, be, log, 0, [] { std::this_thread::yield(); });
    });
  for (auto& t : workers) t.join();
  int computing = 0, others_uploading = 0, most_computing = 0;
  int computing_worker = -1;
  bool upload_during_other_compute = false;
  for (const Ev& e : log.events()) {
    if (e.kind == Kind::kComputeBegin) {
      most_computing = std::max(most_computing, ++computing);
      computing_worker = e.worker;
    }
    if (e.kind == Kind::kComputeEnd) --computing;
    if (e.kind == Kind::kUploadBegin) {
      ++others_uploading;
      if (computing > 0 && computing_worker != e.worker) upload_during_other_compute = true;
    }
  }
  EXPECT_EQ(most_computing, 1) << to_string(kind);
  EXPECT_EQ(others_uploading, kWorkers * kPhases) << to_string(kind);
  if (uploads_exclusive) EXPECT_FALSE(upload_during_other_compute) << to_string(kind);
}

TEST(SingleLockPolicy, ManyWorkersNeverOverlapComputeOrUpload) { expect_exclusive(LockPolicy::kSingle, true); }
TEST(TwoLockPolicy, ManyWorkersNeverOverlapCompute) { expect_exclusive(LockPolicy::kTwoLock, false); }

TEST(SingleLockPolicy, LocksArePerDevice) {
  Log log;
  RecordingBackend be(log);
  const auto policy = make_gpu_lock_policy(LockPolicy::kSingle, 2);
  const bool computed = while_one_computes(*policy, be, log, [&](std::promise<void>& reached) {
    gpu_phase(*policy, be, log, 1, [&] { reached.set_value(); });
  }, 10s);
  EXPECT_TRUE(computed) << "device 1 waited for device 0's lock";
  EXPECT_TRUE(overlap(log, 2, Kind::kComputeBegin, Kind::kComputeEnd, 1, Kind::kComputeBegin, Kind::kComputeEnd));
}

TEST(NoLockPolicy, ComputesOverlap) {
  Log log;
  RecordingBackend be(log);
  const auto policy = make_gpu_lock_policy(LockPolicy::kNone, 1);
  EXPECT_FALSE(policy->prestages());
  const bool computed = while_one_computes(*policy, be, log, [&](std::promise<void>& reached) {
    gpu_phase(*policy, be, log, 0, [&] { reached.set_value(); });
  }, 10s);
  EXPECT_TRUE(computed) << "none waited for another worker";
  EXPECT_TRUE(overlap(log, 2, Kind::kComputeBegin, Kind::kComputeEnd, 1, Kind::kComputeBegin, Kind::kComputeEnd));
}

TEST(TwoLockPolicy, PrestageOutcomesAndTheFallbackPath) {
  Log log;
  {
    RecordingBackend small(log, 50);  // less than one partition
    const auto policy = make_gpu_lock_policy(LockPolicy::kTwoLock, 1);
    const auto pre = policy->prestage(small, 0, kPartition, 16);
    EXPECT_EQ(pre.outcome, "skip_vram");
    EXPECT_EQ(pre.buffers, nullptr);
    EXPECT_TRUE(log.events().empty()) << "skip_vram uploaded";
  }
  RecordingBackend be(log);
  const auto policy = make_gpu_lock_policy(LockPolicy::kTwoLock, 1);
  be.fail_allocation = true;
  const auto failed = policy->prestage(be, 0, kPartition, 16);
  EXPECT_EQ(failed.outcome, "fallback");
  EXPECT_EQ(failed.buffers, nullptr);
  be.fail_allocation = false;
  const auto ok = policy->prestage(be, 0, kPartition, 16);
  EXPECT_EQ(ok.outcome, "ok");
  EXPECT_NE(ok.buffers, nullptr);
  // The fallback path: device-global synchronise, then the pool trim.
  EXPECT_TRUE(policy->fallback_in_lock(be, 0));
  const auto ev = log.events();
  ASSERT_EQ(ev.size(), 4u);  // the upload of `ok`, then the two
  EXPECT_EQ(ev[2].kind, Kind::kSynchronize);
  EXPECT_EQ(ev[3].kind, Kind::kTrim);
  for (const LockPolicy other : {LockPolicy::kSingle, LockPolicy::kNone})
    EXPECT_FALSE(make_gpu_lock_policy(other, 1)->fallback_in_lock(be, 0)) << to_string(other);
  EXPECT_EQ(log.events().size(), 4u);
}

}  // namespace
}  // namespace prooflab::engine
