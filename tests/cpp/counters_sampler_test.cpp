// The counter sampler: counters.csv is well formed (the header, five fields, numeric
// values, t_us increasing from round to round, one timestamp per round), written while the
// run goes on (flushed every round), and run.json's `counters` names every source with a
// status and a reason. Option parsing errors name the flag.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "harness/counters/counters_csv.hpp"
#include "harness/counters/options.hpp"
#include "harness/counters/sampler.hpp"

namespace {

using namespace prooflab::harness::counters;
namespace fs = std::filesystem;

struct Row {
  std::int64_t t_us;
  std::string source, metric, unit;
  double value;
};

std::vector<Row> read_counters(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_us,source,metric,value,unit");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    EXPECT_EQ(f.size(), 5u) << line;
    if (f.size() != 5) continue;
    Row r;
    std::size_t used = 0;
    r.t_us = std::stoll(f[0], &used);
    EXPECT_EQ(used, f[0].size()) << line;
    r.source = f[1];
    r.metric = f[2];
    r.value = std::stod(f[3], &used);
    EXPECT_EQ(used, f[3].size()) << line;
    r.unit = f[4];
    rows.push_back(r);
  }
  return rows;
}

class SamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("prooflab_sampler_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static CounterOptions options(const std::string& selection, std::uint32_t period_ms) {
    CounterOptions o;
    o.selection = selection;
    o.sources = parse_counter_selection(selection);
    o.period_ms = period_ms;
    o.probe_bytes = 256 << 10;
    o.probe_ring_bytes = 4 << 20;
    return o;
  }
  fs::path dir_;
};

