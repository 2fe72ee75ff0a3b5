// What `prooflab regress` writes for CI tools besides its table and --json: a JUnit XML
// file (one testcase per metric), a markdown summary (for a job summary page) and an
// append-only per-commit history that analysis/prooflab_analysis/regress_history.py plots,
// one figure per metric over commits. All three are made from the --json report object.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace prooflab::harness {

// JUnit XML: a testsuite "prooflab regress"; REGRESSION rows are failures, skipped and
// incomparable rows are skipped testcases (with the reason), the rest pass.
std::string junit_xml(const nlohmann::json& report);

// A markdown summary: the outcome line, the table, one note line per metric.
std::string markdown_summary(const nlohmann::json& report);

// Appends one entry (commit, date, host, mode, every row's figures) to the history file,
// creating it when missing; an existing file that is not a history is an error naming it.
void append_history(const std::filesystem::path& file, const nlohmann::json& report);

// Writes text to a file (parents created), or throws naming the file.
void write_text(const std::filesystem::path& file, const std::string& text);

}  // namespace prooflab::harness
