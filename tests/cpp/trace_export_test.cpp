// `prooflab trace`: a run directory becomes Chrome trace-event JSON with the tracks the
// layout promises (GPU workers with nested sub-stages, CUDA streams, packed CPU stage
// lanes, job spans, counters), and no track holds two slices that overlap without nesting.
// Inputs: a hand-written run directory, and one made by the engine with the counter sampler.
// The CSV readers are strict: errors name the file, the line and its content.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/circuits/circuit.hpp"
#include "core/engine/cpu_backend.hpp"
#include "core/engine/engine.hpp"
#include "core/groth16/setup.hpp"
#include "harness/counters/sampler.hpp"
#include "harness/trace_export/trace_export_chrome.hpp"
#include "harness/trace_export/trace_export_csv.hpp"

namespace {

using namespace prooflab;
using namespace prooflab::harness::trace_export;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kTimeline = R"csv(t_us,event,job,partition,worker,device,detail
0,JOB_SUBMIT,0,,,,
10,JOB_SUBMIT,1,,,,
20,SYNTH_START,0,0,,,
25,SYNTH_START,0,1,,,
30,SYNTH_START,1,0,,,
100,SYNTH_END,0,0,,,synth_us=80
100,PREP_MSM_START,0,0,,,
110,SYNTH_END,0,1,,,synth_us=85
110,PREP_MSM_START,0,1,,,
120,PREP_MSM_END,0,0,,,
120,GPU_QUEUE,0,0,,,
125,GPU_PICKUP,0,0,0,0,
125,B_G2_MSM_START,0,0,0,0,
126,LOCK_WAIT_START,0,0,0,0,
130,PREP_MSM_END,0,1,,,
130,GPU_QUEUE,0,1,,,
130,GPU_START,0,0,0,0,
132,GPU_PICKUP,0,1,1,0,
132,B_G2_MSM_START,0,1,1,0,
133,LOCK_WAIT_START,0,1,1,0,
140,THROTTLE_ON,,,,,
150,SYNTH_END,1,0,,,synth_us=120
150,PREP_MSM_START,1,0,,,
160,PREP_MSM_END,1,0,,,
160,GPU_QUEUE,1,0,,,
180,NTT_H,0,0,0,0,dur_us=45
200,BATCH_ADD,0,0,0,0,dur_us=20
228,TAIL_MSM,0,0,0,0,dur_us=28
230,GPU_END,0,0,0,0,
231,GPU_START,0,1,1,0,
235,GPU_PICKUP,1,0,0,0,
235,B_G2_MSM_START,1,0,0,0,
236,LOCK_WAIT_START,1,0,0,0,
260,THROTTLE_OFF,,,,,
280,NTT_H,0,1,1,0,dur_us=49
300,BATCH_ADD,0,1,1,0,dur_us=20
329,TAIL_MSM,0,1,1,0,dur_us=29
330,GPU_END,0,1,1,0,
331,GPU_START,1,0,0,0,
380,NTT_H,1,0,0,0,dur_us=60
400,BATCH_ADD,1,0,0,0,dur_us=20
419,TAIL_MSM,1,0,0,0,dur_us=19
420,GPU_END,1,0,0,0,
260,B_G2_MSM_END,0,0,0,0,
260,DEALLOC_START,0,0,0,0,
300,DEALLOC_END,0,0,0,0,
350,B_G2_MSM_END,0,1,1,0,
350,DEALLOC_START,0,1,1,0,
380,DEALLOC_END,0,1,1,0,
380,PROOF_DONE,0,,,,
385,JOB_DONE,0,,,,
430,B_G2_MSM_END,1,0,0,0,
430,DEALLOC_START,1,0,0,0,
450,DEALLOC_END,1,0,0,0,
455,JOB_FAILED,1,,,,reason=out of device memory
)csv";