TEST_F(SamplerTest, WritesWellFormedRowsWithIncreasingTime) {
  const std::int64_t epoch = monotonic_ns();
  const auto csv = dir_ / "counters.csv";
  CounterSampler sampler(csv, epoch, options("probe,proc", 20));
  ASSERT_TRUE(sampler.writing());
  // Rows are on disk while the sampler runs (a killed run keeps them).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (read_counters(csv).size() < 10 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(read_counters(csv).size(), 10u) << "nothing flushed while running";
  while (sampler.rounds() < 6 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  sampler.stop();
  const std::int64_t end_us = (monotonic_ns() - epoch) / 1000;

  const auto rows = read_counters(csv);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.size(), sampler.rows());
  std::set<std::int64_t> rounds;
  std::set<std::string> metrics;
  std::int64_t prev = -1;
  for (const auto& r : rows) {
    EXPECT_GE(r.t_us, prev) << "t_us went backwards";
    EXPECT_GT(r.t_us, 0);
    EXPECT_LE(r.t_us, end_us);
    prev = r.t_us;
    rounds.insert(r.t_us);
    metrics.insert(r.source + "/" + r.metric + "/" + r.unit);
    EXPECT_GE(r.value, 0.0) << r.source << "/" << r.metric;
  }
  EXPECT_EQ(rounds.size(), sampler.rounds());
  // The sampler accounts for its own CPU time (run.json counter_sampling.thread_cpu_s).
  const auto activity = sampler.activity_json();
  EXPECT_EQ(activity["rounds"], sampler.rounds());
  EXPECT_EQ(activity["period_ms"], 20);
  EXPECT_GT(sampler.thread_cpu_seconds(), 0.0);
  EXPECT_LT(sampler.thread_cpu_seconds(), 0.5);
  EXPECT_GE(rounds.size(), 5u);
  EXPECT_TRUE(metrics.count("probe/bandwidth/GB/s"));
  EXPECT_TRUE(metrics.count("proc/page_faults/1/s"));
  EXPECT_TRUE(metrics.count("proc/rss_bytes/B"));
  EXPECT_TRUE(metrics.count("proc/context_switches/1/s"));
  // Rounds stay on the 20 ms grid: a late round does not shift the later ones, so gaps
  // vary but average one period (the last round is the one stop() takes); a machine too
  // loaded to wake the thread in time skips rounds rather than bursting.
  std::vector<std::int64_t> t(rounds.begin(), rounds.end());
  const double mean_gap =
      static_cast<double>(t[t.size() - 2] - t[0]) / static_cast<double>(t.size() - 2);
  EXPECT_GT(mean_gap, 18'000);
  EXPECT_LT(mean_gap, 100'000);
}

TEST_F(SamplerTest, StatusNamesEverySource) {
  CounterSampler sampler(dir_ / "counters.csv", monotonic_ns(), options("probe", 50));
  sampler.stop();
  const auto j = sampler.status_json();
  for (const auto& name : source_names()) {
    ASSERT_TRUE(j.contains(name)) << name;
    EXPECT_TRUE(j[name]["status"] == "used" || j[name]["status"] == "unavailable") << j.dump();
    EXPECT_FALSE(j[name]["reason"].get<std::string>().empty()) << name;
  }
  EXPECT_EQ(j["probe"]["status"], "used");
  EXPECT_EQ(j["proc"]["status"], "unavailable");
  EXPECT_EQ(j["proc"]["reason"], "switched off (--counters probe)");
  EXPECT_EQ(j["nvml"]["status"], "unavailable");
}

TEST_F(SamplerTest, AllSourcesOnThisMachine) {
  // Whatever the machine: probe and proc are used; likwid, perf_uncore and nvml (used on a
  // machine with the NVIDIA driver and a GPU) say used or why not.
  CounterSampler sampler(dir_ / "counters.csv", monotonic_ns(), options("all", 50));
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  sampler.stop();
  const auto j = sampler.status_json();
  std::printf("%s\n", j.dump(2).c_str());
  EXPECT_EQ(j["probe"]["status"], "used");
  EXPECT_EQ(j["proc"]["status"], "used");
  EXPECT_FALSE(j["nvml"]["reason"].get<std::string>().empty());
  EXPECT_FALSE(read_counters(dir_ / "counters.csv").empty());
}

TEST_F(SamplerTest, OffWritesNoFile) {
  CounterSampler sampler(dir_ / "counters.csv", monotonic_ns(), options("off", 100));
  EXPECT_FALSE(sampler.writing());
  sampler.stop();
  EXPECT_FALSE(fs::exists(dir_ / "counters.csv"));
  const auto statuses = sampler.status_json();
  for (const auto& [name, st] : statuses.items()) {
    EXPECT_EQ(st["status"], "unavailable");
    EXPECT_EQ(st["reason"], "switched off (--counters off)");
  }
}

TEST_F(SamplerTest, StopRightAfterStartIsClean) {
  CounterSampler sampler(dir_ / "counters.csv", monotonic_ns(), options("probe,proc", 100));
  sampler.stop();
  sampler.stop();  // idempotent
  for (const auto& r : read_counters(dir_ / "counters.csv")) EXPECT_GE(r.t_us, 0);
}

// A source that fails mid-run: its status changes and it is not sampled again.
class FailingSource final : public CounterSource {
 public:
  const char* name() const override { return "probe"; }
  SourceStatus start(std::int64_t) override { return st_ = SourceStatus::available("test"); }
  void sample(std::int64_t, std::vector<Reading>& out) override {
    out.push_back({"bandwidth", 1.5, "GB/s"});
    if (++calls_ == 2) st_ = SourceStatus::unavailable("stopped mid-run: test");
  }
  SourceStatus status() const override { return st_; }
  int calls_ = 0;

 private:
  SourceStatus st_;
};

TEST_F(SamplerTest, SourceThatStopsMidRun) {
  std::vector<std::unique_ptr<CounterSource>> sources;
  auto* failing = new FailingSource;
  sources.emplace_back(failing);
  CounterSampler sampler(dir_ / "counters.csv", monotonic_ns(), options("probe", 5),
                         std::move(sources));
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  sampler.stop();
  EXPECT_EQ(failing->calls_, 2);
  EXPECT_EQ(sampler.status_json()["probe"]["reason"], "stopped mid-run: test");
  EXPECT_EQ(read_counters(dir_ / "counters.csv").size(), 2u);
}

TEST(CounterOptions, Selection) {
  EXPECT_EQ(parse_counter_selection("all").size(), source_names().size());
  EXPECT_TRUE(parse_counter_selection("off").empty());
  EXPECT_EQ(parse_counter_selection("probe,proc"), (std::set<std::string>{"probe", "proc"}));
  try {
    parse_counter_selection("probe,dram");
    FAIL() << "no error";
  } catch (const CounterOptionError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--counters"), std::string::npos) << what;
    EXPECT_NE(what.find("'dram'"), std::string::npos) << what;
    EXPECT_NE(what.find("perf_uncore"), std::string::npos) << what;
  }
  EXPECT_THROW(parse_counter_selection(""), CounterOptionError);
  EXPECT_THROW(parse_counter_selection("probe,"), CounterOptionError);
}

TEST(CounterOptions, Ranges) {
  CounterOptions o;
  EXPECT_NO_THROW(o.validate());
  o.period_ms = 0;
  EXPECT_THROW(o.validate(), CounterOptionError);
  o.period_ms = 100;
  o.probe_bytes = 1000;
  EXPECT_THROW(o.validate(), CounterOptionError);
  o.probe_bytes = 1 << 20;
  o.probe_ring_bytes = 1 << 19;  // smaller than a sample
  EXPECT_THROW(o.validate(), CounterOptionError);
}

TEST(CountersCsv, ValueFormat) {
  EXPECT_EQ(format_counter_value(12345678912.0), "12345678912");
  EXPECT_EQ(format_counter_value(0.0), "0");
  EXPECT_EQ(format_counter_value(12.25), "12.25");
  EXPECT_EQ(format_counter_value(1.0 / 3.0), "0.333333333");
  EXPECT_EQ(format_counter_value(std::numeric_limits<double>::infinity()), "");
  EXPECT_EQ(format_counter_value(std::nan("")), "");
}

}  // namespace
