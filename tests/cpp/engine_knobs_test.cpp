// The one table of engine knobs (core/engine/knobs.hpp, issue 23 item 3): set, to_json and
// keys come from it and agree; every knob round-trips from its default's text, every enum
// value round-trips, every bad value's error names the key, the value and the accepted set;
// the defaults' JSON is what run.json recorded before the table (plus the new b_g2_msm).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <variant>

#include "core/engine/config.hpp"
#include "core/engine/knobs.hpp"

namespace {

using namespace prooflab;
using engine::ConfigError;
using engine::EngineConfig;
using engine::KnobKind;

std::string error_of(EngineConfig& c, const std::string& key, const std::string& value) {
  try {
    c.set(key, value);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

TEST(EngineKnobs, DefaultsJsonIsWhatRunJsonRecorded) {
  // Written out by hand from the config before the table (core/engine/config.cpp at e88e7aa),
  // with the new knobs b_g2_msm, sparse_products, prep_msm, pin_uploads, fixed_base_h and
  // overlap_batch_add, tails_beside_h, batch_add_tables, h_basis.
  const nlohmann::json expected = {{"circuit", "porep-like"},
                                   {"constraints", 4096},
                                   {"partitions", 10},
                                   {"count", 1},
                                   {"concurrency", 1},
                                   {"seed", 0},
                                   {"verify", true},
                                   {"backend", "cpu"},
                                   {"lock_policy", "single"},
                                   {"dealloc_policy", "async"},
                                   {"gpu_threads", 0},
                                   {"synth_threads", 0},
                                   {"device_threads", 0},
                                   {"throttle", false},
                                   {"gpu_workers_per_device", 2},
                                   {"devices", 1},
                                   {"vram_limit", nullptr},
                                   {"host_mem_budget", 0},
                                   {"partition_workers", 2},
                                   {"synthesis_lookahead", 0},
                                   {"max_gpu_queue_depth", 0},
                                   {"early_free", false},
                                   {"finalize", "inline"},
                                   {"b_g2_msm", "cpu"},
                                   {"sparse_products", "cpu"},
                                   {"prep_msm", "cpu"},
                                   {"pin_uploads", false},
                                   {"fixed_base_h", false},
                                   {"overlap_batch_add", false},
                                   {"tails_beside_h", false},
                                   {"batch_add_tables", "off"},
                                   {"h_basis", "monomial"},
                                   {"record", true},
                                   {"cupti", true}};
  EXPECT_EQ(EngineConfig{}.to_json(), expected);
  EngineConfig c;
  c.set("vram_limit", "16GiB");
  EXPECT_EQ(c.to_json()["vram_limit"], 16ull << 30);
}

// fixed_base_h, overlap_batch_add and tails_beside_h = on and batch_add_tables = pairs | quads
// need the CUDA backend: validate() refuses them elsewhere, naming the key and the value.
TEST(EngineKnobs, FixedBaseHOverlapBatchAddTailsBesideHAndBatchAddTablesNeedTheCudaBackend) {
  for (const std::string value : {"pairs", "quads"}) {
    EngineConfig c;
    c.set("batch_add_tables", value);
    EXPECT_EQ(engine::batch_add_group(c.batch_add_tables), value == "pairs" ? 2u : 4u);
    try {
      c.validate();
      FAIL() << "batch_add_tables = " << value << " with backend = cpu was accepted";
    } catch (const engine::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()),
                "config: batch_add_tables = " + value + " needs backend = cuda (got backend = cpu)");
    }
    c.set("backend", "cuda");
    EXPECT_NO_THROW(c.validate());
  }
  EXPECT_EQ(engine::batch_add_group(EngineConfig{}.batch_add_tables), 1u);
  EXPECT_THROW(EngineConfig{}.set("batch_add_tables", "on"), engine::ConfigError);
  for (const std::string key : {"fixed_base_h", "overlap_batch_add", "tails_beside_h"}) {
    EngineConfig c;
    c.set(key, "on");
    EXPECT_TRUE(key == "fixed_base_h"        ? c.fixed_base_h
                : key == "overlap_batch_add" ? c.overlap_batch_add
                                             : c.tails_beside_h);
    try {
      c.validate();
      FAIL() << key << " = on with backend = cpu was accepted";
    } catch (const engine::ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), "config: " + key + " = on needs backend = cuda (got backend = cpu)");
    }
    c.set("backend", "cuda");
    EXPECT_NO_THROW(c.validate());
  }
}

TEST(EngineKnobs, KeysAndJsonListEveryKnobOnceInTableOrder) {
  std::vector<std::string> names;
  for (const auto& k : engine::knobs()) names.emplace_back(k.name);
  EXPECT_EQ(EngineConfig::keys(), names);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  const auto j = EngineConfig{}.to_json();
  EXPECT_EQ(j.size(), names.size());
  for (const auto& n : names) EXPECT_TRUE(j.contains(n)) << n;
  EXPECT_EQ(names.front(), "circuit");
}

