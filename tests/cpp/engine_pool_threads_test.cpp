// gpu_threads = N means N threads run b_g2_msm (issue 16, item 1). The old pool started
// N - 1 workers and ran a pool of 1 inline, so gpu_threads = 1 ran b_g2_msm on the GPU
// worker thread (before it waited for the lock) and gpu_threads = N used N - 1 threads.
//
// The census: the pool names its workers after the pool ("groth16"); at the start and the
// end of b_g2_msm (the engine's stage listener, called on the thread that runs the task)
// it reads every thread's CPU time from /proc/self/task/<tid>/schedstat (nanoseconds) and
// counts the groth16 threads whose CPU time grew by a real share of the work. One partition
// in the whole batch, so nothing else runs on the groth16 pool meanwhile. The circuit is
// poseidon-merkle (field-element witnesses, so b_g2_msm has a real Pippenger tail that
// splits into many chunks; porep-like's mostly-bit scalars at test sizes fit one chunk).
#include <gtest/gtest.h>

#include <pthread.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;

// CPU time so far of every thread of this process named `name`, by thread id.
std::map<std::string, std::uint64_t> cpu_ns_of_threads_named(const std::string& name) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm"), sched(task.path() / "schedstat");
    std::string thread_name;
    std::uint64_t on_cpu_ns = 0;
    if (!std::getline(comm, thread_name) || !(sched >> on_cpu_ns)) continue;  // thread just ended
    if (thread_name == name) out[task.path().filename().string()] = on_cpu_ns;
  }
  return out;
}

class BG2Census final : public trace::StageListener {
 public:
  std::uint64_t stage_begin(trace::Stage stage, const trace::StageTag&) noexcept override {
    if (stage != trace::Stage::kBG2Msm) return 0;
    std::lock_guard lock(m_);
    char buf[16] = {};
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    task_thread_ = buf;
    before_ = cpu_ns_of_threads_named("groth16");
    ++b_g2_count_;
    return 1;
  }
  void stage_end(trace::Stage stage, std::uint64_t) noexcept override {
    if (stage != trace::Stage::kBG2Msm) return;
    std::lock_guard lock(m_);
    after_ = cpu_ns_of_threads_named("groth16");
  }
  // Threads that did at least 2 % of the b_g2_msm work (idle workers do none; a worker
  // woken for a chunk that another thread already took spends microseconds).
  int threads_that_worked() const {
    std::uint64_t total = 0;
    std::map<std::string, std::uint64_t> grew;
    for (const auto& [tid, ns] : after_) {
      const auto it = before_.find(tid);
      grew[tid] = ns - (it == before_.end() ? 0 : it->second);
      total += grew[tid];
    }
    int n = 0;
    for (const auto& [tid, ns] : grew) n += ns * 50 >= total && ns > 0;
    return n;
  }
  std::string task_thread_;
  int b_g2_count_ = 0;
  std::size_t pool_threads() const { return after_.size(); }

 private:
  std::mutex m_;
  std::map<std::string, std::uint64_t> before_, after_;
};

class EnginePoolThreads : public ::testing::TestWithParam<unsigned> {
 protected:
  static constexpr const char* kCircuit = "poseidon-merkle";
  static constexpr std::uint64_t kConstraints = 1 << 13;
  static void SetUpTestSuite() {
    parallel::ThreadPool setup_pool(2, "setup");
    circuit_ = circuits::make_circuit(kCircuit, kConstraints, 0).release();
    cs_ = new r1cs::R1cs(circuits::synthesize_shape(*circuit_));
    pk_ = new groth16::ProvingKey(groth16::generate_parameters(*cs_, groth16::ToxicWaste::generate(5), setup_pool));
  }
  static void TearDownTestSuite() {
    delete pk_;
    delete cs_;
    delete circuit_;
  }
  static inline circuits::Circuit* circuit_ = nullptr;
  static inline r1cs::R1cs* cs_ = nullptr;
  static inline groth16::ProvingKey* pk_ = nullptr;
};

TEST_P(EnginePoolThreads, GpuThreadsNMeansNThreadsRanBG2Msm) {
  const unsigned n = GetParam();
  engine::EngineConfig cfg;
  cfg.circuit = kCircuit;
  cfg.constraints = kConstraints;
  cfg.partitions = 1;
  cfg.count = 1;
  cfg.concurrency = 1;
  cfg.synth_threads = 1;
  cfg.device_threads = 1;
  cfg.gpu_threads = n;
  const fs::path dir = fs::temp_directory_path() / ("prooflab_pool_threads_" + std::to_string(::getpid()) + "_" +
                                                    std::to_string(n));
  fs::remove_all(dir);
  {
    trace::RunDirectory run_dir(dir, {{"run_id", "pool-threads"}, {"config", cfg.to_json()}});
    trace::TimelineRecorder tl(run_dir.timeline_path());
    BG2Census census;
    tl.set_stage_listener(&census);
    engine::CpuBackend backend(1, cfg.vram_limit, cfg.device_threads);
    engine::EngineInputs in{cfg, backend, *pk_, *cs_, tl, &run_dir, {}, nullptr};
    const auto result = engine::run_batch(in);
    tl.close();
    ASSERT_EQ(result.summary["completed"], 1);
    ASSERT_EQ(census.b_g2_count_, 1);
    EXPECT_EQ(census.task_thread_, "groth16") << "b_g2_msm began outside the groth16 pool";
    EXPECT_EQ(census.pool_threads(), n);
    EXPECT_EQ(census.threads_that_worked(), static_cast<int>(n));
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(GpuThreads, EnginePoolThreads, ::testing::Values(1u, 2u, 3u));

}  // namespace
