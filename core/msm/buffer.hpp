// Large scratch arrays for MSM (the λ·P bases, split scalars, sorted entries, histograms).
//
// std::vector value-initialises: for the ~150 MB an MSM of 2^20 points allocates, that is a
// single-threaded memset plus tens of thousands of page faults on the calling thread before
// the pool can start (~0.1 s on the lent 16-core host, a tenth of the whole MSM). A
// RawBuffer leaves its elements uninitialised, so the first writes, and with them the page
// faults, happen inside the parallel loops; buffers of 2 MiB and more are also aligned and
// advised to use transparent huge pages, which cuts the number of faults by 512.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include "core/memory/huge_pages.hpp"

namespace prooflab::msm {

template <class T>
class RawBuffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "elements are created by assignment into raw storage");

 public:
  RawBuffer() = default;
  explicit RawBuffer(std::size_t n) { resize_discard(n); }

  // Makes room for n elements; the contents are unspecified afterwards.
  void resize_discard(std::size_t n) {
    if (n > capacity_) {
      ptr_.reset(allocate(n));
      capacity_ = n;
    }
    size_ = n;
  }

  T* data() { return ptr_.get(); }
  const T* data() const { return ptr_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return ptr_.get()[i]; }
  const T& operator[](std::size_t i) const { return ptr_.get()[i]; }
  std::span<T> span() { return {data(), size_}; }
  std::span<const T> span() const { return {data(), size_}; }

 private:
  static constexpr std::size_t kHugePage = memory::kHugePageBytes;

  static T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    const bool huge = bytes >= kHugePage;
    const std::size_t align = huge ? kHugePage : std::max(alignof(T), alignof(std::max_align_t));
    const std::size_t rounded = (bytes + align - 1) / align * align;  // aligned_alloc needs it
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) throw std::bad_alloc();
    if (huge) memory::advise_huge_pages(p, rounded);
    return static_cast<T*>(p);
  }

  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> ptr_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace prooflab::msm
