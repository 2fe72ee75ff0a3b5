// The `proc` counter source: /proc parsers on fixture text (the x86 TLB row of
// /proc/interrupts, /proc/<pid>/stat with awkward command names, statm) and the source's
// rates on a fixture /proc tree with explicit sample times.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "harness/counters/proc_source.hpp"
#include "harness/counters/proc_text.hpp"

namespace {

using namespace prooflab::harness::counters;
namespace fs = std::filesystem;

// A 4-CPU x86 /proc/interrupts, abridged: numbered IRQs, then the named rows.
constexpr const char* kInterrupts =
    "            CPU0       CPU1       CPU2       CPU3       \n"
    "   0:         44          0          0          0   IO-APIC   2-edge      timer\n"
    "  24:          1          0          0          0  IO-APIC   5-edge      ACPI:Ged\n"
    " NMI:          0          0          0          0   Non-maskable interrupts\n"
    " LOC:    1234567    2345678     345678      45678   Local timer interrupts\n"
    " TLB:      32583      10779        100          7   TLB shootdowns\n"
    " TRM:          0          0          0          0   Thermal event interrupts\n"
    " ERR:          0\n"
    " MIS:          0\n";

TEST(ProcText, TlbRowIsSummedOverCpus) {
  EXPECT_EQ(parse_tlb_shootdowns(kInterrupts), 32583u + 10779u + 100u + 7u);
}

TEST(ProcText, TlbRowWithoutLeadingBlankAndTwoCpus) {
  // The dev VM's format: "TLB:" at the start of the line.
  EXPECT_EQ(parse_tlb_shootdowns(
                "           CPU0       CPU1\nTLB:      32583      10779   TLB shootdowns\n"),
            43362u);
  EXPECT_EQ(parse_tlb_shootdowns("TLB: 5 TLB shootdowns"), 5u);  // no trailing newline
}

TEST(ProcText, NoTlbRow) {
  // arm64 has no TLB row; a "TLB" inside a description is not the row.
  EXPECT_EQ(parse_tlb_shootdowns("           CPU0\n IPI0:  12  Rescheduling interrupts\n"),
            std::nullopt);
  EXPECT_EQ(parse_tlb_shootdowns(" LOC: 5 TLB: 7 not a row\n"), std::nullopt);
  EXPECT_EQ(parse_tlb_shootdowns(""), std::nullopt);
}

TEST(ProcText, MalformedTlbRow) {
  EXPECT_EQ(parse_tlb_shootdowns(" TLB:   TLB shootdowns\n"), std::nullopt);         // no counts
  EXPECT_EQ(parse_tlb_shootdowns(" TLB:  12x  4  TLB shootdowns\n"), std::nullopt);  // bad count
}

TEST(ProcText, StatFaults) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt ...
  const char* stat =
      "4242 (prooflab) S 1 4242 4242 0 -1 4194560 123456 0 78 0 10 20 0 0 20 0 9 0 100 0 0\n";
  const auto f = parse_stat_faults(stat);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->minor, 123456u);
  EXPECT_EQ(f->major, 78u);
}

TEST(ProcText, StatFaultsWithSpacesAndParensInTheCommandName) {
  const auto f = parse_stat_faults("7 (a) b (c) d) R 1 7 7 0 -1 0 11 0 22 0 1 1\n");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->minor, 11u);
  EXPECT_EQ(f->major, 22u);
}

TEST(ProcText, StatFaultsMalformed) {
  EXPECT_EQ(parse_stat_faults("4242 prooflab S 1"), std::nullopt);        // no parentheses
  EXPECT_EQ(parse_stat_faults("4242 (prooflab) S 1 2 3"), std::nullopt);  // too short
  EXPECT_EQ(parse_stat_faults("1 (x) S 1 1 1 0 -1 0 abc 0 5 0"), std::nullopt);
}

TEST(ProcText, StatmResident) {
  EXPECT_EQ(parse_statm_resident_pages("123456 7890 111 22 0 3333 0\n"), 7890u);
  EXPECT_EQ(parse_statm_resident_pages("123456"), std::nullopt);
  EXPECT_EQ(parse_statm_resident_pages(""), std::nullopt);
}

