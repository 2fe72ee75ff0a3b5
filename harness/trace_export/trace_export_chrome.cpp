#include "harness/trace_export/trace_export_chrome.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <queue>
#include <set>
#include <tuple>

namespace prooflab::harness::trace_export {

std::vector<int> pack_lanes(const std::vector<Slice>& slices) {
  std::vector<std::size_t> order(slices.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(slices[a].ts, slices[a].dur) < std::tie(slices[b].ts, slices[b].dur);
  });
  // (end of the lane's last slice, lane): the lane that frees up first is reused.
  using Free = std::pair<double, int>;
  std::priority_queue<Free, std::vector<Free>, std::greater<>> lanes;
  std::vector<int> out(slices.size(), 0);
  int n_lanes = 0;
  for (const std::size_t i : order) {
    const double end = slices[i].ts + slices[i].dur;
    int lane;
    if (!lanes.empty() && lanes.top().first <= slices[i].ts) {
      lane = lanes.top().second;
      lanes.pop();
    } else {
      lane = n_lanes++;
    }
    lanes.emplace(end, lane);
    out[i] = lane;
  }
  return out;
}

namespace {

// Process ids (pid) of the trace and their order in the viewer.
constexpr int kJobsPid = 1, kCpuPid = 2, kCountersPid = 3;
int gpu_pid(int device) { return 10 + 2 * device; }
int cupti_pid(int device) { return 11 + 2 * device; }

nlohmann::json num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

class Writer {
 public:
  Writer(std::ostream& out, TraceSummary& sum) : out_(out), sum_(sum) {}
  void emit(const nlohmann::json& e) {
    out_ << (first_ ? "\n" : ",\n") << e.dump();
    first_ = false;
    ++sum_.events;
  }
  void process(int pid, const std::string& name, int sort) {
    emit({{"ph", "M"},
          {"pid", pid},
          {"tid", 0},
          {"name", "process_name"},
          {"args", {{"name", name}}}});
    emit({{"ph", "M"},
          {"pid", pid},
          {"tid", 0},
          {"name", "process_sort_index"},
          {"args", {{"sort_index", sort}}}});
  }
  void thread(int pid, int tid, const std::string& name) {
    emit({{"ph", "M"},
          {"pid", pid},
          {"tid", tid},
          {"name", "thread_name"},
          {"args", {{"name", name}}}});
    emit({{"ph", "M"},
          {"pid", pid},
          {"tid", tid},
          {"name", "thread_sort_index"},
          {"args", {{"sort_index", tid}}}});
    ++sum_.tracks;
  }
  void slice(int pid, int tid, const Slice& s, const char* cat) {
    nlohmann::json e = {{"ph", "X"},         {"pid", pid},     {"tid", tid}, {"ts", num(s.ts)},
                        {"dur", num(s.dur)}, {"name", s.name}, {"cat", cat}};
    if (!s.args.empty()) e["args"] = s.args;
    emit(e);
    ++sum_.slices;
  }

 private:
  std::ostream& out_;
  TraceSummary& sum_;
  bool first_ = true;
};

// Children of a slice, made to nest: inside the parent, in time order, not overlapping.
void nest_children(Slice& parent) {
  auto& ch = parent.children;
  std::stable_sort(ch.begin(), ch.end(),
                   [](const Slice& a, const Slice& b) { return a.ts + a.dur < b.ts + b.dur; });
  const double parent_end = parent.ts + parent.dur;
  double prev_end = parent.ts;
  for (auto& c : ch) {
    const double end = std::clamp(c.ts + c.dur, prev_end, parent_end);
    c.ts = std::clamp(c.ts, prev_end, end);
    c.dur = end - c.ts;
    prev_end = end;
  }
}

// A logical track; write_track turns it into one thread per lane.
void write_track(Writer& w, int pid, int& next_tid, const std::string& name,
                 std::vector<Slice> slices, const char* cat) {
  if (slices.empty()) return;
  for (auto& s : slices) nest_children(s);
  const auto lanes = pack_lanes(slices);
  const int n_lanes = *std::max_element(lanes.begin(), lanes.end()) + 1;
  const int first_tid = next_tid;
  for (int lane = 0; lane < n_lanes; ++lane)
    w.thread(pid, next_tid++, lane == 0 ? name : name + " (" + std::to_string(lane + 1) + ")");
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const int tid = first_tid + lanes[i];
    w.slice(pid, tid, slices[i], cat);
    for (const auto& c : slices[i].children) w.slice(pid, tid, c, cat);
  }
}

