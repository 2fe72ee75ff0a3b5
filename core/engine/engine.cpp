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
#include "core/engine/deallocator.hpp"
#include "core/engine/finalizer.hpp"
#include "core/engine/gpu_lock_policy.hpp"
#include "core/engine/host_memory_budget.hpp"
#include "core/engine/job_proofs.hpp"
#include "core/engine/synthesis_permits.hpp"
#include "core/engine/synthesis_throttle.hpp"
#include "core/groth16/proof_bundle.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/qap.hpp"
#include "core/groth16/setup.hpp"
#include "core/parallel/thread_cpu.hpp"
#include "core/parallel/thread_pool.hpp"
#include "core/trace/device_busy.hpp"
#include "core/trace/peak_rss.hpp"
#include "core/trace/stage_scope.hpp"

namespace prooflab::engine {
namespace {

using trace::Event;
using trace::Stage;
using trace::StageScope;

std::string kv(const char* k, std::int64_t v) { return std::string(k) + "=" + std::to_string(v); }

template <class T>
std::uint64_t buffer_bytes(const std::vector<T>& v) {
  return static_cast<std::uint64_t>(v.capacity()) * sizeof(T);
}

template <class Curve>
std::uint64_t query_plan_bytes(const groth16::QueryPlan<Curve>& q) {
  return buffer_bytes(q.ones) + buffer_bytes(q.tail_bases) + buffer_bytes(q.tail_scalars) + buffer_bytes(q.tail_index);
}

std::uint64_t cs_footprint(const r1cs::R1cs& cs, const EngineConfig& cfg) {
  return partition_footprint_bytes(groth16::qap_domain_size(cs), cs.num_inputs + cs.num_aux,
                                   cfg.sparse_products);
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

class Engine {
 public:
  explicit Engine(const EngineInputs& in)
      : in_(in),
        cfg_(in.config),
        tl_(in.timeline),
        domain_(groth16::qap_domain_size(in.cs)),
        shape_hash_(groth16::shape_hash(in.cs)),
        footprint_(cs_footprint(in.cs, in.config)),
        budget_(resolve_host_mem_budget(cfg_.host_mem_budget, footprint_)),
        permits_(cfg_.partition_workers,
                 cfg_.synthesis_lookahead ? cfg_.synthesis_lookahead : cfg_.partition_workers,
                 GpuQueuePacer(cfg_.max_gpu_queue_depth)),
        groth16_pool_(cfg_.gpu_threads, "groth16"),
        lock_policy_(make_gpu_lock_policy(cfg_.lock_policy, cfg_.devices)),
        deallocator_(make_deallocator(cfg_.dealloc_policy)),
        throttle_(cfg_.throttle, tl_) {
    budget_.set_gauge(in.host_charged_gauge);
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
    // The engine's own threads add their CPU time as they end (summary.json "engine").
    for (std::uint32_t i = 0; i < cfg_.partition_workers; ++i)
      threads.emplace_back([this, i] {
        partition_worker(*synth_pools_[i]);
        engine_cpu_.add_this_thread();
      });
    for (std::uint32_t d = 0; d < cfg_.devices; ++d)
      for (std::uint32_t w = 0; w < cfg_.gpu_workers_per_device; ++w)
        threads.emplace_back([this, d, w] {
          gpu_worker(static_cast<int>(d), static_cast<int>(w));
          engine_cpu_.add_this_thread();
        });

    submit_jobs();
    {
      std::lock_guard lock(m_);
      shutting_down_ = true;
    }
    synth_cv_.notify_all();
    gpu_cv_.notify_all();
    for (auto& t : threads) t.join();
    if (finalizer_) finalizer_->drain();
    deallocator_->drain();
    end_us_ = tl_.now_us();
    cpu_seconds_by_pool_ = pool_cpu_seconds();
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
    const trace::StageTag tag{part.job, part.index};
    StageScope synth(tl_, Stage::kSynthesize, tag, &part.row);
    // The witness on this thread, then the sparse products on the lane's pool: only these
    // yield to the throttle, so the model needs where one ends and the other begins.
    StageScope witness_scope = synth.begin_first_part(Stage::kWitness);
    {
      std::lock_guard lock(m_);
      auto& job = *jobs_.at(part.job);
      if (job.first_synth_us < 0) job.first_synth_us = synth.start_us();
    }
    r1cs::Witness witness = circuits::synthesize_witness(*circuit);
    witness_scope.end();
    // sparse_products = gpu: the stage is the witness alone; the device computes a, b, c in
    // the GPU phase (docs/engine.md, "Sparse products on the device"), so the throttle has
    // nothing to slow here.
    part.synth = cfg_.sparse_products == Placement::kGpu
                     ? groth16::defer_products(in_.cs, std::move(witness), !groth16::folds_c(in_.pk.h_basis))
                     : groth16::synthesize(in_.cs, std::move(witness), pool, throttle_.hook(),
                                           !groth16::folds_c(in_.pk.h_basis));
    part.row.abc_bytes = buffer_bytes(part.synth.a) + buffer_bytes(part.synth.b) + buffer_bytes(part.synth.c);
    part.row.aux_bytes = buffer_bytes(part.synth.witness.input) + buffer_bytes(part.synth.witness.aux);
    part.memory.charge(part.row.abc_bytes + part.row.aux_bytes);
    part.row.host_bytes = part.row.abc_bytes + part.row.aux_bytes;
    synth.end();
    // prep_msm = gpu: the device makes the plan at the start of the GPU phase (gpu_start).
    if (cfg_.prep_msm == Placement::kCpu) {
      StageScope prep(tl_, Stage::kPrepMsm, tag, &part.row);
      part.plan = groth16::prep_msm(in_.pk, in_.cs, part.synth.witness);
      charge_host_plan(part);
      prep.end();
    }
    std::lock_guard lock(m_);
    auto& job = *jobs_.at(part.job);
    job.inputs[part.index].assign(part.synth.witness.input.begin() + 1, part.synth.witness.input.end());
  }

  // The plan's host buffers ("density"), charged once they exist: prep_msm's whole plan, or
  // (prep_msm = gpu, b_g2_msm = cpu) the B_G2 plan downloaded from the device.
  void charge_host_plan(Partition& part) {
    part.row.density_bytes = query_plan_bytes(part.plan.l) + query_plan_bytes(part.plan.a) +
                             query_plan_bytes(part.plan.b_g1) + query_plan_bytes(part.plan.b_g2);
    part.memory.charge(part.row.density_bytes);
    part.row.host_bytes += part.row.density_bytes;
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
    StageScope epilogue(tl_, Stage::kEpilogue, {job, idx, worker, device}, &part.row);
    const groth16::Proof proof = groth16::epilogue(in_.pk, pending.sums, b, pending.r, pending.s);
    epilogue.end(mode);  // FINALIZE_END
    std::lock_guard lock(m_);
    jobs_.at(job)->proofs[idx] = proof;
  }

  // pin_uploads = on: the backend's page-locked uploads of one partition, each end
  // recorded (HOST_PIN after locking, HOST_UNPIN after unlocking: bytes, dur_us). A failure to
  // lock throws, which fails the partition with the backend's message.
  class PinnedUploads {
   public:
    PinnedUploads(trace::TimelineRecorder& tl, const trace::StageTag& tag, Backend* be,
                  const groth16::SynthesizedPartition& part, const groth16::MsmPlan* plan)
        : tl_(tl), tag_(tag) {
      if (!be) return;
      pinned_ = true;  // HOST_UNPIN follows HOST_PIN even if the backend locked nothing
      const std::int64_t t0 = tl_.now_us();
      pin_ = be->pin_uploads(tag.device, part, plan);
      bytes_ = pin_ ? pin_->bytes() : 0;
      record(Event::kHostPin, t0);
    }
    ~PinnedUploads() {
      if (!pinned_) return;
      const std::int64_t t0 = tl_.now_us();
      pin_.reset();
      record(Event::kHostUnpin, t0);
    }
    PinnedUploads(const PinnedUploads&) = delete;
    PinnedUploads& operator=(const PinnedUploads&) = delete;

   private:
    void record(Event e, std::int64_t t0) {
      tl_.record(e, tag_.job, tag_.partition, tag_.worker, tag_.device,
                 kv("bytes", static_cast<std::int64_t>(bytes_)) + ";" + kv("dur_us", tl_.now_us() - t0));
    }
    trace::TimelineRecorder& tl_;
    trace::StageTag tag_;
    std::unique_ptr<PinnedHost> pin_;
    bool pinned_ = false;
    std::uint64_t bytes_ = 0;
  };

  // The start half (generate_groth16_proofs_start_c): b_g2_msm submitted, the GPU phase under
  // the lock policy, the lock released. b_g2_msm is still running when it returns.
  PendingProof gpu_start(Partition& part, int device, int worker) {
    auto& be = in_.backend;
    const int job = part.job, idx = part.index;
    const trace::StageTag tag{job, idx, worker, device};
    // b_g2_msm = cpu: it starts from prep_msm's output on the groth16 pool — now, or with
    // prep_msm = gpu once the device has made the plan (inside the lock, below) — and is
    // joined after the GPU lock is released: the next worker's GPU phase overlaps it.
    // b_g2_msm = gpu: it runs on the device at the end of the GPU phase (below).
    const bool g2_on_device = cfg_.b_g2_msm == Placement::kGpu;
    const bool prep_on_device = cfg_.prep_msm == Placement::kGpu;
    std::future<curve::G2Jacobian> b_g2;
    const auto submit_b_g2 = [&] {
      b_g2 = groth16_pool_.submit([&, tag] {
        const SynthesisThrottle::Running running(throttle_);  // THROTTLE_OFF after the stage ends
        StageScope stage(tl_, Stage::kBG2Msm, tag, &part.row);
        // The device's plan has the tail's positions; the host MSM needs its bases.
        if (prep_on_device) groth16::gather_tail_bases(in_.pk.b_g2, part.plan.b_g2);
        const curve::G2Jacobian r = groth16::b_g2_msm(in_.pk, part.plan, groth16_pool_);
        stage.end();
        return r;
      });
    };
    if (!g2_on_device && !prep_on_device) submit_b_g2();
    // The task reads `part`: never leave by an exception before it has finished (a normal
    // return moves the future out, and finalize joins it).
    struct JoinGuard {
      std::future<curve::G2Jacobian>& f;
      ~JoinGuard() {
        if (f.valid()) f.wait();
      }
    } join_b_g2{b_g2};

    // pin_uploads: page-locked before the pre-staging and the lock, unlocked after the lock
    // is released (declared before `held`, so destroyed after it).
    // The host plan's vectors only with prep_msm = cpu: with gpu the device makes the plan
    // inside the lock (run_prep_msm writes part.plan there, so it must not be locked now).
    const PinnedUploads pinned(tl_, tag, cfg_.pin_uploads ? &be : nullptr, part.synth,
                               cfg_.prep_msm == Placement::kCpu ? &part.plan : nullptr);

    std::unique_ptr<DeviceBuffers> buffers;
    if (lock_policy_->prestages()) {
      StageScope prestage(tl_, Stage::kPrestage, tag, &part.row);
      Prestaged pre = lock_policy_->prestage(be, device, part.synth, domain_);
      buffers = std::move(pre.buffers);
      part.row.prestage = pre.outcome;
      prestage.end("prestage=" + pre.outcome);
    }

    StageScope wait(tl_, Stage::kLockWait, tag, &part.row);
    const std::unique_lock<std::mutex> held = lock_policy_->acquire(device);
    StageScope gpu = wait.end_and_begin(Stage::kGpuPhase);  // GPU_START: the lock is held
    // Whatever happens in the phase, GPU_END is recorded before the lock is released.
    const auto end_gpu_phase = [&] { gpu_held_.add(device, {gpu.start_us(), gpu.end()}); };
    groth16::GpuPhaseSums sums;
    try {
      be.reset_vram_peak(device);  // held lock: the peak from here is this phase's
      if (!buffers) {
        const std::int64_t f0 = tl_.now_us();
        if (lock_policy_->fallback_in_lock(be, device)) part.row.pre_destructor_us = tl_.now_us() - f0;
        buffers = be.stage(device, part.synth, "gpu_phase");
      }
      std::unique_ptr<DevicePlan> b_g2_plan;
      if (prep_on_device) {
        // Under the lock, before the phase frees the witness it classifies (docs/engine.md,
        // "prep_msm on the device").
        StageScope prep(tl_, Stage::kPrepMsm, tag, &part.row);
        b_g2_plan = be.run_prep_msm(device, in_.pk, in_.cs, *buffers, g2_on_device, part.plan);
        prep.end();
        if (!g2_on_device) {
          // The host MSM's gathered bases, charged with the downloaded plan before they exist.
          part.plan.b_g2.tail_bases.reserve(part.plan.b_g2.tail_index.size());
          charge_host_plan(part);
          submit_b_g2();
        }
      }
      sums = run_gpu_phase(part, tag, *buffers);
      part.row.vram_peak_bytes = be.vram_peak(device);  // staged buffers and phase scratch
      buffers.reset();  // device memory back before the lock goes
      if (g2_on_device) {
        // Inside the lock, after a, b, c are freed: the device's work stays serialised under
        // `single` (GPU_START..GPU_END covers it) and its scratch has the partition's room.
        const SynthesisThrottle::Running running(throttle_);
        StageScope stage(tl_, Stage::kBG2Msm, tag, &part.row);
        std::promise<curve::G2Jacobian> done;
        done.set_value(be.run_b_g2_msm(device, in_.pk, part.plan, b_g2_plan.get()));
        stage.end();
        b_g2 = done.get_future();
        part.row.vram_peak_bytes = std::max(part.row.vram_peak_bytes, be.vram_peak(device));
      }
    } catch (...) {
      end_gpu_phase();
      throw;
    }
    end_gpu_phase();
    return PendingProof{std::move(b_g2), sums, {}, {}};
  }

  // The backend's GPU phase, each sub-stage a scope from the previous one's end to its own
  // (the backend runs ntt_h, batch_add, tail_msm in this order and reports each as it ends).
  groth16::GpuPhaseSums run_gpu_phase(Partition& part, const trace::StageTag& tag, DeviceBuffers& buffers) {
    std::optional<StageScope> sub;
    sub.emplace(tl_, Stage::kNttH, tag, &part.row);
    std::int64_t substage_sum = 0;
    const groth16::GpuPhaseSums sums =
        in_.backend.run_gpu_phase(tag.device, in_.pk, buffers, part.plan, [&](Stage reported, std::int64_t dur) {
          // Another stage, or one out of order, is a backend's bug: it fails the partition.
          if (!sub || trace::checked_gpu_substage(reported) != sub->stage())
            throw std::logic_error(std::string("a backend reported the GPU sub-stage '") +
                                   trace::stage_name(reported) + "' where '" +
                                   (sub ? trace::stage_name(sub->stage()) : "none") + "' was due");
          sub->end_reported(dur);
          substage_sum += dur;
          if (reported == Stage::kTailMsm)
            sub.reset();
          else
            sub.emplace(tl_, reported == Stage::kNttH ? Stage::kBatchAdd : Stage::kTailMsm, tag, &part.row);
        });
    part.row.gpu_total_us = substage_sum;
    return sums;
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
    // The partition's last records: its host buffers freed (munmap; its budget account goes
    // last), then its stages.csv row, which carries the dealloc's duration.
    auto holder = std::make_shared<std::unique_ptr<Partition>>(std::move(part));
    deallocator_->run([this, holder, job, idx, worker, device] {
      trace::StageRow row = (*holder)->row;
      StageScope dealloc(tl_, Stage::kDealloc, {job, idx, worker, device}, &row);
      holder->reset();
      dealloc.end();
      if (in_.run_dir) in_.run_dir->append_stage_row(row);
      partition_accounted(job);
    });
  }

  // Each pool's CPU seconds, read once at the end while its threads still live.
  std::map<std::string, double> pool_cpu_seconds() const {
    std::map<std::string, double> out = in_.backend.pool_cpu_seconds();
    for (std::size_t i = 0; i < synth_pools_.size(); ++i)
      out["synthesis" + std::to_string(i)] = synth_pools_[i]->cpu_seconds();
    out["groth16"] = groth16_pool_.cpu_seconds();
    if (finalizer_) out["finalizer"] = finalizer_->cpu_seconds();
    out["engine"] = engine_cpu_.seconds();
    return out;
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
      if (cfg_.verify) reason = verify_job_proofs(in_.pk.vk, proofs, inputs);
      if (in_.run_dir && reason.empty())
        reason = write_job_proofs(in_.run_dir->proofs_dir(), seq,
                                  {cfg_.circuit, cfg_.constraints, shape_hash_, std::move(proofs), std::move(inputs),
                                   in_.pk.h_basis});
    }
    rep.ok = reason.empty() && !failed;
    rep.reason = reason;
    const std::int64_t end = rep.ok ? tl_.record(Event::kJobDone, seq)
                                    : tl_.record(Event::kJobFailed, seq, -1, -1, -1, "reason=" + sanitize(reason));
    lock.lock();
    last_end_us_ = std::max(last_end_us_, end);
    if (rep.ok) last_done_us_ = std::max(last_done_us_, end);
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
    BatchFigures f;
    f.count = cfg_.count;
    f.interrupted = interrupted_;
    f.start_us = start_us_;
    f.end_us = end_us_;
    f.timeline_events = tl_.events_recorded();
    f.peak_rss_bytes = peak_rss_bytes_;
    f.peak_rss_scope = peak_rss_scope_;
    f.peak_host_charged_bytes = budget_.peak_charged();
    f.host_mem_budget_bytes = budget_.total();
    f.partition_footprint_bytes = footprint_;
    f.partition_vram_bytes = in_.backend.partition_vram_bytes(domain_);
    for (int d = 0; d < static_cast<int>(cfg_.devices); ++d) f.vram_budget_bytes[d] = in_.backend.vram_budget(d);
    f.gpu_held_us = gpu_held_.snapshot();
    f.devices = static_cast<int>(cfg_.devices);
    f.cpu_seconds_by_pool = cpu_seconds_by_pool_;
    if (first_submit_us_) f.busy_window_us = stats::Span{*first_submit_us_, last_end_us_};
    if (first_submit_us_ && last_done_us_ > 0) f.completed_window_us = stats::Span{*first_submit_us_, last_done_us_};
    f.no_kernels_reason = in_.backend.name() == "cuda" ? "CUPTI did not run"
                                                      : "the " + in_.backend.name() + " backend runs no CUDA kernels";
    return {reports_, interrupted_, batch_summary(reports_, f)};
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
  const std::unique_ptr<GpuLockPolicy> lock_policy_;
  const std::unique_ptr<Deallocator> deallocator_;
  SynthesisThrottle throttle_;
  parallel::CpuTally engine_cpu_;  // the partition workers' and GPU workers' threads
  std::map<std::string, double> cpu_seconds_by_pool_;

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
  std::int64_t last_done_us_ = 0;  // the last completed job's JOB_DONE
  trace::DeviceSpans gpu_held_;
  std::optional<std::uint64_t> peak_rss_bytes_;
  std::string peak_rss_scope_;
};

}  // namespace

void check_config_for_circuit(const EngineConfig& config, const r1cs::R1cs& cs) {
  config.validate();
  resolve_host_mem_budget(config.host_mem_budget, cs_footprint(cs, config));
}

BatchResult run_batch(const EngineInputs& in) {
  check_config_for_circuit(in.config, in.cs);
  Engine engine(in);
  return engine.run();
}

}  // namespace prooflab::engine
