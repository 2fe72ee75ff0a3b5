// Processes of the external runner (harness/process.hpp) with real subprocesses: output
// into files, exit codes, environment, a timeout that ends the whole process group
// (grandchildren included, also ones that ignore SIGTERM), a stop flag, and a group's
// leftovers ended after its shell exits.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "harness/process.hpp"

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;
using Seconds = std::chrono::duration<double>;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("prooflab-process-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProcessSpec spec(const std::string& command) const {
    return {command, {{"PROOFLAB_TEST_VAR", "forty two"}}, dir_ / "out", dir_ / "err"};
  }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The pid a command wrote into a file (0 when it did not).
  pid_t pid_in(const std::string& name) const {
    std::stringstream s(read(name));
    pid_t pid = 0;
    s >> pid;
    return pid;
  }
  // Running or sleeping: a zombie (dead, not yet reaped by init) does not count.
  static bool alive(pid_t pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0) return false;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
  }

  fs::path dir_;
};

TEST_F(ProcessTest, WritesOutputAndEnvironmentAndExitCode) {
  Process p(spec("echo \"$PROOFLAB_TEST_VAR\"; echo oops >&2; exit 3"));
  EXPECT_EQ(p.wait(Seconds(10)), WaitEnd::exited);
  EXPECT_EQ(p.exit_code(), 3);
  EXPECT_EQ(p.describe(), "exit 3");
  EXPECT_EQ(read("out"), "forty two\n");
  EXPECT_EQ(read("err"), "oops\n");
}

TEST_F(ProcessTest, TimeoutEndsTheWholeGroupIncludingStubbornGrandchildren) {
  const std::string child = (dir_ / "child.pid").string(),
                    stubborn = (dir_ / "stubborn.pid").string();
  Process p(spec("sleep 600 & echo $! > " + child + "; sh -c 'trap \"\" TERM; echo $$ > " +
                 stubborn + "; while :; do sleep 0.05; done' & sleep 600"));
  EXPECT_EQ(p.wait(Seconds(0.5)), WaitEnd::timed_out);
  EXPECT_FALSE(p.exited());
  const pid_t a = pid_in("child.pid"), b = pid_in("stubborn.pid");
  ASSERT_TRUE(alive(a));
  ASSERT_TRUE(alive(b));
  p.end_group(Seconds(0.3));  // SIGTERM; the stubborn one then gets SIGKILL
  EXPECT_TRUE(p.exited());
  EXPECT_EQ(p.describe(), "killed by signal 15 (Terminated)");
  EXPECT_FALSE(p.group_alive());
  EXPECT_FALSE(alive(a));
  EXPECT_FALSE(alive(b));
}

TEST_F(ProcessTest, StopFlagEndsTheWait) {
  std::atomic<bool> stop{false};
  Process p(spec("sleep 600"));
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  EXPECT_EQ(p.wait(Seconds(30), &stop), WaitEnd::stopped);
  t.join();
  p.end_group(Seconds(1));
  EXPECT_FALSE(p.group_alive());
}

TEST_F(ProcessTest, WhatTheShellLeftRunningIsEndedWithTheGroup) {
  Process p(spec("sleep 600 & echo $! > " + (dir_ / "child.pid").string()));
  EXPECT_EQ(p.wait(Seconds(10)), WaitEnd::exited);
  EXPECT_EQ(p.exit_code(), 0);
  const pid_t orphan = pid_in("child.pid");
  ASSERT_TRUE(alive(orphan));
  p.end_group(Seconds(1));
  EXPECT_FALSE(alive(orphan));
  EXPECT_EQ(p.exit_code(), 0);  // the shell's own status is kept
}

TEST_F(ProcessTest, FileTailKeepsTheLastLines) {
  std::ofstream(dir_ / "log") << "1\n2\n3\n4\n";
  EXPECT_EQ(file_tail(dir_ / "log", 2), "3\n4\n");
  EXPECT_EQ(file_tail(dir_ / "log", 10), "1\n2\n3\n4\n");
  EXPECT_EQ(file_tail(dir_ / "absent", 2), "");
}

}  // namespace
}  // namespace prooflab::harness