using Key = std::pair<int, int>;  // (job, partition)

struct Interval {
  const TimelineEvent* start;
  const TimelineEvent* end;  // null: never ended (a killed run)
};

// START/END pairs per (job, partition), in time order; unmatched ENDs are warnings.
std::vector<Interval> pair_events(const std::vector<const TimelineEvent*>& events,
                                  const std::string& start, const std::string& end,
                                  std::vector<std::string>& warnings) {
  std::map<Key, std::vector<const TimelineEvent*>> open;
  std::vector<Interval> out;
  for (const TimelineEvent* e : events) {
    if (e->event == start) open[{e->job, e->partition}].push_back(e);
    if (e->event != end) continue;
    auto it = open.find({e->job, e->partition});
    if (it == open.end() || it->second.empty()) {
      warnings.push_back("timeline.csv:" + std::to_string(e->line) + ": " + end + " without " +
                         start + " (job " + std::to_string(e->job) + ", partition " +
                         std::to_string(e->partition) + ")");
      continue;
    }
    out.push_back({it->second.front(), e});
    it->second.erase(it->second.begin());
  }
  for (auto& [key, starts] : open)
    for (const auto* s : starts) out.push_back({s, nullptr});
  return out;
}

std::string job_partition(int job, int partition) {
  return "job " + std::to_string(job) + " p " + std::to_string(partition);
}

nlohmann::json ids(const TimelineEvent& e) {
  nlohmann::json a = nlohmann::json::object();
  if (e.job != kEmpty) a["job"] = e.job;
  if (e.partition != kEmpty) a["partition"] = e.partition;
  if (e.worker != kEmpty) a["worker"] = e.worker;
  if (e.device != kEmpty) a["device"] = e.device;
  return a;
}

// A slice for an interval; one that never ended runs to the end of the recording.
Slice interval_slice(const Interval& iv, std::string name, double run_end_us) {
  Slice s;
  s.ts = static_cast<double>(iv.start->t_us);
  const double end = iv.end ? static_cast<double>(iv.end->t_us) : std::max(run_end_us, s.ts);
  s.dur = std::max(0.0, end - s.ts);
  s.args = ids(*iv.start);
  if (!iv.end) {
    name += " (unfinished)";
    s.args["unfinished"] = true;
  }
  s.name = std::move(name);
  return s;
}

struct WorkerKey {
  int device, worker;
  bool operator<(const WorkerKey& o) const {
    return std::tie(device, worker) < std::tie(o.device, o.worker);
  }
};

WorkerKey worker_of(const Interval& iv) {
  WorkerKey k{iv.start->device, iv.start->worker};
  if (iv.end && k.device == kEmpty) k.device = iv.end->device;
  if (iv.end && k.worker == kEmpty) k.worker = iv.end->worker;
  if (k.device == kEmpty) k.device = 0;
  return k;
}

