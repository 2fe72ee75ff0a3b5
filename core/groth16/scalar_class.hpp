// The one rule by which prep_msm splits a query's scalars (the reference's split, DESIGN.md
// §1 stage 2): zero (dropped), one (summed by batch addition) or tail (a real MSM). The CPU's
// groth16::prep_msm and the device's (gpu/msm_plan/query_words.cuh) both call this, on their
// own field types (core's field::Fr, the device's Fr32: each has is_zero(), one() and ==, on
// Montgomery form), so the two plans cannot drift apart. C++17, host and device.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PROOFLAB_SCALAR_CLASS_FN __host__ __device__ __forceinline__
#else
#define PROOFLAB_SCALAR_CLASS_FN inline
#endif

namespace prooflab::groth16 {

enum class ScalarClass : std::uint8_t { kZero, kOne, kTail };

template <class F>
PROOFLAB_SCALAR_CLASS_FN ScalarClass classify_scalar(const F& value) {
  if (value.is_zero()) return ScalarClass::kZero;
  if (value == F::one()) return ScalarClass::kOne;
  return ScalarClass::kTail;
}

}  // namespace prooflab::groth16
