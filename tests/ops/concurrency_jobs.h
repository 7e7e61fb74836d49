// The jobs of the concurrency test (tests/ops/concurrency_test.cc): each operator registers its own
// from its src/ops/<op>/<op>_test.cc with VLAK_CONCURRENCY_JOBS, so that adding an operator adds
// its jobs without editing a shared file:
//
//   VLAK_CONCURRENCY_JOBS(my_op, in) {
//     std::vector<vlak_test::ConcurrencyJob> jobs;
//     ... jobs.push_back({[=](std::vector<float>& out) { ... }, false}); ...
//     return jobs;   // or, for jobs of float outputs: return {FloatsJob(n, false, [=](float* y) { ... })};
//   }
//
// The registrations run during static initialisation; every test source is linked straight into
// one executable, so none is dropped.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "vlak/vlak.h"

namespace vlak_test {

// One job: computes its outputs into `out` (all outputs concatenated, integer outputs widened to
// float) and returns the status.
struct ConcurrencyJob {
  std::function<vlak_status(std::vector<float>& out)> run;
  // Whether vlak.h promises the same bits on every target (else the result may depend on it):
  // checked on the results alone; while the target changes, every job's result must equal its
  // result alone on one of the targets either way.
  bool same_on_every_target;
};

// What one worker's jobs share, from its RNG seed: r x c floats x ~ N(1, 2) and a row g ~ N(1, 0.3)
// (concurrency_test.cc makes them). Jobs capture the shared pointers, so the inputs live as long as
// the jobs.
struct ConcurrencyInputs {
  uint32_t seed;
  size_t r, c;
  std::shared_ptr<const std::vector<float>> x, g;
};

// A job whose outputs are `floats` floats: out is resized to them, then call(out.data()) writes
// them and returns the status.
template <class Call>
ConcurrencyJob FloatsJob(size_t floats, bool same_on_every_target, Call call) {
  return {[floats, call](std::vector<float>& out) {
            out.resize(floats);
            return call(out.data());
          },
          same_on_every_target};
}

using ConcurrencyJobsFn = std::vector<ConcurrencyJob> (*)(const ConcurrencyInputs& in);

struct ConcurrencyJobsEntry {
  std::string_view name;
  ConcurrencyJobsFn make;
};

// Every registered operator, sorted by name: the jobs' order does not depend on the link order.
inline std::vector<ConcurrencyJobsEntry>& ConcurrencyJobsRegistry() {
  static std::vector<ConcurrencyJobsEntry> registry;
  return registry;
}

inline bool RegisterConcurrencyJobs(std::string_view name, ConcurrencyJobsFn make) {
  auto& registry = ConcurrencyJobsRegistry();
  const auto at = std::upper_bound(registry.begin(), registry.end(), name,
                                   [](std::string_view n, const ConcurrencyJobsEntry& e) { return n < e.name; });
  registry.insert(at, {name, make});
  return true;
}

}  // namespace vlak_test

// VLAK_CONCURRENCY_JOBS(op, in) { ... }: defines and registers, under the name `op`, the function
// returning op's jobs for the inputs `in`. At namespace scope, once per operator.
#define VLAK_CONCURRENCY_JOBS(op, in)                                                                          \
  std::vector<::vlak_test::ConcurrencyJob> VlakConcurrencyJobs_##op(const ::vlak_test::ConcurrencyInputs& in); \
  [[maybe_unused]] const bool vlak_concurrency_jobs_registered_##op =                                          \
      ::vlak_test::RegisterConcurrencyJobs(#op, &VlakConcurrencyJobs_##op);                                    \
  std::vector<::vlak_test::ConcurrencyJob> VlakConcurrencyJobs_##op(const ::vlak_test::ConcurrencyInputs& in)
