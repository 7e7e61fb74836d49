// The end-to-end check: tests/lab/e2e.cmake runs `vlak bench` on tiny_suite.txt and `vlak report`
// into LAB_E2E_DIR, then this test reads what they wrote. Skipped when LAB_E2E_DIR is not set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/record.h"
#include "svg_check.h"

namespace vlak::lab {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool Finite(const Json& j) { return j.is_number() && std::isfinite(j.get<double>()); }
// Loose reads of nlohmann values (missing keys: null, "", the fallback).
const Json& At(const Json& j, const char* key) { return JGet(j, key); }
std::string Str(const Json& j, const char* key) { return JStr(j, key); }
double Num(const Json& j, const char* key, double fallback = NAN) { return JNum(j, key, fallback); }

// The suite's cases as written in tiny_suite.txt, read here with no help from the lab's parser:
// per "case OP shapes=A,B impls=X,Y,Z" line, OP, its first shape and shapes x impls records.
struct SuiteCase {
  std::string op, first_shape;
  size_t records;
};
std::vector<SuiteCase> TinySuiteCases() {
  std::vector<SuiteCase> cases;
  std::istringstream in(Slurp(VLAK_LAB_TEST_DIR "/tiny_suite.txt"));
  std::string line;
  const auto count = [](const std::string& list) { return 1 + static_cast<size_t>(std::count(list.begin(), list.end(), ',')); };
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kw, op, w, shapes, impls;
    if (!(words >> kw >> op) || kw != "case") continue;
    while (words >> w) {
      if (w.rfind("shapes=", 0) == 0) shapes = w.substr(7);
      if (w.rfind("impls=", 0) == 0) impls = w.substr(6);
    }
    cases.push_back({op, shapes.substr(0, shapes.find(',')), count(shapes) * count(impls)});
  }
  return cases;
}

