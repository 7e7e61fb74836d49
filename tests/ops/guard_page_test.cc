// Entry points outside src/ops/ with their inputs and outputs ending at an inaccessible page, for
// every length 1 .. MaxLength() (ops_test_util.h), on every target: a read or write past the last
// element faults and fails the test. Under qemu this runs at each VLEN. Here: exp (src/math) and
// the SFPI kernels; each operator's own rows (GuardPages.<Op>) are in its src/ops/<op>/<op>_test.cc,
// next to its other tests, so that adding an operator adds its rows without editing this file.
#include <gtest/gtest.h>

#include <cmath>

#include "ops/ops_test_util.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using namespace vlak_test;

TEST(GuardPages, Exp) {
  ForEachTarget([] {
    for (size_t n = 1; n <= MaxLength(); ++n) {
      GuardedFloats x(2 * n), e(n);
      ASSERT_EQ(vlak_exp_f32(n, x.data(), e.data(), VLAK_EXP_ACCURATE), VLAK_OK);
      ASSERT_TRUE(std::isfinite(e.data()[n - 1])) << n;
    }
  });
}

// SFPI kernels (C++ API, vlak/sfpi.h): 1 .. 3 tiles ending at the guard page, every kernel.
TEST(GuardPages, SfpiKernels) {
  ForEachTarget([] {
    size_t count;
    const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
    for (size_t i = 0; i < count; ++i) {
      for (size_t tiles = 1; tiles <= 3; ++tiles) {
        GuardedFloats t(tiles * 1024);
        ASSERT_EQ(::vlak::sfpi::RunKernel(k[i].name, t.data(), tiles), 0) << k[i].name;
      }
    }
  });
}

}  // namespace
