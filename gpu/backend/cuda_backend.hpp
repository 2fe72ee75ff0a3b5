// The engine's Backend on real CUDA devices (issue 5): the GPU phase of DESIGN.md §1 stage 3
// — H by the NTTs (ntt::HComputer), the MSM of H, the batch additions of the scalars equal to
// one and the tail MSMs of L, A and B_G1 (msm::Msm) — with every byte of device memory taken
// through one budgeted DeviceAllocator per device, so that `vram_limit` caps what a run uses
// and the engine's policies (two-lock pre-staging, out-of-memory → failed job) behave as with
// the CPU backend. docs/engine.md and docs/gpu.md, "CUDA backend".
//
// Per device: the allocator (budget = vram_limit, or the device's memory less a margin), a
// service stream (key and table uploads, frees), a pool of "lanes" (a stream, an HComputer
// with its two side streams, an Msm) — each call takes a lane of its own, so several GPU
// workers of one device run concurrently on separate streams — the NTT tables per size, and
// the proving key's G1 queries (H, L, A, B_G1), uploaded once on first use and kept resident
// (charged to the budget). C++20 host code; the header needs no CUDA include.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/backend.hpp"

namespace prooflab::gpu::engine {

// The knobs the backend itself acts on (CudaBackend's constructor says what each does).
struct CudaBackendOptions {
  bool fixed_base_h = false;
  bool overlap_batch_add = false;
  bool b_g2_on_device = false;
  bool tails_beside_h = false;
  unsigned batch_add_group = 1;  // 1: no group tables; 2 or 4 (knob batch_add_tables = pairs | quads)
};

class CudaBackend final : public prooflab::engine::Backend {
 public:
  // Devices 0..devices-1. vram_limit 0: each device's total memory less
  // max(kMinMarginBytes, total / kMarginDivisor) for what lives outside the allocator's
  // accounting (the CUDA context, the kernels' modules, pool granularity).
  // Throws std::runtime_error (the CUDA runtime's reason) when no device is usable, and
  // prooflab::engine::ConfigError naming the key when `devices` exceeds the visible devices
  // or vram_limit exceeds a device's memory.
  // options.fixed_base_h (knob fixed_base_h = on): the MSM of H runs in the fixed-base mode
  // over a table of the H query's 2^(c·w)-multiples (gpu/msm/fixed_base.hpp), built on the
  // device by the first phase of a key and kept in the key's place (W times the H query's
  // bytes: resident_key_bytes counts it).
  // options.overlap_batch_add (knob overlap_batch_add = on): run_gpu_phase runs the batch
  // additions on a stream of their own beside the tail MSMs (see run_gpu_phase).
  // options.tails_beside_h (knob tails_beside_h = on): run_gpu_phase runs the batch
  // additions and the tail MSMs on the lane's side streams while H runs (see run_gpu_phase).
  // options.b_g2_on_device (knob b_g2_msm = gpu): the key's G2 query will be resident beside
  // its G1 queries (run_b_g2_msm uploads it), so streams_key counts it, and a key that would
  // then stream is refused by run_gpu_phase with a ConfigError naming b_g2_msm.
  // options.batch_add_group 2 or 4 (knob batch_add_tables = pairs | quads): the batch additions
  // of L, A and B_G1 run over group tables of their queries (gpu/msm/group_table.hpp), built
  // with the key's upload and kept beside it (resident_key_bytes counts them); 1: none; another
  // value: std::invalid_argument.
  // fixed_base_h, batch_add_group > 1 and b_g2_on_device need the key resident: run_gpu_phase refuses a key that
  // does not fit with them before any of the phase's work, naming the key, the sizes and the
  // budget.
  using Options = CudaBackendOptions;
  CudaBackend(int devices, std::uint64_t vram_limit, Options options = {});
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  static constexpr std::uint64_t kMinMarginBytes = 1ull << 30;
  static constexpr std::uint64_t kMarginDivisor = 20;  // 5 %

