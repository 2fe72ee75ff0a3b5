// One of the matrices A, B, C of a compiled R1CS in compressed-sparse-row form. Rows are
// constraints; columns index the combined assignment [inputs..., aux...]. Memory is what
// matters at PoRep scale (130M rows, billions of nonzeros): 4 bytes of column and 4 bytes
// of coefficient id per nonzero, the coefficients themselves in a small table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/field/fr.hpp"
#include "core/r1cs/coefficient_table.hpp"

namespace prooflab::r1cs {

struct CsrMatrix {
  std::size_t num_rows = 0;
  std::size_t num_cols = 0;
  std::vector<std::uint64_t> row_ptr;    // num_rows + 1 offsets (64-bit: nnz may pass 2^32)
  std::vector<std::uint32_t> cols;       // ascending and distinct within a row
  std::vector<std::uint32_t> coeff_ids;  // index into coeffs
  // The distinct coefficients; coeffs[kCoeffOne] = 1 and coeffs[kCoeffMinusOne] = -1 always.
  std::vector<field::Fr> coeffs;

  std::size_t nnz() const { return cols.size(); }
  std::size_t row_size(std::size_t r) const { return row_ptr[r + 1] - row_ptr[r]; }
  const field::Fr& coeff(std::size_t k) const { return coeffs[coeff_ids[k]]; }
  // Bytes held by the index arrays (the coefficient table is negligible).
  std::size_t bytes() const {
    return row_ptr.size() * sizeof(std::uint64_t) + cols.size() * sizeof(std::uint32_t) +
           coeff_ids.size() * sizeof(std::uint32_t) + coeffs.size() * sizeof(field::Fr);
  }
  friend bool operator==(const CsrMatrix&, const CsrMatrix&) = default;
};

}  // namespace prooflab::r1cs
