// `vlak npu`: the chisel-npu tutorial's LUT NPU model (src/npu).
//   vlak npu run PROGRAM.s|@NAME [--k 8] [--l 32] [--trace] [--set NAME=V[,V...]]... [--in V,V,...]
//       assemble and run a program; prints the output stream (rows of K), with --trace each
//       instruction and its destination lanes. Errors name the line.
//   vlak npu program NAME [--k 8] [--depth 8] [--scale S] [--step T]
//       print a built-in program (gemm_softmax is generated for K, depth, scale, step)
//   vlak npu accuracy [--quick]
//       the error table: the tutorial's program, the corrected 16-bit-exp program and the 8-bit-exp
//       control over the int8 softmax test sets, against float64 (LSB of the int8 output)
//   vlak npu tables
//       the tutorial's LUTs as regenerated (sums, spot values)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "npu/npu.h"
#include "npu/softmax_eval.h"

namespace vlak::cli {
namespace {

using npu::ErrorStats;

int Usage() {
  std::fprintf(stderr,
               "usage: vlak npu run PROGRAM.s|@NAME [--k K] [--l L] [--trace] [--set NAME=V[,V...]] [--in V,V,...]\n"
               "       vlak npu program NAME [--k K] [--depth D] [--scale S] [--step T]\n"
               "       vlak npu accuracy [--quick]\n"
               "       vlak npu tables\n"
               "built-in programs:");
  for (const std::string& n : npu::ProgramNames()) std::fprintf(stderr, " @%s", n.c_str());
  std::fprintf(stderr, " @gemm_softmax\n");
  return 2;
}

bool ParseList(const std::string& s, std::vector<double>* v) {
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double x = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0') return false;
    v->push_back(x);
  }
  return !v->empty();
}

int Run(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string path = argv[1];
  int k = 8, l = 32, depth = 8;
  bool trace = false;
  double scale = 0.125, step = 1.0 / 32;
  npu::Symbols symbols;
  std::vector<double> in;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--trace") {
      trace = true;
    } else if (a == "--k" || a == "--l" || a == "--depth") {
      const char* v = next();
      if (!v) return Usage();
      (a == "--k" ? k : a == "--l" ? l : depth) = std::atoi(v);
    } else if (a == "--scale" || a == "--step") {
      const char* v = next();
      if (!v) return Usage();
      (a == "--scale" ? scale : step) = std::atof(v);
    } else if (a == "--set") {
      const char* v = next();
      const char* eq = v ? std::strchr(v, '=') : nullptr;
      std::vector<double> vals;
      if (!eq || !ParseList(eq + 1, &vals)) {
        std::fprintf(stderr, "vlak npu: --set needs NAME=V[,V...]\n");
        return 2;
      }
      symbols[std::string(v, eq)] = vals;
    } else if (a == "--in") {
      const char* v = next();
      if (!v || !ParseList(v, &in)) {
        std::fprintf(stderr, "vlak npu: --in needs V,V,...\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "vlak npu: unknown option '%s'\n", a.c_str());
      return 2;
    }
  }
  if (k < 1 || k > 1024 || l < 4 || l % 4 != 0) {
    std::fprintf(stderr, "vlak npu: K must be in [1, 1024] and L a positive multiple of 4\n");
    return 2;
  }
  std::string text;
  if (path == "@gemm_softmax") {
    text = npu::GemmSoftmaxProgram(k, depth, scale, step);
  } else if (!path.empty() && path[0] == '@') {
    text = npu::ProgramText(path.substr(1));
    if (text.empty()) {
      std::fprintf(stderr, "vlak npu: no built-in program '%s'\n", path.c_str());
      return 2;
    }
  } else {
    std::ifstream f(path);
    if (!f) {
      std::fprintf(stderr, "vlak npu: cannot read '%s'\n", path.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  npu::Program prog;
  std::string error;
  if (!npu::Assemble(text, k, l, symbols, &prog, &error)) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
    return 1;
  }
  npu::Machine m(k, l);
  std::vector<int8_t> input;
  for (double x : in) {
    if (x < -128 || x > 127 || x != static_cast<int>(x)) {
      std::fprintf(stderr, "vlak npu: --in value %g is not an int8\n", x);
      return 2;
    }
    input.push_back(static_cast<int8_t>(x));
  }
  m.SetInput(input);
  std::string tr;
  const bool ok = m.Run(prog, 0, &error, trace ? &tr : nullptr);
  std::fputs(tr.c_str(), stdout);
  if (!ok) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
    return 1;
  }
  const std::vector<int64_t>& out = m.Output();
  for (size_t i = 0; i < out.size(); ++i) {
    std::printf("%s%lld", i % k == 0 ? (i ? "\n" : "") : " ", static_cast<long long>(out[i]));
  }
  if (!out.empty()) std::printf("\n");
  return 0;
}

int Program(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string name = argv[1];
  int k = 8, depth = 8;
  double scale = 0.125, step = 1.0 / 32;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--k") k = std::atoi(argv[i + 1]);
    else if (a == "--depth") depth = std::atoi(argv[i + 1]);
    else if (a == "--scale") scale = std::atof(argv[i + 1]);
    else if (a == "--step") step = std::atof(argv[i + 1]);
    else return Usage();
  }
  if (name == "gemm_softmax") {
    std::fputs(npu::GemmSoftmaxProgram(k, depth, scale, step).c_str(), stdout);
    return 0;
  }
  const std::string& text = npu::ProgramText(name);
  if (text.empty()) return Usage();
  std::fputs(text.c_str(), stdout);
  return 0;
}

void Row(const char* set, const char* prog, const ErrorStats& s) {
  std::printf("| %-26s | %-10s | %10lld | %6lld | %6lld | %+9.5f | %8.5f | %-4s |\n", set, prog,
              static_cast<long long>(s.n), static_cast<long long>(s.max_abs), static_cast<long long>(s.Median()),
              s.Mean(), s.MeanAbs(), s.MeetsContract() ? "yes" : "NO");
}

int Accuracy(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const auto t0 = std::chrono::steady_clock::now();
  const double scales[] = {1.0 / 64, 1.0 / 32, 1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0};
  std::string error;

  std::printf("NPU softmax programs against float64, int8 output (scale 1/256, zero point -128),\n"
              "delta = y - clamp(floor(256 p + 0.5) - 128), over scales 1/64, 1/32, ..., 1 (LSB of y)\n\n");
  std::printf("| %-26s | %-10s | %10s | %6s | %6s | %9s | %8s | %-4s |\n", "test set", "program", "outputs", "max|d|",
              "median", "mean", "mean|d|", "TFLite contract");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", std::string(28, '-').c_str(), std::string(12, '-').c_str(),
              std::string(12, '-').c_str(), std::string(8, '-').c_str(), std::string(8, '-').c_str(),
              std::string(11, '-').c_str(), std::string(10, '-').c_str(), std::string(6, '-').c_str());

