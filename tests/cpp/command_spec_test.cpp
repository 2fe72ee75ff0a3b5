// `[runner] kind = "command"` experiment files: what they accept (knobs, env and overlay
// tables, extends), the errors that name file, line and key (unknown keys, placeholders
// without a value, knobs nothing uses, overlays without a base file), the templates, the
// invocation each arm gets, and the TOML overlay merged into a copy of a base file.
//
// The harness is an executable, not a library, so this test compiles the sources it checks
// into itself (as experiment_plan_test.cpp does).
#include <gtest/gtest.h>

#include <toml++/toml.h>
#include <unistd.h>

#include <fstream>

#include "harness/experiment/command_invocation.hpp"
#include "harness/experiment/command_spec.hpp"
#include "harness/experiment/command_template.hpp"
#include "harness/experiment/directory_names.hpp"
#include "harness/experiment/experiment_matrix.hpp"
#include "harness/experiment/experiment_schedule.hpp"
#include "harness/experiment/experiment_spec.hpp"
#include "harness/experiment/toml_overlay.hpp"

namespace prooflab::harness {
namespace {

const char* kGood = R"([experiment]
name = "ext"
[runner]
kind = "command"
config = "base.toml"
setup = "cuzk-daemon --config {config}"
ready_log = "{run_dir}/setup.stderr"
ready_pattern = "cuzk-daemon ready"
run = "cuzk-bench batch --count {count} -j {concurrency} --c1 {c1}"
[base]
count = 4
concurrency = 2
c1 = "/data/c1.json"
env = { FIL_PROOFS_PARAMETER_CACHE = "/data/params" }
[axes]
gw = [2, 3]
[variants]
baseline = {}
I2 = { env = { CUZK_GPU_THREADS = "32" }, overlay = { gpus.gpu_threads = 32 } }
GW = { overlay = { gpus.gpu_workers_per_device = "{gw}" } }
both = { extends = ["I2", "GW"] }
)";

// The knob `gw` must be used: GW's overlay uses it.
ExperimentSpec parse(const std::string& text) { return parse_experiment_toml(text, "x.toml"); }

std::string error_of(const std::string& text) {
  try {
    make_plan(parse(text));
  } catch (const ExperimentFileError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(CommandTemplate, FindsAndSubstitutesPlaceholders) {
  EXPECT_EQ(template_placeholders("a {x} b {y.z} {x} ${{HOME}}"),
            (std::vector<std::string>{"x", "y.z"}));
  EXPECT_EQ(substitute("run -c {count} ${{HOME}}", {{"count", "5"}}), "run -c 5 ${HOME}");
  EXPECT_THROW(template_placeholders("a {x"), TemplateError);
  EXPECT_THROW(template_placeholders("a }"), TemplateError);
  EXPECT_THROW(template_placeholders("a {1x}"), TemplateError);
  try {
    substitute("{a} {b}", {{"a", "1"}});
    FAIL();
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.placeholder(), "b");
  }
}

TEST(CommandSpec, ParsesKnobsEnvOverlaysAndExtends) {
  const auto plan = make_plan(parse(kGood));
  const auto& c = plan.spec.command;
  ASSERT_TRUE(c.enabled);
  EXPECT_EQ(c.run.line, 9);
  EXPECT_EQ(plan.matrix.cells.size(), 2u);
  EXPECT_EQ(plan.matrix.arms.size(), 8u);
  // The "both" arm of cell gw3: the union of I2 and GW, base env kept.
  const Arm* both = nullptr;
  for (const auto& a : plan.matrix.arms)
    if (plan.matrix.cells[a.cell].id == "gw-3" && plan.spec.variants[a.variant].name == "both")
      both = &a;
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->value("env.CUZK_GPU_THREADS"), "32");
  EXPECT_EQ(both->value("overlay.gpus.gpu_threads"), "32");
  EXPECT_EQ(both->value("overlay.gpus.gpu_workers_per_device"), "\"{gw}\"");
  EXPECT_EQ(both->value("env.FIL_PROOFS_PARAMETER_CACHE"), "/data/params");
  const nlohmann::json rec = both->recorded_config();
  EXPECT_EQ(rec["count"], 4);
  EXPECT_EQ(rec["gw"], "3");

  const auto inv = make_invocation(
      c, *both, RunContext{"/r/ext/gw-3/both/0", "ext/gw-3/both/0", "ext", "gw-3", "both", 0});
  EXPECT_EQ(inv.run, "cuzk-bench batch --count 4 -j 2 --c1 /data/c1.json");
  EXPECT_EQ(inv.setup, "cuzk-daemon --config /r/ext/gw-3/both/0/config.toml");
  EXPECT_EQ(inv.ready_log, "/r/ext/gw-3/both/0/setup.stderr");
  // A string that is exactly one placeholder takes the value's type: 3, not "3".
  const std::vector<std::pair<std::string, std::string>> overlay = {
      {"gpus.gpu_threads", "32"}, {"gpus.gpu_workers_per_device", "3"}};
  EXPECT_EQ(inv.overlay, overlay);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"FIL_PROOFS_PARAMETER_CACHE", "/data/params"}, {"CUZK_GPU_THREADS", "32"}};
  EXPECT_EQ(inv.env, env);
}

