// The Groth16 prover as the reference pipeline's stages (DESIGN.md §1), each a function the
// engine can schedule on its own thread, lock and pool. It knows constraint systems and
// witnesses (core/r1cs), not circuits: the engine or the harness chooses the circuit and
// generates the witness (circuits::synthesize_witness).
//   synthesize → prep_msm → compute_h → msm_h, batch_add, tail_msm (the "GPU phase")
//   → b_g2_msm (on the groth16 pool of gpu_threads threads) → epilogue.
// prove() runs them in order for one partition and reports every stage's duration.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

#include "core/groth16/compute_h.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/proof.hpp"
#include "core/msm/msm.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/evaluate.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"
#include "core/trace/stages.hpp"

namespace prooflab::groth16 {

struct SynthesizedPartition {
  r1cs::Witness witness;
  // A·w, B·w, C·w over the QAP rows (constraints, then input rows), zero-padded to the domain;
  // c empty for a key that folds C's share in (h_basis.hpp, kCosetFoldedC).
  std::vector<field::Fr> a, b, c;
  // Set (and a, b, c empty) when the device computes the products from this system's
  // matrices (engine knob sparse_products = gpu: Backend::stage uploads the witness).
  const r1cs::R1cs* products_on_device = nullptr;
  bool products_with_c = true;  // with products_on_device: whether the device computes C·w too
};

// The rest of synthesis once the witness is generated: A·w, B·w, C·w over the QAP domain (C·w
// only with_c: a key of basis kCosetFoldedC needs none). Throws when the witness does not fit cs.
SynthesizedPartition synthesize(const r1cs::R1cs& cs, r1cs::Witness witness, parallel::ThreadPool& pool,
                                r1cs::ChunkHook* hook = nullptr, bool with_c = true);

// Σ_inputs w_k·h_inputs_k: the inputs' share of C that a kCosetFoldedC key (h_basis.hpp) leaves
// to the prover, whose H sum is the MSM over a·b at the coset points minus this; infinity for
// the other bases. inputs: the witness's (ONE first). Throws when their count is not the key's.
curve::G1Jacobian folded_c_inputs(const ProvingKey& pk, std::span<const field::Fr> inputs);

// One query's scalars split the way the reference splits them: zeros dropped, ones
// summed by batch addition (bitmap over the query's bases), the rest ("tail") gathered
// with their bases for a real MSM.
template <class Curve>
struct QueryPlan {
  std::vector<std::uint64_t> ones;  // bit i set: base i has scalar 1
  std::vector<curve::Affine<Curve>> tail_bases;
  std::vector<msm::Scalar> tail_scalars;
  std::vector<std::uint32_t> tail_index;  // position of each tail base in the query (a device
                                          // gathers from its resident copy instead of uploading)
  std::size_t zeros = 0, num_ones = 0;
};

struct MsmPlan {
  QueryPlan<curve::G1Curve> l, a, b_g1;
  QueryPlan<curve::G2Curve> b_g2;
};

// Synthesis without the products (sparse_products = gpu): the witness, checked against cs,
// with a, b, c left to the device.
SynthesizedPartition defer_products(const r1cs::R1cs& cs, r1cs::Witness witness, bool with_c = true);

MsmPlan prep_msm(const ProvingKey& pk, const r1cs::R1cs& cs, const r1cs::Witness& w);

// A plan made elsewhere (the device's, prep_msm = gpu) carries the tail's positions, not its
// bases: this gathers them from the query for the host MSM (b_g2_msm = cpu). Throws
// std::out_of_range naming the position when one is outside the query.
template <class Curve>
void gather_tail_bases(const std::vector<curve::Affine<Curve>>& bases, QueryPlan<Curve>& plan);

// The variable (index into [inputs..., aux...]) of each base of the A and the B queries, in
// base order: prep_msm's selection by the densities, for a device that classifies the
// witness itself (L's base i is aux variable i, num_inputs + i). Throws as prep_msm does
// when the densities do not match the key.
struct QueryVariables {
  std::vector<std::uint32_t> a, b;
};
QueryVariables query_variables(const ProvingKey& pk, const r1cs::R1cs& cs);

// compute_h (compute_h.hpp): h = (a·b − c)/Z as the m − 1 canonical scalars of the H MSM;
// for Fr its element type field::BigInt<4> is msm::Scalar.
static_assert(std::is_same_v<msm::Scalar, field::BigInt<field::Fr::kLimbs>>);

template <class Curve>
curve::Jacobian<Curve> query_sum(const std::vector<curve::Affine<Curve>>& bases,
                                 const QueryPlan<Curve>& plan, parallel::ThreadPool& pool);

struct GpuPhaseSums {
  curve::G1Jacobian h, l, a, b_g1;
};

struct StageTimes {
  double synthesize_s = 0, prep_msm_s = 0, ntt_h_s = 0, msm_h_s = 0, batch_add_s = 0,
         tail_msm_s = 0, b_g2_msm_s = 0, epilogue_s = 0;
  double total_s() const {
    return synthesize_s + prep_msm_s + ntt_h_s + msm_h_s + batch_add_s + tail_msm_s +
           b_g2_msm_s + epilogue_s;
  }
};

// The GPU phase on the CPU: H, batch additions and tail MSMs for L, A, B_G1. on_substage is
// called as each sub-stage ends, with its duration: ntt_h (the NTTs and the MSM of H, the
// reference's ntt_msm_h), batch_add, tail_msm.
GpuPhaseSums gpu_phase(const ProvingKey& pk, SynthesizedPartition& part, const MsmPlan& plan,
                       parallel::ThreadPool& pool, StageTimes* times = nullptr,
                       const trace::SubstageHook& on_substage = {});

// b_g2_msm: the G2 query (batch addition + tail MSM) on the groth16 pool.
curve::G2Jacobian b_g2_msm(const ProvingKey& pk, const MsmPlan& plan,
                           parallel::ThreadPool& groth16_pool);

// A = α + Σa + rδ₁, B = β₂ + Σb + sδ₂, C = sA + rB₁ − rsδ₁ + H + L.
Proof epilogue(const ProvingKey& pk, const GpuPhaseSums& sums, const curve::G2Jacobian& b_g2,
               const field::Fr& r, const field::Fr& s);

// All stages for one partition's witness; r and s drawn from rng. times->synthesize_s is
// synthesize() alone (the witness came in generated).
Proof prove(const ProvingKey& pk, const r1cs::R1cs& cs, r1cs::Witness witness,
            parallel::ThreadPool& pool, parallel::ThreadPool& groth16_pool, std::mt19937_64& rng,
            StageTimes* times = nullptr);

}  // namespace prooflab::groth16