  // The tutorial's program: its own units (p in 1/128, logits SQ1.6 = q / 64), random rows at K = 8.
  {
    const std::vector<int8_t> rows = npu::RandomRows(8, quick ? 2000 : 100000, 1);
    std::vector<int64_t> y;
    if (!npu::RunSeedRows(8, rows, &y, &error)) {
      std::fprintf(stderr, "vlak npu accuracy: %s\n", error.c_str());
      return 1;
    }
    ErrorStats s;
    int ref[8];
    for (size_t r = 0; r < rows.size() / 8; ++r) {
      npu::ReferenceSeed(&rows[r * 8], 8, ref);
      for (int i = 0; i < 8; ++i) s.Add(y[r * 8 + i] - ref[i]);
    }
    Row("random K=8 (p in 1/128)", "seed", s);
  }

  struct Set {
    const char* name;
    int k;
    std::vector<int8_t> rows;
  };
  std::vector<Set> sets;
  sets.push_back({"K=2 all 65,536 pairs", 2, npu::AllPairsK2()});
  sets.push_back({"K=3 difference pairs", 3, npu::DifferencePairsK3(quick ? 7 : 1)});
  sets.push_back({"two-level K=8", 8, npu::TwoLevel(8, quick ? 5 : 1)});
  sets.push_back({"two-level K=64", 64, npu::TwoLevel(64, quick ? 5 : 1)});
  sets.push_back({"bimodal K=64", 64, npu::Bimodal(64, quick ? 500 : 5000, 2)});
  sets.push_back({"random K=8", 8, npu::RandomRows(8, quick ? 5000 : 100000, 3)});
  sets.push_back({"random K=64", 64, npu::RandomRows(64, quick ? 500 : 10000, 4)});
  {
    std::vector<int8_t> sat = npu::SaturationRow(8);
    sets.push_back({"saturation row K=8", 8, sat});
    sets.push_back({"uniform (tests A-D) K=8", 8, std::vector<int8_t>(8, 10)});
  }
  ErrorStats all16, all8;
  for (const Set& set : sets) {
    for (const char* prog : {"softmax16", "softmax8"}) {
      ErrorStats s;
      for (double scale : scales) {
        if (!npu::Measure(npu::ProgramText(prog), set.k, scale, set.rows, &s, &error)) {
          std::fprintf(stderr, "vlak npu accuracy: %s: %s\n", prog, error.c_str());
          return 1;
        }
      }
      Row(set.name, prog, s);
      (std::strcmp(prog, "softmax16") == 0 ? all16 : all8).Merge(s);
    }
  }
  Row("all sets", "softmax16", all16);
  Row("all sets", "softmax8", all8);

