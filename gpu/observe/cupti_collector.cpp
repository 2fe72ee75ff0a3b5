#include "gpu/observe/cupti_collector.hpp"

#include <cupti.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include "core/trace/dynamic_library.hpp"
#include "gpu/device_info.hpp"
#include "gpu/observe/cupti_rows.hpp"
#include "gpu/observe/nvtx_ranges.hpp"

namespace prooflab::gpu::observe {
namespace {

namespace fs = std::filesystem;

// The CUPTI entry points we use, resolved from the loaded library with the prototypes of
// the cupti.h this was compiled against (the version check below keeps them matching).
struct CuptiApi {
  std::string path;  // the library file, as the loader found it
  std::uint32_t version = 0;
  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityRegisterTimestampCallback) ActivityRegisterTimestampCallback = nullptr;
  decltype(&cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  decltype(&cuptiActivityFlushPeriod) ActivityFlushPeriod = nullptr;      // optional
  decltype(&cuptiActivityEnableAndDump) ActivityEnableAndDump = nullptr;  // optional

  std::string error(CUptiResult r) const {
    const char* s = nullptr;
    if (GetResultString && GetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "CUPTI error " + std::to_string(static_cast<int>(r));
  }
};

constexpr std::uint32_t kHeaderMajor = CUPTI_API_VERSION / 10000;

// Loaded once per process and never unloaded: NVTX keeps calling into it once it is the
// injection, and unloading CUPTI 13.0 leaves dangling state behind.
std::mutex g_load_mutex;
CuptiApi* g_api = nullptr;
std::string g_load_error;

const CuptiApi* load_cupti(const std::vector<std::string>& candidates, std::string* why) {
  std::lock_guard lock(g_load_mutex);
  if (g_api) return g_api;
  std::string tried;
  for (const auto& name : candidates) {
    void* h = trace::open_library(name, &tried);
    if (!h) continue;
    auto api = std::make_unique<CuptiApi>();
    std::string missing;
    auto sym = [&](auto& fn, const char* n, bool required) {
      trace::resolve_symbol(h, fn, n, required, &missing);
    };
    sym(api->GetVersion, "cuptiGetVersion", true);
    sym(api->GetResultString, "cuptiGetResultString", true);
    sym(api->ActivityEnable, "cuptiActivityEnable", true);
    sym(api->ActivityDisable, "cuptiActivityDisable", true);
    sym(api->ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks", true);
    sym(api->ActivityRegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback", true);
    sym(api->ActivityGetNextRecord, "cuptiActivityGetNextRecord", true);
    sym(api->ActivityFlushAll, "cuptiActivityFlushAll", true);
    sym(api->ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords", true);
    sym(api->ActivityFlushPeriod, "cuptiActivityFlushPeriod", false);
    sym(api->ActivityEnableAndDump, "cuptiActivityEnableAndDump", false);
    Dl_info info{};
    api->path =
        api->GetVersion && dladdr(reinterpret_cast<void*>(api->GetVersion), &info) && info.dli_fname
            ? info.dli_fname
            : name;
    if (!missing.empty()) {
      tried += (tried.empty() ? "" : "; ") + api->path + " lacks " + missing;
      continue;  // h stays loaded: harmless, and unloading a half-initialised CUPTI is not
    }
    std::error_code ec;
    const fs::path canon = fs::canonical(api->path, ec);
    if (!ec) api->path = canon.string();
    const CUptiResult r = api->GetVersion(&api->version);
    if (r != CUPTI_SUCCESS) {
      tried += (tried.empty() ? "" : "; ") + api->path + ": cuptiGetVersion: " + api->error(r);
      continue;
    }
    if (api->version / 10000 != kHeaderMajor) {
      // Activity record layouts are those of the cupti.h we were compiled with.
      tried += (tried.empty() ? "" : "; ") + api->path + " is CUPTI API version " +
               std::to_string(api->version) + ", this build reads the records of version " +
               std::to_string(CUPTI_API_VERSION) + " (major " + std::to_string(kHeaderMajor) +
               " needed)";
      continue;
    }
    g_api = api.release();
    return g_api;
  }
  *why = "libcupti not usable (tried: " + tried + ")";
  return nullptr;
}

std::uint64_t CUPTIAPI monotonic_timestamp() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

struct Kind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;
};
// CONCURRENT_KERNEL, never KERNEL: the KERNEL kind serialises every kernel launch.
constexpr Kind kKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},  // peer-to-peer copies
    // context -> device, for SYNC rows; enabled "and dumped", because the backend's contexts
    // exist before the collector starts (CUPTI attaches late)
    {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT", false},
};

}  // namespace

struct CuptiCollector::Impl {
  CuptiOptions opts;
  bool used = false, stopped = false;
  std::string reason, markers = "not requested";
  const CuptiApi* api = nullptr;
  std::vector<const Kind*> enabled;
  bool marker_enabled = false;
  std::string kinds_text;

  mutable std::mutex mutex;  // guards what follows
  CuptiRecordConverter converter;
  std::unique_ptr<CuptiCsv> csv;
  std::vector<CuptiRow> scratch;
  std::uint64_t dropped = 0, buffers = 0;
  std::vector<std::string> errors;
  std::int64_t epoch_ns = 0;
  std::map<int, std::vector<stats::Span>> kernel_spans_ns;  // KERNEL rows per device, ns on the epoch

  // The scratch rows to cupti.csv, their kernels to kernel_spans_ns.
  void write_scratch() {
    for (const CuptiRow& r : scratch)
      if (std::strcmp(r.kind, "KERNEL") == 0)
        kernel_spans_ns[r.device].push_back({static_cast<std::int64_t>(r.start_ns) - epoch_ns,
                                             static_cast<std::int64_t>(r.end_ns) - epoch_ns});
    csv->append(scratch);
  }

  void start(const fs::path& csv_path, std::int64_t epoch_ns);
  void consume(std::uint8_t* buffer, std::size_t valid);
  void poll_dropped();
  void unavailable(std::string why) {
    used = false;
    reason = std::move(why);
  }
};

namespace {

// The collection CUPTI's callbacks deliver to (one per process at a time), and how many
// callbacks are inside it, so that stop() can wait for them before the collector goes.
std::mutex g_lifecycle;
std::atomic<CuptiCollector::Impl*> g_active{nullptr};
std::atomic<int> g_in_callback{0};

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size,
                                  std::size_t* max_records) {
  g_in_callback.fetch_add(1);
  const CuptiCollector::Impl* c = g_active.load();
  std::size_t bytes = c ? c->opts.buffer_bytes : (1u << 20);
  bytes = (bytes + 7) & ~std::size_t{7};  // records are 8-byte aligned
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer ? bytes : 0;  // a null buffer makes CUPTI drop records (counted)
  *max_records = 0;
  g_in_callback.fetch_sub(1);
}

void CUPTIAPI on_buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                  std::size_t valid) {
  g_in_callback.fetch_add(1);
  if (CuptiCollector::Impl* c = g_active.load(); c && buffer) c->consume(buffer, valid);
  g_in_callback.fetch_sub(1);
  std::free(buffer);
}

}  // namespace

std::vector<std::string> default_cupti_library_candidates() {
  const std::string soname = "libcupti.so." + std::to_string(kHeaderMajor);
  std::vector<std::string> c;
  if (const char* e = std::getenv("PROOFLAB_CUPTI_LIBRARY"); e && *e) c.emplace_back(e);
  c.push_back(soname);
  for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")),
                           static_cast<const char*>(std::getenv("CUDA_PATH")), "/usr/local/cuda"}) {
    if (!home || !*home) continue;
    c.push_back(std::string(home) + "/extras/CUPTI/lib64/" + soname);
    c.push_back(std::string(home) + "/lib64/" + soname);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) c.push_back((exe.parent_path() / soname).string());
  c.emplace_back("libcupti.so");
  return c;
}

