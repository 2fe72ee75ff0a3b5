// The Slurm command lines and the readers of their output, on text captured from Slurm 22.05
// (Debian's slurm-wlm: slurmctld + slurmd + slurmdbd on one node, the cluster
// tests/python/slurm_cluster.py starts): an array of 5 tasks at %2, task 1 cancelled while it
// ran, task 2 failing with exit 3, the pending rest cancelled with the whole array.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "harness/experiment/slurm_cli.hpp"

namespace prooflab::harness {
namespace {

TEST(SlurmCli, ArrayRangeCoversEveryTaskAndTheThrottle) {
  EXPECT_EQ(array_range(1, 0), "0-0");
  EXPECT_EQ(array_range(12, 0), "0-11");
  EXPECT_EQ(array_range(12, 3), "0-11%3");
  EXPECT_THROW(array_range(0, 0), std::invalid_argument);
}

TEST(SlurmCli, SbatchCommandCarriesEveryOptionGiven) {
  SlurmSubmitOptions o;
  EXPECT_EQ(
      sbatch_command(o, 4, "prooflab-x", "/r/x/slurm/%A_%a.out", "/r/x/slurm/tasks-1.sh"),
      (std::vector<std::string>{"sbatch", "--parsable", "--array=0-3", "--job-name=prooflab-x",
                                "--output=/r/x/slurm/%A_%a.out", "/r/x/slurm/tasks-1.sh"}));
  o.partition = "gpu";
  o.gres = "gpu:1";
  o.time = "30:00";
  o.array_parallel = 2;
  o.pin_node = "node7";
  o.extra = {"--account=perf"};
  EXPECT_EQ(sbatch_command(o, 10, "j", "out", "s"),
            (std::vector<std::string>{"sbatch", "--parsable", "--array=0-9%2", "--job-name=j",
                                      "--output=out", "--partition=gpu", "--gres=gpu:1",
                                      "--time=30:00", "--nodelist=node7", "--account=perf", "s"}));
}

TEST(SlurmCli, SbatchParsableJobIdWithAndWithoutCluster) {
  EXPECT_EQ(parse_sbatch_job_id("42\n"), "42");
  EXPECT_EQ(parse_sbatch_job_id("1234;gpu-cluster\n"), "1234");
  EXPECT_THROW(parse_sbatch_job_id("Submitted batch job 42\n"), SlurmOutputError);
  EXPECT_THROW(parse_sbatch_job_id(""), SlurmOutputError);
}

TEST(SlurmCli, SqueueListsEachArrayTaskAndSkipsOtherJobs) {
  EXPECT_EQ(squeue_command({"9", "10"}),
            (std::vector<std::string>{"squeue", "-h", "-r", "-j", "9,10", "-o", "%F|%K|%T|%N|%r"}));
  // squeue -h -r -j 9,10 -o '%F|%K|%T|%N|%r' (10 is a plain batch job).
  const std::string out =
      "9|2|PENDING||JobArrayTaskLimit\n"
      "9|3|PENDING||JobArrayTaskLimit\n"
      "9|4|PENDING||JobArrayTaskLimit\n"
      "10|N/A|PENDING||Resources\n"
      "9|0|RUNNING|vm|None\n"
      "9|1|RUNNING|vm|None\n";
  const auto tasks = parse_squeue(out);
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks[0].array_job, "9");
  EXPECT_EQ(tasks[0].task, 2u);
  EXPECT_EQ(tasks[0].state, "PENDING");
  EXPECT_EQ(tasks[0].node, "");
  EXPECT_EQ(tasks[0].detail, "JobArrayTaskLimit");
  EXPECT_EQ(tasks[3].task, 0u);
  EXPECT_EQ(tasks[3].state, "RUNNING");
  EXPECT_EQ(tasks[3].node, "vm");
  EXPECT_TRUE(parse_squeue("").empty());
}

TEST(SlurmCli, SqueueOfOneForgottenJobIsAnEmptyQueueNotAnError) {
  // squeue -h -r -j 1 after job 1 left slurmctld's memory: exit 1 and this on stderr.
  EXPECT_TRUE(squeue_job_unknown(1, "slurm_load_jobs error: Invalid job id specified\n"));
  EXPECT_FALSE(squeue_job_unknown(0, ""));
  EXPECT_FALSE(squeue_job_unknown(1,
                                  "slurm_load_jobs error: Unable to contact slurm controller "
                                  "(connect failure)\n"));
}

TEST(SlurmCli, SqueueRejectsAnotherFormat) {
  EXPECT_THROW(parse_squeue("9_2 PENDING\n"), SlurmOutputError);
  EXPECT_THROW(parse_squeue("x|2|PENDING||None\n"), SlurmOutputError);
}

TEST(SlurmCli, SacctGivesStateNodeExitAndElapsedPerTask) {
  EXPECT_EQ(sacct_command({"9"}),
            (std::vector<std::string>{"sacct", "-n", "-P", "-X", "-j", "9", "-o",
                                      "JobID,State,ExitCode,NodeList,ElapsedRaw"}));
  // sacct -n -P -X -j 9,10 -o JobID,State,ExitCode,NodeList,ElapsedRaw, after scancel 9_1
  // (running), task 2's exit 3 and scancel 9 with tasks 3 and 4 still pending.
  const std::string out =
      "10|PENDING|0:0|None assigned|0\n"
      "9_0|COMPLETED|0:0|vm|3\n"
      "9_1|CANCELLED by 0|0:0|vm|2\n"
      "9_2|FAILED|3:0|vm|3\n"
      "9_[3-4%2]|CANCELLED by 0|0:0|None assigned|0\n";
  const auto t = parse_sacct(out);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].array_job, "9");
  EXPECT_EQ(t[0].task, 0u);
  EXPECT_EQ(t[0].state, "COMPLETED");
  EXPECT_EQ(t[0].elapsed_s, 3u);
  EXPECT_EQ(t[1].task, 1u);
  EXPECT_EQ(t[1].state, "CANCELLED");  // "by 0" is who, not what
  EXPECT_EQ(t[1].node, "vm");
  EXPECT_EQ(t[2].state, "FAILED");
  EXPECT_EQ(t[2].detail, "3:0");
  EXPECT_EQ(t[3].task, 3u);
  EXPECT_EQ(t[4].task, 4u);
  EXPECT_EQ(t[4].state, "CANCELLED");
  EXPECT_EQ(t[4].node, "");  // never ran
}