TEST(CommandSpec, OverlayStringsStayStringsUnlessOnePlaceholder) {
  EXPECT_EQ(overlay_value("\"{x}\"", {{"x", "12"}}), "12");
  EXPECT_EQ(overlay_value("\"{x}\"", {{"x", "true"}}), "true");
  EXPECT_EQ(overlay_value("\"{x}\"", {{"x", "64GiB"}}), "\"64GiB\"");
  EXPECT_EQ(overlay_value("\"x{x}\"", {{"x", "12"}}), "\"x12\"");
  EXPECT_EQ(overlay_value("[0, 1]", {}), "[0, 1]");
}

TEST(CommandSpec, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(
      error_of(replace(kGood, "run = ", "rn = ")),
      "x.toml:9: [runner] key 'rn': unknown key (accepted: " + std::string(runner_keys()) + ")");
  // An unknown placeholder: the template's line.
  EXPECT_EQ(error_of(replace(kGood, "--c1 {c1}", "--c1 {c2}")).substr(0, 59),
            "x.toml:9: [runner] key 'run': placeholder {c2} is neither a");
  // A knob only one variant sets leaves the others' commands with a hole.
  const std::string only_in_variant = replace(replace(kGood, "c1 = \"/data/c1.json\"\n", ""),
                                              "baseline = {}", "baseline = { c1 = \"a\" }");
  EXPECT_EQ(error_of(only_in_variant),
            "x.toml:9: cell gw-2, variant I2 key 'run': placeholder {c1} has no value (set c1 in "
            "[base], on an axis or in this variant)");
  // A knob that no command uses would change nothing.
  EXPECT_EQ(error_of(replace(kGood, "c1 = \"/data/c1.json\"", "c1 = \"/data/c1.json\"\nseed = 3")),
            "x.toml:14: [base] key 'seed': is not used by the runner: no {seed} in [runner]'s "
            "commands, env or overlay values, so it would change nothing");
  EXPECT_EQ(error_of(replace(kGood, "config = \"base.toml\"\n", "")).substr(0, 70),
            "x.toml:5: [runner] key 'setup': placeholder {config} is neither a knob");
  EXPECT_EQ(error_of(replace(kGood, "ready_pattern = \"cuzk-daemon ready\"\n", "")),
            "x.toml:3: [runner] key 'ready_pattern': ready_log and ready_pattern go together (the "
            "file to watch and the text to wait for)");
  EXPECT_EQ(error_of(replace(kGood, "count = 4", "count = 0")),
            "x.toml:11: [base] key 'count': must be an integer from 1 to 1000000");
  EXPECT_EQ(error_of(replace(kGood, "kind = \"command\"", "kind = \"shell\"")),
            "x.toml:4: [runner] key 'kind': bad value 'shell' (accepted: command | engine)");
  EXPECT_EQ(error_of(replace(kGood, "CUZK_GPU_THREADS = \"32\"", "CUZK_GPU_THREADS = 32.5")),
            "x.toml:19: [variants.I2] key 'env.CUZK_GPU_THREADS': must be a string or an integer");
  EXPECT_EQ(
      error_of(replace(kGood, "kind = \"command\"", "kind = \"command\"\nrun_timeout_s = -1")),
      "x.toml:5: [runner] key 'run_timeout_s': must be a number of seconds, more than 0 and "
      "at most 604800");
  EXPECT_EQ(
      error_of(replace(kGood, "concurrency = 2", "concurrency = 5")),
      "x.toml:15: cell gw-2, variant baseline: concurrency (5) must not exceed count (4) (drop "
      "such cells with an [[exclude]] naming their axis values)");
}