TEST(EngineKnobs, EveryRowIsConsistentWithItsMember) {
  for (const auto& k : engine::knobs()) {
    SCOPED_TRACE(std::string(k.name));
    EXPECT_FALSE(k.doc.empty());
    EXPECT_EQ(k.doc.find('\n'), std::string_view::npos);
    EXPECT_FALSE(k.cuzk.empty());
    switch (k.kind) {
      case KnobKind::kUint:
        EXPECT_LE(k.lo, k.hi);
        if (std::holds_alternative<std::uint32_t EngineConfig::*>(k.member))
          EXPECT_LE(k.hi, std::numeric_limits<std::uint32_t>::max());
        else
          EXPECT_TRUE(std::holds_alternative<std::uint64_t EngineConfig::*>(k.member));
        break;
      case KnobKind::kBool:
        EXPECT_TRUE(std::holds_alternative<bool EngineConfig::*>(k.member));
        break;
      case KnobKind::kBytes:
        EXPECT_TRUE(std::holds_alternative<std::uint64_t EngineConfig::*>(k.member));
        break;
      case KnobKind::kEnum: {
        EXPECT_FALSE(k.values.empty());
        EXPECT_EQ(std::set<std::string_view>(k.values.begin(), k.values.end()).size(),
                  k.values.size());
        break;
      }
    }
    EXPECT_TRUE(k.json_null_when_zero == false || k.kind == KnobKind::kBytes);
  }
}

TEST(EngineKnobs, EveryKnobRoundTripsFromItsDefaultsText) {
  const auto defaults = EngineConfig{}.to_json();
  for (const auto& k : engine::knobs()) {
    SCOPED_TRACE(std::string(k.name));
    EngineConfig c;
    c.set(std::string(k.name), k.text(EngineConfig{}));
    EXPECT_EQ(c.to_json(), defaults);
  }
}

TEST(EngineKnobs, EveryEnumValueRoundTrips) {
  int values = 0;
  for (const auto& k : engine::knobs()) {
    if (k.kind != KnobKind::kEnum) continue;
    for (const auto v : k.values) {
      SCOPED_TRACE(std::string(k.name) + "=" + std::string(v));
      EngineConfig c;
      c.set(std::string(k.name), std::string(v));
      EXPECT_EQ(k.text(c), v);
      EXPECT_EQ(c.to_json()[std::string(k.name)], std::string(v));
      EngineConfig again;
      again.set(std::string(k.name), k.text(c));
      EXPECT_EQ(again.to_json(), c.to_json());
      ++values;
    }
  }
  // circuit 4, backend 2, lock_policy 3, dealloc_policy 3, finalize 2, b_g2_msm 2,
  // sparse_products 2, prep_msm 2, batch_add_tables 3, h_basis 3.
  EXPECT_EQ(values, 26);
  EngineConfig c;
  c.set("lock_policy", "two_lock");
  c.set("dealloc_policy", "serialized");
  c.set("finalize", "split");
  c.set("b_g2_msm", "gpu");
  c.set("sparse_products", "gpu");
  EXPECT_EQ(c.sparse_products, engine::Placement::kGpu);
  EXPECT_EQ(c.to_json()["sparse_products"], "gpu");
  c.set("prep_msm", "gpu");
  EXPECT_EQ(c.prep_msm, engine::Placement::kGpu);
  EXPECT_EQ(c.to_json()["prep_msm"], "gpu");
  EXPECT_EQ(c.lock_policy, engine::LockPolicy::kTwoLock);
  EXPECT_EQ(c.dealloc_policy, engine::DeallocPolicy::kSerialized);
  EXPECT_EQ(c.finalize, engine::FinalizeMode::kSplit);
  EXPECT_EQ(c.b_g2_msm, engine::Placement::kGpu);
  EXPECT_STREQ(engine::to_string(c.lock_policy), "two_lock");
  EXPECT_STREQ(engine::to_string(engine::Placement::kCpu), "cpu");
}

TEST(EngineKnobs, UintBoolAndBytesValuesRoundTrip) {
  EngineConfig c;
  c.set("seed", "18446744073709551615");
  EXPECT_EQ(c.seed, ~0ull);
  c.set("constraints", "268435456");
  EXPECT_EQ(c.constraints, 1ull << 28);
  c.set("host_mem_budget", "64GiB");
  EXPECT_EQ(c.host_mem_budget, 64ull << 30);
  EXPECT_EQ(engine::knob("host_mem_budget").text(c), "68719476736");
  for (const char* yes : {"on", "true", "1", "yes"}) {
    c.set("early_free", yes);
    EXPECT_TRUE(c.early_free) << yes;
    EXPECT_EQ(engine::knob("early_free").text(c), "on");
  }
  for (const char* no : {"off", "false", "0", "no"}) {
    c.set("record", no);
    EXPECT_FALSE(c.record) << no;
  }
}