constexpr const char* kCupti = R"csv(kind,device,stream,name,start_us,end_us,bytes,correlation
MEMCPY,0,13,HtoD,129.5,140.25,1048576,1
KERNEL,0,7,"void ntt<int, 3>(Fr*)",141,175,,2
KERNEL,0,7,msm_tail,201,226.5,,3
MARKER,0,,NTT_H,135,180,,
SYNC,0,,cudaDeviceSynchronize,226.5,229,,
)csv";

constexpr const char* kCounters = R"csv(t_us,source,metric,value,unit
100,probe,bandwidth,11.5,GB/s
100,proc,tlb_shootdowns,0,1/s
200,probe,bandwidth,7.25,GB/s
200,proc,tlb_shootdowns,120.5,1/s
300,probe,bandwidth,9,GB/s
300,proc,tlb_shootdowns,4000,1/s
)csv";

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

fs::path temp_dir(const std::string& what) {
  const fs::path d =
      fs::temp_directory_path() / ("prooflab_trace_" + std::to_string(::getpid()) + "_" + what);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

fs::path fixture_run(const std::string& status = "complete") {
  const fs::path d = temp_dir("fixture_" + status);
  write(d / "run.json", json{{"run_id", "fixture"}, {"status", status}}.dump());
  write(d / "timeline.csv", kTimeline);
  write(d / "cupti.csv", kCupti);
  write(d / "counters.csv", kCounters);
  return d;
}

json export_trace(const fs::path& dir, TraceSummary* summary = nullptr) {
  const auto run = load_run_tables(dir);
  std::ostringstream out;
  const auto sum = write_chrome_trace(run, out);
  if (summary) *summary = sum;
  return json::parse(out.str());  // throws on invalid JSON
}

struct Tracks {
  std::map<int, std::string> process;                  // pid -> name
  std::map<std::pair<int, int>, std::string> thread;   // (pid, tid) -> name
  std::map<std::pair<int, int>, std::vector<json>> x;  // complete events per track
  std::map<std::string, std::size_t> counters;         // counter name -> points
  std::vector<json> async, instants;

  std::set<std::string> thread_names(const std::string& process_name) const {
    std::set<std::string> out;
    for (const auto& [key, name] : thread)
      if (process.count(key.first) && process.at(key.first) == process_name) out.insert(name);
    return out;
  }
  std::vector<json> slices(const std::string& process_name, const std::string& thread_name) const {
    for (const auto& [key, name] : thread)
      if (name == thread_name && process.at(key.first) == process_name)
        return x.count(key) ? x.at(key) : std::vector<json>{};
    return {};
  }
};

Tracks collect(const json& trace) {
  Tracks t;
  EXPECT_TRUE(trace.is_object());
  EXPECT_TRUE(trace["traceEvents"].is_array());
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    const int pid = e.at("pid");
    if (ph == "M" && e["name"] == "process_name") t.process[pid] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name")
      t.thread[{pid, e["tid"].get<int>()}] = e["args"]["name"];
    if (ph == "X") {
      EXPECT_GE(e["ts"].get<double>(), 0.0) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0) << e.dump();
      t.x[{pid, e["tid"].get<int>()}].push_back(e);
    }
    if (ph == "C") {
      ++t.counters[e["name"]];
      EXPECT_EQ(e["args"].size(), 1u) << e.dump();
      EXPECT_TRUE(e["args"].begin()->is_number()) << e.dump();
    }
    if (ph == "b" || ph == "e") t.async.push_back(e);
    if (ph == "i") t.instants.push_back(e);
  }
  return t;
}

