// The TIMELINE recorder's memory: a ring per recording thread, freed once its thread has
// exited and the flusher has drained it (the engine starts a thread per asynchronous
// dealloc, so a ring kept per exited thread grew RSS by ~0.5 MB per partition), without
// losing or reordering a row.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/trace/timeline.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;

fs::path temp_csv(const char* name) {
  return fs::temp_directory_path() /
         (std::string("prooflab_timeline_") + name + "_" + std::to_string(::getpid()) + ".csv");
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(TimelineRecorder, RingsOfExitedThreadsAreFreedAndTheirRowsKept) {
  const auto path = temp_csv("exited");
  constexpr int kThreads = 2000, kEvents = 3;
  {
    trace::TimelineRecorder tl(path);
    for (int t = 0; t < kThreads; ++t) {
      std::thread([&, t] {
        for (int e = 0; e < kEvents; ++e) tl.record(trace::Event::kDeallocStart, t, e);
      }).join();
      // The flusher runs every 20 ms; without freeing, all 2000 rings (~1 GB) would stay.
      if (t % 100 == 99) {
        tl.flush();
        EXPECT_LE(tl.rings_in_use(), 1u) << "after " << t + 1 << " threads";
      }
    }
    tl.flush();
    EXPECT_EQ(tl.rings_in_use(), 0u);
    EXPECT_EQ(tl.events_recorded(), static_cast<std::uint64_t>(kThreads * kEvents));
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1u + kThreads * kEvents);
  // Every thread's rows are all there, in the order it recorded them (job = thread,
  // partition = event index).
  std::map<int, int> next;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto& l = lines[i];
    const auto c1 = l.find(','), c2 = l.find(',', c1 + 1), c3 = l.find(',', c2 + 1),
               c4 = l.find(',', c3 + 1);
    const int job = std::stoi(l.substr(c2 + 1, c3 - c2 - 1));
    const int part = std::stoi(l.substr(c3 + 1, c4 - c3 - 1));
    EXPECT_EQ(part, next[job]++) << l;
  }
  EXPECT_EQ(next.size(), static_cast<std::size_t>(kThreads));
  fs::remove(path);
}

TEST(TimelineRecorder, AThreadOutlivingItsRecorderRecordsIntoTheNextOne) {
  const auto first = temp_csv("first"), second = temp_csv("second");
  auto tl = std::make_unique<trace::TimelineRecorder>(first);
  std::mutex m;
  std::condition_variable cv;
  int step = 0;
  std::thread worker([&] {
    tl->record(trace::Event::kJobSubmit, 1);
    {
      std::unique_lock lock(m);
      step = 1;
      cv.notify_all();
      cv.wait(lock, [&] { return step == 2; });
    }
    tl->record(trace::Event::kJobSubmit, 2);  // the second recorder: a fresh ring
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return step == 1; });
    tl.reset();  // the worker still holds its ring of the first recorder
    tl = std::make_unique<trace::TimelineRecorder>(second);
    step = 2;
    cv.notify_all();
  }
  worker.join();
  tl->flush();
  EXPECT_EQ(tl->rings_in_use(), 0u);  // the worker exited after recording
  tl.reset();
  EXPECT_EQ(lines_of(first).size(), 2u);
  EXPECT_EQ(lines_of(second).size(), 2u);
  EXPECT_NE(lines_of(second)[1].find(",JOB_SUBMIT,2,"), std::string::npos) << lines_of(second)[1];
  fs::remove(first);
  fs::remove(second);
}

}  // namespace
