// Instruction budgets on RISC-V: retired instructions of one call, counted by the qemu-icount
// plugin between vlak_icount_begin()/end() and read back from its live file (VLAK_ICOUNT_LIVE),
// compared with a per-VLEN budget from the operator's budget file, src/ops/<op>/<op>_budgets.tsv
// (below). One test binary (ctest: icount.budget.vlen<V>) holds tests/icount/icount_budget_test.cc,
// icount_budget_files.cc and every src/ops/<op>/<op>_icount.cc; run it under scripts/rvv-run:
//   scripts/rvv-run --vlen 256 build/rv64gcv/tests/vlak_icount_budget_test
// Every count is printed, also where the VLEN has no budget, so the log is the measurement.
//
// Cycle budgets: rvv-run has the plugin weight each region's instructions by the cost table
// (tools/qemu-icount/rvv-costs.tsv: llvm-mca-22's reciprocal throughput per mnemonic and SEW/LMUL
// on the model whose VLEN is qemu's; docs/riscv.md#cycles). CheckBudget prints those cycles beside
// the instructions and, at VLEN 256 (the SpacemiT X60 model), checks them against the case's cycle
// budget (the last column of its budget row). Measured values of every case, and the files' cycle
// column rewritten to them: scripts/rvv-cycles --budgets [--write].
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <charconv>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "icount_live.h"
#include "icount_marker.h"
#include "vlak/vlak.h"

#if !defined(__riscv_vector)
#error "the instruction budget test is a riscv64 guest program for the rv64gcv build"
#endif

// A named namespace, not an anonymous one: the tests of every file share one fixture class (gtest
// requires it of a test suite) and one table of registered budgets.
namespace vlak_icount {

inline constexpr size_t kN = 2048;

// A case's budgets for one call (after a warm-up call): retired instructions per VLEN, and x60,
// the cycles on the SpacemiT X60 model (VLEN 256): the plugin's weighted cycles (whole call:
// scalar code, tails and set-up included), rounded up. 0 = no budget there (the count is only
// printed). Budgets only go down: when a change lowers a count, lower its budget in its file in
// the same commit. Each budget is the count the code reached when it was set, so a change that
// adds an instruction fails here. The x60 column is scripts/rvv-cycles --budgets --write's to set.
//
// The budgets are data, one file per operator beside its tests: src/ops/<op>/<op>_budgets.tsv
// for src/ops/<op>/<op>_icount.cc (the SFPI kernels': tests/icount/sfpi_budgets.tsv), read when
// the binary starts (tests/CMakeLists.txt passes their paths). A file holds '#' comments, blank
// lines and rows, their fields separated by white space (tabs or spaces):
//   # case                      VLEN 128    256    512   X60 cycles
//   softmax_f32/2048                 7134   3695   1967        8421
//   [goals]
//   softmax_f32/2048                 2516   1342    755
// A budget row has five fields: the case, its instruction budgets at VLEN 128, 256 and 512, and
// its X60 cycle budget. The rows after the line [goals] are goals where they are not yet met
// (printed beside the count, not asserted): four fields, no cycles. A case has at most one row of
// each kind over all the files. A file that is missing or malformed fails the run (naming the
// file and line); a case measured with no row is only printed.
struct Budget {
  std::string name;
  unsigned long long vlen128 = 0, vlen256 = 0, vlen512 = 0;
  unsigned long long x60 = 0;
  std::string where;  // the row's file (relative to the source tree) and line: "src/ops/x/x_budgets.tsv:4"
};

// The model whose cycles are budgeted, and its VLEN.
inline constexpr const char* kCycleModel = "spacemit-x60";
inline constexpr int kCycleVlen = 256;

// The rows of every budget file of the binary: budgets, and goals.
struct BudgetTables {
  std::vector<Budget> budgets, goals;
};

inline BudgetTables& RegisteredTables() {
  static BudgetTables tables;
  return tables;
}

// A whole number field of a budget file, or false.
inline bool ParseCount(const std::string& field, unsigned long long& value) {
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  return ec == std::errc() && ptr == end && !field.empty();
}

// Adds the rows of one budget file, its text in `in` and its name (as messages show it) in
// `shown`, to tables. Returns "" or the first error, as "<shown>:<line>: <what is wrong>".
inline std::string ParseBudgets(std::istream& in, const std::string& shown, BudgetTables& tables) {
  bool goals = false;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string at = shown + ":" + std::to_string(lineno);
    std::istringstream words(line);
    std::vector<std::string> f;
    for (std::string w; words >> w;) f.push_back(w);
    if (f.empty() || f[0][0] == '#') continue;
    if (f.size() == 1 && f[0] == "[goals]") {
      if (goals) return at + ": a second [goals] line";
      goals = true;
      continue;
    }
    const size_t want = goals ? 4 : 5;
    if (f.size() != want) {
      return at + ": " + std::to_string(f.size()) + " fields, not " + std::to_string(want) +
             (goals ? " (a goal row: case, VLEN 128, 256, 512)"
                    : " (a budget row: case, VLEN 128, 256, 512, X60 cycles)");
    }
    Budget b{f[0], 0, 0, 0, 0, at};
    unsigned long long* values[] = {&b.vlen128, &b.vlen256, &b.vlen512, &b.x60};
    for (size_t k = 1; k < want; ++k) {
      if (!ParseCount(f[k], *values[k - 1])) return at + ": '" + f[k] + "' is not a whole number";
    }
    std::vector<Budget>& rows = goals ? tables.goals : tables.budgets;
    for (const Budget& r : rows) {
      if (r.name == b.name) {
        return at + ": " + b.name + " has a " + (goals ? "goal" : "budget") + " row already, at " + r.where;
      }
    }
    rows.push_back(std::move(b));
  }
  return "";
}

