// `prooflab report PATH [--out DIR] [--partitions N] [--window START:END]`: report.md and
// report.html, the waterfall and the sweep and A/B figures and tables of a run directory, an
// experiment directory (index.csv) or a reference log, written by
// prooflab_analysis.report.write_report in an embedded Python interpreter.
//
// Which Python: this binary links one libpython (the project venv's base interpreter, chosen
// at configure time: harness/CMakeLists.txt) and takes its packages from the project venv,
// $PROOFLAB_VENV or else <source dir>/.venv. The interpreter starts isolated (PYTHONPATH,
// PYTHONHOME and the user site are ignored, so the report depends on the venv alone), keeps
// its own standard library, drops the base installation's site-packages (as a venv without
// system site packages does) and adds the venv's through site.addsitedir, which also runs its
// .pth files: the editable install of prooflab_analysis is one. The venv must be of the same
// major.minor version as the embedded libpython; a patch-level difference is harmless, since
// the C ABI of extension modules (numpy, pandas, ...) is stable within a minor version.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "harness/commands.hpp"

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/embed.h>
#include <pybind11/stl.h>
#endif

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string path, out;
  int partitions = 0;  // 0: run.json's config.partitions
  std::string window;  // "START:END" s since the run's start; parsed (and checked) by the analysis
};

// What `prooflab report` needs to know about a venv, read from its pyvenv.cfg.
struct Venv {
  fs::path dir;
  std::string version;  // "3.11.7"
  bool system_site_packages = false;
};

fs::path venv_dir() {
  if (const char* env = std::getenv("PROOFLAB_VENV"); env != nullptr && *env != '\0') return env;
  return fs::path(PROOFLAB_SOURCE_DIR) / ".venv";
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Venv read_venv(const fs::path& dir) {
  const std::string how =
      " Run `make deps` to create the project venv (.venv), or set PROOFLAB_VENV to a venv in which "
      "`pip install -e analysis` was run.";
  const fs::path cfg = dir / "pyvenv.cfg";
  std::ifstream in(cfg);
  if (!in)
    throw std::runtime_error("no Python venv at " + dir.string() + " (" + cfg.string() + " not found)." + how);
  Venv venv{dir, "", false};
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "version" || key == "version_info") venv.version = value;
    if (key == "include-system-site-packages") venv.system_site_packages = value == "true";
  }
  if (venv.version.empty()) throw std::runtime_error(cfg.string() + " names no Python version." + how);
  return venv;
}

#ifdef PROOFLAB_HAVE_PYTHON
namespace py = pybind11;

const std::string kEmbedded = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);

fs::path site_packages(const Venv& venv) {
  const auto major_minor = venv.version.substr(0, venv.version.find('.', venv.version.find('.') + 1));
  if (major_minor != kEmbedded) {
    const bool project_venv = venv.dir == fs::path(PROOFLAB_SOURCE_DIR) / ".venv";
    throw std::runtime_error(
        "the venv " + venv.dir.string() + " is Python " + venv.version + " but this prooflab embeds Python " +
        PY_VERSION + "; compiled packages of one minor version do not load into another. Recreate the venv with python" +
        kEmbedded + (project_venv ? " (rm -rf .venv && make deps)" : "") +
        ", or reconfigure the build with -DPython_EXECUTABLE=" + (venv.dir / "bin" / "python").string() +
        " and rebuild prooflab.");
  }
  const fs::path dir = venv.dir / "lib" / ("python" + kEmbedded) / "site-packages";
  if (!fs::is_directory(dir))
    throw std::runtime_error("the venv " + venv.dir.string() + " has no " + dir.string() +
                             ". Run `make deps` (or recreate the venv).");
  return dir;
}

// Puts the venv's site-packages (and what its .pth files add) at the front of sys.path.
void activate_venv(const Venv& venv, const fs::path& packages) {
  py::dict scope;
  scope["venv_site"] = packages.string();
  scope["venv_python"] = (venv.dir / "bin" / "python").string();
  scope["keep_system_site"] = venv.system_site_packages;
  const char* module_dir = PROOFLAB_PYTHON_MODULE_DIR;  // the `prooflab` module: fast loaders
  scope["module_dir"] = fs::is_directory(module_dir) ? std::string(module_dir) : std::string();
  py::exec(R"(
import site, sys
if not keep_system_site:
    base = set(site.getsitepackages())
    sys.path[:] = [p for p in sys.path if p not in base]
before = list(sys.path)
site.addsitedir(venv_site)
sys.path[:] = [p for p in sys.path if p not in before] + before
if module_dir:
    sys.path.append(module_dir)
sys.executable = venv_python
)",
           scope);
}

// The exception's type and message, with the traceback when it is not an input error.
std::string describe(py::error_already_set& e) {
  const py::object type = e.type(), value = e.value(), trace = e.trace();
  const bool input_error = e.matches(PyExc_ValueError) || e.matches(PyExc_OSError);
  if (input_error) return py::str(value).cast<std::string>();
  std::string text;
  const py::object lines = py::module_::import("traceback").attr("format_exception")(type, value, trace);
  for (const auto& line : lines) text += line.cast<std::string>();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return "Python error in prooflab_analysis:\n" + text;
}

void run_report(const ReportOptions& o) {
  const Venv venv = read_venv(venv_dir());
  const fs::path packages = site_packages(venv);

  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = 1;  // Ctrl-C: KeyboardInterrupt, reported below
  std::optional<py::scoped_interpreter> python;
  try {
    python.emplace(&config, 0, nullptr, false);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("cannot start the embedded Python ") + PY_VERSION + ": " + e.what());
  }

  std::string error;
  try {
    activate_venv(venv, packages);
    py::module_ report;
    try {
      report = py::module_::import("prooflab_analysis.report");
    } catch (py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
      const py::object name = e.value().attr("name");
      throw std::runtime_error(
          "the venv " + venv.dir.string() + " cannot import " +
          (name.is_none() ? std::string("prooflab_analysis") : "'" + name.cast<std::string>() + "'") + " (" +
          py::str(e.value()).cast<std::string>() + "). Run `make deps`, or " +
          (venv.dir / "bin" / "pip").string() + " install -e 'analysis[test]' in the source tree.");
    }
    py::object out = py::none(), partitions = py::none(), window = py::none();
    if (!o.out.empty()) out = py::str(o.out);
    if (o.partitions > 0) partitions = py::int_(o.partitions);
    if (!o.window.empty()) window = py::str(o.window);
    const fs::path written = py::str(report.attr("write_report")(o.path, out, py::arg("expected_partitions") = partitions,
                                                                 py::arg("window") = window))
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
    error = e.matches(PyExc_KeyboardInterrupt) ? std::string("interrupted") : describe(e);
  }
  if (!error.empty()) throw std::runtime_error("report: " + error);
}
#else
void run_report(const ReportOptions& o) {
  (void)venv_dir;
  (void)read_venv;
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
  cmd->add_option("--window", o->window, "waterfall time window START:END, s since the run's start (e.g. 120:180)");
  cmd->callback([o] { run_report(*o); });
}

}  // namespace prooflab::harness
