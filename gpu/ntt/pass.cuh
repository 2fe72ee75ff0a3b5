// One pass of the radix-2 NTT: a group of s consecutive decimation-in-frequency stages done
// by each thread block in shared memory, with the global twiddles between passes applied as
// the block writes back. The three phases (load, one stage, store) are plain functions of
// (block, thread) so that the kernel (ntt_kernel.cu) and the host simulator the tests use
// (pass_simulator.hpp) execute exactly the same index arithmetic and field code.
//
// The decomposition (the "four-step" identity applied pass by pass; stage numbers global):
// stages t .. t+s-1 of a DIF transform of size n = 2^k touch, for each (B, c) with B < 2^t and
// c < d = n/2^(t+s), the 2^s elements x_m = a[B·n/2^t + c + m·d] (a "set") and nothing else.
// Their DIF stages equal a 2^s-point DIF of the set with twiddles ω_{2^s}^j only (the "radix"
// table), after which position m holds Y[k1 = rev_s(m)], times the coupling twiddle
// ω^(2^t·c·k1), which the store phase applies: read beside the element from the domain's
// pass table (pass_twiddle) in a pass of the t and s that table was built for, else from the
// direct "coupling" table when the pass starts late enough for it (see CouplingTable), else
// built from the two-level "partial" table at the cost of one more multiplication. The last pass
// (d = 1) has no coupling twiddle; its sets are contiguous and its output position x holds
// the transform's value number rev_k(x). To produce natural order without a separate
// bit-reversal pass, a last pass with reverse_out takes the sets q = rev_{k-s}(b·C + u) and
// writes element m of set q to index rev_s(m)·2^(k-s) + b·C + u = rev_k(q·2^s + m): for a
// fixed m the C sets of a block land side by side, so the scattered writes still come in
// runs of C·32 bytes. Because those writes cross block boundaries, a last pass must not write
// into the buffer it reads (unless it is the only pass: one block then holds everything).
//
// Values between the load and the last store live in the lazy domain of Mont32 ([0, 2r),
// mul_lazy / add_lazy / sub_lazy, the multiplier of mul_lazy always a canonical twiddle or
// table value): no multiplication makes its final conditional subtraction. Intermediate passes
// store lazy values into the scratch buffer, which only the next pass reads; the last pass
// stores canonical ones.
//
// A block holds C = 2^log_c sets (E = C·2^s elements): consecutive c for all but the last
// pass, so every global access is a run of C elements (C·32 bytes). Shared memory keeps the
// low and high 16 bytes of each element in two arrays, index m·C + u, so that neighbouring
// threads hit neighbouring 16-byte bank groups.
#pragma once

#include <vector_types.h>

#include <cstdint>

#include "gpu/field/fields.cuh"

namespace prooflab::gpu::ntt {

using field::Fr32;

// value(e) = lo[e mod 2^split] · hi[e >> split]: x^e (times a constant folded into lo) for
// e < n from two tables of about √n entries each.
struct PowerTable {
  const Fr32* lo = nullptr;
  const Fr32* hi = nullptr;
  std::uint32_t split = 0;
};

// value(j) = x^(j·2^log_step) for j < 2^log_size, one entry per exponent: a coupling twiddle
// from it costs no multiplication. ω^-e comes from the same table as x^(2^log_size - j).
struct CouplingTable {
  const Fr32* powers = nullptr;
  std::uint32_t log_step = 0, log_size = 0;
};

enum InMode : std::uint32_t {
  kInNone = 0,
  kInTable = 1,      // input i times in_table(i) (coset shift); first pass only
  kInPointwise = 2,  // input i is src[i]·src_b[i] - src_c[i] (Groth16's a·b - c)
};
enum OutMode : std::uint32_t {
  kOutNone = 0,
  kOutScalar = 1,  // every output times out_scalar (1/n)
  kOutTable = 2,   // output k (natural index) times out_table(k)
};

struct PassArgs {
  const Fr32* src = nullptr;
  const Fr32* src_b = nullptr;
  const Fr32* src_c = nullptr;
  Fr32* dst = nullptr;
  const Fr32* radix = nullptr;  // ω_{2^radix_log}^i for i < 2^(radix_log-1)
  PowerTable partial;           // ω^e, e < n (ω or ω^-1 of this size)
  CouplingTable coupling;  // when powers != null: ω^(±j·2^log_step) without a multiplication
  // When not null: element g's coupling twiddle at pass_coupling[g mod 2^(log_n - t)]
  // (pass_twiddle of this pass's t, s and direction), read in the runs the data is read in.
  const Fr32* pass_coupling = nullptr;
  PowerTable in_table, out_table;
  Fr32 out_scalar;
  std::uint32_t log_n = 0, t = 0, s = 0, log_c = 0, radix_log = 0, threads = 0;
  std::uint32_t last = 0, reverse_out = 0, in_mode = kInNone, out_mode = kOutNone;
  std::uint32_t inverse = 0;        // coupling twiddles are ω^-e (direct table read backwards)
  std::uint32_t paired_stages = 0;  // stages two at a time per shared-memory round trip
  std::uint32_t blocks_per_sm = 3;  // which kernel build launches it (ntt_kernel.cu)
  // Whether pass_stage_pair numbers its groups twiddle-major (j in the top bits of the group
  // number, so that the threads of a warp share j and the groups with j = 0, whose stage-u
  // twiddle and stage-(u+1) twiddle are both 1, skip those multiplications together) or
  // position-major (neighbouring threads take neighbouring positions: conflict-free shared
  // memory for any C, but j varies within a warp and only the q = 1 pair, whose j is always 0,
  // saves its multiplication). Twiddle-major is conflict-free when C >= 8 (eight 16-byte lanes
  // of one wavefront); with fewer sets its accesses conflict 8/C ways.
  std::uint32_t twiddle_major = 1;

