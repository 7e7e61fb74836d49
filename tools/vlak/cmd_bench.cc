// `vlak bench`: runs a suite (operator x shape x implementation x threads), prints the table and
// writes JSON/CSV for `vlak report`. See tools/vlak/lab/suite.h for the suite format and
// runner.h for how time and instructions are measured.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "lab/baselines.h"
#include "lab/machine.h"
#include "lab/record.h"
#include "lab/runner.h"
#include "lab/summary.h"
#include "lab/suite.h"
#include "vlak/vlak.h"

namespace vlak::cli {
namespace {

using namespace vlak::lab;

constexpr const char* kOptions =
    "--suite --op --shapes --impls --threads --min-time --baseline --json --csv --tables --summary --quiet --strict "
    "--list --help";

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: vlak bench [--suite quick|full|rvv|FILE] [--op OP] [--shapes S1,S2] [--impls P1,P2]\n"
               "                  [--threads 1,all] [--min-time SECONDS] [--baseline NAME]\n"
               "                  [--json FILE] [--csv FILE] [--tables FILE] [--summary] [--quiet] [--strict]\n"
               "                  [--list]\n"
               "  --suite     a built-in suite (%s) or a suite file (default quick)\n"
               "  --op        only this operator's cases (with --shapes/--impls: a case of its own)\n"
               "  --shapes    replace the shapes of the cases run (softmax ROWSxCOLS, exp N)\n"
               "  --impls     replace the implementations (names or globs: vlak@*, vlak-*)\n"
               "  --threads   thread counts, e.g. 1,2 or 1,all (default: the suite's, usually 1,all)\n"
               "  --baseline  ratios are against this implementation (default per operator)\n"
               "  --tables    also write the full tables (as printed without --summary) to FILE\n"
               "  --summary   print only the summary (per operator: vlak against its fastest peer),\n"
               "              not the tables; it ends every run\n"
               "  --strict    exit 1 when an implementation fails its accuracy bound or errors\n"
               "  --list      operators, implementations (and whether they run here) and suites\n"
               "On RISC-V under scripts/rvv-run (qemu-icount plugin), instructions per element are\n"
               "measured instead of time.\n",
               BuiltinSuiteNames().c_str());
}

int Bad(const std::string& msg) {
  std::fprintf(stderr, "vlak bench: %s\n", msg.c_str());
  return 2;
}

void List() {
  std::printf("suites: %s\n", BuiltinSuiteNames().c_str());
  for (const OpDef& op : Operators()) {
    std::printf("\n%s  shapes: %s; %s\n", op.name.c_str(), op.shape_syntax.c_str(), op.bytes_formula.c_str());
    for (const ImplDef& d : op.impls) {
      const std::string why = d.unavailable();
      std::printf("  %-24s %-8s %s%s\n", d.name.c_str(), d.kind.c_str(), d.description.c_str(),
                  why.empty() ? "" : ("  [" + why + "]").c_str());
    }
  }
}

}  // namespace

void BenchEnvironment(char** argv) {
#if defined(__x86_64__)
  // OpenBLAS's idle workers call sched_yield in a loop for 2^28 TSC ticks (about 0.1 s) after each
  // call. On a 2-core machine they slowed the implementation timed after OpenBLAS's turn even
  // though each turn starts from a quiet process (runner.cc): matmul 16x1536x384 at 2 threads on
  // a Zen 4 EPYC, vlak 98 us alone and 116-191 us with OpenBLAS in the case (docs/lab.md).
  // OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when it is loaded, before main, so it is set here
  // (2^4 ticks: the workers sleep at once; its own times did not change) and the process runs
  // again. Set it to override.
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT") != nullptr || !lab::OpenblasMissing().empty()) return;
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
  execv("/proc/self/exe", argv);  // on failure, run on as is
#else
  (void)argv;
#endif
}