// Within one track, slices either do not overlap or nest (one inside the other); with
// allow_nesting false they must not overlap at all. Returns the deepest nesting seen.
int check_no_overlap(const std::vector<json>& slices, const std::string& track,
                     bool allow_nesting) {
  std::vector<std::pair<double, double>> iv;
  for (const auto& s : slices)
    iv.emplace_back(s["ts"].get<double>(), s["ts"].get<double>() + s["dur"].get<double>());
  // Parents before their children: by start, then the longer first.
  std::sort(iv.begin(), iv.end(), [](auto a, auto b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<double> open_ends;
  int depth = 0;
  for (const auto& [s, e] : iv) {
    while (!open_ends.empty() && open_ends.back() <= s) open_ends.pop_back();
    if (!open_ends.empty()) {
      EXPECT_TRUE(allow_nesting) << track << ": [" << s << ", " << e
                                 << ") overlaps a slice ending at " << open_ends.back();
      EXPECT_LE(e, open_ends.back())
          << track << ": [" << s << ", " << e << ") overlaps without nesting";
    }
    open_ends.push_back(e);
    depth = std::max(depth, static_cast<int>(open_ends.size()));
  }
  return depth;
}

void check_all_tracks(const Tracks& t) {
  for (const auto& [key, slices] : t.x) {
    ASSERT_TRUE(t.thread.count(key))
        << "slices on an unnamed track " << key.first << "/" << key.second;
    const std::string name = t.process.at(key.first) + " / " + t.thread.at(key);
    const bool gpu_worker = t.process.at(key.first).find("(TIMELINE)") != std::string::npos;
    const int depth = check_no_overlap(slices, name, gpu_worker);
    if (gpu_worker) EXPECT_LE(depth, 2) << name;
  }
}

TEST(TraceExport, FixtureHasEveryTrack) {
  TraceSummary sum;
  const json trace = export_trace(fixture_run(), &sum);
  EXPECT_TRUE(sum.warnings.empty()) << sum.warnings.front();
  EXPECT_EQ(trace["otherData"]["run_id"], "fixture");
  const Tracks t = collect(trace);

  std::set<std::string> processes;
  for (const auto& [pid, name] : t.process) processes.insert(name);
  EXPECT_EQ(processes, (std::set<std::string>{"GPU device 0 (TIMELINE)", "GPU device 0 (CUPTI)",
                                              "CPU stages", "Counters", "Jobs"}));
  EXPECT_EQ(t.thread_names("GPU device 0 (TIMELINE)"),
            (std::set<std::string>{"worker 0", "worker 1"}));
  EXPECT_EQ(t.thread_names("GPU device 0 (CUPTI)"),
            (std::set<std::string>{"stream 7", "stream 13", "NVTX", "sync"}));
  // Three partitions synthesize at once: three synthesis lanes; b_g2_msm overlaps too.
  const auto cpu = t.thread_names("CPU stages");
  for (const char* n : {"synthesis", "synthesis (2)", "synthesis (3)", "prep_msm", "b_g2_msm",
                        "b_g2_msm (2)", "dealloc", "throttle"})
    EXPECT_TRUE(cpu.count(n)) << n;
  EXPECT_FALSE(cpu.count("synthesis (4)"));
  check_all_tracks(t);

  EXPECT_EQ(t.counters.at("probe/bandwidth"), 3u);
  EXPECT_EQ(t.counters.at("proc/tlb_shootdowns"), 3u);
  EXPECT_EQ(sum.counter_points, 6u);
}

TEST(TraceExport, GpuSlicesNestTheirSubStages) {
  const Tracks t = collect(export_trace(fixture_run()));
  const auto w0 = t.slices("GPU device 0 (TIMELINE)", "worker 0");
  std::map<std::string, std::vector<json>> by_name;
  for (const auto& s : w0) by_name[s["name"]].push_back(s);
  ASSERT_EQ(by_name["job 0 p 0"].size(), 1u);
  ASSERT_EQ(by_name["job 1 p 0"].size(), 1u);
  EXPECT_EQ(by_name["job 0 p 0"][0]["ts"], 130);
  EXPECT_EQ(by_name["job 0 p 0"][0]["dur"], 100);
  EXPECT_EQ(by_name["lock wait"].size(), 2u);
  ASSERT_EQ(by_name["NTT_H"].size(), 2u);
  // Job 0's NTT_H ended at 180 after 45 µs; job 1's claims 60 µs but its GPU phase began
  // at 331, so it is clipped to the parent.
  std::set<std::pair<int, int>> ntt;
  for (const auto& s : by_name["NTT_H"]) ntt.emplace(s["ts"].get<int>(), s["dur"].get<int>());
  EXPECT_EQ(ntt, (std::set<std::pair<int, int>>{{135, 45}, {331, 49}}));
  EXPECT_EQ(by_name["TAIL_MSM"].size(), 2u);
  EXPECT_EQ(by_name["BATCH_ADD"].size(), 2u);
}

TEST(TraceExport, JobSpansAndInstants) {
  const Tracks t = collect(export_trace(fixture_run()));
  std::map<std::string, std::vector<std::string>> phases;
  for (const auto& e : t.async) phases[e["name"]].push_back(e["ph"]);
  EXPECT_EQ(phases["job 0"], (std::vector<std::string>{"b", "e"}));
  EXPECT_EQ(phases["job 1 (failed)"], (std::vector<std::string>{"b", "e"}));
  std::set<std::string> instants;
  for (const auto& e : t.instants) instants.insert(e["name"]);
  EXPECT_TRUE(instants.count("proof done (job 0)"));
  EXPECT_TRUE(instants.count("job failed (job 1)"));
}

TEST(TraceExport, InterruptedRunEndsOpenSlicesAtTheLastEvent) {
  const fs::path d = fixture_run("interrupted");
  // Cut the timeline after job 1's GPU_START, mid-line (a killed writer).
  std::string tl = kTimeline;
  tl = tl.substr(0, tl.find("380,NTT_H,1,0")) + "380,NTT_H,1,";
  write(d / "timeline.csv", tl);
  TraceSummary sum;
  const auto run = load_run_tables(d);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].find("cut-off last line"), std::string::npos) << run.warnings[0];
  const Tracks t = collect(export_trace(d, &sum));
  check_all_tracks(t);
  bool unfinished = false;
  for (const auto& s : t.slices("GPU device 0 (TIMELINE)", "worker 0"))
    unfinished = unfinished || s["name"] == "job 1 p 0 (unfinished)";
  EXPECT_TRUE(unfinished);
}

