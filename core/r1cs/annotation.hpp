// Names of constraints, for error messages ("constraint 1234 (sha256/round 12/maj) is not
// satisfied") and for reading a circuit's structure. Naming must cost nothing on the witness
// path, so an annotation is a pointer to a static string plus an optional index, and the
// constraint system stores it only when it records the shape; the path prefix comes from the
// scopes open at the time (see Scope in constraint_system.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace prooflab::r1cs {

inline constexpr std::uint32_t kNoIndex = std::numeric_limits<std::uint32_t>::max();

// `label` must have static storage duration (a string literal). "{}" in it is replaced by
// the index when printed ("round {}/maj" with index 12 prints "round 12/maj"); without a
// placeholder the index is appended ("bit 7").
struct Annotation {
  const char* label = "";
  std::uint32_t index = kNoIndex;

  constexpr Annotation() = default;
  constexpr Annotation(const char* l) : label(l) {}  // NOLINT: implicit by design
  constexpr Annotation(const char* l, std::uint32_t i) : label(l), index(i) {}
};

// label with its index substituted, as described above.
inline std::string format_label(std::string_view label, std::uint32_t index) {
  std::string out;
  const std::size_t at = label.find("{}");
  if (index == kNoIndex) {
    out = label;
    if (at != std::string_view::npos) out.erase(at, 2);
    return out;
  }
  if (at == std::string_view::npos) {
    out.reserve(label.size() + 11);
    out.append(label);
    if (!out.empty()) out.push_back(' ');
    out.append(std::to_string(index));
    return out;
  }
  out.append(label.substr(0, at));
  out.append(std::to_string(index));
  out.append(label.substr(at + 2));
  return out;
}

// What is stored per constraint: which (scope, label) "site" wrote it, and its index.
struct ConstraintTag {
  std::uint32_t site = 0;
  std::uint32_t index = kNoIndex;
  friend bool operator==(const ConstraintTag&, const ConstraintTag&) = default;
};

// The annotations of a compiled system: 8 bytes per constraint plus the distinct sites.
struct AnnotationTable {
  struct Site {
    std::uint32_t scope = 0;  // index into scopes ("" for the root)
    std::string label;
    friend bool operator==(const Site&, const Site&) = default;
  };
  std::vector<std::string> scopes;  // full paths, e.g. "porep/challenge 3/labelling"
  std::vector<Site> sites;
  std::vector<ConstraintTag> tags;  // one per constraint; empty when not recorded

  bool empty() const { return tags.empty(); }

  // "scope/label with index" of constraint i; "" when annotations were not kept.
  std::string describe(std::size_t constraint) const {
    if (constraint >= tags.size()) return "";
    const ConstraintTag& t = tags[constraint];
    const Site& s = sites[t.site];
    const std::string& scope = scopes[s.scope];
    std::string label = format_label(s.label, t.index);
    if (scope.empty()) return label;
    if (label.empty()) return scope;
    return scope + "/" + label;
  }

  friend bool operator==(const AnnotationTable&, const AnnotationTable&) = default;
};

}  // namespace prooflab::r1cs
