#include "harness/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace prooflab::harness {

namespace fs = std::filesystem;

namespace {

int open_output(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot open " + path.string() +
                             " for the command's output: " + std::strerror(errno));
  return fd;
}

}  // namespace

Process::Process(const ProcessSpec& spec) {
  const int out = open_output(spec.stdout_path);
  const int err = spec.stderr_path == spec.stdout_path ? ::dup(out) : open_output(spec.stderr_path);
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : spec.env) replaced = replaced || k == name;
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [k, v] : spec.env) env_text.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string command = spec.command;
  char sh[] = "/bin/sh", dash_c[] = "-c";
  char* argv[] = {sh, dash_c, command.data(), nullptr};
  const pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ < 0) {
    const int e = errno;
    ::close(out);
    ::close(err);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // prooflab died before prctl took effect
    // A terminal's Ctrl-C goes to prooflab's group only; prooflab ends this one.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execve(argv[0], argv, envp.data());
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // also here: no race with a kill(-pid) right after the fork
  ::close(out);
  ::close(err);
}

Process::~Process() { end_group(std::chrono::seconds(5)); }

bool Process::poll() {
  if (status_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) status_ = status;
  return status_.has_value();
}

WaitEnd Process::wait(std::optional<std::chrono::duration<double>> timeout,
                      const std::atomic<bool>* stop) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!poll()) {
    if (stop && stop->load()) return WaitEnd::stopped;
    if (timeout && std::chrono::steady_clock::now() - t0 >= *timeout) return WaitEnd::timed_out;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WaitEnd::exited;
}

// A live member of the group: a process in it that is not a zombie. kill(-pgid, 0) would
// count zombies too, and orphaned ones wait for init, which may reap them only seconds later.
bool Process::group_alive() const {
  if (::kill(-pid_, 0) != 0 && errno != EPERM) return false;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so from the last ')'.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (fields >> state >> ppid >> pgrp && pgrp == pid_ && state != 'Z' && state != 'X')
      return true;
  }
  return ec ? true : false;  // without /proc, kill(2) said the group exists
}

void Process::end_group(std::chrono::duration<double> grace) {
  if (pid_ <= 0 || group_ended_) return;
  group_ended_ = true;
  ::kill(-pid_, SIGTERM);
  const auto t0 = std::chrono::steady_clock::now();
  // The shell is reaped as it ends; the group is gone once no member is left.
  while (true) {
    poll();
    if (!group_alive()) break;
    // A zombie shell still counts as a member until reaped; poll() reaps it above.
    if (std::chrono::steady_clock::now() - t0 >= grace) {
      ::kill(-pid_, SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!status_) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) status_ = status;
  }
  // SIGKILL is not refusable; wait until the kernel has removed every member.
  for (int i = 0; i < 250 && group_alive(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

int Process::exit_code() const {
  if (!status_) return -1;
  if (WIFEXITED(*status_)) return WEXITSTATUS(*status_);
  if (WIFSIGNALED(*status_)) return 128 + WTERMSIG(*status_);
  return -1;
}

std::string Process::describe() const {
  if (!status_) return "running";
  if (WIFEXITED(*status_)) return "exit " + std::to_string(WEXITSTATUS(*status_));
  if (WIFSIGNALED(*status_))
    return "killed by signal " + std::to_string(WTERMSIG(*status_)) + " (" +
           strsignal(WTERMSIG(*status_)) + ")";
  return "ended";
}

std::string file_tail(const std::filesystem::path& path, std::size_t max_lines) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > 65536 ? size - 65536 : 0;
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::stringstream lines_in(text);
  for (std::string line; std::getline(lines_in, line);) lines.push_back(line);
  if (from > 0 && !lines.empty()) lines.erase(lines.begin());  // cut mid-line
  const std::size_t first = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (std::size_t k = first; k < lines.size(); ++k) out += lines[k] + "\n";
  return out;
}

}  // namespace prooflab::harness
