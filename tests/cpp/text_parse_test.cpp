// core/text/parse.hpp: byte counts as users write them, and the errors that quote them.
#include <gtest/gtest.h>

#include <string>

#include "core/text/parse.hpp"

namespace prooflab::text {
namespace {

TEST(ParseBytes, BinaryUnits) {
  EXPECT_EQ(parse_bytes("0"), 0u);
  EXPECT_EQ(parse_bytes("1048576"), 1048576u);
  EXPECT_EQ(parse_bytes("512B"), 512u);
  EXPECT_EQ(parse_bytes("4K"), 4u * 1024);
  EXPECT_EQ(parse_bytes("4KB"), 4u * 1024);
  EXPECT_EQ(parse_bytes("512MiB"), 512ull * 1024 * 1024);
  EXPECT_EQ(parse_bytes("2G"), 2ull * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("16GiB"), 16ull * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("3TB"), 3ull * 1024 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("18446744073709551615"), 18446744073709551615ull);
}

std::string error_of(const std::string& text) {
  try {
    parse_bytes(text);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ParseBytes, BadTextIsAnErrorQuotingIt) {
  for (const char* bad : {"", "GiB", "-1", "1.5GiB", "16 GiB", "16gib", "16XiB"})
    EXPECT_EQ(error_of(bad), std::string("bad value '") + bad +
                                 "' (accepted: a byte count such as 1048576, 512MiB, 16GiB (binary units))");
  // 2^24 TiB is 2^64 bytes: one too many. The range is in the unit written.
  EXPECT_EQ(error_of("16777216TiB"), "'16777216TiB' is out of range (at most 16777215TiB, 2^64 - 1 bytes)");
  EXPECT_EQ(error_of("99999999999999999999"),
            "'99999999999999999999' is out of range (at most 18446744073709551615, 2^64 - 1 bytes)");
}

TEST(Excerpt, CutsLongTextAndSaysHowLong) {
  EXPECT_EQ(excerpt("short"), "short");
  const std::string long_text(250, 'x');
  EXPECT_EQ(excerpt(long_text), std::string(200, 'x') + "... (250 characters in all)");
  EXPECT_EQ(excerpt("abcdef", 3), "abc... (6 characters in all)");
}

}  // namespace
}  // namespace prooflab::text
