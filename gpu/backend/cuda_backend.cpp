#include "gpu/backend/cuda_backend.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <array>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <new>
#include <mutex>
#include <span>
#include <stdexcept>

#include "core/engine/config.hpp"
#include "core/groth16/qap.hpp"
#include "gpu/backend/device_witness.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/memory/device_allocator.hpp"
#include "gpu/memory/host_registration.hpp"
#include "gpu/msm/fixed_base.hpp"
#include "gpu/msm/group_table.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/msm_host.hpp"
#include "gpu/msm_plan/device_plan.hpp"
#include "gpu/msm_plan/device_query_variables.hpp"
#include "gpu/ntt/domain.hpp"
#include "gpu/h/h.hpp"
#include "gpu/ntt/plan.hpp"
#include "gpu/r1cs/device_matrices.hpp"
#include "gpu/r1cs/sparse_products.hpp"

namespace prooflab::gpu::engine {

using field::Fr32;  // gpu::field
using memory::DeviceAllocator;
using memory::DeviceBuffer;
using memory::DeviceOutOfMemory;
using prooflab::engine::OutOfDeviceMemory;
using msm_plan::DeviceQueryPlan;
using msm_plan::DeviceQueryVariables;
using r1cs::DeviceMatrices;  // gpu::r1cs

static_assert(sizeof(::prooflab::field::Fr) == sizeof(Fr32), "CPU and device Fr share one layout");
static_assert(sizeof(::prooflab::msm::Scalar) == sizeof(Fr32), "a canonical scalar is 32 bytes");
static_assert(sizeof(curve::G1Affine) == sizeof(msm::G1AffineRaw), "core's affine G1 layout");

namespace {

constexpr std::uint64_t kFrBytes = sizeof(Fr32);
constexpr std::uint64_t kAffineBytes = sizeof(msm::G1AffineRaw);

// The calling thread's current device for the scope (the engine's threads serve every device).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device) check_cuda(cudaSetDevice(device), "cudaSetDevice");
  }
  // For destructors: never throws (a failure shows at the next checked call).
  DeviceScope(int device, std::nothrow_t) {
    if (cudaGetDevice(&previous_) != cudaSuccess || cudaSetDevice(device) != cudaSuccess)
      cudaGetLastError();
  }
  ~DeviceScope() { cudaSetDevice(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// The allocator's error in the engine's terms: the engine fails the partition's job with it
// (and the two-lock pre-staging falls back on it), exactly as with the CPU backend.
OutOfDeviceMemory engine_oom(int device, const DeviceOutOfMemory& e) {
  std::string stage = e.stage();
  // Within the budget yet refused: the pool itself could not deliver (memory taken outside
  // the allocator, by another process or by fragmentation). Say so; the numbers alone would
  // look as if it fitted.
  if (e.budget() >= e.requested() && e.budget() - e.requested() >= e.in_use())
    stage += " (the CUDA memory pool could not deliver within the budget)";
  return OutOfDeviceMemory(device, stage, e.requested(), e.in_use(), e.budget());
}

unsigned log2_exact(std::size_t n) {
  unsigned k = 0;
  while ((std::size_t{1} << k) < n) ++k;
  return k;
}

std::int64_t micros_between(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
}

std::int64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return micros_between(t0, std::chrono::steady_clock::now());
}

// What identifies a proving key across calls: its address, checked against its sizes and a
// few of its points (a key freed and another allocated at the same address is not mistaken
// for it).
struct KeyId {
  const groth16::ProvingKey* pk = nullptr;
  std::size_t sizes[4] = {0, 0, 0, 0};
  curve::G1Affine delta, probes[8];

  static KeyId of(const groth16::ProvingKey& pk) {
    KeyId id;
    id.pk = &pk;
    id.delta = pk.vk.delta_g1;
    const std::vector<curve::G1Affine>* qs[4] = {&pk.h, &pk.l, &pk.a, &pk.b_g1};
    for (int i = 0; i < 4; ++i) {
      id.sizes[i] = qs[i]->size();
      if (!qs[i]->empty()) {
        id.probes[2 * i] = qs[i]->front();
        id.probes[2 * i + 1] = qs[i]->back();
      }
    }
    return id;
  }
  bool operator==(const KeyId& o) const {
    if (pk != o.pk || !(delta == o.delta)) return false;
    for (int i = 0; i < 4; ++i)
      if (sizes[i] != o.sizes[i]) return false;
    for (int i = 0; i < 8; ++i)
      if (!(probes[i] == o.probes[i])) return false;
    return true;
  }
};

// A proving key's G1 queries on one device: resident, or — when they do not fit beside a
// partition — left in host memory and streamed through the MSMs in batches (h etc. null).
struct ResidentKey {
  KeyId id;
  bool streamed = false;
  std::unique_ptr<msm::DeviceBases> h, l, a, b_g1;
  // fixed_base_h = on: the H query's fixed-base table, made from h (then dropped: the table's
  // first window is the query).
  std::unique_ptr<msm::FixedBaseTable> h_table;
  // batch_add_tables = pairs | quads: the group tables of L, A and B_G1 for their batch additions.
  std::unique_ptr<msm::GroupTable> l_groups, a_groups, b_g1_groups;
  // The G2 query, uploaded by the first run_b_g2_msm (b_g2_msm = gpu) and kept.
  std::unique_ptr<msm::G2DeviceBases> b_g2;
  // A streamed key's host vectors, page-locked (cudaHostRegister) so their uploads run at
  // full PCIe speed and overlap the MSMs; unregistered when the key is dropped.
  memory::HostRegistration registered;
};

// A stream with what runs on it: one GPU phase (or one upload) at a time. The tail MSMs of A
// and B_G1 may run on two tail streams beside L's on `stream`, and the batch additions on
// `ones_stream` beside them; with tails_beside_h all three tails run on the tail streams and
// the batch additions on `ones_stream` while H runs on `stream` (run_gpu_phase).
struct Lane {
  static constexpr int kTailStreams = 3;
  cudaStream_t stream = nullptr;
  cudaStream_t tail_streams[kTailStreams] = {};
  cudaStream_t ones_stream = nullptr;
  std::unique_ptr<ntt::HComputer> h;
  std::unique_ptr<msm::Msm> msm;

  explicit Lane(DeviceAllocator& alloc) {
    try {
      check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate(lane)");
      for (auto& t : tail_streams)
        check_cuda(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), "cudaStreamCreate(lane tails)");
      check_cuda(cudaStreamCreateWithFlags(&ones_stream, cudaStreamNonBlocking), "cudaStreamCreate(lane ones)");
      h = std::make_unique<ntt::HComputer>(alloc);
      msm = std::make_unique<msm::Msm>(alloc);
    } catch (...) {
      destroy_streams();
      throw;
    }
  }
  ~Lane() {
    h.reset();  // synchronises its side streams
    destroy_streams();
  }
  std::array<cudaStream_t, kTailStreams + 1> side_streams() const {
    return {tail_streams[0], tail_streams[1], tail_streams[2], ones_stream};
  }
  void destroy_streams() {
    for (cudaStream_t* s : {&stream, &tail_streams[0], &tail_streams[1], &tail_streams[2], &ones_stream})
      if (*s) {
        cudaStreamSynchronize(*s);
        cudaStreamDestroy(*s);
        *s = nullptr;
      }
  }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
};

}  // namespace