TEST(ProcText, ReadSmallFileOfProc) {
  const auto text = read_small_file("/proc/self/stat");
  ASSERT_TRUE(text);
  EXPECT_TRUE(parse_stat_faults(*text));
  EXPECT_FALSE(read_small_file("/nonexistent/prooflab"));
}

class ProcFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("prooflab_proc_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "self");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root_ / rel) << text;
  }
  void set(std::uint64_t tlb, std::uint64_t minflt, std::uint64_t majflt, std::uint64_t rss_pages) {
    write("interrupts",
          "       CPU0       CPU1\n TLB:  " + std::to_string(tlb) + "  0  TLB shootdowns\n");
    write("self/stat", "1 (t) S 1 1 1 0 -1 0 " + std::to_string(minflt) + " 0 " +
                           std::to_string(majflt) + " 0 1 1\n");
    write("self/statm", "1000 " + std::to_string(rss_pages) + " 10 1 0 100 0\n");
  }
  fs::path root_;
};

TEST_F(ProcFixture, RatesOverTheSampleInterval) {
  set(1000, 50, 5, 256);
  ProcSource src(root_.string());
  const auto st = src.start(1'000'000'000);
  ASSERT_TRUE(st.used) << st.reason;
  EXPECT_NE(st.reason.find("tlb_shootdowns"), std::string::npos);

  set(1400, 250, 5, 512);  // +400 shootdowns, +200 faults over 2 s
  std::vector<Reading> out;
  src.sample(3'000'000'000, out);
  std::map<std::string, std::pair<double, std::string>> by;
  for (const auto& r : out) by[r.metric] = {r.value, r.unit};
  ASSERT_TRUE(by.count("tlb_shootdowns"));
  EXPECT_DOUBLE_EQ(by["tlb_shootdowns"].first, 200.0);
  EXPECT_EQ(by["tlb_shootdowns"].second, "1/s");
  EXPECT_DOUBLE_EQ(by["page_faults"].first, 100.0);
  EXPECT_EQ(by["rss_bytes"].second, "B");
  EXPECT_DOUBLE_EQ(by["rss_bytes"].first, 512.0 * static_cast<double>(sysconf(_SC_PAGE_SIZE)));
  ASSERT_TRUE(by.count("context_switches"));  // getrusage of this process
  EXPECT_GE(by["context_switches"].first, 0.0);
}

TEST_F(ProcFixture, NoTlbRowIsSaidAndTheRestStillMeasured) {
  write("interrupts", "       CPU0\n IPI0: 3 Rescheduling interrupts\n");
  write("self/stat", "1 (t) S 1 1 1 0 -1 0 10 0 1 0 1 1\n");
  write("self/statm", "1000 20 10 1 0 100 0\n");
  ProcSource src(root_.string());
  const auto st = src.start(0);
  ASSERT_TRUE(st.used);
  EXPECT_NE(st.reason.find("no TLB row"), std::string::npos) << st.reason;
  std::vector<Reading> out;
  src.sample(100'000'000, out);
  for (const auto& r : out) EXPECT_STRNE(r.metric, "tlb_shootdowns");
}

TEST_F(ProcFixture, UnreadableProcIsUnavailableWithTheReason) {
  ProcSource src((root_ / "missing").string());
  const auto st = src.start(0);
  EXPECT_FALSE(st.used);
  EXPECT_NE(st.reason.find("No such file or directory"), std::string::npos) << st.reason;
}

TEST(ProcSourceLive, ThisProcess) {
  ProcSource src;
  const auto st = src.start(0);
  ASSERT_TRUE(st.used) << st.reason;
  std::vector<Reading> out;
  src.sample(50'000'000, out);
  bool rss = false;
  for (const auto& r : out) {
    EXPECT_GE(r.value, 0.0) << r.metric;
    rss = rss || std::string(r.metric) == "rss_bytes";
  }
  EXPECT_TRUE(rss);
}

}  // namespace
