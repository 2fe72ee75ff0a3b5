// The Python interpreter that `prooflab report` and the external runner's importer embed
// (pybind11), with the packages of the project venv.
//
// Which Python: this binary links one libpython (the project venv's base interpreter, chosen
// at configure time: harness/CMakeLists.txt) and takes its packages from the project venv,
// $PROOFLAB_VENV or else <source dir>/.venv. The interpreter starts isolated (PYTHONPATH,
// PYTHONHOME and the user site are ignored, so results depend on the venv alone), keeps
// its own standard library, drops the base installation's site-packages (as a venv without
// system site packages does) and adds the venv's through site.addsitedir, which also runs its
// .pth files: the editable install of prooflab_analysis is one. The venv must be of the same
// major.minor version as the embedded libpython; a patch-level difference is harmless, since
// the C ABI of extension modules (numpy, pandas, ...) is stable within a minor version.
//
// It is started once per process, on first use, and never finalized: numpy and pandas do not
// support a second initialisation, and an experiment imports one run after another.
#pragma once

#include <string>

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/embed.h>

namespace prooflab::harness {

// Starts the interpreter if it is not running. install_signal_handlers: Python's SIGINT
// handler (Ctrl-C raises KeyboardInterrupt), for `report`; the experiment commands keep
// their own. Throws std::runtime_error saying how to fix a missing or mismatched venv.
void start_embedded_python(bool install_signal_handlers);

// Imports a module of the venv (the interpreter must be started); a missing package says
// to run `make deps`.
pybind11::module_ import_venv_module(const std::string& name);

// The exception's message; with the traceback when it is not an input error (ValueError,
// OSError).
std::string describe_python_error(pybind11::error_already_set& e);

}  // namespace prooflab::harness
#endif
