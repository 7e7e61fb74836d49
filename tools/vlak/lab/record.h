// One result record per (case, implementation), and the files and tables made of them.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/ops.h"
#include "lab/stats.h"

namespace vlak::lab {

// Results files are JSON through nlohmann-json; ordered_json keeps the members in the order they
// are written, so files diff cleanly.
using Json = nlohmann::ordered_json;

// Loose reads for files written by older versions: a missing key or a value of another type gives
// the fallback. Numbers that are not finite are written as null (NaN) or, where an infinity means
// something (the SNR of an exact result), as the strings "inf" / "-inf"; JNum reads both back.
double JNum(const Json& j, const char* key, double fallback = __builtin_nan(""));
std::string JStr(const Json& j, const char* key);
// The member or a null value (never throws, never inserts).
const Json& JGet(const Json& j, const char* key);
// Parses text; on failure false and *err = nlohmann's message (with the byte position).
bool ParseJson(const std::string& text, Json* out, std::string* err);

// The results file format written now. Version 2 adds the roofline fields (roofline, gflops,
// flops_per_run) and writes counts as integers; version 1 files read back the same, without them.
inline constexpr const char* kResultsFormat = "vlak-lab-results/2";

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

  // Roofline (time mode). bound_kind "memory": the case's copy bandwidth, measured in the same run
  // for the same bytes and threads (copy_gbps), pct_of_bound = 100 * gbps / copy_gbps. "compute":
  // the FMA peak of peak_target on the case's threads (peak_gflops), pct_of_bound = 100 * gflops /
  // peak_gflops. "" when the operator declares no bound or it was not measured (icount mode).
  std::string bound_kind;
  double flops_per_run = 0;  // 0: not a flop-counted operator
  double gflops = __builtin_nan("");
  double copy_gbps = __builtin_nan("");
  double peak_gflops = __builtin_nan("");
  std::string peak_target;
  double pct_of_bound = __builtin_nan("");

  // icount mode (RISC-V under the qemu-icount plugin): retired instructions of one run.
  double instructions = __builtin_nan("");
  double instr_per_element = __builtin_nan("");
  // The same run's instructions weighted by llvm-mca-22's per-instruction costs on the model whose
  // VLEN is qemu's (spacemit-x60 at 256, sifive-x280 at 512, sifive-p670 at 128; docs/riscv.md#cycles).
  double cycles = __builtin_nan("");
  double cycles_per_element = __builtin_nan("");
  std::string cycle_model;  // "" when not weighted
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
  // Cores' worth of CPU time other processes used over 0.2 s at the start (/proc/stat), < 0 if
  // unknown: the load average also counts a build that just ended, as `make bench` runs right after one.
  double busy_others = -1;
};

struct Results {
  std::string suite;
  Machine machine;
  Json settings = Json::object();
  std::vector<Record> records;
};

Json ToJson(const Record& r);
Record RecordFromJson(const Json& j);
Json ToJson(const Results& r);
bool ResultsFromJson(const Json& j, Results* out, std::string* err);
bool ReadResultsFile(const std::string& path, Results* out, std::string* err);
// The text of a results file: one space of indent per level, as version 1 wrote it.
std::string DumpJson(const Json& j);
bool WriteTextFile(const std::string& path, const std::string& text, std::string* err);

std::string CsvHeader();
std::string CsvRow(const Record& r);

// The console table: one block per case, a row per implementation.
void PrintTable(FILE* out, const std::vector<Record>& records);

// Formatting helpers shared with the report.
std::string FormatSeconds(double s);
std::string FormatNumber(double v, int sig = 3);  // 3 significant digits, "-" for NaN
std::string FormatSci(double v);                  // 1.2e-07, "-" for NaN, "inf"
std::string FormatPercent(double pct);            // "83%", "4.2%", "-" for NaN

}  // namespace vlak::lab
