// One result record per (case, implementation), and the files and tables made of them.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "lab/json.h"
#include "lab/ops.h"
#include "lab/stats.h"

namespace vlak::lab {

struct Record {
  std::string suite, op, shape, impl, kind, description;
  std::vector<size_t> dims;
  size_t elements = 0;
  int threads = 1;
  double bytes_per_run = 0;
  std::string bytes_formula;
  // "ok", "not built" (a baseline missing from this build), "unavailable" (the CPU lacks the
  // target), "failed" (returned an error); detail says more.
  std::string status = "ok";
  std::string detail;
  std::string target;  // vlak target used, "" for other code
  std::string mode;    // "time" or "icount"

  // Time mode: seconds per run over the samples, and what follows from the median.
  Summary time;
  size_t runs = 0;
  double gbps = __builtin_nan(""), elements_per_s = __builtin_nan(""), norm_unit = __builtin_nan("");
  // Ratio = baseline's time / this one's, the median over interleaved rounds (> 1: faster).
  std::string baseline;
  double speedup = __builtin_nan("");
  std::map<std::string, double> ratios;  // the same against every non-vlak implementation of the case

  Accuracy acc;
  std::string bound;  // the bound's text, "" when not checked

  // icount mode (RISC-V under the qemu-icount plugin): retired instructions of one run.
  double instructions = __builtin_nan("");
  double instr_per_element = __builtin_nan("");
  int vlen = 0;         // bits, 0 off RVV
  int lmul = 0;         // LMUL the implementation is written for (0: its own choice)
  std::string vtype;    // vtype left by the kernel's last vsetvli ("e32m8"), "" off RVV

  bool Ok() const { return status == "ok"; }
  bool Failed() const { return status == "failed" || acc.bound_ok == 0; }
  std::string CaseKey() const { return op + " " + shape + " t" + std::to_string(threads) + (vlen ? " vlen" + std::to_string(vlen) : ""); }
};

struct Machine {
  std::string cpu, isa, arch, compiler, commit, date, host, vlak_version, vlak_target;
  int cores = 0, vlen = 0;
  std::map<std::string, std::string> compilers;  // "c-gcc" -> "gcc 12.2.0 -O3 ..."
  std::map<std::string, std::string> libraries;  // "xnnpack" -> version or "not built"
  std::string omp_blocktime;
  std::string load;  // /proc/loadavg's 1, 5, 15 minute averages when the run started
};

struct Results {
  std::string suite;
  Machine machine;
  Json settings = Json::Object();
  std::vector<Record> records;
};

Json ToJson(const Record& r);
Record RecordFromJson(const Json& j);
Json ToJson(const Results& r);
bool ResultsFromJson(const Json& j, Results* out, std::string* err);
bool ReadResultsFile(const std::string& path, Results* out, std::string* err);
bool WriteTextFile(const std::string& path, const std::string& text, std::string* err);

std::string CsvHeader();
std::string CsvRow(const Record& r);

// The console table: one block per case, a row per implementation.
void PrintTable(FILE* out, const std::vector<Record>& records);

// Formatting helpers shared with the report.
std::string FormatSeconds(double s);
std::string FormatNumber(double v, int sig = 3);  // 3 significant digits, "-" for NaN
std::string FormatSci(double v);                  // 1.2e-07, "-" for NaN, "inf"

}  // namespace vlak::lab
