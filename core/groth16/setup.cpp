#include "core/groth16/setup.hpp"

#include <chrono>
#include <random>
#include <stdexcept>

#include "core/curve/fixed_base.hpp"
#include "core/groth16/qap.hpp"
#include "core/poly/domain.hpp"
#include "core/trace/elapsed.hpp"

namespace prooflab::groth16 {
namespace {

using trace::seconds_since;

using field::Fr;

template <class Curve>
std::vector<curve::Affine<Curve>> fixed_base_points(const curve::FixedBaseTable<Curve>& table,
                                                    const std::vector<Fr>& scalars,
                                                    parallel::ThreadPool& pool) {
  std::vector<curve::Affine<Curve>> out(scalars.size());
  table.mul_batch(scalars, out, pool);
  return out;
}

}  // namespace

ToxicWaste ToxicWaste::generate(std::optional<std::uint64_t> seed) {
  std::random_device os_rng;
  std::mt19937_64 seeded(seed.value_or(0));
  auto draw = [&] {
    for (;;) {
      const Fr x = seed ? Fr::random(seeded) : Fr::random(os_rng);
      if (!x.is_zero()) return x;
    }
  };
  ToxicWaste tw;
  tw.alpha = draw();
  tw.beta = draw();
  tw.gamma = draw();
  tw.delta = draw();
  tw.tau = draw();
  return tw;
}

std::uint64_t shape_hash(const r1cs::R1cs& cs) {
  std::uint64_t h = 0;
  auto mix = [&](const auto& vec) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(vec.data());
    h = h * 0x9e3779b97f4a7c15ULL + checksum64(bytes, vec.size() * sizeof(vec[0]));
  };
  for (const auto* m : {&cs.a, &cs.b, &cs.c}) {
    mix(m->row_ptr);
    mix(m->cols);
    mix(m->coeff_ids);
    for (const auto& coeff : m->coeffs) mix(coeff.mont);
  }
  for (const auto* d : {&cs.a_aux_density, &cs.b_input_density, &cs.b_aux_density})
    mix(d->words());
  return h;
}

CircuitShape circuit_shape(const r1cs::R1cs& cs) {
  return {cs.num_inputs, cs.num_aux, cs.num_constraints, qap_domain_size(cs), shape_hash(cs)};
}

void check_key_fits(const ProvingKey& pk, const r1cs::R1cs& cs) {
  const std::size_t a = cs.num_inputs + cs.a_aux_density.count();
  const std::size_t b = cs.b_input_density.count() + cs.b_aux_density.count();
  const std::size_t domain = qap_domain_size(cs);
  const std::pair<const char*, std::pair<std::size_t, std::size_t>> sizes[] = {
      {"IC", {pk.vk.ic.size(), cs.num_inputs}}, {"H", {pk.h.size(), h_query_size(pk.h_basis, domain)}},
      {"H (inputs' share of C)", {pk.h_inputs.size(), folds_c(pk.h_basis) ? cs.num_inputs : 0}},
      {"L", {pk.l.size(), cs.num_aux}},         {"A", {pk.a.size(), a}},
      {"B_G1", {pk.b_g1.size(), b}},            {"B_G2", {pk.b_g2.size(), b}}};
  for (const auto& [name, have_need] : sizes)
    if (have_need.first != have_need.second)
      throw std::invalid_argument(std::string("section ") + name + " holds " +
                                  std::to_string(have_need.first) + " points, the circuit needs " +
                                  std::to_string(have_need.second));
}

ProvingKey generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& tw,
                               parallel::ThreadPool& pool, SetupStats* stats, HBasis h_basis) {
  auto t0 = std::chrono::steady_clock::now();
  const poly::EvaluationDomain domain(qap_log_domain_size(cs));
  const QapAtTau qap = evaluate_qap_at(cs, domain, tw.tau, pool);
  // Scalars of every query, then one fixed-base pass per group.
  QueryScalars<Fr> q =
      query_scalars(cs, qap, domain.size(), tw.alpha, tw.beta, tw.gamma, tw.delta, tw.tau);
  if (is_coset(h_basis)) q.h = coset_lagrange_h_scalars(domain, tw.tau, tw.delta, pool);
  const std::vector<Fr> h_inputs =
      folds_c(h_basis) ? fold_c_into_l(qap, cs.num_inputs, domain, tw.delta, q.l) : std::vector<Fr>{};
  if (stats) stats->qap_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  const curve::FixedBaseTable<curve::G1Curve> g1(curve::g1_generator());
  ProvingKey pk;
  pk.h_basis = h_basis;
  pk.vk.alpha_g1 = g1.mul(tw.alpha).to_affine();
  pk.vk.beta_g1 = g1.mul(tw.beta).to_affine();
  pk.vk.delta_g1 = g1.mul(tw.delta).to_affine();
  pk.vk.ic = fixed_base_points(g1, q.ic, pool);
  pk.h = fixed_base_points(g1, q.h, pool);
  pk.h_inputs = fixed_base_points(g1, h_inputs, pool);
  pk.l = fixed_base_points(g1, q.l, pool);
  pk.a = fixed_base_points(g1, q.a, pool);
  pk.b_g1 = fixed_base_points(g1, q.b, pool);
  if (stats) {
    stats->g1_seconds = seconds_since(t0);
    stats->g1_points = 3 + q.ic.size() + q.h.size() + h_inputs.size() + q.l.size() + q.a.size() + q.b.size();
  }

  t0 = std::chrono::steady_clock::now();
  const curve::FixedBaseTable<curve::G2Curve> g2(curve::g2_generator());
  pk.vk.beta_g2 = g2.mul(tw.beta).to_affine();
  pk.vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
  pk.vk.delta_g2 = g2.mul(tw.delta).to_affine();
  pk.b_g2 = fixed_base_points(g2, q.b, pool);
  if (stats) {
    stats->g2_seconds = seconds_since(t0);
    stats->g2_points = 3 + q.b.size();
  }
  return pk;
}

}  // namespace prooflab::groth16
