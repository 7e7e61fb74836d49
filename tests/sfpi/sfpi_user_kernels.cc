// Kernels for sfpi_user_test.cc, compiled once per target as vlak_add_sfpi_kernels compiles a
// user's source. Two of them differ between targets on purpose, so that the test can check that
// CompareTargets notices.
#include <vlak/sfpi/sfpi.h>

VLAK_SFPI_BEGIN

using namespace sfpi;

namespace {
// True in the scalar copy only.
constexpr bool kScalar = kTargetName[0] == 's';
}  // namespace

void Twice() {
  for (int i = 0; i < 8; ++i) {
    vFloat x = dst_reg[0];
    dst_reg[0] = x + x;
    dst_reg++;
  }
}

// vInt >> is Blackhole-only: on Wormhole the run reports kUnsupported.
void Shift() {
  vInt x = dst_reg[0];
  dst_reg[0] = x >> 1;
}

void Init() { vConstFloatPrgm0 = 0.5f; }

VLAK_SFPI_KERNEL(twice, nullptr, Twice)
VLAK_SFPI_KERNEL(first_row_half, Init, [] { dst_reg[0] = vConstFloatPrgm0; })
VLAK_SFPI_KERNEL(shift, nullptr, Shift)
// Wrong on purpose: tile value 5 (row 0, column 5) gets other bits outside the scalar copy.
VLAK_SFPI_KERNEL(target_dependent, nullptr, [] { dst_reg[0] = vFloat(kScalar ? 1.0f : 2.0f); })
// Wrong on purpose: only the scalar copy shifts, so only it reports kUnsupported on Wormhole.
VLAK_SFPI_KERNEL(errors_differ, nullptr, [] {
  if (kScalar) Shift();
})

VLAK_SFPI_END
