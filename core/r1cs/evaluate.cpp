#include "core/r1cs/evaluate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/memory/huge_pages.hpp"

namespace prooflab::r1cs {

using field::Fr;

namespace {

// The inner loop. Coefficients ±1 (nearly all of them) are an addition; the rest are
// multiplications unless the witness value is 0 or 1, which most are.
inline Fr dot_row(const CsrMatrix& m, const Fr* input, std::size_t num_inputs, const Fr* aux,
                  std::size_t row) {
  Fr acc = Fr::zero();
  const std::uint64_t end = m.row_ptr[row + 1];
  const std::uint32_t* cols = m.cols.data();
  const std::uint32_t* ids = m.coeff_ids.data();
  const Fr* coeffs = m.coeffs.data();
  for (std::uint64_t k = m.row_ptr[row]; k < end; ++k) {
    const std::uint32_t col = cols[k];
    const Fr& v = col < num_inputs ? input[col] : aux[col - num_inputs];
    const std::uint32_t id = ids[k];
    if (id == kCoeffOne) {
      acc += v;
    } else if (id == kCoeffMinusOne) {
      acc -= v;
    } else if (!v.is_zero()) {
      if (v.is_one())
        acc += coeffs[id];
      else
        acc += coeffs[id] * v;
    }
  }
  return acc;
}

void check_fits(const CsrMatrix& m, const Witness& w, std::size_t out_size, const char* who) {
  if (w.size() != m.num_cols)
    throw std::invalid_argument(
        std::string(who) + ": the witness has " + std::to_string(w.input.size()) + " inputs + " +
        std::to_string(w.aux.size()) + " aux = " + std::to_string(w.size()) +
        " values, the matrix has " + std::to_string(m.num_cols) + " columns");
  if (out_size < m.num_rows)
    throw std::invalid_argument(std::string(who) + ": the output holds " +
                                std::to_string(out_size) + " elements, the matrix has " +
                                std::to_string(m.num_rows) + " rows");
}

void evaluate_rows(const CsrMatrix& m, const Witness& w, Fr* out, std::size_t begin,
                   std::size_t end) {
  const Fr* input = w.input.data();
  const Fr* aux = w.aux.data();
  const std::size_t ni = w.input.size();
  for (std::size_t r = begin; r < end; ++r) out[r] = dot_row(m, input, ni, aux, r);
}

// Runs body(row_begin, row_end) over [0, rows) in chunks of chunk_rows on the pool, calling
// the hook after each chunk.
template <class Body>
void for_each_chunk(std::size_t rows, std::size_t chunk_rows, parallel::ThreadPool& pool,
                    ChunkHook* hook, const Body& body) {
  if (chunk_rows == 0) throw std::invalid_argument("evaluate: chunk_rows must be at least 1");
  const std::size_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  pool.parallel_for(chunks, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t chunk = first; chunk < last; ++chunk) {
      const std::size_t begin = chunk * chunk_rows;
      body(begin, std::min(rows, begin + chunk_rows));
      if (hook) hook->between_chunks();
    }
  });
}

}  // namespace

Fr evaluate_row(const CsrMatrix& m, const Witness& w, std::size_t row) {
  return dot_row(m, w.input.data(), w.input.size(), w.aux.data(), row);
}

void evaluate(const CsrMatrix& m, const Witness& w, std::span<Fr> out, parallel::ThreadPool& pool,
              ChunkHook* hook, std::size_t chunk_rows) {
  check_fits(m, w, out.size(), "evaluate");
  Fr* dst = out.data();
  for_each_chunk(m.num_rows, chunk_rows, pool, hook,
                 [&](std::size_t begin, std::size_t end) { evaluate_rows(m, w, dst, begin, end); });
}

void check_witness_fits(const R1cs& r1cs, const Witness& w, const char* who) {
  if (w.input.size() != r1cs.num_inputs || w.aux.size() != r1cs.num_aux)
    throw std::invalid_argument(std::string(who) + ": the witness has " +
                                std::to_string(w.input.size()) + " inputs and " +
                                std::to_string(w.aux.size()) + " aux values, the system has " +
                                std::to_string(r1cs.num_inputs) + " inputs and " +
                                std::to_string(r1cs.num_aux) + " aux variables");
}

void evaluate_all_into(const R1cs& r1cs, const Witness& w, std::span<Fr> a, std::span<Fr> b,
                       std::span<Fr> c, parallel::ThreadPool& pool, ChunkHook* hook,
                       std::size_t chunk_rows) {
  check_witness_fits(r1cs, w, "evaluate_all");
  const std::size_t n = r1cs.num_constraints;
  const std::size_t length = a.size();
  if (b.size() != length || c.size() != length)
    throw std::invalid_argument("evaluate_all: the outputs differ in length (" +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + ", " +
                                std::to_string(c.size()) + ")");
  if (length != n && length < n + r1cs.num_inputs)
    throw std::invalid_argument(
        "evaluate_all: length " + std::to_string(length) +
        " is neither num_constraints = " + std::to_string(n) +
        " nor at least num_constraints + num_inputs = " + std::to_string(n + r1cs.num_inputs));
  check_fits(r1cs.a, w, length, "evaluate_all (A)");
  check_fits(r1cs.b, w, length, "evaluate_all (B)");
  check_fits(r1cs.c, w, length, "evaluate_all (C)");
  for_each_chunk(n, chunk_rows, pool, hook, [&](std::size_t begin, std::size_t end) {
    evaluate_rows(r1cs.a, w, a.data(), begin, end);
    evaluate_rows(r1cs.b, w, b.data(), begin, end);
    evaluate_rows(r1cs.c, w, c.data(), begin, end);
  });
  if (length > n) {
    std::copy(w.input.begin(), w.input.end(), a.begin() + n);
    std::fill(a.begin() + n + w.input.size(), a.end(), Fr::zero());
    std::fill(b.begin() + n, b.end(), Fr::zero());
    std::fill(c.begin() + n, c.end(), Fr::zero());
  }
}

Evaluations evaluate_all(const R1cs& r1cs, const Witness& w, parallel::ThreadPool& pool,
                         ChunkHook* hook, std::size_t length, std::size_t chunk_rows) {
  check_witness_fits(r1cs, w, "evaluate_all");
  if (length == 0) length = r1cs.num_constraints;
  if (length < r1cs.num_constraints + r1cs.num_inputs && length != r1cs.num_constraints)
    throw std::invalid_argument("evaluate_all: length " + std::to_string(length) +
                                " is below num_constraints + num_inputs = " +
                                std::to_string(r1cs.num_constraints + r1cs.num_inputs));
  Evaluations e;
  memory::resize_huge(e.a, length);
  memory::resize_huge(e.b, length);
  memory::resize_huge(e.c, length);
  evaluate_all_into(r1cs, w, e.a, e.b, e.c, pool, hook, chunk_rows);
  return e;
}

}  // namespace prooflab::r1cs
