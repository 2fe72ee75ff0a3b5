#include "gpu/observe/nvtx_ranges.hpp"

#include <nvtx3/nvToolsExt.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace prooflab::gpu::observe {
namespace {

// One colour per stage, so that nsys' rows read at a glance (ARGB).
constexpr std::array<std::uint32_t, trace::kStageCount> kColors = {
    0xFF4C72B0,  // synthesize
    0xFF55A868,  // prep_msm
    0xFF8172B2,  // prestage
    0xFFC44E52,  // lock_wait
    0xFFDD8452,  // gpu_phase
    0xFF937860,  // ntt_h
    0xFFDA8BC3,  // batch_add
    0xFF8C8C8C,  // tail_msm
    0xFFCCB974,  // b_g2_msm
    0xFF64B5CD,  // epilogue
    0xFF999999,  // dealloc
    0xFF2F4B7C,  // witness
};

struct ProcessNvtx {
  std::mutex mutex;
  NvtxProcessState state;  // guarded by mutex
  nvtxDomainHandle_t domain = nullptr;
};

ProcessNvtx& process_nvtx() {
  static ProcessNvtx p;
  return p;
}

// The domain, created by the process's first NVTX call. NVTX reads NVTX_INJECTION64_PATH
// exactly then; it is recorded so a collector can tell why it sees no markers.
// Called by the listener's constructor, before any range, so the ranges read `domain`
// after the mutex has published it.
nvtxDomainHandle_t create_domain() {
  ProcessNvtx& p = process_nvtx();
  std::lock_guard lock(p.mutex);
  if (!p.state.initialised) {
    const char* inj = std::getenv("NVTX_INJECTION64_PATH");
    p.state.injection = inj ? inj : "";
    p.state.initialised = true;
    p.domain = nvtxDomainCreateA(kNvtxDomain);
    for (int s = 0; s < trace::kStageCount; ++s)
      nvtxDomainNameCategoryA(p.domain, static_cast<std::uint32_t>(s + 1),
                              trace::stage_name(static_cast<trace::Stage>(s)));
  }
  return p.domain;
}

}  // namespace

const char* format_stage_message(trace::Stage stage, const trace::StageTag& tag, char* buf,
                                 std::size_t size) {
  if (size == 0) return buf;
  int len = std::snprintf(buf, size, "%s", trace::stage_name(stage));
  const std::pair<const char*, int> fields[] = {{"job", tag.job},
                                                {"partition", tag.partition},
                                                {"worker", tag.worker},
                                                {"device", tag.device}};
  for (const auto& [key, value] : fields) {
    if (value < 0 || len < 0 || static_cast<std::size_t>(len) >= size) continue;
    len += std::snprintf(buf + len, size - static_cast<std::size_t>(len), " %s=%d", key, value);
  }
  return buf;
}

NvtxStageListener::NvtxStageListener() : domain_(create_domain()) {}

std::uint64_t NvtxStageListener::stage_begin(trace::Stage stage,
                                             const trace::StageTag& tag) noexcept {
  char message[96];
  format_stage_message(stage, tag, message, sizeof message);
  nvtxEventAttributes_t attr = {};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.category = static_cast<std::uint32_t>(stage) + 1;
  attr.colorType = NVTX_COLOR_ARGB;
  attr.color = kColors[static_cast<std::size_t>(stage)];
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = message;  // the tool copies it during the call
  // Start/end rather than push/pop: a range may end on another thread, and the ranges of one
  // thread need not nest.
  return nvtxDomainRangeStartEx(static_cast<nvtxDomainHandle_t>(domain_), &attr);
}

void NvtxStageListener::stage_end(trace::Stage, std::uint64_t handle) noexcept {
  nvtxDomainRangeEnd(static_cast<nvtxDomainHandle_t>(domain_), handle);
}

bool nvtx_tool_attached() {
  const char* inj = std::getenv("NVTX_INJECTION64_PATH");
  return inj && *inj;
}

NvtxProcessState nvtx_process_state() {
  ProcessNvtx& p = process_nvtx();
  std::lock_guard lock(p.mutex);
  return p.state;
}

}  // namespace prooflab::gpu::observe
