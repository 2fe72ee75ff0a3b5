// The one table of engine knobs: each knob of EngineConfig declared once — its name, kind
// and accepted values, the member it sets, a one-line doc, the cuzk / supraseal equivalent
// and its cell-name prefix. EngineConfig::set, to_json and keys, the harness's experiment
// checks and cell names, `prooflab knobs`, docs/engine.md's knob list and the Python
// module's EngineConfig all read it (issue 23 item 3).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/engine/config.hpp"

namespace prooflab::engine {

enum class KnobKind {
  kUint,   // a decimal integer in [lo, hi]
  kBool,   // on | off (true | false, yes | no, 1 | 0)
  kBytes,  // a byte count (text::parse_bytes: 1048576, 512MiB, 16GiB)
  kEnum,   // one of `values`
};

// An enum-class member, reached through its index: EnumNames<E>::names[i] names value i.
struct EnumMember {
  std::size_t (*get)(const EngineConfig&);
  void (*set)(EngineConfig&, std::size_t);
};

using KnobMember = std::variant<std::uint32_t EngineConfig::*, std::uint64_t EngineConfig::*,
                                bool EngineConfig::*, std::string EngineConfig::*, EnumMember>;

struct Knob {
  std::string_view name;
  KnobKind kind;
  KnobMember member;
  std::uint64_t lo = 0, hi = 0;              // kUint
  std::span<const std::string_view> values;  // kEnum (an enum class: EnumNames' order)
  std::string_view doc;                      // one line
  std::string_view cuzk;                     // the reference's equivalent, or "none: ..."
  // Cell names (harness/experiment_matrix): prefix + value, e.g. "c" + "20"; "" shows the
  // value alone (enums whose values do not collide); nullptr reads "<name>-<value>".
  const char* cell_prefix = nullptr;
  // run.json records 0 as null (vram_limit: "no limit given"), kept for old runs' sake.
  bool json_null_when_zero = false;

  // Parses `text` into cfg's member; throws ConfigError naming the key, the value (an
  // excerpt) and what is accepted.
  void set(EngineConfig& cfg, const std::string& text) const;
  // The member's value as `set` reads it back ("on", "two_lock", "4096"): set(cfg, text(cfg))
  // leaves cfg unchanged.
  std::string text(const EngineConfig& cfg) const;
  nlohmann::json json(const EngineConfig& cfg) const;
  // What `set` accepts, as its errors say it: "an integer from 1 to 64", "single | two_lock |
  // none".
  std::string accepted() const;
  // "uint", "bool", "bytes" or "enum".
  std::string_view kind_name() const;
  // cell_prefix resolved: "c", "" or "<name>-".
  std::string cell_name_prefix() const;
};

// Every knob, in the order keys() and `prooflab knobs` give them.
std::span<const Knob> knobs();
// The knob named `name`, or nullptr.
const Knob* find_knob(std::string_view name);
// The knob named `name`; throws ConfigError "unknown config key '<name>' (known keys: ...)".
const Knob& knob(std::string_view name);

// The table as data: one object per knob with name, kind, accepted, lo/hi or values,
// default (as text), doc, cuzk and cell_prefix (`prooflab knobs --format json`, the Python
// module).
nlohmann::json knob_table_json();

}  // namespace prooflab::engine
