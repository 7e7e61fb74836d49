// `vlak info`: what this build and this CPU offer, and what kernels will run on.
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "commands.h"
#include "parallel/parallel.h"
#include "vlak/vlak.h"

namespace vlak::cli {

int CmdInfo(int argc, char** /*argv*/) {
  if (argc > 1) {
    std::fprintf(stderr, "vlak info: takes no arguments\n");
    return 2;
  }
  std::printf("vlak %s\n", vlak_version());
  std::printf("targets compiled in:");
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    const auto t = static_cast<vlak_target>(i);
    if (vlak_target_compiled(t)) {
      std::printf(" %s%s", vlak_target_name(t), vlak_target_supported(t) ? "" : " (CPU lacks it)");
    }
  }
  std::printf("\n");
  const vlak_target active = vlak_active_target();
  std::printf("target chosen: %s", vlak_target_name(active));
  const char* forced = std::getenv("VLAK_TARGET");
  if (forced != nullptr && *forced != '\0') std::printf(" (VLAK_TARGET=%s)", forced);
  std::printf("\n");

  std::printf("lanes per register group (LMUL 1 2 4 8):\n");
  for (size_t size : {1, 2, 4, 8}) {
    std::printf("  %zu-bit:", size * 8);
    for (int k = 0; k <= 3; ++k) std::printf(" %zu", vlak_target_lanes(active, k, size));
    std::printf("\n");
  }
  if (active == VLAK_TARGET_RVV) {
    const size_t vlen = vlak_target_lanes(active, 0, 1) * 8;
    std::printf("RVV VLEN: %zu bits\n", vlen);
    std::printf("VLMAX e32: m1=%zu m2=%zu m4=%zu m8=%zu\n", vlak_target_lanes(active, 0, 4),
                vlak_target_lanes(active, 1, 4), vlak_target_lanes(active, 2, 4),
                vlak_target_lanes(active, 3, 4));
  }
  // Threads: what a call may split over, where the default came from, and the pool's costs as
  // the cost model sees them (measured here, once per process).
  const int threads = vlak_get_num_threads();
  const char* env_vlak = std::getenv("VLAK_NUM_THREADS");
  const char* env_omp = std::getenv("OMP_NUM_THREADS");
  std::printf("threads: %d (%s)\n", threads,
              env_vlak != nullptr   ? "VLAK_NUM_THREADS"
              : env_omp != nullptr  ? "OMP_NUM_THREADS"
                                    : "the CPUs of the affinity mask, capped by the cgroup quota");
  if (threads > 1) {
    const ParallelCosts& costs = MeasuredParallelCosts();
    const double wake_now = MeasurePoolWakeNs(threads, 51);
    std::printf("parallel pool: %d workers; wake-up %.1f us at %d threads (median of 51, workers awake); a thread\n"
                "  is woken for >= %.0f us of work (8 x the %.1f us measured at start); copy rate %.0f B/ns\n",
                PoolWorkers(), wake_now / 1e3, threads, MinNsPerThread() / 1e3, costs.wake_ns / 1e3,
                costs.copy_bytes_per_ns);
  }
  if (vlak_target_error() != VLAK_OK) {
    std::fprintf(stderr, "vlak info: VLAK_TARGET=%s cannot be used here (%s); valid: scalar avx2 avx512 rvv\n",
                 forced ? forced : "", vlak_status_string(vlak_target_error()));
    return 1;
  }
  return 0;
}

}  // namespace vlak::cli