// Reads every budget file of the binary into RegisteredTables(): files lists their paths relative to
// source_dir, separated by commas. Returns "" or the errors, one a line.
inline std::string LoadBudgetFiles(const std::string& source_dir, const std::string& files) {
  std::string errors;
  std::istringstream list(files);
  for (std::string name; std::getline(list, name, ',');) {
    std::ifstream in(source_dir + "/" + name);
    const std::string error = in ? ParseBudgets(in, name, RegisteredTables())
                                 : name + ": cannot read this budget file (in " + source_dir + ")";
    if (!error.empty()) errors += error + "\n";
  }
  return errors;
}

inline int Vlen() {
  unsigned long vlenb;
  __asm__ volatile("csrr %0, vlenb" : "=r"(vlenb));
  return static_cast<int>(vlenb * 8);
}

// A case's row in tables, nullptr if none.
inline const Budget* FindRow(const std::vector<Budget>& rows, const std::string& name) {
  for (const Budget& b : rows) {
    if (name == b.name) return &b;
  }
  return nullptr;
}

// The budget (or goal) of a case at a VLEN, 0 if none.
inline unsigned long long FindBudget(const std::vector<Budget>& rows, const std::string& name, int vlen) {
  const Budget* b = FindRow(rows, name);
  if (b == nullptr) return 0;
  if (vlen == 128) return b->vlen128;
  if (vlen == 256) return b->vlen256;
  if (vlen == 512) return b->vlen512;
  return 0;
}

// The plugin's live file (icount_live.h): the count, and with a cost table the cycles, of the
// region just closed. vlak_icount_live has no member initialisers and the reader sets every field,
// so Count's locals need no stores the compiler could schedule inside the measured region.
using Live = vlak_icount_live;

inline bool ReadLive(Live& live) { return vlak_icount_read_live(&live) != 0; }

// Every region Count measured, in order: CheckBudget(name, count) takes the cycles of the latest
// region that retired `count` instructions, so the files that pass counts around need not carry them.
inline std::vector<Live>& Measured() {
  static std::vector<Live> regions;
  return regions;
}

inline const Live* FindMeasured(unsigned long long count) {
  const std::vector<Live>& m = Measured();
  for (auto it = m.rbegin(); it != m.rend(); ++it) {
    if (it->last == count) return &*it;
  }
  return nullptr;
}

// Where a case's budget row is, for the messages that ask for it to be changed.
inline std::string RowOf(const std::string& name) {
  const Budget* b = FindRow(RegisteredTables().budgets, name);
  return b != nullptr ? b->where : "";
}

inline unsigned long long FindCycleBudget(const std::string& name) {
  const Budget* b = FindRow(RegisteredTables().budgets, name);
  return b != nullptr ? b->x60 : 0;
}

// Count's work before and after its region, out of line: what the compiler keeps live across the
// region (and so may spill or move into it) is one integer.
[[gnu::noinline]] inline unsigned long long RegionsClosed() {
  Live before;
  return ReadLive(before) ? before.regions : 0;  // no region closed yet: the file is still empty
}

