// Reading a file a user names (an engine config, an experiment file, a proof): a regular
// file of bounded size. A directory, a device such as /dev/zero or /dev/urandom, or a FIFO
// is refused by name before a byte is read, so that a wrong argument is an error instead of
// an empty config (the defaults) or a read that never ends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace prooflab::io {

// TOML inputs are hand-written; anything larger is not one.
inline constexpr std::uintmax_t kMaxTomlBytes = 1 << 20;
// JSON records prooflab writes (public inputs, experiment.json): far above any real one.
inline constexpr std::uintmax_t kMaxJsonBytes = 256ull << 20;

// The whole file. Throws std::runtime_error "<what> <path>: <reason>".
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uintmax_t max_bytes);

}  // namespace prooflab::io
