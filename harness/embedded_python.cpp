#include "harness/embedded_python.hpp"

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/stl.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace prooflab::harness {
namespace {

namespace fs = std::filesystem;
namespace py = pybind11;

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
      " Run `make deps` to create the project venv (.venv), or set PROOFLAB_VENV to a venv in "
      "which "
      "`pip install -e analysis` was run.";
  const fs::path cfg = dir / "pyvenv.cfg";
  std::ifstream in(cfg);
  if (!in)
    throw std::runtime_error("no Python venv at " + dir.string() + " (" + cfg.string() +
                             " not found)." + how);
  Venv venv{dir, "", false};
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    if (key == "version" || key == "version_info") venv.version = value;
    if (key == "include-system-site-packages") venv.system_site_packages = value == "true";
  }
  if (venv.version.empty())
    throw std::runtime_error(cfg.string() + " names no Python version." + how);
  return venv;
}

const std::string kEmbedded =
    std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);

fs::path site_packages(const Venv& venv) {
  const auto major_minor =
      venv.version.substr(0, venv.version.find('.', venv.version.find('.') + 1));
  if (major_minor != kEmbedded) {
    const bool project_venv = venv.dir == fs::path(PROOFLAB_SOURCE_DIR) / ".venv";
    throw std::runtime_error("the venv " + venv.dir.string() + " is Python " + venv.version +
                             " but this prooflab embeds Python " + PY_VERSION +
                             "; compiled packages of one minor version do not load into another. "
                             "Recreate the venv with python" +
                             kEmbedded + (project_venv ? " (rm -rf .venv && make deps)" : "") +
                             ", or reconfigure the build with -DPython_EXECUTABLE=" +
                             (venv.dir / "bin" / "python").string() + " and rebuild prooflab.");
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

Venv g_venv;

}  // namespace

void start_embedded_python(bool install_signal_handlers) {
  if (Py_IsInitialized()) return;
  const Venv venv = read_venv(venv_dir());
  const fs::path packages = site_packages(venv);
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = install_signal_handlers ? 1 : 0;
  try {
    py::initialize_interpreter(&config, 0, nullptr, false);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("cannot start the embedded Python ") + PY_VERSION + ": " +
                             e.what());
  }
  try {
    activate_venv(venv, packages);
  } catch (py::error_already_set& e) {
    throw std::runtime_error("cannot activate the venv " + venv.dir.string() + ": " +
                             describe_python_error(e));
  }
  g_venv = venv;
}

py::module_ import_venv_module(const std::string& module) {
  try {
    return py::module_::import(module.c_str());
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    const py::object name = e.value().attr("name");
    throw std::runtime_error(
        "the venv " + g_venv.dir.string() + " cannot import " +
        (name.is_none() ? std::string("prooflab_analysis") : "'" + name.cast<std::string>() + "'") +
        " (" + py::str(e.value()).cast<std::string>() + "). Run `make deps`, or " +
        (g_venv.dir / "bin" / "pip").string() + " install -e 'analysis[test]' in the source tree.");
  }
}

std::string describe_python_error(py::error_already_set& e) {
  const py::object type = e.type(), value = e.value(), trace = e.trace();
  const bool input_error = e.matches(PyExc_ValueError) || e.matches(PyExc_OSError);
  if (input_error) return py::str(value).cast<std::string>();
  std::string text;
  const py::object lines =
      py::module_::import("traceback").attr("format_exception")(type, value, trace);
  for (const auto& line : lines) text += line.cast<std::string>();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return "Python error in prooflab_analysis:\n" + text;
}

}  // namespace prooflab::harness
#endif
