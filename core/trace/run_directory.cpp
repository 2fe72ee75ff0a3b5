#include "core/trace/run_directory.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/trace/slurm_allocation.hpp"

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
  if (auto slurm = slurm_allocation(); !slurm.is_null()) meta_["slurm"] = std::move(slurm);
  meta_["start_time"] = iso8601_now();
  meta_["end_time"] = nullptr;
  meta_["status"] = "running";
  write_run_json();
  stages_ = std::make_unique<RowFile>(dir_ / "stages.csv", stages_csv_header());
}

RunDirectory::~RunDirectory() = default;

namespace {

// Room the final run.json may grow into on a full disk (its end time, status and error list):
// blocks allocated past the end of each run.json written (FALLOC_FL_KEEP_SIZE: the file's size
// stays its text's), which the in-place rewrite below may use.
constexpr off_t kRunJsonSlack = 16 << 10;

}  // namespace

void RunDirectory::write_run_json() {
  const auto path = dir_ / "run.json";
  const std::string text = meta_.dump(2) + "\n";
  try {
    io::write_file_atomically(path, {text});
    // Best effort: a file system without fallocate (or already full) leaves the file as written.
    if (const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC); fd >= 0) {
      (void)::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(text.size()) + kRunJsonSlack);
      ::close(fd);
    }
  } catch (const io::FileWriteError& e) {
    // No room for a new file (a full disk, no inodes): rewrite it in place when the text
    // fits the blocks it already holds (its text's and the slack reserved after the last
    // write), so the final status still gets recorded.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 ||
        static_cast<std::uint64_t>(st.st_blocks) * 512 < text.size() ||
        ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
        ::ftruncate(fd, static_cast<off_t>(text.size())) != 0) {
      if (fd >= 0) ::close(fd);
      throw;
    }
    ::close(fd);
  }
}

void RunDirectory::append_stage_row(const StageRow& r) {
  const std::string line = stages_csv_line(r);
  std::lock_guard lock(mutex_);
  stages_->append(line);
}

std::string RunDirectory::stages_error() {
  std::lock_guard lock(mutex_);
  return stages_->error();
}

void RunDirectory::set_metadata(const std::string& key, const nlohmann::json& value) {
  std::lock_guard lock(mutex_);
  meta_[key] = value;
  write_run_json();
}

std::string RunDirectory::finish(const std::string& status, const nlohmann::json& summary,
                                 std::vector<std::string>* errors_in_out) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> none;
  std::vector<std::string>& errors = errors_in_out ? *errors_in_out : none;
  if (!summary.is_null()) {
    try {
      io::write_file_atomically(dir_ / "summary.json", {summary.dump(2) + "\n"});
    } catch (const io::FileWriteError& e) {
      errors.push_back(e.what());
    }
  }
  meta_["status"] = errors.empty() ? status : "failed";
  meta_["end_time"] = iso8601_now();
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "; ") + e;
    meta_["error"] = all;
  }
  write_run_json();
  return meta_["status"].get<std::string>();
}

}  // namespace prooflab::trace
