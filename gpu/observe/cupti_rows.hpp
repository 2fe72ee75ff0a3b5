// From CUPTI activity records to cupti.csv rows (docs/run-directory.md, "cupti.csv"): the
// part of the collector that needs CUPTI's types but not its library, so that it is tested
// with synthetic records on machines without a GPU.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace prooflab::gpu::observe {

// One cupti.csv row; timestamps still in ns on CLOCK_MONOTONIC (the collector's CUPTI
// timestamp callback), -1 for an empty field.
struct CuptiRow {
  const char* kind = "";  // KERNEL | MEMCPY | MEMSET | SYNC | MARKER
  int device = 0;
  std::int64_t stream = -1;
  std::string name;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::int64_t bytes = -1;
  std::int64_t correlation = -1;
};

struct CuptiCounts {
  std::uint64_t kernel = 0, memcpy = 0, memset = 0, sync = 0, marker = 0;  // rows made
  std::uint64_t incomplete = 0;           // records without a valid start/end: skipped
  std::uint64_t unfinished_markers = 0;   // ranges still open at the end: run to the end
  std::uint64_t orphan_marker_ends = 0;   // range ends whose start never came: skipped
  std::uint64_t sync_device_guessed = 0;  // SYNC rows of a context no other record placed
  std::uint64_t other = 0;                // records of kinds that make no row (CONTEXT, ...)
  std::uint64_t rows() const { return kernel + memcpy + memset + sync + marker; }
  nlohmann::json to_json() const;
};

// Turns activity records into rows. Not thread-safe: the collector serialises calls.
// A MARKER row needs both the range's start and end records (which may come in different
// buffers, in either order); a SYNC row needs its context's device, learned from the
// context's CONTEXT, kernel, memcpy or memset records.
class CuptiRecordConverter {
 public:
  void add(const CUpti_Activity* record, std::vector<CuptiRow>& out);
  // What is still pending at the end: open ranges run to end_ns, their name marked
  // " (unfinished)"; SYNC rows of unplaced contexts take the only device seen (else 0).
  void finish(std::uint64_t end_ns, std::vector<CuptiRow>& out);
  const CuptiCounts& counts() const { return counts_; }

 private:
  void learn_context(std::uint32_t context, std::uint32_t device, std::vector<CuptiRow>& out);
  void add_marker(const CUpti_ActivityMarker2& m, std::vector<CuptiRow>& out);
  void emit(CuptiRow row, std::vector<CuptiRow>& out);
  // The fields every device record (kernel, copy, set) shares, CUPTI naming them alike in
  // each record type; false (counted incomplete) when the interval is not valid.
  template <class Record>
  bool device_row(const Record& r, const char* kind, CuptiRow& row, std::vector<CuptiRow>& out);
  const std::string& kernel_name(const char* mangled);

  struct OpenMarker {
    std::string name;
    int device = 0;
    std::uint64_t start_ns = 0;
  };
  struct PendingSync {
    std::uint32_t context;
    CuptiRow row;
  };
  CuptiCounts counts_;
  std::map<std::uint32_t, int> context_device_;
  std::vector<PendingSync> pending_syncs_;
  std::unordered_map<std::uint32_t, OpenMarker> open_markers_;
  std::unordered_map<std::uint32_t, std::uint64_t> early_marker_ends_;  // end seen before start
  std::unordered_map<std::string, std::string> demangled_;
};

// The row's CSV line with its newline: times as µs since epoch_ns with three decimals
// (exact: integer ns arithmetic), quoted name when it holds ',' or '"'.
std::string format_cupti_row(const CuptiRow& row, std::int64_t epoch_ns);
inline constexpr const char* kCuptiCsvHeader =
    "kind,device,stream,name,start_us,end_us,bytes,correlation\n";

// The demangled name, or the name itself when it does not demangle (C kernels).
std::string demangle(const char* name);
// The device of an NVTX range message ("... device=N" of NvtxStageListener); 0 without one.
int device_of_range_name(std::string_view name);

// cupti.csv: the header at construction, rows appended and flushed as the collector gets
// them, so a killed run keeps every buffer CUPTI delivered.
class CuptiCsv {
 public:
  CuptiCsv(const std::filesystem::path& path, std::int64_t epoch_ns);  // throws on open failure
  ~CuptiCsv();
  CuptiCsv(const CuptiCsv&) = delete;
  CuptiCsv& operator=(const CuptiCsv&) = delete;
  void append(const std::vector<CuptiRow>& rows);
  std::uint64_t rows() const { return rows_; }

 private:
  std::FILE* file_ = nullptr;
  std::int64_t epoch_ns_;
  std::uint64_t rows_ = 0;
};

}  // namespace prooflab::gpu::observe
