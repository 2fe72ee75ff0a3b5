#include "core/trace/run_directory.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace prooflab::trace {

namespace fs = std::filesystem;

std::string iso8601_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json host_info() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return {{"cpu_model", model},
          {"cores", std::thread::hardware_concurrency()},
          {"mem_bytes", static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)}};
}

RunDirectory::RunDirectory(fs::path dir, nlohmann::json metadata)
    : dir_(std::move(dir)), meta_(std::move(metadata)) {
  fs::create_directories(dir_ / "proofs");
  meta_["host"] = host_info();
  meta_["start_time"] = iso8601_now();
  meta_["end_time"] = nullptr;
  meta_["status"] = "running";
  write_json(dir_ / "run.json", meta_);
  const auto stages = dir_ / "stages.csv";
  stages_ = std::fopen(stages.c_str(), "w");
  if (!stages_) throw std::runtime_error("cannot create " + stages.string() + ": " + std::strerror(errno));
  std::fputs("job,partition,worker,device,status,synth_us,prep_msm_us,queue_us,lock_wait_us,"
             "prestage_us,ntt_h_us,batch_add_us,tail_msm_us,gpu_total_us,lock_held_us,"
             "b_g2_msm_us,epilogue_us,dealloc_us,host_bytes,vram_peak_bytes,prestage,"
             "pre_destructor_us,abc_bytes,aux_bytes,density_bytes\n",
             stages_);
  std::fflush(stages_);
}

RunDirectory::~RunDirectory() {
  if (stages_) std::fclose(stages_);
}

void RunDirectory::write_json(const fs::path& p, const nlohmann::json& j) {
  // Write then rename: a reader never sees half a JSON document.
  const auto tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  fs::rename(tmp, p);
}

void RunDirectory::append_stage_row(const StageRow& r) {
  auto field = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string();
  };
  auto opt_int = [](int v) { return v >= 0 ? std::to_string(v) : std::string(); };
  const std::string line =
      std::to_string(r.job) + "," + std::to_string(r.partition) + "," + opt_int(r.worker) + "," +
      opt_int(r.device) + "," + (r.ok ? "ok" : "failed") + "," + field(r.synth_us) + "," +
      field(r.prep_msm_us) + "," + field(r.queue_us) + "," + field(r.lock_wait_us) + "," +
      field(r.prestage_us) + "," + field(r.ntt_h_us) + "," + field(r.batch_add_us) + "," +
      field(r.tail_msm_us) + "," + field(r.gpu_total_us) + "," + field(r.lock_held_us) + "," +
      field(r.b_g2_msm_us) + "," + field(r.epilogue_us) + "," + field(r.dealloc_us) + "," +
      std::to_string(r.host_bytes) + "," + std::to_string(r.vram_peak_bytes) + "," + r.prestage +
      "," + field(r.pre_destructor_us) + "," + std::to_string(r.abc_bytes) + "," +
      std::to_string(r.aux_bytes) + "," + std::to_string(r.density_bytes) + "\n";
  std::lock_guard lock(mutex_);
  std::fputs(line.c_str(), stages_);
  std::fflush(stages_);
}

void RunDirectory::set_metadata(const std::string& key, const nlohmann::json& value) {
  std::lock_guard lock(mutex_);
  meta_[key] = value;
  write_json(dir_ / "run.json", meta_);
}

void RunDirectory::finish(const std::string& status, const nlohmann::json& summary) {
  std::lock_guard lock(mutex_);
  meta_["status"] = status;
  meta_["end_time"] = iso8601_now();
  write_json(dir_ / "run.json", meta_);
  if (!summary.is_null()) write_json(dir_ / "summary.json", summary);
}

}  // namespace prooflab::trace
