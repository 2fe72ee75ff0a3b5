#include "core/groth16/proof_bundle.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/curve/serialize.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/input_file.hpp"

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
    throw std::runtime_error(where + ": " +
                             (hex.size() > 66 ? std::to_string(hex.size()) + " characters"
                                              : "'" + hex + "'") +
                             " is not a hex field element");
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
  if (b.h_basis != HBasis::kMonomial) j["h_basis"] = h_basis_name(b.h_basis);
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

namespace {

// public_inputs.json checked key by key, so a wrong file says which key is wrong instead of
// a library message.
void read_inputs_json(const fs::path& file, ProofBundle& b) {
  const std::string where = file.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(io::read_input_file(file, "public inputs", io::kMaxJsonBytes));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(where + ": not JSON (syntax error at byte " + std::to_string(e.byte) + ")");
  }
  auto fail = [&](const std::string& what) { throw std::runtime_error(where + ": " + what); };
  if (!j.is_object()) fail("expected a JSON object with circuit, constraints, shape_hash, public_inputs");
  auto member = [&](const char* key) -> const nlohmann::json& {
    if (!j.contains(key)) fail(std::string("key '") + key + "' is missing");
    return j[key];
  };
  const auto& circuit = member("circuit");
  if (!circuit.is_string()) fail("key 'circuit' must be a string");
  b.circuit = circuit.get<std::string>();
  for (auto [key, slot] : {std::pair{"constraints", &b.constraints}, std::pair{"shape_hash", &b.shape_hash}}) {
    const auto& v = member(key);
    if (!v.is_number_unsigned()) fail(std::string("key '") + key + "' must be an unsigned integer");
    *slot = v.get<std::uint64_t>();
  }
  if (j.contains("h_basis")) {
    const auto& basis = j["h_basis"];
    bool known = false;
    for (const HBasis h : {HBasis::kMonomial, HBasis::kCosetLagrange, HBasis::kCosetFoldedC})
      if (basis.is_string() && basis.get<std::string>() == h_basis_name(h)) b.h_basis = h, known = true;
    if (!known) fail("key 'h_basis' must be \"monomial\", \"coset\" or \"coset_fold_c\"");
  }
  const auto& lists = member("public_inputs");
  if (!lists.is_array()) fail("key 'public_inputs' must be an array (one list per partition)");
  for (std::size_t p = 0; p < lists.size(); ++p) {
    const std::string at = "public_inputs[" + std::to_string(p) + "]";
    if (!lists[p].is_array()) fail(at + " must be an array of hex strings");
    std::vector<Fr> xs;
    for (std::size_t i = 0; i < lists[p].size(); ++i) {
      const auto& x = lists[p][i];
      if (!x.is_string()) fail(at + "[" + std::to_string(i) + "] must be a hex string");
      xs.push_back(fr_from_hex(x.get<std::string>(), where + ": " + at + "[" + std::to_string(i) + "]"));
    }
    b.public_inputs.push_back(std::move(xs));
  }
}

}  // namespace

ProofBundle read_proof_bundle(const fs::path& proof_file, const fs::path& inputs_file) {
  ProofBundle b;
  read_inputs_json(inputs_file, b);
  // 192 bytes per partition, at most the engine's 1000 partitions.
  const std::string data = io::read_input_file(proof_file, "proof file", 1000 * kProofBytes);
  const std::vector<std::uint8_t> bytes(data.begin(), data.end());
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
