// The one call from the harness into the importer of reference-format logs:
// prooflab_analysis.import_run.import_reference_log(log_paths, run_dir, expected_partitions=)
// in the embedded interpreter (harness/embedded_python.hpp). It writes timeline.csv,
// stages.csv and summary.json into the run directory and returns the summary; keeping that
// signature is all a new importer has to do.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

namespace prooflab::harness {

// What the importer said when the logs hold nothing it can use or a record does not parse
// (file, line, text), or why it could not be called.
class LogImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json import_reference_log(const std::vector<std::filesystem::path>& logs,
                                    const std::filesystem::path& run_dir,
                                    std::optional<int> expected_partitions);

}  // namespace prooflab::harness
