#include "core/engine/engine.hpp"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <thread>

#include "core/circuits/circuit.hpp"
#include "core/engine/finalizer.hpp"
#include "core/engine/host_memory_budget.hpp"
#include "core/engine/synthesis_permits.hpp"
#include "core/groth16/proof_bundle.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/qap.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/trace/device_busy.hpp"
#include "core/trace/peak_rss.hpp"
#include "core/trace/percentile.hpp"

namespace prooflab::engine {
namespace {

using trace::Event;
using trace::Stage;
using trace::StageRange;

// The throttle checks its flag between chunks of rows and yields this long (the reference
// checks an atomic every 64 chunks of 8192 rows and yields).
constexpr auto kThrottleYield = std::chrono::microseconds(200);

std::string kv(const char* k, std::int64_t v) { return std::string(k) + "=" + std::to_string(v); }

template <class T>
std::uint64_t buffer_bytes(const std::vector<T>& v) {
  return static_cast<std::uint64_t>(v.capacity()) * sizeof(T);
}

template <class Curve>
std::uint64_t query_plan_bytes(const groth16::QueryPlan<Curve>& q) {
  return buffer_bytes(q.ones) + buffer_bytes(q.tail_bases) + buffer_bytes(q.tail_scalars) + buffer_bytes(q.tail_index);
}

std::uint64_t cs_footprint(const r1cs::R1cs& cs) {
  return partition_footprint_bytes(groth16::qap_domain_size(cs), cs.num_inputs + cs.num_aux);
}

struct Partition {
  HostMemoryBudget::Account memory;  // first: released after the buffers below are freed
  int job = 0, index = 0;
  groth16::SynthesizedPartition synth;
  groth16::MsmPlan plan;
  trace::StageRow row;
  std::int64_t queued_at = 0;
};

struct Job {
  int seq = 0;
  std::int64_t submit_us = 0, first_synth_us = -1;
  int accounted = 0;  // partitions proved, failed or skipped
  bool failed = false;
  std::string reason;
  std::vector<groth16::Proof> proofs;
  std::vector<std::vector<field::Fr>> inputs;
};

// What the start half of a partition's proof leaves for its finalization.
struct PendingProof {
  std::future<curve::G2Jacobian> b_g2;
  groth16::GpuPhaseSums sums;
  field::Fr r, s;
};

struct QueueOrder {
  bool operator()(const std::unique_ptr<Partition>& a, const std::unique_ptr<Partition>& b) const {
    return std::tie(a->job, a->index) > std::tie(b->job, b->index);  // min-heap on (job, partition)
  }
};

// Yields synthesis while b_g2_msm runs (intervention I3).
class ThrottleHook final : public r1cs::ChunkHook {
 public:
  explicit ThrottleHook(const std::atomic<int>& active) : active_(active) {}
  void between_chunks() override {
    while (active_.load(std::memory_order_relaxed) > 0) std::this_thread::sleep_for(kThrottleYield);
  }

 private:
  const std::atomic<int>& active_;
};

class Engine {
 public:
  explicit Engine(const EngineInputs& in)
      : in_(in),
        cfg_(in.config),
        tl_(in.timeline),
        domain_(groth16::qap_domain_size(in.cs)),
        shape_hash_(groth16::shape_hash(in.cs)),
        footprint_(cs_footprint(in.cs)),
        budget_(resolve_host_mem_budget(cfg_.host_mem_budget, footprint_)),
        permits_(cfg_.partition_workers,
                 cfg_.synthesis_lookahead ? cfg_.synthesis_lookahead : cfg_.partition_workers,
                 GpuQueuePacer(cfg_.max_gpu_queue_depth)),
        groth16_pool_(cfg_.gpu_threads, "groth16"),
        throttle_hook_(b_g2_active_) {
    // Each partition worker synthesizes on its own share of the synthesis threads.
    const unsigned total = cfg_.synth_threads ? cfg_.synth_threads : std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < cfg_.partition_workers; ++i) {
      const unsigned share = total / cfg_.partition_workers + (i < total % cfg_.partition_workers ? 1 : 0);
      synth_pools_.push_back(std::make_unique<parallel::ThreadPool>(std::max(1u, share), "synthesis"));
    }
    if (cfg_.finalize == FinalizeMode::kSplit)
      finalizer_ = std::make_unique<Finalizer>(cfg_.gpu_workers_per_device * cfg_.devices);
    // Large host buffers come from mmap and go back with munmap (not a malloc arena),
    // so that freeing them has the TLB-shootdown cost the dealloc interventions are about.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
  }