[[gnu::noinline]] inline unsigned long long FinishCount(unsigned long long regions_before) {
  Live after;
  if (!ReadLive(after)) {
    ADD_FAILURE() << "cannot read the plugin's live file " << std::getenv("VLAK_ICOUNT_LIVE");
    return 0;
  }
  EXPECT_EQ(after.regions, regions_before + 1) << "the live file does not hold this region's count";
  Measured().push_back(after);
  return after.last;
}

// Retired instructions of call(), which must be observable through memory (see icount_marker.h).
template <typename Call>
unsigned long long Count(Call call) {
  const unsigned long long regions_before = RegionsClosed();
  vlak_icount_begin();
  call();
  vlak_icount_end();
  return FinishCount(regions_before);
}

// The weighted cycles of the region that retired `count` instructions: printed, and at VLEN 256
// checked against the case's X60 cycle budget. Every instruction must have a cost and a known vtype.
inline void CheckCycles(const std::string& name, unsigned long long count) {
  const Live* m = FindMeasured(count);
  if (m == nullptr || m->cycles < 0) return;  // not weighted (VLAK_COSTS= empty)
  const int vlen = Vlen();
  const bool budgeted = vlen == kCycleVlen && std::strcmp(m->model, kCycleModel) == 0;
  const unsigned long long budget = budgeted ? FindCycleBudget(name) : 0;
  std::printf("[ cycles   ] %-26s VLEN %4d %s: %.2f cycles", name.c_str(), vlen, m->model, m->cycles);
  if (budget != 0) {
    std::printf(" (budget %llu)\n", budget);
  } else {
    std::printf(budgeted ? " (no cycle budget)\n" : " (budgets are on %s)\n", kCycleModel);
  }
  std::fflush(stdout);
  testing::Test::RecordProperty("cycles", std::to_string(m->cycles));
  if (std::strcmp(m->model, "none") == 0) return;
  EXPECT_EQ(m->uncosted, 0u) << name << ": " << m->uncosted << " instructions have no cost in the table: rewrite it "
                             << "with scripts/rvv-cycles --cost-table --harvest (needs llvm-22)";
  EXPECT_EQ(m->unknown_vtype, 0u) << name << ": " << m->unknown_vtype
                                  << " vector instructions ran after a vsetvl, whose vtype the plugin cannot read";
  if (budget != 0) {
    EXPECT_LE(m->cycles, static_cast<double>(budget))
        << name << " is over its cycle budget on " << kCycleModel << " (its row: " << RowOf(name)
        << "; scripts/rvv-cycles --budgets --write sets the X60 column)";
  }
}

inline void CheckBudget(const std::string& name, unsigned long long count) {
  const int vlen = Vlen();
  const unsigned long long budget = FindBudget(RegisteredTables().budgets, name, vlen);
  const unsigned long long goal = FindBudget(RegisteredTables().goals, name, vlen);
  if (budget != 0) {
    std::printf("[ icount   ] %-26s VLEN %4d: %llu instructions (budget %llu", name.c_str(), vlen, count, budget);
    if (goal != 0) std::printf(", goal %llu: %+lld", goal, static_cast<long long>(count) - static_cast<long long>(goal));
    std::printf(")\n");
  } else {
    std::printf("[ icount   ] %-26s VLEN %4d: %llu instructions (no budget at this VLEN)\n", name.c_str(), vlen, count);
  }
  std::fflush(stdout);
  testing::Test::RecordProperty("instructions", std::to_string(count));
  if (budget != 0) {
    EXPECT_LE(count, budget) << name << " at VLEN " << vlen << " is over its instruction budget (its row: "
                             << RowOf(name) << ")";
  }
  CheckCycles(name, count);
}

// Retired instructions of call(), a vlak call that returns a vlak_status, after one warm-up call
// (work done once, such as a thread's tables or a packing buffer, is not counted); both calls must
// return VLAK_OK. It asserts, so the caller wraps it: ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp(...)).
template <typename Call>
void CountAfterWarmUp(Call call, unsigned long long& count) {
  ASSERT_EQ(call(), VLAK_OK);  // warm-up
  // Volatile: the status is stored, not also held in a register across the end marker, so the code
  // counted around the call is its arguments and one store.
  volatile vlak_status st = VLAK_OK;
  count = Count([&] { st = call(); });
  ASSERT_EQ(st, VLAK_OK);
}

