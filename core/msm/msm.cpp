// The public entry points of core/msm and their only instantiations (G1, G2).
#include "core/msm/msm.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

#include "core/msm/buffer.hpp"
#include "core/msm/glv.hpp"
#include "core/msm/pippenger.hpp"
#include "core/msm/segment_sum.hpp"

namespace prooflab::msm {

namespace {

// Below this many points (with no forced window) plain interleaved double-and-add beats the
// fixed costs of Pippenger (inversions per window and tree level).
constexpr std::size_t kDoubleAndAddMax = 4;

TreeParams tree_params(const MsmConfig& cfg) {
  return {std::max<std::size_t>(1, cfg.batch_size), std::max<std::size_t>(2, cfg.chunk_points),
          cfg.simd};
}

// Σ k_i·P_i by one shared double-and-add chain (Straus with 1-bit windows).
template <class Curve>
curve::Jacobian<Curve> double_and_add(std::span<const curve::Affine<Curve>> bases,
                                      std::span<const Scalar> scalars) {
  std::size_t bits = 0;
  for (const auto& k : scalars) bits = std::max(bits, field::bigint_num_bits(k));
  auto acc = curve::Jacobian<Curve>::infinity();
  for (std::size_t b = bits; b-- > 0;) {
    acc = acc.dbl();
    for (std::size_t i = 0; i < bases.size(); ++i)
      if (field::bigint_bit(scalars[i], b)) acc = acc.add_mixed(bases[i]);
  }
  return acc;
}

[[maybe_unused]] bool all_below_r(std::span<const Scalar> scalars) {
  return std::all_of(scalars.begin(), scalars.end(), [](const Scalar& k) {
    return field::bigint_compare(k, field::FrParams::kModulus) < 0;
  });
}

}  // namespace

void to_scalars(std::span<const field::Fr> in, std::span<Scalar> out, parallel::ThreadPool& pool) {
  assert(in.size() == out.size());
  pool.parallel_for(in.size(), 4096, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = in[i].to_canonical();
  });
}

std::vector<Scalar> to_scalars(std::span<const field::Fr> in, parallel::ThreadPool& pool) {
  std::vector<Scalar> out(in.size());
  to_scalars(in, std::span(out), pool);
  return out;
}

template <class Curve>
curve::Jacobian<Curve> msm(std::span<const curve::Affine<Curve>> bases,
                           std::span<const Scalar> scalars, parallel::ThreadPool& pool,
                           const MsmConfig& cfg) {
  using Point = curve::Affine<Curve>;
  assert(bases.size() == scalars.size());
  assert(all_below_r(scalars));
  assert(cfg.window_bits <= 24);
  const std::size_t n = bases.size();
  if (n == 0) return curve::Jacobian<Curve>::infinity();
  if (cfg.window_bits == 0 && n <= kDoubleAndAddMax) return double_and_add<Curve>(bases, scalars);
  const TreeParams params = tree_params(cfg);

  if (!cfg.use_endomorphism) {
    assert(n < (std::size_t{1} << 31));
    const detail::BaseFetch<Curve> fetch{bases.data(), nullptr, static_cast<std::uint32_t>(n)};
    return detail::pippenger<Curve, 4>(fetch, scalars, cfg.window_bits, pool, params);
  }

  // GLV: entries [0, n) are (P_i, k1_i), entries [n, 2n) are (λ·P_i, k2_i).
  assert(n < (std::size_t{1} << 30));
  RawBuffer<Point> lambda_bases(n);
  RawBuffer<std::array<std::uint64_t, 2>> halves(2 * n);
  pool.parallel_for(n, 1024, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      lambda_bases[i] = LambdaMap<Curve>::apply(bases[i]);
      const SplitScalar s = glv_split(scalars[i]);
      halves[i] = {static_cast<std::uint64_t>(s.k1), static_cast<std::uint64_t>(s.k1 >> 64)};
      halves[n + i] = {static_cast<std::uint64_t>(s.k2), static_cast<std::uint64_t>(s.k2 >> 64)};
    }
  });
  const detail::BaseFetch<Curve> fetch{bases.data(), lambda_bases.data(),
                                       static_cast<std::uint32_t>(n)};
  return detail::pippenger<Curve, 2>(fetch, std::as_const(halves).span(), cfg.window_bits, pool,
                                     params);
}