  BatchResult run() {
    const trace::PeakRss peak_rss;  // the high-water mark from here
    start_us_ = tl_.now_us();
    std::vector<std::thread> threads;
    for (std::uint32_t i = 0; i < cfg_.partition_workers; ++i)
      threads.emplace_back([this, i] { partition_worker(*synth_pools_[i]); });
    for (std::uint32_t d = 0; d < cfg_.devices; ++d)
      for (std::uint32_t w = 0; w < cfg_.gpu_workers_per_device; ++w)
        threads.emplace_back([this, d, w] { gpu_worker(static_cast<int>(d), static_cast<int>(w)); });

    submit_jobs();
    {
      std::lock_guard lock(m_);
      shutting_down_ = true;
    }
    synth_cv_.notify_all();
    gpu_cv_.notify_all();
    for (auto& t : threads) t.join();
    if (finalizer_) finalizer_->drain();
    wait_for_deallocs();
    end_us_ = tl_.now_us();
    peak_rss_bytes_ = peak_rss.bytes();
    peak_rss_scope_ = peak_rss.scope();
    return finish();
  }

 private:
  // ---- jobs ----
  void submit_jobs() {
    std::unique_lock lock(m_);
    for (std::uint32_t seq = 0; seq < cfg_.count; ++seq) {
      // Polls the stop flag: a signal handler can only set it, not notify.
      while (!(in_flight_ < cfg_.concurrency || stopped()))
        done_cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (stopped()) {
        interrupted_ = true;
        break;
      }
      auto job = std::make_unique<Job>();
      job->seq = static_cast<int>(seq);
      job->proofs.resize(cfg_.partitions);
      job->inputs.resize(cfg_.partitions);
      job->submit_us = tl_.record(Event::kJobSubmit, job->seq);
      if (!first_submit_us_) first_submit_us_ = job->submit_us;
      for (std::uint32_t p = 0; p < cfg_.partitions; ++p)
        synth_queue_.push_back({job->seq, static_cast<int>(p)});
      jobs_[job->seq] = std::move(job);
      ++in_flight_;
      synth_cv_.notify_all();
    }
    done_cv_.wait(lock, [&] { return in_flight_ == 0; });
  }

  bool stopped() const { return in_.stop && in_.stop->load(); }

  // ---- synthesis: partition workers (docs/engine.md, "Synthesis and memory") ----
  void partition_worker(parallel::ThreadPool& pool) {
    for (;;) {
      permits_.begin_synthesis();
      std::pair<int, int> task;
      {
        std::unique_lock lock(m_);
        synth_cv_.wait(lock, [&] { return !synth_queue_.empty() || shutting_down_; });
        if (synth_queue_.empty()) {
          lock.unlock();
          permits_.abandon_synthesis();
          return;
        }
        task = synth_queue_.front();
        synth_queue_.pop_front();
      }
      auto part = std::make_unique<Partition>();
      part->memory = HostMemoryBudget::Account(budget_, footprint_);
      part->job = task.first;
      part->index = task.second;
      part->row.job = part->job;
      part->row.partition = part->index;
      try {
        synthesize(*part, pool);
      } catch (const std::exception& e) {
        permits_.abandon_synthesis();
        fail_partition(std::move(part), std::string("synthesis: ") + e.what());
        continue;
      }
      permits_.hand_to_gpu_queue();  // the permit is held until here
      {
        std::lock_guard lock(m_);
        part->queued_at = tl_.record(Event::kGpuQueue, part->job, part->index);
        gpu_queue_.push(std::move(part));
      }
      gpu_cv_.notify_one();
    }
  }

