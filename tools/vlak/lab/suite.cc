#include "lab/suite.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace vlak::lab {

std::vector<std::string> SplitList(const std::string& s, const char* seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::string(seps).find(c) != std::string::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool GlobMatch(const std::string& pattern, const std::string& name) {
  // Classic two-pointer glob with backtracking; '*' may not swallow '@'.
  size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p, ++n;
    } else if (star != std::string::npos && name[mark] != '@') {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<const ImplDef*> MatchImpls(const OpDef& op, const std::string& pattern) {
  std::vector<const ImplDef*> out;
  for (const auto& impl : op.impls) {
    if (GlobMatch(pattern, impl.name)) out.push_back(&impl);
  }
  return out;
}

bool ParseThreadList(const std::vector<std::string>& items, std::vector<int>* out, std::string* err) {
  out->clear();
  for (const auto& raw : items) {
    for (const auto& t : SplitList(raw, ", ")) {
      int n;
      if (t == "all") {
        n = CpuCount();
      } else {
        char* end = nullptr;
        const long v = std::strtol(t.c_str(), &end, 10);
        if (end == t.c_str() || *end != '\0' || v < 1 || v > 1024) {
          *err = "bad thread count '" + t + "' (valid: positive integers or 'all')";
          return false;
        }
        n = static_cast<int>(v);
      }
      if (std::find(out->begin(), out->end(), n) == out->end()) out->push_back(n);
    }
  }
  if (out->empty()) {
    *err = "empty thread list";
    return false;
  }
  return true;
}

namespace {

bool ParseSeconds(const std::string& s, double* out) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(v >= 0) || v > 3600) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseSuite(const std::string& text, const std::string& name, Suite* suite, std::string* err) {
  *suite = Suite();
  suite->name = name;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  const auto fail = [&](const std::string& msg) {
    *err = name + ":" + std::to_string(lineno) + ": " + msg;
    return false;
  };
  while (std::getline(in, line)) {
    ++lineno;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const auto words = SplitList(line, " \t\r");
    if (words.empty()) continue;
    const std::string& key = words[0];
    if (key == "min-time") {
      if (words.size() != 2 || !ParseSeconds(words[1], &suite->min_time)) return fail("usage: min-time SECONDS");
    } else if (key == "threads") {
      if (words.size() < 2) return fail("usage: threads N|all ...");
      suite->threads.assign(words.begin() + 1, words.end());
      std::vector<int> check;
      std::string e;
      if (!ParseThreadList(suite->threads, &check, &e)) return fail(e);
    } else if (key == "baseline") {
      if (words.size() != 2) return fail("usage: baseline NAME");
      suite->baseline = words[1];
    } else if (key == "case") {
      if (words.size() < 2) return fail("usage: case OP shapes=... impls=...");
      CaseSpec c;
      c.op = words[1];
      c.line = lineno;
      for (size_t i = 2; i < words.size(); ++i) {
        const size_t eq = words[i].find('=');
        if (eq == std::string::npos) return fail("expected key=value, got '" + words[i] + "'");
        const std::string k = words[i].substr(0, eq), v = words[i].substr(eq + 1);
        if (k == "shapes") c.shapes = SplitList(v);
        else if (k == "impls") c.impls = SplitList(v);
        else if (k == "threads") c.threads = SplitList(v);
        else if (k == "baseline") c.baseline = v;
        else if (k == "min-time") {
          if (!ParseSeconds(v, &c.min_time)) return fail("bad min-time '" + v + "'");
        } else {
          return fail("unknown key '" + k + "' (valid: shapes impls threads baseline min-time)");
        }
      }
      if (c.shapes.empty() || c.impls.empty()) return fail("a case needs shapes= and impls=");
      suite->cases.push_back(std::move(c));
    } else {
      return fail("unknown directive '" + key + "' (valid: case min-time threads baseline)");
    }
  }
  return true;
}

std::string BuiltinSuiteNames() {
  std::string s;
  for (const auto& b : BuiltinSuites()) s += (s.empty() ? "" : " ") + b.first;
  return s;
}

bool LoadSuite(const std::string& name_or_path, Suite* suite, std::string* err) {
  for (const auto& b : BuiltinSuites()) {
    if (b.first == name_or_path) return ParseSuite(b.second, b.first, suite, err);
  }
  std::ifstream f(name_or_path);
  if (!f) {
    *err = "unknown suite '" + name_or_path + "' (valid: " + BuiltinSuiteNames() + ", or a suite file)";
    return false;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::string base = name_or_path;
  if (const size_t slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  if (base.size() > 4 && base.substr(base.size() - 4) == ".txt") base.resize(base.size() - 4);
  return ParseSuite(ss.str(), base, suite, err);
}

bool ExpandSuite(const Suite& suite, const SuiteOverrides& o, std::vector<Case>* cases, std::string* err) {
  cases->clear();
  for (const CaseSpec& c : suite.cases) {
    const std::string where = suite.name + ":" + std::to_string(c.line) + ": ";
    const OpDef* op = FindOp(c.op);
    if (op == nullptr) {
      *err = where + "unknown operator '" + c.op + "' (valid: " + OpNames() + ")";
      return false;
    }
    std::vector<const ImplDef*> impls;
    for (const auto& pat : c.impls) {
      const auto m = MatchImpls(*op, pat);
      if (m.empty()) {
        *err = where + "unknown implementation '" + pat + "' for " + op->name + " (valid: " + op->ImplNames() + ")";
        return false;
      }
      for (const ImplDef* d : m) {
        if (std::find(impls.begin(), impls.end(), d) == impls.end()) impls.push_back(d);
      }
    }
    std::vector<int> threads;
    std::string e;
    if (!ParseThreadList(!o.threads.empty() ? o.threads : !c.threads.empty() ? c.threads : suite.threads, &threads, &e)) {
      *err = where + e;
      return false;
    }
    // The baseline: an explicit one (command line, case, suite) if the case has it, else the
    // operator's first default that is in the case and can run here.
    std::string baseline;
    for (const std::string* want : {&o.baseline, &c.baseline, &suite.baseline}) {
      if (!want->empty()) {
        baseline = *want;
        break;
      }
    }
    const auto in_case = [&](const std::string& n) {
      for (const ImplDef* d : impls) if (d->name == n && d->unavailable().empty()) return true;
      return false;
    };
    if (baseline.empty()) {
      for (const auto& b : op->baselines) {
        if (in_case(b)) {
          baseline = b;
          break;
        }
      }
    }
    for (const auto& s : c.shapes) {
      Case k;
      k.op = op;
      if (!ParseDims(s, &k.shape.dims, &e) || !op->check_shape(k.shape.dims, &e)) {
        *err = where + e;
        return false;
      }
      k.impls = impls;
      k.min_time = o.min_time >= 0 ? o.min_time : c.min_time >= 0 ? c.min_time : suite.min_time;
      k.baseline = baseline;
      for (int t : threads) {
        k.threads = t;
        cases->push_back(k);
      }
    }
  }
  return true;
}

}  // namespace vlak::lab