  PROOFLAB_HDI std::uint32_t log_elems() const { return s + log_c; }
  PROOFLAB_HDI std::uint32_t blocks() const { return 1u << (log_n - s - log_c); }
};

// Shared memory of one block: the low and the high halves of E elements.
struct Tile {
  uint4* lo;
  uint4* hi;
};

PROOFLAB_HDI std::uint32_t reverse_bits(std::uint32_t x, std::uint32_t bits) {
  if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
  return __brev(x) >> (32 - bits);
#else
  std::uint32_t r = 0;
  for (std::uint32_t i = 0; i < bits; ++i) r |= ((x >> i) & 1u) << (bits - 1 - i);
  return r;
#endif
}

PROOFLAB_HDI Fr32 from_halves(const uint4& a, const uint4& b) {
  Fr32 r;
  r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w;
  r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
  return r;
}

PROOFLAB_HDI uint4 quad(std::uint32_t x, std::uint32_t y, std::uint32_t z, std::uint32_t w) {
  uint4 r;
  r.x = x, r.y = y, r.z = z, r.w = w;
  return r;
}

PROOFLAB_HDI Fr32 tile_get(const Tile& sh, std::uint32_t i) {
  return from_halves(sh.lo[i], sh.hi[i]);
}

PROOFLAB_HDI void tile_put(const Tile& sh, std::uint32_t i, const Fr32& x) {
  sh.lo[i] = quad(x.v[0], x.v[1], x.v[2], x.v[3]);
  sh.hi[i] = quad(x.v[4], x.v[5], x.v[6], x.v[7]);
}

// Data: two 16-byte loads / stores per element (pointers are 16-byte aligned).
PROOFLAB_HDI Fr32 load_elem(const Fr32* p, std::uint32_t i) {
  const uint4* q = reinterpret_cast<const uint4*>(p + i);
  return from_halves(q[0], q[1]);
}
PROOFLAB_HDI void store_elem(Fr32* p, std::uint32_t i, const Fr32& x) {
  uint4* q = reinterpret_cast<uint4*>(p + i);
  q[0] = quad(x.v[0], x.v[1], x.v[2], x.v[3]);
  q[1] = quad(x.v[4], x.v[5], x.v[6], x.v[7]);
}
// Tables: read-only for the whole kernel, through the non-coherent (texture) path.
PROOFLAB_HDI Fr32 load_table(const Fr32* p, std::uint32_t i) {
  const uint4* q = reinterpret_cast<const uint4*>(p + i);
#if defined(__CUDA_ARCH__)
  return from_halves(__ldg(q), __ldg(q + 1));
#else
  return from_halves(q[0], q[1]);
#endif
}

PROOFLAB_HDI Fr32 table_power(const PowerTable& t, std::uint32_t e) {
  return load_table(t.lo, e & ((1u << t.split) - 1)) * load_table(t.hi, e >> t.split);
}

// The coupling twiddle ω^(±cr·2^t) of set offset c and output number k1 (cr = c·k1 < 2^(k-t)).
PROOFLAB_HDI Fr32 coupling_twiddle(const PassArgs& p, std::uint32_t cr) {
  if (p.coupling.powers) {
    const std::uint32_t mask = (1u << p.coupling.log_size) - 1;
    std::uint32_t j = cr << (p.t - p.coupling.log_step);
    if (p.inverse) j = (0u - j) & mask;
    return load_table(p.coupling.powers, j);
  }
  return table_power(p.partial, cr << p.t);
}

// The coupling twiddle of element g = B·2^(k-t) + c + m·2^(k-t-s) of a pass of s stages from
// stage t, ω^(±2^t·c·rev_s(m)) with `partial` the two-level table of ω or ω^-1. It depends on
// g mod 2^(k-t) only, so a pass table holds it at that index (g < 2^(k-t) here): the pass reads
// it where it reads the element (runs of C·32 bytes, no multiplication) instead of building it
// from the two-level table (the first pass, t = 0: exponents up to n) or reading the direct
// table at scattered indices (later passes).
PROOFLAB_HDI Fr32 pass_twiddle(const PowerTable& partial, std::uint32_t log_n, std::uint32_t t,
                               std::uint32_t s, std::uint32_t g) {
  const std::uint32_t log_d = log_n - t - s;
  return table_power(partial, ((g & ((1u << log_d) - 1)) * reverse_bits(g >> log_d, s)) << t);
}

// Global index of element l (< E) of this block's sets, as loaded; for all but the last pass
// the shared index is l itself, for the last pass m·C + u.
PROOFLAB_HDI void load_index(const PassArgs& p, std::uint32_t block, std::uint32_t l,
                             std::uint32_t& g, std::uint32_t& si) {
  if (!p.last) {
    const std::uint32_t log_d = p.log_n - p.t - p.s;
    const std::uint32_t q0 = block << p.log_c;  // set id q = B·d + c of the block's first set
    const std::uint32_t b_hi = q0 >> log_d, c0 = q0 & ((1u << log_d) - 1);
    g = (b_hi << (p.log_n - p.t)) + c0 + (l & ((1u << p.log_c) - 1)) + ((l >> p.log_c) << log_d);
    si = l;
  } else {
    const std::uint32_t m = l & ((1u << p.s) - 1), u = l >> p.s;
    const std::uint32_t q0 = (block << p.log_c) + u;
    const std::uint32_t q = p.reverse_out ? reverse_bits(q0, p.log_n - p.s) : q0;
    g = (q << p.s) + m;
    si = (m << p.log_c) + u;
  }
}

PROOFLAB_HDI void pass_load(const PassArgs& p, std::uint32_t block, std::uint32_t tid,
                            const Tile& sh) {
  const std::uint32_t count = 1u << p.log_elems();
  for (std::uint32_t l = tid; l < count; l += p.threads) {
    std::uint32_t g, si;
    load_index(p, block, l, g, si);
    Fr32 x = load_elem(p.src, g);
    // g is the natural index of the input: only a first pass (t == 0) may scale its input.
    if (p.in_mode == kInTable)
      x = Fr32::mul_lazy(table_power(p.in_table, g), x);
    else if (p.in_mode == kInPointwise)
      x = Fr32::sub_lazy(Fr32::mul_lazy(x, load_elem(p.src_b, g)), load_elem(p.src_c, g));
    tile_put(sh, si, x);
  }
}

// Butterfly number b of stage u: shared indices i0 < i1 and twiddle exponent j.
PROOFLAB_HDI void butterfly_index(const PassArgs& p, std::uint32_t h_log, std::uint32_t b,
                                  std::uint32_t& i0, std::uint32_t& i1, std::uint32_t& j) {
  const std::uint32_t u = b & ((1u << p.log_c) - 1), w = b >> p.log_c;
  j = w & ((1u << h_log) - 1);
  const std::uint32_t m0 = ((w >> h_log) << (h_log + 1)) + j;
  i0 = (m0 << p.log_c) + u;
  i1 = i0 + (1u << (h_log + p.log_c));
}

// Stage u (0-based within the pass): half-size h = 2^(s-u-1) in set positions; butterfly
// (x, y) -> (x + y, (x - y)·ω_{2h}^j). Two butterflies per iteration give ptxas two
// independent multiplications to interleave.
PROOFLAB_HDI void pass_stage(const PassArgs& p, std::uint32_t u, std::uint32_t tid,
                             const Tile& sh) {
  const std::uint32_t half_count = 1u << (p.log_elems() - 1);
  const std::uint32_t h_log = p.s - u - 1;
  const std::uint32_t tw_shift = p.radix_log - p.s + u;  // ω_{2h} = ω_{2^radix_log}^(2^tw_shift)
  const bool twiddled = h_log > 0;                       // the last stage's twiddle is 1
  for (std::uint32_t b0 = tid; b0 < half_count; b0 += 2 * p.threads) {
    const std::uint32_t b1 = b0 + p.threads;
    const bool second = b1 < half_count;
    std::uint32_t i00, i01, j0, i10 = 0, i11 = 0, j1 = 0;
    butterfly_index(p, h_log, b0, i00, i01, j0);
    if (second) butterfly_index(p, h_log, b1, i10, i11, j1);
    const Fr32 x0 = tile_get(sh, i00), y0 = tile_get(sh, i01);
    Fr32 x1, y1;
    if (second) x1 = tile_get(sh, i10), y1 = tile_get(sh, i11);
    Fr32 d0 = Fr32::sub_lazy(x0, y0), d1;
    if (second) d1 = Fr32::sub_lazy(x1, y1);
    if (twiddled) {
      d0 = Fr32::mul_lazy(load_table(p.radix, j0 << tw_shift), d0);
      if (second) d1 = Fr32::mul_lazy(load_table(p.radix, j1 << tw_shift), d1);
    }
    tile_put(sh, i00, Fr32::add_lazy(x0, y0));
    tile_put(sh, i01, d0);
    if (second) {
      tile_put(sh, i10, Fr32::add_lazy(x1, y1));
      tile_put(sh, i11, d1);
    }
  }
}

// Stages u and u+1 at once (u + 1 < s): each thread takes groups of four set positions
// m0, m0+q, m0+h, m0+h+q (h = 2^(s-u-1), q = h/2, m0 mod 2h = j < q), runs stage u's two
// butterflies (m0, m0+h) and (m0+q, m0+h+q) with twiddles ω_{2h}^j and ω_{2h}^(j+q), then
// stage u+1's (m0, m0+q) and (m0+h, m0+h+q) with ω_{2q}^j = ω_{2h}^(2j), in registers: half
// the shared-memory traffic and half the barriers of two pass_stage calls. A twiddle ω^0 = 1
// is not multiplied: for j = 0 three of the four multiplications go (all groups when q = 1).
PROOFLAB_HDI void pass_stage_pair(const PassArgs& p, std::uint32_t u, std::uint32_t tid,
                                  const Tile& sh) {
  const std::uint32_t log_groups = p.log_elems() - 2;
  const std::uint32_t group_count = 1u << log_groups;
  const std::uint32_t h_log = p.s - u - 1, q_log = h_log - 1;
  const std::uint32_t tw_shift = p.radix_log - p.s + u;  // ω_{2h}^j = radix[j << tw_shift]
  const std::uint32_t c_mask = (1u << p.log_c) - 1;
  for (std::uint32_t g = tid; g < group_count; g += p.threads) {
    // g = (j, top, uc) twiddle-major or (top, j, uc) position-major; top < 2^u numbers the
    // 2h-blocks of a set.
    std::uint32_t j, top;
    const std::uint32_t uc = g & c_mask;
    if (p.twiddle_major) {
      const std::uint32_t rest_log = log_groups - q_log;  // = log_c + u
      j = g >> rest_log;
      top = (g & ((1u << rest_log) - 1)) >> p.log_c;
    } else {
      const std::uint32_t w = g >> p.log_c;
      j = w & ((1u << q_log) - 1);
      top = w >> q_log;
    }
    const bool j0 = j == 0;
    const std::uint32_t m0 = (top << (h_log + 1)) + j;
    const std::uint32_t i0 = (m0 << p.log_c) + uc, iq = i0 + (1u << (q_log + p.log_c));
    const std::uint32_t ih = i0 + (1u << (h_log + p.log_c)), ihq = ih + (1u << (q_log + p.log_c));
    // Sums and differences first, so that no more than four elements are live at once.
    Fr32 a = tile_get(sh, i0), c = tile_get(sh, ih);
    const Fr32 sac = Fr32::add_lazy(a, c);
    Fr32 dac = Fr32::sub_lazy(a, c);
    a = tile_get(sh, iq), c = tile_get(sh, ihq);
    const Fr32 sbd = Fr32::add_lazy(a, c);
    Fr32 dbd =
        Fr32::mul_lazy(load_table(p.radix, (j + (1u << q_log)) << tw_shift), Fr32::sub_lazy(a, c));
    if (!j0) dac = Fr32::mul_lazy(load_table(p.radix, j << tw_shift), dac);
    Fr32 e = Fr32::sub_lazy(sac, sbd), f = Fr32::sub_lazy(dac, dbd);
    if (!j0) {  // q = 1 implies j = 0
      const Fr32 tw = load_table(p.radix, j << (tw_shift + 1));
      e = Fr32::mul_lazy(tw, e);
      f = Fr32::mul_lazy(tw, f);
    }
    tile_put(sh, i0, Fr32::add_lazy(sac, sbd));
    tile_put(sh, iq, e);
    tile_put(sh, ih, Fr32::add_lazy(dac, dbd));
    tile_put(sh, ihq, f);
  }
}

// The last stage of a pass on its own (h = 1, twiddle 1): butterflies (m, m+1), m even. What
// an odd s leaves after the pairs; no multiplication, so it needs few registers.
PROOFLAB_HDI void pass_stage_last(const PassArgs& p, std::uint32_t tid, const Tile& sh) {
  const std::uint32_t half_count = 1u << (p.log_elems() - 1);
  const std::uint32_t c_mask = (1u << p.log_c) - 1;
  for (std::uint32_t b = tid; b < half_count; b += p.threads) {
    const std::uint32_t i0 = (((b >> p.log_c) << 1) << p.log_c) + (b & c_mask),
                        i1 = i0 + (1u << p.log_c);
    const Fr32 x = tile_get(sh, i0), y = tile_get(sh, i1);
    tile_put(sh, i0, Fr32::add_lazy(x, y));
    tile_put(sh, i1, Fr32::sub_lazy(x, y));
  }
}

// The stages of a pass between the load and the store, with `barrier` called after each
// shared-memory round trip (__syncthreads in the kernel, a no-op in the simulator, which runs
// every thread of one step before the next). kPaired (= p.paired_stages, a template argument
// so that the kernel built for pairs carries no register-hungrier single-stage loop): pairs,
// then an odd last stage alone; else one stage per round trip.
template <bool kPaired, class EachThread, class Barrier>
PROOFLAB_HDI void pass_stages(const PassArgs& p, EachThread&& each_thread, Barrier&& barrier) {
  if constexpr (kPaired) {
    std::uint32_t u = 0;
    for (; u + 1 < p.s; u += 2) {
      each_thread([&](std::uint32_t tid, const Tile& sh) { pass_stage_pair(p, u, tid, sh); });
      barrier();
    }
    if (u < p.s) {
      each_thread([&](std::uint32_t tid, const Tile& sh) { pass_stage_last(p, tid, sh); });
      barrier();
    }
  } else {
    for (std::uint32_t u = 0; u < p.s; ++u) {
      each_thread([&](std::uint32_t tid, const Tile& sh) { pass_stage(p, u, tid, sh); });
      barrier();
    }
  }
}

PROOFLAB_HDI void pass_store(const PassArgs& p, std::uint32_t block, std::uint32_t tid,
                             const Tile& sh) {
  const std::uint32_t count = 1u << p.log_elems();
  const std::uint32_t c_mask = (1u << p.log_c) - 1;
  for (std::uint32_t l = tid; l < count; l += p.threads) {
    if (!p.last) {
      std::uint32_t g, si;
      load_index(p, block, l, g, si);
      const std::uint32_t log_d = p.log_n - p.t - p.s;
      const std::uint32_t c = ((block << p.log_c) & ((1u << log_d) - 1)) + (l & c_mask);
      const std::uint32_t cr = c * reverse_bits(l >> p.log_c, p.s);  // cr·2^t < n
      const Fr32 tw = p.pass_coupling ? load_table(p.pass_coupling, g & ((1u << (p.log_n - p.t)) - 1))
                                      : coupling_twiddle(p, cr);
      store_elem(p.dst, g, Fr32::mul_lazy(tw, tile_get(sh, si)));
    } else {
      std::uint32_t g, si, natural;
      if (p.reverse_out) {
        const std::uint32_t u = l & c_mask, j = l >> p.log_c;
        si = (reverse_bits(j, p.s) << p.log_c) + u;
        g = (j << (p.log_n - p.s)) + (block << p.log_c) + u;
        natural = g;
      } else {
        const std::uint32_t m = l & ((1u << p.s) - 1), u = l >> p.s;
        si = (m << p.log_c) + u;
        g = (((block << p.log_c) + u) << p.s) + m;
        natural = reverse_bits(g, p.log_n);
      }
      Fr32 x = tile_get(sh, si);
      if (p.out_mode == kOutScalar)
        x = Fr32::mul_lazy(p.out_scalar, x);
      else if (p.out_mode == kOutTable)
        x = Fr32::mul_lazy(table_power(p.out_table, natural), x);
      store_elem(p.dst, g, x.canonical());
    }
  }
}

}  // namespace prooflab::gpu::ntt