void CuptiCollector::Impl::start(const fs::path& csv_path, std::int64_t epoch_ns) {
  std::lock_guard life(g_lifecycle);
  if (g_active.load()) return unavailable("another CUPTI collection is running in this process");
  std::string why;
  api = load_cupti(opts.library_candidates.empty() ? default_cupti_library_candidates()
                                                   : opts.library_candidates,
                   &why);
  if (!api) return unavailable(why);
  if (gpu::list_devices(&why).empty()) return unavailable("no CUDA device: " + why);

  // NVTX ranges reach CUPTI only if libcupti is NVTX's injection, which NVTX reads from
  // NVTX_INJECTION64_PATH at the process's first NVTX call.
  bool want_markers = false;
  if (!opts.markers) {
    markers = "switched off";
  } else {
    const NvtxProcessState nvtx = nvtx_process_state();
    const char* env = std::getenv("NVTX_INJECTION64_PATH");
    if (nvtx.initialised && !(nvtx.injection.size() && same_file(nvtx.injection, api->path))) {
      markers =
          "not collected: NVTX was initialised earlier in this process with "
          "NVTX_INJECTION64_PATH='" +
          nvtx.injection + "', and NVTX reads it only once";
    } else if (env && *env && !same_file(env, api->path)) {
      markers = std::string("not collected: NVTX_INJECTION64_PATH names another tool (") + env +
                "), which receives the ranges";
    } else {
      want_markers = true;  // NVTX_INJECTION64_PATH is set once MARKER is enabled, below
    }
  }

  CUptiResult r = api->ActivityRegisterTimestampCallback(monotonic_timestamp);
  if (r != CUPTI_SUCCESS)
    return unavailable("cuptiActivityRegisterTimestampCallback: " + api->error(r));
  r = api->ActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  if (r != CUPTI_SUCCESS) return unavailable("cuptiActivityRegisterCallbacks: " + api->error(r));
  if (api->ActivityFlushPeriod) {
    r = api->ActivityFlushPeriod(opts.flush_period_ms);
    if (r != CUPTI_SUCCESS) errors.push_back("cuptiActivityFlushPeriod: " + api->error(r));
  }
  try {
    csv = std::make_unique<CuptiCsv>(csv_path, epoch_ns);
  } catch (const std::exception& e) {
    return unavailable(e.what());
  }
  g_active.store(this);
  std::string optional_failures;
  for (const Kind& k : kKinds) {
    r = k.kind == CUPTI_ACTIVITY_KIND_CONTEXT && api->ActivityEnableAndDump
            ? api->ActivityEnableAndDump(k.kind)
            : api->ActivityEnable(k.kind);
    if (r == CUPTI_SUCCESS) {
      enabled.push_back(&k);
      kinds_text += (kinds_text.empty() ? "" : ", ") + std::string(k.name);
      continue;
    }
    const std::string what = std::string("cuptiActivityEnable(") + k.name + "): " + api->error(r);
    if (!k.required) {
      optional_failures += "; " + what;
      continue;
    }
    for (const Kind* e : enabled) api->ActivityDisable(e->kind);
    enabled.clear();
    g_active.store(nullptr);
    while (g_in_callback.load() > 0) std::this_thread::yield();
    csv.reset();
    std::error_code ec;
    fs::remove(csv_path, ec);  // nothing half-written is left behind
    return unavailable(what);
  }
  if (want_markers) {
    r = api->ActivityEnable(CUPTI_ACTIVITY_KIND_MARKER);
    marker_enabled = r == CUPTI_SUCCESS;
    // Only now, so that a collector that did not start leaves NVTX alone (no listener is
    // installed while the variable is unset).
    if (marker_enabled) setenv("NVTX_INJECTION64_PATH", api->path.c_str(), 1);
    markers =
        marker_enabled
            ? "collected: libcupti is the NVTX injection (NVTX_INJECTION64_PATH=" + api->path + ")"
            : "not collected: cuptiActivityEnable(MARKER): " + api->error(r);
    if (marker_enabled) kinds_text += ", MARKER";
  }
  used = true;
  reason = "CUPTI activity API, libcupti " + std::to_string(api->version) + ": " + kinds_text +
           "; timestamps on CLOCK_MONOTONIC (the TIMELINE's clock)" + optional_failures;
}

