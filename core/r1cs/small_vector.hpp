// A vector of trivially copyable values that keeps its first N elements inline. Linear
// combinations are built by the million while a circuit's shape is recorded and nearly all
// have one to four terms; keeping those off the heap removes most of the allocator traffic.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>

namespace prooflab::r1cs {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector copies its elements bytewise");
  static_assert(N > 0);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector& o) { assign(o.data(), o.size_); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      size_ = 0;
      assign(o.data(), o.size_);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return heap_ ? capacity_ : N; }
  T* data() { return heap_ ? heap_ : inline_data(); }
  const T* data() const { return heap_ ? heap_ : inline_data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) {
    assert(i < size_);
    return data()[i];
  }
  const T& operator[](std::size_t i) const {
    assert(i < size_);
    return data()[i];
  }
  std::span<const T> span() const { return {data(), size_}; }

  void clear() { size_ = 0; }
  void push_back(const T& v) {
    if (size_ == capacity()) grow(size_ + 1);
    data()[size_++] = v;
  }
  void append(const T* src, std::size_t n) {
    if (size_ + n > capacity()) grow(size_ + n);
    if (n != 0) std::memcpy(static_cast<void*>(data() + size_), src, n * sizeof(T));
    size_ += n;
  }
  void reserve(std::size_t n) {
    if (n > capacity()) grow(n);
  }
  void resize_down(std::size_t n) {
    assert(n <= size_);
    size_ = n;
  }

 private:
  void assign(const T* src, std::size_t n) {
    reserve(n);
    if (n != 0) std::memcpy(static_cast<void*>(data()), src, n * sizeof(T));
    size_ = n;
  }
  void steal(SmallVector& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      capacity_ = o.capacity_;
      o.heap_ = nullptr;
    } else if (o.size_ != 0) {
      std::memcpy(static_cast<void*>(inline_data()), o.inline_data(), o.size_ * sizeof(T));
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  void release() {
    if (heap_) std::free(heap_);
    heap_ = nullptr;
  }
  void grow(std::size_t needed) {
    const std::size_t cap = std::max(needed, 2 * capacity());
    T* fresh = static_cast<T*>(std::malloc(cap * sizeof(T)));
    if (fresh == nullptr) throw std::bad_alloc();
    if (size_ != 0) std::memcpy(static_cast<void*>(fresh), data(), size_ * sizeof(T));
    release();
    heap_ = fresh;
    capacity_ = cap;
  }

  // Raw storage, not T[N]: constructing a SmallVector must not initialise N elements.
  T* inline_data() { return reinterpret_cast<T*>(inline_); }
  const T* inline_data() const { return reinterpret_cast<const T*>(inline_); }

  T* heap_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace prooflab::r1cs