void write_gpu_workers(Writer& w, const std::vector<const TimelineEvent*>& events, double run_end,
                       std::map<int, int>& next_tid, std::set<int>& devices, TraceSummary& sum) {
  std::map<WorkerKey, std::vector<Slice>> tracks;
  // GPU phases, with their sub-stages nested.
  std::map<Key, std::pair<WorkerKey, std::size_t>> gpu_slice;  // (job, partition) -> its slice
  for (const auto& iv : pair_events(events, "GPU_START", "GPU_END", sum.warnings)) {
    const WorkerKey k = worker_of(iv);
    auto& v = tracks[k];
    v.push_back(interval_slice(iv, job_partition(iv.start->job, iv.start->partition), run_end));
    gpu_slice[{iv.start->job, iv.start->partition}] = {k, v.size() - 1};
  }
  for (const TimelineEvent* e : events) {
    if (e->event != "NTT_H" && e->event != "BATCH_ADD" && e->event != "TAIL_MSM") continue;
    const auto it = gpu_slice.find({e->job, e->partition});
    const std::string dur_text = detail_value(e->detail, "dur_us");
    char* end = nullptr;
    const double dur = std::strtod(dur_text.c_str(), &end);
    if (it == gpu_slice.end() || dur_text.empty() || *end != '\0' || dur < 0) {
      sum.warnings.push_back("timeline.csv:" + std::to_string(e->line) + ": " + e->event +
                             (it == gpu_slice.end()
                                  ? " outside any GPU_START..GPU_END of its partition"
                                  : " without a valid dur_us in '" + e->detail + "'"));
      continue;
    }
    Slice c;
    c.ts = static_cast<double>(e->t_us) - dur;
    c.dur = dur;
    c.name = e->event;
    c.args = ids(*e);
    c.args["dur_us"] = num(dur);
    tracks[it->second.first][it->second.second].children.push_back(std::move(c));
  }
  for (const auto& iv : pair_events(events, "LOCK_WAIT_START", "GPU_START", sum.warnings))
    if (iv.end) tracks[worker_of(iv)].push_back(interval_slice(iv, "lock wait", run_end));
  for (const auto& iv : pair_events(events, "PRESTAGE_START", "PRESTAGE_END", sum.warnings)) {
    const std::string how = iv.end ? detail_value(iv.end->detail, "prestage") : "";
    tracks[worker_of(iv)].push_back(
        interval_slice(iv, how.empty() ? "prestage" : "prestage (" + how + ")", run_end));
  }
  for (auto& [k, slices] : tracks) {
    const int pid = gpu_pid(k.device);
    next_tid.try_emplace(pid, 1);
    if (devices.insert(k.device).second)
      w.process(pid, "GPU device " + std::to_string(k.device) + " (TIMELINE)", pid);
    const std::string name = k.worker == kEmpty ? "worker ?" : "worker " + std::to_string(k.worker);
    write_track(w, pid, next_tid[pid], name, std::move(slices), "gpu");
  }
}

void write_cpu_stages(Writer& w, const std::vector<const TimelineEvent*>& events, double run_end,
                      TraceSummary& sum) {
  struct Stage {
    const char *name, *start, *end;
  };
  constexpr Stage kStages[] = {{"synthesis", "SYNTH_START", "SYNTH_END"},
                               {"prep_msm", "PREP_MSM_START", "PREP_MSM_END"},
                               {"b_g2_msm", "B_G2_MSM_START", "B_G2_MSM_END"},
                               {"dealloc", "DEALLOC_START", "DEALLOC_END"}};
  std::vector<std::pair<std::string, std::vector<Slice>>> tracks;
  for (const auto& st : kStages) {
    std::vector<Slice> slices;
    for (const auto& iv : pair_events(events, st.start, st.end, sum.warnings))
      slices.push_back(
          interval_slice(iv, job_partition(iv.start->job, iv.start->partition), run_end));
    tracks.emplace_back(st.name, std::move(slices));
  }
  // THROTTLE_ON/OFF are global: the throttle is up from the first ON to the matching OFF.
  std::vector<Slice> throttle;
  int depth = 0;
  for (const TimelineEvent* e : events) {
    if (e->event == "THROTTLE_ON" && depth++ == 0) {
      Slice s;
      s.ts = static_cast<double>(e->t_us);
      s.name = "throttle";
      throttle.push_back(s);
    } else if (e->event == "THROTTLE_OFF") {
      if (depth == 0) {
        sum.warnings.push_back("timeline.csv:" + std::to_string(e->line) +
                               ": THROTTLE_OFF without THROTTLE_ON");
        continue;
      }
      if (--depth == 0) throttle.back().dur = static_cast<double>(e->t_us) - throttle.back().ts;
    }
  }
  if (depth > 0) {
    throttle.back().dur = std::max(0.0, run_end - throttle.back().ts);
    throttle.back().name += " (unfinished)";
  }
  tracks.emplace_back("throttle", std::move(throttle));

  bool any = false;
  for (const auto& t : tracks) any = any || !t.second.empty();
  if (!any) return;
  w.process(kCpuPid, "CPU stages", 1000);
  int next_tid = 1;
  for (auto& [name, slices] : tracks)
    write_track(w, kCpuPid, next_tid, name, std::move(slices), "cpu");
}

