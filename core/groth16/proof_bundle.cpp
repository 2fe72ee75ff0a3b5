#include "core/groth16/proof_bundle.hpp"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/curve/serialize.hpp"
#include "core/io/atomic_file.hpp"

namespace prooflab::groth16 {

namespace fs = std::filesystem;
using field::Fr;

std::string fr_to_hex(const Fr& x) {
  std::array<std::uint8_t, 32> b;
  x.to_bytes_be(b);
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (auto v : b) {
    s += digits[v >> 4];
    s += digits[v & 15];
  }
  return s;
}

Fr fr_from_hex(const std::string& hex, const std::string& where) {
  std::string h = hex.rfind("0x", 0) == 0 ? hex.substr(2) : hex;
  if (h.empty() || h.size() > 64 || h.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw std::runtime_error(where + ": '" + hex + "' is not a hex field element");
  h = std::string(64 - h.size(), '0') + h;
  std::array<std::uint8_t, 32> b;
  for (std::size_t i = 0; i < 32; ++i) b[i] = static_cast<std::uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
  const auto v = Fr::from_bytes_be(b);
  if (!v) throw std::runtime_error(where + ": '" + hex + "' is not below the field modulus r");
  return *v;
}

void write_proof_bundle(const fs::path& dir, const ProofBundle& b) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw io::FileWriteError("cannot create " + dir.string() + ": " + ec.message());
  std::string proofs;
  for (const auto& p : b.proofs) {
    const auto bytes = serialize_proof(p);
    proofs.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  nlohmann::json j;
  j["circuit"] = b.circuit;
  j["constraints"] = b.constraints;
  j["shape_hash"] = b.shape_hash;
  j["partitions"] = b.proofs.size();
  j["public_inputs"] = nlohmann::json::array();
  for (const auto& list : b.public_inputs) {
    auto arr = nlohmann::json::array();
    for (const auto& x : list) arr.push_back(fr_to_hex(x));
    j["public_inputs"].push_back(arr);
  }
  // Inputs first: a proof.bin is only ever there beside the inputs that go with it; a
  // bundle that cannot be written whole leaves no directory behind.
  try {
    io::write_file_atomically(dir / "public_inputs.json", {j.dump(2) + "\n"});
    io::write_file_atomically(dir / "proof.bin", {proofs});
  } catch (const io::FileWriteError&) {
    fs::remove_all(dir, ec);
    throw;
  }
}

ProofBundle read_proof_bundle(const fs::path& proof_file, const fs::path& inputs_file) {
  ProofBundle b;
  std::ifstream in(inputs_file);
  if (!in) throw std::runtime_error("cannot open " + inputs_file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
    b.circuit = j.at("circuit").get<std::string>();
    b.constraints = j.at("constraints").get<std::uint64_t>();
    b.shape_hash = j.at("shape_hash").get<std::uint64_t>();
    const auto& lists = j.at("public_inputs");
    for (std::size_t p = 0; p < lists.size(); ++p) {
      std::vector<Fr> xs;
      for (std::size_t i = 0; i < lists[p].size(); ++i)
        xs.push_back(fr_from_hex(lists[p][i].get<std::string>(),
                                 inputs_file.string() + ": public_inputs[" + std::to_string(p) +
                                     "][" + std::to_string(i) + "]"));
      b.public_inputs.push_back(std::move(xs));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(inputs_file.string() + ": " + e.what());
  }

  std::ifstream pf(proof_file, std::ios::binary);
  if (!pf) throw std::runtime_error("cannot open " + proof_file.string());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(pf)), {});
  if (bytes.size() % kProofBytes != 0)
    throw std::runtime_error(proof_file.string() + ": " + std::to_string(bytes.size()) +
                             " bytes is not a whole number of 192-byte proofs");
  const std::size_t n = bytes.size() / kProofBytes;
  if (n != b.public_inputs.size())
    throw std::runtime_error(proof_file.string() + " holds " + std::to_string(n) +
                             " partition proofs but " + inputs_file.string() + " lists " +
                             std::to_string(b.public_inputs.size()) + " partitions");
  for (std::size_t p = 0; p < n; ++p) {
    try {
      b.proofs.push_back(deserialize_proof(
          std::span<const std::uint8_t, kProofBytes>(bytes.data() + p * 192, 192)));
    } catch (const curve::DecodeError& e) {
      throw std::runtime_error(proof_file.string() + ": partition " + std::to_string(p) + ": " +
                               e.what());
    }
  }
  return b;
}

}  // namespace prooflab::groth16
