#include "harness/experiment/planned_run.hpp"

#include <limits>
#include <stdexcept>

namespace prooflab::harness {

nlohmann::json planned_run_json(const PlannedRun& run) {
  return {{"order", run.order},
          {"arm", run.arm},
          {"rep", run.rep},
          {"warmup", run.warmup},
          {"run_dir", run.run_dir}};
}

namespace {

std::uint64_t unsigned_key(const nlohmann::json& j, const char* key, const std::string& where,
                           std::uint64_t max) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(where + ": key '" + key + "' missing");
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max)
    throw std::invalid_argument(where + ": key '" + key + "': " + it->dump() +
                                " is not an integer in 0.." + std::to_string(max));
  return it->get<std::uint64_t>();
}

}  // namespace

PlannedRun planned_run_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": not a JSON object");
  PlannedRun r;
  constexpr auto kSize = std::numeric_limits<std::size_t>::max();
  r.order = unsigned_key(j, "order", where, kSize);
  r.arm = unsigned_key(j, "arm", where, kSize);
  r.rep = static_cast<std::uint32_t>(
      unsigned_key(j, "rep", where, std::numeric_limits<std::uint32_t>::max()));
  const auto w = j.find("warmup");
  if (w == j.end() || !w->is_boolean())
    throw std::invalid_argument(where + ": key 'warmup' missing or not true/false");
  r.warmup = w->get<bool>();
  const auto d = j.find("run_dir");
  if (d == j.end() || !d->is_string() || d->get<std::string>().empty())
    throw std::invalid_argument(where + ": key 'run_dir' missing or not a non-empty string");
  r.run_dir = d->get<std::string>();
  return r;
}

}  // namespace prooflab::harness
