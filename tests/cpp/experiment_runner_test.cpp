// The experiment runner with a fake executor (no engine): index.csv and experiment.json after
// every run, warm-ups kept out of the index, resume (complete runs skipped; interrupted,
// failed, killed and missing ones redone), a changed experiment refused, SIGINT semantics
// (stop after the current run / interrupt it), an executor error reported with the run.
//
// The harness is an executable, not a library, so this test compiles the experiment sources
// it checks into itself (see experiment_plan_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "harness/experiment/directory_names.hpp"
#include "harness/experiment/experiment_index.hpp"
#include "harness/experiment/command_spec.hpp"
#include "harness/experiment/command_template.hpp"
#include "harness/experiment/experiment_matrix.hpp"
#include "harness/experiment/experiment_progress.hpp"
#include "harness/experiment/experiment_resume.hpp"
#include "harness/experiment/experiment_runner.hpp"
#include "harness/experiment/experiment_schedule.hpp"
#include "harness/experiment/experiment_spec.hpp"

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;

const char* kSpec = R"(
[experiment]
name = "t"
reps = 2
warmup = 1
seed = 3
[base]
circuit = "tiny"
count = 2
[axes]
concurrency = [1, 2]
[variants]
baseline = {}
I1 = { dealloc_policy = "serialized" }
)";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// Writes what run_batch_to_directory would: run.json (config, status) and summary.json.
struct FakeExecutor {
  std::vector<std::string> ran;  // run ids, in order
  std::function<std::string(const RunRequest&, std::size_t)> status =
      [](const RunRequest&, std::size_t) { return std::string("complete"); };

  RunResult operator()(const RunRequest& rq) {
    const fs::path dir = rq.out_parent / rq.run_id;
    fs::create_directories(dir);
    const std::string st = status(rq, ran.size());
    ran.push_back(rq.run_id);
    nlohmann::json meta = {{"run_id", rq.run_id}, {"config", rq.config.to_json()}, {"status", st}};
    std::ofstream(dir / "run.json") << meta.dump(2);
    const nlohmann::json summary = {{"s_per_proof", 1.5}, {"failed", st == "failed" ? 1 : 0}};
    std::ofstream(dir / "summary.json") << summary.dump();
    return {st, summary, st == "complete" ? "" : "the fake executor's status " + st};
  }
};

class ExperimentRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("prooflab-exp-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    plan_ = make_plan(parse_experiment_toml(kSpec, "t.toml"));
    null_ = std::fopen("/dev/null", "w");
  }
  void TearDown() override {
    std::fclose(null_);
    fs::remove_all(root_);
  }

  ExperimentOutcome run(FakeExecutor& fake, bool keep_failed = false, bool rebuild_record = false) {
    RunnerOptions o;
    o.out_root = root_;
    o.execute = [&fake](const RunRequest& rq) { return fake(rq); };
    o.stop_after_run = &stop_after_;
    o.stop_now = &stop_now_;
    o.session = {{"command", "test"}, {"git_commit", "0000"}, {"git_dirty", false}};
    o.keep_failed = keep_failed;
    o.rebuild_record = rebuild_record;
    o.progress = null_;
    return run_experiment(plan_, o);
  }

  fs::path dir() const { return root_ / "t"; }
  void set_status(const std::string& run_dir, const std::string& status) {
    const auto file = dir() / run_dir / "run.json";
    auto meta = nlohmann::json::parse(read(file));
    meta["status"] = status;
    std::ofstream(file) << meta.dump(2);
  }
  std::string measured_dir(std::size_t k) const {  // the k-th measured run's directory
    return plan_.runs[plan_.matrix.cells.size() + k].run_dir;
  }

  fs::path root_;
  ExperimentPlan plan_;
  std::atomic<bool> stop_after_{false}, stop_now_{false};
  std::FILE* null_ = nullptr;
};