  void synthesize(Partition& part, parallel::ThreadPool& pool) {
    const auto circuit = circuits::make_circuit(cfg_.circuit, cfg_.constraints,
                                                cfg_.seed + 1000ull * part.job + part.index);
    const std::int64_t t0 = tl_.record(Event::kSynthStart, part.job, part.index);
    {
      std::lock_guard lock(m_);
      auto& job = *jobs_.at(part.job);
      if (job.first_synth_us < 0) job.first_synth_us = t0;
    }
    StageRange synth_range(tl_.stage_listener(), Stage::kSynthesize, {part.job, part.index});
    part.synth = groth16::synthesize(*circuit, in_.cs, pool, cfg_.throttle ? &throttle_hook_ : nullptr);
    synth_range.end();
    part.row.abc_bytes = buffer_bytes(part.synth.a) + buffer_bytes(part.synth.b) + buffer_bytes(part.synth.c);
    part.row.aux_bytes = buffer_bytes(part.synth.witness.input) + buffer_bytes(part.synth.witness.aux);
    part.memory.charge(part.row.abc_bytes + part.row.aux_bytes);
    const std::int64_t synth_us = tl_.now_us() - t0;
    tl_.record(Event::kSynthEnd, part.job, part.index, -1, -1, kv("synth_us", synth_us));
    part.row.synth_us = synth_us;
    tl_.record(Event::kPrepMsmStart, part.job, part.index);
    const std::int64_t p0 = tl_.now_us();
    StageRange prep_range(tl_.stage_listener(), Stage::kPrepMsm, {part.job, part.index});
    part.plan = groth16::prep_msm(in_.pk, in_.cs, part.synth.witness);
    prep_range.end();
    part.row.density_bytes = query_plan_bytes(part.plan.l) + query_plan_bytes(part.plan.a) +
                             query_plan_bytes(part.plan.b_g1) + query_plan_bytes(part.plan.b_g2);
    part.memory.charge(part.row.density_bytes);
    part.row.host_bytes = part.row.abc_bytes + part.row.aux_bytes + part.row.density_bytes;
    const std::int64_t p1 = tl_.record(Event::kPrepMsmEnd, part.job, part.index);
    part.row.prep_msm_us = p1 - p0;
    std::lock_guard lock(m_);
    auto& job = *jobs_.at(part.job);
    job.inputs[part.index].assign(part.synth.witness.input.begin() + 1, part.synth.witness.input.end());
  }

  // ---- GPU workers ----
  void gpu_worker(int device, int worker) {
    std::mt19937_64 rng(cfg_.seed * 7919 + static_cast<std::uint64_t>(device * 64 + worker) + 1);
    for (;;) {
      std::unique_ptr<Partition> part;
      bool skip = false;
      {
        std::unique_lock lock(m_);
        // shutting_down_ is set once every job has ended, so nothing is left to synthesize.
        gpu_cv_.wait(lock, [&] { return !gpu_queue_.empty() || shutting_down_; });
        if (gpu_queue_.empty()) return;
        part = std::move(const_cast<std::unique_ptr<Partition>&>(gpu_queue_.top()));
        gpu_queue_.pop();
        skip = jobs_.at(part->job)->failed;
        // Recorded under the queue's lock, as GPU_QUEUE is: the TIMELINE then shows the
        // queue's own order across every device's workers (docs/engine.md, "Devices").
        part->row.queue_us = tl_.record(Event::kGpuPickup, part->job, part->index, worker, device) - part->queued_at;
      }
      part->row.worker = worker;
      part->row.device = device;
      permits_.picked_up();  // after GPU_PICKUP: the TIMELINE never shows more waiting than allowed
      if (skip) {
        fail_partition(std::move(part), "", /*skipped=*/true);
        continue;
      }
      PendingProof pending;
      try {
        pending = gpu_start(*part, device, worker);
      } catch (const std::exception& e) {
        fail_partition(std::move(part), e.what());
        continue;
      }
      pending.r = field::Fr::random(rng);
      pending.s = field::Fr::random(rng);
      if (cfg_.early_free) free_abc(*part);
      if (finalizer_) {
        // The split API: the rest of this proof runs on the finalizer; this worker loops.
        auto task = std::make_shared<std::pair<std::unique_ptr<Partition>, PendingProof>>(std::move(part),
                                                                                         std::move(pending));
        finalizer_->submit([this, task] { finalize_and_release(std::move(task->first), task->second); });
        continue;
      }
      finalize_and_release(std::move(part), pending);
    }
  }

