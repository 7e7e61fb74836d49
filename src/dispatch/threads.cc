#include "dispatch/threads.h"

#include <atomic>

#include "vlak/vlak.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace vlak {
namespace {
std::atomic<int> g_threads{0};  // 0: follow OpenMP's default
}  // namespace

int NumThreads() {
  const int n = g_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace vlak

extern "C" vlak_status vlak_set_num_threads(int n) {
  if (n < 0) return VLAK_ERROR_INVALID_ARGUMENT;
  vlak::g_threads.store(n, std::memory_order_relaxed);
  return VLAK_OK;
}

extern "C" int vlak_get_num_threads(void) { return vlak::NumThreads(); }
