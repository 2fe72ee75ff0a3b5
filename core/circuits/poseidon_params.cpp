#include "core/circuits/poseidon_params.hpp"

#include <cstring>
#include <vector>

#include "core/circuits/sha256_native.hpp"

namespace prooflab::circuits {

namespace {

Fr round_constant(std::uint32_t k) {
  const std::size_t seed_len = std::strlen(PoseidonParams::kConstantsSeed);
  std::vector<std::uint8_t> msg(PoseidonParams::kConstantsSeed,
                                PoseidonParams::kConstantsSeed + seed_len);
  for (int shift = 24; shift >= 0; shift -= 8) msg.push_back(static_cast<std::uint8_t>(k >> shift));
  std::array<std::uint8_t, 32> digest = sha256(msg);
  digest[0] &= 0x3f;  // < 2^254 < r
  return *Fr::from_bytes_be(digest);
}

PoseidonParams generate() {
  PoseidonParams p;
  std::uint32_t k = 0;
  for (auto& round : p.round_constants)
    for (auto& c : round) c = round_constant(k++);
  for (std::size_t i = 0; i < PoseidonParams::kWidth; ++i)
    for (std::size_t j = 0; j < PoseidonParams::kWidth; ++j)
      p.mds[i][j] = Fr::from_u64(i + 3 + j).inverse();
  return p;
}

Fr pow5(const Fr& x) {
  const Fr x2 = x.square();
  return x2.square() * x;
}

}  // namespace

const PoseidonParams& poseidon_params() {
  static const PoseidonParams params = generate();
  return params;
}

void poseidon_permute(std::array<Fr, 3>& state) {
  const PoseidonParams& p = poseidon_params();
  for (std::size_t r = 0; r < PoseidonParams::kRounds; ++r) {
    for (std::size_t i = 0; i < 3; ++i) state[i] += p.round_constants[r][i];
    if (PoseidonParams::is_full_round(r)) {
      for (auto& x : state) x = pow5(x);
    } else {
      state[0] = pow5(state[0]);
    }
    std::array<Fr, 3> mixed;
    for (std::size_t i = 0; i < 3; ++i)
      mixed[i] = p.mds[i][0] * state[0] + p.mds[i][1] * state[1] + p.mds[i][2] * state[2];
    state = mixed;
  }
}

Fr poseidon_hash2(const Fr& left, const Fr& right) {
  std::array<Fr, 3> state = {Fr::from_u64(PoseidonParams::kDomainTag2to1), left, right};
  poseidon_permute(state);
  return state[1];
}

}  // namespace prooflab::circuits