  // The reference's prove_start clears a, b, c once the kernels have consumed them
  // (cuzk-project.md, Phase 12 "early a/b/c free"): the host copies go back now, before
  // b_g2_msm is joined, and so does their share of the host budget.
  void free_abc(Partition& part) {
    const std::uint64_t bytes = buffer_bytes(part.synth.a) + buffer_bytes(part.synth.b) + buffer_bytes(part.synth.c);
    const std::int64_t t0 = tl_.now_us();
    std::vector<field::Fr>().swap(part.synth.a);
    std::vector<field::Fr>().swap(part.synth.b);
    std::vector<field::Fr>().swap(part.synth.c);
    part.memory.release(bytes);
    const std::int64_t dur = tl_.now_us() - t0;
    tl_.record(Event::kEarlyFree, part.job, part.index, part.row.worker, part.row.device,
               kv("bytes", static_cast<std::int64_t>(bytes)) + ";" + kv("dur_us", dur));
  }

  void finalize_and_release(std::unique_ptr<Partition> part, PendingProof& pending) {
    try {
      finalize(*part, pending);
    } catch (const std::exception& e) {
      fail_partition(std::move(part), e.what());
      return;
    }
    finish_partition(std::move(part));
  }

  // The finalize half (finalize_groth16_proof_c): join b_g2_msm, assemble the proof.
  void finalize(Partition& part, PendingProof& pending) {
    const int job = part.job, idx = part.index, worker = part.row.worker, device = part.row.device;
    const char* mode = finalizer_ ? "mode=split" : "mode=inline";
    tl_.record(Event::kFinalizeStart, job, idx, worker, device, mode);
    const curve::G2Jacobian b = pending.b_g2.get();
    const std::int64_t e0 = tl_.now_us();
    StageRange epilogue_range(tl_.stage_listener(), Stage::kEpilogue, {job, idx, worker, device});
    const groth16::Proof proof = groth16::epilogue(in_.pk, pending.sums, b, pending.r, pending.s);
    epilogue_range.end();
    const std::int64_t e1 = tl_.record(Event::kFinalizeEnd, job, idx, worker, device, mode);
    part.row.epilogue_us = e1 - e0;
    std::lock_guard lock(m_);
    jobs_.at(job)->proofs[idx] = proof;
  }

