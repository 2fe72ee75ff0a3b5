#include "core/io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace prooflab::io {

namespace fs = std::filesystem;

std::string read_input_file(const fs::path& path, std::string_view what, std::uintmax_t max_bytes) {
  const std::string name = std::string(what) + " " + path.string();
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw std::runtime_error(name + ": no such file");
  if (ec) throw std::runtime_error(name + ": " + ec.message());
  if (st.type() == fs::file_type::directory)
    throw std::runtime_error(name + ": is a directory, not a file");
  if (st.type() != fs::file_type::regular)
    throw std::runtime_error(name + ": not a regular file (a device, FIFO or socket)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw std::runtime_error(name + ": " + ec.message());
  if (size > max_bytes)
    throw std::runtime_error(name + ": " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(max_bytes) + " a " + std::string(what) + " may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error(name + ": read error: " + std::strerror(errno));
  return text;
}

}  // namespace prooflab::io