void write_jobs(Writer& w, const std::vector<const TimelineEvent*>& events, double run_end,
                TraceSummary& sum) {
  struct Job {
    const TimelineEvent *submit = nullptr, *end = nullptr;
  };
  std::map<int, Job> jobs;
  std::vector<const TimelineEvent*> instants;
  for (const TimelineEvent* e : events) {
    if (e->job == kEmpty) continue;
    if (e->event == "JOB_SUBMIT" && !jobs[e->job].submit) jobs[e->job].submit = e;
    if ((e->event == "JOB_DONE" || e->event == "JOB_FAILED") && !jobs[e->job].end)
      jobs[e->job].end = e;
    if (e->event == "PROOF_DONE" || e->event == "JOB_FAILED") instants.push_back(e);
  }
  if (jobs.empty() && instants.empty()) return;
  w.process(kJobsPid, "Jobs", 1002);
  w.thread(kJobsPid, 1, "job events");
  for (const auto& [job, j] : jobs) {
    if (!j.submit) {
      sum.warnings.push_back("job " + std::to_string(job) + " has no JOB_SUBMIT; no job span");
      continue;
    }
    const bool failed = j.end && j.end->event == "JOB_FAILED";
    const std::string name = "job " + std::to_string(job) +
                             (failed  ? " (failed)"
                              : j.end ? ""
                                      : " (unfinished)");
    const double end = j.end ? static_cast<double>(j.end->t_us)
                             : std::max(run_end, static_cast<double>(j.submit->t_us));
    nlohmann::json args = {{"job", job}};
    if (j.end) args["latency_us"] = num(end - static_cast<double>(j.submit->t_us));
    if (failed) args["reason"] = detail_value(j.end->detail, "reason");
    w.emit({{"ph", "b"},
            {"pid", kJobsPid},
            {"tid", 1},
            {"cat", "job"},
            {"id", job},
            {"name", name},
            {"ts", j.submit->t_us},
            {"args", args}});
    w.emit({{"ph", "e"},
            {"pid", kJobsPid},
            {"tid", 1},
            {"cat", "job"},
            {"id", job},
            {"name", name},
            {"ts", num(end)}});
  }
  for (const TimelineEvent* e : instants) {
    nlohmann::json args = ids(*e);
    if (!e->detail.empty()) args["detail"] = e->detail;
    const std::string what = e->event == "PROOF_DONE" ? "proof done" : "job failed";
    w.emit({{"ph", "i"},
            {"s", "t"},
            {"pid", kJobsPid},
            {"tid", 1},
            {"cat", "job"},
            {"name", what + " (job " + std::to_string(e->job) + ")"},
            {"ts", e->t_us},
            {"args", args}});
  }
}

void write_cupti(Writer& w, const std::vector<CuptiRecord>& records, std::set<int>& devices) {
  // Per device: one track per stream, then device-wide records, sync and NVTX ranges.
  std::map<std::pair<int, std::string>, std::vector<Slice>> tracks;
  std::map<std::pair<int, std::string>, std::int64_t> order;
  for (const auto& r : records) {
    std::string track;
    std::int64_t rank;
    if (r.kind == "MARKER")
      track = "NVTX", rank = -1;
    else if (r.kind == "SYNC")
      track = "sync", rank = -2;
    else if (r.stream == kEmpty)
      track = "device-wide", rank = -3;
    else
      track = "stream " + std::to_string(r.stream), rank = r.stream;
    Slice s;
    s.ts = r.start_us;
    s.dur = r.end_us - r.start_us;
    s.name = r.kind == "KERNEL" || r.kind == "MARKER" ? r.name
             : r.kind == "MEMCPY"                     ? "memcpy " + r.name
             : r.kind == "MEMSET"                     ? "memset"
                                                      : "sync " + r.name;
    s.args = {{"kind", r.kind}, {"device", r.device}};
    if (r.stream != kEmpty) s.args["stream"] = r.stream;
    if (r.bytes != kEmpty) s.args["bytes"] = r.bytes;
    if (r.correlation != kEmpty) s.args["correlation"] = r.correlation;
    tracks[{r.device, track}].push_back(std::move(s));
    order[{r.device, track}] = rank;
  }
  std::vector<std::pair<int, std::string>> keys;
  for (const auto& [k, v] : tracks) keys.push_back(k);
  std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    return std::make_pair(a.first, -order[a]) < std::make_pair(b.first, -order[b]);
  });
  std::map<int, int> next_tid;
  std::set<int> named;
  for (const auto& k : keys) {
    const int pid = cupti_pid(k.first);
    if (named.insert(k.first).second)
      w.process(pid, "GPU device " + std::to_string(k.first) + " (CUPTI)", pid);
    devices.insert(k.first);
    if (!next_tid.count(pid)) next_tid[pid] = 1;
    write_track(w, pid, next_tid[pid], k.second, std::move(tracks[k]), "cupti");
  }
}

