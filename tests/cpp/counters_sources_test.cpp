// The hardware counter sources and the probe: likwid and perf uncore must end cleanly
// with a reason wherever they cannot run (these tests assert the shape of the status, not
// what a particular machine has); sysfs PMU descriptions decode on a fixture tree; the
// bandwidth probe measures something.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "harness/counters/bandwidth_probe.hpp"
#include "harness/counters/likwid_source.hpp"
#include "harness/counters/perf_pmu.hpp"
#include "harness/counters/perf_uncore_source.hpp"

namespace {

using namespace prooflab::harness::counters;
namespace fs = std::filesystem;

// A status a reader can use: a reason on one line, whichever way it went.
void expect_well_formed(const SourceStatus& st) {
  EXPECT_FALSE(st.reason.empty());
  EXPECT_EQ(st.reason.find('\n'), std::string::npos) << st.reason;
  const auto j = st.to_json();
  EXPECT_TRUE(j["status"] == "used" || j["status"] == "unavailable");
  EXPECT_TRUE(j["reason"].is_string());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(LikwidSource, EndsCleanlyWithAReason) {
  const auto t0 = std::chrono::steady_clock::now();
  LikwidSource src;
  const auto st = src.start(monotonic_ns());
  expect_well_formed(st);
  RecordProperty("likwid", st.reason);
  std::printf("likwid: %s: %s\n", st.used ? "used" : "unavailable", st.reason.c_str());
  if (st.used) {
    std::vector<Reading> out;
    src.sample(monotonic_ns(), out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_STREQ(out[0].metric, "dram_bandwidth");
  } else {
    // Machines without MSRs or an unsupported CPU fail the helper's fast checks; only a
    // machine whose likwid daemon hangs takes the init timeout.
    EXPECT_LT(seconds_since(t0), 16.0);
  }
  src.stop();
}

TEST(LikwidSource, MissingHelperIsUnavailable) {
  LikwidSource src({.helper = "/nonexistent/prooflab-likwid-helper"});
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("/nonexistent/prooflab-likwid-helper"), std::string::npos) << st.reason;
  EXPECT_NE(st.reason.find("No such file or directory"), std::string::npos) << st.reason;
}

TEST(LikwidSource, HelperThatHangsIsKilledAtTheTimeout) {
  // Past the fast checks, likwid's perfmon_init waits for its access daemon (10 s, then
  // exit()). The parent must give up at its own timeout and say what likwid printed.
  const auto t0 = std::chrono::steady_clock::now();
  LikwidSource src({.init_timeout_s = 1.0, .skip_preflight = true});
  const auto st = src.start(0);
  expect_well_formed(st);
  EXPECT_LT(seconds_since(t0), 4.0);
  if (!st.used) std::printf("likwid past the checks: %s\n", st.reason.c_str());
  src.stop();
}

TEST(LikwidSource, HelperThatExitsEarlyIsUnavailable) {
  // /bin/false as the helper: it ends before saying anything.
  LikwidSource src({.helper = "/bin/false"});
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("ended before initialising"), std::string::npos) << st.reason;
  EXPECT_NE(st.reason.find("exit status 1"), std::string::npos) << st.reason;
}

TEST(PerfUncoreSource, EndsCleanlyWithAReasonOnThisMachine) {
  PerfUncoreSource src;
  const auto st = src.start(monotonic_ns());
  expect_well_formed(st);
  std::printf("perf_uncore: %s: %s\n", st.used ? "used" : "unavailable", st.reason.c_str());
  if (st.used) {
    std::vector<Reading> out;
    src.sample(monotonic_ns() + 1'000'000, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_GE(out[0].value, 0.0);
  }
  src.stop();
}

class SysfsFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("prooflab_sysfs_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(devices());
    for (const char* pmu : {"software", "tracepoint", "msr"})
      fs::create_directories(devices() / pmu);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path devices() const { return root_ / "bus/event_source/devices"; }
  void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // An Intel-style IMC PMU with a type no kernel has, so perf_event_open fails.
  void add_imc(const std::string& name, const std::string& type = "4242") {
    const auto d = devices() / name;
    write(d / "type", type + "\n");
    write(d / "cpumask", "0\n");
    write(d / "format/event", "config:0-7\n");
    write(d / "format/umask", "config:8-15\n");
    write(d / "events/cas_count_read", "event=0x04,umask=0x03\n");
    write(d / "events/cas_count_read.scale", "6.103515625e-5\n");
    write(d / "events/cas_count_read.unit", "MiB\n");
    write(d / "events/cas_count_write", "event=0x04,umask=0x0c\n");
    write(d / "events/cas_count_write.scale", "6.103515625e-5\n");
    write(d / "events/cas_count_write.unit", "MiB\n");
  }
  fs::path root_;
};

TEST_F(SysfsFixture, NoMemoryControllerPmuNamesWhatIsThere) {
  PerfUncoreSource src(root_);
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("no memory-controller PMU"), std::string::npos) << st.reason;
  EXPECT_NE(st.reason.find("msr, software, tracepoint"), std::string::npos) << st.reason;
}

TEST_F(SysfsFixture, AmdDataFabricIsReportedAsUndecoded) {
  fs::create_directories(devices() / "amd_df");
  PerfUncoreSource src(root_);
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("amd_df present"), std::string::npos) << st.reason;
}