TEST_F(ExperimentRunnerTest, RunsEverythingAndIndexesTheMeasuredRuns) {
  FakeExecutor fake;
  const auto out = run(fake);
  // 2 cells x 1 warm-up + 2 cells x 2 variants x 2 reps.
  ASSERT_EQ(plan_.runs.size(), 10u);
  EXPECT_EQ(fake.ran.size(), 10u);
  EXPECT_EQ(out.status, "complete");
  EXPECT_EQ(out.complete, 10u);
  EXPECT_EQ(out.executed, 10u);
  EXPECT_EQ(fake.ran.front(), "t/j1/baseline/warmup-0");

  const auto rows = lines(read(dir() / "index.csv"));
  ASSERT_EQ(rows.size(), 9u);  // header + 8 measured runs, warm-ups left out
  EXPECT_EQ(rows[0],
            "experiment,cell,variant,rep,order,run_dir,status,count,concurrency,dealloc_policy");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = plan_.runs[plan_.matrix.cells.size() + i - 1];
    const std::string expect = "t," + plan_.cell_of(r).id + "," + plan_.variant_of(r).name + "," +
                               std::to_string(r.rep) + "," + std::to_string(r.order) + "," +
                               r.run_dir + ",complete,2," +
                               (plan_.cell_of(r).id == "j1" ? "1" : "2") + "," +
                               (plan_.variant_of(r).name == "I1" ? "serialized" : "async");
    EXPECT_EQ(rows[i], expect);
  }
  const auto j = nlohmann::json::parse(read(dir() / "experiment.json"));
  EXPECT_EQ(j["status"], "complete");
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["git_commit"], "0000");
  EXPECT_EQ(j["runs"].size(), 10u);
  EXPECT_EQ(j["runs"][0]["warmup"], true);
  EXPECT_EQ(j["arms"].size(), 4u);
  EXPECT_EQ(j["sessions"].size(), 1u);
  EXPECT_FALSE(j["end_time"].is_null());
}

TEST_F(ExperimentRunnerTest, ResumeSkipsCompleteRunsAndRedoesTheRest) {
  FakeExecutor first;
  run(first);
  FakeExecutor again;
  auto out = run(again);
  EXPECT_TRUE(again.ran.empty());
  EXPECT_EQ(out.skipped, 10u);
  EXPECT_EQ(out.status, "complete");

  // A killed run (still "running"), an interrupted one, a failed one, a missing one.
  set_status(measured_dir(0), "running");
  set_status(measured_dir(3), "interrupted");
  set_status(measured_dir(5), "failed");
  fs::remove_all(dir() / measured_dir(6));
  // A stale file of the killed attempt must not survive the redo.
  std::ofstream(dir() / measured_dir(0) / "stale.txt") << "x";
  FakeExecutor resume;
  out = run(resume);
  const std::vector<std::string> expect = {"t/" + measured_dir(0), "t/" + measured_dir(3),
                                           "t/" + measured_dir(5), "t/" + measured_dir(6)};
  EXPECT_EQ(resume.ran, expect);
  EXPECT_EQ(out.skipped, 6u);
  EXPECT_EQ(out.complete, 10u);
  EXPECT_FALSE(fs::exists(dir() / measured_dir(0) / "stale.txt"));
  const auto j = nlohmann::json::parse(read(dir() / "experiment.json"));
  EXPECT_EQ(j["sessions"].size(), 3u);
  EXPECT_EQ(j["sessions"][2]["runs_executed"], 4);

  // --keep-failed keeps a failed run.
  set_status(measured_dir(2), "failed");
  FakeExecutor keep;
  out = run(keep, /*keep_failed=*/true);
  EXPECT_TRUE(keep.ran.empty());
  EXPECT_EQ(out.failed, 1u);
  EXPECT_NE(read(dir() / "index.csv").find(measured_dir(2) + ",failed"), std::string::npos);
}

TEST_F(ExperimentRunnerTest, AChangedExperimentIsRefused) {
  FakeExecutor fake;
  run(fake);
  plan_ =
      make_plan(parse_experiment_toml(std::string(kSpec) + "I2 = { gpu_threads = 1 }\n", "t.toml"));
  plan_.matrix.arms[1].config.gpu_threads = 7;  // an arm that ran before now has another config
  FakeExecutor again;
  try {
    run(again);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gpu_threads: 0 there, 7 planned"), std::string::npos) << what;
    EXPECT_NE(what.find("another --out"), std::string::npos) << what;
  }
  EXPECT_TRUE(again.ran.empty());
}

