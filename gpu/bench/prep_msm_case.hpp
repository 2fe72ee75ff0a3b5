// The prep_msm rows of prooflab_gpu_bench (prep_msm = gpu): a porep-like partition's witness
// and the queries' variables on the device as the CUDA backend holds them, the device plan of
// L, A, B_G1 and B_G2 (gpu/msm_plan), and the host's groth16::prep_msm of the same witness in
// the same call, for the comparison and the bit-for-bit check. The key's queries are sized to
// the circuit but hold the point at infinity: the plan depends on the sizes alone, and the
// host still gathers its tails' bases from them as it does from a real key (a real key at
// 2^24 takes hours to make). C++17-clean.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpu/memory/device_allocator.hpp"

namespace prooflab::gpu::bench {

class PrepMsmCase {
 public:
  // A porep-like partition of about `constraints` constraints (seeded), its witness uploaded.
  PrepMsmCase(std::uint64_t constraints, memory::DeviceAllocator& alloc, cudaStream_t stream);
  ~PrepMsmCase();
  PrepMsmCase(const PrepMsmCase&) = delete;
  PrepMsmCase& operator=(const PrepMsmCase&) = delete;

  unsigned log_domain() const;
  std::uint64_t variables() const;
  // Bases of the four queries together (positions classified).
  std::uint64_t positions() const;
  // Device bytes the pass must move at least: each position's scalar read (32 B) and, for A
  // and B, its variable (4 B); the bitmaps written; the tails' positions and scalars written.
  std::uint64_t min_bytes() const;
  std::uint64_t tails() const;
  // The device plan of the four queries on `stream` (the timed call: the backend's
  // run_prep_msm less its lane and the resident variables' first upload); the previous plan
  // is freed first, as between partitions.
  void device_plan(cudaStream_t stream);
  // groth16::prep_msm on this thread (one sample, as the engine's partition worker), in ms;
  // then whether the last device plan equals it bit for bit.
  double host_prep_msm_ms();
  bool device_equals_host();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace prooflab::gpu::bench
