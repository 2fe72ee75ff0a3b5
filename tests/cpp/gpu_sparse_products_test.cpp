// The device sparse products (gpu/r1cs: resident matrices, the witness uploaded by
// gpu/backend/device_witness, the kernel and the QAP layout) against the host's
// groth16::synthesize, element for element over the whole domain: random systems of 2^10 to
// 2^18 rows (empty and long rows, coefficients 0, 1, r − 1 and random) and the porep-like
// circuit; the matrices' VRAM charged to the budget; errors naming the stage or the sizes.
// Skips without a GPU (the row logic's host simulation is gpu_sparse_products_simulation_test).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/qap.hpp"
#include "core/parallel/thread_pool.hpp"
#include "gpu/backend/device_witness.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/r1cs/device_matrices.hpp"
#include "gpu/r1cs/sparse_products.hpp"
#include "gpu_sparse_products_test_util.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using gpu::field::Fr32;
using gpu::memory::DeviceAllocator;
using gpu::memory::DeviceBuffer;

parallel::ThreadPool& pool() {
  static parallel::ThreadPool p(0, "gpu-sparse-products-test");
  return p;
}

std::vector<field::Fr> download(const DeviceBuffer<Fr32>& d) {
  std::vector<field::Fr> out(d.size());
  gpu::check_cuda(cudaMemcpy(out.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy(test)");
  return out;
}

void expect_equal(const std::vector<field::Fr>& got, const std::vector<field::Fr>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(field::Fr)), 0) << what << "[" << i << "]";
}

// a, b, c over the QAP domain on the device equal groth16::synthesize's on the host.
void expect_device_equals_host(const r1cs::R1cs& cs, const r1cs::Witness& w) {
  const groth16::SynthesizedPartition host = groth16::synthesize(cs, w, pool());
  const std::size_t n = groth16::qap_domain_size(cs);
  ASSERT_EQ(host.a.size(), n);
  DeviceAllocator alloc;
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  {
    const gpu::r1cs::DeviceMatrices m(alloc, cs, stream, "r1cs_matrices");
    EXPECT_EQ(m.bytes(), gpu::r1cs::DeviceMatrices::bytes_of(cs));
    EXPECT_EQ(alloc.in_use(), m.bytes()) << "the matrices are charged to the budget";
    EXPECT_TRUE(m.holds(cs));
    // Garbage in a, b, c first: every element must be written.
    DeviceBuffer<Fr32> a(alloc, n, stream, "a"), b(alloc, n, stream, "b"), c(alloc, n, stream, "c");
    for (auto* d : {&a, &b, &c}) gpu::check_cuda(cudaMemsetAsync(d->get(), 0xa5, d->bytes(), stream), "memset");
    const DeviceBuffer<Fr32> wd = gpu::engine::upload_witness(alloc, w, stream, "witness");
    EXPECT_EQ(wd.size(), w.size());
    gpu::r1cs::sparse_products(m, wd.get(), w.input.size(), a.get(), b.get(), c.get(), n, stream);
    gpu::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    expect_equal(download(a), host.a, "a");
    expect_equal(download(b), host.b, "b");
    expect_equal(download(c), host.c, "c");
    EXPECT_THROW(gpu::r1cs::sparse_products(m, wd.get(), w.input.size(), a.get(), b.get(), c.get(),
                                            cs.num_constraints + w.input.size() - 1, stream),
                 std::invalid_argument);
    gpu::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  cudaStreamDestroy(stream);
}

TEST(GpuSparseProducts, RandomSystemsFrom2To10To2To18EqualTheHost) {
  PROOFLAB_REQUIRE_GPU();
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (unsigned k = 10; k <= 18; k += 2) {
    SCOPED_TRACE("2^" + std::to_string(k) + " rows");
    const std::size_t rows = (std::size_t{1} << k) - 5;  // + inputs: a domain of 2^k
    const auto s = test::sparse_products::random_system(rng, rows, 5, rows);
    expect_device_equals_host(s.cs, s.w);
  }
}

TEST(GpuSparseProducts, PorepLikeEqualsTheHost) {
  PROOFLAB_REQUIRE_GPU();
  for (const std::uint64_t n : {1u << 10, 1u << 14, 1u << 16}) {
    SCOPED_TRACE("porep-like " + std::to_string(n));
    const auto circuit = circuits::make_circuit("porep-like", n, 3);
    expect_device_equals_host(circuits::synthesize_shape(*circuit), circuits::synthesize_witness(*circuit));
  }
}

TEST(GpuSparseProducts, MatricesOverTheBudgetNameTheStage) {
  PROOFLAB_REQUIRE_GPU();
  const auto circuit = circuits::make_circuit("porep-like", 1 << 10, 3);
  const r1cs::R1cs cs = circuits::synthesize_shape(*circuit);
  DeviceAllocator alloc(gpu::r1cs::DeviceMatrices::bytes_of(cs) - 1);
  cudaStream_t stream = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  try {
    gpu::r1cs::DeviceMatrices m(alloc, cs, stream, "r1cs_matrices");
    FAIL() << "the matrices fitted a budget one byte too small";
  } catch (const gpu::memory::DeviceOutOfMemory& e) {
    EXPECT_EQ(e.stage(), "r1cs_matrices");
  }
  EXPECT_EQ(alloc.in_use(), 0u) << "what was uploaded before the failure is freed";
  cudaStreamDestroy(stream);
}

}  // namespace
