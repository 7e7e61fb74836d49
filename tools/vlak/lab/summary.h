// The few lines `vlak bench --summary` prints instead of the full tables: per operator and thread
// count, how vlak's own pick ("vlak") compares with the fastest peer that ran the same case.
#pragma once

#include <cstdio>
#include <vector>

#include "lab/record.h"

namespace vlak::lab {

// Peers are the libraries and the compilers' auto-vectorised C (kinds "library" and "compiler");
// vlak's forced-target and variant rows, copies and naive loops are not. vlak's accuracy tiers
// ("vlak", the default, and "vlak-fast" where an operator has it): each peer is compared with the
// cheapest tier whose measured error on the case is no larger than the peer's (the default when
// none is). Per case, ratio = the lowest of peer's median / that tier's (instructions in icount
// mode): > 1 means vlak is faster; without a fast row, the fastest peer's / vlak's. Per operator
// and thread count: the geometric mean of the cases' ratios and the peer (and tier) that set it
// most often, and vlak's lowest share of the roofline; then the one case with the lowest ratio,
// named with both times.
struct SummaryLine {
  std::string op;
  int threads = 0;
  size_t cases = 0;
  double geomean = 0;       // of peer / vlak over the cases
  std::string usual_peer;   // the peer fastest in most of the cases
  std::string usual_tier;   // the tier it was compared with there: "" (default) or "fast"
  // The lowest share of the roofline that vlak's compared row reached over the cases (its
  // pct_of_bound: the copy bandwidth, or the FMA peak), and which roofline; NaN and "" when a
  // case has none. At >= 90 % of the copy bound a case is memory-bound, and the goal there is
  // that share, not a ratio.
  double min_pct_of_bound = __builtin_nan("");
  std::string bound_kind;
};
struct SummaryWorst {
  const Record* vlak = nullptr;
  const Record* peer = nullptr;
  double ratio = 0;
};
std::vector<SummaryLine> Summarize(const std::vector<Record>& records, SummaryWorst* worst);
// The vlak tier row a peer's case compares it with, by the rule above (also for vlak's own
// compositions, such as vlak-2call); nullptr when `peer` is neither, or its case has no default
// vlak row.
const Record* TierForPeer(const std::vector<Record>& records, const Record& peer);
void PrintSummary(FILE* out, const std::vector<Record>& records);

}  // namespace vlak::lab
