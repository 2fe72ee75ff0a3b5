// `prooflab prove`: prove N partitions of a circuit, print every stage's time per partition,
// write the proof bundle. --backend cpu (default) runs core's prover stage by stage;
// --backend cuda runs the GPU phase on device 0 through the engine's CudaBackend (the rest —
// synthesis, prep_msm, b_g2_msm, epilogue — on the CPU, as in the engine).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "core/circuits/circuit.hpp"
#include "core/engine/config.hpp"
#include "core/groth16/prover.hpp"
#include "core/groth16/setup.hpp"
#include "core/groth16/verifier.hpp"
#include "harness/backend_factory.hpp"
#include "harness/circuit_options.hpp"
#include "harness/commands/commands.hpp"
#include "harness/param_cache.hpp"
#include "core/groth16/proof_bundle.hpp"

namespace prooflab::harness {
namespace {

double ms(double s) { return s * 1e3; }

void print_times(std::uint32_t p, const groth16::StageTimes& t) {
  std::printf("partition %u: synthesize %.1f  prep_msm %.1f  ntt_h %.1f  msm_h %.1f  batch_add %.1f"
              "  tail_msm %.1f  b_g2_msm %.1f  epilogue %.1f  total %.1f ms\n",
              p, ms(t.synthesize_s), ms(t.prep_msm_s), ms(t.ntt_h_s), ms(t.msm_h_s),
              ms(t.batch_add_s), ms(t.tail_msm_s), ms(t.b_g2_msm_s), ms(t.epilogue_s),
              ms(t.total_s()));
}

// The GPU phase on an engine backend (device 0), the other stages as groth16::prove runs them.
// ntt_h_s includes the MSM of H (the backend reports them as one sub-stage, the reference's
// ntt_msm_h); upload_s is the staging of a, b, c.
groth16::Proof prove_on_backend(engine::Backend& backend, const groth16::ProvingKey& pk,
                                const r1cs::R1cs& cs, r1cs::Witness witness,
                                parallel::ThreadPool& pool, parallel::ThreadPool& g16,
                                std::mt19937_64& rng, groth16::StageTimes& t, double& upload_s) {
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  auto t0 = clock::now();
  groth16::SynthesizedPartition part = groth16::synthesize(cs, std::move(witness), pool);
  t.synthesize_s = since(t0);
  t0 = clock::now();
  const groth16::MsmPlan plan = groth16::prep_msm(pk, cs, part.witness);
  t.prep_msm_s = since(t0);
  t0 = clock::now();
  auto buffers = backend.stage(0, part, "prove");
  upload_s = since(t0);
  const groth16::GpuPhaseSums sums =
      backend.run_gpu_phase(0, pk, *buffers, plan, [&](trace::Stage sub, std::int64_t us) {
        const double seconds = static_cast<double>(us) * 1e-6;
        switch (trace::checked_gpu_substage(sub)) {
          case trace::Stage::kNttH: t.ntt_h_s = seconds; break;
          case trace::Stage::kBatchAdd: t.batch_add_s = seconds; break;
          case trace::Stage::kTailMsm: t.tail_msm_s = seconds; break;
          default: break;  // checked_gpu_substage threw
        }
      });
  buffers.reset();
  t0 = clock::now();
  const curve::G2Jacobian b = groth16::b_g2_msm(pk, plan, g16);
  t.b_g2_msm_s = since(t0);
  t0 = clock::now();
  const field::Fr r = field::Fr::random(rng), s = field::Fr::random(rng);
  const groth16::Proof proof = groth16::epilogue(pk, sums, b, r, s);
  t.epilogue_s = since(t0);
  return proof;
}

}  // namespace

void add_prove_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("prove", "Prove a partitioned circuit (CPU, or the GPU phase on CUDA)");
  auto o = std::make_shared<CircuitOptions>();
  auto out_dir = std::make_shared<std::string>("proof");
  auto gpu_threads = std::make_shared<unsigned>(0);
  auto no_setup = std::make_shared<bool>(false);
  auto backend_name = std::make_shared<std::string>("cpu");
  add_circuit_options(cmd, *o, true);
  cmd->add_option("--out", *out_dir, "directory for proof.bin and public_inputs.json")
      ->capture_default_str();
  cmd->add_option("--gpu-threads", *gpu_threads,
                  "threads of the groth16 pool that runs b_g2_msm (0 = --threads)")
      ->check(CLI::Range(0u, engine::kMaxThreads));
  cmd->add_flag("--no-setup", *no_setup, "fail instead of running setup when no parameters exist");
  cmd->add_option("--backend", *backend_name,
                  "cpu: core's prover; cuda: the GPU phase on device 0 (ntt_h then includes msm_h)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->callback([o, out_dir, gpu_threads, no_setup, backend_name] {
    // The backend first: a build or machine without CUDA stops before setup runs.
    std::unique_ptr<engine::Backend> backend;
    if (*backend_name != "cpu") {
      engine::EngineConfig cfg;
      cfg.backend = *backend_name;
      cfg.devices = 1;
      backend = make_backend(cfg);
      const auto gpu = gpu_metadata(cfg);
      if (gpu.contains("name"))
        std::printf("prove: backend %s on %s\n", backend->name().c_str(),
                    gpu["name"].get<std::string>().c_str());
    }
    parallel::ThreadPool pool(o->threads, "prove");
    parallel::ThreadPool g16(*gpu_threads ? *gpu_threads : pool.size(), "groth16");
    const auto first = circuits::make_circuit(o->circuit, o->constraints, o->seed);
    std::printf("prove: %s, %u partitions, %u threads (groth16 pool %u)\n",
                first->describe().c_str(), o->partitions, pool.size(), g16.size());
    const auto cs = circuits::synthesize_shape(*first);
    const auto dir = o->param_dir.empty() ? default_param_dir() : std::filesystem::path(o->param_dir);
    const auto params =
        load_or_generate_params(dir, o->circuit, o->constraints, cs, pool, !*no_setup, std::nullopt);
    std::printf("prove: parameters %s\n", params.path.c_str());

    groth16::ProofBundle bundle{o->circuit, o->constraints, groth16::circuit_shape(cs).shape_hash, {}, {}};
    std::mt19937_64 rng(std::random_device{}());
    groth16::StageTimes sum;
    for (std::uint32_t p = 0; p < o->partitions; ++p) {
      const auto circuit = circuits::make_circuit(o->circuit, o->constraints, o->seed + p);
      groth16::StageTimes t;
      double upload_s = 0;
      // Synthesis is witness generation (here) and the evaluations (in the prover).
      const auto w0 = std::chrono::steady_clock::now();
      r1cs::Witness w = circuits::synthesize_witness(*circuit);
      const double witness_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      bundle.public_inputs.emplace_back(w.input.begin() + 1, w.input.end());
      if (backend)
        bundle.proofs.push_back(
            prove_on_backend(*backend, params.pk, cs, std::move(w), pool, g16, rng, t, upload_s));
      else
        bundle.proofs.push_back(groth16::prove(params.pk, cs, std::move(w), pool, g16, rng, &t));
      t.synthesize_s += witness_s;
      print_times(p, t);
      if (backend) std::printf("partition %u: upload of a, b, c %.1f ms\n", p, ms(upload_s));
      const auto check = groth16::verify(params.pk.vk, bundle.proofs.back(), bundle.public_inputs.back());
      if (!check) throw std::runtime_error("partition " + std::to_string(p) + " does not verify: " + check.reason);
      for (auto m : {&groth16::StageTimes::synthesize_s, &groth16::StageTimes::prep_msm_s,
                     &groth16::StageTimes::ntt_h_s, &groth16::StageTimes::msm_h_s,
                     &groth16::StageTimes::batch_add_s, &groth16::StageTimes::tail_msm_s,
                     &groth16::StageTimes::b_g2_msm_s, &groth16::StageTimes::epilogue_s})
        sum.*m += t.*m;
    }
    groth16::write_proof_bundle(*out_dir, bundle);
    const double total = sum.total_s();
    const double per_core =
        static_cast<double>(cs.num_constraints) * o->partitions / total / pool.size();
    std::printf("prove: %u partitions of %zu constraints in %.2f s: %.0f constraints/s/core; "
                "all verified\nprove: wrote %s/proof.bin and %s/public_inputs.json\n",
                o->partitions, cs.num_constraints, total, per_core, out_dir->c_str(), out_dir->c_str());
  });
}

}  // namespace prooflab::harness