TEST(LabE2E, ResultsAndReport) {
  const char* dir_env = std::getenv("LAB_E2E_DIR");
  if (dir_env == nullptr) GTEST_SKIP() << "run by tests/lab/e2e.cmake (LAB_E2E_DIR not set)";
  const std::string dir = dir_env;

  Json j;
  std::string err;
  ASSERT_TRUE(ParseJson(Slurp(dir + "/r.json"), &j, &err)) << err;
  EXPECT_EQ(Str(j, "format"), kResultsFormat);
  EXPECT_EQ(Str(j, "suite"), "tiny_suite");
  const Json& m = At(j, "machine");
  for (const char* key : {"cpu", "arch", "isa", "compiler", "commit", "date", "vlak_version", "vlak_target"}) {
    EXPECT_FALSE(Str(m, key).empty()) << "machine." << key;
  }
  EXPECT_GE(Num(m, "cores", 0), 1);
  for (const char* key : {"c-gcc", "c-clang"}) EXPECT_FALSE(Str(At(m, "compilers"), key).empty()) << key;
  for (const char* key : {"xnnpack", "onednn", "sleef", "openblas", "eigen"}) {
    EXPECT_FALSE(Str(At(m, "libraries"), key).empty()) << key;
  }
  const bool riscv = Str(m, "arch") == "riscv64";
  const std::string mode = Str(At(j, "settings"), "mode");
  EXPECT_EQ(mode, riscv ? "icount" : "time");  // e2e.cmake runs RISC-V under the plugin
  if (riscv && Str(m, "isa").rfind("rv64gcv", 0) == 0) EXPECT_GE(Num(m, "vlen", 0), 128);

  // tiny_suite.txt: a record per shape and implementation of each case; 1 thread.
  const std::vector<SuiteCase> cases = TinySuiteCases();
  ASSERT_GE(cases.size(), 7u);
  size_t want_records = 0;
  for (const SuiteCase& c : cases) want_records += c.records;
  const Json& recs = At(j, "records");
  ASSERT_EQ(recs.size(), want_records);
  std::set<std::string> ok_impls, ok_ops;
  for (const Json& r : recs) {
    const std::string what = Str(r, "op") + " " + Str(r, "shape") + " " + Str(r, "impl");
    for (const char* key : {"op", "shape", "impl", "kind", "status", "mode", "bytes_formula"}) {
      EXPECT_FALSE(Str(r, key).empty()) << what << ": " << key;
    }
    EXPECT_EQ(Num(r, "threads"), 1) << what;
    EXPECT_GT(Num(r, "elements", 0), 0) << what;
    const std::string op = Str(r, "op");
    if (op == "softmax" || op == "exp") EXPECT_EQ(Num(r, "bytes_per_run"), 8 * Num(r, "elements")) << what;
    if (op == "matmul") {
      EXPECT_EQ(Num(r, "flops_per_run"), 2.0 * 16 * 32 * 8) << what;
      EXPECT_EQ(Num(r, "bytes_per_run"), 4.0 * (16 * 8 + 8 * 32 + 16 * 32)) << what;
    }
    if (op == "layernorm-bwd") EXPECT_EQ(Num(r, "bytes_per_run"), 12.0 * 4 * 256 + 12 * 256 + 8 * 4) << what;
    const std::string status = Str(r, "status");
    ASSERT_TRUE(status == "ok" || status == "not built" || status == "unavailable") << what << ": " << status << " "
                                                                                    << Str(r, "detail");
    if (status != "ok") {
      EXPECT_FALSE(Str(r, "detail").empty()) << what;
      EXPECT_TRUE(At(r, "gbps").is_null()) << what << ": a missing implementation must not have numbers";
      EXPECT_TRUE(At(At(r, "accuracy"), "max_rel").is_null()) << what;
      continue;
    }
    ok_impls.insert(Str(r, "impl"));
    ok_ops.insert(op);
    const Json& a = At(r, "accuracy");
    EXPECT_TRUE(Finite(At(a, "max_rel"))) << what;
    EXPECT_TRUE(Finite(At(a, "max_abs"))) << what;
    EXPECT_TRUE(Finite(At(a, "snr_db")) || Str(a, "snr_db") == "inf") << what;
    if (Str(r, "kind") == "vlak") EXPECT_EQ(At(a, "bound_ok"), Json(true)) << what << " outside " << Str(a, "bound");
    const Json& t = At(r, "time");
    if (mode == "time") {
      EXPECT_GT(Num(t, "median", 0), 0) << what;
      EXPECT_LE(Num(t, "q1"), Num(t, "q3")) << what;
      EXPECT_GE(Num(t, "samples", 0), 5) << what;
      EXPECT_GT(Num(r, "gbps", 0), 0) << what;
      EXPECT_GT(Num(r, "elements_per_s", 0), 0) << what;
      EXPECT_NEAR(Num(r, "norm_unit", 0), Num(r, "elements_per_s", 0) / 1e10, 1e-6 * Num(r, "norm_unit", 1)) << what;
      // Roofline: every operator here declares one, measured in the same run.
      const Json& rl = At(r, "roofline");
      EXPECT_EQ(Str(rl, "kind"), op == "matmul" ? "compute" : "memory") << what;
      EXPECT_GT(Num(rl, "pct_of_bound", 0), 0) << what;
      if (op == "matmul") {
        EXPECT_GT(Num(rl, "peak_gflops", 0), 0) << what;
        EXPECT_FALSE(Str(rl, "peak_target").empty()) << what;
        EXPECT_NEAR(Num(r, "gflops", 0), Num(r, "flops_per_run", 0) / Num(t, "median", 1) / 1e9, 1e-6 * Num(r, "gflops", 1))
            << what;
      } else {
        EXPECT_GT(Num(rl, "copy_gbps", 0), 0) << what;
        EXPECT_NEAR(Num(rl, "pct_of_bound", 0), 100 * Num(r, "gbps", 0) / Num(rl, "copy_gbps", 1), 1e-6) << what;
      }
    } else {
      const Json& ic = At(r, "icount");
      EXPECT_GT(Num(ic, "instructions", 0), 0) << what;
      EXPECT_NEAR(Num(ic, "per_element", 0), Num(ic, "instructions", 0) / Num(r, "elements", 1), 1e-9) << what;
      if (Num(m, "vlen", 0) > 0) {
        EXPECT_EQ(Num(ic, "vlen", 0), Num(m, "vlen", 0)) << what;
        // The fixed-LMUL kernel's last vsetvli is its own: the readout must say so.
        if (Str(r, "impl") == "vlak-accurate-m2") EXPECT_EQ(Str(ic, "vtype"), "e32m2") << what;
      }
    }
  }
  for (const char* must : {"vlak", "vlak-accurate-m2", "naive", "c-clang", "vlak-accurate", "vlak-schraudolph"}) {
    EXPECT_TRUE(ok_impls.count(must)) << must << " did not run";
  }
  // Every operator ran at least one implementation (c-clang is in every case).
  for (const SuiteCase& c : cases) EXPECT_TRUE(ok_ops.count(c.op)) << c.op << ": nothing ran";
  // vlak ran for every operator whose entry point this tree has (the rest are "not built").
  for (const Json& r : recs) {
    if (Str(r, "impl") == "vlak" && Str(r, "status") != "ok") {
      EXPECT_EQ(Str(r, "status"), "not built") << Str(r, "op");
      EXPECT_NE(Str(r, "detail").find("is not in this tree yet"), std::string::npos) << Str(r, "op");
    }
  }

  // CSV: the header and a row per record.
  std::istringstream csv(Slurp(dir + "/r.csv"));
  std::string line;
  size_t lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, recs.size() + 1);

  // The report: report.md and every SVG it links, well-formed.
  const std::string md = Slurp(dir + "/report/report.md");
  ASSERT_FALSE(md.empty());
  EXPECT_NE(md.find("# vlak lab report"), std::string::npos);
  // A section per operator (timed runs), or its rows in the RISC-V instruction tables (icount).
  for (const SuiteCase& c : cases) {
    EXPECT_NE(md.find(riscv ? "### " + c.op + " " + c.first_shape + "\n" : "## " + c.op + "\n"), std::string::npos)
        << c.op;
  }
  if (!riscv) EXPECT_NE(md.find("| % of bound |"), std::string::npos);
  size_t charts = 0;
  for (size_t p = md.find("](", 0); p != std::string::npos; p = md.find("](", p + 2)) {
    const size_t e = md.find(')', p);
    const std::string file = md.substr(p + 2, e - p - 2);
    if (file.size() < 4 || file.substr(file.size() - 4) != ".svg") continue;
    ++charts;
    const std::string svg = Slurp(dir + "/report/" + file);
    ASSERT_FALSE(svg.empty()) << file << " missing";
    std::string why;
    EXPECT_TRUE(testing::WellFormedSvg(svg, &why)) << file << ": " << why;
  }
  EXPECT_GE(charts, riscv ? 2u : 3u);
}

}  // namespace
}  // namespace vlak::lab
