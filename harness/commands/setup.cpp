// `prooflab setup`: generate (or refresh) the parameter file of a circuit shape.
#include <cstdio>
#include <filesystem>

#include "core/circuits/circuit.hpp"
#include "core/engine/config.hpp"
#include "core/groth16/setup.hpp"
#include "harness/circuit_options.hpp"
#include "harness/commands/commands.hpp"
#include "harness/param_cache.hpp"

namespace prooflab::harness {

void add_setup_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("setup", "Generate the Groth16 parameters of a circuit shape");
  auto o = std::make_shared<CircuitOptions>();
  auto seed = std::make_shared<std::optional<std::uint64_t>>();
  auto force = std::make_shared<bool>(false);
  auto h_basis = std::make_shared<std::string>("monomial");
  add_circuit_options(cmd, *o, false);
  cmd->add_option("--setup-seed", *seed,
                  "derive the toxic waste from this seed (tests only; default: OS randomness)");
  cmd->add_flag("--force", *force, "regenerate even when a file for this shape exists");
  cmd->add_option("--h-basis", *h_basis,
                  "monomial | coset | coset_fold_c: the H query's basis (the engine's h_basis; each "
                  "basis has a parameter file of its own)")
      ->capture_default_str()
      ->check(config_key_check("h_basis"));
  cmd->callback([o, seed, force, h_basis] {
    engine::EngineConfig knobs;  // the value parsed as the engine parses it (checked above)
    knobs.set("h_basis", *h_basis);
    parallel::ThreadPool pool(o->threads);
    const auto circuit = circuits::make_circuit(o->circuit, o->constraints, o->seed);
    std::printf("setup: %s\n", circuit->describe().c_str());
    const auto cs = circuits::synthesize_shape(*circuit);
    const auto dir = o->param_dir.empty() ? default_param_dir() : std::filesystem::path(o->param_dir);
    const auto shape = groth16::circuit_shape(cs);
    const auto path = param_file_path(dir, o->circuit, o->constraints, shape, knobs.h_basis);
    if (*force) std::filesystem::remove(path);
    const auto loaded = load_or_generate_params(dir, o->circuit, o->constraints, cs, pool, true, *seed, knobs.h_basis);
    if (!loaded.generated) std::printf("setup: %s already exists (use --force to regenerate)\n", path.c_str());
  });
}

}  // namespace prooflab::harness
