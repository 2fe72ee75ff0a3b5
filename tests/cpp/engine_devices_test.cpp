// The engine over several devices (issue 22), on the CPU backend's emulated devices, for every
// lock policy and 1-4 devices: gw workers per device, one lock per device (never two GPU
// phases of one device at once under single and two_lock, while the devices' phases do run
// at once), the queue shared across devices in (job, partition) order, every proof verified,
// and summary.json's per-device figures equal to what the TIMELINE itself gives.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <tuple>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"
#include "engine_devices_util.hpp"
#include "engine_timeline_util.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;
using engine::LockPolicy;

// The CPU backend, with a count of GPU phases in flight per device and a rendezvous: a phase
// waits (up to a deadline) until `per_device` phases are in flight on every device at once.
// Per-device locks let it happen; one lock for all devices (or a lock under `none`) cannot,
// and the test sees the deadline pass. After it has happened, phases pass straight through.
class RendezvousBackend final : public engine::Backend {
 public:
  RendezvousBackend(int devices, int per_device, unsigned device_threads)
      : inner_(devices, 0, device_threads),
        per_device_(per_device),
        in_flight_(devices, 0),
        most_(devices, 0),
        phases_(devices, 0) {}

  std::string name() const override { return inner_.name(); }
  int num_devices() const override { return inner_.num_devices(); }
  std::uint64_t vram_budget(int d) const override { return inner_.vram_budget(d); }
  std::uint64_t vram_used(int d) const override { return inner_.vram_used(d); }
  std::uint64_t vram_peak(int d) const override { return inner_.vram_peak(d); }
  void reset_vram_peak(int d) override { inner_.reset_vram_peak(d); }
  std::uint64_t partition_vram_bytes(std::size_t n) const override {
    return inner_.partition_vram_bytes(n);
  }
  std::unique_ptr<engine::DeviceBuffers> stage(int d, const groth16::SynthesizedPartition& p,
                                               const char* stage_name) override {
    return inner_.stage(d, p, stage_name);
  }
  void synchronize(int d) override { inner_.synchronize(d); }
  void trim_pool(int d) override { inner_.trim_pool(d); }

  groth16::GpuPhaseSums run_gpu_phase(int d, const groth16::ProvingKey& pk,
                                      engine::DeviceBuffers& buffers, const groth16::MsmPlan& plan,
                                      const trace::SubstageHook& on_substage) override {
    {
      std::unique_lock lock(m_);
      ++phases_[d];
      most_[d] = std::max(most_[d], ++in_flight_[d]);
      if (std::all_of(in_flight_.begin(), in_flight_.end(),
                      [&](int n) { return n >= per_device_; }))
        met_ = true;
      cv_.notify_all();
      if (!cv_.wait_for(lock, std::chrono::seconds(20), [&] { return met_; })) {
        timed_out_ = true;
        met_ = true;  // let the run finish; the test fails on timed_out()
        cv_.notify_all();
      }
    }
    struct Leave {
      RendezvousBackend& b;
      int d;
      ~Leave() {
        std::lock_guard lock(b.m_);
        --b.in_flight_[d];
      }
    } leave{*this, d};
    return inner_.run_gpu_phase(d, pk, buffers, plan, on_substage);
  }

  bool met_without_timeout() const { return !timed_out_; }
  std::vector<int> most_in_flight() const { return most_; }
  std::vector<int> phases() const { return phases_; }

 private:
  engine::CpuBackend inner_;
  const int per_device_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<int> in_flight_, most_, phases_;
  bool met_ = false, timed_out_ = false;
};

class EngineDevices : public ::testing::TestWithParam<std::tuple<LockPolicy, int>> {
 protected:
  static void SetUpTestSuite() {
    pool_ = new parallel::ThreadPool(2);
    circuit_ = circuits::make_circuit("porep-like", 1024, 0).release();
    cs_ = new r1cs::R1cs(circuits::synthesize_shape(*circuit_));
    pk_ = new groth16::ProvingKey(
        groth16::generate_parameters(*cs_, groth16::ToxicWaste::generate(5), *pool_));
  }
  static void TearDownTestSuite() {
    delete pk_;
    delete cs_;
    delete circuit_;
    delete pool_;
  }

  static constexpr std::uint32_t kWorkers = 2;  // gw

  engine::EngineConfig config(LockPolicy policy, int devices) const {
    engine::EngineConfig c;
    c.circuit = "porep-like";
    c.constraints = 1024;
    c.devices = static_cast<std::uint32_t>(devices);
    c.gpu_workers_per_device = kWorkers;
    // Enough partitions for every worker of every device to hold one at once.
    c.partitions = kWorkers * static_cast<std::uint32_t>(devices);
    c.count = 2;
    c.concurrency = 2;
    c.lock_policy = policy;
    c.synth_threads = 2;
    c.gpu_threads = 1;
    c.device_threads = 1;
    return c;
  }

  struct Outcome {
    engine::BatchResult result;
    std::vector<test::Row> rows;
  };

  Outcome run(const engine::EngineConfig& cfg, engine::Backend& backend) {
    const fs::path dir =
        fs::temp_directory_path() / ("prooflab_engine_devices_" + std::to_string(::getpid()) + "_" +
                                     std::to_string(counter_++));
    fs::remove_all(dir);
    Outcome o;
    {
      trace::RunDirectory run_dir(dir, {{"run_id", "test"}, {"config", cfg.to_json()}});
      trace::TimelineRecorder tl(run_dir.timeline_path());
      engine::EngineInputs in{cfg, backend, *pk_, *cs_, tl, &run_dir, {}, nullptr};
      o.result = engine::run_batch(in);
      tl.close();
      run_dir.finish("complete", o.result.summary);
      o.rows = test::read_timeline(run_dir.timeline_path());
    }
    fs::remove_all(dir);
    return o;
  }

