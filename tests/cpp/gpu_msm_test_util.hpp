// Inputs and the CPU reference shared by the MSM suites of the CUDA backend:
// gpu_msm_simulation_test.cpp / gpu_g2_msm_simulation_test.cpp (the kernels' phases on the
// host) and gpu_msm_test.cpp / gpu_g2_msm_test.cpp (the kernels on the GPU). All compare
// against core/msm, itself tested against the naive Σ k·P.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/random_points.hpp"
#include "core/field/fr.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "test_util.hpp"

namespace prooflab::test::gpu_msm {

using curve::G1Affine;
using curve::G1Curve;
using curve::G1Jacobian;
using curve::G2Affine;
using curve::G2Curve;
using curve::G2Jacobian;
using prooflab::msm::Scalar;

inline parallel::ThreadPool& pool() {
  static parallel::ThreadPool p(0, "gpu-msm-test");
  return p;
}

inline Scalar random_scalar(std::mt19937_64& rng) { return field::Fr::random(rng).to_canonical(); }

inline std::vector<Scalar> random_scalars(std::size_t n, std::mt19937_64& rng) {
  std::vector<Scalar> k(n);
  for (auto& s : k) s = random_scalar(rng);
  return k;
}

inline std::vector<G1Affine> random_bases(std::size_t n, std::mt19937_64& rng) {
  std::vector<G1Affine> out(n);
  curve::fill_random_points<G1Curve>(out, curve::g1_generator(), rng(), pool());
  return out;
}

inline std::vector<G2Affine> random_g2_bases(std::size_t n, std::mt19937_64& rng) {
  std::vector<G2Affine> out(n);
  curve::fill_random_points<G2Curve>(out, curve::g2_generator(), rng(), pool());
  return out;
}

inline G2Affine cpu_g2_msm(const std::vector<G2Affine>& bases, const std::vector<Scalar>& scalars) {
  return prooflab::msm::msm<G2Curve>(bases, scalars, pool()).to_affine();
}

inline G1Affine cpu_msm(const std::vector<G1Affine>& bases, const std::vector<Scalar>& scalars) {
  return prooflab::msm::msm<G1Curve>(bases, scalars, pool()).to_affine();
}

inline Scalar small(std::uint64_t v) { return Scalar{v, 0, 0, 0}; }
inline Scalar r_minus_1() {
  Scalar r = field::FrParams::kModulus;
  r[0] -= 1;
  return r;
}

inline std::string describe(const G1Affine& p) {
  return p.is_infinity() ? std::string("infinity") : "x=" + test::hex(p.x);
}

inline std::string describe(const G2Affine& p) {
  return p.is_infinity() ? std::string("infinity") : "x=" + test::hex(p.x);
}

}  // namespace prooflab::test::gpu_msm
