#include "gpu/observe/cupti_rows.hpp"

#include <cxxabi.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "gpu/observe/nvtx_ranges.hpp"

namespace prooflab::gpu::observe {
namespace {

// CUPTI leaves a timestamp 0 when it could not take it (a record flushed incomplete).
bool valid_interval(std::uint64_t start, std::uint64_t end) {
  return start != 0 && end != 0 && end >= start;
}

const char* copy_kind_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "unknown";
  }
}

const char* sync_type_name(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "event_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "stream_wait_event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "stream_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "context_synchronize";
    default:
      return "unknown";
  }
}

// µs since the epoch with three decimals, from integer ns (no rounding error).
void append_us(std::string& s, std::uint64_t ns, std::int64_t epoch_ns) {
  const std::int64_t d = static_cast<std::int64_t>(ns) - epoch_ns;
  const std::uint64_t a = d < 0 ? static_cast<std::uint64_t>(-d) : static_cast<std::uint64_t>(d);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", d < 0 ? "-" : "",
                static_cast<unsigned long long>(a / 1000),
                static_cast<unsigned long long>(a % 1000));
  s += buf;
}

void append_int(std::string& s, std::int64_t v) {
  if (v >= 0) s += std::to_string(v);
}

void append_field(std::string& s, std::string_view f) {
  const bool quote = f.find_first_of(",\"") != std::string_view::npos;
  if (quote) s += '"';
  for (char c : f) {
    if (c == '"')
      s += "\"\"";
    else if (c == '\n' || c == '\r')
      s += ' ';  // rows never span lines
    else
      s += c;
  }
  if (quote) s += '"';
}

}  // namespace

nlohmann::json CuptiCounts::to_json() const {
  return {{"KERNEL", kernel},
          {"MEMCPY", memcpy},
          {"MEMSET", memset},
          {"SYNC", sync},
          {"MARKER", marker},
          {"incomplete", incomplete},
          {"unfinished_markers", unfinished_markers},
          {"orphan_marker_ends", orphan_marker_ends},
          {"sync_device_guessed", sync_device_guessed},
          {"other", other}};
}

std::string demangle(const char* name) {
  if (!name) return "";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

int device_of_range_name(std::string_view name) {
  const std::string_view key = " device=";
  const std::size_t at = name.rfind(key);
  if (at == std::string_view::npos) return 0;
  int device = 0;
  bool any = false;
  for (std::size_t i = at + key.size(); i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
    device = device * 10 + (name[i] - '0');
    any = true;
    if (device > 1'000'000) return 0;
  }
  return any ? device : 0;
}

const std::string& CuptiRecordConverter::kernel_name(const char* mangled) {
  const std::string key = mangled ? mangled : "";
  auto it = demangled_.find(key);
  if (it == demangled_.end()) it = demangled_.emplace(key, demangle(key.c_str())).first;
  return it->second;
}

void CuptiRecordConverter::emit(CuptiRow row, std::vector<CuptiRow>& out) {
  const std::string_view k = row.kind;
  if (k == "KERNEL")
    ++counts_.kernel;
  else if (k == "MEMCPY")
    ++counts_.memcpy;
  else if (k == "MEMSET")
    ++counts_.memset;
  else if (k == "SYNC")
    ++counts_.sync;
  else if (k == "MARKER")
    ++counts_.marker;
  out.push_back(std::move(row));
}

void CuptiRecordConverter::learn_context(std::uint32_t context, std::uint32_t device,
                                         std::vector<CuptiRow>& out) {
  if (!context_device_.emplace(context, static_cast<int>(device)).second) return;
  // A new context: place the SYNC rows that waited for it.
  for (std::size_t i = 0; i < pending_syncs_.size();) {
    if (pending_syncs_[i].context == context) {
      pending_syncs_[i].row.device = static_cast<int>(device);
      emit(std::move(pending_syncs_[i].row), out);
      pending_syncs_.erase(pending_syncs_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

void CuptiRecordConverter::add_marker(const CUpti_ActivityMarker2& m, std::vector<CuptiRow>& out) {
  const auto flags = static_cast<std::uint32_t>(m.flags);
  auto make = [&](std::string name, std::uint64_t start, std::uint64_t end) {
    CuptiRow row;
    row.kind = "MARKER";
    row.device = device_of_range_name(name);
    row.name = std::move(name);
    row.start_ns = start;
    row.end_ns = end;
    return row;
  };
  auto name_of = [&] {
    std::string name = m.name ? m.name : "";
    // Ranges of other domains (libraries that use NVTX) keep their domain in the name.
    if (m.domain && std::strcmp(m.domain, kNvtxDomain) != 0)
      name = std::string(m.domain) + ": " + name;
    return name;
  };
  if (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    if (m.timestamp == 0) {
      ++counts_.incomplete;
      return;
    }
    emit(make(name_of(), m.timestamp, m.timestamp), out);
  } else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    const auto early = early_marker_ends_.find(m.id);
    if (early != early_marker_ends_.end()) {
      const std::uint64_t end = early->second;
      early_marker_ends_.erase(early);
      if (valid_interval(m.timestamp, end))
        emit(make(name_of(), m.timestamp, end), out);
      else
        ++counts_.incomplete;
      return;
    }
    std::string name = name_of();
    const int device = device_of_range_name(name);
    open_markers_[m.id] = {std::move(name), device, m.timestamp};
  } else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    const auto it = open_markers_.find(m.id);
    if (it == open_markers_.end()) {
      early_marker_ends_[m.id] = m.timestamp;
      return;
    }
    if (valid_interval(it->second.start_ns, m.timestamp))
      emit(make(std::move(it->second.name), it->second.start_ns, m.timestamp), out);
    else
      ++counts_.incomplete;
    open_markers_.erase(it);
  } else {
    ++counts_.other;  // synchronisation markers (nvtxDomainSync*) make no row
  }
}

template <class Record>
bool CuptiRecordConverter::device_row(const Record& r, const char* kind, CuptiRow& row,
                                      std::vector<CuptiRow>& out) {
  learn_context(r.contextId, r.deviceId, out);
  if (!valid_interval(r.start, r.end)) {
    ++counts_.incomplete;
    return false;
  }
  row.kind = kind;
  row.device = static_cast<int>(r.deviceId);
  row.stream = r.streamId;
  row.start_ns = r.start;
  row.end_ns = r.end;
  row.correlation = r.correlationId;
  return true;
}

void CuptiRecordConverter::add(const CUpti_Activity* record, std::vector<CuptiRow>& out) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto& k = *reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      CuptiRow row;
      if (!device_row(k, "KERNEL", row, out)) return;
      row.name = kernel_name(k.name);
      emit(std::move(row), out);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& c = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      CuptiRow row;
      if (!device_row(c, "MEMCPY", row, out)) return;
      row.name = copy_kind_name(c.copyKind);
      row.bytes = static_cast<std::int64_t>(c.bytes);
      emit(std::move(row), out);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {  // peer-to-peer copies
      const auto& c = *reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
      CuptiRow row;
      if (!device_row(c, "MEMCPY", row, out)) return;
      row.name = "PtoP";
      row.bytes = static_cast<std::int64_t>(c.bytes);
      emit(std::move(row), out);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      CuptiRow row;
      if (!device_row(m, "MEMSET", row, out)) return;
      row.bytes = static_cast<std::int64_t>(m.bytes);
      emit(std::move(row), out);
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& s = *reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      if (!valid_interval(s.start, s.end)) {
        ++counts_.incomplete;
        return;
      }
      CuptiRow row;
      row.kind = "SYNC";
      row.stream = s.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? std::int64_t{-1}
                                                                     : std::int64_t{s.streamId};
      row.name = sync_type_name(s.type);
      row.start_ns = s.start;
      row.end_ns = s.end;
      row.correlation = s.correlationId;
      const auto ctx = context_device_.find(s.contextId);
      if (ctx != context_device_.end()) {
        row.device = ctx->second;
        emit(std::move(row), out);
      } else {
        pending_syncs_.push_back({s.contextId, std::move(row)});
      }
      return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& c = *reinterpret_cast<const CUpti_ActivityContext3*>(record);
      learn_context(c.contextId, c.deviceId, out);
      ++counts_.other;
      return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
      add_marker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record), out);
      return;
    default:
      ++counts_.other;
      return;
  }
}

