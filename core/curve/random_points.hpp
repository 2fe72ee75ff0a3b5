// Random points of the prime-order subgroup, many of them fast: each chunk of the output is a
// chain P, P + S, P + 2S, … from two random multiples of the generator, made on all threads
// of a pool and converted to affine with one inversion per chunk. For benchmarks and
// synthetic keys (the time of an MSM does not depend on which points it adds); the points of
// one chunk are related, so never use them where independence matters (setup, security).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "core/curve/jacobian.hpp"
#include "core/curve/scalar_mul.hpp"
#include "core/field/fr.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::curve {

template <class Curve>
void fill_random_points(std::span<Affine<Curve>> out, const Affine<Curve>& generator,
                        std::uint64_t seed, parallel::ThreadPool& pool) {
  const auto g = Jacobian<Curve>::from_affine(generator);
  pool.parallel_for(out.size(), 1 << 14, [&](std::size_t begin, std::size_t end) {
    std::mt19937_64 rng(seed ^ (begin * 0x9e3779b97f4a7c15ULL));
    const auto step = scalar_mul(g, field::Fr::random(rng).to_canonical());
    auto p = scalar_mul(g, field::Fr::random(rng).to_canonical());
    std::vector<Jacobian<Curve>> jac(end - begin);
    for (auto& q : jac) {
      q = p;
      p = p.add(step);
    }
    batch_to_affine<Curve>(jac, out.subspan(begin, end - begin));
  });
}

}  // namespace prooflab::curve
