// Partition-worker permits, the lookahead and the dispatch pacer (core/engine/
// synthesis_permits.hpp, gpu_queue_pacer.hpp), driven by threads that play partition
// workers and a GPU worker; the counts they observe are checked against the bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "core/engine/synthesis_permits.hpp"

namespace {

using prooflab::engine::GpuQueuePacer;
using prooflab::engine::SynthesisPermits;

TEST(GpuQueuePacer, AdmitsWhileWaitingPlusStartedIsBelowTheDepth) {
  const GpuQueuePacer off(0), three(3);
  EXPECT_TRUE(off.admits_start(1000, 1000));
  EXPECT_TRUE(three.admits_start(0, 2));
  EXPECT_TRUE(three.admits_start(2, 0));
  EXPECT_FALSE(three.admits_start(2, 1));
  EXPECT_FALSE(three.admits_start(3, 0));
  EXPECT_FALSE(three.admits_start(0, 3));
}

// `workers` threads synthesize `items` partitions in total (a short sleep each) and hand them
// to a GPU that takes one every `gpu_ms`; returns the most partitions seen synthesizing
// (permit held) and waiting at once.
struct Seen {
  int synthesizing = 0, waiting = 0, ahead = 0;
};

Seen drive(unsigned pw, unsigned lookahead, unsigned depth, int items, int gpu_ms) {
  SynthesisPermits permits(pw, lookahead, GpuQueuePacer(depth));
  std::mutex m;
  int synthesizing = 0, queued = 0, left = items, done = 0;
  Seen seen;
  auto note = [&] {
    seen.synthesizing = std::max(seen.synthesizing, synthesizing);
    seen.waiting = std::max(seen.waiting, queued);
    seen.ahead = std::max(seen.ahead, synthesizing + queued);
  };
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < pw; ++w)
    workers.emplace_back([&] {
      for (;;) {
        permits.begin_synthesis();
        {
          std::lock_guard lock(m);
          if (left == 0) {
            permits.abandon_synthesis();
            return;
          }
          --left;
          ++synthesizing;
          note();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        permits.hand_to_gpu_queue();
        std::lock_guard lock(m);
        --synthesizing;
        ++queued;
        note();
      }
    });
  std::thread gpu([&] {
    while (done < items) {
      std::this_thread::sleep_for(std::chrono::milliseconds(gpu_ms));
      std::lock_guard lock(m);
      if (queued == 0) continue;
      --queued;
      ++done;
      permits.picked_up();
    }
  });
  for (auto& t : workers) t.join();
  gpu.join();
  return seen;
}

TEST(SynthesisPermits, WorkersLookaheadAndTheirSumBoundWhatRunsAhead) {
  // A slow GPU: synthesis outruns it, so every bound is reached.
  const Seen s = drive(/*pw=*/3, /*lookahead=*/2, /*depth=*/0, 24, 6);
  EXPECT_EQ(s.synthesizing, 3);
  EXPECT_EQ(s.waiting, 2);
  EXPECT_EQ(s.ahead, 5);
}

TEST(SynthesisPermits, PacerKeepsTheQueueAtItsDepthWhateverTheLookahead) {
  const Seen s = drive(/*pw=*/4, /*lookahead=*/8, /*depth=*/2, 24, 6);
  EXPECT_LE(s.ahead, 2);
  EXPECT_EQ(s.waiting, 2);
  // The control: the same run unpaced lets the queue grow to the lookahead.
  const Seen unpaced = drive(4, 8, 0, 24, 6);
  EXPECT_GT(unpaced.waiting, 2);
}

}  // namespace