void CuptiRecordConverter::finish(std::uint64_t end_ns, std::vector<CuptiRow>& out) {
  counts_.orphan_marker_ends += early_marker_ends_.size();
  early_marker_ends_.clear();
  for (auto& [id, m] : open_markers_) {
    CuptiRow row;
    row.kind = "MARKER";
    row.device = m.device;
    row.name = m.name + " (unfinished)";
    row.start_ns = m.start_ns;
    row.end_ns = std::max(end_ns, m.start_ns);
    ++counts_.unfinished_markers;
    emit(std::move(row), out);
  }
  open_markers_.clear();
  // The only device any record named, if there is exactly one; else device 0.
  int only_device = 0;
  bool one = !context_device_.empty();
  for (const auto& [ctx, dev] : context_device_)
    one = one && dev == context_device_.begin()->second;
  if (one) only_device = context_device_.begin()->second;
  for (auto& p : pending_syncs_) {
    p.row.device = only_device;
    ++counts_.sync_device_guessed;
    emit(std::move(p.row), out);
  }
  pending_syncs_.clear();
}

std::string format_cupti_row(const CuptiRow& row, std::int64_t epoch_ns) {
  std::string s;
  s.reserve(64 + row.name.size());
  s += row.kind;
  s += ',';
  s += std::to_string(row.device);
  s += ',';
  append_int(s, row.stream);
  s += ',';
  append_field(s, row.name);
  s += ',';
  append_us(s, row.start_ns, epoch_ns);
  s += ',';
  append_us(s, row.end_ns, epoch_ns);
  s += ',';
  append_int(s, row.bytes);
  s += ',';
  append_int(s, row.correlation);
  s += '\n';
  return s;
}

CuptiCsv::CuptiCsv(const std::filesystem::path& path, std::int64_t epoch_ns) : epoch_ns_(epoch_ns) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  std::fputs(kCuptiCsvHeader, file_);
  std::fflush(file_);
}

CuptiCsv::~CuptiCsv() {
  if (file_) std::fclose(file_);
}

void CuptiCsv::append(const std::vector<CuptiRow>& rows) {
  for (const auto& r : rows) {
    const std::string line = format_cupti_row(r, epoch_ns_);
    std::fwrite(line.data(), 1, line.size(), file_);
  }
  rows_ += rows.size();
  std::fflush(file_);
}

}  // namespace prooflab::gpu::observe
