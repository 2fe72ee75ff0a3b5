#include "gpu/bench/sparse_products_case.hpp"

#include <cstring>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/groth16/qap.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/evaluate.hpp"
#include "core/trace/elapsed.hpp"
#include "gpu/backend/device_witness.hpp"
#include "gpu/bench/host_inputs.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/r1cs/device_matrices.hpp"
#include "gpu/r1cs/sparse_products.hpp"

namespace prooflab::gpu::bench {

struct SparseProductsCase::State {
  memory::DeviceAllocator& alloc;
  prooflab::r1cs::R1cs cs;
  prooflab::r1cs::Witness w;
  std::size_t n = 0;
  std::unique_ptr<r1cs::DeviceMatrices> matrices;
  memory::DeviceBuffer<field::Fr32> witness, a, b, c;
  prooflab::r1cs::Evaluations host;
};

SparseProductsCase::SparseProductsCase(std::uint64_t constraints, memory::DeviceAllocator& alloc,
                                       cudaStream_t stream)
    : s_(new State{alloc, {}, {}, 0, nullptr, {}, {}, {}, {}, {}}) {
  const auto circuit = circuits::make_circuit("porep-like", constraints, 20261203);
  s_->cs = circuits::synthesize_shape(*circuit);
  s_->w = circuits::synthesize_witness(*circuit);
  s_->n = groth16::qap_domain_size(s_->cs);
  s_->matrices = std::make_unique<r1cs::DeviceMatrices>(alloc, s_->cs, stream, "bench_matrices");
  for (auto* d : {&s_->a, &s_->b, &s_->c}) *d = memory::DeviceBuffer<field::Fr32>(alloc, s_->n, stream, "bench_abc");
  upload_witness(stream);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(sparse products case)");
}

SparseProductsCase::~SparseProductsCase() = default;

unsigned SparseProductsCase::log_domain() const { return groth16::qap_log_domain_size(s_->cs); }

std::uint64_t SparseProductsCase::nonzeros() const { return s_->cs.a.nnz() + s_->cs.b.nnz() + s_->cs.c.nnz(); }

std::uint64_t SparseProductsCase::matrix_bytes() const { return s_->matrices->bytes(); }

std::uint64_t SparseProductsCase::witness_bytes() const { return 32ull * s_->w.size(); }

void SparseProductsCase::upload_witness(cudaStream_t stream) {
  s_->witness = memory::DeviceBuffer<field::Fr32>();  // freed first, as between partitions
  s_->witness = engine::upload_witness(s_->alloc, s_->w, stream, "bench_witness");
}

double SparseProductsCase::pin_witness() {
  const auto t0 = std::chrono::steady_clock::now();
  check_cuda(cudaHostRegister(s_->w.aux.data(), s_->w.aux.size() * sizeof(field::Fr32), cudaHostRegisterDefault),
             "cudaHostRegister(bench witness)");
  return trace::seconds_since(t0) * 1e3;
}

double SparseProductsCase::unpin_witness() {
  const auto t0 = std::chrono::steady_clock::now();
  check_cuda(cudaHostUnregister(s_->w.aux.data()), "cudaHostUnregister(bench witness)");
  return trace::seconds_since(t0) * 1e3;
}

void SparseProductsCase::products(cudaStream_t stream) {
  r1cs::sparse_products(*s_->matrices, s_->witness.get(), s_->w.input.size(), s_->a.get(), s_->b.get(),
                        s_->c.get(), s_->n, stream);
}

double SparseProductsCase::host_products_ms() {
  const auto t0 = std::chrono::steady_clock::now();
  s_->host = prooflab::r1cs::evaluate_all(s_->cs, s_->w, host_pool(), nullptr, s_->n);
  return trace::seconds_since(t0) * 1e3;
}

bool SparseProductsCase::device_equals_host() {
  const std::vector<prooflab::field::Fr>* want[3] = {&s_->host.a, &s_->host.b, &s_->host.c};
  const memory::DeviceBuffer<field::Fr32>* got[3] = {&s_->a, &s_->b, &s_->c};
  std::vector<prooflab::field::Fr> back(s_->n);
  for (int i = 0; i < 3; ++i) {
    if (want[i]->size() != s_->n) return false;
    check_cuda(cudaMemcpy(back.data(), got[i]->get(), s_->n * sizeof(field::Fr32), cudaMemcpyDeviceToHost),
               "cudaMemcpy(sparse products check)");
    if (std::memcmp(back.data(), want[i]->data(), s_->n * sizeof(field::Fr32)) != 0) return false;
  }
  return true;
}

}  // namespace prooflab::gpu::bench
