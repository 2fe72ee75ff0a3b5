// The device sparse products' row logic (gpu/r1cs/sparse_row.cuh) run on the host, row by
// row, with the emulated carry chain, against r1cs::evaluate_all: random systems with empty
// rows, long rows, coefficients 0, 1, r − 1 (at its fixed id and at another) and random, on
// values 0, 1, r − 1 and random; and the porep-like circuit. No GPU needed; the kernel on the
// device is gpu_sparse_products_test.cpp's.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/r1cs/evaluate.hpp"
#include "gpu/r1cs/sparse_row.cuh"
#include "gpu_sparse_products_test_util.hpp"
#include "test_util.hpp"

namespace {

using namespace prooflab;
using gpu::field::Fr32;

gpu::r1cs::CsrView host_view(const r1cs::CsrMatrix& m) {
  return {m.row_ptr.data(), m.cols.data(), m.coeff_ids.data(),
          reinterpret_cast<const Fr32*>(m.coeffs.data())};
}

std::vector<Fr32> combined(const r1cs::Witness& w) {
  std::vector<Fr32> out(w.size());
  std::memcpy(out.data(), w.input.data(), w.input.size() * sizeof(Fr32));
  std::memcpy(out.data() + w.input.size(), w.aux.data(), w.aux.size() * sizeof(Fr32));
  return out;
}

// Every row of A, B and C through sparse_products_row, as the kernel's threads run it,
// compared with evaluate_all's value of that row.
void expect_rows_equal(const r1cs::R1cs& cs, const r1cs::Witness& w) {
  parallel::ThreadPool pool(2);
  const r1cs::Evaluations e = r1cs::evaluate_all(cs, w, pool);
  const std::vector<Fr32> wd = combined(w);
  std::vector<Fr32> out[3];
  gpu::r1cs::SparseProductsArgs args;
  const r1cs::CsrMatrix* ms[3] = {&cs.a, &cs.b, &cs.c};
  for (int i = 0; i < 3; ++i) {
    out[i].resize(cs.num_constraints);
    args.matrix[i] = host_view(*ms[i]);
    args.out[i] = out[i].data();
  }
  args.witness = wd.data();
  args.rows = cs.num_constraints;
  for (unsigned i = 0; i < 3; ++i)
    for (std::uint64_t row = 0; row < cs.num_constraints + 3; ++row)  // past the end: no write
      gpu::r1cs::sparse_products_row(args, i, row);
  const std::vector<field::Fr>* expected[3] = {&e.a, &e.b, &e.c};
  for (int i = 0; i < 3; ++i)
    for (std::size_t row = 0; row < cs.num_constraints; ++row)
      ASSERT_EQ(std::memcmp(&out[i][row], &(*expected[i])[row], sizeof(Fr32)), 0)
          << "matrix " << "ABC"[i] << " row " << row << " (" << ms[i]->row_size(row) << " terms)";
}

TEST(GpuSparseProductsSimulation, RandomSystemsEqualEvaluateAll) {
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  for (const auto& [rows, inputs, aux] : {std::tuple<std::size_t, std::size_t, std::size_t>{1, 1, 1},
                                          {7, 2, 5},
                                          {300, 4, 400},
                                          {2000, 9, 1500}}) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " aux " + std::to_string(aux));
    const auto s = test::sparse_products::random_system(rng, rows, inputs, aux);
    expect_rows_equal(s.cs, s.w);
  }
}

// A row of 3,000 terms of random coefficients on values that are not bits: every term takes
// the multiplying path, and the sum wraps the modulus many times.
TEST(GpuSparseProductsSimulation, ALongRowOfSignificantTerms) {
  auto rng = test::test_rng();
  SCOPED_TRACE(test::seed_note());
  auto s = test::sparse_products::random_system(rng, 1, 1, 3000);
  for (auto& v : s.w.aux) v = field::Fr::random(rng);
  for (r1cs::CsrMatrix* m : {&s.cs.a, &s.cs.b, &s.cs.c}) {
    m->cols.clear();
    m->coeff_ids.clear();
    for (std::uint32_t c = 0; c < 3001; ++c) {
      m->cols.push_back(c);
      m->coeff_ids.push_back(static_cast<std::uint32_t>(6 + c % 10));  // the random entries
    }
    m->row_ptr = {0, 3001};
  }
  expect_rows_equal(s.cs, s.w);
}

TEST(GpuSparseProductsSimulation, PorepLikeEqualsEvaluateAll) {
  const auto circuit = circuits::make_circuit("porep-like", 1 << 12, 5);
  const r1cs::R1cs cs = circuits::synthesize_shape(*circuit);
  const r1cs::Witness w = circuits::synthesize_witness(*circuit);
  expect_rows_equal(cs, w);
}

}  // namespace