  // Per scale, the random K=64 rows (where 8-bit exps lose most).
  std::printf("\nper scale, random K=64 rows: max|d| softmax16 / softmax8\n");
  const std::vector<int8_t> r64 = npu::RandomRows(64, quick ? 200 : 2000, 5);
  for (double scale : scales) {
    ErrorStats a, b;
    if (!npu::Measure(npu::ProgramText("softmax16"), 64, scale, r64, &a, &error) ||
        !npu::Measure(npu::ProgramText("softmax8"), 64, scale, r64, &b, &error)) {
      std::fprintf(stderr, "vlak npu accuracy: %s\n", error.c_str());
      return 1;
    }
    std::printf("  scale %-9.6f  %lld / %lld   (mean|d| %.5f / %.5f)\n", scale, static_cast<long long>(a.max_abs),
                static_cast<long long>(b.max_abs), a.MeanAbs(), b.MeanAbs());
  }
  // GEMM + softmax over mma: softmax(Q K^T scale) of random int8 Q, K (K = 8, depth 8).
  std::printf("\nGEMM + softmax (mma, index step 1/32), K = 8, depth 8, random int8 Q and K, vs float64:\n");
  ErrorStats gall;
  for (double scale : {1.0 / 4096, 1.0 / 1024, 1.0 / 256, 1.0 / 64}) {
    ErrorStats g;
    if (!npu::MeasureGemm(8, 8, scale, 1.0 / 32, quick ? 50 : 1000, 6, &g, &error)) {
      std::fprintf(stderr, "vlak npu accuracy: gemm: %s\n", error.c_str());
      return 1;
    }
    char name[64];
    std::snprintf(name, sizeof name, "gemm scale 1/%.0f", 1.0 / scale);
    Row(name, "gemm16", g);
    gall.Merge(g);
  }
  Row("gemm all scales", "gemm16", gall);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n%.1f s%s\n", secs, quick ? " (--quick: subsets)" : "");
  return all16.MeetsContract() && !all8.MeetsContract() ? 0 : 1;
}

int Tables() {
  const std::vector<int> e = npu::SeedExpTable(), r = npu::SeedRecipTable();
  long se = 0, sr = 0;
  int neg = 0;
  for (int i = 0; i < 256; ++i) {
    se += e[i];
    sr += r[i];
    neg += e[i] < 0;
  }
  std::printf("seed lutExp:   sum %ld, %d negative; [0] %d [127] %d [128] %d [211] %d [212] %d [255] %d\n", se, neg, e[0],
              e[127], e[128], e[211], e[212], e[255]);
  std::printf("seed lutRecip: sum %ld; [1] %d [32] %d [33] %d [64] %d [127] %d [128] %d [255] %d\n", sr, r[1], r[32], r[33],
              r[64], r[127], r[128], r[255]);
  return 0;
}

}  // namespace

int CmdNpu(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string sub = argv[1];
  if (sub == "run") return Run(argc - 1, argv + 1);
  if (sub == "program") return Program(argc - 1, argv + 1);
  if (sub == "accuracy") return Accuracy(argc - 1, argv + 1);
  if (sub == "tables") return Tables();
  return Usage();
}

}  // namespace vlak::cli
