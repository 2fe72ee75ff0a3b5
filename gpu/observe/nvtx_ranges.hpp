// NVTX ranges around the engine's stages, in the `prooflab` domain: what Nsight Systems
// shows as the pipeline above the CUDA rows, and what the CUPTI collector records as MARKER
// rows of cupti.csv (docs/gpu.md, "Observability").
//
// NVTX3 is header-only: the process's first NVTX call reads NVTX_INJECTION64_PATH and loads
// that tool (libcupti when the collector set it, Nsight Systems' own under nsys); without
// one every call is a no-op. A run therefore installs the listener only when a tool is
// named (nvtx_tool_attached()), so that an uninstrumented run makes no NVTX call at all and
// a later run of the same process can still bring CUPTI in as the tool.
#pragma once

#include <cstdint>
#include <string>

#include "core/trace/stage_listener.hpp"

namespace prooflab::gpu::observe {

inline constexpr const char* kNvtxDomain = "prooflab";

// Range messages read "<stage> job=J partition=P worker=W device=D", the fields that apply
// (the TIMELINE's column names), e.g. "ntt_h job=3 partition=7 worker=0 device=0".
class NvtxStageListener final : public trace::StageListener {
 public:
  NvtxStageListener();  // creates (once per process) the domain: the first NVTX call
  std::uint64_t stage_begin(trace::Stage stage, const trace::StageTag& tag) noexcept override;
  void stage_end(trace::Stage stage, std::uint64_t handle) noexcept override;

 private:
  void* domain_;  // nvtxDomainHandle_t (kept out of this header)
};

// Formats the range message into buf (always NUL-terminated); returns buf.
const char* format_stage_message(trace::Stage stage, const trace::StageTag& tag, char* buf,
                                 std::size_t size);

// NVTX_INJECTION64_PATH is set: a tool receives NVTX calls made from now on (if NVTX is not
// yet initialised in this process; see nvtx_process_state()).
bool nvtx_tool_attached();

struct NvtxProcessState {
  bool initialised = false;  // this process has made its first NVTX call
  std::string injection;     // NVTX_INJECTION64_PATH at that call ("" = none: NVTX is a no-op)
};
NvtxProcessState nvtx_process_state();

}  // namespace prooflab::gpu::observe
