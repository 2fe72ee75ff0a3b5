// GPU observability (docs/gpu.md "Observability"): the CUPTI collector, NVTX stage ranges and
// the NVML counter source.
//
// On a GPU machine (the device machine) the GpuObserve cases run a kernel, copies, a memset,
// synchronisations and an NVTX range inside a collection and check cupti.csv row by row; they
// print what they observed, so a failure shows the rows and run.json's status. Elsewhere they
// skip with the CUDA runtime's reason, and the cases below check that the collector and the
// NVML source report "unavailable" with a reason and leave no file behind, and check the
// record conversion and the CSV writer on synthetic CUPTI records.
//
// Order matters within one process: NVTX reads NVTX_INJECTION64_PATH once, at its first call,
// so the GPU collection case comes before any case that makes an NVTX call. (ctest runs every
// case in its own process; running the binary as a whole keeps this order.)
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine/config.hpp"
#include "core/trace/stage_listener.hpp"
#include "core/trace/timeline.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/field/field_ops.hpp"
#include "gpu/observe/cupti_collector.hpp"
#include "gpu/observe/cupti_rows.hpp"
#include "gpu/observe/nvtx_ranges.hpp"
#include "harness/counters/nvml_source.hpp"
#include "harness/gpu_observation.hpp"
#include "harness/trace_export/trace_export_csv.hpp"