TEST(TraceExport, NoCuptiNoCountersStillExports) {
  const fs::path d = fixture_run("complete");
  fs::remove(d / "cupti.csv");
  fs::remove(d / "counters.csv");
  const Tracks t = collect(export_trace(d));
  for (const auto& [pid, name] : t.process) {
    EXPECT_NE(name, "Counters");
    EXPECT_NE(name, "GPU device 0 (CUPTI)");
  }
  EXPECT_TRUE(t.counters.empty());
}

TEST(TraceExport, PackLanesUsesTheFewestLanes) {
  auto s = [](double ts, double dur) {
    Slice x;
    x.ts = ts;
    x.dur = dur;
    return x;
  };
  // [0,10) [10,20) touch: one lane; [5,15) overlaps both: a second lane, free again for
  // [16,17).
  const auto lanes = pack_lanes({s(0, 10), s(10, 10), s(5, 10), s(16, 1)});
  EXPECT_EQ(lanes[0], lanes[1]);
  EXPECT_NE(lanes[0], lanes[2]);
  EXPECT_EQ(*std::max_element(lanes.begin(), lanes.end()), 1);
  EXPECT_EQ(lanes[2], lanes[3]);
  // Three slices open at t = 12: three lanes.
  const auto three = pack_lanes({s(0, 10), s(10, 10), s(5, 10), s(12, 1)});
  EXPECT_EQ(*std::max_element(three.begin(), three.end()), 2);
  EXPECT_TRUE(pack_lanes({}).empty());
}

// ------------------------------------------------------------------ strict CSV reading

