// Fixed-width unsigned integers as little-endian arrays of 64-bit limbs, with the few
// constexpr operations the fields need to derive their constants (exponents such as
// (p+1)/4, comparisons for canonical checks, hex parsing for constants from REFERENCE.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace prooflab::field {

using u128 = unsigned __int128;

template <std::size_t N>
using BigInt = std::array<std::uint64_t, N>;

// Parses "0x..." (or bare) hex into N limbs; any value that does not fit is a compile error
// when used in a constant expression (the throw cannot be evaluated at compile time).
template <std::size_t N>
constexpr BigInt<N> bigint_from_hex(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  BigInt<N> out{};
  std::size_t bit = 0;
  for (std::size_t i = hex.size(); i-- > 0;) {
    const char c = hex[i];
    std::uint64_t v = 0;
    if (c >= '0' && c <= '9') v = static_cast<std::uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') v = static_cast<std::uint64_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v = static_cast<std::uint64_t>(c - 'A' + 10);
    else throw "bigint_from_hex: not a hex digit";
    if (v != 0 && bit / 64 >= N) throw "bigint_from_hex: value does not fit";
    if (bit / 64 < N) out[bit / 64] |= v << (bit % 64);
    bit += 4;
  }
  return out;
}

template <std::size_t N>
constexpr bool bigint_is_zero(const BigInt<N>& a) {
  for (auto x : a)
    if (x) return false;
  return true;
}

// -1, 0, 1 as a <, ==, > b.
template <std::size_t N>
constexpr int bigint_compare(const BigInt<N>& a, const BigInt<N>& b) {
  for (std::size_t i = N; i-- > 0;) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

// a + b, returning the carry out. At run time on x86-64 the carry chain is written with the
// add-with-carry intrinsics, which both GCC and Clang turn into one adc chain; the portable
// 128-bit form serves constant evaluation and other targets.
template <std::size_t N>
constexpr std::uint64_t bigint_add(BigInt<N>& a, const BigInt<N>& b) {
#if defined(__x86_64__)
  if (!std::is_constant_evaluated()) {
    unsigned char carry = 0;
    for (std::size_t i = 0; i < N; ++i) {
      unsigned long long out;
      carry = _addcarry_u64(carry, a[i], b[i], &out);
      a[i] = out;
    }
    return carry;
  }
#endif
  std::uint64_t carry = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const u128 s = static_cast<u128>(a[i]) + b[i] + carry;
    a[i] = static_cast<std::uint64_t>(s);
    carry = static_cast<std::uint64_t>(s >> 64);
  }
  return carry;
}

// a - b, returning the borrow out (1 when b > a).
template <std::size_t N>
constexpr std::uint64_t bigint_sub(BigInt<N>& a, const BigInt<N>& b) {
#if defined(__x86_64__)
  if (!std::is_constant_evaluated()) {
    unsigned char borrow = 0;
    for (std::size_t i = 0; i < N; ++i) {
      unsigned long long out;
      borrow = _subborrow_u64(borrow, a[i], b[i], &out);
      a[i] = out;
    }
    return borrow;
  }
#endif
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const u128 d = static_cast<u128>(a[i]) - b[i] - borrow;
    a[i] = static_cast<std::uint64_t>(d);
    borrow = static_cast<std::uint64_t>(d >> 64) & 1;
  }
  return borrow;
}

// out = mask ? a : b, limb by limb without a branch (mask is all ones or all zeros).
template <std::size_t N>
constexpr void bigint_select(BigInt<N>& out, std::uint64_t mask, const BigInt<N>& a,
                             const BigInt<N>& b) {
  for (std::size_t i = 0; i < N; ++i) out[i] = (a[i] & mask) | (b[i] & ~mask);
}

template <std::size_t N>
constexpr BigInt<N> bigint_add_small(BigInt<N> a, std::uint64_t v) {
  BigInt<N> b{};
  b[0] = v;
  bigint_add(a, b);
  return a;
}

template <std::size_t N>
constexpr BigInt<N> bigint_sub_small(BigInt<N> a, std::uint64_t v) {
  BigInt<N> b{};
  b[0] = v;
  bigint_sub(a, b);
  return a;
}

template <std::size_t N>
constexpr BigInt<N> bigint_shr(const BigInt<N>& a, unsigned s) {
  BigInt<N> out{};
  const unsigned limbs = s / 64, bits = s % 64;
  for (std::size_t i = 0; i + limbs < N; ++i) {
    out[i] = a[i + limbs] >> bits;
    if (bits && i + limbs + 1 < N) out[i] |= a[i + limbs + 1] << (64 - bits);
  }
  return out;
}

// Division by a small constant (used for exponents such as (p-1)/6).
template <std::size_t N>
constexpr BigInt<N> bigint_div_small(const BigInt<N>& a, std::uint64_t d) {
  BigInt<N> out{};
  u128 rem = 0;
  for (std::size_t i = N; i-- > 0;) {
    const u128 cur = (rem << 64) | a[i];
    out[i] = static_cast<std::uint64_t>(cur / d);
    rem = cur % d;
  }
  return out;
}

template <std::size_t N>
constexpr bool bigint_bit(const BigInt<N>& a, std::size_t i) {
  return (a[i / 64] >> (i % 64)) & 1;
}

template <std::size_t N>
constexpr std::size_t bigint_num_bits(const BigInt<N>& a) {
  for (std::size_t i = N; i-- > 0;)
    if (a[i]) return i * 64 + 64 - static_cast<std::size_t>(__builtin_clzll(a[i]));
  return 0;
}

}  // namespace prooflab::field