void write_counters(Writer& w, const std::vector<CounterSample>& samples, TraceSummary& sum) {
  if (samples.empty()) return;
  w.process(kCountersPid, "Counters", 1001);
  for (const auto& s : samples) {
    w.emit({{"ph", "C"},
            {"pid", kCountersPid},
            {"tid", 0},
            {"name", s.source + "/" + s.metric},
            {"ts", s.t_us},
            {"args", {{s.unit.empty() ? "value" : s.unit, num(s.value)}}}});
    ++sum.counter_points;
  }
}

}  // namespace

TraceSummary write_chrome_trace(const RunTables& run, std::ostream& out) {
  TraceSummary sum;
  // Timeline rows in time order (other threads' rows may be out of order in the file).
  std::vector<const TimelineEvent*> events;
  for (const auto& e : run.timeline) events.push_back(&e);
  std::stable_sort(
      events.begin(), events.end(),
      [](const TimelineEvent* a, const TimelineEvent* b) { return a->t_us < b->t_us; });
  double run_end = 0;
  for (const auto* e : events) run_end = std::max(run_end, static_cast<double>(e->t_us));
  for (const auto& c : run.cupti) run_end = std::max(run_end, c.end_us);
  for (const auto& c : run.counters) run_end = std::max(run_end, static_cast<double>(c.t_us));

  nlohmann::json other = {
      {"generator", "prooflab trace"},
      {"run_dir", run.dir.string()},
      {"time", "microseconds since the run epoch (CLOCK_MONOTONIC), as in timeline.csv"}};
  if (run.meta.is_object()) {
    for (const char* key : {"run_id", "status", "git_commit", "start_time", "command"})
      if (run.meta.contains(key)) other[key] = run.meta[key];
  }
  out << "{\"displayTimeUnit\": \"ms\",\n\"otherData\": " << other.dump()
      << ",\n\"traceEvents\": [";
  Writer w(out, sum);
  std::set<int> devices;
  std::map<int, int> gpu_tids;
  write_gpu_workers(w, events, run_end, gpu_tids, devices, sum);
  write_cupti(w, run.cupti, devices);
  write_cpu_stages(w, events, run_end, sum);
  write_counters(w, run.counters, sum);
  write_jobs(w, events, run_end, sum);
  out << "\n]}\n";
  return sum;
}

TraceFile export_chrome_trace(const std::filesystem::path& run_dir,
                              const std::filesystem::path& out) {
  const auto run = load_run_tables(run_dir);
  TraceFile file;
  file.path = out.empty() ? run.dir / "trace.json" : out;
  const std::string tmp = file.path.string() + ".tmp";
  {
    std::ofstream stream(tmp, std::ios::trunc);
    if (!stream) throw std::runtime_error("cannot create " + tmp);
    file.summary = write_chrome_trace(run, stream);
    stream.flush();
    if (!stream) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, file.path);
  file.warnings = run.warnings;
  file.warnings.insert(file.warnings.end(), file.summary.warnings.begin(),
                       file.summary.warnings.end());
  return file;
}

}  // namespace prooflab::harness::trace_export
