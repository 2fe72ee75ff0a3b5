#include "gpu/bench/host_inputs.hpp"

#include <chrono>
#include <cstring>
#include <random>
#include <span>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/random_points.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/field/fr.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/trace/elapsed.hpp"
#include "gpu/msm/msm_host.hpp"

namespace prooflab::gpu::bench {

parallel::ThreadPool& host_pool() {
  static parallel::ThreadPool p(0, "bench-host");
  return p;
}

std::vector<msm::G1AffineRaw> random_g1_points(std::size_t n, std::uint64_t seed) {
  std::vector<msm::G1AffineRaw> out(n);
  static_assert(sizeof(curve::G1Affine) == sizeof(msm::G1AffineRaw));
  curve::fill_random_points<curve::G1Curve>(
      std::span(reinterpret_cast<curve::G1Affine*>(out.data()), n), curve::g1_generator(), seed,
      host_pool());
  return out;
}

void random_scalars(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  host_pool().parallel_for(n, 1 << 16, [&](std::size_t begin, std::size_t end) {
    std::mt19937_64 rng(seed ^ (begin * 0xbf58476d1ce4e5b9ULL));
    for (std::size_t i = begin; i < end; ++i) {
      const prooflab::msm::Scalar s = field::Fr::random(rng).to_canonical();
      std::memcpy(out + 8 * i, &s, 32);
    }
  });
}

bool equals_cpu_msm(const std::vector<msm::G1AffineRaw>& bases, const std::uint32_t* scalars,
                    std::size_t n, const msm::G1XyzzRaw& device_result, double* cpu_seconds) {
  std::vector<curve::G1Affine> b(n);
  std::memcpy(b.data(), bases.data(), n * sizeof(curve::G1Affine));
  std::vector<prooflab::msm::Scalar> k(n);
  std::memcpy(k.data(), scalars, n * 32);
  const auto t0 = std::chrono::steady_clock::now();
  const auto cpu = prooflab::msm::msm<curve::G1Curve>(b, k, host_pool());
  if (cpu_seconds) *cpu_seconds = prooflab::trace::seconds_since(t0);
  return cpu.to_affine() == msm::to_jacobian(device_result).to_affine();
}

bool same_point(const msm::G1XyzzRaw& a, const msm::G1XyzzRaw& b) {
  return msm::to_jacobian(a).to_affine() == msm::to_jacobian(b).to_affine();
}

std::vector<msm::G2AffineRaw> random_g2_points(std::size_t n, std::uint64_t seed) {
  std::vector<msm::G2AffineRaw> out(n);
  static_assert(sizeof(curve::G2Affine) == sizeof(msm::G2AffineRaw));
  curve::fill_random_points<curve::G2Curve>(
      std::span(reinterpret_cast<curve::G2Affine*>(out.data()), n), curve::g2_generator(), seed,
      host_pool());
  return out;
}

bool equals_cpu_g2_msm(const std::vector<msm::G2AffineRaw>& bases, const std::uint32_t* scalars,
                       std::size_t n, const msm::G2XyzzRaw& device_result, double* cpu_seconds) {
  std::vector<curve::G2Affine> b(n);
  std::memcpy(b.data(), bases.data(), n * sizeof(curve::G2Affine));
  std::vector<prooflab::msm::Scalar> k(n);
  std::memcpy(k.data(), scalars, n * 32);
  const auto t0 = std::chrono::steady_clock::now();
  const auto cpu = prooflab::msm::msm<curve::G2Curve>(b, k, host_pool());
  if (cpu_seconds) *cpu_seconds = prooflab::trace::seconds_since(t0);
  return cpu.to_affine() == msm::to_jacobian(device_result).to_affine();
}

unsigned host_threads() { return static_cast<unsigned>(host_pool().size()); }

}  // namespace prooflab::gpu::bench
