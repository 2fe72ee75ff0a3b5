// The NTT's butterflies on Fr eight at a time with AVX-512 IFMA (FrX8, core/field/fp_x8.hpp),
// for runs of butterflies whose elements and partners are neighbours (stages with a
// half-distance of at least 8): eight elements, their eight partners and eight twiddles a
// stride apart are gathered into lanes and scattered back. ntt.hpp calls it where
// ntt_x8_available(); the result equals the scalar butterflies' exactly.
#pragma once

#include <cstddef>

#include "core/field/fr.hpp"

namespace prooflab::poly::detail {

// Whether this CPU runs butterflies_x8 (AVX-512F and IFMA).
bool ntt_x8_available();

// Butterflies (lo[c], hi[c]) ← (lo[c] + t, lo[c] − t), t = hi[c]·twiddles[c·stride], for
// c < count, count a multiple of 8.
void butterflies_x8(field::Fr* lo, field::Fr* hi, const field::Fr* twiddles, std::size_t stride,
                    std::size_t count);

}  // namespace prooflab::poly::detail
