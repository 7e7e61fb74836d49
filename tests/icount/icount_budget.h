// Instruction budgets on RISC-V: retired instructions of one call, counted by the qemu-icount
// plugin between vlak_icount_begin()/end() and read back from its live file (VLAK_ICOUNT_LIVE),
// compared with a per-VLEN budget. One test binary (ctest: icount.budget.vlen<V>) holds
// tests/icount/icount_budget_test.cc and every src/ops/<op>/<op>_icount.cc; run it under scripts/rvv-run:
//   scripts/rvv-run --vlen 256 build/rv64gcv/tests/vlak_icount_budget_test
// Every count is printed, also where the VLEN has no budget, so the log is the measurement.
//
// Cycle budgets: rvv-run has the plugin weight each region's instructions by the cost table
// (tools/qemu-icount/rvv-costs.tsv: llvm-mca-22's reciprocal throughput per mnemonic and SEW/LMUL
// on the model whose VLEN is qemu's; docs/riscv.md#cycles). CheckBudget prints those cycles beside
// the instructions and, at VLEN 256 (the SpacemiT X60 model), checks them against the case's cycle
// budget (the last column of its Budget row). Measured values of every case, and the tables'
// cycle column rewritten to them: scripts/rvv-cycles --budgets [--write].
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <random>
#include <span>
#include <string>
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
// printed). Budgets only go down: when a change lowers a count, lower its budget in its table in
// the same commit. Each budget is the count the code reached when it was set, so a change that
// adds an instruction fails here. The x60 column is scripts/rvv-cycles --budgets --write's to set.
struct Budget {
  const char* name;
  unsigned long long vlen128, vlen256, vlen512;
  unsigned long long x60 = 0;
};

// The model whose cycles are budgeted, and its VLEN.
inline constexpr const char* kCycleModel = "spacemit-x60";
inline constexpr int kCycleVlen = 256;

// The tables of every file of the binary: budgets, and goals where they are not yet met (printed
// beside the count, not asserted; their x60 column is unused).
struct BudgetTables {
  std::vector<std::span<const Budget>> budgets, goals;
};

inline BudgetTables& RegisteredTables() {
  static BudgetTables tables;
  return tables;
}

// A file's table of budgets (or of goals), registered when it is made (at static initialisation) so
// that CheckBudget finds a case by its name from any test of the binary. A file's form (inside its
// anonymous namespace, after `using namespace vlak_icount;`; scripts/rvv-cycles --budgets --write
// finds a case's row in kBudgets by its name and sets, or appends, the row's fifth field):
//   const BudgetTable kBudgets({
//       // case                       VLEN 128    256    512   X60 cycles
//       {"op_f32/16x2048",               40835, 21379, 11651,   73427},
//   });
//   const BudgetTable kGoals({...}, BudgetTable::kGoals);  // where a file has goals
class BudgetTable {
 public:
  enum Kind { kBudgets, kGoals };
  BudgetTable(std::initializer_list<Budget> rows, Kind kind = kBudgets) : rows_(rows) {
    (kind == kGoals ? RegisteredTables().goals : RegisteredTables().budgets).push_back(rows_);
  }
  BudgetTable(const BudgetTable&) = delete;
  BudgetTable& operator=(const BudgetTable&) = delete;

 private:
  std::vector<Budget> rows_;
};

inline int Vlen() {
  unsigned long vlenb;
  __asm__ volatile("csrr %0, vlenb" : "=r"(vlenb));
  return static_cast<int>(vlenb * 8);
}

// A case's row in tables, nullptr if none.
inline const Budget* FindRow(const std::vector<std::span<const Budget>>& tables, const std::string& name) {
  for (const std::span<const Budget> table : tables) {
    for (const Budget& b : table) {
      if (name == b.name) return &b;
    }
  }
  return nullptr;
}

// The budget (or goal) of a case at a VLEN, 0 if none.
inline unsigned long long FindBudget(const std::vector<std::span<const Budget>>& tables, const std::string& name,
                                     int vlen) {
  const Budget* b = FindRow(tables, name);
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
    EXPECT_LE(m->cycles, static_cast<double>(budget)) << name << " is over its cycle budget on " << kCycleModel;
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
  if (budget != 0) EXPECT_LE(count, budget) << name << " at VLEN " << vlen << " is over its instruction budget";
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