template <class Curve>
curve::Jacobian<Curve> batch_add_indices(std::span<const curve::Affine<Curve>> bases,
                                         std::span<const std::uint32_t> indices,
                                         parallel::ThreadPool& pool, const MsmConfig& cfg) {
  using Point = curve::Affine<Curve>;
  assert(bases.size() < (std::size_t{1} << 31));
  assert(std::all_of(indices.begin(), indices.end(),
                     [&](std::uint32_t i) { return i < bases.size(); }));
  if (indices.empty()) return curve::Jacobian<Curve>::infinity();
  const std::size_t offsets[2] = {0, indices.size()};
  Point sum;
  sum_segments<Curve>(ArrayFetch<Point>{bases.data()}, indices, std::span(offsets),
                      std::span(&sum, 1), pool, tree_params(cfg));
  return curve::Jacobian<Curve>::from_affine(sum);
}

template <class Curve>
curve::Jacobian<Curve> batch_add(std::span<const curve::Affine<Curve>> bases,
                                 std::span<const std::uint64_t> bitmap, parallel::ThreadPool& pool,
                                 const MsmConfig& cfg) {
  const std::size_t n = bases.size(), words = (n + 63) / 64;
  assert(bitmap.size() == words);
  assert(n % 64 == 0 || words == 0 || (bitmap[words - 1] >> (n % 64)) == 0);
  // Set bits to indices: popcounts per block of words, then each block writes its slice.
  const std::size_t blocks = std::clamp<std::size_t>(words / 1024, 1, pool.size());
  const auto block_begin = [&](std::size_t b) { return words * b / blocks; };
  std::vector<std::size_t> start(blocks + 1, 0);
  pool.parallel_for(blocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b)
      for (std::size_t w = block_begin(b); w < block_begin(b + 1); ++w)
        start[b + 1] += static_cast<std::size_t>(std::popcount(bitmap[w]));
  });
  for (std::size_t b = 0; b < blocks; ++b) start[b + 1] += start[b];
  std::vector<std::uint32_t> indices(start[blocks]);
  pool.parallel_for(blocks, 1, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      std::size_t pos = start[b];
      for (std::size_t w = block_begin(b); w < block_begin(b + 1); ++w)
        for (std::uint64_t bits = bitmap[w]; bits; bits &= bits - 1)
          indices[pos++] = static_cast<std::uint32_t>(64 * w + std::countr_zero(bits));
    }
  });
  return batch_add_indices<Curve>(bases, std::span<const std::uint32_t>(indices), pool, cfg);
}

#define PROOFLAB_MSM_INSTANTIATE(Curve)                                                      \
  template curve::Jacobian<Curve> msm<Curve>(std::span<const curve::Affine<Curve>>,          \
                                             std::span<const Scalar>, parallel::ThreadPool&, \
                                             const MsmConfig&);                              \
  template curve::Jacobian<Curve> batch_add<Curve>(std::span<const curve::Affine<Curve>>,    \
                                                   std::span<const std::uint64_t>,           \
                                                   parallel::ThreadPool&, const MsmConfig&); \
  template curve::Jacobian<Curve> batch_add_indices<Curve>(                                  \
      std::span<const curve::Affine<Curve>>, std::span<const std::uint32_t>,                 \
      parallel::ThreadPool&, const MsmConfig&);
PROOFLAB_MSM_INSTANTIATE(curve::G1Curve)
PROOFLAB_MSM_INSTANTIATE(curve::G2Curve)
#undef PROOFLAB_MSM_INSTANTIATE

}  // namespace prooflab::msm