namespace {

using namespace prooflab;
using gpu::observe::CuptiCollector;
using gpu::observe::CuptiRow;
using harness::trace_export::CuptiRecord;
namespace fs = std::filesystem;

std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("prooflab_observe_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// cupti.csv through the harness' strict reader (the contract's rules, as `prooflab trace`
// and the analysis apply them): a malformed file fails here, naming the line.
std::vector<CuptiRecord> read_cupti_strict(const fs::path& dir) {
  std::ofstream(dir / "run.json") << R"({"status": "complete"})";
  const auto tables = harness::trace_export::load_run_tables(dir);
  EXPECT_TRUE(tables.has_cupti);
  EXPECT_TRUE(tables.warnings.empty());
  return tables.cupti;
}

bool have_gpu(std::string* why) { return !gpu::list_devices(why).empty(); }

// ---- without CUPTI at all (runs everywhere; first, before a real libcupti is loaded) ----

TEST(CuptiUnavailable, MissingLibraryIsTheReasonAndNoFileIsWritten) {
  const fs::path dir = fresh_dir("nolib");
  gpu::observe::CuptiOptions opts;
  opts.library_candidates = {"libprooflab-no-such-cupti.so.13"};
  CuptiCollector c(dir / "cupti.csv", now_ns(), opts);
  const auto st = c.status_json();
  std::printf("%s\n", st.dump().c_str());
  if (st["status"] == "used")
    GTEST_SKIP() << "a libcupti was already loaded in this process (the library is loaded once)";
  EXPECT_FALSE(c.active());
  EXPECT_EQ(st["status"], "unavailable");
  EXPECT_NE(st["reason"].get<std::string>().find("libprooflab-no-such-cupti.so.13"),
            std::string::npos);
  c.stop();
  EXPECT_FALSE(fs::exists(dir / "cupti.csv"));
  fs::remove_all(dir);
}

// ---- on a GPU ----

TEST(GpuObserve, CollectsKernelsCopiesSetsSyncsAndRangesOnTheRunClock) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  const fs::path dir = fresh_dir("collect");
  const std::int64_t epoch = now_ns();
  CuptiCollector collector(dir / "cupti.csv", epoch);
  ASSERT_TRUE(collector.active()) << collector.status_json().dump(2);
  // After the collector: NVTX's first call (the domain) loads libcupti as its injection.
  gpu::observe::NvtxStageListener nvtx;

  constexpr std::size_t n = 1 << 16;
  const std::size_t bytes = n * sizeof(gpu::field::Fr32);
  std::vector<unsigned char> host(bytes, 0);
  const std::int64_t t0 = now_ns();
  const std::uint64_t range = nvtx.stage_begin(trace::Stage::kNttH, {1, 2, 0, 0});
  cudaStream_t stream = nullptr;
  gpu::field::Fr32 *a = nullptr, *b = nullptr, *out = nullptr;
  gpu::check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  gpu::check_cuda(cudaMalloc(&a, bytes), "cudaMalloc");
  gpu::check_cuda(cudaMalloc(&b, bytes), "cudaMalloc");
  gpu::check_cuda(cudaMalloc(&out, bytes), "cudaMalloc");
  gpu::check_cuda(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
  gpu::check_cuda(cudaMemsetAsync(b, 0, bytes, stream), "cudaMemsetAsync");
  gpu::field::apply(gpu::field::FieldOp::kAdd, a, b, out, n, stream);
  gpu::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  gpu::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  gpu::check_cuda(cudaMemcpy(host.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
  nvtx.stage_end(trace::Stage::kNttH, range);
  const std::int64_t t1 = now_ns();
  cudaFree(a);
  cudaFree(b);
  cudaFree(out);
  cudaStreamDestroy(stream);
  collector.stop();

  const auto status = collector.status_json();
  std::printf("status: %s\n%s\n", status.dump(2).c_str(), collector.summary().c_str());
  const std::string csv = slurp(dir / "cupti.csv");
  SCOPED_TRACE("cupti.csv:\n" + csv + "run window: " + std::to_string((t0 - epoch) / 1e3) + " .. " +
               std::to_string((t1 - epoch) / 1e3) + " us");
  std::printf("cupti.csv:\n%s", csv.c_str());
  EXPECT_EQ(status["status"], "used");
  EXPECT_EQ(status["dropped"], 0);
  EXPECT_EQ(status["records"]["incomplete"], 0);
  EXPECT_EQ(status["markers"].get<std::string>().rfind("collected", 0), 0u) << status["markers"];

  const auto rows = read_cupti_strict(dir);
  const double lo = (t0 - epoch) / 1e3, hi = (t1 - epoch) / 1e3;
  // GPU timestamps are converted to the host clock by CUPTI's interpolation; allow it 50 µs.
  constexpr double kSlackUs = 50;
  std::map<std::string, int> kinds;
  std::set<std::pair<std::string, std::int64_t>> copies, sets;  // (direction, bytes)
  std::set<std::string> syncs;
  bool kernel_named = false, range_seen = false;
  for (const auto& r : rows) {
    ++kinds[r.kind];
    EXPECT_EQ(r.device, 0) << r.kind << " " << r.name;
    EXPECT_GE(r.start_us, lo - kSlackUs) << r.kind << " " << r.name << " starts before the window";
    EXPECT_LE(r.end_us, hi + kSlackUs) << r.kind << " " << r.name << " ends after the window";
    EXPECT_LE(r.start_us, r.end_us) << r.kind << " " << r.name;
    if (r.kind == "KERNEL") {
      kernel_named = kernel_named || r.name.find("prooflab") != std::string::npos;
      EXPECT_NE(r.stream, harness::trace_export::kEmpty);
      EXPECT_NE(r.correlation, harness::trace_export::kEmpty);
    }
    if (r.kind == "MEMCPY") copies.insert({r.name, r.bytes});
    if (r.kind == "MEMSET") sets.insert({r.name, r.bytes});
    if (r.kind == "SYNC") syncs.insert(r.name);
    if (r.kind == "MARKER" && r.name == "ntt_h job=1 partition=2 worker=0 device=0") {
      range_seen = true;
      // A host range: both ends on the host clock, inside the window without slack.
      EXPECT_GE(r.start_us, lo);
      EXPECT_LE(r.end_us, hi);
    }
  }
  EXPECT_GE(kinds["KERNEL"], 1);
  EXPECT_TRUE(kernel_named) << "no KERNEL row names a prooflab kernel (demangled)";
  const auto nbytes = static_cast<std::int64_t>(bytes);
  EXPECT_TRUE(copies.count({"HtoD", nbytes})) << "no HtoD MEMCPY row of " << nbytes << " bytes";
  EXPECT_TRUE(copies.count({"DtoH", nbytes})) << "no DtoH MEMCPY row of " << nbytes << " bytes";
  EXPECT_TRUE(sets.count({"", nbytes})) << "no MEMSET row of " << nbytes << " bytes";
  EXPECT_TRUE(syncs.count("stream_synchronize")) << "no SYNC row for cudaStreamSynchronize";
  EXPECT_TRUE(syncs.count("context_synchronize")) << "no SYNC row for cudaDeviceSynchronize";
  EXPECT_TRUE(range_seen) << "no MARKER row for the NVTX range";
  EXPECT_EQ(status["rows"].get<std::uint64_t>(), rows.size());
  fs::remove_all(dir);
}

TEST(GpuObserve, NvmlReadsPlausibleValues) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
  void* held = nullptr;  // some memory in use, whatever else runs
  gpu::check_cuda(cudaMalloc(&held, 256u << 20), "cudaMalloc");
  harness::counters::NvmlSource nvml;
  const auto st = nvml.start(now_ns());
  std::printf("nvml: %s\n", st.reason.c_str());
  ASSERT_TRUE(st.used) << st.reason;
  std::vector<harness::counters::Reading> out;
  nvml.sample(now_ns(), out);
  nvml.stop();
  cudaFree(held);
  std::map<std::string, double> v;
  for (const auto& r : out) {
    std::printf("  %s %s = %g %s\n", r.source, r.metric, r.value, r.unit);
    v[std::string(r.source) + "/" + r.metric] = r.value;
  }
  ASSERT_TRUE(v.count("nvml0/gpu_mem_used"));
  EXPECT_GT(v["nvml0/gpu_mem_used"], 256.0 * (1 << 20));
  ASSERT_TRUE(v.count("nvml0/sm_clock"));
  EXPECT_GT(v["nvml0/sm_clock"], 0);
  EXPECT_LT(v["nvml0/sm_clock"], 5000);
  if (v.count("nvml0/gpu_util")) {
    EXPECT_GE(v["nvml0/gpu_util"], 0);
    EXPECT_LE(v["nvml0/gpu_util"], 100);
  }
  if (v.count("nvml0/power")) {
    EXPECT_GT(v["nvml0/power"], 1);     // an idle H200 draws ~70-100 W
    EXPECT_LT(v["nvml0/power"], 2000);  // watts, not milliwatts
  }
}

// ---- without a GPU ----

TEST(CuptiUnavailable, WithoutAGpuSaysWhyAndWritesNothing) {
  std::string why;
  if (have_gpu(&why)) GTEST_SKIP() << "a GPU is present: the GpuObserve cases cover it";
  const fs::path dir = fresh_dir("nogpu");
  CuptiCollector c(dir / "cupti.csv", now_ns());
  const auto st = c.status_json();
  std::printf("%s\n%s\n", st.dump().c_str(), c.summary().c_str());
  EXPECT_FALSE(c.active());
  EXPECT_EQ(st["status"], "unavailable");
  const std::string reason = st["reason"];
  // libcupti present (CUDA toolkit) but no device, or no libcupti at all.
  EXPECT_TRUE(reason.rfind("no CUDA device: ", 0) == 0 ||
              reason.rfind("libcupti not usable", 0) == 0)
      << reason;
  EXPECT_EQ(c.summary(), "cupti: unavailable (" + reason + ")");
  c.stop();
  EXPECT_FALSE(fs::exists(dir / "cupti.csv"));
  fs::remove_all(dir);
}

TEST(NvmlUnavailable, WithoutAGpuSaysWhy) {
  std::string why;
  if (have_gpu(&why))
    GTEST_SKIP() << "a GPU is present: GpuObserve.NvmlReadsPlausibleValues covers it";
  harness::counters::NvmlSource nvml;
  const auto st = nvml.start(now_ns());
  std::printf("nvml: %s\n", st.reason.c_str());
  EXPECT_FALSE(st.reason.empty());
  if (!st.used) {
    std::vector<harness::counters::Reading> out;
    nvml.sample(now_ns(), out);
    EXPECT_TRUE(out.empty());
  }
  nvml.stop();
}

// ---- the run's glue (harness/gpu_observation.hpp, what batch_runner uses) ----

TEST(GpuObservation, CollectsOnlyForCudaWithCuptiOnAndSaysWhyOtherwise) {
  const fs::path dir = fresh_dir("glue");
  trace::TimelineRecorder timeline{fs::path()};
  engine::EngineConfig cfg;
  cfg.backend = "cpu";
  {
    harness::GpuObservation o(cfg, dir, timeline);
    EXPECT_EQ(o.cupti_status()["status"], "unavailable");
    EXPECT_EQ(o.cupti_status()["reason"], "the cpu backend ran: no CUDA activity to collect");
    EXPECT_EQ(o.summary(), "");
  }
  cfg.backend = "cuda";
  cfg.cupti = false;
  {
    harness::GpuObservation o(cfg, dir, timeline);
    EXPECT_EQ(o.cupti_status()["reason"], "switched off (config key cupti = off)");
  }
  EXPECT_FALSE(fs::exists(dir / "cupti.csv"));
  cfg.cupti = true;
  std::string why;
  const bool gpu = have_gpu(&why);
  {
    harness::GpuObservation o(cfg, dir, timeline);
    std::printf("%s\n%s\n", o.cupti_status().dump().c_str(), o.summary().c_str());
    EXPECT_EQ(o.cupti_status()["status"], gpu ? "used" : "unavailable");
    EXPECT_EQ(o.summary().rfind(gpu ? "cupti: " : "cupti: unavailable (", 0), 0u) << o.summary();
    o.stop();
    EXPECT_EQ(timeline.stage_listener(), nullptr);
  }
  EXPECT_EQ(fs::exists(dir / "cupti.csv"), gpu);
  if (gpu) EXPECT_EQ(slurp(dir / "cupti.csv").rfind(gpu::observe::kCuptiCsvHeader, 0), 0u);
  fs::remove_all(dir);
}

// ---- record conversion and the CSV writer, on synthetic records (no GPU needed) ----

CUpti_ActivityKernel10 kernel(std::uint64_t start, std::uint64_t end, const char* name) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = 1;
  k.contextId = 7;
  k.streamId = 13;
  k.correlationId = 99;
  k.name = name;
  return k;
}

CUpti_ActivityMarker2 marker(std::uint32_t id, unsigned flags, std::uint64_t t, const char* name,
                             const char* domain = gpu::observe::kNvtxDomain) {
  CUpti_ActivityMarker2 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.id = id;
  m.timestamp = t;
  m.name = name;
  m.domain = domain;
  return m;
}

template <class R>
const CUpti_Activity* as_activity(const R& r) {
  return reinterpret_cast<const CUpti_Activity*>(&r);
}

TEST(CuptiRecords, KernelsCopiesAndSetsBecomeRows) {
  gpu::observe::CuptiRecordConverter conv;
  std::vector<CuptiRow> out;
  const auto k = kernel(2'000'500, 2'003'750, "_ZN8prooflab3gpu4testILi3EEEvv");
  conv.add(as_activity(k), out);
  CUpti_ActivityMemcpy6 c{};
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  c.bytes = 4096;
  c.start = 1'000'000;
  c.end = 1'500'000;
  c.deviceId = 1;
  c.contextId = 7;
  c.streamId = 13;
  c.correlationId = 5;
  conv.add(as_activity(c), out);
  CUpti_ActivityMemcpyPtoP4 p{};
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.bytes = 64;
  p.start = 10;
  p.end = 20;
  p.deviceId = 2;
  p.contextId = 8;
  conv.add(as_activity(p), out);
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 512;
  s.start = 30;
  s.end = 40;
  s.deviceId = 1;
  s.contextId = 7;
  s.streamId = 14;
  conv.add(as_activity(s), out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_STREQ(out[0].kind, "KERNEL");
  EXPECT_EQ(out[0].name, "void prooflab::gpu::test<3>()");
  EXPECT_EQ(out[0].device, 1);
  EXPECT_EQ(out[0].stream, 13);
  EXPECT_EQ(out[0].correlation, 99);
  EXPECT_EQ(out[0].bytes, -1);
  EXPECT_STREQ(out[1].kind, "MEMCPY");
  EXPECT_EQ(out[1].name, "HtoD");
  EXPECT_EQ(out[1].bytes, 4096);
  EXPECT_STREQ(out[2].kind, "MEMCPY");
  EXPECT_EQ(out[2].name, "PtoP");
  EXPECT_EQ(out[2].device, 2);
  EXPECT_STREQ(out[3].kind, "MEMSET");
  EXPECT_EQ(out[3].bytes, 512);
  EXPECT_EQ(out[3].name, "");
  const auto& n = conv.counts();
  EXPECT_EQ(n.kernel, 1u);
  EXPECT_EQ(n.memcpy, 2u);
  EXPECT_EQ(n.memset, 1u);
  // µs on the epoch, three decimals, exact; empty fields empty.
  EXPECT_EQ(gpu::observe::format_cupti_row(out[0], 1'000'000),
            "KERNEL,1,13,void prooflab::gpu::test<3>(),1000.500,1003.750,,99\n");
  EXPECT_EQ(gpu::observe::format_cupti_row(out[1], 1'000'250),
            "MEMCPY,1,13,HtoD,-0.250,499.750,4096,5\n");
}

TEST(CuptiRecords, IncompleteRecordsAreCountedNotWritten) {
  gpu::observe::CuptiRecordConverter conv;
  std::vector<CuptiRow> out;
  const auto k1 = kernel(100, 0, "k");    // end never taken
  const auto k2 = kernel(200, 150, "k");  // end before start
  conv.add(as_activity(k1), out);
  conv.add(as_activity(k2), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(conv.counts().incomplete, 2u);
}

TEST(CuptiRecords, SyncRowsTakeTheirContextsDevice) {
  gpu::observe::CuptiRecordConverter conv;
  std::vector<CuptiRow> out;
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.start = 10;
  s.end = 20;
  s.contextId = 4;
  s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  s.correlationId = 3;
  conv.add(as_activity(s), out);
  EXPECT_TRUE(out.empty());  // context 4's device not known yet
  CUpti_ActivityContext3 ctx{};
  ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  ctx.contextId = 4;
  ctx.deviceId = 3;
  conv.add(as_activity(ctx), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_STREQ(out[0].kind, "SYNC");
  EXPECT_EQ(out[0].device, 3);
  EXPECT_EQ(out[0].stream, -1);
  EXPECT_EQ(out[0].name, "context_synchronize");
  out.clear();
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.streamId = 21;
  conv.add(as_activity(s), out);  // known context: at once
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].stream, 21);
  EXPECT_EQ(out[0].name, "stream_synchronize");
  out.clear();
  s.contextId = 5;  // a context no record places: the only device seen, at the end
  conv.add(as_activity(s), out);
  EXPECT_TRUE(out.empty());
  conv.finish(1000, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].device, 3);
  EXPECT_EQ(conv.counts().sync_device_guessed, 1u);
}

TEST(CuptiRecords, NvtxRangesArePairedWhicheverEndComesFirst) {
  gpu::observe::CuptiRecordConverter conv;
  std::vector<CuptiRow> out;
  const unsigned kStart = CUPTI_ACTIVITY_FLAG_MARKER_START, kEnd = CUPTI_ACTIVITY_FLAG_MARKER_END;
  // In order, with the device taken from the name.
  conv.add(as_activity(marker(1, kStart, 100, "ntt_h job=1 partition=2 worker=0 device=2")), out);
  EXPECT_TRUE(out.empty());
  conv.add(as_activity(marker(1, kEnd, 300, nullptr, nullptr)), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_STREQ(out[0].kind, "MARKER");
  EXPECT_EQ(out[0].name, "ntt_h job=1 partition=2 worker=0 device=2");
  EXPECT_EQ(out[0].device, 2);
  EXPECT_EQ(out[0].start_ns, 100u);
  EXPECT_EQ(out[0].end_ns, 300u);
  EXPECT_EQ(out[0].stream, -1);
  out.clear();
  // The end's buffer delivered first (ranges ended on another thread).
  conv.add(as_activity(marker(2, kEnd, 500, nullptr, nullptr)), out);
  conv.add(as_activity(marker(2, kStart, 400, "synthesize job=0 partition=1")), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].device, 0);  // a host stage: no device
  EXPECT_EQ(out[0].start_ns, 400u);
  EXPECT_EQ(out[0].end_ns, 500u);
  out.clear();
  // Another domain keeps its name; an instantaneous marker is a zero-length row.
  conv.add(as_activity(marker(3, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 600, "tick", "nccl")),
           out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "nccl: tick");
  EXPECT_EQ(out[0].start_ns, out[0].end_ns);
  out.clear();
  // At the end: a range still open runs to the end, an end without start is dropped.
  conv.add(as_activity(marker(4, kStart, 700, "dealloc job=3 partition=0 worker=1 device=0")), out);
  conv.add(as_activity(marker(5, kEnd, 800, nullptr, nullptr)), out);
  conv.finish(900, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "dealloc job=3 partition=0 worker=1 device=0 (unfinished)");
  EXPECT_EQ(out[0].end_ns, 900u);
  EXPECT_EQ(conv.counts().unfinished_markers, 1u);
  EXPECT_EQ(conv.counts().orphan_marker_ends, 1u);
  EXPECT_EQ(conv.counts().marker, 4u);
}

TEST(CuptiRecords, StageMessagesAndDevices) {
  char buf[96];
  EXPECT_STREQ(
      gpu::observe::format_stage_message(trace::Stage::kTailMsm, {4, 9, 1, 0}, buf, sizeof buf),
      "tail_msm job=4 partition=9 worker=1 device=0");
  EXPECT_STREQ(
      gpu::observe::format_stage_message(trace::Stage::kSynthesize, {4, 9}, buf, sizeof buf),
      "synthesize job=4 partition=9");
  char tiny[8];
  EXPECT_STREQ(
      gpu::observe::format_stage_message(trace::Stage::kEpilogue, {1, 2, 3, 4}, tiny, sizeof tiny),
      "epilogu");
  EXPECT_EQ(gpu::observe::device_of_range_name("gpu_phase job=1 partition=0 worker=0 device=12"),
            12);
  EXPECT_EQ(gpu::observe::device_of_range_name("prep_msm job=1 partition=0"), 0);
  EXPECT_EQ(gpu::observe::device_of_range_name("x device="), 0);
}

// The writer's output passes the contract's strict reader, quoting included.
TEST(CuptiRecords, CsvPassesTheStrictReader) {
  const fs::path dir = fresh_dir("csv");
  const std::int64_t epoch = 5'000'000;
  {
    gpu::observe::CuptiCsv csv(dir / "cupti.csv", epoch);
    std::vector<CuptiRow> rows(3);
    rows[0].kind = "KERNEL";
    rows[0].stream = 7;
    rows[0].name = "void k<int, 3>(const char*, \"q\")";
    rows[0].start_ns = 5'001'234;
    rows[0].end_ns = 5'002'000;
    rows[0].correlation = 1;
    rows[1].kind = "MARKER";
    rows[1].device = 1;
    rows[1].name = "gpu_phase job=0 partition=0 worker=0 device=1";
    rows[1].start_ns = 5'000'000;
    rows[1].end_ns = 5'010'001;
    rows[2].kind = "SYNC";
    rows[2].name = "context_synchronize";
    rows[2].start_ns = 5'003'000;
    rows[2].end_ns = 5'003'000;
    csv.append(rows);
    EXPECT_EQ(csv.rows(), 3u);
  }
  const std::string text = slurp(dir / "cupti.csv");
  EXPECT_EQ(text.substr(0, text.find('\n') + 1), gpu::observe::kCuptiCsvHeader);
  const auto rows = read_cupti_strict(dir);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "void k<int, 3>(const char*, \"q\")");
  EXPECT_DOUBLE_EQ(rows[0].start_us, 1.234);
  EXPECT_DOUBLE_EQ(rows[0].end_us, 2.0);
  EXPECT_EQ(rows[0].bytes, harness::trace_export::kEmpty);
  EXPECT_EQ(rows[1].device, 1);
  EXPECT_EQ(rows[1].stream, harness::trace_export::kEmpty);
  EXPECT_DOUBLE_EQ(rows[1].end_us, 10.001);
  EXPECT_EQ(rows[2].correlation, harness::trace_export::kEmpty);
  fs::remove_all(dir);
}

// Last: makes the process's first NVTX call without a tool, which is a no-op.
TEST(NvtxRanges, WithoutAToolRangesAreNoOps) {
  if (gpu::observe::nvtx_process_state().initialised)
    GTEST_SKIP() << "NVTX already initialised in this process";
  if (gpu::observe::nvtx_tool_attached()) GTEST_SKIP() << "NVTX_INJECTION64_PATH is set";
  gpu::observe::NvtxStageListener nvtx;
  const auto state = gpu::observe::nvtx_process_state();
  EXPECT_TRUE(state.initialised);
  EXPECT_EQ(state.injection, "");
  trace::StageRange r(&nvtx, trace::Stage::kGpuPhase, {0, 0, 0, 0});
  r.end();
  r.end();  // idempotent
}

}  // namespace
