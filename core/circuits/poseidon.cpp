#include "core/circuits/poseidon.hpp"

#include "core/circuits/poseidon_params.hpp"

namespace prooflab::circuits {

namespace {

using r1cs::Annotation;

// x^5 of a Num whose combination may have many terms: three constraints, three new variables.
Num sbox(ConstraintSystem& cs, const Num& x, std::size_t round) {
  const auto r = static_cast<std::uint32_t>(round);
  const Fr x2v = x.value().square();
  const Variable x2 = cs.alloc_aux(x2v);
  cs.enforce_with(Annotation("round {}/x^2", r),
                  [&](LinearCombination& a, LinearCombination& b, LinearCombination& c) {
                    a.add(x.lc());
                    b.add(x.lc());
                    c.add(x2);
                  });
  const Fr x4v = x2v.square();
  const Variable x4 = cs.alloc_aux(x4v);
  cs.enforce_with(Annotation("round {}/x^4", r),
                  [&](LinearCombination& a, LinearCombination& b, LinearCombination& c) {
                    a.add(x2);
                    b.add(x2);
                    c.add(x4);
                  });
  const Fr x5v = x4v * x.value();
  const Variable x5 = cs.alloc_aux(x5v);
  cs.enforce_with(Annotation("round {}/x^5", r),
                  [&](LinearCombination& a, LinearCombination& b, LinearCombination& c) {
                    a.add(x4);
                    b.add(x.lc());
                    c.add(x5);
                  });
  return Num::of(cs, x5, x5v);
}

}  // namespace

std::array<Num, 3> poseidon_permutation(ConstraintSystem& cs, std::array<Num, 3> state) {
  r1cs::Scope scope(cs, "poseidon");
  const PoseidonParams& p = poseidon_params();
  const bool records = cs.records_shape();
  for (std::size_t r = 0; r < PoseidonParams::kRounds; ++r) {
    for (std::size_t i = 0; i < 3; ++i) state[i].add_constant(p.round_constants[r][i], records);
    if (PoseidonParams::is_full_round(r)) {
      for (auto& x : state) x = sbox(cs, x, r);
    } else {
      state[0] = sbox(cs, state[0], r);
    }
    std::array<Num, 3> mixed;
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t j = 0; j < 3; ++j) mixed[i].add_scaled(p.mds[i][j], state[j]);
      mixed[i].compact();
    }
    state = mixed;
  }
  return state;
}

Num poseidon_hash2(ConstraintSystem& cs, const Num& left, const Num& right) {
  std::array<Num, 3> state = {Num::constant(cs, Fr::from_u64(PoseidonParams::kDomainTag2to1)), left,
                              right};
  return poseidon_permutation(cs, state)[1];
}

}  // namespace prooflab::circuits
