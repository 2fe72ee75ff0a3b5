// The conditions a wall-clock figure of `prooflab regress` was measured under, and when two
// such figures may be compared. A stored timing is only evidence against a timing measured
// now if both come from the same CPU model and core count and from a quiet host: a loaded
// 2-core VM produced a "confirmed" +147 % false alarm on thread CPU time against figures
// stored at a quieter moment. Interleaved A/B against a build of the baseline commit needs
// none of this (drift hits both arms alike), which is why CI gates timings only that way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace prooflab::harness {

// Load average over the last minute per core above which a host is not quiet.
inline constexpr double kQuietLoadPerCore = 0.5;

// The 1-minute load average now (/proc/loadavg); negative when unreadable.
double load_average_1m();

// {cpu_model, cores, load_1m_before, load_1m_after}: the host and its load around one
// measurement (`before` read when it started).
nlohmann::json measuring_conditions(double load_1m_before);

// Why a stored figure measured under `stored` cannot be compared with one measured under
// `now`; empty when it can. Figures stored without conditions are incomparable.
std::string why_incomparable(const nlohmann::json& stored, const nlohmann::json& now);

// Whether this process runs under a CI system: the variable CI that GitHub Actions, GitLab
// CI, Buildkite, CircleCI and Travis set, unless it is empty, "0" or "false". Under CI a
// stored timing is never gated on, whatever the host: CI machines are shared and their
// neighbours change between the moment a figure was stored and now, so CI gates wall-clock
// only interleaved against a build of the baseline commit (`--against-build`).
bool running_under_ci();

}  // namespace prooflab::harness
