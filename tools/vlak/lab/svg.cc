#include "lab/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace vlak::lab::svg {
namespace {

// Tableau-10-like palette: distinguishable, and readable in grey.
const char* const kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                               "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#606060"};
constexpr int kNumColors = 10;
const char* const kDashes[] = {"", "6,3", "2,3"};

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

struct Rect {
  double x, y, w, h;
};

struct Scale {
  Axis axis;
  double lo, hi;
  double a0, a1;  // screen coordinates of lo and hi
  double operator()(double v) const {
    double t;
    if (axis.log) t = (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
    else t = (v - lo) / (hi - lo);
    return a0 + t * (a1 - a0);
  }
};

// Data range of an axis, widened to tidy bounds.
void Range(const Axis& a, std::vector<double> vals, bool from_zero, double* lo, double* hi) {
  vals.erase(std::remove_if(vals.begin(), vals.end(), [&](double v) { return !std::isfinite(v) || (a.log && v <= 0); }),
             vals.end());
  double l = vals.empty() ? (a.log ? 1 : 0) : *std::min_element(vals.begin(), vals.end());
  double h = vals.empty() ? (a.log ? 10 : 1) : *std::max_element(vals.begin(), vals.end());
  if (!std::isnan(a.min)) l = a.min;
  if (!std::isnan(a.max)) h = a.max;
  if (a.log) {
    if (a.log_base == 2) {
      l /= 1.3, h *= 1.3;
    } else {
      // A decade of room only when the data come close to its edge (points on the frame hide).
      l = std::pow(10.0, std::floor(std::log10(l / 1.2)));
      h = std::pow(10.0, std::ceil(std::log10(h * 1.2)));
      if (h <= l) h = l * 10;
    }
  } else {
    if (from_zero && l > 0) l = 0;
    if (h <= l) h = l + 1;
    const double pad = (h - l) * 0.05;
    if (!(from_zero && l == 0)) l -= pad;
    h += pad;
  }
  if (!std::isnan(a.min)) l = a.min;
  if (!std::isnan(a.max)) h = a.max;
  *lo = l;
  *hi = h;
}

std::string Trimmed(double v, int prec) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// Style of a series: colour, dash, marker shape.
struct Style {
  std::string color, dash;
  int marker;
  bool emphasis;
};

Style StyleOf(const Series& s, int position) {
  const int i = s.style >= 0 ? s.style : position;
  return {kColors[i % kNumColors], kDashes[(i / kNumColors) % 3], i % 5, s.emphasis};
}

void Marker(std::string& out, double x, double y, const Style& st) {
  const std::string c = st.color;
  const double r = st.emphasis ? 4.0 : 3.5;
  switch (st.marker) {
    case 0: out += "<circle cx=\"" + Fmt(x) + "\" cy=\"" + Fmt(y) + "\" r=\"" + Fmt(r) + "\" fill=\"" + c + "\"/>\n"; break;
    case 1:
      out += "<rect x=\"" + Fmt(x - r) + "\" y=\"" + Fmt(y - r) + "\" width=\"" + Fmt(2 * r) + "\" height=\"" + Fmt(2 * r) +
             "\" fill=\"" + c + "\"/>\n";
      break;
    case 2:
      out += "<polygon points=\"" + Fmt(x) + "," + Fmt(y - r - 1) + " " + Fmt(x - r - 1) + "," + Fmt(y + r) + " " +
             Fmt(x + r + 1) + "," + Fmt(y + r) + "\" fill=\"" + c + "\"/>\n";
      break;
    case 3:
      out += "<polygon points=\"" + Fmt(x) + "," + Fmt(y - r - 1) + " " + Fmt(x + r + 1) + "," + Fmt(y) + " " + Fmt(x) +
             "," + Fmt(y + r + 1) + " " + Fmt(x - r - 1) + "," + Fmt(y) + "\" fill=\"" + c + "\"/>\n";
      break;
    default:
      out += "<circle cx=\"" + Fmt(x) + "\" cy=\"" + Fmt(y) + "\" r=\"" + Fmt(r) + "\" fill=\"white\" stroke=\"" + c +
             "\" stroke-width=\"2\"/>\n";
  }
}

std::string Header(int w, int h) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(w) + "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " +
         std::to_string(h) + "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" "
         "height=\"100%\" fill=\"white\"/>\n";
}