  std::string name() const override { return "cuda"; }
  int num_devices() const override;
  std::uint64_t vram_budget(int device) const override;
  std::uint64_t vram_used(int device) const override;
  // Per partition of domain size n: a, b, c (3·32·n) plus the largest scratch of the phase
  // (H's transforms, the MSM of H, the batch additions' bitmap and partial sums, a tail chunk
  // with its uploaded bases and scalars; with overlap_batch_add the batch additions' and a
  // tail chunk's together). The key's resident bases and the NTT tables are per device, not
  // per partition: they show in vram_used once the first phase has run.
  std::uint64_t partition_vram_bytes(std::size_t domain_size) const override {
    return partition_bytes(domain_size, options_);
  }
  // The same, without a device (tests, planning), for a backend made with these options.
  static std::uint64_t partition_bytes(std::size_t domain_size, const Options& options = {});
  // Device bytes of one batch addition over at most n bases (batch_add): the uploaded bitmap,
  // the words' counts and prefix sums, and the partial sums (one per 32 bases, at most 2^18,
  // and their rounds).
  static std::uint64_t batch_add_bytes(std::size_t n);

  // With part.products_on_device (sparse_products = gpu): the system's matrices made resident
  // on the device by the first call for that system (stage r1cs_matrices, kept like the key;
  // another system replaces them), a, b, c allocated and the witness uploaded
  // (device_witness.hpp); run_gpu_phase computes a, b, c from them before H and frees the
  // witness.
  std::unique_ptr<prooflab::engine::DeviceBuffers> stage(
      int device, const groth16::SynthesizedPartition& part, const char* stage_name) override;
  // pin_uploads = on: cudaHostRegister of the vectors stage() uploads and of the plan's
  // bitmaps, tail positions and tail scalars (those of 1 MiB and more:
  // memory::HostRegistration), unregistered when the result is destroyed.
  std::unique_ptr<prooflab::engine::PinnedHost> pin_uploads(int device, const groth16::SynthesizedPartition& part,
                                                            const groth16::MsmPlan* plan) override;
  // cudaDeviceSynchronize: waits for every stream of the device, other workers' included.
  void synchronize(int device) override;
  // cudaMemPoolTrimTo(0) on the device's pool.
  void trim_pool(int device) override;
  // H (ntt_h), then the batch additions of L, A, B_G1 (batch_add), then their tail MSMs
  // (tail_msm, at once on three streams where tails_together). With overlap_batch_add (a
  // resident key whose tails run at once) the batch additions run on a fourth stream while the
  // tails do: batch_add is reported when the batch additions end and tail_msm when the tails
  // have ended after them (0 if they were done first), so the sub-stages still tile the phase.
  // With tails_beside_h (the same condition) the batch additions and tails (with or without
  // overlap_batch_add between them) start with H, on the lane's side streams: ntt_h ends when
  // H's MSM does, batch_add when the batch additions have ended after it and tail_msm when the
  // tails have (each 0 if done before), so the sub-stages still tile the phase.
  groth16::GpuPhaseSums run_gpu_phase(int device, const groth16::ProvingKey& pk,
                                      prooflab::engine::DeviceBuffers& buffers,
                                      const groth16::MsmPlan& plan,
                                      const trace::SubstageHook& on_substage) override;
  // b_g2_msm = gpu: the key's G2 query uploaded by the first call and kept beside its G1
  // queries (stage pk_b_g2_bases), then the ones' batch addition and the tail MSM gathered
  // from it in chunks of tail_chunk(n) (stage b_g2_msm), on a lane of its own. A key that
  // streams (streams_key) is refused with an error naming b_g2_msm.
  // b_g2_plan (prep_msm = gpu): the bitmap and tail run_prep_msm left on the device.
  curve::G2Jacobian run_b_g2_msm(int device, const groth16::ProvingKey& pk,
                                 const groth16::MsmPlan& plan,
                                 const prooflab::engine::DevicePlan* b_g2_plan) override;
  // prep_msm = gpu: the A and B queries' variables made resident by the first call for a
  // system (stage prep_msm_variables, kept like the matrices), then every query's plan from
  // the staged witness (gpu/msm_plan, stage prep_msm) on a lane of its own, synchronised. A
  // key that streams (streams_key) is refused with an error naming prep_msm.
  std::unique_ptr<prooflab::engine::DevicePlan> run_prep_msm(int device, const groth16::ProvingKey& pk,
                                                             const prooflab::r1cs::R1cs& cs,
                                                             prooflab::engine::DeviceBuffers& staged,
                                                             bool b_g2_on_device,
                                                             groth16::MsmPlan& plan) override;