// CountAfterWarmUp's count, for callers that go on with it (0 where a call failed: a test failure).
template <typename Call>
unsigned long long CountAfterWarmUp(Call call) {
  unsigned long long count = 0;
  CountAfterWarmUp(call, count);
  return count;
}

// Retired instructions of call(), a plain C peer that returns nothing, after one warm-up call.
template <typename Call>
unsigned long long CountPeerAfterWarmUp(Call call) {
  call();  // warm-up
  return Count(call);
}

// CountAfterWarmUp's count, printed per element and checked against the case's budget.
template <typename Call>
void MeasurePerElement(const std::string& name, size_t elements, Call call) {
  unsigned long long count = 0;
  ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp(call, count));
  std::printf("[ icount   ] %-26s %.3f instructions/element\n", name.c_str(), static_cast<double>(count) / elements);
  if (const Live* m = FindMeasured(count); m != nullptr && m->cycles >= 0) {
    std::printf("[ cycles   ] %-26s %.3f cycles/element (%s)\n", name.c_str(), m->cycles / elements, m->model);
  }
  CheckBudget(name, count);
}

// A vlak count beside its plain C peer's on the same counter, printed per output with how many
// times fewer, and checked against the case's budget. The goal (at least goal times fewer) is
// asserted where enforce_goal, else only printed when it is not met.
inline void ReportAgainstPlainC(const std::string& name, unsigned long long vlak, unsigned long long plain,
                                double outputs, double goal, bool enforce_goal) {
  const double ratio = static_cast<double>(plain) / static_cast<double>(vlak);
  std::printf("[ icount   ] %-26s VLEN %4d: vlak %llu (%.3f per output), plain C clang -O3 %llu (%.3f per output): "
              "%.2fx fewer\n",
              name.c_str(), Vlen(), vlak, static_cast<double>(vlak) / outputs, plain,
              static_cast<double>(plain) / outputs, ratio);
  const Live* mv = FindMeasured(vlak);
  const Live* mp = FindMeasured(plain);
  if (mv != nullptr && mp != nullptr && mv->cycles > 0 && mp->cycles > 0) {
    std::printf("[ cycles   ] %-26s %s: vlak %.3f cycles per output, plain C clang -O3 %.3f: %.2fx fewer\n",
                name.c_str(), mv->model, mv->cycles / outputs, mp->cycles / outputs, mp->cycles / mv->cycles);
  }
  CheckBudget(name, vlak);
  if (enforce_goal) {
    EXPECT_GE(ratio, goal) << name << ": goal >= " << goal << "x fewer than plain C";
  } else if (ratio < goal) {
    std::printf("[ icount   ] %-26s goal >= %gx fewer than plain C: not met\n", name.c_str(), goal);
  }
}

// n floats uniform on [lo, hi) from the top 24 bits of mt19937, drawn in turn from rng (several
// buffers from one generator): the same floats with every standard library.
inline std::vector<float> Uniform(std::mt19937& rng, size_t n, float lo, float hi) {
  std::vector<float> x(n);
  for (float& v : x) v = lo + (hi - lo) * (static_cast<float>(rng() >> 8) * 0x1p-24f);
  return x;
}

// kN of them from a generator of its own.
inline std::vector<float> Uniform(unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  return Uniform(rng, kN, lo, hi);
}

// n bytes (int8_t or uint8_t), each the top 8 bits of a draw from rng.
template <typename Byte>
std::vector<Byte> UniformBytes(std::mt19937& rng, size_t n) {
  std::vector<Byte> x(n);
  for (Byte& v : x) v = static_cast<Byte>(rng() >> 24);
  return x;
}

// base + (i % period) * step for i < n: a per-column parameter (a norm's gamma or beta) that is the
// same at every run and not constant along the row.
inline std::vector<float> Periodic(size_t n, float base, float step, size_t period) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = base + static_cast<float>(i % period) * step;
  return x;
}

class IcountBudget : public testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("VLAK_ICOUNT_LIVE") == nullptr) {
      GTEST_SKIP() << "VLAK_ICOUNT_LIVE is not set: run under scripts/rvv-run (qemu with the qemu-icount plugin), "
                      "e.g. ctest --preset rv64gcv -R icount.budget";
    }
    // The plugin counts a single guest thread.
    ASSERT_EQ(vlak_set_num_threads(1), VLAK_OK);
    ASSERT_EQ(vlak_active_target(), VLAK_TARGET_RVV) << "budgets are for the rvv target (is VLAK_TARGET set?)";
  }
};

}  // namespace vlak_icount