  static inline parallel::ThreadPool* pool_ = nullptr;
  static inline circuits::Circuit* circuit_ = nullptr;
  static inline r1cs::R1cs* cs_ = nullptr;
  static inline groth16::ProvingKey* pk_ = nullptr;
  static inline int counter_ = 0;
};

TEST_P(EngineDevices, OneLockPerDeviceSharedQueueVerifiedProofsAndPerDeviceFigures) {
  const auto [policy, devices] = GetParam();
  const auto cfg = config(policy, devices);
  // Under a lock one phase per device can be in flight; without one, all of its workers'.
  const int together = policy == LockPolicy::kNone ? static_cast<int>(kWorkers) : 1;
  RendezvousBackend backend(devices, together, cfg.device_threads);
  const auto o = run(cfg, backend);

  EXPECT_EQ(o.result.summary["completed"], 2);
  for (const auto& r : o.result.jobs)
    EXPECT_TRUE(r.ok) << r.reason;  // verify = on: the proofs verify
  EXPECT_TRUE(backend.met_without_timeout())
      << together << " GPU phase(s) on each of the " << devices << " devices never ran at once";

  // Lock holders per device, counted by the backend and on the TIMELINE.
  const auto most = backend.most_in_flight();
  const auto holders = test::max_lock_holders_per_device(o.rows);
  ASSERT_EQ(holders.size(), static_cast<std::size_t>(devices)) << "a device did no GPU phase";
  for (int d = 0; d < devices; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    if (policy == LockPolicy::kNone) {
      EXPECT_EQ(most[d], static_cast<int>(kWorkers));
    } else {
      EXPECT_EQ(most[d], 1) << "two partitions held device " << d << "'s lock";
      EXPECT_EQ(holders.at(d), 1);
    }
  }

  // Workers are numbered within their device, gw of them per device.
  std::set<std::pair<int, int>> workers;
  for (const auto& r : o.rows)
    if (r.event == "GPU_PICKUP") workers.insert({r.device, r.worker});
  for (const auto& [d, w] : workers) {
    EXPECT_GE(d, 0);
    EXPECT_LT(d, devices);
    EXPECT_GE(w, 0);
    EXPECT_LT(w, static_cast<int>(kWorkers));
  }

  test::expect_queue_order(o.rows);
  test::expect_device_busy_matches_timeline(o.rows, o.result.summary, devices);
  const auto phases = backend.phases();
  for (int d = 0; d < devices; ++d)
    EXPECT_EQ(o.result.summary["devices"][std::to_string(d)]["gpu_phases"].get<int>(), phases[d]);
  EXPECT_TRUE(o.result.summary["kernel_busy"].is_null());
  EXPECT_EQ(o.result.summary["kernel_busy_source"], "the cpu backend runs no CUDA kernels");
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndDevices, EngineDevices,
                         ::testing::Combine(::testing::Values(LockPolicy::kSingle,
                                                              LockPolicy::kTwoLock,
                                                              LockPolicy::kNone),
                                            ::testing::Values(1, 2, 3, 4)),
                         [](const auto& info) {
                           return std::string(engine::to_string(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_devices";
                         });

TEST_F(EngineDevices, PerDeviceFiguresAreKeptWithTheTimelineOff) {
  auto cfg = config(LockPolicy::kSingle, 3);
  cfg.record = false;
  engine::CpuBackend backend(3, 0, cfg.device_threads);
  trace::TimelineRecorder off{fs::path()};
  engine::EngineInputs in{cfg, backend, *pk_, *cs_, off, nullptr, {}, nullptr};
  const auto result = engine::run_batch(in);
  EXPECT_EQ(off.events_recorded(), 0u);
  const auto& s = result.summary;
  std::size_t phases = 0;
  for (int d = 0; d < 3; ++d) {
    const auto& dev = s["devices"][std::to_string(d)];
    phases += dev["gpu_phases"].get<std::size_t>();
    EXPECT_LE(dev["gpu_busy_us"].get<std::int64_t>(),
              s["busy_window_us"]["end"].get<std::int64_t>() -
                  s["busy_window_us"]["start"].get<std::int64_t>());
  }
  EXPECT_EQ(phases, std::size_t{cfg.count} * cfg.partitions);  // every GPU phase, on some device
  EXPECT_GT(s["gpu_busy"].get<double>(), 0.0);
}

TEST(EngineDevicesConfig, DevicesAndWorkersBelowOneAreRefusedNamingTheKey) {
  engine::EngineConfig c;
  EXPECT_THROW(c.set("devices", "0"), engine::ConfigError);
  c.devices = 0;  // assigned directly: validate() must still refuse it (no worker would run)
  try {
    c.validate();
    FAIL() << "devices = 0 accepted";
  } catch (const engine::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("devices (0)"), std::string::npos) << e.what();
  }
  c.devices = 2;
  c.gpu_workers_per_device = 0;
  EXPECT_THROW(c.validate(), engine::ConfigError);
  c.gpu_workers_per_device = 1;
  EXPECT_NO_THROW(c.validate());
}

TEST(EngineDevicesConfig, TooManyDevicesNamesTheKeyAndBothCounts) {
  const std::string msg = engine::devices_not_visible(3, 2).what();
  EXPECT_NE(msg.find("config key 'devices'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 requested"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 CUDA device(s) are visible (accepted: 1..2)"), std::string::npos) << msg;
}

}  // namespace
