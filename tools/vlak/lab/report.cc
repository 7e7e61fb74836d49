#include "lab/report.h"
#include "lab/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "lab/k1_published.h"
#include "lab/svg.h"

namespace vlak::lab {
namespace {

std::string Sanitize(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
  }
  return s;
}

std::string Pipe(std::string s) {  // a Markdown table cell
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// Records of one mode, the later file winning for a (case, impl) seen twice.
std::vector<Record> Merge(const std::vector<ReportInput>& in, const std::string& mode) {
  std::vector<Record> out;
  std::map<std::string, size_t> index;
  for (const auto& f : in) {
    for (const auto& r : f.results.records) {
      if (r.mode != mode) continue;
      const std::string key = r.CaseKey() + "|" + r.impl;
      if (auto it = index.find(key); it != index.end()) {
        out[it->second] = r;
      } else {
        index[key] = out.size();
        out.push_back(r);
      }
    }
  }
  return out;
}

std::vector<std::string> Ops(const std::vector<Record>& recs) {
  std::vector<std::string> ops;
  for (const auto& r : recs) if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  return ops;
}

const Record* FindRec(const std::vector<Record>& recs, const std::string& case_key, const std::string& impl) {
  for (const auto& r : recs) if (r.CaseKey() == case_key && r.impl == impl) return &r;
  return nullptr;
}

std::string CaseLabel(const Record& r) { return r.shape + (r.threads > 1 ? " t" + std::to_string(r.threads) : " t1"); }

// Cases of an op in a stable order: shape dims, then threads.
std::vector<const Record*> CaseHeads(const std::vector<Record>& recs, const std::string& op) {
  std::vector<const Record*> heads;
  std::set<std::string> seen;
  for (const auto& r : recs) {
    if (r.op == op && seen.insert(r.CaseKey()).second) heads.push_back(&r);
  }
  // Rows before cols (families of one row count stay together, sizes ascending), then threads;
  // ties keep the input order (a plain sort on the index, not stable_sort: libstdc++'s
  // temporary buffer is deprecated under clang 19).
  std::vector<size_t> order(heads.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    const Record* a = heads[i];
    const Record* b = heads[j];
    if (a->vlen != b->vlen) return a->vlen < b->vlen;
    if (a->dims.size() != b->dims.size()) return a->dims.size() < b->dims.size();
    if (a->dims != b->dims) return a->dims < b->dims;
    if (a->threads != b->threads) return a->threads < b->threads;
    return i < j;
  });
  std::vector<const Record*> sorted;
  for (size_t i : order) sorted.push_back(heads[i]);
  heads = sorted;
  return heads;
}

std::string Speed(double v) { return std::isnan(v) ? "-" : FormatNumber(v) + "x"; }

// ---- charts ---------------------------------------------------------------------------------

// Throughput vs size: one chart per thread count and leading-dims family with >= 2 sizes.
void ThroughputCharts(const std::vector<Record>& recs, const std::string& op, ReportOutput* out, std::string& md) {
  std::map<std::pair<int, std::vector<size_t>>, std::vector<const Record*>> fams;  // (threads, leading dims)
  for (const auto& r : recs) {
    if (r.op != op || !r.Ok() || r.dims.empty() || !std::isfinite(r.gbps)) continue;
    std::vector<size_t> lead(r.dims.begin(), r.dims.end() - 1);
    fams[{r.threads, lead}].push_back(&r);
  }
  bool any = false;
  for (const auto& [key, rs] : fams) {
    std::set<size_t> sizes;
    for (const Record* r : rs) sizes.insert(r->dims.back());
    if (sizes.size() < 2) continue;
    std::vector<std::string> impls;
    for (const Record* r : rs) if (std::find(impls.begin(), impls.end(), r->impl) == impls.end()) impls.push_back(r->impl);
    // Many series: keep the default-target ones (no '@') and drop fixed-LMUL variants.
    if (impls.size() > 12) {
      impls.erase(std::remove_if(impls.begin(), impls.end(), [](const std::string& n) {
                    return n.find('@') != std::string::npos || (n.size() > 3 && n.compare(n.size() - 3, 2, "-m") == 0);
                  }), impls.end());
    }
    svg::Chart c;
    std::string lead_text;
    for (size_t d : key.second) lead_text += std::to_string(d) + "x";
    c.title = op + ": throughput vs size, " + std::to_string(key.first) + " thread" + (key.first > 1 ? "s" : "");
    c.subtitle = (lead_text.empty() ? "" : "shape " + lead_text + "N; ") + rs.front()->bytes_formula + "; median of interleaved runs";
    c.x = {"size N (" + std::string(lead_text.empty() ? "elements" : "columns") + ", log scale)", true, 2};
    c.y = {"GB/s (log scale)", true, 10};
    for (const auto& name : impls) {
      svg::Series s;
      s.name = name;
      for (const Record* r : rs) {
        if (r->impl == name) {
          s.points.push_back({static_cast<double>(r->dims.back()), r->gbps, ""});
          s.emphasis = r->kind == "vlak" && name.find('@') == std::string::npos && name.find("-m") == std::string::npos &&
                       (name == "vlak" || name == "vlak-accurate");
        }
      }
      c.series.push_back(s);
    }
    const std::string family = lead_text.empty() ? "" : "-" + lead_text + "N";  // "-1xN"
    const std::string file = Sanitize(op + "-throughput-t" + std::to_string(key.first) + family) + ".svg";
    out->files.push_back({file, svg::Render(c)});
    md += "![" + c.title + "](" + file + ")\n\n";
    any = true;
  }
  if (!any) md += "_No size sweep in these results (a chart needs two sizes or more of one shape family)._\n\n";
}

// Speed-up of vlak's headline kernel over each baseline, per case (interleaved ratios).
void SpeedupChart(const std::vector<Record>& recs, const std::string& op, ReportOutput* out, std::string& md) {
  const std::string head = HeadlineImpl(recs, op);
  if (head.empty()) return;
  std::vector<std::string> groups, bases;
  std::vector<const Record*> hs;
  for (const Record* h : CaseHeads(recs, op)) {
    const Record* r = FindRec(recs, h->CaseKey(), head);
    if (!r || !r->Ok() || r->ratios.empty()) continue;
    hs.push_back(r);
    groups.push_back(CaseLabel(*r));
    for (const auto& [b, v] : r->ratios) if (std::find(bases.begin(), bases.end(), b) == bases.end()) bases.push_back(b);
  }
  if (hs.empty()) return;
  svg::BarChart c;
  c.title = op + ": speed-up of " + head + " over each baseline";
  c.subtitle = "baseline time / " + head + " time, median over interleaved rounds; above 1 = vlak faster";
  c.groups = groups;
  c.series = bases;
  c.y = {"speed-up (x, log scale)", true, 10};
  c.ref_lines_y = {1.0};
  c.ref_label = "1x";
  c.bar_base = 1.0;
  for (const auto& b : bases) {
    std::vector<double> v;
    for (const Record* r : hs) {
      auto it = r->ratios.find(b);
      v.push_back(it == r->ratios.end() ? std::nan("") : it->second);
    }
    c.values.push_back(v);
  }
  c.width = std::max(900, static_cast<int>(groups.size() * std::max<size_t>(bases.size(), 3) * 16 + 320));
  const std::string file = Sanitize(op + "-speedup") + ".svg";
  out->files.push_back({file, svg::Render(c)});
  md += "![" + c.title + "](" + file + ")\n\n";
}

// Accuracy (max relative error) against throughput, one point per implementation, per size
// at one thread.
void AccuracySpeedCharts(const std::vector<Record>& recs, const std::string& op, ReportOutput* out, std::string& md) {
  for (const Record* h : CaseHeads(recs, op)) {
    if (h->threads != 1) continue;
    svg::Chart c;
    c.title = op + " " + h->shape + ": accuracy vs speed, 1 thread";
    c.subtitle = "max relative error vs float64 (exact results drawn at 1e-10); further right = faster, lower = more accurate";
    c.x = {"throughput (Gelem/s, log scale)", true, 10};
    c.y = {"max relative error (log scale)", true, 10};
    c.point_labels = true;
    std::map<std::string, svg::Series> by_kind;
    std::vector<std::string> kinds;
    for (const auto& r : recs) {
      if (r.CaseKey() != h->CaseKey() || !r.Ok() || !std::isfinite(r.elements_per_s)) continue;
      if (!by_kind.count(r.kind)) {
        kinds.push_back(r.kind);
        by_kind[r.kind].name = r.kind;
        by_kind[r.kind].lines = false;
        by_kind[r.kind].emphasis = r.kind == "vlak";
      }
      const double err = std::isinf(r.acc.max_rel) ? 1.0 : std::max(r.acc.max_rel, 1e-10);
      by_kind[r.kind].points.push_back({r.elements_per_s / 1e9, err, r.impl});
    }
    size_t points = 0;
    for (const auto& k : kinds) {
      points += by_kind[k].points.size();
      c.series.push_back(by_kind[k]);
    }
    if (points < 2) continue;
    const std::string file = Sanitize(op + "-accuracy-speed-" + h->shape) + ".svg";
    out->files.push_back({file, svg::Render(c)});
    md += "![" + c.title + "](" + file + ")\n\n";
  }
}

// Each implementation's % of the case's bound (roofline.h), a group per case.
void RooflineChart(const std::vector<Record>& recs, const std::string& op, ReportOutput* out, std::string& md) {
  std::vector<std::string> groups, impls;
  std::vector<const Record*> heads;
  for (const Record* h : CaseHeads(recs, op)) {
    bool any = false;
    for (const auto& r : recs) {
      if (r.CaseKey() != h->CaseKey() || !r.Ok() || !std::isfinite(r.pct_of_bound)) continue;
      any = true;
      if (std::find(impls.begin(), impls.end(), r.impl) == impls.end()) impls.push_back(r.impl);
    }
    if (!any) continue;
    heads.push_back(h);
    groups.push_back(CaseLabel(*h));
  }
  if (heads.empty()) {
    md += "_No roofline in these results (icount runs, or files from before the roofline)._\n\n";
    return;
  }
  svg::BarChart c;
  const std::string& kind = heads.front()->bound_kind;
  c.title = op + ": % of the roofline bound";
  c.subtitle = kind == "compute"    ? "GFLOP/s / FMA peak of the row's target (widest for non-vlak code), measured in the same run"
               : kind == "int8-mac" ? "int8 MAC/s / int8 MAC peak of the row's target (widest for non-vlak code), measured in the same run"
                                    : "GB/s / copy GB/s of the same working set and threads, measured in the same run";
  c.groups = groups;
  c.series = impls;
  c.y = {"% of bound", false, 10};
  c.ref_lines_y = {100.0};
  c.ref_label = "bound";
  for (const auto& name : impls) {
    std::vector<double> v;
    for (const Record* h : heads) {
      const Record* r = FindRec(recs, h->CaseKey(), name);
      v.push_back(r && r->Ok() ? r->pct_of_bound : std::nan(""));
    }
    c.values.push_back(v);
  }
  c.width = std::max(900, static_cast<int>(groups.size() * std::max<size_t>(impls.size(), 3) * 16 + 320));
  const std::string file = Sanitize(op + "-roofline") + ".svg";
  out->files.push_back({file, svg::Render(c)});
  md += "![" + c.title + "](" + file + ")\n\n";
}

std::string ResultsTable(const std::vector<Record>& recs, const std::string& op) {
  std::string md;
  for (const Record* h : CaseHeads(recs, op)) {
    std::string bound;
    for (const auto& r : recs) {
      if (r.CaseKey() != h->CaseKey() || r.bound_kind.empty()) continue;
      bound = r.bound_kind == "memory"     ? "; bound: copy of the same bytes " + FormatNumber(r.copy_gbps) + " GB/s"
              : r.bound_kind == "int8-mac" ? "; bound: int8 MAC peak " + FormatNumber(r.peak_gflops) + " G MAC/s (" + r.peak_target + ")"
                                           : "; bound: FMA peak " + FormatNumber(r.peak_gflops) + " GFLOP/s (" + r.peak_target + ")";
      break;
    }
    const bool flops = h->flops_per_run > 0;
    md += "**" + op + " " + h->shape + ", " + std::to_string(h->threads) + " thread" + (h->threads > 1 ? "s" : "") + "**" +
          (h->baseline.empty() ? "" : " (ratio: " + h->baseline + " time / time" + bound + ")") +
          (h->baseline.empty() && !bound.empty() ? " (" + bound.substr(2) + ")" : "") + "\n\n";
    const std::string ratio = "vs " + (h->baseline.empty() ? std::string("baseline") : h->baseline);
    md += MarkdownRow({"impl", "target", "median", "+-", flops ? (h->bound_kind == "int8-mac" ? "G MAC/s" : "GFLOP/s") : "GB/s", "% of bound", "Melem/s", "norm (1e10/s)",
                       ratio, "max rel", "max abs", "SNR dB", "bound"});
    md += "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n";
    for (const auto& r : recs) {
      if (r.CaseKey() != h->CaseKey()) continue;
      if (!r.Ok()) {
        md += MarkdownRow({r.impl, r.status + (r.detail.empty() ? "" : ": " + r.detail), "", "", "", "", "", "", "", "", "", "", ""});
        continue;
      }
      char spread[16];
      std::snprintf(spread, sizeof spread, "%.1f%%", 100 * r.time.RelSpread());
      const std::string flag = r.acc.bound_ok < 0 ? "-" : r.acc.bound_ok ? "ok (" + r.bound + ")" : "**FAIL** (" + r.bound + ")";
      md += MarkdownRow({r.kind == "vlak" ? "**" + r.impl + "**" : r.impl, r.target.empty() ? "-" : r.target,
                         FormatSeconds(r.time.median), spread, FormatNumber(flops ? r.gflops : r.gbps),
                         FormatPercent(r.pct_of_bound), FormatNumber(r.elements_per_s / 1e6),
                         FormatNumber(r.norm_unit), Speed(r.speedup), FormatSci(r.acc.max_rel), FormatSci(r.acc.max_abs),
                         FormatNumber(r.acc.snr_db, 4), flag});
    }
    md += "\n";
  }
  return md;
}

// ---- RISC-V ---------------------------------------------------------------------------------

// "vlak-accurate-m4" -> ("vlak-accurate", 4); other names -> ("", 0).
std::pair<std::string, int> LmulFamily(const Record& r) {
  if (r.lmul <= 0) return {"", 0};
  const std::string suffix = "-m" + std::to_string(r.lmul);
  if (r.impl.size() > suffix.size() && r.impl.compare(r.impl.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return {r.impl.substr(0, r.impl.size() - suffix.size()), r.lmul};
  }
  return {r.impl, r.lmul};
}

// vlak's X60-model cycles per element (the records weighted on spacemit-x60) at the K1's 1.6 GHz,
// in the unit of a published K1 study, beside its single-thread GCC, ZCC and Triton figures. A
// model estimate (qemu-icount's instructions weighted by llvm-mca's reciprocal throughputs, every
// load hitting the cache) at the rvv suite's shapes, not a measurement; the study's figures are
// measured on the board over its own shapes.
void K1Section(const std::vector<Record>& recs, std::string& md, std::string& text) {
  struct Row {
    const K1Published* pub;
    std::string shape;
    double vlak = std::nan(""), c_gcc = std::nan("");
  };
  std::vector<Row> rows;
  // Cycles per element of impl for (op, shape) on the X60 model; NaN without such a record.
  auto cycles = [&](const std::string& op, const std::string& shape, const std::string& impl) {
    double c = std::nan("");
    for (const auto& r : recs) {
      if (r.op == op && r.shape == shape && r.impl == impl && r.Ok() && r.cycle_model == "spacemit-x60" &&
          r.cycles_per_element > 0) {
        c = r.cycles_per_element;
      }
    }
    return c;
  };
  for (const auto& pub : K1PublishedT1()) {
    const std::string first = pub.lab_ops.front();
    std::vector<std::string> shapes;
    for (const auto& r : recs) {
      if (r.op == first && r.cycle_model == "spacemit-x60" &&
          std::find(shapes.begin(), shapes.end(), r.shape) == shapes.end()) {
        shapes.push_back(r.shape);
      }
    }
    for (const auto& shape : shapes) {
      Row row{&pub, shape};
      double v = 0, g = 0;
      for (const char* op : pub.lab_ops) {
        v += cycles(op, shape, HeadlineImpl(recs, op));
        g += cycles(op, shape, "c-gcc");
      }
      if (v > 0) row.vlak = K1NormFromCycles(v);
      if (g > 0) row.c_gcc = K1NormFromCycles(g);
      if (!std::isnan(row.vlak)) rows.push_back(row);
    }
  }
  if (rows.empty()) return;
  md += "### SpacemiT K1: published single-thread figures and vlak's X60 model\n\n";
  md += "Published: a public Triton-on-RISC-V study measured on the SpacemiT K1 (X60 cores; AI-Benchmark's C "
        "operators built by GCC 15.0.0 and ZCC 3.2.4 at -O3, and Triton-CPU kernels), one thread, each its "
        "\"Average(GB/s)\" over its shapes. That unit is not bytes: the study normalises by the operator's time "
        "complexity, and AI-Benchmark's plot script divides the shape product by the seconds and by 1e10, so one "
        "\"GB/s\" is 1e10 elements/s (0.1 byte per element of the shape product for every operator; the lab's "
        "`norm`). vlak (model): the X60 model's cycles per element of the rvv suite's run at that shape, at "
        "1.6 GHz, in the same unit: **a model estimate (llvm-mca-22's reciprocal throughputs, every load hitting "
        "the cache), not a measurement on silicon**, at the suite's small shapes rather than the study's. "
        "c-gcc (model): the lab's plain C built by GCC (not the study's binary) on the same model.\n\n";
  md += MarkdownRow({"operator", "rvv suite shape", "GCC (K1)", "ZCC (K1)", "Triton (K1)", "vlak (X60 model)",
                     "c-gcc (X60 model)", "vlak / best published", "note"});
  md += "|---|---|--:|--:|--:|--:|--:|--:|---|\n";
  text += "\nSpacemiT K1, one thread, in the study's \"GB/s\" (1e10 elements/s): published GCC / ZCC / Triton, "
          "vlak from the X60 model at 1.6 GHz (a model, not silicon)\n";
  char line[256];
  for (const auto& row : rows) {
    const double best = std::max({row.pub->gcc, row.pub->zcc, row.pub->triton});
    md += MarkdownRow({row.pub->name, row.shape, FormatNumber(row.pub->gcc), FormatNumber(row.pub->zcc),
                       FormatNumber(row.pub->triton), FormatNumber(row.vlak),
                       std::isnan(row.c_gcc) ? "-" : FormatNumber(row.c_gcc), Speed(row.vlak / best), row.pub->note});
    std::snprintf(line, sizeof line, "  %-12s %-14s GCC %8s  ZCC %8s  Triton %8s  vlak (model) %8s  %s\n", row.pub->name,
                  row.shape.c_str(), FormatNumber(row.pub->gcc).c_str(), FormatNumber(row.pub->zcc).c_str(),
                  FormatNumber(row.pub->triton).c_str(), FormatNumber(row.vlak).c_str(), Speed(row.vlak / best).c_str());
    text += line;
  }
  md += "\n";
}

void RvvSection(const std::vector<Record>& recs, ReportOutput* out, std::string& md) {
  md += "## RISC-V: instructions and model cycles per element\n\n";
  if (recs.empty()) {
    md += "_No RISC-V results in these files: `make bench-rvv` runs the `rvv` suite under qemu-riscv64 with the "
          "qemu-icount plugin at VLEN 128, 256 and 512._\n\n";
    return;
  }
  md += "Retired instructions of one run (after a warm-up run) between the plugin's markers, divided by the elements; "
        "each vector instruction counts once whatever VL and LMUL, as Spike counts them. "
        "`vtype` is what the kernel's last `vsetvli` left (SEW and LMUL of its final loop). "
        "Cycles: the same run's instructions, each weighted by its cost (llvm-mca-22's reciprocal throughput for its "
        "mnemonic and the SEW/LMUL in force) on the LLVM scheduling model of a core with that VLEN: SpacemiT X60 "
        "(spacemit-x60, VLEN 256), SiFive X280 (512), SiFive P670 (128); a model of steady-state issue cost with "
        "every load hitting the cache, not silicon (docs/riscv.md#cycles).\n\n";
  std::set<int> vlens;
  for (const auto& r : recs) if (r.vlen) vlens.insert(r.vlen);
  // The cost model of each VLEN, from the records weighted there.
  std::map<int, std::string> models;
  for (const auto& r : recs) if (r.vlen && !r.cycle_model.empty()) models[r.vlen] = r.cycle_model;
  // Shapes per op.
  std::vector<std::pair<std::string, std::string>> shapes;
  for (const auto& r : recs) {
    const auto k = std::make_pair(r.op, r.shape);
    if (std::find(shapes.begin(), shapes.end(), k) == shapes.end()) shapes.push_back(k);
  }
  std::string text;
  for (const auto& [op, shape] : shapes) {
    md += "### " + op + " " + shape + "\n\n";
    // LMUL families: a panel each, a line per VLEN.
    std::vector<std::string> fams;
    for (const auto& r : recs) {
      if (r.op != op || r.shape != shape || !r.Ok()) continue;
      const auto f = LmulFamily(r);
      if (!f.first.empty() && std::find(fams.begin(), fams.end(), f.first) == fams.end()) fams.push_back(f.first);
    }
    if (!fams.empty()) {
      std::vector<svg::Chart> panels;
      for (const auto& fam : fams) {
        svg::Chart c;
        c.title = fam;
        c.x = {"LMUL", true, 2};
        c.y = {"instructions / element", false, 10};
        for (int v : vlens) {
          svg::Series s;
          s.name = "VLEN " + std::to_string(v);
          for (const auto& r : recs) {
            if (r.op == op && r.shape == shape && r.vlen == v && r.Ok() && LmulFamily(r).first == fam) {
              s.points.push_back({static_cast<double>(r.lmul), r.instr_per_element, ""});
            }
          }
          if (!s.points.empty()) c.series.push_back(s);
        }
        panels.push_back(c);
      }
      const std::string file = Sanitize("rvv-" + op + "-" + shape + "-lmul") + ".svg";
      out->files.push_back({file, svg::RenderPanels(op + " " + shape + ": RISC-V instructions per element vs LMUL and VLEN",
                                                    "one panel per kernel (exp variant), a line per VLEN; qemu-icount, one run",
                                                    panels, 3)});
      md += "![" + op + " " + shape + " instructions vs LMUL](" + file + ")\n\n";
    }
    // Every implementation: a bar per VLEN.
    std::vector<std::string> impls;
    for (const auto& r : recs) {
      if (r.op == op && r.shape == shape && r.Ok() && LmulFamily(r).first.empty() &&
          std::find(impls.begin(), impls.end(), r.impl) == impls.end()) {
        impls.push_back(r.impl);
      }
    }
    if (!impls.empty()) {
      svg::BarChart b;
      b.title = op + " " + shape + ": RISC-V instructions per element";
      b.subtitle = "qemu-icount, one run after a warm-up; lower is better";
      b.groups = impls;
      b.y = {"instructions / element (log scale)", true, 10};
      for (int v : vlens) {
        b.series.push_back("VLEN " + std::to_string(v));
        std::vector<double> vals;
        for (const auto& name : impls) {
          double x = std::nan("");
          for (const auto& r : recs) {
            if (r.op == op && r.shape == shape && r.vlen == v && r.impl == name && r.Ok()) x = r.instr_per_element;
          }
          vals.push_back(x);
        }
        b.values.push_back(vals);
      }
      const std::string file = Sanitize("rvv-" + op + "-" + shape + "-impls") + ".svg";
      out->files.push_back({file, svg::Render(b)});
      md += "![" + b.title + "](" + file + ")\n\n";
    }
    // Table: impl x VLEN.
    std::vector<std::string> header = {"impl", "LMUL"};
    for (int v : vlens) header.push_back("VLEN " + std::to_string(v));
    for (const auto& [v, m] : models) header.push_back(m + " cyc/el");
    header.push_back("vtype");
    header.push_back("max rel");
    header.push_back("SNR dB");
    md += MarkdownRow(header);
    std::string sep = "|---|--:|";
    for (size_t i = 0; i < vlens.size() + models.size(); ++i) sep += "--:|";
    md += sep + "---|--:|--:|\n";
    char line[256];
    std::snprintf(line, sizeof line, "\n%s %s: instructions per element\n  %-24s %5s", op.c_str(), shape.c_str(), "impl", "LMUL");
    text += line;
    for (int v : vlens) {
      std::snprintf(line, sizeof line, " %9s", ("VLEN" + std::to_string(v)).c_str());
      text += line;
    }
    for (const auto& [v, m] : models) {
      std::snprintf(line, sizeof line, " %12s", (m.substr(m.find('-') + 1) + " cyc").c_str());
      text += line;
    }
    text += "  vtype        SNR dB\n";
    std::vector<std::string> names;
    for (const auto& r : recs) {
      if (r.op == op && r.shape == shape && std::find(names.begin(), names.end(), r.impl) == names.end()) names.push_back(r.impl);
    }
    for (const auto& name : names) {
      std::vector<std::string> row = {name};
      std::set<std::string> vtypes;
      std::string lmul = "-", status, rel = "-", snr = "-";
      std::snprintf(line, sizeof line, "  %-24s", name.c_str());
      std::string tl = line;
      std::vector<std::string> cells;
      for (int v : vlens) {
        std::string cell = "-";
        for (const auto& r : recs) {
          if (r.op != op || r.shape != shape || r.vlen != v || r.impl != name) continue;
          if (r.lmul) lmul = std::to_string(r.lmul);
          if (!r.Ok()) {
            status = r.status + (r.detail.empty() ? "" : ": " + r.detail);
            continue;
          }
          cell = FormatNumber(r.instr_per_element);
          if (!r.vtype.empty()) vtypes.insert(r.vtype);
          rel = FormatSci(r.acc.max_rel);
          snr = FormatNumber(r.acc.snr_db, 4);
        }
        cells.push_back(cell);
      }
      std::vector<std::string> cyc_cells;
      for (const auto& [v, m] : models) {
        std::string cell = "-";
        for (const auto& r : recs) {
          if (r.op == op && r.shape == shape && r.vlen == v && r.impl == name && r.Ok() && !std::isnan(r.cycles_per_element)) {
            cell = FormatNumber(r.cycles_per_element);
          }
        }
        cyc_cells.push_back(cell);
      }
      // Records without a VLEN (not run: not built, unavailable) still get a row.
      for (const auto& r : recs) {
        if (r.op == op && r.shape == shape && r.impl == name && !r.Ok() && status.empty()) {
          status = r.status + (r.detail.empty() ? "" : ": " + r.detail);
        }
      }
      row.push_back(lmul);
      for (const auto& cl : cells) row.push_back(cl);
      for (const auto& cl : cyc_cells) row.push_back(cl);
      std::string vt;
      for (const auto& v : vtypes) vt += (vt.empty() ? "" : ", ") + v;
      row.push_back(vt.empty() ? (status.empty() ? "-" : status) : vt);
      row.push_back(rel);
      row.push_back(snr);
      md += MarkdownRow(row);
      std::snprintf(line, sizeof line, " %5s", lmul.c_str());
      tl += line;
      for (const auto& cl : cells) {
        std::snprintf(line, sizeof line, " %9s", cl.c_str());
        tl += line;
      }
      for (const auto& cl : cyc_cells) {
        std::snprintf(line, sizeof line, " %12s", cl.c_str());
        tl += line;
      }
      std::snprintf(line, sizeof line, "  %-10s %8s", vt.empty() ? "-" : vt.c_str(), snr.c_str());
      tl += line;
      if (vt.empty() && !status.empty()) tl += "  " + status;
      text += tl + "\n";
    }
    md += "\n";
  }
  K1Section(recs, md, text);
  out->rvv_table = text;
}

}  // namespace

std::string MarkdownRow(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + Pipe(c) + " |";
  return s + "\n";
}

std::string HeadlineImpl(const std::vector<Record>& records, const std::string& op) {
  for (const char* want : {"vlak", "vlak-accurate"}) {
    for (const auto& r : records) if (r.op == op && r.impl == want) return want;
  }
  return "";
}

ReportOutput BuildReport(const std::vector<ReportInput>& inputs) {
  ReportOutput out;
  std::string& md = out.markdown;
  md += "# vlak lab report\n\n";
  md += "Made by `vlak report` from " + std::to_string(inputs.size()) + " results file" + (inputs.size() == 1 ? "" : "s") +
        " of `vlak bench`. Time is the median over interleaved rounds (A B C A B C ...), `+-` half the inter-quartile "
        "range; ratios are taken round by round within a case, so drift of the machine cancels. GB/s counts the bytes "
        "each operator really has to move (its formula is under each table); `norm` is Terapines AI-Benchmark's normalised unit, "
        "elements / second / 1e10. Accuracy is against a float64 reference of the same input. `% of bound` is the "
        "roofline measured in the same run: GB/s over the copy bandwidth of the same bytes on the same threads "
        "(memory-bound operators), GFLOP/s over the FMA peak of the row's target (matmul; non-vlak code against the "
        "widest target); on a shared machine a multi-thread peak or copy can come out low, so compare within a case.\n\n";
  md += "## Runs\n\n";
  md += MarkdownRow({"file", "suite", "mode", "date", "CPU", "ISA", "vlak target", "commit"});
  md += "|---|---|---|---|---|---|---|---|\n";
  for (const auto& in : inputs) {
    const Machine& m = in.results.machine;
    md += MarkdownRow({in.path, in.results.suite, JStr(in.results.settings, "mode"), m.date, m.cpu, m.isa, m.vlak_target, m.commit});
  }
  md += "\n";
  for (const auto& in : inputs) {
    const Machine& m = in.results.machine;
    md += "- `" + in.path + "`: vlak " + m.vlak_version + " built by " + m.compiler + "; " + std::to_string(m.cores) + " cores";
    for (const auto& [k, v] : m.compilers) md += "; " + k + ": " + v;
    for (const auto& [k, v] : m.libraries) md += "; " + k + ": " + (v.empty() ? "?" : v);
    md += "\n";
  }
  md += "\n";

  const std::vector<Record> timed = Merge(inputs, "time");
  const std::vector<Record> counted = Merge(inputs, "icount");

  // Where the headline kernel loses to a baseline (from the interleaved ratios). A peer is met by
  // vlak's cheapest tier as accurate as it is (the summary's rule, summary.h), named when it is not
  // the headline's.
  md += "## Where vlak does not win yet\n\n";
  for (const auto& op : Ops(timed)) {
    const std::string head = HeadlineImpl(timed, op);
    if (head.empty()) continue;
    for (const Record* h : CaseHeads(timed, op)) {
      const Record* r = FindRec(timed, h->CaseKey(), head);
      if (!r || !r->Ok()) continue;
      for (const auto& [b, v0] : r->ratios) {
        const Record* vlak = r;
        double v = v0;
        const Record* peer = head == "vlak" ? FindRec(timed, h->CaseKey(), b) : nullptr;
        if (const Record* t = peer != nullptr ? TierForPeer(timed, *peer) : nullptr; t != nullptr) {
          const auto it = t->ratios.find(b);
          if (it != t->ratios.end() && std::isfinite(it->second)) vlak = t, v = it->second;
        }
        if (std::isfinite(v) && v < 1.0) {
          char buf[256];
          std::snprintf(buf, sizeof buf, "%s %s, %d thread%s: %s is %.2fx faster than %s", op.c_str(), r->shape.c_str(),
                        r->threads, r->threads > 1 ? "s" : "", b.c_str(), 1.0 / v, vlak->impl.c_str());
          out.not_won.push_back(buf);
        }
      }
    }
  }
  // On RISC-V the measure is instructions: any other implementation that needs fewer.
  for (const auto& op : Ops(counted)) {
    const std::string head = HeadlineImpl(counted, op);
    if (head.empty()) continue;
    for (const Record* h : CaseHeads(counted, op)) {
      const Record* r = FindRec(counted, h->CaseKey(), head);
      if (!r || !r->Ok() || !(r->instructions > 0)) continue;
      for (const auto& o : counted) {
        if (o.CaseKey() != r->CaseKey() || o.kind == "vlak" || !o.Ok() || !(o.instructions > 0)) continue;
        if (o.instructions < r->instructions) {
          char buf[256];
          std::snprintf(buf, sizeof buf,
                        "%s %s, RISC-V VLEN %d: %s retires %.2fx fewer instructions than %s (%s vs %s per element; SNR %s vs %s dB)",
                        op.c_str(), r->shape.c_str(), r->vlen, o.impl.c_str(), r->instructions / o.instructions, head.c_str(),
                        FormatNumber(o.instr_per_element).c_str(), FormatNumber(r->instr_per_element).c_str(),
                        FormatNumber(o.acc.snr_db, 4).c_str(), FormatNumber(r->acc.snr_db, 4).c_str());
          out.not_won.push_back(buf);
        }
      }
    }
  }
  for (const auto& r : timed) {
    if (r.kind == "vlak" && r.acc.bound_ok == 0) {
      out.not_won.push_back(r.op + " " + r.shape + ", " + std::to_string(r.threads) + " thread" + (r.threads > 1 ? "s" : "") +
                            ": " + r.impl + " is outside its accuracy bound (max rel " + FormatSci(r.acc.max_rel) + ", " +
                            r.bound + ")");
    }
  }
  if (timed.empty() && counted.empty()) md += "_No results._\n\n";
  else if (out.not_won.empty()) md += "vlak's default kernel beats every baseline in every case, within its accuracy bound.\n\n";
  for (const auto& s : out.not_won) md += "- " + s + "\n";
  if (!out.not_won.empty()) md += "\n";

  for (const auto& op : Ops(timed)) {
    md += "## " + op + "\n\n";
    for (const auto& r : timed) {
      if (r.op == op) {
        md += "Bytes: " + r.bytes_formula + ". Implementations:\n\n";
        break;
      }
    }
    std::set<std::string> listed;
    for (const auto& r : timed) {
      if (r.op == op && listed.insert(r.impl).second) md += "- `" + r.impl + "` (" + r.kind + "): " + r.description + "\n";
    }
    md += "\n### Throughput vs size\n\n";
    ThroughputCharts(timed, op, &out, md);
    md += "### Speed-up over each baseline\n\n";
    SpeedupChart(timed, op, &out, md);
    md += "### Roofline: % of bound\n\n";
    RooflineChart(timed, op, &out, md);
    md += "### Accuracy vs speed\n\n";
    AccuracySpeedCharts(timed, op, &out, md);
    md += "### Results\n\n";
    md += ResultsTable(timed, op);
  }
  RvvSection(counted, &out, md);
  return out;
}

}  // namespace vlak::lab
