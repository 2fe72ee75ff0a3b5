// Child processes for `prooflab regress`: the workloads under valgrind, the wall-clock runs
// of this build and of the baseline build, the statistics helper. argv is passed as is (no
// shell), stdout and stderr go to files, so that several children can run at once without
// pipes to drain.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace prooflab::harness {

struct ChildSpec {
  std::vector<std::string> argv;
  std::filesystem::path stdout_path, stderr_path;  // empty: /dev/null
  std::filesystem::path stdin_path;                // empty: /dev/null
  std::map<std::string, std::string> set_env;      // added to (or replacing in) the environment
  std::vector<std::string> unset_env;
};

// Starts the child; throws naming the program when it cannot be started.
pid_t spawn_child(const ChildSpec& spec);
// Waits for it; returns the exit status, or 128 + signal when it was killed. cpu_seconds, when
// given, receives the CPU time (user + system) the child and its waited-for descendants used.
int wait_child(pid_t pid, double* cpu_seconds = nullptr);
// spawn + wait.
int run_child(const ChildSpec& spec, double* cpu_seconds = nullptr);

std::string read_text_file(const std::filesystem::path& path);
// The last `lines` lines of a file, for error messages.
std::string tail_of_file(const std::filesystem::path& path, std::size_t lines = 15);

// A fresh directory under $TMPDIR (mkdtemp), removed by the destructor unless kept.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// The path of the running executable (/proc/self/exe).
std::filesystem::path self_executable();

}  // namespace prooflab::harness
