// The energy sources and the energy summary without energy hardware: the GPU source against
// the stand-in libnvidia-ml (tests/cpp/fakes/fake_nvml.cpp) replaying recorded readings, the
// host source on a sysfs fixture tree with recorded perf counts, the summary on recorded
// counters.csv rows. Each expected value is computed here from the recorded inputs. On this
// machine the real sources must say why they do not run.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "harness/counters/energy_nvml_source.hpp"
#include "harness/counters/energy_perf_power_source.hpp"
#include "harness/counters/energy_summary.hpp"
#include "harness/counters/sampler.hpp"

namespace {

using namespace prooflab::harness::counters;
using prooflab::harness::trace_export::CounterSample;
namespace fs = std::filesystem;

constexpr std::int64_t kSecond = 1'000'000'000;

// ------------------------------------------------------------------ gpu_energy (NVML)

class GpuEnergy : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"FAKE_NVML_INIT_ERROR", "FAKE_NVML_DEVICES", "FAKE_NVML_NO_POWER",
                          "FAKE_NVML_LOST_AFTER", "FAKE_NVML_NO_ENERGY", "FAKE_NVML_ENERGY_MJ",
                          "FAKE_NVML_POWER_MW"})
      unsetenv(v);
  }
  void TearDown() override { SetUp(); }
  static NvmlEnergySource fake() { return NvmlEnergySource({PROOFLAB_FAKE_NVML}); }
};

std::map<std::string, double> joules_by_source(const std::vector<Reading>& rs) {
  std::map<std::string, double> m;
  for (const auto& r : rs) {
    EXPECT_STREQ(r.metric, "energy");
    EXPECT_STREQ(r.unit, "J");
    m[r.source ? r.source : "?"] = r.value;
  }
  return m;
}

TEST_F(GpuEnergy, CounterIsMillijoulesSinceDriverLoadMinusTheReadingAtStart) {
  // Device 1's count is near 2^64: a double of the raw mJ count could not resolve 1 mJ there,
  // so the difference must be taken on the integers.
  const std::vector<std::vector<std::uint64_t>> mj = {
      {123'456'789'000ull, 123'456'790'500ull, 123'456'794'000ull},
      {18'446'744'073'709'000'000ull, 18'446'744'073'709'000'001ull, 18'446'744'073'709'000'251ull}};
  setenv("FAKE_NVML_DEVICES", "2", 1);
  std::string env;
  for (const auto& dev : mj) {
    if (!env.empty()) env += ';';
    for (std::size_t k = 0; k < dev.size(); ++k) env += (k ? "," : "") + std::to_string(dev[k]);
  }
  setenv("FAKE_NVML_ENERGY_MJ", env.c_str(), 1);
  NvmlEnergySource src = fake();
  const SourceStatus st = src.start(0);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("gpu_energy0 Fake GPU 0: total energy counter"), std::string::npos)
      << st.reason;
  for (std::size_t k = 1; k < 3; ++k) {
    std::vector<Reading> out;
    src.sample(static_cast<std::int64_t>(k) * kSecond / 10, out);
    const auto j = joules_by_source(out);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_DOUBLE_EQ(j.at("gpu_energy0"), static_cast<double>(mj[0][k] - mj[0][0]) / 1000.0);
    EXPECT_DOUBLE_EQ(j.at("gpu_energy1"), static_cast<double>(mj[1][k] - mj[1][0]) / 1000.0);
  }
  EXPECT_TRUE(src.status().used);
}

TEST_F(GpuEnergy, CounterGoingBackStopsTheSource) {
  setenv("FAKE_NVML_DEVICES", "1", 1);
  setenv("FAKE_NVML_ENERGY_MJ", "7000,9000,6000", 1);
  NvmlEnergySource src = fake();
  ASSERT_TRUE(src.start(0).used);
  std::vector<Reading> out;
  src.sample(kSecond, out);
  EXPECT_DOUBLE_EQ(joules_by_source(out).at("gpu_energy0"), 2.0);
  out.clear();
  src.sample(2 * kSecond, out);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(src.status().used);
  EXPECT_EQ(src.status().reason,
            "stopped mid-run: gpu_energy0 nvmlDeviceGetTotalEnergyConsumption went back from 9000 "
            "to 6000 mJ (driver reloaded or GPU reset)");
}

