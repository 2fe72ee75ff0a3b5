// Multi-scalar multiplication on G1 and G2: Σ k_i·P_i for many affine bases P_i and
// canonical scalars k_i < r, and batch_add, Σ P_i over a selection (the scalars equal to
// one of a mostly-binary witness). The algorithm (Pippenger with signed windows, GLV split,
// batch-affine bucket trees) is described in docs/msm.md; the steps live in pippenger.hpp.
//
// The templates are defined in msm.cpp and instantiated there for G1Curve and G2Curve only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/curve/affine.hpp"
#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/curve/jacobian.hpp"
#include "core/field/bigint.hpp"
#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::msm {

// A scalar as a canonical integer below r (not in Montgomery form): Fr::to_canonical().
using Scalar = field::BigInt<4>;

// Tuning knobs; the defaults are what the prover should use.
struct MsmConfig {
  // Window width c in bits, 1..24; 0 = chosen from n by the cost model in windows.hpp.
  // A non-zero value always runs Pippenger (even where a tiny n would take the
  // double-and-add path), which is what the tests rely on.
  unsigned window_bits = 0;
  // Split every scalar as k1 + k2·x² with 128-bit halves (GLV). Correct only for bases in
  // the prime-order subgroup, which Groth16 bases are; turn off for arbitrary curve points.
  bool use_endomorphism = true;
  // Affine additions per batch inversion.
  std::size_t batch_size = 1024;
  // Points per unit of parallel work in the bucket trees.
  std::size_t chunk_points = 16384;
  // Run the bucket trees' batch-affine additions eight at a time with AVX-512 IFMA where
  // the CPU has it (batch_affine_x8.hpp); off, or on other CPUs, the scalar adder.
  bool simd = true;
};

// out[i] = in[i].to_canonical(), on the pool.
void to_scalars(std::span<const field::Fr> in, std::span<Scalar> out, parallel::ThreadPool& pool);
std::vector<Scalar> to_scalars(std::span<const field::Fr> in, parallel::ThreadPool& pool);

// Σ scalars[i]·bases[i]. bases.size() == scalars.size() < 2^30; every scalar < r (asserted
// in debug builds). Bases may be infinity and may repeat. Runs on `pool` (a pool of one
// thread runs everything on the caller).
template <class Curve>
curve::Jacobian<Curve> msm(std::span<const curve::Affine<Curve>> bases,
                           std::span<const Scalar> scalars, parallel::ThreadPool& pool,
                           const MsmConfig& cfg = {});

// Σ bases[i] over the set bits of `bitmap`: bit i is bit (i % 64) of word i / 64 (the
// density-bitmap layout), bitmap.size() == ⌈bases.size()/64⌉, bits past the end are zero.
template <class Curve>
curve::Jacobian<Curve> batch_add(std::span<const curve::Affine<Curve>> bases,
                                 std::span<const std::uint64_t> bitmap, parallel::ThreadPool& pool,
                                 const MsmConfig& cfg = {});

// Σ bases[indices[j]]; indices may repeat and come in any order; each < bases.size() < 2^31.
template <class Curve>
curve::Jacobian<Curve> batch_add_indices(std::span<const curve::Affine<Curve>> bases,
                                         std::span<const std::uint32_t> indices,
                                         parallel::ThreadPool& pool, const MsmConfig& cfg = {});

}  // namespace prooflab::msm
