#include "core/stats/sample.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace prooflab::stats {
namespace {

// The linear rule on values already sorted and checked.
double sorted_quantile(const std::vector<double>& x, double q) {
  const double h = static_cast<double>(x.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();
  // numpy's form of the interpolation, so results agree to the last bit.
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

}  // namespace

void require_no_nan(const std::vector<double>& values, const std::string& what) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::isnan(values[i]))
      throw std::invalid_argument(what + ": value #" + std::to_string(i) + " of " +
                                  std::to_string(values.size()) + " is NaN");
}

std::optional<double> quantile(std::vector<double> values, double q, const std::string& what) {
  if (!(q >= 0.0 && q <= 1.0))
    throw std::invalid_argument(what + ": quantile q " + std::to_string(q) + " not in [0, 1]");
  require_no_nan(values, what);
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

std::optional<double> median(std::vector<double> values, const std::string& what) {
  return quantile(std::move(values), 0.5, what);
}

std::optional<double> mean(const std::vector<double>& values, const std::string& what) {
  require_no_nan(values, what);
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (const double x : values) sum += x;
  return sum / static_cast<double>(values.size());
}

std::optional<double> sample_sd(const std::vector<double>& values, const std::string& what) {
  const auto m = mean(values, what);
  if (!m || values.size() < 2) return std::nullopt;
  double squares = 0;
  for (const double x : values) squares += (x - *m) * (x - *m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::optional<Summary> summarize(std::vector<double> values, const std::string& what) {
  const auto m = mean(values, what);
  if (!m) return std::nullopt;
  std::sort(values.begin(), values.end());
  return Summary{values.size(), *m, sorted_quantile(values, 0.5), values.front(), values.back()};
}

}  // namespace prooflab::stats
