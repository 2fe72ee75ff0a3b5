// Runs NTT passes on the host with the kernel's own phase functions (pass.cuh), one block
// after another and, within a block, one thread after another between the barriers. The
// tests use it to check the decomposition, the index arithmetic and the tables against
// core/poly on machines without a GPU. It cannot see races; compute-sanitizer's racecheck
// covers those on the device.
#pragma once

#include <vector>

#include "gpu/ntt/pass.cuh"

namespace prooflab::gpu::ntt {

inline void simulate_pass(const PassArgs& p) {
  const std::uint32_t count = 1u << p.log_elems();
  std::vector<uint4> lo(count), hi(count);
  const Tile sh{lo.data(), hi.data()};
  for (std::uint32_t block = 0; block < p.blocks(); ++block) {
    for (std::uint32_t tid = 0; tid < p.threads; ++tid) pass_load(p, block, tid, sh);
    const auto each_thread = [&](auto&& step) {
      for (std::uint32_t tid = 0; tid < p.threads; ++tid) step(tid, sh);
    };
    if (p.paired_stages)
      pass_stages<true>(p, each_thread, [] {});
    else
      pass_stages<false>(p, each_thread, [] {});
    for (std::uint32_t tid = 0; tid < p.threads; ++tid) pass_store(p, block, tid, sh);
  }
}

inline void simulate_passes(const std::vector<PassArgs>& passes) {
  for (const auto& p : passes) simulate_pass(p);
}

}  // namespace prooflab::gpu::ntt