std::string Text(double x, double y, const std::string& s, int size, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + Fmt(x) + "\" y=\"" + Fmt(y) + "\" font-size=\"" + std::to_string(size) + "\" text-anchor=\"" +
         anchor + "\"" + extra + ">" + Escape(s) + "</text>\n";
}

void Titles(std::string& out, const std::string& title, const std::string& subtitle, int width) {
  out += Text(width / 2.0, 24, title, 16, "middle", " font-weight=\"bold\"");
  if (!subtitle.empty()) out += Text(width / 2.0, 42, subtitle, 11, "middle", " fill=\"#555\"");
}

// Axes, grid, ticks and titles of a plot rectangle.
void Frame(std::string& out, const Rect& r, const Scale& sx, const Scale& sy, bool x_ticks = true) {
  out += "<rect x=\"" + Fmt(r.x) + "\" y=\"" + Fmt(r.y) + "\" width=\"" + Fmt(r.w) + "\" height=\"" + Fmt(r.h) +
         "\" fill=\"none\" stroke=\"#333\"/>\n";
  for (double t : Ticks(sy.axis, sy.lo, sy.hi)) {
    const double y = sy(t);
    out += "<line x1=\"" + Fmt(r.x) + "\" y1=\"" + Fmt(y) + "\" x2=\"" + Fmt(r.x + r.w) + "\" y2=\"" + Fmt(y) +
           "\" stroke=\"#e3e3e3\"/>\n";
    out += "<line x1=\"" + Fmt(r.x - 5) + "\" y1=\"" + Fmt(y) + "\" x2=\"" + Fmt(r.x) + "\" y2=\"" + Fmt(y) +
           "\" stroke=\"#333\"/>\n";
    out += Text(r.x - 8, y + 4, TickLabel(sy.axis, t), 11, "end");
  }
  if (x_ticks) {
    for (double t : Ticks(sx.axis, sx.lo, sx.hi)) {
      const double x = sx(t);
      out += "<line x1=\"" + Fmt(x) + "\" y1=\"" + Fmt(r.y) + "\" x2=\"" + Fmt(x) + "\" y2=\"" + Fmt(r.y + r.h) +
             "\" stroke=\"#e3e3e3\"/>\n";
      out += "<line x1=\"" + Fmt(x) + "\" y1=\"" + Fmt(r.y + r.h) + "\" x2=\"" + Fmt(x) + "\" y2=\"" + Fmt(r.y + r.h + 5) +
             "\" stroke=\"#333\"/>\n";
      out += Text(x, r.y + r.h + 18, TickLabel(sx.axis, t), 11, "middle");
    }
    out += Text(r.x + r.w / 2, r.y + r.h + 38, sx.axis.title, 12, "middle");
  }
  const double ty = r.y + r.h / 2, tx = r.x - 52;
  out += "<text x=\"" + Fmt(tx) + "\" y=\"" + Fmt(ty) + "\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 " +
         Fmt(tx) + " " + Fmt(ty) + ")\">" + Escape(sy.axis.title) + "</text>\n";
}

void RefLines(std::string& out, const Rect& r, const Scale& sy, const std::vector<double>& ys, const std::string& label) {
  for (double v : ys) {
    if (v < sy.lo || v > sy.hi) continue;
    const double y = sy(v);
    out += "<line x1=\"" + Fmt(r.x) + "\" y1=\"" + Fmt(y) + "\" x2=\"" + Fmt(r.x + r.w) + "\" y2=\"" + Fmt(y) +
           "\" stroke=\"#222\" stroke-dasharray=\"4,4\"/>\n";
    if (!label.empty()) out += Text(r.x + r.w - 4, y - 4, label, 10, "end", " fill=\"#222\"");
  }
}

struct LegendEntry {
  std::string name;
  Style style;
  bool lines;
  bool bar = false;  // a filled square swatch instead of a marker
};

void Legend(std::string& out, double x, double y, const std::vector<LegendEntry>& entries, double max_h) {
  double yy = y;
  for (const auto& e : entries) {
    if (yy > y + max_h - 10) {
      out += Text(x, yy + 4, "...", 11);
      break;
    }
    if (e.lines) {
      out += "<line x1=\"" + Fmt(x) + "\" y1=\"" + Fmt(yy) + "\" x2=\"" + Fmt(x + 26) + "\" y2=\"" + Fmt(yy) +
             "\" stroke=\"" + e.style.color + "\" stroke-width=\"" + (e.style.emphasis ? "3" : "1.6") + "\"" +
             (e.style.dash.empty() ? "" : " stroke-dasharray=\"" + e.style.dash + "\"") + "/>\n";
    }
    if (e.bar) {
      out += "<rect x=\"" + Fmt(x + 6) + "\" y=\"" + Fmt(yy - 6) + "\" width=\"14\" height=\"12\" fill=\"" + e.style.color + "\"/>\n";
    } else {
      Marker(out, x + 13, yy, e.style);
    }
    out += Text(x + 34, yy + 4, e.name, 11, "start", e.style.emphasis ? " font-weight=\"bold\"" : "");
    yy += 18;
  }
}

