// The CPU backend's stand-in for a GPU: a memory capacity that allocations are charged
// against (failing past vram_limit, as cudaMallocAsync does), a count of operations in
// flight, and device-global synchronise / trim that wait until no other operation is in
// flight — the property of cudaDeviceSynchronize and cudaMemPoolTrimTo that made the
// reference's two-lock fallback path slow.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace prooflab::engine {

class EmulatedDevice {
 public:
  EmulatedDevice(int index, std::uint64_t capacity) : index_(index), capacity_(capacity) {}

  int index() const { return index_; }
  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t used() const;
  std::uint64_t peak() const;
  void reset_peak();  // peak := used

  // Charges bytes; throws OutOfDeviceMemory naming the stage when it does not fit.
  void allocate(std::uint64_t bytes, const std::string& stage);
  void release(std::uint64_t bytes);

  // Brackets an operation (an upload, a kernel sequence) that device-global calls wait for.
  void begin_operation();
  void end_operation();
  // Waits until no operation is in flight (other than the caller's, which must not hold one).
  void synchronize();

 private:
  int index_;
  std::uint64_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::uint64_t used_ = 0, peak_ = 0;
  int in_flight_ = 0;
};

// RAII bracket for an operation on the emulated device.
class DeviceOperation {
 public:
  explicit DeviceOperation(EmulatedDevice& d) : d_(d) { d_.begin_operation(); }
  ~DeviceOperation() { d_.end_operation(); }
  DeviceOperation(const DeviceOperation&) = delete;
  DeviceOperation& operator=(const DeviceOperation&) = delete;

 private:
  EmulatedDevice& d_;
};

}  // namespace prooflab::engine
