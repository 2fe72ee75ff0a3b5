#include "core/r1cs/evaluate.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/memory/huge_pages.hpp"
#include "core/r1cs/lazy_sum.hpp"

namespace prooflab::r1cs {

using field::Fr;

namespace {

// What a witness value is, for the products. Most are bits (SHA-256), and a bit times a
// coefficient needs no multiplication: the coefficient, masked by the bit, is added. One
// byte per column (instead of the 32-byte value) is also what the inner loop reads.
enum class ValueKind : std::uint8_t { kZero = 0, kOne = 1, kOther = 2 };

inline ValueKind kind_of(const Fr& v) {
  return v.is_zero() ? ValueKind::kZero : v.is_one() ? ValueKind::kOne : ValueKind::kOther;
}

constexpr Fr::Limbs kZeroLimbs{};

// The terms of a row whose values are not 0 or 1, added to acc as at most as many terms as
// they are: ±1 coefficients as ±v, the others as one reduced sum of products (a second pass
// over the row, out of line: these are the rare rows, Poseidon's, and a call inside the main
// loop would take its registers).
template <class KindOf>
[[gnu::noinline]] void add_significant_terms(LazySum& acc, const std::uint32_t* cols,
                                             const std::uint32_t* ids, const Fr* coeffs,
                                             std::uint64_t begin, std::uint64_t end,
                                             const Fr* input, std::size_t num_inputs, const Fr* aux,
                                             const KindOf& kind) {
  WideSum products;
  bool any_product = false;
  for (std::uint64_t k = begin; k < end; ++k) {
    const std::uint32_t col = cols[k];
    if (kind(col) != ValueKind::kOther) continue;
    const Fr& v = col < num_inputs ? input[col] : aux[col - num_inputs];
    const std::uint32_t id = ids[k];
    if (id == kCoeffOne || id == kCoeffMinusOne) {
      acc.add(id == kCoeffOne ? v : -v);
    } else {
      products.add_product(coeffs[id], v);
      any_product = true;
    }
  }
  if (any_product) acc.add(products.reduce());
}

// The inner loop, without branches: a bit adds its coefficient masked by the bit, other
// values add nothing here and are handled after the loop when the row has any. kind(col)
// is the ValueKind of column col.
template <class KindOf>
PROOFLAB_INLINE Fr dot_row(const std::uint32_t* cols, const std::uint32_t* ids, const Fr* coeffs,
                           std::uint64_t begin, std::uint64_t end, const Fr* input,
                           std::size_t num_inputs, const Fr* aux, const KindOf& kind) {
  if (begin == end) return Fr::zero();  // half the rows of C (booleanity: (1 - x)·x = 0)
  LazySum acc;
  unsigned seen = 0;  // OR of the kinds
  for (std::uint64_t k = begin; k < end; ++k) {
    const auto c = static_cast<unsigned>(kind(cols[k]));
    seen |= c;
    // The coefficient for a one, zero for a zero or another value: a select of addresses
    // (no branch, and the adc chain adds straight from memory).
    const std::uintptr_t one = 0 - static_cast<std::uintptr_t>(c & 1);
    const auto term = reinterpret_cast<const Fr::Limbs*>(
        (reinterpret_cast<std::uintptr_t>(&coeffs[ids[k]].mont) & one) |
        (reinterpret_cast<std::uintptr_t>(&kZeroLimbs) & ~one));
    acc.add(*term);
  }
  if (seen & static_cast<unsigned>(ValueKind::kOther)) [[unlikely]]
    add_significant_terms(acc, cols, ids, coeffs, begin, end, input, num_inputs, aux, kind);
  return acc.reduce(end - begin);
}

// One byte per column of the combined assignment [input..., aux...], on the pool.
std::vector<ValueKind> value_kinds(const Witness& w, parallel::ThreadPool& pool) {
  std::vector<ValueKind> kinds(w.size());
  const std::size_t ni = w.input.size();
  for (std::size_t i = 0; i < ni; ++i) kinds[i] = kind_of(w.input[i]);
  pool.parallel_for(w.aux.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) kinds[ni + i] = kind_of(w.aux[i]);
  });
  return kinds;
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

void evaluate_rows(const CsrMatrix& m, const Witness& w, const ValueKind* kinds, Fr* out,
                   std::size_t begin, std::size_t end) {
  const Fr* input = w.input.data();
  const Fr* aux = w.aux.data();
  const std::size_t ni = w.input.size();
  const std::uint64_t* row_ptr = m.row_ptr.data();
  const std::uint32_t* cols = m.cols.data();
  const std::uint32_t* ids = m.coeff_ids.data();
  const Fr* coeffs = m.coeffs.data();
  const auto kind = [kinds](std::uint32_t col) { return kinds[col]; };
  for (std::size_t r = begin; r < end; ++r)
    out[r] = dot_row(cols, ids, coeffs, row_ptr[r], row_ptr[r + 1], input, ni, aux, kind);
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
  const auto kind = [&w](std::uint32_t col) { return kind_of(w.column(col)); };
  return dot_row(m.cols.data(), m.coeff_ids.data(), m.coeffs.data(), m.row_ptr[row],
                 m.row_ptr[row + 1], w.input.data(), w.input.size(), w.aux.data(), kind);
}

void evaluate(const CsrMatrix& m, const Witness& w, std::span<Fr> out, parallel::ThreadPool& pool,
              ChunkHook* hook, std::size_t chunk_rows) {
  check_fits(m, w, out.size(), "evaluate");
  Fr* dst = out.data();
  const std::vector<ValueKind> kinds = value_kinds(w, pool);
  for_each_chunk(m.num_rows, chunk_rows, pool, hook, [&](std::size_t begin, std::size_t end) {
    evaluate_rows(m, w, kinds.data(), dst, begin, end);
  });
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
  const bool with_c = !c.empty();
  if (b.size() != length || (with_c && c.size() != length))
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
  if (with_c) check_fits(r1cs.c, w, length, "evaluate_all (C)");
  const std::vector<ValueKind> kinds = value_kinds(w, pool);
  for_each_chunk(n, chunk_rows, pool, hook, [&](std::size_t begin, std::size_t end) {
    evaluate_rows(r1cs.a, w, kinds.data(), a.data(), begin, end);
    evaluate_rows(r1cs.b, w, kinds.data(), b.data(), begin, end);
    if (with_c) evaluate_rows(r1cs.c, w, kinds.data(), c.data(), begin, end);
  });
  if (length > n) {
    std::copy(w.input.begin(), w.input.end(), a.begin() + n);
    std::fill(a.begin() + n + w.input.size(), a.end(), Fr::zero());
    std::fill(b.begin() + n, b.end(), Fr::zero());
    if (with_c) std::fill(c.begin() + n, c.end(), Fr::zero());
  }
}

Evaluations evaluate_all(const R1cs& r1cs, const Witness& w, parallel::ThreadPool& pool,
                         ChunkHook* hook, std::size_t length, std::size_t chunk_rows, bool with_c) {
  check_witness_fits(r1cs, w, "evaluate_all");
  if (length == 0) length = r1cs.num_constraints;
  if (length < r1cs.num_constraints + r1cs.num_inputs && length != r1cs.num_constraints)
    throw std::invalid_argument("evaluate_all: length " + std::to_string(length) +
                                " is below num_constraints + num_inputs = " +
                                std::to_string(r1cs.num_constraints + r1cs.num_inputs));
  Evaluations e;
  memory::resize_huge(e.a, length);
  memory::resize_huge(e.b, length);
  if (with_c) memory::resize_huge(e.c, length);
  evaluate_all_into(r1cs, w, e.a, e.b, e.c, pool, hook, chunk_rows);
  return e;
}

}  // namespace prooflab::r1cs
