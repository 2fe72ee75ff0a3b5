#include "gpu/bench/prep_msm_case.hpp"

#include <cstring>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/qap.hpp"
#include "core/trace/elapsed.hpp"
#include "gpu/backend/device_witness.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/msm_plan/device_plan.hpp"
#include "gpu/msm_plan/device_query_variables.hpp"

namespace prooflab::gpu::bench {

struct PrepMsmCase::State {
  memory::DeviceAllocator& alloc;
  prooflab::r1cs::R1cs cs;
  prooflab::r1cs::Witness w;
  groth16::ProvingKey pk;
  memory::DeviceBuffer<field::Fr32> witness;
  std::unique_ptr<msm_plan::DeviceQueryVariables> vars;
  msm_plan::DeviceQueryPlan plans[4];
  groth16::MsmPlan host;
};

PrepMsmCase::PrepMsmCase(std::uint64_t constraints, memory::DeviceAllocator& alloc, cudaStream_t stream)
    : s_(new State{alloc, {}, {}, {}, {}, nullptr, {}, {}}) {
  const auto circuit = circuits::make_circuit("porep-like", constraints, 20261203);
  s_->cs = circuits::synthesize_shape(*circuit);
  s_->w = circuits::synthesize_witness(*circuit);
  const auto& cs = s_->cs;
  s_->pk.l.resize(cs.num_aux);
  s_->pk.a.resize(cs.num_inputs + cs.a_aux_density.count());
  const std::size_t nb = cs.b_input_density.count() + cs.b_aux_density.count();
  s_->pk.b_g1.resize(nb);
  s_->pk.b_g2.resize(nb);
  s_->vars = std::make_unique<msm_plan::DeviceQueryVariables>(alloc, s_->pk, cs, stream, "bench_prep_msm_variables");
  s_->witness = engine::upload_witness(alloc, s_->w, stream, "bench_witness");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(prep_msm case)");
}

PrepMsmCase::~PrepMsmCase() = default;

unsigned PrepMsmCase::log_domain() const { return groth16::qap_log_domain_size(s_->cs); }

std::uint64_t PrepMsmCase::variables() const { return s_->w.size(); }

std::uint64_t PrepMsmCase::positions() const {
  return s_->pk.l.size() + s_->pk.a.size() + s_->pk.b_g1.size() + s_->pk.b_g2.size();
}

std::uint64_t PrepMsmCase::tails() const {
  std::uint64_t t = 0;
  for (const auto& p : s_->plans) t += p.num_tails;
  return t;
}

std::uint64_t PrepMsmCase::min_bytes() const {
  const std::uint64_t indexed = s_->pk.a.size() + s_->pk.b_g1.size() + s_->pk.b_g2.size();
  return 32 * positions() + 4 * indexed + positions() / 8 + 36 * tails();
}

void PrepMsmCase::device_plan(cudaStream_t stream) {
  for (auto& p : s_->plans) p = msm_plan::DeviceQueryPlan();
  const field::Fr32* w = s_->witness.get();
  const msm_plan::QueryView views[4] = {s_->vars->l(w), s_->vars->a(w), s_->vars->b(w), s_->vars->b(w)};
  msm_plan::make_device_plans(s_->alloc, views, 4, s_->plans, stream, "bench_prep_msm");
}

double PrepMsmCase::host_prep_msm_ms() {
  const auto t0 = std::chrono::steady_clock::now();
  s_->host = groth16::prep_msm(s_->pk, s_->cs, s_->w);
  return trace::seconds_since(t0) * 1e3;
}

namespace {

template <class T>
std::vector<T> download(const memory::DeviceBuffer<T>& d) {
  std::vector<T> out(d.size());
  if (d.size()) check_cuda(cudaMemcpy(out.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy(prep_msm check)");
  return out;
}

template <class Curve>
bool equal(const msm_plan::DeviceQueryPlan& got, const groth16::QueryPlan<Curve>& want) {
  if (got.zeros != want.zeros || got.num_ones != want.num_ones || got.num_tails != want.tail_index.size())
    return false;
  if (download(got.ones) != want.ones || download(got.tail_index) != want.tail_index) return false;
  const auto scalars = download(got.tail_scalars);
  return scalars.size() == want.tail_scalars.size() &&
         (scalars.empty() || std::memcmp(scalars.data(), want.tail_scalars.data(), scalars.size() * 32) == 0);
}

}  // namespace

bool PrepMsmCase::device_equals_host() {
  return equal(s_->plans[0], s_->host.l) && equal(s_->plans[1], s_->host.a) && equal(s_->plans[2], s_->host.b_g1) &&
         equal(s_->plans[3], s_->host.b_g2);
}

}  // namespace prooflab::gpu::bench
