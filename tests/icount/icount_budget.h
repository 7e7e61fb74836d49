// Instruction budgets on RISC-V: retired instructions of one call, counted by the qemu-icount
// plugin between vlak_icount_begin()/end() and read back from its live file (VLAK_ICOUNT_LIVE),
// compared with a per-VLEN budget. One test binary (ctest: icount.budget.vlen<V>) holds
// tests/icount/icount_budget_test.cc and every src/ops/<op>/<op>_icount.cc; run it under scripts/rvv-run:
//   scripts/rvv-run --vlen 256 build/rv64gcv/tests/vlak_icount_budget_test
// Every count is printed, also where the VLEN has no budget, so the log is the measurement.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "icount_marker.h"
#include "vlak/vlak.h"

#if !defined(__riscv_vector)
#error "the instruction budget test is a riscv64 guest program for the rv64gcv build"
#endif

// A named namespace, not an anonymous one: the tests of every file share one fixture class (gtest
// requires it of a test suite) and one table of registered budgets.
namespace vlak_icount {

inline constexpr size_t kN = 2048;

// Budgets in retired instructions for one call (n = 2048, after a warm-up call), per VLEN; 0 = no
// budget at that VLEN (the count is only printed). Budgets only go down: when a change lowers a
// count, lower its budget in its table in the same commit. Each budget is the count the code
// reached when it was set, so a change that adds an instruction fails here.
struct Budget {
  const char* name;
  unsigned long long vlen128, vlen256, vlen512;
};

// The tables of every file of the binary: budgets, and goals where they are not yet met (printed
// beside the count, not asserted).
struct BudgetTables {
  std::vector<std::span<const Budget>> budgets, goals;
};

inline BudgetTables& RegisteredTables() {
  static BudgetTables tables;
  return tables;
}

// Registers a file's tables at static initialisation, so that CheckBudget finds a case by its name
// from any test of the binary:
//   const bool kRegistered = vlak_icount::RegisterBudgets(kBudgets);
inline bool RegisterBudgets(std::span<const Budget> budgets, std::span<const Budget> goals = {}) {
  RegisteredTables().budgets.push_back(budgets);
  if (!goals.empty()) RegisteredTables().goals.push_back(goals);
  return true;
}

inline int Vlen() {
  unsigned long vlenb;
  __asm__ volatile("csrr %0, vlenb" : "=r"(vlenb));
  return static_cast<int>(vlenb * 8);
}

// The budget (or goal) of a case at a VLEN, 0 if none.
inline unsigned long long FindBudget(const std::vector<std::span<const Budget>>& tables, const std::string& name,
                                     int vlen) {
  for (const std::span<const Budget> table : tables) {
    for (const Budget& b : table) {
      if (name != b.name) continue;
      if (vlen == 128) return b.vlen128;
      if (vlen == 256) return b.vlen256;
      if (vlen == 512) return b.vlen512;
    }
  }
  return 0;
}

// The plugin rewrites its live file at every end marker:
//   vlak-icount-live last=<N> region=<N> regions=<K>
struct Live {
  unsigned long long last = 0;
  unsigned long long regions = 0;
};

inline bool ReadLive(Live& live) {
  const char* path = std::getenv("VLAK_ICOUNT_LIVE");
  if (path == nullptr) return false;
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  const bool ok = std::fscanf(f, "vlak-icount-live last=%llu region=%*llu regions=%llu", &live.last, &live.regions) == 2;
  std::fclose(f);
  return ok;
}

// Retired instructions of call(), which must be observable through memory (see icount_marker.h).
template <typename Call>
unsigned long long Count(Call call) {
  Live before;
  if (!ReadLive(before)) before.regions = 0;  // no region closed yet: the file is still empty
  vlak_icount_begin();
  call();
  vlak_icount_end();
  Live after;
  if (!ReadLive(after)) {
    ADD_FAILURE() << "cannot read the plugin's live file " << std::getenv("VLAK_ICOUNT_LIVE");
    return 0;
  }
  EXPECT_EQ(after.regions, before.regions + 1) << "the live file does not hold this region's count";
  return after.last;
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

// CountAfterWarmUp's count, printed per element and checked against the case's budget.
template <typename Call>
void MeasurePerElement(const std::string& name, size_t elements, Call call) {
  unsigned long long count = 0;
  ASSERT_NO_FATAL_FAILURE(CountAfterWarmUp(call, count));
  std::printf("[ icount   ] %-26s %.3f instructions/element\n", name.c_str(), static_cast<double>(count) / elements);
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
  CheckBudget(name, vlak);
  if (enforce_goal) {
    EXPECT_GE(ratio, goal) << name << ": goal >= " << goal << "x fewer than plain C";
  } else if (ratio < goal) {
    std::printf("[ icount   ] %-26s goal >= %gx fewer than plain C: not met\n", name.c_str(), goal);
  }
}

// Uniform [lo, hi) from the top 24 bits of mt19937: the same floats with every standard library.
inline std::vector<float> Uniform(unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::vector<float> x(kN);
  for (float& v : x) v = lo + (hi - lo) * (static_cast<float>(rng() >> 8) * 0x1p-24f);
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
