#include <array>

#include "core/pairing/pairing.hpp"

namespace prooflab::pairing {
namespace {

// a^x for a in the cyclotomic subgroup (x = -0xd201000000010000, 63 squarings, 5
// multiplications); the inverse there is the conjugate.
Fp12 cyclotomic_exp_by_x(const Fp12& a) {
  Fp12 acc = a;
  for (int bit = 62; bit >= 0; --bit) {
    acc = acc.cyclotomic_square();
    if ((curve::kBlsXAbs >> bit) & 1) acc *= a;
  }
  return curve::kBlsXIsNegative ? acc.conjugate() : acc;
}

}  // namespace

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part: f^((p^6 - 1)(p^2 + 1)) lands in the cyclotomic subgroup.
  const Fp12 f1 = f.conjugate() * f.inverse();
  const Fp12 m = f1.frobenius(2) * f1;
  // Hard part, times 3: m^((x-1)^2 (x+p)(x^2+p^2-1) + 3).
  Fp12 t0 = cyclotomic_exp_by_x(m) * m.conjugate();    // m^(x-1)
  t0 = cyclotomic_exp_by_x(t0) * t0.conjugate();       // m^((x-1)^2)
  const Fp12 t1 = cyclotomic_exp_by_x(t0) * t0.frobenius();  // ·(x+p)
  const Fp12 t2 = cyclotomic_exp_by_x(cyclotomic_exp_by_x(t1)) * t1.frobenius(2) *
                  t1.conjugate();                      // ·(x^2+p^2-1)
  return t2 * m.cyclotomic_square() * m;
}

Fp12 pairing(const G1Affine& p, const G2Affine& q) {
  const std::array<std::pair<G1Affine, G2Affine>, 1> pq{{{p, q}}};
  return final_exponentiation(multi_miller_loop(pq));
}

bool pairing_product_is_one(std::span<const std::pair<G1Affine, G2Affine>> pairs) {
  return final_exponentiation(multi_miller_loop(pairs)).is_one();
}

}  // namespace prooflab::pairing