  // The allocator's high-water mark on a device (bytes accounted, scratch included) and its
  // reset to the current use: what a phase really took, to check partition_vram_bytes by.
  std::uint64_t vram_peak(int device) const override;
  void reset_vram_peak(int device) override;

  // Largest number of tail points given to one device MSM; longer tails run in chunks so the
  // tail's device footprint stays within the H phase's (see partition_vram_bytes).
  static std::size_t tail_chunk(std::size_t domain_size);
  // Device bytes one tail MSM of `points` points takes (its positions and scalars uploaded,
  // or a streamed key's bases in two buffers, and the MSM's scratch): partition_bytes counts
  // one chunk of tail_chunk(n); the three tails run at once where theirs together fit that.
  static std::uint64_t tail_chunk_bytes(std::size_t points);
  // Whether run_gpu_phase runs the tail MSMs of L, A and B_G1 (of these lengths, resident key)
  // at once, on three streams: when their first chunks' bytes together fit one chunk's.
  static bool tails_together(std::size_t domain_size, std::size_t l, std::size_t a, std::size_t b_g1);
  // Whether the key's queries stay in host memory and stream through the MSMs in batches of
  // stream_batch(n) points: when resident_bytes + partition_bytes(n) (and the NTT tables and
  // resident matrices) exceed the budget.
  // A streamed key's vectors are page-locked (cudaHostRegister) until another key replaces it
  // or the backend is destroyed: the ProvingKey must outlive its use here (as it must anyway:
  // keys are recognised by address).
  bool streams_key(int device, const groth16::ProvingKey& pk, std::size_t domain_size) const;
  static std::size_t stream_batch(std::size_t domain_size);
  // Bytes of the constraint system's matrices resident on a device (sparse_products = gpu;
  // 0 before the first partition staged there). streams_key counts them.
  std::uint64_t resident_matrices_bytes(int device) const;
  // Bytes the proving key's G1 queries take on each device once resident; fixed_base_h: with
  // the H query's fixed-base table in place of the query; batch_add_group 2 or 4: with the group
  // tables of L, A and B_G1 beside them (0.5 or 2.75 × a query each).
  static std::uint64_t resident_key_bytes(const groth16::ProvingKey& pk, bool fixed_base_h = false,
                                          unsigned batch_add_group = 1);
  // Everything of the key these options keep on each device: resident_key_bytes, and the G2
  // query (192 bytes a point) with b_g2_on_device.
  static std::uint64_t resident_bytes(const groth16::ProvingKey& pk, const Options& options);
  bool fixed_base_h() const { return options_.fixed_base_h; }
  bool overlap_batch_add() const { return options_.overlap_batch_add; }
  bool tails_beside_h() const { return options_.tails_beside_h; }
  unsigned batch_add_group() const { return options_.batch_add_group; }

  struct Device;  // per-device state (cuda_backend.cpp)

 private:
  Device& device_at(int device) const;
  std::unique_ptr<prooflab::engine::DeviceBuffers> stage_witness(
      int device, const groth16::SynthesizedPartition& part, const char* stage_name);
  std::vector<std::unique_ptr<Device>> devices_;
  Options options_;
};

}  // namespace prooflab::gpu::engine
