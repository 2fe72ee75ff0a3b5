#include "gpu/r1cs/device_matrices.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/r1cs/coefficient_table.hpp"
#include "gpu/cuda_check.hpp"

namespace prooflab::gpu::r1cs {

static_assert(kCoeffIdOne == prooflab::r1cs::kCoeffOne && kCoeffIdMinusOne == prooflab::r1cs::kCoeffMinusOne,
              "the device's fixed coefficient ids are core/r1cs's");
static_assert(sizeof(field::Fr32) == sizeof(prooflab::field::Fr), "one Montgomery layout on both sides");

namespace {

template <class T>
memory::DeviceBuffer<T> upload(memory::DeviceAllocator& alloc, const std::vector<T>& host,
                               cudaStream_t stream, const char* stage) {
  memory::DeviceBuffer<T> d(alloc, host.size(), stream, stage);
  if (!host.empty())
    check_cuda(cudaMemcpyAsync(d.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync(matrices)");
  return d;
}

}  // namespace

DeviceMatrices::DeviceMatrices(memory::DeviceAllocator& alloc, const prooflab::r1cs::R1cs& cs,
                               cudaStream_t stream, const char* stage)
    : cs_(&cs), rows_(cs.a.num_rows), cols_(cs.a.num_cols), bytes_(bytes_of(cs)) {
  const prooflab::r1cs::CsrMatrix* ms[3] = {&cs.a, &cs.b, &cs.c};
  for (int i = 0; i < 3; ++i) {
    const auto& m = *ms[i];
    if (m.num_rows != rows_ || m.num_cols != cols_ || m.row_ptr.size() != m.num_rows + 1)
      throw std::invalid_argument("DeviceMatrices: matrix " + std::string(1, "ABC"[i]) + " has " +
                                  std::to_string(m.num_rows) + " rows and " + std::to_string(m.num_cols) +
                                  " columns, A has " + std::to_string(rows_) + " and " + std::to_string(cols_));
    nnz_[i] = m.nnz();
    m_[i].row_ptr = upload(alloc, m.row_ptr, stream, stage);
    m_[i].cols = upload(alloc, m.cols, stream, stage);
    m_[i].coeff_ids = upload(alloc, m.coeff_ids, stream, stage);
    memory::DeviceBuffer<field::Fr32> coeffs(alloc, m.coeffs.size(), stream, stage);
    if (!m.coeffs.empty())
      check_cuda(cudaMemcpyAsync(coeffs.get(), m.coeffs.data(), m.coeffs.size() * sizeof(field::Fr32),
                                 cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync(matrix coefficients)");
    m_[i].coeffs = std::move(coeffs);
    views_[i] = {m_[i].row_ptr.get(), m_[i].cols.get(), m_[i].coeff_ids.get(), m_[i].coeffs.get()};
  }
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize(matrices upload)");
}

bool DeviceMatrices::holds(const prooflab::r1cs::R1cs& cs) const {
  return cs_ == &cs && rows_ == cs.a.num_rows && cols_ == cs.a.num_cols && nnz_[0] == cs.a.nnz() &&
         nnz_[1] == cs.b.nnz() && nnz_[2] == cs.c.nnz() && bytes_ == bytes_of(cs);
}

std::uint64_t DeviceMatrices::bytes_of(const prooflab::r1cs::R1cs& cs) {
  return cs.a.bytes() + cs.b.bytes() + cs.c.bytes();
}

}  // namespace prooflab::gpu::r1cs