  // The start half (generate_groth16_proofs_start_c): b_g2_msm submitted, the GPU phase under
  // the lock policy, the lock released. b_g2_msm is still running when it returns.
  PendingProof gpu_start(Partition& part, int device, int worker) {
    auto& be = in_.backend;
    const int job = part.job, idx = part.index;
    // b_g2_msm starts now, from prep_msm's output, and is joined after the GPU lock is
    // released: the next worker's GPU phase overlaps it.
    auto b_g2 = groth16_pool_.submit([&, job, idx, device, worker] {
      if (b_g2_active_.fetch_add(1) == 0 && cfg_.throttle) tl_.record(Event::kThrottleOn);
      const std::int64_t t0 = tl_.record(Event::kBG2MsmStart, job, idx, worker, device);
      StageRange range(tl_.stage_listener(), Stage::kBG2Msm, {job, idx, worker, device});
      curve::G2Jacobian r;
      try {
        r = groth16::b_g2_msm(in_.pk, part.plan, groth16_pool_);
      } catch (...) {
        if (b_g2_active_.fetch_sub(1) == 1 && cfg_.throttle) tl_.record(Event::kThrottleOff);
        throw;
      }
      range.end();
      const std::int64_t t1 = tl_.record(Event::kBG2MsmEnd, job, idx, worker, device);
      if (b_g2_active_.fetch_sub(1) == 1 && cfg_.throttle) tl_.record(Event::kThrottleOff);
      part.row.b_g2_msm_us = t1 - t0;
      return r;
    });
    // The task reads `part`: never leave by an exception before it has finished (a normal
    // return moves the future out, and finalize joins it).
    struct JoinGuard {
      std::future<curve::G2Jacobian>& f;
      ~JoinGuard() {
        if (f.valid()) f.wait();
      }
    } join_b_g2{b_g2};

    std::unique_ptr<DeviceBuffers> buffers;
    std::string prestage = "empty";
    DeviceLocks& locks = device_locks(device);
    trace::StageListener* const stages = tl_.stage_listener();
    const trace::StageTag tag{job, idx, worker, device};
    if (cfg_.lock_policy == LockPolicy::kTwoLock) {
      const std::int64_t s0 = tl_.record(Event::kPrestageStart, job, idx, worker, device);
      StageRange prestage_range(stages, Stage::kPrestage, tag);
      {
        std::lock_guard mem(locks.mem);
        const std::uint64_t need = be.partition_vram_bytes(domain_);
        if (be.vram_used(device) + need > be.vram_budget(device)) {
          prestage = "skip_vram";
        } else {
          try {
            buffers = be.stage(device, part.synth, "prestage");
            prestage = "ok";
          } catch (const OutOfDeviceMemory&) {
            prestage = "fallback";
          }
        }
      }
      prestage_range.end();
      const std::int64_t s1 = tl_.record(Event::kPrestageEnd, job, idx, worker, device, "prestage=" + prestage);
      part.row.prestage_us = s1 - s0;
      part.row.prestage = prestage;
    }

    const std::int64_t wait0 = tl_.record(Event::kLockWaitStart, job, idx, worker, device);
    StageRange wait_range(stages, Stage::kLockWait, tag);
    std::unique_lock<std::mutex> held;
    if (cfg_.lock_policy == LockPolicy::kSingle) held = std::unique_lock(locks.gpu);
    if (cfg_.lock_policy == LockPolicy::kTwoLock) held = std::unique_lock(locks.compute);
    wait_range.end();
    const std::int64_t g0 = tl_.record(Event::kGpuStart, job, idx, worker, device);
    part.row.lock_wait_us = g0 - wait0;
    std::int64_t substage_sum = 0;
    groth16::GpuPhaseSums sums;
    be.reset_vram_peak(device);  // held lock: the peak from here is this phase's
    {
      // Whatever happens below, the lock is released with GPU_END recorded.
      struct EndGuard {
        Engine& e;
        int job, idx, worker, device;
        std::int64_t g0;
        trace::StageRow& row;
        std::unique_lock<std::mutex>& held;
        ~EndGuard() {
          const std::int64_t g1 = e.tl_.record(Event::kGpuEnd, job, idx, worker, device);
          row.lock_held_us = g1 - g0;
          e.gpu_held_.add(device, {g0, g1});
          if (held.owns_lock()) held.unlock();
        }
      } guard{*this, job, idx, worker, device, g0, part.row, held};
      StageRange gpu_range(stages, Stage::kGpuPhase, tag);  // ends before the guard's GPU_END

      if (!buffers) {
        if (cfg_.lock_policy == LockPolicy::kTwoLock) {
          // The fallback path: device-global synchronisation and a pool trim inside the
          // compute lock (the reference's pre_destructor cost), then allocate and upload.
          const std::int64_t f0 = tl_.now_us();
          be.synchronize(device);
          be.trim_pool(device);
          part.row.pre_destructor_us = tl_.now_us() - f0;
        }
        buffers = be.stage(device, part.synth, "gpu_phase");
      }
      // Sub-stage ranges: the backend runs ntt_h, batch_add, tail_msm in this order and
      // reports each as it ends, so each range runs from the previous one's end to its own.
      StageRange sub_range(stages, Stage::kNttH, tag);
      sums = be.run_gpu_phase(device, in_.pk, *buffers, part.plan, [&](const char* name, std::int64_t dur) {
        sub_range.end();
        substage_sum += dur;
        const Event e = std::string_view(name) == "ntt_h"       ? Event::kNttH
                        : std::string_view(name) == "batch_add" ? Event::kBatchAdd
                                                                : Event::kTailMsm;
        tl_.record(e, job, idx, worker, device, kv("dur_us", dur));
        if (e == Event::kNttH) sub_range = StageRange(stages, Stage::kBatchAdd, tag);
        if (e == Event::kBatchAdd) sub_range = StageRange(stages, Stage::kTailMsm, tag);
        if (e == Event::kNttH) part.row.ntt_h_us = dur;
        if (e == Event::kBatchAdd) part.row.batch_add_us = dur;
        if (e == Event::kTailMsm) part.row.tail_msm_us = dur;
      });
      sub_range.end();
      part.row.vram_peak_bytes = be.vram_peak(device);  // staged buffers and phase scratch
      buffers.reset();  // device memory back before the lock goes
    }
    part.row.gpu_total_us = substage_sum;
    return PendingProof{std::move(b_g2), sums, {}, {}};
  }

