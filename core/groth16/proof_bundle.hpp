// What `prooflab prove` writes and `prooflab verify` reads: DIR/proof.bin (the partitions'
// 192-byte proofs back to back, the reference's layout) and DIR/public_inputs.json (the
// circuit, its size, the shape hash of the key, its H basis when not monomial, and each
// partition's public inputs as canonical big-endian hex).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/field/fr.hpp"
#include "core/groth16/h_basis.hpp"
#include "core/groth16/proof.hpp"

namespace prooflab::groth16 {

struct ProofBundle {
  std::string circuit;
  std::uint64_t constraints = 0;
  std::uint64_t shape_hash = 0;
  std::vector<Proof> proofs;                 // one per partition
  std::vector<std::vector<field::Fr>> public_inputs;  // one list per partition (without ONE)
  // The key's H basis, so that verify loads the parameter file the proofs were made with;
  // written only for a coset key ("h_basis": "coset" or "coset_fold_c"), absent means monomial.
  HBasis h_basis = HBasis::kMonomial;
};

// Each file is written whole or not at all; throws io::FileWriteError naming the file.
void write_proof_bundle(const std::filesystem::path& dir, const ProofBundle& b);
// Throws std::runtime_error naming the file and the problem (size not a multiple of 192,
// JSON key missing, hex not canonical, partition counts that disagree, a point that fails
// to decode).
ProofBundle read_proof_bundle(const std::filesystem::path& proof_file,
                              const std::filesystem::path& inputs_file);

std::string fr_to_hex(const field::Fr& x);
field::Fr fr_from_hex(const std::string& hex, const std::string& where);

}  // namespace prooflab::groth16
