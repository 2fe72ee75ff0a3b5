#include "harness/counters/likwid_source.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

namespace prooflab::harness::counters {

namespace {

// write() that turns a closed pipe into an error instead of a process-killing SIGPIPE:
// SIGPIPE is blocked on this thread around the write and a SIGPIPE it raised is consumed.
bool write_all(int fd, const char* data, std::size_t n) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  bool ok = true;
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      break;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  if (!ok && errno == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  return ok;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out.push_back(c);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

}  // namespace

std::string default_likwid_helper() {
  if (const char* env = std::getenv("PROOFLAB_LIKWID_HELPER"); env && *env) return env;
#ifdef PROOFLAB_LIKWID_HELPER
  if (::access(PROOFLAB_LIKWID_HELPER, X_OK) == 0) return PROOFLAB_LIKWID_HELPER;
#endif
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "prooflab-likwid-helper";
  buf[n] = '\0';
  return (std::filesystem::path(buf).parent_path() / "prooflab-likwid-helper").string();
}

LikwidSource::~LikwidSource() { stop(); }

void LikwidSource::drain_log() {
  if (log_ < 0) return;
  char buf[4096];
  for (ssize_t n; (n = ::read(log_, buf, sizeof buf)) > 0;)
    log_text_.append(buf, static_cast<std::size_t>(n));
  constexpr std::size_t kKeep = 2000;
  if (log_text_.size() > 2 * kKeep) log_text_.erase(0, log_text_.size() - kKeep);
}

std::string LikwidSource::log_tail() const {
  std::string s = one_line(log_text_);
  if (s.size() > 600) s = "..." + s.substr(s.size() - 600);
  return s.empty() ? "(nothing)" : s;
}

std::string LikwidSource::read_line(double timeout_s) {
  const auto deadline = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  for (;;) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    if (eof_) return "";
    const std::int64_t left_ns = deadline - monotonic_ns();
    if (left_ns <= 0) return "";
    pollfd fds[2] = {{from_helper_, POLLIN, 0}, {log_, POLLIN, 0}};
    const int r = ::poll(fds, log_ >= 0 ? 2 : 1, static_cast<int>(left_ns / 1'000'000) + 1);
    if (r < 0 && errno != EINTR) {
      eof_ = true;
      return "";
    }
    drain_log();
    if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[4096];
      const ssize_t n = ::read(from_helper_, buf, sizeof buf);
      if (n > 0)
        pending_.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        eof_ = true;
    }
  }
}

std::string LikwidSource::end_helper() {
  if (to_helper_ >= 0) ::close(to_helper_);  // EOF: the helper stops its counters and exits
  to_helper_ = -1;
  std::string how;
  if (pid_ > 0) {
    int status = 0;
    pid_t r = 0;
    // A helper in its read loop ends at once; one still inside likwid gets 0.5 s.
    for (int i = 0; i < 50 && (r = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (r == 0) {
      ::kill(-pid_, SIGKILL);  // the helper's process group: it and anything likwid started
      r = ::waitpid(pid_, &status, 0);
    }
    how = r == pid_ ? describe_wait_status(status) : "not reaped";
    pid_ = -1;
  }
  drain_log();
  for (int* fd : {&from_helper_, &log_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  return how;
}

SourceStatus LikwidSource::start(std::int64_t) {
  const std::string helper = opts_.helper.empty() ? default_likwid_helper() : opts_.helper;
  if (::access(helper.c_str(), X_OK) != 0) {
    status_ = SourceStatus::unavailable("prooflab-likwid-helper not runnable at " + helper + ": " +
                                        std::strerror(errno));
    return status_;
  }
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    status_ = SourceStatus::unavailable(std::string("pipe: ") + std::strerror(errno));
    return status_;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // none of the run's files
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group, so a kill reaches likwid's children
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string arg0 = helper, arg1 = "--skip-preflight";
  char* argv[] = {arg0.data(), opts_.skip_preflight ? arg1.data() : nullptr, nullptr};
  const int rc = posix_spawn(&pid_, helper.c_str(), &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  to_helper_ = in[1];
  from_helper_ = out[0];
  log_ = err[0];
  if (rc != 0) {
    pid_ = -1;
    end_helper();
    status_ = SourceStatus::unavailable("cannot start " + helper + ": " + std::strerror(rc));
    return status_;
  }
  ::fcntl(from_helper_, F_SETFL, O_NONBLOCK);
  ::fcntl(log_, F_SETFL, O_NONBLOCK);

  const std::string line = read_line(opts_.init_timeout_s);
  if (line.rfind("ok ", 0) == 0) {
    const std::string rest = line.substr(3);
    const auto bar = rest.rfind('|');
    status_ = SourceStatus::available("likwid MEM group, metric '" + rest.substr(0, bar) +
                                      "' summed over " + rest.substr(bar + 1) +
                                      " hardware threads (prooflab-likwid-helper)");
    return status_;
  }
  if (line.rfind("error ", 0) == 0) {
    end_helper();
    status_ = SourceStatus::unavailable(line.substr(6));
    return status_;
  }
  const bool timed_out = !eof_;
  if (timed_out && pid_ > 0) ::kill(-pid_, SIGKILL);
  const std::string how = end_helper();
  status_ = SourceStatus::unavailable(
      timed_out ? "likwid did not initialise within " + seconds(opts_.init_timeout_s) +
                      " (helper killed); likwid printed: " + log_tail()
                : "prooflab-likwid-helper ended before initialising (" + how +
                      "); likwid printed: " + log_tail());
  return status_;
}

void LikwidSource::sample(std::int64_t, std::vector<Reading>& out) {
  if (pid_ < 0) return;
  std::string why;
  if (!write_all(to_helper_, "r\n", 2)) {
    why = std::string("cannot ask prooflab-likwid-helper for a reading: ") + std::strerror(errno);
  } else {
    const std::string line = read_line(opts_.sample_timeout_s);
    if (line.rfind("v ", 0) == 0) {
      char* end = nullptr;
      const double mbytes = std::strtod(line.c_str() + 2, &end);
      if (end && *end == '\0') {
        out.push_back({"dram_bandwidth", mbytes * 1e-3, "GB/s"});
        return;
      }
      why = "unreadable answer from prooflab-likwid-helper: '" + line + "'";
    } else if (line.rfind("error ", 0) == 0) {
      why = line.substr(6);
    } else {
      why = eof_
                ? "prooflab-likwid-helper ended"
                : "prooflab-likwid-helper did not answer within " + seconds(opts_.sample_timeout_s);
    }
  }
  if (!eof_ && pid_ > 0) ::kill(-pid_, SIGKILL);
  const std::string how = end_helper();
  status_ = SourceStatus::unavailable("stopped mid-run: " + why + " (" + how +
                                      "); likwid printed: " + log_tail());
}

void LikwidSource::stop() {
  if (pid_ > 0 || to_helper_ >= 0 || from_helper_ >= 0) end_helper();
}

}  // namespace prooflab::harness::counters
