#include "lab/summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace vlak::lab {

namespace {

bool IsPeer(const Record& r) { return r.Ok() && (r.kind == "library" || r.kind == "compiler"); }

double Cost(const Record& r) { return r.mode == "icount" ? r.instructions : r.time.median; }

std::string CostText(const Record& r) {
  return r.mode == "icount" ? FormatNumber(r.instructions) + " instr" : FormatSeconds(r.time.median);
}

}  // namespace

std::vector<SummaryLine> Summarize(const std::vector<Record>& records, SummaryWorst* worst) {
  // Case key -> vlak's record and the fastest peer's, in the order the cases ran.
  std::vector<std::string> order;
  std::map<std::string, std::pair<const Record*, const Record*>> best;
  for (const Record& r : records) {
    const std::string key = r.CaseKey();
    if (!best.count(key)) order.push_back(key);
    auto& [vlak, peer] = best[key];
    if (r.impl == "vlak" && r.Ok() && Cost(r) > 0) vlak = &r;
    if (IsPeer(r) && Cost(r) > 0 && (peer == nullptr || Cost(r) < Cost(*peer))) peer = &r;
  }
  std::vector<SummaryLine> lines;
  std::map<std::pair<std::string, int>, size_t> index;
  std::map<std::pair<std::string, int>, std::map<std::string, int>> wins;
  std::map<std::pair<std::string, int>, double> log_sum;
  *worst = SummaryWorst();
  for (const std::string& key : order) {
    const auto [vlak, peer] = best[key];
    if (vlak == nullptr || peer == nullptr) continue;
    const double ratio = Cost(*peer) / Cost(*vlak);
    const auto id = std::make_pair(vlak->op, vlak->threads);
    if (!index.count(id)) {
      index[id] = lines.size();
      lines.push_back({vlak->op, vlak->threads, 0, 0, ""});
    }
    ++lines[index[id]].cases;
    log_sum[id] += std::log(ratio);
    ++wins[id][peer->impl];
    if (worst->vlak == nullptr || ratio < worst->ratio) *worst = {vlak, peer, ratio};
  }
  for (SummaryLine& l : lines) {
    const auto id = std::make_pair(l.op, l.threads);
    l.geomean = std::exp(log_sum[id] / static_cast<double>(l.cases));
    int most = 0;
    for (const auto& [impl, n] : wins[id]) {
      if (n > most) most = n, l.usual_peer = impl;
    }
  }
  return lines;
}

void PrintSummary(FILE* out, const std::vector<Record>& records) {
  SummaryWorst worst;
  const std::vector<SummaryLine> lines = Summarize(records, &worst);
  if (lines.empty()) {
    std::fprintf(out, "summary: no case has both a vlak row and a library or compiler peer\n");
    return;
  }
  // Columns: the thread counts that ran, ascending; rows: operators in the order they ran.
  std::set<int> threads;
  std::vector<std::string> ops;
  for (const SummaryLine& l : lines) {
    threads.insert(l.threads);
    if (std::find(ops.begin(), ops.end(), l.op) == ops.end()) ops.push_back(l.op);
  }
  const bool ic = records.front().mode == "icount";
  std::fprintf(out, "summary: fastest peer's %s / vlak's (> 1: vlak faster), geometric mean over each operator's shapes\n",
               ic ? "instructions" : "time");
  std::fprintf(out, "  %-20s", "operator");
  for (int t : threads) std::fprintf(out, " %-26s", (std::to_string(t) + (t == 1 ? " thread" : " threads")).c_str());
  std::fprintf(out, "\n");
  for (const std::string& op : ops) {
    std::fprintf(out, "  %-20s", op.c_str());
    for (int t : threads) {
      std::string cell = "-";
      for (const SummaryLine& l : lines) {
        if (l.op == op && l.threads == t) cell = FormatNumber(l.geomean) + "x vs " + l.usual_peer;
      }
      std::fprintf(out, " %-26s", cell.c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "  worst case: %s %s, %d thread%s: %sx (vlak %s, %s %s)\n", worst.vlak->op.c_str(),
               worst.vlak->shape.c_str(), worst.vlak->threads, worst.vlak->threads == 1 ? "" : "s",
               FormatNumber(worst.ratio).c_str(), CostText(*worst.vlak).c_str(), worst.peer->impl.c_str(),
               CostText(*worst.peer).c_str());
}

}  // namespace vlak::lab