struct PendingLabel {
  double x, y;
  std::string text;
};

// Point labels beside their markers, inside the plot, not on top of each other: each tries
// offsets above/below its point (and goes left of points near the right edge) until its box is
// free. Width is estimated at 6 px per character of the 10 px font.
void PlaceLabels(std::string& out, const Rect& r, std::vector<PendingLabel> labels) {
  struct Box {
    double x0, y0, x1, y1;
  };
  std::vector<Box> placed;
  std::sort(labels.begin(), labels.end(), [](const PendingLabel& a, const PendingLabel& b) { return a.y < b.y; });
  for (const auto& l : labels) {
    const double w = 6.0 * static_cast<double>(l.text.size()), h = 11;
    const bool prefer_left = l.x + 7 + w > r.x + r.w;
    bool left = prefer_left;
    double best_y = std::clamp(l.y - 6, r.y + h, r.y + r.h - 2);
    bool found = false;
    for (int side = 0; side < 2 && !found; ++side) {
      const bool try_left = side == 0 ? prefer_left : !prefer_left;
      const double x0 = try_left ? l.x - 7 - w : l.x + 7;
      if (x0 < r.x || x0 + w > r.x + r.w) continue;
      for (double dy : {-6.0, 14.0, -18.0, 26.0, -30.0, 38.0, -42.0, 50.0}) {
        const double y = l.y + dy;
        if (y - h < r.y || y > r.y + r.h - 2) continue;
        bool free = true;
        for (const Box& b : placed) {
          if (x0 < b.x1 && x0 + w > b.x0 && y - h < b.y1 && y > b.y0) free = false;
        }
        if (free) {
          best_y = y;
          left = try_left;
          found = true;
          break;
        }
      }
    }
    const double x0 = left ? l.x - 7 - w : l.x + 7;
    placed.push_back({x0, best_y - h, x0 + w, best_y});
    if (std::fabs(best_y - (l.y - 6)) > 1) {  // moved away from its point: a leader line shows whose it is
      const double lx = left ? l.x - 6 : l.x + 6, ly = best_y - 4;
      out += "<line x1=\"" + Fmt(l.x) + "\" y1=\"" + Fmt(l.y) + "\" x2=\"" + Fmt(lx) + "\" y2=\"" + Fmt(ly) +
             "\" stroke=\"#999\" stroke-width=\"0.8\"/>\n";
    }
    out += Text(left ? l.x - 7 : l.x + 7, best_y, l.text, 10, left ? "end" : "start", " fill=\"#333\"");
  }
}

// Draws a chart's series inside r. styles: series name -> style (shared legend in panels).
void Body(std::string& out, const Chart& c, const Rect& r, const std::map<std::string, Style>& styles, bool x_ticks) {
  std::vector<double> xs, ys;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) xs.push_back(p.x), ys.push_back(p.y);
  }
  for (double v : c.ref_lines_y) ys.push_back(v);
  Scale sx{c.x, 0, 0, r.x, r.x + r.w}, sy{c.y, 0, 0, r.y + r.h, r.y};
  Range(c.x, xs, false, &sx.lo, &sx.hi);
  Range(c.y, ys, true, &sy.lo, &sy.hi);
  Frame(out, r, sx, sy, x_ticks);
  RefLines(out, r, sy, c.ref_lines_y, c.ref_label);
  out += "<g>\n";
  std::vector<PendingLabel> labels;
  for (const auto& s : c.series) {
    const Style st = styles.at(s.name);
    std::vector<Point> pts;
    for (const auto& p : s.points) {
      if (std::isfinite(p.x) && std::isfinite(p.y) && (!c.x.log || p.x > 0) && (!c.y.log || p.y > 0)) pts.push_back(p);
    }
    if (s.lines) std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    if (s.lines && pts.size() > 1) {
      std::string d;
      for (const auto& p : pts) d += (d.empty() ? "" : " ") + Fmt(sx(p.x)) + "," + Fmt(sy(p.y));
      out += "<polyline points=\"" + d + "\" fill=\"none\" stroke=\"" + st.color + "\" stroke-width=\"" +
             (st.emphasis ? "3" : "1.6") + "\"" + (st.dash.empty() ? "" : " stroke-dasharray=\"" + st.dash + "\"") + "/>\n";
    }
    for (const auto& p : pts) {
      Marker(out, sx(p.x), sy(p.y), st);
      if (c.point_labels && !p.label.empty()) labels.push_back({sx(p.x), sy(p.y), p.label});
    }
  }
  PlaceLabels(out, r, labels);
  out += "</g>\n";
}