struct CudaBackend::Device {
  int index = 0;
  std::unique_ptr<DeviceAllocator> alloc;
  // Uploads that stay (key, tables) and the frees of partition buffers: a stream no phase
  // runs on, so a free there is reached at once and its block is reusable by any stream.
  cudaStream_t service = nullptr;

  std::mutex lanes_mu;
  std::vector<std::unique_ptr<Lane>> idle_lanes;

  std::mutex domains_mu;
  std::map<unsigned, std::unique_ptr<ntt::Domain>> domains;

  std::mutex key_mu;  // held while a key uploads: concurrent first calls wait for it
  std::shared_ptr<ResidentKey> key;

  // sparse_products = gpu: the constraint system's matrices, uploaded by the first stage()
  // of a partition of that system and kept (held while they upload, as key_mu).
  std::mutex matrices_mu;
  std::shared_ptr<const DeviceMatrices> matrices;
  // prep_msm = gpu: the A and B queries' variables, made resident by the first run_prep_msm
  // for a system and kept (held while they upload).
  std::mutex query_vars_mu;
  std::shared_ptr<const DeviceQueryVariables> query_vars;

  ~Device() {
    // Everything that frees into the allocator, then the allocator (which synchronises the
    // device), in that order, on this device.
    DeviceScope scope(index, std::nothrow);
    query_vars.reset();
    matrices.reset();
    key.reset();
    domains.clear();
    idle_lanes.clear();
    if (service) {
      cudaStreamSynchronize(service);
      cudaStreamDestroy(service);
    }
    alloc.reset();
  }
};

namespace {

// A lane taken from the device's pool for one call, returned with nothing in flight.
class LaneLease {
 public:
  explicit LaneLease(CudaBackend::Device& d) : d_(d), exceptions_(std::uncaught_exceptions()) {
    {
      std::lock_guard lock(d_.lanes_mu);
      if (!d_.idle_lanes.empty()) {
        lane_ = std::move(d_.idle_lanes.back());
        d_.idle_lanes.pop_back();
      }
    }
    if (!lane_) lane_ = std::make_unique<Lane>(*d_.alloc);
  }
  ~LaneLease() {
    if (std::uncaught_exceptions() > exceptions_) {
      // A call that failed midway (e.g. H's scratch over the budget after one chain was
      // queued) may have left work on the HComputer's side streams that reads the
      // partition's buffers, which the engine is about to free: wait for all of it.
      cudaDeviceSynchronize();
    } else {
      cudaStreamSynchronize(lane_->stream);
    }
    cudaGetLastError();
    std::lock_guard lock(d_.lanes_mu);
    d_.idle_lanes.push_back(std::move(lane_));
  }
  LaneLease(const LaneLease&) = delete;
  LaneLease& operator=(const LaneLease&) = delete;
  Lane* operator->() const { return lane_.get(); }
  Lane& operator*() const { return *lane_; }

 private:
  CudaBackend::Device& d_;
  int exceptions_;
  std::unique_ptr<Lane> lane_;
};

// A partition's a, b, c on one device; with sparse_products = gpu, until the GPU phase has
// computed them, also its witness and the system's resident matrices.
class CudaDeviceBuffers final : public prooflab::engine::DeviceBuffers {
 public:
  CudaDeviceBuffers(int device, std::size_t n) : device_(device), n_(n) {}
  ~CudaDeviceBuffers() override {
    // Freed on the device's service stream: every use (the upload, the phase) was
    // synchronised by the host before, so the blocks are reusable at once.
    DeviceScope scope(device_, std::nothrow);
    plans.clear();
    witness.reset();
    a.reset();
    b.reset();
    c.reset();
  }
  std::uint64_t bytes() const override {
    std::uint64_t plan_bytes = 0;
    for (const DeviceQueryPlan& p : plans) plan_bytes += p.bytes();
    return 3 * kFrBytes * n_ + witness.bytes() + plan_bytes;
  }
  int device() const { return device_; }
  std::size_t size() const { return n_; }
  bool products_pending() const { return matrices != nullptr; }

  DeviceBuffer<Fr32> a, b, c;
  DeviceBuffer<Fr32> witness;                      // [inputs..., aux...] while products_pending
  std::shared_ptr<const DeviceMatrices> matrices;  // null once a, b, c hold the products
  std::size_t num_inputs = 0;
  // The witness's input values (a kCosetFoldedC key's share of C is Σ w_k·h_inputs_k: the host
  // takes it off H's sum).
  std::vector<::prooflab::field::Fr> inputs;
  // prep_msm = gpu: the plans of L, A, B_G1 (in that order) made by run_prep_msm; empty: the
  // host's plan is used.
  std::vector<DeviceQueryPlan> plans;