std::string load_error(const fs::path& d) {
  try {
    load_run_tables(d);
  } catch (const RunFormatError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceExportCsv, ErrorsNameFileLineAndContent) {
  const fs::path d = fixture_run();
  std::string tl = kTimeline;
  tl.replace(tl.find("150,SYNTH_END,1,0"), 17, "15x,SYNTH_END,1,0");
  write(d / "timeline.csv", tl);
  const std::string err = load_error(d);
  EXPECT_NE(err.find("timeline.csv:23:"), std::string::npos) << err;
  EXPECT_NE(err.find("column t_us: '15x' is not an integer"), std::string::npos) << err;
  EXPECT_NE(err.find("'15x,SYNTH_END,1,0,,,synth_us=120'"), std::string::npos) << err;
}

TEST(TraceExportCsv, StructuralErrors) {
  const fs::path d = fixture_run();
  write(d / "timeline.csv", "t_us,event,job,partition,worker,device\n0,JOB_SUBMIT,0,,,\n");
  EXPECT_NE(load_error(d).find("missing column 'detail'"), std::string::npos) << load_error(d);
  write(d / "timeline.csv",
        std::string("t_us,event,job,partition,worker,device,detail\n0,JOB_SUBMIT,0,,,\n"));
  EXPECT_NE(load_error(d).find("6 fields where the header has 7"), std::string::npos)
      << load_error(d);
  write(d / "timeline.csv",
        std::string("t_us,event,job,partition,worker,device,detail\n0,job_submit,0,,,,\n"));
  EXPECT_NE(load_error(d).find("not an upper-case event name"), std::string::npos) << load_error(d);
  write(d / "timeline.csv",
        std::string("t_us,event,job,partition,worker,device,detail\n\n0,JOB_SUBMIT,0,,,,\n"));
  EXPECT_NE(load_error(d).find("timeline.csv:2: blank line"), std::string::npos) << load_error(d);
  write(d / "timeline.csv",
        std::string("t_us,event,job,partition,worker,device,detail\n-5,JOB_SUBMIT,0,,,,\n"));
  EXPECT_NE(load_error(d).find("'-5' is negative"), std::string::npos) << load_error(d);
  write(d / "timeline.csv", kTimeline);
  write(d / "cupti.csv",
        "kind,device,stream,name,start_us,end_us,bytes,correlation\nLAUNCH,0,7,k,1,2,,\n");
  EXPECT_NE(load_error(d).find("kind 'LAUNCH'"), std::string::npos) << load_error(d);
  write(d / "cupti.csv",
        "kind,device,stream,name,start_us,end_us,bytes,correlation\nKERNEL,0,7,\"k,2,3,,\n");
  EXPECT_NE(load_error(d).find("unterminated quoted field"), std::string::npos) << load_error(d);
  write(d / "cupti.csv",
        "kind,device,stream,name,start_us,end_us,bytes,correlation\nKERNEL,0,7,k,5,2,,\n");
  EXPECT_NE(load_error(d).find("end_us 2 is before start_us 5"), std::string::npos)
      << load_error(d);
  write(d / "cupti.csv", kCupti);
  write(d / "counters.csv", "t_us,source,metric,value,unit\n100,probe,bandwidth,fast,GB/s\n");
  EXPECT_NE(load_error(d).find("counters.csv:2: column value: 'fast' is not a number"),
            std::string::npos)
      << load_error(d);
}

TEST(TraceExportCsv, CutOffLastLineOfACompleteRunIsAnError) {
  const fs::path d = fixture_run("complete");
  write(d / "counters.csv", std::string(kCounters) + "400,probe,band");
  EXPECT_NE(load_error(d).find("counters.csv:8:"), std::string::npos) << load_error(d);
}

TEST(TraceExportCsv, ExtraColumnsAndQuotesAndCrLf) {
  const fs::path d = fixture_run();
  write(d / "counters.csv",
        "t_us,source,metric,value,unit,extra\r\n100,\"pro,be\",bandwidth,1e1,GB/s,x\r\n");
  const auto run = load_run_tables(d);
  ASSERT_EQ(run.counters.size(), 1u);
  EXPECT_EQ(run.counters[0].source, "pro,be");
  EXPECT_DOUBLE_EQ(run.counters[0].value, 10.0);
  EXPECT_EQ(split_csv_line("a,\"b \"\"c\"\"\",,d"),
            (std::vector<std::string>{"a", "b \"c\"", "", "d"}));
  EXPECT_THROW(split_csv_line("a,b\"c"), std::invalid_argument);
  EXPECT_THROW(split_csv_line("\"a\"b"), std::invalid_argument);
}

TEST(TraceExportCsv, NotARunDirectory) {
  const fs::path d = temp_dir("empty");
  EXPECT_NE(load_error(d).find("not a run directory"), std::string::npos);
}

// ------------------------------------------------------- a run made by the engine

TEST(TraceExport, EngineRunWithCounters) {
  parallel::ThreadPool pool(2);
  const auto circuit = circuits::make_circuit("porep-like", 1024, 0);
  const auto cs = circuits::synthesize_shape(*circuit);
  const auto pk = groth16::generate_parameters(cs, groth16::ToxicWaste::generate(3), pool);
  engine::EngineConfig cfg;
  cfg.circuit = "porep-like";
  cfg.constraints = 1024;
  cfg.partitions = 3;
  cfg.count = 3;
  cfg.concurrency = 2;
  cfg.synth_threads = cfg.gpu_threads = cfg.device_threads = 2;
  cfg.verify = false;

  const fs::path dir = temp_dir("engine");
  harness::counters::CounterOptions copts;
  copts.selection = "probe,proc";
  copts.sources = {"probe", "proc"};
  copts.period_ms = 10;
  copts.probe_bytes = 256 << 10;
  copts.probe_ring_bytes = 4 << 20;
  {
    trace::RunDirectory run_dir(dir, {{"run_id", "engine"}, {"config", cfg.to_json()}});
    trace::TimelineRecorder tl(run_dir.timeline_path());
    harness::counters::CounterSampler sampler(dir / "counters.csv", tl.epoch_ns(), copts);
    run_dir.set_metadata("counters", sampler.status_json());
    engine::CpuBackend backend(1, cfg.vram_limit, cfg.device_threads);
    engine::EngineInputs in{cfg, backend, pk, cs, tl, &run_dir, {}, nullptr};
    const auto result = engine::run_batch(in);
    sampler.stop();
    run_dir.set_metadata("counters", sampler.status_json());
    tl.close();
    run_dir.finish("complete", result.summary);
  }
  const json meta = json::parse(std::ifstream(dir / "run.json"));
  EXPECT_EQ(meta["counters"]["probe"]["status"], "used");
  EXPECT_EQ(meta["counters"]["likwid"]["reason"], "switched off (--counters probe,proc)");

  TraceSummary sum;
  const Tracks t = collect(export_trace(dir, &sum));
  EXPECT_TRUE(sum.warnings.empty()) << sum.warnings.front();
  const auto workers = t.thread_names("GPU device 0 (TIMELINE)");
  EXPECT_TRUE(workers.count("worker 0"));
  EXPECT_TRUE(workers.count("worker 1"));  // gw = 2 by default
  EXPECT_TRUE(t.thread_names("CPU stages").count("synthesis"));
  check_all_tracks(t);
  // Every partition's GPU phase is there, with its three sub-stages.
  std::size_t gpu = 0, sub = 0;
  for (const auto& [key, slices] : t.x)
    for (const auto& s : slices) {
      const std::string n = s["name"];
      if (n.rfind("job ", 0) == 0 && t.process.at(key.first).find("TIMELINE") != std::string::npos)
        ++gpu;
      if (n == "NTT_H" || n == "BATCH_ADD" || n == "TAIL_MSM") ++sub;
    }
  EXPECT_EQ(gpu, 9u);
  EXPECT_EQ(sub, 27u);
  EXPECT_GT(t.counters.at("probe/bandwidth"), 0u);
  EXPECT_GT(t.counters.at("proc/rss_bytes"), 0u);
  fs::remove_all(dir);
}

}  // namespace
