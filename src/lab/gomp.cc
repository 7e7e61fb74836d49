#include "lab/gomp.h"

#include <thread>
#include <vector>

#if defined(VLAK_LAB_HAVE_GOMP)
// libgomp's ABI (GCC's libgomp/libgomp_g.h and omp.h; stable since GCC 4.9). omp.h is not
// included: under clang it would be LLVM's, whose runtime the lab does not link.
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
void omp_set_num_threads(int n);
}
#endif

namespace vlak::lab {

const char* LabThreadRuntime() {
#if defined(VLAK_LAB_HAVE_GOMP)
  return "libgomp";
#else
  return "std::thread";
#endif
}

void SetOmpThreads(int threads) {
#if defined(VLAK_LAB_HAVE_GOMP)
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}

#if defined(VLAK_LAB_HAVE_GOMP)
namespace {

struct Region {
  const std::function<void(int)>* fn;
  int n;
};

// Every team member takes i = its number, then steps by the team size: a team smaller than asked
// (OMP_THREAD_LIMIT, a nested region) still covers every i.
void RegionBody(void* data) {
  const auto* r = static_cast<const Region*>(data);
  const int step = omp_get_num_threads();
  for (int i = omp_get_thread_num(); i < r->n; i += step) (*r->fn)(i);
}

}  // namespace
#endif

void RunOnThreads(int n, const std::function<void(int)>& fn) {
  if (n <= 1) {
    if (n == 1) fn(0);
    return;
  }
#if defined(VLAK_LAB_HAVE_GOMP)
  Region r{&fn, n};
  GOMP_parallel(RegionBody, &r, static_cast<unsigned>(n), 0);
#else
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(fn, i);
  fn(0);
  for (auto& th : pool) th.join();
#endif
}

}  // namespace vlak::lab
