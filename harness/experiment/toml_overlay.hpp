// A config overlay: a copy of a base TOML file (e.g. cuzk.toml) with some key paths set,
// which the external command is pointed at, so that each variant runs the prover with its
// own config without touching the user's file.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace prooflab::harness {

class OverlayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The base file's text with every (key path, TOML value) set: `gpus.gpu_threads` = `32`
// sets gpu_threads in [gpus], creating the tables that are missing. Throws OverlayError
// naming the file and the key path when the base does not parse or a path runs through a
// value that is not a table.
std::string overlay_toml(const std::filesystem::path& base,
                         const std::vector<std::pair<std::string, std::string>>& overlay);

}  // namespace prooflab::harness
