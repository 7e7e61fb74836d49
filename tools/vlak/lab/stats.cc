#include "lab/stats.h"

#include <algorithm>
#include <cmath>

namespace vlak::lab {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

Summary Summarize(const std::vector<double>& samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) {
    s.median = s.q1 = s.q3 = s.min = s.max = std::nan("");
    return s;
  }
  s.median = Quantile(samples, 0.5);
  s.q1 = Quantile(samples, 0.25);
  s.q3 = Quantile(samples, 0.75);
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  return s;
}

double NormalisedUnit(double elements, double seconds_per_run) {
  return seconds_per_run > 0 ? elements / seconds_per_run / 1e10 : std::nan("");
}

double GigabytesPerSecond(double bytes_per_run, double seconds_per_run) {
  return seconds_per_run > 0 ? bytes_per_run / seconds_per_run / 1e9 : std::nan("");
}

}  // namespace vlak::lab