  struct DeviceLocks {
    std::mutex gpu, mem, compute;
  };
  DeviceLocks& device_locks(int device) {
    std::lock_guard lock(locks_mutex_);
    auto& p = device_locks_[device];
    if (!p) p = std::make_unique<DeviceLocks>();
    return *p;
  }

  // ---- partition end: dealloc, stage row, job accounting ----
  void finish_partition(std::unique_ptr<Partition> part) { release(std::move(part), true, ""); }

  void fail_partition(std::unique_ptr<Partition> part, const std::string& reason, bool skipped = false) {
    release(std::move(part), false, skipped ? "" : reason);
  }

  void release(std::unique_ptr<Partition> part, bool ok, const std::string& reason) {
    part->row.ok = ok;
    const int job = part->job, worker = part->row.worker, device = part->row.device;
    const int idx = part->index;
    {
      std::lock_guard lock(m_);
      auto& j = *jobs_.at(job);
      if (!ok && !j.failed) {
        j.failed = true;
        j.reason = reason.empty() ? "partition " + std::to_string(idx) + " failed" : "partition " + std::to_string(idx) + ": " + reason;
      }
    }
    auto dealloc = [this, job, idx, worker, device](std::unique_ptr<Partition> p) {
      const std::int64_t d0 = tl_.record(Event::kDeallocStart, job, idx, worker, device);
      trace::StageRow row = p->row;
      StageRange range(tl_.stage_listener(), Stage::kDealloc, {job, idx, worker, device});
      p.reset();  // munmap of the partition's host buffers; its budget account goes last
      range.end();
      const std::int64_t d1 = tl_.record(Event::kDeallocEnd, job, idx, worker, device);
      row.dealloc_us = d1 - d0;
      if (in_.run_dir) in_.run_dir->append_stage_row(row);
      partition_accounted(job);
    };
    switch (cfg_.dealloc_policy) {
      case DeallocPolicy::kInline:
        dealloc(std::move(part));
        break;
      case DeallocPolicy::kAsync:
      case DeallocPolicy::kSerialized: {
        {
          std::lock_guard lock(dealloc_mutex_count_);
          ++deallocs_in_flight_;
        }
        std::thread([this, dealloc, p = std::move(part)]() mutable {
          {
            std::unique_lock<std::mutex> serial;
            if (cfg_.dealloc_policy == DeallocPolicy::kSerialized) serial = std::unique_lock(serial_dealloc_);
            dealloc(std::move(p));
          }
          std::lock_guard lock(dealloc_mutex_count_);
          if (--deallocs_in_flight_ == 0) dealloc_cv_.notify_all();
        }).detach();
        break;
      }
    }
  }

