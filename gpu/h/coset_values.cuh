// The H MSM's scalars over a coset-Lagrange H query (core/groth16/h_basis.hpp): at each coset
// point, a·b − c from the three chains' coset NTTs (Montgomery form, < p), canonical for the
// MSM or kept in Montgomery form. One function for the kernel (coset_values_kernel.cu) and
// the host tests. C++17-clean.
#pragma once

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::ntt {

PROOFLAB_HDI field::Fr32 h_coset_value(const field::Fr32& a, const field::Fr32& b, const field::Fr32& c,
                                       bool canonical_output) {
  const field::Fr32 v = a * b - c;
  return canonical_output ? field::Fr32::from_mont(v) : v;
}
// A key that folds C's share in (kCosetFoldedC): a·b alone.
PROOFLAB_HDI field::Fr32 h_coset_value(const field::Fr32& a, const field::Fr32& b, bool canonical_output) {
  const field::Fr32 v = a * b;
  return canonical_output ? field::Fr32::from_mont(v) : v;
}

}  // namespace prooflab::gpu::ntt