std::map<std::string, Style> AssignStyles(const std::vector<const Series*>& series, std::vector<LegendEntry>* legend) {
  std::map<std::string, Style> styles;
  int pos = 0;
  for (const Series* s : series) {
    if (styles.count(s->name)) continue;
    styles[s->name] = StyleOf(*s, pos++);
    legend->push_back({s->name, styles[s->name], s->lines});
  }
  return styles;
}

}  // namespace

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::vector<double> Ticks(const Axis& a, double lo, double hi) {
  std::vector<double> t;
  if (!(hi > lo)) return t;
  if (a.log && a.log_base == 2) {
    const int k0 = static_cast<int>(std::ceil(std::log2(lo) - 1e-9)), k1 = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
    int step = 1;
    while ((k1 - k0) / step > 9) step *= 2;
    int start = k0;
    while (start % step != 0) ++start;
    for (int k = start; k <= k1; k += step) t.push_back(std::ldexp(1.0, k));
    return t;
  }
  if (a.log) {
    const int k0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9)), k1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    int step = 1;
    while ((k1 - k0) / step > 8) ++step;
    const bool minor = k1 - k0 <= 2;
    for (int k = k0; k <= k1; k += step) {
      for (double m : minor ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10.0, k);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
      }
    }
    return t;
  }
  const double raw = (hi - lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string TickLabel(const Axis& a, double v) {
  if (a.log && a.log_base == 2) {
    const double k = std::round(std::log2(v));
    if (k >= 30) return Trimmed(std::ldexp(1.0, static_cast<int>(k) - 30), 0) + "G";
    if (k >= 20) return Trimmed(std::ldexp(1.0, static_cast<int>(k) - 20), 0) + "M";
    if (k >= 10) return Trimmed(std::ldexp(1.0, static_cast<int>(k) - 10), 0) + "K";
    return Trimmed(v, 0);
  }
  const double av = std::fabs(v);
  if (av != 0 && (av >= 1e5 || av < 1e-3)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0e", v);
    std::string s = buf;  // 1e-07 -> 1e-7
    const size_t e = s.find('e');
    if (e != std::string::npos) {
      std::string mant = s.substr(0, e), exp = s.substr(e + 1);
      const bool neg = exp[0] == '-';
      exp = exp.substr(exp[0] == '-' || exp[0] == '+' ? 1 : 0);
      while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
      s = mant + "e" + (neg ? "-" : "") + exp;
    }
    return s;
  }
  return Trimmed(v, av < 0.01 ? 4 : av < 1 ? 3 : av < 10 ? 2 : 1);
}

std::string Render(const Chart& c) {
  std::string out = Header(c.width, c.height);
  Titles(out, c.title, c.subtitle, c.width);
  std::vector<const Series*> all;
  for (const auto& s : c.series) all.push_back(&s);
  std::vector<LegendEntry> legend;
  const auto styles = AssignStyles(all, &legend);
  const double legend_w = 210;
  const Rect r{78, 58, c.width - 78 - legend_w - 20.0, c.height - 58 - 62.0};
  Body(out, c, r, styles, true);
  Legend(out, r.x + r.w + 24, r.y + 8, legend, r.h);
  if (c.series.empty()) out += Text(r.x + r.w / 2, r.y + r.h / 2, "no data", 14, "middle", " fill=\"#999\"");
  return out + "</svg>\n";
}

std::string RenderPanels(const std::string& title, const std::string& subtitle, const std::vector<Chart>& panels,
                         int columns) {
  const int cols = std::max(1, std::min<int>(columns, static_cast<int>(panels.size())));
  const int rows = (static_cast<int>(panels.size()) + cols - 1) / cols;
  const double pw = 330, ph = 250, legend_w = 200;
  const int width = static_cast<int>(cols * pw + legend_w + 20), height = static_cast<int>(rows * ph + 60);
  std::string out = Header(width, height);
  Titles(out, title, subtitle, width);
  std::vector<const Series*> all;
  for (const auto& p : panels) for (const auto& s : p.series) all.push_back(&s);
  std::vector<LegendEntry> legend;
  const auto styles = AssignStyles(all, &legend);
  for (size_t i = 0; i < panels.size(); ++i) {
    const double x0 = (i % cols) * pw, y0 = 56 + (i / cols) * ph;
    const Rect r{x0 + 72, y0 + 22, pw - 72 - 14, ph - 22 - 52};
    out += Text(r.x + r.w / 2, y0 + 14, panels[i].title, 12, "middle", " font-weight=\"bold\"");
    Body(out, panels[i], r, styles, true);
  }
  Legend(out, cols * pw + 16, 72, legend, height - 80.0);
  return out + "</svg>\n";
}

std::string Render(const BarChart& c) {
  std::string out = Header(c.width, c.height);
  Titles(out, c.title, c.subtitle, c.width);
  const double legend_w = 190;
  // Long group labels are drawn slanted under the axis: leave room for them.
  size_t longest = 0;
  for (const auto& g : c.groups) longest = std::max(longest, g.size());
  const double label_h = std::min(130.0, 16 + 5.5 * static_cast<double>(longest));
  const Rect r{78, 58, c.width - 78 - legend_w - 20.0, c.height - 58 - label_h - 24};
  std::vector<double> vals(c.ref_lines_y);
  for (const auto& s : c.values) for (double v : s) vals.push_back(v);
  Scale sy{c.y, 0, 0, r.y + r.h, r.y};
  Range(c.y, vals, !c.y.log, &sy.lo, &sy.hi);
  Axis xa;
  Scale sx{xa, 0, 1, r.x, r.x + r.w};
  Frame(out, r, sx, sy, false);
  const double gw = r.w / std::max<size_t>(1, c.groups.size());
  const double bw = std::min(28.0, gw * 0.8 / std::max<size_t>(1, c.series.size()));
  const double base_v = !std::isnan(c.bar_base) ? c.bar_base : c.y.log ? sy.lo : 0.0;
  const double base_y = sy(std::max(sy.lo, std::min(sy.hi, base_v)));
  std::vector<LegendEntry> legend;
  for (size_t s = 0; s < c.series.size(); ++s) {
    Series tmp;
    tmp.name = c.series[s];
    const Style st = StyleOf(tmp, static_cast<int>(s));
    legend.push_back({c.series[s], st, false, true});
    for (size_t g = 0; g < c.groups.size() && g < c.values[s].size(); ++g) {
      const double v = c.values[s][g];
      if (!std::isfinite(v) || (c.y.log && v <= 0)) continue;
      const double x = r.x + g * gw + (gw - bw * c.series.size()) / 2 + s * bw;
      const double y = sy(std::max(sy.lo, std::min(sy.hi, v)));
      const double top = std::min(y, base_y), h = std::fabs(base_y - y);
      out += "<rect x=\"" + Fmt(x) + "\" y=\"" + Fmt(top) + "\" width=\"" + Fmt(bw - 1) + "\" height=\"" + Fmt(std::max(h, 0.5)) +
             "\" fill=\"" + st.color + "\"><title>" + Escape(c.series[s] + " " + c.groups[g] + ": " + TickLabel(Axis{}, v)) +
             "</title></rect>\n";
    }
  }
  for (size_t g = 0; g < c.groups.size(); ++g) {
    const double x = r.x + g * gw + gw / 2, y = r.y + r.h + 14;
    out += "<text x=\"" + Fmt(x) + "\" y=\"" + Fmt(y) + "\" font-size=\"11\" text-anchor=\"end\" transform=\"rotate(-30 " +
           Fmt(x) + " " + Fmt(y) + ")\">" + Escape(c.groups[g]) + "</text>\n";
    if (g) {
      const double gx = r.x + g * gw;
      out += "<line x1=\"" + Fmt(gx) + "\" y1=\"" + Fmt(r.y) + "\" x2=\"" + Fmt(gx) + "\" y2=\"" + Fmt(r.y + r.h) +
             "\" stroke=\"#f0f0f0\"/>\n";
    }
  }
  RefLines(out, r, sy, c.ref_lines_y, c.ref_label);
  Legend(out, r.x + r.w + 24, r.y + 8, legend, r.h);
  return out + "</svg>\n";
}

}  // namespace vlak::lab::svg
