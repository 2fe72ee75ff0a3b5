// The one table of stages (core/trace/stages.hpp) and what is derived from it: the
// sub-stage check, stages.csv's columns (core/trace/stages_csv.hpp) and StageScope
// (core/trace/stage_scope.hpp), which writes a stage's TIMELINE events, listener range and
// stages.csv duration together. Expectations are written out from docs/run-directory.md and
// DESIGN.md §4, not from the table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/trace/stage_scope.hpp"
#include "core/trace/stages.hpp"
#include "core/trace/stages_csv.hpp"
#include "core/trace/timeline.hpp"
#include "engine_timeline_util.hpp"

namespace prooflab::trace {
namespace {

namespace fs = std::filesystem;

TEST(StageTable, NamesAndEventsAsDocumented) {
  struct Want {
    Stage s;
    const char *name, *start, *end, *column;
  };
  const Want want[] = {
      {Stage::kSynthesize, "synthesize", "SYNTH_START", "SYNTH_END", "synth_us"},
      {Stage::kPrepMsm, "prep_msm", "PREP_MSM_START", "PREP_MSM_END", "prep_msm_us"},
      {Stage::kPrestage, "prestage", "PRESTAGE_START", "PRESTAGE_END", "prestage_us"},
      {Stage::kLockWait, "lock_wait", "LOCK_WAIT_START", "GPU_START", "lock_wait_us"},
      {Stage::kGpuPhase, "gpu_phase", "GPU_START", "GPU_END", "lock_held_us"},
      {Stage::kNttH, "ntt_h", "", "NTT_H", "ntt_h_us"},
      {Stage::kBatchAdd, "batch_add", "", "BATCH_ADD", "batch_add_us"},
      {Stage::kTailMsm, "tail_msm", "", "TAIL_MSM", "tail_msm_us"},
      {Stage::kBG2Msm, "b_g2_msm", "B_G2_MSM_START", "B_G2_MSM_END", "b_g2_msm_us"},
      {Stage::kEpilogue, "epilogue", "", "FINALIZE_END", "epilogue_us"},
      {Stage::kDealloc, "dealloc", "DEALLOC_START", "DEALLOC_END", "dealloc_us"},
      {Stage::kWitness, "witness", "", "WITNESS_END", "witness_us"},
  };
  ASSERT_EQ(std::size(want), static_cast<std::size_t>(kStageCount));
  for (const Want& w : want) {
    const StageInfo& info = stage_info(w.s);
    EXPECT_STREQ(stage_name(w.s), w.name);
    EXPECT_EQ(info.start ? std::string(event_name(*info.start)) : std::string(), w.start) << w.name;
    EXPECT_STREQ(event_name(info.end), w.end) << w.name;
    EXPECT_STREQ(info.csv_column, w.column) << w.name;
  }
}

TEST(StageTable, OnlyTheThreeGpuSubStagesPassTheCheck) {
  for (const Stage s : {Stage::kNttH, Stage::kBatchAdd, Stage::kTailMsm}) EXPECT_EQ(checked_gpu_substage(s), s);
  for (const Stage bad : {Stage::kSynthesize, Stage::kGpuPhase, Stage::kBG2Msm, Stage::kDealloc}) {
    try {
      checked_gpu_substage(bad);
      ADD_FAILURE() << stage_name(bad) << " was accepted";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + stage_name(bad) + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("ntt_h, batch_add, tail_msm"), std::string::npos) << e.what();
    }
  }
}

TEST(StagesCsv, HeaderAndRowAsDocumented) {
  EXPECT_EQ(stages_csv_header(),
            "job,partition,worker,device,status,synth_us,prep_msm_us,queue_us,lock_wait_us,"
            "prestage_us,ntt_h_us,batch_add_us,tail_msm_us,gpu_total_us,lock_held_us,"
            "b_g2_msm_us,epilogue_us,dealloc_us,host_bytes,vram_peak_bytes,prestage,"
            "pre_destructor_us,abc_bytes,aux_bytes,density_bytes,witness_us\n");
  StageRow r;
  r.job = 3;
  r.partition = 1;
  r.worker = 0;
  r.device = 2;
  r.ok = false;
  r.us(Stage::kSynthesize) = 10;
  r.us(Stage::kPrepMsm) = 11;
  r.queue_us = 12;
  r.us(Stage::kLockWait) = 13;
  r.us(Stage::kNttH) = 15;
  r.us(Stage::kBatchAdd) = 16;
  r.us(Stage::kTailMsm) = 17;
  r.gpu_total_us = 48;
  r.us(Stage::kGpuPhase) = 50;
  r.us(Stage::kBG2Msm) = 51;
  r.us(Stage::kEpilogue) = 52;
  r.us(Stage::kDealloc) = 53;
  r.host_bytes = 1000;
  r.vram_peak_bytes = 2000;
  r.prestage = "skip_vram";
  r.pre_destructor_us = 7;
  r.abc_bytes = 600;
  r.aux_bytes = 300;
  r.density_bytes = 100;
  r.us(Stage::kWitness) = 9;
  // prestage_us not set: an empty field.
  EXPECT_EQ(stages_csv_line(r), "3,1,0,2,failed,10,11,12,13,,15,16,17,48,50,51,52,53,1000,2000,skip_vram,7,600,300,100,9\n");
  StageRow unset;
  EXPECT_EQ(stages_csv_line(unset), "0,0,,,ok,,,,,,,,,,,,,,0,0,empty,,0,0,0,\n");
}

TEST(StagesCsv, IntegerColumnsAreAllButStatusAndPrestage) {
  const auto ints = stages_csv_integer_columns();
  std::set<std::string> got(ints.begin(), ints.end());
  EXPECT_EQ(got.size(), ints.size());
  std::set<std::string> want;
  std::stringstream header(stages_csv_header().substr(0, stages_csv_header().size() - 1));
  for (std::string c; std::getline(header, c, ',');)
    if (c != "status" && c != "prestage") want.insert(c);
  EXPECT_EQ(got, want);
}

// Records every listener call, to compare with the TIMELINE.
class Listener final : public StageListener {
 public:
  std::uint64_t stage_begin(Stage s, const StageTag&) noexcept override {
    calls.push_back(std::string("begin ") + stage_name(s));
    return 0;
  }
  void stage_end(Stage s, std::uint64_t) noexcept override { calls.push_back(std::string("end ") + stage_name(s)); }
  std::vector<std::string> calls;
};

class StageScopeTest : public ::testing::Test {
 protected:
  fs::path path_ = fs::temp_directory_path() / ("prooflab_stage_scope_" + std::to_string(::getpid()) + ".csv");
  void TearDown() override { fs::remove(path_); }
};

TEST_F(StageScopeTest, EventsRangeAndFieldAgree) {
  TimelineRecorder tl(path_);
  Listener listener;
  tl.set_stage_listener(&listener);
  StageRow row;
  const StageTag tag{4, 2, 1, 0};
  {
    StageScope synth(tl, Stage::kSynthesize, tag, &row);
    StageScope witness = synth.begin_first_part(Stage::kWitness);
    witness.end();
    synth.end();
    StageScope wait(tl, Stage::kLockWait, tag, &row);
    StageScope gpu = wait.end_and_begin(Stage::kGpuPhase);
    StageScope sub(tl, Stage::kNttH, tag, &row);
    sub.end_reported(777);
    gpu.end();
    StageScope fin(tl, Stage::kEpilogue, tag, &row);
    fin.end("mode=inline");
    StageScope failed(tl, Stage::kDealloc, tag, &row);  // left without end(): it threw
  }
  tl.close();
  const auto rows = test::read_timeline(path_);
  std::vector<std::string> events;
  for (const auto& r : rows) {
    events.push_back(r.event);
    EXPECT_EQ(r.job, 4);
    EXPECT_EQ(r.partition, 2);
    EXPECT_EQ(r.worker, 1);
    EXPECT_EQ(r.device, 0);
  }
  // GPU_START once: the lock wait's end is the GPU phase's start.
  EXPECT_EQ(events, (std::vector<std::string>{"SYNTH_START", "WITNESS_END", "SYNTH_END", "LOCK_WAIT_START", "GPU_START", "NTT_H",
                                              "GPU_END", "FINALIZE_END", "DEALLOC_START"}));
  auto at = [&](const std::string& e) {
    for (const auto& r : rows)
      if (r.event == e) return r;
    ADD_FAILURE() << e << " missing";
    return test::Row{};
  };
  EXPECT_EQ(*row.us(Stage::kSynthesize), at("SYNTH_END").t - at("SYNTH_START").t);
  EXPECT_EQ(at("SYNTH_END").detail, "synth_us=" + std::to_string(*row.us(Stage::kSynthesize)));
  // The witness, synthesis's first part, starts at SYNTH_START.
  EXPECT_EQ(*row.us(Stage::kWitness), at("WITNESS_END").t - at("SYNTH_START").t);
  EXPECT_EQ(at("WITNESS_END").detail, "");
  EXPECT_EQ(*row.us(Stage::kLockWait), at("GPU_START").t - at("LOCK_WAIT_START").t);
  EXPECT_EQ(*row.us(Stage::kGpuPhase), at("GPU_END").t - at("GPU_START").t);
  EXPECT_EQ(*row.us(Stage::kNttH), 777);
  EXPECT_EQ(at("NTT_H").detail, "dur_us=777");
  EXPECT_EQ(at("FINALIZE_END").detail, "mode=inline");
  EXPECT_TRUE(row.us(Stage::kEpilogue).has_value());
  EXPECT_FALSE(row.us(Stage::kDealloc).has_value());  // no end, no duration
  EXPECT_FALSE(row.us(Stage::kPrestage).has_value());
  // Every range that began ended, the abandoned one included, in scope order.
  EXPECT_EQ(listener.calls,
            (std::vector<std::string>{"begin synthesize", "begin witness", "end witness", "end synthesize", "begin lock_wait", "end lock_wait",
                                      "begin gpu_phase", "begin ntt_h", "end ntt_h", "end gpu_phase",
                                      "begin epilogue", "end epilogue", "begin dealloc", "end dealloc"}));
}

}  // namespace
}  // namespace prooflab::trace
