// The finalizer of `finalize = split` (the reference's Phase-12 split API: the GPU worker
// runs only the start half, `generate_groth16_proofs_start_c`, and hands the rest —
// `finalize_groth16_proof_c`: join b_g2_msm, proof epilogue, dealloc — to a finalizer task,
// then loops to the next partition at once; cuzk-core/src/engine.rs spawns that task).
// Here the tasks run in submission order on `threads` threads of their own (the engine gives
// one per GPU worker), so a run creates a fixed number of threads however long it is; a
// task mostly waits for its b_g2_msm, which runs on the groth16 pool.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>

#include "core/parallel/thread_pool.hpp"

namespace prooflab::engine {

class Finalizer {
 public:
  explicit Finalizer(unsigned threads) : pool_(threads, "finalizer") {}
  ~Finalizer() { drain(); }
  Finalizer(const Finalizer&) = delete;
  Finalizer& operator=(const Finalizer&) = delete;

  // Queues the task; it must not throw (the engine's tasks catch and fail the partition).
  void submit(std::function<void()> task);
  // Waits until every submitted task has finished.
  void drain();
  // Tasks submitted and not yet finished, now and at most.
  std::size_t pending() const;
  std::size_t peak_pending() const;
  // CPU seconds its threads have used (ThreadPool::cpu_seconds).
  double cpu_seconds() const { return pool_.cpu_seconds(); }

 private:
  mutable std::mutex m_;
  std::condition_variable idle_;
  std::size_t pending_ = 0, peak_pending_ = 0;
  parallel::ThreadPool pool_;  // last: its threads stop before the counters go
};

}  // namespace prooflab::engine
