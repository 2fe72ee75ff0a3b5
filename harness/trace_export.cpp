// `prooflab trace RUN_DIR [--out FILE]`: the run as a Chrome trace-event JSON file for
// ui.perfetto.dev or chrome://tracing (GPU workers with nested sub-stages, CUDA streams,
// CPU stage lanes, job spans, counter tracks; trace_export_chrome.hpp has the layout).
#include <fstream>
#include <iostream>

#include "harness/commands.hpp"
#include "harness/trace_export_chrome.hpp"
#include "harness/trace_export_csv.hpp"

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
    const auto run = trace_export::load_run_tables(o->run_dir);
    const std::filesystem::path out_path =
        o->out.empty() ? run.dir / "trace.json" : std::filesystem::path(o->out);
    const std::string tmp = out_path.string() + ".tmp";
    trace_export::TraceSummary sum;
    {
      std::ofstream out(tmp, std::ios::trunc);
      if (!out) throw std::runtime_error("cannot create " + tmp);
      sum = trace_export::write_chrome_trace(run, out);
      out.flush();
      if (!out) throw std::runtime_error("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, out_path);
    for (const auto& w : run.warnings) std::cerr << "prooflab trace: warning: " << w << "\n";
    for (const auto& w : sum.warnings) std::cerr << "prooflab trace: warning: " << w << "\n";
    std::cout << out_path.string() << ": " << sum.slices << " slices on " << sum.tracks
              << " tracks, " << sum.counter_points
              << " counter points (open in ui.perfetto.dev or chrome://tracing)\n";
  });
}

}  // namespace prooflab::harness
