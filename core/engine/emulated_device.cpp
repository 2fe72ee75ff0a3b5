#include "core/engine/emulated_device.hpp"

#include "core/engine/backend.hpp"

namespace prooflab::engine {

std::uint64_t EmulatedDevice::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

std::uint64_t EmulatedDevice::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

void EmulatedDevice::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_ = used_;
}

void EmulatedDevice::allocate(std::uint64_t bytes, const std::string& stage) {
  std::lock_guard lock(mutex_);
  if (used_ + bytes > capacity_) throw OutOfDeviceMemory(index_, stage, bytes, used_, capacity_);
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
}

void EmulatedDevice::release(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  used_ -= bytes;
}

void EmulatedDevice::begin_operation() {
  std::lock_guard lock(mutex_);
  ++in_flight_;
}

void EmulatedDevice::end_operation() {
  std::lock_guard lock(mutex_);
  if (--in_flight_ == 0) idle_.notify_all();
}

void EmulatedDevice::synchronize() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return in_flight_ == 0; });
}

}  // namespace prooflab::engine
