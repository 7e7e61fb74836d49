// vlak::sfpi::RunKernel: argument checks, target dispatch and tiles over threads.
#include <atomic>
#include <cstring>

#include "dispatch/dispatch.h"
#include "ops/parallel_rows.h"
#include "sfpi/kernels/kernels.h"
#include "vlak/sfpi.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_SFPI_KERNELS)
namespace n_scalar::sfpi_kernels {
const ::vlak::sfpi::KernelInfo* Kernels(size_t* count);
}
}  // namespace vlak

namespace vlak::sfpi {

const KernelInfo* Kernels(size_t* count) { return ::vlak::n_scalar::sfpi_kernels::Kernels(count); }

int RunKernel(const char* name, float* tiles, size_t n_tiles, uint32_t seed) {
  if (name == nullptr || (tiles == nullptr && n_tiles > 0)) return -1;
  size_t count;
  const KernelInfo* table = Kernels(&count);
  size_t k = 0;
  while (k < count && std::strcmp(table[k].name, name) != 0) ++k;
  if (k == count) return -1;
  if (n_tiles == 0) return 0;
  auto* const run = Dispatch(kSfpiRunTiles);
  std::atomic<uint32_t> err{0};
  // A tile is ~10^4-10^5 lane operations: counted as 32K float elements of a row operator.
  ForEachRowChunk(n_tiles, 1024 * 32, [&](int, size_t begin, size_t end) {
    err.fetch_or(run(k, tiles, begin, end, seed), std::memory_order_relaxed);
  });
  return static_cast<int>(err.load());
}

}  // namespace vlak::sfpi
