#include "harness/run_import.hpp"

#include "harness/embedded_python.hpp"

#ifdef PROOFLAB_HAVE_PYTHON
#include <pybind11/stl.h>
#endif

namespace prooflab::harness {

#ifdef PROOFLAB_HAVE_PYTHON
namespace py = pybind11;

nlohmann::json import_reference_log(const std::vector<std::filesystem::path>& logs,
                                    const std::filesystem::path& run_dir,
                                    std::optional<int> expected_partitions) {
  try {
    start_embedded_python(false);  // SIGINT stays with the experiment's handler
  } catch (const std::exception& e) {
    throw LogImportError(e.what());
  }
  try {
    const py::module_ importer = import_venv_module("prooflab_analysis.import_run");
    std::vector<std::string> paths;
    for (const auto& l : logs) paths.push_back(l.string());
    py::object partitions = py::none();
    if (expected_partitions) partitions = py::int_(*expected_partitions);
    const py::object summary = importer.attr("import_reference_log")(
        paths, run_dir.string(), py::arg("expected_partitions") = partitions);
    const std::string text = py::module_::import("json").attr("dumps")(summary).cast<std::string>();
    return nlohmann::json::parse(text);
  } catch (py::error_already_set& e) {
    throw LogImportError(describe_python_error(e));
  } catch (const std::runtime_error& e) {
    throw LogImportError(e.what());
  }
}
#else
nlohmann::json import_reference_log(const std::vector<std::filesystem::path>&,
                                    const std::filesystem::path&, std::optional<int>) {
  throw LogImportError(
      "this prooflab was built without Python embedding, which the importer of an external "
      "run's logs needs: run `make deps` and rebuild");
}
#endif

}  // namespace prooflab::harness