TEST_F(GpuEnergy, GpuLostMidRunStopsTheSource) {
  setenv("FAKE_NVML_DEVICES", "2", 1);
  setenv("FAKE_NVML_ENERGY_MJ", "1000,1500,2000;1000,1250,lost", 1);
  NvmlEnergySource src = fake();
  ASSERT_TRUE(src.start(0).used);
  std::vector<Reading> out;
  src.sample(kSecond, out);
  EXPECT_EQ(out.size(), 2u);
  out.clear();
  src.sample(2 * kSecond, out);
  EXPECT_TRUE(out.empty()) << "a round with a lost GPU writes no partial energy";
  EXPECT_FALSE(src.status().used);
  EXPECT_EQ(src.status().reason,
            "stopped mid-run: gpu_energy1 nvmlDeviceGetTotalEnergyConsumption: GPU is lost");
}

TEST_F(GpuEnergy, WithoutTheCounterPowerIsIntegratedByTrapezoidsOverTheRoundTimes) {
  setenv("FAKE_NVML_DEVICES", "1", 1);
  setenv("FAKE_NVML_NO_ENERGY", "1", 1);
  const std::vector<double> watts = {100.0, 300.0, 200.0, 200.5};
  const std::vector<std::int64_t> t_ns = {5 * kSecond, 5 * kSecond + kSecond / 2,
                                          5 * kSecond + 3 * kSecond / 4, 7 * kSecond};
  std::string env;
  for (double w : watts) env += (env.empty() ? "" : ",") + std::to_string(std::lround(w * 1000));
  setenv("FAKE_NVML_POWER_MW", env.c_str(), 1);
  NvmlEnergySource src = fake();
  const SourceStatus st = src.start(t_ns[0]);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("gpu_energy0 Fake GPU 0: power integrated over the rounds "
                           "(nvmlDeviceGetTotalEnergyConsumption: Not Supported)"),
            std::string::npos)
      << st.reason;
  double expected = 0;
  for (std::size_t k = 1; k < watts.size(); ++k) {
    expected += (watts[k - 1] + watts[k]) / 2 * static_cast<double>(t_ns[k] - t_ns[k - 1]) / 1e9;
    std::vector<Reading> out;
    src.sample(t_ns[k], out);
    EXPECT_NEAR(joules_by_source(out).at("gpu_energy0"), expected, 1e-9) << "round " << k;
  }
  EXPECT_NEAR(expected, 100.0 + 62.5 + 250.3125, 1e-9);  // the arithmetic, by hand
}

TEST_F(GpuEnergy, NeitherCounterNorPowerIsTheReason) {
  setenv("FAKE_NVML_DEVICES", "1", 1);
  setenv("FAKE_NVML_NO_ENERGY", "1", 1);
  setenv("FAKE_NVML_NO_POWER", "1", 1);
  NvmlEnergySource src = fake();
  const SourceStatus st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_EQ(st.reason,
            "no GPU energy readable; gpu_energy0: nvmlDeviceGetTotalEnergyConsumption: Not "
            "Supported, nvmlDeviceGetPowerUsage: Not Supported");
}

TEST_F(GpuEnergy, InitFailureIsTheReason) {
  setenv("FAKE_NVML_INIT_ERROR", "9", 1);
  NvmlEnergySource src = fake();
  EXPECT_EQ(src.start(0).reason, "nvmlInit_v2: Driver Not Loaded");
}

