// libFuzzer target for the parameter-file reader (core/groth16/param_file.cpp): the header,
// the section table and the points behind it. Each input is a file image whose checksums
// are recomputed before it is read, so that mutations reach the section table and the
// points instead of stopping at the checksum (which anyone crafting a file can recompute).
// Every input must be read or refused with a ParamFileError; a crash, an out-of-bounds read
// (AddressSanitizer), any other exception or an allocation beyond -rss_limit_mb is a defect.
//
// Seed: tests/data/param_file_seed.params. Run: docs/faults.md ("Parameter files").
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/groth16/param_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static prooflab::parallel::ThreadPool pool(1, "fuzz");
  std::vector<std::uint8_t> image(data, data + size);
  prooflab::groth16::reseal_param_bytes(image);
  try {
    (void)prooflab::groth16::read_param_bytes(image, "fuzz.params", pool);
  } catch (const prooflab::groth16::ParamFileError&) {
    // A refusal is the expected outcome for almost every input.
  }
  return 0;
}
