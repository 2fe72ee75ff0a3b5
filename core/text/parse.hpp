// Text a user wrote, read the one way every layer reads it: byte counts ("16GiB") for the
// engine's config keys and the harness's flags alike, and the excerpt of bad input that
// error messages quote. Below core/engine and harness/, so neither borrows it from the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace prooflab::text {

// Text that is not what was asked for. what() says why and quotes the text, without the key
// or flag it came from (the caller adds that).
class ParseError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// At most max_chars of text for an error message, marked when cut: a message never carries
// a whole pasted file or a line of binary.
std::string excerpt(std::string_view text, std::size_t max_chars = 200);

// What parse_bytes accepts, as its errors (and the tables of knobs) say it.
inline constexpr std::string_view kByteCountAccepted =
    "a byte count such as 1048576, 512MiB, 16GiB (binary units)";

// "1024", "16GiB", "512MiB", "2G" (binary units) in bytes. Throws ParseError: "bad value
// '<text>' (accepted: ...)" or "'<text>' is out of range (at most ...)".
std::uint64_t parse_bytes(std::string_view text);

}  // namespace prooflab::text