TEST_F(SysfsFixture, PerfEventOpenFailureGivesTheErrnoText) {
  add_imc("uncore_imc_0");
  PerfUncoreSource src(root_);
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("perf_event_open(uncore_imc_0/cas_count_read/, cpu 0) failed: "),
            std::string::npos)
      << st.reason;
  EXPECT_NE(st.reason.find("(errno "), std::string::npos) << st.reason;
}

TEST_F(SysfsFixture, ResolvesAnEventThroughItsFormat) {
  add_imc("uncore_imc_1", "17");
  write(devices() / "uncore_imc_1/cpumask", "0,18\n");
  const auto ev = resolve_pmu_event(root_, "uncore_imc_1", "cas_count_write");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->type, 17u);
  EXPECT_EQ(ev->config[0], 0x0c04u);
  EXPECT_DOUBLE_EQ(ev->scale, 6.103515625e-5);
  EXPECT_EQ(ev->unit, "MiB");
  EXPECT_EQ(ev->cpus, (std::vector<int>{0, 18}));
  EXPECT_DOUBLE_EQ(ev->scale * *bytes_per_unit(ev->unit), 64.0);  // one CAS = one 64-byte line
  EXPECT_FALSE(resolve_pmu_event(root_, "uncore_imc_1", "no_such_event"));
}

TEST_F(SysfsFixture, MalformedEventFileIsAnErrorNamingTheFile) {
  add_imc("uncore_imc_2");
  write(devices() / "uncore_imc_2/events/cas_count_read", "event=0xZZ\n");
  try {
    resolve_pmu_event(root_, "uncore_imc_2", "cas_count_read");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("events/cas_count_read"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("event=0xZZ"), std::string::npos) << e.what();
  }
}

TEST(PerfPmu, FormatFields) {
  const auto f = parse_format_field("config:0-7,32-35\n");
  EXPECT_EQ(f.word, 0);
  ASSERT_EQ(f.bit_ranges.size(), 2u);
  std::array<std::uint64_t, 3> c{};
  apply_format_field(f, 0xABC, c);  // low 8 bits at 0..7, the next 4 at 32..35
  EXPECT_EQ(c[0], 0xBCull | (0xAull << 32));
  std::array<std::uint64_t, 3> c1{};
  apply_format_field(parse_format_field("config1:0-63"), ~0ull, c1);
  EXPECT_EQ(c1[1], ~0ull);
  std::array<std::uint64_t, 3> c2{};
  apply_format_field(parse_format_field("config2:21"), 1, c2);
  EXPECT_EQ(c2[2], 1ull << 21);
  EXPECT_THROW(parse_format_field("config3:0-7"), std::invalid_argument);
  EXPECT_THROW(parse_format_field("config:7-0"), std::invalid_argument);
  EXPECT_THROW(parse_format_field("config"), std::invalid_argument);
}

TEST(PerfPmu, CpuLists) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("0"), (std::vector<int>{0}));
  EXPECT_THROW(parse_cpu_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("a"), std::invalid_argument);
}

TEST(PerfPmu, ByteUnits) {
  EXPECT_EQ(bytes_per_unit("MiB"), 1048576.0);
  EXPECT_EQ(bytes_per_unit("B"), 1.0);
  EXPECT_EQ(bytes_per_unit(""), std::nullopt);  // a count of events, not of bytes
  EXPECT_EQ(bytes_per_unit("Joules"), std::nullopt);
}

TEST(BandwidthProbe, MeasuresAPositiveBandwidth) {
  BandwidthProbe probe(1 << 20, 4 << 20);
  const auto st = probe.start(0);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("1 MiB read+write per sample"), std::string::npos) << st.reason;
  EXPECT_EQ(probe.ring_bytes(), 4u << 20);
  for (int i = 0; i < 6; ++i) {  // wraps around the ring
    std::vector<Reading> out;
    probe.sample(0, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_STREQ(out[0].metric, "bandwidth");
    EXPECT_STREQ(out[0].unit, "GB/s");
    EXPECT_GT(out[0].value, 0.05);   // even a loaded VM streams faster than 50 MB/s
    EXPECT_LT(out[0].value, 10000);  // and slower than 10 TB/s
  }
  probe.stop();
}

TEST(BandwidthProbe, AutoRingIsLargerThanTheLastLevelCache) {
  BandwidthProbe probe(1 << 20, 0);
  ASSERT_TRUE(probe.start(0).used);
  const auto llc = last_level_cache_bytes();
  if (llc > 0 && 2 * llc <= (256u << 20)) EXPECT_GE(probe.ring_bytes(), 2 * llc);
  EXPECT_GE(probe.ring_bytes(), 16u << 20);
  probe.stop();
}

}  // namespace
