#include "core/text/parse.hpp"

#include <cctype>
#include <map>

namespace prooflab::text {

std::string excerpt(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars)) + "... (" + std::to_string(text.size()) +
         " characters in all)";
}

std::uint64_t parse_bytes(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  const std::string digits(text.substr(0, i)), unit(text.substr(i));
  static const std::map<std::string, std::uint64_t> units = {
      {"", 1},          {"B", 1},
      {"K", 1ull << 10}, {"KiB", 1ull << 10}, {"KB", 1ull << 10},
      {"M", 1ull << 20}, {"MiB", 1ull << 20}, {"MB", 1ull << 20},
      {"G", 1ull << 30}, {"GiB", 1ull << 30}, {"GB", 1ull << 30},
      {"T", 1ull << 40}, {"TiB", 1ull << 40}, {"TB", 1ull << 40}};
  const auto it = units.find(unit);
  if (digits.empty() || it == units.end())
    throw ParseError("bad value '" + excerpt(text) + "' (accepted: " + std::string(kByteCountAccepted) +
                     ")");
  // The range is stated in the unit the user wrote, so '99999999999TiB' reads as too large
  // rather than as a complaint about the number 99999999999.
  const std::uint64_t most = (~0ull) / it->second;
  auto out_of_range = [&] {
    throw ParseError("'" + excerpt(text) + "' is out of range (at most " + std::to_string(most) + unit +
                     ", 2^64 - 1 bytes)");
  };
  std::uint64_t x = 0;
  try {
    x = std::stoull(digits);
  } catch (const std::out_of_range&) {
    out_of_range();
  }
  if (x > most) out_of_range();
  return x * it->second;
}

}  // namespace prooflab::text
