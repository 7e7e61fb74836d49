// C API: target names, selection, forcing, lanes.
#include <gtest/gtest.h>

#include <cstring>

#include "vlak/vlak.h"

namespace {

TEST(Api, VersionIsDotted) {
  const char* v = vlak_version();
  ASSERT_NE(v, nullptr);
  EXPECT_NE(std::strchr(v, '.'), nullptr);
}

TEST(Api, TargetNames) {
  EXPECT_STREQ(vlak_target_name(VLAK_TARGET_SCALAR), "scalar");
  EXPECT_STREQ(vlak_target_name(VLAK_TARGET_AVX512), "avx512");
  EXPECT_EQ(vlak_target_name(static_cast<vlak_target>(17)), nullptr);
}

TEST(Api, ScalarAlwaysSupportedAndActiveIsSupported) {
  EXPECT_TRUE(vlak_target_supported(VLAK_TARGET_SCALAR));
  EXPECT_TRUE(vlak_target_supported(vlak_active_target()));
  EXPECT_EQ(vlak_target_error(), VLAK_OK);
}

TEST(Api, SetTargetRefusesUnsupportedAndInvalid) {
  const vlak_target before = vlak_active_target();
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    const auto t = static_cast<vlak_target>(i);
    if (vlak_target_supported(t)) {
      EXPECT_EQ(vlak_set_target(t), VLAK_OK);
      EXPECT_EQ(vlak_active_target(), t);
    } else {
      EXPECT_EQ(vlak_set_target(t), VLAK_ERROR_TARGET_UNAVAILABLE);
    }
  }
  EXPECT_EQ(vlak_set_target(static_cast<vlak_target>(-1)), VLAK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(vlak_set_target(before), VLAK_OK);
}

TEST(Api, LanesScaleWithLmulAndElementSize) {
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    const auto t = static_cast<vlak_target>(i);
    if (!vlak_target_supported(t)) {
      EXPECT_EQ(vlak_target_lanes(t, 0, 4), 0u);
      continue;
    }
    const size_t base = vlak_target_lanes(t, 0, 1);
    EXPECT_GE(base, 16u) << vlak_target_name(t);
    for (int k = 0; k <= 3; ++k) {
      for (size_t size : {1, 2, 4, 8}) {
        EXPECT_EQ(vlak_target_lanes(t, k, size), (base << k) / size) << vlak_target_name(t);
      }
    }
  }
  EXPECT_EQ(vlak_target_lanes(VLAK_TARGET_SCALAR, 4, 4), 0u);
  EXPECT_EQ(vlak_target_lanes(VLAK_TARGET_SCALAR, 0, 3), 0u);
}

TEST(Api, StatusStrings) {
  EXPECT_STREQ(vlak_status_string(VLAK_OK), "ok");
  EXPECT_STRNE(vlak_status_string(VLAK_ERROR_NULL_POINTER), "unknown status");
}

}  // namespace
