// The phases of the device Pippenger MSM as per-thread functions, shared by the kernels
// (msm_kernels.cu) and the host simulator (msm_simulator.hpp), which runs the very same code
// thread by thread so the decomposition is tested without a GPU.
//
//  0. clear:       every bucket's ZZ = 0 (infinity), once per call (with sort_ahead beside
//                  the first piece's sort): only the 48 bytes of a 192-byte G1 bucket that
//                  is_infinity reads, not a memset of all of them.
//  1. digits:      scalar i → W signed digits d_w in [−2^(c_w−1)+1, 2^(c_w−1)], c_w = c or
//                  c − 1 bits (DigitPlan); entry (key = w·B + |d_w| − 1, value = i | sign << 31),
//                  B = 2^(c−1);
//                  a zero digit gets the sentinel key W·B, which sorts last. (Fixed-base
//                  mode: key |d_w| − 1, value w·n + i; see DigitPlan.)
//  2. sort:        entries by key (CUB radix sort on the device, std::stable_sort here):
//                  every bucket's points become one contiguous run.
//  3. accumulate:  thread t sums the runs inside its chunk [t·K, t·K + K) into XYZZ. A run
//                  wholly inside the chunk is written to its bucket; the run the chunk starts
//                  in the middle of goes to heads[t], the one it ends in the middle of to
//                  tails[t]. No two threads write one bucket, so no atomics on points. Scalars
//                  that come in pieces (host scalars, uploaded while the previous piece runs)
//                  run phases 1-4 per piece into the same buckets, each run of a later piece
//                  starting from its bucket's value (`seeded`): no additions are added.
//  4. fix-up:      the thread whose chunk starts a run that crosses its end adds the heads of
//                  the following chunks the run covers and writes the bucket. A run that
//                  covers whole groups of kFixupGroup chunks (one bucket holding many points:
//                  real tails have scalars that repeat) is walked a group at a time, over sums
//                  of the groups' heads made first by one thread per group (4a).
//  5. reduce:      bucket magnitudes [lo, lo + L) of window w per thread:
//                  Σ m·S_m = Σ (m − lo + 1)·S_m + (lo − 1)·Σ S_m, by running sums; a
//                  narrow window's reachable half of its buckets only (DigitPlan::reach).
//  6. window sums: each window's segments added in rounds of kSumPerBlock per block
//                  (sum_points, pippenger_run.hpp sum_on_device); the host combines
//                  the W window sums by Horner's rule (width(w) doublings per window).
// Phases 3-6 are templates on the bucket type (XyzzPoint<F>: Xyzz32 for G1, G2Xyzz32 for
// G2); phases 1-2 see only scalars and serve both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu/msm/group_table.cuh"
#include "gpu/msm/xyzz.cuh"