TEST_F(ExperimentRunnerTest, AnUnreadableRecordIsAnErrorUnlessForced) {
  FakeExecutor fake;
  run(fake);
  const auto record = dir() / "experiment.json";
  for (const std::string damage : {"{\"sessions\": [", "[1, 2, 3]", "\x89PNG\r\n\x1a\n"}) {
    std::ofstream(record, std::ios::trunc) << damage;
    FakeExecutor again;
    try {
      run(again);
      FAIL() << "a damaged experiment.json was replaced without a word: " << damage;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(record.string() + " is unreadable"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(again.ran.empty());
    EXPECT_EQ(read(record), damage);  // left as it was, for the user to look at
  }
  FakeExecutor forced;
  const auto out = run(forced, false, /*rebuild_record=*/true);
  EXPECT_EQ(out.status, "complete");
  EXPECT_TRUE(forced.ran.empty());  // the run directories say every run is complete
  const auto j = nlohmann::json::parse(read(record));
  EXPECT_EQ(j["sessions"].size(), 1u);  // the history went with the damaged file
}

TEST_F(ExperimentRunnerTest, StopAfterTheCurrentRunKeepsWhatWasDone) {
  FakeExecutor fake;
  fake.status = [this](const RunRequest&, std::size_t k) {
    if (k == 3) stop_after_ = true;  // Ctrl-C during the 4th run: it finishes, nothing more starts
    return std::string("complete");
  };
  const auto out = run(fake);
  EXPECT_EQ(fake.ran.size(), 4u);
  EXPECT_EQ(out.status, "interrupted");
  EXPECT_EQ(out.complete, 4u);
  EXPECT_EQ(out.pending, 6u);
  EXPECT_EQ(lines(read(dir() / "index.csv")).size(), 1u + 2u);  // 2 warm-ups are not indexed
  EXPECT_EQ(nlohmann::json::parse(read(dir() / "experiment.json"))["status"], "interrupted");

  stop_after_ = false;
  FakeExecutor rest;
  EXPECT_EQ(run(rest).status, "complete");
  EXPECT_EQ(rest.ran.size(), 6u);
}

TEST_F(ExperimentRunnerTest, AnInterruptedRunIsRecordedAsInterrupted) {
  FakeExecutor fake;
  fake.status = [this](const RunRequest& rq, std::size_t k) {
    EXPECT_EQ(rq.stop, &stop_now_);  // the executor gets the flag that ends a run early
    if (k == 2) {
      stop_after_ = true;
      stop_now_ = true;
      return std::string("interrupted");
    }
    return std::string("complete");
  };
  const auto out = run(fake);
  EXPECT_EQ(fake.ran.size(), 3u);
  EXPECT_EQ(out.interrupted, 1u);
  EXPECT_EQ(out.complete, 2u);
  const auto rows = lines(read(dir() / "index.csv"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[1].find(",interrupted,"), std::string::npos);
}

TEST_F(ExperimentRunnerTest, AnExecutorErrorNamesTheRunAndIsRecorded) {
  FakeExecutor fake;
  RunnerOptions o;
  o.out_root = root_;
  o.progress = null_;
  o.execute = [](const RunRequest&) -> RunResult {
    throw engine::ConfigError("config key 'backend': 'cuda' is not available in this build yet");
  };
  try {
    run_experiment(plan_, o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("run j1/baseline/warmup-0"), std::string::npos) << what;
    EXPECT_NE(what.find("'cuda' is not available"), std::string::npos) << what;
  }
  const auto j = nlohmann::json::parse(read(dir() / "experiment.json"));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["runs"][0]["error"].get<std::string>().find("cuda"), std::string::npos);
}

TEST(ExperimentProgress, FormatsDurations) {
  EXPECT_EQ(ExperimentProgress::duration(7.4), "0:07");
  EXPECT_EQ(ExperimentProgress::duration(754), "12:34");
  EXPECT_EQ(ExperimentProgress::duration(3723), "1:02:03");
}

}  // namespace
}  // namespace prooflab::harness
