// `vlak info`: what this build and this CPU offer, and what kernels will run on.
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "commands.h"
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
  if (vlak_target_error() != VLAK_OK) {
    std::fprintf(stderr, "vlak info: VLAK_TARGET=%s cannot be used here (%s); valid: scalar avx2 avx512 rvv\n",
                 forced ? forced : "", vlak_status_string(vlak_target_error()));
    return 1;
  }
  return 0;
}

}  // namespace vlak::cli
