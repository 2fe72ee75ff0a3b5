// Huge-page advice (core/memory/huge_pages.hpp): the kernel's own record of the advice
// (the "hg" flag of a mapping in /proc/self/smaps) covers exactly the whole 2 MiB pages
// inside the advised range, and the vector helpers keep std::vector's semantics.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/field/fr.hpp"
#include "core/memory/huge_pages.hpp"

namespace {

using prooflab::field::Fr;
using namespace prooflab::memory;

struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  bool huge_advised = false;
};

// The mapping of /proc/self/smaps that holds address a (begin = end = 0 if none).
Mapping mapping_of(std::uintptr_t a) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  Mapping current, found;
  bool in_it = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t b = 0, e = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> b >> dash >> e && dash == '-') {
      if (in_it) return found;
      current = {b, e, false};
      in_it = b <= a && a < e;
      if (in_it) found = current;
    } else if (in_it && line.rfind("VmFlags:", 0) == 0) {
      found.huge_advised = (" " + line + " ").find(" hg ") != std::string::npos;
    }
  }
  return found;
}

bool kernel_takes_advice() {
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  return thp.good();
}

TEST(HugePages, AdviceCoversTheWholeHugePagesInsideTheRange) {
  if (!kernel_takes_advice()) GTEST_SKIP() << "no transparent huge pages on this kernel";
  // 9 MiB of bytes starting 100 bytes past a huge-page boundary b: the advised part is the
  // three whole 2 MiB pages [b + 2 MiB, b + 8 MiB).
  std::vector<std::uint8_t> storage(12 << 20);
  const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
  const std::uintptr_t boundary = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  std::uint8_t* p = storage.data() + (boundary - base) + 100;
  const std::size_t bytes = 9 << 20;
  advise_huge_pages(p, bytes);
  const std::uintptr_t first = boundary + kHugePageBytes;
  const Mapping m = mapping_of(first);
  ASSERT_NE(m.end, 0u);
  EXPECT_TRUE(m.huge_advised);
  EXPECT_EQ(m.begin, first);
  EXPECT_EQ(m.end, first + 3 * kHugePageBytes);
  EXPECT_FALSE(mapping_of(first - 1).huge_advised);  // the partial page before it
}

TEST(HugePages, ARangeWithoutAWholeHugePageIsLeftAlone) {
  if (!kernel_takes_advice()) GTEST_SKIP() << "no transparent huge pages on this kernel";
  std::vector<std::uint8_t> storage(8 << 20);
  const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
  const std::uintptr_t boundary = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  // 2 MiB that straddle a boundary hold no whole huge page.
  advise_huge_pages(storage.data() + (boundary - base) + kHugePageBytes / 2, kHugePageBytes);
  EXPECT_FALSE(mapping_of(boundary).huge_advised);
  EXPECT_FALSE(mapping_of(boundary + kHugePageBytes).huge_advised);
}

TEST(HugePages, VectorHelpersKeepVectorSemantics) {
  std::vector<Fr> v;
  resize_huge(v, 1 << 18);  // 8 MiB
  ASSERT_EQ(v.size(), std::size_t{1} << 18);
  for (const Fr& x : v) ASSERT_TRUE(x.is_zero());
  if (kernel_takes_advice())
    EXPECT_TRUE(
        mapping_of(reinterpret_cast<std::uintptr_t>(v.data()) + kHugePageBytes).huge_advised);
  v[5] = Fr::one();
  const Fr* before = v.data();
  reserve_huge(v, 100);  // already has room: no reallocation
  EXPECT_EQ(v.data(), before);
  resize_huge(v, 1 << 19);  // grows: the values are kept, the new ones are zero
  EXPECT_TRUE(v[5].is_one());
  EXPECT_TRUE(v[(1 << 19) - 1].is_zero());
}

}  // namespace
