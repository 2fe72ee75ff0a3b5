// CuzkLogWriter: the reference-format lines of prooflab's records, in time order whatever
// order the records arrive in, whole lines from concurrent callers, the TIMELINE recorder
// handing it every record. Expected lines are worked out by hand from the record times
// below (each duration truncated to whole ms, as the reference sources do).
#include "core/trace/cuzk_log_writer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace prooflab::trace {
namespace {

EventRecord rec(std::int64_t t_us, Event e, int job, int partition = -1, int worker = -1, int device = -1,
                const std::string& detail = "") {
  EventRecord r{};
  r.t_us = t_us;
  r.event = e;
  r.job = job;
  r.partition = partition;
  r.worker = worker;
  r.device = device;
  std::snprintf(r.detail.data(), r.detail.size(), "%s", detail.c_str());
  return r;
}

// A temporary file as the writer's descriptor; lines() reads back what was written.
class Capture {
 public:
  Capture() {
    char name[] = "/tmp/cuzk_log_writer_test.XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
  }
  ~Capture() {
    ::close(fd_);
    std::filesystem::remove(path_);
  }
  int fd() const { return fd_; }
  std::vector<std::string> lines() const {
    std::ifstream in(path_);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

 private:
  int fd_ = -1;
  std::string path_;
};

const std::regex kTracing(R"((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) ( INFO|ERROR) prooflab::engine: (.*))");

// The tracing message of a line, "" when it is no tracing line.
std::string tracing_message(const std::string& line) {
  std::smatch m;
  return std::regex_match(line, m, kTracing) ? m[3].str() : "";
}

// One partition of job 0 on worker 1 of device 0 (engine-wide worker 1 with gw = 2).
std::vector<EventRecord> one_partition_job() {
  return {
      rec(100, Event::kJobSubmit, 0),
      rec(1000, Event::kSynthStart, 0, 0),
      rec(2500, Event::kSynthEnd, 0, 0, -1, -1, "synth_us=1500"),
      rec(2500, Event::kPrepMsmStart, 0, 0),
      rec(4700, Event::kPrepMsmEnd, 0, 0),
      rec(4800, Event::kGpuQueue, 0, 0),
      rec(5000, Event::kGpuPickup, 0, 0, 1, 0),
      rec(5100, Event::kLockWaitStart, 0, 0, 1, 0),
      rec(5200, Event::kBG2MsmStart, 0, 0, 1, 0),
      rec(7300, Event::kGpuStart, 0, 0, 1, 0),
      rec(9000, Event::kNttH, 0, 0, 1, 0, "dur_us=1700"),
      rec(9500, Event::kBatchAdd, 0, 0, 1, 0, "dur_us=500"),
      rec(10999, Event::kTailMsm, 0, 0, 1, 0, "dur_us=1499"),
      rec(11000, Event::kGpuEnd, 0, 0, 1, 0),
      rec(12345, Event::kBG2MsmEnd, 0, 0, 1, 0),
      rec(12400, Event::kDeallocStart, 0, 0, 1, 0),
      rec(14000, Event::kDeallocEnd, 0, 0, 1, 0),
      rec(14050, Event::kProofDone, 0),
      rec(14100, Event::kJobDone, 0),
  };
}

const std::vector<std::string> kOnePartitionLines = {
    "TIMELINE,1,SYNTH_START,job-0,partition=0",
    "TIMELINE,2,SYNTH_END,job-0,partition=0,synth_ms=1",
    "CUZK_TIMING: prep_msm_ms=2",                            // 4700 - 2500
    "TIMELINE,4,GPU_QUEUE,job-0,partition=0",
    "TIMELINE,5,GPU_PICKUP,job-0,worker=1,partition=0",
    "TIMELINE,5,GPU_START,job-0,worker=1,partition=0",       // at LOCK_WAIT_START
    "CUZK_TIMING: pre_lock_cpu_ms=0 mutex_wait_ms=2",        // 7300 - 5100
    "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=1",
    "CUZK_TIMING: gpu_tid=0 batch_add_ms=0",
    "CUZK_TIMING: gpu_tid=0 tail_msm_ms=1 gpu_total_ms=3",   // 1700 + 500 + 1499
    "CUZK_TIMING: mutex_held_ms=3 total_start_fn_ms=5",      // 11000 - 7300, 11000 - 5100
    "CUZK_TIMING: b_g2_msm_ms=7 num_circuits=1",             // 12345 - 5200
    "TIMELINE,12,GPU_END,job-0,worker=1,partition=0,gpu_ms=7",  // at B_G2_MSM_END: 12345 - 5100
    "CUZK_TIMING: async_dealloc_ms=1",                       // 14000 - 12400
};

TEST(CuzkLogWriter, WritesTheReferenceLinesInTimeOrderWhateverTheArrivalOrder) {
  Capture out;
  CuzkLogWriter w(out.fd(), "run-7", {.devices = 1, .workers_per_device = 2, .partitions = 1}, monotonic_ns());
  auto records = one_partition_job();
  // The pool thread's B_G2_MSM_END and the dealloc thread's records come in a later flush
  // than the job's end, and in reverse order within the first one.
  std::vector<EventRecord> first, second;
  for (const auto& r : records)
    (r.event == Event::kBG2MsmEnd || r.event == Event::kDeallocStart || r.event == Event::kDeallocEnd ? second
                                                                                                        : first)
        .push_back(r);
  std::reverse(first.begin(), first.end());
  w.deliver(first, false);
  EXPECT_EQ(w.gpu_compute_ms(0), 0) << "no GPU_END before b_g2_msm is joined";
  w.deliver(second, true);
  EXPECT_EQ(w.gpu_compute_ms(0), 7);

  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 1 + 2 + kOnePartitionLines.size() + 1);
  EXPECT_EQ(lines[0], "RUN_ID=run-7");
  EXPECT_EQ(tracing_message(lines[1]), "pipeline GPU worker started worker_id=0 gpu=0 sub_id=0");
  EXPECT_EQ(tracing_message(lines[2]), "pipeline GPU worker started worker_id=1 gpu=0 sub_id=1");
  for (std::size_t i = 0; i < kOnePartitionLines.size(); ++i) EXPECT_EQ(lines[3 + i], kOnePartitionLines[i]) << i;
  EXPECT_EQ(tracing_message(lines.back()),
            "Phase 7: all partitions complete, proof assembled job_id=job-0 total_ms=14 synth_ms=1 gpu_ms=7");
}

TEST(CuzkLogWriter, HoldsLinesBackUntilLaterRecordsCanNoLongerPrecedeThem) {
  Capture out;
  CuzkLogWriter w(out.fd(), "r", {.devices = 1, .workers_per_device = 1, .partitions = 1}, monotonic_ns());
  const std::vector<EventRecord> early = {rec(1000, Event::kSynthStart, 0, 0)};
  w.deliver(early, false);
  EXPECT_EQ(out.lines().size(), 2u) << "the SYNTH_START line waits for records up to 200 ms later";
  const std::vector<EventRecord> later = {rec(1000 + CuzkLogWriter::kHoldBackUs + 1, Event::kGpuQueue, 0, 0)};
  w.deliver(later, false);
  auto lines = out.lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "TIMELINE,1,SYNTH_START,job-0,partition=0");
  w.deliver({}, true);
  EXPECT_EQ(out.lines().back(), "TIMELINE,201,GPU_QUEUE,job-0,partition=0");
}

