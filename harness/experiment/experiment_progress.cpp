#include "harness/experiment/experiment_progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/trace/elapsed.hpp"

namespace prooflab::harness {

namespace {

std::size_t terminal_width(std::FILE* f) {
  winsize ws{};
  if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10) return ws.ws_col;
  return 100;
}

}  // namespace

std::string ExperimentProgress::duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

ExperimentProgress::ExperimentProgress(std::size_t total, bool tty, std::FILE* out)
    : total_(total), tty_(tty), out_(out) {
  if (tty_) thread_ = std::thread([this] { ticker(); });
}

ExperimentProgress::~ExperimentProgress() { close(); }

void ExperimentProgress::close() {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    if (tty_) {
      std::fputs("\r\033[K", out_);
      std::fflush(out_);
    }
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string ExperimentProgress::status_line_locked() const {
  std::string eta = "--";
  if (executed_ > 0) {
    const double mean = executed_seconds_ / static_cast<double>(executed_);
    double left = mean * static_cast<double>(total_ - done_);
    if (!current_.empty()) left -= std::min(trace::seconds_since(run_t0_), mean);
    eta = duration(left);
  }
  return "elapsed " + duration(trace::seconds_since(t0_)) + " | ETA " + eta;
}

void ExperimentProgress::draw_locked() {
  if (!tty_ || closed_) return;
  std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + " done] ";
  if (!current_.empty()) line += current_ + " (" + duration(trace::seconds_since(run_t0_)) + ") | ";
  line += status_line_locked();
  const std::size_t width = terminal_width(out_);
  if (line.size() >= width) line.resize(width - 1);  // a wrapped line cannot be redrawn
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
}

void ExperimentProgress::ticker() {
  std::unique_lock lock(mutex_);
  while (!closed_) {
    draw_locked();
    wake_.wait_for(lock, std::chrono::seconds(1));
  }
}

void ExperimentProgress::skipped(std::size_t n) {
  std::lock_guard lock(mutex_);
  done_ += n;
  if (n > 0 && !tty_) {
    std::fprintf(out_, "resume: %zu of %zu runs already complete, skipped\n", n, total_);
    std::fflush(out_);
  }
  draw_locked();
}

void ExperimentProgress::start(const std::string& label) {
  std::lock_guard lock(mutex_);
  current_ = label;
  run_t0_ = std::chrono::steady_clock::now();
  draw_locked();
}

void ExperimentProgress::finish(const std::string& label, const std::string& status, double seconds,
                                const std::string& detail) {
  std::lock_guard lock(mutex_);
  ++done_;
  ++executed_;
  executed_seconds_ += seconds;
  current_.clear();
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f s", seconds);
  const std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " +
                           label + ": " + status + " in " + secs +
                           (detail.empty() ? "" : " (" + detail + ")");
  if (tty_) {
    // On a terminal only what needs attention stays on screen.
    if (status != "complete") std::fprintf(out_, "\r\033[K%s\n", line.c_str());
    draw_locked();
  } else {
    std::fprintf(out_, "%s | %s\n", line.c_str(), status_line_locked().c_str());
    std::fflush(out_);
  }
}

void ExperimentProgress::note(const std::string& text) {
  std::lock_guard lock(mutex_);
  std::fprintf(out_, "%s%s\n", tty_ ? "\r\033[K" : "", text.c_str());
  std::fflush(out_);
  draw_locked();
}

}  // namespace prooflab::harness
