#include "core/groth16/proof.hpp"

#include "core/curve/serialize.hpp"

namespace prooflab::groth16 {

std::array<std::uint8_t, kProofBytes> serialize_proof(const Proof& proof) {
  std::array<std::uint8_t, kProofBytes> out{};
  std::span<std::uint8_t, kProofBytes> s(out);
  curve::g1_to_compressed(proof.a, s.subspan<0, 48>());
  curve::g2_to_compressed(proof.b, s.subspan<48, 96>());
  curve::g1_to_compressed(proof.c, s.subspan<144, 48>());
  return out;
}

Proof deserialize_proof(std::span<const std::uint8_t, kProofBytes> bytes) {
  auto with_name = [](const char* element, auto&& decode) {
    try {
      return decode();
    } catch (const curve::DecodeError& e) {
      throw curve::DecodeError(e.kind(), std::string("proof element ") + element + ": " + e.what());
    }
  };
  Proof p;
  p.a = with_name("A", [&] { return curve::g1_from_compressed(bytes.subspan<0, 48>()); });
  p.b = with_name("B", [&] { return curve::g2_from_compressed(bytes.subspan<48, 96>()); });
  p.c = with_name("C", [&] { return curve::g1_from_compressed(bytes.subspan<144, 48>()); });
  return p;
}

}  // namespace prooflab::groth16
