// The run's peak RSS (core/trace/peak_rss.hpp): memory touched after the reset shows in the
// peak; a later reset forgets it once freed.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>

#include "core/trace/peak_rss.hpp"

namespace {

TEST(PeakRss, SeesMemoryTouchedAfterTheResetAndForgetsItAtTheNextReset) {
  constexpr std::size_t kBytes = 256ull << 20;
  const prooflab::trace::PeakRss before;
  if (std::string(before.scope()) != "run") GTEST_SKIP() << "/proc/self/clear_refs refused: peak is per process";
  const auto base = before.bytes();
  ASSERT_TRUE(base.has_value());
  void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, kBytes);
  const auto peak = before.bytes();
  munmap(p, kBytes);
  ASSERT_TRUE(peak.has_value());
  EXPECT_GE(*peak, *base + kBytes - (4u << 20)) << "base " << *base;
  const prooflab::trace::PeakRss after;  // reset with the buffer gone
  EXPECT_LT(*after.bytes(), *peak - kBytes / 2);
}

}  // namespace