// Through the sampler beside the nvml source (both hold NVML; its init is reference counted):
// the rows are cumulative, so they never decrease down the file.
TEST_F(GpuEnergy, SamplerWritesCumulativeRowsBesideTheNvmlSource) {
  const fs::path dir = fs::temp_directory_path() / ("prooflab_energy_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  CounterOptions opts;
  opts.sources = {"gpu_energy"};
  opts.selection = "gpu_energy";
  opts.period_ms = 10;
  std::vector<std::unique_ptr<CounterSource>> sources;
  sources.push_back(std::make_unique<NvmlEnergySource>(std::vector<std::string>{PROOFLAB_FAKE_NVML}));
  sources.push_back(std::make_unique<UnavailableSource>("nvml", "not in this test"));
  {
    CounterSampler sampler(dir / "counters.csv", monotonic_ns(), opts, std::move(sources));
    // At least two rounds (two rows per GPU), however slowly a loaded host schedules the
    // sampler: wait for the rows rather than for a fixed time (a 60 ms sleep gave one round
    // on a 2-core machine at load 9).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    auto data_rows = [&] {
      std::ifstream in(dir / "counters.csv");
      std::size_t n = 0;
      for (std::string line; std::getline(in, line);) n += line.find("gpu_energy") != std::string::npos;
      return n;
    };
    while (data_rows() < 4 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    sampler.stop();
    EXPECT_EQ(sampler.status_json()["gpu_energy"]["status"], "used");
  }
  std::vector<std::string> warnings;
  const auto rows =
      prooflab::harness::trace_export::read_counters_csv(dir / "counters.csv", true, warnings);
  std::map<std::string, std::vector<double>> series;
  for (const auto& r : rows) {
    EXPECT_EQ(r.metric, "energy");
    EXPECT_EQ(r.unit, "J");
    series[r.source].push_back(r.value);
  }
  ASSERT_EQ(series.size(), 2u);  // the fake's two GPUs
  for (const auto& [source, v] : series) {
    ASSERT_GE(v.size(), 2u) << source;
    // The fake adds 250 mJ per read: the k-th round reads k × 0.25 J since start.
    for (std::size_t k = 0; k < v.size(); ++k)
      EXPECT_DOUBLE_EQ(v[k], 0.25 * static_cast<double>(k + 1)) << source << " round " << k;
  }
  fs::remove_all(dir);
}

// ------------------------------------------------------------------ host_energy (perf power)

// Recorded perf counts, per (event config, cpu): each read returns the next; past the end
// the read fails with EIO.
class RecordedCounters final : public PerfCounters {
 public:
  using Key = std::pair<std::uint64_t, int>;
  explicit RecordedCounters(std::map<Key, std::vector<std::uint64_t>> counts)
      : counts_(std::move(counts)) {}
  int open(const PmuEvent& ev, int cpu, std::string* why) override {
    const Key k{ev.config[0], cpu};
    if (!counts_.count(k)) {
      *why = "no recorded counts for " + ev.event + " on cpu " + std::to_string(cpu);
      return -1;
    }
    handles_.push_back(k);
    return static_cast<int>(handles_.size()) - 1;
  }
  bool read(int handle, std::uint64_t& count) override {
    const Key k = handles_.at(handle);
    auto& seq = counts_.at(k);
    std::size_t& next = next_[k];
    if (next >= seq.size()) {
      errno = EIO;
      return false;
    }
    count = seq[next++];
    return true;
  }
  void close(int) override {}

 private:
  std::map<Key, std::vector<std::uint64_t>> counts_;
  std::map<Key, std::size_t> next_;
  std::vector<Key> handles_;
};

class HostEnergy : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("prooflab_power_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    for (const char* pmu : {"software", "tracepoint", "msr"}) fs::create_directories(devices() / pmu);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path devices() const { return root_ / "bus/event_source/devices"; }
  fs::path power() const { return devices() / "power"; }
  void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // The power PMU as Linux describes it (arch/x86/events/rapl.c): type, a cpumask with one
  // CPU per package, `event` in config:0-7, and per event its code, scale and unit.
  void add_power_pmu(const std::string& cpumask) {
    write(power() / "type", "23\n");
    write(power() / "cpumask", cpumask + "\n");
    write(power() / "format/event", "config:0-7\n");
  }
  void add_event(const std::string& name, int code, const std::string& scale,
                 const std::string& unit = "Joules") {
    write(power() / "events" / name, "event=0x0" + std::to_string(code) + "\n");
    write(power() / "events" / (name + ".scale"), scale + "\n");
    write(power() / "events" / (name + ".unit"), unit + "\n");
  }
  fs::path root_;
};

constexpr double kRaplScale = 2.3283064365386962890625e-10;  // 2^-32 J, the kernel's unit

std::map<std::string, double> by_metric(const std::vector<Reading>& rs) {
  std::map<std::string, double> m;
  for (const auto& r : rs) {
    EXPECT_STREQ(r.unit, "J");
    m[r.metric] = r.value;
  }
  return m;
}

TEST_F(HostEnergy, ScaleAndUnitFromSysfsSummedOverThePackages) {
  add_power_pmu("0,56");
  add_event("energy-pkg", 2, "2.3283064365386962890625e-10");
  add_event("energy-ram", 3, "6.103515625e-05");  // another scale (2^-14 J): read, not assumed
  add_event("energy-psys", 5, "2.3283064365386962890625e-10");
  const std::vector<std::uint64_t> pkg0 = {1'000'000'000'000ull, 1'042'949'672'960ull, 1'300'000'000'000ull};
  const std::vector<std::uint64_t> pkg1 = {5ull, 21'474'836'485ull, 64'424'509'445ull};
  const std::vector<std::uint64_t> ram0 = {100, 16'484, 40'100}, ram1 = {0, 8'192, 8'192};
  const std::vector<std::uint64_t> psys = {7, 429'496'729'607ull, 858'993'459'207ull};
  auto counts = std::make_unique<RecordedCounters>(std::map<RecordedCounters::Key, std::vector<std::uint64_t>>{
      {{2, 0}, pkg0}, {{2, 56}, pkg1}, {{3, 0}, ram0}, {{3, 56}, ram1}, {{5, 0}, psys}, {{5, 56}, psys}});
  PerfPowerEnergySource src(root_, std::move(counts));
  const SourceStatus st = src.start(0);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("energy_pkg (cpu 0 56), energy_psys (cpu 0 56), energy_ram (cpu 0 56)"),
            std::string::npos)
      << st.reason;
  for (std::size_t k = 1; k < 3; ++k) {
    std::vector<Reading> out;
    src.sample(0, out);
    const auto j = by_metric(out);
    ASSERT_EQ(j.size(), 3u);
    EXPECT_DOUBLE_EQ(j.at("energy_pkg"),
                     static_cast<double>((pkg0[k] - pkg0[0]) + (pkg1[k] - pkg1[0])) * kRaplScale);
    EXPECT_DOUBLE_EQ(j.at("energy_ram"),
                     static_cast<double>((ram0[k] - ram0[0]) + (ram1[k] - ram1[0])) * 6.103515625e-05);
    EXPECT_DOUBLE_EQ(j.at("energy_psys"), static_cast<double>(2 * (psys[k] - psys[0])) * kRaplScale);
  }
}