void CuptiCollector::Impl::poll_dropped() {
  std::size_t d = 0;
  if (api->ActivityGetNumDroppedRecords(nullptr, 0, &d) == CUPTI_SUCCESS) dropped += d;
}

void CuptiCollector::Impl::consume(std::uint8_t* buffer, std::size_t valid) {
  std::lock_guard lock(mutex);
  if (!csv) return;
  scratch.clear();
  CUpti_Activity* record = nullptr;
  for (;;) {
    const CUptiResult r = api->ActivityGetNextRecord(buffer, valid, &record);
    if (r == CUPTI_SUCCESS) {
      converter.add(record, scratch);
      continue;
    }
    if (r != CUPTI_ERROR_MAX_LIMIT_REACHED && errors.size() < 8)
      errors.push_back("cuptiActivityGetNextRecord: " + api->error(r));
    break;
  }
  write_scratch();
  ++buffers;
  poll_dropped();
}

CuptiCollector::CuptiCollector(fs::path csv_path, std::int64_t epoch_ns, CuptiOptions opts)
    : impl_(std::make_unique<Impl>()) {
  impl_->opts = std::move(opts);
  impl_->epoch_ns = epoch_ns;
  impl_->start(csv_path, epoch_ns);
}

CuptiCollector::~CuptiCollector() { stop(); }

