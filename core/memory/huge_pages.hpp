// Transparent-huge-page advice for large host arrays.
//
// A fresh multi-megabyte array costs one page fault per 4 KiB page at its first touch; in a
// VM each fault is several microseconds (measured on the dev VM: 96 MiB of std::vector<Fr>
// value-initialised in ~145 ms with 4 KiB pages, ~26 ms once advised, results/
// 2026-12-02-synthesis-cpu.md). Where transparent huge pages are enabled in "madvise" mode
// (the common default), advising the range cuts the faults by 512. Advice only: where it is
// refused or unsupported nothing changes but the speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace prooflab::memory {

inline constexpr std::size_t kHugePageBytes = std::size_t{1} << 21;

// Advises the whole 2 MiB pages inside [p, p + bytes); smaller ranges hold none.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// v.reserve(n) with the new storage advised before anything touches it (a vector's
// reserve allocates without writing), so the later push_backs or resize fault in huge pages.
template <class T, class A>
void reserve_huge(std::vector<T, A>& v, std::size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// v.resize(n) into advised storage (see reserve_huge).
template <class T, class A>
void resize_huge(std::vector<T, A>& v, std::size_t n) {
  reserve_huge(v, n);
  v.resize(n);
}

}  // namespace prooflab::memory