 private:
  int device_;
  std::size_t n_;
};

std::shared_ptr<ResidentKey> resident_key(CudaBackend::Device& d, const groth16::ProvingKey& pk,
                                          bool streamed, const CudaBackend::Options& options) {
  const KeyId id = KeyId::of(pk);
  std::lock_guard lock(d.key_mu);
  if (d.key && d.key->id == id) return d.key;
  // Another key: drop ours first (calls still using it hold it), so the two need not fit at
  // once.
  d.key.reset();
  auto k = std::make_shared<ResidentKey>();
  k->id = id;
  if (streamed) {
    k->streamed = true;
    for (const auto* q : {&pk.h, &pk.l, &pk.a, &pk.b_g1}) {
      if (q->empty()) continue;
      // Pinning can fail (locked-memory limits); the copies then run from pageable memory.
      // Portable: pinned for every device's context, so the second device's registration of
      // the same vectors finds them registered already and uses them as they are (the device
      // that registered them unregisters them).
      k->registered.add(q->data(), q->size() * sizeof(curve::G1Affine), "pk query",
                        memory::HostRegistration::Mode::kPortableIfPossible);
    }  // the reference's 16 GiB card at 2^27: ~38 GiB of queries
    d.key = k;
    return k;
  }
  const char* stage = "pk_bases";
  k->h = std::make_unique<msm::DeviceBases>(*d.alloc, std::span(pk.h), d.service, stage);
  k->l = std::make_unique<msm::DeviceBases>(*d.alloc, std::span(pk.l), d.service, stage);
  k->a = std::make_unique<msm::DeviceBases>(*d.alloc, std::span(pk.a), d.service, stage);
  k->b_g1 = std::make_unique<msm::DeviceBases>(*d.alloc, std::span(pk.b_g1), d.service, stage);
  check_cuda(cudaStreamSynchronize(d.service), "cudaStreamSynchronize(pk bases upload)");
  if (options.fixed_base_h && !pk.h.empty()) {
    k->h_table = std::make_unique<msm::FixedBaseTable>(*d.alloc, k->h->data(), pk.h.size(), 0, d.service,
                                                       "pk_h_fixed_base");
    k->h.reset();
  }
  if (options.batch_add_group > 1) {
    const auto groups = [&](const msm::DeviceBases& q) {
      return std::make_unique<msm::GroupTable>(*d.alloc, q.data(), q.size(), options.batch_add_group, d.service,
                                               "pk_group_tables");
    };
    k->l_groups = groups(*k->l);
    k->a_groups = groups(*k->a);
    k->b_g1_groups = groups(*k->b_g1);
  }
  d.key = k;
  return k;
}

std::shared_ptr<const DeviceMatrices> resident_matrices(CudaBackend::Device& d,
                                                        const prooflab::r1cs::R1cs& cs) {
  std::lock_guard lock(d.matrices_mu);
  if (d.matrices && d.matrices->holds(cs)) return d.matrices;
  d.matrices.reset();  // another system's: dropped first, so the two need not fit at once
  d.matrices = std::make_shared<const DeviceMatrices>(*d.alloc, cs, d.service, "r1cs_matrices");
  return d.matrices;
}

std::uint64_t matrices_bytes(CudaBackend::Device& d) {
  std::lock_guard lock(d.matrices_mu);
  return d.matrices ? d.matrices->bytes() : 0;
}

const ntt::Domain& domain_of(CudaBackend::Device& d, unsigned log_n) {
  std::lock_guard lock(d.domains_mu);
  auto& slot = d.domains[log_n];
  if (!slot) {
    try {
      slot = std::make_unique<ntt::Domain>(log_n, *d.alloc, d.service);
    } catch (...) {
      d.domains.erase(log_n);
      throw;
    }
  }
  return *slot;
}

// Σ bases[i] over the set bits (the scalars equal to one), on `stream`; over the bases' group
// table where there is one (batch_add_tables = pairs | quads).
curve::G1Jacobian ones_sum(msm::Msm& engine, cudaStream_t stream, const msm::DeviceBases& bases,
                           const msm::GroupTable* groups, const std::vector<std::uint64_t>& ones) {
  if (bases.size() == 0) return curve::G1Jacobian::infinity();
  return msm::sum_selected(engine, bases.data(), bases.size(), std::span(ones), stream, "batch_add", groups);
}

// Σ tail_scalars[i]·query[tail_index[i]]: the tail's positions and scalars are uploaded
// (4 + 32 bytes a point) and the MSM gathers its points from the resident query, in chunks
// of at most `chunk` points; run_chunk(index, scalars) is one device MSM (G1 or G2).
template <class Curve, class RunChunk>
curve::Jacobian<Curve> tail_sum(const groth16::QueryPlan<Curve>& q, std::size_t chunk,
                                const char* stage, RunChunk&& run_chunk) {
  if (q.tail_index.size() != q.tail_scalars.size())
    throw std::invalid_argument(std::string(stage) + ": " + std::to_string(q.tail_index.size()) +
                                " base positions and " + std::to_string(q.tail_scalars.size()) +
                                " scalars");
  auto sum = curve::Jacobian<Curve>::infinity();
  const std::span<const std::uint32_t> index(q.tail_index);
  const std::span<const ::prooflab::msm::Scalar> scalars(q.tail_scalars);
  for (std::size_t i = 0; i < index.size(); i += chunk) {
    const std::size_t len = std::min(chunk, index.size() - i);
    sum = sum.add(run_chunk(index.subspan(i, len), scalars.subspan(i, len)));
  }
  return sum;
}

curve::G1Jacobian tail_sum(msm::Msm& engine, cudaStream_t stream, const msm::DeviceBases& query,
                           const groth16::QueryPlan<curve::G1Curve>& q, std::size_t chunk) {
  return tail_sum(q, chunk, "tail_msm", [&](auto index, auto scalars) {
    return msm::msm_indexed(engine, query.data(), index, scalars, stream, msm::MsmOptions{}, "tail_msm");
  });
}

// B_G2's plan, kept by the engine past the partition's buffers (b_g2_msm = gpu runs after
// they are freed).
class CudaDevicePlan final : public prooflab::engine::DevicePlan {
 public:
  explicit CudaDevicePlan(int device) : device_(device) {}
  ~CudaDevicePlan() override {
    DeviceScope scope(device_, std::nothrow);
    plan.ones.reset();
    plan.tail_index.reset();
    plan.tail_scalars.reset();
  }
  std::uint64_t bytes() const override { return plan.bytes(); }
  int device() const { return device_; }
  DeviceQueryPlan plan;

 private:
  int device_;
};

std::shared_ptr<const DeviceQueryVariables> resident_query_variables(CudaBackend::Device& d,
                                                                     const groth16::ProvingKey& pk,
                                                                     const prooflab::r1cs::R1cs& cs) {
  std::lock_guard lock(d.query_vars_mu);
  if (d.query_vars && d.query_vars->holds(cs)) return d.query_vars;
  d.query_vars.reset();
  d.query_vars = std::make_shared<const DeviceQueryVariables>(*d.alloc, pk, cs, d.service, "prep_msm_variables");
  return d.query_vars;
}

std::uint64_t query_variables_bytes(CudaBackend::Device& d) {
  std::lock_guard lock(d.query_vars_mu);
  return d.query_vars ? d.query_vars->bytes() : 0;
}

// The device plan's counterparts of ones_sum and tail_sum: the bitmap and the tail already on
// the device (prep_msm = gpu), nothing uploaded; tails in chunks of at most `chunk` points.
curve::G1Jacobian ones_sum(msm::Msm& engine, cudaStream_t stream, const msm::DeviceBases& bases,
                           const msm::GroupTable* groups, const DeviceQueryPlan& q) {
  if (bases.size() == 0) return curve::G1Jacobian::infinity();
  return msm::to_jacobian(groups ? engine.sum_selected_grouped(bases.data(), *groups, q.ones.get(), stream, "batch_add")
                                 : engine.sum_selected(bases.data(), q.ones.get(), bases.size(), stream, "batch_add"));
}

template <class Curve, class RunChunk>
curve::Jacobian<Curve> device_tail_sum(const DeviceQueryPlan& q, std::size_t chunk, RunChunk&& run_chunk) {
  auto sum = curve::Jacobian<Curve>::infinity();
  const auto* scalars = reinterpret_cast<const std::uint32_t*>(q.tail_scalars.get());
  constexpr std::size_t kWords = sizeof(Fr32) / sizeof(std::uint32_t);
  for (std::size_t i = 0; i < q.num_tails; i += chunk)
    sum = sum.add(run_chunk(q.tail_index.get() + i, scalars + kWords * i, std::min(chunk, q.num_tails - i)));
  return sum;
}

curve::G1Jacobian tail_sum(msm::Msm& engine, cudaStream_t stream, const msm::DeviceBases& query,
                           const DeviceQueryPlan& q, std::size_t chunk) {
  return device_tail_sum<curve::G1Curve>(q, chunk, [&](const std::uint32_t* index, const std::uint32_t* scalars,
                                                       std::size_t len) {
    return msm::to_jacobian(engine.run_indexed(query.data(), index, scalars, len, stream, {}, "tail_msm"));
  });
}

// The side streams start after what the lane's stream queued.
void wait_for_lane(Lane& lane, std::span<const cudaStream_t> side, const std::string& what) {
  cudaEvent_t ready = nullptr;
  check_cuda(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), ("cudaEventCreate(" + what + ")").c_str());
  try {
    check_cuda(cudaEventRecord(ready, lane.stream), ("cudaEventRecord(" + what + ")").c_str());
    for (cudaStream_t t : side)
      check_cuda(cudaStreamWaitEvent(t, ready, 0), ("cudaStreamWaitEvent(" + what + ")").c_str());
  } catch (...) {
    cudaEventDestroy(ready);
    throw;
  }
  cudaEventDestroy(ready);
}

