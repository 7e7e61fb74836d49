// The quick way, one target for the whole program: the tt-llk-style kernel header at global scope,
// run with sfpi::RunTile. No dispatch, no per-target build and no library to link:
//
//   c++ -std=c++20 -O2 -DVLAK_SFPI_SCALAR -I<prefix>/include -I<prefix>/include/vlak/sfpi/compat
//       -Ikernels one_target.cc -o one_target
//   (or -march=native -DVLAK_SFPI_NATIVE: the best target the compiler's ISA flags enable)
#include <vlak/sfpi/sfpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "ckernel_sfpu_softplus.h"

int main() {
  std::vector<float> tile(1024);  // one 32 x 32 tile, row-major
  for (int i = 0; i < 1024; ++i) tile[i] = (i - 512) / 16.0f;
  const std::vector<float> x = tile;
  // init once per tile, the body once per 16 x 16 face: as the LLK API calls them.
  const uint32_t err = sfpi::RunTile(ckernel::sfpu::calculate_softplus<false, 8>, tile.data(),
                                     ckernel::sfpu::softplus_init<false>);
  double max_rel = 0;
  for (int i = 0; i < 1024; ++i) {
    const double ref = std::log1p(std::exp(-std::fabs(x[i]))) + std::fmax(x[i], 0.0);
    max_rel = std::fmax(max_rel, std::fabs(tile[i] - ref) / ref);
  }
  std::printf("softplus on one tile (%s): x = -32 .. 32, max rel error %.3g, errors %u\n",
              sfpi::kTargetName, max_rel, err);
  return err == 0 && max_rel < 1e-6 ? 0 : 1;
}
