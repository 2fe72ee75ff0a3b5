// Experiment files: the schema's errors (file, line, key), the matrix expansion (product,
// zipped groups, exclusions, variant overrides) and the run schedule (warm-ups first,
// interleaved rounds, deterministic shuffle).
//
// The harness is an executable, not a library, so this test compiles the experiment sources
// it checks into itself (they depend only on prooflab_core, nlohmann/json and toml++, which
// is used header-only here).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "harness/experiment/command_spec.hpp"
#include "harness/experiment/command_template.hpp"
#include "harness/experiment/directory_names.hpp"
#include "harness/experiment/experiment_matrix.hpp"
#include "harness/experiment/experiment_schedule.hpp"
#include "harness/experiment/experiment_spec.hpp"

namespace prooflab::harness {
namespace {

ExperimentSpec parse(const std::string& text) { return parse_experiment_toml(text, "exp.toml"); }

// The error a file raises; fails the test when it parses.
ExperimentFileError error_of(const std::string& text) {
  try {
    make_plan(parse(text));
  } catch (const ExperimentFileError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return ExperimentFileError("", 0, "", "", "");
}

const char* kExample = R"(
[experiment]
name = "example"
reps = 3
warmup = 1
seed = 42

[base]
circuit = "tiny"
constraints = 1024
partitions = 2

[axes]
constraints = [1024, 2048]
[axes.cj]
count = [5, 10, 20]
concurrency = [5, 10, 15]

[variants]
baseline = {}
I1 = { dealloc_policy = "serialized" }
I2 = { gpu_threads = 2 }
"I1+I2" = { extends = ["I1", "I2"] }

[[exclude]]
constraints = 2048
count = 20
variants = ["I2", "I1+I2"]

[[exclude]]
count = 5
constraints = [2048]
)";

TEST(ExperimentSpec, ParsesAxesInFileOrderAndResolvesExtends) {
  const auto spec = parse(kExample);
  EXPECT_EQ(spec.name, "example");
  EXPECT_EQ(spec.reps, 3u);
  EXPECT_EQ(spec.warmup, 1u);
  EXPECT_EQ(spec.seed, 42u);
  ASSERT_EQ(spec.axes.size(), 2u);
  EXPECT_EQ(spec.axes[0].keys, std::vector<std::string>{"constraints"});
  EXPECT_EQ(spec.axes[1].name, "cj");
  EXPECT_EQ(spec.axes[1].keys, (std::vector<std::string>{"count", "concurrency"}));
  EXPECT_EQ(spec.axes[1].points[2], (std::vector<std::string>{"20", "15"}));
  ASSERT_EQ(spec.variants.size(), 4u);
  EXPECT_EQ(spec.variants[0].name, "baseline");
  EXPECT_EQ(spec.variants[3].name, "I1+I2");
  ASSERT_EQ(spec.variants[3].overrides.size(), 2u);
  EXPECT_EQ(spec.variants[3].overrides[0].key, "dealloc_policy");
  EXPECT_EQ(spec.variants[3].overrides[1].key, "gpu_threads");
  EXPECT_EQ(spec.base.circuit, "tiny");
  ASSERT_EQ(spec.exclusions.size(), 2u);
}

TEST(ExperimentSpec, NameDefaultsToTheFileStemAndVariantsToBaseline) {
  const auto spec = parse_experiment_toml("[base]\ncount = 2\n", "dir/my-exp.toml");
  EXPECT_EQ(spec.name, "my-exp");
  ASSERT_EQ(spec.variants.size(), 1u);
  EXPECT_EQ(spec.variants[0].name, "baseline");
  const auto plan = make_plan(spec);
  ASSERT_EQ(plan.matrix.cells.size(), 1u);
  EXPECT_EQ(plan.matrix.cells[0].id, "base");
  EXPECT_EQ(plan.runs.size(), 3u);  // default reps
}

struct BadFile {
  std::string text;
  int line;
  std::string key;
  std::string message;  // a substring of what()
};

TEST(ExperimentSpec, ErrorsNameFileLineAndKey) {
  const std::vector<BadFile> cases = {
      {"[experiment]\nreps = 2\nbogus = 1\n", 3, "bogus", "unknown key"},
      {"[experiment]\nreps = 0\n", 2, "reps", "from 1"},
      {"[experiment]\nname = \"a/b\"\n", 2, "name", "directory name"},
      {"[base]\nlock_policy = \"two-lock\"\n", 2, "lock_policy", "single | two_lock | none"},
      {"[base]\nfoo = 1\n", 2, "foo", "unknown config key 'foo'"},
      {"[base]\ngpu_threads = 1.5\n", 2, "gpu_threads", "string, integer or boolean"},
      {"[axes]\ncount = []\n", 2, "count", "no values"},
      {"[axes]\ncount = 5\n", 2, "count", "list of values"},
      {"[axes]\nconstraints = [1024, 1024]\n", 2, "constraints", "appears twice"},
      {"[axes]\nvram_limit = [\"1GiB\", 1073741824]\n", 2, "vram_limit", "appears twice"},
      {"[axes]\n\ncount = [1, 2]\nfrobnicate = [1]\n", 4, "frobnicate", "unknown config key"},
      {"[axes]\ncount = [5, 10]\n[axes.cj]\ncount = [3, 4]\n", 4, "count", "two axes"},
      {"[axes]\ncj = { count = [5, 10], concurrency = [5] }\n", 2, "concurrency", "has 1 values"},
      {"[axes]\ncount = [5]\n[variants]\nbaseline = {}\nI1 = { count = 3 }\n", 5, "count",
       "is an axis"},
      {"[variants]\nI1 = {}\n", 1, "baseline", "must be named 'baseline'"},
      {"[variants]\nbaseline = {}\nI1 = { extends = \"I3\" }\n", 3, "extends",
       "unknown variant 'I3'"},
      {"[variants]\nbaseline = {}\nA = { extends = \"B\" }\nB = { extends = \"A\" }\n", 4,
       "extends", "cycle"},
      {"[variants]\nbaseline = {}\nI1 = { gpu_threads = 2 }\nI2 = { gpu_threads = 3 }\n"
       "I3 = { extends = [\"I1\", \"I2\"] }\n",
       5, "extends", "different values"},
      {"[variants]\nbaseline = {}\nI1 = { throttle = \"maybe\" }\n", 3, "throttle", "on | off"},
      {"[axes]\ncount = [5]\n[[exclude]]\ncount = 5\nvariants = [\"I9\"]\n", 5, "variants",
       "unknown variant 'I9'"},
      {"[axes]\ncount = [5]\n[[exclude]]\ncount = 6\n", 4, "count", "not on the axis"},
      {"[axes]\ncount = [5]\n[[exclude]]\nconcurrency = 6\n", 4, "concurrency", "is not an axis"},
      {"[stuff]\nx = 1\n", 1, "stuff", "unknown top-level entry"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto e = error_of(c.text);
    EXPECT_EQ(e.file(), "exp.toml");
    EXPECT_EQ(e.line(), c.line);
    EXPECT_EQ(e.key(), c.key);
    const std::string what = e.what();
    EXPECT_NE(what.find("exp.toml:" + std::to_string(c.line) + ":"), std::string::npos) << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << what;
  }
}

TEST(ExperimentSpec, SyntaxErrorsNameTheLine) {
  const auto e = error_of("[base]\ncount = 2\nx = [\n");
  EXPECT_GE(e.line(), 3);
  EXPECT_NE(std::string(e.what()).find("TOML syntax"), std::string::npos);
}

TEST(ExperimentMatrix, CrossFieldErrorsNameTheCell) {
  const auto e = error_of("[axes]\ncount = [5, 10]\nconcurrency = [5, 10]\n");
  EXPECT_EQ(e.line(), 1);
  const std::string what = e.what();
  EXPECT_NE(what.find("cell c5_j10"), std::string::npos) << what;
  EXPECT_NE(what.find("must not exceed count"), std::string::npos) << what;
}

TEST(ExperimentMatrix, AnExclusionThatMatchesNothingIsAnError) {
  // Both values occur on their axes, never together: the zipped group has (5,5) and (10,10).
  const auto e = error_of(
      "[axes.cj]\ncount = [5, 10]\nconcurrency = [5, 10]\n[[exclude]]\ncount = 5\n"
      "concurrency = 10\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_NE(std::string(e.what()).find("matches no cell"), std::string::npos);
}

TEST(ExperimentMatrix, ExpandsTheProductLessExclusions) {
  const auto plan = make_plan(parse(kExample));
  const auto& m = plan.matrix;
  // 2 constraints x 3 (c, j) points = 6 cells x 4 variants = 24 arms; the second exclusion
  // drops cell n2048_c5_j5 (4 arms), the first drops 2 arms of n2048_c20_j15.
  EXPECT_EQ(m.product_arms, 24u);
  EXPECT_EQ(m.arms.size(), 18u);
  ASSERT_EQ(m.cells.size(), 5u);
  EXPECT_EQ(m.cells[0].id, "n1024_c5_j5");
  EXPECT_EQ(m.cells[1].id, "n1024_c10_j10");
  EXPECT_EQ(m.cells[3].id, "n2048_c10_j10");
  EXPECT_EQ(m.cells[4].id, "n2048_c20_j15");
  EXPECT_EQ(m.columns, (std::vector<std::string>{"count", "concurrency", "constraints",
                                                 "dealloc_policy", "gpu_threads"}));
  std::map<std::string, std::set<std::string>> variants_of;
  for (const auto& a : m.arms)
    variants_of[m.cells[a.cell].id].insert(plan.spec.variants[a.variant].name);
  EXPECT_EQ(variants_of["n2048_c20_j15"], (std::set<std::string>{"baseline", "I1"}));
  EXPECT_EQ(variants_of["n1024_c20_j15"].size(), 4u);

  // Configs: base, then the cell's axis values, then the variant's overrides.
  for (const auto& a : m.arms) {
    const auto& cell = m.cells[a.cell];
    const auto& variant = plan.spec.variants[a.variant].name;
    EXPECT_EQ(a.config.circuit, "tiny");
    EXPECT_EQ(a.config.partitions, 2u);
    EXPECT_EQ(std::to_string(a.config.constraints), cell.values[0].second);
    EXPECT_EQ(std::to_string(a.config.count), cell.values[1].second);
    EXPECT_EQ(std::to_string(a.config.concurrency), cell.values[2].second);
    const bool serialized = variant == "I1" || variant == "I1+I2";
    EXPECT_EQ(a.config.dealloc_policy,
              serialized ? engine::DeallocPolicy::kSerialized : engine::DeallocPolicy::kAsync);
    EXPECT_EQ(a.config.gpu_threads, (variant == "I2" || variant == "I1+I2") ? 2u : 0u);
  }
}

TEST(ExperimentSchedule, CountsWarmUpsFirstThenRoundsOfEveryArm) {
  const auto plan = make_plan(parse(kExample));
  const std::size_t cells = plan.matrix.cells.size(), arms = plan.matrix.arms.size();
  ASSERT_EQ(plan.runs.size(), cells * 1 + arms * 3);
  for (std::size_t i = 0; i < plan.runs.size(); ++i) EXPECT_EQ(plan.runs[i].order, i);
  // Warm-ups: one per cell, its first arm (the baseline), directory warmup-0.
  for (std::size_t i = 0; i < cells; ++i) {
    const auto& r = plan.runs[i];
    EXPECT_TRUE(r.warmup);
    EXPECT_EQ(plan.variant_of(r).name, "baseline");
    EXPECT_EQ(plan.matrix.arms[r.arm].cell, i);
    EXPECT_EQ(r.run_dir, plan.cell_of(r).id + "/baseline/warmup-0");
  }
  // Round k: every arm exactly once, repetition k. Within a cell the arms therefore alternate:
  // no arm gets its (k+1)-th run before every arm of the cell had its k-th.
  for (std::size_t round = 0; round < 3; ++round) {
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < arms; ++i) {
      const auto& r = plan.runs[cells + round * arms + i];
      EXPECT_FALSE(r.warmup);
      EXPECT_EQ(r.rep, round);
      EXPECT_TRUE(seen.insert(r.arm).second);
      EXPECT_EQ(r.run_dir,
                plan.cell_of(r).id + "/" + plan.variant_of(r).name + "/" + std::to_string(round));
    }
    EXPECT_EQ(seen.size(), arms);
  }
}

std::vector<std::size_t> arm_order(const ExperimentPlan& plan) {
  std::vector<std::size_t> out;
  for (const auto& r : plan.runs) out.push_back(r.arm);
  return out;
}

TEST(ExperimentSchedule, ShuffleIsDeterministicPerSeedAndStableWhenRepsGrow) {
  auto spec = parse(kExample);
  const auto a = arm_order(make_plan(spec));
  EXPECT_EQ(a, arm_order(make_plan(spec)));
  auto other = spec;
  other.seed = 43;
  EXPECT_NE(a, arm_order(make_plan(other)));
  // Rounds differ from each other (the shuffle is per round, not one order repeated).
  const std::size_t cells = 5, arms = 18;
  EXPECT_FALSE(std::equal(a.begin() + cells, a.begin() + cells + arms, a.begin() + cells + arms));
  // More repetitions: the earlier rounds keep their order (an experiment can be extended).
  auto more = spec;
  more.reps = 5;
  const auto b = arm_order(make_plan(more));
  ASSERT_EQ(b.size(), a.size() + 2 * arms);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
}

TEST(ExperimentSchedule, KnownOrderForASeed) {
  // Pins the generator (Fisher-Yates over mt19937_64, both fully specified): a change here
  // would silently reorder the rounds of experiments already recorded with their seed.
  EXPECT_EQ(round_permutation(6, 7, 2, true), (std::vector<std::size_t>{4, 1, 5, 3, 0, 2}));
  EXPECT_EQ(round_permutation(5, 1, 0, true), (std::vector<std::size_t>{1, 0, 3, 4, 2}));
  EXPECT_EQ(round_permutation(8, 0, 0, true), (std::vector<std::size_t>{7, 4, 0, 1, 5, 2, 3, 6}));
  EXPECT_EQ(round_permutation(4, 7, 2, false), (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(ExperimentSchedule, WithoutShuffleTheArmsStrictlyAlternate) {
  const auto plan =
      make_plan(parse("[experiment]\nreps = 3\nshuffle = false\n[variants]\nbaseline = {}\nB = { "
                      "throttle = true }\n"));
  std::vector<std::string> order;
  for (const auto& r : plan.runs) order.push_back(plan.variant_of(r).name);
  EXPECT_EQ(order, (std::vector<std::string>{"baseline", "B", "baseline", "B", "baseline", "B"}));
}

TEST(ExperimentSpec, ShippedExperimentsParseAndExpand) {
  const std::filesystem::path dir =
      std::filesystem::path(PROOFLAB_TEST_DATA_DIR) / ".." / ".." / "experiments";
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto& path = entry.path();
    if (path.extension() != ".toml" || path.filename() == "default-cpu.toml") continue;
    SCOPED_TRACE(path.string());
    const auto plan = make_plan(parse_experiment_file(path));
    EXPECT_EQ(plan.spec.name, path.stem().string());
    EXPECT_FALSE(plan.runs.empty());
    EXPECT_EQ(plan.spec.variants.front().name, "baseline");
    ++n;
  }
  EXPECT_GE(n, 9u);
}

// Cell names come from the knob table's prefixes; the names are the ones the per-knob map
// gave before the table (so old experiments' directories keep their names).
TEST(ExperimentMatrix, CellTokensKeepTheirNames) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"count", "20", "c20"},
      {"concurrency", "15", "j15"},
      {"constraints", "1024", "n1024"},
      {"partitions", "10", "p10"},
      {"gpu_workers_per_device", "2", "gw2"},
      {"gpu_threads", "32", "gt32"},
      {"synth_threads", "8", "st8"},
      {"device_threads", "4", "dt4"},
      {"devices", "2", "dev2"},
      {"vram_limit", "16GiB", "vram16GiB"},
      {"host_mem_budget", "64GiB", "hmem64GiB"},
      {"partition_workers", "12", "pw12"},
      {"synthesis_lookahead", "3", "la3"},
      {"max_gpu_queue_depth", "8", "qd8"},
      {"seed", "7", "seed7"},
      {"circuit", "porep-like", "porep-like"},
      {"backend", "cuda", "cuda"},
      {"lock_policy", "two_lock", "two_lock"},
      {"dealloc_policy", "serialized", "serialized"},
      {"throttle", "on", "throttle-on"},
      {"early_free", "on", "early_free-on"},
      {"finalize", "split", "finalize-split"},
      {"verify", "off", "verify-off"},
      {"record", "off", "record-off"},
      {"cupti", "off", "cupti-off"},
      {"b_g2_msm", "gpu", "b_g2_msm-gpu"},
      {"my_knob", "a b", "my_knob-a-b"},  // a command runner's own knob
  };
  for (const auto& [key, value, token] : cases) EXPECT_EQ(cell_token(key, value), token) << key;
}

}  // namespace
}  // namespace prooflab::harness
