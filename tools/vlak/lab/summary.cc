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

namespace {

// vlak's accuracy tiers as the lab names them: "vlak" (the default) and "vlak-fast"; "" and
// "fast" in the summary. Other vlak-* rows are variants or other contracts, not tiers.
const char* TierOf(const Record& r) {
  if (r.impl == "vlak") return "";
  if (r.impl == "vlak-fast") return "fast";
  return nullptr;
}

// The error the tiers are matched by: max |y - ref| / scale where the operator states a scale
// (activations: ULPs), else the max relative error.
double ErrorOf(const Record& r) { return std::isnan(r.acc.max_scaled) ? r.acc.max_rel : r.acc.max_scaled; }

// A vlak tier row the summary can compare: it ran ("ok") and has a time or a count.
bool IsComparableTier(const Record& r) { return TierOf(r) != nullptr && r.Ok() && Cost(r) > 0; }

// The tier a peer is compared with: the cheapest of `tiers` whose error on the case is no larger
// than the peer's, else `plain` (the default tier).
const Record* CheapestAsAccurate(const std::vector<const Record*>& tiers, const Record* plain, const Record& peer) {
  const Record* v = plain;
  for (const Record* t : tiers) {
    if (ErrorOf(*t) <= ErrorOf(peer) && Cost(*t) < Cost(*v)) v = t;
  }
  return v;
}

// A row the report meets with a tier: a peer, or a composition of vlak calls (kind "composed":
// vlak-2call, vlak_activation_f32 then a product, whose default-tier activation is cruder than
// glu's own).
bool MetByTier(const Record& r) { return IsPeer(r) || (r.Ok() && r.kind == "composed"); }

}  // namespace

const Record* TierForPeer(const std::vector<Record>& records, const Record& peer) {
  if (!MetByTier(peer)) return nullptr;
  const std::string key = peer.CaseKey();
  std::vector<const Record*> tiers;
  const Record* plain = nullptr;
  for (const Record& r : records) {
    if (r.CaseKey() != key || !IsComparableTier(r)) continue;
    tiers.push_back(&r);
    if (*TierOf(r) == '\0') plain = &r;
  }
  return plain == nullptr ? nullptr : CheapestAsAccurate(tiers, plain, peer);
}

std::vector<SummaryLine> Summarize(const std::vector<Record>& records, SummaryWorst* worst) {
  // Case key -> vlak's tier rows and the peers, in the order the cases ran.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<const Record*>, std::vector<const Record*>>> cases;
  for (const Record& r : records) {
    const std::string key = r.CaseKey();
    if (!cases.count(key)) order.push_back(key);
    auto& [tiers, peers] = cases[key];
    if (IsComparableTier(r)) tiers.push_back(&r);
    if (IsPeer(r) && Cost(r) > 0) peers.push_back(&r);
  }
  std::vector<SummaryLine> lines;
  std::map<std::pair<std::string, int>, size_t> index;
  std::map<std::pair<std::string, int>, std::map<std::pair<std::string, std::string>, int>> wins;
  std::map<std::pair<std::string, int>, double> log_sum;
  std::map<std::pair<std::string, int>, bool> roofline_gap;  // a case without vlak's roofline share
  *worst = SummaryWorst();
  for (const std::string& key : order) {
    const auto& [tiers, peers] = cases[key];
    const Record* plain = nullptr;
    for (const Record* t : tiers) {
      if (*TierOf(*t) == '\0') plain = t;
    }
    if (plain == nullptr || peers.empty()) continue;
    // Each peer against the cheapest tier whose error here is no larger than the peer's (the
    // default tier when none is, or errors are not comparable); the case's ratio is the lowest.
    const Record *vlak = nullptr, *peer = nullptr;
    double ratio = 0;
    for (const Record* p : peers) {
      const Record* v = CheapestAsAccurate(tiers, plain, *p);
      const double r = Cost(*p) / Cost(*v);
      if (peer == nullptr || r < ratio) vlak = v, peer = p, ratio = r;
    }
    const auto id = std::make_pair(vlak->op, vlak->threads);
    if (!index.count(id)) {
      index[id] = lines.size();
      SummaryLine fresh;
      fresh.op = vlak->op;
      fresh.threads = vlak->threads;
      lines.push_back(fresh);
    }
    SummaryLine& line = lines[index[id]];
    ++line.cases;
    if (vlak->bound_kind.empty() || std::isnan(vlak->pct_of_bound)) {
      roofline_gap[id] = true;
    } else if (std::isnan(line.min_pct_of_bound) || vlak->pct_of_bound < line.min_pct_of_bound) {
      line.min_pct_of_bound = vlak->pct_of_bound;
      line.bound_kind = vlak->bound_kind;
    }
    log_sum[id] += std::log(ratio);
    ++wins[id][{peer->impl, TierOf(*vlak)}];
    if (worst->vlak == nullptr || ratio < worst->ratio) *worst = {vlak, peer, ratio};
  }
  for (SummaryLine& l : lines) {
    const auto id = std::make_pair(l.op, l.threads);
    l.geomean = std::exp(log_sum[id] / static_cast<double>(l.cases));
    if (roofline_gap[id]) l.min_pct_of_bound = __builtin_nan(""), l.bound_kind.clear();
    int most = 0;
    for (const auto& [who, n] : wins[id]) {
      if (n > most) most = n, l.usual_peer = who.first, l.usual_tier = who.second;
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
  std::fprintf(out, "summary: fastest peer's %s / vlak's (> 1: vlak faster; vlak's cheapest tier as accurate as the peer, "
               "named when not the default), geometric mean over each operator's shapes%s\n",
               ic ? "instructions" : "time",
               ic ? "" : "; then vlak's lowest share of its roofline there (copy: the copy bandwidth of the same bytes, "
                         "memory-bound from 90 %; peak: the FMA peak)");
  std::fprintf(out, "  %-20s", "operator");
  for (int t : threads) std::fprintf(out, " %-36s", (std::to_string(t) + (t == 1 ? " thread" : " threads")).c_str());
  std::fprintf(out, "\n");
  for (const std::string& op : ops) {
    std::fprintf(out, "  %-20s", op.c_str());
    for (int t : threads) {
      std::string cell = "-";
      for (const SummaryLine& l : lines) {
        if (l.op == op && l.threads == t) {
          cell = FormatNumber(l.geomean) + "x vs " + l.usual_peer + (l.usual_tier.empty() ? "" : " (" + l.usual_tier + ")");
          if (!std::isnan(l.min_pct_of_bound)) {
            char pct[48];
            std::snprintf(pct, sizeof pct, ", %.0f%% %s", l.min_pct_of_bound, l.bound_kind == "memory" ? "copy" : "peak");
            cell += pct;
          }
        }
      }
      std::fprintf(out, " %-36s", cell.c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "  worst case: %s %s, %d thread%s: %sx (%s %s, %s %s)\n", worst.vlak->op.c_str(),
               worst.vlak->shape.c_str(), worst.vlak->threads, worst.vlak->threads == 1 ? "" : "s",
               FormatNumber(worst.ratio).c_str(), worst.vlak->impl.c_str(), CostText(*worst.vlak).c_str(), worst.peer->impl.c_str(),
               CostText(*worst.peer).c_str());
}

}  // namespace vlak::lab