TEST(CommandSpec, EngineExperimentsAreUnchanged) {
  const char* engine = R"([base]
circuit = "tiny"
count = 2
[variants]
baseline = {}
I1 = { dealloc_policy = "serialized" }
)";
  const auto plan = make_plan(parse(engine));
  EXPECT_FALSE(plan.spec.command.enabled);
  EXPECT_EQ(plan.matrix.arms[1].recorded_config(), plan.matrix.arms[1].config.to_json());
  // env is no engine key.
  EXPECT_NE(error_of(std::string(engine) + "I2 = { env = { A = \"1\" } }\n").find("key 'env'"),
            std::string::npos);
}

class TomlOverlay : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = std::filesystem::temp_directory_path() /
            ("prooflab-overlay-" + std::to_string(::getpid()) + ".toml");
    std::ofstream(base_) << "[daemon]\nlisten = \"0.0.0.0:9820\"\n[gpus]\ngpu_threads = 0\n"
                            "gpu_workers_per_device = 2\n";
  }
  void TearDown() override { std::filesystem::remove(base_); }
  std::filesystem::path base_;
};

TEST_F(TomlOverlay, SetsKeyPathsInACopy) {
  const std::string text = overlay_toml(base_, {{"gpus.gpu_threads", "32"},
                                                {"pipeline.max_parallel_synthesis", "12"},
                                                {"memory.total_budget", "\"400GiB\""}});
  const toml::table merged = toml::parse(text);
  EXPECT_EQ(merged["gpus"]["gpu_threads"].value<int>(), 32);
  EXPECT_EQ(merged["gpus"]["gpu_workers_per_device"].value<int>(), 2);  // kept
  EXPECT_EQ(merged["pipeline"]["max_parallel_synthesis"].value<int>(), 12);
  EXPECT_EQ(merged["memory"]["total_budget"].value<std::string>(), "400GiB");
  EXPECT_EQ(merged["daemon"]["listen"].value<std::string>(), "0.0.0.0:9820");
  // The base file is not touched.
  EXPECT_EQ(toml::parse_file(base_.string())["gpus"]["gpu_threads"].value<int>(), 0);
}

TEST_F(TomlOverlay, ErrorsNameTheFileAndPath) {
  try {
    overlay_toml(base_, {{"daemon.listen.port", "1"}});
    FAIL();
  } catch (const OverlayError& e) {
    EXPECT_EQ(std::string(e.what()), base_.string() +
                                         ": overlay key 'daemon.listen.port': 'listen' is a value "
                                         "there, not a table");
  }
  std::ofstream(base_) << "[gpus\n";
  EXPECT_THROW(overlay_toml(base_, {}), OverlayError);
}

}  // namespace
}  // namespace prooflab::harness
