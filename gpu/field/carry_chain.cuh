// 32-bit add/multiply-add with the carry flag, the building blocks of the device field
// arithmetic: PTX add.cc / addc / sub.cc / subc / mad.lo.cc / madc.hi … on the device, and an
// exact emulation of the same instructions (with a thread-local carry flag) on the host.
//
// The host emulation exists so that the very same multiplication code that runs in the
// kernels can be checked against core/field on any machine, GPU or not (the tests do).
//
// Each primitive is one `asm volatile` statement. The carry flag travels between them: PTX
// defines CC.CF as state that only .cc instructions write, the front end keeps volatile asm
// statements in program order and never emits .cc instructions of its own (we use no
// __int128 in device code), and ptxas maps CC.CF onto predicate registers, so it can still
// interleave two independent chains. This is the convention of NVIDIA's CGBN and of
// supranational's sppark (ff/mont_t.cuh).
#pragma once

#include <cstdint>

#include "gpu/field/constants.hpp"

namespace prooflab::gpu::field::cc {

#if !defined(__CUDA_ARCH__)
inline std::uint32_t& host_carry_flag() {
  static thread_local std::uint32_t flag = 0;
  return flag;
}
#endif

// d = a + b, CF = carry out
PROOFLAB_HDI std::uint32_t add_cc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  const std::uint64_t s = std::uint64_t{a} + b;
  host_carry_flag() = static_cast<std::uint32_t>(s >> 32);
  return static_cast<std::uint32_t>(s);
#endif
}

// d = a + b + CF, CF = carry out
PROOFLAB_HDI std::uint32_t addc_cc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  const std::uint64_t s = std::uint64_t{a} + b + host_carry_flag();
  host_carry_flag() = static_cast<std::uint32_t>(s >> 32);
  return static_cast<std::uint32_t>(s);
#endif
}

// d = a + b + CF (CF unchanged)
PROOFLAB_HDI std::uint32_t addc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return static_cast<std::uint32_t>(std::uint64_t{a} + b + host_carry_flag());
#endif
}

// d = a - b, CF = borrow out
PROOFLAB_HDI std::uint32_t sub_cc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  host_carry_flag() = a < b ? 1u : 0u;
  return a - b;
#endif
}

// d = a - (b + CF), CF = borrow out
PROOFLAB_HDI std::uint32_t subc_cc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  const std::uint64_t sub = std::uint64_t{b} + host_carry_flag();
  host_carry_flag() = std::uint64_t{a} < sub ? 1u : 0u;
  return static_cast<std::uint32_t>(std::uint64_t{a} - sub);
#endif
}

// d = a - (b + CF) (CF unchanged)
PROOFLAB_HDI std::uint32_t subc(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return static_cast<std::uint32_t>(std::uint64_t{a} - b - host_carry_flag());
#endif
}

// d = lo(a·b) + c, CF = carry out
PROOFLAB_HDI std::uint32_t mad_lo_cc(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  const std::uint64_t s = std::uint64_t{a * b} + c;
  host_carry_flag() = static_cast<std::uint32_t>(s >> 32);
  return static_cast<std::uint32_t>(s);
#endif
}

// d = lo(a·b) + c + CF, CF = carry out
PROOFLAB_HDI std::uint32_t madc_lo_cc(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  const std::uint64_t s = std::uint64_t{a * b} + c + host_carry_flag();
  host_carry_flag() = static_cast<std::uint32_t>(s >> 32);
  return static_cast<std::uint32_t>(s);
#endif
}

// d = hi(a·b) + c + CF, CF = carry out
PROOFLAB_HDI std::uint32_t madc_hi_cc(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  const std::uint64_t hi = (std::uint64_t{a} * b) >> 32;
  const std::uint64_t s = hi + c + host_carry_flag();
  host_carry_flag() = static_cast<std::uint32_t>(s >> 32);
  return static_cast<std::uint32_t>(s);
#endif
}

// d = hi(a·b) + c + CF (CF unchanged)
PROOFLAB_HDI std::uint32_t madc_hi(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
#else
  const std::uint64_t hi = (std::uint64_t{a} * b) >> 32;
  return static_cast<std::uint32_t>(hi + c + host_carry_flag());
#endif
}

// Plain high half of a 32×32 product (no flag).
PROOFLAB_HDI std::uint32_t mul_hi(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32);
#endif
}

}  // namespace prooflab::gpu::field::cc
