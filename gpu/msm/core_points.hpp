// The device's raw point layouts (G1XyzzRaw, G2XyzzRaw: the bytes of core's curve::Xyzz) as
// core's points, for G1 and G2 alike, and Horner's rule over the window sums — the last step
// of every device MSM, done on the host with core's arithmetic. C++20 (core types).
#pragma once

#include <cstring>
#include <span>

#include "core/curve/xyzz.hpp"
#include "gpu/msm/pippenger.cuh"

namespace prooflab::gpu::msm {

template <class Curve, class Raw>
curve::Xyzz<Curve> xyzz_from_raw(const Raw& p) {
  static_assert(sizeof(curve::Xyzz<Curve>) == sizeof(Raw), "core's XYZZ layout");
  curve::Xyzz<Curve> x;
  std::memcpy(&x, &p, sizeof x);
  return x;
}

template <class Raw, class Curve>
Raw xyzz_to_raw(const curve::Xyzz<Curve>& p) {
  static_assert(sizeof(curve::Xyzz<Curve>) == sizeof(Raw), "core's XYZZ layout");
  Raw r;
  std::memcpy(&r, &p, sizeof r);
  return r;
}

// Σ_w 2^position(w)·sums[w] over the plan's W windows by Horner's rule: from the top window
// down, width(w) doublings before adding window w's sum (256 − width(W−1) in all, on the CPU).
template <class Curve, class Raw>
curve::Xyzz<Curve> combine_window_sums(std::span<const Raw> sums, const DigitPlan& plan) {
  auto acc = curve::Xyzz<Curve>::infinity();
  for (std::size_t w = sums.size(); w-- > 0;) {
    if (w + 1 < sums.size())
      for (unsigned k = 0; k < plan.width(static_cast<std::uint32_t>(w)); ++k) acc = acc.dbl();
    acc = acc.add(xyzz_from_raw<Curve>(sums[w]));
  }
  return acc;
}

}  // namespace prooflab::gpu::msm