// Waits for a call made on another host thread and keeps its result, or its exception where
// none came first. Every such call of a phase is joined before anything is rethrown: their
// scratch is the phase's.
template <class T>
void join_side(std::future<T>& side, T& out, std::exception_ptr& failed) {
  try {
    out = side.get();
  } catch (...) {
    if (!failed) failed = std::current_exception();
  }
}

// The three tail MSMs (L, A, B_G1) of one phase: tails[i](stream) computes one on `stream`.
// They are independent, and a small one leaves most of the GPU idle in its latency-bound
// phases (sort, fix-up, reduction, sums: ~2.5 of ~7 ms for a 620k-point tail at 2^24), so
// when `together` they run at once, L on streams[0] from this thread and A, B_G1 on streams[1]
// and streams[2] from two more (each call synchronises its own stream); else one after the
// other on streams[0].
std::array<curve::G1Jacobian, 3> run_tails(int device, bool together, const std::array<cudaStream_t, 3>& streams,
                                           const std::array<std::function<curve::G1Jacobian(cudaStream_t)>, 3>& tails) {
  if (!together) return {tails[0](streams[0]), tails[1](streams[0]), tails[2](streams[0])};
  const auto on_side = [&](int i) {
    return std::async(std::launch::async, [&, i] {
      DeviceScope scope(device);  // the current device is per host thread
      return tails[i](streams[i]);
    });
  };
  auto a = on_side(1);
  auto b = on_side(2);
  curve::G1Jacobian l;
  std::exception_ptr failed;
  try {
    l = tails[0](streams[0]);
  } catch (...) {
    failed = std::current_exception();
  }
  std::array<curve::G1Jacobian, 3> out{l, {}, {}};
  join_side(a, out[1], failed);
  join_side(b, out[2], failed);
  if (failed) std::rethrow_exception(failed);
  return out;
}

// The batch additions' and the tail MSMs' sums of one phase, and when the batch additions
// ended (the split of the BATCH_ADD and TAIL_MSM sub-stages).
struct OnesAndTails {
  std::array<curve::G1Jacobian, 3> ones, tails;
  std::chrono::steady_clock::time_point ones_end;
  bool batch_add_reported = false;
};

}  // namespace

CudaBackend::CudaBackend(int devices, std::uint64_t vram_limit, Options options) : options_(options) {
  if (options.batch_add_group != 1 && options.batch_add_group != 2 && options.batch_add_group != 4)
    throw std::invalid_argument("backend 'cuda': batch_add_group " + std::to_string(options.batch_add_group) +
                                " is not 1, 2 or 4");
  int visible = 0;
  const cudaError_t err = cudaGetDeviceCount(&visible);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string("backend 'cuda': no usable CUDA device: cudaGetDeviceCount: ") +
                             cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
  if (visible == 0) throw std::runtime_error("backend 'cuda': no usable CUDA device: none visible");
  if (devices < 1 || devices > visible)
    throw prooflab::engine::devices_not_visible(static_cast<std::uint32_t>(std::max(devices, 0)), visible);
  for (int i = 0; i < devices; ++i) {
    DeviceScope scope(i);
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties");
    const std::uint64_t total = prop.totalGlobalMem;
    if (vram_limit > total)
      throw prooflab::engine::ConfigError(
          "config key 'vram_limit': " + std::to_string(vram_limit) + " bytes exceeds device " +
          std::to_string(i) + " (" + prop.name + ") with " + std::to_string(total) +
          " bytes (accepted: 0 = the device's own, or 1.." + std::to_string(total) + ")");
    const std::uint64_t margin = std::max(kMinMarginBytes, total / kMarginDivisor);
    const std::uint64_t budget = vram_limit ? vram_limit : (total > margin ? total - margin : total / 2);
    auto d = std::make_unique<Device>();
    d->index = i;
    d->alloc = std::make_unique<DeviceAllocator>(budget, i);
    check_cuda(cudaStreamCreateWithFlags(&d->service, cudaStreamNonBlocking),
               "cudaStreamCreate(service)");
    devices_.push_back(std::move(d));
  }
}

CudaBackend::~CudaBackend() = default;

CudaBackend::Device& CudaBackend::device_at(int device) const {
  if (device < 0 || device >= static_cast<int>(devices_.size()))
    throw std::out_of_range("CudaBackend: device " + std::to_string(device) + " of " +
                            std::to_string(devices_.size()));
  return *devices_[static_cast<std::size_t>(device)];
}

int CudaBackend::num_devices() const { return static_cast<int>(devices_.size()); }

std::uint64_t CudaBackend::vram_budget(int device) const { return device_at(device).alloc->budget(); }

std::uint64_t CudaBackend::vram_used(int device) const { return device_at(device).alloc->in_use(); }

std::uint64_t CudaBackend::vram_peak(int device) const { return device_at(device).alloc->peak(); }

void CudaBackend::reset_vram_peak(int device) { device_at(device).alloc->reset_peak(); }

bool CudaBackend::streams_key(int device, const groth16::ProvingKey& pk,
                              std::size_t domain_size) const {
  // Resident matrices (sparse_products = gpu) and the NTT tables of this size (1 GiB at 2^24
  // with the pass tables) take their share of the budget first.
  const unsigned log_n = domain_size < 2 ? 1 : log2_exact(domain_size);
  return resident_bytes(pk, options_) + partition_bytes(domain_size, options_) +
             ntt::Domain::bytes_for(log_n) + matrices_bytes(device_at(device)) +
             query_variables_bytes(device_at(device)) >
         vram_budget(device);
}

std::uint64_t CudaBackend::resident_matrices_bytes(int device) const {
  return matrices_bytes(device_at(device));
}

std::size_t CudaBackend::stream_batch(std::size_t domain_size) {
  return std::max<std::size_t>(64, (domain_size / 4 + 63) / 64 * 64);
}

std::size_t CudaBackend::tail_chunk(std::size_t domain_size) {
  return std::max<std::size_t>(domain_size / 2, 1);
}

std::uint64_t CudaBackend::tail_chunk_bytes(std::size_t points) {
  return (2 * kAffineBytes + kFrBytes) * points + msm::scratch_bytes(points);
}

bool CudaBackend::tails_together(std::size_t domain_size, std::size_t l, std::size_t a, std::size_t b_g1) {
  const std::size_t chunk = tail_chunk(domain_size);
  const auto bytes = [&](std::size_t len) { return tail_chunk_bytes(std::min(len, chunk)); };
  return bytes(l) + bytes(a) + bytes(b_g1) <= tail_chunk_bytes(chunk);
}

