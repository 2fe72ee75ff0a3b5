#include "harness/regress/regress_process.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace prooflab::harness {
namespace {

int open_or_die(const std::filesystem::path& p, int flags) {
  const int fd = ::open(p.empty() ? "/dev/null" : p.c_str(), flags, 0644);
  if (fd < 0) _exit(126);
  return fd;
}

}  // namespace

pid_t spawn_child(const ChildSpec& spec) {
  if (spec.argv.empty()) throw std::invalid_argument("spawn_child: empty argv");
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // An exec-failure pipe: the child writes errno to it when execvp fails, so that a missing
  // program is an error naming it rather than a mysterious exit status.
  int fail_pipe[2];
  if (::pipe2(fail_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fail_pipe[0]);
    ::dup2(open_or_die(spec.stdin_path, O_RDONLY), 0);
    ::dup2(open_or_die(spec.stdout_path, O_WRONLY | O_CREAT | O_TRUNC), 1);
    ::dup2(open_or_die(spec.stderr_path, O_WRONLY | O_CREAT | O_TRUNC), 2);
    for (const auto& name : spec.unset_env) ::unsetenv(name.c_str());
    for (const auto& [k, v] : spec.set_env) ::setenv(k.c_str(), v.c_str(), 1);
    ::execvp(argv[0], argv.data());
    const int err = errno;
    [[maybe_unused]] auto n = ::write(fail_pipe[1], &err, sizeof err);
    _exit(127);
  }
  ::close(fail_pipe[1]);
  int err = 0;
  const auto got = ::read(fail_pipe[0], &err, sizeof err);
  ::close(fail_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof err)) {
    ::waitpid(pid, nullptr, 0);
    throw std::runtime_error("cannot run '" + spec.argv[0] + "': " + std::strerror(err));
  }
  return pid;
}

int wait_child(pid_t pid, double* cpu_seconds) {
  int status = 0;
  struct rusage ru {};
  while (::wait4(pid, &status, 0, &ru) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
  }
  if (cpu_seconds) {
    auto secs = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    *cpu_seconds = secs(ru.ru_utime) + secs(ru.ru_stime);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

int run_child(const ChildSpec& spec, double* cpu_seconds) {
  return wait_child(spawn_child(spec), cpu_seconds);
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail_of_file(const std::filesystem::path& path, std::size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    " + l + "\n";
  return out;
}

TempDir::TempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data()))
    throw std::runtime_error("mkdtemp " + templ + ": " + std::strerror(errno));
  path_ = templ;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path self_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

}  // namespace prooflab::harness
