#include "core/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace prooflab::io {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& path, const std::string& what, int err) {
  throw FileWriteError("cannot write " + path.string() + ": " + what + ": " + std::strerror(err));
}

// Writes the parts to a fresh temporary beside `path`; returns its name.
fs::path write_temporary(const fs::path& path, std::initializer_list<std::string_view> parts) {
  static std::atomic<unsigned> counter{0};
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "cannot create " + tmp.filename().string(), errno);
  auto abandon = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, what, err);
  };
  for (std::string_view part : parts) {
    while (!part.empty()) {
      const ssize_t n = ::write(fd, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) abandon("write", n < 0 ? errno : ENOSPC);
      part.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "close", err);
  }
  return tmp;
}

}  // namespace

void write_file_atomically(const fs::path& path, std::initializer_list<std::string_view> parts) {
  const fs::path tmp = write_temporary(path, parts);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "rename", err);
  }
}

bool create_file_atomically(const fs::path& path, std::initializer_list<std::string_view> parts) {
  const fs::path tmp = write_temporary(path, parts);
  const int rc = ::link(tmp.c_str(), path.c_str());
  const int err = errno;
  ::unlink(tmp.c_str());
  if (rc == 0) return true;
  if (err == EEXIST) return false;
  fail(path, "link", err);
}

}  // namespace prooflab::io
