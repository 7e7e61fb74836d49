// Summary statistics of timing samples and the throughput units the lab reports.
#pragma once

#include <cstddef>
#include <vector>

namespace vlak::lab {

// Quantiles by linear interpolation between order statistics (the "type 7" rule of R and
// NumPy's default), so the median of an even count is the mean of the middle two.
double Quantile(std::vector<double> v, double q);

struct Summary {
  size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  // Half the inter-quartile range relative to the median: the "±" the table prints.
  double RelSpread() const { return median > 0 ? (q3 - q1) / (2 * median) : 0; }
};
Summary Summarize(const std::vector<double>& samples);

// Terapines AI-Benchmark's normalised unit. Its plot script (plot_benchmark.py) divides
// the shape product times RUN_COUNT by the total time and by `10e9`, which is 1e10, and labels the
// axis "GB/s": so the unit is elements * runs / seconds / 1e10 = elements / seconds-per-run / 1e10.
double NormalisedUnit(double elements, double seconds_per_run);

// Bytes really moved per second, in GB/s (1e9).
double GigabytesPerSecond(double bytes_per_run, double seconds_per_run);

}  // namespace vlak::lab
