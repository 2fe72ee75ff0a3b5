#include "core/circuits/sha256.hpp"

#include <cassert>

#include "core/circuits/sha256_native.hpp"

namespace prooflab::circuits {

namespace {

using r1cs::Scope;

// A word that is either known as bits or still a list of operands whose sum mod 2^32 it is
// (bellman's Maybe): the new a and e of a round are only added up when next used, so the
// additions of temp1 fold into them.
class DeferredWord {
 public:
  explicit DeferredWord(const UInt32& concrete) : ops_{concrete}, n_(1), concrete_(true) {}
  DeferredWord(std::initializer_list<UInt32> ops) : n_(0), concrete_(false) {
    for (const UInt32& op : ops) ops_[n_++] = op;
  }

  UInt32 compute(MultiEq& eq, std::span<const UInt32> extra, Annotation annotation) const {
    if (concrete_ && extra.empty()) return ops_[0];
    std::array<UInt32, 10> all;
    unsigned n = 0;
    for (unsigned i = 0; i < n_; ++i) all[n++] = ops_[i];
    for (const UInt32& op : extra) all[n++] = op;
    return UInt32::addmany(eq, std::span<const UInt32>(all.data(), n), annotation);
  }

 private:
  std::array<UInt32, 8> ops_;
  unsigned n_;
  bool concrete_;
};

// x.rotr(r0) ^ x.rotr(r1) ^ third, the shape of every Σ/σ function.
UInt32 triple_xor(ConstraintSystem& cs, const UInt32& x, unsigned r0, unsigned r1,
                  const UInt32& third, Annotation first, Annotation second) {
  return x.rotr(r0).xor_with(cs, x.rotr(r1), first).xor_with(cs, third, second);
}

}  // namespace

std::array<UInt32, 8> sha256_iv() {
  std::array<UInt32, 8> iv;
  for (unsigned i = 0; i < 8; ++i) iv[i] = UInt32::constant(kSha256Iv[i]);
  return iv;
}

std::array<Boolean, 256> sha256_state_bits_be(std::span<const UInt32, 8> state) {
  std::array<Boolean, 256> out;
  for (unsigned i = 0; i < 8; ++i) {
    const auto be = state[i].bits_be();
    for (unsigned j = 0; j < 32; ++j) out[32 * i + j] = be[j];
  }
  return out;
}

std::array<UInt32, 8> sha256_compression(ConstraintSystem& cs, std::span<const Boolean, 512> block,
                                         std::span<const UInt32, 8> state, unsigned rounds) {
  assert(rounds >= 1 && rounds <= 64);
  Scope scope(cs, "sha256");
  std::array<UInt32, 64> w;
  for (unsigned i = 0; i < 16; ++i) w[i] = UInt32::from_bits_be(block.subspan(32 * i).first<32>());

  MultiEq eq(cs);
  for (unsigned i = 16; i < rounds; ++i) {
    const UInt32 s0 = triple_xor(cs, w[i - 15], 7, 18, w[i - 15].shr(3), {"w[{}]/s0 xor 1", i},
                                 {"w[{}]/s0 xor 2", i});
    const UInt32 s1 = triple_xor(cs, w[i - 2], 17, 19, w[i - 2].shr(10), {"w[{}]/s1 xor 1", i},
                                 {"w[{}]/s1 xor 2", i});
    const UInt32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
    w[i] = UInt32::addmany(eq, ops, {"w[{}]/sum bit", i});
  }

  DeferredWord a(state[0]), e(state[4]);
  UInt32 b = state[1], c = state[2], d = state[3];
  UInt32 f = state[5], g = state[6], h = state[7];
  for (unsigned i = 0; i < rounds; ++i) {
    const UInt32 new_e = e.compute(eq, {}, {"round {}/e sum bit", i});
    const UInt32 s1 = triple_xor(cs, new_e, 6, 11, new_e.rotr(25), {"round {}/S1 xor 1", i},
                                 {"round {}/S1 xor 2", i});
    const UInt32 ch = UInt32::sha256_ch(cs, new_e, f, g, {"round {}/ch", i});
    const UInt32 k = UInt32::constant(kSha256RoundConstants[i]);

    const UInt32 new_a = a.compute(eq, {}, {"round {}/a sum bit", i});
    const UInt32 s0 = triple_xor(cs, new_a, 2, 13, new_a.rotr(22), {"round {}/S0 xor 1", i},
                                 {"round {}/S0 xor 2", i});
    const UInt32 maj = UInt32::sha256_maj(cs, new_a, b, c, {"round {}/maj", i});

    // temp1 = h + S1 + ch + K[i] + w[i]; e' = d + temp1; a' = temp1 + S0 + maj
    e = DeferredWord{h, s1, ch, k, w[i], d};
    a = DeferredWord{h, s1, ch, k, w[i], s0, maj};
    h = g;
    g = f;
    f = new_e;
    d = c;
    c = b;
    b = new_a;
  }

  // The final additions in bellman's order (h0 .. h7), which fixes the MultiEq grouping.
  std::array<UInt32, 8> out;
  const UInt32* const working[8] = {nullptr, &b, &c, &d, nullptr, &f, &g, &h};
  for (unsigned i = 0; i < 8; ++i) {
    const Annotation label("h{} sum bit", i);
    if (i == 0 || i == 4) {
      out[i] = (i == 0 ? a : e).compute(eq, std::span<const UInt32>(&state[i], 1), label);
    } else {
      const UInt32 ops[2] = {state[i], *working[i]};
      out[i] = UInt32::addmany(eq, ops, label);
    }
  }
  return out;
}

}  // namespace prooflab::circuits
