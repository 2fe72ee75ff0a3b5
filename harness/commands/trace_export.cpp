// `prooflab trace RUN_DIR [--out FILE]`: the run as a Chrome trace-event JSON file for
// ui.perfetto.dev or chrome://tracing (GPU workers with nested sub-stages, CUDA streams,
// CPU stage lanes, job spans, counter tracks; trace_export_chrome.hpp has the layout).
#include <iostream>

#include "harness/commands/commands.hpp"
#include "harness/trace_export/trace_export_chrome.hpp"

namespace prooflab::harness {

void add_trace_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("trace", "Export a run directory as a Chrome/Perfetto trace (JSON)");
  struct Options {
    std::string run_dir, out;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("RUN_DIR", o->run_dir,
                  "run directory (timeline.csv, cupti.csv, counters.csv, run.json)")
      ->required();
  cmd->add_option("--out", o->out, "output file (default: RUN_DIR/trace.json)");
  cmd->callback([o] {
    const auto file = trace_export::export_chrome_trace(o->run_dir, o->out);
    for (const auto& w : file.warnings) std::cerr << "prooflab trace: warning: " << w << "\n";
    std::cout << file.path.string() << ": " << file.summary.slices << " slices on "
              << file.summary.tracks << " tracks, " << file.summary.counter_points
              << " counter points (open in ui.perfetto.dev or chrome://tracing)\n";
  });
}

}  // namespace prooflab::harness
