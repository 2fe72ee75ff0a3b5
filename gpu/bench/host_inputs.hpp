// Inputs of the MSM benchmark made with core/ on the host (the benchmark's .cu is C++17 and
// cannot include core): random subgroup points, random scalars, and the CPU MSM as the
// reference the device result is checked against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/msm/g2_msm.hpp"
#include "gpu/msm/msm.hpp"

namespace prooflab::parallel {
class ThreadPool;
}

namespace prooflab::gpu::bench {

// The host's threads, one pool for every CPU figure of the benchmark.
parallel::ThreadPool& host_pool();

// n random G1 points of the prime-order subgroup (parallel chains of additions).
std::vector<msm::G1AffineRaw> random_g1_points(std::size_t n, std::uint64_t seed);
// n random scalars below r, canonical (8 words each).
void random_scalars(std::uint32_t* out, std::size_t n, std::uint64_t seed);
// Σ k_i·P_i on all host cores (core/msm), and whether it equals the device's XYZZ result.
bool equals_cpu_msm(const std::vector<msm::G1AffineRaw>& bases, const std::uint32_t* scalars,
                    std::size_t n, const msm::G1XyzzRaw& device_result, double* cpu_seconds);

// Whether two device results are the same point (their XYZZ coordinates may differ).
bool same_point(const msm::G1XyzzRaw& a, const msm::G1XyzzRaw& b);

// The same for G2 (the g2_msm rows): n random points of G2's subgroup, and whether core/msm's
// G2 MSM on all host cores equals the device's result (its time in *cpu_seconds).
std::vector<msm::G2AffineRaw> random_g2_points(std::size_t n, std::uint64_t seed);
bool equals_cpu_g2_msm(const std::vector<msm::G2AffineRaw>& bases, const std::uint32_t* scalars,
                       std::size_t n, const msm::G2XyzzRaw& device_result, double* cpu_seconds);
// Host cores the CPU figures ran on.
unsigned host_threads();

}  // namespace prooflab::gpu::bench
