// Hand-written SVG charts for `vlak report`: line/scatter charts with linear or log axes, grouped
// bar charts, and small multiples. Real axes: ticks, tick labels, axis titles, a legend.
#pragma once

#include <string>
#include <vector>

namespace vlak::lab::svg {

struct Axis {
  std::string title;
  bool log = false;
  int log_base = 10;        // 2: ticks at powers of two labelled 1K, 1M (sizes); 10: decades
  double min = __builtin_nan(""), max = __builtin_nan("");  // NaN: from the data
};

struct Point {
  double x, y;
  std::string label;  // drawn beside the marker when the chart asks for it
};

struct Series {
  std::string name;
  std::vector<Point> points;
  int style = -1;          // palette index; -1: the series' position
  bool emphasis = false;   // drawn thicker (vlak's own kernels)
  bool lines = true;       // false: markers only
};

struct Chart {
  std::string title, subtitle;
  Axis x, y;
  std::vector<Series> series;
  std::vector<double> ref_lines_y;  // horizontal reference lines (e.g. 1x)
  std::string ref_label;
  bool point_labels = false;
  int width = 900, height = 520;
};

struct BarChart {
  std::string title, subtitle;
  std::vector<std::string> groups;  // categories along x
  std::vector<std::string> series;  // bars within a group
  std::vector<std::vector<double>> values;  // [series][group], NaN = no bar
  Axis y;
  std::vector<double> ref_lines_y;
  std::string ref_label;
  double bar_base = __builtin_nan("");  // bars grow from this value (a ratio's 1); NaN: the axis floor
  int width = 900, height = 520;
};

std::string Render(const Chart& c);
std::string Render(const BarChart& c);
// Small multiples: panels in a grid sharing one legend (series matched by name), one SVG.
std::string RenderPanels(const std::string& title, const std::string& subtitle, const std::vector<Chart>& panels,
                         int columns);

// Tick positions for an axis over [lo, hi] (exposed for tests).
std::vector<double> Ticks(const Axis& a, double lo, double hi);
std::string TickLabel(const Axis& a, double v);
std::string Escape(const std::string& s);

}  // namespace vlak::lab::svg