bool CuptiCollector::active() const { return impl_->used && !impl_->stopped; }

void CuptiCollector::stop() {
  Impl& c = *impl_;
  if (!c.used || c.stopped) return;
  std::lock_guard life(g_lifecycle);
  const CuptiApi& api = *c.api;
  std::vector<std::string> errors;
  // Completed buffers first, then (kinds disabled, nothing new comes) everything, including
  // records CUPTI could not complete; those count as incomplete, not as rows.
  CUptiResult r = api.ActivityFlushAll(0);
  if (r != CUPTI_SUCCESS) errors.push_back("cuptiActivityFlushAll: " + api.error(r));
  for (const Kind* k : c.enabled) api.ActivityDisable(k->kind);
  if (c.marker_enabled) api.ActivityDisable(CUPTI_ACTIVITY_KIND_MARKER);
  r = api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (r != CUPTI_SUCCESS) errors.push_back("cuptiActivityFlushAll(forced): " + api.error(r));
  if (api.ActivityFlushPeriod) api.ActivityFlushPeriod(0);
  g_active.store(nullptr);
  while (g_in_callback.load() > 0) std::this_thread::yield();
  std::lock_guard lock(c.mutex);
  c.errors.insert(c.errors.end(), errors.begin(), errors.end());
  c.poll_dropped();
  c.scratch.clear();
  c.converter.finish(monotonic_timestamp(), c.scratch);
  if (c.csv) c.write_scratch();
  c.csv.reset();
  c.stopped = true;
  if (c.dropped > 0)
    c.reason += "; " + std::to_string(c.dropped) + " records dropped (CUPTI found no buffer space)";
}

std::map<int, std::vector<stats::Span>> CuptiCollector::kernel_spans_ns() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->kernel_spans_ns;
}

std::uint64_t CuptiCollector::dropped() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->dropped;
}

nlohmann::json CuptiCollector::status_json() const {
  const Impl& c = *impl_;
  nlohmann::json j = {{"status", c.used ? "used" : "unavailable"}, {"reason", c.reason}};
  if (!c.used) return j;
  std::lock_guard lock(c.mutex);
  j["library"] = c.api->path;
  j["version"] = c.api->version;
  j["markers"] = c.markers;
  j["rows"] = c.converter.counts().rows();
  j["records"] = c.converter.counts().to_json();
  j["dropped"] = c.dropped;
  j["buffers"] = c.buffers;
  if (!c.errors.empty()) j["errors"] = c.errors;
  return j;
}

std::string CuptiCollector::summary() const {
  const Impl& c = *impl_;
  if (!c.used) return "cupti: unavailable (" + c.reason + ")";
  std::lock_guard lock(c.mutex);
  const CuptiCounts& n = c.converter.counts();
  std::string s = "cupti: " + std::to_string(n.rows()) + " rows (KERNEL " +
                  std::to_string(n.kernel) + ", MEMCPY " + std::to_string(n.memcpy) + ", MEMSET " +
                  std::to_string(n.memset) + ", SYNC " + std::to_string(n.sync) + ", MARKER " +
                  std::to_string(n.marker) + "), " + std::to_string(c.dropped) + " dropped, " +
                  std::to_string(n.incomplete) + " incomplete";
  if (!c.marker_enabled) s += "; NVTX ranges " + c.markers;
  if (!c.errors.empty()) s += "; " + c.errors.front();
  return s;
}

}  // namespace prooflab::gpu::observe