std::uint64_t CudaBackend::resident_key_bytes(const groth16::ProvingKey& pk, bool fixed_base_h,
                                              unsigned batch_add_group) {
  const std::uint64_t h = fixed_base_h && !pk.h.empty() ? msm::FixedBaseTable::bytes(pk.h.size())
                                                        : kAffineBytes * pk.h.size();
  const auto table = [&](std::size_t n) { return msm::GroupTable::bytes(n, batch_add_group); };
  const std::uint64_t groups =
      batch_add_group > 1 ? table(pk.l.size()) + table(pk.a.size()) + table(pk.b_g1.size()) : 0;
  return h + kAffineBytes * (pk.l.size() + pk.a.size() + pk.b_g1.size()) + groups;
}

std::uint64_t CudaBackend::resident_bytes(const groth16::ProvingKey& pk, const Options& options) {
  const std::uint64_t g2 = options.b_g2_on_device ? sizeof(msm::G2AffineRaw) * pk.b_g2.size() : 0;
  return resident_key_bytes(pk, options.fixed_base_h, options.batch_add_group) + g2;
}

std::uint64_t CudaBackend::batch_add_bytes(std::size_t n) {
  const std::uint64_t words = (n + 63) / 64;
  // The bitmap, each word's count and their inclusive sums, CUB's scan temporary (taken as
  // 4 bytes a word and 64 KiB: its size query needs a device), and the partial sums (one per
  // share of at least 32 bases, at most 2^18: msm::batch_add_shares) with the rounds that add
  // them (less than as many again).
  constexpr std::uint64_t kMaxPartials = std::uint64_t{1} << 18, kXyzzBytes = 4 * 48;
  const std::uint64_t partials = std::min<std::uint64_t>(kMaxPartials, (n + 31) / 32);
  return 8 * words + 2 * 4 * words + 4 * words + (64ull << 10) + 2 * partials * kXyzzBytes;
}

std::uint64_t CudaBackend::partition_bytes(std::size_t n, const Options& options) {
  const bool fixed_base_h = options.fixed_base_h;
  if (n < 2) n = 2;
  const std::uint64_t inputs = 3 * kFrBytes * n;  // a, b, c for the whole phase
  // H: one n-element scratch per concurrent chain when the transform takes several passes.
  const bool multi_pass = ntt::plan_shapes(log2_exact(n), ntt::PlanOptions{}).size() > 1;
  const std::uint64_t h_scratch = multi_pass ? 3 * kFrBytes * n : 0;
  // MSM of H: its scalars are h in a's memory, its bases resident (n - 1 of them, or n for a
  // coset-Lagrange key: the larger).
  const std::uint64_t msm_h = fixed_base_h ? msm::fixed_base_scratch_bytes(n) : msm::scratch_bytes(n);
  // Batch additions: over the largest query (≤ n bases).
  const std::uint64_t batch_add = batch_add_bytes(n);
  // A tail chunk: its base positions and scalars uploaded, and the MSM's scratch (with a
  // streamed key: its bases instead of positions, in two buffers). The three tails run at
  // once only where their chunks together need no more (run_gpu_phase).
  const std::uint64_t tail = tail_chunk_bytes(tail_chunk(n));
  // A streamed key: two batches of bases in flight and one batch's MSM scratch.
  const std::size_t batch = stream_batch(n);
  const std::uint64_t streamed = 2 * kAffineBytes * batch + msm::scratch_bytes(batch) + batch_add;
  // overlap_batch_add: a batch addition beside the tails (tails_together: their chunks within one).
  const std::uint64_t beside = options.overlap_batch_add ? batch_add + tail : tail;
  // tails_beside_h: those beside H's scratch.
  const std::uint64_t h_part = std::max(h_scratch, msm_h);
  if (options.tails_beside_h) return inputs + std::max({h_part + std::max(batch_add, beside), streamed});
  return inputs + std::max({h_part, batch_add, beside, streamed});
}

std::unique_ptr<prooflab::engine::DeviceBuffers> CudaBackend::stage(
    int device, const groth16::SynthesizedPartition& part, const char* stage_name) {
  if (part.products_on_device) return stage_witness(device, part, stage_name);
  Device& d = device_at(device);
  const std::size_t n = part.a.size();
  const bool with_c = !part.c.empty();  // none for a key that folds C's share in (h_basis.hpp)
  if (n < 2 || (n & (n - 1)) || log2_exact(n) > ntt::kMaxLogN || part.b.size() != n ||
      (with_c && part.c.size() != n))
    throw std::invalid_argument("CudaBackend::stage: a, b (and c, unless empty) must have one power-of-two "
                                "size in [2, 2^27] (got " + std::to_string(part.a.size()) + ", " +
                                std::to_string(part.b.size()) + ", " + std::to_string(part.c.size()) + ")");
  DeviceScope scope(device);
  LaneLease lane(d);
  auto buffers = std::make_unique<CudaDeviceBuffers>(device, n);
  try {
    buffers->a = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
    buffers->b = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
    if (with_c) buffers->c = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
  } catch (const DeviceOutOfMemory& e) {
    // (the ones already allocated are freed as `buffers` goes)
    throw engine_oom(device, e);
  }
  const std::pair<const std::vector<::prooflab::field::Fr>*, Fr32*> copies[3] = {
      {&part.a, buffers->a.get()}, {&part.b, buffers->b.get()}, {&part.c, buffers->c.get()}};
  for (const auto& [host, dev] : copies)
    if (!host->empty())
      check_cuda(cudaMemcpyAsync(dev, host->data(), n * kFrBytes, cudaMemcpyHostToDevice, lane->stream),
                 "cudaMemcpyAsync(stage a, b, c)");
  buffers->inputs = part.witness.input;
  check_cuda(cudaStreamSynchronize(lane->stream), "cudaStreamSynchronize(stage)");
  for (auto* b : {&buffers->a, &buffers->b, &buffers->c}) b->set_stream(d.service);
  return buffers;
}

std::unique_ptr<prooflab::engine::DeviceBuffers> CudaBackend::stage_witness(
    int device, const groth16::SynthesizedPartition& part, const char* stage_name) {
  Device& d = device_at(device);
  const prooflab::r1cs::R1cs& cs = *part.products_on_device;
  prooflab::r1cs::check_witness_fits(cs, part.witness, "CudaBackend::stage");
  const std::size_t n = groth16::qap_domain_size(cs);
  if (log2_exact(n) > ntt::kMaxLogN)
    throw std::invalid_argument("CudaBackend::stage: domain 2^" + std::to_string(log2_exact(n)) +
                                " above 2^" + std::to_string(ntt::kMaxLogN));
  DeviceScope scope(device);
  auto buffers = std::make_unique<CudaDeviceBuffers>(device, n);
  try {
    buffers->matrices = resident_matrices(d, cs);
    LaneLease lane(d);
    buffers->a = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
    buffers->b = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
    if (part.products_with_c) buffers->c = DeviceBuffer<Fr32>(*d.alloc, n, lane->stream, stage_name);
    buffers->witness = upload_witness(*d.alloc, part.witness, lane->stream, stage_name);
    check_cuda(cudaStreamSynchronize(lane->stream), "cudaStreamSynchronize(stage witness)");
  } catch (const DeviceOutOfMemory& e) {
    throw engine_oom(device, e);
  }
  buffers->num_inputs = part.witness.input.size();
  buffers->inputs = part.witness.input;
  for (auto* b : {&buffers->a, &buffers->b, &buffers->c, &buffers->witness}) b->set_stream(d.service);
  return buffers;
}

