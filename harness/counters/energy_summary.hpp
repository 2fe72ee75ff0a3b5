// What a batch run's proofs cost in energy: summary.json's `energy` block
// (docs/run-directory.md), from the cumulative energy rows of counters.csv that the
// `gpu_energy` and `host_energy` sources write (J since sampling started).
//
// This is the one definition of these figures. summary.json is written by the harness at the
// end of every batch, where no Python may be installed (the device machines), and `prooflab
// regress` gates on summary.json keys; so the harness computes them here and the analysis
// package reads them from summary.json without recomputing them
// (analysis/prooflab_analysis/energy.py).
//
// Definitions, over the engine's run window [start_us, end_us] (TIMELINE µs):
//   E_series   energy of one cumulative series in the window: E(end) - E(start), E linear
//              between samples and 0 at sampling_start_us (where the sources took their
//              baseline). A series whose last sample is before end_us (its source stopped
//              mid-run: a GPU lost, a read failing) gives no figure: a partial energy would
//              pass for a low one.
//   gpu_j      sum over the GPUs of gpu_energy<d>/energy (every GPU NVML sees).
//   host_j     host_energy/energy_psys where recorded (the platform), else energy_pkg plus
//              energy_ram when recorded (cores and gpu are parts of pkg, never added).
//   total_j    gpu_j + host_j, only when both exist.
//   *_j_per_proof = *_j / proofs; *_avg_power_w = *_j / window; proofs_per_kwh =
//              proofs / (total_j / 3.6e6). Absent figures are null, and `notes` says why.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/trace_export/trace_export_csv.hpp"

namespace prooflab::harness::counters {

struct EnergyWindow {
  std::int64_t sampling_start_us = 0;  // the sources' baseline (counter_sampling.start_us)
  std::int64_t start_us = 0, end_us = 0;  // the run window
  std::uint64_t proofs = 0;                // completed proofs
};

nlohmann::json energy_summary(const std::vector<trace_export::CounterSample>& samples,
                              const EnergyWindow& window);

}  // namespace prooflab::harness::counters
