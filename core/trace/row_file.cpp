#include "core/trace/row_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace prooflab::trace {

RowFile::RowFile(std::filesystem::path path, std::string_view header) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot create " + path_.string() + ": " + std::strerror(errno));
  if (!append(header)) {
    const std::string why = error_;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("cannot write " + why);
  }
}

RowFile::~RowFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool RowFile::append(std::string_view rows) {
  auto count_rows = [](std::string_view text) {
    return static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
  };
  if (failed()) {
    dropped_rows_ += count_rows(rows);
    return false;
  }
  std::size_t written = 0;
  while (written < rows.size()) {
    const ssize_t n = ::write(fd_, rows.data() + written, rows.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = path_.string() + ": " + std::strerror(n < 0 ? errno : ENOSPC);
      // Keep the complete rows that did fit and cut the partial one: a reader never sees
      // half a row.
      const std::size_t last_newline = rows.substr(0, written).rfind('\n');
      const std::size_t keep = last_newline == std::string_view::npos ? 0 : last_newline + 1;
      good_bytes_ += static_cast<off_t>(keep);
      if (::ftruncate(fd_, good_bytes_) != 0)
        error_ += " (and the partial row could not be cut: " + std::string(std::strerror(errno)) + ")";
      dropped_rows_ += count_rows(rows.substr(keep));
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  good_bytes_ += static_cast<off_t>(rows.size());
  return true;
}

std::string RowFile::error() const {
  if (!failed()) return {};
  return error_ + "; " + std::to_string(dropped_rows_) + " rows not written";
}

}  // namespace prooflab::trace