namespace {

class PinnedStageInputs final : public prooflab::engine::PinnedHost {
 public:
  std::uint64_t bytes() const override { return reg.bytes(); }
  memory::HostRegistration reg;
};

}  // namespace

std::unique_ptr<prooflab::engine::PinnedHost> CudaBackend::pin_uploads(int device, const groth16::SynthesizedPartition& part,
                                                                      const groth16::MsmPlan* plan) {
  device_at(device);
  DeviceScope scope(device);
  auto pin = std::make_unique<PinnedStageInputs>();
  const auto add = [&](const auto& v, const char* what) {
    pin->reg.add(v.data(), v.size() * sizeof(v[0]), what);
  };
  if (part.products_on_device) {  // what stage_witness uploads
    add(part.witness.input, "pin_uploads: witness inputs");
    add(part.witness.aux, "pin_uploads: witness aux");
  } else {  // what stage uploads
    add(part.a, "pin_uploads: a");
    add(part.b, "pin_uploads: b");
    if (!part.c.empty()) add(part.c, "pin_uploads: c");
  }
  if (plan) {  // what run_gpu_phase (and run_b_g2_msm) upload of a host plan
    const auto add_query = [&](const auto& q, const char* ones, const char* index, const char* scalars) {
      add(q.ones, ones);
      add(q.tail_index, index);
      add(q.tail_scalars, scalars);
    };
    add_query(plan->l, "pin_uploads: l ones", "pin_uploads: l tail positions", "pin_uploads: l tail scalars");
    add_query(plan->a, "pin_uploads: a ones", "pin_uploads: a tail positions", "pin_uploads: a tail scalars");
    add_query(plan->b_g1, "pin_uploads: b_g1 ones", "pin_uploads: b_g1 tail positions",
              "pin_uploads: b_g1 tail scalars");
    add_query(plan->b_g2, "pin_uploads: b_g2 ones", "pin_uploads: b_g2 tail positions",
              "pin_uploads: b_g2 tail scalars");
  }
  return pin;
}

