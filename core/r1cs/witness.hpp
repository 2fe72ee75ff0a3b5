// An assignment of a constraint system: the public inputs (input[0] is ONE) and the private
// aux values, in allocation order. The combined vector [input..., aux...] is what the
// matrices' columns index.
#pragma once

#include <cstddef>
#include <vector>

#include "core/field/fr.hpp"
#include "core/r1cs/variable.hpp"

namespace prooflab::r1cs {

struct Witness {
  std::vector<field::Fr> input;
  std::vector<field::Fr> aux;

  std::size_t size() const { return input.size() + aux.size(); }
  const field::Fr& value(Variable v) const { return v.is_input() ? input[v.index] : aux[v.index]; }
  // The value of column `col` of the combined vector.
  const field::Fr& column(std::size_t col) const {
    return col < input.size() ? input[col] : aux[col - input.size()];
  }
  friend bool operator==(const Witness&, const Witness&) = default;
};

}  // namespace prooflab::r1cs