namespace prooflab::gpu::msm {

constexpr std::uint32_t kNegBit = 0x80000000u;

namespace kernels {
constexpr unsigned kThreads = 128;  // per block, every MSM kernel's (the plan's waves count them)
}  // namespace kernels

// Fixed-base mode (`folded`): the bases come as a table of W·n points, entry w·n + i being
// 2^(c·w)·P_i (fixed_base.cuh). Then Σ s_i·P_i = Σ_w Σ_i d_w,i·(2^(c·w)·P_i) is a one-window
// MSM over the table: every window's digits share one set of B buckets, an entry's value names
// the table point w·n + i, and one reduction gives the sum (no Horner step). The additions stay
// n·W; the reduction shrinks W-fold, which lets c grow (fewer windows) for the same work.
// Plain mode: the W = ceil(256 / c) windows share the 256 bits as evenly as they can, the
// `wide` low ones c bits each and the rest c − 1 (c = ceil(256 / W); all c where W divides
// 256): at c = 20, 9 × 20 + 4 × 19 bits, 5.77 M buckets to reduce where 12 windows of 20 bits
// and a top window of 16 reached 6.36 M. The
// windows cover exactly bits [0, 256) and s < 2^255, so the top window's value plus the carry
// is at most its half range: it never borrows. Fixed-base mode: W windows of c bits each (the
// table's multiples are 2^(c·w)), the top one holding what is left of the 256.
struct DigitPlan {
  std::uint32_t c = 0;        // the widest window's bits
  std::uint32_t windows = 0;  // W
  std::uint32_t wide = 0;     // windows of c bits, the low ones; the rest have c − 1
  std::uint32_t buckets = 0;  // B = 2^(c−1) per bucket set (a narrow window's set uses B / 2)
  bool folded = false;        // fixed-base mode: one bucket set for all windows
  PROOFLAB_HDI std::uint32_t bucket_sets() const { return folded ? 1u : windows; }
  PROOFLAB_HDI std::uint32_t sentinel() const { return bucket_sets() * buckets; }
  PROOFLAB_HDI std::uint32_t width(std::uint32_t w) const { return w < wide ? c : c - 1; }
  // The first bit of window w: the windows below it, wide ones first.
  PROOFLAB_HDI std::uint32_t position(std::uint32_t w) const { return w * (c - 1) + (w < wide ? w : wide); }
  // Bucket sets that reach all B buckets, the low ones: the wide windows', or the fixed-base
  // mode's one set.
  PROOFLAB_HDI std::uint32_t wide_sets() const { return folded ? 1u : wide; }
  // Buckets set s's digits can reach: B, or B / 2 for a narrow window's.
  PROOFLAB_HDI std::uint32_t reach(std::uint32_t s) const { return s < wide_sets() ? buckets : buckets / 2; }
};

// c: the widest window the caller allows (MsmOptions::window_bits); the plan's own c may be less
// in the plain mode (c = 21 gives W = 13 windows, of at most 20 bits). folded: the table's c.
PROOFLAB_HDI DigitPlan make_digit_plan(std::uint32_t c, bool folded = false) {
  DigitPlan p;
  p.windows = (256 + c - 1) / c;
  p.folded = folded;
  if (folded) {
    p.c = c;
    p.wide = p.windows;
  } else {
    const std::uint32_t base = 256 / p.windows, extra = 256 % p.windows;
    p.c = extra ? base + 1 : base;
    p.wide = extra ? extra : p.windows;
  }
  p.buckets = 1u << (p.c - 1);
  return p;
}

// Bits [pos, pos + c) of a 256-bit little-endian scalar (zero past bit 255), c ≤ 31.
PROOFLAB_HDI std::uint32_t scalar_bits(const std::uint32_t* s, std::uint32_t pos, std::uint32_t c) {
  const std::uint32_t limb = pos >> 5, shift = pos & 31;
  if (limb >= 8) return 0;
  std::uint64_t w = s[limb];
  if (limb + 1 < 8) w |= std::uint64_t{s[limb + 1]} << 32;
  return static_cast<std::uint32_t>(w >> shift) & ((1u << c) - 1);
}

// Phase 1 for scalar i of n: writes entry (w, i) at keys[w·n + i] / vals[w·n + i], window w
// being bits [position(w), position(w) + width(w)) of the scalar; the value
// is i, or in fixed-base mode the table index w·stride + i (stride: the table's points; a piece
// of the scalars passes the table from its first point on and the table's n as the stride).
PROOFLAB_HDI void make_digits(const DigitPlan& plan, const std::uint32_t* scalar, std::uint32_t i,
                              std::size_t n, std::size_t stride, std::uint32_t* keys, std::uint32_t* vals) {
  std::uint32_t s[8];
  PROOFLAB_UNROLL for (int j = 0; j < 8; ++j) s[j] = scalar[j];
  std::uint32_t carry = 0;
  for (std::uint32_t w = 0; w < plan.windows; ++w) {
    const std::uint32_t bits = plan.width(w), half = 1u << (bits - 1), full = 2 * half;
    const std::uint32_t raw = scalar_bits(s, plan.position(w), bits) + carry;  // ≤ 2^bits
    std::uint32_t mag, neg;
    if (raw > half) {  // digit raw − 2^bits < 0, borrow from the next window
      mag = full - raw;
      neg = kNegBit;
      carry = 1;
    } else {
      mag = raw;
      neg = 0;
      carry = 0;
    }
    const std::size_t at = w * n + i;
    const std::uint32_t set = plan.folded ? 0 : w;
    keys[at] = mag == 0 ? plan.sentinel() : set * plan.buckets + (mag - 1);
    vals[at] = (plan.folded ? static_cast<std::uint32_t>(w * stride + i) : i) | neg;  // < 2^31 (make_run_plan)
  }
}

// Chunks per group of the fix-up's walk (phase 4a). A run of L chunks takes at most
// L / kFixupGroup + 2·kFixupGroup steps instead of L; groups cost one check each where no
// run covers them (random scalars: runs of ~2^24 / 2^19 = 32 entries, chunks of ~800).
constexpr std::uint32_t kFixupGroup = 32;

// Phase 0 for bucket b: at infinity. ZZ = 0 is all that XYZZ's is_infinity reads (here and in
// core's points), and a run's end writes its bucket whole.
template <class Bucket>
PROOFLAB_HDI void clear_bucket(Bucket* buckets, std::size_t b) {
  buckets[b].zz = Bucket::Field::zero();
}

template <class Bucket>
struct ChunkArgs {
  using Affine = typename Bucket::Affine;
  const std::uint32_t* keys;  // sorted
  const std::uint32_t* vals;
  const Affine* bases;
  const std::uint32_t* index;  // entry i's point is bases[index[i]]; nullptr: bases[i]
  std::size_t entries;  // N
  std::uint32_t chunk;  // K
  std::uint32_t sentinel;
  Bucket* buckets;  // W·B, written only where a run ends
  Bucket* heads;    // per chunk
  Bucket* tails;    // per chunk
  Bucket* group_sums;  // per kFixupGroup chunks, written where group_inside_run
  // Buckets already hold the sums of earlier pieces of the scalars: each run starts from its
  // bucket's value instead of infinity (its owner, the thread whose chunk it starts in, reads it).
  bool seeded;
};

template <class Bucket>
PROOFLAB_HDI typename Bucket::Affine load_signed(const ChunkArgs<Bucket>& a, std::uint32_t v) {
  const std::uint32_t i = v & ~kNegBit;
  return negate_if(a.bases[a.index ? a.index[i] : i], (v & kNegBit) != 0);
}

// Phase 3 for chunk t: one flat pass over the chunk's entries. (A nested loop per run was
// 1.5-1.8x slower on the H200; loading the next point ahead of the addition was 3 % slower:
// it costs registers and the 12 resident warps per SM already hide the load.)
template <class Bucket>
PROOFLAB_HDI void accumulate_chunk(const ChunkArgs<Bucket>& a, std::size_t t) {
  const std::size_t s = t * a.chunk;
  if (s >= a.entries) return;
  const std::size_t e = s + a.chunk < a.entries ? s + a.chunk : a.entries;
  std::uint32_t key = a.keys[s];
  if (key == a.sentinel) return;  // zero digits: the rest of the array
  std::size_t run_start = s;
  // A run's start: infinity, or the earlier pieces' sum where this thread owns the run (not
  // where the chunk starts inside it; that is read again from memory below rather than kept
  // in a register through the loop).
  const auto start = [&](std::uint32_t k, bool owner) {
    return a.seeded && owner ? a.buckets[k] : Bucket::infinity();
  };
  Bucket acc = start(key, !(s > 0 && a.keys[s - 1] == key));
  // Writes the run [run_start, end) of `key`.
  const auto finish = [&](std::size_t end) {
    const bool starts_before = run_start == s && s > 0 && a.keys[s - 1] == key;
    const bool continues_after = end == e && e < a.entries && a.keys[e] == key;
    if (starts_before)
      a.heads[t] = acc;
    else if (continues_after)
      a.tails[t] = acc;
    else
      a.buckets[key] = acc;
  };
  for (std::size_t i = s; i < e; ++i) {
    const std::uint32_t k = a.keys[i];
    if (k != key) {
      finish(i);
      if (k == a.sentinel) return;
      key = k;
      run_start = i;
      acc = start(k, true);
    }
    acc.add_mixed(load_signed(a, a.vals[i]));
  }
  finish(e);
}

// Whether group g's chunks all lie inside one run that began before the group and goes on past
// it: then each of them wrote its whole sum to its head, and the group's sum is theirs.
template <class Bucket>
PROOFLAB_HDI bool group_inside_run(const ChunkArgs<Bucket>& a, std::size_t g) {
  const std::size_t s = g * kFixupGroup * a.chunk, e = s + std::size_t{kFixupGroup} * a.chunk;
  if (s == 0 || e >= a.entries) return false;
  const std::uint32_t key = a.keys[s - 1];
  return key != a.sentinel && a.keys[e] == key;  // sorted: every key between is this one
}

// Phase 4a for group g: the sum of its chunks' heads where group_inside_run, in turn (the host
// simulator's; the kernels add the same heads in a tree, one warp per group:
// msm_block_sums.cuh group_heads_warp).
template <class Bucket>
PROOFLAB_HDI void group_heads(const ChunkArgs<Bucket>& a, std::size_t g) {
  if (!group_inside_run(a, g)) return;
  const std::size_t first = g * kFixupGroup;
  Bucket acc = a.heads[first];
  for (std::size_t u = first + 1; u < first + kFixupGroup; ++u) acc.add(a.heads[u]);
  a.group_sums[g] = acc;
}

// Phase 4 for chunk t: completes the run that starts in chunk t and crosses its end.
template <class Bucket>
PROOFLAB_HDI void fixup_chunk(const ChunkArgs<Bucket>& a, std::size_t t) {
  const std::size_t s = t * a.chunk;
  if (s >= a.entries) return;
  const std::size_t e = s + a.chunk < a.entries ? s + a.chunk : a.entries;
  const std::uint32_t key = a.keys[e - 1];
  if (key == a.sentinel || e >= a.entries || a.keys[e] != key) return;
  // A run that also covers this chunk's start began earlier: its owner is further left.
  if (a.keys[s] == key && s > 0 && a.keys[s - 1] == key) return;
  Bucket acc = a.tails[t];
  for (std::size_t u = t + 1;;) {  // the run reaches the start of chunk u
    if (u % kFixupGroup == 0 && group_inside_run(a, u / kFixupGroup)) {
      acc.add(a.group_sums[u / kFixupGroup]);  // and covers the group and the next chunk's start
      u += kFixupGroup;
      continue;
    }
    acc.add(a.heads[u]);
    const std::size_t eu = (u + 1) * a.chunk;
    if (eu >= a.entries || a.keys[eu] != key) break;  // the run ends inside chunk u
    ++u;
  }
  a.buckets[key] = acc;
}

template <class Bucket>
struct ReduceArgs {
  const Bucket* buckets;  // W·B
  std::uint32_t segment;          // L
  std::uint32_t segments;         // S = ceil(B / L) per set: the output's stride
  std::uint32_t narrow_segments;  // ceil(B / 2 / L): a narrow window's segments with buckets
  DigitPlan digits;               // B, and which sets are narrow (DigitPlan::reach)
  Bucket* out;                    // W·S
};

// Phase 5 for thread g: Σ_m m·bucket_m over the magnitudes m of one segment. The threads are
// the segments with buckets to add, the wide sets' S each and then the narrow sets'
// narrow_segments each, contiguous: with gaps for a narrow set's empty segments, blocks
// straddling the sets took 268 of a wave's 264 at 2^24, and the four left over a second
// chain (reduce 12.98 ms against 8.58; results/2026-12-07-msm-reduce-waves call 6). A narrow
// set's thread j also writes its set's empty segment sum narrow_segments + j (S ≤ 2·that).
template <class Bucket>
PROOFLAB_HDI void reduce_segment(const ReduceArgs<Bucket>& a, std::size_t g) {
  const std::size_t wide = a.digits.wide_sets(), wide_threads = wide * a.segments;
  std::size_t w, j;
  if (g < wide_threads) {
    w = g / a.segments;
    j = g % a.segments;
  } else {
    w = wide + (g - wide_threads) / a.narrow_segments;
    j = (g - wide_threads) % a.narrow_segments;
    if (a.narrow_segments + j < a.segments) a.out[w * a.segments + a.narrow_segments + j] = Bucket::infinity();
  }
  const std::uint32_t lo = static_cast<std::uint32_t>(j) * a.segment;  // bucket index lo ↔ m = lo + 1
  const std::uint32_t limit = a.digits.reach(static_cast<std::uint32_t>(w));
  Bucket running = Bucket::infinity(), acc = Bucket::infinity();
  const Bucket* b = a.buckets + w * a.digits.buckets;
  const std::uint32_t len = limit - lo < a.segment ? limit - lo : a.segment;
  for (std::uint32_t k = len; k-- > 0;) {
    running.add(b[lo + k]);
    acc.add(running);
  }
  if (lo > 0) acc.add(running.times(lo));
  a.out[w * a.segments + j] = acc;
}

// The batch addition (Σ of the bases whose bit is set) in equal shares: word w's bits below n,
// and thread t's share, the selected bases number [begin, end) in bitmap order, found from the
// inclusive prefix sums of the words' counts (ends[w] = selected bases up to word w's end). Equal
// shares keep a warp's lanes busy alike: one 64-bit word per lane left them ~80 % busy at the
// porep-like 46 % density (a warp runs as many steps as its fullest word).
PROOFLAB_HDI std::uint64_t word_below_n(const std::uint64_t* bitmap, std::size_t n, std::size_t w) {
  const std::size_t first = w * 64;
  const std::uint64_t bits = bitmap[w];
  return first + 64 <= n ? bits : bits & ((std::uint64_t{1} << (n - first)) - 1);  // n − first in [1, 63]
}

PROOFLAB_HDI std::uint32_t popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__popcll(static_cast<unsigned long long>(x)));
#else
  return static_cast<std::uint32_t>(__builtin_popcountll(x));
