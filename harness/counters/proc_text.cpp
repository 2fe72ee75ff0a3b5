#include "harness/counters/proc_text.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace prooflab::harness::counters {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// Next whitespace-separated token of s from pos (empty at the end of s).
std::string_view next_token(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && is_blank(s[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < s.size() && !is_blank(s[pos]) && s[pos] != '\n') ++pos;
  return s.substr(start, pos - start);
}

std::optional<std::uint64_t> to_u64(std::string_view t) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::uint64_t> parse_tlb_shootdowns(std::string_view text) {
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    const std::string_view line = text.substr(line_start, line_end - line_start);
    std::size_t pos = 0;
    if (next_token(line, pos) == "TLB:") {
      std::uint64_t sum = 0;
      int columns = 0;
      for (;;) {
        const std::size_t before = pos;
        const std::string_view tok = next_token(line, pos);
        if (tok.empty()) break;
        const auto v = to_u64(tok);
        if (!v) {  // the description starts; it must not be a malformed count
          if (tok.front() >= '0' && tok.front() <= '9') return std::nullopt;
          pos = before;
          break;
        }
        sum += *v;
        ++columns;
      }
      if (columns == 0) return std::nullopt;
      return sum;
    }
    line_start = line_end + 1;
  }
  return std::nullopt;
}

std::optional<FaultCounts> parse_stat_faults(std::string_view stat) {
  const std::size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After "pid (comm)": field 3 is the state; minflt is field 10, majflt field 12.
  std::size_t pos = close + 1;
  std::optional<std::uint64_t> minflt, majflt;
  for (int field = 3; field <= 12; ++field) {
    const std::string_view tok = next_token(stat, pos);
    if (tok.empty()) return std::nullopt;
    if (field == 10) minflt = to_u64(tok);
    if (field == 12) majflt = to_u64(tok);
  }
  if (!minflt || !majflt) return std::nullopt;
  return FaultCounts{*minflt, *majflt};
}

std::optional<std::uint64_t> parse_statm_resident_pages(std::string_view statm) {
  std::size_t pos = 0;
  if (next_token(statm, pos).empty()) return std::nullopt;  // size
  return to_u64(next_token(statm, pos));
}

std::optional<std::string> read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return out;
}

}  // namespace prooflab::harness::counters
