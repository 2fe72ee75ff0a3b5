// `prooflab report PATH [--out DIR] [--partitions N] [--strict] [--window START:END]`: report.md and
// report.html, the waterfall and the sweep and A/B figures and tables of a run directory, an
// experiment directory (index.csv) or a reference log, written by
// prooflab_analysis.report.write_report in an embedded Python interpreter.
//
// The interpreter and its venv: harness/embedded_python.hpp.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "harness/commands/commands.hpp"

#include "harness/embedded_python.hpp"

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/stl.h>
#endif

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string path, out;
  int partitions = 0;  // 0: run.json's config.partitions
  bool strict = false;  // a malformed line of a log is an error (docs/reference-logs.md)
  std::string window;  // "START:END" s since the run's start; parsed (and checked) by the analysis
};

#ifdef PROOFLAB_HAVE_PYTHON
namespace py = pybind11;

void run_report(const ReportOptions& o) {
  start_embedded_python(true);  // Ctrl-C: KeyboardInterrupt, reported below
  std::string error;
  try {
    py::module_ report = import_venv_module("prooflab_analysis.report");
    py::object out = py::none(), partitions = py::none(), window = py::none();
    if (!o.out.empty()) out = py::str(o.out);
    if (o.partitions > 0) partitions = py::int_(o.partitions);
    if (!o.window.empty()) window = py::str(o.window);
    const fs::path written = py::str(report.attr("write_report")(o.path, out, py::arg("expected_partitions") = partitions,
                                                                 py::arg("strict") = o.strict, py::arg("window") = window))
                                 .cast<std::string>();
    std::cout << "report: " << written.string() << "\n";
    std::vector<std::string> figures, tables, run_reports, pages;
    // Recursive: a reference log gets one report per run found in it, in a subfolder.
    for (const auto& entry : fs::recursive_directory_iterator(written.parent_path())) {
      const auto& p = entry.path();
      const auto ext = p.extension();
      if (ext == ".png" || ext == ".svg") figures.push_back(p.string());
      else if (p.filename() == "report.md" && p != written) run_reports.push_back(p.string());
      else if (ext == ".html") pages.push_back(p.string());
      else if (ext == ".csv" || (ext == ".md" && p != written)) tables.push_back(p.string());
    }
    std::sort(figures.begin(), figures.end());
    std::sort(tables.begin(), tables.end());
    std::sort(run_reports.begin(), run_reports.end());
    std::sort(pages.begin(), pages.end());
    for (const auto& h : pages) std::cout << "html:   " << h << "\n";
    for (const auto& r : run_reports) std::cout << "run report: " << r << "\n";
    for (const auto& f : figures) std::cout << "figure: " << f << "\n";
    for (const auto& t : tables) std::cout << "table:  " << t << "\n";
  } catch (py::error_already_set& e) {
    error = e.matches(PyExc_KeyboardInterrupt) ? std::string("interrupted") : describe_python_error(e);
  }
  if (!error.empty()) throw std::runtime_error("report: " + error);
}
#else
void run_report(const ReportOptions& o) {
  throw std::runtime_error(
      "this prooflab was built without Python embedding (Python development files or pybind11 were not found "
      "when it was configured): run `make deps` and rebuild, or run .venv/bin/python -m prooflab_analysis "
      "report " + o.path);
}
#endif

}  // namespace

void add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write report.md and figures (waterfall, sweep, A/B tables) for a run, an experiment or a log");
  auto o = std::make_shared<ReportOptions>();
  cmd->add_option("path", o->path, "run directory, experiment directory (index.csv) or reference log")->required();
  cmd->add_option("--out", o->out, "output directory (default: <path>/report, or <log>-report beside a log)");
  cmd->add_option("--partitions", o->partitions, "expected partitions per proof (default: run.json's config)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--strict", o->strict, "a malformed line of a log is an error (default: skipped and counted)");
  cmd->add_option("--window", o->window, "waterfall time window START:END, s since the run's start (e.g. 120:180)");
  cmd->callback([o] { run_report(*o); });
}

}  // namespace prooflab::harness