void CudaBackend::synchronize(int device) {
  device_at(device);
  DeviceScope scope(device);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void CudaBackend::trim_pool(int device) {
  Device& d = device_at(device);
  DeviceScope scope(device);
  d.alloc->trim(0);
}

groth16::GpuPhaseSums CudaBackend::run_gpu_phase(int device, const groth16::ProvingKey& pk,
                                                 prooflab::engine::DeviceBuffers& buffers,
                                                 const groth16::MsmPlan& plan,
                                                 const trace::SubstageHook& on_substage) {
  Device& d = device_at(device);
  auto& buf = dynamic_cast<CudaDeviceBuffers&>(buffers);
  if (buf.device() != device)
    throw std::invalid_argument("CudaBackend::run_gpu_phase: buffers staged on device " +
                                std::to_string(buf.device()) + ", phase on device " +
                                std::to_string(device));
  const std::size_t n = buf.size();
  const bool coset_h = groth16::is_coset(pk.h_basis);
  if (!groth16::folds_c(pk.h_basis) && !buf.c.get())
    throw std::invalid_argument(std::string("CudaBackend::run_gpu_phase: a key of H basis ") +
                                groth16::h_basis_name(pk.h_basis) + " needs C·w, and the staged partition has none");
  const std::size_t h_count = groth16::h_query_size(pk.h_basis, n);
  if (pk.h.size() != h_count)
    throw std::runtime_error("msm_h: " + std::to_string(h_count) + " scalars (" +
                             groth16::h_basis_name(pk.h_basis) + " basis) for " +
                             std::to_string(pk.h.size()) + " H bases");
  DeviceScope scope(device);
  groth16::GpuPhaseSums sums;
  try {
    // Per device, once: the key's queries and the NTT tables of this size (the first phase
    // on a device pays their upload before its sub-stages start).
    const bool streamed = streams_key(device, pk, n);
    // What needs the key resident (a streamed key has no tables, and its G2 query could not
    // stay): refused before any of the phase's work, naming the first such knob.
    struct Needs {
      bool on;
      const char *key, *what, *instead;
    };
    const Needs needs[] = {
        {options_.fixed_base_h, "fixed_base_h", "H's fixed-base table", "fixed_base_h = off, which streams the key"},
        {options_.batch_add_group > 1, "batch_add_tables", "its group tables",
         "batch_add_tables = off, which streams the key"},
        {options_.b_g2_on_device, "b_g2_msm", "its G2 query",
         "b_g2_msm = cpu, which keeps the G2 query in host memory"},
    };
    std::string what;
    const Needs* first = nullptr;
    for (const Needs& need : needs)
      if (need.on) {
        what += (what.empty() ? "with " : " and ") + std::string(need.what);
        if (!first) first = &need;
      }
    if (streamed && first)
      throw prooflab::engine::ConfigError(
          "config key '" + std::string(first->key) + "': the key " + what + " (" +
          std::to_string(resident_bytes(pk, options_)) + " bytes) and a partition of 2^" +
          std::to_string(log2_exact(n)) + " (" + std::to_string(partition_bytes(n, options_)) +
          " bytes) do not fit device " + std::to_string(device) + "'s budget of " +
          std::to_string(vram_budget(device)) + " bytes (use " + first->instead + ", or a larger vram_limit)");
    const std::shared_ptr<ResidentKey> key = resident_key(d, pk, streamed, options_);
    const ntt::Domain& dom = domain_of(d, log2_exact(n));
    LaneLease lane(d);

    auto t0 = std::chrono::steady_clock::now();
    msm::Msm& engine = *lane->msm;  // holds no per-call state: H, the tails and batch additions may share it
    // prep_msm = gpu: the plans the device made (run_prep_msm refuses a streamed key).
    const bool device_plans = !buf.plans.empty();
    const std::size_t batch = stream_batch(n);
    // The three batch additions, one after the other on `stream`.
    const auto batch_adds = [&](cudaStream_t stream) {
      const auto ones = [&](const std::unique_ptr<msm::DeviceBases>& resident,
                            const std::unique_ptr<msm::GroupTable>& groups, const std::vector<curve::G1Affine>& host,
                            const auto& q, int i) {
        if (device_plans) return ones_sum(engine, stream, *resident, groups.get(), buf.plans[i]);
        return key->streamed ? msm::sum_selected_streamed(engine, std::span(host), q.ones, batch, stream, "batch_add")
                             : ones_sum(engine, stream, *resident, groups.get(), q.ones);
      };
      return std::array{ones(key->l, key->l_groups, pk.l, plan.l, 0), ones(key->a, key->a_groups, pk.a, plan.a, 1),
                        ones(key->b_g1, key->b_g1_groups, pk.b_g1, plan.b_g1, 2)};
    };
    const std::size_t chunk = tail_chunk(n);
    const auto tail = [&](const std::unique_ptr<msm::DeviceBases>& resident, const auto& q, int i) {
      return [&, resident = resident.get(), q = &q, i](cudaStream_t stream) {
        if (device_plans) return tail_sum(engine, stream, *resident, buf.plans[i], chunk);
        // Streamed key: the tail's gathered bases go up in chunks instead of being gathered.
        return key->streamed ? msm::msm_streamed(engine, std::span(q->tail_bases), std::span(q->tail_scalars),
                                                 chunk, stream, "tail_msm")
                             : tail_sum(engine, stream, *resident, *q, chunk);
      };
    };
    // At once where their first chunks together fit what partition_bytes grants one chunk
    // (a streamed key's tails stream their bases and stay one after the other).
    const auto tails_len = [&](int i, const auto& q) {
      return device_plans ? buf.plans[i].num_tails : q.tail_scalars.size();
    };
    const bool together = !key->streamed &&
                          tails_together(n, tails_len(0, plan.l), tails_len(1, plan.a), tails_len(2, plan.b_g1));
    const std::array<std::function<curve::G1Jacobian(cudaStream_t)>, 3> tails = {
        tail(key->l, plan.l, 0), tail(key->a, plan.a, 1), tail(key->b_g1, plan.b_g1, 2)};
    // The batch additions on `ones_stream`, then the tails on `tail_streams`; with
    // overlap_batch_add (tails at once) the tails from other host threads beside them (their
    // latency-bound fix-ups, reductions and sums leave most SMs idle). report: BATCH_ADD is
    // reported from here as the batch additions end, where they end before the tails start
    // (this thread, after H).
    std::chrono::steady_clock::time_point h_end;
    const auto ones_and_tails = [&](cudaStream_t ones_stream, const std::array<cudaStream_t, 3>& tail_streams,
                                    bool report) {
      OnesAndTails r;
      if (options_.overlap_batch_add && together) {
        auto tails_done = std::async(std::launch::async, [&] {
          DeviceScope side(device);
          return run_tails(device, true, tail_streams, tails);
        });
        std::exception_ptr failed;
        try {
          r.ones = batch_adds(ones_stream);
        } catch (...) {
          failed = std::current_exception();
        }
        r.ones_end = std::chrono::steady_clock::now();
        join_side(tails_done, r.tails, failed);
        if (failed) std::rethrow_exception(failed);
      } else {
        r.ones = batch_adds(ones_stream);
        r.ones_end = std::chrono::steady_clock::now();
        if (report && on_substage) {
          on_substage(trace::Stage::kBatchAdd, micros_between(h_end, r.ones_end));
          r.batch_add_reported = true;
        }
        r.tails = run_tails(device, together, tail_streams, tails);
      }
      return r;
    };
    // tails_beside_h (tails at once): all of that on the lane's side streams from another host
    // thread while H (and, first, the sparse products) runs on the lane's stream. The side
    // streams start after what the lane's stream has queued: beside H, what came before the
    // phase (its inputs and plans are on the device already: stage and run_prep_msm
    // synchronise), else all of H.
    const bool beside_h = options_.tails_beside_h && together;
    const auto side_streams = lane->side_streams();
    std::future<OnesAndTails> side;
    if (beside_h) {
      wait_for_lane(*lane, side_streams, "tails and batch additions");
      side = std::async(std::launch::async, [&] {
        DeviceScope scope(device);
        return ones_and_tails(lane->ones_stream, {lane->tail_streams[0], lane->tail_streams[1], lane->tail_streams[2]},
                              false);
      });
    }
    std::exception_ptr failed;
    try {
      if (buf.products_pending()) {
        // sparse_products = gpu: a, b, c from the witness first (inside ntt_h: the sub-stages
        // stay the reference's), then the witness goes, in stream order, before H's scratch.
        r1cs::sparse_products(*buf.matrices, buf.witness.get(), buf.num_inputs, buf.a.get(), buf.b.get(),
                              buf.c.get(), n, lane->stream);
        buf.witness.set_stream(lane->stream);
        buf.witness.reset();
        buf.matrices.reset();
      }
      // A key that folds C's share in: no c chain (and no C·w where the device computes the
      // products: the engine defers them without C).
      lane->h->compute(buf.a.get(), buf.b.get(), groth16::folds_c(pk.h_basis) ? nullptr : buf.c.get(), dom,
                       lane->stream, {.coset_values = coset_h});
      // a[0, h_count) holds H's scalars, canonical (msm::Scalar layout): n - 1 coefficients,
      // or a coset-Lagrange key's n values at the coset points. Msm::run synchronises.
      const auto* h_scalars = reinterpret_cast<const std::uint32_t*>(buf.a.get());
      sums.h = msm::to_jacobian(
          key->streamed
              ? lane->msm->run_streamed(reinterpret_cast<const msm::G1AffineRaw*>(pk.h.data()),
                                        h_scalars, h_count, batch, lane->stream, {}, "msm_h")
          : key->h_table ? lane->msm->run_fixed_base(*key->h_table, h_scalars, lane->stream, {}, "msm_h")
                         : lane->msm->run(key->h->data(), h_scalars, h_count, lane->stream, {}, "msm_h"));
      if (groth16::folds_c(pk.h_basis)) sums.h = sums.h.add(-groth16::folded_c_inputs(pk, buf.inputs));
      h_end = std::chrono::steady_clock::now();
      if (on_substage) on_substage(trace::Stage::kNttH, micros_between(t0, h_end));
    } catch (...) {
      failed = std::current_exception();
    }
    OnesAndTails r;
    if (beside_h) join_side(side, r, failed);  // its scratch is the phase's: joined before a rethrow
    if (failed) std::rethrow_exception(failed);
    if (!beside_h) {
      wait_for_lane(*lane, side_streams, "tails and batch additions");
      r = ones_and_tails(options_.overlap_batch_add && together ? lane->ones_stream : lane->stream,
                         {lane->stream, lane->tail_streams[0], lane->tail_streams[1]}, true);
    }
    check_cuda(cudaStreamSynchronize(lane->stream), "cudaStreamSynchronize(gpu phase)");
    // The sub-stages tile the phase's wall time, split where H's MSM and then the batch
    // additions ended (beside H, the work done before H's end is inside NTT_H).
    if (on_substage) {
      const auto ones_end = std::max(r.ones_end, h_end);
      if (!r.batch_add_reported) on_substage(trace::Stage::kBatchAdd, micros_between(h_end, ones_end));
      on_substage(trace::Stage::kTailMsm, micros_since(ones_end));
    }
    const auto& ones = r.ones;
    const auto& t = r.tails;
    sums.l = ones[0].add(t[0]);
    sums.a = ones[1].add(t[1]);
    sums.b_g1 = ones[2].add(t[2]);
  } catch (const DeviceOutOfMemory& e) {
    throw engine_oom(device, e);
  }
  return sums;
}

curve::G2Jacobian CudaBackend::run_b_g2_msm(int device, const groth16::ProvingKey& pk,
                                            const groth16::MsmPlan& plan,
                                            const prooflab::engine::DevicePlan* b_g2_plan) {
  Device& d = device_at(device);
  const auto& q = plan.b_g2;
  const DeviceQueryPlan* on_device = nullptr;
  if (b_g2_plan) {
    const auto& p = dynamic_cast<const CudaDevicePlan&>(*b_g2_plan);
    if (p.device() != device || p.plan.size != pk.b_g2.size())
      throw std::invalid_argument("b_g2_msm: a device plan of " + std::to_string(p.plan.size) + " bases on device " +
                                  std::to_string(p.device()) + " for " + std::to_string(pk.b_g2.size()) +
                                  " G2 bases on device " + std::to_string(device));
    on_device = &p.plan;
  } else if (q.ones.size() * 64 < pk.b_g2.size())
    throw std::invalid_argument("b_g2_msm: a bitmap of " + std::to_string(q.ones.size()) +
                                " words for " + std::to_string(pk.b_g2.size()) + " G2 bases");
  // The domain: H has n - 1 bases (monomial) or n (coset Lagrange).
  const std::size_t n = pk.h.size() + (groth16::is_coset(pk.h_basis) ? 0 : 1);
  DeviceScope scope(device);
  try {
    const std::shared_ptr<ResidentKey> key = resident_key(d, pk, streams_key(device, pk, n), options_);
    if (key->streamed)
      throw std::runtime_error(
          "b_g2_msm on device " + std::to_string(device) +
          ": the proving key does not fit the device beside a partition (its G1 queries stream "
          "from host memory), so its G2 query cannot stay resident; use config key "
          "'b_g2_msm' = cpu or a larger 'vram_limit'");
    const msm::G2DeviceBases* query = nullptr;
    {
      std::lock_guard lock(d.key_mu);
      if (!key->b_g2)
        key->b_g2 = std::make_unique<msm::G2DeviceBases>(*d.alloc, std::span(pk.b_g2), d.service,
                                                         "pk_b_g2_bases");
      query = key->b_g2.get();
    }
    LaneLease lane(d);
    if (on_device) {
      const curve::G2Jacobian ones =
          query->size() == 0 ? curve::G2Jacobian::infinity()
                             : msm::to_jacobian(msm::g2_sum_selected(*d.alloc, query->data(), on_device->ones.get(),
                                                                     query->size(), lane->stream, "b_g2_msm"));
      return ones.add(device_tail_sum<curve::G2Curve>(
          *on_device, tail_chunk(n), [&](const std::uint32_t* index, const std::uint32_t* scalars, std::size_t len) {
            return msm::to_jacobian(msm::g2_run_indexed(*d.alloc, query->data(), index, scalars, len, lane->stream,
                                                        msm::MsmOptions{}, "b_g2_msm"));
          }));
    }
    const curve::G2Jacobian ones =
        query->size() == 0 ? curve::G2Jacobian::infinity()
                           : msm::g2_sum_selected(*d.alloc, query->data(), query->size(),
                                                  std::span(q.ones), lane->stream, "b_g2_msm");
    const curve::G2Jacobian tail =
        tail_sum(q, tail_chunk(n), "b_g2_msm", [&](auto index, auto scalars) {
          return msm::g2_msm_indexed(*d.alloc, query->data(), index, scalars, lane->stream,
                                     msm::MsmOptions{}, "b_g2_msm");
        });
    return ones.add(tail);
  } catch (const DeviceOutOfMemory& e) {
    throw engine_oom(device, e);
  }
}

std::unique_ptr<prooflab::engine::DevicePlan> CudaBackend::run_prep_msm(
    int device, const groth16::ProvingKey& pk, const prooflab::r1cs::R1cs& cs,
    prooflab::engine::DeviceBuffers& staged, bool b_g2_on_device, groth16::MsmPlan& plan) {
  Device& d = device_at(device);
  auto& buf = dynamic_cast<CudaDeviceBuffers&>(staged);
  if (buf.device() != device || !buf.witness.get() || buf.witness.size() != cs.num_inputs + cs.num_aux)
    throw std::invalid_argument(
        "prep_msm on device " + std::to_string(device) +
        ": the staged buffers hold no witness of this system (config key 'prep_msm' = gpu needs "
        "sparse_products = gpu, and runs before the GPU phase frees the witness)");
  const std::size_t n = buf.size();
  DeviceScope scope(device);
  try {
    if (streams_key(device, pk, n))
      throw std::runtime_error(
          "prep_msm on device " + std::to_string(device) +
          ": the proving key does not fit the device beside a partition (its G1 queries stream "
          "from host memory, and the streamed MSMs take the tails' bases from the host plan); use "
          "config key 'prep_msm' = cpu or a larger 'vram_limit'");
    const std::shared_ptr<const DeviceQueryVariables> vars = resident_query_variables(d, pk, cs);
    const Fr32* w = buf.witness.get();
    const msm_plan::QueryView views[4] = {vars->l(w), vars->a(w), vars->b(w), vars->b(w)};
    std::vector<DeviceQueryPlan> plans(4);
    LaneLease lane(d);
    msm_plan::make_device_plans(*d.alloc, views, plans.size(), plans.data(), lane->stream, "prep_msm");
    groth16::QueryPlan<curve::G1Curve>* g1[3] = {&plan.l, &plan.a, &plan.b_g1};
    for (int i = 0; i < 3; ++i) {
      g1[i]->zeros = plans[i].zeros;
      g1[i]->num_ones = plans[i].num_ones;
    }
    plan.b_g2.zeros = plans[3].zeros;
    plan.b_g2.num_ones = plans[3].num_ones;
    std::unique_ptr<CudaDevicePlan> b_g2;
    if (b_g2_on_device) {
      b_g2 = std::make_unique<CudaDevicePlan>(device);
      b_g2->plan = std::move(plans[3]);
      b_g2->plan.set_stream(d.service);
    } else {
      // b_g2_msm = cpu: the host MSM needs B_G2's plan in host memory.
      const DeviceQueryPlan& q = plans[3];
      plan.b_g2.ones.assign(q.ones.size(), 0);
      plan.b_g2.tail_index.resize(q.num_tails);
      plan.b_g2.tail_scalars.resize(q.num_tails);
      const std::pair<void*, const void*> copies[3] = {{plan.b_g2.ones.data(), q.ones.get()},
                                                       {plan.b_g2.tail_index.data(), q.tail_index.get()},
                                                       {plan.b_g2.tail_scalars.data(), q.tail_scalars.get()}};
      const std::size_t sizes[3] = {q.ones.bytes(), q.tail_index.bytes(), q.tail_scalars.bytes()};
      for (int i = 0; i < 3; ++i)
        if (sizes[i])
          check_cuda(cudaMemcpyAsync(copies[i].first, copies[i].second, sizes[i], cudaMemcpyDeviceToHost, lane->stream),
                     "cudaMemcpyAsync(prep_msm B_G2 plan)");
    }
    check_cuda(cudaStreamSynchronize(lane->stream), "cudaStreamSynchronize(prep_msm)");
    plans.pop_back();  // B_G2's: moved out or downloaded
    for (DeviceQueryPlan& p : plans) p.set_stream(d.service);
    buf.plans = std::move(plans);
    return b_g2;
  } catch (const DeviceOutOfMemory& e) {
    throw engine_oom(device, e);
  }
}

}  // namespace prooflab::gpu::engine
