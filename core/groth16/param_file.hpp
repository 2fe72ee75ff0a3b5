// The Groth16 parameter file: a fixed header (magic, version, curve, circuit sizes, shape
// hash, section table, checksums) followed by the sections VK, IC, H, L, A, B_G1, B_G2 of
// uncompressed Zcash-format points (96 bytes per G1 point, 192 per G2 point), in the order
// of the reference SRS layout. Loading memory-maps the file, verifies the header and the
// body checksum, then decodes the points in parallel (on-curve checked; the subgroup check
// is skipped because the checksum vouches for points this program wrote).
//
// Every refusal names the file and the problem: bad magic, unsupported version, another
// curve, truncated, checksum mismatch, a shape that differs from the expected one.
#pragma once

#include <cstdint>
#include <filesystem>
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

void write_param_file(const std::filesystem::path& path, const CircuitShape& shape,
                      const ProvingKey& pk);

// Reads and validates; `expected` (when given) must match the file's shape.
ProvingKey read_param_file(const std::filesystem::path& path, parallel::ThreadPool& pool,
                           const CircuitShape* expected = nullptr);

// The shape recorded in a file's header (validated), without reading the body.
CircuitShape read_param_file_shape(const std::filesystem::path& path);

// A fast 64-bit checksum (not cryptographic): detects truncation and corruption.
std::uint64_t checksum64(const std::uint8_t* data, std::size_t size);

}  // namespace prooflab::groth16