  void wait_for_deallocs() {
    std::unique_lock lock(dealloc_mutex_count_);
    dealloc_cv_.wait(lock, [&] { return deallocs_in_flight_ == 0; });
  }

  void partition_accounted(int seq) {
    std::unique_lock lock(m_);
    auto& job = *jobs_.at(seq);
    if (++job.accounted < static_cast<int>(cfg_.partitions)) return;
    // The last partition of the job: verify, write the proofs, report.
    JobReport rep;
    rep.job = seq;
    std::vector<groth16::Proof> proofs = job.proofs;
    auto inputs = job.inputs;
    const bool failed = job.failed;
    std::string reason = job.reason;
    lock.unlock();
    if (!failed) {
      tl_.record(Event::kProofDone, seq);
      if (cfg_.verify) {
        for (std::size_t p = 0; p < proofs.size() && reason.empty(); ++p) {
          const auto v = groth16::verify(in_.pk.vk, proofs[p], inputs[p]);
          if (!v) reason = "partition " + std::to_string(p) + " proof does not verify: " + v.reason;
        }
      }
      if (in_.run_dir && reason.empty()) {
        groth16::ProofBundle bundle{cfg_.circuit, cfg_.constraints, shape_hash_, std::move(proofs),
                                    std::move(inputs)};
        // A proof that is not on disk is not a completed job (a full disk, no inodes left).
        try {
          groth16::write_proof_bundle(in_.run_dir->proofs_dir() / ("job_" + std::to_string(seq)), bundle);
        } catch (const std::exception& e) {
          reason = std::string("writing the proofs: ") + e.what();
        }
      }
    }
    rep.ok = reason.empty() && !failed;
    rep.reason = reason;
    const std::int64_t end = rep.ok ? tl_.record(Event::kJobDone, seq)
                                    : tl_.record(Event::kJobFailed, seq, -1, -1, -1, "reason=" + sanitize(reason));
    lock.lock();
    last_end_us_ = std::max(last_end_us_, end);
    rep.wall_s = (end - job.submit_us) / 1e6;
    const std::int64_t first = job.first_synth_us >= 0 ? job.first_synth_us : job.submit_us;
    rep.queue_s = (first - job.submit_us) / 1e6;
    rep.prove_s = (end - first) / 1e6;
    reports_.push_back(rep);
    const std::size_t done = reports_.size();
    jobs_.erase(seq);
    --in_flight_;
    if (in_.on_job_end) in_.on_job_end(rep, done, cfg_.count);
    done_cv_.notify_all();
  }

  static std::string sanitize(std::string s) {
    for (auto& c : s)
      if (c == ';' || c == '\n' || c == ',') c = ' ';
    return s;
  }

