#include "harness/experiment/log_follower.hpp"

#include <chrono>
#include <fstream>

namespace prooflab::harness {

LogFollower::LogFollower(
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files) {
  for (auto& [source, copy] : files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(source, ec);
    files_.push_back({source, copy, ec ? 0 : size});
    std::ofstream(copy, std::ios::binary | std::ios::app);  // present even if nothing comes
  }
  thread_ = std::thread([this] { loop(); });
}

LogFollower::~LogFollower() { stop(); }

void LogFollower::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LogFollower::copy_new_bytes(Followed& f) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(f.source, ec);
  if (ec) return;
  if (size < f.offset) f.offset = 0;
  if (size == f.offset) return;
  std::ifstream in(f.source, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(f.offset));
  std::ofstream out(f.copy, std::ios::binary | std::ios::app);
  char buf[1 << 16];
  std::uintmax_t left = size - f.offset;
  while (left > 0 && in) {
    in.read(buf, static_cast<std::streamsize>(std::min<std::uintmax_t>(left, sizeof buf)));
    const auto n = in.gcount();
    if (n <= 0) break;
    out.write(buf, n);
    left -= static_cast<std::uintmax_t>(n);
    f.offset += static_cast<std::uintmax_t>(n);
  }
}

void LogFollower::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const bool last = stopping_;
    lock.unlock();
    for (auto& f : files_) copy_new_bytes(f);
    lock.lock();
    if (last) return;
    wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stopping_; });
  }
}

}  // namespace prooflab::harness
