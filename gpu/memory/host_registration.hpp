// Host memory page-locked in place (cudaHostRegister) for the life of the object, so copies
// from it run at the link's speed (H200: ~52 GB/s against ~6.6 from pageable memory,
// results/2026-12-03-fp-squaring-h200). Ranges below kMinBytes are left pageable: locking
// them costs more than it saves, and a small heap block may share its pages with another
// registration (which CUDA refuses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prooflab::gpu::memory {

class HostRegistration {
 public:
  static constexpr std::size_t kMinBytes = std::size_t{1} << 20;

  HostRegistration() = default;
  ~HostRegistration();
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

  enum class Mode {
    kRequired,            // the driver's refusal throws CudaError naming `what`
    kPortableIfPossible,  // locked for every device's context; refused (locked-memory limits,
                          // or locked already by another device's registration): stays pageable
  };
  // Page-locks [p, p + bytes) when bytes ≥ kMinBytes (bytes() counts what it did lock). What
  // this object locked is unlocked when it is destroyed, a throw included.
  void add(const void* p, std::size_t bytes, const char* what, Mode mode = Mode::kRequired);
  std::uint64_t bytes() const { return bytes_; }

 private:
  std::vector<void*> ranges_;
  std::uint64_t bytes_ = 0;
};

}  // namespace prooflab::gpu::memory
