// Kernels written outside vlak (<vlak/sfpi/sfpi_user.h>, <vlak/sfpi/sfpi_dispatch.h>): the kernels of
// sfpi_user_kernels.cc, compiled once per target, through UserKernel and CompareTargets on every
// target this machine (or qemu at each VLEN) runs.
#include <gtest/gtest.h>
#include <vlak/sfpi/sfpi_dispatch.h>

#include <cstdint>
#include <vector>

VLAK_SFPI_DECLARE(twice)
VLAK_SFPI_DECLARE(first_row_half)
VLAK_SFPI_DECLARE(shift)
VLAK_SFPI_DECLARE(target_dependent)
VLAK_SFPI_DECLARE(errors_differ)

namespace {

using vlak::sfpi::Arch;
using vlak::sfpi::Comparison;
using vlak::sfpi::CompareTargets;

size_t SupportedTargets(const vlak::sfpi::UserKernel& k) {
  size_t n = 0;
  for (size_t i = 0; i < k.num_targets(); ++i) n += vlak_target_supported(k.target(i).target) ? 1 : 0;
  return n;
}

std::vector<float> Ramp(size_t tiles) {
  std::vector<float> x(tiles * 1024);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 977) * 0.25f - 100.0f;
  return x;
}

TEST(SfpiUser, CompiledForEveryTargetScalarFirst) {
  ASSERT_GE(vlak_sfpi_user::twice.num_targets(), 1u);
  EXPECT_EQ(vlak_sfpi_user::twice.target(0).target, VLAK_TARGET_SCALAR);
  EXPECT_STREQ(vlak_sfpi_user::twice.name(), "twice");
  const vlak_target best = vlak_sfpi_user::twice.Best();
  EXPECT_TRUE(vlak_target_supported(best));
  EXPECT_NE(vlak_sfpi_user::twice.RunnerFor(best), nullptr);
}

TEST(SfpiUser, RunsOnTheBestTarget) {
  std::vector<float> x = Ramp(3);
  const std::vector<float> in = x;
  ASSERT_EQ(vlak_sfpi_user::twice.Run(x.data(), 3), 0);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i], 2.0f * in[i]) << i;
}

TEST(SfpiUser, InitRunsBeforeTheFaces) {
  std::vector<float> x(1024, 7.0f);
  ASSERT_EQ(vlak_sfpi_user::first_row_half.Run(x.data(), 1), 0);
  // dst_reg[0] of each face: its rows 0-3, even columns (sfpi.h's DstLaneToTile).
  int halves = 0;
  for (float v : x) halves += v == 0.5f;
  EXPECT_EQ(halves, 4 * 32);
  EXPECT_EQ(x[0], 0.5f);
  EXPECT_EQ(x[1], 7.0f);
}

TEST(SfpiUser, BadArgumentsAndTargets) {
  EXPECT_EQ(vlak_sfpi_user::twice.Run(nullptr, 1), -1);
  EXPECT_EQ(vlak_sfpi_user::twice.Run(nullptr, 0), 0);
  float tile[1024] = {};
  // A target this build did not compile (x86 has no rvv, RISC-V no avx2).
  const vlak_target absent = vlak_target_compiled(VLAK_TARGET_RVV) ? VLAK_TARGET_AVX2 : VLAK_TARGET_RVV;
  EXPECT_EQ(vlak_sfpi_user::twice.RunOn(absent, tile, 1), -1);
}

TEST(SfpiUser, ErrorBitsAndArchitecture) {
  std::vector<float> x = Ramp(1);
  vlak::sfpi::SetArch(Arch::kWormhole);
  EXPECT_EQ(vlak_sfpi_user::shift.Run(x.data(), 1), static_cast<int>(vlak::sfpi::kUnsupported));
  vlak::sfpi::SetArch(Arch::kBlackhole);
  EXPECT_EQ(vlak_sfpi_user::shift.Run(x.data(), 1), 0);
  vlak::sfpi::SetArch(Arch::kWormhole);
}

TEST(SfpiUser, CompareTargetsAgrees) {
  const std::vector<float> x = Ramp(4);
  const Comparison c = CompareTargets(vlak_sfpi_user::twice, x.data(), 4);
  EXPECT_TRUE(c.same);
  EXPECT_EQ(c.num_ran, SupportedTargets(vlak_sfpi_user::twice));
  EXPECT_EQ(c.num_ran + c.num_skipped, vlak_sfpi_user::twice.num_targets());
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(SfpiUser, CompareTargetsFindsDifferentBits) {
  if (SupportedTargets(vlak_sfpi_user::target_dependent) < 2) GTEST_SKIP() << "one target on this machine";
  const std::vector<float> x = Ramp(2);
  const Comparison c = CompareTargets(vlak_sfpi_user::target_dependent, x.data(), 2);
  EXPECT_FALSE(c.same);
  EXPECT_FALSE(c.errors_differ);
  // Each face's dst_reg[0] (32 values), 4 faces, 2 tiles, per non-scalar target.
  EXPECT_EQ(c.mismatches, (c.num_ran - 1) * 2 * 4 * 32);
  EXPECT_EQ(c.first_index, 0u);
  EXPECT_EQ(c.first_reference_bits, 0x3f800000u);
  EXPECT_EQ(c.first_bits, 0x40000000u);
}

TEST(SfpiUser, CompareTargetsFindsDifferentErrors) {
  if (SupportedTargets(vlak_sfpi_user::errors_differ) < 2) GTEST_SKIP() << "one target on this machine";
  vlak::sfpi::SetArch(Arch::kWormhole);
  const std::vector<float> x = Ramp(1);
  const Comparison c = CompareTargets(vlak_sfpi_user::errors_differ, x.data(), 1);
  EXPECT_FALSE(c.same);
  EXPECT_TRUE(c.errors_differ);
  EXPECT_EQ(c.errors, static_cast<uint32_t>(vlak::sfpi::kUnsupported));
  EXPECT_EQ(c.target_errors, 0u);
}

}  // namespace
