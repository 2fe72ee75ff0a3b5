// The two BLS12-381 fields on the device: Fr (scalars, 8 limbs) and Fp (coordinates, 12 limbs).
#pragma once

#include "gpu/field/mont32.cuh"

namespace prooflab::gpu::field {

using Fr32 = Mont32<FrParams32>;
using Fp32 = Mont32<FpParams32>;

static_assert(sizeof(Fr32) == 32, "Fr32 must have the CPU Fr's 32-byte layout");
static_assert(sizeof(Fp32) == 48, "Fp32 must have the CPU Fp's 48-byte layout");

}  // namespace prooflab::gpu::field