TEST(CuzkLogWriter, TwoLockOpensTheGpuCallAtPrestageAndNamesItsOutcome) {
  Capture out;
  CuzkLogWriter w(out.fd(), "r", {.devices = 2, .workers_per_device = 1, .partitions = 1, .two_lock = true},
                  monotonic_ns());
  const std::vector<EventRecord> records = {
      rec(10'000, Event::kGpuPickup, 3, 0, 0, 1),
      rec(10'500, Event::kPrestageStart, 3, 0, 0, 1),
      rec(10'600, Event::kBG2MsmStart, 3, 0, 0, 1),
      rec(13'500, Event::kPrestageEnd, 3, 0, 0, 1, "prestage=skip_vram"),
      rec(13'600, Event::kLockWaitStart, 3, 0, 0, 1),
      rec(15'000, Event::kGpuStart, 3, 0, 0, 1),
      rec(16'000, Event::kNttH, 3, 0, 0, 1, "dur_us=1000"),
      rec(16'100, Event::kBatchAdd, 3, 0, 0, 1, "dur_us=100"),
      rec(17'000, Event::kTailMsm, 3, 0, 0, 1, "dur_us=900"),
      rec(17'100, Event::kBG2MsmEnd, 3, 0, 0, 1),
      rec(21'000, Event::kGpuEnd, 3, 0, 0, 1),
  };
  w.deliver(records, true);
  auto lines = out.lines();
  // RUN_ID, two worker lines, then: engine-wide worker 1 = device 1, worker 0.
  const std::vector<std::string> expected = {
      "TIMELINE,10,GPU_PICKUP,job-3,worker=1,partition=0",
      "TIMELINE,10,GPU_START,job-3,worker=1,partition=0",
      "CUZK_TIMING: prestage_setup=skip_vram",
      "CUZK_TIMING: pre_lock_cpu_ms=3 mutex_wait_ms=1",  // 13600 - 10500, 15000 - 13600
      "CUZK_TIMING: gpu_tid=0 ntt_msm_h_ms=1",
      "CUZK_TIMING: gpu_tid=0 batch_add_ms=0",
      "CUZK_TIMING: gpu_tid=0 tail_msm_ms=0 gpu_total_ms=2",
      "CUZK_TIMING: b_g2_msm_ms=6 num_circuits=1",
      "CUZK_TIMING: mutex_held_ms=6 total_start_fn_ms=10",  // 21000 - 15000, 21000 - 10500
      "TIMELINE,21,GPU_END,job-3,worker=1,partition=0,gpu_ms=10",  // the lock released after b_g2_msm
  };
  ASSERT_EQ(lines.size(), 3 + expected.size());
  EXPECT_EQ(tracing_message(lines[2]), "pipeline GPU worker started worker_id=1 gpu=1 sub_id=0");
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(lines[3 + i], expected[i]) << i;
}

TEST(CuzkLogWriter, AFailedGpuCallHasNoGpuEndAndAFailedJobAnErrorLine) {
  Capture out;
  CuzkLogWriter w(out.fd(), "r", {.devices = 1, .workers_per_device = 1, .partitions = 1}, monotonic_ns());
  // The GPU phase threw after ntt_h: prooflab still records GPU_END (the lock is released)
  // and b_g2_msm ends, but the call did not run to TAIL_MSM.
  const std::vector<EventRecord> records = {
      rec(0, Event::kJobSubmit, 5),
      rec(1000, Event::kLockWaitStart, 5, 0, 0, 0),
      rec(1100, Event::kBG2MsmStart, 5, 0, 0, 0),
      rec(1200, Event::kGpuStart, 5, 0, 0, 0),
      rec(2000, Event::kNttH, 5, 0, 0, 0, "dur_us=800"),
      rec(2100, Event::kGpuEnd, 5, 0, 0, 0),
      rec(2500, Event::kBG2MsmEnd, 5, 0, 0, 0),
      rec(3000, Event::kJobFailed, 5, -1, -1, -1, "reason=partition 0: out of device memory"),
  };
  w.deliver(records, true);
  const auto lines = out.lines();
  for (const auto& l : lines) EXPECT_EQ(l.find("GPU_END"), std::string::npos) << l;
  EXPECT_EQ(w.gpu_compute_ms(5), 0);
  EXPECT_EQ(tracing_message(lines.back()), "proof failed job_id=job-5 error=partition 0: out of device memory");
  EXPECT_NE(lines.back().find(" ERROR "), std::string::npos);
}

TEST(CuzkLogWriter, ConcurrentCallersWriteWholeLines) {
  Capture out;
  constexpr int kThreads = 4, kJobsPerThread = 200;
  CuzkLogWriter w(out.fd(), "r", {.devices = 1, .workers_per_device = 1, .partitions = 1}, monotonic_ns());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int j = t * kJobsPerThread; j < (t + 1) * kJobsPerThread; ++j) {
        const std::vector<EventRecord> one = {rec(1000 * j, Event::kSynthStart, j, 0),
                                              rec(1000 * j + 500, Event::kGpuQueue, j, 0)};
        w.deliver(one, false);
        (void)w.gpu_compute_ms(j);
      }
    });
  for (auto& th : threads) th.join();
  w.deliver({}, true);
  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 2u + 2 * kThreads * kJobsPerThread);
  const std::regex shape(R"(TIMELINE,\d+,(SYNTH_START|GPU_QUEUE),job-\d+,partition=0)");
  for (std::size_t i = 2; i < lines.size(); ++i) EXPECT_TRUE(std::regex_match(lines[i], shape)) << lines[i];
}

TEST(CuzkLogWriter, TheRecorderHandsItEveryRecord) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cuzk_log_writer_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Capture out;
  {
    TimelineRecorder tl(dir / "timeline.csv");
    CuzkLogWriter w(out.fd(), "r", {.devices = 1, .workers_per_device = 1, .partitions = 1}, tl.epoch_ns());
    tl.set_record_sink(&w);
    std::thread other([&] { tl.record(Event::kSynthStart, 0, 0); });
    other.join();
    tl.record(Event::kGpuQueue, 0, 0);
    tl.close();
  }
  const auto lines = out.lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(std::regex_match(lines[2], std::regex(R"(TIMELINE,\d+,SYNTH_START,job-0,partition=0)"))) << lines[2];
  EXPECT_TRUE(std::regex_match(lines[3], std::regex(R"(TIMELINE,\d+,GPU_QUEUE,job-0,partition=0)"))) << lines[3];
  fs::remove_all(dir);
}

}  // namespace
}  // namespace prooflab::trace