TEST_F(HostEnergy, TheKernelsCountWrapsAt2To64) {
  add_power_pmu("0");
  add_event("energy-pkg", 2, "2.3283064365386962890625e-10");
  const std::uint64_t near_end = ~0ull - 999;  // 2^64 - 1000
  PerfPowerEnergySource src(
      root_, std::make_unique<RecordedCounters>(std::map<RecordedCounters::Key, std::vector<std::uint64_t>>{
                 {{2, 0}, {near_end, near_end + 500, 1500}}}));  // the second read wrapped
  ASSERT_TRUE(src.start(0).used);
  std::vector<Reading> out;
  src.sample(0, out);
  EXPECT_DOUBLE_EQ(by_metric(out).at("energy_pkg"), 500 * kRaplScale);
  out.clear();
  src.sample(0, out);
  // 1000 counts up to 2^64, then 1500 past it, since the start.
  EXPECT_DOUBLE_EQ(by_metric(out).at("energy_pkg"), 2500 * kRaplScale);
}

TEST_F(HostEnergy, MissingAndMalformedEventsAreLeftOutAndNamed) {
  add_power_pmu("0");
  add_event("energy-pkg", 2, "2.3283064365386962890625e-10");
  add_event("energy-cores", 1, "not-a-number");
  add_event("energy-gpu", 4, "1e-6", "Watts");
  PerfPowerEnergySource src(
      root_, std::make_unique<RecordedCounters>(std::map<RecordedCounters::Key, std::vector<std::uint64_t>>{
                 {{2, 0}, {0, 4'294'967'296ull}}}));
  const SourceStatus st = src.start(0);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("every round: energy_pkg (cpu 0); not used: "), std::string::npos)
      << st.reason;
  EXPECT_NE(st.reason.find("events/energy-cores.scale: not a number (content: 'not-a-number')"),
            std::string::npos)
      << st.reason;
  EXPECT_NE(st.reason.find("power/energy-gpu/ counts 'Watts', not Joules"), std::string::npos)
      << st.reason;
  std::vector<Reading> out;
  src.sample(0, out);
  ASSERT_EQ(out.size(), 1u);  // energy-ram, energy-psys: not on this CPU, not made up
  EXPECT_DOUBLE_EQ(by_metric(out).at("energy_pkg"), 1.0);  // 2^32 counts of 2^-32 J
}

TEST_F(HostEnergy, AReadFailingMidRunStopsTheSource) {
  add_power_pmu("0");
  add_event("energy-pkg", 2, "2.3283064365386962890625e-10");
  PerfPowerEnergySource src(
      root_, std::make_unique<RecordedCounters>(std::map<RecordedCounters::Key, std::vector<std::uint64_t>>{
                 {{2, 0}, {0, 10}}}));
  ASSERT_TRUE(src.start(0).used);
  std::vector<Reading> out;
  src.sample(0, out);
  EXPECT_EQ(out.size(), 1u);
  out.clear();
  src.sample(0, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(src.status().reason,
            "stopped mid-run: reading power/energy-pkg/ on cpu 0 failed: Input/output error");
}

TEST_F(HostEnergy, NoPowerPmuNamesWhatIsThere) {
  PerfPowerEnergySource src(root_);
  const SourceStatus st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_EQ(st.reason, "no power PMU (RAPL energy counters) under " + devices().string() +
                           " (present: msr, software, tracepoint)");
}

TEST_F(HostEnergy, KernelRefusingTheEventIsTheReason) {
  add_power_pmu("0");
  add_event("energy-pkg", 2, "2.3283064365386962890625e-10");
  write(power() / "type", "4242\n");  // a type no kernel has
  PerfPowerEnergySource src(root_);   // the kernel's perf_event_open
  const SourceStatus st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("no energy event of the power PMU opened: "
                           "perf_event_open(power/energy-pkg/, cpu 0) failed: "),
            std::string::npos)
      << st.reason;
}

// ------------------------------------------------------------------ on this machine

TEST(EnergyHere, UnavailableSourcesSayWhy) {
  NvmlEnergySource gpu;
  const SourceStatus g = gpu.start(monotonic_ns());
  std::printf("gpu_energy here: %s: %s\n", g.used ? "used" : "unavailable", g.reason.c_str());
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    EXPECT_FALSE(g.used);
    EXPECT_EQ(g.reason.rfind("NVML library not found (", 0), 0u) << g.reason;
  } else {
    dlclose(lib);
    EXPECT_FALSE(g.reason.empty());
  }
  gpu.stop();

  PerfPowerEnergySource host;
  const SourceStatus h = host.start(monotonic_ns());
  std::printf("host_energy here: %s: %s\n", h.used ? "used" : "unavailable", h.reason.c_str());
  if (!fs::exists("/sys/bus/event_source/devices/power")) {
    EXPECT_FALSE(h.used);
    EXPECT_EQ(h.reason.rfind("no power PMU (RAPL energy counters) under "
                             "/sys/bus/event_source/devices (present: ",
                             0),
              0u)
        << h.reason;
  } else {
    EXPECT_FALSE(h.reason.empty());
  }
  host.stop();
}

// ------------------------------------------------------------------ the energy summary

CounterSample row(std::int64_t t_us, const std::string& source, const std::string& metric,
                  double joules) {
  CounterSample s;
  s.t_us = t_us;
  s.source = source;
  s.metric = metric;
  s.value = joules;
  s.unit = "J";
  return s;
}

// E(t) of cumulative samples, 0 at t0, linear in between (the test's own interpolation).
double interpolate(std::int64_t t0, const std::vector<std::pair<std::int64_t, double>>& pts,
                   std::int64_t t) {
  std::int64_t ta = t0;
  double ea = 0;
  for (const auto& [tb, eb] : pts) {
    if (t <= tb) return ea + (eb - ea) * static_cast<double>(t - ta) / static_cast<double>(tb - ta);
    ta = tb;
    ea = eb;
  }
  return ea;
}

TEST(EnergySummary, PerProofAveragePowerAndProofsPerKwhOverTheRunWindow) {
  const std::int64_t t0 = 50'000;
  const std::vector<std::pair<std::int64_t, double>> g0 = {{150'000, 40.0}, {250'000, 110.0},
                                                           {350'000, 190.0}, {450'000, 260.0}};
  const std::vector<std::pair<std::int64_t, double>> g1 = {{150'000, 5.0}, {250'000, 12.0},
                                                           {350'000, 20.5}, {450'000, 26.0}};
  const std::vector<std::pair<std::int64_t, double>> psys = {{150'000, 30.0}, {250'000, 60.0},
                                                             {350'000, 95.0}, {450'000, 126.0}};
  std::vector<CounterSample> rows;
  for (std::size_t k = 0; k < g0.size(); ++k) {  // the sampler's order: one round after another
    rows.push_back(row(g0[k].first, "gpu_energy0", "energy", g0[k].second));
    rows.push_back(row(g1[k].first, "gpu_energy1", "energy", g1[k].second));
    rows.push_back(row(psys[k].first, "host_energy", "energy_pkg", psys[k].second / 2));
    rows.push_back(row(psys[k].first, "host_energy", "energy_psys", psys[k].second));
    rows.push_back(row(g0[k].first, "nvml0", "power", 700.0));  // not energy: ignored
  }
  const EnergyWindow w{t0, 120'000, 400'000, 4};
  const auto s = energy_summary(rows, w);

  auto window_energy = [&](const auto& pts) {
    return interpolate(t0, pts, w.end_us) - interpolate(t0, pts, w.start_us);
  };
  const double gpu = window_energy(g0) + window_energy(g1);
  const double host = window_energy(psys);  // psys, not psys + pkg
  const double seconds = (w.end_us - w.start_us) / 1e6;
  EXPECT_NEAR(s["gpu_j"].get<double>(), gpu, 1e-9);
  EXPECT_NEAR(s["host_j"].get<double>(), host, 1e-9);
  EXPECT_NEAR(s["total_j"].get<double>(), gpu + host, 1e-9);
  EXPECT_NEAR(s["gpu_j_per_proof"].get<double>(), gpu / 4, 1e-9);
  EXPECT_NEAR(s["host_j_per_proof"].get<double>(), host / 4, 1e-9);
  EXPECT_NEAR(s["j_per_proof"].get<double>(), (gpu + host) / 4, 1e-9);
  EXPECT_NEAR(s["gpu_avg_power_w"].get<double>(), gpu / seconds, 1e-6);
  EXPECT_NEAR(s["host_avg_power_w"].get<double>(), host / seconds, 1e-6);
  EXPECT_NEAR(s["avg_power_w"].get<double>(), (gpu + host) / seconds, 1e-6);
  EXPECT_NEAR(s["proofs_per_kwh"].get<double>(), 4 / ((gpu + host) / 3.6e6), 1e-6);
  EXPECT_DOUBLE_EQ(s["window_s"].get<double>(), seconds);
  EXPECT_EQ(s["proofs"], 4);
  EXPECT_EQ(s["gpu_sources"], (nlohmann::json{"gpu_energy0", "gpu_energy1"}));
  EXPECT_EQ(s["host_sources"], (nlohmann::json{"energy_psys"}));
  EXPECT_TRUE(s["notes"].empty()) << s["notes"];
  // The window starts before the first sample: E there comes from the baseline at t0.
  EXPECT_NEAR(interpolate(t0, g0, 120'000), 40.0 * 70'000 / 100'000, 1e-12);
}

TEST(EnergySummary, WithoutPsysTheHostIsPkgPlusRam) {
  std::vector<CounterSample> rows;
  for (const char* m : {"energy_pkg", "energy_ram", "energy_cores"})
    for (int k = 1; k <= 3; ++k)
      rows.push_back(row(k * 100'000, "host_energy", m, k * (m[7] == 'p' ? 30.0 : m[7] == 'r' ? 5.0 : 20.0)));
  const auto s = energy_summary(rows, {0, 100'000, 300'000, 2});
  // pkg 30 J/round and ram 5 J/round over two rounds; cores is part of pkg and not added.
  EXPECT_DOUBLE_EQ(s["host_j"].get<double>(), 2 * 30.0 + 2 * 5.0);
  EXPECT_EQ(s["host_sources"], (nlohmann::json{"energy_pkg", "energy_ram"}));
  EXPECT_TRUE(s["gpu_j"].is_null());
  EXPECT_TRUE(s["j_per_proof"].is_null()) << "no sum without the GPU part";
  EXPECT_TRUE(s["proofs_per_kwh"].is_null());
  EXPECT_DOUBLE_EQ(s["host_j_per_proof"].get<double>(), 35.0);
  EXPECT_EQ(s["notes"][0], "no GPU energy recorded (run.json counters.gpu_energy says why)");
}

TEST(EnergySummary, PkgAloneIsSaid) {
  const auto s = energy_summary({row(100'000, "host_energy", "energy_pkg", 12.0),
                                 row(200'000, "host_energy", "energy_pkg", 24.0)},
                                {0, 100'000, 200'000, 3});
  EXPECT_DOUBLE_EQ(s["host_j"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(s["host_j_per_proof"].get<double>(), 4.0);
  bool said = false;
  for (const auto& n : s["notes"])
    said = said || n.get<std::string>().find("energy_pkg alone: no energy_ram") != std::string::npos;
  EXPECT_TRUE(said) << s["notes"];
}

TEST(EnergySummary, AGpuLostMidRunGivesNoGpuFigureRatherThanAPartialOne) {
  std::vector<CounterSample> rows = {
      row(100'000, "gpu_energy0", "energy", 70.0), row(100'000, "gpu_energy1", "energy", 70.0),
      row(100'000, "host_energy", "energy_psys", 20.0),
      row(200'000, "gpu_energy0", "energy", 140.0), row(200'000, "gpu_energy1", "energy", 140.0),
      row(200'000, "host_energy", "energy_psys", 40.0),
      // gpu_energy1 lost: the source stopped, no more rows of either GPU
      row(300'000, "host_energy", "energy_psys", 60.0)};
  const auto s = energy_summary(rows, {0, 50'000, 300'000, 2});
  EXPECT_TRUE(s["gpu_j"].is_null());
  EXPECT_TRUE(s["gpu_j_per_proof"].is_null());
  EXPECT_TRUE(s["j_per_proof"].is_null());
  EXPECT_DOUBLE_EQ(s["host_j"].get<double>(), 60.0 - 10.0);
  ASSERT_EQ(s["notes"].size(), 2u) << s["notes"];
  EXPECT_EQ(s["notes"][0],
            "gpu_energy0: last sample at t_us=200000, before the end of the run at t_us=300000 (the "
            "source stopped mid-run; run.json counters says why)");
}

TEST(EnergySummary, NoEnergyRowsAndNoProofs) {
  const auto none = energy_summary({}, {0, 0, 1'000'000, 5});
  for (const char* k : {"gpu_j", "host_j", "total_j", "j_per_proof", "avg_power_w", "proofs_per_kwh"})
    EXPECT_TRUE(none[k].is_null()) << k;
  EXPECT_EQ(none["notes"].size(), 2u);
  const auto zero = energy_summary({row(100, "gpu_energy0", "energy", 3.0),
                                    row(100, "host_energy", "energy_psys", 1.0)},
                                   {0, 0, 100, 0});
  EXPECT_DOUBLE_EQ(zero["total_j"].get<double>(), 4.0);
  EXPECT_TRUE(zero["j_per_proof"].is_null());
  EXPECT_TRUE(zero["proofs_per_kwh"].is_null());
  EXPECT_DOUBLE_EQ(zero["avg_power_w"].get<double>(), 4.0 / 100e-6);
}

}  // namespace

TEST(EnergySummary, ACounterThatNeverAdvancesGivesNoFigureRatherThanZeroJoules) {
  // As on the lent H200 host: energy_psys is exposed, opens, and reads the same count forever.
  std::vector<CounterSample> rows;
  for (int k = 1; k <= 5; ++k) {
    rows.push_back(row(k * 100'000, "gpu_energy0", "energy", k * 15.0));
    rows.push_back(row(k * 100'000, "host_energy", "energy_psys", 0.0));
  }
  const auto s = energy_summary(rows, {0, 100'000, 500'000, 2});
  EXPECT_DOUBLE_EQ(s["gpu_j"].get<double>(), 75.0 - 15.0);
  EXPECT_TRUE(s["host_j"].is_null()) << s["host_j"];
  EXPECT_TRUE(s["total_j"].is_null());
  EXPECT_TRUE(s["j_per_proof"].is_null());
  bool said = false;
  for (const auto& n : s["notes"])
    said = said || n.get<std::string>().find("host_energy/energy_psys: the counter did not advance over 500 ms") !=
                       std::string::npos;
  EXPECT_TRUE(said) << s["notes"];
  // A short run whose counter has not ticked yet is not called silent.
  const auto brief = energy_summary({row(50'000, "host_energy", "energy_psys", 0.0)}, {0, 10'000, 50'000, 1});
  EXPECT_DOUBLE_EQ(brief["host_j"].get<double>(), 0.0);
}
