// The nvml counter source without a GPU: against a stand-in libnvidia-ml (tests/cpp/fakes/
// fake_nvml.cpp) for its logic, and against whatever this machine has for the real library
// (a GPU machine: used; elsewhere: unavailable with the reason). gpu_observe_test checks the
// values on a real GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <unistd.h>

#include "harness/counters/nvml_source.hpp"
#include "harness/counters/sampler.hpp"

namespace {

using namespace prooflab::harness::counters;
namespace fs = std::filesystem;

class NvmlFake : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"FAKE_NVML_INIT_ERROR", "FAKE_NVML_DEVICES", "FAKE_NVML_NO_POWER",
                          "FAKE_NVML_LOST_AFTER"})
      unsetenv(v);
  }
  void TearDown() override { SetUp(); }
  static NvmlSource fake() { return NvmlSource({PROOFLAB_FAKE_NVML}); }
};

std::map<std::string, Reading> by_key(const std::vector<Reading>& rs) {
  std::map<std::string, Reading> m;
  for (const auto& r : rs) m.emplace(std::string(r.source ? r.source : "?") + "/" + r.metric, r);
  return m;
}

TEST_F(NvmlFake, ReadsEveryMetricOfEveryDeviceAsItsOwnSource) {
  NvmlSource src = fake();
  const SourceStatus st = src.start(monotonic_ns());
  ASSERT_TRUE(st.used) << st.reason;
  // With each device's UUID, which matches NVML's index to the CUDA ordinal (run.json gpu.devices).
  EXPECT_NE(st.reason.find("nvml0 Fake GPU 0 (gpu_util, gpu_mem_used, sm_clock, power; "
                           "GPU-00000000-0000-0000-0000-000000000000)"),
            std::string::npos)
      << st.reason;
  EXPECT_NE(st.reason.find("nvml1 Fake GPU 1 (gpu_util, gpu_mem_used, sm_clock, power; "
                           "GPU-00000000-0000-0000-0000-000000000001)"),
            std::string::npos)
      << st.reason;
  std::vector<Reading> out;
  src.sample(monotonic_ns(), out);
  ASSERT_EQ(out.size(), 8u);
  const auto m = by_key(out);
  EXPECT_EQ(m.at("nvml0/gpu_util").value, 40);
  EXPECT_STREQ(m.at("nvml0/gpu_util").unit, "%");
  EXPECT_EQ(m.at("nvml1/gpu_util").value, 41);
  EXPECT_EQ(m.at("nvml1/gpu_mem_used").value, 2.0 * (1ull << 30));
  EXPECT_STREQ(m.at("nvml1/gpu_mem_used").unit, "B");
  EXPECT_EQ(m.at("nvml0/sm_clock").value, 1980);
  EXPECT_STREQ(m.at("nvml0/sm_clock").unit, "MHz");
  EXPECT_DOUBLE_EQ(m.at("nvml0/power").value, 250.5);  // mW -> W
  EXPECT_DOUBLE_EQ(m.at("nvml1/power").value, 251.5);
  EXPECT_STREQ(m.at("nvml1/power").unit, "W");
  src.stop();
}

TEST_F(NvmlFake, UnsupportedMetricIsLeftOutAndSaid) {
  setenv("FAKE_NVML_NO_POWER", "1", 1);
  setenv("FAKE_NVML_DEVICES", "1", 1);
  NvmlSource src = fake();
  const SourceStatus st = src.start(monotonic_ns());
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("nvml0 power: nvmlDeviceGetPowerUsage: Not Supported"),
            std::string::npos)
      << st.reason;
  std::vector<Reading> out;
  src.sample(monotonic_ns(), out);
  EXPECT_EQ(out.size(), 3u);
  for (const auto& r : out) EXPECT_STRNE(r.metric, "power");
}

TEST_F(NvmlFake, InitFailureIsTheReason) {
  setenv("FAKE_NVML_INIT_ERROR", "9", 1);
  NvmlSource src = fake();
  const SourceStatus st = src.start(monotonic_ns());
  EXPECT_FALSE(st.used);
  EXPECT_EQ(st.reason, "nvmlInit_v2: Driver Not Loaded");
}