// The accepted set, spelled out here rather than taken from Knob::accepted.
std::string accepted_of(const engine::Knob& k) {
  switch (k.kind) {
    case KnobKind::kUint:
      return "an integer from " + std::to_string(k.lo) + " to " + std::to_string(k.hi);
    case KnobKind::kBool:
      return "on | off (or true | false)";
    case KnobKind::kBytes:
      return "a byte count such as 1048576, 512MiB, 16GiB (binary units)";
    case KnobKind::kEnum:
      return join(std::vector<std::string>(k.values.begin(), k.values.end()), " | ");
  }
  return "";
}

TEST(EngineKnobs, EveryBadValueNamesKeyValueAndAcceptedSet) {
  for (const auto& k : engine::knobs()) {
    const std::string key(k.name);
    std::vector<std::string> bad = {"", "nonsense", "-1"};
    if (k.kind == KnobKind::kUint) {
      if (k.hi < ~0ull) bad.push_back(std::to_string(k.hi + 1));
      if (k.lo > 0) bad.push_back(std::to_string(k.lo - 1));
      bad.push_back("99999999999999999999999");
      bad.push_back("1.5");
    }
    if (k.kind == KnobKind::kBytes) bad = {"", "nonsense", "-1", "12parsecs", "1.5GiB"};
    if (k.kind == KnobKind::kEnum) bad.push_back(std::string(k.values.front()) + "x");
    for (const auto& v : bad) {
      SCOPED_TRACE(key + "=" + v);
      EngineConfig c;
      EXPECT_EQ(error_of(c, key, v), "config key '" + key + "': bad value '" + v +
                                         "' (accepted: " + accepted_of(k) + ")");
      EXPECT_EQ(c.to_json(), EngineConfig{}.to_json());  // a rejected value changes nothing
    }
  }
  // Spot checks against the messages the if-chain gave.
  EngineConfig c;
  EXPECT_EQ(error_of(c, "lock_policy", "three"),
            "config key 'lock_policy': bad value 'three' (accepted: single | two_lock | none)");
  EXPECT_EQ(error_of(c, "circuit", "x"),
            "config key 'circuit': bad value 'x' (accepted: porep-like | tiny | sha256 | "
            "poseidon-merkle)");
  EXPECT_EQ(error_of(c, "b_g2_msm", "fpga"),
            "config key 'b_g2_msm': bad value 'fpga' (accepted: cpu | gpu)");
  EXPECT_EQ(error_of(c, "count", "0"),
            "config key 'count': bad value '0' (accepted: an integer from 1 to 1000000)");
  EXPECT_EQ(error_of(c, "vram_limit", "99999999999TiB"),
            "config key 'vram_limit': '99999999999TiB' is out of range (at most 16777215TiB, 2^64 "
            "- 1 bytes)");
}

TEST(EngineKnobs, UnknownKeyListsEveryKnownKey) {
  EngineConfig c;
  EXPECT_EQ(error_of(c, "colour", "red"),
            "unknown config key 'colour' (known keys: " + join(EngineConfig::keys(), ", ") + ")");
  EXPECT_EQ(
      error_of(c, "colour", "red")
          .rfind(
              "unknown config key 'colour' (known keys: circuit, constraints, partitions, count, "
              "concurrency, seed, verify, backend, lock_policy, dealloc_policy, gpu_threads, ",
              0),
      0u);
  EXPECT_EQ(engine::find_knob("colour"), nullptr);
  EXPECT_THROW(engine::knob("colour"), ConfigError);
}

TEST(EngineKnobs, GpuG2MsmNeedsTheCudaBackend) {
  EngineConfig c;
  c.set("b_g2_msm", "gpu");
  try {
    c.validate();
    FAIL() << "b_g2_msm = gpu on the CPU backend validated";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "config: b_g2_msm = gpu needs backend = cuda (got backend = cpu)");
  }
  c.set("backend", "cuda");
  EXPECT_NO_THROW(c.validate());
  c.set("b_g2_msm", "cpu");
  c.set("backend", "cpu");
  EXPECT_NO_THROW(c.validate());
}

TEST(EngineKnobs, TableJsonHasEveryColumn) {
  const auto table = engine::knob_table_json();
  ASSERT_EQ(table.size(), engine::knobs().size());
  for (const auto& row : table) {
    SCOPED_TRACE(row.dump());
    for (const char* column : {"name", "kind", "accepted", "default", "doc", "cuzk", "cell_prefix"})
      EXPECT_TRUE(row.contains(column)) << column;
    EXPECT_EQ(row.contains("lo") && row.contains("hi"), row["kind"] == "uint");
    EXPECT_EQ(row.contains("values"), row["kind"] == "enum");
  }
  EXPECT_EQ(table[3]["name"], "count");
  EXPECT_EQ(table[3]["default"], "1");
  EXPECT_EQ(table[3]["lo"], 1);
  EXPECT_EQ(table[3]["hi"], 1000000);
  EXPECT_EQ(table[3]["cuzk"], "cuzk-bench batch -c / --count");
  EXPECT_EQ(table[3]["cell_prefix"], "c");
  EXPECT_EQ(table.back()["name"], "cupti");
  EXPECT_EQ(table.back()["cell_prefix"], "cupti-");
}

}  // namespace
