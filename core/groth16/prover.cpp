#include "core/groth16/prover.hpp"

#include <chrono>
#include <stdexcept>

#include "core/curve/scalar_mul.hpp"
#include "core/groth16/qap.hpp"
#include "core/groth16/scalar_class.hpp"
#include "core/poly/ntt.hpp"
#include "core/r1cs/evaluate.hpp"
#include "core/trace/elapsed.hpp"

namespace prooflab::groth16 {
namespace {

using field::Fr;

class Stopwatch {
 public:
  explicit Stopwatch(double* out) : out_(out), t0_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() {
    if (out_) *out_ += trace::seconds_since(t0_);
  }

 private:
  double* out_;
  std::chrono::steady_clock::time_point t0_;
};

double* field_of(StageTimes* t, double StageTimes::*m) { return t ? &(t->*m) : nullptr; }

std::int64_t micros(double seconds) { return static_cast<std::int64_t>(seconds * 1e6); }

// Classifies scalars[i] for bases[i] (the query's own indexing).
template <class Curve>
void classify(const Fr& value, std::size_t base_index,
              const std::vector<curve::Affine<Curve>>& bases, QueryPlan<Curve>& plan) {
  switch (classify_scalar(value)) {
    case ScalarClass::kZero:
      ++plan.zeros;
      break;
    case ScalarClass::kOne:
      plan.ones[base_index / 64] |= std::uint64_t{1} << (base_index % 64);
      ++plan.num_ones;
      break;
    case ScalarClass::kTail:
      plan.tail_bases.push_back(bases[base_index]);
      plan.tail_scalars.push_back(value.to_canonical());
      plan.tail_index.push_back(static_cast<std::uint32_t>(base_index));
      break;
  }
}

template <class Curve>
void init_plan(QueryPlan<Curve>& plan, std::size_t n) {
  plan.ones.assign((n + 63) / 64, 0);
}

// Variable k of [inputs..., aux...] (the matrices' column order).
const Fr& variable(const r1cs::Witness& w, std::size_t num_inputs, std::size_t k) {
  return k < num_inputs ? w.input[k] : w.aux[k - num_inputs];
}

// Which variables feed the A and B queries (the densities; every input feeds A).
bool feeds_a(const r1cs::R1cs& cs, std::size_t k) {
  return k < cs.num_inputs || cs.a_aux_density.test(k - cs.num_inputs);
}
bool feeds_b(const r1cs::R1cs& cs, std::size_t k) {
  return k < cs.num_inputs ? cs.b_input_density.test(k) : cs.b_aux_density.test(k - cs.num_inputs);
}

void check_query_sizes(const ProvingKey& pk, std::size_t ia, std::size_t ib) {
  if (ia != pk.a.size() || ib != pk.b_g1.size() || ib != pk.b_g2.size())
    throw std::runtime_error("prep_msm: the densities select " + std::to_string(ia) + " A and " +
                             std::to_string(ib) + " B bases, the key has " +
                             std::to_string(pk.a.size()) + " and " + std::to_string(pk.b_g1.size()) +
                             " (key made for another circuit?)");
}

}  // namespace

SynthesizedPartition synthesize(const r1cs::R1cs& cs, r1cs::Witness witness, parallel::ThreadPool& pool,
                                r1cs::ChunkHook* hook, bool with_c) {
  SynthesizedPartition out;
  out.witness = std::move(witness);
  r1cs::check_witness_fits(cs, out.witness, "synthesize");
  // Evaluations over the whole domain: the constraints, the input rows (a = input_i),
  // then zeros — the layout compute_h transforms in place.
  auto evals = r1cs::evaluate_all(cs, out.witness, pool, hook, qap_domain_size(cs), r1cs::kDefaultChunkRows, with_c);
  out.a = std::move(evals.a);
  out.b = std::move(evals.b);
  out.c = std::move(evals.c);
  return out;
}

SynthesizedPartition defer_products(const r1cs::R1cs& cs, r1cs::Witness witness, bool with_c) {
  SynthesizedPartition out;
  out.witness = std::move(witness);
  r1cs::check_witness_fits(cs, out.witness, "synthesize");
  out.products_on_device = &cs;
  out.products_with_c = with_c;
  return out;
}

MsmPlan prep_msm(const ProvingKey& pk, const r1cs::R1cs& cs, const r1cs::Witness& w) {
  MsmPlan plan;
  const std::size_t ni = cs.num_inputs, na = cs.num_aux;
  init_plan(plan.l, pk.l.size());
  init_plan(plan.a, pk.a.size());
  init_plan(plan.b_g1, pk.b_g1.size());
  init_plan(plan.b_g2, pk.b_g2.size());
  for (std::size_t k = 0; k < na; ++k) classify(w.aux[k], k, pk.l, plan.l);
  std::size_t ia = 0, ib = 0;
  for (std::size_t k = 0; k < ni + na; ++k) {
    const Fr& v = variable(w, ni, k);
    if (feeds_a(cs, k)) classify(v, ia++, pk.a, plan.a);
    if (feeds_b(cs, k)) {
      classify(v, ib, pk.b_g1, plan.b_g1);
      classify(v, ib, pk.b_g2, plan.b_g2);
      ++ib;
    }
  }
  check_query_sizes(pk, ia, ib);
  return plan;
}

template <class Curve>
void gather_tail_bases(const std::vector<curve::Affine<Curve>>& bases, QueryPlan<Curve>& plan) {
  plan.tail_bases.clear();
  plan.tail_bases.reserve(plan.tail_index.size());
  for (const std::uint32_t i : plan.tail_index) {
    if (i >= bases.size())
      throw std::out_of_range("gather_tail_bases: tail position " + std::to_string(i) + " in a query of " +
                              std::to_string(bases.size()) + " bases");
    plan.tail_bases.push_back(bases[i]);
  }
}
template void gather_tail_bases(const std::vector<curve::G2Affine>&, QueryPlan<curve::G2Curve>&);

QueryVariables query_variables(const ProvingKey& pk, const r1cs::R1cs& cs) {
  QueryVariables out;
  out.a.reserve(pk.a.size());
  out.b.reserve(pk.b_g1.size());
  for (std::size_t k = 0; k < cs.num_inputs + cs.num_aux; ++k) {
    if (feeds_a(cs, k)) out.a.push_back(static_cast<std::uint32_t>(k));
    if (feeds_b(cs, k)) out.b.push_back(static_cast<std::uint32_t>(k));
  }
  check_query_sizes(pk, out.a.size(), out.b.size());
  return out;
}

// The prover's instantiations of compute_h.hpp's quotient (both H bases), compiled once here.
template std::vector<msm::Scalar> compute_h<Fr>(std::vector<Fr>&, std::vector<Fr>&,
                                                std::vector<Fr>&, parallel::ThreadPool&);
template std::vector<msm::Scalar> compute_h_on_coset<Fr>(std::vector<Fr>&, std::vector<Fr>&,
                                                         std::vector<Fr>&, parallel::ThreadPool&);

curve::G1Jacobian folded_c_inputs(const ProvingKey& pk, std::span<const Fr> inputs) {
  if (!folds_c(pk.h_basis)) return curve::G1Jacobian::infinity();
  if (inputs.size() != pk.h_inputs.size())
    throw std::invalid_argument("folded_c_inputs: " + std::to_string(inputs.size()) + " inputs for " +
                                std::to_string(pk.h_inputs.size()) + " points of the key's inputs' share of C");
  // A handful of inputs (ONE and the public ones): double-and-add each.
  curve::G1Jacobian sum = curve::G1Jacobian::infinity();
  for (std::size_t k = 0; k < inputs.size(); ++k)
    sum = sum.add(curve::scalar_mul(curve::G1Jacobian::from_affine(pk.h_inputs[k]), inputs[k]));
  return sum;
}

template <class Curve>
curve::Jacobian<Curve> query_sum(const std::vector<curve::Affine<Curve>>& bases,
                                 const QueryPlan<Curve>& plan, parallel::ThreadPool& pool) {
  const auto ones = msm::batch_add<Curve>(bases, plan.ones, pool);
  const auto tail = msm::msm<Curve>(plan.tail_bases, plan.tail_scalars, pool);
  return ones.add(tail);
}
template curve::G1Jacobian query_sum(const std::vector<curve::G1Affine>&,
                                     const QueryPlan<curve::G1Curve>&, parallel::ThreadPool&);
template curve::G2Jacobian query_sum(const std::vector<curve::G2Affine>&,
                                     const QueryPlan<curve::G2Curve>&, parallel::ThreadPool&);

GpuPhaseSums gpu_phase(const ProvingKey& pk, SynthesizedPartition& part, const MsmPlan& plan,
                       parallel::ThreadPool& pool, StageTimes* times,
                       const trace::SubstageHook& on_substage) {
  StageTimes local;
  if (!times) times = &local;
  GpuPhaseSums sums;
  std::vector<msm::Scalar> h;
  {
    Stopwatch sw(field_of(times, &StageTimes::ntt_h_s));
    if (folds_c(pk.h_basis) != part.c.empty())
      throw std::invalid_argument(std::string("compute_h: a key of H basis ") + h_basis_name(pk.h_basis) +
                                  (part.c.empty() ? " needs C·w, and the partition has none"
                                                  : " folds C in, and the partition has C·w (synthesize with_c = false)"));
    h = is_coset(pk.h_basis) ? compute_h_on_coset(part.a, part.b, part.c, pool)
                             : compute_h(part.a, part.b, part.c, pool);
  }
  {
    Stopwatch sw(field_of(times, &StageTimes::msm_h_s));
    if (h.size() != pk.h.size())
      throw std::runtime_error("msm_h: " + std::to_string(h.size()) + " scalars for " +
                               std::to_string(pk.h.size()) + " H bases");
    sums.h = msm::msm<curve::G1Curve>(pk.h, h, pool);
    if (folds_c(pk.h_basis)) sums.h = sums.h.add(-folded_c_inputs(pk, part.witness.input));
  }
  if (on_substage) on_substage(trace::Stage::kNttH, micros(times->ntt_h_s + times->msm_h_s));
  curve::G1Jacobian ones_l, ones_a, ones_b;
  {
    Stopwatch sw(field_of(times, &StageTimes::batch_add_s));
    ones_l = msm::batch_add<curve::G1Curve>(pk.l, plan.l.ones, pool);
    ones_a = msm::batch_add<curve::G1Curve>(pk.a, plan.a.ones, pool);
    ones_b = msm::batch_add<curve::G1Curve>(pk.b_g1, plan.b_g1.ones, pool);
  }
  if (on_substage) on_substage(trace::Stage::kBatchAdd, micros(times->batch_add_s));
  {
    Stopwatch sw(field_of(times, &StageTimes::tail_msm_s));
    sums.l = ones_l.add(msm::msm<curve::G1Curve>(plan.l.tail_bases, plan.l.tail_scalars, pool));
    sums.a = ones_a.add(msm::msm<curve::G1Curve>(plan.a.tail_bases, plan.a.tail_scalars, pool));
    sums.b_g1 =
        ones_b.add(msm::msm<curve::G1Curve>(plan.b_g1.tail_bases, plan.b_g1.tail_scalars, pool));
  }
  if (on_substage) on_substage(trace::Stage::kTailMsm, micros(times->tail_msm_s));
  return sums;
}

curve::G2Jacobian b_g2_msm(const ProvingKey& pk, const MsmPlan& plan,
                           parallel::ThreadPool& groth16_pool) {
  return query_sum<curve::G2Curve>(pk.b_g2, plan.b_g2, groth16_pool);
}

Proof epilogue(const ProvingKey& pk, const GpuPhaseSums& sums, const curve::G2Jacobian& b_g2,
               const Fr& r, const Fr& s) {
  using curve::G1Jacobian;
  using curve::G2Jacobian;
  const auto& vk = pk.vk;
  const G1Jacobian delta1 = G1Jacobian::from_affine(vk.delta_g1);
  const G1Jacobian a = sums.a.add_mixed(vk.alpha_g1).add(curve::scalar_mul(delta1, r));
  const G2Jacobian b = b_g2.add_mixed(vk.beta_g2).add(
      curve::scalar_mul(G2Jacobian::from_affine(vk.delta_g2), s));
  const G1Jacobian b1 = sums.b_g1.add_mixed(vk.beta_g1).add(curve::scalar_mul(delta1, s));
  const G1Jacobian c = curve::scalar_mul(a, s)
                           .add(curve::scalar_mul(b1, r))
                           .sub(curve::scalar_mul(delta1, r * s))
                           .add(sums.h)
                           .add(sums.l);
  return {a.to_affine(), b.to_affine(), c.to_affine()};
}

Proof prove(const ProvingKey& pk, const r1cs::R1cs& cs, r1cs::Witness witness,
            parallel::ThreadPool& pool, parallel::ThreadPool& groth16_pool, std::mt19937_64& rng,
            StageTimes* times) {
  SynthesizedPartition part;
  {
    Stopwatch sw(field_of(times, &StageTimes::synthesize_s));
    part = synthesize(cs, std::move(witness), pool, nullptr, !folds_c(pk.h_basis));
  }
  MsmPlan plan;
  {
    Stopwatch sw(field_of(times, &StageTimes::prep_msm_s));
    plan = prep_msm(pk, cs, part.witness);
  }
  const GpuPhaseSums sums = gpu_phase(pk, part, plan, pool, times);
  curve::G2Jacobian b;
  {
    Stopwatch sw(field_of(times, &StageTimes::b_g2_msm_s));
    b = b_g2_msm(pk, plan, groth16_pool);
  }
  Stopwatch sw(field_of(times, &StageTimes::epilogue_s));
  const Fr r = Fr::random(rng), s = Fr::random(rng);
  return epilogue(pk, sums, b, r, s);
}

}  // namespace prooflab::groth16
