// A shell command run as its own process group, for the external runner: `/bin/sh -c
// COMMAND` with extra environment variables, stdout and stderr written straight into files
// (so they are on disk as the command writes them), waited for with a timeout and a stop
// flag, and ended with everything it started: SIGTERM to the whole group, SIGKILL after a
// grace period. The child also gets SIGTERM should prooflab die (PR_SET_PDEATHSIG), so a
// killed prooflab leaves no daemon behind when the command execs it (`sh -c` of a simple
// command does).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace prooflab::harness {

struct ProcessSpec {
  std::string command;
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) ours
  std::filesystem::path stdout_path, stderr_path;        // appended to
};

// How a wait ended.
enum class WaitEnd { exited, timed_out, stopped };

class Process {
 public:
  // Throws std::runtime_error when the files cannot be opened or fork fails.
  explicit Process(const ProcessSpec& spec);
  // Ends the group (end_group) if it is still there.
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // Reaps the shell if it has exited; true once it has.
  bool poll();
  // Until the shell exits, `timeout` passes, or *stop becomes true (checked every 20 ms).
  WaitEnd wait(std::optional<std::chrono::duration<double>> timeout,
               const std::atomic<bool>* stop = nullptr);
  // SIGTERM to the process group, then SIGKILL to what is left after `grace`; reaps the
  // shell. Also ends what the shell left running after it exited. Idempotent.
  void end_group(std::chrono::duration<double> grace);
  // Whether some process of the group is still alive.
  bool group_alive() const;

  bool exited() const { return status_.has_value(); }
  // The shell's exit code, or 128 + signal when a signal ended it; -1 while it runs.
  int exit_code() const;
  // "exit 0", "exit 3", "killed by signal 9 (Killed)", "running".
  std::string describe() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;  // waitpid status
  bool group_ended_ = false;
};

// The last `max_lines` lines of a text file (at most 64 KiB read from its end), "" if absent.
std::string file_tail(const std::filesystem::path& path, std::size_t max_lines);

}  // namespace prooflab::harness