TEST_F(NvmlFake, NoDeviceIsTheReason) {
  setenv("FAKE_NVML_DEVICES", "0", 1);
  NvmlSource src = fake();
  const SourceStatus st = src.start(monotonic_ns());
  EXPECT_FALSE(st.used);
  EXPECT_EQ(st.reason, "NVML sees no GPU");
}

TEST_F(NvmlFake, LostGpuStopsTheSourceMidRun) {
  setenv("FAKE_NVML_DEVICES", "1", 1);
  setenv("FAKE_NVML_LOST_AFTER", "2", 1);  // the start probe and one round read fine
  NvmlSource src = fake();
  ASSERT_TRUE(src.start(monotonic_ns()).used);
  std::vector<Reading> out;
  src.sample(monotonic_ns(), out);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_TRUE(src.status().used);
  out.clear();
  src.sample(monotonic_ns(), out);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(src.status().used);
  EXPECT_EQ(src.status().reason,
            "stopped mid-run: nvml0 nvmlDeviceGetUtilizationRates: GPU is lost");
}

TEST_F(NvmlFake, MissingLibraryIsTheReason) {
  NvmlSource src({"libprooflab-no-such-nvml.so.1"});
  const SourceStatus st = src.start(monotonic_ns());
  EXPECT_FALSE(st.used);
  EXPECT_EQ(st.reason.rfind("NVML library not found (", 0), 0u) << st.reason;
  EXPECT_NE(st.reason.find("libprooflab-no-such-nvml.so.1"), std::string::npos) << st.reason;
  EXPECT_NE(st.reason.find("comes with the NVIDIA driver"), std::string::npos) << st.reason;
  std::vector<Reading> out;
  src.sample(monotonic_ns(), out);  // never called by the sampler, harmless anyway
  EXPECT_TRUE(out.empty());
}

// Through the sampler: the rows carry the per-device sources, run.json says "nvml".
TEST_F(NvmlFake, SamplerWritesPerDeviceSources) {
  const fs::path dir = fs::temp_directory_path() / ("prooflab_nvml_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CounterOptions opts;
  opts.sources = {"nvml"};
  opts.selection = "nvml";
  opts.period_ms = 10;
  std::vector<std::unique_ptr<CounterSource>> sources;
  sources.push_back(std::make_unique<NvmlSource>(std::vector<std::string>{PROOFLAB_FAKE_NVML}));
  {
    CounterSampler sampler(dir / "counters.csv", monotonic_ns(), opts, std::move(sources));
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    sampler.stop();
    EXPECT_EQ(sampler.status_json()["nvml"]["status"], "used");
  }
  std::ifstream in(dir / "counters.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_us,source,metric,value,unit");
  std::map<std::string, int> seen;
  while (std::getline(in, line)) {
    const auto c1 = line.find(','), c2 = line.find(',', c1 + 1), c3 = line.find(',', c2 + 1);
    ++seen[line.substr(c1 + 1, c2 - c1 - 1) + "/" + line.substr(c2 + 1, c3 - c2 - 1)];
  }
  for (const char* k : {"nvml0/gpu_util", "nvml0/gpu_mem_used", "nvml0/sm_clock", "nvml0/power",
                        "nvml1/gpu_util", "nvml1/gpu_mem_used", "nvml1/sm_clock", "nvml1/power"})
    EXPECT_GE(seen[k], 1) << k;
  fs::remove_all(dir);
}

// The real library on this machine: used on a GPU machine, else a reason (never a crash).
TEST(NvmlHere, UsedOrSaysWhy) {
  NvmlSource src;
  const SourceStatus st = src.start(monotonic_ns());
  std::printf("nvml here: %s: %s\n", st.used ? "used" : "unavailable", st.reason.c_str());
  EXPECT_FALSE(st.reason.empty());
  src.stop();
}

}  // namespace
