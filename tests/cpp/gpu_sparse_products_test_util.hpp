// Random constraint systems for the device sparse products' tests (the host simulation and
// the device suite): CSR matrices built directly, so that they hold what compile() never
// makes but the kernel must still get right — a coefficient 0 in the table, −1 at an id
// other than kCoeffMinusOne — beside empty rows, long rows and values 0, 1, r − 1 and random.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "core/field/fr.hpp"
#include "core/r1cs/coefficient_table.hpp"
#include "core/r1cs/r1cs.hpp"
#include "core/r1cs/witness.hpp"

namespace prooflab::test::sparse_products {

struct RandomSystem {
  r1cs::R1cs cs;
  r1cs::Witness w;
};

// rows constraints over `inputs` inputs (input[0] = 1) and `aux` aux values. Row lengths: a
// quarter empty, one in 64 long (up to long_row terms), the rest 1..8 terms.
template <class Rng>
RandomSystem random_system(Rng& rng, std::size_t rows, std::size_t inputs, std::size_t aux,
                           std::size_t long_row = 300) {
  using field::Fr;
  const auto value = [&](unsigned kind) {
    switch (kind % 5) {
      case 0: return Fr::zero();
      case 1: return Fr::one();
      case 2: return -Fr::one();  // r − 1
      case 3: return Fr::from_u64(2);
      default: return Fr::random(rng);
    }
  };
  RandomSystem s;
  s.w.input.push_back(Fr::one());
  for (std::size_t i = 1; i < inputs; ++i) s.w.input.push_back(value(static_cast<unsigned>(rng())));
  for (std::size_t i = 0; i < aux; ++i) {
    // Mostly bits, as in the porep-like circuit.
    const unsigned k = static_cast<unsigned>(rng() % 8);
    s.w.aux.push_back(k < 3 ? Fr::zero() : k < 6 ? Fr::one() : value(static_cast<unsigned>(rng())));
  }
  // kCoeffOne, kCoeffMinusOne, then 0, −1 again, small and random coefficients.
  std::vector<Fr> table = {Fr::one(), -Fr::one(), Fr::zero(), -Fr::one(), Fr::from_u64(2),
                           Fr::from_u64(1u << 20)};
  for (int i = 0; i < 10; ++i) table.push_back(Fr::random(rng));
  const std::size_t cols = inputs + aux;
  s.cs.num_inputs = inputs;
  s.cs.num_aux = aux;
  s.cs.num_constraints = rows;
  for (r1cs::CsrMatrix* m : {&s.cs.a, &s.cs.b, &s.cs.c}) {
    m->num_rows = rows;
    m->num_cols = cols;
    m->coeffs = table;
    m->row_ptr.push_back(0);
    for (std::size_t r = 0; r < rows; ++r) {
      const unsigned pick = static_cast<unsigned>(rng() % 64);
      const std::size_t len = pick < 16 ? 0 : pick == 16 ? std::min(cols, 1 + rng() % long_row)
                                                         : std::min<std::size_t>(cols, 1 + rng() % 8);
      std::set<std::uint32_t> row_cols;
      while (row_cols.size() < len) row_cols.insert(static_cast<std::uint32_t>(rng() % cols));
      for (const std::uint32_t c : row_cols) {
        m->cols.push_back(c);
        const unsigned k = static_cast<unsigned>(rng() % 4);
        m->coeff_ids.push_back(k == 0 ? r1cs::kCoeffOne
                                      : k == 1 ? r1cs::kCoeffMinusOne
                                               : static_cast<std::uint32_t>(2 + rng() % (table.size() - 2)));
      }
      m->row_ptr.push_back(m->cols.size());
    }
  }
  return s;
}

}  // namespace prooflab::test::sparse_products
