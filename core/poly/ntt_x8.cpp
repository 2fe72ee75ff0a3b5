// butterflies_x8: compiled for AVX-512 IFMA by attribute; the rest of the program is not.
#include "core/poly/ntt_x8.hpp"

#include <cassert>
#include <cstdint>
#include <cstdlib>

#include "core/field/fp_x8.hpp"

namespace prooflab::poly::detail {

bool ntt_x8_available() { return field::ifma_available(); }

#if defined(__x86_64__)

PROOFLAB_IFMA_TARGET void butterflies_x8(field::Fr* lo, field::Fr* hi, const field::Fr* twiddles,
                                         std::size_t stride, std::size_t count) {
  using field::FrX8;
  using L = field::x8::Layout<field::FrParams>;
  static_assert(sizeof(field::Fr) == 8 * L::kWords);
  assert(count % 8 == 0);
  // Word offsets of lane c: element c of a run (4c), twiddle c of a strided run (4c·stride).
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i run = _mm512_slli_epi64(lane, 2);
  alignas(64) std::int64_t strided[8];
  for (int c = 0; c < 8; ++c) strided[c] = static_cast<std::int64_t>(4 * c * stride);
  const __m512i tw_run = _mm512_load_si512(strided);
  for (std::size_t c = 0; c < count; c += 8) {
    auto* u_words = reinterpret_cast<long long*>(lo[c].mont.data());
    auto* v_words = reinterpret_cast<long long*>(hi[c].mont.data());
    const auto* t_words = reinterpret_cast<const long long*>(twiddles[c * stride].mont.data());
    __m512i wu[L::kWords], wv[L::kWords], wt[L::kWords];
    for (std::size_t w = 0; w < L::kWords; ++w) {
      wu[w] = _mm512_i64gather_epi64(run, u_words + w, 8);
      wv[w] = _mm512_i64gather_epi64(run, v_words + w, 8);
      wt[w] = _mm512_i64gather_epi64(tw_run, t_words + w, 8);
    }
    const FrX8 u = FrX8::from_words(wu);
    const FrX8 t = x8_mul(FrX8::from_words(wv), FrX8::from_words(wt));  // [0, r)
    const FrX8 sum = field::x8::subtract_if_not_below(x8_add(u, t), L::kP);
    const FrX8 diff = field::x8::subtract_if_not_below(x8_sub(u, t, L::kP), L::kP);
    x8_to_words(sum, wu);
    x8_to_words(diff, wv);
    for (std::size_t w = 0; w < L::kWords; ++w) {
      _mm512_i64scatter_epi64(u_words + w, run, wu[w], 8);
      _mm512_i64scatter_epi64(v_words + w, run, wv[w], 8);
    }
  }
}

#else

void butterflies_x8(field::Fr*, field::Fr*, const field::Fr*, std::size_t, std::size_t) {
  std::abort();  // unreachable: ntt_x8_available() is false
}

#endif

}  // namespace prooflab::poly::detail
