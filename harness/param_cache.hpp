// The parameter directory: Groth16 parameter files cached by circuit shape, so `prove`,
// `verify` and every batch reuse one setup per shape. Files are named
// <circuit>-<constraints>-<shape hash>.params, or <…>-coset.params for a key whose H query is in
// the coset's Lagrange basis (core/groth16/h_basis.hpp).
#pragma once

#include <filesystem>
#include <string>

#include "core/circuits/circuit.hpp"
#include "core/groth16/keys.hpp"
#include "core/groth16/param_file.hpp"
#include "core/parallel/thread_pool.hpp"

namespace prooflab::harness {

// --param-dir, else $PROOFLAB_PARAM_DIR, else $XDG_CACHE_HOME/prooflab/params, else
// ~/.cache/prooflab/params.
std::filesystem::path default_param_dir();

std::filesystem::path param_file_path(const std::filesystem::path& dir, const std::string& circuit,
                                      std::uint64_t constraints, const groth16::CircuitShape& shape,
                                      groth16::HBasis h_basis = groth16::HBasis::kMonomial);

struct LoadedParams {
  std::filesystem::path path;
  groth16::ProvingKey pk;
  bool generated = false;
};

// Loads the cached file for this shape, or (generate_if_missing) runs setup, writes the file
// and reports the setup rate on stdout. Throws naming the file otherwise, and when the file's
// H query is in another basis than h_basis.
LoadedParams load_or_generate_params(const std::filesystem::path& dir, const std::string& circuit,
                                     std::uint64_t constraints, const r1cs::R1cs& cs,
                                     parallel::ThreadPool& pool, bool generate_if_missing,
                                     std::optional<std::uint64_t> setup_seed,
                                     groth16::HBasis h_basis = groth16::HBasis::kMonomial);

}  // namespace prooflab::harness