#endif
}

PROOFLAB_HDI int lowest_bit(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// The batch addition over a group table (kGroup = 2 or 4, group_table.hpp; 1: none): its units
// are the bitmap's groups of kGroup bits (bits g·q … g·q + g − 1), selected when any bit is set,
// and a group with two or more set adds its table entry for that combination in one mixed
// addition (at a density d, 1 − (1 − d)^g additions per group instead of g·d).
PROOFLAB_HDI std::uint64_t selected_units(std::uint64_t bits, std::uint32_t group) {
  switch (group) {
    case 2: return (bits | bits >> 1) & 0x5555555555555555ull;
    case 4: return (bits | bits >> 1 | bits >> 2 | bits >> 3) & 0x1111111111111111ull;
    default: return bits;
  }
}

template <class Bucket, std::uint32_t kGroup = 1>
PROOFLAB_HDI Bucket sum_selected_share(const typename Bucket::Affine* bases, const std::uint64_t* bitmap,
                                       std::size_t n, const std::uint32_t* ends, std::size_t words,
                                       std::uint32_t begin, std::uint32_t end,
                                       const typename Bucket::Affine* table = nullptr) {
  static_assert(kGroup == 1 || kGroup == 2 || kGroup == 4, "groups of 1, 2 or 4 bits");
  Bucket acc = Bucket::infinity();
  if (begin >= end) return acc;
  std::size_t lo = 0, hi = words - 1;  // the first word w with ends[w] > begin (begin < total)
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (ends[mid] > begin) hi = mid;
    else lo = mid + 1;
  }
  std::size_t w = lo;
  std::uint64_t raw = word_below_n(bitmap, n, w);
  std::uint64_t bits = selected_units(raw, kGroup);
  for (std::uint32_t skip = begin - (ends[w] - popcount64(bits)); skip > 0; --skip) bits &= bits - 1;
  for (std::uint32_t left = end - begin; left > 0;) {
    if (bits == 0) {
      raw = word_below_n(bitmap, n, ++w);
      bits = selected_units(raw, kGroup);
      continue;
    }
    const int b = lowest_bit(bits);
    bits &= bits - 1;
    const std::size_t i = w * 64 + static_cast<std::size_t>(b);
    // One addition site: a branch per source would run both additions one after the other
    // wherever a warp's lanes differ (the first version did: 2.4 × the time of the pairs').
    const typename Bucket::Affine* point = bases + i;
    if constexpr (kGroup > 1) {
      // b is a multiple of kGroup: the group's bits, one of them at least set
      const auto mask = static_cast<std::uint32_t>(raw >> b) & ((1u << kGroup) - 1);
      point = (mask & (mask - 1)) == 0 ? bases + i + static_cast<std::size_t>(lowest_bit(mask))
                                       : table + (i / kGroup * group_entries(kGroup) + combination_rank(mask));
    }
    acc.add_mixed(*point);
    --left;
  }
  return acc;
}

}  // namespace prooflab::gpu::msm
