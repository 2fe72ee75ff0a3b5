// Random prep_msm inputs for the device plan's tests (the host simulation and the device
// suite): a system's densities and a witness of values 0, 1, r − 1, 2, the raw integer 1 (the
// Montgomery form of R^-1: a tail that a rule comparing raw limbs with 1 would call a one) and
// random, with a proving key of the matching query sizes whose points are distinct multiples
// of the generators (prep_msm gathers them) or, with distinct_points off (large cases: one
// inversion a point), all the point at infinity (the plan depends on the sizes alone).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/curve/g1.hpp"
#include "core/curve/g2.hpp"
#include "core/field/fr.hpp"
#include "core/groth16/keys.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::test::msm_plan {

struct PlanCase {
  r1cs::R1cs cs;
  r1cs::Witness w;
  groth16::ProvingKey pk;
};

// `inputs` inputs (input[0] = 1) and `aux` aux variables; each aux variable feeds A with
// probability a_density and B with b_density (inputs feed B with b_density too).
template <class Rng>
PlanCase random_plan_case(Rng& rng, std::size_t inputs, std::size_t aux, double a_density, double b_density,
                          bool distinct_points = true) {
  using field::Fr;
  std::bernoulli_distribution in_a(a_density), in_b(b_density);
  const auto value = [&] {
    switch (rng() % 8) {
      case 0: case 1: return Fr::zero();
      case 2: case 3: return Fr::one();
      case 4: return -Fr::one();
      case 5: return Fr::from_u64(2);
      case 6: return Fr::from_mont({1, 0, 0, 0});
      default: return Fr::random(rng);
    }
  };
  PlanCase c;
  c.cs.num_inputs = inputs;
  c.cs.num_aux = aux;
  c.cs.a_aux_density = r1cs::DensityBitmap(aux);
  c.cs.b_input_density = r1cs::DensityBitmap(inputs);
  c.cs.b_aux_density = r1cs::DensityBitmap(aux);
  std::size_t na = inputs, nb = 0;
  for (std::size_t i = 0; i < inputs; ++i) {
    c.w.input.push_back(i == 0 ? Fr::one() : value());
    if (in_b(rng)) c.cs.b_input_density.set(i), ++nb;
  }
  for (std::size_t i = 0; i < aux; ++i) {
    c.w.aux.push_back(value());
    if (in_a(rng)) c.cs.a_aux_density.set(i), ++na;
    if (in_b(rng)) c.cs.b_aux_density.set(i), ++nb;
  }
  // Distinct points: base i of a query is (i + 1)·G of a generator (a cheap running sum).
  const auto g1s = [&](std::size_t n) {
    std::vector<curve::G1Affine> v;
    if (!distinct_points) return std::vector<curve::G1Affine>(n);
    auto p = curve::G1Jacobian::from_affine(curve::g1_generator());
    for (std::size_t i = 0; i < n; ++i, p = p.add_mixed(curve::g1_generator())) v.push_back(p.to_affine());
    return v;
  };
  c.pk.l = g1s(aux);
  c.pk.a = g1s(na);
  c.pk.b_g1 = g1s(nb);
  if (!distinct_points) {
    c.pk.b_g2.resize(nb);
    return c;
  }
  auto q = curve::G2Jacobian::from_affine(curve::g2_generator());
  for (std::size_t i = 0; i < nb; ++i, q = q.add_mixed(curve::g2_generator())) c.pk.b_g2.push_back(q.to_affine());
  return c;
}

}  // namespace prooflab::test::msm_plan
