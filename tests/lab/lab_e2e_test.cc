// The end-to-end check: tests/lab/e2e.cmake runs `vlak bench` on tiny_suite.txt and `vlak report`
// into LAB_E2E_DIR, then this test reads what they wrote. Skipped when LAB_E2E_DIR is not set.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "lab/json.h"
#include "svg_check.h"

namespace vlak::lab {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool Finite(const Json& j) { return j.IsNumber() && std::isfinite(j.Num()); }

TEST(LabE2E, ResultsAndReport) {
  const char* dir_env = std::getenv("LAB_E2E_DIR");
  if (dir_env == nullptr) GTEST_SKIP() << "run by tests/lab/e2e.cmake (LAB_E2E_DIR not set)";
  const std::string dir = dir_env;

  Json j;
  std::string err;
  ASSERT_TRUE(Json::Parse(Slurp(dir + "/r.json"), &j, &err)) << err;
  EXPECT_EQ(j["format"].Str(), "vlak-lab-results/1");
  EXPECT_EQ(j["suite"].Str(), "tiny_suite");
  const Json& m = j["machine"];
  for (const char* key : {"cpu", "arch", "isa", "compiler", "commit", "date", "vlak_version", "vlak_target"}) {
    EXPECT_FALSE(m[key].Str().empty()) << "machine." << key;
  }
  EXPECT_GE(m["cores"].Num(0), 1);
  for (const char* key : {"c-gcc", "c-clang"}) EXPECT_FALSE(m["compilers"][key].Str().empty()) << key;
  for (const char* key : {"xnnpack", "onednn", "sleef"}) EXPECT_FALSE(m["libraries"][key].Str().empty()) << key;
  const bool riscv = m["arch"].Str() == "riscv64";
  const std::string mode = j["settings"]["mode"].Str();
  EXPECT_EQ(mode, riscv ? "icount" : "time");  // e2e.cmake runs RISC-V under the plugin
  if (riscv && m["isa"].Str().rfind("rv64gcv", 0) == 0) EXPECT_GE(m["vlen"].Num(0), 128);

  // tiny_suite.txt: softmax 2 shapes x 7 impls, exp 1 shape x 5 impls, 1 thread.
  const auto& recs = j["records"].Items();
  ASSERT_EQ(recs.size(), 2u * 7 + 5);
  std::set<std::string> ok_impls;
  for (const Json& r : recs) {
    const std::string what = r["op"].Str() + " " + r["shape"].Str() + " " + r["impl"].Str();
    for (const char* key : {"op", "shape", "impl", "kind", "status", "mode", "bytes_formula"}) {
      EXPECT_FALSE(r[key].Str().empty()) << what << ": " << key;
    }
    EXPECT_EQ(r["threads"].Num(), 1) << what;
    EXPECT_GT(r["elements"].Num(0), 0) << what;
    EXPECT_EQ(r["bytes_per_run"].Num(), 8 * r["elements"].Num()) << what;
    const std::string status = r["status"].Str();
    ASSERT_TRUE(status == "ok" || status == "not built" || status == "unavailable") << what << ": " << status << " "
                                                                                    << r["detail"].Str();
    if (status != "ok") {
      EXPECT_FALSE(r["detail"].Str().empty()) << what;
      EXPECT_TRUE(r["gbps"].IsNull()) << what << ": a missing implementation must not have numbers";
      EXPECT_TRUE(r["accuracy"]["max_rel"].IsNull()) << what;
      continue;
    }
    ok_impls.insert(r["impl"].Str());
    const Json& a = r["accuracy"];
    EXPECT_TRUE(Finite(a["max_rel"])) << what;
    EXPECT_TRUE(Finite(a["max_abs"])) << what;
    EXPECT_TRUE(Finite(a["snr_db"]) || a["snr_db"].Str() == "inf") << what;
    if (r["kind"].Str() == "vlak") EXPECT_TRUE(a["bound_ok"].Bool()) << what << " outside " << a["bound"].Str();
    if (mode == "time") {
      EXPECT_GT(r["time"]["median"].Num(0), 0) << what;
      EXPECT_LE(r["time"]["q1"].Num(), r["time"]["q3"].Num()) << what;
      EXPECT_GE(r["time"]["samples"].Num(0), 5) << what;
      EXPECT_GT(r["gbps"].Num(0), 0) << what;
      EXPECT_GT(r["elements_per_s"].Num(0), 0) << what;
      EXPECT_NEAR(r["norm_unit"].Num(0), r["elements_per_s"].Num(0) / 1e10, 1e-6 * r["norm_unit"].Num(1)) << what;
    } else {
      EXPECT_GT(r["icount"]["instructions"].Num(0), 0) << what;
      EXPECT_NEAR(r["icount"]["per_element"].Num(0), r["icount"]["instructions"].Num(0) / r["elements"].Num(1), 1e-9) << what;
      if (m["vlen"].Num(0) > 0) {
        EXPECT_EQ(r["icount"]["vlen"].Num(0), m["vlen"].Num(0)) << what;
        // The fixed-LMUL kernel's last vsetvli is its own: the readout must say so.
        if (r["impl"].Str() == "vlak-accurate-m2") EXPECT_EQ(r["icount"]["vtype"].Str(), "e32m2") << what;
      }
    }
  }
  for (const char* must : {"vlak", "vlak-accurate-m2", "naive", "c-clang", "vlak-accurate", "vlak-schraudolph"}) {
    EXPECT_TRUE(ok_impls.count(must)) << must << " did not run";
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
