// `prooflab gpu-phase`: the GPU phase of one partition (DESIGN.md §1 stage 3: H by NTTs, the
// MSM of H, batch additions of the ones, tail MSMs of L, A, B_G1) on the CUDA backend, with
// the real witness of a circuit (its 0/1 structure decides the batch additions and tails) and
// a synthetic proving key of the right shape (random subgroup points: an MSM's time does not
// depend on which points it adds, and a real SRS at 2^24 constraints takes minutes to make).
// Prints each sub-stage's median over --reps and, from CUPTI, each kernel's share of the
// GPU time; writes gpu_phase.json and cupti.csv to --out. --check compares the sums with
// the CPU backend's (core/groth16::gpu_phase) on the same partition.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/circuits/circuit.hpp"
#include "core/engine/config.hpp"
#include "core/curve/random_points.hpp"
#include "core/groth16/prover.hpp"
#include "core/stats/sample.hpp"
#include "core/text/parse.hpp"
#include "core/trace/elapsed.hpp"
#include "core/trace/timeline.hpp"
#include "harness/commands/commands.hpp"
#include "harness/config_file.hpp"

#ifdef PROOFLAB_HAVE_CUDA
#include "gpu/backend/cuda_backend.hpp"
#include "gpu/observe/cupti_collector.hpp"
#include "harness/trace_export/trace_export_csv.hpp"
#endif

namespace prooflab::harness {

#ifdef PROOFLAB_HAVE_CUDA
namespace {

using trace::seconds_since;

// --reps >= 1, so every sample has a median.
double median(const std::vector<double>& v) { return *stats::median(v, "gpu-phase timings"); }

// "void prooflab::gpu::msm::kernels::(anonymous namespace)::accumulate_kernel<3>(…)" →
// "accumulate_kernel<3>": no return type, namespaces or parameters; long template argument
// lists (CUB's policies) shortened to <…>.
std::string short_kernel_name(std::string s) {
  for (std::size_t at; (at = s.find("(anonymous namespace)::")) != std::string::npos;)
    s.erase(at, 23);
  int depth = 0;
  std::size_t begin = 0, end = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '<') ++depth;
    if (ch == '>') --depth;
    if (depth != 0) continue;
    if (ch == '(') {
      end = i;
      break;
    }
    if (ch == ' ') begin = i + 1;
    if (ch == ':' && i + 1 < s.size() && s[i + 1] == ':') begin = i + 2;
  }
  std::string name = s.substr(begin, end - begin);
  if (name.size() > 48) {
    const auto lt = name.find('<');
    if (lt != std::string::npos) name = name.substr(0, lt) + "<…>";
  }
  return name;
}

groth16::ProvingKey synthetic_key(const r1cs::R1cs& cs, std::size_t domain, std::uint64_t seed,
                                  groth16::HBasis h_basis, parallel::ThreadPool& pool) {
  groth16::ProvingKey pk;
  pk.h_basis = h_basis;
  pk.h.resize(groth16::h_query_size(h_basis, domain));
  pk.l.resize(cs.num_aux);
  pk.a.resize(cs.num_inputs + cs.a_aux_density.count());
  pk.b_g1.resize(cs.b_input_density.count() + cs.b_aux_density.count());
  pk.h_inputs.resize(groth16::folds_c(h_basis) ? cs.num_inputs : 0);
  std::uint64_t s = seed;
  for (auto* q : {&pk.h, &pk.l, &pk.a, &pk.b_g1, &pk.h_inputs})
    curve::fill_random_points<curve::G1Curve>(*q, curve::g1_generator(), ++s, pool);
  pk.b_g2.assign(pk.b_g1.size(), curve::g2_generator());  // not used by the GPU phase
  return pk;
}

}  // namespace
#endif

