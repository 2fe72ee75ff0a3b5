#include "harness/experiment/experiment_resume.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace prooflab::harness {

namespace {

std::string text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

RunOnDisk inspect_run_dir(const std::filesystem::path& dir, const nlohmann::json& planned) {
  RunOnDisk out;
  const auto file = dir / "run.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return out;
  nlohmann::json meta;
  try {
    std::ifstream in(file);
    meta = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    out.status = "unreadable";
    return out;
  }
  if (!meta.is_object() || !meta.contains("status") || !meta["status"].is_string()) {
    out.status = "unreadable";
    return out;
  }
  out.status = meta["status"].get<std::string>();
  // Keys only one side knows (a knob added to the engine since) are not differences.
  const nlohmann::json& want = planned;
  if (meta.contains("config") && meta["config"].is_object()) {
    for (const auto& [key, value] : want.items()) {
      const auto it = meta["config"].find(key);
      if (it != meta["config"].end() && *it != value)
        out.differences.push_back(key + ": " + text(*it) + " there, " + text(value) + " planned");
    }
  } else {
    out.differences.push_back("config: not recorded there");
  }
  return out;
}

std::string index_status(const std::string& run_status) {
  if (run_status == "complete" || run_status == "failed" || run_status == "interrupted")
    return run_status;
  return "interrupted";
}

}  // namespace prooflab::harness
