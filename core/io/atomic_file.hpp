// Files written whole or not at all. The bytes go to a temporary file beside the target
// (unique per process and call, so concurrent writers never share one), every write and the
// close are checked, and only then is the temporary renamed (or linked) into place. On any
// failure — a full disk, no inodes left, a read-only directory — the temporary is removed
// and the error names the target and the reason; the target is left as it was.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace prooflab::io {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Replaces `path` (or creates it) with the concatenation of `parts`.
void write_file_atomically(const std::filesystem::path& path,
                           std::initializer_list<std::string_view> parts);

// Creates `path` from `parts` unless it exists: returns false, leaving the existing file
// untouched, when another writer got there first (link(2), which never replaces).
bool create_file_atomically(const std::filesystem::path& path,
                            std::initializer_list<std::string_view> parts);

}  // namespace prooflab::io
