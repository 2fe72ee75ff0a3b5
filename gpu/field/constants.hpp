// The BLS12-381 field constants as the device uses them: 32-bit little-endian limbs of the
// same numbers core/field/fr.hpp and fp.hpp hold in 64-bit limbs (shared/REFERENCE.md).
//
// Why the CPU layout carries over unchanged: the CPU stores a·R mod m with R = 2^256 (Fr,
// 4×64-bit limbs) or 2^384 (Fp, 6×64-bit limbs). The device uses 8 or 12 32-bit limbs, so its
// R is the same 2^256 or 2^384, and on a little-endian machine 64-bit limb i is exactly
// 32-bit limbs 2i (low half) and 2i+1 (high half). A std::vector<field::Fr> can therefore be
// copied to the device byte for byte and is a valid array of device elements, and back.
// The only constant that is not a plain re-split is the Montgomery factor: -m^-1 mod 2^32 is
// the low half of -m^-1 mod 2^64 (reduction mod 2^32 commutes with negation and inversion).
// tests/cpp/gpu_field_test.cpp checks all of it against the CPU headers.
//
// Plain C++17 (no CUDA types): included by kernels, by host code and by the tests. The values
// are returned by constexpr functions over local arrays rather than stored in static arrays,
// because nvcc cannot read a namespace- or class-scope constexpr array from device code; in a
// fully unrolled loop every call folds to an immediate operand.
#pragma once

#include <cstdint>

// The kernels force-inline every field and curve step. A host compiler (the simulators and
// the tests, which run the same code with an emulated carry chain) is left to choose: forced,
// every call site of an XYZZ addition became ~2000 inlined carry steps, and
// gpu_msm_simulation_test.cpp took over 130 CPU-seconds to compile instead of 9
// (results/2026-12-01-fresh-build.md). No production host code does device arithmetic
// (gpu/ntt/tables.cpp and h_host.cpp share the layout only).
// PROOFLAB_HD_NOINLINE: a step compiled once and called (gpu/msm/xyzz.cuh, G2's point ops).
#if defined(__CUDACC__)
#define PROOFLAB_HD __host__ __device__
#define PROOFLAB_HDI __host__ __device__ __forceinline__
#define PROOFLAB_HD_NOINLINE __host__ __device__ __noinline__
#else
#define PROOFLAB_HD
#define PROOFLAB_HDI inline
#define PROOFLAB_HD_NOINLINE inline
#endif

namespace prooflab::gpu::field {

// 32-bit limb i of a number given as 64-bit little-endian limbs.
PROOFLAB_HDI constexpr std::uint32_t limb32(const std::uint64_t* limbs64, int i) {
  return (i & 1) ? static_cast<std::uint32_t>(limbs64[i / 2] >> 32)
                 : static_cast<std::uint32_t>(limbs64[i / 2]);
}

// Fr: r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits).
struct FrParams32 {
  static constexpr int kLimbs = 8;
  static constexpr int kBits = 255;
  static constexpr std::uint32_t kM0 = 0xffffffffu;  // low half of 0xfffffffeffffffff
  PROOFLAB_HDI static constexpr std::uint32_t modulus(int i) {
    constexpr std::uint64_t m[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};
    return limb32(m, i);
  }
  PROOFLAB_HDI static constexpr std::uint32_t one(int i) {  // R mod r
    constexpr std::uint64_t m[4] = {0x00000001fffffffeULL, 0x5884b7fa00034802ULL,
                                    0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL};
    return limb32(m, i);
  }
  PROOFLAB_HDI static constexpr std::uint32_t r2(int i) {  // R^2 mod r
    constexpr std::uint64_t m[4] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
                                    0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};
    return limb32(m, i);
  }
};

// Fp: p = 0x1a0111ea…b9feffffffffaaab (381 bits).
struct FpParams32 {
  static constexpr int kLimbs = 12;
  static constexpr int kBits = 381;
  static constexpr std::uint32_t kM0 = 0xfffcfffdu;  // low half of 0x89f3fffcfffcfffd
  PROOFLAB_HDI static constexpr std::uint32_t modulus(int i) {
    constexpr std::uint64_t m[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                                    0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                    0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
    return limb32(m, i);
  }
  PROOFLAB_HDI static constexpr std::uint32_t one(int i) {
    constexpr std::uint64_t m[6] = {0x760900000002fffdULL, 0xebf4000bc40c0002ULL,
                                    0x5f48985753c758baULL, 0x77ce585370525745ULL,
                                    0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL};
    return limb32(m, i);
  }
  PROOFLAB_HDI static constexpr std::uint32_t r2(int i) {
    constexpr std::uint64_t m[6] = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL,
                                    0x8de5476c4c95b6d5ULL, 0x67eb88a9939d83c0ULL,
                                    0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};
    return limb32(m, i);
  }
};

// The Montgomery factor is what it claims to be: m·M0 ≡ -1 (mod 2^32).
static_assert(static_cast<std::uint32_t>(FrParams32::modulus(0) * FrParams32::kM0) == 0xffffffffu);
static_assert(static_cast<std::uint32_t>(FpParams32::modulus(0) * FpParams32::kM0) == 0xffffffffu);

}  // namespace prooflab::gpu::field
