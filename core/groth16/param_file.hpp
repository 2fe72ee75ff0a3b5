// The Groth16 parameter file: a fixed header (magic, version, curve, circuit sizes, shape
// hash, section table, checksums) followed by the sections VK, IC, H, L, A, B_G1, B_G2 of
// uncompressed Zcash-format points (96 bytes per G1 point, 192 per G2 point), in the order
// of the reference SRS layout. Loading memory-maps the file, verifies the header and the
// body checksum, then decodes the points in parallel (on-curve checked; the subgroup check
// is skipped because the checksum vouches for points this program wrote).
//
// Every refusal names the file and the problem: bad magic, unsupported version, another
// curve, truncated, checksum mismatch, a shape that differs from the expected one. The
// checksums detect accidents, not intent (anyone can recompute them), so every size and
// offset of the section table is checked against the file's length with arithmetic that
// cannot overflow, each section's point size against its type, the sections' order and
// contiguity, and the point counts against the header's circuit sizes: a crafted file is
// refused with the section named, never read out of bounds.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>

#include "core/groth16/keys.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::groth16 {

inline constexpr std::uint32_t kParamFileVersion = 1;

// What the file must describe; a file for another circuit shape is refused.
struct CircuitShape {
  std::uint64_t num_inputs = 0;       // including ONE
  std::uint64_t num_aux = 0;
  std::uint64_t num_constraints = 0;
  std::uint64_t domain_size = 0;
  std::uint64_t shape_hash = 0;       // hash of the constraint matrices
  friend bool operator==(const CircuitShape&, const CircuitShape&) = default;
};

class ParamFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The on-disk layout (little-endian, as written on x86-64 and arm64).
inline constexpr std::size_t kParamSections = 7;
inline constexpr std::array<const char*, kParamSections> kParamSectionNames = {
    "VK", "IC", "H", "L", "A", "B_G1", "B_G2"};
// Bytes per entry of each section: VK is one record of 3 G1 + 3 G2 points.
inline constexpr std::array<std::uint32_t, kParamSections> kParamPointBytes = {
    3 * 96 + 3 * 192, 96, 96, 96, 96, 96, 192};

struct ParamFileSection {
  char name[8];
  std::uint64_t offset;  // from the start of the file
  std::uint64_t count;   // entries
  std::uint32_t point_bytes;
  std::uint32_t basis;  // H: the query's HBasis (0 monomial, 1 coset, 2 coset_fold_c: its m points
                        // then h_inputs; core/groth16/h_basis.hpp); 0 elsewhere
};

struct ParamFileHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;
  char curve[16];
  std::uint64_t num_inputs, num_aux, num_constraints, domain_size, shape_hash;
  ParamFileSection sections[kParamSections];
  std::uint64_t body_checksum;
  std::uint64_t header_checksum;  // of every header byte before this field
};
static_assert(sizeof(ParamFileHeader) % 8 == 0);

enum class IfExists { kReplace, kKeep };
// Writes the file whole or not at all. kKeep never replaces an existing file (another
// process may have written one for the same shape meanwhile) and returns false then.
bool write_param_file(const std::filesystem::path& path, const CircuitShape& shape,
                      const ProvingKey& pk, IfExists if_exists = IfExists::kReplace);

// Reads and validates; `expected` (when given) must match the file's shape.
ProvingKey read_param_file(const std::filesystem::path& path, parallel::ThreadPool& pool,
                           const CircuitShape* expected = nullptr);
// The same on a file's bytes; `path` names it in messages.
ProvingKey read_param_bytes(std::span<const std::uint8_t> file, const std::filesystem::path& path,
                            parallel::ThreadPool& pool, const CircuitShape* expected = nullptr);

// The shape recorded in a file's header (validated), without reading the body.
CircuitShape read_param_file_shape(const std::filesystem::path& path);

// Recomputes both checksums of a file image whose header was edited: how the tests and the
// fuzz target craft files that get past the checksums to the section table.
void reseal_param_bytes(std::span<std::uint8_t> file);

// A fast 64-bit checksum (not cryptographic): detects truncation and corruption.
std::uint64_t checksum64(const std::uint8_t* data, std::size_t size);

}  // namespace prooflab::groth16
