// Progress of an experiment: runs done / total, the current cell / variant / repetition,
// elapsed time and an ETA from the mean time of the runs executed in this session. On a
// terminal one line, redrawn every second; otherwise one line per finished run (logs, CI).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace prooflab::harness {

class ExperimentProgress {
 public:
  // tty: redraw a single line on `out`; else print one line per finished run to `out`.
  ExperimentProgress(std::size_t total, bool tty, std::FILE* out);
  ~ExperimentProgress();
  ExperimentProgress(const ExperimentProgress&) = delete;
  ExperimentProgress& operator=(const ExperimentProgress&) = delete;

  // Runs found complete on disk: counted as done, left out of the ETA.
  void skipped(std::size_t n);
  void start(const std::string& label);
  void finish(const std::string& label, const std::string& status, double seconds,
              const std::string& detail);
  // A line that stays (the terminal line is redrawn below it).
  void note(const std::string& text);
  void close();

  static std::string duration(double seconds);  // 0:07, 12:34, 1:02:03

 private:
  std::string status_line_locked() const;
  void draw_locked();
  void ticker();

  const std::size_t total_;
  const bool tty_;
  std::FILE* out_;
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point run_t0_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::size_t done_ = 0, executed_ = 0;
  double executed_seconds_ = 0;
  std::string current_;
  bool closed_ = false;
  std::thread thread_;
};

}  // namespace prooflab::harness
