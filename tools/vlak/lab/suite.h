// Suites: what `vlak bench` runs, as data.
//
// A suite file (bench/suites/*.txt; the built-in ones are compiled into the binary) is lines of
//   # comment
//   min-time SECONDS          timed runs per implementation per case (default 0.2)
//   threads 1 all             thread counts (numbers or "all" = every core; default "1 all")
//   baseline NAME             ratios are against NAME (default: the operator's first available)
//   case OP shapes=S1,S2,... impls=P1,P2,... [threads=1,all] [min-time=S] [baseline=NAME]
// Implementation patterns: a name, or a glob where * matches any run of characters except '@'
// (so vlak-* is the exp variants on the default target and vlak-*@* every forced target).
// Every pattern must match something: a typo is an error that lists the valid names.
//
// Expansion: each case line gives one case per shape x thread count; the case's implementations
// run interleaved (A B C A B C ...), so they are compared within the same stretch of time.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lab/ops.h"

namespace vlak::lab {

struct CaseSpec {
  std::string op;
  std::vector<std::string> shapes, impls, threads;
  double min_time = -1;  // < 0: the suite's
  std::string baseline;  // "": the suite's
  int line = 0;
};

struct Suite {
  std::string name;
  double min_time = 0.2;
  std::vector<std::string> threads = {"1", "all"};
  std::string baseline;
  std::vector<CaseSpec> cases;
};

// One case: an operator on one shape at one thread count, with its implementations in the order
// they are interleaved.
struct Case {
  const OpDef* op = nullptr;
  Shape shape;
  int threads = 1;
  std::vector<const ImplDef*> impls;
  double min_time = 0.2;
  std::string baseline;  // "" when none of the wanted baselines is in the case
};

// Command-line settings that override the suite's.
struct SuiteOverrides {
  std::vector<std::string> threads;  // empty: keep
  double min_time = -1;
  std::string baseline;
};

bool ParseSuite(const std::string& text, const std::string& name, Suite* suite, std::string* err);

// Built-in suites (bench/suites/*.txt compiled in): name -> text.
const std::vector<std::pair<std::string, std::string>>& BuiltinSuites();
std::string BuiltinSuiteNames();

// A named built-in suite or a file path; *err on failure.
bool LoadSuite(const std::string& name_or_path, Suite* suite, std::string* err);

bool ExpandSuite(const Suite& suite, const SuiteOverrides& o, std::vector<Case>* cases, std::string* err);

// Implementation names of op matching a pattern (glob, * not crossing '@'), in the op's order.
std::vector<const ImplDef*> MatchImpls(const OpDef& op, const std::string& pattern);
bool GlobMatch(const std::string& pattern, const std::string& name);

// "1,all" or {"1", "all"} -> thread counts; false with *err on a bad entry.
bool ParseThreadList(const std::vector<std::string>& items, std::vector<int>* out, std::string* err);

std::vector<std::string> SplitList(const std::string& s, const char* seps = ",");

}  // namespace vlak::lab