void add_gpu_phase_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "gpu-phase", "Time the GPU phase of one partition on the CUDA backend, per sub-stage and kernel");
  // An option given twice takes its last value, as device scripts that append a case's
  // options to a shared set expect (--reps 5 ... --reps 1).
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  struct Opts {
    std::string circuit = "porep-like";
    std::size_t constraints = 1 << 20;
    unsigned reps = 3;
    std::string out = "gpu-phase";
    bool check = false, cupti = true, pin_uploads = false, fixed_base_h = false, overlap_batch_add = false,
         tails_beside_h = false;
    std::string batch_add_tables = "off";
    std::string h_basis = "monomial";
    std::uint64_t seed = 1;
    std::string vram_limit = "0";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--circuit", o->circuit, "circuit name")
      ->capture_default_str()
      ->check(config_key_check("circuit"));
  cmd->add_option("--constraints", o->constraints, "constraints (the domain is the next power of two)")
      ->capture_default_str()
      ->check(config_key_check("constraints"));
  cmd->add_option("--reps", o->reps, "timed repetitions after one warm-up")->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  cmd->add_option("--out", o->out, "directory for gpu_phase.json and cupti.csv")->capture_default_str();
  cmd->add_flag("--check", o->check, "compare the sums with the CPU backend's (slow at 2^24)");
  cmd->add_flag("!--no-cupti", o->cupti, "do not collect kernel times with CUPTI");
  cmd->add_flag("--pin-uploads", o->pin_uploads,
                "page-lock a, b, c and the plan's bitmaps and tails before the reps (the engine's "
                "pin_uploads = on)");
  cmd->add_flag("--fixed-base-h", o->fixed_base_h,
                "the MSM of H over a fixed-base table built in the warm-up (the engine's "
                "fixed_base_h = on)");
  cmd->add_flag("--overlap-batch-add", o->overlap_batch_add,
                "the batch additions beside the tail MSMs (the engine's overlap_batch_add = on)");
  cmd->add_flag("--tails-beside-h", o->tails_beside_h,
                "the batch additions and tail MSMs beside H (the engine's tails_beside_h = on)");
  cmd->add_option("--batch-add-tables", o->batch_add_tables,
                  "off | pairs | quads: the batch additions over tables of the queries' groups of 2 or 4 "
                  "bases built in the warm-up (the engine's batch_add_tables)")
      ->capture_default_str()
      ->check(config_key_check("batch_add_tables"));
  cmd->add_option("--h-basis", o->h_basis,
                  "monomial | coset | coset_fold_c: the synthetic key's H query (the engine's h_basis; "
                  "coset: six transforms, the MSM over the n coset values; coset_fold_c: no C·w, four)")
      ->capture_default_str()
      ->check(config_key_check("h_basis"));
  cmd->add_option("--seed", o->seed, "seed of the witness and the synthetic key")->capture_default_str();
  cmd->add_option("--vram-limit", o->vram_limit,
                  "device memory budget (e.g. 8GiB; 0 = the device's); a key that does not fit "
                  "beside the partition is streamed from host memory")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            try {
              text::parse_bytes(value);
            } catch (const text::ParseError& e) {
              return e.what();
            }
            return {};
          },
          "BYTES", "byte count"));
  cmd->callback([o] {
#ifndef PROOFLAB_HAVE_CUDA
    throw std::runtime_error(
        "gpu-phase needs a build with CUDA (nvcc was not found or PROOFLAB_CUDA=OFF)");
#else
    namespace fs = std::filesystem;
    fs::create_directories(o->out);
    parallel::ThreadPool pool(0, "gpu-phase");
    auto t0 = std::chrono::steady_clock::now();
    const auto circuit = circuits::make_circuit(o->circuit, o->constraints, o->seed);
    const auto cs = circuits::synthesize_shape(*circuit, {.keep_annotations = false});
    std::printf("gpu-phase: %s; shape in %.1f s\n", circuit->describe().c_str(), seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    engine::EngineConfig knobs;  // the values parsed as the engine parses them (checked above)
    knobs.set("batch_add_tables", o->batch_add_tables);
    knobs.set("h_basis", o->h_basis);
    const auto part0 = groth16::synthesize(cs, circuits::synthesize_witness(*circuit), pool, nullptr,
                                           !groth16::folds_c(knobs.h_basis));
    const std::size_t domain = part0.a.size();
    const double synth_s = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    const auto pk = synthetic_key(cs, domain, o->seed * 7919, knobs.h_basis, pool);
    const auto plan = groth16::prep_msm(pk, cs, part0.witness);
    std::printf("gpu-phase: domain 2^%d; witness + a, b, c in %.1f s; synthetic key (%zu H (%s), %zu L, "
                "%zu A, %zu B_G1 points) and prep_msm in %.1f s\n",
                std::countr_zero(domain), synth_s, pk.h.size(), o->h_basis.c_str(), pk.l.size(), pk.a.size(),
                pk.b_g1.size(), seconds_since(t0));
    const auto describe_plan = [](const char* q, const auto& p, std::size_t total) {
      std::printf("  %-5s %9zu bases: %5.1f %% zero, %5.1f %% one (batch add), %5.1f %% tail (MSM)\n",
                  q, total, 100.0 * p.zeros / std::max<std::size_t>(total, 1),
                  100.0 * p.num_ones / std::max<std::size_t>(total, 1),
                  100.0 * p.tail_scalars.size() / std::max<std::size_t>(total, 1));
    };
    describe_plan("L", plan.l, pk.l.size());
    describe_plan("A", plan.a, pk.a.size());
    describe_plan("B_G1", plan.b_g1, pk.b_g1.size());

    const unsigned group = engine::batch_add_group(knobs.batch_add_tables);
    const gpu::engine::CudaBackend::Options options{.fixed_base_h = o->fixed_base_h,
                                                    .overlap_batch_add = o->overlap_batch_add,
                                                    .tails_beside_h = o->tails_beside_h,
                                                    .batch_add_group = group};
    gpu::engine::CudaBackend backend(1, text::parse_bytes(o->vram_limit), options);
    const bool streamed = backend.streams_key(0, pk, domain);
    std::printf("key: %.2f GiB of G1 queries%s%s, %s (budget %.2f GiB, partition estimate %.2f GiB)\n",
                gpu::engine::CudaBackend::resident_key_bytes(pk, o->fixed_base_h, group) / double(1ull << 30),
                o->fixed_base_h ? " with H's fixed-base table" : "",
                group == 4 ? " with quad tables" : group == 2 ? " with pair tables" : "",
                streamed ? "streamed from host memory in batches" : "resident on the device",
                backend.vram_budget(0) / double(1ull << 30),
                gpu::engine::CudaBackend::partition_bytes(domain, options) / double(1ull << 30));
    const auto epoch = trace::monotonic_ns();
    std::unique_ptr<gpu::observe::CuptiCollector> cupti;
    if (o->cupti) {
      cupti = std::make_unique<gpu::observe::CuptiCollector>(fs::path(o->out) / "cupti.csv", epoch);
      std::printf("cupti: %s\n", cupti->active() ? "collecting" : cupti->status_json().dump().c_str());
    }
    std::unique_ptr<engine::PinnedHost> pinned;  // held through the reps
    if (o->pin_uploads) {
      t0 = std::chrono::steady_clock::now();
      pinned = backend.pin_uploads(0, part0, &plan);
      std::printf("pin_uploads: %.1f MiB page-locked in %.1f ms (a, b, c and the plan's bitmaps and "
                  "tails)\n", pinned->bytes() / double(1 << 20), seconds_since(t0) * 1e3);
    }
    std::map<std::string, std::vector<double>> sub_ms;
    std::vector<double> stage_ms, phase_ms;
    groth16::GpuPhaseSums sums;
    std::int64_t timed_from_us = 0;
    for (unsigned rep = 0; rep <= o->reps; ++rep) {  // rep 0: warm-up (key upload, tables)
      if (rep == 1) timed_from_us = (trace::monotonic_ns() - epoch) / 1000;
      auto ts = std::chrono::steady_clock::now();
      auto buffers = backend.stage(0, part0, "stage");
      const double st = seconds_since(ts) * 1e3;
      std::map<std::string, double> this_rep;
      ts = std::chrono::steady_clock::now();
      sums = backend.run_gpu_phase(0, pk, *buffers, plan, [&](trace::Stage sub, std::int64_t us) {
        this_rep[trace::stage_name(sub)] = us / 1e3;
      });
      const double ph = seconds_since(ts) * 1e3;
      std::printf("  rep %u%s: stage (upload %s) %.1f ms, gpu phase %.1f ms (", rep,
                  rep == 0 ? " (warm-up)" : "", part0.c.empty() ? "a, b" : "a, b, c", st, ph);
      for (const auto& [k, v] : this_rep) std::printf(" %s %.1f", k.c_str(), v);
      std::printf(" )\n");
      std::fflush(stdout);
      if (rep == 0) continue;
      stage_ms.push_back(st);
      phase_ms.push_back(ph);
      for (const auto& [k, v] : this_rep) sub_ms[k].push_back(v);
    }

    nlohmann::json out;
    out["circuit"] = o->circuit;
    out["constraints"] = o->constraints;
    out["domain"] = domain;
    out["reps"] = o->reps;
    out["key"] = streamed ? "streamed" : "resident";
    out["pin_uploads"] = o->pin_uploads;
    out["fixed_base_h"] = o->fixed_base_h;
    out["overlap_batch_add"] = o->overlap_batch_add;
    out["tails_beside_h"] = o->tails_beside_h;
    out["batch_add_tables"] = o->batch_add_tables;
    out["h_basis"] = o->h_basis;
    out["pinned_bytes"] = pinned ? pinned->bytes() : 0;
    out["vram_budget"] = backend.vram_budget(0);
    out["stage_ms_median"] = median(stage_ms);
    out["phase_ms_median"] = median(phase_ms);
    out["phase_ms"] = phase_ms;
    const double per_constraint_ns = median(phase_ms) * 1e6 / static_cast<double>(o->constraints);
    out["phase_ns_per_constraint"] = per_constraint_ns;
    // The reference: 1.82 s of GPU phase for a 130M-constraint partition (DESIGN.md §1).
    out["reference_ns_per_constraint"] = 1.82e9 / 130e6;
    std::printf("\ngpu phase, median of %u: %.1f ms = %.2f ns/constraint (reference: 1.82 s for "
                "130M constraints = %.2f ns/constraint)\n",
                o->reps, median(phase_ms), per_constraint_ns, 1.82e9 / 130e6);
    for (const auto& [k, v] : sub_ms) {
      std::printf("  %-10s %9.2f ms  %5.1f %%\n", k.c_str(), median(v),
                  100.0 * median(v) / median(phase_ms));
      out["substage_ms_median"][k] = median(v);
    }
    if (o->tails_beside_h || o->overlap_batch_add)
      std::printf("  (%s: the sub-stages split the phase's wall time where each side's work ended; what "
                  "ran beside an earlier sub-stage is inside it, so these are not each one's length)\n",
                  o->tails_beside_h ? "--tails-beside-h: batch_add and tail_msm ran beside ntt_h"
                                    : "--overlap-batch-add: batch_add ran beside tail_msm");
    if (cupti) {
      cupti->stop();
      out["cupti"] = cupti->status_json();
      std::vector<std::string> warnings;
      std::map<std::string, std::pair<double, int>> per_kernel;
      double kernel_total = 0, copy_total = 0;
      std::ifstream in(fs::path(o->out) / "cupti.csv");
      std::string line;
      std::getline(in, line);  // header: kind,device,stream,name,start_us,end_us,bytes,correlation
      while (std::getline(in, line)) {
        const auto f = trace_export::split_csv_line(line);
        if (f.size() < 6 || std::stod(f[4]) < timed_from_us) continue;
        const double us = std::stod(f[5]) - std::stod(f[4]);
        if (f[0] == "KERNEL") {
          auto& k = per_kernel[short_kernel_name(f[3])];
          k.first += us;
          k.second += 1;
          kernel_total += us;
        } else if (f[0] == "MEMCPY") {
          copy_total += us;
        }
      }
      std::vector<std::pair<std::string, std::pair<double, int>>> rows(per_kernel.begin(),
                                                                       per_kernel.end());
      std::sort(rows.begin(), rows.end(),
                [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
      std::printf("\nkernels over the %u timed reps (CUPTI; kernels of concurrent streams overlap, so "
                  "shares are of summed kernel time): %.1f ms per rep, copies %.1f ms per rep\n",
                  o->reps, kernel_total / 1e3 / o->reps, copy_total / 1e3 / o->reps);
      for (const auto& [name, v] : rows) {
        std::printf("  %-44s %6d launches %9.2f ms/rep %5.1f %%\n", name.c_str(), v.second / o->reps,
                    v.first / 1e3 / o->reps, 100.0 * v.first / kernel_total);
        out["kernels"][name] = {{"ms_per_rep", v.first / 1e3 / o->reps},
                                {"launches_per_rep", v.second / o->reps},
                                {"share", v.first / kernel_total}};
      }
      out["kernel_ms_per_rep"] = kernel_total / 1e3 / o->reps;
      out["copy_ms_per_rep"] = copy_total / 1e3 / o->reps;
    }
    if (o->check) {
      auto cpu_part = part0;
      t0 = std::chrono::steady_clock::now();
      const auto cpu = groth16::gpu_phase(pk, cpu_part, plan, pool);
      const bool ok = cpu.h.to_affine() == sums.h.to_affine() &&
                      cpu.l.to_affine() == sums.l.to_affine() &&
                      cpu.a.to_affine() == sums.a.to_affine() &&
                      cpu.b_g1.to_affine() == sums.b_g1.to_affine();
      std::printf("\ncheck vs the CPU backend (%.1f s on %u threads): %s\n", seconds_since(t0),
                  pool.size(), ok ? "PASS (H, L, A, B_G1 sums equal)" : "FAIL");
      out["check"] = ok ? "pass" : "fail";
      if (!ok) throw std::runtime_error("gpu-phase: the CUDA backend's sums differ from the CPU's");
    }
    std::ofstream(fs::path(o->out) / "gpu_phase.json") << out.dump(2) << "\n";
    std::printf("gpu-phase: %s\n", (fs::path(o->out) / "gpu_phase.json").c_str());
#endif
  });
}

}  // namespace prooflab::harness