  BatchResult finish() {
    BatchResult out;
    out.jobs = reports_;
    out.interrupted = interrupted_;
    std::size_t completed = 0;
    std::vector<double> wall, prove;
    for (const auto& r : reports_) {
      if (!r.ok) continue;
      ++completed;
      wall.push_back(r.wall_s);
      prove.push_back(r.prove_s);
    }
    auto stats = [](std::vector<double> v) {
      if (v.empty()) return nlohmann::json{{"avg", nullptr}, {"min", nullptr}, {"max", nullptr}};
      double sum = 0;
      for (double x : v) sum += x;
      return nlohmann::json{{"avg", sum / v.size()},
                            {"min", *std::min_element(v.begin(), v.end())},
                            {"max", *std::max_element(v.begin(), v.end())}};
    };
    auto pct = [](const std::vector<double>& v, double q) -> nlohmann::json {
      const auto p = trace::percentile(v, q);
      return p ? nlohmann::json(*p) : nlohmann::json(nullptr);
    };
    const double total_s = (end_us_ - start_us_) / 1e6;
    out.summary = {{"count", cfg_.count},
                   {"completed", completed},
                   {"failed", reports_.size() - completed},
                   {"interrupted", interrupted_},
                   {"total_s", total_s},
                   {"wall_s", stats(wall)},
                   {"prove_s", stats(prove)},
                   {"throughput_proofs_per_min", completed ? completed / total_s * 60 : 0.0},
                   {"s_per_proof", completed ? nlohmann::json(total_s / completed) : nlohmann::json(nullptr)},
                   {"latency_s", {{"p50", pct(wall, 0.5)}, {"p95", pct(wall, 0.95)}}},
                   {"timeline_events", tl_.events_recorded()},
                   {"peak_rss_bytes", peak_rss_bytes_ ? nlohmann::json(*peak_rss_bytes_) : nlohmann::json(nullptr)},
                   {"peak_rss_scope", peak_rss_scope_},
                   {"peak_host_charged_bytes", budget_.peak_charged()},
                   {"host_mem_budget_bytes", budget_.total()},
                   {"partition_footprint_bytes", footprint_}};
    const std::optional<trace::Span> window =
        first_submit_us_ ? std::optional<trace::Span>(trace::Span{*first_submit_us_, last_end_us_}) : std::nullopt;
    out.summary.update(trace::device_busy_summary(gpu_held_.snapshot(), static_cast<int>(cfg_.devices), window,
                                                  in_.backend.name() == "cuda"
                                                      ? "CUPTI did not run"
                                                      : "the " + in_.backend.name() + " backend runs no CUDA kernels"));
    return out;
  }

  const EngineInputs& in_;
  const EngineConfig& cfg_;
  trace::TimelineRecorder& tl_;
  const std::size_t domain_;
  const std::uint64_t shape_hash_;  // written beside each job's proofs, checked by `verify`
  const std::uint64_t footprint_;
  HostMemoryBudget budget_;
  SynthesisPermits permits_;
  std::vector<std::unique_ptr<parallel::ThreadPool>> synth_pools_;  // one per partition worker
  parallel::ThreadPool groth16_pool_;
  std::unique_ptr<Finalizer> finalizer_;  // finalize = split
  std::atomic<int> b_g2_active_{0};
  ThrottleHook throttle_hook_;

  std::mutex m_;
  std::condition_variable synth_cv_, gpu_cv_, done_cv_;
  std::deque<std::pair<int, int>> synth_queue_;
  std::priority_queue<std::unique_ptr<Partition>, std::vector<std::unique_ptr<Partition>>, QueueOrder> gpu_queue_;
  std::map<int, std::unique_ptr<Job>> jobs_;
  std::uint32_t in_flight_ = 0;
  bool shutting_down_ = false, interrupted_ = false;
  std::vector<JobReport> reports_;
  std::int64_t start_us_ = 0, end_us_ = 0;
  // The run window of the busy figures (first JOB_SUBMIT .. last JOB_DONE/JOB_FAILED) and
  // each device's lock-held spans, recorded whether or not the TIMELINE is written.
  std::optional<std::int64_t> first_submit_us_;
  std::int64_t last_end_us_ = 0;
  trace::DeviceSpans gpu_held_;
  std::optional<std::uint64_t> peak_rss_bytes_;
  std::string peak_rss_scope_;

  std::mutex locks_mutex_;
  std::map<int, std::unique_ptr<DeviceLocks>> device_locks_;
  std::mutex serial_dealloc_, dealloc_mutex_count_;
  std::condition_variable dealloc_cv_;
  int deallocs_in_flight_ = 0;
};

}  // namespace

void check_config_for_circuit(const EngineConfig& config, const r1cs::R1cs& cs) {
  config.validate();
  resolve_host_mem_budget(config.host_mem_budget, cs_footprint(cs));
}

BatchResult run_batch(const EngineInputs& in) {
  check_config_for_circuit(in.config, in.cs);
  Engine engine(in);
  return engine.run();
}

}  // namespace prooflab::engine