TEST(SlurmCli, SacctExpandsListsOfRangesAndRejectsBrokenOnes) {
  const auto t = parse_sacct("7_[1,5-6,9]|PENDING|0:0|None assigned|0\n");
  std::vector<std::uint64_t> tasks;
  for (const auto& x : t) tasks.push_back(x.task);
  EXPECT_EQ(tasks, (std::vector<std::uint64_t>{1, 5, 6, 9}));
  EXPECT_THROW(parse_sacct("7_[1-3|PENDING|0:0|None assigned|0\n"), SlurmOutputError);
  EXPECT_THROW(parse_sacct("7_[5-3]|PENDING|0:0|None assigned|0\n"), SlurmOutputError);
  EXPECT_THROW(parse_sacct("7_1|COMPLETED|0:0|vm\n"), SlurmOutputError);  // a field short
  EXPECT_THROW(parse_sacct("7_1|COMPLETED|0:0|vm|soon\n"), SlurmOutputError);
}

TEST(SlurmCli, EndedStatesAreTheOnesATaskDoesNotLeave) {
  for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                        "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
    EXPECT_TRUE(slurm_state_ended(s)) << s;
  for (const char* s :
       {"PENDING", "RUNNING", "COMPLETING", "REQUEUED", "SUSPENDED", "CANCELLED by 0", ""})
    EXPECT_FALSE(slurm_state_ended(s)) << s;
}

TEST(SlurmCli, ShellQuotingSurvivesTheShell) {
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_command({"sbatch", "--output=/a b/%A_%a.out"}),
            "'sbatch' '--output=/a b/%A_%a.out'");
  // /bin/sh gives back exactly the arguments.
  const std::string cmd =
      shell_command({"printf", "%s|", "a b", "it's", "$HOME", "`x`", "\\n"}) + " > slurm_cli_q.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in("slurm_cli_q.txt");
  const std::string got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, "a b|it's|$HOME|`x`|\\n|");
  std::remove("slurm_cli_q.txt");
}

}  // namespace
}  // namespace prooflab::harness
