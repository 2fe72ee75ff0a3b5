// Device time of work enqueued on one stream, by CUDA events around it: for the one-time
// builds whose time is reported (the fixed-base and pair tables). C++17.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "gpu/cuda_check.hpp"

namespace prooflab::gpu {

// Runs enqueue() (which queues work on `stream`), synchronises the stream and returns the
// milliseconds between events recorded before and after it. `what` names it in errors.
template <class Enqueue>
double timed_on_stream(cudaStream_t stream, const char* what, Enqueue&& enqueue) {
  cudaEvent_t ev[2] = {};
  const auto destroy = [&] {
    for (auto& e : ev)
      if (e) cudaEventDestroy(e);
  };
  const std::string create = std::string("cudaEventCreate(") + what + ")",
                    sync = std::string("cudaStreamSynchronize(") + what + ")";
  try {
    for (auto& e : ev) check_cuda(cudaEventCreate(&e), create.c_str());
    check_cuda(cudaEventRecord(ev[0], stream), "cudaEventRecord");
    enqueue();
    check_cuda(cudaEventRecord(ev[1], stream), "cudaEventRecord");
    check_cuda(cudaStreamSynchronize(stream), sync.c_str());
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, ev[0], ev[1]), "cudaEventElapsedTime");
    destroy();
    return ms;
  } catch (...) {
    destroy();
    throw;
  }
}

}  // namespace prooflab::gpu