int CmdBench(int argc, char** argv) {
  std::string suite_name = "quick", only_op, json_path, csv_path, tables_path;
  std::vector<std::string> shapes, impls;
  SuiteOverrides over;
  bool quiet = false, strict = false, summary_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      Usage(stdout);
      return 0;
    }
    if (a == "--list") {
      List();
      return 0;
    }
    if (a == "--quiet" || a == "-q") {
      quiet = true;
      continue;
    }
    if (a == "--strict") {
      strict = true;
      continue;
    }
    if (a == "--summary") {
      summary_only = true;
      continue;
    }
    const bool takes_value = a == "--suite" || a == "--op" || a == "--shapes" || a == "--impls" || a == "--threads" ||
                             a == "--min-time" || a == "--baseline" || a == "--json" || a == "--csv" || a == "--tables";
    if (!takes_value) return Bad("unknown option '" + a + "' (valid: " + kOptions + ")");
    if (i + 1 >= argc) return Bad("missing value for " + a);
    const std::string v = argv[++i];
    if (a == "--suite") suite_name = v;
    else if (a == "--op") only_op = v;
    else if (a == "--shapes") shapes = SplitList(v);
    else if (a == "--impls") impls = SplitList(v);
    else if (a == "--threads") over.threads = {v};
    else if (a == "--baseline") over.baseline = v;
    else if (a == "--json") json_path = v;
    else if (a == "--csv") csv_path = v;
    else if (a == "--tables") tables_path = v;
    else if (a == "--min-time") {
      char* end = nullptr;
      over.min_time = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(over.min_time >= 0) || over.min_time > 3600) {
        return Bad("bad --min-time '" + v + "' (seconds, e.g. 0.2)");
      }
    }
  }

  if (vlak_target_error() != VLAK_OK) {
    const char* forced = std::getenv("VLAK_TARGET");
    return Bad(std::string("VLAK_TARGET=") + (forced ? forced : "") + " cannot be used here (" +
               vlak_status_string(vlak_target_error()) + "; valid: scalar avx2 avx512 rvv, as the CPU allows)");
  }
  if (!only_op.empty() && FindOp(only_op) == nullptr) return Bad("unknown operator '" + only_op + "' (valid: " + OpNames() + ")");
  if (!over.threads.empty()) {
    std::vector<int> t;
    std::string e;
    if (!ParseThreadList(over.threads, &t, &e)) return Bad(e);
  }

  Suite suite;
  std::string err;
  if (!LoadSuite(suite_name, &suite, &err)) return Bad(err);
  if (!only_op.empty()) {
    std::vector<CaseSpec> kept;
    for (const auto& c : suite.cases) if (c.op == only_op) kept.push_back(c);
    if (kept.empty()) {
      if (shapes.empty()) return Bad("suite " + suite.name + " has no " + only_op + " cases: give --shapes");
      CaseSpec c;
      c.op = only_op;
      c.impls = {"*"};
      kept.push_back(c);
    }
    suite.cases = kept;
  }
  for (auto& c : suite.cases) {
    if (!shapes.empty()) c.shapes = shapes;
    if (impls.empty()) continue;
    c.impls = impls;
    if (const OpDef* op = FindOp(c.op)) {
      for (const auto& pat : impls) {
        if (MatchImpls(*op, pat).empty()) {
          return Bad("--impls: unknown implementation '" + pat + "' for " + op->name + " (valid: " + op->ImplNames() + ")");
        }
      }
    }
  }
  std::vector<Case> cases;
  if (!ExpandSuite(suite, over, &cases, &err)) return Bad(err);
  if (cases.empty()) return Bad("nothing to run");
  if (!over.baseline.empty()) {
    bool known = false;
    std::string valid;
    for (const Case& c : cases) {
      if (c.op->Find(over.baseline)) known = true;
      if (valid.find(c.op->name + ":") == std::string::npos) valid += " " + c.op->name + ": " + c.op->ImplNames() + ";";
    }
    if (!known) return Bad("unknown --baseline '" + over.baseline + "' (valid:" + valid + ")");
  }

  // Idle workers that spin are charged to whichever implementation runs next. The lab's OpenMP is
  // GNU libgomp (lab/gomp.h), which reads OMP_WAIT_POLICY / GOMP_SPINCOUNT when it is loaded,
  // before main: only the caller can set those. LLVM libomp (200 ms of spinning by default) is no
  // longer in the lab, but a library could still bring it: it reads KMP_BLOCKTIME at its first
  // parallel region, so sleeping at once is set here (set it to override).
  setenv("KMP_BLOCKTIME", "0", 0);

  // A count above the CPUs is run as asked (a suite written for a bigger machine still runs), but
  // its threads take turns on the cores: said before the run, and again under the table.
  int most = 0;
  for (const Case& c : cases) most = std::max(most, c.threads);
  std::string oversubscribed;
  if (most > CpuCount()) {
    oversubscribed = "note: cases at up to " + std::to_string(most) + " threads run that many threads on the " +
                     std::to_string(CpuCount()) + " CPUs this process may use: they measure time-sharing, not scaling.\n";
    std::fputs(oversubscribed.c_str(), stderr);
  }

  RunOptions opt;
  opt.icount = IcountAvailable();
  opt.suite = suite.name;
  ProgressLine progress(!quiet && isatty(STDERR_FILENO), cases);
  opt.progress = [&](size_t done, size_t total, const std::string& label) { progress.Update(done, total, label); };

  Results res;
  res.suite = suite.name;
  res.machine = CollectMachine();
  res.settings["min_time_s"] = cases.front().min_time;
  res.settings["mode"] = opt.icount ? "icount" : "time";
  res.settings["min_rounds"] = opt.min_rounds;
  res.settings["interleaved"] = true;
  if (!over.threads.empty()) res.settings["threads"] = over.threads[0];
  res.records = RunCases(cases, opt);
  progress.Finish();

  const Machine& m = res.machine;
  std::printf("vlak bench %s: %s; %s; vlak %s, target %s; commit %s\n", suite.name.c_str(), m.cpu.c_str(), m.isa.c_str(),
              m.vlak_version.c_str(), m.vlak_target.c_str(), m.commit.c_str());
  // The tables: on stdout, or (--summary) only in the --tables file.
  const auto tables = [&](FILE* out) {
    if (opt.icount) std::fprintf(out, "instructions per run counted by qemu-icount (one run per case; VLEN %d)\n", m.vlen);
    else std::fprintf(out, "median of %g s+ of interleaved runs per implementation; +- = half the IQR; norm = AI-Benchmark's elements/s/1e10\n",
                      cases.front().min_time);
    PrintTable(out, res.records);
  };
  if (!summary_only) tables(stdout);
  int rc = 0;
  if (!tables_path.empty()) {
    FILE* f = std::fopen(tables_path.c_str(), "w");
    if (f != nullptr) tables(f);
    if (f == nullptr || std::fclose(f) != 0) {
      std::fprintf(stderr, "vlak bench: cannot write %s\n", tables_path.c_str());
      rc = 1;
    }
  }

  // A busy machine is worth saying out loud: medians survive it, multi-thread runs do not. The
  // load average alone also counts a build that has just ended, so other processes must also have
  // been busy at the start (a quarter of a core or more over 0.2 s), where that was measured.
  const double load1 = std::atof(m.load.c_str());
  if (!opt.icount && load1 > 0.75 * m.cores && (m.busy_others < 0 || m.busy_others >= 0.25)) {
    std::printf("\nnote: load average %s on %d cores when the run started: other jobs shared the CPU, so spreads are wide "
                "and multi-thread cases mostly measure waiting for a core.\n", m.load.c_str(), m.cores);
  }

  if (!oversubscribed.empty()) std::printf("\n%s", oversubscribed.c_str());

  size_t flagged = 0, failed = 0;
  for (const Record& r : res.records) {
    if (r.acc.bound_ok == 0) ++flagged;
    if (r.status == "failed") ++failed;
  }
  std::printf("\n%zu cases, %zu records; %zu outside their accuracy bound, %zu failed\n", cases.size(), res.records.size(),
              flagged, failed);
  for (const Record& r : res.records) {
    if (r.acc.bound_ok == 0) {
      std::printf("  FAIL bound: %s %s t%d %s: max rel %s (%s)\n", r.op.c_str(), r.shape.c_str(), r.threads, r.impl.c_str(),
                  FormatSci(r.acc.max_rel).c_str(), r.bound.c_str());
    }
  }
  std::printf("\n");
  PrintSummary(stdout, res.records);
  if (!tables_path.empty()) std::printf("tables: %s\n", tables_path.c_str());
  if (!json_path.empty()) {
    if (!WriteTextFile(json_path, DumpJson(ToJson(res)) + "\n", &err)) {
      std::fprintf(stderr, "vlak bench: %s\n", err.c_str());
      rc = 1;
    } else {
      std::printf("results: %s\n", json_path.c_str());
    }
  }
  if (!csv_path.empty()) {
    std::string csv = CsvHeader();
    for (const Record& r : res.records) csv += CsvRow(r);
    if (!WriteTextFile(csv_path, csv, &err)) {
      std::fprintf(stderr, "vlak bench: %s\n", err.c_str());
      rc = 1;
    } else {
      std::printf("csv: %s\n", csv_path.c_str());
    }
  }
  if (strict && (flagged || failed)) {
    std::fprintf(stderr, "vlak bench: --strict: %zu outside their accuracy bound, %zu failed\n", flagged, failed);
    return 1;
  }
  return rc;
}

}  // namespace vlak::cli
