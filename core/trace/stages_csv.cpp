#include "core/trace/stages_csv.hpp"

#include <variant>

namespace prooflab::trace {
namespace {

// A column is a stage's duration (named by the stage table) or a field of the row.
struct Field {
  const char* name;
  std::string (*value)(const StageRow&);
  bool integer = true;
};
using Column = std::variant<Stage, Field>;

std::string optional_us(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }
std::string optional_index(int v) { return v >= 0 ? std::to_string(v) : std::string(); }

// In file order (docs/run-directory.md); new columns go at the end.
const Column kColumns[] = {
    Field{"job", [](const StageRow& r) { return std::to_string(r.job); }},
    Field{"partition", [](const StageRow& r) { return std::to_string(r.partition); }},
    Field{"worker", [](const StageRow& r) { return optional_index(r.worker); }},
    Field{"device", [](const StageRow& r) { return optional_index(r.device); }},
    Field{"status", [](const StageRow& r) { return std::string(r.ok ? "ok" : "failed"); }, false},
    Stage::kSynthesize,
    Stage::kPrepMsm,
    Field{"queue_us", [](const StageRow& r) { return optional_us(r.queue_us); }},
    Stage::kLockWait,
    Stage::kPrestage,
    Stage::kNttH,
    Stage::kBatchAdd,
    Stage::kTailMsm,
    Field{"gpu_total_us", [](const StageRow& r) { return optional_us(r.gpu_total_us); }},
    Stage::kGpuPhase,
    Stage::kBG2Msm,
    Stage::kEpilogue,
    Stage::kDealloc,
    Field{"host_bytes", [](const StageRow& r) { return std::to_string(r.host_bytes); }},
    Field{"vram_peak_bytes", [](const StageRow& r) { return std::to_string(r.vram_peak_bytes); }},
    Field{"prestage", [](const StageRow& r) { return r.prestage; }, false},
    Field{"pre_destructor_us", [](const StageRow& r) { return optional_us(r.pre_destructor_us); }},
    Field{"abc_bytes", [](const StageRow& r) { return std::to_string(r.abc_bytes); }},
    Field{"aux_bytes", [](const StageRow& r) { return std::to_string(r.aux_bytes); }},
    Field{"density_bytes", [](const StageRow& r) { return std::to_string(r.density_bytes); }},
    Stage::kWitness,
};

const char* column_name(const Column& c) {
  if (const Stage* s = std::get_if<Stage>(&c)) return stage_info(*s).csv_column;
  return std::get<Field>(c).name;
}

}  // namespace

std::string stages_csv_header() {
  std::string out;
  for (const Column& c : kColumns) out += (out.empty() ? "" : ",") + std::string(column_name(c));
  return out + "\n";
}

std::string stages_csv_line(const StageRow& row) {
  std::string out;
  bool first = true;
  for (const Column& c : kColumns) {
    if (!first) out += ',';
    first = false;
    if (const Stage* s = std::get_if<Stage>(&c))
      out += optional_us(row.us(*s));
    else
      out += std::get<Field>(c).value(row);
  }
  return out + "\n";
}

std::vector<std::string> stages_csv_integer_columns() {
  std::vector<std::string> out;
  for (const Column& c : kColumns)
    if (std::holds_alternative<Stage>(c) || std::get<Field>(c).integer) out.push_back(column_name(c));
  return out;
}

}  // namespace prooflab::trace
