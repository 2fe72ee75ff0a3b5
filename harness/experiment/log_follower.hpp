// Captures what named log files (e.g. a daemon's own log) gain during a run: from the size
// each has when the follower starts, new bytes are appended to a copy in the run directory
// every 100 ms, so the copy holds this run's part of a log that outlives the run, and is on
// disk as the prover writes it. A file that does not exist yet is picked up when it appears
// (from its start); one that shrinks (rotated or truncated) is followed from its new start.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace prooflab::harness {

class LogFollower {
 public:
  // (source file, copy in the run directory) pairs.
  explicit LogFollower(std::vector<std::pair<std::filesystem::path, std::filesystem::path>> files);
  ~LogFollower();
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;
  // A last copy round, then the thread ends. Idempotent.
  void stop();

 private:
  struct Followed {
    std::filesystem::path source, copy;
    std::uintmax_t offset = 0;
  };
  void copy_new_bytes(Followed& f);
  void loop();

  std::vector<Followed> files_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace prooflab::harness
